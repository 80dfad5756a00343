// Warp code generation: Kern IR kernels and device functions become LLVM functions that run a
// whole warp. Varying values are <32 x T>; structured control flow becomes mask arithmetic
// (mask_context); every memory access goes through emitMemoryAccess, the one place where the
// fault checks and the counter hooks are.
#include "backend/warp_codegen.h"

#include "backend/mask_context.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>

#include <map>
#include <memory>

namespace kern::backend {

using llvm::BasicBlock;
using llvm::Type;
using llvm::Value;

namespace {

// Byte offsets of KernWarpCtx fields (abi.h); the generated code addresses the struct by these.
enum CtxOffset : unsigned {
  kCtxParams = 0,
  kCtxShared = 8,
  kCtxSharedSize = 16,
  kCtxGlobalLo = 24,
  kCtxGlobalHi = 32,
  kCtxGridDim = 40,
  kCtxBlockDim = 52,
  kCtxBlockIdx = 64,
  kCtxLiveMask = 80,
  kCtxFault = 84,
  kCtxSteps = 88,
  kCtxThreadIdx = 96,
  kCtxCallDepth = 496,
  kCtxShadow = 504,
};
static_assert(offsetof(KernWarpCtx, shadow) == kCtxShadow);
static_assert(offsetof(KernWarpCtx, params) == kCtxParams);
static_assert(offsetof(KernWarpCtx, shared) == kCtxShared);
static_assert(offsetof(KernWarpCtx, sharedSize) == kCtxSharedSize);
static_assert(offsetof(KernWarpCtx, globalLo) == kCtxGlobalLo);
static_assert(offsetof(KernWarpCtx, globalHi) == kCtxGlobalHi);
static_assert(offsetof(KernWarpCtx, gridDim) == kCtxGridDim);
static_assert(offsetof(KernWarpCtx, blockDim) == kCtxBlockDim);
static_assert(offsetof(KernWarpCtx, blockIdx) == kCtxBlockIdx);
static_assert(offsetof(KernWarpCtx, liveMask) == kCtxLiveMask);
static_assert(offsetof(KernWarpCtx, fault) == kCtxFault);
static_assert(offsetof(KernWarpCtx, steps) == kCtxSteps);
static_assert(offsetof(KernWarpCtx, threadIdx) == kCtxThreadIdx);
static_assert(offsetof(KernWarpCtx, callDepth) == kCtxCallDepth);

// The per-warp state a kernel keeps in its frame and hands to device functions by pointer.
enum WarpStateOffset : unsigned {
  kWarpLocalHi = 0, // end of the kernel's local frame: generic pointers below it, down to the
                    // current function's frame, are this warp's local memory
  kWarpTicks = 8,   // clock(): a deterministic per-warp counter (see Clock below)
  kWarpStateBytes = 16,
};

enum class AccessOp : uint32_t {
  Load = KERN_ACCESS_LOAD,
  Store = KERN_ACCESS_STORE,
  Atomic = KERN_ACCESS_ATOMIC
};

/// A warp-level memory operation before lowering (habit 2: one lowering point).
struct MemoryAccess {
  AccessOp op = AccessOp::Load;
  ir::AddrSpace space = ir::AddrSpace::Generic;
  ir::SiteId site = 0;
  ir::Type type;            // the value's type (its size is the access size)
  Value *addrs = nullptr;   // <32 x i64>
  Value *value = nullptr;   // store value; atomic operand (compare value for CAS)
  Value *value2 = nullptr;  // CAS: new value
  ir::IntrinsicId atomic{}; // atomic operation
  const ir::LocalSlot *slot = nullptr; // Local: the slot the address points into, if known
};

unsigned countOps(const ir::Expr *e) {
  if (!e)
    return 0;
  unsigned n = 1;
  for (auto *o : e->ops)
    n += countOps(o);
  return n;
}

const ir::Block *nestedBlock(const ir::Stmt &s) { return s.body ? s.body : s.thenBody; }

/// Whether executing `s` can switch lanes off for the statements after it: a return anywhere,
/// a break or continue not inside a loop nested in `s`.
bool mayRemoveLanes(const ir::Block *b, int loopDepth);
bool mayRemoveLanes(const ir::Stmt &s, int loopDepth) {
  switch (s.kind) {
  case ir::StmtKind::Return:
    return true;
  case ir::StmtKind::Break:
  case ir::StmtKind::Continue:
    return loopDepth == 0;
  case ir::StmtKind::If:
    return mayRemoveLanes(s.thenBody, loopDepth) || mayRemoveLanes(s.elseBody, loopDepth);
  case ir::StmtKind::Loop:
    return mayRemoveLanes(s.preCond, loopDepth + 1) || mayRemoveLanes(s.body, loopDepth + 1) ||
           mayRemoveLanes(s.step, loopDepth + 1);
  case ir::StmtKind::Block:
    return mayRemoveLanes(nestedBlock(s), loopDepth);
  default:
    return false;
  }
}
bool mayRemoveLanes(const ir::Block *b, int loopDepth) {
  if (!b)
    return false;
  for (auto *s : b->stmts)
    if (mayRemoveLanes(*s, loopDepth))
      return true;
  return false;
}

class WarpCodegen {
public:
  WarpCodegen(ModuleContext &mc, const ir::Function &f, llvm::Function *fn)
      : mc_(mc), f_(f), fn_(fn), c_(mc.llvm), b_(mc.llvm) {}
  void emit();

private:
  // ---- small helpers ----
  Type *vecTy(ir::Type t) { return warpVector(registerType(c_, t)); }
  Type *maskTy() { return warpVector(b_.getInt1Ty()); }
  Value *splat(Value *v, const llvm::Twine &name = "") {
    return b_.CreateVectorSplat(kWarpSize, v, name);
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
  Value *ctxAddr(unsigned offset) {
    return b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), ctx_, offset);
  }
  Value *loadCtx(unsigned offset, Type *t, const llvm::Twine &name) {
    return b_.CreateLoad(t, ctxAddr(offset), name);
  }
  Value *cur() { return mask_->currentMask(); }
  BasicBlock *newBlock(const llvm::Twine &name) { return BasicBlock::Create(c_, name, fn_); }
  llvm::FunctionCallee runtime(const char *name, Type *ret, std::vector<Type *> params) {
    return mc_.externalFunction(name, llvm::FunctionType::get(ret, params, false));
  }
  /// Branches to `then` if `cond`, marked as rare (faults, polls).
  void unlikelyBr(Value *cond, BasicBlock *then, BasicBlock *other) {
    llvm::MDBuilder md(c_);
    b_.CreateCondBr(cond, then, other, md.createBranchWeights(1, 1 << 20));
  }

  // ---- faults ----
  void faultIf(Value *bad, uint32_t kind, ir::SiteId site, Value *addrs);
  void faultWithKind(Value *bad, Value *kind, ir::SiteId site, Value *addrs);
  void returnIfFaulted();

  // ---- statements ----
  void emitBlock(const ir::Block *blk);
  void emitStmt(const ir::Stmt &s);
  void emitLoop(const ir::Stmt &s);
  void emitPrintf(const ir::Stmt &s);
  void emitBackEdge(ir::SiteId site);
  BranchHook branchHook(ir::SiteId site, bool counted);
  void countInstr(unsigned n);
  Value *emitCond(const ir::Expr *e);

  // ---- expressions ----
  Value *emitExpr(const ir::Expr &e);
  Value *emitBuiltin(const ir::Expr &e);
  Value *emitCall(const ir::Expr &e);
  Value *emitWarpIntrinsic(const ir::Expr &e);
  Value *emitShuffle(const ir::Expr &e, Value *v, Value *srcLane);
  Value *emitMemoryAccess(const MemoryAccess &a);
  Value *emitAtomicLanes(const MemoryAccess &a, Value *mask);
  Value *inRange(Value *addrs, Value *lo, Value *hi, unsigned size, const llvm::Twine &name);
  Value *inAllocation(Value *addrs, Value *inGlobal, Value *mask, unsigned size);
  Value *inOwnSlot(Value *addrs, const ir::LocalSlot *slot, unsigned size);
  struct AddressSummary {
    Value *min, *max, *bitsOr;
  };
  AddressSummary summarise(Value *addrs, Value *m);
  void emitLaneChecks(const MemoryAccess &a, Value *addrs, Value *m, Value *inShared,
                      Value *inLocal, unsigned size);
  void emitCountAccess(const MemoryAccess &a, Value *addrs, Value *m, Value *inShared,
                       Value *inLocal);
  void emitCheckAccess(const MemoryAccess &a, Value *addrs, Value *m);
  Value *addressBuffer();
  Value *emitAccess(const MemoryAccess &a, Value *addrs, Value *m, const AddressSummary &sum);

