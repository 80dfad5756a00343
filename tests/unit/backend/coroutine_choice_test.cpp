// Which kernels the backend compiles to run a whole block per call, warps in turn between barriers
// (ir::runsBlockInRegions), and the lane-leaving test of its control flow (ir::mayRemoveLanes),
// on kernels built from source by the compiler's own pipeline.
#include "../ir_module.h"
#include "ir/analysis_structure.h"
#include "ir/pipeline.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

using namespace kern;

namespace {

bool suspends(const std::string &source, const std::string &kernel = "k") {
  auto m = test::buildModule(source);
  const ir::Function *f = m->findFunction(kernel);
  REQUIRE(f);
  return ir::runsBlockInRegions(*f);
}

} // namespace

TEST_CASE("a loop around a barrier with no loop inside makes a whole-block kernel", "[backend]") {
  // A tree reduction: the barrier comes every iteration.
  CHECK(suspends(R"(
__global__ void k(int *out) {
  __shared__ int s[256];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  for (int stride = 128; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = s[0];
})"));
}

TEST_CASE("a loop around a counting barrier makes a whole-block kernel too", "[backend]") {
  // __syncthreads_and() is an expression, but a barrier all the same.
  CHECK(suspends(R"(
__global__ void k(int *out) {
  __shared__ int s[64];
  int done = 0;
  s[threadIdx.x] = threadIdx.x;
  for (int stride = 1; stride < 64; stride *= 2) {
    if (threadIdx.x % (2 * stride) == 0)
      s[threadIdx.x] += s[threadIdx.x + stride];
    done += __syncthreads_and(s[threadIdx.x] > 0);
  }
  out[threadIdx.x] = done;
})"));
}

TEST_CASE("small functions inlined into the kernel do not keep it from suspending", "[backend]") {
  // twice() and the barrier of sync() are copied into the loop (ir/inline.cpp): no call is left.
  CHECK(suspends(R"(
__device__ int twice(int x) { return 2 * x; }
__device__ void sync() { __syncthreads(); }
__global__ void k(int *out) {
  __shared__ int s[32];
  for (int t = 0; t < 4; ++t) {
    s[threadIdx.x] = twice(t);
    sync();
  }
  out[threadIdx.x] = s[0];
})"));
}

TEST_CASE("a local array reached only by indexing does not keep a kernel from suspending",
          "[backend]") {
  // Its slot is direct (ir::markDirectSlots): no pointer reaches it.
  CHECK(suspends(R"(
__global__ void k(int *out) {
  __shared__ int s[32];
  int a[4];
  for (int t = 0; t < 4; ++t) {
    a[t] = t;
    s[threadIdx.x] = a[t];
    __syncthreads();
  }
  out[threadIdx.x] = s[0];
})"));
}

TEST_CASE("kernels that keep their fibers", "[backend]") {
  // No barrier in a loop.
  CHECK_FALSE(suspends(R"(
__global__ void k(int *out) {
  __shared__ int s[32];
  s[threadIdx.x] = 1;
  __syncthreads();
  out[threadIdx.x] = s[31 - threadIdx.x];
})"));
  // The loop around the barrier holds a loop of its own (as a tiled matmul does).
  CHECK_FALSE(suspends(R"(
__global__ void k(int *out) {
  __shared__ int s[32];
  int sum = 0;
  for (int t = 0; t < 4; ++t) {
    s[threadIdx.x] = t;
    __syncthreads();
    for (int i = 0; i < 32; ++i)
      sum += s[i];
    __syncthreads();
  }
  out[threadIdx.x] = sum;
})"));
  // A call (of a recursive function, which is not inlined): a device function reaching a
  // barrier would have to suspend its caller.
  CHECK_FALSE(suspends(R"(
__device__ int twice(int x) { return x > 0 ? 2 + twice(x - 1) : 0; }
__global__ void k(int *out) {
  __shared__ int s[32];
  for (int t = 0; t < 4; ++t) {
    s[threadIdx.x] = twice(t);
    __syncthreads();
  }
  out[threadIdx.x] = s[0];
})"));
  // A local array whose address is a value: its slot would live in the block's frame,
  // away from the window where generic pointers reach local memory.
  CHECK_FALSE(suspends(R"(
__global__ void k(int *out) {
  __shared__ int s[32];
  int a[4], b[4];
  int *p = threadIdx.x & 1 ? a : b;
  for (int t = 0; t < 4; ++t) {
    p[t] = t;
    s[threadIdx.x] = p[t];
    __syncthreads();
  }
  out[threadIdx.x] = s[0];
})"));
}

TEST_CASE("only return, or a break or continue of no inner loop, switches lanes off", "[backend]") {
  auto body = [](const std::string &source) {
    auto m = test::buildModule(source);
    return ir::mayRemoveLanes(m->findFunction("k")->body);
  };
  CHECK(body(R"(
__global__ void k(int *out) {
  if (threadIdx.x > 3)
    return;
  out[threadIdx.x] = 1;
})"));
  CHECK_FALSE(body(R"(
__global__ void k(int *out) {
  for (int i = 0; i < 8; ++i) {
    if (i == threadIdx.x)
      break;
    out[i] = i;
  }
})"));
  CHECK_FALSE(body(R"(
__global__ void k(int *out) {
  if (threadIdx.x > 3)
    out[threadIdx.x] = 1;
})"));
}
