// Branches as the GPU executes them: what nvcc's compiler makes of a kernel's control flow, for
// the branch counters (docs/counters.md, "Branches as the GPU executes them"). The per-thread
// semantics are unchanged; only which tests count as branch instructions is decided here.
#pragma once

#include "ir/ir.h"

namespace kern::ir {

/// Marks, in every kernel and device function of `m`:
///  - the ifs nvcc predicates (If::predicated, isBranch false): short straight-line sides, and
///    the if that ends a kernel or returns from it, which becomes a predicated exit;
///  - each loop's shape (Stmt::loopShape): fully unrolled, unrolled by 4, or one branch per
///    test, with the entry test gone where the loop ends the kernel or must run;
///  - each floating-point division, whose slow-path check is a branch (Expr::site of a Div).
/// Runs after inlining and uniformity analysis (a runtime-unrolled loop has a uniform bound).
void modelCompiledBranches(Module &m);

/// Turns back into branches the predicated ifs whose sides, counted as the GPU's instructions
/// once the loops' invariants, pointers and reused addresses are known (ir/hoist.h), are longer
/// than nvcc predicates. Runs after modelHoisting.
void reviewPredication(Module &m);

} // namespace kern::ir
