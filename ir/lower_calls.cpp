// AST -> Kern IR for calls: user functions, built-ins and intrinsics, kernel launches.
#include "ir/lower_impl.h"

namespace kern::ir::lower_detail {

/// Evaluates the arguments of call `e` in the side's order (argumentOrder) and appends them to
/// `args` in parameter order; a struct goes by value, as the address of a copy of its own.
void Lowerer::appendArguments(fe::Expr *e, std::vector<Expr *> &args) {
  std::vector<Expr *> values(e->args.size(), nullptr);
  for (size_t i : argumentOrder(e->args.size())) {
    if (e->args[i]->type->isStruct()) {
      LValue src = structValue(e->args[i]);
      LocalSlot *copy = newSlot("arg", e->args[i]->type);
      copyStruct(slotAddr(copy), slotSpace(), src.addr, src.space, e->args[i]->type, e->loc);
      values[i] = slotAddr(copy);
      continue;
    }
    values[i] = snapshot(rvalue(e->args[i]), "arg", e->loc);
  }
  args.insert(args.end(), values.begin(), values.end());
}

void Lowerer::variadicParams(fe::FunctionDecl *f) {
  if (!f->type->variadic || device_)
    return;
  for (size_t i = 0; i < 2; ++i) { // the packed `...` arguments: see packVariadic
    Var *v = newVar(i ? "va.end" : "va.args", Type::ptr(AddrSpace::Host));
    v->isParam = true;
    F->params.push_back(v);
    if (i < f->vaParams.size()) {
      Storage st;
      st.var = v;
      locals_[f->vaParams[i]] = st;
    }
  }
}

void Lowerer::packVariadic(std::vector<Expr *> &args, size_t from, fe::SourceLoc loc) {
  // The arguments past the stated parameters, each in an 8-byte slot of a local array after
  // C's default promotions (integers extended to 64 bits, as printf's runtime reads them);
  // the callee gets the array's first and past-the-end addresses (its hidden parameters).
  const size_t n = args.size() > from ? args.size() - from : 0;
  LocalSlot *s = m_.make<LocalSlot>();
  s->id = static_cast<uint32_t>(F->slots.size());
  s->name = "...";
  s->size = std::max<size_t>(n, 1) * 8;
  s->align = 8;
  F->slots.push_back(s);
  for (size_t i = 0; i < n; ++i) {
    Expr *v = args[from + i];
    if (v->type.isBool())
      v = cast(v, Type::i64(false));
    else if (v->type.isInt() && v->type.bytes() < 8)
      v = cast(v, Type::i64(v->type.isSigned));
    store(ptrAdd(slotAddr(s), i64(static_cast<int64_t>(8 * i)), Type::ptr(slotSpace())), v,
          slotSpace(), loc);
  }
  args.resize(std::min(args.size(), from));
  args.push_back(slotAddr(s));
  args.push_back(ptrAdd(slotAddr(s), i64(static_cast<int64_t>(8 * n)), Type::ptr(slotSpace())));
}

Expr *Lowerer::call(fe::Expr *e) {
  if (e->isLaunch) {
    launch(e);
    return constInt(Type::i32(true), 0);
  }
  if (e->builtin == -2)
    return construct(e).addr;
  if (e->builtin >= 0) {
    // A C library function the program defines itself is the program's (sema_library.cpp).
    fe::FunctionDecl *own = device_ ? nullptr : ownLibraryFunction(e);
    if (!own)
      return builtinCall(e);
    e->builtin = -1;
    e->decl = own;
  }
  auto *fd = dynamic_cast<fe::FunctionDecl *>(e->decl);
  if (!fd)
    return indirectCall(e);
  auto it = functions_.find(fd);
  if (!fd || it == functions_.end()) {
    error(e->loc,
          "function '" + (fd ? fd->name : std::string("?")) + "' is declared but never defined");
    return constInt(irType(e->type), 0);
  }
  Function *callee = device_ ? it->second.device : it->second.host;
  if (!callee) {
    error(e->loc, "internal: no version of '" + fd->name + "' for this side");
    return constInt(Type::i32(true), 0);
  }
  std::vector<Expr *> args;
  LocalSlot *result = nullptr;
  if (e->type->isStruct()) {
    result = newSlot(fd->name + ".result", e->type);
    args.push_back(slotAddr(result));
  }
  appendArguments(e, args);
  // A declaration linked by name alone to a definition of other integer types (extern "C",
  // frontend/link.cpp): the values are converted as the callee and the caller declare them.
  // (The callee's body may not be lowered yet: its types come from its definition's.)
  auto differs = [](Type a, Type b) { return a != b && !(a.isPtr() && b.isPtr()); };
  const fe::Type *defType =
      fd->definition && fd->definition->type ? fd->definition->type : fd->type;
  const size_t hidden = result ? 1 : 0;
  for (size_t i = 0; i + hidden < args.size() && i < defType->params.size(); ++i)
    if (Type want = irType(defType->params[i]); differs(args[i + hidden]->type, want))
      args[i + hidden] = cast(args[i + hidden], want);
  if (defType->variadic && !device_)
    packVariadic(args, hidden + defType->params.size(), e->loc);
  const Type wanted = result ? Type::voidTy() : irType(e->type);
  const Type returned = defType->elem->isStruct() ? Type::voidTy() : irType(defType->elem);
  Expr *c = node(ir::ExprKind::Call, differs(wanted, returned) ? returned : wanted);
  c->callee = callee;
  c->ops = std::move(args);
  c->site = m_.addSite(SiteKind::Call, e->loc, "call " + fd->name);
  if (c->type.isVoid() || wanted.isVoid()) {
    Stmt *s = emit(ir::StmtKind::Eval, e->loc);
    s->value = c;
    return result ? slotAddr(result) : constInt(Type::i32(true), 0);
  }
  // Evaluate the call where it stands in the source order.
  Expr *r = snapshot(c, fd->name + ".result", e->loc);
  return differs(wanted, r->type) ? (wanted.isBool() ? toBool(r) : cast(r, wanted)) : r;
}

Expr *Lowerer::functionPointer(fe::Expr *e) {
  if (e->kind == ExprKind::Ident)
    if (auto *fd = dynamic_cast<fe::FunctionDecl *>(e->decl))
      return constInt(Type::ptr(AddrSpace::Host), functionPointerValue(fd));
  if (e->kind == ExprKind::Unary && e->unaryOp == fe::UnaryOp::Deref)
    return rvalue(e->operands[0]); // `*p` names the function p points to
  error(e->loc, "internal: unexpected function designator");
  return constInt(Type::ptr(AddrSpace::Host), 0);
}

namespace {

/// Function types that agree but for the memory their pointers point into.
bool sameShape(const fe::Type *a, const fe::Type *b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind)
    return false;
  if (a->isPointer() || a->isArray())
    return (!a->isArray() || a->count == b->count) && sameShape(a->elem, b->elem);
  if (!a->isFunction())
    return a->isStruct() ? a->record == b->record : true;
  if (a->params.size() != b->params.size() || a->variadic != b->variadic ||
      !sameShape(a->elem, b->elem))
    return false;
  for (size_t i = 0; i < a->params.size(); ++i)
    if (!sameShape(a->params[i], b->params[i]))
      return false;
  return true;
}

} // namespace

