// An application of nunavut 3.1's C++ API with PMR allocators (--language-standard c++17-pmr):
// which memory resource each container of an object allocates from, through construction with
// an allocator, deserialization, copies and moves with and without an allocator, unions of
// variable and of fixed size.  It must build and print the same with every producer's headers
// (tests/dsdl/test_dsdl_cpp.py); "yes" is a property the test requires, where an assignment
// leaves a vector is printed as it is.
#include "corner/Level2_1_0.hpp"
#include "corner/U_1_0.hpp"
#include "uavcan/_register/Value_1_0.hpp"
#include "uavcan/node/Heartbeat_1_0.hpp"
#include "uavcan/node/port/ID_1_0.hpp"
#include "uavcan/node/port/List_1_0.hpp"

#include <array>
#include <cstdio>
#include <memory_resource>
#include <utility>

namespace
{
/// A memory resource that counts its allocations.
class Counting final : public std::pmr::memory_resource
{
public:
    std::size_t allocations = 0U;

private:
    void* do_allocate(std::size_t bytes, std::size_t alignment) override
    {
        ++allocations;
        return std::pmr::new_delete_resource()->allocate(bytes, alignment);
    }
    void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override
    {
        std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
    }
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override
    {
        return this == &other;
    }
};

const char* yes(bool b)
{
    return b ? "yes" : "NO";
}

template <typename Vector>
bool on(const Vector& v, const std::pmr::memory_resource& r)
{
    return v.get_allocator().resource() == &r;
}

/// Which resource a vector allocates from (an assignment's choice is the classes' own).
template <typename Vector>
const char* which(const Vector& v, const std::pmr::memory_resource& a, const std::pmr::memory_resource& b)
{
    const std::pmr::memory_resource* const r = v.get_allocator().resource();
    return (r == &a) ? "a" : (r == &b) ? "b" : (r == std::pmr::get_default_resource()) ? "default" : "another";
}

std::array<std::uint8_t, uavcan::node::port::List_1_0::_traits_::SerializationBufferSizeBytes> buffer{};

}  // namespace

int main()
{
    using uavcan::node::port::List_1_0;
    Counting a, b;

    List_1_0 list{List_1_0::allocator_type{&a}};
    auto&    sparse = list.publishers.set_sparse_list();
    sparse.resize(3U);
    sparse[1].value = 7U;
    std::printf("set_x vector on the object's resource: %s\n", yes(on(sparse, a) && (a.allocations > 0U)));
    auto r = serialize(list, {buffer.data(), buffer.size()});
    std::printf("serialized %zu bytes\n", r.value());

    List_1_0 back{List_1_0::allocator_type{&b}};
    r = deserialize(back, {buffer.data(), r.value()});
    std::printf("deserialized %zu bytes, sparse list of %zu\n", r.value(), back.publishers.get_sparse_list().size());
    std::printf("deserialized vector on the object's resource: %s\n",
                yes(on(back.publishers.get_sparse_list(), b) && (b.allocations > 0U)));

    const List_1_0 copied{back, List_1_0::allocator_type{&a}};
    std::printf("copy with allocator: %s\n",
                yes(on(copied.publishers.get_sparse_list(), a) && (copied.publishers.get_sparse_list()[1].value == 7U)));
    List_1_0 tmp{back};
    const List_1_0 moved{std::move(tmp), List_1_0::allocator_type{&b}};
    std::printf("move with allocator: %s\n", yes(on(moved.publishers.get_sparse_list(), b)));
    const List_1_0 plain{back};
    std::printf("plain copy on the default resource: %s\n",
                yes(on(plain.publishers.get_sparse_list(), *std::pmr::get_default_resource())));

    using uavcan::_register::Value_1_0;
    Value_1_0 v{std::in_place_index_t<Value_1_0::VariantType::IndexOf::natural16>{},
                uavcan::primitive::array::Natural16_1_0{}, Value_1_0::allocator_type{&a}};
    v.get_natural16().value.push_back(5U);
    std::printf("initializing constructor: %s\n", yes(v.is_natural16() && on(v.get_natural16().value, a)));
    Value_1_0 w{Value_1_0::allocator_type{&b}};
    w = v;
    std::printf("assigned: %s, vector on %s\n", yes(w.is_natural16() && (w.get_natural16().value.at(0) == 5U)),
                which(w.get_natural16().value, a, b));
    const Value_1_0 x{v, Value_1_0::allocator_type{&b}};
    std::printf("union copy with allocator: %s\n", yes(on(x.get_natural16().value, b)));
    w = Value_1_0{v, Value_1_0::allocator_type{&a}};
    std::printf("move-assigned: %s, vector on %s\n", yes(w.is_natural16() && (w.get_natural16().value.at(0) == 5U)),
                which(w.get_natural16().value, a, b));

    uavcan::node::port::ID_1_0 id{uavcan::node::port::ID_1_0::allocator_type{&a}};
    id.set_service_id().value = 42U;
    const uavcan::node::port::ID_1_0 id2{id, uavcan::node::port::ID_1_0::allocator_type{&b}};
    std::printf("fixed-size union copy: %s\n", yes(id2.is_service_id() && (id2.get_service_id().value == 42U)));

    const uavcan::node::Heartbeat_1_0 hb{5U, uavcan::node::Health_1_0{2U}, uavcan::node::Mode_1_0{1U}, 3U};
    r = serialize(hb, {buffer.data(), buffer.size()});
    std::printf("heartbeat from the initializing constructor: %zu bytes, %02x %02x %02x %02x %02x %02x %02x\n",
                r.value(), buffer[0], buffer[1], buffer[2], buffer[3], buffer[4], buffer[5], buffer[6]);

    corner::Level2_1_0 l2{corner::Level2_1_0::allocator_type{&a}};
    std::printf("fixed array of classes, allocator constructor: %s\n", yes(!l2.flag));
    corner::U_1_0 u{corner::U_1_0::allocator_type{&a}};
    u.set_small(3U);
    u.set_bits().push_back(true);
    std::printf("bool vector alternative on the object's resource: %s\n", yes(on(u.get_bits(), a)));
    r = serialize(u, {buffer.data(), buffer.size()});
    corner::U_1_0 u2{corner::U_1_0::allocator_type{&b}};
    r = deserialize(u2, {buffer.data(), r.value()});
    std::printf("union deserialized on the object's resource: %s\n",
                yes(u2.is_bits() && (u2.get_bits().size() == 1U) && on(u2.get_bits(), b)));
    return 0;
}
