// Host functions (main and its helpers) -> ordinary scalar LLVM functions that call the
// runtime API (cudaMalloc, launches, printf...) through abi.h.
#pragma once

#include "backend/codegen_common.h"

namespace kern::backend {

/// Declares `R @<name>.host(ptr %hostctx, args...)` (internal).
llvm::Function *declareHostFunction(ModuleContext &mc, const ir::Function &f);

/// Emits the body of a function declared by declareHostFunction; for the program's main also
/// the exported entry `i32 @kern_main(ptr %hostctx, i32 %argc, ptr %argv)` (a MainFunction).
void emitHostFunction(ModuleContext &mc, const ir::Function &f);

/// The exported name of the program's entry point.
inline constexpr const char *kMainSymbol = "kern_main";

} // namespace kern::backend
