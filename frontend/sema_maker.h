// The expressions, statements and types that sema writes itself at one source location: the
// code `new` and `delete` expand to (sema_new.cpp) and the implicit copy members of classes
// (sema_copies.cpp). Internal to sema.
#pragma once

#include "frontend/sema_impl.h"

#include <string>
#include <vector>

namespace kern::frontend::sema_detail {

struct Maker {
  TranslationUnit &tu;
  SourceLoc at;

  Expr *node(ExprKind k) {
    Expr *e = tu.make<Expr>(k);
    e->loc = at;
    return e;
  }
  Expr *ident(const std::string &n) {
    Expr *e = node(ExprKind::Ident);
    e->name = n;
    return e;
  }
  Expr *member(Expr *obj, const std::string &n, bool arrow) {
    Expr *e = node(ExprKind::Member);
    e->name = n;
    e->isArrow = arrow;
    e->operands = {obj};
    return e;
  }
  Expr *integer(uint64_t v) {
    Expr *e = node(ExprKind::IntLit);
    e->text = std::to_string(v) + "ul";
    e->intValue = v;
    return e;
  }
  Expr *binary(BinaryOp op, Expr *a, Expr *b) {
    Expr *e = node(ExprKind::Binary);
    e->binaryOp = op;
    e->operands = {a, b};
    return e;
  }
  Expr *call(Expr *callee, std::vector<Expr *> args) {
    Expr *e = node(ExprKind::Call);
    e->operands = {callee};
    e->args = std::move(args);
    return e;
  }
  Expr *call(const std::string &f, std::vector<Expr *> args) {
    return call(ident(f), std::move(args));
  }
  Expr *castTo(const Type *t, Expr *v) {
    Expr *e = node(ExprKind::Cast);
    e->typeSyntax = typed(t);
    e->operands = {v};
    return e;
  }
  Expr *deref(Expr *p) {
    Expr *e = node(ExprKind::Unary);
    e->unaryOp = UnaryOp::Deref;
    e->operands = {p};
    return e;
  }
  Expr *index(Expr *p, Expr *i) {
    Expr *e = node(ExprKind::Index);
    e->operands = {p, i};
    return e;
  }
  TypeSyntax *typed(const Type *t) {
    auto *ts = tu.make<TypeSyntax>();
    ts->loc = at;
    ts->isAuto = true;
    ts->deduced = t;
    return ts;
  }
  Stmt *expr(Expr *e) {
    Stmt *s = tu.make<Stmt>(StmtKind::Expr);
    s->loc = at;
    s->expr = e;
    return s;
  }
  Stmt *var(const std::string &n, const Type *t, Expr *init) {
    auto *v = tu.make<VarDecl>();
    v->name = n;
    v->loc = at;
    v->typeSyntax = typed(t);
    v->init = init;
    Stmt *s = tu.make<Stmt>(StmtKind::Decl);
    s->loc = at;
    s->decls = {v};
    return s;
  }
};

} // namespace kern::frontend::sema_detail
