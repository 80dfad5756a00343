// The AST builder's statements: blocks, labels, selection, loops and jumps.
#include "frontend/ast_builder_impl.h"

namespace kern::frontend::builder_detail {

Stmt *Builder::compound(P::CompoundStatementContext *ctx) {
  Stmt *s = makeStmt(StmtKind::Compound, loc(ctx));
  for (auto *item : ctx->blockItem()) {
    if (auto *d = item->declaration()) {
      s->body.push_back(declarationStatement(d));
    } else if (auto *sa = item->staticAssertDeclaration()) {
      Stmt *ds = makeStmt(StmtKind::Decl, loc(sa));
      ds->decls.push_back(staticAssert(sa));
      s->body.push_back(ds);
    } else if (auto *u = item->usingDeclaration()) {
      Stmt *ds = makeStmt(StmtKind::Decl, loc(u));
      if (Decl *d = usingDeclaration(u))
        ds->decls.push_back(d);
      s->body.push_back(ds);
    } else {
      appendStatement(s->body, item->statement());
    }
  }
  return s;
}

void Builder::appendStatement(std::vector<Stmt *> &body, P::StatementContext *ctx) {
  auto *ls = ctx->labeledStatement();
  if (ls && (!ls->Identifier() || ls->labeledBody()->declaration())) {
    // A case label, or a label before a declaration: the label stands alone in the block and
    // what follows it is the block's next item, so a declaration there is the block's.
    Stmt *label = makeStmt(ls->Identifier() ? StmtKind::Label
                                            : (ls->Case() ? StmtKind::Case : StmtKind::Default),
                           loc(ls));
    if (ls->Identifier()) {
      label->name = ls->Identifier()->getText();
      label->then = makeStmt(StmtKind::Expr, loc(ls));
    }
    if (auto *v = ls->conditionalExpression())
      label->caseValue = conditional(v);
    body.push_back(label);
    if (auto *d = ls->labeledBody()->declaration())
      body.push_back(declarationStatement(d));
    else
      appendStatement(body, ls->labeledBody()->statement());
    return;
  }
  body.push_back(statement(ctx));
}

Expr *Builder::condition(P::ConditionContext *ctx, Stmt *&decl) {
  decl = nullptr;
  if (auto *e = ctx->expression())
    return expression(e);
  // `if (T x = e)`: the declaration goes before the statement (withDeclaration), and the
  // condition is x, converted to bool as any condition is.
  decl = makeStmt(StmtKind::Decl, loc(ctx));
  decl->decls = declaration(ctx->declarationSpecifiers(), ctx->initDeclaratorList(), false);
  VarDecl *var = nullptr;
  int vars = 0;
  for (Decl *d : decl->decls)
    if (auto *v = dynamic_cast<VarDecl *>(d)) {
      var = v;
      ++vars;
    }
  if (vars != 1 || !var->init) {
    error(loc(ctx), "a declaration in a condition must declare one variable with an initializer");
    return placeholder(loc(ctx));
  }
  Expr *e = makeExpr(ExprKind::Ident, var->loc);
  e->name = var->name;
  return e;
}

Stmt *Builder::withDeclaration(Stmt *decl, Stmt *s) {
  // The variable of `if (T x = e) ... else ...` is in scope in both branches and ends with the
  // statement: a block around the two.
  if (!decl)
    return s;
  Stmt *block = makeStmt(StmtKind::Compound, s->loc);
  block->body = {decl, s};
  return block;
}

Stmt *Builder::declarationStatement(P::DeclarationContext *d) {
  Stmt *ds = makeStmt(StmtKind::Decl, loc(d));
  ds->decls = declaration(d->declarationSpecifiers(), d->initDeclaratorList(), false);
  return ds;
}

Stmt *Builder::statement(P::StatementContext *ctx) {
  if (auto *c = ctx->compoundStatement())
    return compound(c);
  if (auto *ls = ctx->labeledStatement()) {
    StmtKind k =
        ls->Identifier() ? StmtKind::Label : (ls->Case() ? StmtKind::Case : StmtKind::Default);
    Stmt *s = makeStmt(k, loc(ls));
    if (ls->Identifier())
      s->name = ls->Identifier()->getText();
    if (auto *v = ls->conditionalExpression())
      s->caseValue = conditional(v);
    if (auto *d = ls->labeledBody()->declaration()) {
      // Alone as a sub-statement (`if (c) L: int x;`), the declaration is its own block.
      Stmt *block = makeStmt(StmtKind::Compound, loc(d));
      block->body.push_back(declarationStatement(d));
      s->then = block;
    } else {
      s->then = statement(ls->labeledBody()->statement());
    }
    return s;
  }
  if (auto *es = ctx->expressionStatement()) {
    Stmt *s = makeStmt(StmtKind::Expr, loc(es));
    if (auto *e = es->expression())
      s->expr = expression(e);
    return s;
  }
  if (auto *is = ctx->ifStatement()) {
    Stmt *s = makeStmt(StmtKind::If, loc(is));
    Stmt *decl = nullptr;
    s->cond = condition(is->condition(), decl);
    auto stmts = is->statement();
    s->then = statement(stmts[0]);
    if (stmts.size() > 1)
      s->elseStmt = statement(stmts[1]);
    return withDeclaration(decl, s);
  }
  if (auto *ss = ctx->switchStatement()) {
    Stmt *s = makeStmt(StmtKind::Switch, loc(ss));
    Stmt *decl = nullptr;
    s->cond = condition(ss->condition(), decl);
    s->then = statement(ss->statement());
    return withDeclaration(decl, s);
  }
  if (auto *ws = ctx->whileStatement()) {
    Stmt *decl = nullptr;
    Expr *cond = condition(ws->condition(), decl);
    if (decl) {
      // `while (T x = e) body`: x is made again before each test and destroyed after each
      // pass, as C++ says: `for (;;) { T x = e; if (x) {} else break; body }`.
      Stmt *test = makeStmt(StmtKind::If, loc(ws));
      test->cond = cond;
      test->then = makeStmt(StmtKind::Compound, loc(ws));
      test->elseStmt = makeStmt(StmtKind::Break, loc(ws));
      Stmt *pass = makeStmt(StmtKind::Compound, loc(ws));
      pass->body = {decl, test, statement(ws->statement())};
      Stmt *s = makeStmt(StmtKind::For, loc(ws));
      s->then = pass;
      return s;
    }
    Stmt *s = makeStmt(StmtKind::While, loc(ws));
    s->cond = cond;
    s->then = statement(ws->statement());
    return s;
  }
  if (auto *ds = ctx->doStatement()) {
    Stmt *s = makeStmt(StmtKind::DoWhile, loc(ds));
    s->then = statement(ds->statement());
    s->cond = expression(ds->expression());
    return s;
  }
  if (auto *fs = ctx->forStatement())
    return forStatement(fs);
  if (auto *js = ctx->jumpStatement()) {
    if (js->Goto()) {
      Stmt *s = makeStmt(StmtKind::Goto, loc(js));
      s->name = js->Identifier()->getText();
      return s;
    }
    if (js->Continue())
      return makeStmt(StmtKind::Continue, loc(js));
    if (js->Break())
      return makeStmt(StmtKind::Break, loc(js));
    Stmt *s = makeStmt(StmtKind::Return, loc(js));
    if (auto *e = js->expression()) {
      s->expr = expression(e);
    } else if (js->LeftBrace()) {
      s->expr = makeExpr(ExprKind::InitList, loc(js->LeftBrace()));
      if (auto *il = js->initializerList())
        initializerList(il, s->expr);
    }
    return s;
  }
  if (auto *ts = ctx->tryStatement()) {
    Stmt *s = makeStmt(StmtKind::Try, loc(ts));
    s->then = compound(ts->compoundStatement());
    for (auto *h : ts->handler()) {
      Stmt *c = makeStmt(StmtKind::Catch, loc(h));
      if (auto *pd = h->parameterDeclaration()) {
        VarDecl *v = parameter(pd);
        v->isParam = false;
        c->decls.push_back(v);
      }
      c->then = compound(h->compoundStatement());
      s->body.push_back(c);
    }
    return s;
  }
  if (auto *th = ctx->throwStatement()) {
    Stmt *s = makeStmt(StmtKind::Throw, loc(th));
    if (auto *e = th->expression())
      s->expr = expression(e);
    return s;
  }
  auto *us = ctx->unsupportedStatement();
  error(loc(us), "inline PTX (asm) is not supported");
  return makeStmt(StmtKind::Expr, loc(us));
}

StaticAssertDecl *Builder::staticAssert(P::StaticAssertDeclarationContext *ctx) {
  auto *d = tu_.make<StaticAssertDecl>();
  d->loc = loc(ctx->conditionalExpression()); // where clang reports a failed assertion
  d->cond = conditional(ctx->conditionalExpression());
  if (!ctx->StringLiteral().empty()) {
    d->hasMessage = true;
    d->message = stringLiteral(ctx->StringLiteral())->stringValue;
  }
  return d;
}

Stmt *Builder::forStatement(P::ForStatementContext *ctx) {
  if (auto *rd = ctx->forRangeDeclaration()) {
    Stmt *s = makeStmt(StmtKind::RangeFor, loc(ctx));
    Specs sp = specs(rd->declarationSpecifiers(), true);
    DeclInfo d = declarator(rd->declarator(), false);
    s->init = makeStmt(StmtKind::Decl, loc(rd));
    s->init->decls = sp.definitions;
    if (d.isFunction) {
      error(d.loc, "a range-based for loop must declare a variable");
    } else {
      auto *v = tu_.make<VarDecl>();
      v->name = d.name;
      v->loc = d.loc;
      v->quals = sp.quals;
      v->typeSyntax = tu_.make<TypeSyntax>(sp.base);
      v->typeSyntax->ops = d.ops;
      s->init->decls.push_back(v);
    }
    s->expr = expression(ctx->range);
    s->then = statement(ctx->statement());
    return s;
  }
  Stmt *s = makeStmt(StmtKind::For, loc(ctx));
  if (auto *fi = ctx->forInit()) {
    if (auto *e = fi->expression()) {
      s->init = makeStmt(StmtKind::Expr, loc(fi));
      s->init->expr = expression(e);
    } else {
      s->init = makeStmt(StmtKind::Decl, loc(fi));
      s->init->decls = declaration(fi->declarationSpecifiers(), fi->initDeclaratorList(), false);
    }
  }
  if (ctx->cond)
    s->cond = expression(ctx->cond);
  if (ctx->step)
    s->step = expression(ctx->step);
  s->then = statement(ctx->statement());
  return s;
}

} // namespace kern::frontend::builder_detail
