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
  // i * n does not change in the loop: one multiply before it, and in each iteration only the
  // add of k and the address (i * n is a register there).
  auto m = test::buildModule(R"(
    __global__ void k(const float *a, float *c, int n) {
      int i = threadIdx.x;
      float s = 0;
      for (int k = 0; k < n; ++k)
        s += a[i * n + k];
      c[i] = s;
    })");
  const ir::Stmt *loop = firstLoop(*m);
  REQUIRE(loop);
  REQUIRE(loop->hoisted.size() == 1);
  CHECK(ir::hoistedMix(*loop).total() == 1);
  // The body's assignment: the load's address (1), i * n + k (1), the add to s (1), the load.
  const ir::Stmt *assign = loop->body->stmts[0];
  CHECK(ir::statementMix(*assign).total() == 4);
}

TEST_CASE("hoisting: what a fully unrolled loop computes stays in each copy", "[ir][hoist]") {
  // No loop is left on the GPU: each copy of the body computes its own address.
  auto m = test::buildModule(R"(
    __global__ void k(const float *a, float *c, int n) {
      int i = threadIdx.x;
      float s = 0;
      for (int k = 0; k < 4; ++k)
        s += a[i * n + k];
      c[i] = s;
    })");
  const ir::Stmt *loop = firstLoop(*m);
  REQUIRE(loop);
  CHECK(loop->loopShape == ir::LoopShape::Unrolled);
  CHECK(loop->hoisted.empty());
}
