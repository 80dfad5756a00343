// C++'s free store in host code: `new` and `delete`. Sema writes each as the C it means, a
// statement expression around kern's heap (runtime: hostNew/hostDelete, the heap malloc uses,
// remembering which form made each block):
//
//   new S(1, 2)        ({ S *p = (S *)__kern_new(sizeof(S), 0); *p = S(1, 2); p; })
//                      (`*p = S(1, 2)` initialises: S's constructor runs on *p itself)
//   new float[n]()     ({ size_t c = n; float *p = (float *)__kern_new(c * 4, 1);
//                         memset(p, 0, c * 4); p; })
//   delete[] p         __kern_delete(p, 1)   (after each element's destructor, last first; 3 when
//                      it has none: delete of a new[] block is then a warning, not an error)
//
// An array of a struct whose default constructor does work runs it for each element.
#include "frontend/sema_impl.h"
#include "frontend/sema_maker.h"

namespace kern::frontend::sema_detail {

void Sema::newExpression(Expr *e) {
  // In device code the blocks come from the device heap (runtime/device_heap.h); a __host__
  // __device__ function's would need one form per side.
  const bool device = side_ == Side::Device;
  if (side_ == Side::Both && !e->placement) {
    error(e->loc, std::string(e->kind == ExprKind::New ? "new" : "delete") +
                      " in a __host__ __device__ function is not supported");
    return;
  }
  Maker m{tu_, e->loc};
  if (e->kind == ExprKind::Delete) {
    if (!check(e->operands[0]))
      return;
    Expr *p = rvalue(e->operands[0]);
    if (!p->type->isPointer()) {
      error(e->loc, "cannot delete '" + p->type->str() + "': it is not a pointer");
      return;
    }
    const Type *pointee = p->type->elem;
    // A class's own operator delete frees what its operator new gave (`T::operator delete(q)`,
    // with the size when it takes one); otherwise kern's heap takes the block back.
    FunctionDecl *ownDelete =
        e->globalNew ? nullptr
                     : method(pointee, e->isArrayForm ? "operator delete[]" : "operator delete");
    // `trivial`: nothing to destroy, so deleting a new[] block with delete (or a new one with
    // delete[]) frees it as a native build does; the runtime warns (bit 1 of the form).
    auto release = [&](Expr *q, bool trivial) {
      if (ownDelete) {
        std::vector<Expr *> args = {q};
        if (ownDelete->params.size() > 1)
          args.push_back(m.integer(pointee->size()));
        return m.call(ownDelete->name, args);
      }
      if (p->type->pointeeConst) // `delete[] p` of a `const float *p`: C++ deletes it as any
        q = m.castTo(types_.pointerTo(types_.voidTy(), p->type->space), q);
      return device ? m.call("__kern_device_free", {q})
                    : m.call("__kern_delete", {q, m.integer(e->isArrayForm | (trivial ? 2 : 0))});
    };
    if (!needsDestruction(pointee)) {
      Expr *c = release(p, true);
      *e = *c;
      check(e);
      return;
    }
    if (!pointee->isStruct()) {
      error(e->loc, "delete of an array of arrays with destructors is not supported yet");
      return;
    }
    if (device && e->isArrayForm) {
      error(e->loc, "delete[] of objects with destructors in device code is not supported yet");
      return;
    }
    // `({ T *q = p; if (q) { q->~T(); ...members... } __kern_delete(q, 0); })`; delete[]
    // destroys the elements last to first: `for (size_t i = __kern_new_size(q) / sizeof(T);
    // i-- > 0;) q[i].~T();`.
    std::string id = std::to_string(++newCount_);
    std::string q = "__kern_deleted" + id, i = "__kern_deleted_i" + id;
    std::vector<Expr *> calls;
    Expr *object = e->isArrayForm ? m.index(m.ident(q), m.ident(i)) : m.deref(m.ident(q));
    if (!destructorCalls(object, pointee, calls, e->loc))
      return;
    Stmt *then = tu_.make<Stmt>(StmtKind::Compound);
    then->loc = e->loc;
    for (Expr *c : calls)
      then->body.push_back(m.expr(c));
    if (e->isArrayForm) {
      const Type *sizeT = types_.get(TypeKind::ULong);
      Stmt *loop = tu_.make<Stmt>(StmtKind::For);
      loop->loc = e->loc;
      loop->init = m.var(i, sizeT,
                         m.binary(BinaryOp::Div, m.call("__kern_new_size", {m.ident(q)}),
                                  m.integer(pointee->size())));
      Expr *dec = m.node(ExprKind::Unary);
      dec->unaryOp = UnaryOp::PostDec;
      dec->operands = {m.ident(i)};
      loop->cond = m.binary(BinaryOp::Gt, dec, m.integer(0));
      loop->then = then;
      then = tu_.make<Stmt>(StmtKind::Compound);
      then->loc = e->loc;
      then->body = {loop};
    }
    Stmt *test = tu_.make<Stmt>(StmtKind::If);
    test->loc = e->loc;
    test->cond = m.ident(q);
    test->then = then;
    Stmt *block = tu_.make<Stmt>(StmtKind::Compound);
    block->loc = e->loc;
    // A destructor runs on a const object too: q drops the const (`delete` of a `const T *`).
    const Type *qt = p->type->pointeeConst ? types_.pointerTo(pointee, p->type->space) : p->type;
    block->body = {m.var(q, qt, qt == p->type ? p : m.castTo(qt, p)), test,
                   m.expr(release(m.ident(q), false))};
    e->kind = ExprKind::StmtExpr;
    e->body = block;
    e->operands.clear();
    checkExpr(e);
    return;
  }
  const AddrSpace space = side_ == Side::Host ? AddrSpace::Host : AddrSpace::Generic;
  const Type *t = resolve(e->typeSyntax, space);
  if (!t)
    return;
  if (t->isVoid() || t->isFunction() || t->isReference || (t->isStruct() && !t->record->complete)) {
    error(e->loc, "cannot allocate '" + t->str() + "' with new");
    return;
  }
  const Type *ptr = types_.pointerTo(t, space);
  const Type *sizeT = types_.get(TypeKind::ULong);
  std::string id = std::to_string(++newCount_);
  std::string p = "__kern_new" + id, count = "__kern_new_count" + id;
  bool ctor = t->isStruct() && constructorOf(t);
  std::vector<Stmt *> body;
  Expr *bytes = m.integer(t->size());
  if (e->isArrayForm) {
    body.push_back(m.var(count, sizeT, m.castTo(sizeT, e->operands[0])));
    bytes = m.binary(BinaryOp::Mul, m.ident(count), m.integer(t->size()));
  }
  // A class's own operator new (not for `::new`) gives the memory: `T::operator new(bytes,
  // placement arguments...)`, as C++ calls it; the object is then constructed there.
  FunctionDecl *ownNew = t->isStruct() && !e->globalNew
                             ? method(t, e->isArrayForm ? "operator new[]" : "operator new")
                             : nullptr;
  if (ownNew) {
    std::vector<Expr *> args = {bytes};
    args.insert(args.end(), e->placementArgs.begin(), e->placementArgs.end());
    body.push_back(m.var(p, ptr, m.castTo(ptr, m.call(ownNew->name, args))));
    e->placement = nullptr; // constructed as in new memory
  } else if (e->placementArgs.size() > 1) {
    error(e->loc, "placement new with " + std::to_string(e->placementArgs.size()) +
                      " arguments needs an 'operator new' of '" + t->str() + "' that takes them");
    return;
  } else if (e->placement) // `new (q) T(args)`: the object is made in the memory at q
    body.push_back(m.var(p, ptr, m.castTo(ptr, e->placement)));
  else if (device) // null when the heap has no room: nothing is constructed
    body.push_back(m.var(p, ptr, m.castTo(ptr, m.call("__kern_device_malloc", {bytes}))));
  else
    body.push_back(
        m.var(p, ptr, m.castTo(ptr, m.call("__kern_new", {bytes, m.integer(e->isArrayForm)}))));
  const size_t allocated = body.size(); // what follows constructs the objects
  // Objects are constructed by assigning to zeroed memory (placement new keeps what is there).
  if (ctor && !emptyDefaultConstructor(t) && !e->placement)
    body.push_back(m.expr(m.call("memset", {m.ident(p), m.integer(0), bytes})));
  // The object is made where it lives, by its constructor (no operator= applies).
  auto initialise = [&](Expr *target, Expr *value) {
    Expr *a = m.binary(BinaryOp::Assign, target, value);
    a->initializes = true;
    return a;
  };
  auto assignTo = [&](Expr *target, Expr *value) {
    body.push_back(m.expr(initialise(target, value)));
  };
  // The value an element gets: `T(args)`, `(T){...}`, or nothing (left as allocated).
  auto made = [&](std::vector<Expr *> args, int form) -> Expr * {
    if (form == 2) { // `{...}`
      Expr *c = m.node(ExprKind::Cast);
      c->typeSyntax = m.typed(t);
      c->operands = {args.empty() ? m.node(ExprKind::InitList) : args[0]};
      return c;
    }
    if (ctor) {
      if (form == 0 && emptyDefaultConstructor(t))
        return nullptr;
      return m.call(t->record->name, args);
    }
    if (form == 0)
      return nullptr;
    if (args.empty()) { // `new T()`: value-initialised, zero
      Expr *c = m.node(ExprKind::Cast);
      c->typeSyntax = m.typed(t);
      c->operands = {m.node(ExprKind::InitList)};
      return t->isStruct() ? c : static_cast<Expr *>(m.integer(0));
    }
    if (args.size() > 1) {
      error(e->loc, "too many values to initialise a '" + t->str() + "'");
      return nullptr;
    }
    return args[0];
  };
  if (!e->isArrayForm) {
    if (Expr *v = made(e->args, e->newInit))
      assignTo(m.deref(m.ident(p)), v);
  } else {
    if (e->newInit == 1 && !e->args.empty()) {
      error(e->loc, "an array made by new[] cannot be initialised with values in parentheses");
      return;
    }
    if (e->newInit != 0 && !ctor) // `new T[n]()`, `new T[n]{...}`: the rest are zero
      body.push_back(m.expr(m.call("memset", {m.ident(p), m.integer(0), bytes})));
    if (ctor && !emptyDefaultConstructor(t)) {
      // Each element's default constructor, in order.
      std::string i = "__kern_new_i" + id;
      Stmt *loop = tu_.make<Stmt>(StmtKind::For);
      loop->loc = e->loc;
      loop->init = m.var(i, sizeT, m.integer(0));
      loop->cond = m.binary(BinaryOp::Lt, m.ident(i), m.ident(count));
      Expr *inc = m.node(ExprKind::Unary);
      inc->unaryOp = UnaryOp::PreInc;
      inc->operands = {m.ident(i)};
      loop->step = inc;
      loop->then = m.expr(initialise(m.index(m.ident(p), m.ident(i)), m.call(t->record->name, {})));
      body.push_back(loop);
    }
    if (e->newInit == 2 && !e->args.empty()) // the listed elements
      for (size_t k = 0; k < e->args[0]->operands.size(); ++k) {
        Expr *v = e->args[0]->operands[k];
        if (v->kind == ExprKind::InitList && t->isStruct()) {
          Expr *c = m.node(ExprKind::Cast);
          c->typeSyntax = m.typed(t);
          c->operands = {v};
          v = c;
        }
        assignTo(m.index(m.ident(p), m.integer(k)), v);
      }
  }
  if (device && !e->placement && body.size() > allocated) { // `if (p) {...}`
    Stmt *then = tu_.make<Stmt>(StmtKind::Compound);
    then->loc = e->loc;
    then->body.assign(body.begin() + static_cast<long>(allocated), body.end());
    body.resize(allocated);
    Stmt *test = tu_.make<Stmt>(StmtKind::If);
    test->loc = e->loc;
    test->cond = m.ident(p);
    test->then = then;
    body.push_back(test);
  }
  body.push_back(m.expr(m.ident(p)));
  Stmt *block = tu_.make<Stmt>(StmtKind::Compound);
  block->loc = e->loc;
  block->body = std::move(body);
  e->kind = ExprKind::StmtExpr;
  e->body = block;
  e->operands.clear();
  e->args.clear();
  e->typeSyntax = nullptr;
  checkExpr(e);
}

} // namespace kern::frontend::sema_detail
