// Deep copies of AST subtrees (see clone.h). Only syntax is copied: the copies carry no sema
// annotations, since templates are never analysed themselves.
#include "frontend/clone.h"

namespace kern::frontend {

TypeSyntax *Cloner::type(const TypeSyntax *t) {
  if (!t)
    return nullptr;
  TypeSyntax *c = tu_.make<TypeSyntax>(*t);
  c->resolved = nullptr;
  for (TypeOp &op : c->ops) {
    op.size = expr(op.size);
    for (TypeSyntax *&p : op.params)
      p = type(p);
  }
  for (TemplateArg &a : c->templateArgs) {
    a.type = type(a.type);
    a.value = expr(a.value);
  }
  return c;
}

Expr *Cloner::expr(const Expr *e) {
  if (!e)
    return nullptr;
  Expr *c = tu_.make<Expr>(*e);
  for (Expr *&o : c->operands)
    o = expr(o);
  for (Expr *&a : c->args)
    a = expr(a);
  for (Expr *&l : c->launchConfig)
    l = expr(l);
  // `new (p) T[n]` in a template: each instance its own placement (it names the instance's
  // own parameters).
  for (Expr *&p : c->placementArgs)
    p = expr(p);
  c->placement = !e->placementArgs.empty() && e->placement == e->placementArgs[0]
                     ? c->placementArgs[0]
                     : expr(e->placement);
  c->typeSyntax = type(e->typeSyntax);
  c->body = stmt(e->body);
  for (TemplateArg &a : c->templateArgs) {
    a.type = type(a.type);
    a.value = expr(a.value);
  }
  if (e->lambda)
    c->lambda = function(e->lambda);
  for (LambdaCapture &l : c->captures)
    l.init = expr(l.init);
  return c;
}

VarDecl *Cloner::var(const VarDecl *v) {
  VarDecl *c = tu_.make<VarDecl>(*v);
  c->typeSyntax = type(v->typeSyntax);
  c->init = expr(v->init);
  c->type = nullptr;
  return c;
}

Decl *Cloner::decl(const Decl *d) {
  switch (d->kind) {
  case DeclKind::Var:
    return var(static_cast<const VarDecl *>(d));
  case DeclKind::Typedef: {
    auto *c = tu_.make<TypedefDecl>(*static_cast<const TypedefDecl *>(d));
    c->typeSyntax = type(c->typeSyntax);
    c->type = nullptr;
    return c;
  }
  case DeclKind::Struct: {
    auto *c = tu_.make<StructDecl>(*static_cast<const StructDecl *>(d));
    for (auto &f : c->fields) {
      f.typeSyntax = type(f.typeSyntax);
      f.init = expr(f.init);
    }
    for (auto &b : c->bases)
      b.typeSyntax = type(b.typeSyntax);
    for (StructDecl *&n : c->nestedStructs)
      n = static_cast<StructDecl *>(decl(n));
    for (Decl *&e : c->nestedEnums) // each instance defines its own enumerators
      e = decl(e);
    c->type = nullptr;
    return c;
  }
  case DeclKind::Enum: {
    auto *c = tu_.make<EnumDecl>(*static_cast<const EnumDecl *>(d));
    for (auto &en : c->enumerators)
      en.value = expr(en.value);
    return c;
  }
  case DeclKind::Function:
    return function(static_cast<const FunctionDecl *>(d));
  case DeclKind::Using:
    return tu_.make<UsingDecl>(*static_cast<const UsingDecl *>(d));
  case DeclKind::StaticAssert: {
    auto *c = tu_.make<StaticAssertDecl>(*static_cast<const StaticAssertDecl *>(d));
    c->cond = expr(c->cond);
    return c;
  }
  case DeclKind::Unsupported:
    return tu_.make<UnsupportedDecl>(*static_cast<const UnsupportedDecl *>(d));
  }
  return nullptr;
}

Stmt *Cloner::stmt(const Stmt *s) {
  if (!s)
    return nullptr;
  Stmt *c = tu_.make<Stmt>(*s);
  for (Stmt *&b : c->body)
    b = stmt(b);
  for (Decl *&d : c->decls)
    d = decl(d);
  c->expr = expr(s->expr);
  c->cond = expr(s->cond);
  c->init = stmt(s->init);
  c->step = expr(s->step);
  c->then = stmt(s->then);
  c->elseStmt = stmt(s->elseStmt);
  c->caseValue = expr(s->caseValue);
  return c;
}

FunctionDecl *Cloner::function(const FunctionDecl *f) {
  FunctionDecl *c = tu_.make<FunctionDecl>(*f);
  c->returnType = type(f->returnType);
  c->quals.launchBoundsMaxExpr = expr(f->quals.launchBoundsMaxExpr);
  c->quals.launchBoundsMinExpr = expr(f->quals.launchBoundsMinExpr);
  for (VarDecl *&p : c->params)
    p = var(p);
  c->body = stmt(f->body);
  for (FunctionDecl::MemberInit &m : c->memberInits)
    for (Expr *&arg : m.args)
      arg = expr(arg);
  c->templateParams.clear();
  c->type = nullptr;
  c->definition = nullptr;
  return c;
}

} // namespace kern::frontend
