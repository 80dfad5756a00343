// Branches as the GPU executes them (docs/counters.md). The thresholds were read off the SASS
// that nvcc 13 makes for sm_90 of the kernels of tests/gpu/realcode and tests/gpu/branches
// (the .sass.gz beside their measurements), each named with the kernel that shows it.
#include "ir/branch_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "ir/analysis.h"
#include "ir/analysis_structure.h"
#include "ir/instruction_mix.h"

namespace kern::ir {

namespace {

/// A loop with a constant trip count is unrolled fully when it runs at most this many times
/// (bitonicSortShared: 9 stages of up to 9 steps, all unrolled) ...
constexpr unsigned kFullUnrollTrips = 16;
/// ... or, with no branch left in its body, when the unrolled body stays this small in
/// instructions (poly64: 64 steps of a few operations; sum24) ; a body that branches is not
/// unrolled beyond kFullUnrollTrips (nwDiagonal: 31 steps around an if and a barrier).
constexpr unsigned kFullUnrollOps = 1024;
/// No loop of more trips than this is unrolled fully (the longest measured: poly64's 64).
constexpr unsigned kFullUnrollMaxTrips = 64;
/// An `if` whose sides together make at most this many distinct memory accesses and
/// operations, with no loop, call, barrier, warp function or condition inside, is predicated
/// (dotProduct's `cache[t] += cache[t + i]`: 3 accesses; scanBlelloch's swap: 4), a longer one
/// branches (nwDiagonal's 4 loads and a store; reduceUnrolledTail's warpReduce: 18;
/// guardedShort's load at a remainder by a variable, some 15 instructions).
constexpr unsigned kPredicatedAccesses = 4;
constexpr unsigned kPredicatedOps = 16;
/// A side of an if/else of at most this many operations and no memory access issues
/// predicated before the branch over the other side (classify).
constexpr unsigned kTinySideOps = 2;
/// A counted loop (a counter stepped by a constant, tested against a value that the loop does
/// not change) with a uniform bound and a body of at most this many operations, no barrier,
/// call or warp function, is unrolled by 4 with a remainder loop (nbodyForces' inner loop,
/// rowSums) ...
constexpr unsigned kRuntimeUnrollOps = 96;
/// ... and its 4-wide body unrolled by 4 again when one iteration is this small, has no slow
/// path (a division, a square root) and reads memory at an address that moves by a constant
/// step with the counter (matmulNaive's a[row * n + k], countAbove's hits[k]; not rowSums'
/// m[c * stride + r]).
constexpr unsigned kPtxasUnrollOps = 16;
/// Loops with a constant trip count that are not unrolled fully are unrolled by 4 when their
/// body is at most this long (nwDiagonal).
constexpr unsigned kPartialUnrollOps = 96;
/// The straight code after an if/else that ends a kernel, up to this many operations, is copied
/// into both sides, which then end in EXIT (saturate's store).
constexpr unsigned kTailCopyOps = 4;
/// Bound on the environments followed through nested unrolled loops.
constexpr size_t kMaxEnvironments = 4096;
constexpr unsigned kMaxTrips = 4096;

using Env = std::map<const Var *, int64_t>;

/// What a block of statements holds, for the predication and unrolling rules.
struct Shape {
  unsigned ops = 0;
  unsigned accesses = 0; // distinct: a second load of one address is the first's register
  std::vector<std::pair<bool, const Expr *>> addresses; // (store?, address) seen
  bool loop = false;
  bool barrier = false;
  bool call = false;
  bool warp = false;
  bool condition = false; // an if that branches
  bool nested = false;    // an if that reaches memory (its loads or stores under a second predicate
                          // are not predicated again: convolutionRows' guarded loads)
  bool exits = false;
  bool slowPath = false; // a division or square root, whose slow path is a call
};

void access(bool store, const Expr *addr, Shape &s) {
  for (const auto &[st, a] : s.addresses)
    if (st == store && sameExpr(a, addr))
      return;
  s.addresses.push_back({store, addr});
  ++s.accesses;
}

void scanExpr(const Expr *e, Shape &s) {
  if (!e)
    return;
  if (e->kind == ExprKind::Load)
    access(false, e->ops[0], s);
  if (e->kind == ExprKind::Call)
    s.call = true;
  if (e->kind == ExprKind::Intrinsic && intrinsicKind(e->intrinsic) != IntrinsicKind::Math)
    s.warp = true;
  if ((e->kind == ExprKind::Binary && e->binaryOp == BinaryOp::Div && e->type.isFloat()) ||
      (e->kind == ExprKind::Intrinsic &&
       (e->intrinsic == IntrinsicId::SqrtF || e->intrinsic == IntrinsicId::Sqrt)))
    s.slowPath = true;
  for (const Expr *o : e->ops)
    scanExpr(o, s);
}

void scanBlock(const Block *b, Shape &s) {
  if (!b)
    return;
  for (const Stmt *st : b->stmts) {
    for (const Expr *e : {st->value, st->addr, st->cond}) {
      s.ops += countOperations(e);
      scanExpr(e, s);
    }
    for (const Expr *e : st->args)
      scanExpr(e, s);
    switch (st->kind) {
    case StmtKind::Store:
      access(true, st->addr, s);
      ++s.ops;
      break;
    case StmtKind::If:
      s.condition = s.condition || (st->isBranch && st->gpuBranch);
      if (!s.nested) {
        Shape inner;
        scanBlock(st->thenBody, inner);
        scanBlock(st->elseBody, inner);
        s.nested = inner.accesses > 0 || inner.nested;
      }
      ++s.ops;
      break;
    case StmtKind::Loop:
      s.loop = true;
      break;
    case StmtKind::Barrier:
      s.barrier = true;
      break;
    case StmtKind::Break:
    case StmtKind::Continue:
    case StmtKind::Return:
      s.exits = true;
      break;
    case StmtKind::Printf:
    case StmtKind::Launch:
    case StmtKind::Alloca:
    case StmtKind::StackSave:
    case StmtKind::StackRestore:
      s.call = true;
      break;
    default:
      break;
    }
    for (const Block *c : {st->thenBody, st->elseBody, st->preCond, st->body, st->step})
      scanBlock(c, s);
  }
}

const Expr *stripCasts(const Expr *e) {
  while (e && e->kind == ExprKind::Cast)
    e = e->ops[0];
  return e;
}

bool readsAny(const Expr *e, const std::set<const Var *> &vars) {
  if (!e)
    return false;
  if (e->kind == ExprKind::VarRef && vars.count(e->var))
    return true;
  return std::any_of(e->ops.begin(), e->ops.end(),
                     [&](const Expr *o) { return readsAny(o, vars); });
}

bool loads(const Expr *e) {
  if (!e)
    return false;
  if (e->kind == ExprKind::Load)
    return true;
  return std::any_of(e->ops.begin(), e->ops.end(), [](const Expr *o) { return loads(o); });
}

bool storesAnything(const Block *b) {
  bool found = false;
  std::function<void(const Block *)> walk = [&](const Block *x) {
    if (!x)
      return;
    for (const Stmt *s : x->stmts) {
      found = found || s->kind == StmtKind::Store;
      for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        walk(c);
    }
  };
  walk(b);
  return found;
}

/// Whether `e` moves by a constant step when `counter` does: affine in it with a constant
/// coefficient (i + k, (i + k) * 4, p + (i + k) * 4; not k * n).
bool constantStep(const Expr *e, const Var *counter) {
  if (!readsAny(e, {counter}))
    return true;
  switch (e->kind) {
  case ExprKind::VarRef:
    return true;
  case ExprKind::Cast:
    return e->type.isInt() || e->type.isPtr() ? constantStep(e->ops[0], counter) : false;
  case ExprKind::PtrAdd:
    return !readsAny(e->ops[0], {counter}) && constantStep(e->ops[1], counter);
  case ExprKind::Binary:
    switch (e->binaryOp) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return constantStep(e->ops[0], counter) && constantStep(e->ops[1], counter);
    case BinaryOp::Mul:
    case BinaryOp::Shl: {
      const Expr *c = e->ops[1], *x = e->ops[0];
      if (e->binaryOp == BinaryOp::Mul && x->kind == ExprKind::Const)
        std::swap(c, x);
      return c->kind == ExprKind::Const && constantStep(x, counter);
    }
    default:
      return false;
    }
  default:
    return false;
  }
}

/// Whether some load of `b` reads an address that moves by a constant step with `counter`.
bool loadsAtConstantStep(const Block *b, const Var *counter) {
  bool found = false;
  std::function<void(const Expr *)> expr = [&](const Expr *e) {
    if (!e || found)
      return;
    if (e->kind == ExprKind::Load && readsAny(e->ops[0], {counter}) &&
        constantStep(e->ops[0], counter))
      found = true;
    for (const Expr *o : e->ops)
      expr(o);
  };
  std::function<void(const Block *)> walk = [&](const Block *x) {
    if (!x)
      return;
    for (const Stmt *s : x->stmts) {
      for (const Expr *e : {s->value, s->addr, s->cond})
        expr(e);
      for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        walk(c);
    }
  };
  walk(b);
  return found;
}

class BranchModel {
public:
  explicit BranchModel(Module &m) : m_(m) {}