  ModuleContext &mc_;
  const ir::Function &f_;
  llvm::Function *fn_;
  llvm::LLVMContext &c_;
  Builder b_;
  std::unique_ptr<MaskContext> mask_;
  Value *ctx_ = nullptr;
  Value *warp_ = nullptr; // per-warp state (WarpStateOffset)
  Value *sharedLo_ = nullptr, *sharedHi_ = nullptr;
  Value *globalLo_ = nullptr, *globalHi_ = nullptr, *shadow_ = nullptr;
  Value *localLo_ = nullptr, *localHi_ = nullptr;
  Value *frame_ = nullptr; // this function's local slots, 32 copies each
  std::map<const ir::LocalSlot *, std::pair<uint64_t, uint64_t>> slots_; // offset, lane stride
  std::map<const ir::Var *, llvm::AllocaInst *> vars_;
  llvm::AllocaInst *retval_ = nullptr;
  llvm::AllocaInst *addrBuf_ = nullptr;
  BasicBlock *exit_ = nullptr;
};

// ---- function ------------------------------------------------------------------------------

void WarpCodegen::emit() {
  bool isKernel = f_.kind == ir::FunctionKind::Kernel;
  auto *entry = BasicBlock::Create(c_, "entry", fn_);
  b_.SetInsertPoint(entry);
  auto argIt = fn_->arg_begin();
  ctx_ = &*argIt++;
  Value *entryMask;
  if (isKernel) {
    entryMask =
        b_.CreateBitCast(loadCtx(kCtxLiveMask, b_.getInt32Ty(), "live"), maskTy(), "live.mask");
  } else {
    entryMask = &*argIt++;
    warp_ = &*argIt++;
  }

  // Local slots: one frame per function, 32 copies of each slot so every lane's local address
  // is distinct (lane l's copy at base + l * stride), as each GPU thread has its own.
  uint64_t frameBytes = 0, frameAlign = 16;
  for (auto *slot : f_.slots) {
    uint64_t align = std::max<uint64_t>(slot->align, 1);
    uint64_t stride = (std::max<uint64_t>(slot->size, 1) + align - 1) / align * align;
    frameBytes = (frameBytes + align - 1) / align * align;
    slots_[slot] = {frameBytes, stride};
    frameBytes += stride * kWarpSize;
    frameAlign = std::max(frameAlign, align);
  }
  frameBytes = std::max<uint64_t>(frameBytes, 16);
  auto *frame =
      b_.CreateAlloca(llvm::ArrayType::get(b_.getInt8Ty(), frameBytes), nullptr, "local.frame");
  frame->setAlignment(llvm::Align(frameAlign));
  frame_ = frame;
  localLo_ = b_.CreatePtrToInt(frame_, b_.getInt64Ty(), "local.lo");
  if (isKernel) {
    auto *state = b_.CreateAlloca(llvm::ArrayType::get(b_.getInt8Ty(), kWarpStateBytes), nullptr,
                                  "warp.state");
    state->setAlignment(llvm::Align(8));
    warp_ = state;
    localHi_ = b_.CreateAdd(localLo_, b_.getInt64(frameBytes), "local.hi");
    b_.CreateStore(localHi_, warp_);
    b_.CreateStore(b_.getInt64(0),
                   b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), warp_, kWarpTicks));
  } else {
    localHi_ = b_.CreateLoad(b_.getInt64Ty(), warp_, "local.hi");
  }

  // The windows the address checks use; fixed for the whole run of the warp.
  sharedLo_ =
      b_.CreatePtrToInt(loadCtx(kCtxShared, b_.getPtrTy(), "shared"), b_.getInt64Ty(), "shared.lo");
  sharedHi_ =
      b_.CreateAdd(sharedLo_, loadCtx(kCtxSharedSize, b_.getInt64Ty(), "shared.size"), "shared.hi");
  globalLo_ = loadCtx(kCtxGlobalLo, b_.getInt64Ty(), "global.lo");
  globalHi_ = loadCtx(kCtxGlobalHi, b_.getInt64Ty(), "global.hi");
  shadow_ = loadCtx(kCtxShadow, b_.getPtrTy(), "shadow");

  mask_ = std::make_unique<MaskContext>(b_, entryMask);
  exit_ = BasicBlock::Create(c_, "fn.exit");

  if (!isKernel) {
    Value *depth = loadCtx(kCtxCallDepth, b_.getInt32Ty(), "call.depth");
    b_.CreateStore(b_.CreateAdd(depth, b_.getInt32(1)), ctxAddr(kCtxCallDepth));
  }

  // Variables: one <32 x T> slot each; parameters start with their argument, others with 0.
  Value *params = isKernel ? loadCtx(kCtxParams, b_.getPtrTy(), "params") : nullptr;
  for (auto *v : f_.vars) {
    auto *a = entryAlloca(b_, vecTy(v->type), v->name + ".addr");
    vars_[v] = a;
    b_.CreateStore(zeroValue(v->type, vecTy(v->type)), a);
  }
  for (size_t i = 0; i < f_.params.size(); ++i) {
    auto *v = f_.params[i];
    if (!vars_.count(v))
      vars_[v] = entryAlloca(b_, vecTy(v->type), v->name + ".addr");
    Value *init;
    if (isKernel) {
      if (i >= f_.paramOffsets.size()) {
        mc_.fail("internal error: kernel " + f_.name + " lacks parameter offsets");
        break;
      }
      // Kernel parameters are the same for every lane: one scalar load, splatted.
      Value *p = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), params, f_.paramOffsets[i]);
      if (v->aggregateBytes) {
        // A struct by value: the Var holds its address in the parameter buffer.
        init = splat(b_.CreatePtrToInt(p, b_.getInt64Ty()), v->name);
      } else {
        Value *s = b_.CreateAlignedLoad(memoryType(c_, v->type), p, llvm::Align(1), v->name);
        init = splat(fromMemory(b_, s, v->type), v->name);
      }
    } else {
      init = &*argIt++;
    }
    b_.CreateStore(init, vars_[v]);
  }
  if (!isKernel && !f_.returnType.isVoid()) {
    retval_ = entryAlloca(b_, vecTy(f_.returnType), "retval");
    b_.CreateStore(zeroValue(f_.returnType, vecTy(f_.returnType)), retval_);
  }

  emitBlock(f_.body);
  b_.CreateBr(exit_);

  exit_->insertInto(fn_);
  b_.SetInsertPoint(exit_);
  if (isKernel) {
    b_.CreateRetVoid();
    return;
  }
  Value *depth = loadCtx(kCtxCallDepth, b_.getInt32Ty(), "call.depth");
  b_.CreateStore(b_.CreateSub(depth, b_.getInt32(1)), ctxAddr(kCtxCallDepth));
  if (retval_)
    b_.CreateRet(b_.CreateLoad(retval_->getAllocatedType(), retval_, "ret"));
  else
    b_.CreateRetVoid();
}

// ---- faults --------------------------------------------------------------------------------

void WarpCodegen::faultWithKind(Value *bad, Value *kind, ir::SiteId site, Value *addrs) {
  auto *faultBB = newBlock("fault");
  auto *okBB = newBlock("fault.none");
  Value *badBits = bits(bad, "bad.bits");
  unlikelyBr(b_.CreateICmpNE(badBits, b_.getInt32(0)), faultBB, okBB);
  b_.SetInsertPoint(faultBB);
  // The first faulting lane is reported, as cuda-memcheck reports one thread per fault.
  Value *lane =
      b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, badBits, b_.getTrue(), nullptr, "fault.lane");
  Value *addr = addrs ? b_.CreateExtractElement(addrs, lane, "fault.addr") : b_.getInt64(0);
  if (!kind->getType()->isIntegerTy(32))
    kind = b_.CreateExtractElement(kind, lane, "fault.kind");
  Type *i32 = b_.getInt32Ty();
  b_.CreateCall(
      runtime("kern_rt_fault", b_.getVoidTy(), {b_.getPtrTy(), i32, i32, i32, b_.getInt64Ty()}),
      {ctx_, b_.getInt32(site), kind, lane, addr});
  // The warp stops at its first fault: no later instruction of any lane runs.
  b_.CreateBr(exit_);
  b_.SetInsertPoint(okBB);
}

void WarpCodegen::faultIf(Value *bad, uint32_t kind, ir::SiteId site, Value *addrs) {
  faultWithKind(bad, b_.getInt32(kind), site, addrs);
}

void WarpCodegen::returnIfFaulted() {
  auto *okBB = newBlock("no.fault");
  Value *fault = loadCtx(kCtxFault, b_.getInt32Ty(), "fault");
  unlikelyBr(b_.CreateICmpNE(fault, b_.getInt32(0), "faulted"), exit_, okBB);
  b_.SetInsertPoint(okBB);
}

// ---- statements ----------------------------------------------------------------------------

void WarpCodegen::emitBlock(const ir::Block *blk) {
  if (!blk)
    return;
  std::vector<BasicBlock *> skips;
  for (size_t i = 0; i < blk->stmts.size(); ++i) {
    const ir::Stmt &s = *blk->stmts[i];
    emitStmt(s);
    // Statements after break/continue/return in the same block run for no lane.
    if (s.kind == ir::StmtKind::Break || s.kind == ir::StmtKind::Continue ||
        s.kind == ir::StmtKind::Return)
      break;
    // After a statement that may switch every lane off (an if whose lanes all returned or
    // broke), the rest of the block is skipped, as the hardware does: no instruction issues
    // with an empty mask, so none is counted.
    if (i + 1 < blk->stmts.size() && mayRemoveLanes(s, 0)) {
      auto *rest = newBlock("block.rest");
      auto *skip = newBlock("block.skip");
      b_.CreateCondBr(mask_->any(cur(), "block.any"), rest, skip);
      b_.SetInsertPoint(rest);
      skips.push_back(skip);
    }
  }
  for (auto it = skips.rbegin(); it != skips.rend(); ++it) {
    b_.CreateBr(*it);
    b_.SetInsertPoint(*it);
  }
}

BranchHook WarpCodegen::branchHook(ir::SiteId site, bool counted) {
  if (!mc_.options.counters || !counted)
    return {};
  return [this, site](Value *m, Value *taken) {
    Type *i32 = b_.getInt32Ty();
    b_.CreateCall(runtime("kern_rt_count_branch", b_.getVoidTy(), {b_.getPtrTy(), i32, i32, i32}),
                  {ctx_, b_.getInt32(site), bits(m, "branch.mask"), bits(taken, "branch.taken")});
  };
}

void WarpCodegen::countInstr(unsigned n) {
  if (!mc_.options.counters || n == 0)
    return;
  Type *i32 = b_.getInt32Ty();
  Value *active = b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, bits(cur()), nullptr, "active");
  b_.CreateCall(runtime("kern_rt_count_instr", b_.getVoidTy(), {b_.getPtrTy(), i32, i32}),
                {ctx_, b_.getInt32(n), active});
}

Value *WarpCodegen::emitCond(const ir::Expr *e) {
  Value *c = emitExpr(*e);
  if (!e->type.isBool())
    c = emitCast(b_, c, e->type, ir::Type::boolTy());
  return c;
}

