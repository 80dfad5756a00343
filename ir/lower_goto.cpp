// goto, lowered into kern's structured IR (which runs under SIMT masks in device code): each
// targeted label has a per-lane flag, set by the gotos that jump to it and cleared where the
// label is reached.
//
// Sema (frontend/sema_goto.cpp) guarantees that a label is in a statement list that holds the
// goto. So a goto sets the flag and leaves, by `break`, the loops between it and that list
// (after each, `if (flag) break;` again); in the list, the statements up to the label run
// under `if (!flag)`:
//
//   for (...) {                     for (...) {
//     if (bad) goto done;             if (bad) { goto.done = true; break; }
//     work();                         work();
//   }                               }
//   more();                         if (!goto.done) { more(); }
//   done: tidy();                   goto.done = false; tidy();
//
// A label that a goto jumps back to starts a loop over the statements from the label to the
// last one that jumps back, which runs again while the flag is set (the statements before the
// label are skipped while it is set, as for a jump forward):
//
//   again:                          do {
//     step();                         goto.again = false; step();
//     if (more) goto again;           if (more) goto.again = true;
//                                   } while (goto.again);
//
// Loops that overlap are merged into one. A break or continue directly in such a loop leaves
// it with a flag and is done again after it. Each lane takes its own jumps, as on the GPU.
#include "ir/lower_impl.h"

#include <algorithm>

