// AST -> Kern IR. C's expressions become side-effect statements plus pure expression trees;
// control flow stays structured; every memory operation and branch gets a SiteId.
// This file: declarations and statements (lower_expr.cpp, lower_calls.cpp: the rest).
#include "ir/lower_impl.h"

namespace kern::ir::lower_detail {

void Lowerer::run() {
  placeCommonShared();
  // Declare every function first so calls can refer to later definitions.
  for (fe::Decl *d : tu_.decls) {
    if (auto *v = dynamic_cast<fe::VarDecl *>(d))
      globalVar(v);
    if (auto *f = dynamic_cast<fe::FunctionDecl *>(d))
      if (f->body && f->definition == f)
        declare(f);
  }
  // Every function whose address is taken has its number before any body is lowered: a call
  // through a pointer in device code tests for each that it may reach.
  for (fe::Decl *d : tu_.decls)
    if (auto *f = dynamic_cast<fe::FunctionDecl *>(d); f && f->addressTaken)
      if (functions_.count(f->definition ? f->definition : f))
        functionPointerValue(f);
  // Bodies in source order, so site and variable numbering is deterministic.
  for (fe::Decl *d : tu_.decls)
    if (auto *f = dynamic_cast<fe::FunctionDecl *>(d))
      if (f->body && f->definition == f)
        for (Function *fn : {functions_[f].device, functions_[f].host})
          if (fn)
            body(f, fn);
  for (fe::FunctionDecl *fd : addressTaken_) {
    auto it = functions_.find(fd);
    if (it == functions_.end() || (!it->second.host && !it->second.device)) {
      error(fd->loc, "function '" + fd->name + "' is used as a pointer but never defined");
      continue;
    }
    // A __device__ function or a kernel has its number but no host function to call.
    m_.hostFunctionTable.push_back(it->second.host);
  }
  propagateBarriers();
}

void Lowerer::globalVar(fe::VarDecl *v) {
  if (!v->type || globals_.count(v))
    return;
  if (v->quals.isExtern && !v->init) {
    // A declaration only; the definition (if any) comes separately.
    bool defined = false;
    for (fe::Decl *d : tu_.decls)
      if (auto *o = dynamic_cast<fe::VarDecl *>(d);
          o && o != v && o->name == v->name && (!o->quals.isExtern || o->init))
        defined = true; // `int x = 1;`, or `extern "C" const int x = 1;`
    if (defined)
      return;
    // No file defines it: a native link fails at its first use ("undefined reference"), so
    // does the lowering (storageOf). It keeps its storage so that the rest still lowers.
    if (!v->quals.shared)
      undefinedExterns_.insert(v->name);
  }
  if (v->quals.shared && v->quals.isExtern) {
    // `extern __shared__ T s[];` at file scope: the launch's dynamic shared memory.
    Storage st;
    st.dynamicShared = true;
    globals_[v] = st;
    return;
  }
  if (v->quals.shared) { // in the common region (placeCommonShared)
    auto it = commonShared_.find(v);
    if (it == commonShared_.end())
      return; // reported by placeCommonShared
    Storage st;
    st.sharedOffset = it->second;
    globals_[v] = st;
    return;
  }
  GlobalVar *g = m_.make<GlobalVar>();
  g->id = m_.nextGlobalId();
  g->name = v->name;
  g->space = v->quals.constant ? AddrSpace::Constant
             : v->quals.device ? AddrSpace::Global
                               : AddrSpace::Host;
  g->size = v->type->size();
  g->align = std::max<uint64_t>(v->type->align(), 1);
  // Pushed before its initialiser is read: string literals it points at come after it.
  m_.globals.push_back(g);
  if (v->init || hasDim3(v->type)) {
    g->init.assign(g->size, 0);
    dim3Defaults(v->type, g->init.data()); // what no initialiser names is default-constructed
  }
  if (v->init) {
    GlobalVar *outer = initGlobal_;
    initGlobal_ = g;
    if (!constantInit(v->init, v->type, g->init.data())) {
      if (g->space != AddrSpace::Host) {
        error(v->init->loc, std::string("dynamic initialization is not supported for a ") +
                                (v->quals.constant ? "__constant__" : "__device__") +
                                " variable: its initializer must be a constant");
      } else {
        std::fill(g->init.begin(), g->init.end(), 0);
        dim3Defaults(v->type, g->init.data());
        dynamicInits_.push_back({v, g});
      }
    }
    initGlobal_ = outer;
  }
  Storage st;
  st.global = g;
  if (g->space == AddrSpace::Host && fe::isTextureReferenceType(v->type))
    st.deviceTwin = textureReferenceTwin(g, v->type);
  globals_[v] = st;
  // Every declaration of the same name shares the storage.
  for (fe::Decl *d : tu_.decls)
    if (auto *o = dynamic_cast<fe::VarDecl *>(d))
      if (o != v && o->name == v->name)
        globals_[o] = st;
}

bool Lowerer::constantInit(fe::Expr *e, const fe::Type *t, uint8_t *out) {
  if (e->kind == ExprKind::InitList) {
    if (t->isArray()) {
      for (size_t i = 0; i < e->operands.size(); ++i)
        if (!constantInit(e->operands[i], t->elem, out + i * t->elem->size()))
          return false;
      return true;
    }
    if (t->isStruct()) {
      for (size_t i = 0; i < e->operands.size(); ++i)
        if (!constantInit(e->operands[i], t->record->fields[i].type,
                          out + t->record->fields[i].offset))
          return false;
      return true;
    }
    return e->operands.size() == 1 && constantInit(e->operands[0], t, out);
  }
  if (t->isArray() && e->kind == ExprKind::StringLit) {
    std::memcpy(out, e->stringValue.data(), std::min<size_t>(e->stringValue.size(), t->size()));
    return true;
  }
  if (t->isPointer() && t->elem->isFunction()) {
    // A function's table number (the value of a function pointer) is known right away.
    fe::Expr *f = e;
    while ((f->kind == ExprKind::Cast && !f->typeSyntax) ||
           (f->kind == ExprKind::Unary && f->unaryOp == fe::UnaryOp::AddrOf))
      f = f->operands[0];
    if (f->kind == ExprKind::Ident)
      if (auto *fd = dynamic_cast<fe::FunctionDecl *>(f->decl)) {
        int64_t v = functionPointerValue(fd);
        std::memcpy(out, &v, 8);
        return true;
      }
  }
  if (t->isPointer() && addressInit(e, out))
    return true;
  const bool dim = t == types_.dim3Ty() || t == types_.uint3Ty();
  if (t->isStruct() && e->kind == ExprKind::Call && e->builtin == -2) {
    // A constructor with constant arguments, `dim3 block(512);`: components not given are 1.
    auto &fields = t->record->fields;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i < e->args.size()) {
        if (!constantInit(e->args[i], fields[i].type, out + fields[i].offset))
          return false;
      } else if (dim) {
        const uint32_t one = 1;
        std::memcpy(out + fields[i].offset, &one, sizeof one);
      }
    }
    return true;
  }
  if (dim && e->kind == ExprKind::Cast && !e->typeSyntax && e->operands[0]->type->isInteger()) {
    // `dim3 grid = 64;`: (64, 1, 1).
    const uint32_t one = 1;
    std::memcpy(out + 4, &one, sizeof one);
    std::memcpy(out + 8, &one, sizeof one);
    return constantInit(e->operands[0], t->record->fields[0].type, out);
  }
  fe::ConstValue c;
  if (!fe::foldArith(e, c))
    return false;
  if (t->isFloating()) {
    double d = c.isFloat ? c.f : static_cast<double>(c.i);
    if (t->kind == TypeKind::Float) {
      float f = static_cast<float>(d);
      std::memcpy(out, &f, 4);
    } else
      std::memcpy(out, &d, 8);
    return true;
  }
  if (t->isInteger()) {
    int64_t v = c.isFloat ? static_cast<int64_t>(c.f) : c.i;
    if (t->isBool())
      v = v != 0;
    std::memcpy(out, &v, t->size()); // little-endian
    return true;
  }
  if (t->isPointer() && !c.isFloat && c.i == 0)
    return true;
  return false;
}

