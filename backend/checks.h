// Self-checks of the backend for its tests, with no LLVM type in sight: the emitted divergence
// predicate compiled and callable, and the runtime function table as names and printed types.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kern::backend {

/// The predicate compiled code emits for "does this branch split the warp" (emitBranchSplits),
/// JIT-compiled on its own so that it can be run against abi.h's kern_branch_splits.
class EmittedBranchRule {
public:
  virtual ~EmittedBranchRule() = default;
  virtual bool splits(uint32_t mask, uint32_t taken) const = 0;
};
/// Null with `error` set if the predicate cannot be compiled.
std::unique_ptr<EmittedBranchRule> compileEmittedBranchRule(std::string &error);

/// Every row of runtime_functions.def, by name, in table order.
std::vector<std::string> runtimeFunctionNames();
/// The LLVM function type of runtime function `name` as LLVM prints it ("i32 (ptr, i32)"), or
/// nothing if the table has no such row.
std::optional<std::string> runtimeFunctionTypeText(std::string_view name);
/// Whether runtime function `name` ever returns (false: it unwinds), or nothing if unknown.
std::optional<bool> runtimeFunctionReturns(std::string_view name);

} // namespace kern::backend
