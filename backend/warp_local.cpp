// Loads and stores of direct local slots (ir::LocalSlot::direct): slots whose address is never a
// value, only the base of their function's own accesses. Their 32 copies are interleaved by
// 32-bit words, word w of lane l at the slot's base + (w * 32 + l) * 4, as the GPU interleaves
// local memory: the lanes' copies of one word are contiguous. An access at a warp-uniform offset
// (a member of a local struct, `this->e[i]` in a loop over i) is then one plain vector access
// per word instead of a gather or scatter of 32 lanes, and one at a constant offset inside the
// slot needs no check at all. Other slots keep one contiguous copy per lane (warp_codegen.cpp),
// which a generic pointer can reach. Here too: where a function's frame is placed.
#include "backend/warp_codegen_impl.h"
#include "ir/analysis.h"

namespace kern::backend::warp {

void WarpCodegen::emitLocalFrame(bool isKernel) {
  // Local slots: one frame per function, 32 copies of each slot so every lane's local address
  // is distinct (lane l's copy at base + l * stride), as each GPU thread has its own.
  uint64_t frameBytes = 0, frameAlign = 16;
  // A direct slot's copies are interleaved by 32-bit words instead (see above).
  for (auto *slot : f_.slots) {
    uint64_t align = slot->direct ? 16 : std::max<uint64_t>(slot->align, 1);
    uint64_t stride = slot->direct
                          ? (std::max<uint64_t>(slot->size, 1) + 3) / 4 * 4
                          : (std::max<uint64_t>(slot->size, 1) + align - 1) / align * align;
    frameBytes = (frameBytes + align - 1) / align * align;
    slots_[slot] = {frameBytes, stride};
    frameBytes += stride * kWarpSize;
    frameAlign = std::max(frameAlign, align);
  }
  frameBytes = std::max<uint64_t>(frameBytes, 16);
  Type *i64 = b_.getInt64Ty();
  if (ir::frameInLocalMemory(f_)) {
    // Too large for the stack: taken below KernWarpCtx::localSp, which the call site (or, for
    // a kernel, the runtime) made sure has room for it, and given back at the exit.
    callerLocalSp_ = loadCtx(kCtxLocalSp, i64, "local.sp");
    localLo_ = b_.CreateAnd(b_.CreateSub(callerLocalSp_, b_.getInt64(frameBytes)),
                            b_.getInt64(~(frameAlign - 1)), "local.lo");
    b_.CreateStore(localLo_, ctxAddr(kCtxLocalSp));
    frame_ = b_.CreateIntToPtr(localLo_, b_.getPtrTy(), "local.frame");
  } else {
    auto *frame =
        b_.CreateAlloca(llvm::ArrayType::get(b_.getInt8Ty(), frameBytes), nullptr, "local.frame");
    frame->setAlignment(llvm::Align(frameAlign));
    frame_ = frame;
    localLo_ = b_.CreatePtrToInt(frame_, i64, "local.lo");
  }
  windowLo_ = b_.CreatePtrToInt(
      b_.CreateIntrinsic(llvm::Intrinsic::stacksave, {b_.getPtrTy()}, {}, nullptr, "stack.low"),
      i64, "local.window.lo");
  if (isKernel) {
    auto *state = b_.CreateAlloca(llvm::ArrayType::get(b_.getInt8Ty(), kWarpStateBytes), nullptr,
                                  "warp.state");
    state->setAlignment(llvm::Align(8));
    warp_ = state;
    // The frame's top (the return address's slot) bounds the slots of inlined functions too.
    Value *frameTop = b_.CreatePtrToInt(
        b_.CreateIntrinsic(llvm::Intrinsic::addressofreturnaddress, {b_.getPtrTy()}, {}), i64,
        "frame.top");
    localHi_ = callerLocalSp_
                   ? frameTop
                   : b_.CreateBinaryIntrinsic(llvm::Intrinsic::umax,
                                              b_.CreateAdd(localLo_, b_.getInt64(frameBytes)),
                                              frameTop, nullptr, "local.hi");
    b_.CreateStore(localHi_, warp_);
    b_.CreateStore(b_.getInt64(0),
                   b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), warp_, kWarpTicks));
    b_.CreateStore(b_.getInt64(0),
                   b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), warp_, kWarpBarriers));
  } else {
    localHi_ = b_.CreateLoad(i64, warp_, "local.hi");
  }
  loadLocalMemoryWindow();
}

