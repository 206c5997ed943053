// wireplan's C++ support header, at the path nunavut's C++ output gives its own
// (nunavut/support/serialization.hpp), with the public names of nunavut 3.1's C++ API:
// nunavut::support::Error, expected / unexpected, Result, VoidResult, SerializeResult,
// bitspan, const_bitspan and their bit-level accessors.  The generated code does not use the
// accessors: each type's wireplan_serialize_ / wireplan_deserialize_ moves its bytes with the
// routines of wireplan/dsdl/support.h (the same as the C backend's), and the serialize /
// deserialize functions of nunavut's API call them through the helpers at the end of this file.
// C++14 or later.  Copied unchanged into every output folder of wireplan's C++ backend (docs/dsdl-c.md).
#ifndef NUNAVUT_SUPPORT_SERIALIZATION_HPP_INCLUDED
#define NUNAVUT_SUPPORT_SERIALIZATION_HPP_INCLUDED

// The C routines of the C backend: C casts and NULL, not warnings of the user's code.
#if defined(__GNUC__)
#    pragma GCC diagnostic push
#    pragma GCC diagnostic ignored "-Wold-style-cast"
#    pragma GCC diagnostic ignored "-Wzero-as-null-pointer-constant"
#endif
#include <wireplan/dsdl/support.h>
#if defined(__GNUC__)
#    pragma GCC diagnostic pop
#endif

#include <algorithm>
#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#if __cplusplus >= 201703L
#    include <variant>
#endif

#if __cplusplus < 201402L
#    error "wireplan's C++ output needs C++14 or later (-std=c++14; C++17 for --language-standard c++17)"
#endif

namespace nunavut
{
namespace support
{

/// The errors of serialize / deserialize (the numbers are nunavut's, as the C codes).
enum class Error
{
    SerializationBufferTooSmall      = NUNAVUT_ERROR_SERIALIZATION_BUFFER_TOO_SMALL,
    SerializationBadArrayLength      = NUNAVUT_ERROR_REPRESENTATION_BAD_ARRAY_LENGTH,
    RepresentationBadUnionTag        = NUNAVUT_ERROR_REPRESENTATION_BAD_UNION_TAG,
    RepresentationBadDelimiterHeader = NUNAVUT_ERROR_REPRESENTATION_BAD_DELIMITER_HEADER
};

template <typename E>
struct unexpected final
{
    E value;
    explicit unexpected(E e)
        : value(e)
    {
    }
};

/// A value or an Error; never throws (no exceptions needed).  The values it holds here (a
/// size, a span) are trivially copyable: a plain union and a flag, nothing to call at -Os.
template <typename T>
class expected final
{
    static_assert(std::is_trivially_copyable<T>::value, "expected<T> holds trivially copyable values");
    union
    {
        T     value_;
        Error error_;
    };
    bool ok_;

public:
    expected()
        : value_()
        , ok_(true)
    {
    }
    expected(T value)  // NOLINT: implicit, as a return value
        : value_(value)
        , ok_(true)
    {
    }
    expected(unexpected<Error> e)  // NOLINT: implicit, as a return value
        : error_(e.value)
        , ok_(false)
    {
    }
    bool has_value() const noexcept { return ok_; }
    explicit operator bool() const noexcept { return ok_; }
    T& value() { return value_; }
    const T& value() const { return value_; }
    T& operator*() { return value_; }
    const T& operator*() const { return value_; }
    T* operator->() { return &value_; }
    const T* operator->() const { return &value_; }
    Error error() const { return error_; }
};

template <>
class expected<void> final
{
    int e_ = 0;

public:
    expected() = default;
    expected(unexpected<Error> e)  // NOLINT: implicit, as a return value
        : e_(static_cast<int>(e.value))
    {
    }
    bool has_value() const noexcept { return e_ == 0; }
    explicit operator bool() const noexcept { return has_value(); }
    Error error() const { return static_cast<Error>(e_); }
};

template <typename T>
using Result          = expected<T>;
using VoidResult      = Result<void>;
using SerializeResult = Result<std::size_t>;

inline unexpected<Error> operator-(const Error& e)
{
    return unexpected<Error>{e};
}

namespace detail
{
/// What bitspan and const_bitspan share: bytes, their count, a bit offset into them.
template <typename Byte, typename Self>
class bits_view
{
protected:
    Byte*       data_;
    std::size_t size_bytes_;
    std::size_t offset_bits_;