std::vector<std::pair<int64_t, Function *>> Lowerer::pointerTargets(const fe::Type *ft,
                                                                    bool kernels) {
  std::vector<std::pair<int64_t, Function *>> out;
  for (size_t i = 0; i < addressTaken_.size(); ++i) {
    auto it = functions_.find(addressTaken_[i]);
    if (it == functions_.end() || !it->second.device || !sameShape(addressTaken_[i]->type, ft))
      continue;
    if ((it->second.device->kind == FunctionKind::Kernel) == kernels)
      out.push_back({static_cast<int64_t>(i) + 1, it->second.device});
  }
  return out;
}

void Lowerer::dispatch(Expr *v, const std::vector<std::pair<int64_t, Function *>> &targets,
                       fe::SourceLoc loc, const std::function<void(Function *)> &each,
                       IntrinsicId fault, const std::string &what) {
  // if (v == id1) f1(...); else if (v == id2) f2(...); ... else fault. Lanes that hold other
  // functions take other branches: divergence, counted at the call's line.
  std::function<void(size_t)> from = [&](size_t k) {
    if (k == targets.size()) {
      Expr *x = intrinsic(fault, Type::voidTy(), {v});
      x->site = m_.addSite(SiteKind::Other, loc, what);
      Stmt *s = emit(ir::StmtKind::Eval, loc);
      s->value = x;
      return;
    }
    Stmt *s = emit(ir::StmtKind::If, loc);
    s->cond = bin(ir::BinaryOp::Eq, v, constInt(Type::i64(false), targets[k].first));
    s->site = m_.addSite(SiteKind::Branch, loc, what);
    s->thenBody = region([&] { each(targets[k].second); });
    s->elseBody = region([&] { from(k + 1); });
  };
  from(0);
}

