// wireplan_evalue.hpp: a header-only C++17 reader of ExecuTorch's Java EValue bytes,
// wireplan's list framing and record files (docs/evalue.md, "C++ reader").
//
// Nothing is copied and nothing is allocated: a decoded Value points into the caller's
// buffer (strings as std::string_view, tensors as scalar type, sizes and a pointer to
// their big-endian elements), so the buffer must outlive it.  Every length is checked
// against the buffer before it is used.  Errors are returned, never thrown (it builds
// with -fno-exceptions): an Error names the byte offset from the start of the buffer,
// the record and element it is in, and a kind; these are the offsets, records and
// elements wireplan's Python decoder reports for the same bytes.
//
// Shipped with wireplan (`wireplan evalue header -o DIR`); MIT licensed like it.
#ifndef WIREPLAN_EVALUE_HPP
#define WIREPLAN_EVALUE_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace wireplan {
namespace evalue {

enum class Tag : std::uint8_t { None = 0, Tensor = 1, String = 2, Double = 3, Int = 4, Bool = 5 };

// Why decoding failed.  Limit kinds are a declared size beyond the input (Python's
// LimitError); the others are malformed bytes (DecodeError).
enum class Code : std::uint8_t {
  Ok = 0,
  Empty,            // no tag byte
  Truncated,        // a fixed-size field runs past the end
  Trailing,         // bytes after the value, list or element
  UnknownTag,       // tag > 11
  CxxOnlyTag,       // tags 6..11: C++ runtime lists, not in the Java format
  BadBool,          // a Bool byte other than 0 or 1
  UnknownScalarType,
  NotJavaScalarType,  // a type Java does not read, without Options::extended
  NegativeRank,
  NegativeSize,
  BadUtf8,
  BadBoolElement,   // a Bool tensor element other than 0 or 1
  DataSize,         // Limit: a tensor's elements need more bytes than remain
  StringSize,       // Limit: a String's length exceeds what remains
  ElementCount,     // Limit: a zero-element tensor whose other sizes overflow
  NotList,          // list magic
  ListVersion,
  ListFlags,
  ListCount,        // Limit: the element table does not fit
  ElementBounds,    // Limit: an element past the list end
  Overlap,          // an element overlaps what comes before it
  Padding,          // non-zero padding
  NotRecordFile,    // record file magic
  RecordVersion,
  RecordFlags,
  RecordCount,      // Limit: the header declares more records than the file can hold
  RecordLength,     // Limit: a record longer than what remains
  RecordMismatch,   // the file holds another number of records than declared
};

inline const char* message(Code code) noexcept {
  switch (code) {
    case Code::Ok: return "ok";
    case Code::Empty: return "empty input: an EValue needs at least its tag byte";
    case Code::Truncated: return "truncated";
    case Code::Trailing: return "trailing bytes";
    case Code::UnknownTag: return "unknown EValue tag";
    case Code::CxxOnlyTag: return "tag exists in ExecuTorch's C++ runtime but not in the Java wire format";
    case Code::BadBool: return "Bool byte is not 0 or 1";
    case Code::UnknownScalarType: return "unknown tensor scalar type";
    case Code::NotJavaScalarType: return "tensor scalar type is not one ExecuTorch's Java layer accepts";
    case Code::NegativeRank: return "negative tensor rank";
    case Code::NegativeSize: return "negative tensor size";
    case Code::BadUtf8: return "String is not valid UTF-8";
    case Code::BadBoolElement: return "Bool tensor element is not 0 or 1";
    case Code::DataSize: return "Tensor declares more data bytes than remain";
    case Code::StringSize: return "String declares more bytes than remain";
    case Code::ElementCount: return "Tensor shape overflows the element count";
    case Code::NotList: return "not an EValue list (magic b'WPEL' expected)";
    case Code::ListVersion: return "unsupported list version";
    case Code::ListFlags: return "unknown list flags";
    case Code::ListCount: return "list declares more elements than its table can hold";
    case Code::ElementBounds: return "element past the list end";
    case Code::Overlap: return "element overlaps what comes before it";
    case Code::Padding: return "non-zero padding";
    case Code::NotRecordFile: return "not an EValue record file (magic b'WPEVRECS' expected)";
    case Code::RecordVersion: return "unsupported record file version";
    case Code::RecordFlags: return "unknown record file flags";
    case Code::RecordCount: return "record file declares more records than it can hold";
    case Code::RecordLength: return "record declares more bytes than remain";
    case Code::RecordMismatch: return "the header declares another number of records (truncated or damaged)";
  }
  return "unknown error";
}

struct Error {
  Code code = Code::Ok;
  std::uint64_t offset = 0;   // from the start of the buffer
  std::int64_t record = -1;   // the record it is in, -1 outside records
  std::int64_t element = -1;  // the list element it is in, -1 outside lists

