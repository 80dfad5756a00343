// The warp code generator's class, shared by its two source files: warp_codegen.cpp
// (functions, control flow, expressions) and warp_memory.cpp (the lowering of memory
// accesses, with their fault checks and counter hooks). Internal to the backend.
#pragma once

#include "backend/abi.h"
#include "backend/codegen_common.h"
#include "backend/mask_context.h"
#include "ir/instruction_mix.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace kern::backend::warp {

using llvm::BasicBlock;
using llvm::Type;
using llvm::Value;

// Byte offsets of KernWarpCtx fields (abi.h); the generated code addresses the struct by these.
enum CtxOffset : unsigned {
  kCtxParams = offsetof(KernWarpCtx, params),
  kCtxShared = offsetof(KernWarpCtx, shared),
  kCtxSharedSize = offsetof(KernWarpCtx, sharedSize),
  kCtxGlobalLo = offsetof(KernWarpCtx, globalLo),
  kCtxGlobalHi = offsetof(KernWarpCtx, globalHi),
  kCtxGridDim = offsetof(KernWarpCtx, gridDim),
  kCtxBlockDim = offsetof(KernWarpCtx, blockDim),
  kCtxBlockIdx = offsetof(KernWarpCtx, blockIdx),
  kCtxLiveMask = offsetof(KernWarpCtx, liveMask),
  kCtxFault = offsetof(KernWarpCtx, fault),
  kCtxSteps = offsetof(KernWarpCtx, steps),
  kCtxWarpId = offsetof(KernWarpCtx, warpId),
  kCtxThreadIdx = offsetof(KernWarpCtx, threadIdx),
  kCtxCounters = offsetof(KernWarpCtx, counters),
  kCtxCallDepth = offsetof(KernWarpCtx, callDepth),
  kCtxFinished = offsetof(KernWarpCtx, finished),
  kCtxShadow = offsetof(KernWarpCtx, shadow),
  kCtxDynamicShared = offsetof(KernWarpCtx, dynamicSharedOffset),
  kCtxStackLimit = offsetof(KernWarpCtx, stackLimit),
  kCtxClockInstr = offsetof(KernWarpCtx, clockInstr16),
  kCtxClockGlobal = offsetof(KernWarpCtx, clockGlobal16),
  kCtxClockShared = offsetof(KernWarpCtx, clockShared16),
  kCtxClockBarrier = offsetof(KernWarpCtx, clockBarrier16),
  kCtxBlockClock = offsetof(KernWarpCtx, blockClock),
  kCtxWaitSite = offsetof(KernWarpCtx, waitSite),
  kCtxWaitOp = offsetof(KernWarpCtx, waitOp),
  kCtxWaitPred = offsetof(KernWarpCtx, waitPred),
  kCtxBarrierInline = offsetof(KernWarpCtx, barrierInline),
  kCtxLocalSp = offsetof(KernWarpCtx, localSp),
  kCtxLocalLimit = offsetof(KernWarpCtx, localLimit),
  kCtxLocalTop = offsetof(KernWarpCtx, localTop),
  kCtxBlockSerial = offsetof(KernWarpCtx, blockSerial),
  kCtxPrefetch = offsetof(KernWarpCtx, prefetch),
};
// The KernCounterView and KernAccessMemo fields compiled code reads.
enum MemoOffset : unsigned {
  kViewSites = offsetof(KernCounterView, sites),
  kViewMemos = offsetof(KernCounterView, memos),
  kViewSampleLoads = offsetof(KernCounterView, sampleLoads),
  kViewTotals = offsetof(KernCounterView, totals),
  kViewSampleKeys = offsetof(KernCounterView, sampleKeys),
  kViewBatch = offsetof(KernCounterView, batch),
  kViewBatchCount = offsetof(KernCounterView, batchCount),
  kBatchOffsets = offsetof(KernBatchedAccess, offsets),
  kBatchKey = offsetof(KernBatchedAccess, key),
  kBatchSite = offsetof(KernBatchedAccess, site),
  kBatchMask = offsetof(KernBatchedAccess, mask),
  kBatchSize = offsetof(KernBatchedAccess, size),
  kBatchFlags = offsetof(KernBatchedAccess, flags),
  kMemoTag = offsetof(KernAccessMemo, tag),
  kMemoSampleKey = offsetof(KernAccessMemo, sampleKey),
  kMemoMask = offsetof(KernAccessMemo, mask),
  kMemoDelta = offsetof(KernAccessMemo, delta),
  kMemoPattern = offsetof(KernAccessMemo, pattern),
};

