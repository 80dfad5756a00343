// Warp-level memory accesses: address checks (null, region, allocation, alignment, own local
// slot), checked-mode and counter hooks, and the access itself in the cheapest shape the
// addresses allow. Every load, store and atomic of warp code comes through emitMemoryAccess.
#include "backend/warp_codegen_impl.h"

#include <llvm/Analysis/VectorUtils.h>

namespace kern::backend::warp {

Value *WarpCodegen::inRange(Value *addrs, Value *lo, Value *hi, unsigned size,
                            const llvm::Twine &name) {
  Value *end = b_.CreateAdd(addrs, splat(b_.getInt64(size)));
  Value *ok = b_.CreateAnd(b_.CreateICmpUGE(addrs, splat(lo)), b_.CreateICmpULT(addrs, splat(hi)));
  return b_.CreateAnd(ok, b_.CreateICmpULE(end, splat(hi)), name);
}

Value *WarpCodegen::inLocalWindow(Value *addrs, unsigned size, const llvm::Twine &name) {
  Value *onStack = inRange(addrs, windowLo_, localHi_, size, name + ".stack");
  if (!regionLo_)
    return onStack;
  return b_.CreateOr(onStack, inRange(addrs, regionLo_, regionHi_, size, name + ".memory"), name);
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
  return b_.CreateAnd(b_.CreateICmpUGE(addrs, laneBase), b_.CreateICmpULE(end, lastOk), "in.slot");
}

/// The smallest, largest and OR of the active lanes' addresses: enough to check a whole warp
/// access at once when it stays inside one region, which is nearly always.
WarpCodegen::AddressSummary WarpCodegen::summarise(Value *addrs, Value *m) {
  Type *i64v = warpVector(b_.getInt64Ty());
  AddressSummary r;
  r.min = b_.CreateUnaryIntrinsic(llvm::Intrinsic::vector_reduce_umin,
                                  b_.CreateSelect(m, addrs, llvm::Constant::getAllOnesValue(i64v)),
                                  nullptr, "addr.min");
  Value *zero = llvm::Constant::getNullValue(i64v);
  r.max = b_.CreateUnaryIntrinsic(llvm::Intrinsic::vector_reduce_umax,
                                  b_.CreateSelect(m, addrs, zero), nullptr, "addr.max");
  r.bitsOr = b_.CreateUnaryIntrinsic(llvm::Intrinsic::vector_reduce_or,
                                     b_.CreateSelect(m, addrs, zero), nullptr, "addr.or");
  return r;
}

void WarpCodegen::emitLaneChecks(const MemoryAccess &a, Value *addrs, Value *m, Value *inShared,
                                 Value *inLocal, unsigned size) {
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
  faultWithKind(bad, kinds, siteOf(a), addrs);
}

Value *WarpCodegen::emitMemoryAccess(MemoryAccess a) {
  using ir::AddrSpace;
  // The warp waits for a load, or an atomic whose result it uses (the modelled clock).
  if (a.op == AccessOp::Load || a.op == AccessOp::Atomic) {
    if (a.space == AddrSpace::Shared)
      advanceClock(kCtxClockShared);
    else if (a.space == AddrSpace::Global || a.space == AddrSpace::Generic)
      advanceClock(kCtxClockGlobal);
  }
  Value *m = cur();
  unsigned size = a.type.bytes();
  Type *i64 = b_.getInt64Ty();
  const bool affine = !a.addrs && a.space != AddrSpace::Local && !isAtomic(a.op);
  if (!affine)
    a.addrs = addressVector(a);
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
      Value *inLocal = inLocalWindow(addrs, size, "in.local");
      emitLaneChecks(a, addrs, m, inShared, inLocal, size);
      b_.CreateBr(contBB);
      b_.SetInsertPoint(contBB);
    }
    if (mc_.options.counters)
      emitCountAccess(a, addrs, m, nullptr, nullptr);
    return emitAccess(a, addrs, m, AddressSummary{nullptr, nullptr, nullptr});
  }
  if (isAtomic(a.op))
    return emitGeneralAccess(a, addrs, m);

  // The common case first: lane l at base + l * size (every lane, active or not, so no search
  // for the first active lane). Its checks are a few scalar compares on the first and last
  // active lanes' addresses, and the access is one vector load or store. Anything else (or a
  // contiguous access that fails a check) takes the general path, which also reports faults.
  // An affine address is recognised from its 32-bit indices (index l = index 0 + l x size /
  // scale, with no wrap-around), without building the 64-bit address vector at all; where the
  // scale does not divide the size, no warp is contiguous.
  Value *mbits = bits(m, "access.lanes");
  Value *base, *contiguous;
  if (affine) {
    const uint64_t unit = a.affineScale;
    const bool divides = size % unit == 0;
    const uint32_t step = divides ? uint32_t(size / unit) : 1;
    Value *i0 = b_.CreateExtractElement(a.affineIndex, b_.getInt32(0), "index.lane0");
    Value *steps = b_.CreateICmpEQ(
        a.affineIndex, b_.CreateAdd(splat(i0), b_.CreateMul(laneIds(), splat(b_.getInt32(step)))));
    const uint32_t reach = (kWarpSize - 1) * step;
    Value *noWrap = a.affineSigned ? b_.CreateICmpSLE(i0, b_.getInt32(INT32_MAX - reach))
                                   : b_.CreateICmpULE(i0, b_.getInt32(UINT32_MAX - reach));
    contiguous =
        b_.CreateAnd(b_.CreateUnaryIntrinsic(llvm::Intrinsic::vector_reduce_and, steps, nullptr),
                     noWrap, "index.contiguous");
    if (a.affineExact)
      contiguous = b_.CreateAnd(contiguous, exactLanes(a, m));
    if (!divides)
      contiguous = b_.getFalse();
    base = affineAddressOf(a, i0, "addr.lane0");
  } else {
    Type *i64v = warpVector(i64);
    base = b_.CreateExtractElement(addrs, b_.getInt32(0), "addr.lane0");
    Value *expected = b_.CreateAdd(
        splat(base),
        b_.CreateMul(b_.CreateZExt(laneIds(), i64v), llvm::ConstantInt::get(i64v, size)),
        "addr.expected");
    contiguous =
        b_.CreateUnaryIntrinsic(llvm::Intrinsic::vector_reduce_and,
                                b_.CreateICmpEQ(addrs, expected), nullptr, "addr.contiguous");
  }
  if ((a.op == AccessOp::Load || a.op == AccessOp::Store) && a.space == AddrSpace::Global)
    emitStridePrefetch(base, size, rolledLoops_ > 0 && unrolledLoops_ == 0,
                       a.op == AccessOp::Store);
  Value *first = b_.CreateZExt(
      b_.CreateAnd(b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, mbits, b_.getFalse()),
                   b_.getInt32(kWarpSize - 1)),
      i64);
  Value *lastEnd = b_.CreateZExt(
      b_.CreateSub(b_.getInt32(kWarpSize),
                   b_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, mbits, b_.getFalse())),
      i64);
  Value *lo = b_.CreateAdd(base, b_.CreateMul(first, b_.getInt64(size)), "contig.lo");
  Value *end = b_.CreateAdd(base, b_.CreateMul(lastEnd, b_.getInt64(size)), "contig.end");
  Value *aligned = size > 1 ? b_.CreateICmpEQ(b_.CreateAnd(base, b_.getInt64(size - 1)),
                                              b_.getInt64(0), "contig.aligned")
                            : b_.getTrue();
  // Every region lies far above the null page, so inside one is not null.
  Value *none = b_.CreateICmpEQ(mbits, b_.getInt32(0), "no.lanes");
  Value *fastOk = b_.CreateAnd(
      contiguous, b_.CreateOr(none, b_.CreateAnd(aligned, regionOk(a.space, lo, end, true))),
      "contig.ok");
  auto *fastBB = newBlock("access.contiguous");
  auto *generalBB = newBlock("access.general");
  auto *doneBB = newBlock("access.joined");
  b_.CreateCondBr(fastOk, fastBB, generalBB, llvm::MDBuilder(c_).createBranchWeights(1 << 10, 1));
  b_.SetInsertPoint(fastBB);
  Value *fastValue = emitContiguousAccess(a, m, base);
  auto *fastEnd = b_.GetInsertBlock();
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(generalBB);
  // Everything else: the tile shapes, the checks lane by lane, gathers and scatters. That is
  // most of an access's code, so it lies in one function per kind of access shared by every
  // site of the module (warp_general.cpp), which keeps the JIT's work proportional to the
  // fast paths.
  // The tile shapes of shared loads stay here where the code indexes threads in two or three
  // dimensions, as tiled code does (`As[ty][k]`, `Bs[k][tx]` of a 16x16 matmul): they are as
  // hot there as the contiguous one. (The shared function tries them too.)
  std::vector<std::pair<Value *, BasicBlock *>> others;
  if (a.op == AccessOp::Load && a.space == AddrSpace::Shared && tiled_) {
    addrs = addressVector(a);
    others = emitHalfWarpLoads(a, addrs, m, mbits, doneBB);
  }
  // Inline gathers and scatters where they pay: in a loop, and for affine accesses anywhere
  // (their checks are a few 32-bit compares or reductions); not in a loop LLVM may unroll.
  if ((a.space == AddrSpace::Shared || a.space == AddrSpace::Global) && unrolledLoops_ == 0 &&
      (rolledLoops_ > 0 || (affine && !addrs)))
    if (auto gathered = emitGatherAccess(a, addrs, m, doneBB))
      others.push_back(*gathered);
  if (!addrs)
    addrs = addressVector(a);
  std::vector<Value *> args = {ctx_, addrs, m, b_.getInt32(a.site)};
  if (takesLocalWindow(a.space))
    args.insert(args.end(), {windowLo_, localHi_});
  if (a.op == AccessOp::Store)
    args.push_back(vec(a.value));
  llvm::Function *general = generalAccessFunction(a);
  llvm::CallInst *generalValue = b_.CreateCall(general, args);
  generalValue->setCallingConv(general->getCallingConv());
  returnIfFaulted();
  auto *generalEnd = b_.GetInsertBlock();
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(doneBB);
  if (!fastValue)
    return nullptr;
  auto *phi = b_.CreatePHI(fastValue->getType(), 2 + others.size(), "access.value");
  phi->addIncoming(fastValue, fastEnd);
  for (auto &[v, bb] : others)
    phi->addIncoming(v, bb);
  phi->addIncoming(generalValue, generalEnd);
  return phi;
}

