// Loop-invariant arithmetic (ir/hoist.h).
#include "ir/hoist.h"

#include "ir/analysis.h"
#include "ir/instruction_mix.h"

#include <algorithm>
#include <functional>
#include <map>
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

/// What a loop's addresses are made of: the variables it steps by a constant (its counters,
/// assigned only in its step) and those its body assigns once, before reading them, from
/// others (`int j = m - t;`), by their definitions.
struct LoopVars {
  VarSet assigned, counters;
  std::map<const Var *, const Expr *> defined;
};

/// `e` without its conversions between integer widths.
const Expr *intValue(const Expr *e) {
  while (e->kind == ExprKind::Cast && e->type.isInt() && e->ops[0]->type.isInt())
    e = e->ops[0];
  return e;
}

LoopVars loopVars(const Stmt &l) {
  LoopVars v;
  std::map<const Var *, int> writes;
  std::function<void(const Block *)> count = [&](const Block *b) {
    if (!b)
      return;
    for (const Stmt *s : b->stmts) {
      if (s->var)
        ++writes[s->var];
      for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        count(c);
    }
  };
  for (const Block *c : {l.preCond, l.body, l.step})
    count(c);
  for (const auto &[var, n] : writes)
    v.assigned.insert(var);
  if (l.step)
    for (const Stmt *s : l.step->stmts) {
      if (s->kind != StmtKind::Assign || !s->var || writes[s->var] != 1 || !s->value)
        continue;
      const Expr *x = intValue(s->value);
      if (x->kind == ExprKind::Binary &&
          (x->binaryOp == BinaryOp::Add || x->binaryOp == BinaryOp::Sub) &&
          x->ops[1]->kind == ExprKind::Const && intValue(x->ops[0])->kind == ExprKind::VarRef &&
          intValue(x->ops[0])->var == s->var)
        v.counters.insert(s->var);
    }
  if (l.body)
    for (const Stmt *s : l.body->stmts)
      if (s->kind == StmtKind::Assign && s->var && s->value && writes[s->var] == 1)
        v.defined[s->var] = s->value;
  return v;
}

/// An address as nvcc forms it in a loop: a sum of coefficients times atoms (values the same
/// in every iteration, the loop's counters, products of a moving value and a variable) and a
/// constant part, the immediate offset (docs/counters.md, "Instructions").
struct Address {
  struct Term {
    const Expr *atom;
    int64_t coef;
  };
  std::vector<Term> terms;
  bool immediate = false;    // a known value adds to it (an unrolled copy's immediate offset)
  bool constantStep = false; // it moves with a counter by a constant
  bool variableStep = false; // it moves by a multiple of a variable (a stride register)

  void add(const Expr *atom, int64_t coef) {
    for (Term &t : terms)
      if (sameAtom(t.atom, atom)) {
        t.coef += coef;
        return;
      }
    terms.push_back({atom, coef});
  }
  static bool sameAtom(const Expr *a, const Expr *b) {
    if (a->kind == ExprKind::VarRef && b->kind == ExprKind::VarRef)
      return a->var == b->var;
    return sameExpr(a, b);
  }
  /// One pointer serves both: they differ by a constant.
  bool samePointer(const Address &o) const {
    auto has = [](const Address &x, const Term &t) {
      if (t.coef == 0)
        return true;
      for (const Term &u : x.terms)
        if (sameAtom(u.atom, t.atom))
          return u.coef == t.coef;
      return false;
    };
    for (const Term &t : terms)
      if (!has(o, t))
        return false;
    for (const Term &t : o.terms)
      if (!has(*this, t))
        return false;
    return true;
  }
};

bool moves(const Address &a) { return a.immediate || a.constantStep || a.variableStep; }