// The per-warp state a kernel keeps in its frame and hands to device functions by pointer.
enum WarpStateOffset : unsigned {
  kWarpLocalHi = 0,   // end of the kernel's local frame: generic pointers below it, down to the
                      // current function's frame, are this warp's local memory
  kWarpTicks = 8,     // clock(): the warp's modelled clock in 1/16 cycles (KernWarpCtx)
  kWarpBarriers = 16, // clock(): barriers the warp has passed (which of blockClock's two slots)
  kWarpStateBytes = 24,
};

enum class AccessOp : uint32_t {
  Load = KERN_ACCESS_LOAD,
  Store = KERN_ACCESS_STORE,
  Atomic = KERN_ACCESS_ATOMIC,
  Reduction = KERN_ACCESS_REDUCTION, ///< an atomic whose result is unused
};
inline bool isAtomic(AccessOp op) { return op == AccessOp::Atomic || op == AccessOp::Reduction; }

/// A warp-level memory operation before lowering (habit 2: one lowering point).
struct MemoryAccess {
  AccessOp op = AccessOp::Load;
  ir::AddrSpace space = ir::AddrSpace::Generic;
  ir::SiteId site = 0;
  ir::Type type;                       // the value's type (its size is the access size)
  Value *addrs = nullptr;              // <32 x i64>
  Value *value = nullptr;              // store value; atomic operand (compare value for CAS)
  Value *value2 = nullptr;             // CAS: new value
  ir::IntrinsicId atomic{};            // atomic operation
  uint32_t atomicForm = 0;             // KERN_ACCESS_ATOMIC_INC1, _CAS or _FLOAT (counters)
  const ir::LocalSlot *slot = nullptr; // Local: the slot the address points into, if known
  /// In a function shared by the sites of a kind of access (generalAccessFunction): the site,
  /// an i32 argument; `site` is then unused.
  Value *siteValue = nullptr;
  /// When the address is base + ext(index) x scale (a uniform pointer indexed by a varying
  /// 32-bit integer, as in a[i]): its parts, and `addrs` null until addressVector() builds it.
  /// The contiguous case is then recognised from the 32-bit indices alone.
  Value *affineBase = nullptr;  // i64 scalar
  Value *affineIndex = nullptr; // <32 x i32>
  bool affineSigned = false;
  uint64_t affineScale = 0;
  /// An address of several such terms (s[i][j]: base + ext(i) x 68 + ext(j) x 4): the terms,
  /// from which addressVector() builds the address, while affineIndex is their sum in units of
  /// affineScale (i x 17 + j) in 32 bits, signed, and affineExact says per lane that the sum is
  /// exact (no term too large). Null and empty for one term, whose index is always exact.
  struct Term {
    Value *index; // <32 x i32>
    bool isSigned;
    uint64_t scale;
  };
  std::vector<Term> terms;
  Value *affineExact = nullptr; // <32 x i1>
};

class WarpCodegen {
public:
  WarpCodegen(ModuleContext &mc, const ir::Function &f, llvm::Function *fn)
      : mc_(mc), f_(f), fn_(fn), c_(mc.llvm), b_(mc.llvm) {}
  void emit();
  /// The block form of a kernel of ModuleContext::blockLevelKernels: its statements that reach
  /// a barrier run once per block, those between barriers in a loop over the warps
  /// (warp_blocks.cpp).
  void emitWholeBlock(const ir::BlockLevelPlan &plan);
  /// Defines the general access functions of mc.accessKinds, exported (defineAccessFunctions).
  void defineAccessFunctions();

private:
  /// A shuffle's width (<32 x i32>): a power of two from 1 to 32, as CUDA requires; an active
  /// lane with another faults (KERN_FAULT_SHFL_WIDTH), and its width is taken as 32.
  Value *checkShuffleWidth(Value *width, ir::SiteId site);

  /// Checked mode: faults an active lane whose _sync member mask (`mask`, <32 x i32>) names
  /// a live lane that does not execute the call, or leaves the lane itself out (CUDA leaves both
  /// undefined; a GPU may hang). Nothing in the other modes.
  void checkSyncMask(Value *mask, ir::SiteId site);

