// The register estimate for the occupancy calculation: the peak of live values, as ptxas
// allocates them (analysis.h states the rules; docs/occupancy.md the figures they reach).
#include "ir/analysis.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <vector>

namespace kern::ir {

namespace {

/// Registers of one value of type `t` in a GPU thread: 32-bit words, none for a predicate, one
/// for a pointer into shared or local memory (a 32-bit window address).
int wordsOf(const Type &t) {
  if (t.isVoid() || t.isBool())
    return 0;
  if (t.isPtr())
    return t.space == AddrSpace::Shared || t.space == AddrSpace::Local ? 1 : 2;
  return t.bits() > 32 ? 2 : 1;
}

using VarSet = std::set<const Var *>;

/// A load from a constant-bank address the whole warp shares (`__constant__` data at a uniform
/// address): an operand of the instruction that reads it, as c[bank][offset], not a register.
bool operandLoad(const Expr *e) {
  return e->kind == ExprKind::Load && e->space == AddrSpace::Constant && e->ops[0]->uniform;
}

/// One function's pressure: a backward liveness walk over its structured body that keeps, at
/// each statement, the words of the values live across it plus what evaluating it needs.
class Pressure {
public:
  Pressure(const Function &f, std::map<const Function *, int> &callees) : f_(f), callees_(callees) {
    assignedVars(f.body, assigned_);
  }

  int peak() {
    VarSet live;
    walk(f_.body, live);
    return peak_;
  }

private:
  const Function &f_;
  std::map<const Function *, int> &callees_;
  std::set<const Var *> assigned_;
  int peak_ = 0;
  const Expr *reused_ = nullptr; // the address the store being walked shares with a load
  int held_ = 0;                 // words held from the statement being walked to a later one
  int heldFor_ = 0;              // for this many more assignments
  int hoisted_ = 0;  // the words of later loads issued ahead of the statement being walked
  int unrolled_ = 0; // the extra words of the unrolled innermost loop being walked
  static constexpr int kUnroll = 4;
  struct Targets {
    VarSet brk, cont;
  };
  std::vector<Targets> loops_;

  /// A kernel parameter that the body never assigns stays in the constant bank: an operand
  /// of the instructions that read it, not a register.
  int words(const Var *v) const {
    if (v->isParam && f_.kind == FunctionKind::Kernel && !assigned_.count(v))
      return 0;
    return wordsOf(v->type);
  }

  int words(const VarSet &vs) const {
    int n = 0;
    for (const Var *v : vs)
      n += words(v);
    return n;
  }

  static void uses(const Expr *e, VarSet &out) {
    if (!e)
      return;
    if (e->kind == ExprKind::VarRef && e->var)
      out.insert(e->var);
    for (const Expr *o : e->ops)
      uses(o, out);
  }

  /// The registers that evaluating `e` needs beyond the variables it reads (which the live set
  /// counts): its result and the intermediate values, in the order that needs fewest (Sethi and
  /// Ullman). Constants, parameter addresses and uniform addresses are immediate operands.
  int need(const Expr *e) {
    if (!e || immediate(e))
      return 0;
    const int result = wordsOf(e->type);
    switch (e->kind) {
    case ExprKind::Load:
      if (operandLoad(e))
        return 0;
      return std::max(opsNeed(e), result);
    case ExprKind::LocalAddr:
      return 1;
    case ExprKind::BuiltinVar:
      return 1;
    case ExprKind::Call: {
      auto it = callees_.find(e->callee);
      int inner = it != callees_.end() ? it->second : 0;
      return std::max(inner, opsNeed(e) + result);
    }
    case ExprKind::Intrinsic:
      // A math function's slow path keeps a few values of its own (range reduction).
      return std::max(opsNeed(e) + (intrinsicKind(e->intrinsic) == IntrinsicKind::Math ? 2 : 0),
                      result);
    default:
      return std::max(opsNeed(e), result);
    }
  }

  /// Whether operand `o` takes a register of its own once evaluated: a variable is counted by
  /// the live set, and constants and addresses known at compile time are immediates.
  static bool held(const Expr *o) { return !immediate(o) && !operandLoad(o); }

  /// A variable (counted by the live set), a constant or an address known at compile time.
  static bool immediate(const Expr *e) {
    switch (e->kind) {
    case ExprKind::VarRef:
    case ExprKind::Const:
    case ExprKind::GlobalAddr:
    case ExprKind::SharedAddr:
    case ExprKind::ParamAddr:
    case ExprKind::StringConst:
    case ExprKind::FunctionAddr:
      return true;
    default:
      return false;
    }
  }

