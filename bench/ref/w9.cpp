// Native reference for W9: one compare-exchange step of bench/w9_bitonic.kern's bitonic sort
// (the step j = 1 of the last merge, k = n: every element is compared once), the natural serial
// loop over the elements.
#include <vector>

#include "timing.hpp"

__attribute__((noinline)) void bitonicStep(unsigned *keys, unsigned n, unsigned j, unsigned k) {
  for (unsigned i = 0; i < n; ++i) {
    const unsigned partner = i ^ j;
    if (partner > i) {
      const unsigned a = keys[i], b = keys[partner];
      const bool ascending = (i & k) == 0;
      if ((a > b) == ascending) {
        keys[i] = b;
        keys[partner] = a;
      }
    }
  }
}

int main(int argc, char **argv) {
  bench::Args args = bench::parseArgs(argc, argv, 1 << 20);
  const unsigned n = (unsigned)args.n;
  std::vector<unsigned> keys(n);
  unsigned state = 12345u;
  for (unsigned &key : keys) {
    state = state * 1664525u + 1013904223u;
    key = state >> 8;
  }
  // The steps of a whole sort in turn, timed one at a time; the figure is their median.
  std::vector<std::pair<unsigned, unsigned>> steps;
  for (unsigned k = 2; k <= n; k <<= 1)
    for (unsigned j = k >> 1; j > 0; j >>= 1)
      steps.push_back({j, k});
  size_t next = 0;
  double ms = bench::medianMs(args.reps, [&] {
    auto [j, k] = steps[next++ % steps.size()];
    bitonicStep(keys.data(), n, j, k);
  });
  return bench::report("w9 bitonic", !keys.empty(), ms);
}
