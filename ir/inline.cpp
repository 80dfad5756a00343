// Inlining of small device functions into their callers (see inline.h).
//
// Which calls. The lowering gives every call one of two shapes: `x = f(args)` (an Assign whose
// value is the Call) or `f(args);` (an Eval of the Call). Such a call of a __device__ function f
// (the device version of a __host__ __device__ one included) is replaced by a copy of f's body
// when
//   - f is not recursive: no cycle of calls passes through it;
//   - f is small: at most kMaxNodes statements and expression nodes (kMaxNodesSingleCall when
//     f is called from one place only), counted after the calls f makes were themselves
//     inlined (callees are processed before their callers, so a chain of small functions
//     collapses into the kernel);
//   - f's returns can be expressed without it: either every return is in tail position (the
//     last statement of f, or the last statement of an arm of an `if` in tail position), and
//     then `return x` is simply `result = x`; or no return is inside a loop of f and f has no
//     barrier, and then the copy runs in a loop that runs once, where `return x` is
//     `result = x; break`. (A return inside a loop would need to leave several loops.)
//
// Parameters. A parameter that f never assigns, whose argument is a leaf (a constant, a
// variable, a builtin such as threadIdx.x, the address of a local slot, of shared memory, of a
// global, of the parameter buffer or of a string), is replaced at each use by a copy of the
// argument. The lowering evaluates every argument into a temporary before the call, so this is
// nearly every parameter: in particular `this`, references and the hidden result pointer of a
// function returning a struct become the address of the caller's object. Other parameters
// become variables of the caller, assigned their argument where the copy begins.
//
// Addresses. A load or store of the copy whose address is now a local slot's address plus
// offsets is marked as the lowering marks a direct access of the slot: local space, checked
// against that slot. So `v.x()` reads the caller's `v` as `v.x` does, and an index past the
// end of a member array faults as it does on the caller's own array.
//
// Variables and slots. f's variables and local slots become new ones of the caller. Every
// variable of a called function starts at 0 (the warp backend zeroes them at entry): the copy
// of a variable that f may read before it assigns it is assigned 0 where the copy begins, so
// it reads the same in every call.
//
// Sites. Each load, store, branch, barrier and call of the copy keeps f's site (and source
// location), so counters and fault reports stay attributed to f's lines, summed over its call
// sites as they were when f was called.
#include "ir/inline.h"

#include "ir/analysis_structure.h"

#include <algorithm>
#include <map>
#include <set>

