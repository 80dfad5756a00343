// Lambdas, as C++ defines them: a lambda expression is a value of an unnamed struct (its
// closure) whose members are what it captures and whose `operator()` is its body. Sema makes
// exactly that struct and member function, so the rest of kern sees an ordinary object and an
// ordinary member call:
//
//   int k = 3;                      struct __lambda_1 { int k; float *__ref_sum;
//   auto f = [k, &sum](int x) {       float operator()(int x) const { (*__ref_sum) += x * k; } };
//     sum += x * k;                 auto f = (__lambda_1){k, &sum};
//   };
//
// A copy is a member of the variable's type; a reference is a pointer member that the body
// dereferences where it names the variable. `[&]` and `[=]` capture the enclosing function's
// local variables (parameters included) that the body names.
#include "frontend/sema_impl.h"

#include <set>

namespace kern::frontend::sema_detail {

namespace {

/// The names a lambda's body uses that it does not declare itself, in order of first use;
/// `rewrite` replaces such uses of the names given with `(*__ref_name)`.
class FreeNames {
public:
  FreeNames(TranslationUnit &tu, const std::set<std::string> *rewrite)
      : tu_(tu), rewrite_(rewrite) {}

  std::vector<std::string> names;

  void function(FunctionDecl *f) {
    push();
    for (VarDecl *p : f->params)
      declare(p->name);
    for (Stmt *s : f->body->body)
      stmt(s);
    pop();
  }

private:
  TranslationUnit &tu_;
  const std::set<std::string> *rewrite_;
  std::vector<std::set<std::string>> scopes_;
  std::set<std::string> seen_;

  void push() { scopes_.emplace_back(); }
  void pop() { scopes_.pop_back(); }
  void declare(const std::string &n) {
    if (!n.empty())
      scopes_.back().insert(n);
  }
  bool declared(const std::string &n) const {
    for (auto &s : scopes_)
      if (s.count(n))
        return true;
    return false;
  }

  void stmt(Stmt *s) {
    if (!s)
      return;
    switch (s->kind) {
    case StmtKind::Compound:
      push();
      for (Stmt *b : s->body)
        stmt(b);
      pop();
      return;
    case StmtKind::Decl:
      for (Decl *d : s->decls)
        if (auto *v = dynamic_cast<VarDecl *>(d)) {
          expr(v->init);
          declare(v->name);
        }
      return;
    case StmtKind::Catch: // its parameter is a name of the handler
      push();
      for (Decl *d : s->decls)
        declare(static_cast<VarDecl *>(d)->name);
      stmt(s->then);
      pop();
      return;
    case StmtKind::For:
    case StmtKind::RangeFor:
      push();
      stmt(s->init);
      expr(s->cond);
      expr(s->step);
      expr(s->expr);
      stmt(s->then);
      pop();
      return;
    default:
      expr(s->expr);
      expr(s->cond);
      expr(s->caseValue);
      expr(s->step);
      stmt(s->init);
      stmt(s->then);
      stmt(s->elseStmt);
      for (Stmt *b : s->body)
        stmt(b);
      return;
    }
  }

