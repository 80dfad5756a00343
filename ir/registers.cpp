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

/// Whether `e` is a constant once compiled: constants and `folded` (the counters of the fully
/// unrolled loops around it, a constant in each copy), combined by arithmetic.
bool foldsToConstant(const Expr *e, const std::set<const Var *> &folded) {
  if (e->kind == ExprKind::Const)
    return true;
  if (e->kind == ExprKind::VarRef)
    return folded.count(e->var) > 0;
  if (e->kind != ExprKind::Binary && e->kind != ExprKind::Cast && e->kind != ExprKind::Unary)
    return false;
  return std::all_of(e->ops.begin(), e->ops.end(),
                     [&](const Expr *o) { return foldsToConstant(o, folded); });
}

/// The registers an operation's expansion holds beyond its operands and its result: the
/// instruction sequences (and the slow-path subroutines they branch to) that nvcc makes of a
/// division or a math function. Measured with ptxas (nvcc 13, -O3, sm_90) as the registers of a
/// kernel that applies the operation to loaded values, less those of the same kernel with a
/// multiplication (docs/devices.md, "Registers per thread").
int expansionWords(const Expr *e, const std::set<const Var *> &folded) {
  if (e->kind == ExprKind::Binary &&
      (e->binaryOp == BinaryOp::Div || e->binaryOp == BinaryOp::Rem)) {
    const Type &t = e->type;
    const Expr *num = e->ops[0], *den = e->ops[1];
    if (foldsToConstant(den, folded)) // a constant, a multiplication, or a short sequence
      return t.kind == TypeKind::F32 && !foldsToConstant(num, folded) ? 1 : 0;
    if (t.kind == TypeKind::F32)
      return num->kind == ExprKind::Const ? 1 : 2; // a reciprocal, or a division
    if (t.kind == TypeKind::F64)
      return num->kind == ExprKind::Const ? 0 : 11;
    if (t.isInt() && t.bits() > 32)
      return e->binaryOp == BinaryOp::Div ? 8 : 6;
    if (t.isInt())
      return 5; // a reciprocal estimate, its correction and the remainder fix-ups
    return 0;
  }
  if (e->kind != ExprKind::Intrinsic)
    return 0;
  switch (e->intrinsic) {
  case IntrinsicId::SinF:
  case IntrinsicId::CosF:
  case IntrinsicId::TanF:
    return 10; // the slow path's range reduction (Payne-Hanek)
  case IntrinsicId::Atan2F:
  case IntrinsicId::TgammaF:
    return 8;
  case IntrinsicId::RemainderF:
    return 6;
  case IntrinsicId::J0F:
    return 5;
  case IntrinsicId::LgammaF:
    return 3;
  case IntrinsicId::Tgamma:
    return 20;
  case IntrinsicId::Sinh:
    return 18;
  case IntrinsicId::Sin:
  case IntrinsicId::Cos:
  case IntrinsicId::Erfc:
  case IntrinsicId::Pow:
    return 16;
  case IntrinsicId::Atan2:
    return 15;
  case IntrinsicId::Tan:
  case IntrinsicId::Log1p:
    return 14;
  case IntrinsicId::Acos:
    return 10;
  case IntrinsicId::Cbrt:
    return 9;
  case IntrinsicId::Log:
  case IntrinsicId::Log2:
  case IntrinsicId::Log10:
  case IntrinsicId::Asin:
    return 8;
  case IntrinsicId::Sqrt:
  case IntrinsicId::Tanh:
  case IntrinsicId::Hypot:
    return 6;
  case IntrinsicId::Erf:
    return 5;
  case IntrinsicId::Expm1:
  case IntrinsicId::Fmod:
    return 4;
  case IntrinsicId::AtomicAdd:
  case IntrinsicId::AtomicSub:
    // A constant added at an address the whole warp shares: nvcc aggregates the warp's
    // additions. One lane (the first active: a vote and a find-leading-one) adds the count of
    // lanes (a population count), and a shuffle hands each lane its result (plus the lanes
    // below it: a lane mask).
    return e->ops[0]->uniform && e->ops[0]->type.space != AddrSpace::Shared &&
                   e->ops[1]->kind == ExprKind::Const
               ? 4
               : 0;
  case IntrinsicId::ShflIdx:
  case IntrinsicId::ShflUp:
  case IntrinsicId::ShflDown:
  case IntrinsicId::ShflXor:
    // The path for a warp that is not converged (WARPSYNC.COLLECTIVE) passes the mask, the
    // lane and the clamp in registers.
    return 3;
  default:
    // The others: a few values of a slow path or of the sequence's steps.
    return intrinsicKind(e->intrinsic) == IntrinsicKind::Math ? 2 : 0;
  }
}

