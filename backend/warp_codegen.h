// Kernels and __device__ functions -> warp functions: one call advances all 32 lanes of a warp
// in lockstep under an execution mask (ARCHITECTURE.md, "Why warp functions").
#pragma once

#include "backend/codegen_common.h"

namespace kern::backend {

/// Declares the warp function of `f`:
///   kernel:  `void @<name>(ptr %ctx)`, exported (a WarpFunction);
///   device:  `<32 x R> @<name>.warp(ptr %ctx, <32 x i1> %mask, ptr %warp, <32 x T> args...)`
///            (void when R is), internal. `%warp` is the per-warp state the kernel owns (the
///            local-memory bound for generic pointer checks and the clock() counter).
/// A kernel that ir::runsBlockInRegions is declared to run a whole block per call
/// (ModuleContext::regionKernels).
llvm::Function *declareWarpFunction(ModuleContext &mc, const ir::Function &f);

/// Emits the body of a function declared by declareWarpFunction.
void emitWarpFunction(ModuleContext &mc, const ir::Function &f);

/// Defines, exported, the functions of the general path of the kinds of access that the
/// modules of a program's kernels listed in their ModuleContext::accessKinds, now in
/// `mc.accessKinds` (warp_general.cpp); `any` is a warp function of the program.
void defineAccessFunctions(ModuleContext &mc, const ir::Function &any);

} // namespace kern::backend
