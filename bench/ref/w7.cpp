// Native reference for W7: the Julia set of bench/w7_julia.kern, a serial loop over the pixels
// with the same complex-number struct.
#include <vector>

#include "timing.hpp"

constexpr int kIterations = 200;

struct Complex {
  float r, i;
  Complex operator*(const Complex &a) const { return {r * a.r - i * a.i, i * a.r + r * a.i}; }
  Complex operator+(const Complex &a) const { return {r + a.r, i + a.i}; }
  float magnitude2() const { return r * r + i * i; }
};

static int julia(int x, int y, int dim) {
  const float scale = 1.5f;
  const float jx = scale * (float)(dim / 2 - x) / (dim / 2);
  const float jy = scale * (float)(dim / 2 - y) / (dim / 2);
  const Complex c{-0.8f, 0.156f};
  Complex a{jx, jy};
  for (int n = 0; n < kIterations; n++) {
    a = a * a + c;
    if (a.magnitude2() > 1000.0f)
      return 0;
  }
  return 1;
}

__attribute__((noinline)) void picture(unsigned char *out, int dim) {
  for (int y = 0; y < dim; ++y)
    for (int x = 0; x < dim; ++x)
      out[x + y * dim] = (unsigned char)(255 * julia(x, y, dim));
}

int main(int argc, char **argv) {
  bench::Args args = bench::parseArgs(argc, argv, 512);
  const int dim = (int)args.n;
  std::vector<unsigned char> out((size_t)dim * dim);
  double ms = bench::medianMs(args.reps, [&] { picture(out.data(), dim); });
  long inside = 0;
  for (unsigned char p : out)
    inside += p / 255;
  return bench::report("w7 julia", inside > 0, ms);
}