std::vector<std::pair<Value *, BasicBlock *>> WarpCodegen::emitHalfWarpLoads(const MemoryAccess &a,
                                                                             Value *addrs, Value *m,
                                                                             Value *mbits,
                                                                             BasicBlock *doneBB) {
  // The shapes of 16-wide tiles (16x16 blocks: a warp is two rows), checked as cheaply as the
  // contiguous one: both halves reading the same 16 consecutive elements (`Bs[k][tx]`), or each
  // half one element (`As[ty][k]`). A full warp only; anything else goes on to the general path.
  unsigned size = a.type.bytes();
  std::vector<llvm::Constant *> inHalf, upperLanes;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    inHalf.push_back(b_.getInt64((l & 15) * size));
    upperLanes.push_back(b_.getInt1(l >= 16));
  }
  Value *upper = llvm::ConstantVector::get(upperLanes);
  Value *full = b_.CreateICmpEQ(mbits, b_.getInt32(-1), "all.active");
  Value *a0 = b_.CreateExtractElement(addrs, b_.getInt32(0), "half0.addr");
  Value *a16 = b_.CreateExtractElement(addrs, b_.getInt32(16), "half1.addr");
  auto aligned = [&](Value *x) {
    return size > 1 ? b_.CreateICmpEQ(b_.CreateAnd(x, b_.getInt64(size - 1)), b_.getInt64(0))
                    : b_.getTrue();
  };
  auto allEq = [&](Value *want) {
    return b_.CreateUnaryIntrinsic(llvm::Intrinsic::vector_reduce_and,
                                   b_.CreateICmpEQ(addrs, want));
  };
  Value *same16 = b_.CreateAnd(
      b_.CreateAnd(full, allEq(b_.CreateAdd(splat(a0), llvm::ConstantVector::get(inHalf)))),
      b_.CreateAnd(aligned(a0),
                   regionOk(a.space, a0, b_.CreateAdd(a0, b_.getInt64(16 * uint64_t(size))), true)),
      "halves.same.ok");
  Value *twoOne = b_.CreateAnd(
      b_.CreateAnd(full, allEq(b_.CreateSelect(upper, splat(a16), splat(a0)))),
      b_.CreateAnd(
          b_.CreateAnd(aligned(a0), aligned(a16)),
          b_.CreateAnd(regionOk(a.space, a0, b_.CreateAdd(a0, b_.getInt64(size)), true),
                       regionOk(a.space, a16, b_.CreateAdd(a16, b_.getInt64(size)), true))),
      "halves.uniform.ok");
  Type *memTy = memoryType(c_, a.type);
  std::vector<std::pair<Value *, BasicBlock *>> results;
  auto *sameBB = newBlock("access.halves.same");
  auto *notSameBB = newBlock("access.halves.not.same");
  auto *oneBB = newBlock("access.halves.one");
  auto *restBB = newBlock("access.rest");
  b_.CreateCondBr(same16, sameBB, notSameBB);
  b_.SetInsertPoint(sameBB);
  emitHooks(a, m, a0, addrs, false);
  Value *row = b_.CreateAlignedLoad(llvm::FixedVectorType::get(memTy, 16),
                                    b_.CreateIntToPtr(a0, b_.getPtrTy()), llvm::Align(size),
                                    "load.half.row");
  llvm::SmallVector<int, 32> twice;
  for (unsigned l = 0; l < kWarpSize; ++l)
    twice.push_back(static_cast<int>(l & 15));
  results.push_back({fromMemory(b_, b_.CreateShuffleVector(row, row, twice, "load.rows"), a.type),
                     b_.GetInsertBlock()});
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(notSameBB);
  b_.CreateCondBr(twoOne, oneBB, restBB);
  b_.SetInsertPoint(oneBB);
  emitHooks(a, m, a0, addrs, false);
  Value *s0 = b_.CreateAlignedLoad(memTy, b_.CreateIntToPtr(a0, b_.getPtrTy()), llvm::Align(size),
                                   "load.half0.one");
  Value *s1 = b_.CreateAlignedLoad(memTy, b_.CreateIntToPtr(a16, b_.getPtrTy()), llvm::Align(size),
                                   "load.half1.one");
  results.push_back(
      {fromMemory(b_, b_.CreateSelect(upper, splat(s1), splat(s0), "load.halves.one"), a.type),
       b_.GetInsertBlock()});
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(restBB);
  return results;
}

