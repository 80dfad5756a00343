// Which kernels run their barrier-reaching statements once per block (ir/block_level.h).
#include "ir/block_level.h"

#include "ir/analysis.h"
#include "ir/analysis_structure.h"

#include <vector>

namespace kern::ir {

namespace {

/// Whether `e` is an integer division (or remainder) that may fault (by zero) or overflow (by
/// -1): any but one by another constant.
bool mayFaultDividing(const Expr *e) {
  return e->kind == ExprKind::Binary &&
         (e->binaryOp == BinaryOp::Div || e->binaryOp == BinaryOp::Rem) && !e->type.isFloat() &&
         (e->ops[1]->kind != ExprKind::Const || e->ops[1]->intValue == 0 ||
          e->ops[1]->intValue == -1);
}

/// Whether `e` has the same value in every thread of the block wherever it is evaluated:
/// constants, kernel parameters, blockIdx, blockDim, gridDim, warpSize, uniform variables (each
/// collected in `reads`: the plan then makes it a block variable, or gives up where it cannot)
/// and pure arithmetic on them that cannot fault.
bool uniformForBlock(const Expr *e, std::set<const Var *> &reads) {
  if (!e || !e->uniform)
    return false;
  switch (e->kind) {
  case ExprKind::Const:
    return true;
  case ExprKind::VarRef:
    if (!e->var || !e->var->uniform)
      return false;
    if (!e->var->isParam) // (a parameter is one value per launch, never assigned here)
      reads.insert(e->var);
    return true;
  case ExprKind::BuiltinVar:
    switch (e->builtinVar) {
    case BuiltinVar::ThreadIdxX:
    case BuiltinVar::ThreadIdxY:
    case BuiltinVar::ThreadIdxZ:
    case BuiltinVar::LaneId:
      return false;
    default:
      return true;
    }
  case ExprKind::Binary:
    if (mayFaultDividing(e))
      return false;
    [[fallthrough]];
  case ExprKind::Unary:
  case ExprKind::Cast:
  case ExprKind::Select:
    for (const Expr *o : e->ops)
      if (!uniformForBlock(o, reads))
        return false;
    return true;
  default: // loads, calls, intrinsics, addresses
    return false;
  }
}

/// Whether `b` holds a break or continue of the loop whose body it is (not one of a loop
/// nested in it).
bool leavesLoop(const Block *b) {
  if (!b)
    return false;
  for (const Stmt *s : b->stmts) {
    if (s->kind == StmtKind::Break || s->kind == StmtKind::Continue)
      return true;
    if (s->kind == StmtKind::Loop)
      continue;
    if (leavesLoop(s->thenBody) || leavesLoop(s->elseBody) ||
        (s->kind == StmtKind::Block && leavesLoop(s->body)))
      return true;
  }
  return false;
}

void collectAssigns(const Block *b, std::vector<const Stmt *> &out) {
  if (!b)
    return;
  for (const Stmt *s : b->stmts) {
    if (s->kind == StmtKind::Assign)
      out.push_back(s);
    for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      collectAssigns(c, out);
  }
}

/// Whether evaluating `e` can have an effect another warp could tell apart by order: a memory
/// access (loads fault), a call, an intrinsic other than pure math, a division that may fault.
bool noisy(const Expr *e) {
  if (!e)
    return false;
  switch (e->kind) {
  case ExprKind::Load:
  case ExprKind::Call:
    return true;
  case ExprKind::Intrinsic:
    if (intrinsicKind(e->intrinsic) != IntrinsicKind::Math)
      return true;
    break;
  case ExprKind::Binary:
    if (mayFaultDividing(e))
      return true;
    break;
  default:
    break;
  }
  for (const Expr *o : e->ops)
    if (noisy(o))
      return true;
  return false;
}

bool noisy(const Block *b);
bool noisy(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Store:
  case StmtKind::Printf:
  case StmtKind::Launch:
  case StmtKind::Return:
  case StmtKind::Alloca:
  case StmtKind::StackSave:
  case StmtKind::StackRestore:
  case StmtKind::Barrier:
    return true;
  default:
    break;
  }
  for (const Expr *e : {s.value, s.addr, s.cond, s.format})
    if (noisy(e))
      return true;
  for (const Expr *e : s.args)
    if (noisy(e))
      return true;
  return noisy(s.thenBody) || noisy(s.elseBody) || noisy(s.preCond) || noisy(s.body) ||
         noisy(s.step);
}
bool noisy(const Block *b) {
  if (b)
    for (const Stmt *s : b->stmts)
      if (noisy(*s))
        return true;
  return false;
}

/// The order of the statements between barriers: the block form runs a stretch for every warp
/// before the next, where the fibers run each warp from barrier to barrier. The two orders agree
/// when every two stretches that may run with no barrier between them have at most one that
/// another warp could tell apart by order (noisy: memory, printf, a fault). `dirty`: such a
/// stretch ran since the last barrier; the result is the same after `b`; `ok` false where two
/// meet.
bool orderKept(const Block *b, const BlockLevelPlan &plan, bool dirty, bool &ok) {
  if (!b)
    return dirty;
  bool runNoisy = false;
  auto flush = [&] {
    if (runNoisy) {
      ok = ok && !dirty;
      dirty = true;
    }
    runNoisy = false;
  };
  for (const Stmt *s : b->stmts) {
    if (!runsOncePerBlock(*s, plan)) {
      runNoisy = runNoisy || noisy(*s);
      continue;
    }
    flush();
    switch (s->kind) {
    case StmtKind::Barrier:
      dirty = false;
      break;
    case StmtKind::Block:
      dirty = orderKept(nestedBlock(*s), plan, dirty, ok);
      break;
    case StmtKind::If: {
      const bool t = orderKept(s->thenBody, plan, dirty, ok);
      const bool e = orderKept(s->elseBody, plan, dirty, ok);
      dirty = t || e;
      break;
    }
    case StmtKind::Loop: {
      // Around the back-edge too: the body after itself.
      const bool once = orderKept(s->body, plan, dirty, ok);
      const bool again = orderKept(s->body, plan, dirty || once, ok);
      dirty = dirty || once || again;
      break;
    }
    default: // a block-level assignment: no effect
      break;
    }
  }
  flush();
  return dirty;
}

class Planner {
public:
  BlockLevelPlan plan;
  bool ok = true;

