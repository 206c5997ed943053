// The test driver of wireplan_evalue_executorch.hpp (tests/evalue/test_cpp_reader_executorch.py):
// every value of a batch (test_cpp_reader_driver.cpp's format) becomes ExecuTorch's own EValue,
// and what ExecuTorch's accessors then say is printed, one line a case:
//   O record:element:value...   with value N, B0, B1, I<int>, D<hex bits>, S<offset>+<length>,
//   or T<scalar type>,<dim>,<size>x...,<nbytes>,<view 0/1>#<weighted sum of the data, hex>
// (view: the tensor's data is the input's bytes), or E <code> <offset> when reading fails.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <executorch/runtime/platform/runtime.h>

#include "wireplan_evalue_executorch.hpp"

namespace ev = wireplan::evalue;

static void print_evalue(const std::uint8_t* base, std::uint64_t size, std::int64_t record,
                         std::int64_t element, const executorch::runtime::EValue& e) {
  std::printf(" %" PRId64 ":%" PRId64 ":", record, element);
  if (e.isNone()) {
    std::printf("N");
  } else if (e.isBool()) {
    std::printf("B%d", e.toBool() ? 1 : 0);
  } else if (e.isInt()) {
    std::printf("I%" PRId64, e.toInt());
  } else if (e.isDouble()) {
    double d = e.toDouble();
    std::uint64_t bits;
    std::memcpy(&bits, &d, 8);
    std::printf("D%016" PRIx64, bits);
  } else if (e.isString()) {
    std::string_view s = e.toString();
    std::printf("S%td+%zu", reinterpret_cast<const std::uint8_t*>(s.data()) - base, s.size());
  } else if (e.isTensor()) {
    const executorch::aten::Tensor& t = e.toTensor();
    std::printf("T%d,%zd,", static_cast<int>(t.scalar_type()), static_cast<std::ptrdiff_t>(t.dim()));
    for (std::ptrdiff_t k = 0; k < t.dim(); ++k)
      std::printf("%s%d", k ? "x" : "", static_cast<int>(t.sizes()[k]));
    const std::uint8_t* data = static_cast<const std::uint8_t*>(t.const_data_ptr());
    std::size_t nbytes = t.nbytes();
    bool view = nbytes && data >= base && data < base + size;
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < nbytes; ++i) sum += data[i] * (i + 1);
    std::printf(",%zu,%d#%" PRIx64, nbytes, view ? 1 : 0, sum);
  } else {
    std::printf("?");
  }
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  executorch::runtime::runtime_init();
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
    auto show = [&](std::int64_t r, std::int64_t i, const ev::Value& v) {
      ev::et::EValueOf e(v);
      print_evalue(data, n, r, i, e.get());
    };
    std::printf("O");
    ev::Error err;
    if (head[0] == 'v') {
      ev::Value v;
      err = ev::decode(data, n, v, opt);
      if (err.ok()) show(-1, -1, v);
    } else {
      err = ev::read_records(data, n, opt, [&](std::uint64_t r, std::uint64_t i, const ev::Value& v) {
        show(static_cast<std::int64_t>(r), static_cast<std::int64_t>(i), v);
      });
    }
    if (!err.ok()) std::printf(" E %d %" PRIu64, static_cast<int>(err.code), err.offset);
    std::printf("\n");
    std::free(data);
  }
  std::fclose(f);
  return 0;
}
