// Kernels whose barriers all stand in control that is the same for the whole block: the
// statements that reach a barrier (and the uniform variables their conditions read) can run
// once per block, and the statements between barriers once per warp, in a loop over the warps
// (backend/warp_blocks.cpp), as PoCL runs a work-group's work-items between barriers.
#pragma once

#include "ir/ir.h"

#include <set>

namespace kern::ir {

/// How a kernel's statements split between the block and its warps.
struct BlockLevelPlan {
  bool eligible = false;
  /// Variables the block-level statements read and write: uniform, assigned only by the
  /// statements of onceAssigns, from values every thread of the block computes alike (kernel
  /// parameters, blockIdx, blockDim, gridDim, constants, other such variables).
  std::set<const Var *> blockVars;
  /// The assignments of blockVars: statements of a block-level sequence (or a block-level
  /// loop's step or preCond) that run once per block.
  std::set<const Stmt *> onceAssigns;
};

/// The plan for `kernel`: eligible when it reaches a plain __syncthreads() itself (no counting
/// form, no function call, no local slot, no return), and every statement that reaches a
/// barrier is a block, an if or a loop whose condition is block-uniform as above (a loop with
/// no break or continue of its own), or the barrier itself. The barriers are then reached by
/// every thread of the block together, as CUDA requires, and by construction: a kernel that
/// breaks that rule has a varying condition around a barrier and is not eligible. And two
/// stretches of statements between barriers that may run one after the other with no barrier
/// between them (around an if or a loop whose barrier may not run) do not both touch memory,
/// print or risk a fault: the block form runs the first for every warp before the second, where
/// the fibers run each warp through both, and only the order of such effects could tell.
BlockLevelPlan planBlockLevel(const Function &kernel);

/// Whether `s`, a statement of a block-level sequence of `plan`'s kernel, runs once per block
/// (it reaches a barrier, or assigns a block variable) rather than once per warp.
bool runsOncePerBlock(const Stmt &s, const BlockLevelPlan &plan);

} // namespace kern::ir
