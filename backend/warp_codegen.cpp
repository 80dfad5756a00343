// Warp code generation: Kern IR kernels and device functions become LLVM functions that run a
// whole warp. Varying values are <32 x T>; warp-uniform values (Expr::uniform, Var::uniform,
// filled by ir/analysis) are plain scalars, splatted only where they meet a varying one.
// Structured control flow becomes mask arithmetic (mask_context), except where the condition
// is uniform: then every active lane goes the same way and a plain branch suffices. Every
// memory access goes through emitMemoryAccess (warp_memory.cpp), the one place where the fault
// checks and the counter hooks are.
#include "backend/warp_codegen.h"

#include "backend/warp_codegen_impl.h"
#include "ir/analysis.h"
#include "ir/analysis_structure.h"

namespace kern::backend::warp {

// ---- function ------------------------------------------------------------------------------

void WarpCodegen::emit() {
  bool isKernel = f_.kind == ir::FunctionKind::Kernel;
  allowContraction();
  auto *entry = BasicBlock::Create(c_, "entry", fn_);
  b_.SetInsertPoint(entry);
  auto argIt = fn_->arg_begin();
  ctx_ = &*argIt++;
  regions_ = mc_.regionKernels.count(&f_) != 0;
  if (regions_)
    beginRegions(); // from here on, ctx_ is the context of the warp whose turn it is
  Value *entryMask;
  if (isKernel) {
    entryMask =
        b_.CreateBitCast(loadCtx(kCtxLiveMask, b_.getInt32Ty(), "live"), maskTy(), "live.mask");
  } else {
    entryMask = &*argIt++;
    warp_ = &*argIt++;
  }

  emitLocalFrame(isKernel); // the local slots, and the windows of local memory (warp_local.cpp)

  loadAddressWindows();

  mask_ = std::make_unique<MaskContext>(b_, entryMask);
  shortLoops_ = ir::shortLoops(f_, 64);
  tiled_ = !isKernel || ir::usesThreadRows(f_);
  lanesNeverLeave_ = isKernel && f_.body && !ir::contains(f_.body, ir::StmtKind::Return);
  exit_ = BasicBlock::Create(c_, "fn.exit");
  if (mc_.options.counters) {
    tallying_ = true;
    if (!regions_) { // a region kernel's are its block's (beginRegions)
      startInstructions();
      loadCounterView(ctx_);
      warpKey_ = emitWarpKey();
    }
  }

  if (!isKernel) {
    Value *depth = loadCtx(kCtxCallDepth, b_.getInt32Ty(), "call.depth");
    b_.CreateStore(b_.CreateAdd(depth, b_.getInt32(1)), ctxAddr(kCtxCallDepth));
  } else if (ir::frameInLocalMemory(f_)) {
    // The runtime gives the warp room for it (KernelImage::localRegionBytes): a safeguard.
    checkLocalMemory(f_, entryMask, 0, callerLocalSp_);
  }

  // A whole-block kernel keeps what crosses a barrier in memory, where a 0 that is always
  // overwritten before it is read would cost a store: only variables that may be read first
  // start with one (elsewhere LLVM drops the dead stores).
  std::set<const ir::Var *> readFirst;
  if (regions_)
    readFirst = ir::readBeforeAssigned(f_.body, {f_.params.begin(), f_.params.end()});
  emitVarSlots(isKernel, argIt, regions_ ? &readFirst : nullptr);
  if (!isKernel && !f_.returnType.isVoid()) {
    retval_ = entryAlloca(b_, vecTy(f_.returnType), "retval");
    b_.CreateStore(zeroValue(f_.returnType, vecTy(f_.returnType)), retval_);
  }

  if (isKernel) {
    reads_ = ir::kernelReads(f_);
    countInstr(reads_.entry); // the stack pointer's load
  }
  emitBlock(f_.body);
  if (isKernel)
    countInstr({ir::InstrClass::Control, 1}); // EXIT, for the lanes that reach the end
  b_.CreateBr(exit_);

  exit_->insertInto(fn_);
  b_.SetInsertPoint(exit_);
  if (regions_) {
    // Done for good: the runtime sees `finished`, and no later phase runs this warp again.
    b_.CreateStore(b_.getInt32(1), ctxAddr(kCtxFinished));
    b_.CreateStore(b_.getInt32(Regions::kDone), rg_.frame);
    b_.CreateBr(rg_.warpNext);
    rg_.arrivedAt->addIncoming(b_.getInt32(Regions::kFinished), b_.GetInsertBlock());
    rg_.arrivedPred->addIncoming(b_.getInt32(0), b_.GetInsertBlock());
    // The block's counts, once, where it ends.
    b_.SetInsertPoint(rg_.done);
    reportInstructions();
    flushTallies();
    b_.CreateRetVoid();
    finishRegions();
    return;
  }
  // Every way out (the end, a return, a fault, a timeout) passes here.
  reportInstructions();
  flushTallies();
  if (isKernel) {
    b_.CreateRetVoid();
    return;
  }
  Value *depth = loadCtx(kCtxCallDepth, b_.getInt32Ty(), "call.depth");
  b_.CreateStore(b_.CreateSub(depth, b_.getInt32(1)), ctxAddr(kCtxCallDepth));
  if (callerLocalSp_) // a frame in local memory is given back, on every way out
    b_.CreateStore(callerLocalSp_, ctxAddr(kCtxLocalSp));
  if (retval_)
    b_.CreateRet(b_.CreateLoad(retval_->getAllocatedType(), retval_, "ret"));
  else
    b_.CreateRetVoid();
}

// ---- faults --------------------------------------------------------------------------------

void WarpCodegen::faultWithKind(Value *bad, Value *kind, Value *site, Value *addrs) {
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
  b_.CreateCall(runtime(RuntimeFunction::kern_rt_fault), {ctx_, site, kind, lane, addr});
  // The warp stops at its first fault: no later instruction of any lane runs.
  b_.CreateBr(exit_);
  b_.SetInsertPoint(okBB);
}

void WarpCodegen::faultIf(Value *bad, uint32_t kind, ir::SiteId site, Value *addrs) {
  faultWithKind(bad, b_.getInt32(kind), site, addrs);
}

void WarpCodegen::emitVarSlots(bool isKernel, llvm::Function::arg_iterator argIt,
                               const std::set<const ir::Var *> *zeroOnly) {
  // Variables: one <32 x T> slot each, or one scalar slot for a uniform variable; parameters
  // start with their argument, others with 0.
  Value *params = isKernel ? loadCtx(kCtxParams, b_.getPtrTy(), "params") : nullptr;
  std::set<const ir::Var *> paramSet(f_.params.begin(), f_.params.end());
  auto slotType = [&](const ir::Var *v) {
    return scalarVar(v) ? registerType(c_, v->type) : vecTy(v->type);
  };
  for (auto *v : f_.vars)
    if (v->uniform && (isKernel || !paramSet.count(v)))
      scalarVars_.insert(v);
  for (auto *v : f_.params)
    if (v->uniform && isKernel)
      scalarVars_.insert(v);
  for (auto *v : f_.vars) {
    auto *a = entryAlloca(b_, slotType(v), v->name + ".addr");
    vars_[v] = a;
    if (!zeroOnly || zeroOnly->count(v))
      b_.CreateStore(zeroValue(v->type, slotType(v)), a);
  }
  for (size_t i = 0; i < f_.params.size(); ++i) {
    auto *v = f_.params[i];
    if (!vars_.count(v))
      vars_[v] = entryAlloca(b_, slotType(v), v->name + ".addr");
    Value *init;
    if (isKernel) {
      if (i >= f_.paramOffsets.size()) {
        mc_.fail("internal error: kernel " + f_.name + " lacks parameter offsets");
        break;
      }
      // Kernel parameters are the same for every lane: one scalar load (broadcast only if
      // the parameter is assigned varying values later).
      Value *p = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), params, f_.paramOffsets[i]);
      if (v->aggregateBytes) {
        // A struct by value: the Var holds its address in the parameter buffer.
        init = b_.CreatePtrToInt(p, b_.getInt64Ty(), v->name);
      } else {
        Value *s = b_.CreateAlignedLoad(memoryType(c_, v->type), p, llvm::Align(1), v->name);
        init = fromMemory(b_, s, v->type);
      }
      if (!scalarVar(v))
        init = splat(init, v->name);
    } else {
      init = &*argIt++;
    }
    b_.CreateStore(init, vars_[v]);
  }
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
    if (i + 1 < blk->stmts.size() && ir::mayRemoveLanes(s)) {
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

Value *WarpCodegen::emitCond(const ir::Expr *e) {
  Value *c = emitExpr(*e);
  if (!e->type.isBool())
    c = emitCast(b_, c, e->type, ir::Type::boolTy());
  return c;
}

void WarpCodegen::emitStmt(const ir::Stmt &s) {
  using ir::StmtKind;
  if (auto it = reads_.at.find(&s); it != reads_.at.end())
    countInstr(it->second);
  switch (s.kind) {
  case StmtKind::Block:
    emitBlock(ir::nestedBlock(s));
    return;
  case StmtKind::Assign: {
    countInstr(ir::statementMix(s));
    Value *v = emitExpr(*s.value);
    auto *slot = vars_[s.var];
    if (!slot) {
      mc_.fail("internal error: assignment to unknown variable " + s.var->name);
      return;
    }
    if (scalarVar(s.var)) {
      // Uniform: assigned only under uniform control, so every active lane stores the same
      // value, and lanes that are off (returned) never read it again: no mask needed.
      if (v->getType()->isVectorTy()) {
        mc_.fail("internal error: varying value assigned to uniform variable " + s.var->name);
        return;
      }
      b_.CreateStore(v, slot);
      return;
    }
    if (lanesNeverLeave_ && mask_->atEntryMask()) {
      // Every lane that exists is active: the others' copies are never read, and keeping
      // them in step (threadIdx.x counts on past the block's last thread) keeps an index
      // of a partial warp contiguous, so its accesses take the contiguous path.
      b_.CreateStore(vec(v), slot);
      return;
    }
    // Only active lanes change their copy of the variable.
    Value *old = b_.CreateLoad(slot->getAllocatedType(), slot, s.var->name);
    b_.CreateStore(b_.CreateSelect(cur(), vec(v), old, s.var->name), slot);
    return;
  }
  case StmtKind::Store: {
    countInstr(ir::statementMix(s));
    if (s.space == ir::AddrSpace::Local && s.slot && s.slot->direct) {
      emitDirectLocal(AccessOp::Store, *s.addr, s.value->type, *s.slot, s.site, s.value);
      return;
    }
    MemoryAccess a;
    a.op = AccessOp::Store;
    a.space = s.space;
    a.site = s.site;
    a.type = s.value->type;
    a.slot = s.slot;
    emitAddress(a, *s.addr);
    a.value = emitVec(*s.value);
    emitMemoryAccess(a);
    return;
  }
  case StmtKind::If: {
    countInstr(ir::ifMix(s));
    Value *c = emitCond(s.cond);
    // A predicated if issues its instructions for every lane that reached it.
    Value *outerPredicated = predicated_;
    if (s.predicated && !predicated_)
      predicated_ = cur();
    // The GPU issues a predicated side even where no lane takes it: its cost still counts.
    SkipHook thenSkipped, elseSkipped;
    if (predicated_ && (mc_.options.counters || clockModel())) {
      thenSkipped = [this, &s] { countSkippedSide(s.thenBody); };
      if (s.elseBody)
        elseSkipped = [this, &s] { countSkippedSide(s.elseBody); };
    }
    const bool hasElse = s.elseBody != nullptr;
    BranchHook hook = branchHook(s.site, s.isBranch, s.isBranch && s.gpuBranch);
    if (c->getType()->isVectorTy())
      mask_->startIf(c, hasElse, hook, thenSkipped, elseSkipped);
    else // uniform: all active lanes take the same side
      mask_->startUniformIf(c, hasElse, hook, thenSkipped, elseSkipped);
    emitBlock(s.thenBody);
    if (s.elseBody && s.isBranch && s.gpuBranch && !s.noJump && !s.elseBody->stmts.empty())
      countJump(s.site); // the then side ends by jumping over the else side
    if (s.elseBody) {
      mask_->startElse();
      emitBlock(s.elseBody);
    }
    mask_->endIf(ir::mayRemoveLanes(s.thenBody) || ir::mayRemoveLanes(s.elseBody));
    predicated_ = outerPredicated;
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
    countInstr(ir::statementMix(s));
    if (s.value && retval_) {
      Value *v = emitVec(*s.value);
      Value *old = b_.CreateLoad(retval_->getAllocatedType(), retval_, "retval");
      b_.CreateStore(b_.CreateSelect(cur(), v, old, "retval"), retval_);
    } else if (s.value) {
      emitExpr(*s.value);
    }
    mask_->returnLanes();
    return;
  case StmtKind::Eval:
    countInstr(ir::statementMix(s));
    if (s.value) {
      // An atomic evaluated for its effect alone is a reduction (the GPU's RED).
      const ir::Expr *e = s.value;
      while (e->kind == ir::ExprKind::Cast)
        e = e->ops[0];
      unusedResult_ = e;
      emitExpr(*s.value);
      unusedResult_ = nullptr;
    }
    return;
  case StmtKind::Printf:
    countInstr(ir::statementMix(s));
    emitPrintf(s);
    return;
  case StmtKind::Barrier: {
    countInstr(ir::statementMix(s));
    clockBeforeBarrier();
    if (regions_) {
      emitRegionBarrier(s.site, bits(cur(), "barrier.mask"), b_.getInt32(0), -1);
      clockAfterBarrier();
      return;
    }
    b_.CreateCall(runtime(RuntimeFunction::kern_rt_barrier),
                  {ctx_, b_.getInt32(s.site), bits(cur(), "barrier.mask")});
    returnIfFaulted();
    clockAfterBarrier();
    return;
  }
  case StmtKind::Launch:
    mc_.fail("internal error: kernel launch inside kernel code (" + f_.name + ")");
    return;
  case StmtKind::Alloca:
  case StmtKind::StackSave:
  case StmtKind::StackRestore:
    mc_.fail("internal error: variable-length array in device code (" + f_.name + ")");
    return;
  }
}

void WarpCodegen::emitLoop(const ir::Stmt &s) {
  // A loop whose condition is uniform and that no lane can leave early (no break or continue
  // of its own, no return) keeps every lane that entered it until all leave together: the
  // mask never changes, and the loop is a plain scalar loop (MaskContext's uniform loop).
  const bool lanesMayLeave =
      ir::mayRemoveLanes(s.preCond) || ir::mayRemoveLanes(s.body) || ir::mayRemoveLanes(s.step);
  const bool uniform = (!s.cond || s.cond->uniform) && !lanesMayLeave;
  const LoopIssue issue = startLoopIssue(s);
  auto test = [&] {
    if (!s.cond)
      return;
    Value *c = emitCond(s.cond);
    countLoopTest(s, issue);
    if (!uniform) {
      c = vec(c);
    } else if (c->getType()->isVectorTy()) {
      mc_.fail("internal error: uniform loop condition emitted as a vector in " + f_.name);
      c = mask_->any(c);
    }
    // Which evaluations of the condition are branches at the loop's site: its shape says.
    mask_->loopTest(c, loopHook(s, issue.tests));
  };
  // What nvcc computes before the loop: its loop-invariant arithmetic (ir/hoist.h).
  countInstr(ir::hoistedMix(s));
  // Where accesses run often enough to pay for inline gathers (emitGatherAccess): in a loop,
  // but not one that LLVM may unroll fully (its copies would multiply the code): one of a few
  // constant iterations unless a barrier keeps it a loop.
  const bool copied = issue.unrolled || (shortLoops_.count(&s) && !ir::reachesBarrier(s));
  ++(copied ? unrolledLoops_ : rolledLoops_);
  mask_->startLoop(uniform);
  if (s.testFirst) {
    emitBlock(s.preCond);
    test();
  }
  emitBlock(s.body);
  mask_->startStep();
  uncounted_ += issue.unrolled || issue.every > 1;
  emitBlock(s.step);
  uncounted_ -= issue.unrolled || issue.every > 1;
  countLoopStep(s, issue);
  if (!s.testFirst) {
    // preCond holds the statements that compute the condition: before its every test.
    emitBlock(s.preCond);
    test();
  }
  mask_->endLoop([&] { emitBackEdge(s.site, !shortLoops_.count(&s)); });
  --(copied ? unrolledLoops_ : rolledLoops_);
  countLoopEnd(s, issue.tests);
}

void WarpCodegen::emitBackEdge(ir::SiteId site, bool poll) {
  if (!poll) // a loop of a few iterations (ir::shortLoops): the enclosing code polls
    return;
  // Runaway kernels: count back-edges down; the runtime decides at zero (abi.h kern_rt_poll).
  Value *steps =
      b_.CreateSub(loadCtx(kCtxSteps, b_.getInt64Ty(), "steps"), b_.getInt64(1), "steps.left");
  b_.CreateStore(steps, ctxAddr(kCtxSteps));
  auto *pollBB = newBlock("loop.poll");
  auto *goBB = newBlock("loop.backedge");
  unlikelyBr(b_.CreateICmpSLT(steps, b_.getInt64(0)), pollBB, goBB);
  b_.SetInsertPoint(pollBB);
  Value *stop =
      b_.CreateCall(runtime(RuntimeFunction::kern_rt_poll), {ctx_, b_.getInt32(site)}, "poll");
  b_.CreateCondBr(b_.CreateICmpNE(stop, b_.getInt32(0)), exit_, goBB);
  b_.SetInsertPoint(goBB);
}

void WarpCodegen::emitPrintf(const ir::Stmt &s) {
  std::vector<Value *> args;
  for (auto *a : s.args)
    args.push_back(emitVec(*a));
  // A computed format (a choice between literals) is chosen per lane.
  Value *formats = s.format ? emitVec(*s.format) : nullptr;
  Value *fmt = formats ? nullptr : mc_.stringConstant(s.text);
  auto *bufTy = llvm::ArrayType::get(b_.getInt64Ty(), std::max<size_t>(args.size(), 1));
  auto *buf = entryAlloca(b_, bufTy, "printf.args", 8);
  auto *kprintf = runtime(RuntimeFunction::kern_rt_kprintf);
  // One call per active lane in lane order: the runtime's output order is block, warp, lane.
  mask_->forEachLane(cur(), "printf", [&](Value *lane) {
    for (size_t i = 0; i < args.size(); ++i) {
      Value *v = b_.CreateExtractElement(args[i], lane);
      b_.CreateStore(promoteVarArg(b_, v, s.args[i]->type),
                     b_.CreateConstInBoundsGEP2_64(bufTy, buf, 0, i));
    }
    Value *laneFmt =
        formats ? b_.CreateIntToPtr(b_.CreateExtractElement(formats, lane), b_.getPtrTy(), "fmt")
                : fmt;
    b_.CreateCall(kprintf, {ctx_, lane, laneFmt, b_.getInt32(args.size()), buf});
  });
}

// ---- expressions ---------------------------------------------------------------------------

Value *WarpCodegen::emitBuiltin(const ir::Expr &e) {
  using ir::BuiltinVar;
  Type *i32 = b_.getInt32Ty();
  ir::Type u32 = ir::Type::i32(false);
  auto dim = [&](unsigned base, unsigned d, const char *name) {
    // Uniform across the warp: one scalar load (emitExpr broadcasts it if needed).
    return loadCtx(base + 4 * d, i32, name);
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
    v = b_.getInt32(kWarpSize);
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
    args.push_back(emitVec(*o));
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
  checkCallStack(*e.callee, m, e.site);
  checkLocalMemory(*e.callee, m, e.site);
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
    return emitVec(*e.ops[i]);
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
    checkSyncMask(laneMask, e.site);
    Value *pred = boolOp(1);
    // Lanes that are active and whose predicate holds, restricted to the caller's mask.
    Value *ballot = splat(bits(b_.CreateAnd(cur(), pred), "ballot"));
    return result(b_.CreateAnd(ballot, laneMask));
  }
  case IntrinsicId::Any: {
    Value *laneMask = op(0);
    checkSyncMask(laneMask, e.site);
    Value *yes = splat(bits(b_.CreateAnd(cur(), boolOp(1)), "any.lanes"));
    Value *r = b_.CreateICmpNE(b_.CreateAnd(yes, laneMask), llvm::Constant::getNullValue(i32v));
    return result(b_.CreateZExt(r, i32v, "any"));
  }
  case IntrinsicId::All: {
    Value *laneMask = op(0);
    checkSyncMask(laneMask, e.site);
    Value *m = cur();
    Value *no = splat(bits(b_.CreateAnd(m, b_.CreateNot(boolOp(1))), "all.failing"));
    Value *r = b_.CreateICmpEQ(b_.CreateAnd(no, laneMask), llvm::Constant::getNullValue(i32v));
    return result(b_.CreateZExt(r, i32v, "all"));
  }
  case IntrinsicId::ActiveMask:
    return result(splat(bits(cur(), "activemask")));
  case IntrinsicId::MatchAny: {
    Value *laneMask = op(0);
    checkSyncMask(laneMask, e.site);
    return result(emitMatchAny(laneMask, op(1)));
  }
  case IntrinsicId::ShflIdx:
  case IntrinsicId::ShflUp:
  case IntrinsicId::ShflDown:
  case IntrinsicId::ShflXor: {
    // The member mask: lanes are in lockstep, nothing to wait for; checked mode checks it.
    checkSyncMask(op(0), e.site);
    Value *v = op(1);
    Value *arg = b_.CreateIntCast(op(2), i32v, true);
    Value *width = e.ops.size() > 3 ? b_.CreateIntCast(op(3), i32v, true) : splat(b_.getInt32(32));
    width = checkShuffleWidth(width, e.site);
    Value *wm1 = b_.CreateSub(width, splat(b_.getInt32(1)));
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
    // Emitted under `if (!cond)`: every active lane failed. Each is reported, and the kernel
    // stops (CUDA: cudaErrorAssert), like a fault.
    Value *msgs = op(0);
    Value *m = bits(cur(), "assert.lanes");
    auto *failBB = newBlock("assert.fail");
    auto *okBB = newBlock("assert.none");
    b_.CreateCondBr(b_.CreateICmpNE(m, b_.getInt32(0)), failBB, okBB);
    b_.SetInsertPoint(failBB);
    Value *lane =
        b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, m, b_.getTrue(), nullptr, "assert.lane");
    Value *msg = b_.CreateIntToPtr(b_.CreateExtractElement(msgs, lane), b_.getPtrTy());
    b_.CreateCall(runtime(RuntimeFunction::kern_rt_assert), {ctx_, b_.getInt32(e.site), m, msg});
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
    // The warp's modelled SM clock (KernWarpCtx::clockInstr16...): what the warp executed so
    // far at the profile's rates, the same in every run.
    Value *addr = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), warp_, kWarpTicks);
    Value *t =
        b_.CreateLShr(b_.CreateLoad(b_.getInt64Ty(), addr, "ticks"), b_.getInt64(4), "clock");
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
    Value *r;
    clockBeforeBarrier();
    if (regions_) {
      emitRegionBarrier(e.site, bits(m, "barrier.mask"),
                        bits(b_.CreateAnd(m, pred), "barrier.pred"), static_cast<int32_t>(kind));
      r = b_.CreateCall(runtime(RuntimeFunction::kern_rt_barrier_result), {ctx_}, "barrier.result");
    } else {
      r = b_.CreateCall(runtime(RuntimeFunction::kern_rt_barrier_reduce),
                        {ctx_, b_.getInt32(e.site), bits(m, "barrier.mask"),
                         bits(b_.CreateAnd(m, pred), "barrier.pred"), b_.getInt32(kind)},
                        "barrier.result");
      returnIfFaulted();
    }
    clockAfterBarrier();
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
    a.site = e.site;
    a.atomic = e.intrinsic;
    a.addrs = op(0);
    a.value = op(1);
    if (e.intrinsic == IntrinsicId::AtomicCAS)
      a.value2 = op(2);
    a.type = e.ops.size() > 1 ? e.ops[1]->type : e.type;
    a.space = e.space != ir::AddrSpace::Generic ? e.space : e.ops[0]->type.space;
    // The counters' view of the instruction nvcc makes of it (docs/atomics.md): a global
    // atomic whose result is unused is a RED; shared ones are ATOMS either way, and an
    // increment by 1 of an unused result is ATOMS.POPC.INC.
    const bool unused = unusedResult_ == &e;
    a.op = unused && a.space != ir::AddrSpace::Shared ? AccessOp::Reduction : AccessOp::Atomic;
    if (e.intrinsic == IntrinsicId::AtomicCAS)
      a.atomicForm = KERN_ACCESS_ATOMIC_CAS;
    else if (e.intrinsic == IntrinsicId::AtomicAdd && a.type.isFloat())
      a.atomicForm = KERN_ACCESS_ATOMIC_FLOAT;
    else if (e.intrinsic == IntrinsicId::AtomicAdd && a.type.isInt()) {
      const ir::Expr *v = e.ops[1];
      while (v->kind == ir::ExprKind::Cast && v->ops[0]->type.isInt())
        v = v->ops[0];
      if (unused && v->kind == ir::ExprKind::Const && v->intValue == 1)
        a.atomicForm = KERN_ACCESS_ATOMIC_INC1;
      // At one address, nvcc has one lane add for the warp: the lanes' sum when the result is
      // unused (REDUX), the count of lanes times a constant when it is used (VOTE and POPC,
      // each lane's old value then a shuffle of the one result plus its rank).
      if (e.ops[0]->uniform && a.type.bytes() == 4 && (unused || v->kind == ir::ExprKind::Const))
        a.atomicForm |= KERN_ACCESS_ATOMIC_WARP;
    }
    Value *old = emitMemoryAccess(a);
    return emitCast(b_, old, a.type, e.type);
  }
  default:
    return emitOtherWarpIntrinsic(e);
  }
}

