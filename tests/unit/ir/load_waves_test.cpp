// Loads in flight together (ir/load_waves.h, docs/timing.md step 6): each rule against a kernel
// that differs from another only there.
#include "../ir_module.h"
#include "ir/pipeline.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace kern;

namespace {

/// The wait shares (sixteenths) of the kernel's load sites, in source order.
std::vector<int> waitsOf(const std::string &source) {
  auto m = test::buildModule(source);
  std::vector<int> waits;
  for (const ir::Site &s : m->sites)
    if (s.what.rfind("load", 0) == 0)
      waits.push_back(s.waitSixteenths);
  return waits;
}

} // namespace

TEST_CASE("load waves: independent loads of a straight run wait once", "[ir][load_waves]") {
  // a[i] and b[i] are issued back to back: the warp waits once, at the first.
  CHECK(waitsOf(R"(
    __global__ void k(const float *a, const float *b, float *c) {
      int i = threadIdx.x;
      c[i] = a[i] + b[i];
    })") == std::vector<int>{16, 0});
}

TEST_CASE("load waves: a load whose address was loaded waits again", "[ir][load_waves]") {
  CHECK(waitsOf(R"(
    __global__ void k(const int *idx, const float *a, float *c) {
      int i = threadIdx.x;
      int j = idx[i];
      c[i] = a[j];
    })") == std::vector<int>{16, 16});
}

TEST_CASE("load waves: a loop unrolled by 4 issues four iterations' loads together",
          "[ir][load_waves]") {
  // The naive matmul's inner loop: nvcc unrolls it by 4 and, the body being small, by 4 again
  // (LoopShape::Runtime16), so a[.] and b[.] of 16 iterations are in flight at once: a
  // sixteenth of a wait per iteration.
  CHECK(waitsOf(R"(
    __global__ void k(const float *a, const float *b, float *c, int n) {
      int i = threadIdx.x;
      float s = 0;
      for (int k = 0; k < n; ++k)
        s += a[i * n + k] * b[k * n + i];
      c[i] = s;
    })") == std::vector<int>{1, 0});
  // A copy loop stores what it loaded: the next iteration's load may read what the store wrote,
  // so it waits in each.
  CHECK(waitsOf(R"(
    __global__ void k(const float *a, float *c, int n) {
      for (int k = threadIdx.x; k < n; k += 32)
        c[k] = a[k];
    })") == std::vector<int>{16});
}
