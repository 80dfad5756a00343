// Local memory needs, and the uniformity analysis the warp backend uses to keep warp-uniform values
// scalar.
#include "ir/analysis.h"

#include "ir/analysis_structure.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace kern::ir {

namespace {

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
    for (const Expr *e : {s->value, s->cond, s->addr, s->format})
      callsIn(e, out);
    for (const Expr *e : s->args)
      callsIn(e, out);
    for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      calls(c, out);
  }
}

} // namespace

uint64_t warpFrameBytes(const Function &f) {
  uint64_t bytes = 0;
  for (const LocalSlot *slot : f.slots) {
    const uint64_t align = slot->direct ? 16 : std::max<uint64_t>(slot->align, 1);
    const uint64_t stride = slot->direct
                                ? (std::max<uint64_t>(slot->size, 1) + 3) / 4 * 4
                                : (std::max<uint64_t>(slot->size, 1) + align - 1) / align * align;
    bytes = (bytes + align - 1) / align * align + stride * 32;
  }
  return std::max<uint64_t>(bytes, 16);
}

uint64_t warpFrameAlign(const Function &f) {
  uint64_t align = 16;
  for (const LocalSlot *slot : f.slots)
    if (!slot->direct)
      align = std::max<uint64_t>(align, slot->align);
  return align;
}

bool frameInLocalMemory(const Function &f) { return warpFrameBytes(f) > kStackFrameLimitBytes; }

LocalMemoryNeed localMemoryNeed(const Function &kernel) {
  LocalMemoryNeed need;
  struct PathNeed {
    uint64_t perThread = 0, region = 0;
  };
  std::map<const Function *, PathNeed> done;
  std::set<const Function *> onPath;
  std::function<PathNeed(const Function &)> visit = [&](const Function &f) -> PathNeed {
    auto it = done.find(&f);
    if (it != done.end())
      return it->second;
    if (!onPath.insert(&f).second) {
      need.recursive = true; // counted once, where the path first reached it
      return {};
    }
    std::set<const Function *> callees;
    calls(f.body, callees);
    PathNeed most;
    for (const Function *c : callees) {
      const PathNeed p = visit(*c);
      most.perThread = std::max(most.perThread, p.perThread);
      most.region = std::max(most.region, p.region);
    }
    onPath.erase(&f);
    const uint64_t frame = warpFrameBytes(f);
    PathNeed mine{most.perThread + frame / 32, most.region};
    if (frameInLocalMemory(f)) {
      mine.region += frame + warpFrameAlign(f);
      need.usesLocalMemory = true;
    }
    return done[&f] = mine;
  };
  const PathNeed all = visit(kernel);
  need.bytesPerThread = all.perThread;
  need.regionBytesPerWarp = all.region;
  return need;
}

void functionCallees(const Function &f, std::set<const Function *> &out) { calls(f.body, out); }

bool sameExpr(const Expr *a, const Expr *b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind || !(a->type == b->type) || a->intValue != b->intValue ||
      a->floatValue != b->floatValue || a->unaryOp != b->unaryOp || a->binaryOp != b->binaryOp ||
      a->builtinVar != b->builtinVar || a->intrinsic != b->intrinsic || a->var != b->var ||
      a->callee != b->callee || a->global != b->global || a->slot != b->slot ||
      a->text != b->text || a->space != b->space || a->dynamicShared != b->dynamicShared ||
      a->ops.size() != b->ops.size())
    return false;
  for (size_t i = 0; i < a->ops.size(); ++i)
    if (!sameExpr(a->ops[i], b->ops[i]))
      return false;
  return true;
}

void readVars(const Expr *e, std::set<const Var *> &out) {
  if (!e)
    return;
  if (e->kind == ExprKind::VarRef)
    out.insert(e->var);
  for (const Expr *o : e->ops)
    readVars(o, out);
}

void forEachExpr(const Block *b, const std::function<void(const Expr *)> &f) {
  if (!b)
    return;
  for (const Stmt *s : b->stmts) {
    for (const Expr *e : {s->value, s->addr, s->cond, s->format})
      if (e)
        f(e);
    for (const Expr *e : s->args)
      if (e)
        f(e);
    for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      forEachExpr(c, f);
  }
}