namespace kern::ir::lower_detail {

namespace {

/// The labels in front of statement `s` (`a: b: x;` gives a and b) and the statement they
/// label.
fe::Stmt *unlabel(fe::Stmt *s, std::vector<fe::Stmt *> *labels) {
  while (s && s->kind == StmtKind::Label) {
    if (labels)
      labels->push_back(s);
    s = s->then;
  }
  return s;
}

bool contains(const std::vector<fe::Stmt *> &set, fe::Stmt *l) {
  return std::find(set.begin(), set.end(), l) != set.end();
}

void add(std::vector<fe::Stmt *> &set, fe::Stmt *l) {
  if (!contains(set, l))
    set.push_back(l);
}

bool remove(std::vector<fe::Stmt *> &set, fe::Stmt *l) {
  auto it = std::find(set.begin(), set.end(), l);
  if (it == set.end())
    return false;
  set.erase(it);
  return true;
}

} // namespace

/// Statements [first, last] of a list: one statement, or the statements of a goto loop
/// (`back` holds the labels jumped back to). `labels`: the targeted labels in front of them.
struct Lowerer::GotoUnit {
  size_t first = 0, last = 0;
  std::vector<fe::Stmt *> labels, back;
  bool isLoop() const { return !back.empty(); }
  bool entered(const std::vector<fe::Stmt *> &pending) const {
    for (fe::Stmt *l : labels)
      if (contains(pending, l))
        return true;
    return false;
  }
};

void Lowerer::resetGotos() {
  gotoFlags_.clear();
  labelDepth_.clear();
  loopDepth_ = 0;
  pending_.clear();
  brokenGotos_.clear();
  loopEscapes_.clear();
  gotoLoops_.clear();
}

Var *Lowerer::gotoFlag(fe::Stmt *label) {
  Var *&v = gotoFlags_[label];
  if (!v)
    v = newVar("goto." + label->name, Type::boolTy());
  return v;
}

int Lowerer::gotoDepth(fe::Stmt *label) const {
  auto it = labelDepth_.find(label);
  int depth = it == labelDepth_.end() ? 0 : it->second;
  for (const GotoLoop &g : gotoLoops_)
    if (contains(g.labels, label))
      return depth + 1;
  return depth;
}

Expr *Lowerer::anyFlag(const std::vector<fe::Stmt *> &labels) {
  Expr *e = nullptr;
  for (fe::Stmt *l : labels) {
    Expr *r = ref(gotoFlag(l));
    e = e ? bin(ir::BinaryOp::Or, e, r) : r;
  }
  return e ? e : constInt(Type::boolTy(), 0);
}

void Lowerer::stmtList(const std::vector<fe::Stmt *> &items) {
  // A nested list starts with nothing pending; what is pending at its end is the enclosing
  // statement's (an if whose branch jumps forward out of it).
  std::vector<fe::Stmt *> outer = std::move(pending_);
  pending_.clear();
  std::vector<GotoUnit> units;
  for (size_t i = 0; i < items.size(); ++i) {
    GotoUnit u;
    u.first = u.last = i;
    std::vector<fe::Stmt *> chain;
    unlabel(items[i], &chain);
    for (fe::Stmt *l : chain) {
      if (!l->isTargeted)
        continue;
      u.labels.push_back(l);
      if (!l->target)
        continue;
      u.back.push_back(l);
      for (size_t k = i; k < items.size(); ++k)
        if (items[k] == l->target)
          u.last = std::max(u.last, k);
    }
    if (!units.empty() && units.back().isLoop() && units.back().last >= i) {
      GotoUnit &loop = units.back(); // inside a goto loop: part of it
      loop.last = std::max(loop.last, u.last);
      loop.labels.insert(loop.labels.end(), u.labels.begin(), u.labels.end());
      loop.back.insert(loop.back.end(), u.back.begin(), u.back.end());
    } else {
      units.push_back(u);
    }
  }
  for (const GotoUnit &u : units)
    for (fe::Stmt *l : u.labels) {
      labelDepth_[l] = loopDepth_;
      assign(gotoFlag(l), constInt(Type::boolTy(), 0), l->loc);
    }
  gotoUnits(items, units, 0, units.size());
  for (fe::Stmt *l : outer)
    add(pending_, l);
}

void Lowerer::gotoUnits(const std::vector<fe::Stmt *> &items, const std::vector<GotoUnit> &units,
                        size_t from, size_t to) {
  size_t u = from;
  while (u < to) {
    const GotoUnit &unit = units[u];
    if (!unit.isLoop())
      for (fe::Stmt *l : unit.labels)
        if (remove(pending_, l)) // reached by its goto
          assign(gotoFlag(l), constInt(Type::boolTy(), 0), l->loc);
    if (pending_.empty() || (unit.isLoop() && unit.entered(pending_))) {
      if (unit.isLoop())
        gotoLoop(items, unit);
      else
        stmt(unlabel(items[unit.first], nullptr));
      ++u;
      continue;
    }
    // A goto is on its way to a later label: what comes before it runs where no flag is set.
    size_t v = u + 1;
    while (v < to && !units[v].entered(pending_))
      ++v;
    std::vector<fe::Stmt *> skipping = pending_;
    Stmt *guard = emit(ir::StmtKind::If, items[unit.first]->loc);
    guard->cond = unaryNot(anyFlag(skipping));
    guard->isBranch = false; // the jump is the goto's branch, not this one
    guard->thenBody = region([&] {
      pending_.clear();
      gotoUnits(items, units, u, v);
    });
    for (fe::Stmt *l : skipping)
      add(pending_, l);
    u = v;
  }
}

void Lowerer::gotoLoop(const std::vector<fe::Stmt *> &items, const GotoUnit &unit) {
  fe::SourceLoc at = items[unit.first]->loc;
  std::vector<fe::Stmt *> entering = pending_; // a jump forward into the loop, or past it
  std::vector<GotoUnit> inner;
  for (size_t k = unit.first; k <= unit.last; ++k) {
    GotoUnit u;
    u.first = u.last = k;
    std::vector<fe::Stmt *> chain;
    unlabel(items[k], &chain);
    for (fe::Stmt *l : chain)
      if (l->isTargeted)
        u.labels.push_back(l);
    inner.push_back(u);
  }
  Stmt *loop = m_.make<Stmt>(ir::StmtKind::Loop);
  loop->loc = at;
  loop->site = m_.addSite(SiteKind::Loop, at, "goto " + unit.back.front()->name);
  loop->testFirst = false;
  beginLoopBody();
  gotoLoops_.push_back({loopDepth_, unit.labels});
  loop->body = region([&] {
    pending_ = entering;
    for (fe::Stmt *l : unit.back)
      add(pending_, l); // jumped back: skip to the label
    gotoUnits(items, inner, 0, inner.size());
  });
  std::vector<fe::Stmt *> after;
  for (fe::Stmt *l : pending_)
    if (!contains(unit.labels, l))
      after.push_back(l);
  loop->step = region([&] { loop->cond = anyFlag(unit.back); });
  GotoLoop g = gotoLoops_.back();
  gotoLoops_.pop_back();
  endLoopBody();
  for (Var *flag : {g.breakFlag, g.continueFlag})
    if (flag)
      assign(flag, constInt(Type::boolTy(), 0), at);
  cur_->stmts.push_back(loop);
  pending_ = after;
  finishLoop(at);
  // A break or continue that left the goto loop, done again outside it.
  for (auto [flag, s] : {std::pair{g.breakFlag, g.breakStmt}, {g.continueFlag, g.continueStmt}}) {
    if (!flag)
      continue;
    Stmt *again = emit(ir::StmtKind::If, s->loc);
    again->cond = ref(flag);
    again->isBranch = false;
    again->thenBody = region([&] { stmt(s); });
  }
}

bool Lowerer::jumpOutOfGotoLoop(fe::Stmt *s) {
  if (gotoLoops_.empty() || gotoLoops_.back().depth != loopDepth_)
    return false;
  GotoLoop &g = gotoLoops_.back();
  bool isBreak = s->kind == StmtKind::Break;
  Var *&flag = isBreak ? g.breakFlag : g.continueFlag;
  if (!flag) {
    flag = newVar(isBreak ? "goto.break" : "goto.continue", Type::boolTy());
    (isBreak ? g.breakStmt : g.continueStmt) = s;
  }
  assign(flag, constInt(Type::boolTy(), 1), s->loc);
  emit(ir::StmtKind::Break, s->loc);
  return true;
}

void Lowerer::gotoStmt(fe::Stmt *s) {
  fe::Stmt *l = s->target;
  if (!l)
    return; // reported by sema
  assign(gotoFlag(l), constInt(Type::boolTy(), 1), s->loc);
  if (loopDepth_ > gotoDepth(l)) {
    emit(ir::StmtKind::Break, s->loc);
    add(brokenGotos_, l);
  } else {
    add(pending_, l);
  }
}

void Lowerer::beginLoopBody() {
  loopEscapes_.push_back(std::move(brokenGotos_));
  brokenGotos_.clear();
  ++loopDepth_;
}

void Lowerer::endLoopBody() {
  --loopDepth_;
  std::swap(brokenGotos_, loopEscapes_.back());
}

void Lowerer::finishLoop(fe::SourceLoc loc) {
  std::vector<fe::Stmt *> escaped = std::move(loopEscapes_.back());
  loopEscapes_.pop_back();
  std::vector<fe::Stmt *> further;
  for (fe::Stmt *l : escaped) {
    if (gotoDepth(l) < loopDepth_)
      further.push_back(l);
    else
      add(pending_, l);
  }
  if (further.empty())
    return;
  Stmt *out = emit(ir::StmtKind::If, loc);
  out->cond = anyFlag(further);
  out->isBranch = false;
  out->thenBody = region([&] { emit(ir::StmtKind::Break, loc); });
  for (fe::Stmt *l : further)
    add(brokenGotos_, l);
}

void Lowerer::switchLabels(const std::vector<fe::Stmt *> &flat) {
  for (fe::Stmt *x : flat) {
    while (x && (x->kind == StmtKind::Case || x->kind == StmtKind::Default))
      x = x->then;
    std::vector<fe::Stmt *> chain;
    unlabel(x, &chain);
    for (fe::Stmt *l : chain)
      if (l->isTargeted) {
        labelDepth_[l] = loopDepth_;
        assign(gotoFlag(l), constInt(Type::boolTy(), 0), l->loc);
      }
  }
}

void Lowerer::switchItem(fe::Stmt *item) {
  std::vector<fe::Stmt *> labels;
  fe::Stmt *s = unlabel(item, &labels);
  for (fe::Stmt *l : labels)
    if (l->isTargeted && remove(pending_, l))
      assign(gotoFlag(l), constInt(Type::boolTy(), 0), l->loc);
  if (pending_.empty()) {
    stmt(s);
    return;
  }
  std::vector<fe::Stmt *> skipping = pending_;
  Stmt *guard = emit(ir::StmtKind::If, s ? s->loc : item->loc);
  guard->cond = unaryNot(anyFlag(skipping));
  guard->isBranch = false;
  guard->thenBody = region([&] {
    pending_.clear();
    stmt(s);
  });
  for (fe::Stmt *l : skipping)
    add(pending_, l);
}

} // namespace kern::ir::lower_detail
