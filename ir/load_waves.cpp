// Loads in flight together (ir/load_waves.h).
#include "ir/load_waves.h"

#include "ir/analysis_structure.h"

#include <algorithm>
#include <map>
#include <set>

namespace kern::ir {

namespace {

constexpr unsigned kWhole = 16; // a whole wait, in sixteenths

class LoadWaves {
public:
  explicit LoadWaves(Module &m) : m_(m) {}

  /// A block of statements; its straight runs start at its start and after each statement with
  /// control flow of its own. `unroll`: its iterations run this many at once (a loop body).
  void block(const Block *b, unsigned unroll) {
    if (!b)
      return;
    Run run;
    run.unroll = unroll;
    for (const Stmt *s : b->stmts)
      statement(*s, run);
  }

private:
  /// The straight run being read: each variable's depth (of the loads its value came from), the
  /// deepest wait taken so far, and the depth stores of loaded values hold later loads below.
  struct Run {
    std::map<const Var *, unsigned> depth;
    unsigned waited = 0, floor = 0;
    unsigned unroll = 1;
    /// Set when the run's loads cannot overlap the next iteration's (see unrollable).
    bool carried = false;
  };

  void statement(const Stmt &s, Run &run) {
    switch (s.kind) {
    case StmtKind::Assign:
      run.depth[s.var] = expr(s.value, run);
      return;
    case StmtKind::Store: {
      const unsigned a = expr(s.addr, run), v = expr(s.value, run);
      run.floor = std::max({run.floor, a, v});
      return;
    }
    case StmtKind::Return:
    case StmtKind::Eval:
      expr(s.value, run);
      return;
    case StmtKind::Block:
      for (const Stmt *t : nestedBlock(s)->stmts)
        statement(*t, run);
      return;
    case StmtKind::If:
      expr(s.cond, run);
      block(s.thenBody, 1);
      block(s.elseBody, 1);
      break;
    case StmtKind::Loop:
      block(s.preCond, 1);
      expr(s.cond, run);
      block(s.body, unrollable(s) ? unrollOf(s.loopShape) : 1);
      block(s.step, 1);
      break;
    default:
      for (const Expr *e : s.args)
        expr(e, run);
      break;
    }
    // Control flow, a barrier, a call: the run ends; what follows waits for what came before.
    run.depth.clear();
    run.waited = run.floor = 0;
  }

  /// The depth of the loads `e`'s value comes from (0: none), setting each load site's share.
  unsigned expr(const Expr *e, Run &run) {
    if (!e)
      return 0;
    if (e->kind == ExprKind::VarRef) {
      auto it = run.depth.find(e->var);
      return it == run.depth.end() ? 0 : it->second;
    }
    unsigned d = 0;
    for (const Expr *op : e->ops)
      d = std::max(d, expr(op, run));
    if (e->kind == ExprKind::Intrinsic && !e->ops.empty() && e->site != 0)
      return d + 1; // an atomic: its result arrives after a wait of its own
    if (e->kind != ExprKind::Load || e->space == AddrSpace::Local)
      return d;
    const unsigned depth = std::max(d, run.floor) + 1;
    if (e->site != 0 && e->site < m_.sites.size()) {
      unsigned share = 0;
      if (depth > run.waited) {
        share = (depth - run.waited) * kWhole / run.unroll;
        run.waited = depth;
      }
      m_.sites[e->site].waitSixteenths = static_cast<uint8_t>(std::min(share, 255u));
    }
    return depth;
  }

  /// Whether a loop's iterations may issue their loads together: no load's address in its body
  /// depends on a variable that a load assigns in the loop (a chase), no store in it stores a
  /// loaded value, and its body is one straight run.
  static bool unrollable(const Stmt &loop) {
    if (!loop.body)
      return false;
    std::set<const Var *> loaded; // the variables a load assigns in the loop
    for (const Stmt *s : loop.body->stmts) {
      if (s->kind == StmtKind::Assign) {
        if (readsLoad(s->value, loaded))
          loaded.insert(s->var);
      } else if (s->kind == StmtKind::Store) {
        if (readsLoad(s->value, loaded))
          return false;
      } else if (s->kind != StmtKind::Eval)
        return false;
    }
    // Again with the loaded variables known: a load whose address reads one is a chase.
    for (const Stmt *s : loop.body->stmts)
      if (addressReadsLoaded(s->value, loaded) || addressReadsLoaded(s->addr, loaded))
        return false;
    return true;
  }

  static bool readsLoad(const Expr *e, const std::set<const Var *> &loaded) {
    if (!e)
      return false;
    if (e->kind == ExprKind::Load && e->space != AddrSpace::Local)
      return true;
    if (e->kind == ExprKind::VarRef)
      return loaded.count(e->var) > 0;
    return std::any_of(e->ops.begin(), e->ops.end(),
                       [&](const Expr *op) { return readsLoad(op, loaded); });
  }

  static bool addressReadsLoaded(const Expr *e, const std::set<const Var *> &loaded) {
    if (!e)
      return false;
    if (e->kind == ExprKind::Load && readsLoad(e->ops[0], loaded))
      return true;
    return std::any_of(e->ops.begin(), e->ops.end(),
                       [&](const Expr *op) { return addressReadsLoaded(op, loaded); });
  }

  static unsigned unrollOf(LoopShape shape) {
    switch (shape) {
    case LoopShape::Unrolled:
    case LoopShape::Partial4:
    case LoopShape::Runtime4:
      return 4;
    case LoopShape::Runtime16:
      return 16;
    default:
      return 1;
    }
  }

  Module &m_;
};

} // namespace

void modelLoadWaves(Module &m) {
  LoadWaves waves(m);
  for (Function *f : m.functions)
    if (f->kind != FunctionKind::Host && f->body)
      waves.block(f->body, 1);
}

} // namespace kern::ir