Expr *Lowerer::indirectCall(fe::Expr *e) {
  // As a direct call (same argument passing, struct results through a hidden slot), with the
  // function pointer's value first.
  if (device_) { // a dispatch over the device functions of the pointer's type
    Expr *v = snapshot(cast(rvalue(e->operands[0]), Type::i64(false)), "fnptr", e->loc);
    std::vector<Expr *> args;
    LocalSlot *result = nullptr;
    if (e->type->isStruct()) {
      result = newSlot("call.result", e->type);
      args.push_back(slotAddr(result));
    }
    appendArguments(e, args);
    const Type rt = result ? Type::voidTy() : irType(e->type);
    Var *r = rt.isVoid() ? nullptr : newVar("call.result", rt);
    dispatch(v, pointerTargets(e->operands[0]->type->elem, false), e->loc, [&](Function *f) {
      Expr *c = node(ir::ExprKind::Call, f->returnType);
      c->callee = f;
      for (size_t i = 0; i < args.size(); ++i) {
        Expr *a = m_.make<Expr>(*args[i]); // each call its own copy of the (evaluated) value
        if (i < f->params.size() && a->type != f->params[i]->type &&
            !(a->type.isPtr() && f->params[i]->type.isPtr()))
          a = cast(a, f->params[i]->type);
        c->ops.push_back(a);
      }
      c->site = m_.addSite(SiteKind::Call, e->loc, "call " + f->name + " through a pointer");
      if (r && !f->returnType.isVoid()) {
        assign(r, cast(c, rt), e->loc);
      } else {
        Stmt *s = emit(ir::StmtKind::Eval, e->loc);
        s->value = c;
      }
    });
    return result ? slotAddr(result) : r ? ref(r) : constInt(Type::i32(true), 0);
  }
  Expr *target = snapshot(rvalue(e->operands[0]), "fnptr", e->loc);
  std::vector<Expr *> args = {target};
  LocalSlot *result = nullptr;
  if (e->type->isStruct()) {
    result = newSlot("call.result", e->type);
    args.push_back(slotAddr(result));
  }
  appendArguments(e, args);
  if (const fe::Type *ft = e->operands[0]->type->elem; ft->variadic)
    packVariadic(args, (result ? 2 : 1) + ft->params.size(), e->loc);
  Expr *c = node(ir::ExprKind::Call, result ? Type::voidTy() : irType(e->type));
  c->ops = std::move(args);
  c->site = m_.addSite(SiteKind::Call, e->loc, "call through a function pointer");
  if (c->type.isVoid()) {
    Stmt *s = emit(ir::StmtKind::Eval, e->loc);
    s->value = c;
    return result ? slotAddr(result) : constInt(Type::i32(true), 0);
  }
  return snapshot(c, "call.result", e->loc);
}