bool Lowerer::addressInit(fe::Expr *e, uint8_t *out) {
  if (!initGlobal_)
    return false;
  while (e->kind == ExprKind::Cast && !e->typeSyntax)
    e = e->operands[0];
  GlobalReloc r;
  r.offset = static_cast<uint64_t>(out - initGlobal_->init.data());
  if (e->kind == ExprKind::StringLit) {
    // The literal's characters become a global of their own, in the pointer's memory.
    GlobalVar *str = m_.make<GlobalVar>();
    str->id = m_.nextGlobalId();
    str->name = "string literal";
    str->space = initGlobal_->space;
    str->init.assign(e->stringValue.begin(), e->stringValue.end());
    str->init.push_back(0);
    str->size = str->init.size();
    m_.globals.push_back(str);
    r.target = str->id;
  } else {
    // &variable, or an array variable standing for its first element.
    fe::Expr *named = e;
    if (e->kind == ExprKind::Unary && e->unaryOp == fe::UnaryOp::AddrOf)
      named = e->operands[0];
    else if (!(e->type && e->type->isArray()))
      return false;
    if (named->kind != ExprKind::Ident)
      return false;
    auto *v = dynamic_cast<fe::VarDecl *>(named->decl);
    if (!v)
      return false;
    globalVar(v);
    auto it = globals_.find(v);
    if (it == globals_.end() || !it->second.global)
      return false;
    r.target = it->second.global->id;
  }
  initGlobal_->relocs.push_back(r);
  return true;
}

