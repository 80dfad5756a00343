// Modules kept for the next compile (backend/object_cache.h): a compile of the same program
// takes every module from the cache and runs the same, a changed kernel is compiled again and
// runs as changed, and the cache drops its least recently used entries past its size.
#include "backend/backend.h"
#include "backend/object_cache.h"
#include "ir/pipeline.h"
#include "runtime/symbols.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

using namespace kern;

namespace {

std::unique_ptr<ir::Module> build(const std::string &source) {
  frontend::SourceManager sm;
  frontend::DiagnosticEngine diags(sm);
  auto m = ir::buildModule(sm, sm.addFile("session", source), diags);
  REQUIRE(m);
  return m;
}

std::string program(int factor) {
  return R"(
__global__ void scale(int *p) { p[threadIdx.x] *= )" +
         std::to_string(factor) + R"(; }
__global__ void sum(const int *p, int *out) {
  __shared__ int s[32];
  s[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int w = 16; w > 0; w >>= 1) {
    if (threadIdx.x < w)
      s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *out = s[0];
}
int main() { return 0; }
)";
}

std::unique_ptr<backend::CompiledProgram>
compile(const ir::Module &m, std::shared_ptr<backend::ObjectCache> cache, bool keepIR = false) {
  backend::CompileOptions o;
  o.cache = std::move(cache);
  o.keepIR = keepIR;
  std::string error;
  auto p = backend::compile(m, o, runtime::runtimeSymbols(), error);
  REQUIRE(p);
  CHECK(error.empty());
  return p;
}

} // namespace

TEST_CASE("object cache: the same program again is linked from the cache, a change is compiled",
          "[backend]") {
  auto cache = backend::newObjectCache(size_t{64} << 20);
  auto m1 = build(program(3));
  auto first = compile(*m1, cache);
  const size_t modules = cache->misses();
  CHECK(modules >= 3); // host code, each kernel (units of their own), the access functions
  CHECK(cache->hits() == 0);

  auto again = compile(*build(program(3)), cache);
  CHECK(cache->hits() == modules); // every module found
  CHECK(cache->misses() == modules);
  CHECK(again->kernel(0) != nullptr);
  CHECK(again->kernel(1) != nullptr);

  // Only `scale` changed: its module is compiled, the others are found.
  auto m2 = build(program(5));
  auto changed = compile(*m2, cache);
  CHECK(cache->misses() == modules + 1);
  CHECK(cache->hits() == 2 * modules - 1);
  CHECK(changed->kernel(0) != nullptr);

  // The IR asked for: entries kept without it are compiled again, and then hold it.
  auto withIR = compile(*m2, cache, true);
  CHECK(withIR->llvmIR().find("define") != std::string::npos);
  const size_t hits = cache->hits();
  auto withIRAgain = compile(*m2, cache, true);
  CHECK(cache->hits() == hits + modules);
  CHECK(withIRAgain->llvmIR() == withIR->llvmIR());
}

TEST_CASE("object cache: the least recently used entries go past the size", "[backend]") {
  backend::ObjectCache cache(100);
  std::string object;
  cache.insert(std::string(10, 'a'), std::string(30, 'A'), "");
  cache.insert(std::string(10, 'b'), std::string(30, 'B'), "");
  CHECK(cache.find(std::string(10, 'a'), object, nullptr)); // a is now the most recent
  CHECK(object == std::string(30, 'A'));
  cache.insert(std::string(10, 'c'), std::string(30, 'C'), ""); // 120 bytes: b goes
  CHECK_FALSE(cache.find(std::string(10, 'b'), object, nullptr));
  CHECK(cache.find(std::string(10, 'a'), object, nullptr));
  CHECK(cache.find(std::string(10, 'c'), object, nullptr));
  std::string ir;
  CHECK_FALSE(cache.find(std::string(10, 'c'), object, &ir));     // kept without its IR
  cache.insert(std::string(10, 'c'), std::string(30, 'C'), "ir"); // replaces, with its IR
  CHECK(cache.find(std::string(10, 'c'), object, &ir));
  CHECK(ir == "ir");
  cache.insert(std::string(10, 'd'), std::string(200, 'D'), ""); // larger than the cache
  CHECK_FALSE(cache.find(std::string(10, 'd'), object, nullptr));
  CHECK(cache.find(std::string(10, 'a'), object, nullptr));
}
