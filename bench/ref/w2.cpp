// Native reference for W2: per-block sums of 256 floats, a serial loop per block.
#include <vector>

#include "timing.hpp"

constexpr long kBlock = 256;

__attribute__((noinline)) void blockSums(const float *in, float *out, long n) {
  long blocks = (n + kBlock - 1) / kBlock;
  for (long b = 0; b < blocks; ++b) {
    float s = 0.0f;
    for (long t = 0; t < kBlock && b * kBlock + t < n; ++t)
      s += in[b * kBlock + t];
    out[b] = s;
  }
}

int main(int argc, char **argv) {
  bench::Args args = bench::parseArgs(argc, argv, 1L << 22);
  long n = args.n;
  long blocks = (n + kBlock - 1) / kBlock;
  std::vector<float> in(n), out(blocks, 0.0f);
  for (long i = 0; i < n; ++i)
    in[i] = (float)((i * 7 + 3) % 101 - 50);
  double ms = bench::medianMs(args.reps, [&] { blockSums(in.data(), out.data(), n); });
  double total = 0.0;
  for (long b = 0; b < blocks; ++b)
    total += out[b];
  double expected = 0.0;
  for (long i = 0; i < n; ++i)
    expected += in[i];
  return bench::report("w2 reduction", total == expected, ms);
}
