/*
 * Support routines of the C headers that wireplan generates from Cyphal DSDL.
 * Generated code includes this file; it is copied unchanged into every output folder.
 *
 * Byte order and layout: WIREPLAN_DSDL_LE is 1 where the compiler says the target is
 * little-endian (for integers and floats) and WIREPLAN_DSDL_GENERIC is not defined; the
 * generated code then moves byte-aligned numbers with memcpy.  Everywhere else it uses the
 * portable shifts below, which are correct on any byte order.  Define WIREPLAN_DSDL_GENERIC
 * (before including any generated header) to force the portable path.
 */
#ifndef WIREPLAN_DSDL_SUPPORT_H_INCLUDED
#define WIREPLAN_DSDL_SUPPORT_H_INCLUDED

#include <assert.h> /* static_assert for code that includes generated headers, as nunavut's give it */
#include <float.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
#    define WIREPLAN_DSDL_STATIC_ASSERT(x, m) static_assert(x, m)
#else
#    if !defined(__STDC_VERSION__) || (__STDC_VERSION__ < 201112L)
#        error "the headers wireplan generates from DSDL need C11 or later"
#    endif
#    define WIREPLAN_DSDL_STATIC_ASSERT(x, m) _Static_assert(x, m)
#endif

/* Error codes: the same names and values as nunavut's (functions return them negated). */
#ifndef NUNAVUT_SUCCESS
#    define NUNAVUT_SUCCESS 0
#endif
#ifndef NUNAVUT_ERROR_INVALID_ARGUMENT
#    define NUNAVUT_ERROR_INVALID_ARGUMENT 2
#endif
#ifndef NUNAVUT_ERROR_SERIALIZATION_BUFFER_TOO_SMALL
#    define NUNAVUT_ERROR_SERIALIZATION_BUFFER_TOO_SMALL 3
#endif
#ifndef NUNAVUT_ERROR_REPRESENTATION_BAD_ARRAY_LENGTH
#    define NUNAVUT_ERROR_REPRESENTATION_BAD_ARRAY_LENGTH 10
#endif
#ifndef NUNAVUT_ERROR_REPRESENTATION_BAD_UNION_TAG
#    define NUNAVUT_ERROR_REPRESENTATION_BAD_UNION_TAG 11
#endif
#ifndef NUNAVUT_ERROR_REPRESENTATION_BAD_DELIMITER_HEADER
#    define NUNAVUT_ERROR_REPRESENTATION_BAD_DELIMITER_HEADER 12
#endif

WIREPLAN_DSDL_STATIC_ASSERT(CHAR_BIT == 8, "wireplan DSDL headers need 8-bit bytes");
WIREPLAN_DSDL_STATIC_ASSERT((sizeof(float) == 4) && (FLT_MANT_DIG == 24) && (FLT_MAX_EXP == 128),
                            "wireplan DSDL headers need IEEE 754 binary32 float");
WIREPLAN_DSDL_STATIC_ASSERT((sizeof(double) == 8) && (DBL_MANT_DIG == 53) && (DBL_MAX_EXP == 1024),
                            "wireplan DSDL headers need IEEE 754 binary64 double");

#if !defined(WIREPLAN_DSDL_GENERIC) && defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) &&                                                   \
    (!defined(__FLOAT_WORD_ORDER__) || (__FLOAT_WORD_ORDER__ == __ORDER_LITTLE_ENDIAN__))
#    define WIREPLAN_DSDL_LE 1
#else
#    define WIREPLAN_DSDL_LE 0
#endif

/* -- byte-aligned loads and stores, little-endian on the wire ---------------------------------- */

static inline void wireplanSt16(uint8_t* const p, const uint16_t v)
{
#if WIREPLAN_DSDL_LE
    memcpy(p, &v, 2U);
#else
    p[0] = (uint8_t) v;
    p[1] = (uint8_t) (v >> 8U);
#endif
}

static inline void wireplanSt32(uint8_t* const p, const uint32_t v)
{
#if WIREPLAN_DSDL_LE
    memcpy(p, &v, 4U);
#else
    p[0] = (uint8_t) v;
    p[1] = (uint8_t) (v >> 8U);
    p[2] = (uint8_t) (v >> 16U);
    p[3] = (uint8_t) (v >> 24U);
#endif
}

static inline void wireplanSt64(uint8_t* const p, const uint64_t v)
{
#if WIREPLAN_DSDL_LE
    memcpy(p, &v, 8U);
#else
    wireplanSt32(p, (uint32_t) v);
    wireplanSt32(&p[4], (uint32_t) (v >> 32U));
#endif
}

static inline uint16_t wireplanLd16(const uint8_t* const p)
{
#if WIREPLAN_DSDL_LE
    uint16_t v;
    memcpy(&v, p, 2U);
    return v;
#else
    return (uint16_t) (p[0] | ((uint16_t) p[1] << 8U));
#endif
}

