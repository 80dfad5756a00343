// Scalar replacement of direct local slots (see promote.h).
#include "ir/promote.h"

#include <algorithm>
#include <map>
#include <set>

namespace kern::ir {

namespace {

/// The byte offset of `addr` from its slot's start, when every addition on the way is a
/// constant: false otherwise.
bool constantOffset(const Expr *addr, int64_t &offset) {
  offset = 0;
  for (; addr->kind != ExprKind::LocalAddr; addr = addr->ops[0]) {
    if (addr->kind == ExprKind::PtrAdd) {
      if (addr->ops[1]->kind != ExprKind::Const)
        return false;
      offset += addr->ops[1]->intValue;
    } else if (addr->kind != ExprKind::Cast) {
      return false;
    }
  }
  return true;
}

class Promote {
public:
  Promote(Module &m, Function &f) : m_(m), f_(f) {}

  void run() {
    for (LocalSlot *s : f_.slots)
      if (s->direct)
        candidates_[s];
    if (candidates_.empty())
      return;
    survey(f_.body);
    // A slot qualifies when its accesses are fields: one type per offset, none overlapping,
    // each inside the slot. (The backend checks the bounds of the others; B128 copies move
    // several fields at once.)
    for (auto &[slot, fields] : candidates_) {
      if (rejected_.count(slot))
        continue;
      int64_t end = 0;
      bool ok = true;
      for (auto &[offset, field] : fields) {
        if (offset < end ||
            offset + static_cast<int64_t>(field.type.bytes()) > static_cast<int64_t>(slot->size) ||
            field.type.kind == TypeKind::B128) {
          ok = false;
          break;
        }
        end = offset + field.type.bytes();
      }
      if (!ok)
        continue;
      for (auto &[offset, field] : fields) {
        Var *v = m_.make<Var>();
        v->id = nextVar();
        v->name = slot->name + "." + std::to_string(offset);
        v->type = field.type;
        f_.vars.push_back(v);
        field.var = v;
      }
      promoted_.insert(slot);
    }
    if (promoted_.empty())
      return;
    rewrite(f_.body);
    std::vector<LocalSlot *> kept;
    for (LocalSlot *s : f_.slots)
      if (!promoted_.count(s)) {
        s->id = static_cast<uint32_t>(kept.size());
        kept.push_back(s);
      }
    f_.slots = std::move(kept);
  }

private:
  struct Field {
    Type type;
    Var *var = nullptr;
  };

  uint32_t nextVar() {
    uint32_t n = 0;
    for (const Var *v : f_.vars)
      n = std::max(n, v->id + 1);
    return n;
  }

  void access(const Expr *addr, Type type, LocalSlot *slot) {
    if (!slot || !candidates_.count(slot))
      return;
    int64_t offset = 0;
    if (!constantOffset(addr, offset) || offset < 0) {
      rejected_.insert(slot);
      return;
    }
    auto [it, fresh] = candidates_[slot].emplace(offset, Field{type});
    if (!fresh && it->second.type != type)
      rejected_.insert(slot);
  }

  void surveyExpr(const Expr *e) {
    if (!e)
      return;
    if (e->kind == ExprKind::Load && e->space == AddrSpace::Local)
      access(e->ops[0], e->type, e->slot);
    for (const Expr *o : e->ops)
      surveyExpr(o);
  }

  void survey(const Block *b) {
    if (!b)
      return;
    for (const Stmt *s : b->stmts) {
      if (s->kind == StmtKind::Store && s->space == AddrSpace::Local)
        access(s->addr, s->value->type, s->slot);
      for (const Expr *e : {s->value, s->addr, s->cond, s->format})
        surveyExpr(e);
      for (const Expr *e : s->args)
        surveyExpr(e);
      for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        survey(c);
    }
  }

  Var *fieldVar(const Expr *addr, LocalSlot *slot) {
    if (!slot || !promoted_.count(slot))
      return nullptr;
    int64_t offset = 0;
    constantOffset(addr, offset);
    return candidates_[slot][offset].var;
  }

  void rewriteExpr(Expr *&e) {
    if (!e)
      return;
    for (Expr *&o : e->ops)
      rewriteExpr(o);
    if (e->kind == ExprKind::Load && e->space == AddrSpace::Local)
      if (Var *v = fieldVar(e->ops[0], e->slot)) {
        Expr *r = m_.make<Expr>(ExprKind::VarRef, v->type);
        r->var = v;
        e = r;
      }
  }

  void rewrite(Block *b) {
    if (!b)
      return;
    for (Stmt *s : b->stmts) {
      for (Expr **e : {&s->value, &s->addr, &s->cond, &s->format})
        rewriteExpr(*e);
      for (Expr *&e : s->args)
        rewriteExpr(e);
      if (s->kind == StmtKind::Store && s->space == AddrSpace::Local)
        if (Var *v = fieldVar(s->addr, s->slot)) {
          s->kind = StmtKind::Assign;
          s->var = v;
          s->addr = nullptr;
          s->slot = nullptr;
          s->site = 0;
          s->space = AddrSpace::Generic;
        }
      for (Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        rewrite(c);
    }
  }

  Module &m_;
  Function &f_;
  std::map<LocalSlot *, std::map<int64_t, Field>> candidates_;
  std::set<LocalSlot *> rejected_, promoted_;
};

} // namespace

void promoteDirectSlots(Module &m) {
  for (Function *f : m.functions)
    if (f->kind != FunctionKind::Host)
      Promote(m, *f).run();
}

} // namespace kern::ir