Expr *Lowerer::builtinCall(fe::Expr *e) {
  std::string n = fe::builtinInfo(e->builtin).name;
  auto args = [&](size_t from = 0) {
    std::vector<Expr *> v;
    for (size_t i = from; i < e->args.size(); ++i)
      v.push_back(rvalue(e->args[i]));
    return v;
  };
  if (n == "__kern_vtable") { // a constructor's vtable pointer: the class's number, this side's
    const fe::Expr *a = e->args[0];
    while (a->kind == fe::ExprKind::Cast && !a->operands.empty())
      a = a->operands[0];
    return constInt(Type::i64(false), vtableValue(std::stoull(a->text)));
  }
  if (n == "printf" || n == "fprintf") {
    size_t fi = n == "printf" ? 0 : 1;
    // fprintf's stream is evaluated first, as it stands first.
    Expr *handle =
        n == "fprintf" ? snapshot(rvalue(e->args[0]), "fprintf.stream", e->loc) : nullptr;
    fe::Expr *f = e->args[fi];
    while (f->kind == ExprKind::Cast && !f->typeSyntax)
      f = f->operands[0];
    // A format that is not one literal is computed: any string in host code, a choice between
    // literals in device code (sema checked), where each lane prints with its own.
    Expr *format = f->kind == ExprKind::StringLit
                       ? hostFormat(f)
                       : snapshot(rvalue(e->args[fi]), "printf.format", e->loc);
    std::vector<Expr *> vs(e->args.size() > fi + 1 ? e->args.size() - fi - 1 : 0);
    for (size_t i : argumentOrder(vs.size()))
      vs[i] = snapshot(rvalue(e->args[fi + 1 + i]), "printf.arg", e->loc);
    Stmt *s = emit(ir::StmtKind::Printf, e->loc);
    s->text = f->stringValue;
    s->format = format;
    s->args = vs;
    s->site = m_.addSite(SiteKind::Printf, e->loc, n);
    if (n == "fprintf") {
      fe::Expr *stream = e->args[0];
      while (stream->kind == ExprKind::Cast && !stream->typeSyntax)
        stream = stream->operands[0];
      if (stream->builtin == fe::kBuiltinStderr || stream->builtin == fe::kBuiltinStdout) {
        s->printfStream = stream->builtin == fe::kBuiltinStderr ? 2 : 1;
      } else { // a FILE* computed at run time: the runtime checks the handle
        s->printfStream = 3;
        s->value = handle;
      }
    }
    if (!device_) { // host code: the number of characters written, or a negative value
      s->var = newVar(n + ".count", Type::i32(true));
      return ref(s->var);
    }
    return constInt(Type::i32(true), 0);
  }
  if (device_ && (n == "memcpy" || n == "memset"))
    return deviceMemoryCopy(e, n == "memset");
  if (n == "scanf" || n == "sscanf" || n == "fscanf") {
    fe::Expr *f = e->args[1 - (n == "scanf")];
    while (f->kind == ExprKind::Cast && !f->typeSyntax)
      f = f->operands[0];
    Expr *source = n == "scanf" ? constInt(Type::ptr(AddrSpace::Host), 3)
                                : snapshot(rvalue(e->args[0]), n + ".source", e->loc);
    Expr *format = f->kind == ExprKind::StringLit
                       ? hostFormat(f)
                       : snapshot(rvalue(e->args[1 - (n == "scanf")]), n + ".format", e->loc);
    std::vector<Expr *> vs;
    for (size_t i = 2 - (n == "scanf"); i < e->args.size(); ++i)
      vs.push_back(snapshot(rvalue(e->args[i]), n + ".arg", e->loc));
    Var *count = newVar(n + ".count", Type::i32(true));
    Stmt *s = emit(ir::StmtKind::Printf, e->loc);
    s->printfStream = 4;
    s->text = f->stringValue;
    s->format = format;
    s->args = vs;
    s->value = n == "sscanf" ? constInt(Type::ptr(AddrSpace::Host), 0) : source;
    s->addr = n == "sscanf" ? source : constInt(Type::ptr(AddrSpace::Host), 0);
    s->var = count;
    s->site = m_.addSite(SiteKind::Printf, e->loc, n);
    return ref(count);
  }
  if (n == "__kern_vfprintf" || n == "__kern_vsnprintf" || n == "__kern_vscanf") {
    // (stream, format, first, end), (buf, size, format, first, end), (stream, text, format,
    // first, end): a va_list's arguments, read by the runtime where the program packed them.
    std::vector<Expr *> v;
    for (size_t i = 0; i < e->args.size(); ++i)
      v.push_back(snapshot(rvalue(e->args[i]), n + ".arg", e->loc));
    const size_t fi = e->args.size() - 3;
    Var *count = newVar(n + ".count", Type::i32(true));
    Stmt *s = emit(ir::StmtKind::Printf, e->loc);
    s->vaList = true;
    s->format = v[fi];
    s->args = {v[fi + 1], v[fi + 2]};
    s->var = count;
    s->site = m_.addSite(SiteKind::Printf, e->loc, n.substr(7));
    if (n == "__kern_vfprintf") {
      s->printfStream = 3;
      s->value = v[0];
    } else if (n == "__kern_vsnprintf") {
      s->printfStream = 0;
      s->addr = v[0];
      s->value = cast(v[1], Type::i64(false));
    } else {
      s->printfStream = 4;
      s->value = v[0];
      s->addr = v[1];
    }
    return ref(count);
  }
  if (n == "sprintf" || n == "snprintf") {
    bool sized = n == "snprintf";
    size_t fi = sized ? 2 : 1;
    fe::Expr *f = e->args[fi];
    while (f->kind == ExprKind::Cast && !f->typeSyntax)
      f = f->operands[0];
    Expr *format = f->kind == ExprKind::StringLit
                       ? hostFormat(f)
                       : snapshot(rvalue(e->args[fi]), "sprintf.format", e->loc);
    Expr *buf = snapshot(rvalue(e->args[0]), "sprintf.buf", e->loc);
    Expr *size = sized
                     ? snapshot(cast(rvalue(e->args[1]), Type::i64(false)), "sprintf.size", e->loc)
                     : constInt(Type::i64(false), -1);
    std::vector<Expr *> vs(e->args.size() > fi + 1 ? e->args.size() - fi - 1 : 0);
    for (size_t i : argumentOrder(vs.size()))
      vs[i] = snapshot(rvalue(e->args[fi + 1 + i]), "printf.arg", e->loc);
    Var *count = newVar(n + ".count", Type::i32(true));
    Stmt *s = emit(ir::StmtKind::Printf, e->loc);
    s->printfStream = 0;
    s->text = f->stringValue;
    s->format = format;
    s->args = vs;
    s->addr = buf;
    s->value = size;
    s->var = count;
    s->site = m_.addSite(SiteKind::Printf, e->loc, n);
    return ref(count);
  }
  if (n == "__kern_assert") {
    // assert(c): if (!c) fail with the condition's text. Predicated on a GPU, not a branch.
    Expr *c = toBool(rvalue(e->args[0]));
    fe::Expr *t = e->args[1];
    while (t->kind == ExprKind::Cast && !t->typeSyntax)
      t = t->operands[0];
    Stmt *s = emit(ir::StmtKind::If, e->loc);
    s->cond = unaryNot(c);
    s->isBranch = false;
    s->site = m_.addSite(SiteKind::Branch, e->loc, "assert");
    s->thenBody = region([&] {
      Expr *msg = node(ir::ExprKind::StringConst,
                       Type::ptr(device_ ? AddrSpace::Constant : AddrSpace::Host));
      msg->text = t->stringValue;
      Expr *x = intrinsic(IntrinsicId::AssertFail, Type::voidTy(), {msg});
      x->site = m_.addSite(SiteKind::Other, e->loc, "assert");
      Stmt *ev = emit(ir::StmtKind::Eval, e->loc);
      ev->value = x;
    });
    return constInt(Type::i32(true), 0);
  }
  if (n == "__syncthreads") {
    Stmt *s = emit(ir::StmtKind::Barrier, e->loc);
    s->site = m_.addSite(SiteKind::Barrier, e->loc, "__syncthreads");
    F->usesBarriers = true;
    return constInt(Type::i32(true), 0);
  }
  if (n == "min" || n == "max" || n == "umin" || n == "umax" || n == "llmin" || n == "llmax" ||
      n == "ullmin" || n == "ullmax") {
    auto v = args();
    return bin(n.find("min") != std::string::npos ? ir::BinaryOp::Min : ir::BinaryOp::Max, v[0],
               v[1]);
  }
  if (n == "isnan" || n == "isinf" || n == "isfinite" || n == "signbit") {
    Expr *x = snapshot(args()[0], n + ".arg", e->loc);
    Type t = x->type;
    Expr *inf = constFloat(t, __builtin_inf());
    Expr *mag =
        intrinsic(t.kind == ir::TypeKind::F32 ? IntrinsicId::FabsF : IntrinsicId::Fabs, t, {x});
    Expr *r;
    if (n == "isnan")
      r = bin(ir::BinaryOp::Ne, x, x); // only NaN is unequal to itself
    else if (n == "isinf")
      r = bin(ir::BinaryOp::Eq, mag, inf);
    else if (n == "isfinite")
      r = bin(ir::BinaryOp::Lt, mag, inf); // false for NaN too: ordered comparison
    else {
      Expr *bitsOf = node(ir::ExprKind::Unary,
                          t.kind == ir::TypeKind::F32 ? Type::i32(true) : Type::i64(true));
      bitsOf->unaryOp = ir::UnaryOp::Bitcast;
      bitsOf->ops = {x};
      r = bin(ir::BinaryOp::Lt, bitsOf, constInt(bitsOf->type, 0));
    }
    return cast(r, Type::i32(true));
  }
  if (n.size() > 4 && n.rfind("__", 0) == 0 && n.find("_as_") != std::string::npos) {
    // __int_as_float and friends: the same bits, another type.
    Expr *x = args()[0];
    Expr *r = node(ir::ExprKind::Unary, irType(e->type));
    r->unaryOp = ir::UnaryOp::Bitcast;
    r->ops = {x};
    return r;
  }
  if (n == "ffs" || n == "ffsl" || n == "ffsll") // the host's, as CUDA's __ffs and __ffsll
    return intrinsic(n == "ffs" ? IntrinsicId::Ffs : IntrinsicId::Ffsll, irType(e->type), args());
  if (n == "abs" || n == "labs" || n == "llabs") {
    auto v = args();
    if (v[0]->type.kind == ir::TypeKind::F32)
      return intrinsic(IntrinsicId::FabsF, v[0]->type, v);
    if (v[0]->type.kind == ir::TypeKind::F64)
      return intrinsic(IntrinsicId::Fabs, v[0]->type, v);
    return intrinsic(IntrinsicId::Abs, v[0]->type, v);
  }
  if (n == "__ballot" || n == "__any" || n == "__all") {
    auto v = args();
    IntrinsicId id = n == "__ballot" ? IntrinsicId::Ballot
                     : n == "__any"  ? IntrinsicId::Any
                                     : IntrinsicId::All;
    return intrinsic(id, irType(e->type), {constInt(Type::i32(false), -1), toBool(v[0])});
  }
  if (n == "__ballot_sync" || n == "__any_sync" || n == "__all_sync") {
    auto v = args();
    IntrinsicId id;
    intrinsicByName(n, id);
    Expr *x = intrinsic(id, irType(e->type), {v[0], toBool(v[1])});
    x->site = m_.addSite(SiteKind::Other, e->loc, n); // a bad mask is reported here
    return x;
  }
  if (n == "__syncthreads_count" || n == "__syncthreads_and" || n == "__syncthreads_or") {
    auto v = args();
    IntrinsicId id;
    intrinsicByName(n, id);
    F->usesBarriers = true;
    Expr *x = intrinsic(id, Type::i32(true), {toBool(v[0])});
    x->site = m_.addSite(SiteKind::Barrier, e->loc, n);
    return snapshot(x, "sync", e->loc);
  }
  if (n.rfind("__shfl", 0) == 0) {
    auto v = args();
    if (v.size() == 3)
      v.push_back(constInt(Type::i32(true), 32));
    IntrinsicId id;
    intrinsicByName(n, id);
    Expr *x = intrinsic(id, irType(e->type), v);
    x->site = m_.addSite(SiteKind::Other, e->loc, n); // a bad width or mask is reported here
    return x;
  }
  if (n == "clock" && !device_) // host code: C's clock()
    return snapshot(intrinsic(IntrinsicId::HostClock, Type::i64(true), {}), "clock", e->loc);
  if (n == "clock" || n == "clock64") {
    m_.readsClock = true;
    Expr *x = intrinsic(IntrinsicId::Clock, Type::i64(true), {});
    return snapshot(x, "clock", e->loc);
  }
  if (Expr *m = nullptr; mathBuiltin(e, n, m))
    return m;
  IntrinsicId id;
  // Scoped atomics are the plain intrinsic with the scope recorded.
  AtomicScope scope = AtomicScope::Device;
  std::string base = n;
  if (n.rfind("atomic", 0) == 0 && n.find('_') != std::string::npos) {
    scope = n.substr(n.find('_')) == "_block" ? AtomicScope::Block : AtomicScope::System;
    base = n.substr(0, n.find('_'));
  }
  if (!intrinsicByName(base, id)) {
    error(e->loc, "'" + n + "' is not supported yet");
    return constInt(Type::i32(true), 0);
  }
  std::vector<Expr *> v;
  for (fe::Expr *a : e->args) {
    if (a->builtin == -6) { // a pointer to a kernel (`void *kernel`): the kernel's index
      v.push_back(kernelIndexOf(a->operands[0], e->loc));
      continue;
    }
    // By value (cudaMemLocation): the address of a copy. Not a struct-typed symbol named by
    // host code (cudaMemcpyToSymbol(params, ...)): that is passed as its device address.
    if (a->type->isStruct() && a->builtin != -3) {
      LValue src = structValue(a);
      LocalSlot *copy = newSlot("arg", a->type);
      copyStruct(slotAddr(copy), slotSpace(), src.addr, src.space, a->type, e->loc);
      v.push_back(slotAddr(copy));
      continue;
    }
    v.push_back(rvalue(a));
  }
  // Launches, compiles and module loads name their call in what they report: the site goes
  // to the runtime as a last operand.
  SiteId callSite = 0;
  if (id == IntrinsicId::CudaLaunchKernel || id == IntrinsicId::CudaLaunchCooperativeKernel ||
      id == IntrinsicId::KernLaunchFunction || id == IntrinsicId::KernRtcCompile ||
      id == IntrinsicId::KernModuleLoad) {
    callSite = m_.addSite(id == IntrinsicId::KernRtcCompile || id == IntrinsicId::KernModuleLoad
                              ? SiteKind::Call
                              : SiteKind::Launch,
                          e->loc, n);
    v.push_back(constInt(Type::i32(false), callSite));
  }
  Expr *x = intrinsic(id, irType(e->type), v);
  if (callSite)
    x->site = callSite;
  else if (!device_ && intrinsicKind(id) == IntrinsicKind::Runtime) // what the runtime says
    x->site = m_.addSite(SiteKind::Call, e->loc, n); // of a library call names its line
  if (n.rfind("atomic", 0) == 0) {
    x->site = m_.addSite(SiteKind::Atomic, e->loc, n);
    x->space = v[0]->type.space;
    x->atomicScope = scope;
  }
  // Where a bad function pointer (a thread routine, a stream's host function) is reported.
  if (id == IntrinsicId::PthreadCreate || id == IntrinsicId::CudaStreamAddCallback ||
      id == IntrinsicId::CudaLaunchHostFunc)
    x->site = m_.addSite(SiteKind::Call, e->loc, n);
  if (id == IntrinsicId::CudaEventElapsedTime)
    m_.readsModelledTime = true;
  if (id == IntrinsicId::DeviceMalloc || id == IntrinsicId::DeviceFree) {
    m_.usesDeviceHeap = true;
    x->site = m_.addSite(SiteKind::Call, e->loc, id == IntrinsicId::DeviceFree ? "free" : "malloc");
  }
  if (intrinsicKind(id) == IntrinsicKind::Math)
    return x;
  // Calls with effects run where they stand in the source.
  if (x->type.isVoid()) {
    Stmt *s = emit(ir::StmtKind::Eval, e->loc);
    s->value = x;
    return constInt(Type::i32(true), 0);
  }
  return snapshot(x, n, e->loc);
}

