// Host code generation: Kern IR host functions become scalar LLVM functions. Control flow is
// plain branches (one thread); memory accesses are checked so that host code never
// dereferences a device pointer; launches pack the kernel's parameter buffer.
#include "backend/host_codegen.h"
#include "backend/host_codegen_impl.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/MDBuilder.h>

#include <map>
#include <optional>

namespace kern::backend {

void HostCodegen::emit() {
  b_.SetInsertPoint(BasicBlock::Create(c_, "entry", fn_));
  ctx_ = fn_->getArg(0);
  for (auto *v : f_.vars) {
    auto *a = entryAlloca(b_, registerType(c_, v->type), v->name + ".addr");
    b_.CreateStore(llvm::Constant::getNullValue(a->getAllocatedType()), a);
    vars_[v] = a;
  }
  for (size_t i = 0; i < f_.params.size(); ++i) {
    auto *v = f_.params[i];
    if (!vars_.count(v))
      vars_[v] = entryAlloca(b_, registerType(c_, v->type), v->name + ".addr");
    b_.CreateStore(fn_->getArg(1 + i), vars_[v]);
  }
  emitFrameEntry(); // the local objects (slots) and the arena's figures
  if (!f_.returnType.isVoid()) {
    // Falling off the end returns 0: C's rule for main, and deterministic for the rest.
    retval_ = entryAlloca(b_, registerType(c_, f_.returnType), "retval");
    b_.CreateStore(llvm::Constant::getNullValue(retval_->getAllocatedType()), retval_);
  }
  // Loop back-edges count down to a poll of the time limit (kern_rt_host_poll).
  steps_ = entryAlloca(b_, b_.getInt32Ty(), "host.steps");
  b_.CreateStore(b_.getInt32(kHostPollInterval), steps_);
  exit_ = BasicBlock::Create(c_, "fn.exit");
  emitBlock(f_.body);
  b_.CreateBr(exit_);
  exit_->insertInto(fn_);
  b_.SetInsertPoint(exit_);
  if (callsSetjmp_) {
    b_.CreateCall(runtime(RuntimeFunction::kern_rt_setjmp_leave), {ctx_, frameAddress()});
    // A longjmp back into this function finds its variables as they are in memory, as they
    // would be at -O0 (C promises it for the volatile ones): none is kept in a register.
    std::set<const Value *> homes;
    for (auto &[v, a] : vars_)
      homes.insert(a);
    for (llvm::BasicBlock &bb : *fn_)
      for (llvm::Instruction &i : bb) {
        if (auto *l = llvm::dyn_cast<llvm::LoadInst>(&i); l && homes.count(l->getPointerOperand()))
          l->setVolatile(true);
        if (auto *s = llvm::dyn_cast<llvm::StoreInst>(&i); s && homes.count(s->getPointerOperand()))
          s->setVolatile(true);
      }
  }
  emitFrameExit();
  if (retval_)
    b_.CreateRet(b_.CreateLoad(retval_->getAllocatedType(), retval_, "ret"));
  else
    b_.CreateRetVoid();
}

void HostCodegen::hostFault(Value *cond, uint32_t kind, ir::SiteId site, Value *addr) {
  auto *faultBB = newBlock("host.fault");
  auto *okBB = newBlock("host.ok");
  llvm::MDBuilder md(c_);
  b_.CreateCondBr(cond, faultBB, okBB, md.createBranchWeights(1, 1 << 20));
  b_.SetInsertPoint(faultBB);
  b_.CreateCall(runtime(RuntimeFunction::kern_rt_host_fault),
                {ctx_, b_.getInt32(site), b_.getInt32(kind), addr});
  b_.CreateUnreachable(); // kern_rt_host_fault unwinds to the runner
  b_.SetInsertPoint(okBB);
}

Value *HostCodegen::emitCond(const ir::Expr *e) {
  Value *c = emitExpr(*e);
  if (!e->type.isBool())
    c = emitCast(b_, c, e->type, ir::Type::boolTy());
  return c;
}

// ---- statements ----------------------------------------------------------------------------

void HostCodegen::emitBlock(const ir::Block *blk) {
  if (!blk)
    return;
  for (auto *s : blk->stmts) {
    emitStmt(*s);
    if (s->kind == ir::StmtKind::Break || s->kind == ir::StmtKind::Continue ||
        s->kind == ir::StmtKind::Return)
      break;
  }
}

void HostCodegen::emitStmt(const ir::Stmt &s) {
  using ir::StmtKind;
  switch (s.kind) {
  case StmtKind::Block:
    emitBlock(s.body ? s.body : s.thenBody);
    return;
  case StmtKind::Assign: {
    Value *v = emitExpr(*s.value);
    if (auto *a = vars_[s.var])
      b_.CreateStore(v, a);
    else
      mc_.fail("internal error: assignment to unknown variable " + s.var->name);
    return;
  }
  case StmtKind::Store: {
    Value *p = checkedAddress(emitExpr(*s.addr), s.addr, s.value->type.bytes(), true, s.site);
    Value *v = emitExpr(*s.value);
    // Host memory may hold packed data; x86 loads and stores need no alignment.
    markProgramAccess(b_.CreateAlignedStore(toMemory(b_, v, s.value->type), p, llvm::Align(1)));
    return;
  }
  case StmtKind::If: {
    Value *c = emitCond(s.cond);
    auto *thenBB = newBlock("if.then");
    auto *elseBB = s.elseBody ? newBlock("if.else") : nullptr;
    auto *end = newBlock("if.end");
    b_.CreateCondBr(c, thenBB, elseBB ? elseBB : end);
    b_.SetInsertPoint(thenBB);
    emitBlock(s.thenBody);
    b_.CreateBr(end);
    if (elseBB) {
      b_.SetInsertPoint(elseBB);
      emitBlock(s.elseBody);
      b_.CreateBr(end);
    }
    b_.SetInsertPoint(end);
    return;
  }
  case StmtKind::Loop:
    emitLoop(s);
    return;
  case StmtKind::Break:
  case StmtKind::Continue:
    if (loops_.empty()) {
      mc_.fail("internal error: break/continue outside a loop in " + f_.name);
      return;
    }
    b_.CreateBr(s.kind == StmtKind::Break ? loops_.back().breakTo : loops_.back().continueTo);
    deadBlock();
    return;
  case StmtKind::Return:
    if (s.value) {
      Value *v = emitExpr(*s.value);
      if (retval_)
        b_.CreateStore(v, retval_);
    }
    b_.CreateBr(exit_);
    deadBlock();
    return;
  case StmtKind::Eval:
    if (s.value)
      emitExpr(*s.value);
    return;
  case StmtKind::Printf:
    emitPrintf(s);
    return;
  case StmtKind::Launch:
    emitLaunch(s);
    return;
  case StmtKind::Barrier:
    mc_.fail("internal error: __syncthreads in host code (" + f_.name + ")");
    return;
  case StmtKind::Alloca:
    emitAlloca(s);
    return;
  case StmtKind::StackSave: // variable-length arrays live on the frame's stack in the arena
    b_.CreateStore(sp0_ ? headField(5, "stack.saved") : b_.getInt64(0), vars_[s.var]);
    return;
  case StmtKind::StackRestore:
    if (sp0_) {
      Value *saved = emitExpr(*s.value);
      Value *cur = headField(5, "stack.now");
      emitShadowFill(cur, b_.CreateSub(saved, cur), b_.getInt64(0));
      b_.CreateAlignedStore(saved, b_.CreateConstGEP1_64(b_.getInt64Ty(), ctx_, 5), llvm::Align(8));
    }
    return;
  }
}

void HostCodegen::emitAlloca(const ir::Stmt &s) {
  // C leaves a bound of zero or less undefined, and a native program then overwrites its own
  // stack; kern reports it, as GCC's -fsanitize=vla-bound does.
  Value *bytes = emitCast(b_, emitExpr(*s.value), s.value->type, ir::Type::i64(false));
  Value *overflow = b_.getFalse();
  for (const ir::Expr *a : s.args) {
    Value *n = emitExpr(*a);
    hostFault(b_.CreateICmpSLE(n, b_.getInt64(0), "vla.bad"), KERN_FAULT_VLA_BOUND, s.site, n);
    Value *m = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umul_with_overflow, bytes, n);
    bytes = b_.CreateExtractValue(m, 0, "vla.bytes");
    overflow = b_.CreateOr(overflow, b_.CreateExtractValue(m, 1));
  }
  // Larger than a thread's whole stack cannot work; smaller but too large for what is left
  // reaches the guard page (the function probes its stack, see emit), which is caught too.
  Value *tooLarge = b_.CreateOr(overflow, b_.CreateICmpUGT(bytes, b_.getInt64(KERN_MAX_VLA_BYTES)));
  hostFault(tooLarge, KERN_FAULT_VLA_SIZE, s.site,
            b_.CreateSelect(overflow, b_.getInt64(UINT64_MAX), bytes));
  // The array and a red zone below it, on the thread's stack in the arena.
  Value *rounded = b_.CreateAnd(b_.CreateAdd(bytes, b_.getInt64(15)), b_.getInt64(~uint64_t(15)));
  Value *base = takeStack(b_.CreateAdd(rounded, b_.getInt64(16)), 16, s.site);
  Value *mem = b_.CreateAdd(base, b_.getInt64(16), s.var->name);
  emitShadowFill(mem, bytes, b_.CreateAdd(mem, bytes));
  b_.CreateStore(mem, vars_[s.var]);
}