    bits_view(Byte* data, std::size_t size_bytes, std::size_t offset_bits)
        : data_(data)
        , size_bytes_(size_bytes)
        , offset_bits_(offset_bits)
    {
    }
    const std::uint8_t* bytes() const noexcept { return data_; }

public:
    using value_type = Byte;

    /// The bits left from the offset to the end.
    std::size_t size() const noexcept
    {
        const std::size_t total = size_bytes_ * 8U;
        return (offset_bits_ < total) ? (total - offset_bits_) : 0U;
    }
    std::size_t offset() const noexcept { return offset_bits_; }
    std::size_t offset_bytes_ceil() const noexcept { return (offset_bits_ + 7U) / 8U; }
    bool        offset_alings_to_byte() const noexcept { return (offset_bits_ % 8U) == 0U; }
    void        add_offset(std::size_t bits) noexcept { offset_bits_ += bits; }
    void        set_offset(std::size_t bits) noexcept { offset_bits_ = bits; }
    template <std::size_t Alignment>
    void align_offset_to() noexcept
    {
        static_assert(Alignment > 0U, "alignment of 0 bits");
        offset_bits_ = ((offset_bits_ + Alignment - 1U) / Alignment) * Alignment;
    }
    /// The same bytes, at ``bits`` past the current offset.
    Self at_offset(std::size_t bits) const noexcept { return Self(data_, size_bytes_, offset_bits_ + bits); }
    /// The byte the offset is in.
    Byte* aligned_ptr(std::size_t plus_offset_bits = 0U) const noexcept
    {
        return data_ + ((offset_bits_ + plus_offset_bits) / 8U);
    }

    // -- reads (bits past the end read as zeros: the implicit zero extension)
    std::uint64_t getBits(std::uint8_t len_bits) const noexcept
    {
        return (len_bits == 0U) ? 0U : wireplanGetBits(bytes(), size_bytes_, offset_bits_, std::min<unsigned>(len_bits, 64U));
    }
    bool          getBit() const noexcept { return getBits(1U) != 0U; }
    std::uint8_t  getU8(std::uint8_t len_bits) const noexcept { return static_cast<std::uint8_t>(getBits(std::min<std::uint8_t>(len_bits, 8U))); }
    std::uint16_t getU16(std::uint8_t len_bits) const noexcept { return static_cast<std::uint16_t>(getBits(std::min<std::uint8_t>(len_bits, 16U))); }
    std::uint32_t getU32(std::uint8_t len_bits) const noexcept { return static_cast<std::uint32_t>(getBits(std::min<std::uint8_t>(len_bits, 32U))); }
    std::uint64_t getU64(std::uint8_t len_bits) const noexcept { return getBits(std::min<std::uint8_t>(len_bits, 64U)); }
    std::int8_t   getI8(std::uint8_t len_bits) const noexcept { return static_cast<std::int8_t>(getI64(std::min<std::uint8_t>(len_bits, 8U))); }
    std::int16_t  getI16(std::uint8_t len_bits) const noexcept { return static_cast<std::int16_t>(getI64(std::min<std::uint8_t>(len_bits, 16U))); }
    std::int32_t  getI32(std::uint8_t len_bits) const noexcept { return static_cast<std::int32_t>(getI64(std::min<std::uint8_t>(len_bits, 32U))); }
    std::int64_t  getI64(std::uint8_t len_bits) const noexcept
    {
        const std::uint8_t n = std::min<std::uint8_t>(len_bits, 64U);
        return (n == 0U) ? 0 : wireplanSext(getBits(n), n);
    }
    float  getF16() const noexcept { return wireplanF16Unpack(static_cast<std::uint16_t>(getBits(16U))); }
    float  getF32() const noexcept { return wireplanF32From(static_cast<std::uint32_t>(getBits(32U))); }
    double getF64() const noexcept { return wireplanF64From(getBits(64U)); }
};
}  // namespace detail

struct const_bitspan;

/// Writable bytes with a bit offset (nunavut's bitspan).
struct bitspan final : public detail::bits_view<std::uint8_t, bitspan>
{
    template <std::size_t N>
    bitspan(std::array<std::uint8_t, N>& data, std::size_t offset_bits = 0U)
        : bits_view(data.data(), N, offset_bits)
    {
    }
    template <std::size_t N>
    bitspan(std::uint8_t (&data)[N], std::size_t offset_bits = 0U)
        : bits_view(data, N, offset_bits)
    {
    }
    bitspan(std::uint8_t* ptr, std::size_t size, std::size_t offset_bits = 0U)
        : bits_view(ptr, size, offset_bits)
    {
    }
    friend struct const_bitspan;