void Lowerer::dimComponents(fe::Expr *c, Expr *out[3]) {
  if (c->type->isStruct()) {
    LValue lv = structValue(c);
    Expr *base = snapshot(lv.addr, "dim", c->loc);
    for (int d = 0; d < 3; ++d)
      out[d] =
          snapshot(load(ptrAdd(base, i64(4 * d), base->type), Type::i32(false), lv.space, c->loc),
                   "dim", c->loc);
    return;
  }
  out[0] = snapshot(cast(rvalue(c), Type::i32(false)), "dim", c->loc);
  out[1] = constInt(Type::i32(false), 1);
  out[2] = constInt(Type::i32(false), 1);
}

void Lowerer::launch(fe::Expr *e) {
  auto *fd = dynamic_cast<fe::FunctionDecl *>(e->decl);
  auto it = functions_.find(fd);
  Expr *pointer = nullptr; // `k<<<g, b>>>(...)` with k a pointer to a kernel: its value
  if (!fd)
    pointer = snapshot(cast(rvalue(e->operands[0]), Type::i64(false)), "kernel", e->loc);
  else if (it == functions_.end() || !it->second.device) {
    error(e->loc, "kernel '" + fd->name + "' is declared but never defined");
    return;
  }
  Function *k = fd ? it->second.device : nullptr;
  Stmt tmp(ir::StmtKind::Launch);
  dimComponents(e->launchConfig[0], tmp.grid);
  dimComponents(e->launchConfig[1], tmp.blockDim);
  Expr *shared =
      e->launchConfig.size() > 2
          ? snapshot(cast(rvalue(e->launchConfig[2]), Type::i64(false)), "shared", e->loc)
          : constInt(Type::i64(false), 0);
  Expr *stream = e->launchConfig.size() > 3 ? snapshot(rvalue(e->launchConfig[3]), "stream", e->loc)
                                            : constInt(Type::ptr(AddrSpace::Host), 0);
  std::vector<Expr *> args;
  std::vector<uint32_t> argBytes;
  for (size_t i = 0; i < e->args.size(); ++i) {
    if (e->args[i]->type->isStruct()) {
      // The struct's bytes go into the parameter buffer (argBytes says how many).
      LValue src = structValue(e->args[i]);
      LocalSlot *copy = newSlot("karg", e->args[i]->type);
      copyStruct(slotAddr(copy), slotSpace(), src.addr, src.space, e->args[i]->type, e->loc);
      args.push_back(slotAddr(copy));
      argBytes.push_back(static_cast<uint32_t>(e->args[i]->type->size()));
      continue;
    }
    Expr *a = cast(rvalue(e->args[i]),
                   k && k->params.size() > i ? k->params[i]->type : irType(e->args[i]->type));
    args.push_back(snapshot(a, "karg", e->loc));
    argBytes.push_back(0);
  }
  auto emitLaunch = [&](Function *kernel, bool copies) {
    auto copy = [&](Expr *x) { return copies && x ? m_.make<Expr>(*x) : x; };
    Stmt *s = emit(ir::StmtKind::Launch, e->loc);
    s->kernel = kernel;
    for (int d = 0; d < 3; ++d) {
      s->grid[d] = copy(tmp.grid[d]);
      s->blockDim[d] = copy(tmp.blockDim[d]);
    }
    s->sharedBytes = copy(shared);
    s->stream = copy(stream);
    for (Expr *a : args)
      s->args.push_back(copy(a));
    s->argBytes = argBytes;
    s->site = m_.addSite(SiteKind::Launch, e->loc, "launch " + kernel->name);
  };
  if (k)
    emitLaunch(k, false);
  else // a dispatch over the kernels of the pointer's type
    dispatch(pointer, pointerTargets(e->operands[0]->type->elem, true), e->loc,
             [&](Function *kernel) { emitLaunch(kernel, true); });
}

