// C++ overloading and default arguments: several functions of one name told apart by their
// parameters, the best one for a call chosen by C++'s ranking of conversions (exact match,
// promotion, conversion), and the default arguments a call leaves out.
#include "frontend/sema_impl.h"

namespace kern::frontend::sema_detail {

namespace {

bool sameParameters(const Type *a, const Type *b) {
  if (a->params.size() != b->params.size() || a->variadic != b->variadic)
    return false;
  for (size_t i = 0; i < a->params.size(); ++i) {
    const Type *x = a->params[i], *y = b->params[i];
    while (x != y && x->isPointer() && y->isPointer() && x->isReference == y->isReference &&
           x->pointeeConst == y->pointeeConst) {
      x = x->elem;
      y = y->elem;
    }
    if (x != y)
      return false;
  }
  return true;
}

} // namespace

FunctionDecl *Sema::overload(FunctionDecl *prev, FunctionDecl *f) {
  auto &set = overloads_[f->name];
  if (set.empty())
    set.push_back(prev);
  for (FunctionDecl *o : set) {
    if (!sameParameters(o->type, f->type))
      continue;
    if (o->type->elem != f->type->elem) {
      error(f->loc, "functions that differ only in their return type cannot be overloaded ('" +
                        f->name + "')");
      return nullptr;
    }
    return o;
  }
  set.push_back(f);
  for (FunctionDecl *o : set)
    o->isOverloaded = true;
  if (f->body) {
    f->definition = f;
    functionBody(f);
  }
  return nullptr;
}

void Sema::mergeDefaultArguments(FunctionDecl *a, FunctionDecl *b) {
  for (size_t i = 0; i < a->params.size() && i < b->params.size(); ++i) {
    if (!a->params[i]->init)
      a->params[i]->init = b->params[i]->init;
    if (!b->params[i]->init)
      b->params[i]->init = a->params[i]->init;
  }
}

void Sema::defaultArguments(Expr *e, FunctionDecl *f) {
  for (size_t i = e->args.size(); i < f->params.size(); ++i) {
    Expr *init = f->params[i]->init;
    if (!init)
      return; // reported as too few arguments
    if (!init->type && !instances_.count(f)) {
      // Names in a default argument are those of the function's declaration (its namespace,
      // its class), not of the call: `open(int mode = ios_base::out)` in namespace std.
      std::string savedNs = ns_;
      Scope *savedScope = scope_;
      ns_ = f->ns;
      scope_ = &fileScope_;
      check(init);
      ns_ = savedNs;
      scope_ = savedScope;
    }
    e->args.push_back(init);
  }
}

int Sema::conversionRank(Expr *a, const Type *pt) {
  if (pt->isReference) {
    if (a->isLValue && sameForReference(a->type, pt->elem))
      return pt->pointeeConst || !isConstLValue(a) ? 0 : -1;
    if (a->isLValue && isDerivedFrom(a->type, pt->elem)) // a base of the argument's class
      return pt->pointeeConst || !isConstLValue(a) ? 2 : -1;
    if (!pt->pointeeConst)
      return -1;
    pt = pt->elem;
  }
  const Type *t = rvalue(a)->type;
  if (t == pt)
    return 0;
  if (t->isArithmetic() && pt->isArithmetic()) {
    if ((t->isInteger() && t->rank() < types_.intTy()->rank() && pt == types_.intTy()) ||
        (t == types_.floatTy() && pt == types_.doubleTy()))
      return 1;
    return 2;
  }
  if (pt->isBool() && t->isPointer())
    return 2;
  if (pt->isPointer()) {
    if (t->isPointer()) {
      if (sameIgnoringSpace(t->elem, pt->elem) && (pt->pointeeConst || !t->pointeeConst))
        return 0;
      if (pt->elem->isVoid() && !t->elem->isFunction() && (pt->pointeeConst || !t->pointeeConst))
        return 2;
      if (isDerivedFrom(t->elem, pt->elem) && (pt->pointeeConst || !t->pointeeConst))
        return 2; // derived to base

      return -1;
    }
    return t->isInteger() && isNullConstant(a) ? 2 : -1;
  }
  if (pt->isStruct())
    return t->isStruct() && t->record == pt->record                             ? 0
           : isDerivedFrom(t, pt)                                               ? 2
           : pt == types_.dim3Ty() && (t->isInteger() || t == types_.uint3Ty()) ? 2
           : convertingConstructor(pt, a) || convertsTo(t, pt)                  ? 3
                                                                                : -1;
  if (t->isStruct() && pt->isArithmetic()) // a conversion function (`operator float()`)
    for (FunctionDecl *f : conversions_[t->record])
      if (f->type && f->type->elem->isArithmetic())
        return 3;
  return -1;
}

FunctionDecl *Sema::chooseOverload(FunctionDecl *f, Expr *e, bool explicitObject) {
  auto it = overloads_.find(f->name);
  if (it == overloads_.end())
    return f;
  for (Expr *a : e->args)
    if (!check(a))
      return nullptr;
  // A member named inside a member function passes `this` first, as the call will.
  std::vector<std::pair<FunctionDecl *, std::vector<int>>> viable;
  for (FunctionDecl *c : it->second) {
    bool member = c->owner && !c->isStaticMember;
    Expr *thisArg = nullptr;
    if (member && !explicitObject) {
      if (!fn_ || !fn_->owner || fn_->isStaticMember)
        continue;
      thisArg = make(ExprKind::Ident, e->loc);
      thisArg->name = "this";
      if (!check(thisArg))
        continue;
    }
    std::vector<Expr *> args = e->args;
    if (thisArg)
      args.insert(args.begin(), thisArg);
    std::vector<int> ranks;
    bool ok = argumentRanks(c, c->type, args, ranks);
    if (ok)
      viable.push_back({c, ranks});
  }
  auto better = [](const std::vector<int> &a, const std::vector<int> &b) {
    bool strictly = false;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (a[i] > b[i])
        return false;
      strictly |= a[i] < b[i];
    }
    return strictly;
  };
  FunctionDecl *best = nullptr;
  for (auto &[c, ranks] : viable) {
    bool beatsAll = true;
    for (auto &[o, oranks] : viable)
      if (o != c && !better(ranks, oranks))
        beatsAll = false;
    if (beatsAll)
      best = c;
  }
  if (best)
    return best;
  std::string n = f->name;
  if (viable.empty())
    error(e->loc, "no matching function for call to '" + n + "'");
  else
    error(e->loc, "call to '" + n + "' is ambiguous");
  for (FunctionDecl *c : it->second)
    diags_.note(c->loc, "candidate: '" + c->type->str() + "'");
  return nullptr;
}

