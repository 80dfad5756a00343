// Semantic analysis of goto: each goto finds its label, and the labels learn which statements
// jump back to them. The lowering (ir/lower_goto.cpp) turns the jumps into flags and loops,
// so a label must be in a block (or statement list) that holds the goto: a jump forward or
// back within it, or out of nested blocks, loops and switches to it. C++'s rule holds too: a
// jump forward may not bypass a variable's initialisation (C allows it).
#include "frontend/sema_impl.h"

namespace kern::frontend::sema_detail {

namespace {

/// One step of the way from a function's body to a statement: statement `index` of a list.
/// A list is a block's statements, or the one statement of an if's branch or a loop's body
/// (named by the address of the field that holds it).
struct Position {
  const void *list = nullptr;
  size_t index = 0;
  bool inSwitch = false; // the list is a switch's body
  Stmt *owner = nullptr; // the statement whose block, branch or body the list is
};
using Path = std::vector<Position>;

struct GotoWalk {
  std::map<const void *, std::vector<Stmt *>> lists;
  std::map<Stmt *, Path> labels, gotos;
  VarDecl *vla = nullptr; // a variable-length array of the function

  void list(const void *id, Stmt *owner, std::vector<Stmt *> items, bool inSwitch, Path &path) {
    for (size_t i = 0; i < items.size(); ++i) {
      path.push_back({id, i, inSwitch, owner});
      stmt(items[i], path);
      path.pop_back();
    }
    lists[id] = std::move(items);
  }
  void slot(Stmt *owner, Stmt *const *field, bool inSwitch, Path &path) {
    if (*field)
      list(field, owner, {*field}, inSwitch, path);
  }
  void decl(Stmt *s) {
    if (s && s->kind == StmtKind::Decl)
      for (Decl *d : s->decls)
        if (auto *v = dynamic_cast<VarDecl *>(d); v && v->type && v->type->isVariablyModified())
          vla = v;
  }