void HostCodegen::emitLoop(const ir::Stmt &s) {
  auto *header = newBlock("loop.header");
  auto *body = newBlock("loop.body");
  auto *step = newBlock("loop.step");
  auto *exit = newBlock("loop.exit");
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  if (s.testFirst) {
    emitBlock(s.preCond);
    if (s.cond)
      b_.CreateCondBr(emitCond(s.cond), body, exit);
    else
      b_.CreateBr(body);
  } else {
    b_.CreateBr(body);
  }
  b_.SetInsertPoint(body);
  loops_.push_back({exit, step});
  emitBlock(s.body);
  loops_.pop_back();
  b_.CreateBr(step);
  b_.SetInsertPoint(step);
  emitBlock(s.step);
  {
    // Every kHostPollInterval back-edges the runtime is asked whether host code has run past
    // the time limit (it unwinds the program if so).
    Value *left = b_.CreateSub(b_.CreateLoad(b_.getInt32Ty(), steps_), b_.getInt32(1), "steps");
    b_.CreateStore(left, steps_);
    auto *pollBB = newBlock("loop.poll");
    auto *onBB = newBlock("loop.on");
    b_.CreateCondBr(b_.CreateICmpSLE(left, b_.getInt32(0)), pollBB, onBB,
                    llvm::MDBuilder(c_).createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(pollBB);
    // The poll writes only the runtime's own state (it returns, or unwinds the program): the
    // shadow entries and program values a loop reads stay in registers across it, and the
    // program's stores before it are done before it (a stopped REPL input leaves them).
    llvm::Function *poll = runtime(RuntimeFunction::kern_rt_host_poll);
    poll->setMemoryEffects(llvm::MemoryEffects::readOnly() |
                           llvm::MemoryEffects::inaccessibleMemOnly());
    poll->setDoesNotThrow();
    b_.CreateCall(poll, {ctx_, b_.getInt32(s.site)});
    b_.CreateStore(b_.getInt32(kHostPollInterval), steps_);
    b_.CreateBr(onBB);
    b_.SetInsertPoint(onBB);
  }
  if (!s.testFirst) {
    emitBlock(s.preCond);
    if (s.cond)
      b_.CreateCondBr(emitCond(s.cond), header, exit);
    else
      b_.CreateBr(header);
  } else {
    b_.CreateBr(header);
  }
  b_.SetInsertPoint(exit);
}

void HostCodegen::apiSite(ir::SiteId site) {
  b_.CreateCall(runtime(RuntimeFunction::kern_rt_api_site), {ctx_, b_.getInt32(site)});
}

void HostCodegen::emitPrintf(const ir::Stmt &s) {
  Type *ptr = b_.getPtrTy();
  Value *buf = nullptr, *n = nullptr;
  if (s.vaList) {
    // A va_list's packed slots, [first, end): the program's memory, checked as one read
    // before the runtime reads it.
    Value *first = emitCast(b_, emitExpr(*s.args[0]), s.args[0]->type, ir::Type::i64(false));
    Value *end = emitCast(b_, emitExpr(*s.args[1]), s.args[1]->type, ir::Type::i64(false));
    Value *bytes = b_.CreateSub(end, first, "va.bytes");
    auto *checkBB = newBlock("va.check");
    auto *doneBB = newBlock("va.checked");
    b_.CreateCondBr(b_.CreateICmpNE(bytes, b_.getInt64(0)), checkBB, doneBB);
    b_.SetInsertPoint(checkBB);
    Value *none = llvm::ConstantPointerNull::get(b_.getPtrTy());
    b_.CreateCall(runtime(RuntimeFunction::kern_rt_host_check),
                  {ctx_, b_.getInt32(s.site), first, bytes, none, b_.getInt64(0), b_.getInt64(0)});
    b_.CreateBr(doneBB);
    b_.SetInsertPoint(doneBB);
    buf = b_.CreateIntToPtr(first, ptr, "va.args");
    n = b_.CreateTrunc(b_.CreateLShr(bytes, b_.getInt64(3)), b_.getInt32Ty(), "va.count");
  } else {
    auto *bufTy = llvm::ArrayType::get(b_.getInt64Ty(), std::max<size_t>(s.args.size(), 1));
    buf = entryAlloca(b_, bufTy, "printf.args", 8);
    for (size_t i = 0; i < s.args.size(); ++i) {
      Value *v = emitExpr(*s.args[i]);
      b_.CreateStore(promoteVarArg(b_, v, s.args[i]->type),
                     b_.CreateConstInBoundsGEP2_64(bufTy, buf, 0, i));
    }
    n = b_.getInt32(s.args.size());
  }
  Value *fmt = s.format ? b_.CreateIntToPtr(emitExpr(*s.format), ptr, "printf.format")
                        : mc_.stringConstant(s.text);
  if (s.printfStream == 0) {
    // sprintf/snprintf: into the host buffer `addr` of `value` bytes; the count to `var`.
    Value *dst = b_.CreateIntToPtr(emitExpr(*s.addr), ptr, "sprintf.buf");
    Value *size = emitCast(b_, emitExpr(*s.value), s.value->type, ir::Type::i64(false));
    apiSite(s.site); // a bad format or argument is reported at this line
    Value *r = b_.CreateCall(runtime(RuntimeFunction::kern_rt_snprintf),
                             {ctx_, dst, size, fmt, n, buf}, "sprintf.count");
    apiSite(0);
    if (s.var) {
      auto it = vars_.find(s.var);
      if (it != vars_.end())
        b_.CreateStore(emitCast(b_, r, ir::Type::i32(true), s.var->type), it->second);
    }
    return;
  }
  auto storeCount = [&](Value *r) { // printf and fprintf return what they wrote, if asked
    if (!s.var)
      return;
    auto it = vars_.find(s.var);
    if (it != vars_.end())
      b_.CreateStore(emitCast(b_, r, ir::Type::i32(true), s.var->type), it->second);
  };
  if (s.printfStream == 1) {
    apiSite(s.site); // a bad format or argument is reported at this line
    storeCount(b_.CreateCall(runtime(RuntimeFunction::kern_rt_printf), {ctx_, fmt, n, buf}));
    apiSite(0);
    return;
  }
  if (s.printfStream == 4) {
    // The scanf family: from the FILE handle `value`, or the string `addr` when it is 0.
    Value *source = b_.CreateIntToPtr(emitExpr(*s.value), ptr, "scanf.stream");
    Value *text = b_.CreateIntToPtr(emitExpr(*s.addr), ptr, "scanf.text");
    apiSite(s.site); // a bad format or argument is reported at this line
    Value *r = b_.CreateCall(runtime(RuntimeFunction::kern_rt_scanf),
                             {ctx_, source, text, fmt, n, buf}, "scanf.count");
    apiSite(0);
    if (s.var) {
      auto it = vars_.find(s.var);
      if (it != vars_.end())
        b_.CreateStore(emitCast(b_, r, ir::Type::i32(true), s.var->type), it->second);
    }
    return;
  }
  // fprintf: stdout and stderr are the handles 1 and 2; printfStream 3 has its handle in `value`
  Value *stream = s.printfStream == 3 ? b_.CreateIntToPtr(emitExpr(*s.value), ptr, "fprintf.stream")
                                      : b_.CreateIntToPtr(b_.getInt64(s.printfStream), ptr);
  apiSite(s.site); // a bad format or argument is reported at this line
  storeCount(b_.CreateCall(runtime(RuntimeFunction::kern_rt_fprintf), {ctx_, stream, fmt, n, buf}));
  apiSite(0);
}

void HostCodegen::emitLaunch(const ir::Stmt &s) {
  const ir::Function *k = s.kernel;
  if (!k || k->kind != ir::FunctionKind::Kernel) {
    mc_.fail("internal error: launch of a function that is not a kernel");
    return;
  }
  // The packed parameter buffer, laid out as the kernel's paramOffsets say (CUDA's layout).
  uint32_t bytes = std::max<uint32_t>(k->paramBytes, 1);
  auto *buf = entryAlloca(b_, llvm::ArrayType::get(b_.getInt8Ty(), bytes), "launch.params", 16);
  for (size_t i = 0; i < s.args.size() && i < k->paramOffsets.size(); ++i) {
    Value *v = emitExpr(*s.args[i]);
    Value *p = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), buf, k->paramOffsets[i]);
    if (i < s.argBytes.size() && s.argBytes[i]) {
      // A struct passed by value: its bytes, as CUDA copies it into the parameter space.
      b_.CreateMemCpy(p, llvm::MaybeAlign(1), b_.CreateIntToPtr(v, b_.getPtrTy()),
                      llvm::MaybeAlign(1), s.argBytes[i]);
      continue;
    }
    b_.CreateAlignedStore(toMemory(b_, v, s.args[i]->type), p, llvm::Align(1));
  }
  auto u32 = [&](const ir::Expr *e) -> Value * {
    if (!e)
      return b_.getInt32(1);
    return emitCast(b_, emitExpr(*e), e->type, ir::Type::i32(false));
  };
  Value *g[3], *bl[3];
  for (int d = 0; d < 3; ++d) {
    g[d] = u32(s.grid[d]);
    bl[d] = u32(s.blockDim[d]);
  }
  Value *shared = s.sharedBytes ? emitCast(b_, emitExpr(*s.sharedBytes), s.sharedBytes->type,
                                           ir::Type::i64(false))
                                : b_.getInt64(0);
  Value *stream = s.stream ? b_.CreateIntToPtr(emitExpr(*s.stream), b_.getPtrTy(), "stream")
                           : llvm::ConstantPointerNull::get(b_.getPtrTy());
  b_.CreateCall(runtime(RuntimeFunction::kern_rt_launch),
                {ctx_, b_.getInt32(mc_.kernelIndex(k)), g[0], g[1], g[2], bl[0], bl[1], bl[2],
                 shared, stream, buf, b_.getInt32(k->paramBytes), b_.getInt32(s.site)});
}

