// Overloaded function templates: several templates of one name (and ordinary functions beside
// them). A call considers every template whose arguments can be deduced and every ordinary
// function, ranks each one's conversions as for ordinary overloads, and on a tie prefers an
// ordinary function to a template, then the more specialised template (C++'s partial
// ordering: A is at least as specialised as B when B's parameters can be deduced from A's).
#include "frontend/clone.h"
#include "frontend/sema_impl.h"

namespace kern::frontend::sema_detail {

namespace {

using Params = std::vector<TemplateParam>;

bool isTypeParameter(const Params &ps, const std::string &name) {
  for (const TemplateParam &p : ps)
    if (p.isType && p.name == name)
      return true;
  return false;
}

/// A template parameter's position in `f`'s list, or -1.
int parameterIndex(const Params &ps, const std::string &name) {
  for (size_t i = 0; i < ps.size(); ++i)
    if (ps[i].name == name)
      return static_cast<int>(i);
  return -1;
}

/// The words of a template argument that is a constant: an integer literal or a name.
std::string valueSpelling(const Expr *e, const Params *owner) {
  if (!e)
    return "";
  if (e->kind == ExprKind::Ident) {
    int i = owner ? parameterIndex(*owner, e->name) : -1;
    return i >= 0 ? "$" + std::to_string(i) : e->name;
  }
  if (e->kind == ExprKind::IntLit)
    return std::to_string(e->intValue);
  return "?" + std::to_string(reinterpret_cast<uintptr_t>(e)); // equal only to itself
}

/// `t` spelt with its first `opsEnd` declarator operators, the base's const if `baseConst`,
/// the last operator's const unless `dropLastConst`. Template parameters of `owner` are
/// spelt by position (`$0`), so that two declarations of one template compare equal. In a
/// member of a class template, the class's name alone (`injected`, the class's first
/// `classParams` of `owner` its parameters) is the class with its parameters, `C<$0,>`.
std::string spell(const TypeSyntax *t, size_t opsEnd, bool baseConst, bool dropLastConst,
                  const Params *owner, const std::string *injected = nullptr,
                  size_t classParams = 0) {
  std::string s = baseConst && t->isConst ? "const " : "";
  for (const std::string &k : t->keywords)
    s += k + " ";
  int i = owner && t->keywords.empty() ? parameterIndex(*owner, t->name) : -1;
  std::string base = (i >= 0 ? "$" + std::to_string(i) : t->name) + t->structName + t->enumName;
  // The class itself, however qualified (`C`, `ns::C`, `struct C`).
  bool self = injected && i < 0 && t->enumName.empty() &&
              (base == *injected || (base.size() > injected->size() + 2 &&
                                     base.compare(base.size() - injected->size() - 2,
                                                  std::string::npos, "::" + *injected) == 0));
  s += self ? *injected : base;
  if (!t->templateArgs.empty()) {
    s += "<";
    for (const TemplateArg &a : t->templateArgs)
      s += (a.type ? spell(a.type, a.type->ops.size(), true, false, owner, injected, classParams)
                   : valueSpelling(a.value, owner)) +
           ",";
    s += ">";
  } else if (self) {
    s += "<";
    for (size_t k = 0; k < classParams; ++k)
      s += "$" + std::to_string(k) + ",";
    s += ">";
  }
  for (size_t k = 0; k < opsEnd; ++k) {
    const TypeOp &op = t->ops[k];
    s += op.kind == TypeOp::Kind::Pointer     ? "*"
         : op.kind == TypeOp::Kind::Reference ? "&"
         : op.kind == TypeOp::Kind::Array     ? "[]"
                                              : "()";
    if (op.isConst && !(dropLastConst && k + 1 == opsEnd))
      s += "c";
  }
  return s;
}

/// The number of declarator operators of a parameter's type once a reference is dropped (C++
/// orders templates by the referred type, without its top-level const).
size_t strippedOps(const TypeSyntax *t) {
  size_t n = t->ops.size();
  return n > 0 && t->ops[n - 1].kind == TypeOp::Kind::Reference ? n - 1 : n;
}

/// Whether parameter type `p` of template `b` can be deduced from `a` (a parameter type of
/// another template, whose own parameters stand for unique types), binding b's parameters in
/// `bound`. Top-level references and const are ignored on both sides.
bool matches(const TypeSyntax *p, const Params &b, const TypeSyntax *a,
             std::map<std::string, std::string> &bound, bool topLevel) {
  size_t pn = topLevel ? strippedOps(p) : p->ops.size();
  size_t an = topLevel ? strippedOps(a) : a->ops.size();
  if (p->keywords.empty() && p->templateArgs.empty() && p->structName.empty() &&
      isTypeParameter(b, p->name)) {
    // `T`, `T *`, `const T *`: p's operators are a's outermost ones, T is the rest of a.
    if (pn > an)
      return false;
    for (size_t k = 0; k < pn; ++k) {
      const TypeOp &po = p->ops[pn - 1 - k], &ao = a->ops[an - 1 - k];
      if (po.kind != ao.kind || (k > 0 && po.isConst != ao.isConst))
        return false;
    }
    size_t rest = an - pn;
    bool constBound = pn > 0 && p->isConst; // `const T *`: T's own const is matched here
    std::string to;
    if (rest == 0) {
      if (constBound && !a->isConst)
        return false;
      to = spell(a, 0, pn > 0 && !constBound, false, nullptr);
    } else {
      const TypeOp &inner = a->ops[rest - 1];
      if (constBound && !inner.isConst)
        return false;
      to = spell(a, rest, true, pn == 0 || constBound, nullptr);
    }
    auto [it, fresh] = bound.emplace(p->name, to);
    return fresh || it->second == to;
  }
  if (p->keywords != a->keywords || p->name != a->name || p->structName != a->structName ||
      p->enumName != a->enumName || pn != an || p->templateArgs.size() != a->templateArgs.size())
    return false;
  if (pn > 0 && p->isConst != a->isConst)
    return false;
  for (size_t k = 0; k < pn; ++k)
    if (p->ops[k].kind != a->ops[k].kind || (k + 1 < pn && p->ops[k].isConst != a->ops[k].isConst))
      return false;
  for (size_t i = 0; i < p->templateArgs.size(); ++i) {
    const TemplateArg &x = p->templateArgs[i], &y = a->templateArgs[i];
    if (x.type && y.type) {
      if (!matches(x.type, b, y.type, bound, false))
        return false;
    } else if (x.value && y.value) {
      std::string to = valueSpelling(y.value, nullptr);
      if (x.value->kind == ExprKind::Ident && parameterIndex(b, x.value->name) >= 0) {
        auto [it, fresh] = bound.emplace(x.value->name, "=" + to);
        if (!fresh && it->second != "=" + to)
          return false;
      } else if (valueSpelling(x.value, nullptr) != to) {
        return false;
      }
    } else {
      return false;
    }
  }
  return true;
}

bool isReference(const TypeSyntax *t) {
  return !t->ops.empty() && t->ops.back().kind == TypeOp::Kind::Reference;
}

/// Template `a` is at least as specialised as `b` for the first `n` parameters. Where both
/// take references, one to a less const type is not (`T &` is less specialised than
/// `const T &`).
bool atLeastAsSpecialised(const FunctionDecl *a, const FunctionDecl *b, size_t n) {
  std::map<std::string, std::string> bound;
  for (size_t i = 0; i < n && i < a->params.size() && i < b->params.size(); ++i) {
    const TypeSyntax *pa = a->params[i]->typeSyntax, *pb = b->params[i]->typeSyntax;
    if (!pa || !pb || !matches(pb, b->templateParams, pa, bound, true))
      return false;
    if (isReference(pa) && isReference(pb) && pa->ops.size() == 1 && pb->ops.size() == 1 &&
        pb->isConst && !pa->isConst)
      return false;
  }
  return true;
}

} // namespace

bool Sema::argumentsAtLeastAsSpecialised(const std::vector<TemplateArg> &a,
                                         const std::vector<TemplateArg> &b,
                                         const std::vector<TemplateParam> &bParams) {
  if (a.size() != b.size())
    return false;
  std::map<std::string, std::string> bound;
  for (size_t i = 0; i < a.size(); ++i) {
    const TemplateArg &x = b[i], &y = a[i];
    if (x.type && y.type) {
      if (!matches(x.type, bParams, y.type, bound, false))
        return false;
    } else if (x.value && y.value) {
      std::string to = valueSpelling(y.value, nullptr);
      if (x.value->kind == ExprKind::Ident && parameterIndex(bParams, x.value->name) >= 0) {
        auto [it, fresh] = bound.emplace(x.value->name, "=" + to);
        if (!fresh && it->second != "=" + to)
          return false;
      } else if (valueSpelling(x.value, nullptr) != to) {
        return false;
      }
    } else {
      return false;
    }
  }
  return true;
}

bool Sema::sameTemplateSignature(const FunctionDecl *a, const FunctionDecl *b) {
  return sameMemberSignature(a, {}, b, {}, "");
}

bool Sema::sameMemberSignature(const FunctionDecl *a, const std::vector<TemplateParam> &aClass,
                               const FunctionDecl *b, const std::vector<TemplateParam> &bClass,
                               const std::string &className) {
  if (a->templateParams.size() != b->templateParams.size() ||
      a->params.size() != b->params.size() || a->variadic != b->variadic ||
      aClass.size() != bClass.size())
    return false;
  for (size_t i = 0; i < a->templateParams.size(); ++i)
    if (a->templateParams[i].isType != b->templateParams[i].isType)
      return false;
  // The class's parameters first, then the member template's own: each spelt by position.
  Params aAll = aClass, bAll = bClass;
  aAll.insert(aAll.end(), a->templateParams.begin(), a->templateParams.end());
  bAll.insert(bAll.end(), b->templateParams.begin(), b->templateParams.end());
  const std::string *injected = className.empty() ? nullptr : &className;
  for (size_t i = 0; i < a->params.size(); ++i) {
    const TypeSyntax *x = a->params[i]->typeSyntax, *y = b->params[i]->typeSyntax;
    if (!x || !y ||
        spell(x, x->ops.size(), true, false, &aAll, injected, aClass.size()) !=
            spell(y, y->ops.size(), true, false, &bAll, injected, bClass.size()))
      return false;
  }
  return true;
}

bool Sema::instanceParameterTypes(FunctionDecl *tmpl, const std::vector<const Type *> &types,
                                  const std::vector<int64_t> &values,
                                  std::vector<const Type *> &out) {
  Scope *savedScope = scope_;
  std::string savedNs = ns_;
  scopes_.emplace_back();
  Scope &bindings = scopes_.back();
  bindings.parent = templateScope(tmpl);
  for (size_t i = 0; i < tmpl->templateParams.size(); ++i) {
    if (tmpl->templateParams[i].isType)
      bindings.typedefs[tmpl->templateParams[i].name] = types[i];
    else
      bindings.enumerators[tmpl->templateParams[i].name] = {values[i], nullptr};
  }
  scope_ = &bindings;
  ns_ = tmpl->ns;
  const Qualifiers &q = tmpl->quals;
  AddrSpace pspace = q.global                ? AddrSpace::Global
                     : (q.device && !q.host) ? AddrSpace::Generic
                                             : AddrSpace::Host;
  bool ok = true;
  out.clear();
  Cloner clone(tu_);
  for (VarDecl *p : tmpl->params) {
    // A copy: checking the template's own syntax would keep the values of its non-type
    // parameters (`W<T, d, m>`) from this candidate for the next.
    const Type *t = p->typeSyntax ? resolve(clone.type(p->typeSyntax), pspace) : nullptr;
    if (!t) {
      ok = false;
      break;
    }
    out.push_back(t->isArray() ? types_.pointerTo(t->elem, pspace, p->typeSyntax->isConst) : t);
  }
  scope_ = savedScope;
  ns_ = savedNs;
  return ok;
}

bool Sema::argumentRanks(const FunctionDecl *c, const Type *ft, const std::vector<Expr *> &args,
                         std::vector<int> &ranks) {
  // Each rank is twice C++'s category, plus one where the parameter adds const to what the
  // argument points or refers to (`int *` to `const int *`): of two exact matches, the one
  // without the added const is better.
  if (!ft || (args.size() > ft->params.size() && !ft->variadic))
    return false;
  for (size_t i = args.size(); i < c->params.size(); ++i)
    if (!c->params[i]->init)
      return false;
  ranks.clear();
  for (size_t i = 0; i < args.size() && i < ft->params.size(); ++i) {
    const Type *p = ft->params[i];
    int r = conversionRank(args[i], p);
    if (r < 0)
      return false;
    bool addsConst = false;
    if (p->isReference)
      addsConst = p->pointeeConst && args[i]->isLValue && !isConstLValue(args[i]);
    else if (p->isPointer() && p->pointeeConst)
      addsConst = rvalue(args[i])->type->isPointer() && !rvalue(args[i])->type->pointeeConst;
    ranks.push_back(2 * r + (addsConst ? 1 : 0));
  }
  return true;
}

FunctionDecl *Sema::chooseTemplate(const std::vector<FunctionDecl *> &set,
                                   const std::vector<FunctionDecl *> &ordinary, Expr *callee,
                                   std::vector<Expr *> &args) {
  for (Expr *a : args)
    if (!check(a))
      return nullptr;
  struct Candidate {
    FunctionDecl *f;
    bool isTemplate;
    std::vector<int> ranks;
    std::vector<const Type *> types;
    std::vector<int64_t> values;
  };
  std::vector<Candidate> viable;
  for (FunctionDecl *c : ordinary) {
    Candidate k{c, false, {}, {}, {}};
    if (argumentRanks(c, c->type, args, k.ranks))
      viable.push_back(k);
  }
  for (FunctionDecl *t : set) {
    Candidate k{t, true, {}, {}, {}};
    std::vector<const Type *> params;
    if (!deduceTemplateArguments(t, callee, args, k.types, k.values, false) ||
        !instanceParameterTypes(t, k.types, k.values, params))
      continue;
    if (argumentRanks(t, types_.function(types_.voidTy(), params, t->variadic), args, k.ranks))
      viable.push_back(k);
  }
  auto better = [&](const Candidate &x, const Candidate &y) {
    bool strictly = false;
    for (size_t i = 0; i < x.ranks.size() && i < y.ranks.size(); ++i) {
      if (x.ranks[i] > y.ranks[i])
        return false;
      strictly |= x.ranks[i] < y.ranks[i];
    }
    if (strictly)
      return true;
    if (x.isTemplate != y.isTemplate)
      return !x.isTemplate; // an ordinary function is preferred to a template
    return x.isTemplate && atLeastAsSpecialised(x.f, y.f, args.size()) &&
           !atLeastAsSpecialised(y.f, x.f, args.size());
  };
  const Candidate *best = nullptr;
  for (const Candidate &c : viable) {
    bool beatsAll = true;
    for (const Candidate &o : viable)
      if (&o != &c && !better(c, o))
        beatsAll = false;
    if (beatsAll)
      best = &c;
  }
  if (!best) {
    error(callee->loc, (viable.empty() ? "no matching function for call to '" : "call to '") +
                           callee->name + (viable.empty() ? "'" : "' is ambiguous"));
    bool library = false;
    for (FunctionDecl *c : ordinary)
      if (isLibraryOverload(c))
        library = true;
      else if (c->type)
        diags_.note(c->loc, "candidate: '" + c->type->str() + "'");
    if (library)
      diags_.note(callee->loc, "candidates: CUDA's overloads of '" + callee->name + "'");
    for (FunctionDecl *t : set)
      diags_.note(t->loc, "candidate template: '" + t->name + "' with " +
                              std::to_string(t->params.size()) + " parameter" +
                              (t->params.size() == 1 ? "" : "s"));
    return nullptr;
  }
  if (!best->isTemplate)
    return best->f;
  return instantiateWith(best->f, best->types, best->values, callee->loc);
}

} // namespace kern::frontend::sema_detail
