// Store sinking (see sink.h).
#include "ir/sink.h"

#include "ir/analysis.h"

#include <algorithm>
#include <set>

namespace kern::ir {

namespace {

/// Whether `e` calls anything (a function or an intrinsic): such an address is left alone.
bool calls(const Expr *e) {
  if (e->kind == ExprKind::Call || e->kind == ExprKind::Intrinsic)
    return true;
  for (const Expr *o : e->ops)
    if (calls(o))
      return true;
  return false;
}

class Sinker {
public:
  Sinker(Module &m, Function &f) : m_(m), f_(f) {}

  void run(Block *b) {
    if (!b)
      return;
    for (size_t i = 0; i < b->stmts.size(); ++i) {
      Stmt *s = b->stmts[i];
      for (Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        run(c);
      if (Stmt *sunk = sink(s))
        b->stmts.insert(b->stmts.begin() + static_cast<std::ptrdiff_t>(++i), sunk);
    }
  }

private:
  Module &m_;
  Function &f_;

  /// The store after `s`, if `s` is such an `if` (its sides then end by assigning the value).
  Stmt *sink(Stmt *s) {
    if (s->kind != StmtKind::If || !s->thenBody || !s->elseBody || s->thenBody->stmts.empty() ||
        s->elseBody->stmts.empty())
      return nullptr;
    Stmt *a = s->thenBody->stmts.back(), *b = s->elseBody->stmts.back();
    if (a->kind != StmtKind::Store || b->kind != StmtKind::Store || a->space != b->space ||
        a->slot != b->slot || !(a->value->type == b->value->type) || !sameExpr(a->addr, b->addr) ||
        calls(a->addr))
      return nullptr;
    std::set<const Var *> read, written;
    readVars(a->addr, read);
    assignedVars(s->thenBody, written);
    assignedVars(s->elseBody, written);
    for (const Var *v : read)
      if (written.count(v))
        return nullptr;
    Var *t = m_.make<Var>();
    t->id = nextVarId();
    t->name = "sunk";
    t->type = a->value->type;
    f_.vars.push_back(t);
    for (Stmt *side : {a, b}) {
      Stmt *assign = m_.make<Stmt>(StmtKind::Assign);
      assign->loc = side->loc;
      assign->var = t;
      assign->value = side->value;
      (side == a ? s->thenBody : s->elseBody)->stmts.back() = assign;
    }
    Expr *ref = m_.make<Expr>(ExprKind::VarRef, t->type);
    ref->var = t;
    a->value = ref;
    return a;
  }

  uint32_t nextVarId() const {
    uint32_t n = 0;
    for (const Var *v : f_.vars)
      n = std::max(n, v->id + 1);
    return n;
  }
};

} // namespace

void sinkCommonStores(Module &m) {
  for (Function *f : m.functions)
    if (f->kind != FunctionKind::Host && f->body)
      Sinker(m, *f).run(f->body);
}

} // namespace kern::ir
