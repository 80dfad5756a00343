// C++'s implicitly-declared special member functions of a class whose bases or members have
// their own (a std::string member, a base with a copy constructor): the copy constructor and
// the copy assignment, member-wise as C++ defines them, and the default constructor when the
// class declares no constructor. Sema declares them as the program would have written them:
//
//   struct S : B { std::string s; int k; M m[2]; };
//
//   S::S() { for (i...) this->m[i] = M(); }           // bases and s made by memberInitializers
//   S::S(const S &o) : B(o.<base B>), s(o.s), k(o.k) { for (i...) this->m[i] = M(o.m[i]); }
//   S &S::operator=(const S &o) {
//     this->B::operator=(o); this->s = o.s; this->k = o.k; for (i...) this->m[i] = o.m[i];
//     return *this; }
//
// so every copy (`T b = a;`, `T b(a)`, `b = a`, a parameter passed by value, `return o.m;`, a
// container's element) calls them as it calls the program's own. A part without a copy
// constructor (or copy assignment) of its own is copied as its bytes, as C++'s trivial copy
// is; a class all of whose parts are so gets none of these and stays a byte copy (the structs
// of device code). Without rvalue references (kern has none), a move is this copy. A class
// whose constructors are all implicit is still an aggregate (`S s = {"a", 1};`).
#include "frontend/sema_impl.h"
#include "frontend/sema_maker.h"

#include <functional>

namespace kern::frontend::sema_detail {

namespace {

TypeOp typeOp(TypeOp::Kind kind) {
  TypeOp op;
  op.kind = kind;
  return op;
}

/// The expressions and statements of an implicit member function, at one location.
struct Writer : Maker {
  const Type *index_t; // unsigned long, a loop's counter