Function *Lowerer::newFunction(fe::FunctionDecl *f, FunctionKind kind) {
  Function *F = m_.make<Function>();
  F->name = f->name;
  if (f->isOverloaded) { // overloads are told apart by their parameters, as CUDA names them
    F->name += "(";
    for (size_t i = 0; i < f->type->params.size(); ++i)
      F->name += (i ? ", " : "") + f->type->params[i]->str();
    F->name += ")";
  }
  F->kind = kind;
  F->loc = f->loc;
  device_ = kind != FunctionKind::Host;
  // A struct result goes through a hidden pointer parameter (see body()).
  F->returnType = f->type->elem->isStruct() ? Type::voidTy() : irType(f->type->elem);
  F->isMain = kind == FunctionKind::Host && f->name == "main";
  F->launchBoundsMaxThreads = f->quals.launchBoundsMaxThreads;
  F->mainTakesArgs = F->isMain && !f->params.empty();
  m_.functions.push_back(F);
  return F;
}

void Lowerer::declare(fe::FunctionDecl *f) {
  Fns fns;
  if (f->quals.global) {
    fns.device = newFunction(f, FunctionKind::Kernel);
  } else {
    if (f->quals.device)
      fns.device = newFunction(f, FunctionKind::Device);
    if (!f->quals.device || f->quals.host)
      fns.host = newFunction(f, FunctionKind::Host);
  }
  functions_[f] = fns;
  // Prototypes refer to the same definition: of its side, as a __device__ function and a host
  // one of one name in two files are two functions (frontend/link.cpp).
  auto deviceOnly = [](const fe::FunctionDecl *x) {
    return x->quals.device && !x->quals.host && !x->quals.global;
  };
  for (fe::Decl *d : tu_.decls)
    if (auto *o = dynamic_cast<fe::FunctionDecl *>(d))
      if (o != f && o->name == f->name && (!f->isOverloaded || o->definition == f) &&
          (deviceOnly(o) == deviceOnly(f) || o->definition == f))
        functions_[o] = fns;
}

void Lowerer::body(fe::FunctionDecl *f, Function *fn) {
  if (functions_[f].host != fn && functions_[f].device != fn)
    return;
  if (f->definition != f)
    return; // a prototype sharing the definition's Fns
  F = fn;
  device_ = fn->kind != FunctionKind::Host;
  locals_.clear();
  dynamicSharedRefs_.clear();
  vlaBounds_.clear();
  vlaScopes_.clear();
  jumpTargets_.clear();
  resetGotos();
  nextVarId_ = 0;
  F->body = newBlock();
  cur_ = F->body;
  if (F->kind == FunctionKind::Kernel)
    F->staticSharedBytes = commonSharedEnd(f);
  uint32_t offset = 0;
  sret_ = nullptr;
  if (f->type->elem->isStruct()) {
    // A struct result is written through a hidden first parameter: the caller's slot.
    sret_ = newVar("sret", Type::ptr(slotSpace()));
    sret_->isParam = true;
    F->params.push_back(sret_);
  }
  for (fe::VarDecl *p : f->params) {
    Type t = irType(p->type);
    if (p->type->isStruct()) {
      // Structs by value. A kernel reads its copy from the parameter buffer into a local
      // slot (a kernel may modify its parameter; the buffer is shared by every thread).
      // A device or host function receives the address of a copy its caller made.
      Var *v = newVar(p->name.empty() ? "arg" : p->name, Type::ptr(slotSpace()));
      v->isParam = true;
      F->params.push_back(v);
      Storage st;
      if (F->kind == FunctionKind::Kernel) {
        uint32_t a = static_cast<uint32_t>(p->type->align());
        offset = (offset + a - 1) / a * a;
        F->paramOffsets.push_back(offset);
        v->aggregateBytes = static_cast<uint32_t>(p->type->size());
        st.slot = newSlot(p->name, p->type);
        Expr *src = node(ir::ExprKind::ParamAddr, Type::ptr(AddrSpace::Local));
        src->intValue = offset;
        copyStruct(slotAddr(st.slot), slotSpace(), src, AddrSpace::Local, p->type, p->loc);
        offset += static_cast<uint32_t>(p->type->size());
      } else {
        st.byRef = v;
      }
      locals_[p] = st;
      continue;
    }
    Var *v = newVar(p->name.empty() ? "arg" : p->name, t);
    v->isParam = true;
    F->params.push_back(v);
    if (F->kind == FunctionKind::Kernel) {
      uint32_t a = t.bytes();
      offset = (offset + a - 1) / a * a;
      F->paramOffsets.push_back(offset);
      offset += a;
    }
    if (p->addressTaken) {
      // The parameter lives in memory: copy it there on entry.
      Storage st;
      st.slot = newSlot(p->name, p->type);
      store(slotAddr(st.slot), ref(v), slotSpace(), p->loc);
      locals_[p] = st;
    } else {
      Storage st;
      st.var = v;
      locals_[p] = st;
    }
  }
  variadicParams(f); // a variadic host function's hidden parameters
  F->paramBytes = offset;
  if (f->dispatches) {
    virtualBody(f);
    return;
  }
  if (f->dynamicCastTo) {
    dynamicCastBody(f);
    return;
  }
  if (F->isMain)
    runDynamicInits();
  stmtList(f->body->body);
  uint64_t dyn = (F->staticSharedBytes + 15) / 16 * 16;
  for (Expr *e : dynamicSharedRefs_)
    e->intValue = static_cast<int64_t>(dyn);
}

