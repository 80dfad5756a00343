// The warp's modelled SM clock (clock(), clock64()): what each operation, load and barrier adds
// to it, by the figures the runtime puts in KernWarpCtx (runtime/timing.h, clockFigures).
#include "backend/warp_codegen_impl.h"

namespace kern::backend::warp {

void WarpCodegen::advanceClock(unsigned ctxField, unsigned n) {
  if (!clockModel() || n == 0)
    return;
  Type *i64 = b_.getInt64Ty();
  Value *addr = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), warp_, kWarpTicks);
  Value *step = b_.CreateZExt(loadCtx(ctxField, b_.getInt32Ty(), "clock.step"), i64);
  if (n != 1)
    step = b_.CreateMul(step, b_.getInt64(n));
  b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64, addr, "ticks"), step), addr);
}

Value *WarpCodegen::blockClockSlot() {
  // Barriers alternate between two slots: a warp that has left barrier k and reaches k + 1
  // must not raise the clock that the warps still to leave barrier k read. Every warp has left
  // barrier k before any reaches k + 2, and clocks only grow, so a slot needs no reset.
  Type *i64 = b_.getInt64Ty();
  Value *passed =
      b_.CreateLoad(i64, b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), warp_, kWarpBarriers));
  return b_.CreateGEP(i64, loadCtx(kCtxBlockClock, b_.getPtrTy(), "block.clock"),
                      b_.CreateAnd(passed, b_.getInt64(1)), "block.clock.slot");
}

void WarpCodegen::clockBeforeBarrier() {
  if (!clockModel())
    return;
  Type *i64 = b_.getInt64Ty();
  Value *slot = blockClockSlot();
  Value *ticks =
      b_.CreateLoad(i64, b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), warp_, kWarpTicks));
  b_.CreateStore(b_.CreateBinaryIntrinsic(llvm::Intrinsic::umax, b_.CreateLoad(i64, slot), ticks),
                 slot);
}

void WarpCodegen::clockAfterBarrier() {
  if (!clockModel())
    return;
  Type *i64 = b_.getInt64Ty();
  Value *met = b_.CreateLoad(i64, blockClockSlot(), "block.met");
  Value *cost = b_.CreateZExt(loadCtx(kCtxClockBarrier, b_.getInt32Ty(), "barrier.cost"), i64);
  b_.CreateStore(b_.CreateAdd(met, cost),
                 b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), warp_, kWarpTicks));
  Value *passed = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), warp_, kWarpBarriers);
  b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64, passed), b_.getInt64(1)), passed);
}

} // namespace kern::backend::warp