namespace kern::ir {

namespace {

/// The largest callee inlined, in IR nodes (statements and expression nodes), and the largest
/// one called from a single place, whose copy replaces the function instead of adding to it.
constexpr unsigned kMaxNodes = 250;
constexpr unsigned kMaxNodesSingleCall = 2000;

unsigned nodes(const Expr *e) {
  if (!e)
    return 0;
  unsigned n = 1;
  for (const Expr *o : e->ops)
    n += nodes(o);
  return n;
}

unsigned nodes(const Block *b) {
  if (!b)
    return 0;
  unsigned n = 0;
  for (const Stmt *s : b->stmts) {
    n += 1 + nodes(s->value) + nodes(s->addr) + nodes(s->cond) + nodes(s->format);
    for (const Expr *a : s->args)
      n += nodes(a);
    for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      n += nodes(c);
  }
  return n;
}

/// Calls `fn` on every expression of `b` (each statement's operands, recursively).
template <typename Fn> void forEachExpr(const Expr *e, Fn &fn) {
  if (!e)
    return;
  fn(e);
  for (const Expr *o : e->ops)
    forEachExpr(o, fn);
}
template <typename Fn> void forEachExpr(const Block *b, Fn &fn) {
  if (!b)
    return;
  for (const Stmt *s : b->stmts) {
    for (const Expr *e : {s->value, s->addr, s->cond, s->format})
      forEachExpr(e, fn);
    for (const Expr *e : s->args)
      forEachExpr(e, fn);
    for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      forEachExpr(c, fn);
  }
}

template <typename Fn> void forEachStmt(const Block *b, Fn &fn) {
  if (!b)
    return;
  for (const Stmt *s : b->stmts) {
    fn(s);
    for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      forEachStmt(c, fn);
  }
}

/// Whether every return of `b` is in tail position (`tail`: `b` ends the function).
bool returnsInTail(const Block *b, bool tail, int loops) {
  if (!b)
    return true;
  for (size_t i = 0; i < b->stmts.size(); ++i) {
    const Stmt *s = b->stmts[i];
    const bool last = tail && loops == 0 && i + 1 == b->stmts.size();
    switch (s->kind) {
    case StmtKind::Return:
      if (!last)
        return false;
      break;
    case StmtKind::If:
      if (!returnsInTail(s->thenBody, last, loops) || !returnsInTail(s->elseBody, last, loops))
        return false;
      break;
    case StmtKind::Block:
      if (!returnsInTail(s->body ? s->body : s->thenBody, last, loops))
        return false;
      break;
    case StmtKind::Loop:
      for (const Block *c : {s->preCond, s->body, s->step})
        if (!returnsInTail(c, false, loops + 1))
          return false;
      break;
    default:
      break;
    }
  }
  return true;
}

bool returnInLoop(const Block *b, int loops) {
  if (!b)
    return false;
  for (const Stmt *s : b->stmts) {
    if (s->kind == StmtKind::Return && loops > 0)
      return true;
    const int inner = loops + (s->kind == StmtKind::Loop ? 1 : 0);
    for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
      if (returnInLoop(c, inner))
        return true;
  }
  return false;
}

bool hasBarrier(const Block *b) {
  bool found = false;
  auto fn = [&](const Stmt *s) { found = found || s->kind == StmtKind::Barrier; };
  forEachStmt(b, fn);
  return found;
}

/// The local slot an address points into, when it is the slot's address plus offsets (as the
/// lowering's rootSlot, for addresses built from a slot's address itself).
LocalSlot *rootSlot(const Expr *addr) {
  while (addr->kind == ExprKind::PtrAdd || addr->kind == ExprKind::Cast)
    addr = addr->ops[0];
  return addr->kind == ExprKind::LocalAddr ? addr->slot : nullptr;
}

bool isLeaf(const Expr *e) {
  switch (e->kind) {
  case ExprKind::Const:
  case ExprKind::VarRef:
  case ExprKind::BuiltinVar:
  case ExprKind::StringConst:
  case ExprKind::GlobalAddr:
  case ExprKind::SharedAddr:
  case ExprKind::LocalAddr:
  case ExprKind::ParamAddr:
    return e->ops.empty();
  default:
    return false;
  }
}

/// Whether evaluating `e` does more than compute a value: a call or a non-math intrinsic (and,
/// with `loads`, a load, which may fault).
bool hasSideEffects(const Expr *e, bool loads = true) {
  bool found = false;
  auto fn = [&](const Expr *x) {
    found = found || x->kind == ExprKind::Call || (loads && x->kind == ExprKind::Load) ||
            (x->kind == ExprKind::Intrinsic && intrinsicKind(x->intrinsic) != IntrinsicKind::Math);
  };
  forEachExpr(e, fn);
  return found;
}

/// One copy of a callee's body, made at one call.
class Copy {
public:
  /// `removable`: where the copy lists the assignments of pure values (to parameters and to
  /// the result) that may go if their variable is never read; `argVars`: the caller's
  /// variables passed as arguments (the lowering's temporaries), likewise.
  Copy(Module &m, Function &caller, const Function &callee, std::vector<Stmt *> &removable,
       std::set<const Var *> &argVars)
      : m_(m), caller_(caller), callee_(callee), removable_(removable), argVars_(argVars) {
    for (const Var *v : caller.vars)
      nextVar_ = std::max(nextVar_, v->id + 1);
  }

