// Memory safety of host code. Every object host code can reach lives in the host arena
// (runtime/host_heap.h): heap blocks and globals are placed there by the runtime, and local
// objects whose address is taken (the function's slots) and variable-length arrays are placed
// here, in a frame on the thread's stack in the arena, each between red zones and marked in the
// shadow map while the function runs. Nothing of the machine stack (return addresses, saved
// registers) is ever an object, so no pointer of the program can reach it.
//
// A load or store is checked one of two ways:
// - its address is computed from a known object (a local slot or a host global): the offset
//   must stay inside that object — one comparison, and the fault names the object;
// - otherwise the shadow map says whether [addr, addr + n) lies inside one live object: a
//   subtraction, a comparison, a load and a comparison. What fails goes to the runtime
//   (kern_rt_host_check), which allows managed memory and the runtime's objects handed to the
//   program, and reports the rest.
#include "backend/host_codegen_impl.h"

#include <llvm/IR/MDBuilder.h>

namespace kern::backend {

namespace {

constexpr uint64_t kGranule = KERN_HOST_GRANULE;

uint64_t roundUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

bool hasAlloca(const ir::Block *b) {
  if (!b)
    return false;
  for (const ir::Stmt *s : b->stmts)
    if (s->kind == ir::StmtKind::Alloca || hasAlloca(s->thenBody) || hasAlloca(s->elseBody) ||
        hasAlloca(s->preCond) || hasAlloca(s->body) || hasAlloca(s->step))
      return true;
  return false;
}

/// Some site of `b`'s statements, for a fault of the whole function (its frame).
ir::SiteId firstSite(const ir::Block *b) {
  if (!b)
    return 0;
  for (const ir::Stmt *s : b->stmts) {
    if (s->site)
      return s->site;
    for (const ir::Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      if (ir::SiteId id = firstSite(c))
        return id;
  }
  return 0;
}

// KernHostHead's fields, as compiled code reads them: 8-byte words from the context's start.
static_assert(offsetof(KernHostHead, arenaLo) == 8 && offsetof(KernHostHead, arenaBytes) == 16 &&
              offsetof(KernHostHead, shadow) == 24 && offsetof(KernHostHead, stackLo) == 32 &&
              offsetof(KernHostHead, sp) == 40 && offsetof(KernHostHead, visibleLo) == 48 &&
              offsetof(KernHostHead, visibleHi) == 56);
constexpr unsigned kSpField = 5, kVisibleLoField = 6, kVisibleHiField = 7;

} // namespace

Value *HostCodegen::headField(unsigned index, const llvm::Twine &name) {
  return b_.CreateAlignedLoad(b_.getInt64Ty(), b_.CreateConstGEP1_64(b_.getInt64Ty(), ctx_, index),
                              llvm::Align(8), name);
}

llvm::MDNode *HostCodegen::shadowScope() {
  if (!shadowScope_) {
    llvm::MDBuilder md(c_);
    shadowScope_ = md.createAnonymousAliasScope(
        md.createAnonymousAliasScopeDomain("kern.host.memory"), "kern.host.shadow");
  }
  return llvm::MDNode::get(c_, {shadowScope_});
}

void HostCodegen::markShadowAccess(llvm::Instruction *i) {
  i->setMetadata(llvm::LLVMContext::MD_alias_scope, shadowScope());
}

void HostCodegen::markProgramAccess(llvm::Instruction *i) {
  i->setMetadata(llvm::LLVMContext::MD_noalias, shadowScope());
}

void HostCodegen::emitFrameEntry() {
  arenaLo_ = headField(1, "arena.lo");
  arenaBytes_ = headField(2, "arena.bytes");
  shadow_ = b_.CreateAlignedLoad(b_.getPtrTy(), b_.CreateConstGEP1_64(b_.getInt64Ty(), ctx_, 3),
                                 llvm::Align(8), "arena.shadow");
  if (f_.slots.empty() && !hasAlloca(f_.body))
    return;
  // The frame, from its low end: a red zone, then each slot followed by a red zone.
  uint64_t off = kGranule, align = kGranule;
  std::vector<uint64_t> offsets;
  for (const ir::LocalSlot *slot : f_.slots) {
    const uint64_t a = std::max<uint64_t>(slot->align, kGranule);
    align = std::max(align, a);
    off = roundUp(off, a);
    offsets.push_back(off);
    off += roundUp(std::max<uint64_t>(slot->size, 1), kGranule) + kGranule;
  }
  const uint64_t frameBytes = roundUp(off, align);
  sp0_ = headField(kSpField, "stack.top");
  Value *frame = takeStack(b_.getInt64(frameBytes), align, firstSite(f_.body));
  for (size_t i = 0; i < f_.slots.size(); ++i) {
    const ir::LocalSlot *slot = f_.slots[i];
    Value *addr = b_.CreateAdd(frame, b_.getInt64(offsets[i]), slot->name);
    slots_[slot] = addr;
    emitShadowFill(addr, b_.getInt64(slot->size), b_.CreateAdd(addr, b_.getInt64(slot->size)));
  }
}

void HostCodegen::emitFrameExit() {
  if (!sp0_)
    return;
  // Everything below the entry's top is this call's (its slots and variable-length arrays):
  // cleared in the shadow, then given back.
  Value *cur = headField(kSpField, "stack.now");
  emitShadowFill(cur, b_.CreateSub(sp0_, cur), b_.getInt64(0));
  b_.CreateAlignedStore(sp0_, b_.CreateConstGEP1_64(b_.getInt64Ty(), ctx_, kSpField),
                        llvm::Align(8));
}

Value *HostCodegen::frameAddress() {
  Value *fa = b_.CreateIntrinsic(llvm::Intrinsic::frameaddress, {b_.getPtrTy()}, {b_.getInt32(0)});
  return b_.CreatePtrToInt(fa, b_.getInt64Ty(), "frame");
}

Value *HostCodegen::emitSetjmp(const ir::Expr &e) {
  // The C library's _setjmp, called here so that it returns (twice) into this frame, on the
  // runtime's context for the program's jmp_buf.
  callsSetjmp_ = true;
  Value *env = emitExpr(*e.ops[0]);
  b_.CreateCall(runtime(RuntimeFunction::kern_rt_api_site), {ctx_, b_.getInt32(e.site)});
  Value *context = b_.CreateCall(runtime(RuntimeFunction::kern_rt_setjmp_slot),
                                 {ctx_, b_.getInt32(e.site), env, frameAddress()}, "jmp.context");
  b_.CreateCall(runtime(RuntimeFunction::kern_rt_api_site), {ctx_, b_.getInt32(0)});
  llvm::Module *m = fn_->getParent();
  llvm::FunctionCallee sj = m->getOrInsertFunction(
      "_setjmp", llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy()}, false));
  if (auto *f = llvm::dyn_cast<llvm::Function>(sj.getCallee()))
    f->addFnAttr(llvm::Attribute::ReturnsTwice);
  llvm::CallInst *r = b_.CreateCall(sj, {context}, "setjmp");
  r->addFnAttr(llvm::Attribute::ReturnsTwice);
  return b_.CreateIntCast(r, registerType(c_, e.type), true, "setjmp.value");
}