// ---- function pointers ---------------------------------------------------------------------

/// How a host function is called at the machine level: its result and parameter IR types.
static std::string signatureOf(ir::Type ret, const std::vector<ir::Type> &params) {
  std::string s = ret.str() + "(";
  for (size_t i = 0; i < params.size(); ++i)
    s += (i ? "," : "") + params[i].str();
  return s + ")";
}

static uint32_t signatureId(ModuleContext &mc, const std::string &sig) {
  auto it = mc.hostSignatures.find(sig);
  if (it != mc.hostSignatures.end())
    return it->second;
  uint32_t id = static_cast<uint32_t>(mc.hostSignatures.size()) + 1;
  mc.hostSignatures[sig] = id;
  return id;
}

static void buildFunctionTable(ModuleContext &mc) {
  if (mc.hostFunctionTable)
    return;
  auto &c = mc.llvm;
  Type *ptr = llvm::PointerType::getUnqual(c);
  std::vector<llvm::Constant *> fns = {
      llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(ptr))};
  std::vector<llvm::Constant *> sigs = {llvm::ConstantInt::get(Type::getInt32Ty(c), 0)};
  for (const ir::Function *f : mc.ir.hostFunctionTable) {
    if (!f) { // a __device__ function or a kernel: host code cannot call it (signature 0)
      fns.push_back(llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(ptr)));
      sigs.push_back(llvm::ConstantInt::get(Type::getInt32Ty(c), 0));
      continue;
    }
    auto it = mc.hostFunctions.find(f);
    if (it == mc.hostFunctions.end()) {
      mc.fail("internal error: function table names " + f->name + ", not a host function");
      return;
    }
    fns.push_back(it->second);
    std::vector<ir::Type> params;
    for (const ir::Var *p : f->params)
      params.push_back(p->type);
    sigs.push_back(llvm::ConstantInt::get(Type::getInt32Ty(c),
                                          signatureId(mc, signatureOf(f->returnType, params))));
  }
  auto *fnTy = llvm::ArrayType::get(ptr, fns.size());
  mc.hostFunctionTable =
      new llvm::GlobalVariable(mc.module, fnTy, true, llvm::GlobalValue::InternalLinkage,
                               llvm::ConstantArray::get(fnTy, fns), "fntable");
  auto *sigTy = llvm::ArrayType::get(Type::getInt32Ty(c), sigs.size());
  mc.hostFunctionSignatures =
      new llvm::GlobalVariable(mc.module, sigTy, true, llvm::GlobalValue::InternalLinkage,
                               llvm::ConstantArray::get(sigTy, sigs), "fntable.sigs");
}

