// The register estimate (ir/registers.cpp, docs/devices.md "Registers per thread"): its worked
// example, and each of its rules against a kernel that differs from another only there.
#include "../ir_module.h"
#include "ir/analysis.h"
#include "ir/pipeline.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

using namespace kern;

namespace {

int registersOf(const std::string &source, const std::string &kernel = "k") {
  auto m = test::buildModule(source);
  for (const ir::Function *f : m->kernels())
    if (f->name == kernel)
      return ir::estimateRegisters(*f);
  FAIL("no kernel " << kernel);
  return 0;
}

} // namespace

TEST_CASE("register estimate: the worked example", "[ir][registers]") {
  // i = blockIdx.x * blockDim.x + threadIdx.x: 2 words of temporaries (two special registers,
  // then their product and the thread index), nothing live before. val = a[i] * 2: i live (1)
  // and the address (2 words, the 64-bit product i * 4 added to the parameter a, which stays in
  // the constant bank): 3. The store a[i] = val reuses the address that the load computed, held
  // from the load (2) with val (1), and i is no longer needed: 3. The peak, 3, plus
  // kRegisterBase 6: 9 (ptxas: 8).
  const char *src = R"(
    __global__ void k(float *a, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) {
        float val = a[i] * 2.0f;
        a[i] = val;
      }
    })";
  CHECK(registersOf(src) == 3 + ir::kRegisterBase);
}

TEST_CASE("register estimate: predicates and unassigned parameters take no register",
          "[ir][registers]") {
  const char *base = R"(
    __global__ void k(float *a, float *b, int n) {
      int i = threadIdx.x;
      a[i] = 1.0f;
    })";
  // A bool kept across the store is a predicate.
  const char *withBool = R"(
    __global__ void k(float *a, float *b, int n) {
      int i = threadIdx.x;
      bool p = i < n;
      a[i] = 1.0f;
      if (p) a[0] = 2.0f;
    })";
  // A parameter the body assigns is a register pair like any pointer.
  const char *assigned = R"(
    __global__ void k(float *a, float *b, int n) {
      int i = threadIdx.x;
      b = b + 1;
      a[i] = 1.0f;
      b[0] = 2.0f;
    })";
  const int plain = registersOf(base);
  CHECK(registersOf(withBool) == plain);
  CHECK(registersOf(assigned) == plain + 2);
}

TEST_CASE("register estimate: constant-step loops are unrolled, grid-stride loops are not",
          "[ir][registers]") {
  // The same loads; the first loop counts by 1 (unrolled 4 times: 3 more copies of a load's
  // value and address, 3 words each), the second by the grid's size.
  const char *constantStep = R"(
    __global__ void k(const float *a, float *out, int n) {
      float sum = 0.0f;
      for (int j = threadIdx.x; j < n; j += 1)
        sum += a[j];
      out[threadIdx.x] = sum;
    })";
  const char *gridStride = R"(
    __global__ void k(const float *a, float *out, int n) {
      float sum = 0.0f;
      for (int j = threadIdx.x; j < n; j += blockDim.x * gridDim.x)
        sum += a[j];
      out[threadIdx.x] = sum;
    })";
  CHECK(registersOf(constantStep) == registersOf(gridStride) + 3 * 3);
  // A loop that also stores to global memory cannot issue the next copy's loads early.
  const char *storing = R"(
    __global__ void k(const float *a, float *out, int n) {
      for (int j = threadIdx.x; j < n; j += 1)
        out[j] = a[j];
    })";
  const char *storingStride = R"(
    __global__ void k(const float *a, float *out, int n) {
      for (int j = threadIdx.x; j < n; j += blockDim.x)
        out[j] = a[j];
    })";
  CHECK(registersOf(storing) == registersOf(storingStride));
}

TEST_CASE("register estimate: a straight run's loads are issued together", "[ir][registers]") {
  // Four loads from global memory before four stores to shared memory: the later loads' values
  // and their one address per base pointer are live across the earlier stores.
  const char *together = R"(
    __global__ void k(const float *a, const float *b, float *out) {
      __shared__ float s[1024];
      int t = threadIdx.x;
      s[t] = a[t];
      s[t + 256] = a[t + 256];
      s[t + 512] = b[t];
      s[t + 768] = b[t + 256];
      __syncthreads();
      out[t] = s[1023 - t];
    })";
  const char *one = R"(
    __global__ void k(const float *a, const float *b, float *out) {
      __shared__ float s[1024];
      int t = threadIdx.x;
      s[t] = a[t];
      __syncthreads();
      out[t] = s[1023 - t];
    })";
  CHECK(registersOf(together) > registersOf(one) + 3);
}

TEST_CASE("register estimate: loads at indices a constant apart share one address",
          "[ir][registers]") {
  // a[i], a[i + 1], a[i + 2]: one 64-bit address and immediate offsets. a[(i + 1) % n], ...:
  // each index is its own value, so each load issued ahead needs its own address pair.
  const char *offsets = R"(
    __global__ void k(const float *a, float *out, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      float x = a[i] + a[i + 1];
      float y = a[i + 2] + a[i + 3];
      out[i] = x * y;
    })";
  const char *indices = R"(
    __global__ void k(const float *a, float *out, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      float x = a[(i + 1) % n] + a[(i + 2) % n];
      float y = a[(i + 3) % n] + a[(i + 4) % n];
      out[i] = x * y;
    })";
  // Three more address pairs live at once.
  CHECK(registersOf(indices) >= registersOf(offsets) + 6);
}

