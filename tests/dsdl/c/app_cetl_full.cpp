// A CETL array that cannot grow (cetl++14-17, built without exceptions, where CETL's
// VariableLengthArray stops at what it could allocate instead of throwing): deserialization
// reports a bad array length and writes nothing past the elements the array holds.
#include "uavcan/primitive/array/Real32_1_0.hpp"

#include "cetl/pf17/byte.hpp"
#include "cetl/pf17/sys/memory_resource.hpp"

#include <array>
#include <cstdint>
#include <cstdio>

int main()
{
    using uavcan::primitive::array::Real32_1_0;
    std::array<std::uint8_t, 1U + (4U * 40U)> in{};
    in[0] = 40U;  // forty float32 elements
    for (std::size_t k = 0U; k < 40U; ++k)
    {
        in[1U + (4U * k) + 3U] = 0x3FU;  // each 0.5f
    }
    for (const std::size_t room : {std::size_t{64U}, std::size_t{512U}})
    {
        std::array<cetl::pf17::byte, 512U> storage{};
        cetl::pf17::pmr::monotonic_buffer_resource mbr{storage.data(), room, cetl::pf17::pmr::null_memory_resource()};
        Real32_1_0 x{Real32_1_0::allocator_type{&mbr}};
        const auto r = deserialize(x, {in.data(), in.size()});
        std::printf("room %zu: %s %d, %zu elements\n", room, r.has_value() ? "ok" : "error",
                    r.has_value() ? static_cast<int>(r.value()) : static_cast<int>(r.error()), x.value.size());
    }
    return 0;
}
