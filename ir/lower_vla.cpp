// AST -> Kern IR: variable-length arrays of host code (C99, and g++'s extension, which nvcc's
// host compiler accepts). A VLA's bounds are evaluated when its declaration runs; its memory is
// taken from the stack then (an Alloca) and given back when its scope ends, or when a break or
// continue leaves the scope, so a VLA declared in a loop body takes the same stack on every
// iteration. Sizes and strides that involve a VLA are computed at run time.
#include "ir/lower_impl.h"

namespace kern::ir::lower_detail {

void Lowerer::evaluateBounds(const fe::Type *t, fe::SourceLoc loc) {
  for (; t->isArray() || t->isPointer(); t = t->elem) {
    if (!t->vlaBound)
      continue;
    Var *n = newVar("vla.bound", Type::i64(true));
    assign(n, cast(rvalue(t->vlaBound), Type::i64(true)), loc);
    vlaBounds_[t] = n;
  }
}

Expr *Lowerer::vlaBound(const fe::Type *t) {
  auto it = vlaBounds_.find(t);
  if (it != vlaBounds_.end())
    return ref(it->second);
  error(t->vlaBound->loc, "internal: variable-length array bound used before it is evaluated");
  return i64(0);
}

Expr *Lowerer::sizeOf(const fe::Type *t) {
  if (!t->hasRuntimeSize())
    return i64(static_cast<int64_t>(t->size()));
  Expr *count = t->vlaBound ? vlaBound(t) : i64(static_cast<int64_t>(t->count));
  return bin(ir::BinaryOp::Mul, count, sizeOf(t->elem));
}

Expr *Lowerer::scaledBy(Expr *index, const fe::Type *elem) {
  if (!elem->hasRuntimeSize())
    return scaled(index, elem->size());
  return bin(ir::BinaryOp::Mul, cast(index, Type::i64(true)), sizeOf(elem));
}

bool Lowerer::declaresVla(const std::vector<fe::Stmt *> &stmts) {
  for (const fe::Stmt *s : stmts) {
    if (!s)
      continue;
    if (s->kind == StmtKind::Case || s->kind == StmtKind::Default || s->kind == StmtKind::Label) {
      if (s->then && declaresVla({s->then}))
        return true;
      continue;
    }
    if (s->kind != StmtKind::Decl)
      continue;
    for (const fe::Decl *d : s->decls)
      if (auto *v = dynamic_cast<const fe::VarDecl *>(d))
        if (v->type && v->type->hasRuntimeSize() && !v->quals.isStatic)
          return true;
  }
  return false;
}

void Lowerer::openVlaScope(fe::SourceLoc loc) {
  Var *top = newVar("vla.scope", Type::ptr(AddrSpace::Host));
  emit(ir::StmtKind::StackSave, loc)->var = top;
  vlaScopes_.push_back(top);
}

void Lowerer::closeVlaScope(fe::SourceLoc loc) {
  restoreStack(vlaScopes_.size() - 1, loc);
  vlaScopes_.pop_back();
}

void Lowerer::restoreStack(size_t depth, fe::SourceLoc loc) {
  if (depth < vlaScopes_.size())
    emit(ir::StmtKind::StackRestore, loc)->value = ref(vlaScopes_[depth]);
}

void Lowerer::leaveScopesFor(bool isContinue, fe::SourceLoc loc) {
  for (auto it = jumpTargets_.rbegin(); it != jumpTargets_.rend(); ++it)
    if (it->isLoop || !isContinue) {
      restoreStack(it->vlaDepth, loc);
      return;
    }
}

void Lowerer::scopedStmts(const std::vector<fe::Stmt *> &stmts, fe::SourceLoc loc) {
  const bool vla = declaresVla(stmts);
  if (vla)
    openVlaScope(loc);
  stmtList(stmts);
  if (vla)
    closeVlaScope(loc);
}

void Lowerer::vlaLocal(fe::VarDecl *v) {
  const fe::Type *t = v->type;
  Var *addr = newVar(v->name, Type::ptr(AddrSpace::Host));
  Stmt *a = emit(ir::StmtKind::Alloca, v->loc);
  a->var = addr;
  // bytes = (the product of the constant dimensions and the element size) * the bounds
  uint64_t fixed = 1;
  const fe::Type *e = t;
  for (; e->isArray() && e->hasRuntimeSize(); e = e->elem)
    if (e->vlaBound)
      a->args.push_back(vlaBound(e));
    else
      fixed *= e->count;
  a->value = constInt(Type::i64(false), static_cast<int64_t>(fixed * e->size()));
  a->site = m_.addSite(SiteKind::Other, v->loc, "variable-length array '" + v->name + "'");
  Storage st;
  st.byRef = addr;
  locals_[v] = st;
  if (hasDim3(t)) { // each element default-constructed, as in a fixed-size array of dim3
    Expr *count = bin(ir::BinaryOp::Div, sizeOf(t), i64(static_cast<int64_t>(e->size())));
    elementLoop(count, e->size(), v->loc, [&](Expr *off) {
      constructDefaults(ptrAdd(ref(addr), off, Type::ptr(AddrSpace::Host)), AddrSpace::Host, e,
                        v->loc);
    });
  }
}

} // namespace kern::ir::lower_detail
