// Shared timing helper for the native references: the median wall time of repeated runs of one
// computation.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace bench {

// Arguments of every reference: [reps of the timed computation] [problem size].
struct Args {
  int reps;
  long n;
};

inline Args parseArgs(int argc, char **argv, long default_n) {
  Args a{7, default_n};
  if (argc > 1)
    a.reps = std::atoi(argv[1]);
  if (argc > 2)
    a.n = std::atol(argv[2]);
  if (a.reps < 1 || a.n < 1) {
    std::fprintf(stderr, "usage: %s [reps >= 1] [n >= 1]\n", argv[0]);
    std::exit(2);
  }
  return a;
}

// Runs fn reps times and returns the median wall time of one run in milliseconds. The empty asm
// with a memory clobber keeps the compiler from merging or dropping runs.
template <typename Fn> double medianMs(int reps, Fn &&fn) {
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    asm volatile("" ::: "memory");
    auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// The last lines of every reference: the verdict and the figure that bench/run.sh reads.
inline int report(const char *name, bool ok, double ms) {
  std::printf("%s: %s\n", name, ok ? "PASS" : "FAIL");
  std::printf("median_ms %.4f\n", ms);
  return ok ? 0 : 1;
}

} // namespace bench