TEST_CASE("register estimate: expansions hold registers of their own", "[ir][registers]") {
  // One operation on parameters (operands in the constant bank) stored through a parameter:
  // the operation's registers are the kernel's peak. Against a multiplication: a division 2
  // more (its slow path; ptxas: 16 against 12), a reciprocal 1, a division by a constant 1, an
  // integer remainder by a variable 5, sinf 10 (its range reduction), sin 16.
  auto kernel = [](const std::string &expr) {
    return "__global__ void k(float x, float y, int p, int q, double d, float *out) {\n"
           "  *out = " +
           expr + ";\n}\n";
  };
  const int mul = registersOf(kernel("x * y"));
  CHECK(registersOf(kernel("x / y")) == mul + 2);
  CHECK(registersOf(kernel("1.0f / y")) == mul + 1);
  CHECK(registersOf(kernel("x / 3.0f")) == mul + 1);
  CHECK(registersOf(kernel("(float)(p % q)")) == mul + 5);
  CHECK(registersOf(kernel("sinf(y)")) == mul + 10);
  CHECK(registersOf(kernel("(float)sin(d)")) > mul + 10);
  // Unrolled fully, a loop's counter is a constant in each copy: 1.0f / (j + 1) is one.
  const char *unrolled = R"(
    __global__ void k(float x, int m, float *out) {
      float acc = 0.0f;
      for (int j = 0; j < 4; ++j)
        acc += 1.0f / (j + 1);
      *out = acc;
    })";
  const char *variable = R"(
    __global__ void k(float x, int m, float *out) {
      float acc = 0.0f;
      for (int j = 0; j < 4; ++j)
        acc += 1.0f / (j + m);
      *out = acc;
    })";
  CHECK(registersOf(unrolled) < registersOf(variable));
}

TEST_CASE("register estimate: a call through the ABI keeps its registers", "[ir][registers]") {
  // printf, assert and device malloc are calls with a calling convention: ptxas (sm_90) gives
  // such a kernel 24 registers however little it keeps itself.
  const char *plain = R"(
    __global__ void k(int *out) { out[threadIdx.x] = 1; })";
  const char *printing = R"(
    #include <cstdio>
    __global__ void k(int *out) { out[threadIdx.x] = 1; printf("%d\n", threadIdx.x); })";
  CHECK(registersOf(plain) < ir::kAbiCallRegisters);
  CHECK(registersOf(printing) == ir::kAbiCallRegisters);
}

TEST_CASE("register estimate: warp operations", "[ir][registers]") {
  // A shuffle's path for a warp that has not converged passes mask, lane and clamp in
  // registers: 3 more than an addition of the same values. A constant added atomically at
  // one address is aggregated across the warp (vote, population count, lane mask, shuffle).
  const char *shuffle = R"(
    __global__ void k(float x, float *out) { *out = __shfl_down_sync(0xffffffffu, x, 1); })";
  const char *add = R"(
    __global__ void k(float x, float *out) { *out = x + 1.0f; })";
  CHECK(registersOf(shuffle) == registersOf(add) + 3);
  const char *counted = R"(
    __global__ void k(int *count, int p, int *out) { *out = atomicAdd(count, 1); })";
  const char *added = R"(
    __global__ void k(int *count, int p, int *out) { *out = atomicAdd(count, p); })";
  CHECK(registersOf(counted) == registersOf(added) + 4);
}

TEST_CASE("register estimate: predicated ifs and runs of stores", "[ir][registers]") {
  // A guarded load that nvcc predicates issues with the loads before it: both values and
  // addresses are live at once. A second load of the same address is the same register.
  const char *guarded = R"(
    __global__ void k(const int *in, int *out, int n) {
      int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
      int v = i < n ? in[i] : 0;
      if (i + 999 < n)
        v += in[i + 999 * n];
      out[i] = v;
    })";
  const char *unguarded = R"(
    __global__ void k(const int *in, int *out, int n) {
      int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
      int v = i < n ? in[i] : 0;
      out[i] = v;
    })";
  CHECK(registersOf(guarded) >= registersOf(unguarded) + 3);
  // Stores through four pointers one after another: ptxas computes the four addresses first.
  const char *four = R"(
    __global__ void k(bool *a, bool *b, bool *c, bool *d) {
      int i = blockIdx.x * 64 + threadIdx.x;
      a[i] = true; b[i] = true; c[i] = true; d[i] = false;
    })";
  const char *one = R"(
    __global__ void k(bool *a, bool *b, bool *c, bool *d) {
      int i = blockIdx.x * 64 + threadIdx.x;
      a[i] = true;
    })";
  CHECK(registersOf(four) == registersOf(one) + 3 * 2);
}