Value *WarpCodegen::emitExpr(const ir::Expr &e) {
  Value *v = emitExprShape(e);
  if (!v || !e.uniform)
    return vec(v);
  if (v->getType()->isVectorTy())
    mc_.fail("internal error: uniform expression emitted as a vector in " + f_.name);
  return v;
}

/// The value of `e`: a scalar for a uniform expression, and for some varying leaves that are
/// the same in every lane (emitExpr broadcasts those); else a vector.
Value *WarpCodegen::emitExprShape(const ir::Expr &e) {
  using ir::ExprKind;
  switch (e.kind) {
  case ExprKind::Const:
    return constantValue(e, e.uniform ? registerType(c_, e.type) : vecTy(e.type));
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
    if (e.unaryOp == ir::UnaryOp::Bitcast) { // the same bits as another type of equal width
      Value *x = operand(e, *e.ops[0]);
      return b_.CreateBitCast(x, sameShape(registerType(c_, e.type), x->getType()), "bitcast");
    }
    return emitUnary(b_, e.unaryOp, operand(e, *e.ops[0]), e.ops[0]->type);
  case ExprKind::Binary: {
    ir::Type t = e.ops[0]->type;
    Value *x = operand(e, *e.ops[0]);
    Value *y = operand(e, *e.ops[1]);
    bool isDiv = e.binaryOp == ir::BinaryOp::Div || e.binaryOp == ir::BinaryOp::Rem;
    if (isDiv && !t.isFloat()) // a uniform zero divisor faults in the first active lane
      faultIf(b_.CreateAnd(cur(), vec(isZero(b_, y, t))), KERN_FAULT_DIV_ZERO, e.site, nullptr);
    else if (isDiv)
      countJump(e.site);
    return emitBinary(b_, e.binaryOp, x, y, t, /*gpuShifts=*/true);
  }
  case ExprKind::Cast:
    return emitCast(b_, operand(e, *e.ops[0]), e.ops[0]->type, e.type);
  case ExprKind::Select: {
    Value *c = emitCond(e.ops[0]);
    if (!e.uniform)
      c = vec(c);
    Value *x = operand(e, *e.ops[1]);
    Value *y = operand(e, *e.ops[2]);
    return b_.CreateSelect(c, x, y, "sel");
  }
  case ExprKind::Load: {
    if (e.space == ir::AddrSpace::Local && e.slot && e.slot->direct)
      return emitDirectLocal(AccessOp::Load, *e.ops[0], e.type, *e.slot, e.site, nullptr);
    MemoryAccess a;
    a.op = AccessOp::Load;
    a.space = e.space;
    a.site = e.site;
    a.type = e.type;
    a.slot = e.slot;
    emitAddress(a, *e.ops[0]);
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
        args.push_back(operand(e, *o));
        types.push_back(o->type);
      }
      countJump(e.site); // sqrt's slow-path check (ir/branch_model.cpp gives it a site)
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
    return b_.CreatePtrToInt(mc_.stringConstant(e.text), b_.getInt64Ty(), "str");
  case ExprKind::FunctionAddr:
    mc_.fail("internal error: a host function's address in kernel code");
    return llvm::PoisonValue::get(vecTy(e.type));
  case ExprKind::GlobalAddr: {
    // The runtime owns global variables' storage; their addresses never change while a
    // program runs, so the call is marked free of side effects and LLVM may hoist it.
    auto *fn = runtime(RuntimeFunction::kern_rt_global_addr);
    fn->setDoesNotAccessMemory();
    fn->setDoesNotThrow();
    fn->setWillReturn();
    return b_.CreateCall(fn, {ctx_, b_.getInt32(e.global ? e.global->id : 0)},
                         e.global ? e.global->name : "global");
  }
  case ExprKind::SharedAddr: // dynamicShared: from where the calling kernel's region starts
    return b_.CreateAdd(e.dynamicShared ? b_.CreateAdd(sharedLo_, loadCtx(kCtxDynamicShared,
                                                                          b_.getInt64Ty(), "dyn"))
                                        : sharedLo_,
                        b_.getInt64(e.intValue), "shared.addr");
  case ExprKind::ParamAddr: {
    // The packed parameter buffer is the same for every lane (CUDA's parameter space).
    Value *params = b_.CreatePtrToInt(loadCtx(kCtxParams, b_.getPtrTy(), "params"), b_.getInt64Ty(),
                                      "params.base");
    return b_.CreateAdd(params, b_.getInt64(e.intValue), "param.addr");
  }
  case ExprKind::LocalAddr: {
    auto it = slots_.find(e.slot);
    if (it == slots_.end() || e.slot->direct) {
      mc_.fail("internal error: unknown local slot in " + f_.name);
      return llvm::PoisonValue::get(vecTy(e.type));
    }
    Value *base = b_.CreateAdd(localLo_, b_.getInt64(it->second.first), e.slot->name + ".base");
    Value *lane = b_.CreateZExt(laneIds(), warpVector(b_.getInt64Ty()));
    Value *offs = b_.CreateMul(lane, splat(b_.getInt64(it->second.second)));
    return b_.CreateAdd(splat(base), offs, e.slot->name);
  }
  case ExprKind::PtrAdd: {
    Value *p = operand(e, *e.ops[0]);
    Value *off = operand(e, *e.ops[1]);
    off = emitCast(b_, off, e.ops[1]->type, ir::Type::i64(true));
    return b_.CreateAdd(p, off, "ptradd");
  }
  }
  return nullptr;
}

} // namespace kern::backend::warp

namespace kern::backend {

using llvm::Type;

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
  if (ir::runsBlockInRegions(f))
    mc.regionKernels.insert(&f);
  if (ir::BlockLevelPlan plan = blockFormPlan(mc.ir, f, mc.options); plan.eligible) {
    auto *block = llvm::Function::Create(fn->getFunctionType(), llvm::Function::ExternalLinkage,
                                         f.name + kBlockFormSuffix, mc.module);
    block->getArg(0)->setName("ctx");
    setCommonAttributes(block);
    mc.blockLevelKernels[&f] = std::move(plan);
    mc.blockForms[&f] = block;
  }
  mc.warpFunctions[&f] = fn;
  return fn;
}

void emitWarpFunction(ModuleContext &mc, const ir::Function &f) {
  auto it = mc.warpFunctions.find(&f);
  if (it == mc.warpFunctions.end()) {
    mc.fail("internal error: warp function " + f.name + " was not declared");
    return;
  }
  warp::WarpCodegen(mc, f, it->second).emit();
  if (auto plan = mc.blockLevelKernels.find(&f); plan != mc.blockLevelKernels.end())
    warp::WarpCodegen(mc, f, mc.blockForms.at(&f)).emitWholeBlock(plan->second);
}

} // namespace kern::backend
