// The instruction estimate by class (ir/instruction_mix.cpp, docs/counters.md "Instruction
// classes"): each class rule on the statement that shows it, and that the classes add up to the
// total the counters use.
#include "../ir_module.h"
#include "ir/instruction_mix.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace kern;
using ir::InstrClass;

namespace {

/// The mixes of the kernel's top-level statements, in order (the first reads aside).
std::vector<ir::InstrMix> mixesOf(const std::string &source) {
  auto m = test::buildModule(source);
  std::vector<ir::InstrMix> out;
  for (const ir::Stmt *s : m->kernels()[0]->body->stmts) {
    out.push_back(s->kind == ir::StmtKind::If ? ir::ifMix(*s) : ir::statementMix(*s));
    CHECK(out.back().total() ==
          (s->kind == ir::StmtKind::If ? ir::ifInstructions(*s) : ir::statementMix(*s).total()));
  }
  return out;
}

ir::InstrMix mix(std::initializer_list<std::pair<InstrClass, unsigned>> parts) {
  ir::InstrMix m;
  for (auto [c, n] : parts)
    m.add(c, n);
  return m;
}

} // namespace

TEST_CASE("instruction classes: arithmetic by its operands' type", "[ir][instructions]") {
  auto m = mixesOf(R"(
    __global__ void k(const float *a, const int *b, double *d, float *out) {
      int i = threadIdx.x;
      float x = a[i] * 2.0f + 1.0f;
      int j = b[i] * 3 + i;
      double y = d[i] * 0.5;
      out[i] = x + (float)j + (float)y;
    })");
  REQUIRE(m.size() == 6);
  // a + i * 4 is one IMAD.WIDE; the load; a multiply feeding an add is one FFMA.
  CHECK(m[1] == mix({{InstrClass::Integer, 1}, {InstrClass::Memory, 1}, {InstrClass::Fp32, 1}}));
  CHECK(m[2] == mix({{InstrClass::Integer, 2}, {InstrClass::Memory, 1}}));
  CHECK(m[3] == mix({{InstrClass::Integer, 1}, {InstrClass::Memory, 1}, {InstrClass::Fp64, 1}}));
  // Two adds and two conversions (I2F, F2F); then the store and its address.
  CHECK(m[4] == mix({{InstrClass::Fp32, 2}, {InstrClass::Conversion, 2}}));
  CHECK(m[5] == mix({{InstrClass::Integer, 1}, {InstrClass::Memory, 1}}));
}

TEST_CASE("instruction classes: divisions, square roots and math functions", "[ir][instructions]") {
  auto m = mixesOf(R"(
    __global__ void k(float x, float y, int p, int q, float *out, int *iout) {
      float a = x / y;
      float b = sqrtf(x);
      float c = __expf(x);
      int r = p / q;
      int s = p / 8;
      out[0] = a + b + c;
      iout[0] = r + s;
    })");
  REQUIRE(m.size() == 9);
  // MUFU.RCP, then its refinement and range check.
  CHECK(m[0] == mix({{InstrClass::Special, 1}, {InstrClass::Fp32, 7}}));
  CHECK(m[1] == mix({{InstrClass::Special, 1}, {InstrClass::Fp32, 5}}));
  CHECK(m[2] == mix({{InstrClass::Special, 1}}));
  // I2F, MUFU.RCP, F2I and 13 integer instructions; by a power of two a shift.
  CHECK(m[3] ==
        mix({{InstrClass::Conversion, 2}, {InstrClass::Special, 1}, {InstrClass::Integer, 13}}));
  CHECK(m[4] == mix({{InstrClass::Integer, 1}}));
}

TEST_CASE("instruction classes: a struct's members are registers", "[ir][instructions]") {
  auto m = mixesOf(R"(
    __global__ void k(const float4 *p, float *out) {
      float4 v = p[threadIdx.x];
      out[threadIdx.x] = v.x + v.y;
    })");
  REQUIRE(m.size() == 3);
  // The 128-bit load (and its address) into v; v's members read no memory.
  CHECK(m[0] == mix({{InstrClass::Integer, 1}, {InstrClass::Memory, 1}}));
  CHECK(m[1] == mix({{InstrClass::Fp32, 1}}));
  CHECK(m[2] == mix({{InstrClass::Integer, 1}, {InstrClass::Memory, 1}}));
}