/// Whether `f` calls through the ABI: printf, assert's failure report, device malloc and free,
/// a call through a function pointer or a virtual call. ptxas then keeps the registers the
/// calling convention needs (kAbiCallRegisters on sm_90, whatever the kernel's own need).
bool callsThroughAbi(const Block *b);

bool callsThroughAbi(const Expr *e) {
  if (!e)
    return false;
  if (e->kind == ExprKind::Intrinsic) {
    switch (e->intrinsic) {
    case IntrinsicId::AssertFail:
    case IntrinsicId::FnPtrFault:
    case IntrinsicId::VirtualFault:
    case IntrinsicId::DeviceMalloc:
    case IntrinsicId::DeviceFree:
      return true;
    default:
      break;
    }
  }
  for (const Expr *o : e->ops)
    if (callsThroughAbi(o))
      return true;
  return false;
}

bool callsThroughAbi(const Block *b) {
  if (!b)
    return false;
  for (const Stmt *s : b->stmts) {
    if (s->kind == StmtKind::Printf)
      return true;
    for (const Expr *e : {s->addr, s->value, s->cond})
      if (callsThroughAbi(e))
        return true;
    for (const Expr *e : s->args)
      if (callsThroughAbi(e))
        return true;
    for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      if (callsThroughAbi(c))
        return true;
  }
  return false;
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
  std::set<const Var *> folded_; // the counters of the fully unrolled loops being walked
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
    default:
      return std::max(opsNeed(e), result) + expansionWords(e, folded_);
    }
  }

  /// Whether operand `o` takes a register of its own once evaluated: a variable is counted by
  /// the live set, and constants and addresses known at compile time are immediates.
  static bool held(const Expr *o) { return !immediate(o) && !operandLoad(o); }

  /// The words an evaluated operand holds: a 32-bit integer widened to 64 bits holds its 32
  /// (IMAD.WIDE and LEA.HI.X widen it as they use it).
  static int heldWords(const Expr *o) {
    if (o->kind == ExprKind::Cast && o->type.isInt() && o->type.bits() == 64 &&
        o->ops[0]->type.isInt() && o->ops[0]->type.bits() <= 32)
      return 1;
    return wordsOf(o->type);
  }

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
        ops.push_back({need(o), held(o) ? heldWords(o) : 0});
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

  /// The values assigned to each variable in `b` (a null value: one not known, a load into it).
  static void assignments(const Block *b, std::map<const Var *, std::vector<const Expr *>> &out) {
    if (!b)
      return;
    for (const Stmt *s : b->stmts) {
      if (s->var)
        out[s->var].push_back(s->kind == StmtKind::Assign ? s->value : nullptr);
      for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        assignments(c, out);
    }
  }

  /// An address a load computed: its base (a pointer variable or a variable's address) and its
  /// index less any constant.
  using Addresses = std::vector<std::pair<const Expr *, const Expr *>>;

  /// The later loads of a straight run that move up to the statement being walked.
  struct Run {
    int global = 0, shared = 0; // their words
    Addresses bases;            // their addresses: one per base and index, constant offsets apart
    std::vector<const Expr *> loaded; // the addresses they load (a second load is the same value)
    VarSet reads;                     // what their addresses read: they cannot move above its def
    void clear() {
      global = shared = 0;
      bases.clear();
      loaded.clear();
      reads.clear();
    }
  };

  /// Walks `b` backward: `live` is what is live after it on entry and before it on return.
  void walk(const Block *b, VarSet &live) {
    if (!b)
      return;
    const int outer = hoisted_;
    Run run;
    // Likewise the addresses of the later stores of a run of stores, which ptxas computes
    // before it issues the first.
    int stored = 0;
    Addresses storeBases;
    for (auto it = b->stmts.rbegin(); it != b->stmts.rend(); ++it) {
      const Stmt *st = *it;
      if (st->kind != StmtKind::Store) {
        stored = 0;
        storeBases.clear();
      }
      hoisted_ = outer + run.global + run.shared + stored;
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
      if (st->kind == StmtKind::Store && newAddress(st->addr, storeBases))
        stored += wordsOf(st->addr->type);
      // An if that nvcc predicates (ir/branch_model.cpp) joins the run: its sides' loads
      // issue with the others, under the predicate.
      if (st->kind == StmtKind::If && st->predicated && straight(st->thenBody) &&
          straight(st->elseBody)) {
        for (const Block *side : {st->elseBody, st->thenBody})
          if (side)
            for (auto in = side->stmts.rbegin(); in != side->stmts.rend(); ++in)
              runStep(*in, run);
        loadWords(st->cond, run);
        continue;
      }
      if (st->kind != StmtKind::Assign && st->kind != StmtKind::Store) {
        run.clear();
        continue;
      }
      runStep(st, run);
    }
    hoisted_ = outer;
  }

  /// Assignments and stores only, with no call or warp-wide operation.
  static bool straight(const Block *b) {
    if (!b)
      return true;
    Loads ignored;
    return std::all_of(b->stmts.begin(), b->stmts.end(), [&](const Stmt *s) {
      return (s->kind == StmtKind::Assign || s->kind == StmtKind::Store) &&
             exprLoads(s->value, ignored) && exprLoads(s->addr, ignored);
    });
  }

  /// One assignment or store of a straight run, walked backward: the loads that move up past
  /// it (a store keeps later loads of its space below it).
  static void runStep(const Stmt *st, Run &run) {
    Loads ignored;
    if (!exprLoads(st->value, ignored) || !exprLoads(st->addr, ignored) ||
        (st->var && run.reads.count(st->var)))
      run.clear();
    if (st->kind == StmtKind::Store) {
      if (st->space == AddrSpace::Shared) {
        run.shared = 0;
      } else {
        run.global = 0;
        run.bases.clear();
        run.loaded.clear();
      }
    }
    loadWords(st->value, run);
    loadWords(st->addr, run);
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

  /// Whether address `a` needs a register of its own beside `bases` (which it joins): not when
  /// it is one of them plus a constant.
  static bool newAddress(const Expr *a, Addresses &bases) {
    // A pointer variable, and one plus a constant, are addressed through its own register.
    if (a->kind == ExprKind::VarRef ||
        (a->kind == ExprKind::PtrAdd && a->ops[0]->kind == ExprKind::VarRef &&
         indexOf(a->ops[1])->kind == ExprKind::Const))
      return false;
    if (a->kind != ExprKind::PtrAdd ||
        (a->ops[0]->kind != ExprKind::VarRef && a->ops[0]->kind != ExprKind::SharedAddr &&
         a->ops[0]->kind != ExprKind::GlobalAddr))
      return true;
    const Expr *base = a->ops[0];
    const Expr *index = indexOf(a->ops[1]);
    if (std::any_of(bases.begin(), bases.end(), [&](const auto &b) {
          return sameExpr(b.first, base) && sameExpr(b.second, index);
        }))
      return false;
    bases.push_back({base, index});
    return true;
  }

  static void loadWords(const Expr *e, Run &run) {
    if (!e)
      return;
    if (e->kind == ExprKind::Load && !operandLoad(e)) {
      const Expr *a = e->ops[0];
      uses(a, run.reads);
      // A load of the run from the same address is the same value (ptxas loads it once).
      if (std::none_of(run.loaded.begin(), run.loaded.end(),
                       [&](const Expr *l) { return sameExpr(l, a); })) {
        run.loaded.push_back(a);
        const int words = wordsOf(e->type) + (newAddress(a, run.bases) ? wordsOf(a->type) : 0);
        (e->space == AddrSpace::Shared ? run.shared : run.global) += words;
      }
    }
    for (const Expr *o : e->ops)
      loadWords(o, run);
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
    // A fully unrolled loop's counter is a constant in each copy, and so is a variable that
    // the loop sets from constants and such variables only (`pout = 1 - pout`).
    const std::set<const Var *> foldedOutside = folded_;
    if (s->loopShape == LoopShape::Unrolled && s->step && s->step->stmts.size() == 1 &&
        s->step->stmts[0]->kind == StmtKind::Assign) {
      std::map<const Var *, std::vector<const Expr *>> sets;
      assignments(s->body, sets);
      assignments(s->step, sets);
      std::set<const Var *> candidates = folded_;
      for (const auto &[v, values] : sets)
        candidates.insert(v);
      for (bool changed = true; changed;) {
        changed = false;
        for (const auto &[v, values] : sets)
          if (candidates.count(v) && !std::all_of(values.begin(), values.end(), [&](const Expr *e) {
                return e && foldsToConstant(e, candidates);
              })) {
            candidates.erase(v);
            changed = true;
          }
      }
      if (candidates.count(s->step->stmts[0]->var))
        folded_ = candidates;
    }
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
    folded_ = foldedOutside;
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
  int live = peakOf(kernel);
  for (const auto &[f, peak] : peaks)
    if (callsThroughAbi(f->body))
      live = std::max(live, kAbiCallRegisters - kRegisterBase);
  return std::clamp(kRegisterBase + live, kRegisterBase, 255);
}

} // namespace kern::ir