int64_t Lowerer::kernelIndex(fe::FunctionDecl *fd) {
  auto it = functions_.find(fd);
  if (it == functions_.end() || !it->second.device)
    return -1;
  int64_t i = 0;
  for (Function *f : m_.functions) {
    if (f == it->second.device)
      return i;
    if (f->kind == FunctionKind::Kernel)
      ++i;
  }
  return -1;
}

Expr *Lowerer::kernelIndexOf(fe::Expr *pointer, fe::SourceLoc loc) {
  // value == n1 ? index1 : value == n2 ? index2 : ... : no kernel (0xffffffff, which the
  // runtime answers with cudaErrorInvalidDeviceFunction, as CUDA answers a pointer that is
  // no kernel).
  Expr *value = snapshot(cast(rvalue(pointer), Type::i64(false)), "kernel", loc);
  Expr *index = constInt(Type::i32(false), 0xffffffffu);
  for (size_t i = addressTaken_.size(); i-- > 0;) {
    auto it = functions_.find(addressTaken_[i]);
    if (it == functions_.end() || !it->second.device ||
        it->second.device->kind != FunctionKind::Kernel)
      continue;
    Expr *s = node(ir::ExprKind::Select, Type::i32(false));
    s->ops = {bin(ir::BinaryOp::Eq, m_.make<Expr>(*value),
                  constInt(Type::i64(false), static_cast<int64_t>(i) + 1)),
              constInt(Type::i32(false), kernelIndex(addressTaken_[i])), index};
    index = s;
  }
  return index;
}

