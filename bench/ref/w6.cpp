// Native reference for W6: the divergence-heavy per-element computation, a serial loop.
#include <vector>

#include "timing.hpp"

static unsigned int element(unsigned int v) {
  unsigned int acc;
  if (v % 2 == 0) {
    acc = v / 2;
  } else {
    acc = 3 * v + 1;
  }
  int trips = (int)(v & 15u);
  for (int k = 0; k < trips; ++k) {
    if ((acc + k) % 2u == 0) {
      acc = acc / 2 + k;
    } else {
      acc = acc * 3 - k;
    }
  }
  int c = (int)(v % 97u) + 1;
  int steps = 0;
  while (c != 1 && steps < 64) {
    c = (c % 2 == 0) ? c / 2 : 3 * c + 1;
    ++steps;
  }
  return acc + (unsigned int)steps;
}

__attribute__((noinline)) void diverge(const unsigned int *in, unsigned int *out, long n) {
  for (long i = 0; i < n; ++i)
    out[i] = element(in[i]);
}

int main(int argc, char **argv) {
  bench::Args args = bench::parseArgs(argc, argv, 1L << 22);
  long n = args.n;
  std::vector<unsigned int> in(n), out(n, 0u);
  for (long i = 0; i < n; ++i)
    in[i] = ((unsigned int)i * 2654435761u) >> 12;
  double ms = bench::medianMs(args.reps, [&] { diverge(in.data(), out.data(), n); });
  // The first element by hand: v = 0 takes the even side, no trips, and c = 1 takes no steps.
  bool ok = out[0] == 0u;
  unsigned long long sum = 0;
  for (long i = 0; i < n; ++i)
    sum += out[i];
  std::printf("w6 divergence: sum %llu\n", sum);
  return bench::report("w6 divergence", ok, ms);
}