  /// The statement that replaces `call` (an Assign or Eval of Call `c`).
  Stmt *make(const Stmt &call, const Expr &c, bool onceLoop) {
    result_ = call.kind == StmtKind::Assign ? call.var : nullptr;
    onceLoop_ = onceLoop;
    Block *outer = m_.make<Block>();
    // Parameters: substituted, or bound to a new variable of the caller.
    std::set<const Var *> assignedInCallee;
    auto assigns = [&](const Stmt *s) {
      if (s->var)
        assignedInCallee.insert(s->var);
    };
    forEachStmt(callee_.body, assigns);
    for (size_t i = 0; i < callee_.params.size(); ++i) {
      const Var *p = callee_.params[i];
      Expr *arg = c.ops[i];
      Expr *leaf = arg; // a conversion between pointer types is no operation
      while (leaf->kind == ExprKind::Cast && leaf->type.isPtr() && leaf->ops[0]->type.isPtr())
        leaf = leaf->ops[0];
      if (!assignedInCallee.count(p) && isLeaf(leaf)) {
        subst_[p] = leaf;
        if (leaf->kind == ExprKind::VarRef)
          argVars_.insert(leaf->var);
        continue;
      }
      Stmt *s = m_.make<Stmt>(StmtKind::Assign);
      s->loc = call.loc;
      s->var = var(p);
      s->value = fitType(arg, s->var->type);
      outer->stmts.push_back(s);
      if (!hasSideEffects(s->value))
        removable_.push_back(s);
    }
    // Variables the callee may read before it assigns them start at 0, as in a call.
    const std::set<const Var *> reads = readBeforeAssigned(
        callee_.body, std::set<const Var *>(callee_.params.begin(), callee_.params.end()));
    for (const Var *v : callee_.vars) {
      if (!reads.count(v) || subst_.count(v) ||
          std::find(callee_.params.begin(), callee_.params.end(), v) != callee_.params.end())
        continue;
      Stmt *s = m_.make<Stmt>(StmtKind::Assign);
      s->loc = call.loc;
      s->var = var(v);
      s->value = zero(v->type);
      outer->stmts.push_back(s);
    }
    Block *body = outer;
    if (onceLoop_) {
      Stmt *loop = m_.make<Stmt>(StmtKind::Loop);
      loop->loc = call.loc;
      loop->site = c.site; // never counted: no condition, and no iteration reaches the end
      loop->body = m_.make<Block>();
      outer->stmts.push_back(loop);
      body = loop->body;
    }
    for (const Stmt *s : callee_.body->stmts)
      stmt(s, body);
    if (onceLoop_ && (body->stmts.empty() || body->stmts.back()->kind != StmtKind::Break)) {
      Stmt *brk = m_.make<Stmt>(StmtKind::Break);
      brk->loc = call.loc;
      body->stmts.push_back(brk);
    }
    Stmt *r = m_.make<Stmt>(StmtKind::Block);
    r->loc = call.loc;
    r->body = outer;
    return r;
  }

private:
  Var *var(const Var *v) {
    auto it = vars_.find(v);
    if (it != vars_.end())
      return it->second;
    Var *n = m_.make<Var>();
    n->id = nextVar_++;
    n->name = v->name;
    n->type = v->type;
    caller_.vars.push_back(n);
    vars_[v] = n;
    return n;
  }

  LocalSlot *slot(LocalSlot *s) {
    auto it = slots_.find(s);
    if (it != slots_.end())
      return it->second;
    LocalSlot *n = m_.make<LocalSlot>(*s);
    n->id = static_cast<uint32_t>(caller_.slots.size());
    caller_.slots.push_back(n);
    slots_[s] = n;
    return n;
  }

  Expr *zero(Type t) {
    Expr *e = m_.make<Expr>(ExprKind::Const, t);
    return e;
  }

  /// `e` as a value of type `t`: a pointer of another space is converted (no operation).
  Expr *fitType(Expr *e, Type t) {
    if (e->type == t || !e->type.isPtr() || !t.isPtr())
      return e;
    Expr *c = m_.make<Expr>(ExprKind::Cast, t);
    c->ops = {e};
    return c;
  }

