// The test driver of wireplan_evalue.hpp (tests/evalue/test_cpp_reader.py): reads a batch of
// cases, decodes each from its own exactly sized heap block (so that the sanitizers see any
// read past its end) and prints one line a case, which the test compares with Python's verdict.
//
// A batch is a sequence of: u8 mode ('v' one value, 'l' a list, 'r' a record file), u8 flags
// (1 extended, 2 text), u64 little-endian length, the bytes.  A line is
//   E code limit offset record element         (an error), or
//   O item...                                   (the values, each record:element:value)
// where a value is N, B0, B1, I<int>, D<hex bits>, S<offset>+<length>, or
// T<type>,<rank>,<size>x...,<offset>+<nbytes>#<weighted sum of the native copy, hex>; offsets count from the case's first byte.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "wireplan_evalue.hpp"

namespace ev = wireplan::evalue;

static void print_value(const std::uint8_t* base, std::int64_t record, std::int64_t element,
                        const ev::Value& v) {
  std::printf(" %" PRId64 ":%" PRId64 ":", record, element);
  switch (v.tag) {
    case ev::Tag::None: std::printf("N"); break;
    case ev::Tag::Bool: std::printf("B%d", v.b ? 1 : 0); break;
    case ev::Tag::Int: std::printf("I%" PRId64, v.i); break;
    case ev::Tag::Double: {
      std::uint64_t bits;
      std::memcpy(&bits, &v.d, 8);
      std::printf("D%016" PRIx64, bits);
      break;
    }
    case ev::Tag::String:
      std::printf("S%td+%zu", reinterpret_cast<const std::uint8_t*>(v.str.data()) - base,
                  v.str.size());
      break;
    case ev::Tag::Tensor: {
      const ev::Tensor& t = v.tensor;
      std::printf("T%u,%u,", t.scalar_type, t.rank);
      for (unsigned k = 0; k < t.rank; ++k) std::printf("%s%" PRId32, k ? "x" : "", t.size(k));
      std::printf(",%td+%" PRIu64, t.data - base, t.nbytes);
      // Touch every element through the accessors, as a consumer would.
      volatile std::uint64_t sink = 0;
      if (t.itemsize() <= 8)
        for (std::uint64_t i = 0; i < t.numel; ++i) sink = sink ^ t.bits(i);
      // The native copy, as a weighted byte sum: sum of byte[i] * (i + 1), modulo 2**64.
      std::uint64_t sum = 0;
      if (t.nbytes) {
        std::vector<std::uint8_t> native(static_cast<std::size_t>(t.nbytes));
        t.copy_native(native.data());
        for (std::size_t i = 0; i < native.size(); ++i) sum += native[i] * (i + 1);
      }
      std::printf("#%" PRIx64, sum);
      break;
    }
  }
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s BATCH\n", argv[0]);
    return 2;
  }
  std::FILE* f = std::fopen(argv[1], "rb");
  if (!f) return 2;
  for (;;) {
    unsigned char head[10];
    std::size_t got = std::fread(head, 1, 10, f);
    if (got == 0) break;
    if (got != 10) return 3;
    std::uint64_t n = 0;
    for (int k = 7; k >= 0; --k) n = (n << 8) | head[2 + k];
    std::uint8_t* data = static_cast<std::uint8_t*>(std::malloc(n ? n : 1));
    if (!data || std::fread(data, 1, n, f) != n) return 3;
    ev::Options opt;
    opt.extended = head[1] & 1;
    opt.text = (head[1] & 2) != 0;
    ev::Error e;
    std::printf("O");
    if (head[0] == 'v') {
      ev::Value v;
      e = ev::decode(data, n, v, opt);
      if (e.ok()) print_value(data, -1, -1, v);
    } else if (head[0] == 'l') {
      e = ev::decode_list(data, n, opt, [&](std::uint64_t i, const ev::Value& v) {
        print_value(data, -1, static_cast<std::int64_t>(i), v);
      });
    } else {
      e = ev::read_records(data, n, opt,
                           [&](std::uint64_t r, std::uint64_t i, const ev::Value& v) {
                             print_value(data, static_cast<std::int64_t>(r),
                                         static_cast<std::int64_t>(i), v);
                           });
    }
    if (!e.ok())
      std::printf(" E %d %d %" PRIu64 " %" PRId64 " %" PRId64 " %s", static_cast<int>(e.code),
                  e.limit() ? 1 : 0, e.offset, e.record, e.element, e.what());
    std::printf("\n");
    std::free(data);
  }
  std::fclose(f);
  return 0;
}
