// Store sinking (ir/sink.cpp): which `if`s lose their two stores to one after them.
#include "../ir_module.h"
#include "ir/pipeline.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

using namespace kern;

namespace {

/// The kinds of the kernel's top-level statements after its first `if`, and of that if's sides'
/// last statements.
struct Shape {
  ir::StmtKind thenLast, elseLast;
  size_t storesAfter = 0;
};

Shape shapeOf(const ir::Module &m) {
  const ir::Function &k = *m.kernels()[0];
  Shape s{ir::StmtKind::Block, ir::StmtKind::Block};
  bool seen = false;
  for (const ir::Stmt *st : k.body->stmts) {
    if (!seen && st->kind == ir::StmtKind::If) {
      seen = true;
      s.thenLast = st->thenBody->stmts.back()->kind;
      s.elseLast = st->elseBody ? st->elseBody->stmts.back()->kind : ir::StmtKind::Block;
      continue;
    }
    if (seen && st->kind == ir::StmtKind::Store)
      ++s.storesAfter;
  }
  REQUIRE(seen);
  return s;
}

} // namespace

TEST_CASE("stores to one address on both sides of an if are sunk", "[ir][sink]") {
  auto m = test::buildModule(R"(
    __global__ void k(int *out, const int *in, int off) {
      __shared__ int t[64];
      int i = threadIdx.x;
      if (i >= off)
        t[i] = in[i] + in[i - off];
      else
        t[i] = in[i];
      out[i] = t[i];
    })");
  Shape s = shapeOf(*m);
  CHECK(s.thenLast == ir::StmtKind::Assign);
  CHECK(s.elseLast == ir::StmtKind::Assign);
  CHECK(s.storesAfter == 2); // the sunk store, then out[i]
}

TEST_CASE("stores to different addresses, or an address a side changes, stay", "[ir][sink]") {
  auto different = test::buildModule(R"(
    __global__ void k(int *out, int off) {
      int i = threadIdx.x;
      if (i >= off)
        out[i] = 1;
      else
        out[i + 1] = 2;
    })");
  Shape s = shapeOf(*different);
  CHECK(s.thenLast == ir::StmtKind::Store);
  CHECK(s.elseLast == ir::StmtKind::Store);
  auto changed = test::buildModule(R"(
    __global__ void k(int *out, int off) {
      int i = threadIdx.x;
      if (i >= off) {
        i = i + 1;
        out[i] = 1;
      } else {
        out[i] = 2;
      }
    })");
  s = shapeOf(*changed);
  CHECK(s.thenLast == ir::StmtKind::Store);
  CHECK(s.elseLast == ir::StmtKind::Store);
}