  /// A load or store through a slot's address: local space, checked against that slot.
  static void markLocal(AddrSpace &space, LocalSlot *&slot, const Expr *addr) {
    if ((space != AddrSpace::Generic && space != AddrSpace::Local) || slot)
      return;
    if (LocalSlot *s = rootSlot(addr)) {
      space = AddrSpace::Local;
      slot = s;
    }
  }

  Expr *expr(const Expr *e) {
    if (!e)
      return nullptr;
    if (e->kind == ExprKind::VarRef) {
      auto it = subst_.find(e->var);
      if (it != subst_.end())
        return m_.make<Expr>(*it->second); // a leaf: a shallow copy is a full one
    }
    Expr *c = m_.make<Expr>(*e);
    if (c->var)
      c->var = var(c->var);
    if (c->slot)
      c->slot = slot(c->slot);
    for (Expr *&o : c->ops)
      o = expr(o);
    switch (c->kind) {
    case ExprKind::Load:
      markLocal(c->space, c->slot, c->ops[0]);
      break;
    case ExprKind::Binary: // a substituted address may be of a more precise space
      if (c->ops[0]->type.isPtr() && c->ops[0]->type != c->ops[1]->type) {
        c->ops[0] = fitType(c->ops[0], Type::ptr(AddrSpace::Generic));
        c->ops[1] = fitType(c->ops[1], Type::ptr(AddrSpace::Generic));
      }
      break;
    case ExprKind::Select:
      c->ops[1] = fitType(c->ops[1], c->type);
      c->ops[2] = fitType(c->ops[2], c->type);
      break;
    default:
      break;
    }
    return c;
  }

  Block *block(const Block *b) {
    if (!b)
      return nullptr;
    Block *n = m_.make<Block>();
    for (const Stmt *s : b->stmts)
      stmt(s, n);
    return n;
  }

  void stmt(const Stmt *s, Block *out) {
    if (s->kind == StmtKind::Return) {
      if (s->value && result_) {
        Stmt *a = m_.make<Stmt>(StmtKind::Assign);
        a->loc = s->loc;
        a->var = result_;
        a->value = fitType(expr(s->value), result_->type);
        out->stmts.push_back(a);
        if (!hasSideEffects(a->value))
          removable_.push_back(a);
      } else if (s->value && hasSideEffects(s->value)) {
        Stmt *a = m_.make<Stmt>(StmtKind::Eval);
        a->loc = s->loc;
        a->value = expr(s->value);
        out->stmts.push_back(a);
      }
      if (onceLoop_) {
        Stmt *brk = m_.make<Stmt>(StmtKind::Break);
        brk->loc = s->loc;
        out->stmts.push_back(brk);
      }
      return;
    }
    Stmt *c = m_.make<Stmt>(*s);
    if (c->var)
      c->var = var(c->var);
    if (c->slot)
      c->slot = slot(c->slot);
    c->addr = expr(s->addr);
    c->value = expr(s->value);
    c->cond = expr(s->cond);
    c->format = expr(s->format);
    for (Expr *&a : c->args)
      a = expr(a);
    c->thenBody = block(s->thenBody);
    c->elseBody = block(s->elseBody);
    c->preCond = block(s->preCond);
    c->body = block(s->body);
    c->step = block(s->step);
    if (c->kind == StmtKind::Assign)
      c->value = fitType(c->value, c->var->type);
    if (c->kind == StmtKind::Store)
      markLocal(c->space, c->slot, c->addr);
    out->stmts.push_back(c);
  }

  Module &m_;
  Function &caller_;
  const Function &callee_;
  std::vector<Stmt *> &removable_;
  std::set<const Var *> &argVars_;
  uint32_t nextVar_ = 0;
  Var *result_ = nullptr;
  bool onceLoop_ = false;
  std::map<const Var *, Expr *> subst_;
  std::map<const Var *, Var *> vars_;
  std::map<const LocalSlot *, LocalSlot *> slots_;
};

class Inliner {
public:
  explicit Inliner(Module &m) : m_(m) {}