void assignedVars(const Block *b, std::set<const Var *> &out) {
  if (!b)
    return;
  for (const Stmt *s : b->stmts) {
    if (s->var)
      out.insert(s->var);
    for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      assignedVars(c, out);
  }
}

// ---- uniformity ------------------------------------------------------------------------------
//
// "Uniform" means: the same value in every lane that is active where the value is read. The
// warp backend then computes it once, as a scalar, and stores a uniform variable without a
// lane mask. The rules, each with the counter-example that forbids anything weaker:
//
// Expressions. Uniform: constants, string/global/shared/parameter addresses, blockIdx,
// blockDim, gridDim, warpSize, a uniform variable, and a pure operation (unary, binary, cast,
// select, pointer add, math intrinsic) whose operands are all uniform. Everything else is
// varying:
//   - threadIdx, the lane id and local addresses differ per lane by definition;
//   - a load, even from a uniform address, is kept varying (`x = p[0]` is the same in every
//     lane, but proving it needs the memory lowering's address shapes; not worth it yet);
//   - a call returns per-lane results (`f(threadIdx.x)` with uniform-looking arguments may
//     still read threadIdx itself);
//   - warp intrinsics: __ballot is the same for the active lanes, but __shfl is not, and
//     telling them apart is not needed by any workload yet.
//
// Variables. A kernel parameter starts uniform (one value per launch); a device function's
// parameter starts varying (`f(threadIdx.x)`); other variables start at zero, uniform. A
// variable stays uniform only if every assignment to it (1) assigns a uniform value and (2)
// runs under uniform control, that is:
//   - not inside an `if` whose condition is varying:
//       `x = 0; if (threadIdx.x < 5) x = 1;` leaves x = 1 in some lanes and 0 in others;
//   - not inside a loop whose condition is varying:
//       `for (i = 0; i < threadIdx.x; ++i) x = i;` stops each lane at a different i;
//   - not inside a loop with a break or continue under varying control, since lanes that
//     broke rejoin after the loop, and lanes that continued skipped the rest of an iteration:
//       `for (i = 0; i < 8; ++i) { if (threadIdx.x == i) break; }` leaves i = lane in lane
//       i; `for (...) { if (threadIdx.x & 1) continue; x = i; }` updates x in even lanes only.
//   A return under varying control does not make later assignments varying: lanes that
//   returned never read a variable of the function again, and the remaining lanes all see
//   the same assignments (`if (threadIdx.x >= n) return; x = 1;` keeps x uniform).
// Printf's count output (host side only) is treated as varying.
//
// The rules are circular (a loop counter is uniform if the loop's condition is, which reads
// the counter), so the analysis starts optimistic, every variable uniform, and demotes
// variables until nothing changes: the greatest fixpoint. A demotion only ever turns more
// expressions varying, so the iteration ends.

namespace {

bool uniformBuiltin(BuiltinVar b) {
  switch (b) {
  case BuiltinVar::BlockIdxX:
  case BuiltinVar::BlockIdxY:
  case BuiltinVar::BlockIdxZ:
  case BuiltinVar::BlockDimX:
  case BuiltinVar::BlockDimY:
  case BuiltinVar::BlockDimZ:
  case BuiltinVar::GridDimX:
  case BuiltinVar::GridDimY:
  case BuiltinVar::GridDimZ:
  case BuiltinVar::WarpSize:
    return true;
  default:
    return false;
  }
}

class Uniformity {
public:
  explicit Uniformity(Function &f) : f_(f) {}

