// The DSDL C++ benchmark: ns per serialize and per deserialize of one canonical message.
//
// One source, compiled with -std=c++17 against either generator's headers (-I OUT): nunavut
// 3.1's `nnvg --experimental-languages --target-language cpp --language-standard c++17`
// output or wireplan's `compile(..., language="cpp")`.  It uses only nunavut's C++ API: the
// header paths, the types, `T::_traits_::SerializationBufferSizeBytes`, the free functions
// `serialize(const T&, bitspan)` and `deserialize(T&, const_bitspan)` (found by argument-
// dependent lookup) and their SerializeResult (`has_value()`, `value()`, `error()`).
//
//     bench_dsdl_cpp MESSAGES check
//         prints "NAME HEX" per type: the canonical bytes deserialized, then serialized again.
//     bench_dsdl_cpp MESSAGES time TARGET_NS BATCHES [NAME]
//         prints "NAME SER_NS DE_NS" per type (or for type NAME only): the median over
//         BATCHES of the ns per call in a batch of calls that lasts at least TARGET_NS
//         of this thread's CPU time.
//
// The protocol, the output and the timing are benchmarks/c/bench_dsdl_c.c's.  MESSAGES is a
// text file of lines "NAME HEX" (pydsdl's bytes of each type, written by bench_dsdl_c.py);
// the bytes are read at run time, so nothing about them is known when compiling.  After every
// call, an empty asm statement takes the object and the buffer as operands and clobbers
// memory: the call's stores must be done and its inputs read again on the next iteration, so
// the compiler can neither drop nor hoist the work.  Before every call another one hides the
// size and the pointers passed, as a caller with a new message would: nothing about them is
// folded across iterations.  Both builds run this same code.
//
// One object per type lives for the whole run: the round trip deserializes into it, the
// serialize loop reads it and the deserialize loop writes it again on every call.  So a
// variable-length array (std::vector) keeps its capacity from the first call on, and the
// timed calls do not allocate, with one exception: a union's deserialize (both producers')
// constructs the alternative anew on every call, so uavcan.register.Value's timed
// deserializations free and allocate the vector of its natural16 alternative each time.
#include "corner/BitPacked_1_0.hpp"
#include "corner/Misaligned_1_0.hpp"
#include "corner/Mixed_1_0.hpp"
#include "corner/OddArrays_1_0.hpp"
#include "reg/udral/physics/kinematics/cartesian/State_0_1.hpp"
#include "uavcan/_register/Value_1_0.hpp"
#include "uavcan/node/GetInfo_1_0.hpp"
#include "uavcan/node/Heartbeat_1_0.hpp"
#include "uavcan/node/port/List_1_0.hpp"
#include "uavcan/primitive/array/Bit_1_0.hpp"
#include "uavcan/primitive/array/Natural16_1_0.hpp"
#include "uavcan/primitive/array/Real32_1_0.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

// The object and the buffer escape; memory may have been read and changed.
#define BARRIER(obj, buf) __asm__ volatile("" : : "r"(obj), "r"(buf) : "memory")
// The compiler forgets what it knew about x (a size, a pointer): no folding across calls.
#define OPAQUE(x) __asm__ volatile("" : "+r"(x))

namespace
{
using nunavut::support::bitspan;
using nunavut::support::const_bitspan;
using nunavut::support::SerializeResult;

volatile std::int64_t g_sink;  // results of the calls, so that they are used

struct Message
{
    std::string               name;
    std::vector<std::uint8_t> bytes;
};

[[noreturn]] void fail(const std::string& name, const char* what, long code)
{
    std::fprintf(stderr, "%s: %s (%ld)\n", name.c_str(), what, code);
    std::exit(1);
}

// This thread's CPU time: the time the machine's other jobs hold the CPU is not counted.
double now_ns()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return (n % 2U) ? values[n / 2U] : (values[n / 2U - 1U] + values[n / 2U]) / 2.0;
}

// A call's result as one number: the size, or the negated error code.
std::int64_t outcome(const SerializeResult& r)
{
    return r.has_value() ? static_cast<std::int64_t>(r.value()) : -static_cast<std::int64_t>(r.error());
}