void Lowerer::runDynamicInits() {
  for (auto &[v, g] : dynamicInits_) {
    Expr *a = node(ir::ExprKind::GlobalAddr, Type::ptr(AddrSpace::Host));
    a->global = g;
    initMemory(a, AddrSpace::Host, v->type, v->init, v->loc, true);
  }
}

void Lowerer::stmt(fe::Stmt *s) {
  if (!s)
    return;
  switch (s->kind) {
  case StmtKind::Compound:
    scopedStmts(s->body, s->loc);
    return;
  case StmtKind::Decl:
    for (fe::Decl *d : s->decls)
      if (auto *v = dynamic_cast<fe::VarDecl *>(d))
        localVar(v);
    return;
  case StmtKind::Expr:
    if (s->expr)
      effect(s->expr);
    return;
  case StmtKind::If: {
    Expr *c = cond(s->cond);
    Stmt *st = emit(ir::StmtKind::If, s->loc);
    st->cond = c;
    st->site = m_.addSite(SiteKind::Branch, s->loc, "if");
    st->thenBody = region([&] { scopedStmts({s->then}, s->loc); });
    if (s->elseStmt)
      st->elseBody = region([&] { scopedStmts({s->elseStmt}, s->loc); });
    return;
  }
  case StmtKind::For: {
    const bool vlaInit = s->init && declaresVla({s->init}); // `for (float a[n]; ...)`
    if (vlaInit)
      openVlaScope(s->loc);
    if (s->init)
      stmt(s->init);
    Stmt *st = m_.make<Stmt>(ir::StmtKind::Loop);
    st->loc = s->loc;
    st->site = m_.addSite(SiteKind::Loop, s->loc, "for");
    st->testFirst = true;
    st->preCond = region([&] {
      if (s->cond)
        st->cond = cond(s->cond);
    });
    beginLoopBody();
    loopBody(st, s->then);
    st->step = region([&] {
      if (s->step)
        effect(s->step);
    });
    endLoopBody();
    cur_->stmts.push_back(st);
    finishLoop(s->loc);
    if (vlaInit)
      closeVlaScope(s->loc);
    return;
  }
  case StmtKind::While: {
    Stmt *st = m_.make<Stmt>(ir::StmtKind::Loop);
    st->loc = s->loc;
    st->site = m_.addSite(SiteKind::Loop, s->loc, "while");
    st->testFirst = true;
    st->preCond = region([&] { st->cond = cond(s->cond); });
    beginLoopBody();
    loopBody(st, s->then);
    endLoopBody();
    cur_->stmts.push_back(st);
    finishLoop(s->loc);
    return;
  }
  case StmtKind::DoWhile: {
    Stmt *st = m_.make<Stmt>(ir::StmtKind::Loop);
    st->loc = s->loc;
    st->site = m_.addSite(SiteKind::Loop, s->loc, "do-while");
    st->testFirst = false;
    beginLoopBody();
    loopBody(st, s->then);
    // The condition's side effects run after the body (and after `continue`).
    st->step = region([&] { st->cond = cond(s->cond); });
    endLoopBody();
    cur_->stmts.push_back(st);
    finishLoop(s->loc);
    return;
  }
  case StmtKind::Switch:
    switchStmt(s);
    return;
  case StmtKind::Case:
  case StmtKind::Default:
    // Labels are handled by switchStmt; a label's own statement follows.
    if (s->then)
      stmt(s->then);
    return;
  case StmtKind::Break:
    if (jumpOutOfGotoLoop(s))
      return;
    leaveScopesFor(false, s->loc);
    emit(ir::StmtKind::Break, s->loc);
    return;
  case StmtKind::Continue:
    if (jumpOutOfGotoLoop(s))
      return;
    leaveScopesFor(true, s->loc);
    if (!switchContinueFlags_.empty() && loopDepthInSwitch_ == 0) {
      // `continue` inside a switch: leave the switch's one-trip loop, then continue.
      assign(switchContinueFlags_.back(), constInt(Type::boolTy(), 1), s->loc);
      emit(ir::StmtKind::Break, s->loc);
      return;
    }
    emit(ir::StmtKind::Continue, s->loc);
    return;
  case StmtKind::Return: {
    Stmt *r = m_.make<Stmt>(ir::StmtKind::Return);
    r->loc = s->loc;
    if (s->expr && sret_) {
      LValue src = structValue(s->expr);
      copyStruct(ref(sret_), slotSpace(), src.addr, src.space, s->expr->type, s->loc);
    } else if (s->expr) {
      if (F->returnType.isVoid())
        effect(s->expr);
      else
        r->value = cast(rvalue(s->expr), F->returnType);
    } else if (F->isMain) {
      r->value = constInt(Type::i32(true), 0);
    }
    cur_->stmts.push_back(r);
    return;
  }
  case StmtKind::Label:
    stmtList({s});
    return;
  case StmtKind::Goto:
    gotoStmt(s);
    return;
  default:
    return; // pragmas
  }
}

