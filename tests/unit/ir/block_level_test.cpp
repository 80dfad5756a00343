// Which kernels run their barrier-reaching statements once per block (ir::planBlockLevel), and
// which variables then belong to the block, on kernels built from source by the compiler's own
// pipeline.
#include "../ir_module.h"
#include "ir/block_level.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace kern;

namespace {

/// The names of the block variables of kernel k's plan; "-" when it is not eligible.
std::set<std::string> blockVars(const std::string &source) {
  auto m = test::buildModule(source);
  const ir::Function *f = m->findFunction("k");
  REQUIRE(f);
  const ir::BlockLevelPlan plan = ir::planBlockLevel(*f);
  if (!plan.eligible)
    return {"-"};
  std::set<std::string> names;
  for (const ir::Var *v : plan.blockVars)
    names.insert(v->name);
  return names;
}

const std::set<std::string> kNotEligible = {"-"};

} // namespace

TEST_CASE("a tree reduction's loop runs once per block, its counter the block's", "[ir]") {
  CHECK(blockVars(R"(
__global__ void k(const float *in, float *out) {
  __shared__ float s[256];
  unsigned tid = threadIdx.x;
  s[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride)
      s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = s[0];
})") == std::set<std::string>{"stride"});
}

TEST_CASE("block variables are followed through the assignments that feed them", "[ir]") {
  // `limit` feeds the loop's condition; `n` (a parameter) is one value per launch; `half`
  // decides an if around a barrier.
  CHECK(blockVars(R"(
__global__ void k(int *out, int n) {
  __shared__ int s[128];
  int limit = n * 2 + blockIdx.x;
  int half = blockDim.x / 2;
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  for (int r = 0; r < limit; ++r) {
    if (half > 4) {
      s[threadIdx.x] += 1;
      __syncthreads();
    }
    half = half / 2;
  }
  out[threadIdx.x] = s[threadIdx.x];
})") == std::set<std::string>{"half", "limit", "r"});
}

TEST_CASE("a barrier under control that may differ between threads keeps the warp forms", "[ir]") {
  // A condition on threadIdx: the fibers (or regions) judge such a barrier, and report it.
  CHECK(blockVars(R"(
__global__ void k(int *out) {
  for (int i = 0; i < 4; ++i) {
    if (threadIdx.x < 32)
      __syncthreads();
  }
  out[threadIdx.x] = 1;
})") == kNotEligible);
  // A condition read from memory: the same for every thread only if the program says so.
  CHECK(blockVars(R"(
__global__ void k(int *out) {
  while (out[0] == 0)
    __syncthreads();
})") == kNotEligible);
  // A loop counter changed under a varying condition stops being uniform.
  CHECK(blockVars(R"(
__global__ void k(int *out) {
  int i = 0;
  while (i < 8) {
    __syncthreads();
    if (threadIdx.x == 0)
      i += 2;
    else
      i += 2;
  }
  out[threadIdx.x] = i;
})") == kNotEligible);
}

TEST_CASE("what a block cannot do once for all its warps keeps the warp forms", "[ir]") {
  // A return: lanes may leave before a barrier, which the runtime reports.
  CHECK(blockVars(R"(
__global__ void k(int *out, int n) {
  if (threadIdx.x >= n) return;
  for (int i = 0; i < 4; ++i) __syncthreads();
  out[threadIdx.x] = 1;
})") == kNotEligible);
  // A break out of the block-level loop.
  CHECK(blockVars(R"(
__global__ void k(int *out, int n) {
  for (int i = 0; i < 4; ++i) {
    __syncthreads();
    if (i == n) break;
  }
  out[threadIdx.x] = 1;
})") == kNotEligible);
  // A division by a variable in the loop's step may fault: not once for the block.
  CHECK(blockVars(R"(
__global__ void k(int *out, int d) {
  for (int i = 1024; i > 0; i = i / d) __syncthreads();
  out[threadIdx.x] = 1;
})") == kNotEligible);
  // A counting barrier combines a value from every warp.
  CHECK(blockVars(R"(
__global__ void k(int *out) {
  int c = 0;
  for (int i = 0; i < 4; ++i) c += __syncthreads_count(threadIdx.x < i);
  out[threadIdx.x] = c;
})") == kNotEligible);
  // A block variable also assigned inside a statement that runs per warp (a uniform if that
  // reaches no barrier).
  CHECK(blockVars(R"(
__global__ void k(int *out) {
  int m = 4;
  if (blockIdx.x == 0)
    m = 3;
  for (int i = 0; i < m; ++i) __syncthreads();
  out[threadIdx.x] = m;
})") == kNotEligible);
}

TEST_CASE("two stretches between barriers that may meet keep the fibers' order", "[ir]") {
  // Stores before and after an if whose barrier may not run: the block form would run the first
  // store for every warp before the second, the fibers each warp through both.
  CHECK(blockVars(R"(
__global__ void k(int *out, int n) {
  out[threadIdx.x] = 1;
  if (n > 0) {
    __syncthreads();
  }
  out[threadIdx.x + 64] = 2;
})") == kNotEligible);
  // The same around a loop's back-edge: the stretch after the barrier meets the next
  // iteration's stretch before it.
  CHECK(blockVars(R"(
__global__ void k(int *out, int n) {
  for (int i = 0; i < n; ++i) {
    out[threadIdx.x] += 1;
    __syncthreads();
    out[threadIdx.x + 64] += 1;
  }
})") == kNotEligible);
  // A stretch of arithmetic alone (a matmul's indices) meets the loop's first stores harmlessly.
  CHECK(blockVars(R"(
__global__ void k(const float *a, float *c, int n) {
  __shared__ float t[16][16];
  int x = threadIdx.x, y = threadIdx.y;
  int row = blockIdx.y * 16 + y;
  float acc = 0;
  for (int k = 0; k < n / 16; ++k) {
    t[y][x] = a[row * n + k * 16 + x];
    __syncthreads();
    for (int j = 0; j < 16; ++j)
      acc += t[y][j];
    __syncthreads();
  }
  c[row * n + x] = acc;
})") == std::set<std::string>{"k"});
}