std::vector<FunctionDecl *> Sema::libraryOverloads(const std::string &name,
                                                   const std::vector<FunctionDecl *> &user) {
  if (options_.cLanguage || (name != "min" && name != "max" && name != "abs"))
    return {};
  auto [it, fresh] = libraryOverloads_.emplace(name, std::vector<FunctionDecl *>{});
  if (fresh) {
    using K = TypeKind;
    // min and max: each integer type with itself and with its unsigned partner (the result
    // unsigned), float, double, and float with double (the result double).
    static const K pairs[][3] = {
        {K::Int, K::Int, K::Int},
        {K::UInt, K::UInt, K::UInt},
        {K::UInt, K::Int, K::UInt},
        {K::UInt, K::UInt, K::Int},
        {K::Long, K::Long, K::Long},
        {K::ULong, K::ULong, K::ULong},
        {K::ULong, K::Long, K::ULong},
        {K::ULong, K::ULong, K::Long},
        {K::LongLong, K::LongLong, K::LongLong},
        {K::ULongLong, K::ULongLong, K::ULongLong},
        {K::ULongLong, K::LongLong, K::ULongLong},
        {K::ULongLong, K::ULongLong, K::LongLong},
        {K::Float, K::Float, K::Float},
        {K::Double, K::Double, K::Double},
        {K::Double, K::Float, K::Double},
        {K::Double, K::Double, K::Float},
    };
    static const K singles[] = {K::Int, K::Long, K::LongLong, K::Float, K::Double};
    auto declare = [&](K result, std::vector<K> params) {
      auto *f = tu_.make<FunctionDecl>();
      f->name = name;
      f->quals.host = f->quals.device = true;
      std::vector<const Type *> types;
      for (K k : params) {
        auto *p = tu_.make<VarDecl>();
        p->name = types.empty() ? "a" : "b";
        p->isParam = true;
        p->type = types_.get(k);
        f->params.push_back(p);
        types.push_back(types_.get(k));
      }
      f->type = types_.function(types_.get(result), types, false);
      it->second.push_back(f);
      libraryDecls_.insert(f);
    };
    if (name == "abs")
      for (K k : singles)
        declare(k, {k});
    else
      for (const auto &p : pairs)
        declare(p[0], {p[1], p[2]});
  }
  std::vector<FunctionDecl *> out;
  for (FunctionDecl *f : it->second) {
    bool hidden = false;
    for (FunctionDecl *u : user)
      hidden |= u->type && sameSignature(u->type, f->type);
    if (!hidden)
      out.push_back(f);
  }
  return out;
}

