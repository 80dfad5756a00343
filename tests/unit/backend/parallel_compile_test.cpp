// The split of a program into compile units (backend/partition.h) and their compilation on
// several threads (backend/compile.cpp): every function in exactly one unit, calls never
// leaving a unit, and the same code whatever the number of threads.
#include "backend/backend.h"
#include "backend/partition.h"
#include "ir/pipeline.h"
#include "runtime/symbols.h"

#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <set>
#include <string>

using namespace kern;

namespace {

std::unique_ptr<ir::Module> build(const std::string &source) {
  frontend::SourceManager sm;
  frontend::DiagnosticEngine diags(sm);
  auto m = ir::buildModule(sm, sm.addFile("test.cu", source), diags);
  REQUIRE(m);
  return m;
}

// Two kernels share a recursive device function (never inlined); a third calls nothing; the
// fourth has a barrier in a loop (a whole-block kernel) and reads shared memory through a pointer
// whose accesses take the general path.
const char *kProgram = R"(
#include <cstdio>
__device__ int depth(int x) { return x > 0 ? 1 + depth(x - 1) : 0; }
__global__ void a(int *out) { out[threadIdx.x] = depth(threadIdx.x % 4); }
__global__ void b(int *out) { out[threadIdx.x] += depth(3); }
__global__ void c(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = out[(i * 7) % n] * 2.0f;
}
__global__ void r(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  for (int stride = 32; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride)
      s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[0] = s[0];
}
int main() {
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  a<<<1, 32>>>(d);
  b<<<1, 32>>>(d);
  c<<<1, 32>>>((float *)d, 32);
  r<<<1, 64>>>(d);
  int h = 0;
  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
  printf("%d\n", h);
  return 0;
}
)";

} // namespace

TEST_CASE("compile units: host code first, kernels with the device functions they call",
          "[backend]") {
  auto m = build(kProgram);
  std::vector<backend::CompileUnit> units = backend::partitionModule(*m);
  REQUIRE(!units.empty());
  CHECK(units[0].host);
  std::map<const ir::Function *, size_t> unitOf;
  for (size_t u = 0; u < units.size(); ++u) {
    CHECK(units[u].size > 0);
    for (const ir::Function *f : units[u].functions) {
      CHECK(unitOf.count(f) == 0); // in one unit only
      unitOf[f] = u;
      CHECK((f->kind == ir::FunctionKind::Host) == units[u].host);
    }
  }
  for (const ir::Function *f : m->functions)
    CHECK(unitOf.count(f) == 1); // every function somewhere
  const ir::Function *depth = nullptr;
  for (const ir::Function *f : m->functions)
    if (f->kind == ir::FunctionKind::Device)
      depth = f;
  REQUIRE(depth);
  // The callers of a device function are compiled with it.
  CHECK(unitOf[m->findFunction("a")] == unitOf[depth]);
  CHECK(unitOf[m->findFunction("b")] == unitOf[depth]);
}

TEST_CASE("compile units: host functions that neither main nor a pointer reaches are left out",
          "[backend]") {
  auto m = build(R"(
#include <cstdio>
__host__ __device__ int twice(int x) { return 2 * x; }
__host__ __device__ int thrice(int x) { return 3 * x; }
int byPointer(int x) { return x + 1; }
int unused(int x) { return x - 1; }
__global__ void k(int *out) { out[threadIdx.x] = twice(threadIdx.x); }
int main() {
  int (*f)(int) = byPointer;
  printf("%d %d\n", thrice(2), f(1));
  return 0;
}
)");
  std::vector<backend::CompileUnit> units = backend::partitionModule(*m);
  REQUIRE(!units.empty());
  REQUIRE(units[0].host);
  std::set<std::string> host;
  for (const ir::Function *f : units[0].functions)
    host.insert(f->name);
  CHECK(host.count("main"));
  CHECK(host.count("thrice"));      // called by main
  CHECK(host.count("byPointer"));   // its address is taken
  CHECK_FALSE(host.count("twice")); // device code's only
  CHECK_FALSE(host.count("unused"));
}

TEST_CASE("compile units: large kernels get a unit each, small ones are packed", "[backend]") {
  // 12 kernels of a few hundred nodes each: more than one unit, fewer than 12.
  std::string source;
  for (int k = 0; k < 12; ++k) {
    source += "__global__ void k" + std::to_string(k) +
              "(float *p, int n) {\n"
              "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n";
    for (int s = 0; s < 20; ++s)
      source += "  if (i < n) p[i] = p[i] * " + std::to_string(s + 2) + ".0f + p[(i + " +
                std::to_string(s) + ") % n];\n";
    source += "}\n";
  }
  auto m = build(source);
  std::vector<backend::CompileUnit> units = backend::partitionModule(*m);
  size_t kernels = 0;
  for (const backend::CompileUnit &u : units) {
    CHECK(!u.host);
    kernels += u.functions.size();
    if (u.functions.size() > 1)
      CHECK(u.size <= backend::kUnitSize);
  }
  CHECK(kernels == 12);
  CHECK(units.size() > 1);
  CHECK(units.size() < 12);
  // A pure function of the program.
  std::vector<backend::CompileUnit> again = backend::partitionModule(*m);
  REQUIRE(again.size() == units.size());
  for (size_t u = 0; u < units.size(); ++u)
    CHECK(again[u].functions == units[u].functions);
}

TEST_CASE("a program compiles to the same code on any number of threads", "[backend]") {
  // The modules' IR is compared: the object code is a function of it.
  auto m = build(kProgram);
  std::string reference;
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    for (bool counters : {false, true}) {
      backend::CompileOptions o;
      o.threads = threads;
      o.counters = counters;
      // Kept as it was compiled, or generated again when asked for: the same text.
      o.keepIR = threads % 2 == 0;
      std::string error;
      auto p = backend::compile(*m, o, runtime::runtimeSymbols(), error);
      REQUIRE(p);
      CHECK(error.empty());
      for (size_t k = 0; k < m->kernels().size(); ++k)
        CHECK(p->kernel(k) != nullptr);
      CHECK(p->main() != nullptr);
      CHECK(p->kernelRunsWholeBlock(3)); // r
      CHECK_FALSE(p->kernelRunsWholeBlock(0));
      // r's barriers stand in block-uniform control: it has a block form too, which counts
      // itself where the code has the counters.
      CHECK(p->blockKernel(3) != nullptr);
      CHECK(p->countsItself() == counters);
      CHECK(p->blockKernel(0) == nullptr);
      if (counters)
        continue;
      const std::string ir = p->llvmIR();
      CHECK(ir.find("define") != std::string::npos);
      if (reference.empty())
        reference = ir;
      else
        CHECK(ir == reference);
    }
  }
}
