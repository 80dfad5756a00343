// Structural questions about a function's statements (see analysis_structure.h).
#include "ir/analysis_structure.h"

#include "ir/analysis.h"

#include <algorithm>
#include <functional>
#include <map>

namespace kern::ir {

namespace {

bool mayRemoveLanes(const Block *b, int loopDepth);
bool mayRemoveLanes(const Stmt &s, int loopDepth) {
  switch (s.kind) {
  case StmtKind::Return:
    return true;
  case StmtKind::Break:
  case StmtKind::Continue:
    return loopDepth == 0;
  case StmtKind::If:
    return mayRemoveLanes(s.thenBody, loopDepth) || mayRemoveLanes(s.elseBody, loopDepth);
  case StmtKind::Loop:
    return mayRemoveLanes(s.preCond, loopDepth + 1) || mayRemoveLanes(s.body, loopDepth + 1) ||
           mayRemoveLanes(s.step, loopDepth + 1);
  case StmtKind::Block:
    return mayRemoveLanes(nestedBlock(s), loopDepth);
  default:
    return false;
  }
}
bool mayRemoveLanes(const Block *b, int loopDepth) {
  if (!b)
    return false;
  for (auto *s : b->stmts)
    if (mayRemoveLanes(*s, loopDepth))
      return true;
  return false;
}

} // namespace

bool callsAnything(const Expr *e) {
  if (!e)
    return false;
  if (e->kind == ExprKind::Call)
    return true;
  for (auto *o : e->ops)
    if (callsAnything(o))
      return true;
  return false;
}

bool callsAnything(const Block *b);
bool callsAnything(const Stmt &s) {
  if (callsAnything(s.addr) || callsAnything(s.value) || callsAnything(s.cond) ||
      callsAnything(s.format))
    return true;
  for (auto *a : s.args)
    if (callsAnything(a))
      return true;
  return callsAnything(s.thenBody) || callsAnything(s.elseBody) || callsAnything(s.preCond) ||
         callsAnything(s.body) || callsAnything(s.step);
}
bool callsAnything(const Block *b) {
  if (!b)
    return false;
  for (auto *s : b->stmts)
    if (callsAnything(*s))
      return true;
  return false;
}

bool contains(const Block *b, StmtKind kind);
bool contains(const Stmt &s, StmtKind kind) {
  return s.kind == kind || contains(s.thenBody, kind) || contains(s.elseBody, kind) ||
         contains(s.preCond, kind) || contains(s.body, kind) || contains(s.step, kind);
}
bool contains(const Block *b, StmtKind kind) {
  if (!b)
    return false;
  for (auto *s : b->stmts)
    if (contains(*s, kind))
      return true;
  return false;
}

bool countingBarrier(const Expr *e) {
  if (!e)
    return false;
  if (e->kind == ExprKind::Intrinsic &&
      (e->intrinsic == IntrinsicId::SyncCount || e->intrinsic == IntrinsicId::SyncAnd ||
       e->intrinsic == IntrinsicId::SyncOr))
    return true;
  for (const Expr *o : e->ops)
    if (countingBarrier(o))
      return true;
  return false;
}

namespace {

/// Whether `b` reaches a barrier: __syncthreads() or one of its counting forms, which are
/// expressions.
bool hasBarrier(const Block *b) {
  if (!b)
    return false;
  if (contains(b, StmtKind::Barrier))
    return true;
  bool found = false;
  forEachExpr(b, [&](const Expr *e) { found = found || countingBarrier(e); });
  return found;
}

/// A loop whose body reaches a barrier and holds no loop of its own, anywhere in `b`.
bool tightBarrierLoop(const Block *b) {
  if (!b)
    return false;
  for (auto *s : b->stmts) {
    if (s->kind == StmtKind::Loop) {
      const bool barrier = hasBarrier(s->preCond) || hasBarrier(s->body) || hasBarrier(s->step);
      const bool inner = contains(s->preCond, StmtKind::Loop) ||
                         contains(s->body, StmtKind::Loop) || contains(s->step, StmtKind::Loop);
      if (barrier && !inner)
        return true;
    }
    if (tightBarrierLoop(s->thenBody) || tightBarrierLoop(s->elseBody) ||
        tightBarrierLoop(s->preCond) || tightBarrierLoop(s->body) || tightBarrierLoop(s->step))
      return true;
  }
  return false;
}

/// The variables of `b` that may be read before they are assigned, on some path from the start
/// of `b` (a definite-assignment analysis; conservative: in doubt, a variable is in `out`).
class ReadBeforeAssign {
public:
  std::set<const Var *> out;