Value *HostCodegen::resolveFunctionPointer(Value *v, const std::string &signature,
                                           ir::SiteId site) {
  buildFunctionTable(mc_);
  if (!mc_.hostFunctionTable)
    return llvm::ConstantPointerNull::get(b_.getPtrTy());
  const uint64_t n = mc_.ir.hostFunctionTable.size();
  hostFault(b_.CreateICmpEQ(v, b_.getInt64(0), "fnptr.null"), KERN_FAULT_NULL_FNPTR, site, v);
  hostFault(b_.CreateICmpUGT(v, b_.getInt64(n), "fnptr.bad"), KERN_FAULT_BAD_FNPTR, site, v);
  auto *sigTy = mc_.hostFunctionSignatures->getValueType();
  Value *sig = b_.CreateLoad(
      b_.getInt32Ty(), b_.CreateInBoundsGEP(sigTy, mc_.hostFunctionSignatures, {b_.getInt64(0), v}),
      "fnptr.sig");
  // Signature 0: a __device__ function's or a kernel's number, which host code cannot call.
  hostFault(b_.CreateICmpEQ(sig, b_.getInt32(0), "fnptr.device"), KERN_FAULT_DEVICE_FNPTR, site, v);
  hostFault(b_.CreateICmpNE(sig, b_.getInt32(signatureId(mc_, signature)), "fnptr.mismatch"),
            KERN_FAULT_FNPTR_TYPE, site, v);
  auto *fnTy = mc_.hostFunctionTable->getValueType();
  return b_.CreateLoad(b_.getPtrTy(),
                       b_.CreateInBoundsGEP(fnTy, mc_.hostFunctionTable, {b_.getInt64(0), v}),
                       "fnptr.target");
}