  void function(Function &f) {
    decideIfs(f.body);
    // Variables assigned once: to a value the warp shares, such as an inlined function's copy
    // of its caller's argument (`arg = iters`), which is the same in every lane that reads it
    // even where it is assigned under a divergent branch (which keeps it from being uniform
    // for codegen); or to a constant (blackScholes' `t = 1.0f`), which they then are.
    struct Writes {
      int n = 0;
      bool uniform = false, constant = false;
    };
    std::map<const Var *, Writes> writes;
    std::function<void(const Block *)> scan = [&](const Block *b) {
      if (!b)
        return;
      for (const Stmt *s : b->stmts) {
        if (s->var) {
          Writes &w = writes[s->var];
          const bool assign = s->kind == StmtKind::Assign && s->value;
          ++w.n;
          w.uniform = assign && s->value->uniform;
          w.constant = assign && s->value->kind == ExprKind::Const;
        }
        for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
          scan(c);
      }
    };
    scan(f.body);
    uniformCopies_.clear();
    constants_.clear();
    for (const auto &[v, w] : writes) {
      if (w.n == 1 && w.uniform && !v->isParam)
        uniformCopies_.insert(v);
      if (w.n == 1 && w.constant)
        constants_.insert(v);
    }
    std::vector<Env> envs{Env{}};
    known_.clear();
    block(f.body, envs);
    // Marked only now: the loop shapes above count the operations as they were.
    for (const auto &[e, known] : known_)
      e->knownConstant = known;
    if (f.kind == FunctionKind::Kernel)
      tail(f.body);
    divisions(f.body);
  }

private:
  Module &m_;
  std::set<const Expr *> folded_;       // divisions by what unrolling makes a constant
  std::set<const Var *> constants_;     // variables that hold one constant throughout
  std::set<const Var *> uniformCopies_; // variables assigned once, a uniform value
  /// Each variable read: whether every walk that reached it knew its value (Expr::knownConstant).
  std::map<Expr *, bool> known_;

