// The divergence rule compiled code emits (backend emitBranchSplits) against its one statement,
// abi.h's kern_branch_splits: the emitted IR is JIT-compiled and run for many mask/taken pairs.
#include "backend/codegen_common.h"
#include "backend/jit.h"

#include <catch2/catch.hpp>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <memory>
#include <random>

using namespace kern;

TEST_CASE("compiled code's divergence test is the hardware model's rule", "[backend]") {
  auto created = backend::Jit::create(0);
  if (!created)
    FAIL(llvm::toString(created.takeError()));
  std::unique_ptr<backend::Jit> jit = std::move(*created);
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("branch_rule", *context);
  module->setDataLayout(jit->dataLayout());
  // i32 splits(i32 mask, i32 taken): the emitted predicate, widened so that C reads it as is.
  llvm::IRBuilder<> b(*context);
  auto *type = llvm::FunctionType::get(b.getInt32Ty(), {b.getInt32Ty(), b.getInt32Ty()}, false);
  auto *fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "splits", *module);
  b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", fn));
  b.CreateRet(
      b.CreateZExt(backend::emitBranchSplits(b, fn->getArg(0), fn->getArg(1)), b.getInt32Ty()));
  if (auto error = jit->defineSymbols({}))
    FAIL(llvm::toString(std::move(error)));
  if (auto error =
          jit->addModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))))
    FAIL(llvm::toString(std::move(error)));
  auto address = jit->lookup("splits");
  if (!address)
    FAIL(llvm::toString(address.takeError()));
  auto splits = reinterpret_cast<int32_t (*)(uint32_t, uint32_t)>(*address);

  // Every pair of 4-lane sets, the edge cases, then random pairs.
  auto agree = [&](uint32_t mask, uint32_t taken) {
    return (splits(mask, taken) != 0) == kern_branch_splits(mask, taken);
  };
  for (uint32_t mask = 0; mask < 16; ++mask)
    for (uint32_t taken = 0; taken < 16; ++taken)
      CHECK(agree(mask, taken));
  for (uint32_t mask : {0u, 1u, 0x80000000u, 0xFFFFu, 0xFFFF0000u, ~0u})
    for (uint32_t taken : {0u, 1u, 0x80000000u, 0xFFFFu, 0xFFFF0000u, ~0u})
      CHECK(agree(mask, taken));
  std::mt19937 random(12345);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t mask = random(), taken = random();
    if (!agree(mask, taken))
      FAIL("mask " << mask << " taken " << taken);
    // Branches that do not split: taken by every active lane or by none.
    if (!agree(mask, taken | mask) || !agree(mask, taken & ~mask))
      FAIL("one-way branch, mask " << mask << " taken " << taken);
  }
}