  /// Operands evaluated one after another, the hungriest first, each earlier result held.
  int opsNeed(const Expr *e) { return listNeed({e->ops.begin(), e->ops.end()}); }

  int listNeed(const std::vector<const Expr *> &list) {
    std::vector<std::pair<int, int>> ops; // (need, words held afterwards)
    for (const Expr *o : list)
      if (o)
        ops.push_back({need(o), held(o) ? wordsOf(o->type) : 0});
    // The operand that frees most of what it needed goes first (need minus what it holds).
    std::stable_sort(ops.begin(), ops.end(),
                     [](auto a, auto b) { return a.first - a.second > b.first - b.second; });
    int held = 0, most = 0;
    for (auto [n, w] : ops) {
      most = std::max(most, held + n);
      held += w;
    }
    return std::max(most, held);
  }

  void note(const VarSet &live, int extra) {
    peak_ = std::max(peak_, words(live) + extra + unrolled_ + hoisted_);
  }

  static bool reads(const Expr *e, const std::set<const Var *> &vars) {
    if (!e)
      return false;
    if (e->kind == ExprKind::VarRef && vars.count(e->var))
      return true;
    for (const Expr *o : e->ops)
      if (reads(o, vars))
        return true;
    return false;
  }

  static void steppedBases(const Expr *e, const std::set<const Var *> &changed,
                           std::set<const Var *> &out) {
    if (!e)
      return;
    if (e->kind == ExprKind::PtrAdd && e->ops[0]->kind == ExprKind::VarRef &&
        !changed.count(e->ops[0]->var) && wordsOf(e->ops[0]->type) == 2 &&
        reads(e->ops[1], changed))
      out.insert(e->ops[0]->var);
    for (const Expr *o : e->ops)
      steppedBases(o, changed, out);
  }

  static void steppedBases(const Block *b, const std::set<const Var *> &changed,
                           std::set<const Var *> &out) {
    if (!b)
      return;
    for (const Stmt *s : b->stmts) {
      for (const Expr *e : {s->addr, s->value, s->cond})
        steppedBases(e, changed, out);
      for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        steppedBases(c, changed, out);
    }
  }

  /// Whether the loop counts by a constant step (`i++`, `i += 8`): its trip count is known
  /// before it starts, which nvcc's unroller needs (a grid-stride loop's step is not).
  static bool constantStep(const Stmt *loop) {
    if (!loop->step || loop->step->stmts.size() != 1)
      return false;
    const Stmt *s = loop->step->stmts[0];
    if (s->kind != StmtKind::Assign || !s->value || s->value->kind != ExprKind::Binary ||
        (s->value->binaryOp != BinaryOp::Add && s->value->binaryOp != BinaryOp::Sub &&
         s->value->binaryOp != BinaryOp::Shl && s->value->binaryOp != BinaryOp::Mul))
      return false;
    const Expr *a = s->value->ops[0], *b = s->value->ops[1];
    return a->kind == ExprKind::VarRef && a->var == s->var && b->kind == ExprKind::Const;
  }

  /// The loads of an innermost loop body: the words they bring and the words of the 64-bit
  /// addresses they need. False if the body holds a loop, a barrier, a call or a warp-wide
  /// operation (an atomic, a shuffle), which keep the copies' loads from moving together.
  /// The loads of a loop body by space (their values' words and those of their 64-bit
  /// addresses), and whether it stores to that space: the copies' loads cannot move above an
  /// earlier copy's stores that may alias them.
  struct Loads {
    int global = 0, shared = 0;
    bool storesGlobal = false, storesShared = false;
    int unrollable() const { return (storesGlobal ? 0 : global) + (storesShared ? 0 : shared); }
  };

  static bool bodyLoads(const Block *b, Loads &loads) {
    if (!b)
      return true;
    for (const Stmt *s : b->stmts) {
      if (s->kind == StmtKind::Loop || s->kind == StmtKind::Barrier)
        return false;
      if (s->kind == StmtKind::Store)
        (s->space == AddrSpace::Shared ? loads.storesShared : loads.storesGlobal) = true;
      for (const Expr *e : {s->addr, s->value, s->cond})
        if (!exprLoads(e, loads))
          return false;
      for (const Block *c : {s->thenBody, s->elseBody})
        if (!bodyLoads(c, loads))
          return false;
    }
    return true;
  }