  void stmt(Stmt *s, Path &path) {
    if (!s)
      return;
    switch (s->kind) {
    case StmtKind::Compound:
      list(s, s, s->body, false, path);
      return;
    case StmtKind::If:
      slot(s, &s->then, false, path);
      slot(s, &s->elseStmt, false, path);
      return;
    case StmtKind::For:
      decl(s->init);
      slot(s, &s->then, false, path);
      return;
    case StmtKind::While:
    case StmtKind::DoWhile:
    case StmtKind::RangeFor:
      slot(s, &s->then, false, path);
      return;
    case StmtKind::Switch:
      if (s->then && s->then->kind == StmtKind::Compound)
        list(s->then, s, s->then->body, true, path);
      else
        slot(s, &s->then, true, path);
      return;
    case StmtKind::Label:
      labels[s] = path;
      stmt(s->then, path); // the labelled statement is where the label is
      return;
    case StmtKind::Case:
    case StmtKind::Default:
      stmt(s->then, path);
      return;
    case StmtKind::Goto:
      gotos[s] = path;
      return;
    case StmtKind::Decl:
      decl(s);
      return;
    default:
      return;
    }
  }
};

/// The variable whose initialisation a jump past `s` (into its scope) bypasses, or null. C++
/// forbids the jump when the variable has an initialiser (a constructor call included); a
/// scalar, array or plain struct declared without one may be jumped over.
VarDecl *initializedBy(Stmt *s) {
  if (!s || s->kind != StmtKind::Decl)
    return nullptr;
  for (Decl *d : s->decls)
    if (auto *v = dynamic_cast<VarDecl *>(d);
        v && v->init && !v->quals.isStatic && !v->quals.isExtern)
      return v;
  return nullptr;
}

} // namespace

void Sema::gotoStmt(Stmt *s) {
  if (stmtExprDepth_) {
    error(s->loc, "'goto' in a statement expression is not supported");
    return;
  }
  // The destructor calls of every object in scope, made here; resolveGotos keeps those of the
  // scopes the jump leaves (C++ destroys them, last declared first).
  std::vector<GotoState::Level> levels;
  size_t depth = scopeDepth(scope_);
  for (Scope *sc = scope_; sc && sc != functionScope_->parent; sc = sc->parent, --depth) {
    GotoState::Level level;
    level.depth = depth;
    // The scope's exit calls (a try block's pop) first: they run after its destructors.
    for (const auto &exit : sc->exits)
      if (Stmt *call = scopeExitCall(exit, s->loc))
        level.objects.push_back({call});
    for (VarDecl *v : sc->destructible) {
      Expr *obj = make(ExprKind::Ident, s->loc);
      obj->name = v->name;
      obj->decl = v;
      obj->type = v->type;
      obj->isLValue = true;
      std::vector<Stmt *> calls;
      destroy(obj, v->type, calls, s->loc);
      level.objects.push_back(std::move(calls));
    }
    levels.push_back(std::move(level));
  }
  gotos_.exits[s] = std::move(levels);
  gotos_.gotos.push_back(s);
}

size_t Sema::scopeDepth(const Scope *sc) const {
  size_t depth = 0;
  for (; sc && sc != functionScope_; sc = sc->parent)
    ++depth;
  return depth;
}

void Sema::label(Stmt *s) {
  gotos_.labelScopes[s] = {scopeDepth(scope_), scope_->exits.size() + scope_->destructible.size()};
  auto [it, fresh] = gotos_.labels.emplace(s->name, s);
  if (!fresh) {
    error(s->loc, "redefinition of label '" + s->name + "'");
    diags_.note(it->second->loc, "previous definition is here");
    return;
  }
  if (stmtExprDepth_)
    gotos_.inStmtExpr.insert(s);
}

void Sema::resolveGotos(Stmt *body) {
  if (gotos_.gotos.empty())
    return;
  GotoWalk walk;
  Path root;
  walk.stmt(body, root);
  std::map<Stmt *, size_t> lastBack; // per label, the furthest statement that jumps back
  bool reportedVla = false;
  for (Stmt *g : gotos_.gotos) {
    auto it = gotos_.labels.find(g->name);
    if (it == gotos_.labels.end()) {
      error(g->loc, "use of undeclared label '" + g->name + "'");
      continue;
    }
    Stmt *l = it->second;
    if (gotos_.inStmtExpr.count(l) || !walk.labels.count(l) || !walk.gotos.count(g)) {
      error(g->loc, "cannot jump into a statement expression");
      continue;
    }
    if (walk.vla) {
      if (!reportedVla) {
        error(g->loc, "goto in a function with a variable-length array is not supported");
        diags_.note(walk.vla->loc,
                    "variable-length array '" + walk.vla->name + "' is declared here");
      }
      reportedVla = true;
      continue;
    }
    const Path &to = walk.labels[l];
    const Path &from = walk.gotos[g];
    // The deepest list that holds both the goto and the label.
    size_t shared = 0;
    while (shared < to.size() && shared < from.size() && to[shared].list == from[shared].list &&
           (shared == 0 || to[shared - 1].index == from[shared - 1].index))
      ++shared;
    // shared >= 1: both are in the function's body.
    const Position &at = to[shared - 1];
    const Position &common = from[shared - 1];
    // C++: no jump into the scope of a variable past its initialisation.
    if (!options_.cLanguage) {
      VarDecl *bypassed = nullptr;
      const std::vector<Stmt *> &items = walk.lists[at.list];
      for (size_t i = common.index + 1; i < at.index && !bypassed; ++i)
        bypassed = initializedBy(items[i]);
      for (size_t d = shared; d < to.size() && !bypassed; ++d) { // the blocks it enters
        const std::vector<Stmt *> &inner = walk.lists[to[d].list];
        for (size_t i = 0; i < to[d].index && !bypassed; ++i)
          bypassed = initializedBy(inner[i]);
        if (!bypassed && to[d].owner && to[d].owner->kind == StmtKind::For)
          bypassed = initializedBy(to[d].owner->init);
      }
      if (bypassed) {
        error(g->loc, "cannot jump from this goto statement to its label");
        diags_.note(bypassed->loc, "jump bypasses variable initialization");
        continue;
      }
    }
    if (shared != to.size()) {
      error(g->loc, "a goto into a block, loop, branch or switch that does not hold it is not "
                    "supported (the label must be in a block that holds the goto)");
      diags_.note(l->loc, "label '" + l->name + "' is here");
      continue;
    }
    if (common.index >= at.index) { // a jump back (or to the start of the statement it is in)
      if (at.inSwitch) {
        error(g->loc, "a goto back to a label in a switch's body is not supported");
        diags_.note(l->loc, "label '" + l->name + "' is here");
        continue;
      }
      auto [b, fresh] = lastBack.emplace(l, common.index);
      if (!fresh)
        b->second = std::max(b->second, common.index);
      l->target = walk.lists[at.list][b->second];
    }
    g->target = l;
    l->isTargeted = true;
    leaveScopes(g, l);
  }
}

void Sema::leaveScopes(Stmt *g, Stmt *l) {
  // The objects the jump takes out of scope: all of the scopes deeper than the label's, and
  // in the label's own scope those declared after it (a jump back), last declared first.
  const auto [labelDepth, labelCount] = gotos_.labelScopes[l];
  std::vector<Stmt *> calls;
  for (const GotoState::Level &level : gotos_.exits[g]) {
    if (level.depth < labelDepth)
      break;
    const size_t first = level.depth == labelDepth ? labelCount : 0;
    for (size_t k = level.objects.size(); k-- > first;)
      calls.insert(calls.end(), level.objects[k].begin(), level.objects[k].end());
  }
  if (calls.empty())
    return;
  // `goto l;` becomes `{ destructor calls...; goto l; }`.
  Stmt *jump = tu_.make<Stmt>(*g);
  g->kind = StmtKind::Compound;
  g->body = std::move(calls);
  g->body.push_back(jump);
  g->target = nullptr;
}

} // namespace kern::frontend::sema_detail
