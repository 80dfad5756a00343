// Kernels that run a whole block per call (ir::runsBlockInRegions): the code between barriers
// runs for every warp of the block in a loop inside the function, as PoCL's work-group loops
// run work-items, instead of one call (and one suspension) per warp per barrier.
//
// The function is a phase loop around a warp loop around the kernel's body. The first field
// of each warp's part of the frame says where it goes on: the entry (every warp, in the first
// phase), a barrier's resumption, or nowhere (it returned). A warp that reaches a barrier notes
// which one there and the loop goes on to the next warp; when every warp has had its turn the
// phase is judged: where all arrived inline at the same barrier the runtime only releases it
// (kern_rt_region_release), where all returned the block is over, and otherwise the runtime
// looks at each warp (kern_rt_region_phase: released, a misuse reported, or the block let go
// after a fault or a stop). The order of everything is the fibers' order: warp by warp, each to
// its next barrier.
//
// Written first as if each warp ran alone, the body uses values across its barriers that the
// resumption does not see; finishRegions turns each such value into a stack slot
// (DemoteRegToStack) and each slot whose value a warp needs after a barrier into a field of
// the warp's part of the frame. The others stay registers of one warp's turn.
#include "backend/warp_codegen_impl.h"

#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Transforms/Utils/Local.h>

#include <deque>

