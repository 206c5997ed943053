// A small node application written against nunavut 3.1's C++ API (--target-language cpp
// --language-standard c++17): it must build and print the same with every producer's headers
// (tests/dsdl/test_dsdl_cpp.py), with and without exceptions and RTTI.
#include "nunavut/support/serialization.hpp"
#include "uavcan/_register/Access_1_0.hpp"
#include "uavcan/node/GetInfo_1_0.hpp"
#include "uavcan/node/Heartbeat_1_0.hpp"
#include "uavcan/node/port/List_1_0.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace
{
using nunavut::support::bitspan;
using nunavut::support::const_bitspan;
using nunavut::support::Error;
using nunavut::support::SerializeResult;

std::array<std::uint8_t, uavcan::node::port::List_1_0::_traits_::SerializationBufferSizeBytes> buffer{};

void show(const char* what, const SerializeResult& r, const std::uint8_t* bytes)
{
    const int         rc   = r.has_value() ? 0 : -static_cast<int>(r.error());
    const std::size_t size = r.has_value() ? r.value() : 0U;
    std::printf("%s: rc=%d size=%zu bytes=", what, rc, size);
    for (std::size_t i = 0; i < size; i++)
    {
        std::printf("%02x", bytes[i]);
    }
    std::printf("\n");
}

const char* error_name(const SerializeResult& r)
{
    if (r.has_value())
    {
        return "no error";
    }
    switch (r.error())
    {
    case Error::SerializationBufferTooSmall:
        return "too small";
    case Error::SerializationBadArrayLength:
        return "bad array length";
    case Error::RepresentationBadUnionTag:
        return "bad union tag";
    case Error::RepresentationBadDelimiterHeader:
        return "bad delimiter header";
    }
    return "?";
}

void heartbeat()
{
    using uavcan::node::Heartbeat_1_0;
    Heartbeat_1_0 hb{};
    hb.uptime                      = 123456U;
    hb.health.value                = uavcan::node::Health_1_0::WARNING;
    hb.mode.value                  = uavcan::node::Mode_1_0::MAINTENANCE;
    hb.vendor_specific_status_code = 0xA5U;
    std::array<std::uint8_t, Heartbeat_1_0::_traits_::SerializationBufferSizeBytes> out{};
    auto r = serialize(hb, bitspan{out});
    show("heartbeat", r, out.data());
    Heartbeat_1_0 back{};
    r = deserialize(back, const_bitspan{out.data(), out.size()});
    std::printf("heartbeat back: size=%zu uptime=%lu health=%u mode=%u vssc=%u\n", r.value(),
                static_cast<unsigned long>(back.uptime), static_cast<unsigned>(back.health.value),
                static_cast<unsigned>(back.mode.value), static_cast<unsigned>(back.vendor_specific_status_code));
    r = deserialize(back, const_bitspan{out.data(), 3U});  // implicit zero extension
    std::printf("heartbeat short: size=%zu uptime=%lu health=%u\n", r.value(), static_cast<unsigned long>(back.uptime),
                static_cast<unsigned>(back.health.value));
    r = serialize(hb, bitspan{out.data(), out.size() - 1U});
    std::printf("heartbeat small buffer: %s\n", error_name(r));
    std::array<std::uint8_t, 9U> odd{};  // at byte 1 of a span
    for (const std::size_t at : {8U})
    {
        odd.fill(0xFFU);
        r = serialize(hb, bitspan{odd.data(), odd.size(), at});
        std::printf("heartbeat at bit %zu: end=%zu", at, r.value());
        show(" bytes", SerializeResult{odd.size()}, odd.data());
        Heartbeat_1_0 again{};
        r = deserialize(again, const_bitspan{odd.data(), odd.size(), at});
        std::printf("heartbeat from bit %zu: end=%zu uptime=%lu vssc=%u\n", at, r.value(),
                    static_cast<unsigned long>(again.uptime), static_cast<unsigned>(again.vendor_specific_status_code));
    }
    std::printf("heartbeat port=%u fixed=%d service=%d name=%s extent=%zu max=%zu period=%u\n",
                static_cast<unsigned>(Heartbeat_1_0::_traits_::FixedPortId),
                static_cast<int>(Heartbeat_1_0::_traits_::HasFixedPortID),
                static_cast<int>(Heartbeat_1_0::_traits_::IsServiceType),
                Heartbeat_1_0::_traits_::FullNameAndVersion(), Heartbeat_1_0::_traits_::ExtentBytes,
                Heartbeat_1_0::_traits_::SerializationBufferSizeBytes,
                static_cast<unsigned>(Heartbeat_1_0::MAX_PUBLICATION_PERIOD));
}

void register_access()
{
    using uavcan::_register::Access_1_0;
    Access_1_0::Request req{};
    const std::string name = "motor.pwm.limits";
    req.name.name.assign(name.begin(), name.end());
    auto& n16 = req.value.set_natural16();
    n16.value = {1000U, 1500U, 65535U};
    auto r = serialize(req, bitspan{buffer.data(), Access_1_0::Request::_traits_::SerializationBufferSizeBytes});
    show("access request", r, buffer.data());
    const std::size_t size = r.value();
    Access_1_0::Request back{};
    const auto          b = deserialize(back, const_bitspan{buffer.data(), size});
    std::printf("access back: size=%zu name=%s natural16=%d empty=%d count=%zu last=%u\n", b.value(),
                std::string(back.name.name.begin(), back.name.name.end()).c_str(),
                static_cast<int>(back.value.is_natural16()), static_cast<int>(back.value.is_empty()),
                back.value.get_natural16().value.size(), static_cast<unsigned>(back.value.get_natural16().value[2]));
    buffer[1U + name.size()] = 200U;  // the union tag of the value: no such field
    std::printf("access bad tag: %s\n", error_name(deserialize(back, const_bitspan{buffer.data(), size})));
    req.name.name.resize(Access_1_0::Request::_traits_::SerializationBufferSizeBytes);  // past its capacity
    std::printf("access long name: %s\n", error_name(serialize(req, bitspan{buffer.data(), buffer.size()})));

    Access_1_0::Response resp{};
    resp.timestamp.microsecond = 0x0102030405060708ULL;
    resp._mutable              = true;
    resp.persistent            = false;
    auto& bits                 = resp.value.set_bit().value;
    bits.resize(11U);
    bits[0]  = true;
    bits[9]  = true;
    bits[10] = true;
    r        = serialize(resp, bitspan{buffer.data(), buffer.size()});
    show("access response", r, buffer.data());
    Access_1_0::Response rback{};
    const auto           rb = deserialize(rback, const_bitspan{buffer.data(), r.value()});
    std::printf("access response back: size=%zu mutable=%d bit=%d count=%zu bits=%d%d%d\n", rb.value(),
                static_cast<int>(rback._mutable), static_cast<int>(rback.value.is_bit()),
                rback.value.get_bit().value.size(), static_cast<int>(rback.value.get_bit().value[0]),
                static_cast<int>(rback.value.get_bit().value[1]), static_cast<int>(rback.value.get_bit().value[10]));
    uavcan::_register::Value_1_0 text{};
    std::printf("value initialized empty=%d index=%zu\n", static_cast<int>(text.is_empty()), text.union_value.index());
    text.set_string().value = {'h', 'e', 'l', 'l', 'o'};
    r                       = serialize(text, bitspan{buffer.data(), buffer.size()});
    show("value string", r, buffer.data());
    std::printf("value string index=%zu of %zu\n", text.union_value.index(),
                uavcan::_register::Value_1_0::VariantType::MAX_INDEX);
}

void port_list()
{
    using uavcan::node::port::List_1_0;
    static List_1_0 list{};
    list.publishers.set_sparse_list();
    list.publishers.get_sparse_list().resize(3U);
    list.publishers.get_sparse_list()[0].value = 7509U;
    list.publishers.get_sparse_list()[1].value = 100U;
    list.publishers.get_sparse_list()[2].value = 8191U;
    auto& mask                                 = list.subscribers.set_mask();
    mask.set(42U);
    mask.set(8191U);
    list.servers.mask.set(430U);
    list.servers.mask.set(384U);
    const auto r = serialize(list, bitspan{buffer.data(), buffer.size()});
    std::printf("port list: size=%zu head=%02x%02x%02x%02x%02x%02x extent=%zu\n", r.value(), buffer[0], buffer[1],
                buffer[2], buffer[3], buffer[4], buffer[5], List_1_0::_traits_::ExtentBytes);
    show("port list tail", SerializeResult{16U}, buffer.data() + r.value() - 16U);
    static List_1_0 back{};
    const auto      b = deserialize(back, const_bitspan{buffer.data(), r.value()});
    std::printf("port list back: size=%zu sparse=%d count=%zu last=%u mask=%d bits=%d%d%d total=%d servers=%d%d\n",
                b.value(), static_cast<int>(back.publishers.is_sparse_list()),
                back.publishers.get_sparse_list().size(),
                static_cast<unsigned>(back.publishers.get_sparse_list()[2].value),
                static_cast<int>(back.subscribers.is_mask()), static_cast<int>(back.subscribers.get_mask()[41]),
                static_cast<int>(back.subscribers.get_mask()[42]), static_cast<int>(back.subscribers.get_mask()[8191]),
                static_cast<int>(back.publishers.is_total()), static_cast<int>(back.servers.mask[430]),
                static_cast<int>(back.clients.mask[430]));
}

void get_info()
{
    using uavcan::node::GetInfo_1_0;
    GetInfo_1_0::Request req{};
    std::uint8_t         small[1] = {0};
    auto                 r        = serialize(req, bitspan{&small[0], 0U});
    std::printf("get info request: size=%zu port=%u service=%d request=%d response=%d name=%s\n", r.value(),
                static_cast<unsigned>(GetInfo_1_0::_traits_::FixedPortId),
                static_cast<int>(GetInfo_1_0::_traits_::IsService),
                static_cast<int>(GetInfo_1_0::Request::_traits_::IsRequest),
                static_cast<int>(GetInfo_1_0::Response::_traits_::IsResponse), GetInfo_1_0::_traits_::FullNameAndVersion());

    GetInfo_1_0::Response resp{};
    resp.protocol_version.major   = 1U;
    resp.hardware_version.major   = 2U;
    resp.hardware_version.minor   = 1U;
    resp.software_version.major   = 3U;
    resp.software_vcs_revision_id = 0xDEADBEEFCAFEULL;
    for (std::size_t i = 0; i < GetInfo_1_0::Response::_traits_::ArrayCapacity::unique_id; i++)
    {
        resp.unique_id[i] = static_cast<std::uint8_t>(i * 17U);
    }
    const std::string name = "org.example.motor";
    resp.name.assign(name.begin(), name.end());
    resp.software_image_crc.push_back(0x1122334455667788ULL);
    resp.certificate_of_authenticity = {1U, 2U, 3U, 4U};
    r = serialize(resp, bitspan{buffer.data(), GetInfo_1_0::Response::_traits_::SerializationBufferSizeBytes});
    show("get info response", r, buffer.data());
    const std::size_t     size = r.value();
    GetInfo_1_0::Response back{};
    r = deserialize(back, const_bitspan{buffer.data(), size});
    std::printf("get info back: size=%zu name=%s crc=%zu/%llx cert=%zu uid15=%u name cap=%zu\n", r.value(),
                std::string(back.name.begin(), back.name.end()).c_str(), back.software_image_crc.size(),
                static_cast<unsigned long long>(back.software_image_crc[0]), back.certificate_of_authenticity.size(),
                static_cast<unsigned>(back.unique_id[15]), GetInfo_1_0::Response::_traits_::ArrayCapacity::name);
    r = deserialize(back, const_bitspan{buffer.data(), 40U});  // cut inside the name: the rest reads as zeros
    std::printf("get info truncated: size=%zu name=%zu crc=%zu\n", r.value(), back.name.size(),
                back.software_image_crc.size());
}
}  // namespace

int main()
{
    heartbeat();
    register_access();
    port_list();
    get_info();
    return 0;
}