  /// A block-level sequence: statements that reach a barrier, and the assignments that may
  /// turn out to be block-level (candidates_).
  void sequence(const Block *b) {
    if (!b)
      return;
    for (const Stmt *s : b->stmts) {
      if (!ok)
        return;
      if (!reachesBarrier(*s)) {
        if (s->kind == StmtKind::Assign)
          candidates_.push_back(s);
        continue;
      }
      switch (s->kind) {
      case StmtKind::Barrier:
        break;
      case StmtKind::Block:
        sequence(nestedBlock(*s));
        break;
      case StmtKind::If:
        ok = uniformForBlock(s->cond, plan.blockVars);
        sequence(s->thenBody);
        sequence(s->elseBody);
        break;
      case StmtKind::Loop:
        ok = s->cond && uniformForBlock(s->cond, plan.blockVars) && !leavesLoop(s->body) &&
             onceOnly(s->preCond) && onceOnly(s->step);
        sequence(s->body);
        break;
      default: // an assignment or a store that reaches a barrier: a counting form
        ok = false;
        break;
      }
    }
  }

  /// The candidates that assign a block variable run once per block; what they read becomes
  /// one too, and so on until nothing changes.
  void close() {
    for (bool changed = true; changed && ok;) {
      changed = false;
      for (const Stmt *s : candidates_) {
        if (!plan.blockVars.count(s->var) || plan.onceAssigns.count(s))
          continue;
        ok = ok && uniformForBlock(s->value, plan.blockVars);
        plan.onceAssigns.insert(s);
        changed = true;
      }
    }
  }

private:
  /// A loop's preCond or step: assignments that run once per block, each iteration.
  bool onceOnly(const Block *b) {
    if (!b)
      return true;
    for (const Stmt *s : b->stmts) {
      if (s->kind != StmtKind::Assign || !s->var || !s->var->uniform ||
          !uniformForBlock(s->value, plan.blockVars))
        return false;
      plan.blockVars.insert(s->var);
      plan.onceAssigns.insert(s);
    }
    return true;
  }

  std::vector<const Stmt *> candidates_;
};

} // namespace

bool runsOncePerBlock(const Stmt &s, const BlockLevelPlan &plan) {
  return plan.onceAssigns.count(&s) || reachesBarrier(s);
}

BlockLevelPlan planBlockLevel(const Function &kernel) {
  const Block *body = kernel.body;
  if (kernel.kind != FunctionKind::Kernel || !kernel.usesBarriers || !kernel.slots.empty() ||
      !body || contains(body, StmtKind::Return) || contains(body, StmtKind::Alloca) ||
      callsAnything(body))
    return {};
  bool counting = false;
  forEachExpr(body, [&](const Expr *e) { counting = counting || countingBarrier(e); });
  if (counting)
    return {};
  Planner p;
  p.sequence(body);
  p.close();
  if (!p.ok)
    return {};
  // A block variable is uniform, not a parameter, and assigned by block-level statements only.
  for (const Var *v : p.plan.blockVars)
    if (!v->uniform || v->isParam)
      return {};
  std::vector<const Stmt *> assigns;
  collectAssigns(body, assigns);
  for (const Stmt *s : assigns) {
    if (s->var && s->var->isParam)
      return {}; // a parameter that changes: each warp's own copy (not worth the case)
    if (p.plan.blockVars.count(s->var) && !p.plan.onceAssigns.count(s))
      return {};
  }
  bool ordered = true;
  orderKept(body, p.plan, false, ordered);
  if (!ordered)
    return {};
  p.plan.eligible = true;
  return p.plan;
}

} // namespace kern::ir
