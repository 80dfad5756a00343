// C++ exceptions of host code. Sema rewrites `try`, `catch` and `throw` into plain statements
// over kern's setjmp (frontend/headers/posix/setjmp.h) and a few calls of the runtime
// (runtime/host_exceptions.cpp), which keeps each thread's try blocks and its exceptions:
//
//   try { B }                      { unsigned long long try.N[2];
//   catch (const E &e) { H1 }        if (__kern_setjmp(try.N) == 0) {
//   catch (...) { H2 }                 { __kern_try_push(try.N); B }      // pops on every way out
//                                    } else {
//                                      void *caught.N;
//                                      if ((caught.N = __kern_catch("E")) != 0) {
//                                        { const E &e = *(E *)caught.N; H1 }  // ends the catch on
//                                      } else if ((caught.N = __kern_catch("")) != 0) { // every
//                                        { H2 }                                  // way out
//                                      } else __kern_catch_none(); } }
//
//   throw x;                       { T *thrown.N = new T(x);
//                                    __kern_throw(thrown.N, "<T and its bases>", thrown.N->what());
//                                    }
//   throw;                         __kern_rethrow();
//
// T is x's type after the decays (an array gives a pointer); the string names T and every
// type a handler may catch it as, with the offset of that subobject ("std::exception@0"), so
// that `catch (Base &b)` finds a Derived. what() is taken for an object of a class derived from
// std::exception, for the message of an exception no handler catches. Leaving frames by an
// exception runs no destructors of their locals (as longjmp does not); docs/cxx.md.
#include "frontend/sema_impl.h"

