/* The DSDL C benchmark: ns per serialize and per deserialize of one canonical message.
 *
 * One source, compiled against either generator's headers (`-I OUT`): nunavut 3.1's
 * `nnvg --target-language c` output or wireplan's `compile(..., language="c")`.  It uses
 * only their shared API: the header paths, `T_serialize_`, `T_deserialize_` and
 * `T_SERIALIZATION_BUFFER_SIZE_BYTES_`.
 *
 *     bench_dsdl_c MESSAGES check
 *         prints "NAME HEX" per type: the canonical bytes deserialized, then serialized again.
 *     bench_dsdl_c MESSAGES time TARGET_NS BATCHES [NAME]
 *         prints "NAME SER_NS DE_NS" per type (or for type NAME only): the median over
 *         BATCHES of the ns per call in a batch of calls that lasts at least TARGET_NS
 *         of this thread's CPU time.
 *
 * MESSAGES is a text file of lines "NAME HEX" (pydsdl's bytes of each type, written by
 * bench_dsdl_c.py); the bytes are read at run time, so nothing about them is known when
 * compiling.  After every call, an empty asm statement takes the object and the buffer as
 * operands and clobbers memory: the call's stores must be done and its inputs read again
 * on the next iteration, so the compiler can neither drop nor hoist the work.  Before every
 * call another one hides the sizes and pointers passed, as a caller with a new message
 * would: nothing about them is folded across iterations.  Both builds run this same code.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corner/BitPacked_1_0.h"
#include "corner/Misaligned_1_0.h"
#include "corner/Mixed_1_0.h"
#include "corner/OddArrays_1_0.h"
#include "reg/udral/physics/kinematics/cartesian/State_0_1.h"
#include "uavcan/_register/Value_1_0.h"
#include "uavcan/node/GetInfo_1_0.h"
#include "uavcan/node/Heartbeat_1_0.h"
#include "uavcan/node/port/List_1_0.h"
#include "uavcan/primitive/array/Bit_1_0.h"
#include "uavcan/primitive/array/Natural16_1_0.h"
#include "uavcan/primitive/array/Real32_1_0.h"

/* X(C type, DSDL name): the measured types, in the order of the output. */
#define CASES(X)                                                                        \
    X(uavcan_node_Heartbeat_1_0, "uavcan.node.Heartbeat.1.0")                           \
    X(uavcan_primitive_array_Real32_1_0, "uavcan.primitive.array.Real32.1.0")           \
    X(uavcan_primitive_array_Natural16_1_0, "uavcan.primitive.array.Natural16.1.0")     \
    X(uavcan_primitive_array_Bit_1_0, "uavcan.primitive.array.Bit.1.0")                 \
    X(uavcan_register_Value_1_0, "uavcan.register.Value.1.0")                           \
    X(uavcan_node_port_List_1_0, "uavcan.node.port.List.1.0")                           \
    X(uavcan_node_GetInfo_Response_1_0, "uavcan.node.GetInfo.Response.1.0")             \
    X(reg_udral_physics_kinematics_cartesian_State_0_1,                                 \
      "reg.udral.physics.kinematics.cartesian.State.0.1")                               \
    X(corner_Misaligned_1_0, "corner.Misaligned.1.0")                                   \
    X(corner_BitPacked_1_0, "corner.BitPacked.1.0")                                     \
    X(corner_Mixed_1_0, "corner.Mixed.1.0")                                             \
    X(corner_OddArrays_1_0, "corner.OddArrays.1.0")

#define MAX_MESSAGE 8192

/* The object and the buffer escape; memory may have been read and changed. */
#define BARRIER(obj, buf) __asm__ volatile("" : : "r"(obj), "r"(buf) : "memory")
/* The compiler forgets what it knew about x (a size, a pointer): no folding across calls. */
#define OPAQUE(x) __asm__ volatile("" : "+r"(x))

static volatile int64_t g_sink; /* results of the calls, so that they are used */

typedef struct
{
    const char* name;
    uint8_t bytes[MAX_MESSAGE];
    size_t size;
    int found;
} Message;

