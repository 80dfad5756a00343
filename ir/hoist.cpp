// Loop-invariant arithmetic (ir/hoist.h).
#include "ir/hoist.h"

#include "ir/analysis.h"
#include "ir/instruction_mix.h"

#include <set>

namespace kern::ir {

namespace {

using VarSet = std::set<const Var *>;

/// Whether `e` has the same value in every iteration of a loop that assigns `assigned`.
bool invariant(const Expr *e, const VarSet &assigned) {
  switch (e->kind) {
  case ExprKind::VarRef:
    return !assigned.count(e->var);
  case ExprKind::Load:
  case ExprKind::Call:
    return false;
  case ExprKind::Intrinsic:
    if (intrinsicKind(e->intrinsic) != IntrinsicKind::Math)
      return false;
    break;
  default:
    break;
  }
  for (const Expr *o : e->ops)
    if (!invariant(o, assigned))
      return false;
  return true;
}

class Hoisting {
public:
  /// Every loop in `b`, outermost first: each marks what it does not change, and then the loops
  /// inside it mark what they do not change of the rest.
  void walk(Block *b) {
    if (!b)
      return;
    for (Stmt *s : b->stmts) {
      if (s->kind == StmtKind::Loop) {
        loop(*s);
        continue;
      }
      for (Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        walk(c);
    }
  }

private:
  void loop(Stmt &l) {
    if (l.loopShape == LoopShape::Unrolled) {
      // No loop is left on the GPU: each copy of the body computes its own addresses.
      for (Block *c : {l.preCond, l.body, l.step})
        walk(c);
      return;
    }
    VarSet assigned;
    for (const Block *c : {l.preCond, l.body, l.step})
      assignedVars(c, assigned);
    expr(l.cond, l, assigned);
    for (Block *c : {l.preCond, l.body, l.step})
      mark(c, l, assigned);
    for (Block *c : {l.preCond, l.body, l.step})
      walk(c);
  }

  /// The expressions of `b`'s statements, nested blocks included.
  void mark(Block *b, Stmt &l, const VarSet &assigned) {
    if (!b)
      return;
    for (Stmt *s : b->stmts) {
      for (Expr *e : {s->value, s->addr, s->cond})
        expr(e, l, assigned);
      for (Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        mark(c, l, assigned);
    }
  }

  void expr(Expr *e, Stmt &l, const VarSet &assigned) {
    if (!e || e->hoisted)
      return;
    if (invariant(e, assigned) && countOperations(e) > 0) {
      e->hoisted = true;
      l.hoisted.push_back(e);
      return;
    }
    for (Expr *o : e->ops)
      expr(o, l, assigned);
  }
};

} // namespace

void modelHoisting(Module &m) {
  Hoisting h;
  for (Function *f : m.functions)
    if (f->kind != FunctionKind::Host && f->body)
      h.walk(f->body);
}

} // namespace kern::ir