Value *HostCodegen::emitIndirectCall(const ir::Expr &e) {
  Value *target = emitExpr(*e.ops[0]);
  std::vector<ir::Type> params;
  std::vector<Value *> args = {ctx_};
  std::vector<Type *> types = {b_.getPtrTy()};
  for (size_t i = 1; i < e.ops.size(); ++i) {
    params.push_back(e.ops[i]->type);
    args.push_back(emitExpr(*e.ops[i]));
    types.push_back(registerType(c_, e.ops[i]->type));
  }
  Value *fp = resolveFunctionPointer(target, signatureOf(e.type, params), e.site);
  auto *ft = llvm::FunctionType::get(registerType(c_, e.type), types, false);
  Value *r = b_.CreateCall(ft, fp, args);
  return e.type.isVoid() ? nullptr : r;
}

Value *HostCodegen::routineAddress(Value *v, const std::string &signature, bool nullable,
                                   ir::SiteId site) {
  if (!nullable)
    return b_.CreatePtrToInt(resolveFunctionPointer(v, signature, site), b_.getInt64Ty());
  BasicBlock *from = b_.GetInsertBlock();
  auto *resolveBB = newBlock("fnptr.resolve");
  auto *joinBB = newBlock("fnptr.join");
  b_.CreateCondBr(b_.CreateICmpEQ(v, b_.getInt64(0), "fnptr.isnull"), joinBB, resolveBB);
  b_.SetInsertPoint(resolveBB);
  Value *address =
      b_.CreatePtrToInt(resolveFunctionPointer(v, signature, site), b_.getInt64Ty(), "fnptr.addr");
  BasicBlock *resolved = b_.GetInsertBlock();
  b_.CreateBr(joinBB);
  b_.SetInsertPoint(joinBB);
  llvm::PHINode *phi = b_.CreatePHI(b_.getInt64Ty(), 2, "fnptr.routine");
  phi->addIncoming(b_.getInt64(0), from);
  phi->addIncoming(address, resolved);
  return phi;
}