bool buildAddress(const Expr *e, int64_t scale, const LoopVars &lv, Address &a, int depth = 0) {
  if (depth > 8)
    return false;
  if (knownValue(e)) {
    a.immediate = true;
    return true;
  }
  switch (e->kind) {
  case ExprKind::VarRef:
    if (lv.counters.count(e->var)) {
      a.constantStep = true;
      a.add(e, scale);
      return true;
    }
    if (auto d = lv.defined.find(e->var); d != lv.defined.end())
      return buildAddress(d->second, scale, lv, a, depth + 1);
    break;
  case ExprKind::PtrAdd:
    return buildAddress(e->ops[0], scale, lv, a, depth) &&
           buildAddress(e->ops[1], scale, lv, a, depth);
  case ExprKind::Cast:
    if ((e->type.isInt() || e->type.isPtr()) &&
        (e->ops[0]->type.isInt() || e->ops[0]->type.isPtr()))
      return buildAddress(e->ops[0], scale, lv, a, depth);
    break;
  case ExprKind::Binary:
    switch (e->binaryOp) {
    case BinaryOp::Add:
      return buildAddress(e->ops[0], scale, lv, a, depth) &&
             buildAddress(e->ops[1], scale, lv, a, depth);
    case BinaryOp::Sub:
      return buildAddress(e->ops[0], scale, lv, a, depth) &&
             buildAddress(e->ops[1], -scale, lv, a, depth);
    case BinaryOp::Shl:
      if (e->ops[1]->kind == ExprKind::Const && e->ops[1]->intValue >= 0 &&
          e->ops[1]->intValue < 32)
        return buildAddress(e->ops[0], scale << e->ops[1]->intValue, lv, a, depth);
      break;
    case BinaryOp::Mul:
      for (int side = 0; side < 2; ++side) {
        const Expr *factor = e->ops[1 - side];
        if (factor->kind == ExprKind::Const)
          return buildAddress(e->ops[side], scale * factor->intValue, lv, a, depth);
      }
      // (x + k) * w is x * w + k * w: a step of k * w, a multiple of a variable.
      for (int side = 0; side < 2; ++side) {
        const Expr *factor = e->ops[1 - side];
        Address inner;
        if (!invariant(factor, lv.assigned) || !buildAddress(e->ops[side], 1, lv, inner, depth + 1))
          continue;
        a.variableStep = a.variableStep || moves(inner);
        a.add(e, scale);
        return true;
      }
      break;
    default:
      break;
    }
    break;
  default:
    break;
  }
  if (!invariant(e, lv.assigned))
    return false;
  a.add(e, scale);
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
  /// The loop being marked: its variables, whether nvcc unrolls it fully, and the pointers its
  /// moving addresses share.
  struct Scope {
    Stmt &loop;
    LoopVars vars;
    bool unrolled;
    std::vector<std::pair<Address, bool>> pointers; // (address, shared memory)
  };

  void loop(Stmt &l) {
    // A fully unrolled loop leaves no loop on the GPU, but what no copy changes is computed
    // once (the copies share it); one register and each copy's immediate offset serve the
    // addresses that differ from copy to copy by a known value, and a stride register added to
    // the previous copy's those that differ by a multiple of a variable. In a loop that stays a
    // loop, an address that moves with its counter is a pointer it steps (by a constant once per
    // test that issues, its unrolled copies taking immediate offsets; by a variable stride every
    // iteration): nothing where the address stands.
    Scope scope{l, loopVars(l), l.loopShape == LoopShape::Unrolled, {}};
    if (!scope.unrolled)
      expr(l.cond, scope);
    for (Block *c : {l.preCond, l.body, l.step})
      mark(c, scope);
    for (Block *c : {l.preCond, l.body, l.step})
      walk(c);
  }

  /// The expressions of `b`'s statements, nested blocks included.
  void mark(Block *b, Scope &scope) {
    if (!b)
      return;
    for (Stmt *s : b->stmts) {
      for (Expr *e : {s->value, s->addr, s->cond})
        expr(e, scope);
      for (Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        mark(c, scope);
    }
  }

  void expr(Expr *e, Scope &scope) {
    if (!e || e->hoisted)
      return;
    const VarSet &assigned = scope.vars.assigned;
    bool once = invariant(e, assigned);
    // (Only an address takes an immediate offset: `(tid + j * 256) & 511` computes its sum.)
    Address a;
    const bool address =
        !once && e->kind == ExprKind::PtrAdd && buildAddress(e, 1, scope.vars, a) && moves(a);
    if ((once || address) && countOperations(e) > 0) {
      e->hoisted = true;
      scope.loop.hoisted.push_back(e);
      if (address && scope.unrolled)
        e->strided = a.variableStep;
      else if (address && (a.constantStep || a.variableStep))
        step(a, e->type.space == AddrSpace::Shared, scope);
      return;
    }
    for (Expr *o : e->ops)
      expr(o, scope);
  }

  /// A moving address of the loop: a pointer of its own unless one that differs from it by a
  /// constant is already stepped. A constant step is an add to the pointer (a 64-bit add, but
  /// a shared address is 32 bits); a variable one a multiply-add of the stride (IMAD.WIDE).
  static void step(const Address &a, bool shared, Scope &scope) {
    for (const auto &[p, sharedToo] : scope.pointers)
      if (sharedToo == shared && p.variableStep == a.variableStep && p.samePointer(a))
        return;
    scope.pointers.push_back({a, shared});
    uint8_t &n = a.variableStep ? scope.loop.strideAdds : scope.loop.pointerSteps;
    n = uint8_t(std::min(255, n + (a.variableStep || shared ? 1 : 2)));
  }
};

/// Addresses that an earlier one serves: `in[i - 1]` after `in[i]` is its register and an
/// immediate offset, as nvcc's common-subexpression elimination makes it, as long as no
/// variable of the two changed between them and the earlier one dominates (it stands before,
/// in the same block or one around it).
class Reuse {
public:
  void block(const Block *b) {
    if (!b)
      return;
    const size_t mark = available_.size();
    for (const Stmt *s : b->stmts) {
      for (Expr *e : {s->value, s->addr, s->cond})
        expr(e);
      for (Expr *e : s->args)
        expr(e);
      if (s->kind == StmtKind::Store && s->addr)
        address(s->addr);
      if (s->kind == StmtKind::Loop) {
        // What the loop assigns is another value in each iteration, and after it.
        VarSet changed;
        for (const Block *c : {s->preCond, s->body, s->step})
          assignedVars(c, changed);
        forget(changed);
        block(s->preCond);
        block(s->body);
        block(s->step);
        forget(changed);
        continue;
      }
      for (const Block *c : {s->thenBody, s->elseBody, s->body}) {
        block(c);
        if (c) {
          VarSet changed;
          assignedVars(c, changed);
          forget(changed);
        }
      }
      if (s->var)
        forget({s->var});
    }
    available_.resize(std::min(mark, available_.size()));
  }

private:
  struct Entry {
    Address address;
    AddrSpace space;
    VarSet reads;
  };
  std::vector<Entry> available_;

  void forget(const VarSet &vars) {
    std::erase_if(available_, [&](const Entry &e) {
      for (const Var *v : vars)
        if (e.reads.count(v))
          return true;
      return false;
    });
  }

  /// The addresses of the loads in `e`, and of a store where `e` is one.
  void expr(Expr *e) {
    if (!e)
      return;
    for (Expr *o : e->ops)
      expr(o);
    if (e->kind == ExprKind::Load)
      address(e->ops[0]);
  }

  void address(Expr *a) {
    if (a->kind != ExprKind::PtrAdd || a->hoisted || a->strided || countOperations(a) == 0)
      return;
    static const LoopVars kNone;
    Address form;
    if (!buildAddress(a, 1, kNone, form))
      return;
    for (const Entry &e : available_)
      if (e.space == a->type.space && e.address.samePointer(form)) {
        a->hoisted = true;
        return;
      }
    Entry entry{std::move(form), a->type.space, {}};
    readVars(a, entry.reads);
    available_.push_back(std::move(entry));
  }
};

} // namespace

void modelHoisting(Module &m) {
  Hoisting h;
  for (Function *f : m.functions)
    if (f->kind != FunctionKind::Host && f->body)
      h.walk(f->body);
  for (Function *f : m.functions)
    if (f->kind != FunctionKind::Host && f->body)
      Reuse().block(f->body);
}

} // namespace kern::ir