Value *WarpCodegen::regionOk(ir::AddrSpace space, Value *lo, Value *end, bool fast) {
  using ir::AddrSpace;
  Type *i64 = b_.getInt64Ty();
  auto within = [&](Value *rlo, Value *rhi, const char *name) {
    return b_.CreateAnd(b_.CreateICmpUGE(lo, rlo), b_.CreateICmpULE(end, rhi), name);
  };
  if (space == AddrSpace::Shared)
    return within(sharedLo_, sharedHi_, "warp.in.shared");
  Value *off = b_.CreateSub(lo, globalLo_, "global.offset");
  Value *inDev = b_.CreateICmpULT(off, b_.CreateSub(globalHi_, globalLo_), "warp.in.device");
  Value *idx = b_.CreateSelect(inDev, b_.CreateLShr(off, b_.getInt64(8)), b_.getInt64(0));
  Value *allocEnd =
      b_.CreateAlignedLoad(i64, b_.CreateGEP(i64, shadow_, idx), llvm::Align(8), "warp.alloc.end");
  Value *glOk = b_.CreateAnd(inDev, b_.CreateICmpULE(end, allocEnd), "warp.in.allocation");
  // A global access that lands in the block's shared memory (a generic pointer the front end
  // typed as global) is allowed, but rare: the fast path leaves it to the general one.
  if (fast && (space == AddrSpace::Global || space == AddrSpace::Constant))
    return glOk;
  Value *shOk = within(sharedLo_, sharedHi_, "warp.in.shared");
  if (space == AddrSpace::Global || space == AddrSpace::Constant)
    return b_.CreateOr(glOk, shOk);
  Value *local = within(windowLo_, localHi_, "warp.in.local");
  if (regionLo_)
    local = b_.CreateOr(local, within(regionLo_, regionHi_, "warp.in.local.memory"));
  return b_.CreateOr(b_.CreateOr(glOk, shOk), local);
}

