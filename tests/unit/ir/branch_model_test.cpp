// The model of what nvcc makes of control flow (ir/branch_model.cpp): which ifs are predicated
// or predicated exits, the shape of each loop, the slow-path checks of divisions. Each case is
// one of the rules of docs/counters.md ("Branches as the GPU executes them").
#include "../ir_module.h"
#include "ir/analysis.h"
#include "ir/pipeline.h"

#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

using namespace kern;

namespace {

/// The kernel's ifs and loops, in source order.
struct Flow {
  std::vector<const ir::Stmt *> ifs, loops;
  unsigned divisionSites = 0;
};

Flow flowOf(const ir::Module &m) {
  Flow f;
  std::function<void(const ir::Block *)> walk = [&](const ir::Block *b) {
    if (!b)
      return;
    for (const ir::Stmt *s : b->stmts) {
      if (s->kind == ir::StmtKind::If && !s->shortCircuit)
        f.ifs.push_back(s);
      if (s->kind == ir::StmtKind::Loop)
        f.loops.push_back(s);
      for (const ir::Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        walk(c);
    }
  };
  walk(m.kernels()[0]->body);
  for (const ir::Site &s : m.sites)
    f.divisionSites += s.what == "division" || s.what == "sqrt";
  return f;
}

} // namespace

TEST_CASE("the if that ends a kernel is a predicated exit and a short if is predicated",
          "[ir][branch_model]") {
  auto m = test::buildModule(R"(
    __global__ void k(const int *in, int *out, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      int v = in[i];
      if (v > 4)
        v = v * 3;
      for (int k = 0; k < n; ++k)
        v += in[(i + k) % n];
      if (i < n)
        out[i] = v;
    })");
  Flow f = flowOf(*m);
  REQUIRE(f.ifs.size() == 2);
  CHECK(f.ifs[0]->isBranch);    // the source's view is unchanged
  CHECK(!f.ifs[0]->gpuBranch);  // predicated
  CHECK(f.ifs[0]->predicated);  // its instructions issue for every lane
  CHECK(!f.ifs[1]->gpuBranch);  // a predicated exit
  CHECK(!f.ifs[1]->predicated); // the failing lanes leave
}

TEST_CASE("an if with many accesses, a loop or a barrier inside branches", "[ir][branch_model]") {
  auto m = test::buildModule(R"(
    __global__ void k(const int *in, int *out) {
      int i = threadIdx.x, v = 0;
      if (i % 3 == 0)
        v = in[i + 1] + in[i + 2] + in[i + 3] + in[i + 4] + in[i + 5];
      if (i % 5 == 0) {
        for (int k = 0; k < i; ++k)
          v += k;
      }
      out[i] = v;
      out[i + 64] = v;
    })");
  Flow f = flowOf(*m);
  REQUIRE(f.ifs.size() == 2);
  CHECK(f.ifs[0]->gpuBranch);
  CHECK(f.ifs[0]->noJump); // no else side
  CHECK(f.ifs[1]->gpuBranch);
}

TEST_CASE("loops by trip count: unrolled, by 4, at run time, endless", "[ir][branch_model]") {
  auto m = test::buildModule(R"(
    __global__ void k(const float *in, float *out, int n) {
      __shared__ float s[256];
      int i = threadIdx.x;
      float a = 0.0f;
      for (int k = 0; k < 8; ++k)               // 8 trips: unrolled
        a += in[i + k];
      for (int k = 0; k < 31; ++k) {            // 31 trips around a branch and a barrier
        if (i > k)
          s[i] = s[i - 1] + s[i + 1] + s[i + 2] + in[k] + in[k + 1];
        __syncthreads();
      }
      for (int k = 0; k < n; ++k)               // counted, run-time trip count
        a += in[k * n + i];
      for (int k = 0; k < n; ++k)               // a constant step: ptxas unrolls again
        a += in[i + k];
      int x = i;
      while (true) {                            // the break is the branch
        if (x < 2)
          break;
        x = x / 2;
      }
      for (int k = i; k < n; k += blockDim.x)   // ends the kernel: no entry test
        out[k] = a + x;
    })");
  Flow f = flowOf(*m);
  REQUIRE(f.loops.size() == 6);
  CHECK(f.loops[0]->loopShape == ir::LoopShape::Unrolled);
  CHECK(f.loops[1]->loopShape == ir::LoopShape::Partial4);
  CHECK(f.loops[2]->loopShape == ir::LoopShape::Runtime4);
  CHECK(f.loops[3]->loopShape == ir::LoopShape::Runtime16);
  CHECK(f.loops[4]->loopShape == ir::LoopShape::Endless);
  CHECK(f.loops[5]->loopShape == ir::LoopShape::SkipEntry);
}

TEST_CASE("divisions and square roots check their operands, unless a constant",
          "[ir][branch_model]") {
  auto m = test::buildModule(R"(
    __global__ void k(const float *in, float *out) {
      int i = threadIdx.x;
      float t = 1.0f, acc = 0.0f;
      for (int k = 0; k < 4; ++k)
        acc += in[i] / (k + 1);                 // constant once unrolled
      out[i] = in[i] / in[i + 1] + in[i] / 4.0f + in[i] / 3.0f + sqrtf(in[i]) + sqrtf(t) + acc;
    })");
  // in[i] / in[i + 1], in[i] / 3.0f, sqrtf(in[i]): not the power of two, not sqrtf(1.0f).
  CHECK(flowOf(*m).divisionSites == 3);
}

TEST_CASE("an if/else that ends the kernel, or has a tiny side, takes no jump",
          "[ir][branch_model]") {
  auto m = test::buildModule(R"(
    __global__ void k(const int *in, int *out, int n) {
      int i = threadIdx.x, r;
      if (blockIdx.x % 2 == 0) {
        r = in[(i + 1) % n] + in[(i + 2) % n] + in[(i + 3) % n] + in[(i + 4) % n] + in[(i + 5) % n];
      } else {
        r = -i;
      }
      out[i] = r;
      if (in[i] > 0) {
        out[i + 1] = in[(i + 1) % n] + in[(i + 2) % n] + in[(i + 3) % n] + in[(i + 4) % n];
        out[i + 2] = in[(i + 5) % n];
      } else {
        out[i + 3] = in[(i + 6) % n] + in[(i + 7) % n] + in[(i + 8) % n] + in[(i + 9) % n];
        out[i + 4] = in[(i + 10) % n];
      }
    })");
  Flow f = flowOf(*m);
  REQUIRE(f.ifs.size() == 2);
  CHECK(f.ifs[0]->gpuBranch);
  CHECK(f.ifs[0]->noJump);      // `r = -i` issues predicated before the branch
  CHECK(!f.ifs[0]->endsKernel); // code follows
  CHECK(f.ifs[1]->gpuBranch);
  CHECK(f.ifs[1]->noJump); // each side ends in EXIT
  CHECK(f.ifs[1]->endsKernel);
}

TEST_CASE("a predicated if whose sides are still long once counted as the GPU's branches",
          "[ir][branch_model]") {
  // The two up-sweeps of a Blelloch scan in unrolled stages: the plain one's body is two
  // loads, an add and a store from one address register (predicated, as on the H200); the
  // padded one's adds the padding's arithmetic to each address (11 instructions: it branches,
  // as the H200 does, 20 branches a warp for the 20 stages of tests/gpu/timing/val_scan.cu).
  auto m = test::buildModule(R"(
    __global__ void k(int *out) {
      __shared__ int t[1056];
      int tid = threadIdx.x, offset = 1;
      t[tid] = tid;
      for (int d = 512; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
          int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
          t[b] += t[a];
        }
        offset *= 2;
      }
      for (int d = 512; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
          int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
          a += a >> 5;
          b += b >> 5;
          t[b] += t[a];
        }
        offset *= 2;
      }
      out[tid] = t[tid];
    })");
  Flow f = flowOf(*m);
  REQUIRE(f.ifs.size() == 2);
  CHECK(f.ifs[0]->predicated);
  CHECK(!f.ifs[0]->gpuBranch);
  CHECK(!f.ifs[1]->predicated);
  CHECK(f.ifs[1]->gpuBranch);
}