  void block(const Block *b, std::set<const Var *> &assigned) {
    if (!b)
      return;
    for (const Stmt *s : b->stmts)
      stmt(s, assigned);
  }

private:
  void expr(const Expr *e, const std::set<const Var *> &assigned) {
    if (!e)
      return;
    if (e->kind == ExprKind::VarRef && e->var && !assigned.count(e->var))
      out.insert(e->var);
    for (const Expr *o : e->ops)
      expr(o, assigned);
  }

  void stmt(const Stmt *s, std::set<const Var *> &assigned) {
    for (const Expr *e : {s->value, s->addr, s->format})
      expr(e, assigned);
    for (const Expr *e : s->args)
      expr(e, assigned);
    switch (s->kind) {
    case StmtKind::Assign:
    case StmtKind::Printf:
      if (s->var)
        assigned.insert(s->var);
      break;
    case StmtKind::If: {
      expr(s->cond, assigned);
      std::set<const Var *> a = assigned, b = assigned;
      block(s->thenBody, a);
      block(s->elseBody, b);
      for (const Var *v : a)
        if (b.count(v))
          assigned.insert(v);
      break;
    }
    case StmtKind::Loop: {
      // Each part in the order of the first iteration; nothing counts as assigned after the
      // loop (it may leave before reaching an assignment).
      std::set<const Var *> a = assigned;
      if (s->testFirst) {
        block(s->preCond, a);
        expr(s->cond, a);
      }
      block(s->body, a);
      block(s->step, a);
      if (!s->testFirst) {
        block(s->preCond, a);
        expr(s->cond, a);
      }
      break;
    }
    case StmtKind::Block:
      block(s->body ? s->body : s->thenBody, assigned);
      break;
    default:
      break;
    }
  }
};

} // namespace

bool evaluateConstant(const Expr *e, const std::map<const Var *, int64_t> &env, int64_t &out) {
  auto fit = [](Type t, int64_t v) {
    const unsigned bits = t.bits();
    if (bits >= 64)
      return v;
    const uint64_t mask = (uint64_t(1) << bits) - 1;
    uint64_t u = static_cast<uint64_t>(v) & mask;
    if (t.isSigned && (u >> (bits - 1)) & 1)
      u |= ~mask;
    return static_cast<int64_t>(u);
  };
  if (!e->type.isInt() && !e->type.isBool())
    return false;
  switch (e->kind) {
  case ExprKind::Const:
    out = e->intValue;
    return true;
  case ExprKind::VarRef: {
    auto it = env.find(e->var);
    if (it == env.end())
      return false;
    out = it->second;
    return true;
  }
  case ExprKind::Cast: {
    int64_t v;
    if (!e->ops[0]->type.isInt() || !evaluateConstant(e->ops[0], env, v))
      return false;
    out = fit(e->type, v);
    return true;
  }
  case ExprKind::Binary: {
    int64_t a, b;
    if (!evaluateConstant(e->ops[0], env, a) || !evaluateConstant(e->ops[1], env, b))
      return false;
    const Type t = e->ops[0]->type;
    const bool sgn = t.isSigned;
    const uint64_t ua =
        static_cast<uint64_t>(a) & (t.bits() >= 64 ? ~0ull : (1ull << t.bits()) - 1);
    const uint64_t ub =
        static_cast<uint64_t>(b) & (t.bits() >= 64 ? ~0ull : (1ull << t.bits()) - 1);
    switch (e->binaryOp) {
    case BinaryOp::Add:
      out = fit(e->type, static_cast<int64_t>(ua + ub));
      return true;
    case BinaryOp::Sub:
      out = fit(e->type, static_cast<int64_t>(ua - ub));
      return true;
    case BinaryOp::Mul:
      out = fit(e->type, static_cast<int64_t>(ua * ub));
      return true;
    case BinaryOp::Div:
      if (b == 0 || (sgn && b == -1))
        return false;
      out = fit(e->type, sgn ? a / b : static_cast<int64_t>(ua / ub));
      return true;
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      if (b < 0 || b >= static_cast<int64_t>(t.bits()))
        return false;
      out = fit(e->type, e->binaryOp == BinaryOp::Shl ? static_cast<int64_t>(ua << b)
                         : sgn                        ? a >> b
                                                      : static_cast<int64_t>(ua >> b));
      return true;
    case BinaryOp::Lt:
      out = sgn ? a < b : ua < ub;
      return true;
    case BinaryOp::Le:
      out = sgn ? a <= b : ua <= ub;
      return true;
    case BinaryOp::Gt:
      out = sgn ? a > b : ua > ub;
      return true;
    case BinaryOp::Ge:
      out = sgn ? a >= b : ua >= ub;
      return true;
    case BinaryOp::Eq:
      out = a == b;
      return true;
    case BinaryOp::Ne:
      out = a != b;
      return true;
    default:
      return false;
    }
  }
  default:
    return false;
  }
}

namespace {

bool assigns(const Block *b, const Var *v) {
  bool found = false;
  std::function<void(const Block *)> walk = [&](const Block *x) {
    if (!x)
      return;
    for (const Stmt *s : x->stmts) {
      found = found || s->var == v;
      for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        walk(c);
    }
  };
  walk(b);
  return found;
}

/// Whether loop `loop`, preceded by `before`, ends after at most `limit` iterations: a
/// counter set to a constant just before it, tested against constants, changed only by the
/// loop's step by constants (`for (int i = 0; i < 4; ++i)`, `for (s = 64 / 2; s > 0; s >>= 1)`).
bool shortLoop(const Stmt &loop, const Stmt *before, unsigned limit) {
  if (loop.kind != StmtKind::Loop || !loop.testFirst || !loop.cond || !loop.step || !before ||
      before->kind != StmtKind::Assign || !before->var || !before->var->type.isInt() ||
      (loop.preCond && !loop.preCond->stmts.empty()))
    return false;
  const Var *i = before->var;
  std::map<const Var *, int64_t> env;
  int64_t value;
  if (!evaluateConstant(before->value, env, value) || assigns(loop.body, i))
    return false;
  for (unsigned n = 0; n <= limit; ++n) {
    env.clear();
    env[i] = value;
    int64_t go;
    if (!evaluateConstant(loop.cond, env, go))
      return false;
    if (!go)
      return true;
    // The step: assignments of the counter and of temporaries computed from it.
    for (const Stmt *s : loop.step->stmts) {
      int64_t v;
      if (s->kind != StmtKind::Assign || !s->var || !evaluateConstant(s->value, env, v))
        return false;
      env[s->var] = v;
    }
    value = env[i];
  }
  return false;
}

void shortLoops(const Block *b, unsigned limit, std::set<const Stmt *> &out) {
  if (!b)
    return;
  for (size_t k = 0; k < b->stmts.size(); ++k) {
    const Stmt *s = b->stmts[k];
    if (s->kind == StmtKind::Loop && shortLoop(*s, k > 0 ? b->stmts[k - 1] : nullptr, limit))
      out.insert(s);
    for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      shortLoops(c, limit, out);
  }
}

} // namespace

bool usesGlobalAtomicResults(const Function &kernel) {
  std::set<const Function *> functions{&kernel};
  for (size_t seen = 0; seen != functions.size();) { // the callees' callees too
    seen = functions.size();
    for (const Function *f : std::set<const Function *>(functions))
      functionCallees(*f, functions);
  }
  bool found = false;
  for (const Function *f : functions) {
    std::function<void(const Expr *, bool)> expr = [&](const Expr *e, bool unused) {
      if (!e || found)
        return;
      if (e->kind == ExprKind::Intrinsic && e->intrinsic >= IntrinsicId::AtomicAdd &&
          e->intrinsic <= IntrinsicId::AtomicXor && !unused && !e->ops.empty() &&
          e->ops[0]->type.space != AddrSpace::Shared)
        found = true;
      for (const Expr *o : e->ops)
        expr(o, false);
    };
    std::function<void(const Block *)> block = [&](const Block *b) {
      if (!b)
        return;
      for (const Stmt *s : b->stmts) {
        // An atomic evaluated for its effect alone (a reduction) returns nothing that is used.
        const Expr *v = s->value;
        while (s->kind == StmtKind::Eval && v && v->kind == ExprKind::Cast)
          v = v->ops[0];
        if (s->kind == StmtKind::Eval)
          expr(v, true);
        else
          expr(s->value, false);
        for (const Expr *e : {s->addr, s->cond})
          expr(e, false);
        for (const Expr *e : s->args)
          expr(e, false);
        for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
          block(c);
      }
    };
    block(f->body);
  }
  return found;
}

bool usesThreadRows(const Function &f) {
  bool found = false;
  std::function<void(const Expr *)> expr = [&](const Expr *e) {
    if (!e || found)
      return;
    found = e->kind == ExprKind::BuiltinVar &&
            (e->builtinVar == BuiltinVar::ThreadIdxY || e->builtinVar == BuiltinVar::ThreadIdxZ);
    for (const Expr *o : e->ops)
      expr(o);
  };
  forEachExpr(f.body, expr);
  return found;
}

std::set<const Stmt *> shortLoops(const Function &f, unsigned limit) {
  std::set<const Stmt *> out;
  shortLoops(f.body, limit, out);
  return out;
}

std::set<const Var *> readBeforeAssigned(const Block *b, std::set<const Var *> assigned) {
  ReadBeforeAssign r;
  r.block(b, assigned);
  return r.out;
}

bool mayRemoveLanes(const Stmt &s) { return mayRemoveLanes(s, 0); }
bool mayRemoveLanes(const Block *b) { return mayRemoveLanes(b, 0); }

bool runsBlockInRegions(const Function &f) {
  // Local slots would live in the block's frame, away from the stack that the local-memory
  // window of generic pointers and of called device functions assumes (unless they are
  // direct, reached by no pointer); a device function that reaches a barrier would have to
  // end its caller's turn. Such kernels keep their fibers.
  // Measured (bench/RESULTS.md): a warp's turn reloads what lives across the barrier from the
  // frame, and the code between barriers is a little slower than a fiber's (what lives across
  // a barrier stays in memory); it wins where barriers come often (a loop around a barrier with
  // no loop inside it, as in a tree reduction: 30% on W2) and loses elsewhere (matmul 15%,
  // histogram 12%, though transpose gains 9%).
  // Direct slots (markDirectSlots) are never reached by a pointer: they may live anywhere.
  const bool slotsDirect =
      std::all_of(f.slots.begin(), f.slots.end(), [](const LocalSlot *s) { return s->direct; });
  return f.kind == FunctionKind::Kernel && f.usesBarriers && slotsDirect &&
         !callsAnything(f.body) && tightBarrierLoop(f.body);
}

bool reachesBarrier(const Stmt &s) { return contains(s, StmtKind::Barrier); }

} // namespace kern::ir