  bool ok() const noexcept { return code == Code::Ok; }
  // A declared size beyond the input (Python's LimitError, a DecodeError too).
  bool limit() const noexcept {
    return code == Code::DataSize || code == Code::StringSize || code == Code::ElementCount ||
           code == Code::ListCount || code == Code::ElementBounds ||
           code == Code::RecordCount || code == Code::RecordLength;
  }
  const char* what() const noexcept { return message(code); }
};

struct Options {
  bool extended = false;  // read scalar types beyond Java's seven
  bool text = true;       // check that Strings are UTF-8
};

// ExecuTorch's ScalarType codes (runtime/core/portable_type/scalar_type.h): element size
// in bytes, 0 for a code it does not define.
inline std::size_t element_size(std::uint8_t scalar_type) noexcept {
  static constexpr std::uint8_t sizes[30] = {1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4,
                                             2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 4, 8};
  return scalar_type < 30 ? sizes[scalar_type] : 0;
}

// The seven ExecuTorch's Java layer reads: uint8, int8, int32, int64, float16, float32, float64.
inline bool java_scalar_type(std::uint8_t scalar_type) noexcept {
  return scalar_type <= 7 && scalar_type != 2;
}

namespace detail {

inline std::uint64_t load_be(const std::uint8_t* p, std::size_t n) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

inline std::uint32_t load_u32(const std::uint8_t* p) noexcept {
  return static_cast<std::uint32_t>(load_be(p, 4));
}

inline std::uint64_t load_u64(const std::uint8_t* p) noexcept { return load_be(p, 8); }

inline std::int32_t load_i32(const std::uint8_t* p) noexcept {
  std::uint32_t u = load_u32(p);
  std::int32_t v;
  std::memcpy(&v, &u, 4);
  return v;
}

inline Error fail(Code code, std::uint64_t offset) noexcept {
  Error e;
  e.code = code;
  e.offset = offset;
  return e;
}

// The offset of a truncation: where the field starts, or the end when nothing remains.
inline Error truncated(std::size_t pos, std::size_t end) noexcept {
  return fail(Code::Truncated, end > pos ? pos : end);
}

// a * b, or UINT64_MAX when it overflows.
inline std::uint64_t mul_sat(std::uint64_t a, std::uint64_t b) noexcept {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

// The offset of the first non-zero byte in [start, end), or end.
inline std::size_t first_nonzero(const std::uint8_t* base, std::size_t start,
                                 std::size_t end) noexcept {
  for (std::size_t i = start; i < end; ++i)
    if (base[i] != 0) return i;
  return end;
}

// The offset of the first byte of the first ill-formed UTF-8 sequence in [pos, end), or
// end (the rules of the Unicode Standard's table 3-7, which Python's decoder follows).
inline std::size_t utf8_invalid(const std::uint8_t* base, std::size_t pos,
                                std::size_t end) noexcept {
  while (pos < end) {
    std::uint8_t c = base[pos];
    if (c < 0x80) {
      ++pos;
      continue;
    }
    std::size_t n;
    std::uint8_t lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return pos;
    }
    if (end - pos - 1 < n) return pos;
    std::uint8_t c1 = base[pos + 1];
    if (c1 < lo || c1 > hi) return pos;
    for (std::size_t k = 2; k <= n; ++k)
      if ((base[pos + k] & 0xC0) != 0x80) return pos;
    pos += n + 1;
  }
  return end;
}

// Up to this rank wireplan's Python decoder checks a tensor of a type numpy holds as numpy
// reads it (CHECKED_MAX_RANK, whichever numpy is installed); deeper ones are raw bytes to
// it, and the two checks below are skipped (tested to agree).
constexpr unsigned kCheckedMaxRank = 64;

}  // namespace detail

// A tensor inside the buffer: its elements are big-endian and row-major at `data`.
struct Tensor {
  std::uint8_t scalar_type = 0;
  std::uint8_t rank = 0;
  const std::uint8_t* sizes_be = nullptr;  // rank x big-endian i32
  const std::uint8_t* data = nullptr;
  std::uint64_t numel = 0;
  std::uint64_t nbytes = 0;