void Lowerer::loopBody(Stmt *loop, fe::Stmt *body) {
  int saved = loopDepthInSwitch_;
  loopDepthInSwitch_ = switchContinueFlags_.empty() ? 0 : loopDepthInSwitch_ + 1;
  jumpTargets_.push_back({true, vlaScopes_.size()});
  loop->body = region([&] { scopedStmts({body}, body ? body->loc : loop->loc); });
  jumpTargets_.pop_back();
  loopDepthInSwitch_ = saved;
}

void Lowerer::switchStmt(fe::Stmt *s) {
  Expr *v = snapshot(rvalue(s->cond), "switch.value", s->loc);
  // Gather the labels of this switch (not of nested switches).
  std::vector<fe::Stmt *> labels;
  std::function<void(fe::Stmt *)> gather = [&](fe::Stmt *x) {
    if (!x || x->kind == StmtKind::Switch)
      return;
    if (x->kind == StmtKind::Case || x->kind == StmtKind::Default)
      labels.push_back(x);
    if (x->kind == StmtKind::Compound)
      for (auto *c : x->body)
        gather(c);
    if (x->kind == StmtKind::Case || x->kind == StmtKind::Default)
      gather(x->then);
  };
  gather(s->then);
  Var *matched = newVar("switch.matched", Type::boolTy());
  assign(matched, constInt(Type::boolTy(), 0), s->loc);
  Expr *anyCase = constInt(Type::boolTy(), 0);
  for (auto *l : labels)
    if (l->kind == StmtKind::Case)
      anyCase = bin(ir::BinaryOp::Or, anyCase,
                    bin(ir::BinaryOp::Eq, v,
                        constInt(v->type, static_cast<int64_t>(l->caseValue->intValue))));
  Var *isDefault = newVar("switch.default", Type::boolTy());
  assign(isDefault, unaryNot(anyCase), s->loc);
  Var *contFlag = newVar("switch.continue", Type::boolTy());
  assign(contFlag, constInt(Type::boolTy(), 0), s->loc);

  // The body's statements in order; each label opens a guarded section.
  std::vector<fe::Stmt *> flat;
  if (s->then && s->then->kind == StmtKind::Compound)
    flat = s->then->body;
  else if (s->then)
    flat = {s->then};
  // A VLA declared after the last label lives until the switch ends (sema rejects one that a
  // label jumps past).
  const bool vla = declaresVla(flat);
  if (vla)
    openVlaScope(s->loc);
  Stmt *loop = m_.make<Stmt>(ir::StmtKind::Loop);
  loop->loc = s->loc;
  loop->site = 0; // the one-trip loop is not a branch of the source
  loop->testFirst = true;
  switchContinueFlags_.push_back(contFlag);
  jumpTargets_.push_back({false, vlaScopes_.size()});
  int savedDepth = loopDepthInSwitch_;
  loopDepthInSwitch_ = 0;
  SiteId site = m_.addSite(SiteKind::Branch, s->loc, "switch");
  beginLoopBody();
  std::vector<fe::Stmt *> outerPending = std::move(pending_);
  pending_.clear();
  loop->body = region([&] {
    switchLabels(flat);
    Block *section = nullptr;
    for (fe::Stmt *x : flat) {
      fe::Stmt *inner = x;
      while (inner && (inner->kind == StmtKind::Case || inner->kind == StmtKind::Default)) {
        Expr *hit = inner->kind == StmtKind::Default
                        ? ref(isDefault)
                        : bin(ir::BinaryOp::Eq, v,
                              constInt(v->type, static_cast<int64_t>(inner->caseValue->intValue)));
        assign(matched, bin(ir::BinaryOp::Or, ref(matched), hit), inner->loc);
        Stmt *g = emit(ir::StmtKind::If, inner->loc);
        g->cond = ref(matched);
        g->site = site;
        g->thenBody = newBlock();
        section = g->thenBody;
        inner = inner->then;
      }
      if (!inner)
        continue;
      if (!section) {
        continue; // statements before the first label never run
      }
      Block *saved = cur_;
      cur_ = section;
      switchItem(inner);
      cur_ = saved;
    }
    emit(ir::StmtKind::Break, s->loc);
  });
  endLoopBody();
  pending_ = std::move(outerPending);
  loopDepthInSwitch_ = savedDepth;
  jumpTargets_.pop_back();
  switchContinueFlags_.pop_back();
  cur_->stmts.push_back(loop);
  finishLoop(s->loc);
  if (vla)
    closeVlaScope(s->loc);
  // Lanes that hit `continue` inside the switch continue the enclosing loop.
  if (hasContinue(s->then)) {
    Stmt *c = emit(ir::StmtKind::If, s->loc);
    c->cond = ref(contFlag);
    c->isBranch = false;
    c->thenBody = newBlock();
    Stmt *cont = m_.make<Stmt>(ir::StmtKind::Continue);
    cont->loc = s->loc;
    c->thenBody->stmts.push_back(cont);
  }
}

