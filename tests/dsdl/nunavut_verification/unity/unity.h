/*
 * wireplan's stand-in for the Unity test framework (ThrowTheSwitch), written for this
 * project: the assertion macros nunavut's C verification suite uses, with Unity's names and
 * argument order (expected first), and nothing else.  Each RUN_TEST prints one line,
 * "PASS name" or "FAIL name: file:line: what", and UNITY_END returns the failure count.
 * A failed assertion ends its test (longjmp), as in Unity.
 */
#ifndef WIREPLAN_UNITY_SHIM_H
#define WIREPLAN_UNITY_SHIM_H

#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void setUp(void);
void tearDown(void);

static jmp_buf unity_jump;
static int unity_failures;
static int unity_tests;
static char unity_why[512];

static inline void unity_fail(const int line, const char* const what, const char* const message)
{
    (void) snprintf(unity_why, sizeof unity_why, "%s:%d: %s%s%s", __FILE__, line, what,
                    (message != NULL) ? " - " : "", (message != NULL) ? message : "");
    longjmp(unity_jump, 1);
}

static inline void unity_int(const long long expected, const long long actual, const int line,
                      const char* const message)
{
    if (expected != actual)
    {
        char what[128];
        (void) snprintf(what, sizeof what, "expected %lld, was %lld", expected, actual);
        unity_fail(line, what, message);
    }
}

static inline void unity_uint(const unsigned long long expected, const unsigned long long actual,
                       const int line, const char* const message)
{
    if (expected != actual)
    {
        char what[128];
        (void) snprintf(what, sizeof what, "expected 0x%llX, was 0x%llX", expected, actual);
        unity_fail(line, what, message);
    }
}

static inline void unity_within(const double delta, const double expected, const double actual,
                         const int line)
{
    if (!(fabs(expected - actual) <= delta))
    {
        char what[128];
        (void) snprintf(what, sizeof what, "expected %g within %g, was %g", expected, delta,
                        actual);
        unity_fail(line, what, NULL);
    }
}

static inline void unity_within_float(const float delta, const float expected, const float actual,
                                      const int line)
{
    const float diff = (actual > expected) ? (actual - expected) : (expected - actual);
    if (!(diff <= delta))  /* in float, as Unity compares floats */
    {
        char what[128];
        (void) snprintf(what, sizeof what, "expected %g within %g, was %g", (double) expected,
                        (double) delta, (double) actual);
        unity_fail(line, what, NULL);
    }
}

static inline void unity_bytes(const void* const expected, const void* const actual, const size_t n,
                        const int line)
{
    if (memcmp(expected, actual, n) != 0)
    {
        unity_fail(line, "byte arrays differ", NULL);
    }
}

static inline void unity_run(void (*const test)(void), const char* const name)
{
    unity_tests++;
    if (setjmp(unity_jump) == 0)
    {
        setUp();
        test();
        tearDown();
        printf("PASS %s\n", name);
    }
    else
    {
        unity_failures++;
        printf("FAIL %s: %s\n", name, unity_why);
    }
    (void) fflush(stdout);
}

#define UNITY_BEGIN() (unity_tests = 0, unity_failures = 0)
#define UNITY_END() (printf("%d tests, %d failures\n", unity_tests, unity_failures), unity_failures)
#define RUN_TEST(fn) unity_run(fn, #fn)