void Lowerer::propagateBarriers() {
  bool changed = true;
  while (changed) {
    changed = false;
    for (Function *f : m_.functions) {
      if (f->usesBarriers || f->kind == FunctionKind::Host)
        continue;
      if (callsBarrierFunction(f->body)) {
        f->usesBarriers = true;
        changed = true;
      }
    }
  }
}

bool Lowerer::callsBarrierFunction(Block *b) {
  if (!b)
    return false;
  for (Stmt *s : b->stmts) {
    for (Expr *e : {s->value, s->cond, s->addr})
      if (e && exprCallsBarrier(e))
        return true;
    for (Expr *e : s->args)
      if (exprCallsBarrier(e))
        return true;
    for (Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      if (callsBarrierFunction(c))
        return true;
  }
  return false;
}

bool Lowerer::exprCallsBarrier(Expr *e) {
  if (e->kind == ir::ExprKind::Call && e->callee && e->callee->usesBarriers)
    return true;
  for (Expr *o : e->ops)
    if (exprCallsBarrier(o))
      return true;
  return false;
}

namespace {

/// The alignment of what `e` (a pointer converted to `void *` by sema) points to.
uint64_t pointeeAlignment(fe::Expr *e) {
  while (e->kind == ExprKind::Cast && !e->typeSyntax)
    e = e->operands[0];
  const fe::Type *t = e->type;
  if (t && t->isArray())
    t = t->elem;
  else if (t && t->isPointer())
    t = t->elem;
  else
    return 1;
  return t && !t->isVoid() && t->align() > 0 ? t->align() : 1;
}

} // namespace

Expr *Lowerer::deviceMemoryCopy(fe::Expr *e, bool isSet) {
  // Device code copies (or fills) with loads and stores of the widest size both pointers'
  // types allow, up to 8 bytes, as nvcc does when it knows the alignment: the accesses are
  // counted and checked as any others.
  fe::ConstValue size;
  if (!fe::foldArith(e->args[2], size) || size.isFloat || size.i < 0 || size.i > 4096) {
    error(e->args[2]->loc, std::string(isSet ? "memset" : "memcpy") +
                               " in device code needs a constant size of at most 4096 bytes");
    return constInt(Type::ptr(AddrSpace::Generic), 0);
  }
  Expr *dst = snapshot(rvalue(e->args[0]), "memcpy.dst", e->loc);
  Expr *src = snapshot(rvalue(e->args[1]), isSet ? "memset.value" : "memcpy.src", e->loc);
  uint64_t unit = pointeeAlignment(e->args[0]);
  if (!isSet)
    unit = std::min(unit, pointeeAlignment(e->args[1]));
  unit = std::min<uint64_t>(unit, 8);
  while (unit > 1 && static_cast<uint64_t>(size.i) % unit)
    unit /= 2;
  Type t = unit == 8   ? Type::i64(false)
           : unit == 4 ? Type::i32(false)
           : unit == 2 ? Type::i16(false)
                       : Type::i8(false);
  Expr *fill = nullptr;
  if (isSet) { // the byte repeated over the unit
    uint64_t pattern = 0;
    for (uint64_t i = 0; i < unit; ++i)
      pattern |= uint64_t(0xff) << (8 * i);
    Expr *byte =
        bin(ir::BinaryOp::And, cast(src, Type::i64(false)), constInt(Type::i64(false), 0xff));
    fill = cast(bin(ir::BinaryOp::Mul, byte,
                    constInt(Type::i64(false), static_cast<int64_t>(pattern / 0xff))),
                t);
  }
  Type dstPtr = dst->type, srcPtr = src->type;
  for (int64_t off = 0; off < size.i; off += static_cast<int64_t>(unit)) {
    Expr *to = ptrAdd(dst, i64(off), dstPtr);
    Expr *value = fill ? fill : load(ptrAdd(src, i64(off), srcPtr), t, srcPtr.space, e->loc);
    store(to, value, dstPtr.space, e->loc);
  }
  return dst;
}

} // namespace kern::ir::lower_detail