void Lowerer::localVar(fe::VarDecl *v) {
  if (!v->type)
    return;
  Storage st;
  const fe::Type *t = v->type;
  if (v->quals.shared) {
    if (F->kind != FunctionKind::Kernel && v->quals.isExtern) {
      st.dynamicShared = true; // reported where it is used (lvalue)
      locals_[v] = st;
      return;
    }
    if (F->kind != FunctionKind::Kernel) {
      auto it = commonShared_.find(v);
      if (it == commonShared_.end())
        return; // reported by placeCommonShared
      st.sharedOffset = it->second;
      locals_[v] = st;
      return;
    }
    if (v->quals.isExtern) {
      st.dynamicShared = true;
    } else {
      uint64_t a = std::max<uint64_t>(t->align(), 4);
      uint64_t off = (F->staticSharedBytes + a - 1) / a * a;
      st.sharedOffset = static_cast<int64_t>(off);
      F->staticSharedBytes = off + t->size();
    }
    locals_[v] = st;
    return;
  }
  if (v->quals.isStatic) {
    // One variable for the whole program (on each side: host code's in host memory, device
    // code's in global memory, shared by every thread), initialised once, before main.
    GlobalVar *&g = staticLocals_[{v, device_}];
    if (!g) {
      g = m_.make<GlobalVar>();
      g->id = m_.nextGlobalId();
      g->name = F->name + "." + v->name;
      g->space = device_ ? AddrSpace::Global : AddrSpace::Host;
      g->size = t->size();
      g->align = std::max<uint64_t>(t->align(), 1);
      m_.globals.push_back(g);
      if (v->init || hasDim3(t)) {
        g->init.assign(g->size, 0);
        dim3Defaults(t, g->init.data());
      }
      if (v->init) {
        GlobalVar *outer = initGlobal_;
        initGlobal_ = g;
        if (!constantInit(v->init, t, g->init.data()))
          error(v->init->loc, "initializer of a static local variable must be a constant");
        initGlobal_ = outer;
      }
    }
    st.global = g;
    locals_[v] = st;
    return;
  }
  if (t->isVariablyModified())
    evaluateBounds(t, v->loc);
  if (t->hasRuntimeSize()) {
    vlaLocal(v);
    return;
  }
  if (t->isScalar() && !v->addressTaken) {
    st.var = newVar(v->name, irType(t));
    locals_[v] = st;
    if (v->init)
      assign(st.var, cast(rvalue(v->init), st.var->type), v->loc);
    return;
  }
  st.slot = newSlot(v->name, t);
  locals_[v] = st;
  if (v->init)
    initMemory(slotAddr(st.slot), slotSpace(), t, v->init, v->loc, true);
  else if (hasDim3(t))
    constructDefaults(slotAddr(st.slot), slotSpace(), t, v->loc);
}

bool Lowerer::hasDim3(const fe::Type *t) {
  while (t->isArray())
    t = t->elem;
  if (t == types_.dim3Ty())
    return true;
  if (t->isStruct())
    for (auto &f : t->record->fields)
      if (hasDim3(f.type))
        return true;
  return false;
}

void Lowerer::dim3Defaults(const fe::Type *t, uint8_t *out) {
  if (!hasDim3(t))
    return;
  if (t == types_.dim3Ty()) {
    const uint32_t ones[3] = {1, 1, 1};
    std::memcpy(out, ones, sizeof ones);
  } else if (t->isArray()) {
    for (uint64_t i = 0; i < t->count; ++i)
      dim3Defaults(t->elem, out + i * t->elem->size());
  } else {
    for (auto &f : t->record->fields)
      dim3Defaults(f.type, out + f.offset);
  }
}

void Lowerer::constructDefaults(Expr *addr, AddrSpace space, const fe::Type *t, fe::SourceLoc loc) {
  if (!hasDim3(t))
    return;
  if (t == types_.dim3Ty()) {
    for (int d = 0; d < 3; ++d)
      store(ptrAdd(addr, i64(4 * d), addr->type), constInt(Type::i32(false), 1), space, loc);
  } else if (t->isArray() && t->count > kUnrollLimit) {
    Expr *a = snapshot(addr, "construct.dst", loc);
    elementLoop(t->count, t->elem->size(), loc, [&](Expr *off) {
      constructDefaults(ptrAdd(a, off, a->type), space, t->elem, loc);
    });
  } else if (t->isArray()) {
    for (uint64_t i = 0; i < t->count; ++i)
      constructDefaults(ptrAdd(addr, i64(static_cast<int64_t>(i * t->elem->size())), addr->type),
                        space, t->elem, loc);
  } else {
    for (auto &f : t->record->fields)
      constructDefaults(ptrAdd(addr, i64(static_cast<int64_t>(f.offset)), addr->type), space,
                        f.type, loc);
  }
}