  std::int32_t size(unsigned dim) const noexcept { return detail::load_i32(sizes_be + 4 * dim); }
  std::size_t itemsize() const noexcept { return element_size(scalar_type); }

  // The bits of element i in native order (itemsize 1, 2, 4 or 8; i < numel).
  std::uint64_t bits(std::uint64_t i) const noexcept {
    std::size_t n = itemsize();
    return detail::load_be(data + i * n, n);
  }

  // Copies the elements to `out` (nbytes of room) in native byte order; complex types
  // swap each half.  The one copy a consumer that needs native data makes.
  void copy_native(void* out) const noexcept {
    std::size_t n = itemsize();
    std::size_t part = (scalar_type == 8 || scalar_type == 9 || scalar_type == 10) ? n / 2 : n;
    std::uint8_t* dst = static_cast<std::uint8_t*>(out);
    for (std::uint64_t i = 0; i < nbytes; i += part) {
      std::uint64_t v = detail::load_be(data + i, part);
      if (part == 1) {
        dst[i] = static_cast<std::uint8_t>(v);
      } else if (part == 2) {
        std::uint16_t w = static_cast<std::uint16_t>(v);
        std::memcpy(dst + i, &w, 2);
      } else if (part == 4) {
        std::uint32_t w = static_cast<std::uint32_t>(v);
        std::memcpy(dst + i, &w, 4);
      } else {
        std::memcpy(dst + i, &v, 8);
      }
    }
  }
};

struct Value {
  Tag tag = Tag::None;
  std::int64_t i = 0;     // Int
  double d = 0.0;         // Double
  bool b = false;         // Bool
  std::string_view str;   // String: the bytes in the buffer
  Tensor tensor;          // Tensor
};

namespace detail {

inline Error decode_tensor(const std::uint8_t* base, std::size_t pos, std::size_t end,
                           const Options& opt, Tensor& t) noexcept {
  // pos is the scalar type byte, just after the tag.
  if (end - pos < 2) return truncated(pos, end);
  std::uint8_t code = base[pos];
  std::uint8_t rank = base[pos + 1];
  std::size_t item = element_size(code);
  if (!opt.extended && !java_scalar_type(code))
    return fail(item ? Code::NotJavaScalarType : Code::UnknownScalarType, pos);
  if (item == 0) return fail(Code::UnknownScalarType, pos);
  if (rank > 127) return fail(Code::NegativeRank, pos + 1);
  std::size_t sizes_at = pos + 2;
  if (end - sizes_at < 4u * rank) return truncated(sizes_at, end);
  std::size_t data_at = sizes_at + 4u * rank;
  bool zero = false;
  std::uint64_t nonzero = 1;  // the product of the non-zero sizes, saturated
  for (unsigned k = 0; k < rank; ++k) {
    std::int32_t n = load_i32(base + sizes_at + 4 * k);
    if (n < 0) return fail(Code::NegativeSize, sizes_at + 4 * k);
    if (n == 0)
      zero = true;
    else
      nonzero = mul_sat(nonzero, static_cast<std::uint64_t>(n));
  }
  std::uint64_t numel = zero ? 0 : nonzero;
  std::uint64_t need = mul_sat(numel, item);
  std::uint64_t have = end - data_at;
  if (need > have) return fail(Code::DataSize, data_at);
  if (need < have) return fail(Code::Trailing, data_at + need);
  bool numpy = rank <= kCheckedMaxRank && (code <= 7 || code == 9 || code == 10 ||
                                           code == 11 || code == 15 || code >= 23);
  if (numpy && zero && mul_sat(nonzero, item) > static_cast<std::uint64_t>(INT64_MAX))
    return fail(Code::ElementCount, data_at);
  if (numpy && code == 11) {
    for (std::uint64_t k = 0; k < need; ++k)
      if (base[data_at + k] > 1) return fail(Code::BadBoolElement, data_at + k);
  }
  t.scalar_type = code;
  t.rank = rank;
  t.sizes_be = base + sizes_at;
  t.data = base + data_at;
  t.numel = numel;
  t.nbytes = need;
  return Error{};
}

}  // namespace detail

// Decodes the one value that fills base[pos, end) exactly; offsets count from base.
inline Error decode_at(const std::uint8_t* base, std::size_t pos, std::size_t end,
                       const Options& opt, Value& out) noexcept {
  using detail::fail;
  if (pos >= end) return fail(Code::Empty, pos);
  std::uint8_t tag = base[pos++];
  std::size_t have = end - pos;
  switch (tag) {
    case 0:
      if (have) return fail(Code::Trailing, pos);
      out.tag = Tag::None;
      return Error{};
    case 1:
      out.tag = Tag::Tensor;
      return detail::decode_tensor(base, pos, end, opt, out.tensor);
    case 2: {
      if (have < 4) return detail::truncated(pos, end);
      std::uint32_t n = detail::load_u32(base + pos);
      pos += 4;
      if (n > end - pos) return fail(Code::StringSize, pos);
      if (n < end - pos) return fail(Code::Trailing, pos + n);
      if (opt.text) {
        std::size_t bad = detail::utf8_invalid(base, pos, end);
        if (bad != end) return fail(Code::BadUtf8, bad);
      }
      out.tag = Tag::String;
      out.str = std::string_view(reinterpret_cast<const char*>(base + pos), n);
      return Error{};
    }
    case 3:
    case 4: {
      if (have < 8) return detail::truncated(pos, end);
      if (have > 8) return fail(Code::Trailing, pos + 8);
      std::uint64_t bits = detail::load_u64(base + pos);
      if (tag == 4) {
        out.tag = Tag::Int;
        std::memcpy(&out.i, &bits, 8);
      } else {
        out.tag = Tag::Double;
        std::memcpy(&out.d, &bits, 8);
      }
      return Error{};
    }
    case 5:
      if (have < 1) return detail::truncated(pos, end);
      if (have > 1) return fail(Code::Trailing, pos + 1);
      if (base[pos] > 1) return fail(Code::BadBool, pos);
      out.tag = Tag::Bool;
      out.b = base[pos] == 1;
      return Error{};
    default:
      return fail(tag <= 11 ? Code::CxxOnlyTag : Code::UnknownTag, pos - 1);
  }
}

// Decodes one EValue that fills data[0, size) exactly.
inline Error decode(const void* data, std::size_t size, Value& out,
                    const Options& opt = Options{}) noexcept {
  return decode_at(static_cast<const std::uint8_t*>(data), 0, size, opt, out);
}

constexpr std::size_t kAlignment = 64;  // tensor data in lists, lists in record files

// Walks the list (wireplan's framing, version 1) in base[start, end), calling
// on_value(element_index, const Value&) for each element in order, and stops at the
// first error (whose `element` names the element when it is inside one).
template <class F>
Error read_list(const std::uint8_t* base, std::size_t start, std::size_t end,
                const Options& opt, F&& on_value) {
  using detail::fail;
  std::size_t avail = end - start;
  if (avail < 16) {
    static constexpr char magic[] = "WPEL";
    std::size_t k = avail < 4 ? avail : 4;
    if (k && std::memcmp(base + start, magic, k) != 0) return fail(Code::NotList, start);
    return fail(Code::Truncated, end);
  }
  if (std::memcmp(base + start, "WPEL", 4) != 0) return fail(Code::NotList, start);
  if (detail::load_be(base + start + 4, 2) != 1) return fail(Code::ListVersion, start + 4);
  if (detail::load_be(base + start + 6, 2) != 0) return fail(Code::ListFlags, start + 6);
  std::uint64_t count = detail::load_u64(base + start + 8);
  std::size_t table_at = start + 16;
  if (count > (end - table_at) / 16) return fail(Code::ListCount, start + 8);
  std::size_t prev = table_at + 16 * count;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::size_t entry_at = table_at + 16 * i;
    std::uint64_t off = detail::load_u64(base + entry_at);
    std::uint64_t length = detail::load_u64(base + entry_at + 8);
    if (off > avail || length > avail - off) return fail(Code::ElementBounds, entry_at);
    std::size_t at = start + off;
    if (at < prev) return fail(Code::Overlap, entry_at);
    std::size_t bad = detail::first_nonzero(base, prev, at);
    if (bad != at) return fail(Code::Padding, bad);
    Value v;
    Error e = decode_at(base, at, at + length, opt, v);
    if (!e.ok()) {
      e.element = static_cast<std::int64_t>(i);
      return e;
    }
    on_value(i, static_cast<const Value&>(v));
    prev = at + length;
  }
  if (prev != end) return fail(Code::Trailing, prev);
  return Error{};
}

