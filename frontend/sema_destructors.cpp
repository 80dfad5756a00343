// Destructors, run where C++ runs them for the objects kern tracks: a local variable (or each
// element of a local array, last first) at the end of its scope, in reverse order of
// declaration, on every way out of the scope (its end, break, continue, return after the
// result is computed); an object given to `delete`. Ending an object's life runs its
// destructor, then ends its members' lives, last member first. Sema writes the calls into the
// function as statements, so the lowering sees ordinary member calls:
//
//   { Lock a; Lock b;          { Lock a; Lock b;
//     if (x) return f(a);        if (x) { int r = f(a); b.~Lock(); a.~Lock(); return r; }
//     g(b);                      g(b);
//   }                            b.~Lock(); a.~Lock(); }
//
// Not destroyed (documented in docs/cxx.md): temporaries, parameters passed by value, and
// objects with static storage.
#include "frontend/sema_impl.h"

namespace kern::frontend::sema_detail {

FunctionDecl *Sema::destructorOf(const Type *t) {
  if (!t || !t->isStruct() || t->record->name.empty())
    return nullptr;
  const std::string &n = t->record->name;
  std::string base = n.substr(0, n.find('<'));
  size_t cut = base.rfind("::");
  return method(t, "~" + (cut == std::string::npos ? base : base.substr(cut + 2)));
}

bool Sema::needsDestruction(const Type *t) {
  while (t && t->isArray())
    t = t->elem;
  if (!t || !t->isStruct() || !t->record->complete)
    return false;
  if (destructorOf(t))
    return true;
  for (const StructField &f : t->record->fields)
    if (needsDestruction(f.type))
      return true;
  for (const StructBase &b : t->record->bases)
    if (needsDestruction(b.type))
      return true;
  return false;
}

void Sema::destroy(Expr *obj, const Type *t, std::vector<Stmt *> &out, SourceLoc at) {
  auto statement = [&](Expr *e) {
    Stmt *s = tu_.make<Stmt>(StmtKind::Expr);
    s->loc = at;
    s->expr = e;
    if (check(e))
      out.push_back(s);
  };
  if (t->isArray()) {
    // Each element, last first: `for (unsigned long i = n; i-- > 0;) destroy(obj[i]);`
    std::vector<Stmt *> element;
    auto *i = tu_.make<VarDecl>();
    i->name = "__kern_destroy_i" + std::to_string(++returnCount_);
    i->loc = at;
    i->typeSyntax = tu_.make<TypeSyntax>();
    i->typeSyntax->isAuto = true;
    i->typeSyntax->deduced = types_.get(TypeKind::ULong);
    Expr *count = make(ExprKind::IntLit, at);
    count->text = std::to_string(t->count) + "ul";
    count->intValue = t->count;
    i->init = count;
    Stmt *loop = tu_.make<Stmt>(StmtKind::For);
    loop->loc = at;
    Stmt *init = tu_.make<Stmt>(StmtKind::Decl);
    init->loc = at;
    init->decls = {i};
    loop->init = init;
    auto name = [&] {
      Expr *e = make(ExprKind::Ident, at);
      e->name = i->name;
      return e;
    };
    Expr *dec = make(ExprKind::Unary, at);
    dec->unaryOp = UnaryOp::PostDec;
    dec->operands = {name()};
    Expr *zero = make(ExprKind::IntLit, at);
    zero->text = "0";
    Expr *cond = make(ExprKind::Binary, at);
    cond->binaryOp = BinaryOp::Gt;
    cond->operands = {dec, zero};
    loop->cond = cond;
    Stmt *body = tu_.make<Stmt>(StmtKind::Compound);
    body->loc = at;
    loop->then = body;
    // The loop is checked as a whole (its variable is declared by it), with the element's
    // statements made inside its scope.
    push();
    stmt(init);
    loop->cond = condition(loop->cond);
    Expr *index = make(ExprKind::Index, at);
    index->operands = {obj, name()};
    destroy(index, t->elem, body->body, at);
    pop();
    loop->init = init;
    if (!body->body.empty())
      out.push_back(loop);
    return;
  }
  if (FunctionDecl *d = destructorOf(t)) {
    Expr *m = make(ExprKind::Member, at);
    m->name = d->name.substr(d->name.rfind("::") + 2);
    m->operands = {obj};
    Expr *c = make(ExprKind::Call, at);
    c->operands = {m};
    c->noVirtual = true; // an object whose class is known, or a member or base of one
    statement(c);
  }
  const auto &fields = t->record->fields;
  for (size_t k = fields.size(); k-- > 0;)
    if (needsDestruction(fields[k].type)) {
      Expr *m = make(ExprKind::Member, at);
      m->name = fields[k].name;
      m->operands = {obj};
      destroy(m, fields[k].type, out, at);
    }
  destroyEmptyBases(obj, t, out, at);
}

std::vector<Stmt *> Sema::destroyScopes(Scope *stop, SourceLoc at, VarDecl *kept) {
  std::vector<Stmt *> out;
  for (Scope *s = scope_; s && s != stop; s = s->parent) {
    for (size_t k = s->destructible.size(); k-- > 0;) {
      VarDecl *v = s->destructible[k];
      if (v == kept)
        continue;
      // The variable itself, not whatever its name means here (an inner one may hide it).
      Expr *obj = make(ExprKind::Ident, at);
      obj->name = v->name;
      obj->decl = v;
      obj->type = v->type;
      obj->isLValue = true;
      destroy(obj, v->type, out, at);
    }
    for (size_t k = s->exits.size(); k-- > 0;)
      if (Stmt *call = scopeExitCall(s->exits[k], at))
        out.push_back(call);
  }
  return out;
}

Stmt *Sema::scopeExitCall(const std::pair<std::string, std::string> &exit, SourceLoc at) {
  Expr *callee = make(ExprKind::Ident, at);
  callee->name = exit.first;
  Expr *c = make(ExprKind::Call, at);
  c->operands = {callee};
  if (!exit.second.empty()) {
    Expr *a = make(ExprKind::Ident, at);
    a->name = exit.second;
    c->args.push_back(a);
  }
  Stmt *st = tu_.make<Stmt>(StmtKind::Expr);
  st->loc = at;
  st->expr = c;
  return check(c) ? st : nullptr;
}

void Sema::endScope(std::vector<Stmt *> &body, SourceLoc at) {
  if (scope_->destructible.empty() && scope_->exits.empty())
    return;
  std::vector<Stmt *> out = destroyScopes(scope_->parent, at);
  body.insert(body.end(), out.begin(), out.end());
}

bool Sema::destroyBeforeJump(Stmt *s) {
  // The scope where destroying stops (not itself destroyed).
  Scope *stop = s->kind == StmtKind::Return ? (functionScope_ ? functionScope_->parent : nullptr)
                : s->kind == StmtKind::Continue
                    ? (continueScopes_.empty() ? nullptr : continueScopes_.back())
                    : (breakScopes_.empty() ? nullptr : breakScopes_.back());
  if (!stop || rewritingReturn_)
    return false;
  bool any = false;
  for (Scope *sc = scope_; sc && sc != stop; sc = sc->parent)
    any |= !sc->destructible.empty() || !sc->exits.empty();
  if (!any)
    return false;
  // `return v;` of a local object: v becomes the result (as C++ compilers elide the copy) and
  // is not destroyed. A parameter with a copy constructor is copied (C++ elides no copy of a
  // parameter, and kern has no move constructors), then destroyed.
  VarDecl *returned = nullptr;
  if (s->kind == StmtKind::Return && s->expr && s->expr->kind == ExprKind::Ident && fn_ &&
      fn_->type->elem->isStruct())
    for (Scope *sc = scope_; sc && sc != stop && !returned; sc = sc->parent)
      for (VarDecl *v : sc->destructible)
        if (v->name == s->expr->name && v->type && v->type->record == fn_->type->elem->record &&
            lookup(v->name) == v && (!v->isParam || !copyConstructorOf(v->type)))
          returned = v;
  std::vector<Stmt *> out = destroyScopes(stop, s->loc, returned);
  Stmt *jump = tu_.make<Stmt>(*s);
  std::vector<Stmt *> body;
  if (s->kind == StmtKind::Return && s->expr && fn_ && !fn_->type->elem->isVoid()) {
    // The result first (it may read the objects), then the destructors.
    auto *r = tu_.make<VarDecl>();
    r->name = "__kern_result" + std::to_string(++returnCount_);
    r->loc = s->loc;
    r->typeSyntax = tu_.make<TypeSyntax>();
    r->typeSyntax->isAuto = true;
    r->typeSyntax->deduced = fn_->type->elem;
    r->init = s->expr;
    // Converted first: `auto` would make `return 0;` of a pointer function an int.
    if (!fn_->type->elem->isStruct() && !fn_->type->elem->isReference && check(s->expr))
      r->init = convert(s->expr, fn_->type->elem, "returning");
    Stmt *decl = tu_.make<Stmt>(StmtKind::Decl);
    decl->loc = s->loc;
    decl->decls = {r};
    movingResult_ = returned != nullptr;
    stmt(decl);
    movingResult_ = false;
    body.push_back(decl);
    Expr *value = make(ExprKind::Ident, s->loc);
    value->name = r->name;
    value->decl = r;
    value->type = r->type;
    value->isLValue = true;
    jump->expr = value;
  }
  body.insert(body.end(), out.begin(), out.end());
  rewritingReturn_ = true;
  stmt(jump);
  rewritingReturn_ = false;
  body.push_back(jump);
  s->kind = StmtKind::Compound;
  s->body = std::move(body);
  s->expr = nullptr;
  return true;
}

bool Sema::destructorCalls(Expr *obj, const Type *t, std::vector<Expr *> &out, SourceLoc at,
                           bool base) {
  // A virtual destructor called through a pointer or reference destroys the dynamic type's
  // object, its bases included (sema_virtual.cpp); a base's destructor never dispatches.
  bool dispatched = false;
  if (FunctionDecl *d = destructorOf(t)) {
    Expr *m = make(ExprKind::Member, at);
    m->name = d->name.substr(d->name.rfind("::") + 2);
    m->operands = {obj};
    Expr *c = make(ExprKind::Call, at);
    c->operands = {m};
    dispatched = !base && isVirtualMethod(d) &&
                 !(obj->kind == ExprKind::Ident && dynamic_cast<VarDecl *>(lookup(obj->name)));
    c->noVirtual = !dispatched; // a named object is of its declared class
    out.push_back(c);
  }
  const auto &fields = t->record->fields;
  for (size_t k = fields.size(); k-- > 0;) {
    if (!needsDestruction(fields[k].type) || (dispatched && fields[k].isBase))
      continue;
    if (!fields[k].type->isStruct()) {
      error(at, "deleting an object whose member '" + fields[k].name +
                    "' is an array of objects with destructors is not supported yet");
      return false;
    }
    Expr *m = make(ExprKind::Member, at);
    m->name = fields[k].name;
    m->operands = {obj};
    if (!destructorCalls(m, fields[k].type, out, at, fields[k].isBase))
      return false;
  }
  return true;
}

Stmt *Sema::constructElements(VarDecl *v) {
  const Type *t = v->type;
  if (!t || !t->isArray() || t->elem->isArray() || v->init || v->quals.shared ||
      v->quals.isExtern || !constructorOf(t->elem) || emptyDefaultConstructor(t->elem))
    return nullptr;
  if (v->quals.isStatic) {
    error(v->loc, "a static array of a struct whose default constructor does work is not "
                  "supported yet");
    return nullptr;
  }
  // `for (unsigned long i = 0; i < n; i++) v[i] = S();`, each element made where it lives
  SourceLoc at = v->loc;
  auto *i = tu_.make<VarDecl>();
  i->name = "__kern_construct_i" + std::to_string(++returnCount_);
  i->loc = at;
  i->typeSyntax = tu_.make<TypeSyntax>();
  i->typeSyntax->isAuto = true;
  i->typeSyntax->deduced = types_.get(TypeKind::ULong);
  Expr *zero = make(ExprKind::IntLit, at);
  zero->text = "0ul";
  i->init = zero;
  auto name = [&](const std::string &n) {
    Expr *e = make(ExprKind::Ident, at);
    e->name = n;
    return e;
  };
  Stmt *loop = tu_.make<Stmt>(StmtKind::For);
  loop->loc = at;
  loop->init = tu_.make<Stmt>(StmtKind::Decl);
  loop->init->loc = at;
  loop->init->decls = {i};
  Expr *count = make(ExprKind::IntLit, at);
  count->text = std::to_string(t->count) + "ul";
  count->intValue = t->count;
  Expr *cond = make(ExprKind::Binary, at);
  cond->binaryOp = BinaryOp::Lt;
  cond->operands = {name(i->name), count};
  loop->cond = cond;
  Expr *inc = make(ExprKind::Unary, at);
  inc->unaryOp = UnaryOp::PreInc;
  inc->operands = {name(i->name)};
  loop->step = inc;
  Expr *element = make(ExprKind::Index, at);
  Expr *array = name(v->name);
  array->decl = v; // this variable, whatever the name means later
  array->type = v->type;
  array->isLValue = true;
  element->operands = {array, name(i->name)};
  Expr *assign = make(ExprKind::Binary, at);
  assign->binaryOp = BinaryOp::Assign;
  assign->initializes = true; // made in place: no operator= of the element applies
  assign->operands = {element, constructorCall(t->elem, {}, at)};
  Stmt *body = tu_.make<Stmt>(StmtKind::Expr);
  body->loc = at;
  body->expr = assign;
  loop->then = body;
  stmt(loop);
  return loop;
}

} // namespace kern::frontend::sema_detail
