// The warp's match instruction (__match_any_sync): for each lane, the lanes whose value has the
// same bits, among those the lane names in its mask that are active.
#include "backend/warp_codegen_impl.h"

namespace kern::backend::warp {

Value *WarpCodegen::emitMatchAny(Value *laneMask, Value *value) {
  // Bits, not values: match compares bit patterns (-0.0 and 0.0 differ, a NaN matches itself).
  auto *vecTy = llvm::cast<llvm::FixedVectorType>(value->getType());
  unsigned bitsWide = vecTy->getScalarSizeInBits();
  Type *intTy = b_.getIntNTy(bitsWide);
  if (!vecTy->getElementType()->isIntegerTy())
    value = b_.CreateBitCast(value, warpVector(intTy), "match.bits");
  Type *i32 = b_.getInt32Ty();
  Value *result = llvm::Constant::getNullValue(warpVector(i32));
  // Lane l's answer is the lanes equal to its own value: one compare of the warp per lane.
  for (unsigned l = 0; l < kWarpSize; ++l) {
    Value *own = b_.CreateExtractElement(value, b_.getInt32(l));
    Value *same = bits(b_.CreateICmpEQ(value, splat(own)), "match.same");
    result = b_.CreateInsertElement(result, same, b_.getInt32(l));
  }
  return b_.CreateAnd(result, b_.CreateAnd(laneMask, splat(bits(cur(), "match.active"))), "match");
}

} // namespace kern::backend::warp
