// Barriers of kernels compiled as coroutines (ir::suspendsAtBarriers): the arrival, inline where
// the runtime allows it, the suspension and the resumption; the return after a fault; and the
// inline add to a site's counter that barriers and branches share.
#include "backend/warp_codegen_impl.h"

namespace kern::backend::warp {

void WarpCodegen::emitCoroBarrier(ir::SiteId site, Value *mask, Value *pred, int32_t op) {
  // Where the runtime allows it (ctx->barrierInline) and every live lane is here, the warp
  // arrives by noting where it waits and suspending; the runtime's phase loop does the rest.
  // Otherwise kern_rt_barrier_arrive judges the arrival (a divergent barrier, a block of one
  // warp, which goes on at once). Code compiled with counters counts the arrival itself; code
  // compiled without them leaves any counters there are to the runtime.
  auto *inlineBB = newBlock("barrier.inline");
  auto *callBB = newBlock("barrier.call");
  auto *suspendBB = newBlock("barrier.suspend");
  auto *resumedBB = newBlock("barrier.resumed");
  Value *allowed = b_.CreateICmpNE(loadCtx(kCtxBarrierInline, b_.getInt32Ty(), "barrier.inline"),
                                   b_.getInt32(0));
  Value *whole =
      b_.CreateICmpEQ(mask, loadCtx(kCtxLiveMask, b_.getInt32Ty(), "live"), "barrier.whole");
  Value *nullPtr = llvm::ConstantPointerNull::get(b_.getPtrTy());
  if (!mc_.options.counters)
    allowed = b_.CreateAnd(
        allowed, b_.CreateICmpEQ(loadCtx(kCtxCounters, b_.getPtrTy(), "counters"), nullPtr));
  b_.CreateCondBr(b_.CreateAnd(allowed, whole), inlineBB, callBB);
  b_.SetInsertPoint(inlineBB);
  if (mc_.options.counters) {
    auto *countBB = newBlock("barrier.count");
    auto *countedBB = newBlock("barrier.counted");
    b_.CreateCondBr(b_.CreateICmpNE(counterView_, nullPtr), countBB, countedBB);
    b_.SetInsertPoint(countBB);
    incrementSiteCounter(site, offsetof(KernSiteCounters, barriersExecuted));
    b_.CreateBr(countedBB);
    b_.SetInsertPoint(countedBB);
  }
  b_.CreateStore(b_.getInt32(site), ctxAddr(kCtxWaitSite));
  b_.CreateStore(b_.getInt32(static_cast<uint32_t>(op)), ctxAddr(kCtxWaitOp));
  b_.CreateStore(pred, ctxAddr(kCtxWaitPred));
  b_.CreateBr(suspendBB);
  b_.SetInsertPoint(callBB);
  Value *r = b_.CreateCall(
      runtime(RuntimeFunction::kern_rt_barrier_arrive),
      {ctx_, b_.getInt32(site), mask, pred, b_.getInt32(static_cast<uint32_t>(op))}, "arrived");
  // 0: suspend; 2: released at once; 1: a fault.
  auto *arrived = b_.CreateSwitch(r, exit_, 2);
  arrived->addCase(b_.getInt32(0), suspendBB);
  arrived->addCase(b_.getInt32(2), resumedBB);
  b_.SetInsertPoint(suspendBB);
  Value *st =
      b_.CreateIntrinsic(llvm::Intrinsic::coro_suspend, {},
                         {llvm::ConstantTokenNone::get(c_), b_.getFalse()}, nullptr, "suspend");
  // 0: resumed; 1: destroyed (never done: the runtime drops frames); otherwise: suspended.
  auto *sw = b_.CreateSwitch(st, coroEnd_, 2);
  sw->addCase(b_.getInt8(0), resumedBB);
  sw->addCase(b_.getInt8(1), coroEnd_);
  b_.SetInsertPoint(resumedBB);
  returnIfFaulted();
}

void WarpCodegen::incrementSiteCounter(ir::SiteId site, size_t field) {
  Value *sites = b_.CreateLoad(
      b_.getPtrTy(), b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), counterView_, kViewSites),
      "site.table");
  Value *p = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), sites,
                                           uint64_t(site) * sizeof(KernSiteCounters) + field);
  b_.CreateStore(b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), p), b_.getInt64(1)), p);
}

void WarpCodegen::returnIfFaulted() {
  auto *okBB = newBlock("no.fault");
  Value *fault = loadCtx(kCtxFault, b_.getInt32Ty(), "fault");
  unlikelyBr(b_.CreateICmpNE(fault, b_.getInt32(0), "faulted"), exit_, okBB);
  b_.SetInsertPoint(okBB);
}

} // namespace kern::backend::warp
