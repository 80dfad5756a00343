// Semantic analysis of the C++ declarations and statements that the rest of sema builds on:
// `auto` type deduction, static_assert, range-based for, a switch's labels.
#include "frontend/sema_impl.h"

#include "frontend/clone.h"
#include "frontend/const_eval.h"

namespace kern::frontend::sema_detail {

const Type *Sema::inSpace(const Type *t, AddrSpace space) {
  if (t->isPointer() && !t->isReference && !t->elem->isFunction())
    return types_.pointerTo(inSpace(t->elem, space), space, t->pointeeConst);
  if (t->isArray() && !t->vlaBound)
    return types_.arrayOf(inSpace(t->elem, space), t->count);
  return t;
}

bool Sema::deduceAuto(VarDecl *v, AddrSpace space) {
  TypeSyntax *ts = v->typeSyntax;
  if (!ts || !ts->isAuto)
    return true;
  ts->deduced = nullptr;
  std::string spelled = std::string(ts->isConst ? "const " : "") + "auto";
  for (const TypeOp &op : ts->ops) {
    if (op.kind == TypeOp::Kind::Array || op.kind == TypeOp::Kind::Function) {
      error(v->loc, "'" + v->name + "' declared as " +
                        (op.kind == TypeOp::Kind::Array ? "array of" : "function returning") +
                        " '" + spelled + "'");
      return false;
    }
    spelled += op.kind == TypeOp::Kind::Pointer ? " *" : " &";
  }
  if (!v->init) {
    error(v->loc, "declaration of variable '" + v->name + "' with deduced type '" + spelled +
                      "' requires an initializer");
    return false;
  }
  if (v->init->kind == ExprKind::InitList) {
    error(v->init->loc, "cannot deduce '" + spelled +
                            "' from a braced initializer list (std::initializer_list is not "
                            "supported)");
    return false;
  }
  Expr *e = v->init;
  if (e->kind == ExprKind::IntLit && e->text == "nullptr") {
    error(e->loc, "cannot deduce '" + spelled + "' from nullptr (std::nullptr_t is not supported)");
    return false;
  }
  if (!check(e))
    return false;
  // As C++ deduces a template argument from a call's argument: a reference keeps the object's
  // type and its const; otherwise arrays and functions decay and the value's own const goes.
  size_t n = ts->ops.size();
  const Type *a = nullptr;
  bool isConst = false;
  if (n && ts->ops.back().kind == TypeOp::Kind::Reference) {
    a = e->type;
    isConst = e->isLValue && isConstLValue(e);
    --n;
  } else {
    a = inSpace(rvalue(e)->type, space);
  }
  for (size_t i = n; i-- > 0;) { // `auto *p`: the pointers written peel the initialiser's
    if (!a->isPointer()) {
      error(e->loc, "variable '" + v->name + "' with type '" + spelled +
                        "' has incompatible initializer of type '" + a->str() + "'");
      return false;
    }
    isConst = a->pointeeConst;
    a = a->elem;
  }
  if (a->isVoid()) {
    error(e->loc, "variable '" + v->name +
                      "' cannot have type 'void' (the initializer has no "
                      "value)");
    return false;
  }
  ts->deduced = a;
  ts->isConst = ts->isConst || isConst;
  return true;
}

void Sema::staticAssert(StaticAssertDecl *d) {
  if (d->owner && d->owner->isTemplate)
    return; // checked for each instance (classStaticAsserts)
  int64_t v = 0;
  const Expr *divisionByZero = nullptr;
  if (!check(d->cond))
    return;
  if (!foldInt(d->cond, v, &divisionByZero)) {
    if (divisionByZero)
      error(divisionByZero->loc, "division by zero in a constant expression");
    error(d->loc, "static assertion expression is not an integral constant expression");
    return;
  }
  if (v == 0)
    error(d->loc,
          d->hasMessage ? "static assertion failed: " + d->message : "static assertion failed");
}

void Sema::classStaticAsserts(StructDecl *source) {
  Cloner clone(tu_);
  for (size_t i = 0; i < tu_.decls.size(); ++i)
    if (auto *sa = dynamic_cast<StaticAssertDecl *>(tu_.decls[i]); sa && sa->owner == source) {
      auto *c = static_cast<StaticAssertDecl *>(clone.decl(sa));
      c->owner = nullptr;
      staticAssert(c);
    }
}

void Sema::rangeFor(Stmt *s) {
  VarDecl *v = nullptr;
  for (Decl *d : s->init->decls)
    if (auto *vd = dynamic_cast<VarDecl *>(d))
      v = vd;
  Expr *range = s->expr;
  if (!v || !check(range))
    return;
  const Type *rt = range->type;
  if (rt->isStruct()) {
    rangeForObject(s, v);
    return;
  }
  if (!rt->isArray() || rt->count == 0 || rt->hasRuntimeSize()) {
    error(range->loc, "cannot iterate over a value of type '" + rt->str() +
                          "': a range-based for loop needs an array of known size or an object "
                          "with begin() and end()");
    return;
  }
  if (!range->isLValue) {
    error(range->loc, "a range-based for loop over a temporary array is not supported");
    return;
  }
  // Names no program can write, so that nothing in the body can see or hide them.
  auto ident = [&](const std::string &n, SourceLoc at) {
    Expr *e = make(ExprKind::Ident, at);
    e->name = n;
    return e;
  };
  SourceLoc at = s->loc;
  Stmt *outer = tu_.make<Stmt>(StmtKind::Compound);
  outer->loc = at;
  // The array is evaluated once: through a reference, unless it is a variable named directly
  // (and not hidden by the loop variable).
  std::string rangeName = range->name;
  bool direct = range->kind == ExprKind::Ident && dynamic_cast<VarDecl *>(range->decl) &&
                range->name != v->name;
  if (!direct) {
    auto *rv = tu_.make<VarDecl>();
    rv->name = rangeName = "for.range";
    rv->loc = range->loc;
    rv->typeSyntax = tu_.make<TypeSyntax>();
    rv->typeSyntax->loc = range->loc;
    rv->typeSyntax->isAuto = true;
    TypeOp ref;
    ref.kind = TypeOp::Kind::Reference;
    rv->typeSyntax->ops.push_back(ref);
    rv->init = range;
    Stmt *decl = tu_.make<Stmt>(StmtKind::Decl);
    decl->loc = range->loc;
    decl->decls.push_back(rv);
    outer->body.push_back(decl);
  }
  auto *iv = tu_.make<VarDecl>();
  iv->name = "for.index";
  iv->loc = at;
  iv->typeSyntax = tu_.make<TypeSyntax>();
  iv->typeSyntax->loc = at;
  iv->typeSyntax->keywords = {"unsigned", "long"};
  iv->init = make(ExprKind::IntLit, at);
  iv->init->text = "0";
  Stmt *loop = tu_.make<Stmt>(StmtKind::For);
  loop->loc = at;
  loop->init = tu_.make<Stmt>(StmtKind::Decl);
  loop->init->loc = at;
  loop->init->decls.push_back(iv);
  Expr *count = make(ExprKind::IntLit, at);
  count->intValue = rt->count;
  count->text = std::to_string(rt->count) + "ul";
  loop->cond = make(ExprKind::Binary, at);
  loop->cond->binaryOp = BinaryOp::Lt;
  loop->cond->operands = {ident("for.index", at), count};
  loop->step = make(ExprKind::Unary, at);
  loop->step->unaryOp = UnaryOp::PreInc;
  loop->step->operands = {ident("for.index", at)};
  // The loop variable, initialised from the element, then the body.
  Expr *element = make(ExprKind::Index, range->loc);
  element->operands = {ident(rangeName, range->loc), ident("for.index", at)};
  v->init = element;
  Stmt *body = tu_.make<Stmt>(StmtKind::Compound);
  body->loc = s->then ? s->then->loc : at;
  body->body = {s->init, s->then};
  loop->then = body;
  outer->body.push_back(loop);
  *s = *outer;
  stmt(s);
}

void Sema::staticConstMember(StructDecl *sd, StructDecl::Field &f, const Type *t) {
  if (!f.init || !(t->isInteger() || t->isBool()) || !f.typeSyntax->isConst) {
    // A static data member: one variable of the program named S::name, defined after the
    // struct (`int S::count = 0;`) or by its in-class initialiser.
    auto *v = tu_.make<VarDecl>();
    v->name = sd->name + "::" + f.name;
    v->loc = f.loc;
    v->ns = sd->ns;
    v->typeSyntax = f.typeSyntax;
    v->init = f.init;
    v->quals.isExtern = f.init == nullptr;
    instances_.insert(v); // analysed here, not again as a declaration of the file
    tu_.decls.push_back(v);
    std::string saved = ns_;
    ns_ = sd->ns;
    globalVar(v);
    ns_ = saved;
    return;
  }
  // `static const int n = 4;` in S: the constant S::n.
  int64_t v = 0;
  if (!constantInt(f.init, v, "a static const member's value must be a constant expression"))
    return;
  fileScope_.enumerators[sd->name + "::" + f.name] = {v, nullptr, t};
}

bool Sema::instanceMember(Expr *e) {
  if (e->instanceMember.empty())
    return true;
  const Type *t = instantiateClass(e->name, e->templateArgs, e->loc);
  if (!t)
    return false;
  e->name = t->record->name + "::" + e->instanceMember;
  e->instanceMember.clear();
  e->templateArgs.clear();
  e->hasTemplateArgs = false;
  return true;
}

bool Sema::lvalueConditional(Expr *e) {
  // C++: `c ? a : b` of two lvalues of one type is an lvalue (`return b < a ? b : a;` from a
  // function returning a reference), made here as `*(c ? &a : &b)`.
  Expr *a = e->operands[1], *b = e->operands[2];
  if (options_.cLanguage || !a->isLValue || !b->isLValue || a->type != b->type ||
      a->type->isArray() || a->type->isFunction())
    return false;
  Expr *pa = addressOf(a), *pb = addressOf(b);
  if (!pa->type || pa->type != pb->type)
    return false;
  Expr *c = make(ExprKind::Conditional, e->loc);
  c->operands = {e->operands[0], pa, pb};
  c->type = pa->type;
  e->kind = ExprKind::Unary;
  e->unaryOp = UnaryOp::Deref;
  e->operands = {c};
  unary(e);
  return true;
}

void Sema::rangeForObject(Stmt *s, VarDecl *v) {
  // As C++ defines it: `{ auto &for.range = range; auto for.begin = for.range.begin();
  // auto for.end = for.range.end(); for (; for.begin != for.end; ++for.begin) { v = *for.begin;
  // body } }` (a temporary range is held by value).
  Expr *range = s->expr;
  SourceLoc at = s->loc;
  auto ident = [&](const std::string &n, SourceLoc loc) {
    Expr *e = make(ExprKind::Ident, loc);
    e->name = n;
    return e;
  };
  auto autoVar = [&](const std::string &n, Expr *init, bool byReference) {
    auto *d = tu_.make<VarDecl>();
    d->name = n;
    d->loc = init->loc;
    d->typeSyntax = tu_.make<TypeSyntax>();
    d->typeSyntax->loc = init->loc;
    d->typeSyntax->isAuto = true;
    if (byReference) {
      TypeOp ref;
      ref.kind = TypeOp::Kind::Reference;
      d->typeSyntax->ops.push_back(ref);
    }
    d->init = init;
    Stmt *decl = tu_.make<Stmt>(StmtKind::Decl);
    decl->loc = init->loc;
    decl->decls.push_back(d);
    return decl;
  };
  auto call = [&](const char *member) {
    Expr *m = make(ExprKind::Member, range->loc);
    m->name = member;
    m->operands = {ident("for.range", range->loc)};
    Expr *c = make(ExprKind::Call, range->loc);
    c->operands = {m};
    return c;
  };
  Stmt *outer = tu_.make<Stmt>(StmtKind::Compound);
  outer->loc = at;
  outer->body.push_back(autoVar("for.range", range, range->isLValue));
  outer->body.push_back(autoVar("for.begin", call("begin"), false));
  outer->body.push_back(autoVar("for.end", call("end"), false));
  Stmt *loop = tu_.make<Stmt>(StmtKind::For);
  loop->loc = at;
  loop->cond = make(ExprKind::Binary, at);
  loop->cond->binaryOp = BinaryOp::Ne;
  loop->cond->operands = {ident("for.begin", at), ident("for.end", at)};
  loop->step = make(ExprKind::Unary, at);
  loop->step->unaryOp = UnaryOp::PreInc;
  loop->step->operands = {ident("for.begin", at)};
  Expr *element = make(ExprKind::Unary, range->loc);
  element->unaryOp = UnaryOp::Deref;
  element->operands = {ident("for.begin", at)};
  v->init = element;
  Stmt *body = tu_.make<Stmt>(StmtKind::Compound);
  body->loc = s->then ? s->then->loc : at;
  body->body = {s->init, s->then};
  loop->then = body;
  outer->body.push_back(loop);
  *s = *outer;
  stmt(s);
}

void Sema::checkSwitchLabels(Stmt *s, std::set<int64_t> &seen, bool &hasDefault, const Type *ct) {
  if (!s)
    return;
  if (s->kind == StmtKind::Case) {
    int64_t v;
    if (constantInt(s->caseValue, v)) {
      v = truncateToType(v, ct);
      if (!seen.insert(v).second)
        error(s->caseValue->loc, "duplicate case value '" + std::to_string(v) + "'");
      s->caseValue->intValue = static_cast<uint64_t>(v);
    }
  } else if (s->kind == StmtKind::Default) {
    if (hasDefault)
      error(s->loc, "multiple default labels in one switch");
    hasDefault = true;
  }
  if (s->kind == StmtKind::Switch)
    return; // nested switch has its own labels
  if (s->kind == StmtKind::Compound)
    for (Stmt *c : s->body)
      checkSwitchLabels(c, seen, hasDefault, ct);
  if (s->kind == StmtKind::Case || s->kind == StmtKind::Default || s->kind == StmtKind::If ||
      s->kind == StmtKind::For || s->kind == StmtKind::While || s->kind == StmtKind::DoWhile) {
    checkSwitchLabels(s->then, seen, hasDefault, ct);
    if (s->kind == StmtKind::If)
      checkSwitchLabels(s->elseStmt, seen, hasDefault, ct);
  }
}

} // namespace kern::frontend::sema_detail