  void run() {
    scopeVariables();
    for (Var *v : f_.vars)
      v->uniform = true;
    // A by-value struct parameter is an address in the parameter buffer: uniform too.
    for (Var *v : f_.params)
      v->uniform = f_.kind == FunctionKind::Kernel;
    // Each pass recomputes every expression's flag from the current variables, so the last
    // pass (which demoted nothing) leaves flags consistent with the final variables.
    do {
      changed_ = false;
      walk(f_.body, -1);
    } while (changed_);
  }

private:
  /// Computes e->uniform (and its operands') from the variables' current flags.
  bool expr(Expr *e) {
    if (!e)
      return true;
    bool ops = true;
    for (Expr *o : e->ops)
      ops = expr(o) && ops; // every operand gets its flag, even after a varying one
    bool u = false;
    switch (e->kind) {
    case ExprKind::Const:
    case ExprKind::StringConst:
    case ExprKind::GlobalAddr:
    case ExprKind::FunctionAddr:
    case ExprKind::SharedAddr:
    case ExprKind::ParamAddr:
      u = true;
      break;
    case ExprKind::BuiltinVar:
      u = uniformBuiltin(e->builtinVar);
      break;
    case ExprKind::VarRef:
      u = e->var && e->var->uniform;
      break;
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Cast:
    case ExprKind::Select:
    case ExprKind::PtrAdd:
      u = ops;
      break;
    case ExprKind::Intrinsic:
      u = ops && intrinsicKind(e->intrinsic) == IntrinsicKind::Math;
      break;
    case ExprKind::Load:
    case ExprKind::Call:
    case ExprKind::LocalAddr:
      u = false;
      break;
    }
    e->uniform = u;
    return u;
  }

  /// Finds each variable's scope: the innermost block statement (an inlined call's copy,
  /// ir/inline.cpp) holding every read and assignment of it, when it assigns the variable
  /// before any read. Lanes inactive where the block starts never read such a variable, so
  /// only control inside the block decides whether it stays uniform.
  void scopeVariables() {
    std::map<const Var *, std::vector<const Stmt *>> paths;
    std::vector<const Stmt *> open;
    auto seen = [&](const Var *v) {
      auto [it, fresh] = paths.emplace(v, open);
      if (!fresh) {
        size_t n = 0;
        while (n < it->second.size() && n < open.size() && it->second[n] == open[n])
          ++n;
        it->second.resize(n);
      }
    };
    std::function<void(const Expr *)> expr = [&](const Expr *e) {
      if (!e)
        return;
      if (e->kind == ExprKind::VarRef && e->var)
        seen(e->var);
      for (const Expr *o : e->ops)
        expr(o);
    };
    std::function<void(const Block *)> block = [&](const Block *b) {
      if (!b)
        return;
      for (const Stmt *s : b->stmts) {
        if (s->var)
          seen(s->var);
        for (const Expr *e : {s->value, s->addr, s->cond, s->format, s->sharedBytes, s->stream})
          expr(e);
        for (const Expr *e : s->args)
          expr(e);
        if (s->kind == StmtKind::Block)
          open.push_back(s);
        for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
          block(c);
        if (s->kind == StmtKind::Block)
          open.pop_back();
      }
    };
    block(f_.body);
    std::map<const Stmt *, std::set<const Var *>> candidates;
    for (auto &[v, path] : paths)
      if (!path.empty() && !v->isParam)
        candidates[path.back()].insert(v);
    for (auto &[s, vars] : candidates) {
      const std::set<const Var *> early = readBeforeAssigned(nestedBlock(*s), {});
      for (const Var *v : vars)
        if (!early.count(v))
          scope_[v] = s;
    }
  }

  /// Whether control is uniform for an assignment of `v`: no varying condition since the
  /// start of v's scope. `lastVarying`: the depth of the block statement where control last
  /// became varying (0 the function's body, -1 never).
  bool uniformFor(const Var *v, int lastVarying) const {
    auto it = scope_.find(v);
    int depth = 0;
    if (it != scope_.end()) {
      auto d = depth_.find(it->second);
      if (d != depth_.end())
        depth = d->second;
    }
    return lastVarying < depth;
  }

  void demote(Var *v) {
    if (v && v->uniform) {
      v->uniform = false;
      changed_ = true;
    }
  }

