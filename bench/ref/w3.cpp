// Native reference for W3: matmul C = A * B of n x n floats, the serial i-k-j triple loop (row of C
// += a[i][k] * row k of B).
#include <vector>

#include "timing.hpp"

__attribute__((noinline)) void matmul(const float *a, const float *b, float *c, long n) {
  // The i-k-j order walks B and C by rows and reproduces the native -O2 figure of TARGETS.md;
  // the i-j-k order, which walks B by columns, takes about 2.5x as long on the same machine.
  for (long i = 0; i < n; ++i) {
    for (long j = 0; j < n; ++j)
      c[i * n + j] = 0.0f;
    for (long k = 0; k < n; ++k) {
      float aik = a[i * n + k];
      for (long j = 0; j < n; ++j)
        c[i * n + j] += aik * b[k * n + j];
    }
  }
}

int main(int argc, char **argv) {
  bench::Args args = bench::parseArgs(argc, argv, 512);
  long n = args.n;
  std::vector<float> a(n * n), b(n * n), c(n * n, 0.0f);
  for (long r = 0; r < n; ++r) {
    for (long k = 0; k < n; ++k) {
      a[r * n + k] = (float)((r + 2 * k) % 7 - 3);
      b[r * n + k] = (float)((3 * r + k) % 5 - 2);
    }
  }
  double ms = bench::medianMs(args.reps, [&] { matmul(a.data(), b.data(), c.data(), n); });
  // Spot check against a column computed in double: every value is a small integer.
  bool ok = true;
  for (long i = 0; i < n; ++i) {
    double ref = 0.0;
    for (long k = 0; k < n; ++k)
      ref += (double)a[i * n + k] * b[k * n + (n - 1)];
    ok = ok && c[i * n + (n - 1)] == (float)ref;
  }
  return bench::report("w3 matmul", ok, ms);
}
