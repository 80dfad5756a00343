// Virtual functions. A class with virtual functions (its own or a base's) is dynamic: its
// objects begin with a vtable pointer, a hidden field `<vptr>` at offset 0 (shared with the
// first base when that base is dynamic, as the Itanium C++ ABI shares it with the primary
// base), so `sizeof` is nvcc's and g++'s. A constructor stores its class's number there after
// the bases are constructed (the lowering tags it with the side, host or device, whose code
// ran the constructor). A call of a virtual function that does not name the class (`p->f()`,
// `r.f()`, `f()` in a member function) calls the function's dispatcher, which this file makes
// and which the lowering (ir/lower_virtual.cpp) fills with one call per class that derives
// from the function's class in this file, chosen by the object's vtable pointer.
#include "frontend/sema_impl.h"

namespace kern::frontend::sema_detail {

namespace {

/// `ns::Box<a::B>::get` -> `get`: the name after the last `::` outside template arguments.
std::string lastName(const std::string &n) {
  size_t cut = std::string::npos;
  int depth = 0;
  for (size_t i = 0; i + 1 < n.size(); ++i) {
    depth += n[i] == '<' ? 1 : n[i] == '>' ? -1 : 0;
    if (depth == 0 && n[i] == ':' && n[i + 1] == ':')
      cut = i++;
  }
  return cut == std::string::npos ? n : n.substr(cut + 2);
}

} // namespace

uint64_t Sema::vtableNumber(const std::string &className) {
  uint64_t h = 1469598103934665603ull; // FNV-1a: the same number for the class in every file
  for (unsigned char c : className)
    h = (h ^ c) * 1099511628211ull;
  h &= (1ull << 40) - 1;
  return h ? h : 1;
}

void Sema::vtablePointer(StructDecl *sd, const Type *t) {
  if (options_.cLanguage)
    return;
  StructInfo *r = t->record;
  bool own = false, inherited = false;
  for (FunctionDecl *m : sd->methods)
    own |= m->isVirtual;
  for (size_t i = 0; i < r->bases.size(); ++i) {
    if (!r->bases[i].type->record->dynamic)
      continue;
    if (i == 0) {
      inherited = true;
      continue;
    }
    error(sd->loc, "a class whose base '" + r->bases[i].type->str() +
                       "' has virtual functions but is not its first base is not supported");
  }
  if (!own && !inherited)
    return;
  r->dynamic = true;
  if (inherited)
    return; // the first base's vtable pointer is this class's
  StructField vptr;
  vptr.name = "<vptr>";
  vptr.type = types_.sizeTy();
  vptr.isVptr = true;
  r->fields.insert(r->fields.begin(), vptr);
  for (StructBase &b : r->bases)
    if (b.field >= 0)
      ++b.field;
}

Stmt *Sema::vptrStore(const Type *st, SourceLoc at) {
  Expr *self = make(ExprKind::Ident, at);
  self->name = "this";
  Expr *member = make(ExprKind::Member, at);
  member->isArrow = true;
  member->name = "<vptr>";
  member->operands = {self};
  Expr *fn = make(ExprKind::Ident, at);
  fn->name = "__kern_vtable";
  Expr *number = make(ExprKind::IntLit, at);
  number->text = std::to_string(vtableNumber(st->record->name));
  Expr *call = make(ExprKind::Call, at);
  call->operands = {fn};
  call->args = {number};
  Expr *assign = make(ExprKind::Binary, at);
  assign->binaryOp = BinaryOp::Assign;
  assign->operands = {member, call};
  Stmt *s = tu_.make<Stmt>(StmtKind::Expr);
  s->loc = at;
  s->expr = assign;
  return s;
}

bool Sema::sameSignature(const FunctionDecl *a, const FunctionDecl *b) {
  if (a->isDestructor || b->isDestructor)
    return a->isDestructor && b->isDestructor;
  if (a->isConstructor || b->isConstructor || a->isStaticMember || b->isStaticMember ||
      lastName(a->name) != lastName(b->name) || a->isConstMethod != b->isConstMethod || !a->type ||
      !b->type || a->type->params.size() != b->type->params.size())
    return false;
  for (size_t i = 1; i < a->type->params.size(); ++i)
    if (a->type->params[i] != b->type->params[i])
      return false;
  return true;
}

bool Sema::isVirtualMethod(const FunctionDecl *f) {
  if (!f || !f->owner || !f->owner->type || f->isStaticMember || f->isConstructor ||
      !f->owner->type->record->dynamic)
    return false;
  if (f->isVirtual)
    return true;
  // Declared `virtual` in its class (a definition after the class does not say it again).
  for (FunctionDecl *m : f->owner->methods)
    if (m != f && m->isVirtual && sameSignature(m, f))
      return true;
  // Or it overrides a base's virtual function.
  for (const StructBase &b : f->owner->type->record->bases) {
    auto it = structDecls_.find(b.type->record);
    if (it == structDecls_.end())
      continue;
    for (FunctionDecl *m : it->second->methods)
      if (sameSignature(m, f) && isVirtualMethod(m))
        return true;
  }
  return false;
}

FunctionDecl *Sema::dispatcherOf(FunctionDecl *f) {
  auto key = std::make_pair(f->owner->type->record, f->isDestructor ? std::string("~") : f->name);
  auto &set = dispatchers_[key];
  for (FunctionDecl *d : set)
    if (sameSignature(d->dispatches, f))
      return d;
  auto *d = tu_.make<FunctionDecl>(*f);
  d->name = f->name + " [virtual]";
  d->body = tu_.make<Stmt>(StmtKind::Compound);
  d->body->loc = f->loc;
  d->definition = d;
  d->dispatches = f;
  d->isVirtual = false;
  d->isPure = false;
  d->isUsed = true;
  d->addressTaken = false;
  d->memberInits.clear();
  d->quals.isStatic = true; // each file dispatches over the classes it knows
  d->quals.isInline = false;
  d->params.clear();
  for (VarDecl *p : f->params)
    d->params.push_back(tu_.make<VarDecl>(*p));
  instances_.insert(d);
  tu_.decls.push_back(d);
  set.push_back(d);
  return d;
}

FunctionDecl *Sema::finalOverrider(const Type *ct, FunctionDecl *m) {
  for (const Type *x = ct; x;) {
    auto it = structDecls_.find(x->record);
    if (it != structDecls_.end())
      for (FunctionDecl *c : it->second->methods)
        if (sameSignature(c, m))
          return c->isPure ? nullptr : c->definition ? c->definition : c;
    if (x == m->owner->type || x->record->bases.empty())
      break;
    x = x->record->bases[0].type;
  }
  return nullptr;
}

void Sema::finishVirtualDispatch() {
  for (auto &[key, set] : dispatchers_)
    for (FunctionDecl *d : set) {
      FunctionDecl *m = d->dispatches;
      const Type *bt = m->owner->type;
      std::vector<std::pair<uint64_t, std::vector<FunctionDecl *>>> targets;
      for (auto &[record, sd] : structDecls_) {
        const Type *ct = sd->type;
        if (!ct || !record->dynamic || (ct != bt && !isDerivedFrom(ct, bt)))
          continue;
        std::vector<FunctionDecl *> chain;
        if (m->isDestructor) { // the class's destructor, then its bases', as C++ destroys it
          for (const Type *x = ct; x;
               x = x->record->bases.empty() ? nullptr : x->record->bases[0].type)
            if (FunctionDecl *own = destructorOf(x))
              chain.push_back(own->definition ? own->definition : own);
        } else if (FunctionDecl *over = finalOverrider(ct, m)) {
          chain.push_back(over);
        }
        if (chain.empty())
          continue; // pure here: calling it is a fault
        for (FunctionDecl *c : chain)
          c->isUsed = true;
        targets.push_back({vtableNumber(record->name), chain});
      }
      std::sort(targets.begin(), targets.end(), [](auto &a, auto &b) { return a.first < b.first; });
      d->virtualTargets = targets;
    }
}

void Sema::virtualCall(Expr *e, FunctionDecl *&f, bool qualified) {
  // `B::f()` and `p->B::f()` call B's own version; a named object (not a reference) is of its
  // declared class, whatever its vptr says (`B b = d;` copies d's).
  if (qualified || !isVirtualMethod(f))
    return;
  if (!e->args.empty()) {
    const Expr *self = e->args[0];
    if (self->kind == ExprKind::Unary && self->unaryOp == UnaryOp::AddrOf &&
        !self->operands.empty() && self->operands[0]->kind == ExprKind::Ident) {
      auto *v = dynamic_cast<VarDecl *>(self->operands[0]->decl);
      if (v && v->type && !v->type->isReference)
        return;
    }
  }
  f = dispatcherOf(f);
}

} // namespace kern::frontend::sema_detail