// The one object and the one buffer of type T.
template <typename T>
T g_obj{};
template <typename T>
std::array<std::uint8_t, T::_traits_::SerializationBufferSizeBytes> g_buf{};

// Serializes g_obj<T> into g_buf<T> (filled with 0xAA first); returns the size.
template <typename T>
std::size_t serialize_once(const std::string& name)
{
    std::fill(g_buf<T>.begin(), g_buf<T>.end(), std::uint8_t{0xAA});
    const SerializeResult r = serialize(g_obj<T>, bitspan{g_buf<T>.data(), g_buf<T>.size()});
    if (!r.has_value())
    {
        fail(name, "serialize failed", outcome(r));
    }
    return r.value();
}

// Deserializes the message into a fresh g_obj<T>, serializes it into g_buf<T>; returns the size.
template <typename T>
std::size_t round_trip(const Message& m)
{
    g_obj<T>                = T{};
    const SerializeResult r = deserialize(g_obj<T>, const_bitspan{m.bytes.data(), m.bytes.size()});
    if (!r.has_value())
    {
        fail(m.name, "deserialize failed", outcome(r));
    }
    if (r.value() != m.bytes.size())
    {
        fail(m.name, "deserialize consumed a different size", static_cast<long>(r.value()));
    }
    return serialize_once<T>(m.name);
}

template <typename T>
double time_serialize(long n)
{
    const T*      obj = &g_obj<T>;
    std::uint8_t* buf = g_buf<T>.data();
    std::int64_t  acc = 0;
    const double  t0  = now_ns();
    for (long i = 0; i < n; i++)
    {
        std::size_t size = g_buf<T>.size();
        OPAQUE(size);
        OPAQUE(obj);
        OPAQUE(buf);
        acc += outcome(serialize(*obj, bitspan{buf, size}));
        BARRIER(obj, buf);
    }
    const double t1 = now_ns();
    g_sink          = acc;
    return (t1 - t0) / static_cast<double>(n);
}

template <typename T>
double time_deserialize(const Message& m, long n)
{
    T*                  obj          = &g_obj<T>;
    const std::uint8_t* buf          = m.bytes.data();
    const std::size_t   message_size = m.bytes.size();
    std::int64_t        acc          = 0;
    const double        t0           = now_ns();
    for (long i = 0; i < n; i++)
    {
        std::size_t size = message_size;
        OPAQUE(size);
        OPAQUE(obj);
        OPAQUE(buf);
        acc += outcome(deserialize(*obj, const_bitspan{buf, size}));
        BARRIER(obj, buf);
    }
    const double t1 = now_ns();
    g_sink          = acc;
    return (t1 - t0) / static_cast<double>(n);
}

// The ns per call of run(n): calls are batched until a batch lasts target_ns; median of batches.
template <typename Run>
double measure(Run run, double target_ns, int batches)
{
    long n = 1;
    for (;;)  // calibrate, which also warms up
    {
        const double t = run(n) * static_cast<double>(n);
        if (t >= target_ns || n > (1L << 40))
        {
            break;
        }
        n = (t <= 0.0) ? n * 16 : static_cast<long>(static_cast<double>(n) * 1.5 * target_ns / t) + 1;
    }
    std::vector<double> per_call;
    for (int b = 0; b < std::clamp(batches, 1, 64); b++)
    {
        per_call.push_back(run(n));
    }
    return median(per_call);
}

int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The message of the line "NAME HEX" of the file.
Message load_message(const char* path, const char* name)
{
    std::ifstream file(path);
    if (!file)
    {
        fail(path, "cannot open", 0);
    }
    const std::string prefix = std::string(name) + " ";
    std::string       line;
    while (std::getline(file, line))
    {
        if (line.compare(0, prefix.size(), prefix) != 0)
        {
            continue;
        }
        Message m{name, {}};
        for (std::size_t i = prefix.size(); i + 1U < line.size(); i += 2U)
        {
            const int hi = hex_value(line[i]);
            const int lo = hex_value(line[i + 1U]);
            if (hi < 0 || lo < 0)
            {
                break;
            }
            m.bytes.push_back(static_cast<std::uint8_t>(hi * 16 + lo));
        }
        return m;
    }
    fail(name, "not in the messages file", 0);
}