/* This thread's CPU time: the time the machine's other jobs hold the CPU is not counted. */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static int compare_doubles(const void* a, const void* b)
{
    const double x = *(const double*) a;
    const double y = *(const double*) b;
    return (x > y) - (x < y);
}

static double median(double* values, size_t n)
{
    qsort(values, n, sizeof values[0], compare_doubles);
    return (n % 2U) ? values[n / 2U] : (values[n / 2U - 1U] + values[n / 2U]) / 2.0;
}

static void fail(const char* name, const char* what, int code)
{
    fprintf(stderr, "%s: %s (%d)\n", name, what, code);
    exit(1);
}

/* Per type: a round trip for the check, and two timed loops of `n` calls. */
#define DEFINE_CASE(T, NAME)                                                                 \
    static T g_obj_##T;                                                                      \
    static uint8_t g_buf_##T[T##_SERIALIZATION_BUFFER_SIZE_BYTES_];                          \
                                                                                             \
    /* Serializes g_obj into g_buf; returns the size. */                                      \
    static size_t serialize_##T(void)                                                        \
    {                                                                                        \
        memset(g_buf_##T, 0xAA, sizeof g_buf_##T);                                           \
        size_t size = sizeof g_buf_##T;                                                      \
        const int8_t err = T##_serialize_(&g_obj_##T, g_buf_##T, &size);                     \
        if (err < 0) fail(NAME, "serialize failed", err);                                    \
        return size;                                                                         \
    }                                                                                        \
                                                                                             \
    /* Deserializes the message into g_obj, serializes it into g_buf; returns the size. */   \
    static size_t round_trip_##T(const Message* m)                                           \
    {                                                                                        \
        memset(&g_obj_##T, 0, sizeof g_obj_##T);                                             \
        size_t size = m->size;                                                               \
        int8_t err = T##_deserialize_(&g_obj_##T, m->bytes, &size);                          \
        if (err < 0) fail(NAME, "deserialize failed", err);                                  \
        if (size != m->size) fail(NAME, "deserialize consumed a different size", (int) size); \
        return serialize_##T();                                                              \
    }                                                                                        \
                                                                                             \
    static double time_serialize_##T(long n)                                                 \
    {                                                                                        \
        const T* obj = &g_obj_##T;                                                           \
        uint8_t* buf = g_buf_##T;                                                            \
        int64_t acc = 0;                                                                     \
        const double t0 = now_ns();                                                          \
        for (long i = 0; i < n; i++)                                                         \
        {                                                                                    \
            size_t size = sizeof g_buf_##T;                                                  \
            OPAQUE(size);                                                                    \
            OPAQUE(obj);                                                                     \
            OPAQUE(buf);                                                                     \
            acc += T##_serialize_(obj, buf, &size);                                          \
            acc += (int64_t) size;                                                           \
            BARRIER(obj, buf);                                                               \
        }                                                                                    \
        const double t1 = now_ns();                                                          \
        g_sink = acc;                                                                        \
        return (t1 - t0) / (double) n;                                                       \
    }                                                                                        \
                                                                                             \
    static double time_deserialize_##T(const Message* m, long n)                             \
    {                                                                                        \
        T* obj = &g_obj_##T;                                                                 \
        const uint8_t* buf = m->bytes;                                                       \
        const size_t message_size = m->size;                                                 \
        int64_t acc = 0;                                                                     \
        const double t0 = now_ns();                                                          \
        for (long i = 0; i < n; i++)                                                         \
        {                                                                                    \
            size_t size = message_size;                                                      \
            OPAQUE(size);                                                                    \
            OPAQUE(obj);                                                                     \
            OPAQUE(buf);                                                                     \
            acc += T##_deserialize_(obj, buf, &size);                                        \
            acc += (int64_t) size;                                                           \
            BARRIER(obj, buf);                                                               \
        }                                                                                    \
        const double t1 = now_ns();                                                          \
        g_sink = acc;                                                                        \
        return (t1 - t0) / (double) n;                                                       \
    }
CASES(DEFINE_CASE)

/* The ns per call of `run`: calls are batched until a batch lasts target_ns; median of batches. */
typedef double (*Timer)(const Message* m, long n, int direction);

static double measure(Timer run, const Message* m, int direction, double target_ns, int batches)
{
    long n = 1;
    for (;;)  // calibrate, which also warms up
    {
        const double t = run(m, n, direction) * (double) n;
        if (t >= target_ns || n > (1L << 40)) break;
        n = (t <= 0.0) ? n * 16 : (long) ((double) n * 1.5 * target_ns / t) + 1;
    }
    double per_call[64];
    if (batches > 64) batches = 64;
    for (int b = 0; b < batches; b++) per_call[b] = run(m, n, direction);
    return median(per_call, (size_t) batches);
}

#define DEFINE_RUN(T, NAME)                                                         \
    static double run_##T(const Message* m, long n, int direction)                  \
    {                                                                               \
        return direction ? time_deserialize_##T(m, n) : time_serialize_##T(n);      \
    }
CASES(DEFINE_RUN)

static int hex_value(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Reads the line "NAME HEX" of m->name from the file. */
static void load_message(const char* path, Message* m)
{
    FILE* f = fopen(path, "r");
    if (!f) fail(path, "cannot open", 0);
    static char line[2 * MAX_MESSAGE + 256];
    while (fgets(line, sizeof line, f))
    {
        const size_t len = strlen(m->name);
        if (strncmp(line, m->name, len) != 0 || line[len] != ' ') continue;
        const char* p = line + len + 1;
        m->size = 0;
        while (hex_value(p[0]) >= 0 && hex_value(p[1]) >= 0)
        {
            if (m->size >= MAX_MESSAGE) fail(m->name, "message too long", 0);
            m->bytes[m->size++] = (uint8_t) (hex_value(p[0]) * 16 + hex_value(p[1]));
            p += 2;
        }
        m->found = 1;
        break;
    }
    fclose(f);
    if (!m->found) fail(m->name, "not in the messages file", 0);
}

static void print_hex(const char* name, const uint8_t* bytes, size_t size)
{
    printf("%s ", name);
    for (size_t i = 0; i < size; i++) printf("%02x", bytes[i]);
    printf("\n");
}

#define MESSAGE(T, NAME) static Message g_msg_##T = {NAME, {0}, 0, 0};
CASES(MESSAGE)

int main(int argc, char** argv)
{
    if (argc < 3)
    {
        fprintf(stderr, "usage: %s MESSAGES check | MESSAGES time TARGET_NS BATCHES\n", argv[0]);
        return 2;
    }
    const int timing = strcmp(argv[2], "time") == 0;
    const double target_ns = (timing && argc > 3) ? atof(argv[3]) : 0.0;
    const int batches = (timing && argc > 4) ? atoi(argv[4]) : 1;
    const char* only = (timing && argc > 5) ? argv[5] : NULL;
    int ran = 0;

#define RUN_CASE(T, NAME)                                                                  \
    if (!only || strcmp(only, NAME) == 0)                                                  \
    {                                                                                      \
        ran++;                                                                             \
        Message* m = &g_msg_##T;                                                           \
        load_message(argv[1], m);                                                          \
        size_t size = round_trip_##T(m);                                                   \
        if (!timing)                                                                       \
            print_hex(NAME, g_buf_##T, size);                                              \
        else                                                                               \
        {                                                                                  \
            if (size != m->size || memcmp(g_buf_##T, m->bytes, size) != 0)                 \
                fail(NAME, "round trip differs from the message", 0);                      \
            const double ser = measure(run_##T, m, 0, target_ns, batches);                 \
            if (memcmp(g_buf_##T, m->bytes, m->size) != 0)                                 \
                fail(NAME, "the timed serialization differs from the message", 0);         \
            const double de = measure(run_##T, m, 1, target_ns, batches);                  \
            /* what the timed loops left behind is still the message */                    \
            size = serialize_##T();                                                        \
            if (size != m->size || memcmp(g_buf_##T, m->bytes, size) != 0)                 \
                fail(NAME, "the timed loops' object differs from the message", 0);         \
            printf("%s %.3f %.3f\n", NAME, ser, de);                                       \
        }                                                                                  \
        fflush(stdout);                                                                    \
    }
    CASES(RUN_CASE)
    if (!ran) fail(only, "no such type", 0);
    return 0;
}
