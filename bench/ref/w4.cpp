// Native reference for W4: transpose of an n x n float matrix, the plain double loop.
#include <vector>

#include "timing.hpp"

__attribute__((noinline)) void transpose(const float *in, float *out, long n) {
  for (long y = 0; y < n; ++y) {
    for (long x = 0; x < n; ++x)
      out[x * n + y] = in[y * n + x];
  }
}

int main(int argc, char **argv) {
  bench::Args args = bench::parseArgs(argc, argv, 2048);
  long n = args.n;
  std::vector<float> in(n * n), out(n * n, 0.0f);
  for (long i = 0; i < n * n; ++i)
    in[i] = (float)(i % 65521);
  double ms = bench::medianMs(args.reps, [&] { transpose(in.data(), out.data(), n); });
  bool ok = true;
  for (long y = 0; y < n; ++y) {
    for (long x = 0; x < n; ++x)
      ok = ok && out[x * n + y] == in[y * n + x];
  }
  return bench::report("w4 transpose", ok, ms);
}