void WarpCodegen::loadLocalMemoryWindow() {
  // Below localSp lie only the frames of functions that have returned (or are yet to be
  // called): a generic pointer there is as dangling as one below the stack pointer.
  if (!mc_.localMemory) {
    regionLo_ = regionHi_ = nullptr;
    return;
  }
  regionLo_ = loadCtx(kCtxLocalSp, b_.getInt64Ty(), "local.memory.lo");
  regionHi_ = loadCtx(kCtxLocalTop, b_.getInt64Ty(), "local.memory.hi");
}

Value *WarpCodegen::emitDirectLocal(AccessOp op, const ir::Expr &addr, ir::Type type,
                                    const ir::LocalSlot &slot, ir::SiteId site,
                                    const ir::Expr *value) {
  auto slotIt = slots_.find(&slot);
  if (slotIt == slots_.end()) {
    mc_.fail("internal error: unknown local slot in " + f_.name);
    return op == AccessOp::Load ? llvm::PoisonValue::get(vecTy(type)) : nullptr;
  }
  // The byte offset from the slot's start: the pointer additions down to the slot's address,
  // the innermost first, as the address itself would be computed.
  std::vector<const ir::Expr *> chain;
  int64_t constant = 0;
  const ir::Expr *p = &addr;
  for (; p->kind == ir::ExprKind::PtrAdd || p->kind == ir::ExprKind::Cast; p = p->ops[0])
    if (p->kind == ir::ExprKind::PtrAdd) {
      if (p->ops[1]->kind == ir::ExprKind::Const)
        constant += p->ops[1]->intValue;
      else
        chain.push_back(p->ops[1]);
    }
  if (p->kind != ir::ExprKind::LocalAddr || p->slot != &slot) {
    mc_.fail("internal error: direct local access not based on its slot in " + f_.name);
    return op == AccessOp::Load ? llvm::PoisonValue::get(vecTy(type)) : nullptr;
  }
  Value *off = nullptr; // i64, or <32 x i64> where lanes differ
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    Value *v = emitExpr(**it);
    if (!off)
      off = v;
    else if (v->getType()->isVectorTy() || off->getType()->isVectorTy())
      off = b_.CreateAdd(vec(off), vec(v), "local.offset");
    else
      off = b_.CreateAdd(off, v, "local.offset");
  }
  if (!off)
    off = b_.getInt64(constant);
  else if (constant != 0)
    off = b_.CreateAdd(off, off->getType()->isVectorTy() ? splat(b_.getInt64(constant))
                                                         : b_.getInt64(constant));
  Value *stored = op == AccessOp::Store ? emitVec(*value) : nullptr;
  Value *m = cur();
  if (!off->getType()->isVectorTy())
    return directLocalAccess(op, type, slot, site, off, stored, m);
  // Offsets computed per lane are still the same in every active lane nearly always (an index
  // that the uniformity analysis must call varying because it is assigned under a varying
  // condition, a loop LLVM unrolls into constants): then the uniform access, else a gather.
  Value *first = b_.CreateExtractElement(
      off,
      b_.CreateAnd(
          b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, bits(m, "local.lanes"), b_.getFalse()),
          b_.getInt32(kWarpSize - 1)),
      "local.offset.first");
  Value *same = b_.CreateUnaryIntrinsic(
      llvm::Intrinsic::vector_reduce_and,
      b_.CreateOr(b_.CreateICmpEQ(off, splat(first)), b_.CreateNot(m)), nullptr, "local.same");
  auto *sameBB = newBlock("local.uniform");
  auto *otherBB = newBlock("local.lanes");
  auto *doneBB = newBlock("local.done");
  b_.CreateCondBr(same, sameBB, otherBB);
  b_.SetInsertPoint(sameBB);
  Value *v1 = directLocalAccess(op, type, slot, site, first, stored, m);
  BasicBlock *sameEnd = b_.GetInsertBlock();
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(otherBB);
  Value *v2 = directLocalAccess(op, type, slot, site, off, stored, m);
  BasicBlock *otherEnd = b_.GetInsertBlock();
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(doneBB);
  if (!v1)
    return nullptr;
  auto *phi = b_.CreatePHI(v1->getType(), 2, "local.value");
  phi->addIncoming(v1, sameEnd);
  phi->addIncoming(v2, otherEnd);
  return phi;
}

