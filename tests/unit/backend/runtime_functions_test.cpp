// The runtime function table (backend/runtime_functions.def): every runtime intrinsic of the IR
// has its row, the JIT's allow-list holds every row, and the LLVM types follow the C types.
#include "backend/checks.h"
#include "ir/ir.h"
#include "runtime/symbols.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

using namespace kern;

TEST_CASE("every runtime intrinsic has a row in the runtime function table", "[backend]") {
  // setjmp and longjmp are emitted by the backend itself (host_frames.cpp), over the rows
  // kern_rt_setjmp_slot, kern_rt_setjmp_leave and kern_rt_longjmp.
  CHECK(backend::runtimeFunctionReturns("kern_rt_setjmp_slot").has_value());
  CHECK(backend::runtimeFunctionReturns("kern_rt_setjmp_leave").has_value());
  CHECK(backend::runtimeFunctionReturns("kern_rt_longjmp").has_value());
  // One row per intrinsic and one CHECK in a loop: a CHECK per row made this the longest file
  // of the build to compile (minutes under the sanitizers).
  struct Row {
    ir::IntrinsicId id;
    const char *spelling;
  };
  static const Row rows[] = {
#define KERN_INTRINSIC(Id, spelling, kind) {ir::IntrinsicId::Id, spelling},
#include "ir/intrinsics.def"
#undef KERN_INTRINSIC
  };
  for (const Row &row : rows) {
    if (ir::intrinsicKind(row.id) != ir::IntrinsicKind::Runtime ||
        row.id == ir::IntrinsicId::Setjmp || row.id == ir::IntrinsicId::Longjmp)
      continue;
    INFO(row.spelling);
    CHECK(backend::runtimeFunctionReturns(std::string("kern_rt_") + row.spelling).has_value());
  }
}

TEST_CASE("the JIT's allow-list is the runtime function table, row by row", "[backend]") {
  const backend::SymbolList symbols = runtime::runtimeSymbols();
  const std::vector<std::string> rows = backend::runtimeFunctionNames();
  REQUIRE(symbols.size() == rows.size());
  std::set<std::string> names;
  for (size_t i = 0; i < symbols.size(); ++i) {
    CHECK(symbols[i].first == rows[i]);
    CHECK(symbols[i].second != nullptr);
    names.insert(symbols[i].first);
  }
  CHECK(names.size() == symbols.size()); // no name twice
}

TEST_CASE("runtime functions' LLVM types follow their C types", "[backend]") {
  auto type = [](const char *name) { return backend::runtimeFunctionTypeText(name).value_or(""); };
  CHECK(type("kern_rt_fault") == "void (ptr, i32, i32, i32, i64)");
  CHECK(type("kern_rt_poll") == "i32 (ptr, i32)");
  CHECK(type("kern_rt_region_frame") == "ptr (ptr, i64, i64)");
  CHECK(type("kern_rt_atof") == "double (ptr, ptr)");
  CHECK(type("kern_rt_strtol") == "i64 (ptr, ptr, ptr, i32)");
  CHECK(type("kern_rt_cudaEventElapsedTime") == "i32 (ptr, ptr, ptr, ptr)");
  CHECK(backend::runtimeFunctionReturns("kern_rt_fault") == true);
  CHECK(backend::runtimeFunctionReturns("kern_rt_host_fault") == false);
  CHECK(backend::runtimeFunctionReturns("kern_rt_exit") == false);
  CHECK_FALSE(backend::runtimeFunctionTypeText("kern_rt_no_such_function").has_value());
}
