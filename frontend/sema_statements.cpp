// Semantic analysis of the C++ declarations and statements that the rest of sema builds on:
// `auto` type deduction, static_assert.
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

} // namespace kern::frontend::sema_detail