Value *WarpCodegen::directLocalAccess(AccessOp op, ir::Type type, const ir::LocalSlot &slot,
                                      ir::SiteId site, Value *off, Value *stored, Value *m) {
  Type *i64 = b_.getInt64Ty();
  Type *i32 = b_.getInt32Ty();
  Type *i64v = warpVector(i64);
  const unsigned size = type.bytes();
  auto slotIt = slots_.find(&slot);
  const bool varying = off->getType()->isVectorTy();
  Value *slotBase = b_.CreateAdd(localLo_, b_.getInt64(slotIt->second.first), slot.name + ".base");

  // Checks: inside the slot, and naturally aligned (relative to the slot, whose copies are
  // aligned to 16). A fault reports the address the lane's copy would have in a contiguous one.
  const int64_t last = static_cast<int64_t>(slot.size) - static_cast<int64_t>(size);
  auto laneAddresses = [&] {
    Value *lanes =
        b_.CreateMul(b_.CreateZExt(laneIds(), i64v), splat(b_.getInt64(slotIt->second.second)));
    return b_.CreateAdd(b_.CreateAdd(splat(slotBase), lanes), vec(off), "fault.addrs");
  };
  if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(off)) {
    const int64_t o = c->getSExtValue();
    const bool inside = o >= 0 && o <= last;
    if (!inside || o % static_cast<int64_t>(size) != 0)
      faultIf(m, inside ? KERN_FAULT_MISALIGNED : KERN_FAULT_LOCAL_OOB, site, laneAddresses());
  } else {
    Value *zero = varying ? llvm::Constant::getNullValue(i64v) : b_.getInt64(0);
    Value *lastV = varying ? splat(b_.getInt64(last)) : b_.getInt64(last);
    Value *inside =
        b_.CreateAnd(b_.CreateICmpSGE(off, zero), b_.CreateICmpSLE(off, lastV), "in.slot");
    Value *ok = inside;
    if (size > 1) {
      Value *low = varying ? splat(b_.getInt64(size - 1)) : b_.getInt64(size - 1);
      ok = b_.CreateAnd(ok, b_.CreateICmpEQ(b_.CreateAnd(off, low), zero), "slot.ok");
    }
    Value *kind = b_.CreateSelect(
        inside,
        varying ? splat(b_.getInt32(KERN_FAULT_MISALIGNED)) : b_.getInt32(KERN_FAULT_MISALIGNED),
        varying ? splat(b_.getInt32(KERN_FAULT_LOCAL_OOB)) : b_.getInt32(KERN_FAULT_LOCAL_OOB),
        "fault.kinds");
    Value *bad = varying ? b_.CreateAnd(m, b_.CreateNot(ok))
                         : b_.CreateSelect(ok, llvm::Constant::getNullValue(maskTy()), m);
    faultWithKind(bad, kind, site, laneAddresses());
  }

  // The access: one part of `size` bytes, or 32-bit parts of a wider one.
  const unsigned parts = size <= 4 ? 1 : size / 4;
  const unsigned partBits = size <= 4 ? size * 8 : 32;
  Type *partTy = b_.getIntNTy(partBits);
  Type *partVec = warpVector(partTy);
  Type *memVec = warpVector(memoryType(c_, type));
  std::vector<Value *> partValues(parts);
  if (op == AccessOp::Store) {
    Value *v = toMemory(b_, stored, type);
    if (parts == 1) {
      partValues[0] = b_.CreateBitCast(v, partVec);
    } else {
      Value *words = b_.CreateBitCast(v, llvm::FixedVectorType::get(i32, kWarpSize * parts));
      for (unsigned k = 0; k < parts; ++k) {
        llvm::SmallVector<int, kWarpSize> pick;
        for (unsigned l = 0; l < kWarpSize; ++l)
          pick.push_back(static_cast<int>(l * parts + k));
        partValues[k] = b_.CreateShuffleVector(words, words, pick, "local.part");
      }
    }
  }
  const llvm::Align partAlign(partBits / 8);
  if (!varying) {
    // Lane l's copy of word w at slotBase + w * 128 + l * 4: the frame is this warp's own, so
    // the words are loaded whole whatever the mask, and stored under it.
    Value *word = b_.CreateLShr(off, b_.getInt64(2));
    Value *shift =
        b_.CreateTrunc(b_.CreateMul(b_.CreateAnd(off, b_.getInt64(3)), b_.getInt64(8)), i32);
    Type *wordVec = warpVector(i32);
    for (unsigned k = 0; k < parts; ++k) {
      Value *at = b_.CreateAdd(
          slotBase, b_.CreateMul(b_.CreateAdd(word, b_.getInt64(k)), b_.getInt64(4 * kWarpSize)));
      Value *ptr = b_.CreateIntToPtr(at, b_.getPtrTy(), "local.words");
      if (partBits == 32) {
        if (op == AccessOp::Load)
          partValues[k] = b_.CreateAlignedLoad(wordVec, ptr, llvm::Align(4), "local.load");
        else
          warpMaskedStore(b_, partValues[k], ptr, llvm::Align(4), m);
        continue;
      }
      // A byte or a half-word inside each lane's word.
      Value *words = b_.CreateAlignedLoad(wordVec, ptr, llvm::Align(4), "local.words");
      Value *shifts = splat(shift);
      if (op == AccessOp::Load) {
        partValues[k] = b_.CreateTrunc(b_.CreateLShr(words, shifts), partVec);
        continue;
      }
      Value *field = b_.CreateShl(splat(b_.getInt32((1u << partBits) - 1)), shifts);
      Value *merged = b_.CreateOr(b_.CreateAnd(words, b_.CreateNot(field)),
                                  b_.CreateShl(b_.CreateZExt(partValues[k], wordVec), shifts));
      warpMaskedStore(b_, merged, ptr, llvm::Align(4), m);
    }
  } else {
    // Offsets that differ between lanes: lane l's part k at its own word, gathered.
    Value *lanes = b_.CreateMul(b_.CreateZExt(laneIds(), i64v), splat(b_.getInt64(4)));
    Value *word = b_.CreateLShr(off, splat(b_.getInt64(2)));
    Value *within = b_.CreateAnd(off, splat(b_.getInt64(3)));
    for (unsigned k = 0; k < parts; ++k) {
      Value *at = b_.CreateAdd(
          b_.CreateAdd(splat(slotBase), b_.CreateMul(b_.CreateAdd(word, splat(b_.getInt64(k))),
                                                     splat(b_.getInt64(4 * kWarpSize)))),
          b_.CreateAdd(lanes, within));
      Value *ptrs = b_.CreateIntToPtr(at, warpVector(b_.getPtrTy()), "local.ptrs");
      if (op == AccessOp::Load)
        partValues[k] = warpMaskedGather(b_, partVec, ptrs, partAlign, m, "local.gather");
      else
        warpMaskedScatter(b_, partValues[k], ptrs, partAlign, m);
    }
  }
  if (op == AccessOp::Store)
    return nullptr;
  Value *whole = partValues[0];
  if (parts > 1) {
    // Interleave the parts back into each lane's value (lowest word first).
    std::vector<Value *> joined = partValues;
    while (joined.size() > 1) {
      std::vector<Value *> next;
      for (size_t i = 0; i + 1 < joined.size(); i += 2) {
        const unsigned n =
            llvm::cast<llvm::FixedVectorType>(joined[i]->getType())->getNumElements() * 2;
        llvm::SmallVector<int, 4 * kWarpSize> idx;
        for (unsigned j = 0; j < n; ++j)
          idx.push_back(static_cast<int>(j));
        next.push_back(b_.CreateShuffleVector(joined[i], joined[i + 1], idx));
      }
      joined = next;
    }
    llvm::SmallVector<int, 4 * kWarpSize> order; // element l * parts + k is part k of lane l
    for (unsigned l = 0; l < kWarpSize; ++l)
      for (unsigned k = 0; k < parts; ++k)
        order.push_back(static_cast<int>(k * kWarpSize + l));
    whole = b_.CreateShuffleVector(joined[0], joined[0], order, "local.value");
  }
  return fromMemory(b_, b_.CreateBitCast(whole, memVec), type);
}

} // namespace kern::backend::warp