namespace kern::frontend::sema_detail {

namespace {

/// How libstdc++'s demangler spells a type in "terminate called after throwing an instance of".
std::string displayName(const Type *t) {
  if (t->isPointer())
    return displayName(t->elem) + (t->pointeeConst ? " const*" : "*");
  if (t->isStruct())
    return t->record->name;
  return t->str();
}

/// The name a handler's type and a thrown type meet by: a class by its name, a pointer by its
/// pointee's (const or not: `catch (const char *)` takes a `char *`), anything else as C
/// spells it.
std::string matchKey(const Type *t) {
  if (t->isPointer())
    return matchKey(t->elem) + "*";
  if (t->isStruct())
    return t->record->name;
  return t->str();
}

/// `t` and its base classes, each with its subobject's offset (the first of a base met twice).
void classKeys(const Type *t, uint64_t offset, const std::string &suffix, std::string &out) {
  const std::string line = matchKey(t) + suffix + "@";
  if (out.find("\n" + line) == std::string::npos)
    out += "\n" + line + std::to_string(offset);
  for (const StructBase &b : t->record->bases)
    classKeys(b.type, offset + b.offset, suffix, out);
}

bool derivesFrom(const Type *t, const std::string &name) {
  if (!t->isStruct())
    return false;
  if (t->record->name == name)
    return true;
  for (const StructBase &b : t->record->bases)
    if (derivesFrom(b.type, name))
      return true;
  return false;
}

} // namespace

Expr *Sema::exceptionName(const std::string &n, SourceLoc at) {
  Expr *e = make(ExprKind::Ident, at);
  e->name = n;
  return e;
}

Expr *Sema::exceptionCall(const char *builtin, std::vector<Expr *> args, SourceLoc at) {
  Expr *c = make(ExprKind::Call, at);
  c->operands = {exceptionName(builtin, at)};
  c->args = std::move(args);
  return c;
}

Stmt *Sema::exceptionStatement(Expr *e) {
  Stmt *s = tu_.make<Stmt>(StmtKind::Expr);
  s->loc = e->loc;
  s->expr = e;
  return s;
}

bool Sema::exceptionsAllowed(SourceLoc at, const char *what) {
  if (side_ == Side::Host)
    return true;
  error(at, std::string("cannot use '") + what + "' in " + sideName() +
                " (exceptions are host code only)");
  return false;
}

void Sema::throwStmt(Stmt *s) {
  if (!exceptionsAllowed(s->loc, "throw"))
    return;
  const SourceLoc at = s->loc;
  if (!s->expr) { // `throw;`: the exception being handled, again
    *s = *exceptionStatement(exceptionCall("__kern_rethrow", {}, at));
    stmt(s);
    return;
  }
  if (!check(s->expr))
    return;
  const Type *t = s->expr->type;
  if (t->isReference)
    t = t->elem;
  if (t->isArray())
    t = types_.pointerTo(t->elem, AddrSpace::Generic, true);
  else if (t->isFunction())
    t = types_.pointerTo(t);
  if (t->isVoid()) {
    error(s->expr->loc, "cannot throw an expression of type 'void'");
    return;
  }
  // What a handler may catch it as: the type, and for a class (or a pointer to one) its bases.
  std::string table = std::string(t->isStruct()    ? "C"
                                  : t->isPointer() ? "P"
                                                   : "V") +
                      displayName(t);
  if (t->isStruct())
    classKeys(t, 0, "", table);
  else if (t->isPointer() && t->elem->isStruct())
    classKeys(t->elem, 0, "*", table);
  else
    table += "\n" + matchKey(t) + "@0";
  const std::string name = "thrown." + std::to_string(++exceptionCount_);
  auto *v = tu_.make<VarDecl>();
  v->name = name;
  v->loc = at;
  v->typeSyntax = tu_.make<TypeSyntax>();
  v->typeSyntax->loc = at;
  v->typeSyntax->isAuto = true;
  v->typeSyntax->deduced = types_.pointerTo(t);
  Expr *made = make(ExprKind::New, at);
  made->typeSyntax = tu_.make<TypeSyntax>();
  made->typeSyntax->loc = at;
  made->typeSyntax->isAuto = true;
  made->typeSyntax->deduced = t;
  made->args = {s->expr};
  made->newInit = 1;
  v->init = made;
  Stmt *decl = tu_.make<Stmt>(StmtKind::Decl);
  decl->loc = at;
  decl->decls = {v};
  Expr *tableText = make(ExprKind::StringLit, at);
  tableText->stringValue = table;
  Expr *what = make(ExprKind::IntLit, at);
  what->text = "0";
  if (derivesFrom(t, "std::exception")) {
    Expr *m = make(ExprKind::Member, at);
    m->name = "what";
    m->isArrow = true;
    m->operands = {exceptionName(name, at)};
    what = make(ExprKind::Call, at);
    what->operands = {m};
  }
  Stmt *outer = tu_.make<Stmt>(StmtKind::Compound);
  outer->loc = at;
  outer->body = {decl, exceptionStatement(exceptionCall(
                           "__kern_throw", {exceptionName(name, at), tableText, what}, at))};
  *s = *outer;
  stmt(s);
}

void Sema::tryStmt(Stmt *s) {
  if (!exceptionsAllowed(s->loc, "try"))
    return;
  const SourceLoc at = s->loc;
  const std::string n = std::to_string(++exceptionCount_);
  const std::string frame = "try." + n, caught = "caught." + n;
  auto declare = [&](const std::string &name, std::vector<std::string> keywords, TypeOp op,
                     Expr *init) {
    auto *v = tu_.make<VarDecl>();
    v->name = name;
    v->loc = at;
    v->typeSyntax = tu_.make<TypeSyntax>();
    v->typeSyntax->loc = at;
    v->typeSyntax->keywords = std::move(keywords);
    v->typeSyntax->ops = {op};
    v->init = init;
    Stmt *d = tu_.make<Stmt>(StmtKind::Decl);
    d->loc = at;
    d->decls = {v};
    return d;
  };
  auto compound = [&](std::vector<Stmt *> body, const char *exit, const std::string &arg) {
    Stmt *c = tu_.make<Stmt>(StmtKind::Compound);
    c->loc = at;
    c->body = std::move(body);
    c->scopeExit = exit;
    c->scopeExitArg = arg;
    return c;
  };
  TypeOp array;
  array.kind = TypeOp::Kind::Array;
  array.size = make(ExprKind::IntLit, at);
  array.size->text = "2";
  array.size->intValue = 2;
  TypeOp pointer;
  // The try block: entered once setjmp has filled the frame, left (popped) on every way out.
  Stmt *body = compound(
      {exceptionStatement(exceptionCall("__kern_try_push", {exceptionName(frame, at)}, at)),
       s->then},
      "__kern_try_pop", frame);
  // The handlers, in order; none taking the exception sends it on.
  Stmt *chain = exceptionStatement(exceptionCall("__kern_catch_none", {}, at));
  for (size_t i = s->body.size(); i-- > 0;) {
    Stmt *c = s->body[i];
    VarDecl *param = c->decls.empty() ? nullptr : static_cast<VarDecl *>(c->decls[0]);
    if (!param && i + 1 != s->body.size())
      error(c->loc, "catch (...) must be the last handler of its try block");
    std::string key;
    std::vector<Stmt *> handler;
    if (param) {
      const Type *t = resolve(param->typeSyntax);
      if (!t)
        continue;
      const Type *caughtType = t->isReference ? t->elem : t;
      if (caughtType->isArray())
        caughtType = types_.pointerTo(caughtType->elem);
      if (caughtType->isStruct() && !caughtType->record->complete) {
        error(param->loc, "cannot catch an incomplete type '" + caughtType->str() + "'");
        continue;
      }
      key = matchKey(caughtType);
      // The parameter, bound to (or copied from) the exception object.
      Expr *cast = make(ExprKind::Cast, c->loc);
      cast->typeSyntax = tu_.make<TypeSyntax>();
      cast->typeSyntax->loc = c->loc;
      cast->typeSyntax->isAuto = true;
      cast->typeSyntax->deduced = types_.pointerTo(caughtType);
      cast->operands = {exceptionName(caught, c->loc)};
      Expr *object = make(ExprKind::Unary, c->loc);
      object->unaryOp = UnaryOp::Deref;
      object->operands = {cast};
      param->init = object;
      if (param->name.empty())
        param->name = "catch." + n + "." + std::to_string(i);
      Stmt *d = tu_.make<Stmt>(StmtKind::Decl);
      d->loc = param->loc;
      d->decls = {param};
      handler.push_back(d);
    }
    handler.push_back(c->then);
    Expr *keyText = make(ExprKind::StringLit, c->loc);
    keyText->stringValue = key;
    Expr *assign = make(ExprKind::Binary, c->loc);
    assign->binaryOp = BinaryOp::Assign;
    assign->operands = {exceptionName(caught, c->loc),
                        exceptionCall("__kern_catch", {keyText}, c->loc)};
    Expr *zero = make(ExprKind::IntLit, c->loc);
    zero->text = "0";
    Stmt *test = tu_.make<Stmt>(StmtKind::If);
    test->loc = c->loc;
    test->cond = make(ExprKind::Binary, c->loc);
    test->cond->binaryOp = BinaryOp::Ne;
    test->cond->operands = {assign, zero};
    test->then = compound(std::move(handler), "__kern_catch_end", "");
    test->elseStmt = chain;
    chain = test;
  }
  Stmt *handlers = compound({declare(caught, {"void"}, pointer, nullptr), chain}, "", "");
  Expr *zero = make(ExprKind::IntLit, at);
  zero->text = "0";
  Stmt *entered = tu_.make<Stmt>(StmtKind::If);
  entered->loc = at;
  entered->cond = make(ExprKind::Binary, at);
  entered->cond->binaryOp = BinaryOp::Eq;
  entered->cond->operands = {exceptionCall("__kern_setjmp", {exceptionName(frame, at)}, at), zero};
  entered->then = body;
  entered->elseStmt = handlers;
  Stmt *outer =
      compound({declare(frame, {"unsigned", "long", "long"}, array, nullptr), entered}, "", "");
  *s = *outer;
  stmt(s);
}

} // namespace kern::frontend::sema_detail
