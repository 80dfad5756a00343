// Native reference for W5: 256-bin histogram of bytes, one increment per byte.
#include <cstring>
#include <vector>

#include "timing.hpp"

__attribute__((noinline)) void histogram(const unsigned char *data, long n, unsigned int *bins) {
  std::memset(bins, 0, 256 * sizeof(unsigned int));
  for (long i = 0; i < n; ++i)
    bins[data[i]]++;
}

int main(int argc, char **argv) {
  bench::Args args = bench::parseArgs(argc, argv, 1L << 22);
  long n = args.n;
  std::vector<unsigned char> data(n);
  unsigned int state = 12345u;
  for (long i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    unsigned char v = (unsigned char)(state >> 24);
    if (i % 5 == 0)
      v = 7;
    data[i] = v;
  }
  unsigned int bins[256];
  double ms = bench::medianMs(args.reps, [&] { histogram(data.data(), n, bins); });
  unsigned long total = 0;
  for (unsigned int b : bins)
    total += b;
  return bench::report("w5 histogram", total == (unsigned long)n && bins[7] >= n / 5, ms);
}