  static bool exprLoads(const Expr *e, Loads &loads) {
    if (!e)
      return true;
    if (e->kind == ExprKind::Call ||
        (e->kind == ExprKind::Intrinsic && intrinsicKind(e->intrinsic) == IntrinsicKind::Warp))
      return false;
    if (e->kind == ExprKind::Load && !operandLoad(e)) {
      const int words = wordsOf(e->type) + (wordsOf(e->ops[0]->type) > 1 ? 2 : 0);
      (e->space == AddrSpace::Shared ? loads.shared : loads.global) += words;
    }
    for (const Expr *o : e->ops)
      if (!exprLoads(o, loads))
        return false;
    return true;
  }

  /// Walks `b` backward: `live` is what is live after it on entry and before it on return.
  void walk(const Block *b, VarSet &live) {
    if (!b)
      return;
    const int outer = hoisted_;
    int global = 0, shared = 0; // the words of later loads that move up to here
    Addresses bases; // their 64-bit addresses: one per base and index, constant offsets apart
    VarSet reads;    // what their addresses read: they cannot move above its def
    for (auto it = b->stmts.rbegin(); it != b->stmts.rend(); ++it) {
      const Stmt *st = *it;
      hoisted_ = outer + global + shared;
      // `x = a[i] * 2; a[i] = x;`: the store reuses the address its load computed, which
      // stays live between them instead of what it was computed from.
      reused_ = nullptr;
      int distance = 0; // the assignments back to the one that loads
      if (st->kind == StmtKind::Store) {
        VarSet addrReads;
        uses(st->addr, addrReads);
        for (auto back = std::next(it); back != b->stmts.rend(); ++back) {
          const Stmt *p = *back;
          if (p->kind != StmtKind::Assign || addrReads.count(p->var))
            break;
          ++distance;
          if (loadsFrom(p->value, st->addr, st->space)) {
            reused_ = st->addr;
            break;
          }
        }
      }
      step(st, live);
      if (reused_) {
        held_ = wordsOf(reused_->type);
        heldFor_ = distance;
      }
      // ptxas issues a straight run's loads together, ahead of the stores of other spaces:
      // the values (and 64-bit addresses) of later loads are live across earlier statements.
      const bool plain = st->kind == StmtKind::Assign || st->kind == StmtKind::Store;
      Loads ignored;
      if (!plain || !exprLoads(st->value, ignored) || !exprLoads(st->addr, ignored) ||
          (st->var && reads.count(st->var))) {
        global = shared = 0;
        bases.clear();
        reads.clear();
        if (!plain)
          continue;
      }
      if (st->kind == StmtKind::Store) {
        if (st->space == AddrSpace::Shared) {
          shared = 0;
        } else {
          global = 0;
          bases.clear();
        }
      }
      loadWords(st->value, global, shared, bases, reads);
      loadWords(st->addr, global, shared, bases, reads);
    }
    hoisted_ = outer;
  }

  /// Whether `e` loads from `addr` in `space` (the same expression).
  static bool loadsFrom(const Expr *e, const Expr *addr, AddrSpace space) {
    if (!e || !addr)
      return false;
    if (e->kind == ExprKind::Load && e->space == space && sameExpr(e->ops[0], addr))
      return true;
    for (const Expr *o : e->ops)
      if (loadsFrom(o, addr, space))
        return true;
    return false;
  }

  /// A 64-bit address a load computed: its base pointer and its index less any constant.
  using Addresses = std::vector<std::pair<const Var *, const Expr *>>;

  /// The index of `off` (a pointer offset) without what an immediate offset absorbs: casts,
  /// the element size and added constants (`a[i]`, `a[i + 1]` share one address register).
  static const Expr *indexOf(const Expr *off) {
    for (;;) {
      while (off->kind == ExprKind::Cast)
        off = off->ops[0];
      if (off->kind != ExprKind::Binary ||
          (off->binaryOp != BinaryOp::Add && off->binaryOp != BinaryOp::Sub &&
           off->binaryOp != BinaryOp::Mul))
        return off;
      if (off->ops[1]->kind == ExprKind::Const)
        off = off->ops[0];
      else if (off->ops[0]->kind == ExprKind::Const && off->binaryOp != BinaryOp::Sub)
        off = off->ops[1];
      else
        return off;
    }
  }

  static void loadWords(const Expr *e, int &global, int &shared, Addresses &bases, VarSet &reads) {
    if (!e)
      return;
    if (e->kind == ExprKind::Load && !operandLoad(e)) {
      const Expr *a = e->ops[0];
      uses(a, reads);
      const Var *base = a->kind == ExprKind::PtrAdd && a->ops[0]->kind == ExprKind::VarRef
                            ? a->ops[0]->var
                            : nullptr;
      bool newAddress = !base;
      if (base) {
        const Expr *index = indexOf(a->ops[1]);
        newAddress = std::none_of(bases.begin(), bases.end(), [&](const auto &b) {
          return b.first == base && sameExpr(b.second, index);
        });
        if (newAddress)
          bases.push_back({base, index});
      }
      const int words = wordsOf(e->type) + (newAddress ? wordsOf(a->type) : 0);
      (e->space == AddrSpace::Shared ? shared : global) += words;
    }
    for (const Expr *o : e->ops)
      loadWords(o, global, shared, bases, reads);
  }