  void run() {
    for (Function *f : m_.functions)
      if (f->kind != FunctionKind::Host) {
        auto count = [&](const Expr *e) {
          if (e->kind == ExprKind::Call && e->callee)
            ++callSites_[e->callee];
        };
        forEachExpr(f->body, count);
      }
    for (Function *f : m_.functions)
      if (f->kind != FunctionKind::Host && state_[f] == State::New)
        process(f);
    // Only the device functions that kernels still call (directly or not) are compiled.
    std::set<Function *> live;
    std::vector<Function *> pending;
    for (Function *f : m_.functions)
      if (f->kind == FunctionKind::Kernel)
        pending.push_back(f);
    while (!pending.empty()) {
      Function *f = pending.back();
      pending.pop_back();
      std::set<Function *> callees;
      collectCallees(f->body, callees);
      for (Function *c : callees)
        if (live.insert(c).second)
          pending.push_back(c);
    }
    std::vector<Function *> kept;
    for (Function *f : m_.functions)
      if (f->kind != FunctionKind::Device || live.count(f))
        kept.push_back(f);
    m_.functions = std::move(kept);
  }

private:
  enum class State { New, Active, Done };

  static void collectCallees(const Block *b, std::set<Function *> &out) {
    auto fn = [&](const Expr *e) {
      if (e->kind == ExprKind::Call && e->callee)
        out.insert(e->callee);
    };
    forEachExpr(b, fn);
  }

  /// Depth first over the call graph: a function's callees are done before it.
  void process(Function *f) {
    state_[f] = State::Active;
    stack_.push_back(f);
    std::vector<Function *> callees;
    auto fn = [&](const Expr *e) {
      if (e->kind == ExprKind::Call && e->callee &&
          std::find(callees.begin(), callees.end(), e->callee) == callees.end())
        callees.push_back(e->callee);
    };
    forEachExpr(f->body, fn);
    for (Function *c : callees) {
      if (c->kind != FunctionKind::Device)
        continue;
      if (state_[c] == State::Active) { // a cycle: every function on it is recursive
        auto it = std::find(stack_.begin(), stack_.end(), c);
        for (; it != stack_.end(); ++it)
          recursive_.insert(*it);
      } else if (state_[c] == State::New) {
        process(c);
      }
    }
    stack_.pop_back();
    removable_.clear();
    argVars_.clear();
    inlineInto(*f, f->body);
    propagateAddresses(*f);
    removeUnread(*f);
    predicateShortCircuits(f->body);
    state_[f] = State::Done;
  }

  /// Removes the assignments of pure values to parameters and results of inlined calls whose
  /// variable is never read (`v += w;` returns `*this`, which the statement drops; a parameter
  /// the callee ignores), then the local slots that nothing refers to any more (an empty
  /// struct whose member function was inlined): the caller's C equivalent has neither, and an
  /// address kept in a variable would keep its slot from being direct (markDirectSlots).
  void removeUnread(Function &f) {
    std::set<const Var *> read;
    std::set<const LocalSlot *> used;
    auto reads = [&](const Expr *e) {
      if (e->kind == ExprKind::VarRef)
        read.insert(e->var);
      if (e->slot)
        used.insert(e->slot);
    };
    forEachExpr(f.body, reads);
    std::set<const Stmt *> dead;
    for (const Stmt *s : removable_)
      if (!read.count(s->var))
        dead.insert(s);
    auto argument = [&](const Stmt *s) {
      if (s->kind == StmtKind::Assign && argVars_.count(s->var) && !read.count(s->var) &&
          !hasSideEffects(s->value))
        dead.insert(s);
    };
    forEachStmt(f.body, argument);
    if (!dead.empty()) {
      removeStmts(f.body, dead);
      read.clear();
      used.clear();
      forEachExpr(f.body, reads);
    }
    auto usedByStmt = [&](const Stmt *s) {
      if (s->slot)
        used.insert(s->slot);
    };
    forEachStmt(f.body, usedByStmt);
    std::vector<LocalSlot *> slots;
    for (LocalSlot *s : f.slots)
      if (used.count(s)) {
        s->id = static_cast<uint32_t>(slots.size());
        slots.push_back(s);
      }
    f.slots = std::move(slots);
  }

