// Native reference for W10: one Jacobi iteration of bench/w10_stencil.kern, the natural serial
// loop over the grid's interior.
#include <vector>

#include "timing.hpp"

__attribute__((noinline)) void jacobi(const float *in, float *out, int n) {
  for (int y = 1; y < n - 1; ++y)
    for (int x = 1; x < n - 1; ++x) {
      const int i = y * n + x;
      out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - n] + in[i + n]);
    }
}

int main(int argc, char **argv) {
  bench::Args args = bench::parseArgs(argc, argv, 2048);
  const int n = (int)args.n;
  std::vector<float> a((size_t)n * n, 0.0f), b((size_t)n * n, 0.0f);
  for (int y = 0; y < n; ++y)
    a[(size_t)y * n] = b[(size_t)y * n] = 100.0f;
  double ms = bench::medianMs(args.reps, [&] {
    jacobi(a.data(), b.data(), n);
    a.swap(b);
  });
  return bench::report("w10 stencil", a[(size_t)n + 1] > 0.0f || b[(size_t)n + 1] > 0.0f, ms);
}