    /// ``size_bits`` bits from ``bits_at`` past the offset, as a span starting at its first
    /// byte (the offset must then be byte-aligned).
    Result<bitspan> subspan(std::size_t bits_at, std::size_t size_bits) const noexcept
    {
        const std::size_t at = offset_bits_ + bits_at;
        if ((at % 8U) != 0U)
        {
            return -Error::SerializationBadArrayLength;
        }
        if (size() < (bits_at + size_bits))
        {
            return -Error::SerializationBufferTooSmall;
        }
        return bitspan(data_ + (at / 8U), (size_bits + 7U) / 8U);
    }

    // -- writes: each checks the room left, then writes at the offset (which it does not move)
    VoidResult setUxx(std::uint64_t value, std::uint8_t len_bits)
    {
        const unsigned n = std::min<unsigned>(len_bits, 64U);
        if (size() < n)
        {
            return -Error::SerializationBufferTooSmall;
        }
        if (n != 0U)
        {
            wireplanSetBits(data_, offset_bits_, value, n);
        }
        return {};
    }
    VoidResult setIxx(std::int64_t value, std::uint8_t len_bits) { return setUxx(static_cast<std::uint64_t>(value), len_bits); }
    VoidResult setBit(bool value) { return setUxx(value ? 1U : 0U, 1U); }
    VoidResult setF16(float value) { return setUxx(wireplanF16Pack(value, true), 16U); }
    VoidResult setF32(float value) { return setUxx(wireplanF32Bits(value), 32U); }
    VoidResult setF64(double value) { return setUxx(wireplanF64Bits(value), 64U); }
    VoidResult setZeros() { return setZeros(size()); }
    VoidResult setZeros(std::size_t length)
    {
        if (size() < length)
        {
            return -Error::SerializationBufferTooSmall;
        }
        for (std::size_t i = 0U; i < length; i += 64U)
        {
            wireplanSetBits(data_, offset_bits_ + i, 0U, static_cast<unsigned>(std::min<std::size_t>(64U, length - i)));
        }
        return {};
    }
    /// Zeros up to the next multiple of ``length`` bits, and the offset moved there.
    VoidResult padAndMoveToAlignment(std::size_t length)
    {
        const std::size_t pad = (length - (offset_bits_ % length)) % length;
        const VoidResult  r   = setZeros(pad);
        if (r)
        {
            add_offset(pad);
        }
        return r;
    }
};

/// Read-only bytes with a bit offset (nunavut's const_bitspan).
struct const_bitspan final : public detail::bits_view<const std::uint8_t, const_bitspan>
{
    template <std::size_t N>
    const_bitspan(const std::array<std::uint8_t, N>& data, std::size_t offset_bits = 0U)
        : bits_view(data.data(), N, offset_bits)
    {
    }
    template <std::size_t N>
    const_bitspan(const std::uint8_t (&data)[N], std::size_t offset_bits = 0U)
        : bits_view(data, N, offset_bits)
    {
    }
    const_bitspan(const std::uint8_t* ptr, std::size_t size, std::size_t offset_bits = 0U)
        : bits_view(ptr, size, offset_bits)
    {
    }
    const_bitspan(const bitspan& other)  // NOLINT: implicit, as nunavut's
        : bits_view(other.data_, other.size_bytes_, other.offset_bits_)
    {
    }
    /// ``size_bits`` bits (at most what is left) from ``bits_at`` past the offset.
    const_bitspan subspan(std::size_t bits_at = 0U, std::size_t size_bits = std::numeric_limits<std::size_t>::max()) const noexcept
    {
        const std::size_t at    = offset_bits_ + bits_at;
        const std::size_t first = std::min(at / 8U, size_bytes_);
        const std::size_t left  = (size() > bits_at) ? (size() - bits_at) : 0U;
        const std::size_t bits  = std::min(left, size_bits) + (at % 8U);
        return const_bitspan(data_ + first, std::min((bits + 7U) / 8U, size_bytes_ - first), at % 8U);
    }
};

/// How wireplan's generated serialize / deserialize reach its byte-level functions.  A DSDL
/// object starts at a byte boundary: at a span offset inside a byte, the message starts at
/// the next byte (the bits between are written as zeros), as a nested object would.  The
/// results are nunavut's: where the message ends, in whole bytes from the start of the
/// span's bytes (for serialize) or at most where the span ends (for deserialize), which is the
/// size written / read when the offset is 0.
namespace wireplan_detail
{
/// ``write(buffer, &size)``: a generated wireplan_serialize_ on the span's bytes.
template <typename Write>
inline SerializeResult serialize(const bitspan& out, Write&& write)
{
    bitspan at(out);
    at.align_offset_to<8U>();
    const std::size_t pad  = at.offset() - out.offset();
    std::size_t       size = at.size() / 8U;
    std::uint8_t      none = 0U;
    if ((pad != 0U) && (out.size() >= pad))
    {
        (void) bitspan(out).setZeros(pad);
    }
    const std::int8_t err = write((size != 0U) ? at.aligned_ptr() : &none, &size);
    if (err < 0)
    {
        return unexpected<Error>(static_cast<Error>(-err));
    }
    return (at.offset() / 8U) + size;
}

/// ``read(buffer, &size)``: a generated wireplan_deserialize_ on the span's bytes.
template <typename Read>
inline SerializeResult deserialize(const const_bitspan& in, Read&& read)
{
    const_bitspan at(in);
    at.align_offset_to<8U>();
    std::size_t       size = at.size() / 8U;
    const std::int8_t err  = read((size != 0U) ? at.aligned_ptr() : nullptr, &size);
    if (err < 0)
    {
        return unexpected<Error>(static_cast<Error>(-err));
    }
    return std::min(at.offset() + (size * 8U), in.size()) / 8U;
}

// bool arrays: std::vector<bool> or CETL's VariableLengthArray<bool> (variable) and
// std::bitset<N> (fixed).  A vector of bools is walked with an iterator, a byte of the wire
// at a time where the bits start a byte.  Bit by bit, a bool is bit ``at`` of the buffer
// (past ``cap`` bytes: false, the zero extension), and the bits after the last one up to its
// byte's end are zeros (padding follows).
inline void put_bit(std::uint8_t* const buf, const std::size_t at, const bool value)
{
    const auto b = static_cast<std::uint8_t>(1U << (at % 8U));
    buf[at / 8U] = static_cast<std::uint8_t>(value ? (buf[at / 8U] | b) : (buf[at / 8U] & ~b));
}

inline bool get_bit(const std::uint8_t* const buf, const std::size_t cap, const std::size_t at)
{
    return ((at / 8U) < cap) && (((buf[at / 8U] >> (at % 8U)) & 1U) != 0U);
}

inline void clear_to_byte_end(std::uint8_t* const buf, const std::size_t end)
{
    if ((end % 8U) != 0U)
    {
        buf[end / 8U] = static_cast<std::uint8_t>(buf[end / 8U] & ((1U << (end % 8U)) - 1U));
    }
}

template <typename Bools>
inline void set_bools(std::uint8_t* const buf, const std::size_t off, const Bools& bools, const std::size_t count)
{
    auto        it = bools.begin();
    std::size_t i  = 0U;
    if ((off % 8U) == 0U)
    {
        for (; (i + 8U) <= count; i += 8U)
        {
            unsigned byte = 0U;
            for (unsigned j = 0U; j < 8U; ++j, ++it)
            {
                byte |= (*it ? 1U : 0U) << j;
            }
            buf[(off + i) / 8U] = static_cast<std::uint8_t>(byte);
        }
    }
    for (; i < count; ++i, ++it)
    {
        put_bit(buf, off + i, *it);
    }
    clear_to_byte_end(buf, off + count);
}

template <typename Bools>
inline void get_bools(Bools& bools, const std::uint8_t* const buf, const std::size_t cap, const std::size_t off, const std::size_t count)
{
    auto        it = bools.begin();
    std::size_t i  = 0U;
    if ((off % 8U) == 0U)
    {
        for (; ((i + 8U) <= count) && (((off + i) / 8U) < cap); i += 8U)
        {
            const unsigned byte = buf[(off + i) / 8U];
            for (unsigned j = 0U; j < 8U; ++j, ++it)
            {
                *it = ((byte >> j) & 1U) != 0U;
            }
        }
    }
    for (; i < count; ++i, ++it)
    {
        *it = get_bit(buf, cap, off + i);
    }
}

// A bitset has no word access: where the bits start a byte of the wire, 64 of them move at a
// time through to_ullong() and shifts; elsewhere bit by bit.
template <std::size_t N>
inline void set_bools(std::uint8_t* const buf, const std::size_t off, const std::bitset<N>& bools, const std::size_t count)
{
    std::size_t i = 0U;
    if ((off % 8U) == 0U)
    {
        std::bitset<N>       rest = bools;
        const std::bitset<N> word(~0ULL);
        for (; (i + 64U) <= count; i += 64U)
        {
            wireplanSt64(&buf[(off + i) / 8U], static_cast<std::uint64_t>((rest & word).to_ullong()));
            rest >>= 64U;
        }
    }
    for (; i < count; ++i)
    {
        put_bit(buf, off + i, bools[i]);
    }
    clear_to_byte_end(buf, off + count);
}

template <std::size_t N>
inline void get_bools(std::bitset<N>& bools, const std::uint8_t* const buf, const std::size_t cap, const std::size_t off, const std::size_t count)
{
    std::size_t i = 0U;
    if ((off % 8U) == 0U)
    {
        bools.reset();
        for (; ((i + 64U) <= count) && ((((off + i) / 8U) + 8U) <= cap); i += 64U)
        {
            bools |= std::bitset<N>(static_cast<unsigned long long>(wireplanLd64(&buf[(off + i) / 8U]))) << i;
        }
    }
    for (; i < count; ++i)
    {
        bools[i] = get_bit(buf, cap, off + i);
    }
}

/// Room for one of ``T, Rest...``, none constructed: the storage of ``variant`` (members of a
/// union, so each has its own type's alignment and no pointer is cast).
template <typename T, typename... Rest>
union slots
{
    T                head;
    slots<Rest...>   tail;
    slots() {}   // NOLINT: the variant constructs the member it holds
    ~slots() {}  // NOLINT: and destroys it
};
template <typename T>
union slots<T>
{
    T head;
    slots() {}   // NOLINT
    ~slots() {}  // NOLINT
};

/// The ``I``-th member of a ``slots``.
template <std::size_t I>
struct slot
{
    template <typename S>
    static auto& in(S& s) noexcept
    {
        return slot<I - 1U>::in(s.tail);
    }
};
template <>
struct slot<0U>
{
    template <typename S>
    static auto& in(S& s) noexcept
    {
        return s.head;
    }
};

/// What a union of the C++14 headers holds: one of ``Types`` (or none after a constructor
/// threw), in place.  The generated ``VariantType`` derives from it and has nunavut's names.
template <typename... Types>
class variant
{
public:
    static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();
    template <std::size_t I>
    using at = typename std::tuple_element<I, std::tuple<Types...>>::type;