  /// Notes, for each variable `e` reads, whether it holds a constant in every environment.
  void markKnown(Expr *e, const std::vector<Env> &envs) {
    if (!e)
      return;
    if (e->kind == ExprKind::VarRef) {
      bool all = !envs.empty();
      for (const Env &env : envs)
        all = all && env.count(e->var);
      auto [it, fresh] = known_.emplace(e, all);
      if (!fresh)
        it->second = it->second && all;
    }
    for (Expr *o : e->ops)
      markKnown(o, envs);
  }

  /// Whether every lane that evaluates `e` gets the same value.
  bool uniformValue(const Expr *e) const {
    const Expr *v = stripCasts(e);
    return e->uniform || (v->kind == ExprKind::VarRef && uniformCopies_.count(v->var));
  }

  bool constantValue(const Expr *e) const {
    e = stripCasts(e);
    return e->kind == ExprKind::Const || (e->kind == ExprKind::VarRef && constants_.count(e->var));
  }

  static void forget(const std::set<const Var *> &vars, std::vector<Env> &envs) {
    for (Env &e : envs)
      for (const Var *v : vars)
        e.erase(v);
  }

  static void assign(const Var *v, const Expr *value, std::vector<Env> &envs) {
    bool all = v && value && !envs.empty();
    std::vector<int64_t> values;
    for (const Env &e : envs) {
      int64_t x;
      if (!all || !evaluateConstant(value, e, x)) {
        all = false;
        break;
      }
      values.push_back(x);
    }
    for (size_t i = 0; i < envs.size(); ++i) {
      if (all)
        envs[i][v] = values[i];
      else
        envs[i].erase(v);
    }
  }

