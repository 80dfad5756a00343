// Native reference for W1: vecadd c = a + b on floats, a serial loop.
#include <vector>

#include "timing.hpp"

__attribute__((noinline)) void vecadd(const float *a, const float *b, float *c, long n) {
  for (long i = 0; i < n; ++i)
    c[i] = a[i] + b[i];
}

int main(int argc, char **argv) {
  bench::Args args = bench::parseArgs(argc, argv, 1L << 22);
  long n = args.n;
  std::vector<float> a(n), b(n), c(n, 0.0f);
  for (long i = 0; i < n; ++i) {
    a[i] = (float)(i % 1000) * 0.25f;
    b[i] = (float)(i % 777) * 0.5f;
  }
  double ms = bench::medianMs(args.reps, [&] { vecadd(a.data(), b.data(), c.data(), n); });
  bool ok = true;
  for (long i = 0; i < n; ++i)
    ok = ok && c[i] == a[i] + b[i];
  return bench::report("w1 vecadd", ok, ms);
}
