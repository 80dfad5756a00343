// dynamic_cast, in host code (nvcc does not allow it in device code). A cast to a base (or to the
// same class) is the static conversion. A cast from a class with virtual functions to another class
// calls a function made here for the pair, whose body the lowering makes (ir/lower_virtual.cpp): it
// reads the object's vtable pointer and, for each class of the file that the object may be and that
// holds the target class, moves the pointer to the target's subobject; any other object gives null
// (a pointer) or a fault (a reference: C++ throws std::bad_cast, and kern has no exceptions). As
// virtual calls, the classes tested are those of the file.
#include "frontend/sema_impl.h"

namespace kern::frontend::sema_detail {

void Sema::dynamicCast(Expr *e) {
  if (side_ != Side::Host) { // as nvcc: device code has no run-time type information
    error(e->loc, "the operator 'dynamic_cast' is not allowed in device code");
    return;
  }
  if (!check(e->operands[0]))
    return;
  const Type *to = resolve(e->typeSyntax, defaultSpace());
  if (!to)
    return;
  Expr *o = e->operands[0];
  const bool reference = to->isPointer() && to->isReference;
  const Type *target = to->isPointer() ? to->elem : nullptr;
  if (!target || !(target->isStruct() || (!reference && target->isVoid()))) {
    error(e->loc, "dynamic_cast to '" + to->str() +
                      "': the type must be a pointer or reference to a class, or 'void *'");
    return;
  }
  if (target->isStruct() && !target->record->complete) {
    error(e->loc, "dynamic_cast to incomplete type '" + target->str() + "'");
    return;
  }
  const Type *source = nullptr;
  if (reference) {
    source = o->type;
    if (!o->isLValue || !source->isStruct()) {
      error(e->loc, "dynamic_cast to reference type '" + to->str() +
                        "' needs an lvalue of class type, not '" + source->str() + "'");
      return;
    }
    o = addressOf(o);
  } else {
    o = rvalue(o);
    source = o->type->isPointer() ? o->type->elem : nullptr;
    if (!source || !source->isStruct()) {
      error(e->loc, "dynamic_cast to '" + to->str() + "' of '" + o->type->str() +
                        "', which is not a pointer to a class");
      return;
    }
  }
  if (!source->record->complete) {
    error(e->loc, "dynamic_cast of a pointer to incomplete type '" + source->str() + "'");
    return;
  }
  Expr *result = nullptr;
  if (target->isStruct() && (target->record == source->record || isDerivedFrom(source, target))) {
    // To the class itself or a base: the static conversion, decided at compile time.
    result = make(ExprKind::Cast, e->loc);
    result->operands = {o};
    result->baseOffset = classCastOffset(source, target);
    result->type = types_.pointerTo(target, o->type->space, o->type->pointeeConst);
  } else if (!source->record->dynamic) {
    error(e->loc, "'" + source->str() +
                      "' is not polymorphic: dynamic_cast from it needs a virtual function");
    return;
  } else if (target->isVoid()) {
    // The most derived object: a class with virtual functions starts it (its vtable pointer
    // is the object's, at offset 0, as only a first base may have one).
    result = make(ExprKind::Cast, e->loc);
    result->operands = {o};
    result->type = types_.pointerTo(target, o->type->space, o->type->pointeeConst);
  } else {
    FunctionDecl *f = dynamicCastFunction(source, target, reference, e->loc);
    Expr *callee = make(ExprKind::Ident, e->loc);
    callee->name = f->name;
    callee->decl = f;
    callee->type = f->type;
    result = make(ExprKind::Call, e->loc);
    result->operands = {callee};
    result->args = {o};
    result->decl = f;
    if (!arguments(result, f->type, f->name))
      return;
    result->type = types_.pointerTo(target, AddrSpace::Host, to->pointeeConst);
  }
  if (!reference) {
    *e = *result;
    return;
  }
  *e = Expr(ExprKind::Unary); // the reference: the object the pointer points to
  e->loc = result->loc;
  e->unaryOp = UnaryOp::Deref;
  e->operands = {result};
  e->type = target;
  e->isLValue = true;
}

FunctionDecl *Sema::dynamicCastFunction(const Type *source, const Type *target, bool reference,
                                        SourceLoc at) {
  auto key = std::make_tuple(source->record, target->record, reference);
  auto it = dynamicCasts_.find(key);
  if (it != dynamicCasts_.end())
    return it->second;
  auto *f = tu_.make<FunctionDecl>();
  f->loc = at;
  f->name = "dynamic_cast<" + target->str() + (reference ? " &>(" : " *>(") + source->str() +
            (reference ? " &)" : " *)");
  auto *p = tu_.make<VarDecl>();
  p->loc = at;
  p->name = "object";
  p->type = types_.pointerTo(source, AddrSpace::Host, true); // any object's pointer converts
  f->params = {p};
  f->type = types_.function(types_.pointerTo(target, AddrSpace::Host, false), {p->type}, false);
  f->body = tu_.make<Stmt>(StmtKind::Compound);
  f->body->loc = at;
  f->definition = f;
  f->isUsed = true;
  f->quals.host = true;     // device code has no dynamic_cast, as in CUDA
  f->quals.isStatic = true; // each file tests the classes it knows
  f->dynamicCastTo = target;
  f->dynamicCastReference = reference;
  instances_.insert(f);
  tu_.decls.push_back(f);
  dynamicCasts_[key] = f;
  return f;
}

void Sema::finishDynamicCasts() {
  for (auto &[key, f] : dynamicCasts_) {
    const Type *source = f->params[0]->type->elem, *target = f->dynamicCastTo;
    f->castTargets.clear();
    for (auto &[record, sd] : structDecls_) {
      const Type *ct = sd->type;
      if (!ct || !record->dynamic || (ct->record != source->record && !isDerivedFrom(ct, source)))
        continue;
      // The source's subobject is at offset 0 (a class with virtual functions is the first
      // base of each class that derives from it); the target's must be one, or the cast fails.
      int64_t offset = 0;
      int paths = 1;
      if (ct->record != target->record && !baseOffset(ct, target, offset, &paths))
        continue;
      if (paths == 1)
        f->castTargets.push_back({vtableNumber(record->name), offset});
    }
    std::sort(f->castTargets.begin(), f->castTargets.end());
  }
}

} // namespace kern::frontend::sema_detail