/// An operand of a runtime function that is a host function of the program, passed to the
/// runtime as its machine address: the signature it must have, and whether null may pass.
namespace {
struct RoutineOperand {
  std::string signature;
  bool nullable = false;
};

} // namespace

static std::optional<RoutineOperand> routineOperand(ir::IntrinsicId id, size_t operand) {
  const ir::Type p = ir::Type::ptr(frontend::AddrSpace::Host);
  switch (id) {
  case ir::IntrinsicId::PthreadCreate: // void *(*)(void *): null faults, as a native call would
    if (operand == 2)
      return RoutineOperand{signatureOf(p, {p}), false};
    break;
  case ir::IntrinsicId::CudaStreamAddCallback: // void (*)(cudaStream_t, cudaError_t, void *)
    if (operand == 1)
      return RoutineOperand{signatureOf(ir::Type::voidTy(), {p, ir::Type::i32(true), p}), true};
    break;
  case ir::IntrinsicId::CudaLaunchHostFunc: // void (*)(void *)
    if (operand == 1)
      return RoutineOperand{signatureOf(ir::Type::voidTy(), {p}), true};
    break;
  case ir::IntrinsicId::CQsort: // int (*)(const void *, const void *)
  case ir::IntrinsicId::CBsearch:
    if (operand == (id == ir::IntrinsicId::CQsort ? 3u : 4u))
      return RoutineOperand{signatureOf(ir::Type::i32(true), {p, p}), false};
    break;
  default:
    break;
  }
  return std::nullopt;
}

// ---- expressions ---------------------------------------------------------------------------

Value *HostCodegen::emitRuntimeCall(const ir::Expr &e) {
  // kern_rt_<spelling>(ctx, args...), typed by its row of runtime_functions.def: the IR values
  // are converted to the row's C types (IR pointers are i64; integers are extended or truncated
  // as C converts them).
  const std::string name = std::string("kern_rt_") + ir::intrinsicName(e.intrinsic);
  const std::optional<RuntimeFunction> id = findRuntimeFunction(name);
  if (!id) {
    mc_.fail("internal error: no runtime function " + name);
    return e.type.isVoid() ? nullptr : llvm::PoisonValue::get(registerType(c_, e.type));
  }
  llvm::Function *fn = runtime(*id);
  llvm::FunctionType *ft = fn->getFunctionType();
  if (ft->getNumParams() != e.ops.size() + 1) {
    mc_.fail("internal error: " + name + " called with the wrong number of arguments");
    return e.type.isVoid() ? nullptr : llvm::PoisonValue::get(registerType(c_, e.type));
  }
  std::vector<Value *> args = {ctx_};
  for (size_t i = 0; i < e.ops.size(); ++i) {
    const ir::Type t = e.ops[i]->type;
    Value *v = emitExpr(*e.ops[i]);
    if (std::optional<RoutineOperand> r = routineOperand(e.intrinsic, i))
      v = routineAddress(v, r->signature, r->nullable, e.site);
    Type *want = ft->getParamType(i + 1);
    if (want->isPointerTy())
      v = b_.CreateIntToPtr(v, want);
    else if (want->isIntegerTy() && v->getType()->isIntegerTy())
      v = b_.CreateIntCast(v, want, t.isInt() && t.isSigned);
    else if (want->isFloatingPointTy() && v->getType()->isFloatingPointTy())
      v = b_.CreateFPCast(v, want);
    args.push_back(v);
  }
  // A call of the CUDA runtime API or the C library names its line in what the runtime reports
  // about it (a bad pointer argument, a failed call).
  const bool cudaApi = e.site != 0;
  if (cudaApi)
    b_.CreateCall(runtime(RuntimeFunction::kern_rt_api_site), {ctx_, b_.getInt32(e.site)});
  Value *r = b_.CreateCall(fn, args);
  if (cudaApi)
    b_.CreateCall(runtime(RuntimeFunction::kern_rt_api_site), {ctx_, b_.getInt32(0)});
  if (e.type.isVoid())
    return nullptr;
  if (r->getType()->isPointerTy())
    return b_.CreatePtrToInt(r, b_.getInt64Ty());
  Type *reg = registerType(c_, e.type);
  if (r->getType() != reg && r->getType()->isIntegerTy() && reg->isIntegerTy())
    r = b_.CreateIntCast(r, reg, e.type.isSigned);
  return r;
}