static inline uint32_t wireplanLd32(const uint8_t* const p)
{
#if WIREPLAN_DSDL_LE
    uint32_t v;
    memcpy(&v, p, 4U);
    return v;
#else
    return (uint32_t) p[0] | ((uint32_t) p[1] << 8U) | ((uint32_t) p[2] << 16U) | ((uint32_t) p[3] << 24U);
#endif
}

static inline uint64_t wireplanLd64(const uint8_t* const p)
{
#if WIREPLAN_DSDL_LE
    uint64_t v;
    memcpy(&v, p, 8U);
    return v;
#else
    return (uint64_t) wireplanLd32(p) | ((uint64_t) wireplanLd32(&p[4]) << 32U);
#endif
}

/* -- floats as their IEEE 754 bits ------------------------------------------------------------- */

static inline uint32_t wireplanF32Bits(const float x)
{
    uint32_t v;
    memcpy(&v, &x, 4U);
    return v;
}

static inline float wireplanF32From(const uint32_t v)
{
    float x;
    memcpy(&x, &v, 4U);
    return x;
}

static inline uint64_t wireplanF64Bits(const double x)
{
    uint64_t v;
    memcpy(&v, &x, 8U);
    return v;
}

static inline double wireplanF64From(const uint64_t v)
{
    double x;
    memcpy(&x, &v, 8U);
    return x;
}

/* float -> binary16 bits, rounding to nearest even; too large: infinity; NaN keeps its payload's
   upper bits.  saturate: finite values beyond the range become +-65504 (DSDL saturated float16).
   Branch-light (after F. Giesen's public-domain float_to_half_fast3_rtne): subnormals are rounded
   by one float addition, normal numbers by integer arithmetic on the bits. */
static inline uint16_t wireplanF16Pack(const float x, const bool saturate)
{
    uint32_t b = wireplanF32Bits(x);
    const uint32_t sign = b & 0x80000000UL;
    b ^= sign;
    uint32_t out;
    if (b >= 0x47800000UL) /* 65536 and above, infinities, NaN */
    {
        if (b > 0x7F800000UL)
        {
            const uint32_t payload = (b >> 13U) & 0x3FFU;
            out = 0x7C00U | ((payload != 0U) ? payload : 0x200U);
        }
        else
        {
            out = ((b == 0x7F800000UL) || !saturate) ? 0x7C00U : 0x7BFFU;
        }
    }
    else if (b < 0x38800000UL) /* below 2**-14: a subnormal half or zero */
    {
        const float magic = wireplanF32From(0x3F000000UL); /* 0.5: its ulp is 2**-24 */
        out = wireplanF32Bits(wireplanF32From(b) + magic) - UINT32_C(0x3F000000);
    }
    else
    {
        const uint32_t odd = (b >> 13U) & 1U;
        b += 0xC8000FFFUL; /* exponent rebias (-112 << 23), plus half an ulp minus one */
        b += odd;
        out = b >> 13U; /* a carry may reach the infinity pattern: correct */
        if (saturate && (out >= 0x7C00U))
        {
            out = 0x7BFFU;
        }
    }
    return (uint16_t) ((sign >> 16U) | out);
}

static inline float wireplanF16Unpack(const uint16_t h)
{
    uint32_t b = ((uint32_t) (h & 0x7FFFU)) << 13U;
    const uint32_t exp = b & 0x0F800000UL;
    b += 0x38000000UL; /* exponent rebias (112 << 23) */
    if (exp == 0x0F800000UL) /* infinity, NaN */
    {
        b += 0x38000000UL;
    }
    else if (exp == 0U) /* zero, subnormal: renormalised by one float subtraction */
    {
        b += 0x00800000UL;
        b = wireplanF32Bits(wireplanF32From(b) - wireplanF32From(0x38800000UL));
    }
    return wireplanF32From(b | (((uint32_t) (h & 0x8000U)) << 16U));
}

/* -- bits at a position known at run time ------------------------------------------------------ */

/* Writes the low n bits (n <= 64) of v at bit off.  Bits below off in the first byte are kept;
   the rest of every byte written is overwritten, so the bits above the end are zero (the
   generated serializers rely on this: every byte past the write position is fresh). */
static inline void wireplanSetBits(uint8_t* const buf, const size_t off, uint64_t v, const unsigned n)
{
    if (n < 64U)
    {
        v &= (((uint64_t) 1U) << n) - 1U;
    }
    size_t byte = off / 8U;
    const unsigned shift = (unsigned) (off % 8U);
    unsigned done = 0U;
    if (shift != 0U)
    {
        buf[byte] = (uint8_t) ((buf[byte] & ((1U << shift) - 1U)) | (uint8_t) (v << shift));
        done = 8U - shift;
        byte++;
    }
    while (done < n)
    {
        buf[byte] = (uint8_t) (v >> done);
        done += 8U;
        byte++;
    }
}

