// Deep copies of AST subtrees, for template instantiation: each instantiation of a function
// template is a copy of its declaration that sema then annotates on its own.
#pragma once

#include "frontend/ast.h"

namespace kern::frontend {

class Cloner {
public:
  explicit Cloner(TranslationUnit &tu) : tu_(tu) {}
  FunctionDecl *function(const FunctionDecl *f);
  Expr *expr(const Expr *e);
  Stmt *stmt(const Stmt *s);
  TypeSyntax *type(const TypeSyntax *t);
  Decl *decl(const Decl *d);

private:
  TranslationUnit &tu_;
  VarDecl *var(const VarDecl *v);
};

} // namespace kern::frontend