  /// Faults the lanes of `mask` when `callee`'s frame would not fit on the warp's stack
  /// (KernWarpCtx::stackLimit): checked at the call, where the fault can still be reported.
  void checkCallStack(const ir::Function &callee, Value *mask, ir::SiteId site);
  /// Faults the lanes of `mask` when `callee`'s frame lives in local memory
  /// (ir::frameInLocalMemory) and does not fit in what is left of the warp's
  /// (KernWarpCtx::localLimit): KERN_FAULT_LOCAL_MEMORY, with the frame's bytes.
  /// `sp`: KernWarpCtx::localSp before the call (null: loaded here).
  void checkLocalMemory(const ir::Function &callee, Value *mask, ir::SiteId site,
                        Value *sp = nullptr);
  /// Lays out the function's local slots (slots_) and places its frame: on the stack, or, when
  /// it is too large for it (ir::frameInLocalMemory), in the warp's local memory. Sets localLo_
  /// and the windows of local memory a generic address may point into.
  void emitLocalFrame(bool isKernel);
  /// The windows of the warp's local memory (KernWarpCtx::localSp and localTop) as this
  /// function sees them, when the program keeps some frame there (ModuleContext::localMemory).
  void loadLocalMemoryWindow();
  /// Whether each lane's `size` bytes at `addrs` lie in this warp's local memory that a generic
  /// pointer may reach: the stack window [windowLo_, localHi_) or the local-memory window.
  Value *inLocalWindow(Value *addrs, unsigned size, const llvm::Twine &name);