void WarpCodegen::emitStmt(const ir::Stmt &s) {
  using ir::StmtKind;
  switch (s.kind) {
  case StmtKind::Block:
    emitBlock(nestedBlock(s));
    return;
  case StmtKind::Assign: {
    countInstr(1 + countOps(s.value));
    Value *v = emitExpr(*s.value);
    auto *slot = vars_[s.var];
    if (!slot) {
      mc_.fail("internal error: assignment to unknown variable " + s.var->name);
      return;
    }
    // Only active lanes change their copy of the variable.
    Value *old = b_.CreateLoad(slot->getAllocatedType(), slot, s.var->name);
    b_.CreateStore(b_.CreateSelect(cur(), v, old, s.var->name), slot);
    return;
  }
  case StmtKind::Store: {
    countInstr(1 + countOps(s.addr) + countOps(s.value));
    MemoryAccess a;
    a.op = AccessOp::Store;
    a.space = s.space;
    a.site = s.site;
    a.type = s.value->type;
    a.slot = s.slot;
    a.addrs = emitExpr(*s.addr);
    a.value = emitExpr(*s.value);
    emitMemoryAccess(a);
    return;
  }
  case StmtKind::If: {
    countInstr(1 + countOps(s.cond));
    Value *c = emitCond(s.cond);
    mask_->startIf(c, s.elseBody != nullptr, branchHook(s.site, s.isBranch));
    emitBlock(s.thenBody);
    if (s.elseBody) {
      mask_->startElse();
      emitBlock(s.elseBody);
    }
    mask_->endIf();
    return;
  }
  case StmtKind::Loop:
    emitLoop(s);
    return;
  case StmtKind::Break:
    if (!mask_->inLoop()) {
      mc_.fail("internal error: break outside a loop in " + f_.name);
      return;
    }
    mask_->breakLanes();
    return;
  case StmtKind::Continue:
    if (!mask_->inLoop()) {
      mc_.fail("internal error: continue outside a loop in " + f_.name);
      return;
    }
    mask_->continueLanes();
    return;
  case StmtKind::Return:
    countInstr(1 + countOps(s.value));
    if (s.value && retval_) {
      Value *v = emitExpr(*s.value);
      Value *old = b_.CreateLoad(retval_->getAllocatedType(), retval_, "retval");
      b_.CreateStore(b_.CreateSelect(cur(), v, old, "retval"), retval_);
    } else if (s.value) {
      emitExpr(*s.value);
    }
    mask_->returnLanes();
    return;
  case StmtKind::Eval:
    countInstr(countOps(s.value));
    if (s.value)
      emitExpr(*s.value);
    return;
  case StmtKind::Printf:
    countInstr(1);
    emitPrintf(s);
    return;
  case StmtKind::Barrier: {
    countInstr(1);
    Type *i32 = b_.getInt32Ty();
    b_.CreateCall(runtime("kern_rt_barrier", b_.getVoidTy(), {b_.getPtrTy(), i32, i32}),
                  {ctx_, b_.getInt32(s.site), bits(cur(), "barrier.mask")});
    returnIfFaulted();
    return;
  }
  case StmtKind::Launch:
    mc_.fail("internal error: kernel launch inside kernel code (" + f_.name + ")");
    return;
  }
}

void WarpCodegen::emitLoop(const ir::Stmt &s) {
  auto test = [&] {
    if (!s.cond)
      return;
    countInstr(1 + countOps(s.cond));
    Value *c = emitCond(s.cond);
    // Each evaluation of the loop condition is a branch at the loop's site.
    mask_->loopTest(c, branchHook(s.site, true));
  };
  mask_->startLoop();
  if (s.testFirst) {
    emitBlock(s.preCond);
    test();
  }
  emitBlock(s.body);
  mask_->startStep();
  emitBlock(s.step);
  if (!s.testFirst) {
    // preCond holds the statements that compute the condition: before its every test.
    emitBlock(s.preCond);
    test();
  }
  mask_->endLoop([&] { emitBackEdge(s.site); });
}

void WarpCodegen::emitBackEdge(ir::SiteId site) {
  // clock() ticks once per back-edge, so a spin on clock() advances.
  Value *ticksAddr = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), warp_, kWarpTicks);
  Value *ticks = b_.CreateLoad(b_.getInt64Ty(), ticksAddr, "ticks");
  b_.CreateStore(b_.CreateAdd(ticks, b_.getInt64(1)), ticksAddr);
  // Runaway kernels: count back-edges down; the runtime decides at zero (abi.h kern_rt_poll).
  Value *steps =
      b_.CreateSub(loadCtx(kCtxSteps, b_.getInt64Ty(), "steps"), b_.getInt64(1), "steps.left");
  b_.CreateStore(steps, ctxAddr(kCtxSteps));
  auto *pollBB = newBlock("loop.poll");
  auto *goBB = newBlock("loop.backedge");
  unlikelyBr(b_.CreateICmpSLT(steps, b_.getInt64(0)), pollBB, goBB);
  b_.SetInsertPoint(pollBB);
  Value *stop =
      b_.CreateCall(runtime("kern_rt_poll", b_.getInt32Ty(), {b_.getPtrTy(), b_.getInt32Ty()}),
                    {ctx_, b_.getInt32(site)}, "poll");
  b_.CreateCondBr(b_.CreateICmpNE(stop, b_.getInt32(0)), exit_, goBB);
  b_.SetInsertPoint(goBB);
}

void WarpCodegen::emitPrintf(const ir::Stmt &s) {
  std::vector<Value *> args;
  for (auto *a : s.args)
    args.push_back(emitExpr(*a));
  Value *fmt = mc_.stringConstant(s.text);
  Type *i32 = b_.getInt32Ty();
  auto *bufTy = llvm::ArrayType::get(b_.getInt64Ty(), std::max<size_t>(args.size(), 1));
  auto *buf = entryAlloca(b_, bufTy, "printf.args", 8);
  auto kprintf = runtime("kern_rt_kprintf", b_.getVoidTy(),
                         {b_.getPtrTy(), i32, b_.getPtrTy(), i32, b_.getPtrTy()});
  // One call per active lane in lane order: the runtime's output order is block, warp, lane.
  auto *pre = b_.GetInsertBlock();
  Value *laneBits = bits(cur(), "printf.lanes");
  auto *loop = newBlock("printf.lane");
  auto *done = newBlock("printf.done");
  b_.CreateCondBr(b_.CreateICmpNE(laneBits, b_.getInt32(0)), loop, done);
  b_.SetInsertPoint(loop);
  auto *rem = b_.CreatePHI(i32, 2, "lanes.left");
  rem->addIncoming(laneBits, pre);
  Value *lane = b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, rem, b_.getTrue(), nullptr, "lane");
  for (size_t i = 0; i < args.size(); ++i) {
    Value *v = b_.CreateExtractElement(args[i], lane);
    b_.CreateStore(promoteVarArg(b_, v, s.args[i]->type),
                   b_.CreateConstInBoundsGEP2_64(bufTy, buf, 0, i));
  }
  b_.CreateCall(kprintf, {ctx_, lane, fmt, b_.getInt32(args.size()), buf});
  Value *next = b_.CreateAnd(rem, b_.CreateSub(rem, b_.getInt32(1)), "lanes.next");
  rem->addIncoming(next, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpNE(next, b_.getInt32(0)), loop, done);
  b_.SetInsertPoint(done);
}

// ---- memory --------------------------------------------------------------------------------

Value *WarpCodegen::inRange(Value *addrs, Value *lo, Value *hi, unsigned size,
                            const llvm::Twine &name) {
  Value *end = b_.CreateAdd(addrs, splat(b_.getInt64(size)));
  Value *ok = b_.CreateAnd(b_.CreateICmpUGE(addrs, splat(lo)), b_.CreateICmpULT(addrs, splat(hi)));
  return b_.CreateAnd(ok, b_.CreateICmpULE(end, splat(hi)), name);
}

// Inside the device region is not enough: the access must lie inside a live allocation, or
// an overrun into the gap after a buffer (or into a freed one) would go unnoticed. The shadow
// map gives, per 256-byte granule, the end address of the allocation covering it (0 if none);
// cudaMalloc aligns to 256, so the granule of an address names its allocation.
Value *WarpCodegen::inAllocation(Value *addrs, Value *inGlobal, Value *mask, unsigned size) {
  Type *i64v = warpVector(b_.getInt64Ty());
  Value *off = b_.CreateSub(addrs, splat(globalLo_), "global.off");
  Value *granule = b_.CreateLShr(off, llvm::ConstantInt::get(i64v, 8), "shadow.index");
  Value *ptrs = b_.CreateGEP(b_.getInt64Ty(), shadow_, granule, "shadow.ptrs");
  Value *lanes = b_.CreateAnd(mask, inGlobal, "shadow.lanes");
  Value *ends = b_.CreateMaskedGather(i64v, ptrs, llvm::Align(8), lanes,
                                      llvm::Constant::getNullValue(i64v), "alloc.end");
  Value *last = b_.CreateAdd(addrs, llvm::ConstantInt::get(i64v, size), "access.end");
  Value *fits = b_.CreateICmpULE(last, ends, "in.allocation");
  return b_.CreateAnd(inGlobal, fits, "in.global.live");
}

/// Each lane inside its own copy of `slot` (lane l's copy at frame + offset + l * stride).
Value *WarpCodegen::inOwnSlot(Value *addrs, const ir::LocalSlot *slot, unsigned size) {
  auto it = slots_.find(slot);
  if (it == slots_.end())
    return llvm::Constant::getAllOnesValue(maskTy());
  Type *i64v = warpVector(b_.getInt64Ty());
  Value *base = b_.CreateAdd(localLo_, b_.getInt64(it->second.first), "slot.base");
  Value *laneBase = b_.CreateAdd(
      splat(base),
      b_.CreateMul(b_.CreateZExt(laneIds(), i64v), splat(b_.getInt64(it->second.second))),
      "slot.lane.base");
  Value *lastOk = b_.CreateAdd(laneBase, splat(b_.getInt64(slot->size)), "slot.lane.end");
  Value *end = b_.CreateAdd(addrs, llvm::ConstantInt::get(i64v, size));
  return b_.CreateAnd(b_.CreateICmpUGE(addrs, laneBase), b_.CreateICmpULE(end, lastOk),
                      "in.slot");
}