namespace kern::backend::warp {

void WarpCodegen::beginRegions() {
  Type *i32 = b_.getInt32Ty(), *i64 = b_.getInt64Ty();
  rg_.ctx0 = ctx_;
  rg_.warps = blockWarps();
  // Whether a warp may arrive inline is the same for every warp of the launch. Code compiled
  // without counters does so only while none are being counted.
  Value *inlineMode = loadCtx(kCtxBarrierInline, i32, "barrier.inline");
  rg_.inlineAllowed = b_.CreateICmpNE(inlineMode, b_.getInt32(0), "barrier.inline.allowed");
  rg_.aloneInline = b_.CreateICmpEQ(inlineMode, b_.getInt32(2), "barrier.alone");
  if (!mc_.options.counters)
    rg_.inlineAllowed = b_.CreateAnd(
        rg_.inlineAllowed, b_.CreateICmpEQ(loadCtx(kCtxCounters, b_.getPtrTy(), "counters"),
                                           llvm::ConstantPointerNull::get(b_.getPtrTy())));
  // The stride is known once the body is written: a placeholder until then.
  rg_.stride = llvm::BinaryOperator::CreateAdd(b_.getInt64(0), b_.getInt64(0), "frame.stride");
  b_.Insert(rg_.stride);
  Value *bytes = b_.CreateMul(b_.CreateZExt(rg_.warps, i64), rg_.stride, "frame.bytes");
  // Its memory is the frame's alone (as malloc's): what the body stores elsewhere never lands
  // there.
  runtime(RuntimeFunction::kern_rt_region_frame)->addRetAttr(llvm::Attribute::NoAlias);
  Value *frame = b_.CreateCall(runtime(RuntimeFunction::kern_rt_region_frame),
                               {ctx_, bytes, b_.getInt64(64)}, "frame");
  if (mc_.options.counters) {
    // Counted for the whole block: every warp's context has the same view, and a warp's key
    // is warp 0's plus its index.
    startInstructions();
    loadCounterView(ctx_);
    rg_.blockKey = emitWarpKey();
  }
  BasicBlock *entry = b_.GetInsertBlock();
  auto *init = newBlock("frame.init");
  auto *phaseHead = newBlock("phase");
  auto *warpHead = newBlock("warp");
  auto *warpStart = newBlock("warp.start");
  auto *notStarted = newBlock("warp.not.started");
  auto *bodyEntry = newBlock("warp.entry");
  rg_.warpNext = newBlock("warp.next");
  auto *phaseEnd = newBlock("phase.end");
  auto *done = newBlock("block.done");
  auto *bad = newBlock("warp.resume.none");
  b_.CreateBr(init);

  // Every warp starts at the entry.
  b_.SetInsertPoint(init);
  auto *iw = b_.CreatePHI(i32, 2, "init.warp");
  b_.CreateStore(b_.getInt32(Regions::kStart),
                 b_.CreateInBoundsGEP(b_.getInt8Ty(), frame,
                                      b_.CreateMul(b_.CreateZExt(iw, i64), rg_.stride)));
  Value *nextIw = b_.CreateAdd(iw, b_.getInt32(1));
  b_.CreateCondBr(b_.CreateICmpULT(nextIw, rg_.warps), init, phaseHead);
  iw->addIncoming(b_.getInt32(0), entry);
  iw->addIncoming(nextIw, init);

  b_.SetInsertPoint(phaseHead);
  b_.CreateBr(warpHead);

  b_.SetInsertPoint(warpHead);
  auto *w = b_.CreatePHI(i32, 2, "warp");
  // Where the warps of the phase wait: the AND and the OR of the sites at which they arrived
  // (or kFinished, kNoSite), and the lanes of their predicates. Equal AND and OR: every warp
  // waits at the same barrier, or every warp returned.
  auto *sitesAnd = b_.CreatePHI(i32, 2, "sites.and");
  auto *sitesOr = b_.CreatePHI(i32, 2, "sites.or");
  auto *count = b_.CreatePHI(i32, 2, "pred.count");
  ctx_ = b_.CreateInBoundsGEP(b_.getInt8Ty(), rg_.ctx0,
                              b_.CreateMul(b_.CreateZExt(w, i64), b_.getInt64(sizeof(KernWarpCtx))),
                              "ctx");
  rg_.frame = b_.CreateInBoundsGEP(b_.getInt8Ty(), frame,
                                   b_.CreateMul(b_.CreateZExt(w, i64), rg_.stride), "warp.frame");
  if (mc_.options.counters)
    warpKey_ = b_.CreateOr(rg_.blockKey, b_.CreateZExt(w, i64), "warp.key");
  rg_.resume = b_.CreateSwitch(b_.CreateLoad(i32, rg_.frame, "resume.at"), bad);
  rg_.resume->addCase(b_.getInt32(Regions::kDone), rg_.warpNext);
  rg_.resume->addCase(b_.getInt32(Regions::kStart), warpStart);
  rg_.arrivedAt = llvm::PHINode::Create(i32, 4, "arrived.at");
  rg_.arrivedPred = llvm::PHINode::Create(i32, 4, "arrived.pred");
  rg_.arrivedAt->insertInto(rg_.warpNext, rg_.warpNext->end());
  rg_.arrivedPred->insertInto(rg_.warpNext, rg_.warpNext->end());
  rg_.arrivedAt->addIncoming(b_.getInt32(Regions::kNoSite), warpHead);
  rg_.arrivedPred->addIncoming(b_.getInt32(0), warpHead);

  b_.SetInsertPoint(warpStart);
  // A warp starts only while the block has no fault and need not stop (FiberPool::pickSlow).
  Value *starts = b_.CreateCall(runtime(RuntimeFunction::kern_rt_region_start), {ctx_}, "starts");
  b_.CreateCondBr(b_.CreateICmpNE(starts, b_.getInt32(0)), bodyEntry, notStarted);
  b_.SetInsertPoint(notStarted);
  b_.CreateStore(b_.getInt32(Regions::kDone), rg_.frame);
  b_.CreateBr(rg_.warpNext);
  rg_.arrivedAt->addIncoming(b_.getInt32(Regions::kNoSite), notStarted);
  rg_.arrivedPred->addIncoming(b_.getInt32(0), notStarted);
  b_.SetInsertPoint(bad);
  b_.CreateUnreachable();

  b_.SetInsertPoint(rg_.warpNext);
  Value *nextW = b_.CreateAdd(w, b_.getInt32(1), "warp.next");
  Value *nextAnd = b_.CreateAnd(sitesAnd, rg_.arrivedAt, "sites.and.next");
  Value *nextOr = b_.CreateOr(sitesOr, rg_.arrivedAt, "sites.or.next");
  Value *nextCount = b_.CreateAdd(
      count, b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, rg_.arrivedPred), "pred.count.next");
  b_.CreateCondBr(b_.CreateICmpULT(nextW, rg_.warps), warpHead, phaseEnd);
  w->addIncoming(b_.getInt32(0), phaseHead);
  w->addIncoming(nextW, rg_.warpNext);
  sitesAnd->addIncoming(b_.getInt32(Regions::kNoSite), phaseHead);
  sitesAnd->addIncoming(nextAnd, rg_.warpNext);
  sitesOr->addIncoming(b_.getInt32(0), phaseHead);
  sitesOr->addIncoming(nextOr, rg_.warpNext);
  count->addIncoming(b_.getInt32(0), phaseHead);
  count->addIncoming(nextCount, rg_.warpNext);