    variant() { emplace<0U>(); }
    /// ``Tag<I>{}``: ``cetl::in_place_index_t<I>{}`` or ``std::in_place_index_t<I>{}``.
    template <template <std::size_t> class Tag, std::size_t I, typename... Args>
    explicit variant(Tag<I>, Args&&... args)
    {
        emplace<I>(std::forward<Args>(args)...);
    }
    variant(const variant& rhs) { copy_from(rhs, Indices{}); }
    variant(variant&& rhs) { move_from(rhs, Indices{}); }
    variant& operator=(const variant& rhs)
    {
        if (this != &rhs)
        {
            destroy(Indices{});
            copy_from(rhs, Indices{});
        }
        return *this;
    }
    variant& operator=(variant&& rhs)
    {
        if (this != &rhs)
        {
            destroy(Indices{});
            move_from(rhs, Indices{});
        }
        return *this;
    }
    ~variant() { destroy(Indices{}); }

    std::size_t index() const noexcept { return tag_; }

    template <std::size_t I, typename... Args>
    at<I>& emplace(Args&&... args)
    {
        destroy(Indices{});
        at<I>& made = *::new (static_cast<void*>(&slot<I>::in(slots_))) at<I>(std::forward<Args>(args)...);
        tag_        = I;
        return made;
    }
    template <std::size_t I>
    at<I>* get() noexcept
    {
        return (tag_ == I) ? &slot<I>::in(slots_) : nullptr;
    }
    template <std::size_t I>
    const at<I>* get() const noexcept
    {
        return (tag_ == I) ? &slot<I>::in(slots_) : nullptr;
    }

private:
    using Indices = std::index_sequence_for<Types...>;