void HostCodegen::emitLongjmp(const ir::Expr &e) {
  Value *env = emitExpr(*e.ops[0]);
  Value *value = emitCast(b_, emitExpr(*e.ops[1]), e.ops[1]->type, ir::Type::i32(true));
  b_.CreateCall(runtime(RuntimeFunction::kern_rt_api_site), {ctx_, b_.getInt32(e.site)});
  b_.CreateCall(runtime(RuntimeFunction::kern_rt_longjmp),
                {ctx_, b_.getInt32(e.site), env, value, frameAddress()});
  b_.CreateUnreachable(); // kern_rt_longjmp never returns
  b_.SetInsertPoint(newBlock("after.longjmp"));
}

Value *HostCodegen::takeStack(Value *bytes, uint64_t align, ir::SiteId site) {
  Value *sp = headField(kSpField, "stack.sp");
  Value *lo = headField(4, "stack.lo");
  Value *base = b_.CreateAnd(b_.CreateSub(sp, bytes), b_.getInt64(~(align - 1)), "frame");
  Value *bad = b_.CreateOr(b_.CreateICmpULT(base, lo), b_.CreateICmpUGT(base, sp), "stack.full");
  hostFault(bad, KERN_FAULT_HOST_STACK, site, bytes);
  b_.CreateAlignedStore(base, b_.CreateConstGEP1_64(b_.getInt64Ty(), ctx_, kSpField),
                        llvm::Align(8));
  return base;
}