namespace {

/// Whether every read of the variable `name` in `b` (and the blocks inside), or in the statement
/// `one`, is a value the compiler knows (Expr::knownConstant); false if there is none.
bool knownReads(const ir::Block *b, const std::string &name, const ir::Stmt *one = nullptr) {
  unsigned reads = 0, known = 0;
  std::function<void(const ir::Expr *)> expr = [&](const ir::Expr *e) {
    if (!e)
      return;
    if (e->kind == ir::ExprKind::VarRef && e->var->name == name) {
      ++reads;
      known += e->knownConstant;
    }
    for (const ir::Expr *o : e->ops)
      expr(o);
  };
  ir::forEachExpr(b, expr);
  if (one)
    for (const ir::Expr *e : {one->value, one->addr})
      expr(e);
  return reads > 0 && known == reads;
}

} // namespace

TEST_CASE("the copies of an unrolled loop know what its body sets to constants",
          "[ir][branch_model]") {
  // A Blelloch scan's `offset *= 2` beside the counter: 1, 2, 4, 8 in the four copies, 16
  // after the loop (nvcc's immediates: `offset * x` is a shift, the step nothing). Set under a
  // condition, or in a loop that may leave early, it is not known.
  auto m = test::buildModule(R"(
    __global__ void k(int *out, int n) {
      int tid = threadIdx.x, offset = 1, s = 0;
      for (int d = 8; d > 0; d >>= 1) {
        s += offset * tid;
        offset *= 2;
      }
      out[tid] = s + offset;
      int scale = 1, t = 0;
      for (int d = 0; d < 4; ++d) {
        if (tid < d)
          scale += 1;
        t += scale * tid;
      }
      out[tid + 64] = t;
      int step = 1, u = 0;
      for (int d = 0; d < 4; ++d) {
        u += step * tid;
        if (u > n)
          break;
        step *= 2;
      }
      out[tid + 128] = u;
    })");
  Flow f = flowOf(*m);
  REQUIRE(f.loops.size() == 3);
  CHECK(f.loops[0]->loopShape == ir::LoopShape::Unrolled);
  CHECK(knownReads(f.loops[0]->body, "offset"));
  // out[tid] = s + offset: the assignment of the value stored after the loop.
  const ir::Stmt *after = nullptr;
  const auto &top = m->kernels()[0]->body->stmts;
  for (size_t k = 0; k + 1 < top.size() && !after; ++k)
    if (top[k] == f.loops[0])
      after = top[k + 1];
  REQUIRE(after);
  CHECK(knownReads(nullptr, "offset", after));
  CHECK(!knownReads(f.loops[1]->body, "scale"));
  CHECK(!knownReads(f.loops[2]->body, "step"));
}