void print_hex(const char* name, const std::uint8_t* bytes, std::size_t size)
{
    std::printf("%s ", name);
    for (std::size_t i = 0; i < size; i++)
    {
        std::printf("%02x", bytes[i]);
    }
    std::printf("\n");
}

struct Args
{
    const char* messages;
    bool        timing;
    double      target_ns;
    int         batches;
    const char* only;  // one type's name, or nullptr: all
};

// Type T under its DSDL name: the check's round trip, or the timing.  Returns 1 if it ran.
template <typename T>
int run_case(const char* name, const Args& args)
{
    if (args.only != nullptr && std::strcmp(args.only, name) != 0)
    {
        return 0;
    }
    const Message m    = load_message(args.messages, name);
    std::size_t   size = round_trip<T>(m);
    const auto    same = [&m](std::size_t n) {
        return n == m.bytes.size() && std::memcmp(g_buf<T>.data(), m.bytes.data(), n) == 0;
    };
    if (!args.timing)
    {
        print_hex(name, g_buf<T>.data(), size);
    }
    else
    {
        if (!same(size))
        {
            fail(name, "round trip differs from the message", 0);
        }
        const double ser = measure([](long n) { return time_serialize<T>(n); }, args.target_ns, args.batches);
        if (!same(m.bytes.size()))
        {
            fail(name, "the timed serialization differs from the message", 0);
        }
        const double de = measure([&m](long n) { return time_deserialize<T>(m, n); }, args.target_ns, args.batches);
        // what the timed loops left behind is still the message
        if (!same(serialize_once<T>(name)))
        {
            fail(name, "the timed loops' object differs from the message", 0);
        }
        std::printf("%s %.3f %.3f\n", name, ser, de);
    }
    std::fflush(stdout);
    return 1;
}
}  // namespace

int main(int argc, char** argv)
{
    if (argc < 3)
    {
        std::fprintf(stderr, "usage: %s MESSAGES check | MESSAGES time TARGET_NS BATCHES\n", argv[0]);
        return 2;
    }
    Args args{};
    args.messages  = argv[1];
    args.timing    = std::strcmp(argv[2], "time") == 0;
    args.target_ns = (args.timing && argc > 3) ? std::atof(argv[3]) : 0.0;
    args.batches   = (args.timing && argc > 4) ? std::atoi(argv[4]) : 1;
    args.only      = (args.timing && argc > 5) ? argv[5] : nullptr;

    // the measured types, in the order of the output
    int ran = 0;
    ran += run_case<uavcan::node::Heartbeat_1_0>("uavcan.node.Heartbeat.1.0", args);
    ran += run_case<uavcan::primitive::array::Real32_1_0>("uavcan.primitive.array.Real32.1.0", args);
    ran += run_case<uavcan::primitive::array::Natural16_1_0>("uavcan.primitive.array.Natural16.1.0", args);
    ran += run_case<uavcan::primitive::array::Bit_1_0>("uavcan.primitive.array.Bit.1.0", args);
    ran += run_case<uavcan::_register::Value_1_0>("uavcan.register.Value.1.0", args);
    ran += run_case<uavcan::node::port::List_1_0>("uavcan.node.port.List.1.0", args);
    ran += run_case<uavcan::node::GetInfo_1_0::Response>("uavcan.node.GetInfo.Response.1.0", args);
    ran += run_case<reg::udral::physics::kinematics::cartesian::State_0_1>(
        "reg.udral.physics.kinematics.cartesian.State.0.1", args);
    ran += run_case<corner::Misaligned_1_0>("corner.Misaligned.1.0", args);
    ran += run_case<corner::BitPacked_1_0>("corner.BitPacked.1.0", args);
    ran += run_case<corner::Mixed_1_0>("corner.Mixed.1.0", args);
    ran += run_case<corner::OddArrays_1_0>("corner.OddArrays.1.0", args);
    if (ran == 0)
    {
        fail(args.only != nullptr ? args.only : "?", "no such type", 0);
    }
    return 0;
}