void HostCodegen::emitShadowFill(Value *base, Value *bytes, Value *value) {
  Value *first = b_.CreateLShr(b_.CreateSub(base, arenaLo_), b_.getInt64(4), "shadow.first");
  Value *ptr = b_.CreateInBoundsGEP(b_.getInt64Ty(), shadow_, first, "shadow.at");
  Value *count =
      b_.CreateLShr(b_.CreateAdd(bytes, b_.getInt64(kGranule - 1)), b_.getInt64(4), "shadow.count");
  auto *zero = llvm::dyn_cast<llvm::ConstantInt>(value);
  if (zero && zero->isZero()) {
    markShadowAccess(
        b_.CreateMemSet(ptr, b_.getInt8(0), b_.CreateShl(count, b_.getInt64(3)), llvm::Align(8)));
    return;
  }
  if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(count); c && c->getZExtValue() <= 8) {
    for (uint64_t i = 0; i < c->getZExtValue(); ++i)
      markShadowAccess(b_.CreateAlignedStore(
          value, b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), ptr, i), llvm::Align(8)));
    return;
  }
  BasicBlock *pre = b_.GetInsertBlock();
  auto *header = newBlock("shadow.loop");
  auto *body = newBlock("shadow.body");
  auto *done = newBlock("shadow.done");
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  auto *i = b_.CreatePHI(b_.getInt64Ty(), 2, "shadow.i");
  i->addIncoming(b_.getInt64(0), pre);
  b_.CreateCondBr(b_.CreateICmpULT(i, count), body, done);
  b_.SetInsertPoint(body);
  markShadowAccess(
      b_.CreateAlignedStore(value, b_.CreateInBoundsGEP(b_.getInt64Ty(), ptr, i), llvm::Align(8)));
  i->addIncoming(b_.CreateAdd(i, b_.getInt64(1)), body);
  b_.CreateBr(header);
  b_.SetInsertPoint(done);
}

bool HostCodegen::rootObject(const ir::Expr *e, Value *&base, uint64_t &size, std::string &name) {
  while (e && (e->kind == ir::ExprKind::PtrAdd ||
               (e->kind == ir::ExprKind::Cast && e->type.isPtr() && e->ops[0]->type.isPtr())))
    e = e->ops[0];
  if (!e)
    return false;
  if (e->kind == ir::ExprKind::LocalAddr && e->slot) {
    auto it = slots_.find(e->slot);
    if (it == slots_.end())
      return false;
    base = it->second;
    size = e->slot->size;
    name = "local variable '" + e->slot->name + "' of " + f_.name;
    return true;
  }
  // An array declared without its size (`extern const T table[];`, defined in another file)
  // is checked against the object it turns out to be (the shadow map), not as empty.
  if (e->kind == ir::ExprKind::GlobalAddr && e->global &&
      e->global->space == frontend::AddrSpace::Host && e->global->size != 0) {
    base = emitExpr(*e);
    size = e->global->size;
    name = e->global->name == "string literal" ? "a string literal"
                                               : "global variable '" + e->global->name + "'";
    return true;
  }
  return false;
}

const ir::Expr *HostCodegen::pointerVariable(const ir::Expr *e) {
  if (!e || e->kind != ir::ExprKind::PtrAdd)
    return nullptr;
  while (e && (e->kind == ir::ExprKind::PtrAdd ||
               (e->kind == ir::ExprKind::Cast && e->type.isPtr() && e->ops[0]->type.isPtr())))
    e = e->ops[0];
  return e && e->kind == ir::ExprKind::VarRef ? e : nullptr;
}

