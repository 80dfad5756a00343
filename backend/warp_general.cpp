// The general path of warp memory accesses as functions shared by every site of a module.
//
// emitMemoryAccess (warp_memory.cpp) emits each global, shared or generic load and store as a
// contiguous fast path (one vector access, a few scalar checks), for shared loads of code that
// uses 2-D thread indices the 16-wide tile shapes (as hot in tiled code: W3 matmul lost 20%
// with them out of line), and a general path: the tile shapes, the region, allocation and alignment
// checks lane by lane with their fault reports, gathers and scatters, and the checked mode's and
// the counters' hooks. The general path is most of an access's code but rarely the one taken where
// speed matters, so it is
// emitted once per kind of access (operation, type, space) as a function taking the site as an
// argument, and each site calls it. The JIT's work (and so the compile time of a program) then
// grows with the fast paths only: the general path of every access of a kernel had been 80% of
// its code. A fault is reported inside the function (kern_rt_fault sets ctx->fault), and the
// caller returns as it does after a barrier or a device function call.
#include "backend/warp_codegen_impl.h"
#include "ir/analysis.h"

namespace kern::backend::warp {

Value *WarpCodegen::emitOtherWarpIntrinsic(const ir::Expr &e) {
  if (e.intrinsic == ir::IntrinsicId::FnPtrFault && e.ops.size() == 1) {
    // Emitted under the `if` that no function of the pointer's matched: every active lane
    // faults (a null pointer, or a value that is no function it may call); the first is
    // reported and the warp stops.
    Value *v = emitVec(*e.ops[0]);
    Value *isNull = b_.CreateICmpEQ(v, llvm::Constant::getNullValue(v->getType()), "fnptr.null");
    Value *kinds = b_.CreateSelect(
        isNull, b_.CreateVectorSplat(KERN_WARP_SIZE, b_.getInt32(KERN_FAULT_NULL_FNPTR)),
        b_.CreateVectorSplat(KERN_WARP_SIZE, b_.getInt32(KERN_FAULT_DEVICE_FNPTR)), "fnptr.kind");
    faultWithKind(cur(), kinds, b_.getInt32(e.site), v);
    return nullptr;
  }
  if (e.intrinsic == ir::IntrinsicId::DeviceMalloc || e.intrinsic == ir::IntrinsicId::DeviceFree) {
    // One runtime call per active lane, in lane order (the heap's blocks follow that order).
    const bool isMalloc = e.intrinsic == ir::IntrinsicId::DeviceMalloc;
    Value *v = emitVec(*e.ops[0]);
    auto *arrTy = llvm::ArrayType::get(b_.getInt64Ty(), KERN_WARP_SIZE);
    llvm::AllocaInst *out = nullptr;
    if (isMalloc) {
      out = entryAlloca(b_, arrTy, "malloc.result", 8);
      b_.CreateStore(llvm::Constant::getNullValue(arrTy), out);
    }
    mask_->forEachLane(cur(), isMalloc ? "malloc" : "free", [&](Value *lane) {
      Value *x = b_.CreateExtractElement(v, lane);
      if (isMalloc) {
        Value *p = b_.CreateCall(runtime(RuntimeFunction::kern_rt_device_malloc), {ctx_, x});
        b_.CreateStore(p, b_.CreateInBoundsGEP(arrTy, out, {b_.getInt64(0), lane}));
      } else {
        b_.CreateCall(runtime(RuntimeFunction::kern_rt_device_free),
                      {ctx_, b_.getInt32(e.site), lane, x});
      }
    });
    if (!isMalloc) {
      returnIfFaulted();
      return nullptr;
    }
    return b_.CreateAlignedLoad(llvm::FixedVectorType::get(b_.getInt64Ty(), KERN_WARP_SIZE), out,
                                llvm::Align(8), "malloc.ptrs");
  }
  if (e.intrinsic == ir::IntrinsicId::VirtualFault && e.ops.size() == 1) {
    // As FnPtrFault: under the `if` that no class of the object's matched.
    Value *v = emitVec(*e.ops[0]);
    faultWithKind(cur(), b_.CreateVectorSplat(KERN_WARP_SIZE, b_.getInt32(KERN_FAULT_BAD_VPTR)),
                  b_.getInt32(e.site), v);
    return nullptr;
  }
  mc_.fail(std::string("internal error: ") + ir::intrinsicName(e.intrinsic) +
           " is not a warp intrinsic");
  return e.type.isVoid() ? nullptr : llvm::PoisonValue::get(vecTy(e.type));
}

Value *WarpCodegen::emitWarpKey() {
  Type *i64 = b_.getInt64Ty();
  auto field = [&](unsigned off, const char *name) {
    return b_.CreateZExt(loadCtx(off, b_.getInt32Ty(), name), i64);
  };
  Value *linear =
      b_.CreateAdd(field(kCtxBlockIdx, "bx"),
                   b_.CreateMul(field(kCtxGridDim, "gx"),
                                b_.CreateAdd(field(kCtxBlockIdx + 4, "by"),
                                             b_.CreateMul(field(kCtxGridDim + 4, "gy"),
                                                          field(kCtxBlockIdx + 8, "bz")))));
  return b_.CreateOr(b_.CreateShl(linear, 16), field(kCtxWarpId, "warp.id"), "warp.key");
}

bool WarpCodegen::takesLocalWindow(ir::AddrSpace space) {
  // Only generic addresses may point into the local window (emitLaneChecks); for the others
  // the caller would compute the window for nothing, at the entry of every kernel.
  return space != ir::AddrSpace::Global && space != ir::AddrSpace::Constant &&
         space != ir::AddrSpace::Shared;
}

llvm::Function *WarpCodegen::generalAccessFunction(const MemoryAccess &a) {
  const std::string name = std::string("kern.access.") +
                           (a.op == AccessOp::Load ? "load." : "store.") + a.type.str() + "." +
                           frontend::addrSpaceName(a.space);
  auto it = mc_.accessFunctions.find(name);
  if (it != mc_.accessFunctions.end())
    return it->second;
  Type *valueTy = vecTy(a.type);
  std::vector<Type *> params = {b_.getPtrTy(), warpVector(b_.getInt64Ty()), maskTy(),
                                b_.getInt32Ty()};
  if (takesLocalWindow(a.space))
    params.insert(params.end(), {b_.getInt64Ty(), b_.getInt64Ty()});
  if (a.op == AccessOp::Store)
    params.push_back(valueTy);
  auto *type =
      llvm::FunctionType::get(a.op == AccessOp::Load ? valueTy : b_.getVoidTy(), params, false);
  auto *fn =
      llvm::Function::Create(type,
                             mc_.externalAccessFunctions ? llvm::GlobalValue::ExternalLinkage
                                                         : llvm::GlobalValue::InternalLinkage,
                             name, mc_.module);
  // Kept out of line: inlined back, it would cost the JIT what it is there to save.
  fn->addFnAttr(llvm::Attribute::NoInline);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  // As LLVM makes an internal function that nobody else calls; the callers use it too.
  fn->setCallingConv(llvm::CallingConv::Fast);
  mc_.accessFunctions[name] = fn;
  if (mc_.externalAccessFunctions) { // defined in the module of access functions
    mc_.accessKinds[name] = {static_cast<uint32_t>(a.op), a.type, a.space};
    return fn;
  }
  WarpCodegen g(mc_, f_, fn);
  g.emitGeneralAccessFunction(a.op, a.type, a.space);
  return fn;
}

void WarpCodegen::defineAccessFunctions() {
  for (auto &[name, kind] : mc_.accessKinds) {
    MemoryAccess a;
    a.op = static_cast<AccessOp>(kind.op);
    a.type = kind.type;
    a.space = kind.space;
    mc_.externalAccessFunctions = false;
    llvm::Function *fn = generalAccessFunction(a);
    fn->setLinkage(llvm::GlobalValue::ExternalLinkage);
  }
}

void WarpCodegen::emitGeneralAccessFunction(AccessOp op, ir::Type type, ir::AddrSpace space) {
  auto *entry = BasicBlock::Create(c_, "entry", fn_);
  b_.SetInsertPoint(entry);
  auto arg = fn_->arg_begin();
  ctx_ = &*arg++;
  Value *addrs = &*arg++;
  Value *m = &*arg++;
  MemoryAccess a;
  a.op = op;
  a.type = type;
  a.space = space;
  a.siteValue = &*arg++;
  if (takesLocalWindow(space)) {
    windowLo_ = &*arg++;
    localHi_ = &*arg++;
    loadLocalMemoryWindow(); // the caller's, as it left KernWarpCtx::localSp
  } else {                   // no address of these spaces is checked against it: an empty window
    windowLo_ = localHi_ = b_.getInt64(0);
  }
  if (op == AccessOp::Store)
    a.value = &*arg++;
  a.addrs = addrs;
  // The windows the checks use, as the calling warp function loaded them.
  sharedLo_ =
      b_.CreatePtrToInt(loadCtx(kCtxShared, b_.getPtrTy(), "shared"), b_.getInt64Ty(), "shared.lo");
  sharedHi_ =
      b_.CreateAdd(sharedLo_, loadCtx(kCtxSharedSize, b_.getInt64Ty(), "shared.size"), "shared.hi");
  globalLo_ = loadCtx(kCtxGlobalLo, b_.getInt64Ty(), "global.lo");
  globalHi_ = loadCtx(kCtxGlobalHi, b_.getInt64Ty(), "global.hi");
  shadow_ = loadCtx(kCtxShadow, b_.getPtrTy(), "shadow");
  if (mc_.options.counters) {
    loadCounterView(ctx_);
    warpKey_ = emitWarpKey();
  }
  Type *valueTy = vecTy(type);
  exit_ = BasicBlock::Create(c_, "faulted", fn_);
  auto *doneBB = newBlock("access.done");
  std::vector<std::pair<Value *, BasicBlock *>> results;
  if (op == AccessOp::Load)
    results = emitHalfWarpLoads(a, addrs, m, bits(m, "access.lanes"), doneBB);
  Value *v = emitGeneralAccess(a, addrs, m);
  results.push_back({v, b_.GetInsertBlock()});
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(doneBB);
  if (op == AccessOp::Load) {
    auto *phi = b_.CreatePHI(valueTy, static_cast<unsigned>(results.size()), "access.value");
    for (auto &[value, bb] : results)
      phi->addIncoming(value, bb);
    b_.CreateRet(phi);
  } else {
    b_.CreateRetVoid();
  }
  // After a fault the caller returns at once; the value is never used.
  b_.SetInsertPoint(exit_);
  if (op == AccessOp::Load)
    b_.CreateRet(llvm::PoisonValue::get(valueTy));
  else
    b_.CreateRetVoid();
}

void WarpCodegen::checkCallStack(const ir::Function &callee, Value *mask, ir::SiteId site) {
  // A frame in local memory takes no stack (checkLocalMemory checks its own room).
  const uint64_t frame =
      (ir::frameInLocalMemory(callee) ? 0 : ir::warpFrameBytes(callee)) + kFrameSlackBytes;
  Value *sp = b_.CreatePtrToInt(
      b_.CreateIntrinsic(llvm::Intrinsic::stacksave, {b_.getPtrTy()}, {}, nullptr, "call.sp"),
      b_.getInt64Ty());
  Value *limit = loadCtx(kCtxStackLimit, b_.getInt64Ty(), "stack.limit");
  Value *noRoom =
      b_.CreateOr(b_.CreateICmpULT(sp, b_.getInt64(frame)),
                  b_.CreateICmpULT(b_.CreateSub(sp, b_.getInt64(frame)), limit), "stack.over");
  faultIf(b_.CreateAnd(mask, splat(noRoom)), KERN_FAULT_STACK, site, splat(b_.getInt64(frame)));
}

void WarpCodegen::checkLocalMemory(const ir::Function &callee, Value *mask, ir::SiteId site,
                                   Value *sp) {
  if (!ir::frameInLocalMemory(callee))
    return;
  // The frame and its alignment (emitLocalFrame) must fit between localSp and localLimit; a
  // warp given no local memory (all zero) has no room, and faults rather than write near 0.
  const uint64_t frame = ir::warpFrameBytes(callee);
  const uint64_t need = frame + ir::warpFrameAlign(callee);
  if (!sp)
    sp = loadCtx(kCtxLocalSp, b_.getInt64Ty(), "call.local.sp");
  Value *limit = loadCtx(kCtxLocalLimit, b_.getInt64Ty(), "local.limit");
  Value *full = b_.CreateOr(b_.CreateICmpULT(sp, limit),
                            b_.CreateICmpULT(b_.CreateSub(sp, limit), b_.getInt64(need)),
                            "local.memory.full");
  faultIf(b_.CreateAnd(mask, splat(full)), KERN_FAULT_LOCAL_MEMORY, site,
          splat(b_.getInt64(frame)));
}

Value *WarpCodegen::checkShuffleWidth(Value *width, ir::SiteId site) {
  Type *i32v = warpVector(b_.getInt32Ty());
  Value *wm1 = b_.CreateSub(width, splat(b_.getInt32(1)));
  Value *pow2 =
      b_.CreateAnd(b_.CreateICmpEQ(b_.CreateAnd(width, wm1), llvm::Constant::getNullValue(i32v)),
                   b_.CreateICmpULE(wm1, splat(b_.getInt32(31))));
  faultIf(b_.CreateAnd(cur(), b_.CreateNot(pow2)), KERN_FAULT_SHFL_WIDTH, site,
          b_.CreateSExt(width, warpVector(b_.getInt64Ty())));
  return b_.CreateSelect(pow2, width, splat(b_.getInt32(32)), "width");
}

void WarpCodegen::checkSyncMask(Value *mask, ir::SiteId site) {
  if (!mc_.options.checked || !site) // no site: __ballot and the like, of the active lanes
    return;
  Type *i32v = warpVector(b_.getInt32Ty());
  mask = b_.CreateIntCast(mask, i32v, false);
  Value *active = splat(bits(cur(), "sync.active"));
  Value *live = splat(loadCtx(kCtxLiveMask, b_.getInt32Ty(), "sync.live"));
  Value *zero = llvm::Constant::getNullValue(i32v);
  // Named lanes that exist and do not execute the call; and the lane itself not named.
  Value *absent = b_.CreateAnd(b_.CreateAnd(mask, live), b_.CreateNot(active));
  Value *self = b_.CreateShl(splat(b_.getInt32(1)), laneIds());
  Value *bad = b_.CreateOr(b_.CreateICmpNE(absent, zero),
                           b_.CreateICmpEQ(b_.CreateAnd(mask, self), zero), "sync.bad");
  faultIf(b_.CreateAnd(cur(), bad), KERN_FAULT_SYNC_MASK, site,
          b_.CreateZExt(mask, warpVector(b_.getInt64Ty())));
}

} // namespace kern::backend::warp

namespace kern::backend {

void defineAccessFunctions(ModuleContext &mc, const ir::Function &any) {
  // The body of an access function depends on its kind and the options only; `any` is the
  // function the code generator is set up with.
  warp::WarpCodegen(mc, any, nullptr).defineAccessFunctions();
}

} // namespace kern::backend