  /// Whether `b` (part of a loop's body) holds a break or continue of that loop under
  /// varying control; `varying`: `b` itself runs under a varying condition of the loop.
  bool varyingExit(Block *b, bool varying) {
    if (!b)
      return false;
    for (Stmt *s : b->stmts) {
      switch (s->kind) {
      case StmtKind::Break:
      case StmtKind::Continue:
        if (varying)
          return true;
        break;
      case StmtKind::If: {
        bool v = varying || !expr(s->cond);
        if (varyingExit(s->thenBody, v) || varyingExit(s->elseBody, v))
          return true;
        break;
      }
      case StmtKind::Block:
        if (varyingExit(s->body ? s->body : s->thenBody, varying))
          return true;
        break;
      default: // a nested loop's breaks and continues are its own
        break;
      }
    }
    return false;
  }

  /// `lastVarying`: the depth of the block statement (0: the function's body) inside which
  /// control last stopped being uniform, that is, not every lane active where that block
  /// starts (and not returned since) executes `b`; -1 if control is uniform.
  void walk(Block *b, int lastVarying) {
    if (!b)
      return;
    for (Stmt *s : b->stmts) {
      for (Expr *e : {s->value, s->addr, s->cond, s->sharedBytes, s->stream, s->format})
        expr(e);
      for (Expr *e : s->args)
        expr(e);
      switch (s->kind) {
      case StmtKind::Assign:
        if (!uniformFor(s->var, lastVarying) || !s->value || !s->value->uniform)
          demote(s->var);
        break;
      case StmtKind::Printf:
      case StmtKind::Alloca:
      case StmtKind::StackSave:
        demote(s->var);
        break;
      case StmtKind::If: {
        int ctl = s->cond->uniform ? lastVarying : depthNow_;
        walk(s->thenBody, ctl);
        walk(s->elseBody, ctl);
        break;
      }
      case StmtKind::Loop: {
        bool uniform = (!s->cond || s->cond->uniform) && !varyingExit(s->preCond, false) &&
                       !varyingExit(s->body, false) && !varyingExit(s->step, false);
        int ctl = uniform ? lastVarying : depthNow_;
        walk(s->preCond, ctl);
        walk(s->body, ctl);
        walk(s->step, ctl);
        break;
      }
      case StmtKind::Block:
        depth_[s] = ++depthNow_;
        walk(s->body ? s->body : s->thenBody, lastVarying);
        --depthNow_;
        break;
      default:
        break;
      }
    }
  }

  Function &f_;
  bool changed_ = false;
  std::map<const Var *, const Stmt *> scope_; // see scopeVariables
  std::map<const Stmt *, int> depth_;         // block statements' depths, 1 the outermost
  int depthNow_ = 0;
};

} // namespace

void analyzeUniformity(Module &m) {
  for (Function *f : m.functions)
    if (f->kind != FunctionKind::Host)
      Uniformity(*f).run();
}

namespace {

/// The direct-slot analysis of one function: a slot stays direct until one of its addresses
/// is found outside the base of a load's or store's address.
class DirectSlots {
public:
  explicit DirectSlots(Function &f) : f_(f) {}

  void run() {
    for (LocalSlot *s : f_.slots)
      s->direct = true;
    block(f_.body);
  }

private:
  /// An access of `bytes` bytes at `addr`, of `space`, checked against `slot`.
  void access(const Expr *addr, unsigned bytes, AddrSpace space, LocalSlot *slot) {
    const Expr *p = addr;
    int64_t constant = 0;
    bool allConstant = true;
    while (p->kind == ExprKind::PtrAdd ||
           (p->kind == ExprKind::Cast && p->type.isPtr() && p->ops[0]->type.isPtr())) {
      if (p->kind == ExprKind::PtrAdd) {
        if (p->ops[1]->kind == ExprKind::Const)
          constant += p->ops[1]->intValue;
        else
          allConstant = false;
        expr(p->ops[1]);
      }
      p = p->ops[0];
    }
    if (p->kind != ExprKind::LocalAddr) {
      expr(p);
      return;
    }
    const bool sizeOk = bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16;
    if (space != AddrSpace::Local || slot != p->slot || !sizeOk ||
        (allConstant && constant % static_cast<int64_t>(bytes) != 0))
      p->slot->direct = false;
  }

