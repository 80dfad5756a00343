// Virtual calls. Sema makes a dispatcher for each virtual member function that a program calls
// without naming its class (frontend/sema_virtual.cpp): a function of the method's type whose
// targets are, for each class the object may be, the class's vtable number and its final
// overrider. Its body, made here, reads the object's vtable pointer (at offset 0) and calls the
// overrider of the class it names, as a call through a device function pointer dispatches
// (an if per class); a value that names none of them is a fault. The vtable pointer a
// constructor stores is the class's number tagged with the side that constructed the object,
// so an object made on the host faults when a kernel calls its virtual functions, as the
// object's host vtable does on a GPU. A dynamic_cast's function (frontend/sema_dynamic_cast.cpp)
// tests the object's vtable pointer the same way.
#include "ir/lower_impl.h"

#include <map>

namespace kern::ir::lower_detail {

int64_t Lowerer::vtableValue(uint64_t number) const {
  const uint64_t tag = device_ ? 0x5d00000000000000ull : 0x7b00000000000000ull;
  return static_cast<int64_t>(tag | (number << 4));
}

void Lowerer::virtualBody(fe::FunctionDecl *f) {
  Var *self = F->params[sret_ ? 1 : 0];
  Expr *vptr =
      snapshot(load(ref(self), Type::i64(false), self->type.space, f->loc), "vptr", f->loc);
  std::vector<std::pair<int64_t, Function *>> targets;
  std::map<Function *, std::vector<Function *>> chains; // a destructor's: its bases' after it
  for (auto &[number, decls] : f->virtualTargets) {
    std::vector<Function *> fns;
    for (fe::FunctionDecl *fd : decls) {
      auto it = functions_.find(fd);
      if (it == functions_.end() && fd->definition)
        it = functions_.find(fd->definition);
      Function *fn = it == functions_.end() ? nullptr
                     : device_              ? it->second.device
                                            : it->second.host;
      if (!fn)
        break; // declared, never defined, or not for this side: reaching it is a fault
      fns.push_back(fn);
    }
    if (fns.size() != decls.size() || fns.empty())
      continue;
    targets.push_back({vtableValue(number), fns[0]});
    chains[fns[0]] = fns;
  }
  const std::string what = "virtual call of " + f->dispatches->name;
  dispatch(
      vptr, targets, f->loc,
      [&](Function *first) {
        Expr *c = nullptr;
        for (Function *target : chains[first]) {
          if (c) {
            Stmt *s = emit(ir::StmtKind::Eval, f->loc);
            s->value = c;
          }
          c = node(ir::ExprKind::Call, target->returnType);
          c->callee = target;
          for (size_t i = 0; i < F->params.size(); ++i) {
            Expr *a = ref(F->params[i]);
            if (i < target->params.size() && a->type != target->params[i]->type &&
                !(a->type.isPtr() && target->params[i]->type.isPtr()))
              a = cast(a, target->params[i]->type);
            c->ops.push_back(a);
          }
          c->site = m_.addSite(SiteKind::Call, f->loc, "call " + target->name);
        }
        Function *target = chains[first].back();
        Stmt *r = m_.make<Stmt>(ir::StmtKind::Return);
        r->loc = f->loc;
        if (F->returnType.isVoid() || target->returnType.isVoid()) {
          Stmt *s = emit(ir::StmtKind::Eval, f->loc);
          s->value = c;
        } else {
          r->value = cast(c, F->returnType);
        }
        cur_->stmts.push_back(r);
      },
      IntrinsicId::VirtualFault, what);
  if (!F->returnType.isVoid()) { // after the fault, which ends the thread: a value all the same
    Stmt *r = m_.make<Stmt>(ir::StmtKind::Return);
    r->loc = f->loc;
    r->value = cast(constInt(Type::i64(true), 0), F->returnType);
    cur_->stmts.push_back(r);
  }
}

void Lowerer::dynamicCastBody(fe::FunctionDecl *f) {
  // if (!p) return null; vptr = *p; if (vptr == class1) return p + offset1; ...; return null
  // (or fault, for a reference). The object's vtable pointer names its dynamic type.
  Var *self = F->params[0];
  const Type rt = F->returnType;
  const std::string what = f->name;
  auto give = [&](Expr *v) {
    Stmt *r = m_.make<Stmt>(ir::StmtKind::Return);
    r->loc = f->loc;
    r->value = v;
    cur_->stmts.push_back(r);
  };
  Expr *null = cast(constInt(Type::i64(false), 0), rt);
  if (!f->dynamicCastReference) { // a null pointer casts to null
    Stmt *s = emit(ir::StmtKind::If, f->loc);
    s->cond =
        bin(ir::BinaryOp::Eq, cast(ref(self), Type::i64(false)), constInt(Type::i64(false), 0));
    s->site = m_.addSite(SiteKind::Branch, f->loc, what);
    s->thenBody = region([&] { give(null); });
  }
  Expr *vptr =
      snapshot(load(ref(self), Type::i64(false), self->type.space, f->loc), "vptr", f->loc);
  for (auto &[number, offset] : f->castTargets) {
    Stmt *s = emit(ir::StmtKind::If, f->loc);
    s->cond = bin(ir::BinaryOp::Eq, vptr, constInt(Type::i64(false), vtableValue(number)));
    s->site = m_.addSite(SiteKind::Branch, f->loc, what);
    const int64_t by = offset;
    s->thenBody = region([&] {
      Expr *p = ref(self);
      if (by != 0) {
        Expr *moved = node(ir::ExprKind::PtrAdd, p->type);
        moved->ops = {p, constInt(Type::i64(true), by)};
        p = moved;
      }
      give(cast(p, rt));
    });
  }
  if (f->dynamicCastReference) {
    Expr *x = intrinsic(IntrinsicId::BadCastFault, Type::voidTy(), {vptr});
    x->site = m_.addSite(SiteKind::Other, f->loc, what);
    Stmt *s = emit(ir::StmtKind::Eval, f->loc);
    s->value = x;
  }
  give(m_.make<Expr>(*null)); // after the fault, which ends the thread: a value all the same
}

} // namespace kern::ir::lower_detail