  void expr(Expr *&e) {
    if (!e)
      return;
    if (e->kind == ExprKind::Ident && e->name.find("::") == std::string::npos &&
        !declared(e->name)) {
      if (seen_.insert(e->name).second)
        names.push_back(e->name);
      if (rewrite_ && rewrite_->count(e->name)) {
        Expr *ref = tu_.make<Expr>(ExprKind::Ident);
        ref->loc = e->loc;
        ref->name = "__ref_" + e->name;
        Expr *deref = tu_.make<Expr>(ExprKind::Unary);
        deref->loc = e->loc;
        deref->unaryOp = UnaryOp::Deref;
        deref->operands = {ref};
        e = deref;
      }
      return;
    }
    if (e->kind == ExprKind::Lambda) {
      // A lambda inside: what it captures by name is used here.
      for (LambdaCapture &c : e->captures) {
        if (!declared(c.name) && seen_.insert(c.name).second)
          names.push_back(c.name);
        expr(c.init);
      }
      return;
    }
    for (Expr *&o : e->operands)
      expr(o);
    for (Expr *&a : e->args)
      expr(a);
    for (Expr *&l : e->launchConfig)
      expr(l);
    if (e->body) {
      push();
      for (Stmt *b : e->body->body)
        stmt(b);
      pop();
    }
  }
};

} // namespace

void Sema::lambda(Expr *e) {
  FunctionDecl *op = e->lambda;
  if (!fn_) {
    error(e->loc, "a lambda outside a function is not supported");
    return;
  }
  // What it captures: the explicit list, then (with a default) the enclosing function's local
  // variables that the body names.
  struct Capture {
    std::string name;
    bool byReference;
    Expr *value; // `x` or `&x` (or the init of `x = init`), checked here
  };
  std::vector<Capture> captures;
  std::set<std::string> named;
  for (LambdaCapture &c : e->captures) {
    if (!named.insert(c.name).second) {
      error(c.loc, "'" + c.name + "' is captured twice");
      return;
    }
    if (c.name == "this") {
      error(c.loc, "capturing 'this' in a lambda is not supported");
      return;
    }
    Expr *v = c.init;
    if (!v) {
      auto *local = dynamic_cast<VarDecl *>(lookupLocal(c.name));
      if (!local || local->quals.isStatic) {
        error(c.loc, "'" + c.name + "' cannot be captured: it is not a local variable");
        return;
      }
      v = make(ExprKind::Ident, c.loc);
      v->name = c.name;
    }
    captures.push_back({c.name, c.byReference, v});
  }
  FreeNames uses(tu_, nullptr);
  uses.function(op);
  if (e->captureDefault)
    for (const std::string &n : uses.names) {
      auto *local = dynamic_cast<VarDecl *>(lookupLocal(n));
      if (named.count(n) || !local || local->quals.isStatic || local->quals.shared)
        continue;
      Expr *v = make(ExprKind::Ident, e->loc);
      v->name = n;
      captures.push_back({n, e->captureDefault == '&', v});
      named.insert(n);
    }
  std::set<std::string> byReference;
  for (Capture &c : captures) {
    if (c.byReference) {
      byReference.insert(c.name);
      Expr *addr = make(ExprKind::Unary, c.value->loc);
      addr->unaryOp = UnaryOp::AddrOf;
      addr->operands = {c.value};
      c.value = addr;
    }
    if (!check(c.value))
      return;
  }
  FreeNames rewrite(tu_, &byReference);
  rewrite.function(op);

  // A parameter or result type that names the enclosing function's variables
  // (`decltype(best) p`, `-> decltype(scale)`) is read here, where the lambda is written: the
  // body's scope below does not see them.
  auto resolveHere = [&](TypeSyntax *&written) {
    if (!written || !written->decltypeExpr)
      return true;
    const Type *t = resolve(written);
    if (!t)
      return false;
    auto *ts = tu_.make<TypeSyntax>();
    ts->loc = written->loc;
    ts->isAuto = true;
    ts->deduced = t;
    written = ts;
    return true;
  };
  for (VarDecl *p : op->params)
    if (!resolveHere(p->typeSyntax))
      return;
  if (!resolveHere(op->returnType))
    return;

  // The closure: a struct at namespace scope (named in the enclosing namespace or struct, so
  // that the body finds the names the enclosing function finds).
  auto *sd = tu_.make<StructDecl>();
  std::string base = "__lambda_" + std::to_string(++lambdaCount_);
  sd->name = ns_.empty() ? base : ns_ + "::" + base;
  sd->loc = e->loc;
  sd->isDefinition = true;
  for (Capture &c : captures) {
    auto *ts = tu_.make<TypeSyntax>();
    ts->loc = c.value->loc;
    ts->isAuto = true;
    ts->deduced = rvalue(c.value)->type;
    if (c.value->type->isArray() && !c.byReference)
      ts->deduced = c.value->type; // an array is copied whole
    sd->fields.push_back({c.value->loc, c.byReference ? "__ref_" + c.name : c.name, ts});
  }
  if (sd->fields.empty()) { // an empty class still has a size of one byte in C++
    auto *ts = tu_.make<TypeSyntax>();
    ts->keywords = {"char"};
    sd->fields.push_back({e->loc, "__unused", ts});
  }

  Scope *savedScope = scope_;
  FunctionDecl *savedFn = fn_;
  Side savedSide = side_;
  std::string savedNs = ns_;
  int savedLoop = loopDepth_, savedSwitch = switchDepth_;
  // The body sees the types and constants around it (a template's parameters among them) but
  // not the enclosing function's variables: those it reaches through its captures.
  scopes_.emplace_back();
  Scope &around = scopes_.back();
  around.parent = &fileScope_;
  for (Scope *s = scope_; s && s != &fileScope_; s = s->parent) {
    around.typedefs.insert(s->typedefs.begin(), s->typedefs.end());
    around.structs.insert(s->structs.begin(), s->structs.end());
    around.enumerators.insert(s->enumerators.begin(), s->enumerators.end());
  }
  scope_ = &fileScope_;
  const Type *closure = defineStruct(sd);
  sd->type = closure;
  scope_ = &around;

  op->name = sd->name + "::operator()";
  op->ns = sd->name;
  op->owner = sd;
  op->quals.isInline = true;
  if (!op->quals.device && !op->quals.host) {
    // Where it is written: device code makes device lambdas; host code, host ones (an
    // extended lambda says `__device__` to be called from a kernel).
    op->quals.device = savedSide != Side::Host;
    op->quals.host = savedSide != Side::Device;
  }
  if (!op->returnType) {
    op->deducesReturnType = true;
    op->returnType = tu_.make<TypeSyntax>();
    op->returnType->loc = op->loc;
    op->returnType->isAuto = true;
    op->returnType->deduced = types_.voidTy();
  }
  sd->methods.push_back(op);
  instances_.insert(op); // analysed here, lowered with the rest
  tu_.decls.push_back(op);
  unsigned before = diags_.errorCount();
  ns_ = op->ns;
  fn_ = nullptr;
  loopDepth_ = switchDepth_ = 0;
  function(op);
  scope_ = savedScope;
  fn_ = savedFn;
  side_ = savedSide;
  ns_ = savedNs;
  loopDepth_ = savedLoop;
  switchDepth_ = savedSwitch;
  if (diags_.errorCount() != before)
    return;

  // The value: the closure made from the captures, `(__lambda_1){k, &sum}`.
  auto *ts = tu_.make<TypeSyntax>();
  ts->loc = e->loc;
  ts->isAuto = true;
  ts->deduced = closure;
  Expr *list = make(ExprKind::InitList, e->loc);
  for (Capture &c : captures)
    list->operands.push_back(c.value);
  e->kind = ExprKind::Cast;
  e->typeSyntax = ts;
  e->operands = {list};
  e->lambda = nullptr;
  e->captures.clear();
  checkExpr(e);
}

void Sema::deduceReturnType(Expr *value) {
  fn_->deducesReturnType = false;
  const Type *t = types_.voidTy();
  if (value && check(value)) {
    t = rvalue(value)->type;
    if (t->isArray())
      t = types_.pointerTo(t->elem, defaultSpace());
  }
  fn_->returnType->deduced = t;
  fn_->type = types_.function(t, fn_->type->params, fn_->type->variadic);
}

} // namespace kern::frontend::sema_detail