    template <std::size_t I>
    static void destroy_one(variant& v)
    {
        slot<I>::in(v.slots_).~at<I>();
    }
    template <std::size_t I>
    static void copy_one(variant& v, const variant& rhs)
    {
        ::new (static_cast<void*>(&slot<I>::in(v.slots_))) at<I>(slot<I>::in(rhs.slots_));
    }
    template <std::size_t I>
    static void move_one(variant& v, variant& rhs)
    {
        ::new (static_cast<void*>(&slot<I>::in(v.slots_))) at<I>(std::move(slot<I>::in(rhs.slots_)));
    }
    template <std::size_t... I>
    void destroy(std::index_sequence<I...>) noexcept
    {
        static constexpr void (*const by_index[])(variant&) = {&destroy_one<I>...};
        if (tag_ != npos)
        {
            by_index[tag_](*this);
            tag_ = npos;
        }
    }
    template <std::size_t... I>
    void copy_from(const variant& rhs, std::index_sequence<I...>)
    {
        static constexpr void (*const by_index[])(variant&, const variant&) = {&copy_one<I>...};
        if (rhs.tag_ != npos)
        {
            by_index[rhs.tag_](*this, rhs);
            tag_ = rhs.tag_;
        }
    }
    template <std::size_t... I>
    void move_from(variant& rhs, std::index_sequence<I...>)
    {
        static constexpr void (*const by_index[])(variant&, variant&) = {&move_one<I>...};
        if (rhs.tag_ != npos)
        {
            by_index[rhs.tag_](*this, rhs);
            tag_ = rhs.tag_;
        }
    }