  void step(const Stmt *s, VarSet &live) {
    switch (s->kind) {
    case StmtKind::Assign: {
      note(live, held_);
      if (heldFor_ > 0 && --heldFor_ == 0)
        held_ = 0;
      live.erase(s->var);
      uses(s->value, live);
      note(live, need(s->value));
      return;
    }
    case StmtKind::If: {
      VarSet thenLive = live, elseLive = live;
      walk(s->thenBody, thenLive);
      walk(s->elseBody, elseLive);
      live = thenLive;
      live.insert(elseLive.begin(), elseLive.end());
      uses(s->cond, live);
      note(live, need(s->cond));
      return;
    }
    case StmtKind::Loop:
      loop(s, live);
      return;
    case StmtKind::Break:
      live = loops_.empty() ? VarSet{} : loops_.back().brk;
      return;
    case StmtKind::Continue:
      live = loops_.empty() ? VarSet{} : loops_.back().cont;
      return;
    case StmtKind::Return:
      live.clear();
      uses(s->value, live);
      note(live, need(s->value));
      return;
    default: {
      const bool reuse = reused_ && reused_ == s->addr;
      std::vector<const Expr *> exprs = {reuse ? nullptr : s->addr, s->value, s->cond};
      for (const Expr *e : s->args)
        exprs.push_back(e);
      for (const Expr *e : exprs)
        uses(e, live);
      if (s->var)
        live.erase(s->var);
      note(live, listNeed(exprs) + (reuse ? wordsOf(s->addr->type) : 0));
      return;
    }
    }
  }

  /// A loop's values live at its head stay live through the whole body; two passes reach the
  /// fixed point for the structured loops of Kern IR (a value carried around the back edge is
  /// live at the head after the first).
  void loop(const Stmt *s, VarSet &live) {
    // nvcc unrolls an innermost loop (fully when its trip count is a small constant, by
    // kUnroll otherwise) and ptxas issues the copies' loads together: their values and
    // addresses are live at once.
    Loads loads;
    const int outer = unrolled_;
    if (constantStep(s) && bodyLoads(s->body, loads))
      unrolled_ += (kUnroll - 1) * loads.unrollable();
    // Strength reduction: each 64-bit base indexed by a value the loop changes becomes a
    // pointer that the loop steps, live through it.
    std::set<const Var *> changed;
    assignedVars(s->body, changed);
    assignedVars(s->step, changed);
    std::set<const Var *> bases;
    steppedBases(s->body, changed, bases);
    for (const Var *b : bases)
      unrolled_ += wordsOf(b->type);
    const VarSet after = live;
    VarSet head = after;
    for (int pass = 0; pass < 3; ++pass) {
      VarSet l = head; // live after the step: the next iteration's head
      if (!s->testFirst) {
        uses(s->cond, l);
        l.insert(after.begin(), after.end());
      }
      walk(s->step, l);
      loops_.push_back({after, l});
      walk(s->body, l);
      loops_.pop_back();
      if (s->testFirst) {
        l.insert(after.begin(), after.end());
        uses(s->cond, l);
        note(l, need(s->cond));
      }
      walk(s->preCond, l);
      if (l == head)
        break;
      head.insert(l.begin(), l.end());
    }
    unrolled_ = outer;
    live = head;
  }
};

} // namespace

int estimateRegisters(const Function &kernel) {
  // Callees not inlined (large or recursive) are called with an ABI: their own peak, once.
  std::map<const Function *, int> peaks;
  std::set<const Function *> onPath;
  std::function<int(const Function &)> peakOf = [&](const Function &f) -> int {
    auto it = peaks.find(&f);
    if (it != peaks.end())
      return it->second;
    peaks[&f] = 0; // recursion: counted once
    std::set<const Function *> callees;
    functionCallees(f, callees);
    for (const Function *c : callees)
      peakOf(*c);
    Pressure p(f, peaks);
    return peaks[&f] = p.peak();
  };
  const int live = peakOf(kernel);
  return std::clamp(kRegisterBase + live, kRegisterBase, 255);
}

} // namespace kern::ir
