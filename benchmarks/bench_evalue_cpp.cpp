// The C++ side of benchmarks/bench_evalue_cpp.py: reads a record file with wireplan_evalue.hpp.
//
//   bench_evalue_cpp FILE INNER
// prints "memory SECONDS" (read_records over the file already in memory, 64-byte aligned) and "file SECONDS"
// (open and mmap the file, read_records, unmap: what Python's reader does), each the mean of
// INNER passes (after one untimed pass), and
// "values N" so that the work cannot be optimised away.
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wireplan_evalue.hpp"

namespace ev = wireplan::evalue;

// The file in memory at a 64-byte aligned address (the format aligns lists and tensor data to 64
// from the file's start, as a mapping is).
struct Loaded {
  std::uint8_t* data = nullptr;
  std::size_t size = 0;
  ~Loaded() { std::free(data); }
};

static void load(const char* path, Loaded& out) {
  std::FILE* f = std::fopen(path, "rb");
  if (!f) std::exit(2);
  std::fseek(f, 0, SEEK_END);
  out.size = static_cast<std::size_t>(std::ftell(f));
  std::fseek(f, 0, SEEK_SET);
  out.data = static_cast<std::uint8_t*>(std::aligned_alloc(64, (out.size + 63) / 64 * 64));
  if (!out.data || std::fread(out.data, 1, out.size, f) != out.size) std::exit(2);
  std::fclose(f);
}

static std::uint64_t walk(const std::uint8_t* data, std::size_t size) {
  std::uint64_t seen = 0;
  ev::Error e = ev::read_records(data, size, ev::Options{},
                                 [&](std::uint64_t, std::uint64_t, const ev::Value& v) {
                                   seen += static_cast<std::uint64_t>(v.tag) + v.tensor.numel;
                                 });
  if (!e.ok()) {
    std::fprintf(stderr, "at byte %" PRIu64 ": %s\n", e.offset, e.what());
    std::exit(1);
  }
  return seen;
}

static std::uint64_t walk_mapped(const char* path) {
  int fd = ::open(path, O_RDONLY);
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0) std::exit(2);
  std::size_t size = static_cast<std::size_t>(st.st_size);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) std::exit(2);
  std::uint64_t seen = walk(static_cast<const std::uint8_t*>(map), size);
  ::munmap(map, size);
  ::close(fd);
  return seen;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  int inner = std::atoi(argv[2]);
  using clock = std::chrono::steady_clock;
  Loaded buf;
  load(argv[1], buf);
  std::uint64_t seen = walk(buf.data, buf.size);  // a warm-up pass, not timed
  auto t0 = clock::now();
  for (int i = 0; i < inner; ++i) seen += walk(buf.data, buf.size);
  double memory = std::chrono::duration<double>(clock::now() - t0).count() / inner;
  t0 = clock::now();
  for (int i = 0; i < inner; ++i) seen += walk_mapped(argv[1]);
  double file = std::chrono::duration<double>(clock::now() - t0).count() / inner;
  std::printf("memory %.9f\nfile %.9f\nvalues %" PRIu64 "\n", memory, file, seen);
  return 0;
}
