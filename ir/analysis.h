// Analyses of Kern IR that later stages and the runtime use: register estimates, uniformity.
#pragma once

#include "ir/ir.h"

#include <functional>
#include <set>

namespace kern::ir {

/// An estimate of the registers per thread that ptxas would give `kernel`, for the occupancy
/// calculation when the user gave none (--regs) (registers.cpp; docs/occupancy.md compares it
/// with ptxas). kern does not allocate registers, so it counts as ptxas's allocator would need
/// them: the peak, over the kernel's statements, of the 32-bit words of the values live across
/// the statement (a pointer to global memory or a 64-bit value 2, a shared pointer 1, a
/// predicate 0; a kernel parameter the body never assigns 0, as it stays in the constant bank)
/// plus the temporaries that evaluating the statement needs (with what nvcc's sequence for a
/// division, a math function, a shuffle or an aggregated atomic holds besides); calls not
/// inlined add their callee's peak, and a call through the ABI makes it kAbiCallRegisters.
/// kRegisterBase is added for what every kernel holds (the stack pointer, the thread index) and the
/// result is clamped to [kRegisterBase, 255].
int estimateRegisters(const Function &kernel);
constexpr int kRegisterBase = 6;
/// The registers of a kernel that calls through the ABI (printf, assert, device malloc, a
/// function pointer, a virtual call): ptxas (sm_90) gives such a kernel at least this many.
constexpr int kAbiCallRegisters = 24;

/// The functions that `f` calls directly.
void functionCallees(const Function &f, std::set<const Function *> &out);

/// Whether `a` and `b` are the same expression (the same operations on the same variables,
/// constants and objects; sites are not compared).
bool sameExpr(const Expr *a, const Expr *b);

/// The variables that the statements of `b`, nested blocks included, assign.
void assignedVars(const Block *b, std::set<const Var *> &out);

/// The variables that `e` reads.
void readVars(const Expr *e, std::set<const Var *> &out);

/// Calls `f` on each expression the statements of `b` and the blocks inside hold (values,
/// addresses, conditions, printf formats, arguments), in order; their operands are `f`'s.
void forEachExpr(const Block *b, const std::function<void(const Expr *)> &f);

/// The bytes of `f`'s local slots for one warp, as the warp backend lays them out (one copy per
/// lane, each slot at its alignment; a direct slot's copies interleaved by 32-bit words): the
/// bulk of the stack frame its code takes. The runtime and the call sites check that much fits
/// before a frame is entered (KernWarpCtx::stackLimit).
uint64_t warpFrameBytes(const Function &f);
/// The alignment of that frame: the largest of its slots' (at least 16).
uint64_t warpFrameAlign(const Function &f);

/// The largest frame (ir::warpFrameBytes, 32 lanes) that the warp backend places on the stack
/// that runs the warp: 32 KiB, 1 KiB per thread. A larger frame lives in the warp's local
/// memory instead (KernWarpCtx::localSp), as a GPU keeps local arrays in local memory, so its
/// size is bounded by the device's per-thread local memory, not by kern's stacks (a fiber has
/// 1 MiB). Frames up to the threshold stay on the stack, where LLVM can keep small arrays in
/// registers: such arrays (256 floats a thread, and below) are the common case, and the stack
/// of 1 MiB holds dozens of such frames with the registers a call spills.
constexpr uint64_t kStackFrameLimitBytes = 32 << 10;
/// Whether `f`'s local frame lives in the warp's local memory (kStackFrameLimitBytes).
bool frameInLocalMemory(const Function &f);

/// What a kernel's local variables need, from its call graph: a recursive function's frame is
/// counted once (and `recursive` set), as ptxas counts what it can know.
struct LocalMemoryNeed {
  /// The bytes of one thread's local variables on the deepest call path: the kernel's frame and
  /// its callees' (ir::warpFrameBytes / 32). The launch checks it against the device's limit.
  uint64_t bytesPerThread = 0;
  /// The bytes of warp local memory on the deepest path of frames that live there
  /// (frameInLocalMemory), 32 lanes, with each frame's alignment; 0 when none does.
  uint64_t regionBytesPerWarp = 0;
  /// A function on some path calls itself, directly or not: the depth, and so the memory, is
  /// known only when it runs.
  bool recursive = false;
  /// Some function it may call keeps its frame in local memory (regionBytesPerWarp > 0).
  bool usesLocalMemory = false;
};
LocalMemoryNeed localMemoryNeed(const Function &kernel);

/// Fills Expr::uniform and Var::uniform for every kernel and device function of `m`: whether
/// a value is the same in every active lane of a warp wherever it is read, so that the warp
/// backend can keep it in one scalar register instead of 32 lanes. Conservative: false when in
/// doubt. The rules, with a counter-example for each, are in analysis.cpp.
void analyzeUniformity(Module &m);

/// Fills LocalSlot::direct for every kernel and device function of `m`: true for a slot whose
/// address appears only as the base (through pointer additions and pointer casts) of the
/// address of loads and stores of the local space checked against that slot, accessing 1, 2,
/// 4, 8 or 16 bytes, naturally aligned where the offset is a constant. After inlining, this is
/// most local structs of C++ code (`this` and struct results become the slot's address).
void markDirectSlots(Module &m);

/// The lowest compute capability (major * 10 + minor) whose GPUs run `kernel`, from what it
/// uses that older generations lack (CUDA C Programming Guide, "Atomic Functions" and the
/// feature table of "Compute Capabilities"): 32-bit atomics on global memory need 1.1, on
/// shared memory and 64-bit global atomics 1.2, float atomicAdd 2.0, double atomicAdd 6.0.
/// 10 when it uses none of them. `why` names the first use that sets the figure.
int requiredComputeCapability(const Function &kernel, std::string &why);

} // namespace kern::ir
