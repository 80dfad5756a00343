// Loop-invariant arithmetic, as nvcc hoists it: what a loop computes once, before it, instead of
// in every iteration. Only the instruction counters see it (docs/counters.md, "Instructions");
// the per-thread semantics are unchanged.
#pragma once

#include "ir/ir.h"

namespace kern::ir {

/// Marks, in every kernel and device function of `m`, each largest expression inside a loop
/// that no iteration changes (its variables are not assigned in the loop; no load, call or
/// intrinsic other than pure math) and that costs an instruction: Expr::hoisted, listed in the
/// outermost loop it is invariant in (Stmt::hoisted), which counts it once before it starts.
/// Runs last (the branch model's predication decisions count the unhoisted instructions).
void modelHoisting(Module &m);

} // namespace kern::ir
