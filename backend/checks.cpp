// The backend's self-checks (backend/checks.h).
#include "backend/checks.h"

#include "backend/codegen_common.h"
#include "backend/jit.h"
#include "backend/runtime_functions.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

namespace kern::backend {
namespace {

class JitBranchRule : public EmittedBranchRule {
public:
  JitBranchRule(std::unique_ptr<Jit> jit, int32_t (*fn)(uint32_t, uint32_t))
      : jit_(std::move(jit)), fn_(fn) {}
  bool splits(uint32_t mask, uint32_t taken) const override { return fn_(mask, taken) != 0; }

private:
  std::unique_ptr<Jit> jit_; // owns the code fn_ points into
  int32_t (*fn_)(uint32_t, uint32_t);
};

} // namespace

std::unique_ptr<EmittedBranchRule> compileEmittedBranchRule(std::string &error) {
  auto created = Jit::create(0);
  if (!created) {
    error = llvm::toString(created.takeError());
    return nullptr;
  }
  std::unique_ptr<Jit> jit = std::move(*created);
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("branch_rule", *context);
  module->setDataLayout(jit->dataLayout());
  // i32 splits(i32 mask, i32 taken): the emitted predicate, widened so that C reads it as is.
  Builder b(*context);
  auto *type = llvm::FunctionType::get(b.getInt32Ty(), {b.getInt32Ty(), b.getInt32Ty()}, false);
  auto *fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "splits", *module);
  b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", fn));
  b.CreateRet(b.CreateZExt(emitBranchSplits(b, fn->getArg(0), fn->getArg(1)), b.getInt32Ty()));
  if (auto e = jit->defineSymbols({})) {
    error = llvm::toString(std::move(e));
    return nullptr;
  }
  if (auto e = jit->addModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context)))) {
    error = llvm::toString(std::move(e));
    return nullptr;
  }
  auto address = jit->lookup("splits");
  if (!address) {
    error = llvm::toString(address.takeError());
    return nullptr;
  }
  auto splits = reinterpret_cast<int32_t (*)(uint32_t, uint32_t)>(*address);
  return std::make_unique<JitBranchRule>(std::move(jit), splits);
}

std::vector<std::string> runtimeFunctionNames() {
  std::vector<std::string> names;
  for (const RuntimeFunctionInfo &f : kRuntimeFunctions)
    names.emplace_back(f.name);
  return names;
}

std::optional<std::string> runtimeFunctionTypeText(std::string_view name) {
  std::optional<RuntimeFunction> f = findRuntimeFunction(name);
  if (!f)
    return std::nullopt;
  llvm::LLVMContext c;
  std::string text;
  llvm::raw_string_ostream os(text);
  runtimeFunctionInfo(*f).type(c)->print(os);
  return os.str();
}

std::optional<bool> runtimeFunctionReturns(std::string_view name) {
  std::optional<RuntimeFunction> f = findRuntimeFunction(name);
  if (!f)
    return std::nullopt;
  return runtimeFunctionInfo(*f).returns;
}

} // namespace kern::backend