Value *WarpCodegen::emitContiguousAccess(const MemoryAccess &a, Value *m, Value *base) {
  unsigned size = a.type.bytes();
  emitHooks(a, m, base, nullptr, true);
  Type *vecMemTy = warpVector(memoryType(c_, a.type));
  Value *ptr = b_.CreateIntToPtr(base, b_.getPtrTy());
  if (a.op == AccessOp::Load)
    return fromMemory(b_, warpMaskedLoad(b_, vecMemTy, ptr, llvm::Align(size), m, "load.vector"),
                      a.type);
  warpMaskedStore(b_, toMemory(b_, a.value, a.type), ptr, llvm::Align(size), m);
  return nullptr;
}

void WarpCodegen::emitCountMemo(const MemoryAccess &a, Value *lane0, Value *addrs, Value *m,
                                bool contiguous) {
  using ir::AddrSpace;
  unsigned size = a.type.bytes();
  Type *i64 = b_.getInt64Ty();
  Type *i64v = warpVector(i64);
  const bool shared = a.space == AddrSpace::Shared;
  const uint32_t op = static_cast<uint32_t>(a.op);
  const uint32_t flags = op | (shared ? KERN_ACCESS_SHARED : KERN_ACCESS_GLOBAL) | a.atomicForm;
  auto *memoBB = newBlock("count.memo");
  auto *addBB = newBlock("count.memo.add");
  auto *callBB = newBlock("count.call");
  auto *doneBB = newBlock("count.done");
  Value *mbits = bits(m, "count.lanes");
  Value *want = b_.CreateICmpNE(mbits, b_.getInt32(0), "count.any");
  want = b_.CreateAnd(want,
                      b_.CreateICmpNE(counterView_, llvm::ConstantPointerNull::get(b_.getPtrTy())));
  b_.CreateCondBr(want, memoBB, callBB);

  b_.SetInsertPoint(memoBB);
  Value *memos = viewMemos_;
  // kern_access_memo_slot and kern_access_memo_tag, as abi.h computes them.
  Value *phase = b_.CreateAnd(lane0, b_.getInt64(kern_access_window(size, flags) - 1), "phase");
  Value *lanesHash =
      b_.CreateLShr(b_.CreateMul(mbits, b_.getInt32(KERN_MEMO_LANES_HASH)), b_.getInt32(27));
  Value *slot = b_.CreateAnd(
      b_.CreateAdd(b_.CreateLShr(phase, b_.getInt64(2)), b_.CreateZExt(lanesHash, i64)),
      b_.getInt64(KERN_MEMO_SLOTS - 1), "memo.slot");
  Value *site64 = b_.CreateZExt(siteOf(a), i64, "site");
  Value *memoIndex =
      b_.CreateAdd(b_.CreateMul(b_.CreateAdd(b_.CreateMul(site64, b_.getInt64(KERN_ACCESS_OPS)),
                                             b_.getInt64(op)),
                                b_.getInt64(KERN_MEMO_SLOTS)),
                   slot);
  Value *memo = b_.CreateGEP(b_.getInt8Ty(), memos,
                             b_.CreateMul(memoIndex, b_.getInt64(sizeof(KernAccessMemo))), "memo");
  Value *tag =
      b_.CreateOr(phase,
                  b_.getInt64((uint64_t(size) << 16) | (uint64_t(flags) << 24) |
                              (uint64_t(1) << 40) | (contiguous ? KERN_MEMO_CONTIGUOUS : 0)),
                  "memo.want");
  Value *memoTag = b_.CreateLoad(i64, byteAt(memo, kMemoTag), "memo.tag");
  Value *hit =
      b_.CreateAnd(b_.CreateICmpEQ(memoTag, tag),
                   b_.CreateICmpUGE(warpKey_, b_.CreateLoad(i64, byteAt(memo, kMemoSampleKey),
                                                            "memo.sample.key")),
                   "memo.hit");
  // The same active lanes (and, unless contiguous, at the same offsets from lane 0).
  Value *sameMask =
      b_.CreateICmpEQ(b_.CreateLoad(b_.getInt32Ty(), byteAt(memo, kMemoMask), "memo.mask"), mbits);
  hit = b_.CreateAnd(hit, sameMask);
  if (!contiguous) {
    Value *pattern =
        b_.CreateAlignedLoad(i64v, byteAt(memo, kMemoPattern), llvm::Align(8), "memo.pattern");
    Value *samePattern = b_.CreateUnaryIntrinsic(
        llvm::Intrinsic::vector_reduce_and,
        b_.CreateICmpEQ(b_.CreateSub(addrs, splat(lane0)), pattern), nullptr, "memo.same");
    hit = b_.CreateAnd(hit, samePattern, "memo.hit.pattern");
  }
  if (shared) {
    // A site op that batches (its slots' tag KERN_MEMO_BATCH): the access joins the view's batch.
    auto *missBB = newBlock("count.memo.miss");
    auto *batchBB = newBlock("count.batch");
    b_.CreateCondBr(hit, addBB, missBB);
    b_.SetInsertPoint(missBB);
    b_.CreateCondBr(b_.CreateICmpEQ(memoTag, b_.getInt64(KERN_MEMO_BATCH)), batchBB, callBB);
    b_.SetInsertPoint(batchBB);
    emitBatchAccess(a, addrs ? addrs : addressVector(a), mbits, flags);
    b_.CreateBr(doneBB);
  } else {
    b_.CreateCondBr(hit, addBB, callBB);
  }

  b_.SetInsertPoint(addBB);
  const unsigned fields = shared ? KERN_SITE_SHARED_FIELDS : KERN_SITE_GLOBAL_FIELDS;
  const uint64_t off = shared
                           ? offsetof(KernSiteCounters, shared) + op * sizeof(KernSharedOpCounters)
                           : offsetof(KernSiteCounters, global) + op * sizeof(KernGlobalOpCounters);
  auto add = [&](uint64_t counter, uint64_t delta) {
    addSiteCounterAt(siteOf(a), counter, b_.CreateLoad(i64, byteAt(memo, kMemoDelta + 8 * delta)));
  };
  for (unsigned k = 0; k < fields; ++k)
    add(off + 8 * k, k);
  if (isAtomic(a.op)) {
    add(offsetof(KernSiteCounters, atomicsExecuted), KERN_SITE_GLOBAL_FIELDS);
    add(offsetof(KernSiteCounters, atomicThreadOps), KERN_SITE_GLOBAL_FIELDS + 1);
  }
  if (!shared && a.op == AccessOp::Load) {
    // A block sampled for the caches: the runtime follows the load's sectors too.
    auto *sampleBB = newBlock("count.sample.load");
    b_.CreateCondBr(b_.CreateICmpNE(viewSampleLoads_, b_.getInt64(0)), sampleBB, doneBB);
    b_.SetInsertPoint(sampleBB);
    addressBuffer();
    b_.CreateAlignedStore(addrs ? addrs : addressVector(a), addrBuf_, llvm::Align(8));
    b_.CreateCall(runtime(RuntimeFunction::kern_rt_sample_load),
                  {ctx_, addrBuf_, mbits, b_.getInt32(size)});
  }
  b_.CreateBr(doneBB);

  b_.SetInsertPoint(callBB);
  emitCountAccess(a, addrs ? addrs : addressVector(a), m, nullptr, nullptr);
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(doneBB);
}

