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
