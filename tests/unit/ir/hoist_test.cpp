// Loop-invariant arithmetic (ir/hoist.h, docs/counters.md "Instructions"): what a loop counts
// once before it, and what stays in every iteration.
#include "../ir_module.h"
#include "ir/instruction_mix.h"
#include "ir/pipeline.h"

#include <catch2/catch.hpp>

#include <string>

using namespace kern;

namespace {

/// The first loop of kernel k's body.
const ir::Stmt *firstLoop(const ir::Module &m) {
  for (const ir::Function *f : m.kernels())
    for (const ir::Stmt *s : f->body->stmts)
      if (s->kind == ir::StmtKind::Loop)
        return s;
  return nullptr;
}

} // namespace

TEST_CASE("hoisting: a loop computes its invariant arithmetic once", "[ir][hoist]") {
  // i * n + 1 does not change in the loop: computed before it (an add; the multiply feeds it),
  // and in each iteration only the add of k to it and the add to s.
  auto m = test::buildModule(R"(
    __global__ void k(const float *a, float *c, int n, int *m) {
      int i = threadIdx.x;
      float s = 0;
      for (int k = 0; k < n; ++k) {
        m[k] = i * n + 1 + k;
        s += a[i];
      }
      c[i] = s;
    })");
  const ir::Stmt *loop = firstLoop(*m);
  REQUIRE(loop);
  // i * n + 1, the address of a[i], and the pointer of m[k] (which moves with k).
  REQUIRE(loop->hoisted.size() == 3);
  CHECK(ir::hoistedMix(*loop).total() == 3);
  // The value's add of k; the store, whose address is the pointer.
  CHECK(ir::statementMix(*loop->body->stmts[0]).total() == 1);
  CHECK(ir::statementMix(*loop->body->stmts[1]).total() == 1);
}

TEST_CASE("hoisting: an address that moves with the counter is a pointer the loop steps",
          "[ir][hoist]") {
  // a[i * n + k] moves by 4 bytes an iteration: one pointer, computed before the loop (the
  // address and i * n + k: 2) and stepped once an iteration (a 64-bit add: 2), nothing where
  // the load stands. b[k * n + i] moves by a variable, n * 4: an IMAD.WIDE every iteration.
  auto m = test::buildModule(R"(
    __global__ void k(const float *a, const float *b, float *c, int n) {
      int i = threadIdx.x;
      float s = 0, t = 0;
      for (int k = 0; k < n; ++k) {
        s += a[i * n + k];
        t += b[k * n + i];
      }
      c[i] = s + t;
    })");
  const ir::Stmt *loop = firstLoop(*m);
  REQUIRE(loop);
  CHECK(loop->hoisted.size() == 2);
  CHECK(loop->pointerSteps == 2);
  CHECK(loop->strideAdds == 1);
  // Each load and its add to the sum: the address is the pointer.
  CHECK(ir::statementMix(*loop->body->stmts[0]).total() == 2);
  CHECK(ir::statementMix(*loop->body->stmts[1]).total() == 2);
}

TEST_CASE("hoisting: addresses that differ by a constant share one pointer", "[ir][hoist]") {
  // nwDiagonal's wavefront: i = t and j = m - t, assigned once in the body, are the counter's
  // values; s[i][j], s[i][j + 1], s[i + 1][j] and s[i + 1][j + 1] differ by constants, one
  // shared pointer (a 32-bit add); sim[i][j] lies in another row pitch, a second.
  auto m = test::buildModule(R"(
    __global__ void k(int *out, int p) {
      __shared__ int s[17][17];
      __shared__ int sim[16][16];
      int t = threadIdx.x;
      for (int m = 0; m < p; ++m) {
        int i = t, j = m - t;
        s[i + 1][j + 1] = max(s[i][j] + sim[i][j], max(s[i][j + 1], s[i + 1][j]));
      }
      out[t] = s[t][t];
    })");
  const ir::Stmt *loop = firstLoop(*m);
  REQUIRE(loop);
  CHECK(loop->pointerSteps == 2);
  CHECK(loop->strideAdds == 0);
}

TEST_CASE("hoisting: a fully unrolled loop's addresses take immediate offsets", "[ir][hoist]") {
  // No loop is left on the GPU, and k is a constant in each copy: a[i * n + k] is one register
  // (computed once) and each copy's immediate offset; b[(i + k) * n], which moves by n, adds a
  // stride register to the previous copy's address (IADD3, IMAD.X) where it stands.
  auto m = test::buildModule(R"(
    __global__ void k(const float *a, const float *b, float *c, int n) {
      int i = threadIdx.x;
      float s = 0;
      for (int k = 0; k < 4; ++k)
        s += a[i * n + k] * b[(i + k) * n];
      c[i] = s;
    })");
  const ir::Stmt *loop = firstLoop(*m);
  REQUIRE(loop);
  CHECK(loop->loopShape == ir::LoopShape::Unrolled);
  CHECK(loop->hoisted.size() == 2);
  // The two loads, the stride add, the FFMA.
  CHECK(ir::statementMix(*loop->body->stmts[0]).total() == 5);
}

TEST_CASE("hoisting: the copies of an unrolled loop share what none changes", "[ir][hoist]") {
  // n * n + 1 is the same in every copy: computed once before the copies (one IMAD), and each
  // copy multiplies it by its own k.
  auto m = test::buildModule(R"(
    __global__ void k(int *c, int n) {
      int s = 0;
      for (int k = 0; k < 4; ++k)
        s += (n * n + 1) * k;
      c[threadIdx.x] = s;
    })");
  const ir::Stmt *loop = firstLoop(*m);
  REQUIRE(loop);
  CHECK(loop->loopShape == ir::LoopShape::Unrolled);
  REQUIRE(loop->hoisted.size() == 1);
  CHECK(ir::hoistedMix(*loop).total() == 1);
  // The multiply by k feeding the add to s: one IMAD.
  CHECK(ir::statementMix(*loop->body->stmts[0]).total() == 1);
}

TEST_CASE("hoisting: what the compiler knows folds into immediates", "[ir][hoist]") {
  // In each copy of the unrolled loop k is a constant: k * k + 3 costs nothing, and a division
  // by k + 1 is one by a constant (a multiply-high and shifts, 3), not a variable's 16.
  auto m = test::buildModule(R"(
    __global__ void k(int *c, int x) {
      int s = 0;
      for (int k = 0; k < 4; ++k)
        s += x / (k + 1) + (k * k + 3);
      c[threadIdx.x] = s;
    })");
  const ir::Stmt *loop = firstLoop(*m);
  REQUIRE(loop);
  CHECK(loop->loopShape == ir::LoopShape::Unrolled);
  // The division (3), the add of its quotient to the constant part (1), the add to s (1).
  CHECK(ir::statementMix(*loop->body->stmts[0]).total() == 5);
}