  // ---- small helpers ----
  Type *vecTy(ir::Type t) { return warpVector(registerType(c_, t)); }
  Type *maskTy() { return warpVector(b_.getInt1Ty()); }
  Value *splat(Value *v, const llvm::Twine &name = "") {
    return b_.CreateVectorSplat(kWarpSize, v, name);
  }
  /// `v` as a <32 x T> vector: itself if it already is one, else a uniform scalar broadcast.
  Value *vec(Value *v) {
    if (!v || v->getType()->isVectorTy())
      return v;
    if (v->hasName())
      return splat(v, v->getName() + ".splat");
    return splat(v);
  }
  Value *bits(Value *mask, const llvm::Twine &name = "bits") {
    return b_.CreateBitCast(mask, b_.getInt32Ty(), name);
  }
  Value *laneIds() {
    std::vector<llvm::Constant *> ids;
    for (unsigned l = 0; l < kWarpSize; ++l)
      ids.push_back(b_.getInt32(l));
    return llvm::ConstantVector::get(ids);
  }
  /// The address `offset` bytes into the record at `p` (a field of an ABI struct).
  Value *byteAt(Value *p, uint64_t offset) {
    return b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), p, offset);
  }
  Value *ctxAddr(unsigned offset) { return byteAt(ctx_, offset); }
  Value *loadCtx(unsigned offset, Type *t, const llvm::Twine &name) {
    return b_.CreateLoad(t, ctxAddr(offset), name);
  }
  Value *cur() { return mask_->currentMask(); }
  /// nvcc's default (fmad): a multiply whose result feeds an add may be fused into one fma,
  /// rounded once (LLVM fuses such pairs where the CPU has fma, as NVVM does for the GPU).
  void allowContraction() {
    if (!mc_.options.fmad)
      return;
    llvm::FastMathFlags contract;
    contract.setAllowContract(true);
    b_.setFastMathFlags(contract);
  }
  /// The windows the address checks use, read from ctx_: fixed for the whole run of the warp
  /// (or the block: every warp's context holds the same).
  void loadAddressWindows() {
    Type *i64 = b_.getInt64Ty();
    sharedLo_ = b_.CreatePtrToInt(loadCtx(kCtxShared, b_.getPtrTy(), "shared"), i64, "shared.lo");
    sharedHi_ = b_.CreateAdd(sharedLo_, loadCtx(kCtxSharedSize, i64, "shared.size"), "shared.hi");
    globalLo_ = loadCtx(kCtxGlobalLo, i64, "global.lo");
    globalHi_ = loadCtx(kCtxGlobalHi, i64, "global.hi");
    shadow_ = loadCtx(kCtxShadow, b_.getPtrTy(), "shadow");
  }
  /// The warps of ctx_'s block (i32).
  Value *blockWarps() {
    Type *i32 = b_.getInt32Ty();
    Value *threads = b_.CreateMul(b_.CreateMul(loadCtx(kCtxBlockDim, i32, "block.x"),
                                               loadCtx(kCtxBlockDim + 4, i32, "block.y")),
                                  loadCtx(kCtxBlockDim + 8, i32, "block.z"), "block.threads");
    return b_.CreateLShr(b_.CreateAdd(threads, b_.getInt32(kWarpSize - 1)), 5, "block.warps");
  }
  BasicBlock *newBlock(const llvm::Twine &name) { return BasicBlock::Create(c_, name, fn_); }
  llvm::Function *runtime(RuntimeFunction f) { return mc_.runtimeFunction(f); }
  /// Branches to `then` if `cond`, marked as rare (faults, polls).
  void unlikelyBr(Value *cond, BasicBlock *then, BasicBlock *other) {
    llvm::MDBuilder md(c_);
    b_.CreateCondBr(cond, then, other, md.createBranchWeights(1, 1 << 20));
  }

  // ---- faults ----
  void faultIf(Value *bad, uint32_t kind, ir::SiteId site, Value *addrs);
  void faultWithKind(Value *bad, Value *kind, ir::SiteId site, Value *addrs) {
    faultWithKind(bad, kind, b_.getInt32(site), addrs);
  }
  void faultWithKind(Value *bad, Value *kind, Value *site, Value *addrs);
  /// The site of `a` as an i32 value.
  Value *siteOf(const MemoryAccess &a) { return a.siteValue ? a.siteValue : b_.getInt32(a.site); }
  /// KernWarpCtx's kern_warp_key: (block linear index << 16) | warp.
  Value *emitWarpKey();
  void returnIfFaulted();
  /// Adds one to the u64 counter at byte `field` of site `site`'s KernSiteCounters.
  void incrementSiteCounter(ir::SiteId site, size_t field);
  /// Adds `n` (i64) to the counter at `field` of `site` (KernSiteCounters): in a warp function,
  /// to the call's tally of it (siteTally); elsewhere to the site table, through counterView_
  /// (which must not be null where this runs).
  void addSiteCounter(ir::SiteId site, size_t field, Value *n);
  /// Adds `n` to the counter at byte `offset` of the site table (`site` an i32 value, `offset`
  /// within its KernSiteCounters): to a tally where the site is a constant and this function
  /// tallies, else to the table itself.
  void addSiteCounterAt(Value *site, size_t offset, Value *n);
  /// The call's tally of the site-table counter at byte `offset`: a slot that starts at 0 at
  /// the function's entry and is added to the table on every way out (flushTallies), so that a
  /// counter counted in a loop lives in a register, not in memory behind a pointer.
  llvm::AllocaInst *siteTally(uint64_t offset);
  /// Adds each tally to the site table (where a view is set).
  void flushTallies();
  /// Counters on: counterView_ from `ctx`, and the view's arrays (null without a view). The
  /// runtime sizes them for every site of the program when a launch begins and never moves
  /// them while it runs, so one load per call (per block, in regions) serves.
  void loadCounterView(Value *ctx);

  /// The variables' slots (vars_, scalarVars_), parameters with their values; the others
  /// start at 0, or only those of `zeroOnly` when it is given. `argIt`: a device function's
  /// first parameter argument.
  void emitVarSlots(bool isKernel, llvm::Function::arg_iterator argIt,
                    const std::set<const ir::Var *> *zeroOnly);

  // ---- statements ----
  void emitBlock(const ir::Block *blk);
  void emitStmt(const ir::Stmt &s);
  void emitLoop(const ir::Stmt &s);
  void emitPrintf(const ir::Stmt &s);
  /// A loop's back-edge: clock() ticks, and unless `poll` is false the runaway check.
  void emitBackEdge(ir::SiteId site, bool poll);
  /// Counts a branch at `site`: as a source-level branch (the hardware model's), as a branch
  /// instruction of the GPU's code (ir/branch_model.cpp), or both; empty if neither.
  BranchHook branchHook(ir::SiteId site, bool source, bool sass);
  /// The hook for the tests of loop `s` by its shape; `tests` counts them (countTest).
  BranchHook loopHook(const ir::Stmt &s, llvm::AllocaInst *tests);
  void countTest(llvm::AllocaInst *tests);
  /// `n` instructions, issued only on every `every`-th test of a loop (1: on each).
  void countEvery(llvm::AllocaInst *tests, unsigned every, const ir::InstrMix &mix);
  /// A loop whose branches depend on its trip count: counted when it ends.
  void countLoopEnd(const ir::Stmt &s, llvm::AllocaInst *tests);
  /// How loop `s` issues its test and step on the GPU: not at all once unrolled fully, once
  /// per `every` tests once unrolled by 4 or 16; `tests` counts its tests where the counters or
  /// the modelled clock need them (null elsewhere).
  struct LoopIssue {
    bool unrolled = false;
    unsigned every = 1;
    llvm::AllocaInst *tests = nullptr;
  };
  LoopIssue startLoopIssue(const ir::Stmt &s);
  /// One test of the loop's condition: counted, and its instructions (after emitCond).
  void countLoopTest(const ir::Stmt &s, const LoopIssue &issue);
  /// The instructions of the loop's step and its moving pointers (after the step's statements).
  void countLoopStep(const ir::Stmt &s, const LoopIssue &issue);
  /// A branch of the GPU's code that the current lanes execute and none of them leaves by: the
  /// jump over an else side, a division's or square root's slow-path check.
  void countJump(ir::SiteId site);
  /// The lanes an instruction issues for: the current mask, or inside a predicated if the
  /// mask at the if.
  Value *instrMask();
  /// What the GPU issues for a side of a predicated if, whose instructions all issue (under a
  /// predicate) even where no lane takes the side; a loop, which a predicated side never has,
  /// adds nothing.
  ir::InstrMix sideMix(const ir::Block *side) const;
  /// A predicated side no lane takes: its instructions, and its memory instructions as ones
  /// issued with no lane on (SiteCounters::idleAccesses).
  void countSkippedSide(const ir::Block *side);
  /// `n` instructions for the counters and, unless `clock` is false, the modelled clock.
  void countInstr(const ir::InstrMix &mix, bool clock = true);
  /// The local totals of countInstr, zeroed at entry; reported to the runtime at the exit.
  void startInstructions();
  void reportInstructions();
  /// The program calls clock(): compiled code keeps each warp's modelled clock.
  bool clockModel() const { return mc_.ir.readsClock; }
  /// Advances the warp's modelled clock by `n` times the context's figure at `ctxField`.
  void advanceClock(unsigned ctxField, unsigned n = 1);
  /// The warp's modelled clock around a barrier: its time joins the block's before it, and
  /// after it the warp takes the block's latest plus the barrier's cost.
  void clockBeforeBarrier();
  void clockAfterBarrier();
  Value *blockClockSlot();
  Value *emitCond(const ir::Expr *e);

  // ---- expressions ----
  /// A uniform expression's value is a scalar, a varying one's a <32 x T> vector.
  Value *emitExpr(const ir::Expr &e);
  /// emitExpr, broadcast to a vector: for consumers that need every lane's value.
  Value *emitVec(const ir::Expr &e) { return vec(emitExpr(e)); }
  Value *emitExprShape(const ir::Expr &e);
  /// An operand of `parent`: scalar when `parent` is computed as a scalar, else a vector.
  Value *operand(const ir::Expr &parent, const ir::Expr &op) {
    Value *v = emitExpr(op);
    return parent.uniform ? v : vec(v);
  }
  /// Whether `v` lives in a scalar slot (uniform); device function parameters arrive as
  /// vectors and stay vectors.
  bool scalarVar(const ir::Var *v) const { return scalarVars_.count(v) != 0; }
  Value *emitBuiltin(const ir::Expr &e);
  Value *emitCall(const ir::Expr &e);
  Value *emitWarpIntrinsic(const ir::Expr &e);
  /// The warp intrinsics that emitWarpIntrinsic leaves to warp_general.cpp (FnPtrFault).
  Value *emitOtherWarpIntrinsic(const ir::Expr &e);
  Value *emitShuffle(const ir::Expr &e, Value *v, Value *srcLane);
  Value *emitMemoryAccess(MemoryAccess a);
  /// A load (the value) or store (of `value`, evaluated after the address) of `type` at `addr`
  /// in a direct local slot (ir::LocalSlot::direct), whose lanes' copies are interleaved by
  /// words (warp_local.cpp).
  Value *emitDirectLocal(AccessOp op, const ir::Expr &addr, ir::Type type,
                         const ir::LocalSlot &slot, ir::SiteId site, const ir::Expr *value);
  /// Its checks and access at byte offset `off` (i64, or <32 x i64> per lane) under mask `m`.
  Value *directLocalAccess(AccessOp op, ir::Type type, const ir::LocalSlot &slot, ir::SiteId site,
                           Value *off, Value *stored, Value *m);
  /// Fills `a`'s address from the address expression `addr`: the affine parts when it has
  /// that form, else the address vector.
  void emitAddress(MemoryAccess &a, const ir::Expr &addr);
  /// The per-lane address vector of `a` (built from its affine parts where it has them).
  Value *addressVector(const MemoryAccess &a);
  Value *addressVectorOf(Value *base, Value *index, bool isSigned, uint64_t scale);
  Value *emitAtomicLanes(const MemoryAccess &a, Value *mask);
  Value *inRange(Value *addrs, Value *lo, Value *hi, unsigned size, const llvm::Twine &name);
  Value *inAllocation(Value *addrs, Value *inGlobal, Value *mask, unsigned size);
  Value *inOwnSlot(Value *addrs, const ir::LocalSlot *slot, unsigned size);
  struct AddressSummary {
    Value *min, *max, *bitsOr;
  };
  AddressSummary summarise(Value *addrs, Value *m);
  /// Prefetches (for a store: for writing) where a load or store whose lane 0 is at `lane0`
  /// will be in the next block, or two iterations on in a loop.
  void emitStridePrefetch(Value *lane0, unsigned size, bool inLoop, bool forWrite);
  /// __match_any_sync: each active lane's `laneMask` lanes whose `value` has its bits (u32).
  Value *emitMatchAny(Value *laneMask, Value *value);
  /// i1: every active lane's access of `size` bytes lies, aligned, in the block's shared memory.
  Value *sharedLanesOk(Value *addrs, Value *m, unsigned size);
  void emitLaneChecks(const MemoryAccess &a, Value *addrs, Value *m, Value *inShared,
                      Value *inLocal, unsigned size);
  void emitCountAccess(const MemoryAccess &a, Value *addrs, Value *m, Value *inShared,
                       Value *inLocal);
  /// `contiguous`: lane l's address is lane 0's plus l x size (KERN_ACCESS_CONTIGUOUS).
  void emitCheckAccess(const MemoryAccess &a, Value *addrs, Value *m, bool contiguous);
  Value *addressBuffer();
  Value *emitAccess(const MemoryAccess &a, Value *addrs, Value *m, const AddressSummary &sum);
  Value *emitGeneralAccess(const MemoryAccess &a, Value *addrs, Value *m);
  /// The function that performs the general path of accesses like `a` (same operation, type
  /// and space) for any site: (ctx, addrs, mask, site[, local window low, high][, value]) ->
  /// the loaded value, the window for generic accesses only (takesLocalWindow). Made once per
  /// program (warp_general.cpp). A fault it reports is seen by the caller in ctx->fault.
  llvm::Function *generalAccessFunction(const MemoryAccess &a);
  /// Whether the general access function of accesses to `space` takes the local window.
  static bool takesLocalWindow(ir::AddrSpace space);
  /// The body of one such function, into this code generator's own (empty) function.
  void emitGeneralAccessFunction(AccessOp op, ir::Type type, ir::AddrSpace space);
  /// Loads of the two 16-wide tile shapes, when the access has one; the values and their blocks
  /// (each branching to `doneBB`), the insertion point left where neither shape holds.
  /// Where the contiguous shape fails: a gather or scatter inline when every active lane lies,
  /// aligned, in one region; the loaded value and its block (none for a store). Leaves the
  /// insertion point where the checks fail.
  /// `addrs` may be null for an affine access (the 32-bit indices are enough in shared memory);
  /// it is built where a path needs it.
  std::optional<std::pair<Value *, BasicBlock *>>
  emitGatherAccess(const MemoryAccess &a, Value *&addrs, Value *m, BasicBlock *doneBB);
  /// Of an affine shared access: i1, every active lane's access lies, aligned, in the block's
  /// shared memory; and each lane's byte offset from the window's start (<32 x i32>).
  std::pair<Value *, Value *> sharedIndexLanes(const MemoryAccess &a, Value *m, unsigned size);
  /// The address of one (i32, uniform) index of affine access `a`: base + ext(index) x scale.
  Value *affineAddressOf(const MemoryAccess &a, Value *index, const llvm::Twine &name = "");
  /// Each lane's address from an affine access's combined index: right for every lane whose
  /// index is exact (all of them with one term).
  Value *affineAddresses(const MemoryAccess &a);
  /// i1: every active lane's affine index is exact (MemoryAccess::affineExact).
  Value *exactLanes(const MemoryAccess &a, Value *m);
  std::vector<std::pair<Value *, BasicBlock *>> emitHalfWarpLoads(const MemoryAccess &a,
                                                                  Value *addrs, Value *m,
                                                                  Value *mbits, BasicBlock *doneBB);
  Value *emitContiguousAccess(const MemoryAccess &a, Value *m, Value *base);
  /// Whether the warp's addresses [lo, end) lie in one region `space` may reach.
  /// `fast`: for the contiguous fast path, which may leave rare cases to the general one.
  Value *regionOk(ir::AddrSpace space, Value *lo, Value *end, bool fast = false);
  /// Counters of a global or shared access: from the memo when it knows the shape, else by a
  /// call. `contiguous`: the access is known to be lane l at lane 0's address + l x size.
  /// Checked mode's and the counters' hooks of one access, in that order. `lane0`: lane 0's
  /// address; `addrs` every lane's, or null to build them only where needed (then the access
  /// must be `contiguous`, or not global or shared).
  void emitHooks(const MemoryAccess &a, Value *m, Value *lane0, Value *addrs, bool contiguous);
  /// `lane0`: lane 0's address; `addrs` every lane's, or null to build them (addressVector)
  /// only where they are needed. Non-contiguous accesses must pass `addrs`.
  void emitCountMemo(const MemoryAccess &a, Value *lane0, Value *addrs, Value *m, bool contiguous);
  /// A shared access of a site op that batches: written into the view's batch (KernBatchedAccess),
  /// which the runtime costs when it is full.
  void emitBatchAccess(const MemoryAccess &a, Value *addrs, Value *mbits, uint32_t flags);

  ModuleContext &mc_;
  const ir::Function &f_;
  llvm::Function *fn_;
  llvm::LLVMContext &c_;
  Builder b_;
  std::unique_ptr<MaskContext> mask_;
  Value *ctx_ = nullptr;
  /// Counters on: this call's warp and thread instruction totals, added to the runtime's
  /// counters once at the function's exit instead of by a call per statement.
  /// Warp instructions by class (ir::InstrClass) and thread instructions, added up locally.
  std::array<llvm::AllocaInst *, ir::kInstrClasses> instrClass_{};
  llvm::AllocaInst *instrThread_ = nullptr;
  /// Counters on: this call's memory instructions issued with no lane on (countSkippedSide).
  llvm::AllocaInst *idleAccesses_ = nullptr;
  /// Counters on: this call's instructions for the ADU besides barriers and EXIT (InstrMix::adu).
  llvm::AllocaInst *aduReads_ = nullptr;
  Value *predicated_ = nullptr; // the mask at the outermost predicated if being emitted
  unsigned uncounted_ = 0;      // > 0: code the GPU does not execute (an unrolled loop's step)
  ir::KernelReads reads_;       // ir::kernelReads (kernels)
  /// Counters on: KernWarpCtx::counters (a KernCounterView, or null) and this warp's
  /// kern_warp_key, for the counting that needs no call.
  Value *counterView_ = nullptr, *warpKey_ = nullptr;
  /// The view's arrays (KernCounterView), loaded by loadCounterView.
  Value *viewSites_ = nullptr, *viewMemos_ = nullptr, *viewSampleLoads_ = nullptr;
  Value *viewTotals_ = nullptr, *viewSampleKeys_ = nullptr, *viewBatch_ = nullptr;
  /// siteTally's slots, by byte offset in the site table; tallying_: this function keeps them
  /// (a warp function, whose every way out flushes them).
  std::map<uint64_t, llvm::AllocaInst *> tallies_;
  bool tallying_ = false;
  /// Slots of a region kernel's whole block, not of one warp's turn: the instruction totals
  /// and the tallies, which every warp adds to and the block's end reports (finishRegions
  /// leaves them out of the warps' frames).
  std::set<llvm::AllocaInst *> blockSlots_;
  /// A kernel compiled to run a whole block per call (ir::runsBlockInRegions; warp_regions.cpp):
  /// phase after phase, each running every unfinished warp from where it waits to its next
  /// barrier or its end, in a loop over the warps inside the function. What a warp keeps
  /// across a barrier lives in its part of a per-block frame.
  struct Regions {
    /// Where a warp goes on, the first field of its part of the frame: kDone (it returned),
    /// kStart (the entry), or a barrier's resumption (2 and up).
    static constexpr uint32_t kDone = 0, kStart = 1;
    /// What a warp's turn ended with, for the phase's bookkeeping, besides a barrier's site:
    /// kFinished (it returned in this turn), kNoSite (anything else the runtime must look at:
    /// a warp judged by the runtime, finished before, or not started).
    static constexpr uint32_t kFinished = UINT32_MAX - 1, kNoSite = UINT32_MAX;
    Value *ctx0 = nullptr;          // warp 0's context; the others follow it
    Value *warps = nullptr;         // i32: the block's warps
    Value *inlineAllowed = nullptr; // i1: a warp whose every live lane arrives may do so inline
    Value *aloneInline = nullptr; // i1: ... and is alone in its block (KernWarpCtx::barrierInline)
    Value *frame = nullptr;       // this warp's part of the frame
    llvm::Instruction *stride = nullptr; // the bytes of one warp's part, fixed at the end
    BasicBlock *warpNext = nullptr;
    llvm::SwitchInst *resume = nullptr; // where each warp goes on (the first field)
    /// At the end of a warp's turn: the barrier where it arrived inline (or kFinished,
    /// kNoSite), and the lanes of its predicate there.
    llvm::PHINode *arrivedAt = nullptr, *arrivedPred = nullptr;
    /// Where the block ends (every warp done, or let go), left open for the counters' report.
    BasicBlock *done = nullptr;
    Value *blockKey = nullptr; // counters on: kern_warp_key of the block's warp 0
  };
  bool regions_ = false;
  Regions rg_;
  /// A kernel run by emitWholeBlock: its plan, warp 0's context, the block's warps, the
  /// per-block frame of the variables a warp keeps from one run of statements to another, and
  /// each such variable's offset in a warp's part of it (`frameStride` bytes).
  struct WholeBlock {
    const ir::BlockLevelPlan *plan = nullptr;
    Value *ctx0 = nullptr, *warps = nullptr, *frame = nullptr;
    uint64_t frameStride = 0;
    std::map<const ir::Var *, uint64_t> kept;
    std::set<const ir::Var *> readFirst; ///< variables that start as 0 (read before assigned)
    /// Counters on: the block's warps (i64), its threads (i64: the lanes of all its warps) and
    /// kern_warp_key of its warp 0.
    Value *warps64 = nullptr, *threads = nullptr, *blockKey = nullptr;
  };
  WholeBlock wb_;
  /// Emitting a block form's statements that run once per block: each counts what every warp
  /// of the block would, with every lane active (countInstr, branchHook, countLoopEnd).
  bool blockLevel_ = false;
  /// The statements of `b` (a block-level sequence): runs of statements for every warp in
  /// turn, and the statements that run once per block between them.
  void emitBlockSequence(const ir::Block *b);
  void emitOncePerBlock(const ir::Stmt &s);
  void emitWarpRun(const std::vector<const ir::Stmt *> &run);
  /// A loop over the block's warps around what `body` emits for warp `w` (an i32).
  void forEachWarp(const llvm::Twine &name, const std::function<void(Value *w)> &body);
  /// Builds the phase and warp loops and leaves the builder where a warp starts, with ctx_
  /// its context.
  void beginRegions();
  /// A barrier of such a kernel: arrive, end the warp's part of the phase (the next phase
  /// resumes it here), and on resumption go on (or return when the runtime set ctx->fault).
  /// `pred`/`op` as kern_rt_barrier_arrive.
  void emitRegionBarrier(ir::SiteId site, Value *mask, Value *pred, int32_t op);
  /// After the body: what lives across a barrier goes to the warp's part of the frame.
  void finishRegions();
  Value *warp_ = nullptr; // per-warp state (WarpStateOffset)
  Value *sharedLo_ = nullptr, *sharedHi_ = nullptr;
  Value *globalLo_ = nullptr, *globalHi_ = nullptr, *shadow_ = nullptr;
  Value *localLo_ = nullptr, *localHi_ = nullptr;
  /// The low end of this warp's local memory as a generic pointer may reach it: the stack
  /// pointer below this function's frame. (The frame's own address is not enough: once a
  /// device function is inlined, its slots and its callers' share one frame in any order.)
  Value *windowLo_ = nullptr;
  /// The warp's local memory as a generic pointer may reach it: from this function's frame (or
  /// its caller's, if it keeps none there) to the region's top. Null when the program keeps no
  /// frame there (ModuleContext::localMemory).
  Value *regionLo_ = nullptr, *regionHi_ = nullptr;
  /// A device function whose frame is in local memory: KernWarpCtx::localSp at its entry,
  /// restored at its exit.
  Value *callerLocalSp_ = nullptr;
  Value *frame_ = nullptr; // this function's local slots, 32 copies each
  /// Each slot's offset in the frame and the bytes between its lanes' copies (direct slots:
  /// the bytes of one copy, whose words are interleaved with the other lanes').
  std::map<const ir::LocalSlot *, std::pair<uint64_t, uint64_t>> slots_;
  std::map<const ir::Var *, llvm::AllocaInst *> vars_;
  std::set<const ir::Var *> scalarVars_;
  std::set<const ir::Stmt *> shortLoops_; // ir::shortLoops: back-edges without a poll
  bool tiled_ = true; // reads threadIdx.y or .z (or is a device function): 2-D tiles likely
  /// A kernel with no return: its lanes outside the live mask do not exist and never run, so
  /// where the mask is still the entry mask an assignment need not keep their old values.
  bool lanesNeverLeave_ = false;
  /// The loops around the code being emitted: kept loops, and loops LLVM unrolls fully.
  unsigned rolledLoops_ = 0, unrolledLoops_ = 0;
  unsigned prefetchSites_ = 0; // global loads given a slot of KernWarpCtx::prefetch so far
  llvm::AllocaInst *retval_ = nullptr;
  /// The expression an Eval statement is evaluating for its effect alone (an atomic there is
  /// a reduction).
  const ir::Expr *unusedResult_ = nullptr;
  llvm::AllocaInst *addrBuf_ = nullptr;
  BasicBlock *exit_ = nullptr;
};

} // namespace kern::backend::warp