/// The smallest, largest and OR of the active lanes' addresses: enough to check a whole warp
/// access at once when it stays inside one region, which is nearly always.
WarpCodegen::AddressSummary WarpCodegen::summarise(Value *addrs, Value *m) {
  Type *i64v = warpVector(b_.getInt64Ty());
  AddressSummary r;
  r.min = b_.CreateUnaryIntrinsic(
      llvm::Intrinsic::vector_reduce_umin,
      b_.CreateSelect(m, addrs, llvm::Constant::getAllOnesValue(i64v)), nullptr, "addr.min");
  Value *zero = llvm::Constant::getNullValue(i64v);
  r.max = b_.CreateUnaryIntrinsic(llvm::Intrinsic::vector_reduce_umax,
                                  b_.CreateSelect(m, addrs, zero), nullptr, "addr.max");
  r.bitsOr = b_.CreateUnaryIntrinsic(llvm::Intrinsic::vector_reduce_or,
                                     b_.CreateSelect(m, addrs, zero), nullptr, "addr.or");
  return r;
}

void WarpCodegen::emitLaneChecks(const MemoryAccess &a, Value *addrs, Value *m,
                                 Value *inShared, Value *inLocal, unsigned size) {
  using ir::AddrSpace;
  Type *i64v = warpVector(b_.getInt64Ty());
  // In CUDA's order of precedence: null, then the address space window, then alignment.
  Value *isNull = b_.CreateICmpULT(addrs, llvm::ConstantInt::get(i64v, kNullPageSize), "is.null");
  Value *inDevice = inRange(addrs, globalLo_, globalHi_, size, "in.device");
  Value *inGlobal = inAllocation(addrs, inDevice, m, size);
  Value *ok = nullptr;
  uint32_t rangeFault = KERN_FAULT_HOST_PTR;
  switch (a.space) {
  case AddrSpace::Global:
  case AddrSpace::Constant: // constant memory lives in the device range too
    ok = b_.CreateOr(inGlobal, inShared);
    break;
  case AddrSpace::Shared:
    ok = inShared;
    rangeFault = KERN_FAULT_SHARED_OOB;
    break;
  case AddrSpace::Local: // this lane's copy of the slot, when the lowering knows the slot
    ok = a.slot ? inOwnSlot(addrs, a.slot, size) : llvm::Constant::getAllOnesValue(maskTy());
    rangeFault = KERN_FAULT_LOCAL_OOB;
    break;
  case AddrSpace::Generic:
  case AddrSpace::Host:
    ok = b_.CreateOr(b_.CreateOr(inGlobal, inShared), inLocal);
    break;
  }
  Value *notNull = b_.CreateNot(isNull);
  Value *badNull = b_.CreateAnd(m, isNull, "bad.null");
  Value *badRange = b_.CreateAnd(b_.CreateAnd(m, notNull), b_.CreateNot(ok), "bad.range");
  Value *bad = b_.CreateOr(badNull, badRange);
  if (size > 1) {
    Value *mis = b_.CreateICmpNE(b_.CreateAnd(addrs, llvm::ConstantInt::get(i64v, size - 1)),
                                 llvm::Constant::getNullValue(i64v), "misaligned");
    Value *badAlign = b_.CreateAnd(b_.CreateAnd(b_.CreateAnd(m, notNull), ok), mis, "bad.align");
    bad = b_.CreateOr(bad, badAlign, "bad");
  }
  Type *i32v = warpVector(b_.getInt32Ty());
  Value *kinds = b_.CreateSelect(
      isNull, llvm::ConstantInt::get(i32v, KERN_FAULT_NULL),
      b_.CreateSelect(ok, llvm::ConstantInt::get(i32v, KERN_FAULT_MISALIGNED),
                      b_.CreateSelect(inDevice, llvm::ConstantInt::get(i32v, KERN_FAULT_GLOBAL_OOB),
                                      llvm::ConstantInt::get(i32v, rangeFault))),
      "fault.kinds");
  faultWithKind(bad, kinds, a.site, addrs);
}

Value *WarpCodegen::emitMemoryAccess(const MemoryAccess &a) {
  using ir::AddrSpace;
  Value *m = cur();
  unsigned size = a.type.bytes();
  Type *i64 = b_.getInt64Ty();
  Value *addrs = a.addrs;
  if (a.space == AddrSpace::Local) {
    // This thread's own frame: only the variable's bounds need checking (and only when the
    // lowering knows the variable); no shape analysis, no counters' region guess.
    if (a.slot) {
      Value *ok = b_.CreateUnaryIntrinsic(
          llvm::Intrinsic::vector_reduce_and,
          b_.CreateOr(inOwnSlot(addrs, a.slot, size), b_.CreateNot(m)), nullptr, "local.ok");
      auto *slowBB = newBlock("local.check");
      auto *contBB = newBlock("local.checked");
      b_.CreateCondBr(ok, contBB, slowBB);
      b_.SetInsertPoint(slowBB);
      Value *inShared = inRange(addrs, sharedLo_, sharedHi_, size, "in.shared");
      Value *inLocal = inRange(addrs, localLo_, localHi_, size, "in.local");
      emitLaneChecks(a, addrs, m, inShared, inLocal, size);
      b_.CreateBr(contBB);
      b_.SetInsertPoint(contBB);
    }
    if (mc_.options.counters)
      emitCountAccess(a, addrs, m, nullptr, nullptr);
    return emitAccess(a, addrs, m, AddressSummary{nullptr, nullptr, nullptr});
  }
  AddressSummary sum = summarise(addrs, m);
  Value *inShared = inRange(addrs, sharedLo_, sharedHi_, size, "in.shared");
  Value *inLocal = inRange(addrs, localLo_, localHi_, size, "in.local");

  // 1. Checks. The fast path checks the whole warp from the summary: not null, aligned, and
  // every active lane inside one region (one allocation, the block's shared memory, or this
  // warp's local frame). Only when that fails does the slow path check each lane, to find and
  // report the first bad one. A generic pointer may reach shared memory, so a "global" access
  // landing in the block's shared window is allowed (the front end could not tell).
  {
    Value *maxEnd = b_.CreateAdd(sum.max, b_.getInt64(size), "addr.end");
    Value *aligned = size > 1 ? b_.CreateICmpEQ(b_.CreateAnd(sum.bitsOr, b_.getInt64(size - 1)),
                                                b_.getInt64(0), "aligned")
                              : b_.getTrue();
    Value *notNull = b_.CreateICmpUGE(sum.min, b_.getInt64(kNullPageSize), "not.null");
    auto within = [&](Value *lo, Value *hi, const char *name) {
      return b_.CreateAnd(b_.CreateICmpUGE(sum.min, lo), b_.CreateICmpULE(maxEnd, hi), name);
    };
    Value *shOk = within(sharedLo_, sharedHi_, "warp.in.shared");
    Value *locOk = within(localLo_, localHi_, "warp.in.local");
    Value *inDev = b_.CreateAnd(b_.CreateICmpUGE(sum.min, globalLo_),
                                b_.CreateICmpULT(sum.min, globalHi_), "warp.in.device");
    Value *idx = b_.CreateSelect(
        inDev, b_.CreateLShr(b_.CreateSub(sum.min, globalLo_), b_.getInt64(8)), b_.getInt64(0));
    Value *end = b_.CreateAlignedLoad(i64, b_.CreateGEP(i64, shadow_, idx), llvm::Align(8),
                                      "warp.alloc.end");
    Value *glOk = b_.CreateAnd(inDev, b_.CreateICmpULE(maxEnd, end), "warp.in.allocation");
    Value *regionOk;
    switch (a.space) {
    case AddrSpace::Global:
    case AddrSpace::Constant:
      regionOk = b_.CreateOr(glOk, shOk);
      break;
    case AddrSpace::Shared:
      regionOk = shOk;
      break;
    case AddrSpace::Local:
      // A local array indexed past its end must fault, not reach a neighbour's copy.
      regionOk = b_.getTrue();
      if (a.slot)
        regionOk = b_.CreateUnaryIntrinsic(
            llvm::Intrinsic::vector_reduce_and,
            b_.CreateOr(inOwnSlot(addrs, a.slot, size), b_.CreateNot(m)), nullptr, "warp.in.slot");
      break;
    default:
      regionOk = b_.CreateOr(b_.CreateOr(glOk, shOk), locOk);
      break;
    }
    Value *none = b_.CreateICmpEQ(bits(m), b_.getInt32(0), "no.lanes");
    Value *fastOk =
        b_.CreateOr(none, b_.CreateAnd(b_.CreateAnd(notNull, aligned), regionOk), "checks.ok");
    auto *slowBB = newBlock("checks.slow");
    auto *contBB = newBlock("checks.done");
    b_.CreateCondBr(fastOk, contBB, slowBB);
    b_.SetInsertPoint(slowBB);
    emitLaneChecks(a, addrs, m, inShared, inLocal, size);
    b_.CreateBr(contBB);
    b_.SetInsertPoint(contBB);
  }

  // 2. Checked mode (local and constant memory can neither race nor be unwritten device
  // memory), then counters: all 32 addresses in hand at once, as the coalescer and the banks
  // see them.
  if (mc_.options.checked && a.space != AddrSpace::Constant)
    emitCheckAccess(a, addrs, m);
  if (mc_.options.counters)
    emitCountAccess(a, addrs, m, inShared, inLocal);
  return emitAccess(a, addrs, m, sum);
}

void WarpCodegen::emitCountAccess(const MemoryAccess &a, Value *addrs, Value *m, Value *inShared,
                                  Value *inLocal) {
  using ir::AddrSpace;
  unsigned size = a.type.bytes();
  addressBuffer();
  b_.CreateAlignedStore(addrs, addrBuf_, llvm::Align(8));
  Value *space;
  switch (a.space) {
  case AddrSpace::Global:
    space = b_.getInt32(KERN_ACCESS_GLOBAL);
    break;
  case AddrSpace::Shared:
    space = b_.getInt32(KERN_ACCESS_SHARED);
    break;
  case AddrSpace::Constant:
    space = b_.getInt32(KERN_ACCESS_CONSTANT);
    break;
  case AddrSpace::Local:
    space = b_.getInt32(KERN_ACCESS_LOCAL);
    break;
  default: {
    // Generic: the space the first active lane's address falls in.
    Value *lane = b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, bits(m), b_.getFalse());
    lane = b_.CreateAnd(lane, b_.getInt32(kWarpSize - 1));
    space = b_.CreateSelect(
        b_.CreateExtractElement(inShared, lane), b_.getInt32(KERN_ACCESS_SHARED),
        b_.CreateSelect(b_.CreateExtractElement(inLocal, lane), b_.getInt32(KERN_ACCESS_LOCAL),
                        b_.getInt32(KERN_ACCESS_GLOBAL)),
        "access.space");
    break;
  }
  }
  Value *flags = b_.CreateOr(b_.getInt32(static_cast<uint32_t>(a.op)), space, "access.flags");
  Type *i32 = b_.getInt32Ty();
  b_.CreateCall(
      runtime("kern_rt_count_access", b_.getVoidTy(),
              {b_.getPtrTy(), i32, b_.getPtrTy(), i32, i32, i32}),
      {ctx_, b_.getInt32(a.site), addrBuf_, bits(m, "access.mask"), b_.getInt32(size), flags});
}