  void expr(const Expr *e) {
    if (!e)
      return;
    if (e->kind == ExprKind::LocalAddr) { // an address used as a value
      e->slot->direct = false;
      return;
    }
    if (e->kind == ExprKind::Load) {
      access(e->ops[0], e->type.bytes(), e->space, e->slot);
      return;
    }
    for (const Expr *o : e->ops)
      expr(o);
  }

  void block(const Block *b) {
    if (!b)
      return;
    for (const Stmt *s : b->stmts) {
      if (s->kind == StmtKind::Store) {
        access(s->addr, s->value->type.bytes(), s->space, s->slot);
        expr(s->value);
      } else {
        for (const Expr *e : {s->value, s->addr, s->cond, s->format, s->sharedBytes, s->stream})
          expr(e);
      }
      for (const Expr *e : s->args)
        expr(e);
      for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        block(c);
    }
  }

  Function &f_;
};

} // namespace

void markDirectSlots(Module &m) {
  for (Function *f : m.functions)
    if (f->kind != FunctionKind::Host)
      DirectSlots(*f).run();
}

namespace {

/// Raises `need` (with its reason) to what the atomic `e` requires.
void atomicNeeds(const Expr &e, int &need, std::string &why) {
  const Expr *addr = e.ops.empty() ? nullptr : e.ops[0];
  const bool shared = addr && addr->type.space == AddrSpace::Shared;
  const bool isFloat = e.type.kind == TypeKind::F32, isDouble = e.type.kind == TypeKind::F64;
  const bool wide = e.type.bits() == 64 && !isDouble;
  const std::string name = intrinsicName(e.intrinsic);
  int cc = shared ? 12 : 11;
  std::string what = std::string(shared ? "shared" : "global") + "-memory atomics (" + name + ")";
  if (wide && !shared && cc < 12) {
    cc = 12;
    what = "64-bit global-memory atomics (" + name + ")";
  }
  if (isFloat && e.intrinsic == IntrinsicId::AtomicAdd) {
    cc = 20;
    what = "float atomicAdd";
  }
  if (isDouble && e.intrinsic == IntrinsicId::AtomicAdd) {
    cc = 60;
    what = "double atomicAdd";
  }
  if (e.atomicScope != AtomicScope::Device && cc < 60) {
    cc = 60;
    what = "scoped atomics (" + name +
           (e.atomicScope == AtomicScope::Block ? "_block" : "_system") + ")";
  }
  if (cc > need) {
    need = cc;
    why = what;
  }
}

void capabilityIn(const Expr *e, int &need, std::string &why) {
  if (!e)
    return;
  if (e->kind == ExprKind::Intrinsic && intrinsicName(e->intrinsic) &&
      std::string(intrinsicName(e->intrinsic)).rfind("atomic", 0) == 0)
    atomicNeeds(*e, need, why);
  for (const Expr *o : e->ops)
    capabilityIn(o, need, why);
}

void capabilityIn(const Block *b, int &need, std::string &why) {
  if (!b)
    return;
  for (const Stmt *s : b->stmts) {
    for (const Expr *e : {s->value, s->cond, s->addr, s->format})
      capabilityIn(e, need, why);
    for (const Expr *e : s->args)
      capabilityIn(e, need, why);
    for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      capabilityIn(c, need, why);
  }
}

} // namespace

int requiredComputeCapability(const Function &kernel, std::string &why) {
  int need = 10;
  // The kernel, then the functions it calls, by name: the reason named does not depend on
  // where the functions lie in memory.
  std::set<const Function *> seen{&kernel};
  std::vector<const Function *> pending{&kernel};
  for (size_t i = 0; i < pending.size(); ++i) {
    capabilityIn(pending[i]->body, need, why);
    std::set<const Function *> found;
    calls(pending[i]->body, found);
    std::vector<const Function *> callees(found.begin(), found.end());
    std::sort(callees.begin(), callees.end(),
              [](const Function *a, const Function *b) { return a->name < b->name; });
    for (const Function *c : callees)
      if (seen.insert(c).second)
        pending.push_back(c);
  }
  return need;
}

} // namespace kern::ir
