// Address spaces of loads and stores through pointer variables (see spaces.h).
//
// A lattice per pointer variable: unknown (no assignment seen yet), one space (Shared or
// Global), or generic. A variable's value is the meet of what its assignments give; an
// assignment of `w + offset` gives w's value, so the iteration starts from unknown and lowers
// values until nothing changes (a pointer advanced in a loop, `p = p + 1`, keeps its space).
// Constant memory is left alone: its accesses are counted by other rules than a generic
// access that reaches it.
#include "ir/spaces.h"

#include <map>

namespace kern::ir {

namespace {

enum class Known : uint8_t { Unknown, Shared, Global, Generic };

Known fromSpace(AddrSpace s) {
  switch (s) {
  case AddrSpace::Shared:
    return Known::Shared;
  case AddrSpace::Global:
    return Known::Global;
  default:
    return Known::Generic;
  }
}

Known meet(Known a, Known b) {
  if (a == Known::Unknown)
    return b;
  if (b == Known::Unknown)
    return a;
  return a == b ? a : Known::Generic;
}

class Spaces {
public:
  explicit Spaces(Function &f) : f_(f) {}

  void run() {
    for (Var *v : f_.vars)
      if (v->type.isPtr() && !v->isParam)
        known_[v] = Known::Unknown;
    collect(f_.body);
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto &[v, values] : assignments_) {
        Known k = Known::Unknown;
        for (const Expr *e : values)
          k = meet(k, root(e));
        if (k != known_[v]) {
          known_[v] = k;
          changed = true;
        }
      }
    }
    rewrite(f_.body);
  }

private:
  /// What the address `e` points into, from its base (pointer additions and casts stripped).
  Known root(const Expr *e) const {
    while (e->kind == ExprKind::PtrAdd ||
           (e->kind == ExprKind::Cast && e->ops[0]->type.isPtr() && e->type.isPtr()))
      e = e->ops[0];
    if (e->kind == ExprKind::SharedAddr)
      return Known::Shared;
    if (e->kind == ExprKind::VarRef) {
      auto it = known_.find(e->var);
      if (it != known_.end())
        return it->second;
    }
    return e->type.isPtr() ? fromSpace(e->type.space) : Known::Generic;
  }

  void collect(const Block *b) {
    if (!b)
      return;
    for (const Stmt *s : b->stmts) {
      if (s->var && known_.count(s->var)) {
        if (s->kind == StmtKind::Assign)
          assignments_[s->var].push_back(s->value);
        else
          known_.erase(s->var); // set by the runtime (host statements only)
      }
      for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        collect(c);
    }
    // Variables assigned by a statement other than Assign lost their entry above; their
    // assignments, if any, no longer matter.
    for (auto it = assignments_.begin(); it != assignments_.end();)
      it = known_.count(it->first) ? std::next(it) : assignments_.erase(it);
  }

  static AddrSpace toSpace(Known k) {
    return k == Known::Shared   ? AddrSpace::Shared
           : k == Known::Global ? AddrSpace::Global
                                : AddrSpace::Generic;
  }

  void expr(Expr *e) {
    if (!e)
      return;
    for (Expr *o : e->ops)
      expr(o);
    if (e->kind == ExprKind::Load && e->space == AddrSpace::Generic)
      e->space = toSpace(root(e->ops[0]));
  }

  void rewrite(Block *b) {
    if (!b)
      return;
    for (Stmt *s : b->stmts) {
      for (Expr *e : {s->value, s->addr, s->cond, s->format})
        expr(e);
      for (Expr *e : s->args)
        expr(e);
      if (s->kind == StmtKind::Store && s->space == AddrSpace::Generic)
        s->space = toSpace(root(s->addr));
      for (Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        rewrite(c);
    }
  }

  Function &f_;
  std::map<const Var *, Known> known_;
  std::map<const Var *, std::vector<const Expr *>> assignments_;
};

} // namespace

void refineAddressSpaces(Module &m) {
  for (Function *f : m.functions)
    if (f->kind != FunctionKind::Host)
      Spaces(*f).run();
}

} // namespace kern::ir