void WarpCodegen::emitBatchAccess(const MemoryAccess &a, Value *addrs, Value *mbits,
                                  uint32_t flags) {
  Type *i32 = b_.getInt32Ty(), *i64 = b_.getInt64Ty();
  Value *countAddr = byteAt(counterView_, kViewBatchCount);
  Value *n = b_.CreateLoad(i64, countAddr, "batch.count");
  Value *entry =
      b_.CreateGEP(b_.getInt8Ty(), viewBatch_,
                   b_.CreateMul(n, b_.getInt64(sizeof(KernBatchedAccess))), "batch.entry");
  b_.CreateAlignedStore(b_.CreateSub(addrs, splat(sharedLo_), "batch.offsets"),
                        byteAt(entry, kBatchOffsets), llvm::Align(8));
  b_.CreateStore(warpKey_, byteAt(entry, kBatchKey));
  b_.CreateStore(b_.CreateZExtOrTrunc(siteOf(a), i32), byteAt(entry, kBatchSite));
  b_.CreateStore(mbits, byteAt(entry, kBatchMask));
  b_.CreateStore(b_.getInt32(a.type.bytes()), byteAt(entry, kBatchSize));
  b_.CreateStore(b_.getInt32(flags), byteAt(entry, kBatchFlags));
  Value *next = b_.CreateAdd(n, b_.getInt64(1), "batch.next");
  b_.CreateStore(next, countAddr);
  auto *flushBB = newBlock("count.batch.flush");
  auto *doneBB = newBlock("count.batch.done");
  b_.CreateCondBr(b_.CreateICmpEQ(next, b_.getInt64(KERN_BATCH_ACCESSES)), flushBB, doneBB);
  b_.SetInsertPoint(flushBB);
  b_.CreateCall(runtime(RuntimeFunction::kern_rt_flush_batch), {ctx_});
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(doneBB);
}

