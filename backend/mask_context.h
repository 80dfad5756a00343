// The sole owner of a warp function's execution mask: the only code that combines the
// function, if, loop, break, continue and return masks (after ISPC's FunctionEmitContext,
// src/ctx.h). Statement codegen says what happens (an if starts, lanes break...), this class
// says which lanes run.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <functional>
#include <string>
#include <vector>

namespace kern::backend {

/// Called where a branch's condition has been evaluated, before any side is entered: `mask`
/// the lanes that evaluated it, `taken` those for which it holds (both <32 x i1>). The
/// divergence counters hook in here.
using BranchHook = std::function<void(llvm::Value *mask, llvm::Value *taken)>;
/// Emitted where a side of an if runs for no lane and is skipped (its cost still counts: a
/// predicated side issues on the GPU with every lane's predicate off).
using SkipHook = std::function<void()>;

/// Masks are <32 x i1> (lane i = element i). Every mask lives in an alloca so that any block
/// can read it; mem2reg turns them back into SSA values.
///
/// The current mask is always: lanes that entered the function, minus returned lanes, minus
/// lanes of the innermost loop that broke or continued, intersected with the conditions of
/// the enclosing ifs. A region whose mask is empty is skipped by a real branch, as SIMT
/// hardware skips it; blending both sides would make the divergence counters lie.
class MaskContext {
public:
  /// `entryMask`: the lanes that run the function. The builder must be in the function.
  MaskContext(llvm::IRBuilder<> &b, llvm::Value *entryMask);

  /// The lanes executing at the builder's position.
  llvm::Value *currentMask();
  /// i1: some lane of `mask` is set.
  llvm::Value *any(llvm::Value *mask, const llvm::Twine &name = "any");
  /// The lanes that returned so far.
  llvm::Value *returnedMask();

  /// if (cond) ... : t = m & cond, e = m & ~cond; the then side runs only if any(t). Leaves
  /// the builder in the then side. `hasElse`: startElse() will be called. `thenSkipped`, if
  /// set, runs where the then side is skipped; `elseSkipped` where the else side is.
  void startIf(llvm::Value *cond, bool hasElse, const BranchHook &hook,
               const SkipHook &thenSkipped = {}, const SkipHook &elseSkipped = {});
  /// if (cond) with a uniform condition (a scalar i1): every active lane takes the same side,
  /// so a plain branch picks it and the mask stays as it is. Counted as startIf counts.
  void startUniformIf(llvm::Value *cond, bool hasElse, const BranchHook &hook,
                      const SkipHook &thenSkipped = {}, const SkipHook &elseSkipped = {});
  /// Leaves the then side; the else side runs only if any(e) (uniform: if cond was false).
  void startElse();
  /// Rejoins: the mask before the if, minus lanes that returned, broke or continued inside.
  /// `lanesMayLeave` false: no side can return, break or continue, so that is the mask
  /// before the if itself (said outright, so that LLVM sees the mask does not change).
  void endIf(bool lanesMayLeave = true);
  /// Starts a loop; leaves the builder at the top of an iteration (where preCond goes) with
  /// the lanes still in the loop. Exits when none is.
  /// `uniform`: a loop whose condition is uniform (a scalar i1) and that no lane can leave
  /// early (no break, continue or return of its own): every lane that enters stays until all
  /// leave together, so the loop is a plain scalar loop and the mask never changes in it.
  void startLoop(bool uniform = false);
  /// Evaluated loop condition: lanes where it is false leave the loop (as by break). Exits
  /// when no lane remains. Uniform loops: every lane goes the same way, and the hook sees the
  /// lanes that evaluated it as taken or as not taken, all of them.
  void loopTest(llvm::Value *cond, const BranchHook &hook);
  /// The continue target: lanes that continued rejoin here. Exits if no lane remains.
  void startStep();
  /// Closes the iteration: `backEdge` emits the back-edge work (the step counter), then jumps
  /// to the next iteration. Afterwards every lane that entered the loop and did not return
  /// runs again (broken lanes rejoin; after a uniform loop, the mask is the one before it).
  void endLoop(const std::function<void()> &backEdge);

  /// Runs `body` once for each lane of `mask` (<32 x i1>), lowest lane first, with the lane's
  /// index (i32), for work that goes lane by lane (printf's output order, the sequence of a
  /// warp's atomics). Leaves the builder after the loop; `name` prefixes its blocks' names.
  void forEachLane(llvm::Value *mask, const std::string &name,
                   const std::function<void(llvm::Value *lane)> &body);

  /// `break`: the current lanes leave the innermost loop until it exits.
  void breakLanes();
  /// `continue`: the current lanes skip to the innermost loop's step.
  void continueLanes();
  /// `return`: the current lanes are done with the function.
  void returnLanes();

  bool inLoop() const { return !loops_.empty(); }
  /// The builder is where the mask is the one the function started with: outside every if
  /// and loop that could have split it (uniform ones keep it), and before any lane returned.
  bool atEntryMask() const;

private:
  struct IfScope {
    llvm::Value *outer;         // mask before the if
    llvm::Value *elseMask;      // lanes whose condition was false
    llvm::BasicBlock *elseTest; // uniform: the else side itself
    llvm::BasicBlock *end;
    bool uniform;
    SkipHook elseSkipped;
  };
  struct LoopScope {
    llvm::Value *entry;              // mask of the lanes that entered the loop
    llvm::AllocaInst *breakLanes;    // null in a uniform loop: no lane leaves it early
    llvm::AllocaInst *continueLanes; // likewise
    llvm::BasicBlock *header, *step, *exit;
    bool uniform;
  };

  void setMask(llvm::Value *m);
  llvm::Value *noLanes();
  /// Lanes that left the current region: returned, and broke or continued in the innermost loop
  /// that lanes can leave early (a uniform loop has none that did).
  llvm::Value *leftLanes();
  /// The innermost loop that lanes can leave by break or continue (null: none).
  LoopScope *innermostMaskedLoop();
  llvm::BasicBlock *newBlock(const llvm::Twine &name);
  /// Where a skipped side goes: `next`, or with a hook a block that runs it and then goes
  /// there (the builder stays where it was).
  llvm::BasicBlock *skipped(const SkipHook &hook, llvm::BasicBlock *next, const char *name);

  llvm::IRBuilder<> &b_;
  llvm::AllocaInst *current_;
  llvm::AllocaInst *returned_;
  std::vector<IfScope> ifs_;
  std::vector<LoopScope> loops_;
  bool returnedAny_ = false; // a return was emitted: lanes may have left from here on
};

} // namespace kern::backend