template <class F>
Error decode_list(const void* data, std::size_t size, const Options& opt, F&& on_value) {
  return read_list(static_cast<const std::uint8_t*>(data), 0, size, opt, on_value);
}

// Checks a record file's header and framing (not the records' lists), calling
// on_span(record_index, start, end) for each record's list in order.
template <class F>
Error scan_records(const void* data, std::size_t size, F&& on_span) {
  using detail::fail;
  const std::uint8_t* base = static_cast<const std::uint8_t*>(data);
  static constexpr char magic[] = "WPEVRECS";
  if (size < 24) {
    std::size_t k = size < 8 ? size : 8;
    if (k && std::memcmp(base, magic, k) != 0) return fail(Code::NotRecordFile, 0);
    return fail(Code::Truncated, size);
  }
  if (std::memcmp(base, magic, 8) != 0) return fail(Code::NotRecordFile, 0);
  if (detail::load_be(base + 8, 2) != 1) return fail(Code::RecordVersion, 8);
  if (detail::load_be(base + 10, 2) != 0) return fail(Code::RecordFlags, 10);
  if (detail::load_be(base + 12, 4) != 0) return fail(Code::RecordFlags, 12);
  std::uint64_t count = detail::load_u64(base + 16);
  if (count > (size - 24) / 8) return fail(Code::RecordCount, 16);
  std::uint64_t found = 0;
  std::size_t pos = 24;
  while (pos < size) {
    // The length field goes where the list after it starts at a multiple of 64.
    std::size_t at = (pos + 8 + kAlignment - 1) / kAlignment * kAlignment - 8;
    if (at > size || size - at < 8) return fail(Code::Truncated, size);
    std::size_t bad = detail::first_nonzero(base, pos, at);
    if (bad != at) return fail(Code::Padding, bad);
    std::uint64_t length = detail::load_u64(base + at);
    std::size_t start = at + 8;
    if (length > size - start) return fail(Code::RecordLength, at);
    on_span(found, start, start + static_cast<std::size_t>(length));
    ++found;
    pos = start + static_cast<std::size_t>(length);
  }
  if (found != count) return fail(Code::RecordMismatch, size);
  return Error{};
}

// Reads a whole record file in memory: the framing first (scan_records), then every
// record's list in order, calling on_value(record, element, const Value&).
template <class F>
Error read_records(const void* data, std::size_t size, const Options& opt, F&& on_value) {
  Error e = scan_records(data, size, [](std::uint64_t, std::size_t, std::size_t) {});
  if (!e.ok()) return e;
  const std::uint8_t* base = static_cast<const std::uint8_t*>(data);
  std::uint64_t index = 0;
  std::size_t pos = 24;
  while (pos < size) {
    std::size_t at = (pos + 8 + kAlignment - 1) / kAlignment * kAlignment - 8;
    std::size_t start = at + 8;
    std::size_t end = start + static_cast<std::size_t>(detail::load_u64(base + at));
    std::uint64_t record = index;
    e = read_list(base, start, end, opt, [&](std::uint64_t element, const Value& v) {
      on_value(record, element, v);
    });
    if (!e.ok()) {
      e.record = static_cast<std::int64_t>(record);
      return e;
    }
    ++index;
    pos = end;
  }
  return Error{};
}

}  // namespace evalue
}  // namespace wireplan

#endif  // WIREPLAN_EVALUE_HPP