Value *WarpCodegen::addressBuffer() {
  // One buffer for both hooks; in checked mode a store's values follow the 32 addresses.
  if (!addrBuf_)
    addrBuf_ = entryAlloca(
        b_,
        llvm::ArrayType::get(b_.getInt64Ty(), mc_.options.checked ? 2 * kWarpSize : kWarpSize),
        "access.addrs", 8);
  return addrBuf_;
}

void WarpCodegen::emitCheckAccess(const MemoryAccess &a, Value *addrs, Value *m) {
  Type *i32 = b_.getInt32Ty();
  Type *i64v = warpVector(b_.getInt64Ty());
  addressBuffer();
  b_.CreateAlignedStore(addrs, addrBuf_, llvm::Align(8));
  // Generic accesses are classified lane by lane by the runtime, like global ones.
  uint32_t flags = static_cast<uint32_t>(a.op) |
                   (a.space == ir::AddrSpace::Shared ? KERN_ACCESS_SHARED : KERN_ACCESS_GLOBAL);
  if (a.op == AccessOp::Store && a.space != ir::AddrSpace::Global) {
    // The values, so that lanes of one store writing different values to one shared word can
    // be told from lanes writing the same value (harmless, and common for flags).
    Value *mv = toMemory(b_, a.value, a.type);
    Type *et = mv->getType()->getScalarType();
    if (!et->isIntegerTy() && !et->isFloatingPointTy() && !et->isPointerTy())
      mv = nullptr; // no scalar to compare: lanes of this store are not compared
    else if (et->isPointerTy())
      mv = b_.CreatePtrToInt(mv, i64v);
    else if (!et->isIntegerTy())
      mv = b_.CreateBitCast(
          mv, warpVector(b_.getIntNTy(static_cast<unsigned>(et->getPrimitiveSizeInBits()))));
    if (mv) {
      mv = b_.CreateZExtOrTrunc(mv, i64v);
      b_.CreateAlignedStore(mv, b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), addrBuf_, kWarpSize),
                            llvm::Align(8));
      flags |= KERN_ACCESS_VALUES;
    }
  }
  b_.CreateCall(runtime("kern_rt_check_access", b_.getVoidTy(),
                        {b_.getPtrTy(), i32, b_.getPtrTy(), i32, i32, i32}),
                {ctx_, b_.getInt32(a.site), addrBuf_, bits(m, "check.mask"),
                 b_.getInt32(a.type.bytes()), b_.getInt32(flags)});
}

Value *WarpCodegen::emitAccess(const MemoryAccess &a, Value *addrs, Value *m,
                               const AddressSummary &sum) {
  unsigned size = a.type.bytes();
  Type *i64v = warpVector(b_.getInt64Ty());
  Type *i64 = b_.getInt64Ty();
  // 3. The access. Three shapes, chosen per execution from the addresses: consecutive lanes
  // at consecutive elements (one vector load or store), every lane at one address (one
  // scalar load, broadcast), anything else (gather/scatter). Only active lanes touch memory.
  // When several lanes store to one address the highest lane's value lands (LLVM's scatter
  // writes in lane order), one of CUDA's allowed outcomes.
  Type *memTy = memoryType(c_, a.type);
  Type *vecMemTy = warpVector(memTy);
  if (a.op == AccessOp::Atomic)
    return emitAtomicLanes(a, m);
  if (a.space == ir::AddrSpace::Local) {
    // Each lane's copy of a local variable lies `stride` bytes from its neighbour's, so lanes
    // never touch consecutive elements: a gather or scatter, with no shape test.
    Value *ptrs = b_.CreateIntToPtr(addrs, warpVector(b_.getPtrTy()), "ptrs");
    if (a.op == AccessOp::Load)
      return fromMemory(b_,
                        b_.CreateMaskedGather(vecMemTy, ptrs, llvm::Align(size), m,
                                              llvm::Constant::getNullValue(vecMemTy), "load"),
                        a.type);
    b_.CreateMaskedScatter(toMemory(b_, a.value, a.type), ptrs, llvm::Align(size), m);
    return nullptr;
  }
  Value *mbits = bits(m, "access.lanes");
  Value *first = b_.CreateAnd(
      b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, mbits, b_.getFalse()), b_.getInt32(31));
  Value *a0 = b_.CreateExtractElement(addrs, first, "addr.first");
  Value *base = b_.CreateSub(a0, b_.CreateMul(b_.CreateZExt(first, i64), b_.getInt64(size)),
                             "addr.base");
  Value *expected = b_.CreateAdd(
      splat(base), b_.CreateMul(b_.CreateZExt(laneIds(), i64v), llvm::ConstantInt::get(i64v, size)));
  Value *matches = b_.CreateOr(b_.CreateICmpEQ(addrs, expected), b_.CreateNot(m));
  Value *contiguous = b_.CreateUnaryIntrinsic(llvm::Intrinsic::vector_reduce_and,
                                              matches, nullptr, "contiguous");
  auto *vecBB = newBlock("access.vector");
  auto *otherBB = newBlock("access.other");
  auto *doneBB = newBlock("access.done");
  // Half-warp shapes (a 16-wide tile, as in 16x16 blocks): every lane active and each half
  // contiguous from its own base (two 16-element vector accesses), or each half at one
  // address (two scalar loads).
  Type *i32v = warpVector(b_.getInt32Ty());
  Value *upper = b_.CreateICmpUGE(laneIds(), llvm::ConstantInt::get(i32v, 16), "upper.half");
  Value *allActive = b_.CreateICmpEQ(mbits, b_.getInt32(-1), "all.active");
  Value *h0 = b_.CreateExtractElement(addrs, b_.getInt32(0), "half0.addr");
  Value *h1 = b_.CreateExtractElement(addrs, b_.getInt32(16), "half1.addr");
  Value *halfBase = b_.CreateSelect(upper, splat(h1), splat(h0), "half.base");
  Value *inHalf = b_.CreateZExt(b_.CreateAnd(laneIds(), llvm::ConstantInt::get(i32v, 15)), i64v);
  Value *halvesContiguous = b_.CreateAnd(
      allActive,
      b_.CreateUnaryIntrinsic(
          llvm::Intrinsic::vector_reduce_and,
          b_.CreateICmpEQ(addrs, b_.CreateAdd(halfBase, b_.CreateMul(
                                                           inHalf, llvm::ConstantInt::get(i64v, size)))),
          nullptr),
      "halves.contiguous");
  Type *halfTy = llvm::FixedVectorType::get(memTy, 16);
  llvm::SmallVector<int, 32> concat;
  for (int i = 0; i < 32; ++i)
    concat.push_back(i);
  b_.CreateCondBr(contiguous, vecBB, otherBB);
  if (a.op == AccessOp::Load) {
    std::vector<std::pair<Value *, BasicBlock *>> results;
    b_.SetInsertPoint(vecBB);
    Value *vv = b_.CreateMaskedLoad(vecMemTy, b_.CreateIntToPtr(base, b_.getPtrTy()),
                                    llvm::Align(size), m, llvm::Constant::getNullValue(vecMemTy),
                                    "load.vector");
    results.push_back({vv, b_.GetInsertBlock()});
    b_.CreateBr(doneBB);

    b_.SetInsertPoint(otherBB);
    auto *halvesBB = newBlock("access.halves");
    auto *notHalvesBB = newBlock("access.not.halves");
    b_.CreateCondBr(halvesContiguous, halvesBB, notHalvesBB);
    b_.SetInsertPoint(halvesBB);
    Value *lo = b_.CreateAlignedLoad(halfTy, b_.CreateIntToPtr(h0, b_.getPtrTy()),
                                     llvm::Align(size), "load.half0");
    Value *hi = b_.CreateAlignedLoad(halfTy, b_.CreateIntToPtr(h1, b_.getPtrTy()),
                                     llvm::Align(size), "load.half1");
    results.push_back({b_.CreateShuffleVector(lo, hi, concat, "load.halves"), b_.GetInsertBlock()});
    b_.CreateBr(doneBB);

    b_.SetInsertPoint(notHalvesBB);
    auto *uniBB = newBlock("access.uniform");
    auto *notUniBB = newBlock("access.not.uniform");
    b_.CreateCondBr(b_.CreateICmpEQ(sum.min, sum.max, "uniform.addr"), uniBB, notUniBB);
    b_.SetInsertPoint(uniBB);
    Value *sv = b_.CreateAlignedLoad(memTy, b_.CreateIntToPtr(a0, b_.getPtrTy()),
                                     llvm::Align(size), "load.uniform");
    results.push_back({splat(sv), b_.GetInsertBlock()});
    b_.CreateBr(doneBB);

    b_.SetInsertPoint(notUniBB);
    Value *halvesUniform =
        b_.CreateAnd(allActive,
                     b_.CreateUnaryIntrinsic(llvm::Intrinsic::vector_reduce_and,
                                             b_.CreateICmpEQ(addrs, halfBase), nullptr),
                     "halves.uniform");
    auto *halfUniBB = newBlock("access.halves.uniform");
    auto *gatherBB = newBlock("access.gather");
    b_.CreateCondBr(halvesUniform, halfUniBB, gatherBB);
    b_.SetInsertPoint(halfUniBB);
    Value *s0 = b_.CreateAlignedLoad(memTy, b_.CreateIntToPtr(h0, b_.getPtrTy()),
                                     llvm::Align(size), "load.half0.uniform");
    Value *s1 = b_.CreateAlignedLoad(memTy, b_.CreateIntToPtr(h1, b_.getPtrTy()),
                                     llvm::Align(size), "load.half1.uniform");
    results.push_back(
        {b_.CreateSelect(upper, splat(s1), splat(s0), "load.halves.uniform"), b_.GetInsertBlock()});
    b_.CreateBr(doneBB);

    b_.SetInsertPoint(gatherBB);
    Value *ptrs = b_.CreateIntToPtr(addrs, warpVector(b_.getPtrTy()), "ptrs");
    Value *gv = b_.CreateMaskedGather(vecMemTy, ptrs, llvm::Align(size), m,
                                      llvm::Constant::getNullValue(vecMemTy), "load.gather");
    results.push_back({gv, b_.GetInsertBlock()});
    b_.CreateBr(doneBB);

    b_.SetInsertPoint(doneBB);
    auto *phi = b_.CreatePHI(vecMemTy, static_cast<unsigned>(results.size()), "load");
    for (auto &[v, bb] : results)
      phi->addIncoming(v, bb);
    return fromMemory(b_, phi, a.type);
  }
  Value *val = toMemory(b_, a.value, a.type);
  b_.SetInsertPoint(vecBB);
  b_.CreateMaskedStore(val, b_.CreateIntToPtr(base, b_.getPtrTy()), llvm::Align(size), m);
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(otherBB);
  auto *halvesBB = newBlock("access.halves");
  auto *scatterBB = newBlock("access.scatter");
  b_.CreateCondBr(halvesContiguous, halvesBB, scatterBB);
  b_.SetInsertPoint(halvesBB);
  llvm::SmallVector<int, 16> lowIdx, highIdx;
  for (int i = 0; i < 16; ++i) {
    lowIdx.push_back(i);
    highIdx.push_back(16 + i);
  }
  // Lower half first: where the halves overlap, the higher lanes' values land, as a scatter's.
  b_.CreateAlignedStore(b_.CreateShuffleVector(val, lowIdx), b_.CreateIntToPtr(h0, b_.getPtrTy()),
                        llvm::Align(size));
  b_.CreateAlignedStore(b_.CreateShuffleVector(val, highIdx), b_.CreateIntToPtr(h1, b_.getPtrTy()),
                        llvm::Align(size));
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(scatterBB);
  b_.CreateMaskedScatter(val, b_.CreateIntToPtr(addrs, warpVector(b_.getPtrTy()), "ptrs"),
                         llvm::Align(size), m);
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(doneBB);
  return nullptr;
}