  // Every warp returned in this phase: the block is over (FiberPool::endPhase, with no warp
  // waiting). Every warp waits at the same barrier, where it arrived inline: the runtime need
  // only release it. Otherwise it looks at each warp.
  b_.SetInsertPoint(phaseEnd);
  auto *notAllDone = newBlock("phase.waiting");
  auto *judge = newBlock("phase.judge");
  auto *release = newBlock("phase.release");
  auto *judged = newBlock("phase.judged");
  Value *same = b_.CreateICmpEQ(nextAnd, nextOr, "phase.same");
  b_.CreateCondBr(b_.CreateAnd(same, b_.CreateICmpEQ(nextOr, b_.getInt32(Regions::kFinished))),
                  done, notAllDone);
  b_.SetInsertPoint(notAllDone);
  b_.CreateCondBr(b_.CreateAnd(same, b_.CreateICmpULT(nextOr, b_.getInt32(Regions::kFinished))),
                  release, judge);
  b_.SetInsertPoint(release);
  Value *released = b_.CreateCall(runtime(RuntimeFunction::kern_rt_region_release),
                                  {rg_.ctx0, nextCount}, "released");
  b_.CreateBr(judged);
  b_.SetInsertPoint(judge);
  Value *phaseOver =
      b_.CreateCall(runtime(RuntimeFunction::kern_rt_region_phase), {rg_.ctx0}, "phase.over");
  b_.CreateBr(judged);
  b_.SetInsertPoint(judged);
  auto *more = b_.CreatePHI(i32, 2, "more");
  more->addIncoming(released, release);
  more->addIncoming(phaseOver, judge);
  b_.CreateCondBr(b_.CreateICmpNE(more, b_.getInt32(0)), phaseHead, done);
  rg_.done = done; // emit() ends it

  b_.SetInsertPoint(bodyEntry);
}