  Expr *self(const std::string &n) { return member(ident("this"), n, true); }
  Expr *assign(Expr *l, Expr *r, bool initializes) {
    Expr *e = binary(BinaryOp::Assign, l, r);
    e->initializes = initializes;
    return e;
  }
  TypeSyntax *typed(const Type *t, bool isConst = false, bool reference = false) {
    TypeSyntax *ts = Maker::typed(t);
    ts->isConst = isConst;
    if (reference)
      ts->ops.push_back(typeOp(TypeOp::Kind::Reference));
    return ts;
  }
  /// `for (unsigned long i = 0; i < n; ++i) body(i)` over each dimension of array type `t`:
  /// `element(dst[i]..., src[i]...)` for each innermost element.
  void elements(const Type *t, Expr *dst, Expr *src, int depth,
                const std::function<Stmt *(Expr *, Expr *)> &element, std::vector<Stmt *> &out) {
    if (!t->isArray()) {
      out.push_back(element(dst, src));
      return;
    }
    std::string i = "__kern_copy_i" + std::to_string(depth);
    auto *v = tu.make<VarDecl>();
    v->name = i;
    v->loc = at;
    v->typeSyntax = typed(index_t);
    v->init = integer(0);
    Stmt *loop = tu.make<Stmt>(StmtKind::For);
    loop->loc = at;
    loop->init = tu.make<Stmt>(StmtKind::Decl);
    loop->init->loc = at;
    loop->init->decls = {v};
    loop->cond = binary(BinaryOp::Lt, ident(i), integer(t->count));
    Expr *inc = node(ExprKind::Unary);
    inc->unaryOp = UnaryOp::PreInc;
    inc->operands = {ident(i)};
    loop->step = inc;
    Stmt *body = tu.make<Stmt>(StmtKind::Compound);
    body->loc = at;
    elements(t->elem, index(dst, ident(i)), src ? index(src, ident(i)) : nullptr, depth + 1,
             element, body->body);
    loop->then = body;
    out.push_back(loop);
  }
};

const Type *innermost(const Type *t) {
  while (t->isArray())
    t = t->elem;
  return t;
}

} // namespace

FunctionDecl *Sema::copyConstructorOf(const Type *t) {
  FunctionDecl *ctor = constructorOf(t);
  if (!ctor)
    return nullptr;
  auto it = overloads_.find(ctor->name);
  std::vector<FunctionDecl *> set =
      it != overloads_.end() ? it->second : std::vector<FunctionDecl *>{ctor};
  for (FunctionDecl *c : set) {
    if (!c || !c->isConstructor || !c->type || c->type->params.size() != 2)
      continue;
    const Type *p = c->type->params[1];
    if (p == t || (p->isReference && p->elem == t))
      return c;
  }
  return nullptr;
}

FunctionDecl *Sema::copyAssignmentOf(const Type *t) {
  if (!t || !t->isStruct() || t->record->name.empty())
    return nullptr;
  // The class's own (a base's operator= takes the base: never this class's copy).
  std::string name = t->record->name + "::operator=";
  auto named = fileScope_.names.find(name);
  if (named == fileScope_.names.end())
    return nullptr;
  auto *first = dynamic_cast<FunctionDecl *>(named->second);
  auto it = overloads_.find(name);
  std::vector<FunctionDecl *> set =
      it != overloads_.end() ? it->second : std::vector<FunctionDecl *>{first};
  for (FunctionDecl *c : set) {
    if (!c || !c->type || c->type->params.size() != 2)
      continue;
    const Type *p = c->type->params[1];
    if (p == t || (p->isReference && p->elem == t))
      return c;
  }
  return nullptr;
}

bool Sema::hasImplicitConstructorsOnly(const Type *t) {
  FunctionDecl *ctor = constructorOf(t);
  if (!ctor)
    return false;
  auto it = overloads_.find(ctor->name);
  std::vector<FunctionDecl *> set =
      it != overloads_.end() ? it->second : std::vector<FunctionDecl *>{ctor};
  for (FunctionDecl *c : set)
    if (c && c->isConstructor && !c->isImplicit)
      return false;
  return true;
}

void Sema::implicitMembers(StructDecl *sd) {
  const Type *t = sd->type;
  // A struct local to a function has no member functions in kern (its name is its block's).
  if (options_.cLanguage || sd->name.empty() || !t || !t->record->complete || t->record->isUnion ||
      (fn_ && scope_ != &fileScope_))
    return;
  bool declaresCopy = false, declaresAssign = false, declaresConstructor = false;
  for (FunctionDecl *m : sd->methods) {
    declaresConstructor |= m->isConstructor;
    declaresCopy |= m->isConstructor && takesOwnClass(m, sd->name);
    declaresAssign |= m->name.size() >= 11 &&
                      m->name.compare(m->name.size() - 11, 11, "::operator=") == 0 &&
                      takesOwnClass(m, sd->name);
  }
  declaresConstructor |= constructorOf(t) != nullptr; // implicitDefaultConstructor's
  // What the parts (bases and members, arrays' elements) need: their own copies, constructors.
  struct Part {
    std::string name;  // the field (`<base B>` for a base with data); empty: an empty base
    const Type *type;  // the field's (arrays included) or the empty base's
    bool base = false; // a base class: made and assigned by its name
  };
  std::vector<Part> parts;
  for (const StructBase &b : t->record->bases)
    if (b.field < 0)
      parts.push_back({"", b.type, true});
  for (const StructField &f : t->record->fields)
    if (!f.isVptr)
      parts.push_back({f.name, f.type, f.isBase});
  bool copies = false, assigns = false;
  bool copyDeleted = false, assignDeleted = false;
  bool copyHost = true, copyDevice = true, assignHost = true, assignDevice = true;
  bool makeHost = true, makeDevice = true;
  for (const Part &p : parts) {
    const Type *u = innermost(p.type);
    if (FunctionDecl *c = copyConstructorOf(u)) {
      copies = true;
      copyDeleted |= c->isDeleted;
      copyHost &= c->isHostCallable();
      copyDevice &= c->isDeviceCallable();
    }
    if (FunctionDecl *a = copyAssignmentOf(u)) {
      assigns = true;
      assignDeleted |= a->isDeleted;
      assignHost &= a->isHostCallable();
      assignDevice &= a->isDeviceCallable();
    }
    if (FunctionDecl *c = constructorOf(u); c && !emptyDefaultConstructor(u) && !p.base) {
      makeHost &= c->isHostCallable();
      makeDevice &= c->isDeviceCallable();
    }
  }
  bool copyCtor = copies && !declaresCopy;
  bool copyAssign = assigns && !declaresAssign;
  // With a copy constructor the class has constructors, so it needs its default one too. (A
  // class that only lacks the default constructor of a member (`S x;` leaving it as it is) is
  // left so: that keeps device code's structs without calls, as before.)
  bool defaultCtor = !declaresConstructor && copyCtor;
  if (!copyCtor && !copyAssign && !defaultCtor)
    return;

  Writer w{{tu_, sd->loc}, types_.get(TypeKind::ULong)};
  const std::string source = "__kern_copy_source";
  auto declare = [&](const std::string &name, bool host, bool device) {
    auto *f = tu_.make<FunctionDecl>();
    f->name = sd->name + "::" + name;
    f->ns = sd->name;
    f->loc = sd->loc;
    f->owner = sd;
    f->isImplicit = true;
    f->quals.host = host;
    f->quals.device = device;
    f->quals.isInline = true;
    f->returnType = w.typed(types_.voidTy());
    f->body = tu_.make<Stmt>(StmtKind::Compound);
    f->body->loc = sd->loc;
    return f;
  };
  auto sourceParameter = [&](FunctionDecl *f) {
    auto *p = tu_.make<VarDecl>();
    p->name = source;
    p->loc = sd->loc;
    p->typeSyntax = w.typed(t, true, true); // const T &
    f->params.push_back(p);
  };
  auto sourcePart = [&](const Part &p) -> Expr * {
    if (!p.name.empty())
      return w.member(w.ident(source), p.name, false);
    // An empty base: the source seen as one, `*(const B *)&source`.
    Expr *addr = w.node(ExprKind::Unary);
    addr->unaryOp = UnaryOp::AddrOf;
    addr->operands = {w.ident(source)};
    Expr *c = w.node(ExprKind::Cast);
    c->typeSyntax = w.typed(p.type, true);
    c->typeSyntax->ops.push_back(typeOp(TypeOp::Kind::Pointer));
    c->operands = {addr};
    Expr *d = w.node(ExprKind::Unary);
    d->unaryOp = UnaryOp::Deref;
    d->operands = {c};
    return d;
  };
  // `memcpy(this->a, source.a, sizeof(this->a))`: an array whose elements copy as bytes.
  auto copyBytes = [&](const Part &p) {
    Expr *size = w.node(ExprKind::SizeofExpr);
    size->operands = {w.self(p.name)};
    return w.expr(w.call(w.ident("memcpy"), {w.self(p.name), sourcePart(p), size}));
  };
  std::vector<FunctionDecl *> made;

  if (defaultCtor) {
    // memberInitializers constructs the bases and the members of class type; arrays of them
    // are made here, each element in place.
    FunctionDecl *f = declare(shortClassName(sd->name), makeHost, makeDevice);
    f->isConstructor = true;
    for (const Part &p : parts) {
      const Type *u = innermost(p.type);
      if (!p.type->isArray() || !constructorOf(u) || emptyDefaultConstructor(u))
        continue;
      w.elements(
          p.type, w.self(p.name), nullptr, 0,
          [&](Expr *d, Expr *) {
            return w.expr(w.assign(d, constructorCall(u, {}, sd->loc), true));
          },
          f->body->body);
    }
    made.push_back(f);
  }
  if (copyCtor) {
    FunctionDecl *f = declare(shortClassName(sd->name), copyHost, copyDevice);
    f->isConstructor = true;
    sourceParameter(f);
    if (copyDeleted) {
      f->isDeleted = true;
      f->body = nullptr;
    }
    for (const Part &p : parts) {
      if (!f->body)
        break;
      if (p.base) { // `B(source's B)`: by its name, as baseInitializers finds a base
        FunctionDecl::MemberInit m;
        m.loc = sd->loc;
        m.name = p.type->record->name;
        m.args = {sourcePart(p)};
        f->memberInits.push_back(m);
        continue;
      }
      if (!p.type->isArray()) { // `m(source.m)`: its copy constructor, or its bytes
        FunctionDecl::MemberInit m;
        m.loc = sd->loc;
        m.name = p.name;
        m.args = {sourcePart(p)};
        f->memberInits.push_back(m);
        continue;
      }
      const Type *u = innermost(p.type);
      if (!copyConstructorOf(u)) {
        f->body->body.push_back(copyBytes(p));
        continue;
      }
      w.elements(
          p.type, w.self(p.name), sourcePart(p), 0,
          [&](Expr *d, Expr *s) {
            return w.expr(w.assign(d, constructorCall(u, {s}, sd->loc), true));
          },
          f->body->body);
    }
    made.push_back(f);
  }
  if (copyAssign) {
    FunctionDecl *f = declare("operator=", assignHost, assignDevice);
    f->returnType = w.typed(t, false, true); // T &
    sourceParameter(f);
    if (assignDeleted) {
      f->isDeleted = true;
      f->body = nullptr;
    }
    for (const Part &p : parts) {
      if (!f->body)
        break;
      const Type *u = innermost(p.type);
      bool own = copyAssignmentOf(u) != nullptr;
      if (p.base && own) { // `this->B::operator=(source)`
        Expr *callee = w.member(w.ident("this"), p.type->record->name + "::operator=", true);
        f->body->body.push_back(w.expr(w.call(callee, {w.ident(source)})));
        continue;
      }
      if (p.name.empty())
        continue;               // an empty base without an assignment of its own: nothing to copy
      if (!p.type->isArray()) { // `this->m = source.m`: its operator=, or its bytes
        f->body->body.push_back(w.expr(w.assign(w.self(p.name), sourcePart(p), !own)));
        continue;
      }
      if (!own) {
        f->body->body.push_back(copyBytes(p));
        continue;
      }
      w.elements(
          p.type, w.self(p.name), sourcePart(p), 0,
          [&](Expr *d, Expr *s) { return w.expr(w.assign(d, s, false)); }, f->body->body);
    }
    if (f->body) { // `return *this;`
      Expr *deref = w.node(ExprKind::Unary);
      deref->unaryOp = UnaryOp::Deref;
      deref->operands = {w.ident("this")};
      Stmt *r = tu_.make<Stmt>(StmtKind::Return);
      r->loc = sd->loc;
      r->expr = deref;
      f->body->body.push_back(r);
    }
    made.push_back(f);
  }

  // Declared and analysed here, whatever is being analysed around the class's definition.
  SavedContext saved(*this);
  scope_ = &fileScope_;
  fn_ = nullptr;
  loopDepth_ = switchDepth_ = 0;
  for (FunctionDecl *f : made) {
    instances_.insert(f);
    tu_.decls.push_back(f);
    ns_ = f->ns;
    function(f);
  }
}

} // namespace kern::frontend::sema_detail