#define TEST_FAIL_MESSAGE(m) unity_fail(__LINE__, "failed", (m))
#define TEST_ASSERT_TRUE(c) ((c) ? (void) 0 : unity_fail(__LINE__, "expected true: " #c, NULL))
#define TEST_ASSERT_FALSE(c) ((c) ? unity_fail(__LINE__, "expected false: " #c, NULL) : (void) 0)
#define TEST_ASSERT(c) TEST_ASSERT_TRUE(c)
#define TEST_ASSERT_EQUAL_MESSAGE(e, a, m) unity_int((long long) (e), (long long) (a), __LINE__, (m))
#define TEST_ASSERT_EQUAL(e, a) TEST_ASSERT_EQUAL_MESSAGE(e, a, NULL)
#define TEST_ASSERT_EQUAL_INT(e, a) unity_int((int) (e), (int) (a), __LINE__, NULL)
#define TEST_ASSERT_EQUAL_INT8(e, a) unity_int((int8_t) (e), (int8_t) (a), __LINE__, NULL)
#define TEST_ASSERT_EQUAL_INT16(e, a) unity_int((int16_t) (e), (int16_t) (a), __LINE__, NULL)
#define TEST_ASSERT_EQUAL_INT32(e, a) unity_int((int32_t) (e), (int32_t) (a), __LINE__, NULL)
#define TEST_ASSERT_EQUAL_INT64(e, a) unity_int((int64_t) (e), (int64_t) (a), __LINE__, NULL)
#define TEST_ASSERT_EQUAL_UINT8(e, a) unity_uint((uint8_t) (e), (uint8_t) (a), __LINE__, NULL)
#define TEST_ASSERT_EQUAL_UINT16(e, a) unity_uint((uint16_t) (e), (uint16_t) (a), __LINE__, NULL)
#define TEST_ASSERT_EQUAL_UINT32(e, a) unity_uint((uint32_t) (e), (uint32_t) (a), __LINE__, NULL)
#define TEST_ASSERT_EQUAL_UINT64(e, a) unity_uint((uint64_t) (e), (uint64_t) (a), __LINE__, NULL)
#define TEST_ASSERT_EQUAL_HEX8_MESSAGE(e, a, m) unity_uint((uint8_t) (e), (uint8_t) (a), __LINE__, (m))
#define TEST_ASSERT_EQUAL_HEX16_MESSAGE(e, a, m) unity_uint((uint16_t) (e), (uint16_t) (a), __LINE__, (m))
#define TEST_ASSERT_EQUAL_HEX32_MESSAGE(e, a, m) unity_uint((uint32_t) (e), (uint32_t) (a), __LINE__, (m))
#define TEST_ASSERT_EQUAL_HEX64_MESSAGE(e, a, m) unity_uint((uint64_t) (e), (uint64_t) (a), __LINE__, (m))
#define TEST_ASSERT_EQUAL_HEX8(e, a) TEST_ASSERT_EQUAL_HEX8_MESSAGE(e, a, NULL)
#define TEST_ASSERT_EQUAL_HEX16(e, a) TEST_ASSERT_EQUAL_HEX16_MESSAGE(e, a, NULL)
#define TEST_ASSERT_EQUAL_HEX32(e, a) TEST_ASSERT_EQUAL_HEX32_MESSAGE(e, a, NULL)
#define TEST_ASSERT_EQUAL_HEX64(e, a) TEST_ASSERT_EQUAL_HEX64_MESSAGE(e, a, NULL)
#define TEST_ASSERT_EQUAL_HEX8_ARRAY(e, a, n) unity_bytes((e), (a), (size_t) (n), __LINE__)
#define TEST_ASSERT_LESS_OR_EQUAL(threshold, a) \
    (((long long) (a) <= (long long) (threshold)) ? (void) 0 : unity_fail(__LINE__, "too large: " #a, NULL))
#define TEST_ASSERT_EQUAL_STRING(e, a) \
    ((strcmp((e), (a)) == 0) ? (void) 0 : unity_fail(__LINE__, "strings differ", NULL))
#define TEST_ASSERT_FLOAT_WITHIN(d, e, a) unity_within_float((float) (d), (float) (e), (float) (a), __LINE__)
#define TEST_ASSERT_DOUBLE_WITHIN(d, e, a) unity_within((double) (d), (double) (e), (double) (a), __LINE__)
#define TEST_ASSERT_EQUAL_FLOAT(e, a) \
    unity_within_float(fabsf((float) (e)) * 1e-5F + 1e-30F, (float) (e), (float) (a), __LINE__)
#define TEST_ASSERT_EQUAL_DOUBLE(e, a) \
    unity_within(fabs((double) (e)) * 1e-12 + 1e-300, (double) (e), (double) (a), __LINE__)
#define TEST_ASSERT_FLOAT_IS_INF(x) \
    ((isinf((double) (x)) && ((x) > 0)) ? (void) 0 : unity_fail(__LINE__, "expected +inf: " #x, NULL))
#define TEST_ASSERT_FLOAT_IS_NEG_INF(x) \
    ((isinf((double) (x)) && ((x) < 0)) ? (void) 0 : unity_fail(__LINE__, "expected -inf: " #x, NULL))
#define TEST_ASSERT_FLOAT_IS_NAN(x) \
    (isnan((double) (x)) ? (void) 0 : unity_fail(__LINE__, "expected NaN: " #x, NULL))
#define TEST_ASSERT_DOUBLE_IS_INF(x) TEST_ASSERT_FLOAT_IS_INF(x)
#define TEST_ASSERT_DOUBLE_IS_NEG_INF(x) TEST_ASSERT_FLOAT_IS_NEG_INF(x)
#define TEST_ASSERT_DOUBLE_IS_NAN(x) TEST_ASSERT_FLOAT_IS_NAN(x)

#endif /* WIREPLAN_UNITY_SHIM_H */