Value *WarpCodegen::emitAtomicLanes(const MemoryAccess &a, Value *m) {
  using ir::IntrinsicId;
  using Op = llvm::AtomicRMWInst::BinOp;
  bool isFloat = a.type.isFloat();
  bool isSigned = a.type.isInt() && a.type.isSigned;
  Op op = Op::Add;
  bool cas = false;
  switch (a.atomic) {
  case IntrinsicId::AtomicAdd:
    op = isFloat ? Op::FAdd : Op::Add;
    break;
  case IntrinsicId::AtomicSub:
    op = isFloat ? Op::FSub : Op::Sub;
    break;
  case IntrinsicId::AtomicExch:
    op = Op::Xchg;
    break;
  case IntrinsicId::AtomicMin:
    op = isFloat ? Op::FMin : isSigned ? Op::Min : Op::UMin;
    break;
  case IntrinsicId::AtomicMax:
    op = isFloat ? Op::FMax : isSigned ? Op::Max : Op::UMax;
    break;
  case IntrinsicId::AtomicInc: // CUDA: (old >= val) ? 0 : old + 1 -- exactly uinc_wrap
    op = Op::UIncWrap;
    break;
  case IntrinsicId::AtomicDec: // CUDA: (old == 0 || old > val) ? val : old - 1 -- udec_wrap
    op = Op::UDecWrap;
    break;
  case IntrinsicId::AtomicAnd:
    op = Op::And;
    break;
  case IntrinsicId::AtomicOr:
    op = Op::Or;
    break;
  case IntrinsicId::AtomicXor:
    op = Op::Xor;
    break;
  case IntrinsicId::AtomicCAS:
    cas = true;
    break;
  default:
    mc_.fail("internal error: not an atomic intrinsic");
    return llvm::PoisonValue::get(vecTy(a.type));
  }
  // Lanes apply one after another in lane order, each a real atomic, so concurrent warps on
  // other worker threads see a consistent sequence. CUDA's atomics are relaxed: monotonic.
  Type *i32 = b_.getInt32Ty();
  Type *resTy = vecTy(a.type);
  auto *pre = b_.GetInsertBlock();
  Value *laneBits = bits(m, "atomic.lanes");
  auto *loop = newBlock("atomic.lane");
  auto *done = newBlock("atomic.done");
  b_.CreateCondBr(b_.CreateICmpNE(laneBits, b_.getInt32(0)), loop, done);
  b_.SetInsertPoint(loop);
  auto *rem = b_.CreatePHI(i32, 2, "lanes.left");
  auto *acc = b_.CreatePHI(resTy, 2, "atomic.old");
  rem->addIncoming(laneBits, pre);
  acc->addIncoming(llvm::Constant::getNullValue(resTy), pre);
  Value *lane = b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, rem, b_.getTrue(), nullptr, "lane");
  Value *ptr = b_.CreateIntToPtr(b_.CreateExtractElement(a.addrs, lane), b_.getPtrTy(), "ptr");
  Value *v = b_.CreateExtractElement(a.value, lane, "operand");
  auto align = llvm::MaybeAlign(a.type.bytes());
  auto order = llvm::AtomicOrdering::Monotonic;
  Value *old;
  if (cas) {
    Value *nv = b_.CreateExtractElement(a.value2, lane, "new");
    Type *elem = v->getType();
    if (isFloat) { // cmpxchg compares bits; CUDA's atomicCAS does too
      Type *it = b_.getIntNTy(elem->getPrimitiveSizeInBits());
      v = b_.CreateBitCast(v, it);
      nv = b_.CreateBitCast(nv, it);
    }
    if (a.space == ir::AddrSpace::Shared) { // one thread owns the block (see below)
      old = b_.CreateAlignedLoad(v->getType(), ptr, *align, "cas.old");
      b_.CreateAlignedStore(b_.CreateSelect(b_.CreateICmpEQ(old, v), nv, old), ptr, *align);
    } else {
      auto *x = b_.CreateAtomicCmpXchg(ptr, v, nv, align, order, order);
      old = b_.CreateExtractValue(x, 0, "cas.old");
    }
    if (isFloat)
      old = b_.CreateBitCast(old, elem);
  } else if (a.space == ir::AddrSpace::Shared) {
    // Shared memory belongs to one block, and a block runs on one worker thread: the lanes'
    // read-modify-writes need no lock prefix (a locked instruction per lane is what makes a
    // shared-memory histogram slow on CPU executors).
    Type *elem = v->getType();
    old = b_.CreateAlignedLoad(elem, ptr, *align, "shared.old");
    Value *nv = nullptr;
    switch (op) {
    case Op::Add: nv = b_.CreateAdd(old, v); break;
    case Op::FAdd: nv = b_.CreateFAdd(old, v); break;
    case Op::Sub: nv = b_.CreateSub(old, v); break;
    case Op::FSub: nv = b_.CreateFSub(old, v); break;
    case Op::Xchg: nv = v; break;
    case Op::And: nv = b_.CreateAnd(old, v); break;
    case Op::Or: nv = b_.CreateOr(old, v); break;
    case Op::Xor: nv = b_.CreateXor(old, v); break;
    case Op::Min: nv = b_.CreateSelect(b_.CreateICmpSLT(v, old), v, old); break;
    case Op::Max: nv = b_.CreateSelect(b_.CreateICmpSGT(v, old), v, old); break;
    case Op::UMin: nv = b_.CreateSelect(b_.CreateICmpULT(v, old), v, old); break;
    case Op::UMax: nv = b_.CreateSelect(b_.CreateICmpUGT(v, old), v, old); break;
    case Op::FMin: nv = b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, old, v); break;
    case Op::FMax: nv = b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, old, v); break;
    case Op::UIncWrap: // CUDA atomicInc: (old >= val) ? 0 : old + 1
      nv = b_.CreateSelect(b_.CreateICmpUGE(old, v), llvm::Constant::getNullValue(elem),
                           b_.CreateAdd(old, llvm::ConstantInt::get(elem, 1)));
      break;
    case Op::UDecWrap: // CUDA atomicDec: (old == 0 || old > val) ? val : old - 1
      nv = b_.CreateSelect(
          b_.CreateOr(b_.CreateICmpEQ(old, llvm::Constant::getNullValue(elem)),
                      b_.CreateICmpUGT(old, v)),
          v, b_.CreateSub(old, llvm::ConstantInt::get(elem, 1)));
      break;
    default:
      nv = b_.CreateAtomicRMW(op, ptr, v, align, order); // not reached: every CUDA op is above
      break;
    }
    b_.CreateAlignedStore(nv, ptr, *align);
  } else {
    old = b_.CreateAtomicRMW(op, ptr, v, align, order);
  }
  Value *next = b_.CreateAnd(rem, b_.CreateSub(rem, b_.getInt32(1)), "lanes.next");
  Value *res = b_.CreateInsertElement(acc, old, lane);
  rem->addIncoming(next, b_.GetInsertBlock());
  acc->addIncoming(res, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpNE(next, b_.getInt32(0)), loop, done);
  b_.SetInsertPoint(done);
  auto *out = b_.CreatePHI(resTy, 2, "atomic.result");
  out->addIncoming(llvm::Constant::getNullValue(resTy), pre);
  out->addIncoming(res, loop);
  return out;
}

// ---- expressions ---------------------------------------------------------------------------

