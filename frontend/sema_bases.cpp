// C++ base classes without virtual functions: `struct D : B {...}`. A base that holds data is
// a subobject of the derived struct, a field named `<base B>` that no source name reaches
// (so copies, braced initialisation, promotion and destruction treat it as a member); an empty
// base has no storage of its own (the empty base optimisation), only its methods. Members and
// member functions are found through the bases (the derived class's own hide them), a
// derived-to-base pointer conversion is a cast that adds the base's offset (null stays null),
// and a constructor's initialiser list constructs the bases first.
#include "frontend/sema_impl.h"

namespace kern::frontend::sema_detail {

void Sema::structBases(StructDecl *sd, const Type *t) {
  for (auto &b : sd->bases) {
    if (sd->isUnion) {
      error(b.loc, "unions cannot have base classes");
      return;
    }
    if (b.isVirtual) {
      error(b.loc, "virtual base classes are not supported");
      continue;
    }
    const Type *bt = resolve(b.typeSyntax);
    if (!bt)
      continue;
    if (!bt->isStruct()) {
      error(b.loc, "base specifier must name a class, not '" + bt->str() + "'");
      continue;
    }
    if (bt->record->isUnion) {
      error(b.loc, "unions cannot be base classes");
      continue;
    }
    if (!bt->record->complete || bt == t) {
      error(b.loc, "base class has incomplete type '" + bt->str() + "'");
      continue;
    }
    bool repeated = false;
    for (const StructBase &o : t->record->bases)
      repeated |= o.type == bt;
    if (repeated) {
      error(b.loc,
            "base class '" + bt->str() + "' specified more than once as a direct base class");
      continue;
    }
    StructBase sb;
    sb.type = bt;
    if (!bt->record->isEmpty()) {
      sb.field = static_cast<int>(t->record->fields.size());
      StructField f;
      f.name = "<base " + bt->record->name + ">";
      f.type = bt;
      f.isBase = true;
      t->record->fields.push_back(f);
    }
    t->record->bases.push_back(sb);
  }
  vtablePointer(sd, t); // before the fields: the vtable pointer comes first
}

bool Sema::podForLayout(StructDecl *sd, const Type *t) {
  if (options_.cLanguage)
    return true;
  if (!t->record->bases.empty() || sd->hasNonPublicFields || t->record->dynamic)
    return false;
  for (FunctionDecl *m : sd->methods)
    if (m->isConstructor || m->isDestructor ||
        (m->name.size() >= 11 && m->name.compare(m->name.size() - 11, 11, "::operator=") == 0))
      return false;
  for (const StructField &f : t->record->fields) {
    const Type *ft = f.type;
    while (ft->isArray())
      ft = ft->elem;
    if (ft->isStruct() && !ft->record->podForLayout)
      return false;
  }
  return true;
}

void Sema::implicitDefaultConstructor(StructDecl *sd) {
  // A struct that declares no constructor but has a base whose constructor does work gets
  // C++'s implicit default constructor, which constructs the bases (memberInitializers).
  // A dynamic class gets one too: it stores its vtable pointer.
  // So does a struct with default member initializers, which it runs; being implicit, it
  // leaves the struct an aggregate (`S x = {1, 2};`).
  const bool defaults = sd->type && hasMemberDefaults(sd->type);
  if (fn_ || options_.cLanguage || sd->name.empty() || !sd->type ||
      (sd->type->record->bases.empty() && !sd->type->record->dynamic && !defaults))
    return;
  for (FunctionDecl *m : sd->methods)
    if (m->isConstructor)
      return;
  bool any = false, host = true, device = true;
  for (const StructBase &b : sd->type->record->bases)
    if (FunctionDecl *c = constructorOf(b.type)) {
      any = true;
      host &= c->isHostCallable();
      device &= c->isDeviceCallable();
    }
  if (!any && !sd->type->record->dynamic && !defaults)
    return;
  auto *f = tu_.make<FunctionDecl>();
  f->name = sd->name + "::" + shortClassName(sd->name);
  f->ns = sd->name;
  f->loc = sd->loc;
  f->owner = sd;
  f->isConstructor = true;
  f->isImplicit = defaults;
  f->quals.host = host;
  f->quals.device = device;
  f->quals.isInline = true;
  f->returnType = tu_.make<TypeSyntax>();
  f->returnType->loc = sd->loc;
  f->returnType->keywords = {"void"};
  f->body = tu_.make<Stmt>(StmtKind::Compound);
  f->body->loc = sd->loc;
  instances_.insert(f);
  tu_.decls.push_back(f);
  std::string savedNs = ns_;
  ns_ = f->ns;
  function(f);
  ns_ = savedNs;
}

bool Sema::baseOffset(const Type *derived, const Type *base, int64_t &offset, int *paths) {
  int found = 0;
  if (derived && derived->isStruct())
    for (const StructBase &b : derived->record->bases) {
      int64_t inner = 0;
      int n = 0;
      if (b.type == base)
        n = 1;
      else
        baseOffset(b.type, base, inner, &n);
      if (n > 0 && found == 0)
        offset = static_cast<int64_t>(b.offset) + inner;
      found += n;
    }
  if (paths)
    *paths = found;
  return found > 0;
}

bool Sema::isDerivedFrom(const Type *derived, const Type *base) {
  int64_t offset = 0;
  return derived && base && derived->isStruct() && base->isStruct() && derived != base &&
         baseOffset(derived, base, offset);
}

bool Sema::memberPath(const Type *st, const std::string &name, std::vector<const Type *> &path,
                      int &paths) {
  paths = 0;
  std::vector<const StructField *> anonymous;
  if (st->record->field(name) || anonymousPath(st, name, anonymous)) {
    paths = 1;
    return true;
  }
  std::vector<const Type *> first;
  for (const StructBase &b : st->record->bases) {
    std::vector<const Type *> inner;
    int n = 0;
    if (!memberPath(b.type, name, inner, n))
      continue;
    if (paths == 0) {
      first = {b.type};
      first.insert(first.end(), inner.begin(), inner.end());
    }
    paths += n;
  }
  path = first;
  return paths > 0;
}

Expr *Sema::baseSubobject(Expr *obj, const Type *base) {
  // One step at a time, through the direct bases on the way.
  while (obj->type && obj->type != base) {
    const StructBase *step = nullptr;
    int64_t unused = 0;
    for (const StructBase &b : obj->type->record->bases)
      if (b.type == base || baseOffset(b.type, base, unused)) {
        step = &b;
        break;
      }
    if (!step)
      return obj;
    if (step->field >= 0) {
      Expr *m = make(ExprKind::Member, obj->loc);
      m->name = obj->type->record->fields[static_cast<size_t>(step->field)].name;
      m->operands = {obj};
      member(m);
      obj = m;
      continue;
    }
    // An empty base: the object's own address, seen as the base's.
    Expr *c = make(ExprKind::Cast, obj->loc);
    Expr *a = obj->isLValue ? addressOf(obj) : temporary(obj);
    c->operands = {a};
    c->type = types_.pointerTo(step->type, a->type->space, a->type->pointeeConst);
    c->baseOffset = static_cast<int64_t>(step->offset);
    Expr *d = make(ExprKind::Unary, obj->loc);
    d->unaryOp = UnaryOp::Deref;
    d->operands = {c};
    unary(d);
    obj = d;
  }
  return obj;
}

bool Sema::inheritedMember(Expr *e, const Type *st) {
  std::vector<const Type *> path;
  int paths = 0;
  if (st->record->bases.empty() || !memberPath(st, e->name, path, paths))
    return false;
  if (paths > 1) {
    error(e->loc,
          "member '" + e->name + "' found in more than one base class of '" + st->str() + "'");
    return true;
  }
  Expr *obj = e->operands[0];
  if (e->isArrow) {
    Expr *d = make(ExprKind::Unary, e->loc);
    d->unaryOp = UnaryOp::Deref;
    d->operands = {obj};
    unary(d);
    obj = d;
  }
  e->operands[0] = baseSubobject(obj, path.back());
  e->isArrow = false;
  if (e->operands[0]->type == path.back())
    member(e);
  return true;
}

bool Sema::qualifiedMember(Expr *e) {
  size_t cut = e->name.rfind("::");
  // A base subobject's field (`<base std::ostream>`) is not a qualified name.
  if (cut == std::string::npos || e->name.compare(0, 6, "<base ") == 0)
    return true;
  std::string cls = e->name.substr(0, cut);
  Expr *obj = e->operands[0];
  if (e->isArrow) {
    obj = rvalue(obj);
    if (!obj->type->isPointer() || !obj->type->elem->isStruct()) {
      error(e->loc,
            "member reference type '" + obj->type->str() + "' is not a pointer to a struct");
      return false;
    }
    Expr *d = make(ExprKind::Unary, e->loc);
    d->unaryOp = UnaryOp::Deref;
    d->operands = {obj};
    unary(d);
    obj = d;
  }
  const Type *st = obj->type;
  const Type *named = lookupStruct(cls);
  if (!named)
    named = lookupTypedef(cls);
  if (!st->isStruct() || !named || !named->isStruct() ||
      (named != st && !isDerivedFrom(st, named))) {
    error(e->loc, "'" + cls + "' is not a base class of '" + st->str() + "'");
    return false;
  }
  e->operands[0] = baseSubobject(obj, named);
  e->isArrow = false;
  e->name = e->name.substr(cut + 2);
  return e->operands[0]->type == named;
}

bool Sema::hasMember(const Type *st, const std::string &name) {
  std::vector<const Type *> path;
  int paths = 0;
  return st && st->isStruct() && memberPath(st, name, path, paths);
}

Expr *Sema::derivedToBase(Expr *e, const Type *to, const char *context) {
  const Type *from = e->type;
  if (!from->isPointer() || !to->isPointer() || !from->elem->isStruct() || !to->elem->isStruct())
    return nullptr;
  int64_t offset = 0;
  int paths = 0;
  if (!baseOffset(from->elem, to->elem, offset, &paths))
    return nullptr;
  if (paths > 1) {
    error(e->loc, "ambiguous conversion from derived class '" + from->elem->str() +
                      "' to base class '" + to->elem->str() + "' when " + context);
    return e;
  }
  if (from->pointeeConst && !to->pointeeConst) {
    error(e->loc, std::string("cannot convert '") + from->str() + "' to '" + to->str() + "' when " +
                      context + ": it discards 'const'");
    return e;
  }
  Expr *c = implicitCast(e, to);
  c->baseOffset = offset;
  return c;
}

Expr *Sema::sliceToBase(Expr *e, const Type *to) {
  if (!e->type->isStruct() || !to->isStruct() || !isDerivedFrom(e->type, to))
    return nullptr;
  if (to->record->isEmpty()) { // nothing to copy: a value-initialised base
    Expr *list = make(ExprKind::InitList, e->loc);
    return bracedValue(list, to);
  }
  return baseSubobject(e, to);
}

int64_t Sema::classCastOffset(const Type *from, const Type *to) {
  if (!from->isStruct() || !to->isStruct() || from == to)
    return 0;
  int64_t offset = 0;
  if (baseOffset(from, to, offset))
    return offset;
  if (baseOffset(to, from, offset))
    return -offset; // base to derived: `static_cast<D *>(b)`
  return 0;
}

void Sema::baseInitializers(FunctionDecl *f, std::vector<Stmt *> &inits) {
  const Type *st = f->owner->type;
  auto statement = [&](Expr *e, SourceLoc at) {
    Stmt *s = tu_.make<Stmt>(StmtKind::Expr);
    s->loc = at;
    s->expr = e;
    inits.push_back(s);
  };
  auto self = [&](SourceLoc at) {
    Expr *t = make(ExprKind::Ident, at);
    t->name = "this";
    return t;
  };
  for (const StructBase &b : st->record->bases) {
    const std::string &bn = b.type->record->name;
    // The initialiser that names this base (`B(x)`, `ns::B(x)`, `Base<T>(x)`), if any.
    std::vector<Expr *> args;
    bool named = false;
    SourceLoc at = f->loc;
    for (size_t i = 0; i < f->memberInits.size(); ++i) {
      const std::string &mn = f->memberInits[i].name;
      if (st->record->field(mn) || (mn != bn && shortClassName(mn) != shortClassName(bn)))
        continue;
      named = true;
      args = f->memberInits[i].args;
      at = f->memberInits[i].loc;
      f->memberInits.erase(f->memberInits.begin() + static_cast<long>(i));
      break;
    }
    FunctionDecl *ctor = constructorOf(b.type);
    if (ctor && !isCopyConstruction(b.type, args)) {
      // `B::B(this, args)`: the base's constructor on the base's part of this object.
      Expr *c = make(ExprKind::Call, at);
      Expr *callee = make(ExprKind::Ident, at);
      callee->name = ctor->name;
      callee->decl = ctor; // the object is passed explicitly
      c->operands = {callee};
      c->args = args;
      c->args.insert(c->args.begin(), self(at));
      statement(c, at);
      continue;
    }
    if (!named || b.field < 0)
      continue; // default-initialised: nothing to do; an empty base has nothing to copy
    Expr *value = nullptr;
    if (args.size() == 1) {
      value = args[0];
    } else if (args.empty()) {
      value = constructorCall(b.type, {}, at); // `B()`: value-initialised, zero
    } else {
      error(at, "no constructor of base class '" + b.type->str() + "' takes " +
                    std::to_string(args.size()) + " arguments");
      continue;
    }
    Expr *member = make(ExprKind::Member, at);
    member->isArrow = true;
    member->name = st->record->fields[static_cast<size_t>(b.field)].name;
    member->operands = {self(at)};
    Expr *assign = make(ExprKind::Binary, at);
    assign->binaryOp = BinaryOp::Assign;
    assign->initializes = true; // the base is made, by its bytes: no operator= of it applies
    assign->operands = {member, value};
    statement(assign, at);
  }
}

void Sema::destroyEmptyBases(Expr *obj, const Type *t, std::vector<Stmt *> &out, SourceLoc at) {
  const auto &bases = t->record->bases;
  for (size_t k = bases.size(); k-- > 0;)
    if (bases[k].field < 0 && needsDestruction(bases[k].type))
      destroy(baseSubobject(obj, bases[k].type), bases[k].type, out, at);
}

/// `D::k` where k is a static member of a base class of D: the base's `B::k` (static members
/// are variables and constants named by their own class), or "" if there is none.
std::string Sema::inheritedStatic(const std::string &qualified, int depth) {
  const size_t colon = qualified.rfind("::");
  if (colon == std::string::npos || colon == 0 || depth > 8)
    return "";
  const Type *t = lookupStruct(qualified.substr(0, colon));
  if (!t || !t->record)
    return "";
  const std::string member = qualified.substr(colon);
  for (const StructBase &b : t->record->bases) {
    if (!b.type || !b.type->record || b.type->record->name.empty())
      continue;
    const std::string candidate = b.type->record->name + member;
    if (lookup(candidate) || lookupEnumerator(candidate))
      return candidate;
    if (std::string deeper = inheritedStatic(candidate, depth + 1); !deeper.empty())
      return deeper;
  }
  return "";
}

} // namespace kern::frontend::sema_detail