/* Reads n bits (n <= 64) at bit off; bytes at or past cap read as zero (implicit zero extension). */
static inline uint64_t wireplanGetBits(const uint8_t* const buf, const size_t cap, const size_t off, const unsigned n)
{
    uint64_t v = 0U;
    size_t byte = off / 8U;
    const unsigned shift = (unsigned) (off % 8U);
    int have = -(int) shift;
    while (have < (int) n)
    {
        const uint64_t b = (byte < cap) ? buf[byte] : 0U;
        v |= (have >= 0) ? (b << (unsigned) have) : (b >> (unsigned) (-have));
        have += 8;
        byte++;
    }
    if (n < 64U)
    {
        v &= (((uint64_t) 1U) << n) - 1U;
    }
    return v;
}

/* The n-bit two's complement value in the low bits of v, sign-extended. */
static inline int64_t wireplanSext(const uint64_t v, const unsigned n)
{
    if (n >= 64U)
    {
        return (int64_t) v;
    }
    const uint64_t sign = ((uint64_t) 1U) << (n - 1U);
    const uint64_t low = v & ((sign << 1U) - 1U);
    return (low & sign) ? -(int64_t) ((sign << 1U) - low) : (int64_t) low;
}

/* Copies count bits of a packed bool array (LSB first) from src to dst at bit off (runtime). */
static inline void wireplanSetBitArray(uint8_t* const dst, const size_t off, const uint8_t* const src, const size_t count)
{
    size_t i = 0U;
    for (; (i + 8U) <= count; i += 8U)
    {
        wireplanSetBits(dst, off + i, src[i / 8U], 8U);
    }
    if (i < count)
    {
        wireplanSetBits(dst, off + i, src[i / 8U], (unsigned) (count - i));
    }
}

/* Reads count packed bools at bit off into dst (LSB first); unused bits of the last byte are 0. */
static inline void wireplanGetBitArray(uint8_t* const dst, const uint8_t* const buf, const size_t cap, const size_t off,
                                       const size_t count)
{
    size_t i = 0U;
    for (; (i + 8U) <= count; i += 8U)
    {
        dst[i / 8U] = (uint8_t) wireplanGetBits(buf, cap, off + i, 8U);
    }
    if (i < count)
    {
        dst[i / 8U] = (uint8_t) wireplanGetBits(buf, cap, off + i, (unsigned) (count - i));
    }
}

/* memcpy of a length known only at run time (or large).  Short copies are done inline with
   overlapping word moves; long ones call the C library's memmove with a length the compiler cannot
   bound.  GCC expands memcpy of a bounded length (at -O2) and of any run-time length (at -Os) into
   "rep movs", slow to start (about 30 ns for 256 bytes against 10 for the library's copy); it
   never expands memmove, which is the same copy for the non-overlapping buffers passed here. */
static inline void wireplanCopy(void* const dst, const void* const src, size_t n)
{
    uint8_t* const d = (uint8_t*) dst;
    const uint8_t* const s = (const uint8_t*) src;
    if (n > 16U) /* tested first: the long copies are the ones whose time counts */
    {
#if defined(__GNUC__)
        __asm__("" : "+r"(n));
#endif
        memmove(d, s, n);
    }
    else if (n >= 8U)
    {
        uint64_t a;
        uint64_t b;
        memcpy(&a, s, 8U);
        memcpy(&b, &s[n - 8U], 8U);
        memcpy(d, &a, 8U);
        memcpy(&d[n - 8U], &b, 8U);
    }
    else if (n >= 4U)
    {
        uint32_t a;
        uint32_t b;
        memcpy(&a, s, 4U);
        memcpy(&b, &s[n - 4U], 4U);
        memcpy(d, &a, 4U);
        memcpy(&d[n - 4U], &b, 4U);
    }
    else if (n > 0U)
    {
        const uint8_t a = s[0];
        const uint8_t b = s[n / 2U];
        const uint8_t c = s[n - 1U];
        d[0] = a;
        d[n / 2U] = b;
        d[n - 1U] = c;
    }
}

/* Copies n bytes from buf at byte pos into dst; bytes at or past cap read as zero. */
static inline void wireplanGetBytes(uint8_t* const dst, const uint8_t* const buf, const size_t cap, const size_t pos,
                                    const size_t n)
{
    if ((pos <= cap) && (n <= (cap - pos)))
    {
        wireplanCopy(dst, &buf[pos], n); /* the usual case: all there */
        return;
    }
    const size_t avail = (pos < cap) ? (cap - pos) : 0U;
    const size_t take = (n < avail) ? n : avail;
    if (take > 0U)
    {
        wireplanCopy(dst, &buf[pos], take);
    }
    if (take < n)
    {
        memset(&dst[take], 0, n - take);
    }
}

static inline size_t wireplanMin(const size_t a, const size_t b)
{
    return (a < b) ? a : b;
}

#endif /* WIREPLAN_DSDL_SUPPORT_H_INCLUDED */