void Lowerer::initMemory(Expr *addr, AddrSpace space, const fe::Type *t, fe::Expr *init,
                         fe::SourceLoc loc, bool zeroRest) {
  if (init->kind == ExprKind::InitList) {
    if (t->isArray()) {
      uint64_t given = std::min<uint64_t>(init->operands.size(), t->count);
      for (uint64_t i = 0; i < given; ++i) {
        Expr *ea = ptrAdd(addr, i64(static_cast<int64_t>(i * t->elem->size())), addr->type);
        initMemory(ea, space, t->elem, init->operands[i], loc, zeroRest);
      }
      if (zeroRest && given < t->count) {
        Expr *rest = ptrAdd(addr, i64(static_cast<int64_t>(given * t->elem->size())), addr->type);
        zeroMemory(rest, space, types_.arrayOf(t->elem, t->count - given), loc);
      }
      return;
    }
    if (t->isStruct() && t->record->isUnion) { // `U u = {v};`: the first member
      const fe::StructField *first = t->record->fields.empty() ? nullptr : &t->record->fields[0];
      if (first && !init->operands.empty())
        initMemory(addr, space, first->type, init->operands[0], loc, zeroRest);
      uint64_t done = first && !init->operands.empty() ? first->type->size() : 0;
      if (zeroRest && done < t->size()) // the rest of its bytes, as C zeroes padding
        moveBytes(addr, space, nullptr, space, done, t->size(), t->align(), loc);
      return;
    }
    if (t->isStruct()) {
      auto &fields = t->record->fields;
      for (size_t i = 0; i < fields.size(); ++i) {
        Expr *fa = ptrAdd(addr, i64(static_cast<int64_t>(fields[i].offset)), addr->type);
        if (i < init->operands.size())
          initMemory(fa, space, fields[i].type, init->operands[i], loc, zeroRest);
        else if (t == types_.dim3Ty()) // `dim3 g = {4};` is dim3(4): (4, 1, 1)
          store(fa, constInt(Type::i32(false), 1), space, loc);
        else if (zeroRest)
          zeroMemory(fa, space, fields[i].type, loc);
      }
      return;
    }
    if (!init->operands.empty())
      initMemory(addr, space, t, init->operands[0], loc, zeroRest);
    return;
  }
  if (t->isArray() && init->kind == ExprKind::StringLit) {
    for (uint64_t i = 0; i < t->count; ++i) {
      char c = i < init->stringValue.size() ? init->stringValue[i] : 0;
      store(ptrAdd(addr, i64(static_cast<int64_t>(i)), addr->type), constInt(Type::i8(true), c),
            space, loc);
    }
    return;
  }
  if (t->isStruct() && init->kind == ExprKind::Construct && init->type == t &&
      space == slotSpace()) {
    // `T x(args);`, `T x = T(args);`: the constructor makes the object where it lives, so
    // `this` in the constructor is the object's address (no temporary and copy). The storage
    // starts zeroed, as a fresh temporary's did.
    zeroMemory(addr, space, t, loc);
    Expr *saved = constructTarget_;
    constructTarget_ = addr;
    rvalue(init->operands[0]);
    constructTarget_ = saved;
    return;
  }
  if (t->isStruct()) {
    LValue src = structValue(init);
    copyStruct(addr, space, src.addr, src.space, t, loc);
    return;
  }
  store(addr, cast(rvalue(init), irType(t)), space, loc);
}

void Lowerer::zeroMemory(Expr *addr, AddrSpace space, const fe::Type *t, fe::SourceLoc loc) {
  if (t == types_.dim3Ty()) { // value-initialised by its constructor: (1, 1, 1)
    constructDefaults(addr, space, t, loc);
    return;
  }
  if (t->isArray() && t->count > kUnrollLimit) {
    Expr *a = snapshot(addr, "zero.dst", loc);
    elementLoop(t->count, t->elem->size(), loc,
                [&](Expr *off) { zeroMemory(ptrAdd(a, off, a->type), space, t->elem, loc); });
    return;
  }
  if (t->isArray()) {
    for (uint64_t i = 0; i < t->count; ++i)
      zeroMemory(ptrAdd(addr, i64(static_cast<int64_t>(i * t->elem->size())), addr->type), space,
                 t->elem, loc);
    return;
  }
  if (movedAsBytes(t)) {
    moveBytes(addr, space, nullptr, space, 0, t->size(), t->align(), loc);
    return;
  }
  if (t->isStruct()) {
    for (auto &f : t->record->fields)
      zeroMemory(ptrAdd(addr, i64(static_cast<int64_t>(f.offset)), addr->type), space, f.type, loc);
    return;
  }
  Type it = irType(t);
  store(addr, it.isFloat() ? constFloat(it, 0) : constInt(it, 0), space, loc);
}