Value *WarpCodegen::emitBuiltin(const ir::Expr &e) {
  using ir::BuiltinVar;
  Type *i32 = b_.getInt32Ty();
  ir::Type u32 = ir::Type::i32(false);
  auto dim = [&](unsigned base, unsigned d, const char *name) {
    // Uniform across the warp: one scalar load, splatted.
    return splat(loadCtx(base + 4 * d, i32, name), name);
  };
  Value *v = nullptr;
  switch (e.builtinVar) {
  case BuiltinVar::ThreadIdxX:
  case BuiltinVar::ThreadIdxY:
  case BuiltinVar::ThreadIdxZ: {
    unsigned d =
        static_cast<unsigned>(e.builtinVar) - static_cast<unsigned>(BuiltinVar::ThreadIdxX);
    const char *names[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
    v = b_.CreateAlignedLoad(warpVector(i32), ctxAddr(kCtxThreadIdx + d * 4 * kWarpSize),
                             llvm::Align(4), names[d]);
    break;
  }
  case BuiltinVar::BlockIdxX:
    v = dim(kCtxBlockIdx, 0, "blockIdx.x");
    break;
  case BuiltinVar::BlockIdxY:
    v = dim(kCtxBlockIdx, 1, "blockIdx.y");
    break;
  case BuiltinVar::BlockIdxZ:
    v = dim(kCtxBlockIdx, 2, "blockIdx.z");
    break;
  case BuiltinVar::BlockDimX:
    v = dim(kCtxBlockDim, 0, "blockDim.x");
    break;
  case BuiltinVar::BlockDimY:
    v = dim(kCtxBlockDim, 1, "blockDim.y");
    break;
  case BuiltinVar::BlockDimZ:
    v = dim(kCtxBlockDim, 2, "blockDim.z");
    break;
  case BuiltinVar::GridDimX:
    v = dim(kCtxGridDim, 0, "gridDim.x");
    break;
  case BuiltinVar::GridDimY:
    v = dim(kCtxGridDim, 1, "gridDim.y");
    break;
  case BuiltinVar::GridDimZ:
    v = dim(kCtxGridDim, 2, "gridDim.z");
    break;
  case BuiltinVar::WarpSize:
    v = splat(b_.getInt32(kWarpSize));
    break;
  case BuiltinVar::LaneId:
    v = laneIds();
    break;
  }
  return emitCast(b_, v, u32, e.type);
}

Value *WarpCodegen::emitCall(const ir::Expr &e) {
  auto it = mc_.warpFunctions.find(e.callee);
  if (!e.callee || e.callee->kind != ir::FunctionKind::Device || it == mc_.warpFunctions.end()) {
    mc_.fail("internal error: kernel code calls " +
             (e.callee ? e.callee->name : std::string("nothing")) +
             ", which is not a device function");
    return e.type.isVoid() ? nullptr : llvm::PoisonValue::get(vecTy(e.type));
  }
  std::vector<Value *> args = {ctx_, nullptr, warp_};
  for (auto *o : e.ops)
    args.push_back(emitExpr(*o));
  Value *m = cur();
  args[1] = m;
  // No active lane, no call: the hardware does not enter a function no thread calls.
  auto *pre = b_.GetInsertBlock();
  auto *callBB = newBlock("call.active");
  auto *done = newBlock("call.done");
  b_.CreateCondBr(mask_->any(m, "call.any"), callBB, done);
  b_.SetInsertPoint(callBB);
  // Recursion bound, checked at the call site so the fault names the call.
  Value *depth = loadCtx(kCtxCallDepth, b_.getInt32Ty(), "call.depth");
  Value *tooDeep = b_.CreateICmpUGE(depth, b_.getInt32(kMaxCallDepth), "too.deep");
  faultIf(b_.CreateAnd(m, splat(tooDeep)), KERN_FAULT_RECURSION, e.site, nullptr);
  Value *r = b_.CreateCall(it->second, args, e.type.isVoid() ? "" : e.callee->name);
  // A fault in the callee stops this warp here too.
  returnIfFaulted();
  auto *after = b_.GetInsertBlock();
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  if (e.type.isVoid())
    return nullptr;
  auto *phi = b_.CreatePHI(vecTy(e.type), 2, e.callee->name + ".result");
  phi->addIncoming(zeroValue(e.type, vecTy(e.type)), pre);
  phi->addIncoming(r, after);
  return phi;
}

Value *WarpCodegen::emitShuffle(const ir::Expr &e, Value *v, Value *src) {
  // Read lane src[l] of v for every lane l (a register-file crossbar on the GPU): spill v to
  // a 32-entry buffer and gather from it. Reading an inactive lane gives its current value.
  ir::Type t = e.type;
  Type *memTy = memoryType(c_, t);
  auto *buf = entryAlloca(b_, llvm::ArrayType::get(memTy, kWarpSize), "shfl.buf", 64);
  // An explicit alignment: a plain vector store would claim the vector's own (larger) one.
  b_.CreateAlignedStore(toMemory(b_, v, t), buf, llvm::Align(64));
  Value *ptrs = b_.CreateGEP(memTy, buf, {src}, "shfl.src.ptr");
  Value *r = b_.CreateMaskedGather(warpVector(memTy), ptrs, llvm::Align(t.bytes()),
                                   llvm::Constant::getAllOnesValue(maskTy()), nullptr, "shfl");
  return fromMemory(b_, r, t);
}

Value *WarpCodegen::emitWarpIntrinsic(const ir::Expr &e) {
  using ir::IntrinsicId;
  Type *i32 = b_.getInt32Ty();
  Type *i32v = warpVector(i32);
  auto op = [&](size_t i) -> Value * {
    if (i >= e.ops.size()) {
      mc_.fail(std::string("internal error: too few operands for ") +
               ir::intrinsicName(e.intrinsic));
      return llvm::PoisonValue::get(i32v);
    }
    return emitExpr(*e.ops[i]);
  };
  auto boolOp = [&](size_t i) {
    Value *v = op(i);
    if (i < e.ops.size() && !e.ops[i]->type.isBool())
      v = emitCast(b_, v, e.ops[i]->type, ir::Type::boolTy());
    return v;
  };
  auto result = [&](Value *u32Value) {
    return emitCast(b_, u32Value, ir::Type::i32(false), e.type);
  };
  switch (e.intrinsic) {
  case IntrinsicId::Ballot: {
    Value *laneMask = op(0);
    Value *pred = boolOp(1);
    // Lanes that are active and whose predicate holds, restricted to the caller's mask.
    Value *ballot = splat(bits(b_.CreateAnd(cur(), pred), "ballot"));
    return result(b_.CreateAnd(ballot, laneMask));
  }
  case IntrinsicId::Any: {
    Value *laneMask = op(0);
    Value *yes = splat(bits(b_.CreateAnd(cur(), boolOp(1)), "any.lanes"));
    Value *r = b_.CreateICmpNE(b_.CreateAnd(yes, laneMask), llvm::Constant::getNullValue(i32v));
    return result(b_.CreateZExt(r, i32v, "any"));
  }
  case IntrinsicId::All: {
    Value *laneMask = op(0);
    Value *m = cur();
    Value *no = splat(bits(b_.CreateAnd(m, b_.CreateNot(boolOp(1))), "all.failing"));
    Value *r = b_.CreateICmpEQ(b_.CreateAnd(no, laneMask), llvm::Constant::getNullValue(i32v));
    return result(b_.CreateZExt(r, i32v, "all"));
  }
  case IntrinsicId::ActiveMask:
    return result(splat(bits(cur(), "activemask")));
  case IntrinsicId::ShflIdx:
  case IntrinsicId::ShflUp:
  case IntrinsicId::ShflDown:
  case IntrinsicId::ShflXor: {
    op(0); // the member mask: lanes are in lockstep, nothing to wait for
    Value *v = op(1);
    Value *arg = b_.CreateIntCast(op(2), i32v, true);
    Value *width = e.ops.size() > 3 ? b_.CreateIntCast(op(3), i32v, true) : splat(b_.getInt32(32));
    // width must be a power of two in [1, 32] (CUDA); anything else behaves as 32.
    Value *wm1 = b_.CreateSub(width, splat(b_.getInt32(1)));
    Value *pow2 =
        b_.CreateAnd(b_.CreateICmpEQ(b_.CreateAnd(width, wm1), llvm::Constant::getNullValue(i32v)),
                     b_.CreateICmpULE(wm1, splat(b_.getInt32(31))));
    width = b_.CreateSelect(pow2, width, splat(b_.getInt32(32)), "width");
    wm1 = b_.CreateSub(width, splat(b_.getInt32(1)));
    Value *lane = laneIds();
    Value *segStart = b_.CreateAnd(lane, b_.CreateNot(wm1), "seg.start");
    Value *inSeg = b_.CreateAnd(lane, wm1, "seg.lane");
    Value *src;
    switch (e.intrinsic) {
    case IntrinsicId::ShflIdx: // srcLane modulo width, within the own segment
      src = b_.CreateOr(segStart, b_.CreateAnd(arg, wm1), "src");
      break;
    case IntrinsicId::ShflUp: // lane - delta, or the own value below the segment's start
      src = b_.CreateSelect(b_.CreateICmpUGE(inSeg, arg), b_.CreateSub(lane, arg), lane, "src");
      break;
    case IntrinsicId::ShflDown: // lane + delta, or the own value past the segment's end
      src = b_.CreateSelect(b_.CreateICmpULT(arg, b_.CreateSub(width, inSeg)),
                            b_.CreateAdd(lane, arg), lane, "src");
      break;
    default: { // xor: the butterfly partner, or the own value outside the segment
      Value *x = b_.CreateXor(lane, arg);
      Value *ok = b_.CreateICmpEQ(b_.CreateAnd(x, b_.CreateNot(wm1)), segStart);
      src = b_.CreateSelect(ok, x, lane, "src");
      break;
    }
    }
    return emitShuffle(e, v, src);
  }
  case IntrinsicId::AssertFail: {
    // Emitted under `if (!cond)`: every active lane failed. The first one is reported, the
    // kernel stops (CUDA: cudaErrorAssert), like a fault.
    Value *msgs = op(0);
    Value *m = bits(cur(), "assert.lanes");
    auto *failBB = newBlock("assert.fail");
    auto *okBB = newBlock("assert.none");
    b_.CreateCondBr(b_.CreateICmpNE(m, b_.getInt32(0)), failBB, okBB);
    b_.SetInsertPoint(failBB);
    Value *lane = b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, m, b_.getTrue(), nullptr,
                                           "assert.lane");
    Value *msg = b_.CreateIntToPtr(b_.CreateExtractElement(msgs, lane), b_.getPtrTy());
    b_.CreateCall(runtime("kern_rt_assert", b_.getVoidTy(), {b_.getPtrTy(), i32, i32, b_.getPtrTy()}),
                  {ctx_, b_.getInt32(e.site), lane, msg});
    b_.CreateBr(exit_);
    b_.SetInsertPoint(okBB);
    return nullptr;
  }
  case IntrinsicId::SyncWarp:
    if (!e.ops.empty())
      op(0);
    return nullptr; // the lanes of a warp function are always converged
  case IntrinsicId::ThreadFence:
  case IntrinsicId::ThreadFenceBlock:
    b_.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
    return nullptr;
  case IntrinsicId::Clock: {
    // A deterministic stand-in for the SM clock: this warp's loop back-edges plus clock() reads
    // so far. Real cycle counts would make runs irreproducible.
    Value *addr = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), warp_, kWarpTicks);
    Value *t = b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), addr, "ticks"), b_.getInt64(1), "clock");
    b_.CreateStore(t, addr);
    return emitCast(b_, splat(t), ir::Type::i64(true), e.type);
  }
  case IntrinsicId::SyncCount:
  case IntrinsicId::SyncAnd:
  case IntrinsicId::SyncOr: {
    Value *pred = boolOp(0);
    Value *m = cur();
    uint32_t kind = e.intrinsic == IntrinsicId::SyncCount ? 0
                    : e.intrinsic == IntrinsicId::SyncAnd ? 1
                                                          : 2;
    Value *r =
        b_.CreateCall(runtime("kern_rt_barrier_reduce", i32, {b_.getPtrTy(), i32, i32, i32, i32}),
                      {ctx_, b_.getInt32(e.site), bits(m, "barrier.mask"),
                       bits(b_.CreateAnd(m, pred), "barrier.pred"), b_.getInt32(kind)},
                      "barrier.result");
    returnIfFaulted();
    return emitCast(b_, splat(r), ir::Type::i32(true), e.type);
  }
  case IntrinsicId::AtomicAdd:
  case IntrinsicId::AtomicSub:
  case IntrinsicId::AtomicExch:
  case IntrinsicId::AtomicMin:
  case IntrinsicId::AtomicMax:
  case IntrinsicId::AtomicInc:
  case IntrinsicId::AtomicDec:
  case IntrinsicId::AtomicCAS:
  case IntrinsicId::AtomicAnd:
  case IntrinsicId::AtomicOr:
  case IntrinsicId::AtomicXor: {
    MemoryAccess a;
    a.op = AccessOp::Atomic;
    a.site = e.site;
    a.atomic = e.intrinsic;
    a.addrs = op(0);
    a.value = op(1);
    if (e.intrinsic == IntrinsicId::AtomicCAS)
      a.value2 = op(2);
    a.type = e.ops.size() > 1 ? e.ops[1]->type : e.type;
    a.space = e.space != ir::AddrSpace::Generic ? e.space : e.ops[0]->type.space;
    Value *old = emitMemoryAccess(a);
    return emitCast(b_, old, a.type, e.type);
  }
  default:
    mc_.fail(std::string("internal error: ") + ir::intrinsicName(e.intrinsic) +
             " is not a warp intrinsic");
    return e.type.isVoid() ? nullptr : llvm::PoisonValue::get(vecTy(e.type));
  }
}