Value *WarpCodegen::emitGeneralAccess(const MemoryAccess &a, Value *addrs, Value *m) {
  using ir::AddrSpace;
  unsigned size = a.type.bytes();
  // A shared atomic needs no summary of the addresses (its lanes go one by one): its checks
  // are the lane-by-lane compares of sharedLanesOk.
  const bool sharedAtomic = isAtomic(a.op) && a.space == AddrSpace::Shared;
  AddressSummary sum =
      sharedAtomic ? AddressSummary{nullptr, nullptr, nullptr} : summarise(addrs, m);
  Value *inShared = inRange(addrs, sharedLo_, sharedHi_, size, "in.shared");
  Value *inLocal = inLocalWindow(addrs, size, "in.local");

  // 1. Checks. The fast path checks the whole warp from the summary: not null, aligned, and
  // every active lane inside one region (one allocation, the block's shared memory, or this
  // warp's local frame). Only when that fails does the slow path check each lane, to find and
  // report the first bad one. A generic pointer may reach shared memory, so a "global" access
  // landing in the block's shared window is allowed (the front end could not tell).
  if (sharedAtomic) {
    auto *slowBB = newBlock("checks.slow");
    auto *contBB = newBlock("checks.done");
    b_.CreateCondBr(sharedLanesOk(addrs, m, size), contBB, slowBB);
    b_.SetInsertPoint(slowBB);
    emitLaneChecks(a, addrs, m, inShared, inLocal, size);
    b_.CreateBr(contBB);
    b_.SetInsertPoint(contBB);
  } else {
    Value *maxEnd = b_.CreateAdd(sum.max, b_.getInt64(size), "addr.end");
    Value *aligned = size > 1 ? b_.CreateICmpEQ(b_.CreateAnd(sum.bitsOr, b_.getInt64(size - 1)),
                                                b_.getInt64(0), "aligned")
                              : b_.getTrue();
    Value *notNull = b_.CreateICmpUGE(sum.min, b_.getInt64(kNullPageSize), "not.null");
    // Local accesses never come here (emitMemoryAccess checks them against their slot).
    Value *inRegion = regionOk(a.space, sum.min, maxEnd);
    Value *none = b_.CreateICmpEQ(bits(m), b_.getInt32(0), "no.lanes");
    Value *fastOk =
        b_.CreateOr(none, b_.CreateAnd(b_.CreateAnd(notNull, aligned), inRegion), "checks.ok");
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
  emitHooks(a, m, b_.CreateExtractElement(addrs, b_.getInt32(0), "addr.lane0"), addrs, false);
  return emitAccess(a, addrs, m, sum);
}

void WarpCodegen::emitHooks(const MemoryAccess &a, Value *m, Value *lane0, Value *addrs,
                            bool contiguous) {
  // Every lane's address is built here only where a hook needs it (affine accesses have none).
  if (mc_.options.checked && a.space != ir::AddrSpace::Constant)
    emitCheckAccess(a, addrs ? addrs : addressVector(a), m, contiguous);
  if (!mc_.options.counters)
    return;
  if (a.space == ir::AddrSpace::Global || a.space == ir::AddrSpace::Shared) {
    emitCountMemo(a, lane0, addrs, m, contiguous);
    return;
  }
  unsigned size = a.type.bytes();
  Value *all = addrs ? addrs : addressVector(a);
  emitCountAccess(a, all, m, inRange(all, sharedLo_, sharedHi_, size, "in.shared"),
                  inLocalWindow(all, size, "in.local"));
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
  Value *flags =
      b_.CreateOr(b_.getInt32(static_cast<uint32_t>(a.op) | a.atomicForm), space, "access.flags");
  b_.CreateCall(runtime(RuntimeFunction::kern_rt_count_access),
                {ctx_, siteOf(a), addrBuf_, bits(m, "access.mask"), b_.getInt32(size), flags});
}

Value *WarpCodegen::addressBuffer() {
  // One buffer for both hooks; in checked mode a store's values follow the 32 addresses.
  if (!addrBuf_)
    addrBuf_ = entryAlloca(
        b_, llvm::ArrayType::get(b_.getInt64Ty(), mc_.options.checked ? 2 * kWarpSize : kWarpSize),
        "access.addrs", 8);
  return addrBuf_;
}

void WarpCodegen::emitCheckAccess(const MemoryAccess &a, Value *addrs, Value *m, bool contiguous) {
  Type *i64v = warpVector(b_.getInt64Ty());
  addressBuffer();
  b_.CreateAlignedStore(addrs, addrBuf_, llvm::Align(8));
  // Generic accesses are classified lane by lane by the runtime, like global ones.
  // A reduction is checked as the atomic it is.
  uint32_t flags = static_cast<uint32_t>(isAtomic(a.op) ? AccessOp::Atomic : a.op) |
                   (a.space == ir::AddrSpace::Shared ? KERN_ACCESS_SHARED : KERN_ACCESS_GLOBAL) |
                   (contiguous ? uint32_t{KERN_ACCESS_CONTIGUOUS} : 0u);
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
  b_.CreateCall(runtime(RuntimeFunction::kern_rt_check_access),
                {ctx_, siteOf(a), addrBuf_, bits(m, "check.mask"), b_.getInt32(a.type.bytes()),
                 b_.getInt32(flags)});
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
  if (isAtomic(a.op))
    return emitAtomicLanes(a, m);
  if (a.space == ir::AddrSpace::Local) {
    // Each lane's copy of a local variable lies `stride` bytes from its neighbour's, so lanes
    // never touch consecutive elements: a gather or scatter, with no shape test.
    Value *ptrs = b_.CreateIntToPtr(addrs, warpVector(b_.getPtrTy()), "ptrs");
    if (a.op == AccessOp::Load)
      return fromMemory(b_, warpMaskedGather(b_, vecMemTy, ptrs, llvm::Align(size), m, "load"),
                        a.type);
    warpMaskedScatter(b_, toMemory(b_, a.value, a.type), ptrs, llvm::Align(size), m);
    return nullptr;
  }
  Value *mbits = bits(m, "access.lanes");
  Value *first = b_.CreateAnd(b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, mbits, b_.getFalse()),
                              b_.getInt32(31));
  Value *a0 = b_.CreateExtractElement(addrs, first, "addr.first");
  Value *base =
      b_.CreateSub(a0, b_.CreateMul(b_.CreateZExt(first, i64), b_.getInt64(size)), "addr.base");
  Value *expected = b_.CreateAdd(splat(base), b_.CreateMul(b_.CreateZExt(laneIds(), i64v),
                                                           llvm::ConstantInt::get(i64v, size)));
  Value *matches = b_.CreateOr(b_.CreateICmpEQ(addrs, expected), b_.CreateNot(m));
  Value *contiguous =
      b_.CreateUnaryIntrinsic(llvm::Intrinsic::vector_reduce_and, matches, nullptr, "contiguous");
  auto *vecBB = newBlock("access.vector");
  auto *otherBB = newBlock("access.other");
  auto *doneBB = newBlock("access.done");
  // A stored value in its memory form (a bool becomes a byte) is made before the branch: every
  // shape below stores it.
  Value *val = a.op == AccessOp::Store ? toMemory(b_, a.value, a.type) : nullptr;
  b_.CreateCondBr(contiguous, vecBB, otherBB);
  Type *i32v = warpVector(b_.getInt32Ty());
  Value *upper, *allActive, *h0, *h1, *halfBase, *inHalf, *halvesContiguous;
  // Computed where the contiguous test failed, so the common case pays nothing for it.
  auto computeHalves = [&] {
    // Half-warp shapes (a 16-wide tile, as in 16x16 blocks): every lane active and each half
    // contiguous from its own base (two 16-element vector accesses), or each half at one
    // address (two scalar loads).
    upper = b_.CreateICmpUGE(laneIds(), llvm::ConstantInt::get(i32v, 16), "upper.half");
    allActive = b_.CreateICmpEQ(mbits, b_.getInt32(-1), "all.active");
    h0 = b_.CreateExtractElement(addrs, b_.getInt32(0), "half0.addr");
    h1 = b_.CreateExtractElement(addrs, b_.getInt32(16), "half1.addr");
    halfBase = b_.CreateSelect(upper, splat(h1), splat(h0), "half.base");
    inHalf = b_.CreateZExt(b_.CreateAnd(laneIds(), llvm::ConstantInt::get(i32v, 15)), i64v);
    halvesContiguous = b_.CreateAnd(
        allActive,
        b_.CreateUnaryIntrinsic(
            llvm::Intrinsic::vector_reduce_and,
            b_.CreateICmpEQ(
                addrs,
                b_.CreateAdd(halfBase, b_.CreateMul(inHalf, llvm::ConstantInt::get(i64v, size)))),
            nullptr),
        "halves.contiguous");
  };
  Type *halfTy = llvm::FixedVectorType::get(memTy, 16);
  llvm::SmallVector<int, 32> concat;
  for (int i = 0; i < 32; ++i)
    concat.push_back(i);
  if (a.op == AccessOp::Load) {
    std::vector<std::pair<Value *, BasicBlock *>> results;
    b_.SetInsertPoint(vecBB);
    Value *vv = warpMaskedLoad(b_, vecMemTy, b_.CreateIntToPtr(base, b_.getPtrTy()),
                               llvm::Align(size), m, "load.vector");
    results.push_back({vv, b_.GetInsertBlock()});
    b_.CreateBr(doneBB);

    b_.SetInsertPoint(otherBB);
    computeHalves();
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
    Value *sv = b_.CreateAlignedLoad(memTy, b_.CreateIntToPtr(a0, b_.getPtrTy()), llvm::Align(size),
                                     "load.uniform");
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
    Value *s0 = b_.CreateAlignedLoad(memTy, b_.CreateIntToPtr(h0, b_.getPtrTy()), llvm::Align(size),
                                     "load.half0.uniform");
    Value *s1 = b_.CreateAlignedLoad(memTy, b_.CreateIntToPtr(h1, b_.getPtrTy()), llvm::Align(size),
                                     "load.half1.uniform");
    results.push_back(
        {b_.CreateSelect(upper, splat(s1), splat(s0), "load.halves.uniform"), b_.GetInsertBlock()});
    b_.CreateBr(doneBB);

    b_.SetInsertPoint(gatherBB);
    Value *ptrs = b_.CreateIntToPtr(addrs, warpVector(b_.getPtrTy()), "ptrs");
    Value *gv = warpMaskedGather(b_, vecMemTy, ptrs, llvm::Align(size), m, "load.gather");
    results.push_back({gv, b_.GetInsertBlock()});
    b_.CreateBr(doneBB);

    b_.SetInsertPoint(doneBB);
    auto *phi = b_.CreatePHI(vecMemTy, static_cast<unsigned>(results.size()), "load");
    for (auto &[v, bb] : results)
      phi->addIncoming(v, bb);
    return fromMemory(b_, phi, a.type);
  }
  b_.SetInsertPoint(vecBB);
  warpMaskedStore(b_, val, b_.CreateIntToPtr(base, b_.getPtrTy()), llvm::Align(size), m);
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(otherBB);
  computeHalves();
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
  warpMaskedScatter(b_, val, b_.CreateIntToPtr(addrs, warpVector(b_.getPtrTy()), "ptrs"),
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
  Type *i64 = b_.getInt64Ty();
  Type *resTy = vecTy(a.type);
  Type *elemTy = llvm::cast<llvm::VectorType>(resTy)->getElementType();
  // The lanes' addresses, operands and results go through arrays in the frame, written and
  // read once: picking a vector element by a variable lane index would spill the whole vector
  // again in every iteration.
  auto buffer = [&](Type *t, Value *init, const char *name) {
    auto *buf = entryAlloca(b_, t, name, 64);
    b_.CreateAlignedStore(init, buf, llvm::Align(64));
    return buf;
  };
  // An operand the same in every lane (atomicAdd(p, 1)) is used as the scalar it is.
  Value *valSplat = llvm::getSplatValue(a.value);
  Value *val2Splat = cas ? llvm::getSplatValue(a.value2) : nullptr;
  Value *addrBuf = buffer(a.addrs->getType(), a.addrs, "atomic.addrs");
  Value *valBuf = valSplat ? nullptr : buffer(a.value->getType(), a.value, "atomic.operands");
  Value *val2Buf =
      cas && !val2Splat ? buffer(a.value2->getType(), a.value2, "atomic.new") : nullptr;
  Value *resBuf = buffer(resTy, llvm::Constant::getNullValue(resTy), "atomic.results");
  auto lanePtr = [&](Value *buf, Type *t, Value *lane) {
    return b_.CreateGEP(t, buf, b_.CreateZExt(lane, i64));
  };
  mask_->forEachLane(m, "atomic", [&](Value *lane) {
    Value *ptr = b_.CreateIntToPtr(b_.CreateLoad(i64, lanePtr(addrBuf, i64, lane), "addr"),
                                   b_.getPtrTy(), "ptr");
    Value *v =
        valSplat ? valSplat : b_.CreateLoad(elemTy, lanePtr(valBuf, elemTy, lane), "operand");
    auto align = llvm::MaybeAlign(a.type.bytes());
    auto order = llvm::AtomicOrdering::Monotonic;
    Value *old;
    if (cas) {
      Value *nv =
          val2Splat ? val2Splat : b_.CreateLoad(elemTy, lanePtr(val2Buf, elemTy, lane), "new");
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
      old = b_.CreateAlignedLoad(v->getType(), ptr, *align, "shared.old");
      Value *nv = sharedAtomicResult(b_, op, old, v);
      if (!nv) // not reached: every CUDA op is in sharedAtomicResult
        nv = b_.CreateAtomicRMW(op, ptr, v, align, order);
      b_.CreateAlignedStore(nv, ptr, *align);
    } else {
      old = b_.CreateAtomicRMW(op, ptr, v, align, order);
    }
    b_.CreateStore(old, lanePtr(resBuf, elemTy, lane));
  });
  return b_.CreateAlignedLoad(resTy, resBuf, llvm::Align(64), "atomic.result");
}

} // namespace kern::backend::warp
