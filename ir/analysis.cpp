// Register estimates for the occupancy calculation (see analysis.h for the heuristic).
#include "ir/analysis.h"

#include <algorithm>
#include <functional>
#include <set>

namespace kern::ir {

namespace {

int variableRegisters(const Function &f) {
  int regs = 0;
  for (const Var *v : f.vars) {
    if (v->type.isVoid())
      continue;
    regs += v->type.bits() > 32 ? 2 : 1;
  }
  return regs;
}

void calls(const Block *b, std::set<const Function *> &out);

void callsIn(const Expr *e, std::set<const Function *> &out) {
  if (!e)
    return;
  if (e->kind == ExprKind::Call && e->callee)
    out.insert(e->callee);
  for (const Expr *o : e->ops)
    callsIn(o, out);
}

void calls(const Block *b, std::set<const Function *> &out) {
  if (!b)
    return;
  for (const Stmt *s : b->stmts) {
    for (const Expr *e : {s->value, s->cond, s->addr})
      callsIn(e, out);
    for (const Expr *e : s->args)
      callsIn(e, out);
    for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      calls(c, out);
  }
}

} // namespace

int estimateRegisters(const Function &kernel) {
  std::set<const Function *> seen;
  // Callees' variables count once each, as if inlined; recursion adds nothing more.
  std::function<int(const Function &)> need = [&](const Function &f) {
    if (!seen.insert(&f).second)
      return 0;
    int regs = variableRegisters(f);
    std::set<const Function *> callees;
    calls(f.body, callees);
    int most = 0;
    for (const Function *c : callees)
      most = std::max(most, need(*c));
    return regs + most;
  };
  return std::clamp(16 + need(kernel), 16, 255);
}

} // namespace kern::ir