  /// Divisions whose divisor is a constant once the loops around them are unrolled (poly64's
  /// `1.0f / (k + 1)`): the compiler folds them, with no check. With `into` null, only counts
  /// them (in the statements of `b` and the blocks inside).
  static unsigned foldDivisions(const Block *b, const std::vector<Env> &envs,
                                std::set<const Expr *> *into) {
    unsigned n = 0;
    if (!b)
      return 0;
    for (const Stmt *s : b->stmts) {
      n += foldDivisions(*s, envs, into);
      for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        n += foldDivisions(c, envs, into);
    }
    return n;
  }

  static unsigned foldDivisions(const Stmt &s, const std::vector<Env> &envs,
                                std::set<const Expr *> *into) {
    unsigned n = 0;
    std::function<void(const Expr *)> expr = [&](const Expr *e) {
      if (!e)
        return;
      for (const Expr *o : e->ops)
        expr(o);
      if (e->kind != ExprKind::Binary || e->binaryOp != BinaryOp::Div || !e->type.isFloat())
        return;
      const Expr *d = stripCasts(e->ops[1]);
      if (!d->type.isInt() || envs.empty())
        return;
      for (const Env &env : envs) {
        int64_t v;
        if (!evaluateConstant(d, env, v))
          return;
      }
      ++n;
      if (into)
        into->insert(e);
    };
    for (const Expr *e : {s.value, s.addr, s.cond})
      expr(e);
    return n;
  }

  void block(Block *b, std::vector<Env> &envs) {
    if (!b)
      return;
    for (size_t k = 0; k < b->stmts.size(); ++k) {
      Stmt *s = b->stmts[k];
      foldDivisions(*s, envs, &folded_);
      for (Expr *e : {s->value, s->addr})
        markKnown(e, envs);
      for (Expr *e : s->args)
        markKnown(e, envs);
      if (s->kind != StmtKind::Loop)
        markKnown(s->cond, envs);
      switch (s->kind) {
      case StmtKind::Assign:
        assign(s->var, s->value, envs);
        break;
      case StmtKind::If: {
        std::vector<Env> a = envs, c = envs;
        block(s->thenBody, a);
        block(s->elseBody, c);
        std::set<const Var *> changed;
        assignedVars(s->thenBody, changed);
        assignedVars(s->elseBody, changed);
        forget(changed, envs);
        break;
      }
      case StmtKind::Loop:
        loop(*s, k > 0 ? b->stmts[k - 1] : nullptr, envs);
        break;
      case StmtKind::Block:
        block(s->body ? s->body : s->thenBody, envs);
        break;
      default:
        if (s->var)
          forget({s->var}, envs);
        break;
      }
    }
  }