void WarpCodegen::emitRegionBarrier(ir::SiteId site, Value *mask, Value *pred, int32_t op) {
  // Where the runtime allows it (rg_.inlineAllowed) and every live lane is here, the warp
  // arrives by noting where it waits; the runtime judges the phase. Otherwise
  // kern_rt_barrier_arrive judges the arrival (a divergent barrier, a block of one warp, which
  // goes on at once). Code compiled with counters counts the arrival itself; code compiled
  // without them leaves any counters there are to the runtime.
  auto *inlineBB = newBlock("barrier.inline");
  auto *callBB = newBlock("barrier.call");
  auto *waitBB = newBlock("barrier.wait");
  auto *resumedBB = newBlock("barrier.resumed");
  Value *whole =
      b_.CreateICmpEQ(mask, loadCtx(kCtxLiveMask, b_.getInt32Ty(), "live"), "barrier.whole");
  b_.CreateCondBr(b_.CreateAnd(rg_.inlineAllowed, whole), inlineBB, callBB);
  b_.SetInsertPoint(inlineBB);
  if (mc_.options.counters)
    incrementSiteCounter(site, offsetof(KernSiteCounters, barriersExecuted));
  if (op < 0) {
    // A plain barrier in a block of one warp, whose every live lane is here: released at once
    // (as kern_rt_barrier_arrive releases it, with nothing to combine).
    auto *waitsBB = newBlock("barrier.waits");
    b_.CreateCondBr(rg_.aloneInline, resumedBB, waitsBB);
    b_.SetInsertPoint(waitsBB);
  }
  b_.CreateStore(b_.getInt32(site), ctxAddr(kCtxWaitSite));
  b_.CreateStore(b_.getInt32(static_cast<uint32_t>(op)), ctxAddr(kCtxWaitOp));
  b_.CreateStore(pred, ctxAddr(kCtxWaitPred));
  // Where the warp goes on: after kDone and kStart, one number per resumption.
  auto *at = b_.getInt32(rg_.resume->getNumCases());
  b_.CreateStore(at, rg_.frame);
  b_.CreateBr(rg_.warpNext);
  rg_.arrivedAt->addIncoming(b_.getInt32(site), b_.GetInsertBlock());
  rg_.arrivedPred->addIncoming(pred, b_.GetInsertBlock());
  b_.SetInsertPoint(callBB);
  Value *r = b_.CreateCall(
      runtime(RuntimeFunction::kern_rt_barrier_arrive),
      {ctx_, b_.getInt32(site), mask, pred, b_.getInt32(static_cast<uint32_t>(op))}, "arrived");
  // 0: wait; 2: released at once; 1: a fault.
  auto *arrived = b_.CreateSwitch(r, exit_, 2);
  arrived->addCase(b_.getInt32(0), waitBB);
  arrived->addCase(b_.getInt32(2), resumedBB);
  b_.SetInsertPoint(waitBB);
  b_.CreateStore(at, rg_.frame);
  b_.CreateBr(rg_.warpNext);
  rg_.arrivedAt->addIncoming(b_.getInt32(Regions::kNoSite), waitBB);
  rg_.arrivedPred->addIncoming(b_.getInt32(0), waitBB);
  rg_.resume->addCase(at, resumedBB);
  b_.SetInsertPoint(resumedBB);
  returnIfFaulted();
}

namespace {

/// Whether `a` is only loaded and stored whole, so that where its value is needed can be
/// followed block by block.
bool plainSlot(llvm::AllocaInst *a, const llvm::DataLayout &dl) {
  const uint64_t size = dl.getTypeStoreSize(a->getAllocatedType());
  for (llvm::User *u : a->users()) {
    if (auto *l = llvm::dyn_cast<llvm::LoadInst>(u)) {
      if (l->isVolatile())
        return false;
    } else if (auto *s = llvm::dyn_cast<llvm::StoreInst>(u)) {
      if (s->getPointerOperand() != a || s->isVolatile() ||
          dl.getTypeStoreSize(s->getValueOperand()->getType()) != size)
        return false;
    } else {
      return false;
    }
  }
  return true;
}

/// Whether a warp may read slot `a` after a barrier before writing it: a load of it is
/// reachable from a resumption without a store on the way. The warp's turn ends at `warpNext`
/// (what follows is another warp's turn).
bool liveAcrossBarriers(llvm::AllocaInst *a, const std::vector<llvm::BasicBlock *> &resumptions,
                        llvm::BasicBlock *warpNext) {
  // Per block: 1 if its first access of `a` is a load, 2 if it is a store, 0 if none.
  std::map<llvm::BasicBlock *, int> first;
  for (llvm::User *u : a->users()) {
    auto *i = llvm::cast<llvm::Instruction>(u);
    llvm::BasicBlock *bb = i->getParent();
    if (first.count(bb))
      continue;
    for (llvm::Instruction &j : *bb) {
      if (auto *l = llvm::dyn_cast<llvm::LoadInst>(&j); l && l->getPointerOperand() == a) {
        first[bb] = 1;
        break;
      }
      if (auto *s = llvm::dyn_cast<llvm::StoreInst>(&j); s && s->getPointerOperand() == a) {
        first[bb] = 2;
        break;
      }
    }
  }
  // Backwards from each block that loads first, through blocks that do not touch the slot.
  std::set<llvm::BasicBlock *> live;
  std::deque<llvm::BasicBlock *> work;
  for (auto &[bb, kind] : first)
    if (kind == 1) {
      live.insert(bb);
      work.push_back(bb);
    }
  while (!work.empty()) {
    llvm::BasicBlock *bb = work.front();
    work.pop_front();
    for (llvm::BasicBlock *p : llvm::predecessors(bb)) {
      if (p == warpNext || live.count(p))
        continue;
      auto it = first.find(p);
      if (it != first.end())
        continue; // it loads first (already live) or stores first (the value starts there)
      live.insert(p);
      work.push_back(p);
    }
  }
  for (llvm::BasicBlock *r : resumptions)
    if (live.count(r))
      return true;
  return false;
}

} // namespace