Value *HostCodegen::emitExpr(const ir::Expr &e) {
  using ir::ExprKind;
  Type *scalar = registerType(c_, e.type.isVoid() ? ir::Type::i32() : e.type);
  switch (e.kind) {
  case ExprKind::Const:
    return constantValue(e, scalar);
  case ExprKind::VarRef: {
    auto *a = vars_[e.var];
    if (!a) {
      mc_.fail("internal error: unknown variable in " + f_.name);
      return llvm::PoisonValue::get(scalar);
    }
    return b_.CreateLoad(a->getAllocatedType(), a, e.var->name);
  }
  case ExprKind::Unary:
    if (e.unaryOp == ir::UnaryOp::Bitcast) // the same bits as another type of equal width
      return b_.CreateBitCast(emitExpr(*e.ops[0]), registerType(c_, e.type), "bitcast");
    return emitUnary(b_, e.unaryOp, emitExpr(*e.ops[0]), e.ops[0]->type);
  case ExprKind::Binary: {
    ir::Type t = e.ops[0]->type;
    Value *x = emitExpr(*e.ops[0]);
    Value *y = emitExpr(*e.ops[1]);
    bool isDiv = e.binaryOp == ir::BinaryOp::Div || e.binaryOp == ir::BinaryOp::Rem;
    if (isDiv && !t.isFloat())
      hostFault(isZero(b_, y, t), KERN_FAULT_DIV_ZERO, e.site, b_.getInt64(0));
    return emitBinary(b_, e.binaryOp, x, y, t);
  }
  case ExprKind::Cast:
    return emitCast(b_, emitExpr(*e.ops[0]), e.ops[0]->type, e.type);
  case ExprKind::Select: {
    Value *c = emitCond(e.ops[0]);
    Value *x = emitExpr(*e.ops[1]);
    Value *y = emitExpr(*e.ops[2]);
    return b_.CreateSelect(c, x, y, "sel");
  }
  case ExprKind::Load: {
    Value *p = checkedAddress(emitExpr(*e.ops[0]), e.ops[0], e.type.bytes(), false, e.site);
    auto *v = b_.CreateAlignedLoad(memoryType(c_, e.type), p, llvm::Align(1), "load");
    markProgramAccess(v);
    return fromMemory(b_, v, e.type);
  }
  case ExprKind::Call: {
    if (!e.callee)
      return emitIndirectCall(e);
    auto it = mc_.hostFunctions.find(e.callee);
    if (it == mc_.hostFunctions.end()) {
      mc_.fail("internal error: host code calls " +
               (e.callee ? e.callee->name : std::string("nothing")) +
               ", which is not a host function");
      return e.type.isVoid() ? nullptr : llvm::PoisonValue::get(scalar);
    }
    std::vector<Value *> args = {ctx_};
    for (auto *o : e.ops)
      args.push_back(emitExpr(*o));
    Value *r = b_.CreateCall(it->second, args, e.type.isVoid() ? "" : e.callee->name);
    return e.type.isVoid() ? nullptr : r;
  }
  case ExprKind::Intrinsic:
    switch (ir::intrinsicKind(e.intrinsic)) {
    case ir::IntrinsicKind::Math: {
      std::vector<Value *> args;
      std::vector<ir::Type> types;
      for (auto *o : e.ops) {
        args.push_back(emitExpr(*o));
        types.push_back(o->type);
      }
      return emitMath(mc_, b_, e.intrinsic, args, types, e.type);
    }
    case ir::IntrinsicKind::Runtime:
      if (e.intrinsic == ir::IntrinsicId::Setjmp)
        return emitSetjmp(e);
      if (e.intrinsic == ir::IntrinsicId::Longjmp) {
        emitLongjmp(e);
        return nullptr;
      }
      return emitRuntimeCall(e);
    case ir::IntrinsicKind::Warp:
      if (e.intrinsic == ir::IntrinsicId::FnPtrFault) { // a launch through a bad kernel pointer
        Value *v = emitExpr(*e.ops[0]);
        hostFault(b_.CreateICmpEQ(v, b_.getInt64(0)), KERN_FAULT_NULL_FNPTR, e.site, v);
        hostFault(b_.getTrue(), KERN_FAULT_DEVICE_FNPTR, e.site, v);
        return nullptr;
      }
      if (e.intrinsic == ir::IntrinsicId::VirtualFault) { // a virtual call on a bad object
        hostFault(b_.getTrue(), KERN_FAULT_BAD_VPTR, e.site, emitExpr(*e.ops[0]));
        return nullptr;
      }
      if (e.intrinsic == ir::IntrinsicId::BadCastFault) { // dynamic_cast<T &> of no T
        hostFault(b_.getTrue(), KERN_FAULT_BAD_CAST, e.site, emitExpr(*e.ops[0]));
        return nullptr;
      }
      if (e.intrinsic == ir::IntrinsicId::AssertFail) {
        // assert() in host code: report and end the program (kern_rt_host_assert unwinds).
        Value *msg = b_.CreateIntToPtr(emitExpr(*e.ops[0]), b_.getPtrTy());
        b_.CreateCall(runtime(RuntimeFunction::kern_rt_host_assert),
                      {ctx_, b_.getInt32(e.site), msg});
        b_.CreateUnreachable();
        b_.SetInsertPoint(BasicBlock::Create(c_, "after.assert", fn_));
        return nullptr;
      }
      mc_.fail(std::string("internal error: warp function ") + ir::intrinsicName(e.intrinsic) +
               " in host code");
      return e.type.isVoid() ? nullptr : llvm::PoisonValue::get(scalar);
    }
    return nullptr;
  case ExprKind::StringConst:
    return b_.CreatePtrToInt(mc_.stringConstant(e.text), b_.getInt64Ty(), "str");
  case ExprKind::FunctionAddr: {
    auto it = mc_.hostFunctions.find(e.callee);
    if (it == mc_.hostFunctions.end()) {
      mc_.fail("internal error: the address of a host function that was not declared");
      return b_.getInt64(0);
    }
    return b_.CreatePtrToInt(it->second, b_.getInt64Ty(), "fn");
  }
  case ExprKind::GlobalAddr: {
    auto *fn = runtime(RuntimeFunction::kern_rt_global_addr);
    fn->setDoesNotAccessMemory(); // a global's address never changes while the program runs
    fn->setDoesNotThrow();
    fn->setWillReturn();
    return b_.CreateCall(fn, {ctx_, b_.getInt32(e.global ? e.global->id : 0)},
                         e.global ? e.global->name : "global");
  }
  case ExprKind::LocalAddr: {
    auto it = slots_.find(e.slot);
    if (it == slots_.end()) {
      mc_.fail("internal error: unknown local slot in " + f_.name);
      return llvm::PoisonValue::get(scalar);
    }
    return it->second;
  }
  case ExprKind::PtrAdd: {
    Value *p = emitExpr(*e.ops[0]);
    Value *off = emitCast(b_, emitExpr(*e.ops[1]), e.ops[1]->type, ir::Type::i64(true));
    return b_.CreateAdd(p, off, "ptradd");
  }
  case ExprKind::BuiltinVar:
  case ExprKind::SharedAddr:
  case ExprKind::ParamAddr:
    mc_.fail("internal error: device-only expression in host function " + f_.name);
    return llvm::PoisonValue::get(scalar);
  }
  return nullptr;
}