    slots<Types...> slots_;
    std::size_t     tag_ = npos;
};

/// Whether alternative ``I`` of a PMR union's ``Variant`` is made with the allocator (a class
/// or a vector of the PMR headers; not a number or an array).
template <typename Variant, std::size_t I, typename Value, typename Allocator>
using takes_allocator = std::is_constructible<
    typename Variant::template alternative<I, typename Variant::Base>::type,
    Value&&,
    const Allocator&>;

template <template <std::size_t> class InPlace, typename Variant, std::size_t I, typename Value, typename Allocator>
inline Variant make_alternative_(Value&& value, const Allocator& allocator, std::true_type)
{
    return Variant{InPlace<I>{}, std::forward<Value>(value), allocator};
}

template <template <std::size_t> class InPlace, typename Variant, std::size_t I, typename Value, typename Allocator>
inline Variant make_alternative_(Value&& value, const Allocator& allocator, std::false_type)
{
    static_cast<void>(allocator);
    return Variant{InPlace<I>{}, std::forward<Value>(value)};
}

/// A variant holding alternative ``I`` made from ``value``, with ``allocator`` where the
/// alternative takes one.  ``InPlace``: ``std::in_place_index_t`` or ``cetl::in_place_index_t``.
template <template <std::size_t> class InPlace, typename Variant, std::size_t I, typename Value, typename Allocator>
inline Variant make_alternative(Value&& value, const Allocator& allocator)
{
    return make_alternative_<InPlace, Variant, I>(std::forward<Value>(value),
                                                  allocator,
                                                  takes_allocator<Variant, I, Value, Allocator>{});
}

/// ``make_alternative`` of alternative ``I`` of ``source`` (moved from where ``Source`` is
/// not an lvalue reference).
template <template <std::size_t> class InPlace, typename Variant, std::size_t I, typename Source, typename Allocator>
inline Variant with_allocator_at(Source&& source, const Allocator& allocator)
{
    auto* const value = Variant::template get_if<I>(&source);
    using Value       = typename std::remove_reference<decltype(*value)>::type;
    using Forwarded   = typename std::conditional<std::is_lvalue_reference<Source>::value, Value&, Value&&>::type;
    return make_alternative<InPlace, Variant, I>(static_cast<Forwarded>(*value), allocator);
}

template <template <std::size_t> class InPlace, typename Variant, typename Source, typename Allocator, std::size_t... I>
inline Variant with_allocator_(Source&& source, const Allocator& allocator, std::index_sequence<I...>)
{
    static constexpr Variant (*const by_index[])(Source&&, const Allocator&) = {
        &with_allocator_at<InPlace, Variant, I, Source, Allocator>...};
    return by_index[source.index()](std::forward<Source>(source), allocator);
}

/// A copy of ``source`` (moved from where it is an rvalue) whose alternative is made with
/// ``allocator`` (make_alternative): what a PMR union's copy and move with an allocator hold.
template <template <std::size_t> class InPlace, typename Variant, typename Source, typename Allocator>
inline Variant with_allocator(Source&& source, const Allocator& allocator)
{
    return with_allocator_<InPlace, Variant>(std::forward<Source>(source),
                                             allocator,
                                             std::make_index_sequence<Variant::MAX_INDEX>{});
}

}  // namespace wireplan_detail

/// Replaces ``dst`` by ``src`` in place (destroy, then construct): how a PMR union takes
/// another allocator, which has no assignment.
template <typename T>
inline void assignInplace(T& dst, T&& src)
{
    dst.~T();
    ::new (&dst) T(std::forward<T>(src));
}

}  // namespace support
}  // namespace nunavut

#endif  // NUNAVUT_SUPPORT_SERIALIZATION_HPP_INCLUDED
