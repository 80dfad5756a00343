// Structural questions about a function's statements (see analysis_structure.h).
#include "ir/analysis_structure.h"

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

/// A loop whose body reaches a barrier and holds no loop of its own, anywhere in `b`.
bool tightBarrierLoop(const Block *b) {
  if (!b)
    return false;
  for (auto *s : b->stmts) {
    if (s->kind == StmtKind::Loop) {
      const bool barrier = contains(s->preCond, StmtKind::Barrier) ||
                           contains(s->body, StmtKind::Barrier) ||
                           contains(s->step, StmtKind::Barrier);
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

} // namespace

unsigned countOperations(const Expr *e) {
  if (!e)
    return 0;
  unsigned n = 1;
  for (auto *o : e->ops)
    n += countOperations(o);
  return n;
}

bool mayRemoveLanes(const Stmt &s) { return mayRemoveLanes(s, 0); }
bool mayRemoveLanes(const Block *b) { return mayRemoveLanes(b, 0); }

bool suspendsAtBarriers(const Function &f) {
  // Local slots would live in the coroutine's frame, away from the stack that the local-memory
  // window of generic pointers and of called device functions assumes; a device function that
  // reaches a barrier would have to suspend its caller. Such kernels keep their fibers.
  // Measured (bench/RESULTS.md): resuming a coroutine reloads what lives across the barrier
  // from its frame, and its code between barriers is a little slower than a fiber's; it wins
  // where barriers come often (a loop around a barrier with no loop inside it, as in a tree
  // reduction: 20% on W2) and loses up to 10% elsewhere (matmul, transpose).
  return f.kind == FunctionKind::Kernel && f.usesBarriers && f.slots.empty() &&
         !callsAnything(f.body) && tightBarrierLoop(f.body);
}

} // namespace kern::ir
