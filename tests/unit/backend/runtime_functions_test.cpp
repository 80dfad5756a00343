// The runtime function table (backend/runtime_functions.def): every runtime intrinsic of the IR
// has its row, the JIT's allow-list holds every row, and the LLVM types follow the C types.
#include "backend/runtime_functions.h"
#include "ir/ir.h"
#include "runtime/symbols.h"

#include <catch2/catch.hpp>

#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/raw_ostream.h>

#include <set>
#include <string>

using namespace kern;

namespace {

std::string printed(llvm::Type *t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t->print(os);
  return os.str();
}

} // namespace

TEST_CASE("every runtime intrinsic has a row in the runtime function table", "[backend]") {
#define KERN_INTRINSIC(Id, spelling, kind)                                                         \
  if (ir::intrinsicKind(ir::IntrinsicId::Id) == ir::IntrinsicKind::Runtime)                        \
    CHECK(backend::findRuntimeFunction(std::string("kern_rt_") + spelling).has_value());
#include "ir/intrinsics.def"
#undef KERN_INTRINSIC
}

TEST_CASE("the JIT's allow-list is the runtime function table, row by row", "[backend]") {
  const backend::SymbolList symbols = runtime::runtimeSymbols();
  REQUIRE(symbols.size() == std::size(backend::kRuntimeFunctions));
  std::set<std::string> names;
  for (size_t i = 0; i < symbols.size(); ++i) {
    CHECK(symbols[i].first == backend::kRuntimeFunctions[i].name);
    CHECK(symbols[i].second != nullptr);
    names.insert(symbols[i].first);
  }
  CHECK(names.size() == symbols.size()); // no name twice
}

TEST_CASE("runtime functions' LLVM types follow their C types", "[backend]") {
  llvm::LLVMContext c;
  auto type = [&](backend::RuntimeFunction f) {
    return printed(backend::runtimeFunctionInfo(f).type(c));
  };
  using F = backend::RuntimeFunction;
  CHECK(type(F::kern_rt_fault) == "void (ptr, i32, i32, i32, i64)");
  CHECK(type(F::kern_rt_poll) == "i32 (ptr, i32)");
  CHECK(type(F::kern_rt_coro_frame) == "ptr (ptr, i64, i64)");
  CHECK(type(F::kern_rt_atof) == "double (ptr, ptr)");
  CHECK(type(F::kern_rt_strtol) == "i64 (ptr, ptr, ptr, i32)");
  CHECK(type(F::kern_rt_cudaEventElapsedTime) == "i32 (ptr, ptr, ptr, ptr)");
  CHECK(backend::runtimeFunctionInfo(F::kern_rt_fault).returns);
  CHECK_FALSE(backend::runtimeFunctionInfo(F::kern_rt_host_fault).returns);
  CHECK_FALSE(backend::runtimeFunctionInfo(F::kern_rt_exit).returns);
  CHECK_FALSE(backend::findRuntimeFunction("kern_rt_no_such_function").has_value());
}