void WarpCodegen::finishRegions() {
  llvm::BasicBlock &entry = fn_->getEntryBlock();
  const llvm::DataLayout &dl = mc_.module.getDataLayout();
  // Slots made while the body was written (the local frame) are the function's, not a turn's.
  for (llvm::BasicBlock &bb : *fn_) {
    if (&bb == &entry)
      continue;
    for (llvm::Instruction &i : llvm::make_early_inc_range(bb))
      if (auto *a = llvm::dyn_cast<llvm::AllocaInst>(&i);
          a && llvm::isa<llvm::ConstantInt>(a->getArraySize()))
        a->moveBefore(&*entry.getFirstInsertionPt());
  }
  // Values used where their definition does not dominate (after a barrier, whose resumption
  // the dispatch reaches too) go through a stack slot.
  {
    llvm::DominatorTree dt(*fn_);
    std::vector<llvm::Instruction *> cut;
    for (llvm::BasicBlock &bb : *fn_)
      for (llvm::Instruction &i : bb) {
        if (llvm::isa<llvm::AllocaInst>(i) && &bb == &entry)
          continue;
        for (llvm::Use &u : i.uses())
          if (!dt.dominates(&i, u)) {
            cut.push_back(&i);
            break;
          }
      }
    for (llvm::Instruction *i : cut)
      llvm::DemoteRegToStack(*i);
  }
  // Slots a warp needs after a barrier become fields of its part of the frame; the resumption
  // index is the first field.
  std::vector<llvm::BasicBlock *> resumptions;
  for (auto c : rg_.resume->cases())
    if (c.getCaseValue()->getZExtValue() > Regions::kStart)
      resumptions.push_back(c.getCaseSuccessor());
  std::vector<llvm::AllocaInst *> kept;
  for (llvm::Instruction &i : entry)
    if (auto *a = llvm::dyn_cast<llvm::AllocaInst>(&i); a && !blockSlots_.count(a))
      if (!plainSlot(a, dl) || liveAcrossBarriers(a, resumptions, rg_.warpNext))
        kept.push_back(a);
  uint64_t offset = 16;
  llvm::BasicBlock *warpHead = llvm::cast<llvm::Instruction>(rg_.frame)->getParent();
  Builder fb(warpHead, warpHead->getTerminator()->getIterator());
  for (llvm::AllocaInst *a : kept) {
    const uint64_t align = std::max<uint64_t>(a->getAlign().value(), 16);
    const uint64_t size = dl.getTypeAllocSize(a->getAllocatedType()) *
                          llvm::cast<llvm::ConstantInt>(a->getArraySize())->getZExtValue();
    offset = (offset + align - 1) / align * align;
    Value *field =
        fb.CreateConstInBoundsGEP1_64(fb.getInt8Ty(), rg_.frame, offset, a->getName() + ".kept");
    offset += size;
    a->replaceAllUsesWith(field);
    a->eraseFromParent();
  }
  const uint64_t stride = (offset + 63) / 64 * 64;
  rg_.stride->replaceAllUsesWith(b_.getInt64(stride));
  rg_.stride->eraseFromParent();
}

void WarpCodegen::returnIfFaulted() {
  auto *okBB = newBlock("no.fault");
  Value *fault = loadCtx(kCtxFault, b_.getInt32Ty(), "fault");
  unlikelyBr(b_.CreateICmpNE(fault, b_.getInt32(0), "faulted"), exit_, okBB);
  b_.SetInsertPoint(okBB);
}

} // namespace kern::backend::warp
