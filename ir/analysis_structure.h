// Structural questions about a function's statements that code generation asks: whether a
// statement may switch lanes off, and whether a kernel is better run a whole block per call, its
// warps in turn between barriers (what each statement counts as instructions:
// ir/instruction_mix.h).
#pragma once

#include "ir/instruction_mix.h"
#include "ir/ir.h"

#include <cstdint>
#include <map>
#include <set>

namespace kern::ir {

/// The block a Block statement holds.
inline const Block *nestedBlock(const Stmt &s) { return s.body ? s.body : s.thenBody; }

/// The variables that `b` may read before it assigns them, on some path from its start where
/// the variables of `assigned` are assigned (definite assignment; in doubt, a variable is in).
std::set<const Var *> readBeforeAssigned(const Block *b, std::set<const Var *> assigned);

/// Whether executing `s` (or `b`, may be null) can switch lanes off for the statements after
/// it: a return anywhere, a break or continue not inside a loop nested in it.
bool mayRemoveLanes(const Stmt &s);
bool mayRemoveLanes(const Block *b);

/// The loops of `f` that end after at most `limit` iterations whatever the data: a counter set
/// to a constant just before the loop, tested against constants and changed only by the step,
/// by constants. They need no check for a runaway kernel on their back-edges (an enclosing
/// loop has one), and once LLVM unrolls them their checks would be most of their code.
std::set<const Stmt *> shortLoops(const Function &f, unsigned limit);

/// The value of integer expression `e` where every variable has its value in `env`; false if
/// it has another form or reads another variable. Values are kept as the type's C value.
bool evaluateConstant(const Expr *e, const std::map<const Var *, int64_t> &env, int64_t &out);

/// Whether kernel `kernel` (or a device function it calls) uses the value an atomic on memory
/// outside the block's shared memory returns: what it computes then depends on the order in
/// which blocks reach the atomic (a stream compaction's `slot = atomicAdd(count, 1)`).
bool usesGlobalAtomicResults(const Function &kernel);

/// Whether `f` reads threadIdx.y or threadIdx.z: its blocks are likely 2-D tiles, whose warps
/// span several rows.
bool usesThreadRows(const Function &f);

/// Whether kernel `f` is compiled to run a whole block per call, the code between barriers in a
/// loop over the warps (backend/warp_regions.cpp), with no fiber, rather than one warp per call
/// that waits in kern_rt_barrier on a fiber: it reaches __syncthreads itself in a loop around a
/// barrier with no loop inside it, calls no function and has no local slots other than direct
/// ones. The reasons are in analysis_structure.cpp.
bool runsBlockInRegions(const Function &f);

/// Whether statement `s` (a loop, say) reaches a __syncthreads() anywhere inside it.
bool reachesBarrier(const Stmt &s);

/// Whether `b` (may be null) holds a statement of kind `kind` anywhere inside it.
bool contains(const Block *b, StmtKind kind);

/// Whether `b` (may be null) calls a function anywhere inside it.
bool callsAnything(const Block *b);

/// Whether `e` is or holds __syncthreads_count, _and or _or (a barrier that is an expression).
bool countingBarrier(const Expr *e);

} // namespace kern::ir