static void emitMainEntry(ModuleContext &mc, const ir::Function &f, llvm::Function *mainFn) {
  auto &c = mc.llvm;
  Type *ptr = llvm::PointerType::getUnqual(c);
  Type *i32 = Type::getInt32Ty(c);
  auto *ty = llvm::FunctionType::get(i32, {ptr, i32, ptr}, false);
  auto *fn = llvm::Function::Create(ty, llvm::Function::ExternalLinkage, kMainSymbol, mc.module);
  setCommonAttributes(fn);
  fn->getArg(0)->setName("hostctx");
  fn->getArg(1)->setName("argc");
  fn->getArg(2)->setName("argv");
  Builder b(BasicBlock::Create(c, "entry", fn));
  std::vector<Value *> args = {fn->getArg(0)};
  if (f.mainTakesArgs && f.params.size() >= 2) {
    args.push_back(emitCast(b, fn->getArg(1), ir::Type::i32(), f.params[0]->type));
    args.push_back(b.CreatePtrToInt(fn->getArg(2), b.getInt64Ty(), "argv.addr"));
  }
  for (size_t i = args.size() - 1; i < f.params.size(); ++i) // main(void) has none
    args.push_back(zeroValue(f.params[i]->type, registerType(c, f.params[i]->type)));
  Value *r = b.CreateCall(mainFn, args);
  if (f.returnType.isVoid() || !(f.returnType.isInt() || f.returnType.isBool()))
    b.CreateRet(b.getInt32(0));
  else
    b.CreateRet(emitCast(b, r, f.returnType, ir::Type::i32()));
}

llvm::Function *declareHostFunction(ModuleContext &mc, const ir::Function &f) {
  auto &c = mc.llvm;
  std::vector<Type *> params = {llvm::PointerType::getUnqual(c)};
  for (auto *p : f.params)
    params.push_back(registerType(c, p->type));
  auto *ty = llvm::FunctionType::get(registerType(c, f.returnType), params, false);
  auto *fn =
      llvm::Function::Create(ty, llvm::Function::InternalLinkage, f.name + ".host", mc.module);
  setCommonAttributes(fn);
  fn->getArg(0)->setName("hostctx");
  for (size_t i = 0; i < f.params.size(); ++i)
    fn->getArg(1 + i)->setName(f.params[i]->name);
  mc.hostFunctions[&f] = fn;
  return fn;
}

void emitHostFunction(ModuleContext &mc, const ir::Function &f) {
  auto it = mc.hostFunctions.find(&f);
  if (it == mc.hostFunctions.end()) {
    mc.fail("internal error: host function " + f.name + " was not declared");
    return;
  }
  HostCodegen(mc, f, it->second).emit();
  if (f.isMain)
    emitMainEntry(mc, f, it->second);
}

} // namespace kern::backend