  /// Which ifs are predicated, the innermost first (an if around a predicated one sees it).
  static void decideIfs(Block *b) {
    if (!b)
      return;
    for (Stmt *s : b->stmts) {
      for (Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        decideIfs(c);
      if (s->kind == StmtKind::If)
        predicate(*s);
    }
  }

  /// An `if` of short straight-line sides is predicated; so is the per-lane evaluation of
  /// &&, || and ?: that loads memory (already no branch).
  static void predicate(Stmt &s) {
    if (!s.isBranch) {
      s.gpuBranch = false;
      s.predicated = s.predicated || s.shortCircuit;
      return;
    }
    Shape then, other, both;
    scanBlock(s.thenBody, then);
    scanBlock(s.elseBody, other);
    scanBlock(s.thenBody, both);
    scanBlock(s.elseBody, both);
    if (both.loop || both.barrier || both.call || both.warp || both.nested || both.exits ||
        both.slowPath || both.accesses > kPredicatedAccesses || both.ops > kPredicatedOps) {
      // A side of a register operation or two issues predicated before the branch over the
      // other side, which then needs no jump back (classify's `else r = v * 3`).
      auto tiny = [](const Shape &x) {
        return x.accesses == 0 && !x.loop && !x.barrier && !x.call && !x.warp && !x.nested &&
               !x.exits && !x.slowPath && x.ops <= kTinySideOps;
      };
      s.noJump = tiny(then) || tiny(other);
      return;
    }
    s.gpuBranch = false;
    s.predicated = true;
  }

  /// The number of times `s` runs its body in every environment of `envs`, when that is a
  /// constant in each (`lo` and `hi` the least and the most); false otherwise. With `inner`,
  /// also the environments at the start of each iteration.
  static bool trips(const Stmt &s, const Stmt *before, const std::vector<Env> &envs, unsigned &lo,
                    unsigned &hi, std::vector<Env> *inner, std::vector<Env> *exits = nullptr) {
    if (!s.testFirst || !s.cond || !s.step || !before || before->kind != StmtKind::Assign ||
        !before->var || (s.preCond && !s.preCond->stmts.empty()))
      return false;
    const Var *i = before->var;
    std::set<const Var *> changed;
    assignedVars(s.body, changed);
    if (changed.count(i))
      return false;
    // Where every iteration runs the body's statements in order (no break or continue), the
    // variables its top-level statements set to constants are known in each copy (the
    // Blelloch scan's `offset *= 2`); otherwise what the body changes is unknown in it.
    const bool follow = !leavesEarly(s.body);
    lo = kMaxTrips;
    hi = 0;
    for (const Env &start : envs) {
      Env x = start;
      if (!x.count(i))
        return false;
      unsigned n = 0;
      for (;; ++n) {
        int64_t go;
        if (n > kMaxTrips || !evaluateConstant(s.cond, x, go))
          return false;
        if (!go)
          break;
        if (inner && inner->size() <= kMaxEnvironments) {
          Env y = x;
          if (!follow)
            for (const Var *v : changed)
              y.erase(v);
          inner->push_back(std::move(y));
        }
        if (follow)
          simulateBody(*s.body, x);
        for (const Stmt *st : s.step->stmts) {
          int64_t v;
          if (st->kind != StmtKind::Assign || !st->var || !evaluateConstant(st->value, x, v))
            return false;
          x[st->var] = v;
        }
      }
      lo = std::min(lo, n);
      hi = std::max(hi, n);
      if (exits && follow)
        exits->push_back(x);
    }
    return !envs.empty();
  }

  /// Whether a break, continue or return in `b` may skip the statements after it.
  static bool leavesEarly(const Block *b) {
    if (!b)
      return false;
    for (const Stmt *s : b->stmts) {
      if (s->kind == StmtKind::Break || s->kind == StmtKind::Continue ||
          s->kind == StmtKind::Return)
        return true;
      for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        if (leavesEarly(c))
          return true;
    }
    return false;
  }

  /// One iteration of a loop body that runs every statement, on the values `x` knows: a
  /// top-level assignment of a constant sets its variable; any other assignment (one under a
  /// condition, in a nested loop, of a value that is not known) makes it unknown.
  static void simulateBody(const Block &body, Env &x) {
    for (const Stmt *st : body.stmts) {
      int64_t v;
      if (st->kind == StmtKind::Assign && st->var && st->value &&
          evaluateConstant(st->value, x, v)) {
        x[st->var] = v;
        continue;
      }
      std::set<const Var *> vars;
      if (st->var)
        vars.insert(st->var);
      for (const Block *c : {st->thenBody, st->elseBody, st->preCond, st->body, st->step})
        assignedVars(c, vars);
      for (const Var *var : vars)
        x.erase(var);
    }
  }

  /// The counter of a counted loop with the same trip count in every lane: set to a uniform
  /// value just before it, stepped by a constant, tested against a uniform value that the loop
  /// does not change (LLVM computes its trip count before it starts); null if it is not one.
  const Var *counted(const Stmt &s, const Stmt *before,
                     const std::set<const Var *> &changed) const {
    if (!s.testFirst || !s.cond || !s.step || (s.preCond && !s.preCond->stmts.empty()))
      return nullptr;
    const Expr *c = s.cond;
    if (c->kind != ExprKind::Binary)
      return nullptr;
    switch (c->binaryOp) {
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
    case BinaryOp::Ne:
      break;
    default:
      return nullptr;
    }
    const Var *counter = nullptr;
    for (const Stmt *st : s.step->stmts) {
      if (st->kind != StmtKind::Assign || !st->var)
        return nullptr;
      const Expr *v = stripCasts(st->value);
      if (v->kind != ExprKind::Binary ||
          (v->binaryOp != BinaryOp::Add && v->binaryOp != BinaryOp::Sub))
        continue;
      const Expr *a = stripCasts(v->ops[0]), *b = stripCasts(v->ops[1]);
      if (a->kind == ExprKind::VarRef && a->var == st->var && b->kind == ExprKind::Const)
        counter = st->var;
    }
    if (!counter || !before || before->kind != StmtKind::Assign || before->var != counter ||
        !before->value || !uniformValue(before->value))
      return nullptr;
    for (int side = 0; side < 2; ++side) {
      const Expr *mine = stripCasts(c->ops[side]), *other = c->ops[1 - side];
      if (mine->kind != ExprKind::VarRef || mine->var != counter)
        continue;
      if (!uniformValue(other) || readsAny(other, changed) ||
          (loads(other) && storesAnything(s.body)))
        return nullptr;
      return counter;
    }
    return nullptr;
  }

  void loop(Stmt &s, const Stmt *before, std::vector<Env> &envs) {
    std::set<const Var *> changed;
    assignedVars(s.preCond, changed);
    assignedVars(s.body, changed);
    assignedVars(s.step, changed);
    if (!s.cond || (s.cond->kind == ExprKind::Const && s.cond->intValue != 0)) {
      // while (true): the break's test is the loop's branch (collatz).
      s.loopShape = LoopShape::Endless;
      forget(changed, envs);
      std::vector<Env> inside = envs;
      block(s.preCond, inside);
      block(s.body, inside);
      return;
    }
    Shape body;
    scanBlock(s.preCond, body);
    scanBlock(s.body, body);
    scanBlock(s.step, body);
    body.ops += countOperations(s.cond);
    unsigned lo = 0, hi = 0;
    std::vector<Env> inner, exits;
    const bool constant = !body.exits && trips(s, before, envs, lo, hi, &inner, &exits) && lo > 0;
    // Unrolled, the divisions by the counter are constants (8 instructions become 1).
    const unsigned folded = constant ? foldDivisions(s.body, inner, nullptr) : 0;
    const uint64_t unrolledOps = uint64_t(hi) * (body.ops - std::min(body.ops, 7 * folded));
    if (constant && (hi <= kFullUnrollTrips ? unrolledOps <= 4 * kFullUnrollOps
                                            : hi <= kFullUnrollMaxTrips && !body.condition &&
                                                  !body.barrier && unrolledOps <= kFullUnrollOps)) {
      s.loopShape = LoopShape::Unrolled;
      if (inner.size() > kMaxEnvironments) {
        inner = envs;
        forget(changed, inner);
      }
      block(s.body, inner);
      // Unrolled, what each copy leaves is known after the loop too (trips followed it).
      if (exits.size() == envs.size())
        envs = std::move(exits);
      else
        forget(changed, envs);
      return;
    }
    forget(changed, envs);
    std::vector<Env> inside = envs;
    markKnown(s.cond, inside);
    block(s.preCond, inside);
    block(s.body, inside);
    if (constant) {
      s.loopShape =
          !body.loop && body.ops <= kPartialUnrollOps ? LoopShape::Partial4 : LoopShape::SkipEntry;
    } else if (!body.loop && !body.barrier && !body.call && !body.warp && !body.exits &&
               body.ops <= kRuntimeUnrollOps) {
      if (const Var *counter = counted(s, before, changed))
        s.loopShape =
            body.ops <= kPtxasUnrollOps && !body.slowPath && loadsAtConstantStep(s.body, counter)
                ? LoopShape::Runtime16
                : LoopShape::Runtime4;
    }
  }

  /// The end of a kernel: an if that nothing follows becomes a predicated exit (an if/else
  /// two sides that end in EXIT), a loop that nothing follows loses its entry test, and
  /// `if (c) return;` is a predicated exit anywhere on this path.
  static void tail(Block *b) {
    if (!b)
      return;
    for (Stmt *s : b->stmts)
      if (s->kind == StmtKind::If && s->thenBody && s->thenBody->stmts.size() == 1 &&
          s->thenBody->stmts[0]->kind == StmtKind::Return && !s->thenBody->stmts[0]->value &&
          (!s->elseBody || s->elseBody->stmts.empty())) {
        s->gpuBranch = false;
        s->predicated = false;
      }
    // The last statement, past returns.
    size_t end = b->stmts.size();
    while (end > 0 && b->stmts[end - 1]->kind == StmtKind::Return && !b->stmts[end - 1]->value)
      --end;
    if (end == 0)
      return;
    Stmt *last = b->stmts[end - 1];
    // A store or two after an if/else is copied into both sides (saturate's out[i] = ...).
    unsigned after = 0;
    size_t k = end;
    while (k > 0 && (b->stmts[k - 1]->kind == StmtKind::Store ||
                     b->stmts[k - 1]->kind == StmtKind::Assign)) {
      after += 1 + countOperations(b->stmts[k - 1]->addr) + countOperations(b->stmts[k - 1]->value);
      --k;
    }
    if (k > 0 && k < end && after <= kTailCopyOps && b->stmts[k - 1]->kind == StmtKind::If &&
        b->stmts[k - 1]->elseBody && !b->stmts[k - 1]->elseBody->stmts.empty())
      last = b->stmts[k - 1];
    if (!last)
      return;
    if (last->kind == StmtKind::If && last->elseBody && !last->elseBody->stmts.empty()) {
      // Both sides end the kernel: each ends in EXIT, with no jump and no reconvergence
      // (saturate).
      last->noJump = true;
      last->endsKernel = true;
      tail(last->thenBody);
      tail(last->elseBody);
    } else if (last->kind == StmtKind::If) {
      Shape sh;
      scanBlock(last->thenBody, sh);
      if (sh.barrier)
        return;
      last->gpuBranch = false;
      last->predicated = false;
      tail(last->thenBody);
    } else if (last->kind == StmtKind::Loop && last->testFirst &&
               last->loopShape == LoopShape::EveryTest) {
      last->loopShape = LoopShape::SkipEntry;
    } else if (last->kind == StmtKind::Block) {
      tail(last->body ? last->body : last->thenBody);
    }
  }

  /// A floating-point division checks for the operands its fast sequence cannot take and
  /// branches around the call of the slow one (FCHK; MUFU.RCP's check for 1/x): one branch
  /// instruction per division (blackScholes: 4, its four divisions). A division by a power of
  /// two is a multiplication. A square root likewise checks its operand's range (rowNorms).
  void divisions(Block *b) {
    if (!b)
      return;
    for (Stmt *s : b->stmts) {
      std::function<void(Expr *)> expr = [&](Expr *e) {
        if (!e)
          return;
        for (Expr *o : e->ops)
          expr(o);
        const bool sqrt = e->kind == ExprKind::Intrinsic &&
                          (e->intrinsic == IntrinsicId::SqrtF || e->intrinsic == IntrinsicId::Sqrt);
        if (sqrt && !e->site && !constantValue(e->ops[0]))
          e->site = m_.addSite(SiteKind::Branch, s->loc, "sqrt");
        if (e->kind != ExprKind::Binary || e->binaryOp != BinaryOp::Div || !e->type.isFloat() ||
            e->site || folded_.count(e))
          return;
        const Expr *d = e->ops[1];
        if (d->kind == ExprKind::Const && d->floatValue != 0) {
          int exp;
          if (std::fabs(std::frexp(d->floatValue, &exp)) == 0.5)
            return;
        }
        e->site = m_.addSite(SiteKind::Branch, s->loc, "division");
      };
      for (Expr *e : {s->value, s->addr, s->cond, s->format})
        expr(e);
      for (Expr *e : s->args)
        expr(e);
      for (Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        divisions(c);
    }
  }
};

} // namespace

void modelCompiledBranches(Module &m) {
  BranchModel model(m);
  for (Function *f : m.functions)
    if (f->kind != FunctionKind::Host && f->body)
      model.function(*f);
}

namespace {

/// The most instructions (as instruction_mix.h counts them once ir/hoist.h has run) that nvcc
/// predicates in an if's sides: scanBlelloch's swap, 10, is predicated (its SASS: two loads,
/// two stores and an add from one address register); the padded Blelloch scan's up-sweep
/// (tests/gpu/timing/val_scan.cu), 11, branches (its SASS: 12, the padding's address
/// arithmetic in each stage; the H200 executed 20 branches a warp for its 20 stages).
constexpr unsigned kPredicatedInstructions = 10;

unsigned sideInstructions(const Block *b) {
  unsigned n = 0;
  if (!b)
    return 0;
  for (const Stmt *s : b->stmts) {
    n += statementMix(*s).total();
    if (s->kind == StmtKind::If)
      n += ifMix(*s).total() + sideInstructions(s->thenBody) + sideInstructions(s->elseBody);
  }
  return n;
}

void review(Block *b) {
  if (!b)
    return;
  for (Stmt *s : b->stmts) {
    for (Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      review(c);
    if (s->kind == StmtKind::If && s->isBranch && s->predicated && !s->shortCircuit &&
        sideInstructions(s->thenBody) + sideInstructions(s->elseBody) > kPredicatedInstructions) {
      s->predicated = false;
      s->gpuBranch = true;
    }
  }
}

} // namespace

void reviewPredication(Module &m) {
  for (Function *f : m.functions)
    if (f->kind != FunctionKind::Host && f->body)
      review(f->body);
}

} // namespace kern::ir
