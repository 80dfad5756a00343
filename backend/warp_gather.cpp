// The shapes of warp memory access that need no call: strided and scattered lanes as one
// gather or scatter, checked lane by lane in shared memory (sharedLanesOk, which shared atomics
// use too) or from the addresses' summary in an allocation, 16 lanes where the upper half of
// the warp is idle; and the prefetch of a load or store that moves by a fixed stride, from one
// iteration of a loop or one block to the next.
#include "backend/warp_codegen_impl.h"

namespace kern::backend::warp {

void WarpCodegen::emitStridePrefetch(Value *lane0, unsigned size, bool inLoop, bool forWrite) {
  // A load or store that moves by a fixed stride has its lines asked for ahead of time; a
  // prefetch never faults, and a stride over 1 MiB, or none, asks for nothing new. A store's
  // asks for the lines to write (PREFETCHW): where its lines are not in the cache each store
  // waits for its line in the store buffer, and a full store buffer stalls every later store
  // (a streaming kernel's, and the warps' stack and context stores between them).
  Type *i64 = b_.getInt64Ty();
  Value *stride;
  if (inLoop) {
    // In a loop (a grid-stride loop: 64 KiB steps and more, beyond what the CPU's prefetchers
    // follow) the site remembers lane 0's address of its last iteration in this call and asks
    // two iterations ahead. No initial value (the region form moves entry allocas into the
    // warp's frame): the first execution's guess is arbitrary but fixed (freeze).
    llvm::AllocaInst *last = entryAlloca(b_, i64, "prefetch.last");
    Value *prev = b_.CreateFreeze(b_.CreateLoad(i64, last), "prefetch.prev");
    b_.CreateStore(lane0, last);
    stride = b_.CreateShl(b_.CreateSub(lane0, prev), 1, "prefetch.stride");
  } else {
    // Elsewhere (once per block, or in a loop that LLVM may unroll, whose copies share the site)
    // it asks for what the next block will read there: its address plus how far the site's first
    // address moved from the block before to this one, kept in the warp's context, which the
    // next block on this worker reuses. A tile's rows, 8 KiB apart, are each a miss the CPU
    // does not see coming.
    using Slot = KernWarpCtx::KernPrefetchSlot;
    unsigned slot = kCtxPrefetch + sizeof(Slot) * (prefetchSites_++ % KERN_PREFETCH_SLOTS);
    Value *serial = loadCtx(kCtxBlockSerial, i64, "block.serial");
    Value *serialAt = ctxAddr(slot + offsetof(Slot, serial));
    Value *firstAt = ctxAddr(slot + offsetof(Slot, first));
    Value *strideAt = ctxAddr(slot + offsetof(Slot, stride));
    Value *fresh = b_.CreateICmpNE(b_.CreateLoad(i64, serialAt), serial, "prefetch.fresh");
    Value *first = b_.CreateLoad(i64, firstAt);
    stride = b_.CreateSelect(fresh, b_.CreateSub(lane0, first), b_.CreateLoad(i64, strideAt),
                             "prefetch.stride");
    b_.CreateStore(serial, serialAt);
    b_.CreateStore(b_.CreateSelect(fresh, lane0, first), firstAt);
    b_.CreateStore(stride, strideAt);
  }
  Value *useful =
      b_.CreateICmpULT(b_.CreateAdd(stride, b_.getInt64(1 << 20)), b_.getInt64(2 << 20));
  Value *ahead = b_.CreateSelect(useful, b_.CreateAdd(lane0, stride), lane0, "prefetch.addr");
  llvm::Function *prefetch =
      llvm::Intrinsic::getDeclaration(fn_->getParent(), llvm::Intrinsic::prefetch, {b_.getPtrTy()});
  auto fetch = [&](Value *addr) {
    b_.CreateCall(prefetch, {b_.CreateIntToPtr(addr, b_.getPtrTy()), b_.getInt32(forWrite ? 1 : 0),
                             b_.getInt32(3), b_.getInt32(1)});
  };
  fetch(ahead);
  if (size * kWarpSize > 64) // a warp's row spans more than one line
    fetch(b_.CreateAdd(ahead, b_.getInt64(size * kWarpSize - 1)));
}

Value *WarpCodegen::sharedLanesOk(Value *addrs, Value *m, unsigned size) {
  // Lane by lane, with vector compares: no reduction across the warp. The window is at most
  // 2 GiB (far more than any block has), which the 32-bit offsets of gathers rely on.
  Value *span = b_.CreateSub(sharedHi_, sharedLo_, "shared.span");
  Value *off = b_.CreateSub(addrs, splat(sharedLo_), "shared.offsets");
  Value *bad = b_.CreateICmpUGT(off, splat(b_.CreateSub(span, b_.getInt64(size))));
  if (size > 1)
    bad = b_.CreateOr(bad, b_.CreateICmpNE(b_.CreateAnd(addrs, splat(b_.getInt64(size - 1))),
                                           llvm::Constant::getNullValue(addrs->getType())));
  Value *lanesOk = b_.CreateICmpEQ(bits(b_.CreateAnd(bad, m)), b_.getInt32(0), "shared.lanes.ok");
  Value *window = b_.CreateAnd(b_.CreateICmpUGE(span, b_.getInt64(size)),
                               b_.CreateICmpULE(span, b_.getInt64(INT32_MAX)), "shared.window.ok");
  return b_.CreateAnd(lanesOk, window, "shared.ok");
}

std::pair<Value *, Value *> WarpCodegen::sharedIndexLanes(const MemoryAccess &a, Value *m,
                                                          unsigned size) {
  // Lane l's byte offset in the window is d + index_l x unit, d = base - window start. With d
  // in [0, span - size] and the window at most 2^31 bytes, it lies in the window exactly when
  // index_l lies in [-(d / unit), (span - size - d) / unit], a range of 32-bit integers: one
  // compare a lane, and the offsets, which then fit in 32 bits, are computed in 32 bits. (A
  // base outside the window goes to the general path.)
  Type *i32 = b_.getInt32Ty();
  const uint64_t unit = a.affineScale;
  Value *span = b_.CreateSub(sharedHi_, sharedLo_, "shared.span");
  Value *d = b_.CreateSub(a.affineBase, sharedLo_, "shared.base.offset");
  Value *room = b_.CreateSub(span, b_.getInt64(size), "shared.room");
  Value *window = b_.CreateAnd(
      b_.CreateAnd(b_.CreateICmpUGE(span, b_.getInt64(size)),
                   b_.CreateICmpULE(span, b_.getInt64(INT32_MAX))),
      b_.CreateAnd(b_.CreateICmpULT(d, b_.getInt64(uint64_t(1) << 31)), b_.CreateICmpSLE(d, room)),
      "shared.window.ok");
  // Where the window check fails the bounds below are arbitrary; the result is then false.
  Value *below = b_.CreateUDiv(d, b_.getInt64(unit), "shared.index.below");
  Value *highest = b_.CreateUDiv(b_.CreateSub(room, d), b_.getInt64(unit), "shared.index.max");
  // An unsigned index is never negative: [0, (span - size - d) / unit].
  Value *inside =
      a.affineSigned
          ? b_.CreateICmpULE(b_.CreateAdd(a.affineIndex, splat(b_.CreateTrunc(below, i32))),
                             splat(b_.CreateTrunc(b_.CreateAdd(highest, below), i32)))
          : b_.CreateICmpULE(a.affineIndex, splat(b_.CreateTrunc(highest, i32)));
  // Exact in 32 bits: offsets in the window, and the low bits of any address.
  Value *scaled = b_.CreateMul(a.affineIndex, splat(b_.getInt32(unit)), "index.bytes");
  Value *offsets = b_.CreateAdd(splat(b_.CreateTrunc(d, i32)), scaled, "shared.offsets32");
  Value *scalarOk = window;
  if (size > 1 && unit % size == 0) { // every lane as aligned as the base
    scalarOk =
        b_.CreateAnd(scalarOk, b_.CreateICmpEQ(b_.CreateAnd(a.affineBase, b_.getInt64(size - 1)),
                                               b_.getInt64(0)));
  } else if (size > 1) { // the low bits of the address, exact in 32 bits
    Value *low = b_.CreateAdd(splat(b_.CreateTrunc(a.affineBase, i32)), scaled);
    inside = b_.CreateAnd(inside, b_.CreateICmpEQ(b_.CreateAnd(low, splat(b_.getInt32(size - 1))),
                                                  llvm::Constant::getNullValue(low->getType())));
  }
  if (a.affineExact)
    inside = b_.CreateAnd(inside, a.affineExact);
  Value *lanesOk = b_.CreateUnaryIntrinsic(llvm::Intrinsic::vector_reduce_and,
                                           b_.CreateOr(inside, b_.CreateNot(m)), nullptr);
  return {b_.CreateAnd(scalarOk, lanesOk, "shared.ok"), offsets};
}

std::optional<std::pair<Value *, BasicBlock *>>
WarpCodegen::emitGatherAccess(const MemoryAccess &a, Value *&addrs, Value *m, BasicBlock *doneBB) {
  // Any other shape whose active lanes all lie, aligned, in one region (the block's shared
  // memory, or one allocation: the lowest address's allocation reaches past the highest): one
  // gather or scatter here, with the checks from the addresses' summary, rather than a call of
  // the general function, which makes the caller keep its vectors in memory around the call.
  // Where several lanes store to one address the highest lane's value lands, as in the general
  // function's scatter.
  unsigned size = a.type.bytes();
  Value *ok, *offsets = nullptr;
  if (a.space == ir::AddrSpace::Shared) {
    // Shared memory is one small window: each lane's offset in it is checked by a vector
    // compare, and the gather takes 32-bit offsets from the window's start, two 16-lane
    // gathers rather than four 8-lane ones. An affine access is checked on its 32-bit indices
    // (sharedIndexLanes), without its 64-bit addresses.
    Type *i32 = b_.getInt32Ty();
    if (!addrs) {
      std::tie(ok, offsets) = sharedIndexLanes(a, m, size);
    } else {
      ok = sharedLanesOk(addrs, m, size);
      // Each active lane's offset is below the window's size, so its low 32 bits are all of it.
      offsets = b_.CreateSub(b_.CreateTrunc(addrs, warpVector(i32)),
                             splat(b_.CreateTrunc(sharedLo_, i32)), "shared.offsets32");
    }
  } else if (!addrs && a.affineScale % size == 0) {
    // An affine access: its lowest and highest index bound the warp's addresses, each lane as
    // aligned as the base.
    Type *i32v = warpVector(b_.getInt32Ty());
    Value *none = llvm::ConstantInt::get(i32v, a.affineSigned ? INT32_MAX : UINT32_MAX);
    Value *least = b_.CreateUnaryIntrinsic(
        a.affineSigned ? llvm::Intrinsic::vector_reduce_smin : llvm::Intrinsic::vector_reduce_umin,
        b_.CreateSelect(m, a.affineIndex, none), nullptr, "index.min");
    none = llvm::ConstantInt::get(i32v, a.affineSigned ? uint64_t(INT32_MIN) : 0);
    Value *most = b_.CreateUnaryIntrinsic(
        a.affineSigned ? llvm::Intrinsic::vector_reduce_smax : llvm::Intrinsic::vector_reduce_umax,
        b_.CreateSelect(m, a.affineIndex, none), nullptr, "index.max");
    Value *aligned = size > 1 ? b_.CreateICmpEQ(b_.CreateAnd(a.affineBase, b_.getInt64(size - 1)),
                                                b_.getInt64(0), "gather.aligned")
                              : b_.getTrue();
    ok = b_.CreateAnd(b_.CreateAnd(aligned, exactLanes(a, m)),
                      regionOk(a.space, affineAddressOf(a, least),
                               b_.CreateAdd(affineAddressOf(a, most), b_.getInt64(size)), true),
                      "gather.ok");
  } else {
    if (!addrs)
      addrs = addressVector(a);
    AddressSummary sum = summarise(addrs, m);
    Value *aligned = size > 1 ? b_.CreateICmpEQ(b_.CreateAnd(sum.bitsOr, b_.getInt64(size - 1)),
                                                b_.getInt64(0), "gather.aligned")
                              : b_.getTrue();
    ok = b_.CreateAnd(aligned,
                      regionOk(a.space, sum.min, b_.CreateAdd(sum.max, b_.getInt64(size)), true),
                      "gather.ok");
  }
  auto *gatherBB = newBlock("access.gather.inline");
  auto *restBB = newBlock("access.gather.rest");
  b_.CreateCondBr(ok, gatherBB, restBB);
  b_.SetInsertPoint(gatherBB);
  Value *hookAddrs = addrs;
  if (!hookAddrs && (mc_.options.checked || mc_.options.counters))
    hookAddrs = addressVector(a);
  emitHooks(a, m,
            hookAddrs ? b_.CreateExtractElement(hookAddrs, b_.getInt32(0), "addr.lane0") : nullptr,
            hookAddrs, false);
  Type *vecMemTy = warpVector(memoryType(c_, a.type));
  Value *sharedBase = b_.CreateIntToPtr(sharedLo_, b_.getPtrTy());
  Value *ptrs = offsets ? b_.CreateGEP(b_.getInt8Ty(), sharedBase, offsets, "ptrs")
                        : b_.CreateIntToPtr(addrs ? addrs : affineAddresses(a),
                                            warpVector(b_.getPtrTy()), "ptrs");
  std::optional<std::pair<Value *, BasicBlock *>> result;
  Value *stored = a.op == AccessOp::Load ? nullptr : toMemory(b_, a.value, a.type);
  auto whole = [&]() -> Value * { // all 32 lanes: the loaded vector, or null for a store
    if (!stored)
      return warpMaskedGather(b_, vecMemTy, ptrs, llvm::Align(size), m, "load");
    warpMaskedScatter(b_, stored, ptrs, llvm::Align(size), m);
    return nullptr;
  };
  if (vecMemTy->getScalarType()->isIntegerTy(128)) { // moves as 64-bit halves (warpMaskedGather)
    if (Value *v = whole())
      result = {fromMemory(b_, v, a.type), b_.GetInsertBlock()};
    b_.CreateBr(doneBB);
    b_.SetInsertPoint(restBB);
    return result;
  }
  // A warp whose upper half has no active lane (a block of 16 threads or fewer, a branch taken by
  // the lower lanes) gathers or scatters 16 lanes: a gather's cost is in its lanes, masked or not.
  auto *lowBB = newBlock("access.gather.low");
  auto *fullBB = newBlock("access.gather.full");
  auto *joinBB = stored ? doneBB : newBlock("access.gather.join");
  b_.CreateCondBr(b_.CreateICmpULT(bits(m), b_.getInt32(1u << (kWarpSize / 2))), lowBB, fullBB);
  llvm::SmallVector<int, kWarpSize> lowLanes, widen;
  for (unsigned i = 0; i < kWarpSize; ++i) {
    if (i < kWarpSize / 2)
      lowLanes.push_back(int(i));
    widen.push_back(int(i));
  }
  b_.SetInsertPoint(lowBB);
  // The shared form's pointers are made again from the halved offsets: a gather of a base and
  // 32-bit offsets (vpgatherdd) rather than of 64-bit addresses.
  Value *lowPtrs = offsets ? b_.CreateGEP(b_.getInt8Ty(), sharedBase,
                                          b_.CreateShuffleVector(offsets, lowLanes), "ptrs.low")
                           : b_.CreateShuffleVector(ptrs, lowLanes);
  Value *lowMask = b_.CreateShuffleVector(m, lowLanes);
  Value *lowValue = nullptr;
  if (stored) {
    b_.CreateMaskedScatter(b_.CreateShuffleVector(stored, lowLanes), lowPtrs, llvm::Align(size),
                           lowMask);
  } else {
    Type *halfTy = llvm::FixedVectorType::get(vecMemTy->getScalarType(), kWarpSize / 2);
    Value *g = b_.CreateMaskedGather(halfTy, lowPtrs, llvm::Align(size), lowMask,
                                     llvm::Constant::getNullValue(halfTy), "load.low");
    lowValue = b_.CreateShuffleVector(g, llvm::Constant::getNullValue(halfTy), widen);
  }
  b_.CreateBr(joinBB);
  b_.SetInsertPoint(fullBB);
  Value *fullValue = whole();
  b_.CreateBr(joinBB);
  if (!stored) {
    b_.SetInsertPoint(joinBB);
    llvm::PHINode *phi = b_.CreatePHI(vecMemTy, 2, "load");
    phi->addIncoming(lowValue, lowBB);
    phi->addIncoming(fullValue, fullBB);
    result = {fromMemory(b_, phi, a.type), b_.GetInsertBlock()};
    b_.CreateBr(doneBB);
  }
  b_.SetInsertPoint(restBB);
  return result;
}

} // namespace kern::backend::warp