void Sema::libraryOverloadCall(Expr *e, FunctionDecl *f) {
  for (size_t i = 0; i < e->args.size() && i < f->type->params.size(); ++i)
    e->args[i] = convert(rvalue(e->args[i]), f->type->params[i], "argument");
  builtinCall(e, findBuiltin(f->name));
}

FunctionDecl *Sema::convertingConstructor(const Type *t, Expr *a) {
  FunctionDecl *ctor = constructorOf(t);
  if (!ctor || !a->type || a->type == t)
    return nullptr;
  auto it = overloads_.find(ctor->name);
  std::vector<FunctionDecl *> ctors =
      it != overloads_.end() ? it->second : std::vector<FunctionDecl *>{ctor};
  // One parameter besides the object, taking `a` by a standard conversion (ranks 0-2): one
  // user-defined conversion at most, as C++ allows.
  FunctionDecl *best = nullptr;
  int bestRank = 3;
  for (FunctionDecl *c : ctors) {
    const Type *ft = c->type;
    if (!ft || ft->params.size() != 2 || c->isExplicit)
      continue;
    const Type *p = ft->params[1];
    if (p->isReference)
      p = p->elem;
    // A struct parameter takes only that struct (not one made by a second conversion), and
    // not t itself (a copy constructor).
    if (p->isStruct() &&
        (p->record == t->record || !a->type->isStruct() || a->type->record != p->record))
      continue;
    int r = conversionRank(a, ft->params[1]);
    if (r >= 0 && r < bestRank) {
      best = c;
      bestRank = r;
    }
  }
  return best;
}

bool Sema::isCopyConstruction(const Type *t, std::vector<Expr *> &args) {
  if (args.size() != 1 || !check(args[0]) || args[0]->type != t)
    return false;
  // A copy constructor the program declares is called; otherwise the copy is member-wise.
  FunctionDecl *ctor = constructorOf(t);
  auto it = overloads_.find(ctor ? ctor->name : "");
  std::vector<FunctionDecl *> ctors =
      it != overloads_.end() ? it->second : std::vector<FunctionDecl *>{ctor};
  for (FunctionDecl *c : ctors) {
    if (!c || !c->type || c->type->params.size() != 2)
      continue;
    const Type *p = c->type->params[1];
    if (p == t || (p->isReference && p->elem == t))
      return false;
  }
  return true;
}

bool Sema::emptyDefaultConstructor(const Type *t) {
  FunctionDecl *ctor = constructorOf(t);
  auto it = overloads_.find(ctor ? ctor->name : "");
  std::vector<FunctionDecl *> ctors =
      it != overloads_.end() ? it->second : std::vector<FunctionDecl *>{ctor};
  for (FunctionDecl *c : ctors) {
    FunctionDecl *def = c && c->definition ? c->definition : c;
    if (def && def->type && def->type->params.size() == 1 && def->body && def->body->body.empty() &&
        def->memberInits.empty())
      return true;
  }
  return false;
}

bool Sema::convertsTo(const Type *from, const Type *to) {
  if (!from->isStruct())
    return false;
  auto it = conversions_.find(from->record);
  if (it == conversions_.end())
    return false;
  for (FunctionDecl *f : it->second)
    if (f->type && f->type->elem == to)
      return true;
  return false;
}

} // namespace kern::frontend::sema_detail