  static void removeStmts(Block *b, const std::set<const Stmt *> &dead) {
    if (!b)
      return;
    std::vector<Stmt *> kept;
    for (Stmt *s : b->stmts) {
      if (dead.count(s))
        continue;
      for (Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        removeStmts(c, dead);
      kept.push_back(s);
    }
    b->stmts = std::move(kept);
  }

  /// Replaces the variables that hold one address known at compile time (the lowering's
  /// temporary `%arg = &slot` for `z.norm2()` inside a function whose `z` became the caller's
  /// slot) by that address: assigned once, before any read. The loads and stores through them
  /// become accesses of the slot, which may then be direct (markDirectSlots).
  void propagateAddresses(Function &f) {
    std::map<const Var *, std::vector<Stmt *>> assigns;
    auto collect = [&](const Stmt *s) {
      if (s->var)
        assigns[s->var].push_back(const_cast<Stmt *>(s));
    };
    forEachStmt(f.body, collect);
    std::map<const Var *, Expr *> known;
    for (auto &[v, list] : assigns) {
      if (v->isParam || list.size() != 1 || list[0]->kind != StmtKind::Assign)
        continue;
      const Expr *leaf = list[0]->value;
      while (leaf->kind == ExprKind::Cast && leaf->type.isPtr() && leaf->ops[0]->type.isPtr())
        leaf = leaf->ops[0];
      if (leaf->ops.empty() &&
          (leaf->kind == ExprKind::LocalAddr || leaf->kind == ExprKind::SharedAddr ||
           leaf->kind == ExprKind::GlobalAddr || leaf->kind == ExprKind::StringConst))
        known[v] = const_cast<Expr *>(leaf);
    }
    if (known.empty())
      return;
    const std::set<const Var *> early = readBeforeAssigned(f.body, {});
    for (auto it = known.begin(); it != known.end();)
      it = early.count(it->first) ? known.erase(it) : std::next(it);
    if (known.empty())
      return;
    std::set<const Stmt *> dead;
    for (auto &[v, value] : known)
      dead.insert(assigns[v][0]);
    removeStmts(f.body, dead);
    replaceKnown(f.body, known);
  }

  void replaceKnown(Block *b, const std::map<const Var *, Expr *> &known) {
    if (!b)
      return;
    for (Stmt *s : b->stmts) {
      for (Expr **e : {&s->value, &s->addr, &s->cond, &s->format})
        replaceKnown(*e, known);
      for (Expr *&e : s->args)
        replaceKnown(e, known);
      if (s->kind == StmtKind::Assign && s->value->type != s->var->type && s->value->type.isPtr() &&
          s->var->type.isPtr()) {
        Expr *c = m_.make<Expr>(ExprKind::Cast, s->var->type);
        c->ops = {s->value};
        s->value = c;
      }
      if (s->kind == StmtKind::Store &&
          (s->space == AddrSpace::Generic || s->space == AddrSpace::Local) && !s->slot)
        if (LocalSlot *slot = rootSlot(s->addr)) {
          s->space = AddrSpace::Local;
          s->slot = slot;
        }
      for (Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        replaceKnown(c, known);
    }
  }

  void replaceKnown(Expr *&e, const std::map<const Var *, Expr *> &known) {
    if (!e)
      return;
    if (e->kind == ExprKind::VarRef) {
      auto it = known.find(e->var);
      if (it != known.end())
        e = m_.make<Expr>(*it->second);
      return;
    }
    for (Expr *&o : e->ops)
      replaceKnown(o, known);
    if (e->kind == ExprKind::Load &&
        (e->space == AddrSpace::Generic || e->space == AddrSpace::Local) && !e->slot)
      if (LocalSlot *slot = rootSlot(e->ops[0])) {
        e->space = AddrSpace::Local;
        e->slot = slot;
      }
    if (e->kind == ExprKind::Binary && e->ops[0]->type.isPtr() &&
        e->ops[0]->type != e->ops[1]->type)
      for (Expr *&o : e->ops)
        if (o->type != Type::ptr(AddrSpace::Generic)) {
          Expr *c = m_.make<Expr>(ExprKind::Cast, Type::ptr(AddrSpace::Generic));
          c->ops = {o};
          o = c;
        }
    if (e->kind == ExprKind::Select)
      for (size_t i = 1; i < 3; ++i)
        if (e->ops[i]->type != e->type) {
          Expr *c = m_.make<Expr>(ExprKind::Cast, e->type);
          c->ops = {e->ops[i]};
          e->ops[i] = c;
        }
  }

  /// Whether `b` has an effect besides assigning variables and loading memory, or leaves it
  /// other than by its end.
  static bool hasEffects(const Block *b) {
    bool found = false;
    auto effects = [&](const Stmt *s) {
      switch (s->kind) {
      case StmtKind::Assign:
      case StmtKind::Eval:
        found = found || hasSideEffects(s->value, false);
        break;
      case StmtKind::If:
      case StmtKind::Block:
        found = found || hasSideEffects(s->cond, false);
        break;
      default:
        found = true;
      }
    };
    forEachStmt(b, effects);
    return found;
  }

  /// An `if` that implements &&, || or ?: counts as a branch only while an arm has side
  /// effects, as the lowering decides: an arm whose calls were all inlined into loads and
  /// arithmetic is predicated, as the GPU's compiler predicates it (`n < 50 && z.norm2() < 4`).
  static void predicateShortCircuits(Block *b) {
    if (!b)
      return;
    for (Stmt *s : b->stmts) {
      if (s->kind == StmtKind::If && s->shortCircuit && s->isBranch && !hasEffects(s->thenBody) &&
          !hasEffects(s->elseBody))
        s->isBranch = false;
      for (Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        predicateShortCircuits(c);
    }
  }

  /// 0: not inlined; 1: inlined as it stands; 2: inlined in a loop that runs once.
  int how(const Function *callee) {
    auto it = how_.find(callee);
    if (it != how_.end())
      return it->second;
    int h = 0;
    if (callee->kind == FunctionKind::Device && callee->body && !recursive_.count(callee) &&
        state_[const_cast<Function *>(callee)] == State::Done &&
        nodes(callee->body) <= (callSites_[callee] == 1 ? kMaxNodesSingleCall : kMaxNodes)) {
      if (returnsInTail(callee->body, true, 0))
        h = 1;
      else if (!returnInLoop(callee->body, 0) && !hasBarrier(callee->body))
        h = 2;
    }
    how_[callee] = h;
    return h;
  }

  void inlineInto(Function &f, Block *b) {
    if (!b)
      return;
    for (Stmt *&s : b->stmts) {
      const Expr *c =
          (s->kind == StmtKind::Assign || s->kind == StmtKind::Eval) ? s->value : nullptr;
      if (c && c->kind == ExprKind::Call && c->callee && c->callee != &f &&
          c->ops.size() == c->callee->params.size()) {
        if (int h = how(c->callee)) {
          s = Copy(m_, f, *c->callee, removable_, argVars_).make(*s, *c, h == 2);
          continue;
        }
      }
      for (Block *n : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        inlineInto(f, n);
    }
  }

  Module &m_;
  std::map<Function *, State> state_;
  std::vector<Function *> stack_;
  std::set<const Function *> recursive_;
  std::map<const Function *, int> how_;
  std::map<const Function *, unsigned> callSites_; // in kernels and device functions
  std::vector<Stmt *> removable_;                  // see Copy
  std::set<const Var *> argVars_;
};

} // namespace

void inlineDeviceCalls(Module &m) { Inliner(m).run(); }

} // namespace kern::ir