TEST_CASE("instruction classes: control", "[ir][instructions]") {
  auto m = mixesOf(R"(
    __global__ void k(const int *a, int *out, int n) {
      int i = threadIdx.x;
      if (a[i] > n) {
        out[i] = 1;
        __syncthreads();
      }
    })");
  REQUIRE(m.size() == 2);
  // The load and compare, the branch, BSSY and BSYNC (lanes may split).
  CHECK(m[1][InstrClass::Control] == 3);
  CHECK(m[1][InstrClass::Memory] == 1);
}

namespace {

/// The ADU's reads of the kernel in `source` (ir::kernelReads): at its start, and in all.
std::pair<unsigned, unsigned> aduReads(const std::string &source) {
  auto m = test::buildModule(source);
  const ir::KernelReads r = ir::kernelReads(*m->kernels()[0]);
  unsigned all = r.entry.adu;
  for (const auto &[stmt, mix] : r.at)
    all += mix.adu;
  return {r.entry.adu, all};
}

} // namespace

TEST_CASE("the ADU's reads: constant-bank loads into lanes' registers", "[ir][instructions]") {
  // docs/timing.md, "The ADU" (the SASS of tests/gpu/timing on the H200): a vector add loads
  // the stack pointer, blockDim.x (it multiplies blockIdx.x, a uniform register) and its three
  // pointers (p[i], 32-bit i) into registers; n is compared from a uniform register. With its
  // EXIT, 6 a warp, as the H200 counts.
  CHECK(aduReads(R"(
    __global__ void k(const float *a, const float *b, float *c, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n)
        c[i] = a[i] + b[i];
    })") == std::pair<unsigned, unsigned>{1, 5});
  // A strided copy: in[(size_t)i * stride] is 64-bit arithmetic on a uniform register; out[i]
  // is a register pair. 4 a warp with EXIT.
  CHECK(aduReads(R"(
    __global__ void k(const float *in, float *out, int stride, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n)
        out[i] = in[(size_t)i * stride];
    })") == std::pair<unsigned, unsigned>{1, 3});
  // A tree reduction: shared memory adds one at the start; blockIdx.x is read for its own
  // sake, so blockDim.x stays uniform; n is compared. 4 with the barriers and EXIT aside.
  CHECK(aduReads(R"(
    __global__ void k(const int *in, int *out, unsigned n) {
      __shared__ int s[256];
      unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
      s[threadIdx.x] = i < n ? in[i] : 0;
      __syncthreads();
      if (threadIdx.x == 0)
        out[blockIdx.x] = s[0];
    })") == std::pair<unsigned, unsigned>{2, 4});
  // A kernel of rows adds one at the start; width multiplies a per-lane value (a register).
  CHECK(aduReads(R"(
    __global__ void k(float *out, const float *in, int width) {
      int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
      out[x * width + y] = in[y * width + x];
    })") == std::pair<unsigned, unsigned>{2, 5});
  // An empty kernel is its EXIT alone.
  CHECK(aduReads("__global__ void k() {}") == std::pair<unsigned, unsigned>{0, 0});
}

TEST_CASE("a value both sides of an if read is loaded before the if", "[ir][instructions]") {
  // The 5-point stencil: the border's copy and the interior's sum read in[] and out[]; nvcc
  // loads both pointers before the if, so every warp loads them, whichever side it takes.
  auto m = test::buildModule(R"(
    __global__ void k(const float *in, float *out, int nx) {
      int x = threadIdx.x;
      if (x == 0) {
        out[x] = in[x];
        return;
      }
      out[x] = in[x - 1] + in[x + 1];
    })");
  const ir::KernelReads r = ir::kernelReads(*m->kernels()[0]);
  const ir::Stmt *border = m->kernels()[0]->body->stmts[1];
  REQUIRE(border->kind == ir::StmtKind::If);
  REQUIRE(r.at.count(border));
  // threadIdx.x (S2R) is read at the first statement; in and out before the if.
  CHECK(r.at.at(border)[InstrClass::Other] == 2);
  CHECK(r.at.at(border).adu == 2);
  // Read on the two sides of an if/else alone (in; the stores sink below the if): before the
  // if too, not on its first side.
  auto e = test::buildModule(R"(
    __global__ void k(const float *in, float *out) {
      int x = threadIdx.x;
      if (x & 1)
        out[x] = in[x];
      else
        out[x] = -in[x];
    })");
  const ir::KernelReads re = ir::kernelReads(*e->kernels()[0]);
  const ir::Stmt *split = e->kernels()[0]->body->stmts[1];
  REQUIRE(split->kind == ir::StmtKind::If);
  REQUIRE(re.at.count(split));
  CHECK(re.at.at(split)[InstrClass::Other] == 1);
  CHECK(re.at.at(split).adu == 1);
}