Value *WarpCodegen::emitExpr(const ir::Expr &e) {
  using ir::ExprKind;
  switch (e.kind) {
  case ExprKind::Const:
    return constantValue(e, vecTy(e.type));
  case ExprKind::VarRef: {
    auto *slot = vars_[e.var];
    if (!slot) {
      mc_.fail("internal error: unknown variable " + (e.var ? e.var->name : std::string("?")));
      return llvm::PoisonValue::get(vecTy(e.type));
    }
    return b_.CreateLoad(slot->getAllocatedType(), slot, e.var->name);
  }
  case ExprKind::BuiltinVar:
    return emitBuiltin(e);
  case ExprKind::Unary:
    if (e.unaryOp == ir::UnaryOp::Bitcast) // the same bits as another type of equal width
      return b_.CreateBitCast(emitExpr(*e.ops[0]), vecTy(e.type), "bitcast");
    return emitUnary(b_, e.unaryOp, emitExpr(*e.ops[0]), e.ops[0]->type);
  case ExprKind::Binary: {
    ir::Type t = e.ops[0]->type;
    Value *x = emitExpr(*e.ops[0]);
    Value *y = emitExpr(*e.ops[1]);
    bool isDiv = e.binaryOp == ir::BinaryOp::Div || e.binaryOp == ir::BinaryOp::Rem;
    if (isDiv && !t.isFloat())
      faultIf(b_.CreateAnd(cur(), isZero(b_, y, t)), KERN_FAULT_DIV_ZERO, e.site, nullptr);
    return emitBinary(b_, e.binaryOp, x, y, t);
  }
  case ExprKind::Cast:
    return emitCast(b_, emitExpr(*e.ops[0]), e.ops[0]->type, e.type);
  case ExprKind::Select: {
    Value *c = emitCond(e.ops[0]);
    Value *x = emitExpr(*e.ops[1]);
    Value *y = emitExpr(*e.ops[2]);
    return b_.CreateSelect(c, x, y, "sel");
  }
  case ExprKind::Load: {
    MemoryAccess a;
    a.op = AccessOp::Load;
    a.space = e.space;
    a.site = e.site;
    a.type = e.type;
    a.slot = e.slot;
    a.addrs = emitExpr(*e.ops[0]);
    return emitMemoryAccess(a);
  }
  case ExprKind::Call:
    return emitCall(e);
  case ExprKind::Intrinsic:
    switch (ir::intrinsicKind(e.intrinsic)) {
    case ir::IntrinsicKind::Math: {
      std::vector<Value *> args;
      std::vector<ir::Type> types;
      for (auto *o : e.ops) {
        args.push_back(emitExpr(*o));
        types.push_back(o->type);
      }
      return emitMath(mc_, b_, e.intrinsic, args, types, e.type);
    }
    case ir::IntrinsicKind::Warp:
      return emitWarpIntrinsic(e);
    case ir::IntrinsicKind::Runtime:
      mc_.fail(std::string("internal error: host runtime function ") +
               ir::intrinsicName(e.intrinsic) + " called from kernel code");
      return e.type.isVoid() ? nullptr : llvm::PoisonValue::get(vecTy(e.type));
    }
    return nullptr;
  case ExprKind::StringConst:
    return splat(b_.CreatePtrToInt(mc_.stringConstant(e.text), b_.getInt64Ty()), "str");
  case ExprKind::GlobalAddr: {
    // The runtime owns global variables' storage; their addresses never change while a
    // program runs, so the call is marked free of side effects and LLVM may hoist it.
    auto fn = runtime("kern_rt_global_addr", b_.getInt64Ty(), {b_.getPtrTy(), b_.getInt32Ty()});
    auto *f = llvm::cast<llvm::Function>(fn.getCallee());
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
    Value *a = b_.CreateCall(fn, {ctx_, b_.getInt32(e.global ? e.global->id : 0)},
                             e.global ? e.global->name : "global");
    return splat(a);
  }
  case ExprKind::SharedAddr:
    return splat(b_.CreateAdd(sharedLo_, b_.getInt64(e.intValue), "shared.addr"));
  case ExprKind::ParamAddr: {
    // The packed parameter buffer is the same for every lane (CUDA's parameter space).
    Value *params = b_.CreatePtrToInt(loadCtx(kCtxParams, b_.getPtrTy(), "params"),
                                      b_.getInt64Ty(), "params.base");
    return splat(b_.CreateAdd(params, b_.getInt64(e.intValue), "param.addr"));
  }
  case ExprKind::LocalAddr: {
    auto it = slots_.find(e.slot);
    if (it == slots_.end()) {
      mc_.fail("internal error: unknown local slot in " + f_.name);
      return llvm::PoisonValue::get(vecTy(e.type));
    }
    Value *base = b_.CreateAdd(localLo_, b_.getInt64(it->second.first), e.slot->name + ".base");
    Value *lane = b_.CreateZExt(laneIds(), warpVector(b_.getInt64Ty()));
    Value *offs = b_.CreateMul(lane, splat(b_.getInt64(it->second.second)));
    return b_.CreateAdd(splat(base), offs, e.slot->name);
  }
  case ExprKind::PtrAdd: {
    Value *p = emitExpr(*e.ops[0]);
    Value *off = emitExpr(*e.ops[1]);
    off = emitCast(b_, off, e.ops[1]->type, ir::Type::i64(true));
    return b_.CreateAdd(p, off, "ptradd");
  }
  }
  return nullptr;
}

} // namespace

llvm::Function *declareWarpFunction(ModuleContext &mc, const ir::Function &f) {
  auto &c = mc.llvm;
  Type *ptr = llvm::PointerType::getUnqual(c);
  llvm::Function *fn;
  if (f.kind == ir::FunctionKind::Kernel) {
    auto *ty = llvm::FunctionType::get(Type::getVoidTy(c), {ptr}, false);
    fn = llvm::Function::Create(ty, llvm::Function::ExternalLinkage, f.name, mc.module);
    fn->getArg(0)->setName("ctx");
  } else {
    std::vector<Type *> params = {ptr, warpVector(Type::getInt1Ty(c)), ptr};
    for (auto *p : f.params)
      params.push_back(warpVector(registerType(c, p->type)));
    Type *ret = f.returnType.isVoid()
                    ? Type::getVoidTy(c)
                    : static_cast<Type *>(warpVector(registerType(c, f.returnType)));
    auto *ty = llvm::FunctionType::get(ret, params, false);
    fn = llvm::Function::Create(ty, llvm::Function::InternalLinkage, f.name + ".warp", mc.module);
    fn->getArg(0)->setName("ctx");
    fn->getArg(1)->setName("mask");
    fn->getArg(2)->setName("warp");
    for (size_t i = 0; i < f.params.size(); ++i)
      fn->getArg(3 + i)->setName(f.params[i]->name);
  }
  setCommonAttributes(fn);
  mc.warpFunctions[&f] = fn;
  return fn;
}

void emitWarpFunction(ModuleContext &mc, const ir::Function &f) {
  auto it = mc.warpFunctions.find(&f);
  if (it == mc.warpFunctions.end()) {
    mc.fail("internal error: warp function " + f.name + " was not declared");
    return;
  }
  WarpCodegen(mc, f, it->second).emit();
}

} // namespace kern::backend