Value *HostCodegen::checkedAddress(Value *addr, const ir::Expr *addrExpr, uint64_t bytes,
                                   bool store, ir::SiteId site) {
  llvm::MDBuilder md(c_);
  auto *slowBB = newBlock("host.check.slow");
  auto *okBB = newBlock("host.check.ok");
  Value *objectName = llvm::ConstantPointerNull::get(b_.getPtrTy());
  Value *objectBase = b_.getInt64(0);
  uint64_t objectSize = 0;
  Value *base = nullptr;
  uint64_t size = 0;
  std::string name;
  if (rootObject(addrExpr, base, size, name)) {
    // One comparison: the offset from the object's start leaves room for the access.
    Value *off = b_.CreateSub(addr, base, "obj.off");
    Value *ok =
        bytes <= size ? b_.CreateICmpULE(off, b_.getInt64(size - bytes), "obj.in") : b_.getFalse();
    b_.CreateCondBr(ok, okBB, slowBB, md.createBranchWeights(1 << 20, 1));
    objectName = mc_.stringConstant(name);
    objectBase = base;
    objectSize = size;
  } else {
    // Any pointer: the shadow entry of the address bounds the access.
    auto *shadowBB = newBlock("host.check.shadow");
    if (const ir::Expr *root = pointerVariable(addrExpr)) {
      // First relative to the pointer variable the address is computed from (`p[i]`): the
      // shadow entry of `p` is the same on every iteration of a loop that frees and allocates
      // nothing, so the optimiser reads it once, before the loop. A negative index or a
      // pointer past its object's end take the address's own entry.
      Value *from = emitExpr(*root);
      Value *baseOff = b_.CreateSub(from, arenaLo_, "base.off");
      Value *inArena = b_.CreateICmpULT(baseOff, arenaBytes_, "base.in.arena");
      Value *index = b_.CreateSelect(inArena, b_.CreateLShr(baseOff, b_.getInt64(4)),
                                     b_.getInt64(0), "base.granule");
      auto *end = b_.CreateAlignedLoad(b_.getInt64Ty(),
                                       b_.CreateInBoundsGEP(b_.getInt64Ty(), shadow_, index),
                                       llvm::Align(8), "base.object.end");
      markShadowAccess(end);
      // Outside the arena: the room up to the end of the context's mapped pinned block, if `p`
      // lies in it (read once, before a loop: only a call that frees the block changes what
      // it means for `p`).
      Value *vlo = headField(kVisibleLoField, "base.visible.lo");
      Value *vhi = headField(kVisibleHiField, "base.visible.hi");
      Value *inVisible =
          b_.CreateAnd(b_.CreateICmpUGE(from, vlo), b_.CreateICmpULT(from, vhi), "base.in.visible");
      Value *objectEnd = b_.CreateSelect(inArena, end, b_.CreateSelect(inVisible, vhi, from));
      Value *room = b_.CreateSub(objectEnd, from, "base.room");
      Value *valid = b_.CreateAnd(
          b_.CreateAnd(b_.CreateOr(inArena, inVisible), b_.CreateICmpUGT(objectEnd, from)),
          b_.CreateICmpUGE(room, b_.getInt64(bytes)), "base.valid");
      auto *offsetBB = newBlock("host.check.offset");
      b_.CreateCondBr(valid, offsetBB, shadowBB, md.createBranchWeights(1 << 20, 1));
      b_.SetInsertPoint(offsetBB);
      Value *ok = b_.CreateICmpULE(b_.CreateSub(addr, from), b_.CreateSub(room, b_.getInt64(bytes)),
                                   "in.base.object");
      b_.CreateCondBr(ok, okBB, shadowBB, md.createBranchWeights(1 << 20, 1));
    } else {
      b_.CreateBr(shadowBB);
    }
    b_.SetInsertPoint(shadowBB);
    auto *lookupBB = newBlock("host.check.lookup");
    auto *visibleBB = newBlock("host.check.visible");
    Value *off = b_.CreateSub(addr, arenaLo_, "arena.off");
    b_.CreateCondBr(b_.CreateICmpULT(off, arenaBytes_, "in.arena"), lookupBB, visibleBB,
                    md.createBranchWeights(1 << 20, 1));
    // Outside the arena: inside the mapped pinned block the runtime last allowed (read afresh
    // each time: a call of the runtime may move or empty it).
    b_.SetInsertPoint(visibleBB);
    auto field = [&](unsigned index, const char *name) {
      auto *l =
          b_.CreateAlignedLoad(b_.getInt64Ty(), b_.CreateConstGEP1_64(b_.getInt64Ty(), ctx_, index),
                               llvm::Align(8), name);
      l->setVolatile(true);
      return l;
    };
    Value *lo = field(kVisibleLoField, "visible.lo"), *hi = field(kVisibleHiField, "visible.hi");
    // addr < hi first: then addr + bytes cannot wrap (an empty block, 0 to 0, takes nothing).
    Value *inVisible =
        b_.CreateAnd(b_.CreateAnd(b_.CreateICmpUGE(addr, lo), b_.CreateICmpULT(addr, hi)),
                     b_.CreateICmpULE(b_.CreateAdd(addr, b_.getInt64(bytes)), hi), "in.visible");
    b_.CreateCondBr(inVisible, okBB, slowBB, md.createBranchWeights(1 << 20, 1));
    b_.SetInsertPoint(lookupBB);
    auto *end = b_.CreateAlignedLoad(
        b_.getInt64Ty(),
        b_.CreateInBoundsGEP(b_.getInt64Ty(), shadow_, b_.CreateLShr(off, b_.getInt64(4))),
        llvm::Align(8), "object.end");
    markShadowAccess(end);
    Value *ok = b_.CreateICmpULE(b_.CreateAdd(addr, b_.getInt64(bytes)), end, "in.object");
    b_.CreateCondBr(ok, okBB, slowBB, md.createBranchWeights(1 << 20, 1));
  }
  b_.SetInsertPoint(slowBB);
  const uint64_t sizeAndStore = bytes | (store ? KERN_HOST_CHECK_STORE : 0);
  // The check reads and writes none of the program's memory (it returns, or reports and
  // unwinds): loads of the program may move across it.
  llvm::Function *check = runtime(RuntimeFunction::kern_rt_host_check);
  check->setOnlyAccessesInaccessibleMemory();
  check->setDoesNotThrow();
  b_.CreateCall(check, {ctx_, b_.getInt32(site), addr, b_.getInt64(sizeAndStore), objectName,
                        objectBase, b_.getInt64(objectSize)});
  b_.CreateBr(okBB);
  b_.SetInsertPoint(okBB);
  return b_.CreateIntToPtr(addr, b_.getPtrTy(), "ptr");
}

} // namespace kern::backend
