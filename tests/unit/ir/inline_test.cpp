// The inliner (ir/inline.cpp) and the passes that follow it, on programs built by the compiler's
// own pipeline: which calls go, what the copies' memory accesses become.
#include "../ir_module.h"
#include "ir/pipeline.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>

using namespace kern;

namespace {

/// The names of the functions `f` still calls.
std::vector<std::string> callees(const ir::Function &f) {
  std::vector<std::string> out;
  std::function<void(const ir::Expr *)> expr = [&](const ir::Expr *e) {
    if (!e)
      return;
    if (e->kind == ir::ExprKind::Call && e->callee)
      out.push_back(e->callee->name);
    for (const ir::Expr *o : e->ops)
      expr(o);
  };
  std::function<void(const ir::Block *)> block = [&](const ir::Block *b) {
    if (!b)
      return;
    for (const ir::Stmt *s : b->stmts) {
      for (const ir::Expr *e : {s->value, s->addr, s->cond})
        expr(e);
      for (const ir::Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        block(c);
    }
  };
  block(f.body);
  return out;
}

/// Every load and store of `f` with its space.
std::vector<ir::AddrSpace> accessSpaces(const ir::Function &f) {
  std::vector<ir::AddrSpace> out;
  std::function<void(const ir::Expr *)> expr = [&](const ir::Expr *e) {
    if (!e)
      return;
    if (e->kind == ir::ExprKind::Load)
      out.push_back(e->space);
    for (const ir::Expr *o : e->ops)
      expr(o);
  };
  std::function<void(const ir::Block *)> block = [&](const ir::Block *b) {
    if (!b)
      return;
    for (const ir::Stmt *s : b->stmts) {
      if (s->kind == ir::StmtKind::Store)
        out.push_back(s->space);
      for (const ir::Expr *e : {s->value, s->addr, s->cond})
        expr(e);
      for (const ir::Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        block(c);
    }
  };
  block(f.body);
  return out;
}

} // namespace

TEST_CASE("member functions, operators and struct results are inlined into the kernel", "[ir]") {
  auto m = test::buildModule(R"(
struct V {
  float x, y;
  __device__ V operator+(const V &o) const { V r; r.x = x + o.x; r.y = y + o.y; return r; }
  __device__ float dot(const V &o) const { return x * o.x + y * o.y; }
};
__device__ V make(float a) { V v; v.x = a; v.y = 2 * a; return v; }
__global__ void k(float *out) {
  V a = make(threadIdx.x), b = make(1.0f);
  out[threadIdx.x] = (a + b).dot(b);
}
)");
  const ir::Function *k = m->findFunction("k");
  REQUIRE(k);
  CHECK(callees(*k).empty());
  // The objects became variables: the only memory access left is the store to out.
  CHECK(k->slots.empty());
  CHECK(accessSpaces(*k) == std::vector<ir::AddrSpace>{ir::AddrSpace::Global});
  // The device functions are no longer compiled.
  for (const ir::Function *f : m->functions)
    CHECK(f->kind != ir::FunctionKind::Device);
}

TEST_CASE("recursive functions and returns inside loops stay calls", "[ir]") {
  auto m = test::buildModule(R"(
__device__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
__device__ int find(const int *a, int n, int x) {
  for (int i = 0; i < n; ++i)
    if (a[i] == x)
      return i;
  return -1;
}
__device__ int clampAbs(int x) {
  if (x < 0)
    x = -x;
  if (x > 9)
    return 9;
  return x;
}
__global__ void k(int *out, const int *a) {
  out[threadIdx.x] = fact(threadIdx.x % 5) + find(a, 8, 3) + clampAbs(threadIdx.x - 16);
}
)");
  const ir::Function *k = m->findFunction("k");
  REQUIRE(k);
  auto calls = callees(*k);
  std::sort(calls.begin(), calls.end());
  // clampAbs (an early return outside any loop) is inlined; the others stay.
  CHECK(calls == std::vector<std::string>{"fact", "find"});
}

TEST_CASE("a pointer returned by a helper keeps its shared space", "[ir]") {
  auto m = test::buildModule(R"(
template <class T> struct Shared {
  __device__ T *get() { extern __shared__ int raw[]; return (T *)raw; }
};
__global__ void k(float *out) {
  float *s = Shared<float>().get();
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[31 - threadIdx.x];
}
)");
  const ir::Function *k = m->findFunction("k");
  REQUIRE(k);
  CHECK(accessSpaces(*k) == std::vector<ir::AddrSpace>{ir::AddrSpace::Shared, ir::AddrSpace::Shared,
                                                       ir::AddrSpace::Global});
}

TEST_CASE("a local array indexed at run time stays in memory, checked against its slot", "[ir]") {
  auto m = test::buildModule(R"(
struct Buf {
  int e[4];
  __device__ void set(int i, int v) { e[i] = v; }
  __device__ int get(int i) const { return e[i]; }
};
__global__ void k(int *out) {
  Buf b;
  for (int i = 0; i < 4; ++i)
    b.set(i, i);
  out[threadIdx.x] = b.get(threadIdx.x % 4);
}
)");
  const ir::Function *k = m->findFunction("k");
  REQUIRE(k);
  CHECK(callees(*k).empty());
  REQUIRE(k->slots.size() == 1);
  CHECK(k->slots[0]->direct);
  auto spaces = accessSpaces(*k);
  CHECK(std::count(spaces.begin(), spaces.end(), ir::AddrSpace::Local) == 2);
  CHECK(std::count(spaces.begin(), spaces.end(), ir::AddrSpace::Generic) == 0);
}
