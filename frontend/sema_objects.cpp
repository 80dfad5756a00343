// C++ objects as CUDA code makes them: constructors (a struct value built by calling its
// constructor on a fresh object: `cuComplex c(1, 2)`, `S x;`, `S x = {a, b}`, `S(a, b)` in an
// expression, member initialiser lists), and operators on structs (`a * b + c`, `-v`, `v[i]`,
// `a += b`) as calls of the member or namespace-scope function `operatorX`.
#include "frontend/sema_impl.h"

#include <algorithm>
#include <functional>

namespace kern::frontend::sema_detail {

FunctionDecl *Sema::constructorOf(const Type *t) {
  if (!t || !t->isStruct() || t->record->name.empty())
    return nullptr;
  // `ns::S::S`; a class template's instance `ns::P<int>` has `ns::P<int>::P`.
  const std::string &n = t->record->name;
  std::string base = n.substr(0, n.find('<'));
  size_t cut = base.rfind("::");
  std::string shortName = cut == std::string::npos ? base : base.substr(cut + 2);
  auto it = fileScope_.names.find(n + "::" + shortName);
  if (it == fileScope_.names.end())
    return nullptr;
  auto *f = dynamic_cast<FunctionDecl *>(it->second);
  return f && f->isConstructor ? f : nullptr;
}

Expr *Sema::constructorCall(const Type *t, std::vector<Expr *> args, SourceLoc at) {
  Expr *e = make(ExprKind::Call, at);
  Expr *callee = make(ExprKind::Ident, at);
  callee->name = t->record->name;
  e->operands = {callee};
  e->args = std::move(args);
  return e;
}

bool Sema::construct(Expr *e) {
  Expr *callee = e->operands[0];
  const Type *t = nullptr;
  if (Decl *d = lookup(callee->name)) {
    // Inside a member function, the struct's own name finds its constructors.
    auto *f = dynamic_cast<FunctionDecl *>(d);
    if (!f || !f->isConstructor || callee->decl)
      return false; // a function of that name
    t = f->owner->type;
  } else {
    t = lookupStruct(callee->name);
    if (!t)
      t = lookupTypedef(callee->name);
  }
  FunctionDecl *ctor = constructorOf(t);
  if (!ctor && t && t->isStruct() && e->args.size() == 1 && check(e->args[0]) && e->args[0]->type &&
      e->args[0]->type->isStruct() &&
      (e->args[0]->type == t || isDerivedFrom(e->args[0]->type, t))) {
    // `S(s)`, `S b(a);` of a struct without constructors: a copy of its bytes.
    Expr *copy = convert(rvalue(e->args[0]), t, "initializing");
    *e = *copy;
    return true;
  }
  if (!ctor) {
    if (!t || !t->isStruct() || !e->args.empty() || t == types_.dim3Ty() || t == types_.uint3Ty())
      return false;
    // `S()` of a struct without constructors: a value-initialised (zero) S.
    Expr *list = make(ExprKind::InitList, e->loc);
    Expr *v = bracedValue(list, t);
    *e = *v;
    return true;
  }
  if (isCopyConstruction(t, e->args)) { // `S(s)`, `x(s)` in an initialiser list: a copy
    Expr *copy = e->args[0];
    *e = *copy;
    return true;
  }
  // The constructor is called on the object being made, which the lowering provides.
  Expr *target = make(ExprKind::ConstructTarget, e->loc);
  target->type = types_.pointerTo(t, side_ == Side::Host ? AddrSpace::Host : AddrSpace::Local);
  Expr *c = make(ExprKind::Call, e->loc);
  Expr *ctorName = make(ExprKind::Ident, callee->loc);
  ctorName->name = ctor->name;
  ctorName->decl = ctor; // the object is passed explicitly
  c->operands = {ctorName};
  c->args = e->args;
  c->args.insert(c->args.begin(), target);
  if (!check(c))
    return true; // reported
  e->kind = ExprKind::Construct;
  e->operands = {c};
  e->args.clear();
  e->type = t;
  e->isLValue = false;
  return true;
}

bool Sema::copyConstruct(Expr *&x, const Type *t) {
  // C++: an object initialised from an lvalue of its class (`S b = a;`, an argument passed by
  // value) is made by the copy constructor the class declares (a member-wise copy otherwise).
  if (options_.cLanguage || movingResult_ || !t->isStruct() || !x->isLValue || !x->type ||
      !x->type->isStruct() || !constructorOf(t))
    return false;
  if (x->type->record != t->record) {
    // A derived object copied as its base (`B b = d;`): the base's copy constructor copies the
    // base subobject.
    if (!isDerivedFrom(x->type, t) || !copyConstructorOf(t))
      return false;
    x = baseSubobject(x, t);
  }
  std::vector<Expr *> args{x};
  const Type *plain = x->type;
  x->type = t; // a const lvalue is copied as well
  bool memberwise = isCopyConstruction(t, args);
  x->type = plain;
  if (memberwise)
    return false;
  Expr *c = constructorCall(t, {x}, x->loc);
  check(c);
  x = c;
  return true;
}

bool Sema::namesLocalObject(const Expr *e) {
  auto *v = e->kind == ExprKind::Ident ? dynamic_cast<VarDecl *>(e->decl) : nullptr;
  // Not a parameter: C++ does not elide its copy (without move constructors, it is copied).
  return v && !v->isParam && !v->isGlobalScope && !v->quals.isStatic && !v->quals.isExtern &&
         v->type && !v->type->isReference;
}

Expr *Sema::bracedValue(Expr *list, const Type *t) {
  if (constructorOf(t) &&
      (!hasImplicitConstructorsOnly(t) || (list->operands.empty() && !hasMemberDefaults(t)))) {
    Expr *c = constructorCall(t, list->operands, list->loc);
    check(c);
    return c;
  }
  if (!t->isStruct() && !t->isScalar()) {
    error(list->loc, "a braced list cannot make a value of type '" + t->str() + "'");
    return list;
  }
  VarDecl scratch; // initializer() may refine an array's size through it
  scratch.type = t;
  initializer(&scratch, list, t);
  if (list->kind == ExprKind::InitList && !t->isStruct())
    return list->operands.empty() ? list : list->operands[0];
  return list;
}

bool Sema::hasDefaultConstructor(const Type *t) {
  FunctionDecl *c = constructorOf(t);
  if (!c)
    return false;
  auto it = overloads_.find(c->name);
  std::vector<FunctionDecl *> set =
      it != overloads_.end() ? it->second : std::vector<FunctionDecl *>{c};
  for (FunctionDecl *g : set) {
    if (!g->isConstructor)
      continue;
    // Past the object's own pointer (`this`, the first parameter of a member function).
    size_t first = !g->params.empty() && g->params[0]->name == "this" ? 1 : 0;
    if (g->params.size() == first || g->params[first]->init)
      return true;
  }
  return false;
}

void Sema::memberInitializers(FunctionDecl *f) {
  if (!f->body)
    return;
  const Type *st = f->owner->type;
  // Members that the initializer list does not name take their default member initializer,
  // or, of class type, are default-constructed, as C++ constructs them before the body. The
  // implicit default constructor of a class with default member initializers also zeroes the
  // scalars and plain structs it leaves (their values are indeterminate, and `S()` wants them
  // zero).
  const bool defaults = hasMemberDefaults(st);
  std::vector<FunctionDecl::MemberInit> implied;
  for (const StructField &field : st->record->fields) {
    if (field.isBase || field.isVptr)
      continue;
    bool named = false;
    for (auto &m : f->memberInits)
      named = named || m.name == field.name;
    if (named)
      continue;
    FunctionDecl::MemberInit m;
    m.name = field.name;
    m.loc = f->loc;
    if (Expr *init = defaults ? memberDefault(st, field.name) : nullptr) {
      m.loc = init->loc;
      m.args = {init};
    } else if (!hasDefaultConstructor(field.type) &&
               !(f->isImplicit && defaults &&
                 (field.type->isScalar() ||
                  (field.type->isStruct() && !constructorOf(field.type))))) {
      continue;
    }
    implied.push_back(m);
  }
  if (f->memberInits.empty() && implied.empty() && st->record->bases.empty() &&
      !st->record->dynamic)
    return;
  std::vector<Stmt *> inits;
  baseInitializers(f, inits); // the bases first, as C++ constructs them
  if (st->record->dynamic)    // then the vtable pointer: calls in the body see this class
    inits.push_back(vptrStore(st, f->loc));
  // In the order of the fields, as C++ initialises them (a default member initializer may read
  // an earlier member); a name that is no field comes last, to be reported.
  f->memberInits.insert(f->memberInits.end(), implied.begin(), implied.end());
  auto position = [&](const FunctionDecl::MemberInit &m) {
    const auto &fields = st->record->fields;
    for (size_t i = 0; i < fields.size(); ++i)
      if (fields[i].name == m.name)
        return i;
    return fields.size();
  };
  std::stable_sort(f->memberInits.begin(), f->memberInits.end(),
                   [&](const auto &a, const auto &b) { return position(a) < position(b); });
  for (auto &m : f->memberInits) {
    const StructField *field = st->record->field(m.name);
    if (!field) {
      error(m.loc,
            "member initializer '" + m.name + "' does not name a field of '" + st->str() + "'");
      continue;
    }
    auto self = [&]() { // a fresh `this->m`
      Expr *thisPtr = make(ExprKind::Ident, m.loc);
      thisPtr->name = "this";
      Expr *member = make(ExprKind::Member, m.loc);
      member->isArrow = true;
      member->name = m.name;
      member->operands = {thisPtr};
      return member;
    };
    auto store = [&](Expr *target, Expr *value) {
      Expr *assign = make(ExprKind::Binary, m.loc);
      assign->binaryOp = BinaryOp::Assign;
      assign->initializes = true;
      assign->operands = {target, value};
      Stmt *s = tu_.make<Stmt>(StmtKind::Expr);
      s->loc = m.loc;
      s->expr = assign;
      inits.push_back(s);
    };
    if (field->type->isArray() && m.args.size() == 1 && m.args[0]->kind == ExprKind::InitList) {
      // `int v[3] = {1, 2};` (a default member initializer): element by element, the rest zero.
      std::function<void(std::vector<uint64_t> &, const Type *, Expr *)> elements =
          [&](std::vector<uint64_t> &at, const Type *t, Expr *list) {
            if (list->operands.size() > t->count) {
              error(list->loc, "excess elements in array initializer");
              return;
            }
            for (uint64_t i = 0; i < t->count; ++i) {
              Expr *e = i < list->operands.size() ? list->operands[i] : nullptr;
              at.push_back(i);
              if (t->elem->isArray() && (!e || e->kind == ExprKind::InitList)) {
                Expr *empty = make(ExprKind::InitList, m.loc);
                elements(at, t->elem, e ? e : empty);
              } else {
                Expr *target = self();
                for (uint64_t k : at) {
                  Expr *index = make(ExprKind::IntLit, m.loc);
                  index->text = std::to_string(k);
                  index->intValue = static_cast<int64_t>(k);
                  Expr *element = make(ExprKind::Index, m.loc);
                  element->operands = {target, index};
                  target = element;
                }
                if (!e)
                  e = make(ExprKind::InitList, m.loc); // `{}`: value-initialised
                store(target, e->kind == ExprKind::InitList ? bracedValue(e, t->elem) : e);
              }
              at.pop_back();
            }
          };
      std::vector<uint64_t> at;
      elements(at, field->type, m.args[0]);
      continue;
    }
    Expr *value = nullptr;
    if (m.args.size() == 1 && m.args[0]->kind == ExprKind::InitList && field->type->isStruct()) {
      value = bracedValue(m.args[0], field->type); // `P p = {8};`: its constructor, or braced
    } else if (constructorOf(field->type)) {
      value = constructorCall(field->type, m.args, m.loc);
    } else if (m.args.size() == 1) {
      value = m.args[0];
    } else if (m.args.empty() && field->type->isScalar()) {
      value = make(ExprKind::IntLit, m.loc); // `x()`: value-initialised, zero
      value->text = "0";
    } else if (m.args.empty() && field->type->isStruct()) {
      // `s()` of a struct without constructors (a pair's `second()`): value-initialised, zero
      value = bracedValue(make(ExprKind::InitList, m.loc), field->type);
    } else {
      error(m.loc, "cannot initialize member '" + m.name + "' of type '" + field->type->str() +
                       "' with " + std::to_string(m.args.size()) + " values");
      continue;
    }
    store(self(), value);
  }
  f->body->body.insert(f->body->body.begin(), inits.begin(), inits.end());
  f->memberInits.clear();
}

bool Sema::memberOperatorTakes(FunctionDecl *member, Expr *operand) {
  auto it = overloads_.find(member->name);
  std::vector<FunctionDecl *> set =
      it != overloads_.end() ? it->second : std::vector<FunctionDecl *>{member};
  for (FunctionDecl *c : set)
    if (c->type && c->type->params.size() == 2 && conversionRank(operand, c->type->params[1]) >= 0)
      return true;
  return false;
}

bool Sema::freeOperatorTakes(FunctionDecl *f, const std::vector<Expr *> &operands) {
  auto it = overloads_.find(f->name);
  std::vector<FunctionDecl *> set =
      it != overloads_.end() ? it->second : std::vector<FunctionDecl *>{f};
  for (FunctionDecl *c : set) {
    if (!c->type || c->type->params.size() != operands.size())
      continue;
    bool all = true;
    for (size_t i = 0; i < operands.size(); ++i)
      all = all && conversionRank(operands[i], c->type->params[i]) >= 0;
    if (all)
      return true;
  }
  return false;
}

bool Sema::operatorCall(Expr *e) {
  std::string symbol;
  std::vector<Expr *> operands = e->operands;
  if (e->kind == ExprKind::Binary) {
    if (e->binaryOp == BinaryOp::Comma || e->binaryOp == BinaryOp::LogAnd ||
        e->binaryOp == BinaryOp::LogOr)
      return false;
    symbol = binaryOpSpelling(e->binaryOp);
  } else if (e->kind == ExprKind::Unary) {
    switch (e->unaryOp) {
    case UnaryOp::Plus:
      symbol = "+";
      break;
    case UnaryOp::Minus:
      symbol = "-";
      break;
    case UnaryOp::Not:
      symbol = "!";
      break;
    case UnaryOp::BitNot:
      symbol = "~";
      break;
    case UnaryOp::PreInc:
      symbol = "++";
      break;
    case UnaryOp::PreDec:
      symbol = "--";
      break;
    case UnaryOp::Deref: // an iterator's `*it`
      symbol = "*";
      break;
    case UnaryOp::PostInc: // `it++`: operator++(int), given 0
    case UnaryOp::PostDec: {
      if (!operands[0]->type || !operands[0]->type->isStruct())
        return false;
      symbol = e->unaryOp == UnaryOp::PostInc ? "++" : "--";
      Expr *zero = make(ExprKind::IntLit, e->loc);
      zero->text = "0";
      operands.push_back(zero);
      break;
    }
    default:
      return false;
    }
  } else if (e->kind == ExprKind::Index) {
    symbol = "[]";
  } else {
    return false;
  }
  bool anyStruct = false;
  for (Expr *o : operands)
    anyStruct |= o->type && o->type->isStruct();
  if (!anyStruct)
    return false;
  std::string name = "operator" + symbol;
  FunctionDecl *member = method(operands[0]->type, name);
  std::string freeName = name;
  auto *free = dynamic_cast<FunctionDecl *>(lookup(name));
  if (free && free->owner)
    free = nullptr;
  // As C++'s argument-dependent lookup: the operators of the operands' namespaces
  // (`std::string + "!"` finds std::operator+).
  for (size_t i = 0; !free && i < operands.size(); ++i) {
    const Type *t = operands[i]->type;
    if (!t || !t->isStruct() || t->record->name.empty())
      continue;
    std::string n = t->record->name.substr(0, t->record->name.find('<'));
    size_t cut = n.rfind("::");
    if (cut == std::string::npos)
      continue;
    free = dynamic_cast<FunctionDecl *>(lookup("::" + n.substr(0, cut) + "::" + name));
    if (free && free->owner)
      free = nullptr;
    if (free)
      freeName = "::" + n.substr(0, cut) + "::" + name;
  }
  // An operator template of namespace scope, in the operands' namespaces or the global one
  // (`std::operator<(const pair<T1, T2> &, const pair<T1, T2> &)`): its arguments are deduced
  // at the call.
  // (Also when the operator found cannot take these operands: std::less<geo::Box<T>> inside
  // namespace std finds std::operator<(const string &, const string &) first.)
  bool freeTemplate = false;
  bool freeTakes = free && freeOperatorTakes(free, operands);
  for (size_t i = 0; !freeTakes && !freeTemplate && i <= operands.size(); ++i) {
    std::string ns;
    if (i < operands.size()) {
      const Type *t = operands[i]->type;
      if (!t || !t->isStruct() || t->record->name.empty())
        continue;
      std::string n = t->record->name.substr(0, t->record->name.find('<'));
      size_t cut = n.rfind("::");
      if (cut == std::string::npos)
        continue;
      ns = n.substr(0, cut);
    }
    std::string q = ns.empty() ? name : ns + "::" + name;
    if (fileScope_.templates.count(q)) {
      freeTemplate = true;
      freeName = "::" + q;
      free = nullptr;
    }
  }
  // A member operator that cannot take the other operand gives way to a namespace-scope one
  // (`std::cout << point` with a user's `operator<<(std::ostream &, const Point &)`).
  if (member && (free || freeTemplate) && operands.size() == 2 &&
      !memberOperatorTakes(member, operands[1]))
    member = nullptr;
  if (!member && !free && !freeTemplate)
    return false;
  Expr *callee;
  std::vector<Expr *> args;
  if (member) {
    callee = make(ExprKind::Member, e->loc);
    callee->name = name;
    callee->operands = {operands[0]};
    args.assign(operands.begin() + 1, operands.end());
  } else {
    callee = make(ExprKind::Ident, e->loc);
    callee->name = freeName;
    args = operands;
  }
  e->kind = ExprKind::Call;
  e->operands = {callee};
  e->args = args;
  e->type = nullptr;
  e->isLValue = false;
  call(e);
  return true;
}

} // namespace kern::frontend::sema_detail