void Lowerer::elementLoop(Expr *count, uint64_t elemSize, fe::SourceLoc loc,
                          const std::function<void(Expr *offset)> &body) {
  Var *i = newVar("elem", Type::i64(true));
  assign(i, i64(0), loc);
  Stmt *st = m_.make<Stmt>(ir::StmtKind::Loop);
  st->loc = loc;
  st->site = 0; // not a loop of the source: no branch is counted
  st->testFirst = true;
  st->cond = bin(ir::BinaryOp::Lt, ref(i), cast(count, Type::i64(true)));
  st->body =
      region([&] { body(bin(ir::BinaryOp::Mul, ref(i), i64(static_cast<int64_t>(elemSize)))); });
  st->step = region([&] { assign(i, bin(ir::BinaryOp::Add, ref(i), i64(1)), loc); });
  cur_->stmts.push_back(st);
}

void Lowerer::copyStruct(Expr *dst, AddrSpace dspace, Expr *src, AddrSpace sspace,
                         const fe::Type *t, fe::SourceLoc loc) {
  if (t->isArray() && t->count > kUnrollLimit) {
    Expr *d = snapshot(dst, "copy.dst", loc), *s = snapshot(src, "copy.src", loc);
    elementLoop(t->count, t->elem->size(), loc, [&](Expr *off) {
      copyStruct(ptrAdd(d, off, d->type), dspace, ptrAdd(s, off, s->type), sspace, t->elem, loc);
    });
    return;
  }
  // A struct of 4, 8 or 16 bytes aligned to its size moves as one access of that size, as
  // nvcc emits it (a float4 is one 128-bit load): the counters must see one wide access.
  if (t->isStruct() && t->align() == t->size() &&
      (t->size() == 4 || t->size() == 8 || t->size() == 16)) {
    Type wide = t->size() == 4   ? Type::i32(false)
                : t->size() == 8 ? Type::i64(false)
                                 : Type::b128();
    store(dst, load(src, wide, sspace, loc), dspace, loc);
    return;
  }
  if (movedAsBytes(t)) {
    moveBytes(dst, dspace, src, sspace, 0, t->size(), t->align(), loc);
    return;
  }
  if (t->isArray()) {
    for (uint64_t i = 0; i < t->count; ++i) {
      int64_t off = static_cast<int64_t>(i * t->elem->size());
      copyStruct(ptrAdd(dst, i64(off), dst->type), dspace, ptrAdd(src, i64(off), src->type), sspace,
                 t->elem, loc);
    }
    return;
  }
  if (t->isStruct()) {
    for (auto &f : t->record->fields) {
      int64_t off = static_cast<int64_t>(f.offset);
      copyStruct(ptrAdd(dst, i64(off), dst->type), dspace, ptrAdd(src, i64(off), src->type), sspace,
                 f.type, loc);
    }
    return;
  }
  Type it = irType(t);
  store(dst, load(src, it, sspace, loc), dspace, loc);
}

void Lowerer::moveBytes(Expr *dst, AddrSpace dspace, Expr *src, AddrSpace sspace, uint64_t begin,
                        uint64_t end, uint64_t align, fe::SourceLoc loc) {
  auto pieceType = [](uint64_t n) {
    return n == 16  ? Type::b128()
           : n == 8 ? Type::i64(false)
           : n == 4 ? Type::i32(false)
           : n == 2 ? Type::i16(false)
                    : Type::i8(false);
  };
  auto move = [&](Expr *d, Expr *s, uint64_t n) {
    Type pt = pieceType(n);
    store(d, s ? load(s, pt, sspace, loc) : constInt(pt, 0), dspace, loc);
  };
  uint64_t piece = std::min<uint64_t>(align, src ? 16 : 8); // no 128-bit constant to store
  if (begin == 0 && end % piece == 0 && end / piece > kUnrollLimit) {
    Expr *d = snapshot(dst, "bytes.dst", loc), *s = src ? snapshot(src, "bytes.src", loc) : nullptr;
    elementLoop(end / piece, piece, loc, [&](Expr *off) {
      move(ptrAdd(d, off, d->type), s ? ptrAdd(s, off, s->type) : nullptr, piece);
    });
    return;
  }
  for (uint64_t off = begin; off < end;) {
    uint64_t n = piece;
    while (n > 1 && (off % n != 0 || off + n > end))
      n /= 2;
    int64_t o = static_cast<int64_t>(off);
    move(ptrAdd(dst, i64(o), dst->type), src ? ptrAdd(src, i64(o), src->type) : nullptr, n);
    off += n;
  }
}

} // namespace kern::ir::lower_detail

namespace kern::ir {

namespace fe = kern::frontend;

std::unique_ptr<Module> lower(fe::TranslationUnit &tu, fe::TypeContext &types,
                              fe::DiagnosticEngine &diags, const std::string &name,
                              uint32_t firstSite, uint32_t firstGlobal) {
  auto m = std::make_unique<Module>();
  m->sourceName = name;
  m->firstGlobalId = firstGlobal;
  m->startSitesAt(firstSite);
  lower_detail::Lowerer l(tu, types, diags, *m);
  l.run();
  if (diags.hasErrors())
    return nullptr;
  return m;
}

} // namespace kern::ir
