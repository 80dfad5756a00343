// Semantic analysis of C++'s names and objects as CUDA code uses them: namespaces and using
// declarations, member functions (functions with an explicit `this`), and references
// (pointers that are dereferenced wherever the reference is named).
#include "frontend/sema_impl.h"

#include <algorithm>

namespace kern::frontend::sema_detail {

namespace {

/// `a::b::c` -> `a::b`; "" for an unqualified name.
std::string parentOf(const std::string &n) {
  // An operator's name ends in its spelling, whose < and > are not brackets: `std::operator<`.
  size_t op = n.rfind("::operator");
  if (op != std::string::npos && n.find("::", op + 2) == std::string::npos)
    return n.substr(0, op);
  // The last `::` outside template arguments: `ns::Box<geo::Tag>` -> `ns`.
  int depth = 0;
  for (size_t i = n.size(); i-- > 1;) {
    depth += n[i] == '>' ? 1 : n[i] == '<' ? -1 : 0;
    if (depth == 0 && n[i] == ':' && n[i - 1] == ':')
      return n.substr(0, i - 1);
  }
  return "";
}

} // namespace

std::string Sema::resolveNamespace(const std::string &n) const {
  if (n.rfind("::", 0) == 0)
    return n.substr(2);
  // A qualified name of a struct typedef (`std::chrono::high_resolution_clock`): the struct's.
  if (n.find("::") != std::string::npos)
    for (std::string p = ns_;; p = parentOf(p)) {
      auto t = fileScope_.typedefs.find(p.empty() ? n : p + "::" + n);
      if (t != fileScope_.typedefs.end() && t->second->isStruct() &&
          !t->second->record->name.empty())
        return t->second->record->name;
      if (p.empty())
        break;
    }
  size_t cut = n.find("::");
  std::string first = n.substr(0, cut);
  std::string rest = cut == std::string::npos ? "" : n.substr(cut);
  for (const Scope *s = scope_; s; s = s->parent) {
    if (s != &fileScope_) {
      auto it = s->aliases.find(first);
      if (it != s->aliases.end())
        return it->second + rest;
      // `T::num` where T is a template's type parameter bound to a struct: that struct's.
      auto t = s->typedefs.find(first);
      if (t != s->typedefs.end() && t->second->isStruct() && !t->second->record->name.empty())
        return t->second->record->name + rest;
      continue;
    }
    for (std::string p = ns_;; p = parentOf(p)) {
      auto it = s->aliases.find(p.empty() ? first : p + "::" + first);
      if (it != s->aliases.end())
        return it->second + rest;
      auto t = s->typedefs.find(p.empty() ? first : p + "::" + first);
      if (t != s->typedefs.end() && t->second->isStruct() && !t->second->record->name.empty() &&
          t->second->record->name != (p.empty() ? first : p + "::" + first))
        return t->second->record->name + rest;
      if (p.empty())
        break;
    }
  }
  return n;
}

namespace {

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
/// neighbouring characters, each 1 (a swap is the commonest typo).
size_t typoDistance(const std::string &a, const std::string &b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

} // namespace

std::string Sema::didYouMean(const std::string &n) const {
  if (n.size() < 3 || n.find("::") != std::string::npos)
    return "";
  // Clang's rule of thumb: about one typo per three characters.
  const size_t limit = (n.size() + 2) / 3;
  std::string best;
  size_t bestDistance = limit + 1;
  const std::string prefix = ns_.empty() ? "" : ns_ + "::";
  auto consider = [&](std::string c) {
    if (c.rfind(prefix, 0) == 0 && !prefix.empty())
      c.erase(0, prefix.size());
    if (c == n || c.find("::") != std::string::npos || c.empty() ||
        (c[0] == '_' && n[0] != '_')) // kern's own __kern names are not offered
      return;
    if (c.size() + limit < n.size() || n.size() + limit < c.size())
      return;
    const size_t d = typoDistance(n, c);
    if (d < bestDistance || (d == bestDistance && c < best)) {
      best = std::move(c);
      bestDistance = d;
    }
  };
  for (const Scope *s = scope_; s; s = s->parent) {
    for (const auto &[name, decl] : s->names)
      consider(name);
    for (const auto &[name, value] : s->enumerators)
      consider(name);
  }
  for (size_t i = 0; i < builtinCount(); ++i)
    consider(builtinInfo(static_cast<int>(i)).name);
  return bestDistance <= limit ? "; did you mean '" + best + "'?" : "";
}

std::vector<std::string> Sema::candidates(const std::string &n) const {
  if (n.rfind("::", 0) == 0)
    return {n.substr(2)};
  std::string m = n;
  if (size_t cut = n.rfind("::"); cut != std::string::npos)
    m = resolveNamespace(n.substr(0, cut)) + n.substr(cut);
  std::vector<std::string> out;
  for (std::string p = ns_;; p = parentOf(p)) {
    out.push_back(p.empty() ? m : p + "::" + m);
    if (p.empty())
      break;
    // Inside a struct (a member function's code): its base classes' members next.
    auto st = fileScope_.structs.find(p);
    if (st != fileScope_.structs.end() && m.find("::") == std::string::npos) {
      std::vector<const Type *> work = {st->second};
      for (size_t i = 0; i < work.size(); ++i)
        for (const StructBase &b : work[i]->record->bases) {
          out.push_back(b.type->record->name + "::" + m);
          work.push_back(b.type);
        }
    }
  }
  for (const Scope *s = scope_; s; s = s->parent)
    for (const std::string &u : s->usings)
      out.push_back(u + "::" + m);
  return out;
}

bool Sema::stdLibraryFunction(Expr *callee) {
  // <cmath>, <cstdlib>, <cstdio> and <cstring> declare the C library's functions in std too
  // (`std::sqrt`, `std::printf`, `std::memcpy`): they are kern's built-ins of the same name.
  std::string n = callee->name;
  if (n.rfind("::", 0) == 0)
    n = n.substr(2);
  if (n.rfind("std::", 0) != 0 || findBuiltin(n.substr(5)) < 0 || n.find("::", 5) != n.npos)
    return false;
  callee->name = n.substr(5);
  return true;
}

void Sema::usingDecl(UsingDecl *u) {
  if (u->isDirective) {
    scope_->usings.push_back(resolveNamespace(u->target));
    return;
  }
  if (!u->alias.empty()) {
    std::string key = scope_ == &fileScope_ && !ns_.empty() ? ns_ + "::" + u->alias : u->alias;
    scope_->aliases[key] = resolveNamespace(u->target);
    return;
  }
  // `using N::x;`: x names here what N::x names.
  std::string last =
      u->target.substr(u->target.rfind(':') == std::string::npos ? 0 : u->target.rfind(':') + 1);
  std::string key = scope_ == &fileScope_ && !ns_.empty() ? ns_ + "::" + last : last;
  bool found = false;
  if (Decl *d = lookup(u->target)) {
    scope_->names[key] = d;
    found = true;
  }
  if (const Type *t = lookupTypedef(u->target)) {
    scope_->typedefs[key] = t;
    found = true;
  }
  if (const Type *t = lookupStruct(u->target)) {
    scope_->structs[key] = t;
    found = true;
  }
  if (const Enumerator *en = lookupEnumerator(u->target)) {
    scope_->enumerators[key] = *en;
    found = true;
  }
  std::string target = u->target.rfind("::", 0) == 0 ? u->target.substr(2) : u->target;
  if (!found && target == "std::" + last && findBuiltin(last) >= 0)
    found = true; // `using std::sqrt;`: the built-in, which is already visible
  if (!found)
    error(u->loc, "no member named '" + last + "' in '" + parentOf(u->target) + "'");
}

void Sema::defineEnum(EnumDecl *ed, bool member) {
  // An inline definition is reachable both as a declaration and from its declarators.
  if (!definedEnums_.insert(ed).second)
    return;
  // A member of a class template's instance is named after the instance (`B<4>::SIZE`) at
  // file scope, as the members of other structs are.
  Scope *into = member ? &fileScope_ : scope_;
  std::string prefix = into == &fileScope_ && !ns_.empty() ? ns_ + "::" : "";
  const Type *underlying = types_.intTy();
  if (ed->underlying) {
    const Type *u = resolve(ed->underlying);
    if (u && !u->isInteger())
      error(ed->underlying->loc, "the underlying type of an enumeration must be an integer type");
    else if (u)
      underlying = u;
  }
  // The enumeration's name (already qualified by its namespace when it is in one).
  std::string enumName =
      ed->name.empty() || ed->name.rfind(prefix, 0) == 0 ? ed->name : prefix + ed->name;
  if (!enumName.empty())
    into->enumTypesOf[enumName] = underlying;
  int64_t next = 0;
  for (auto &e : ed->enumerators) {
    if (e.value) {
      int64_t v;
      if (constantInt(e.value, v))
        next = v;
    }
    e.resolved = next;
    // A scoped enumeration's enumerators are named through it (`Color::Red`); an unscoped
    // one's both ways (`Red`, and `Color::Red` as C++11 allows).
    std::string name = prefix + e.name;
    std::string qualified = enumName.empty() ? "" : enumName + "::" + e.name;
    if (!ed->isScoped && (into->enumerators.count(name) || into->names.count(name)))
      error(e.loc, "redefinition of '" + e.name + "'");
    if (!ed->isScoped)
      into->enumerators[name] = {next, ed};
    if (!qualified.empty())
      fileScope_.enumerators[qualified] = {next, ed}; // found by its qualified name
    ++next;
  }
}

void Sema::declareTypedef(TypedefDecl *td) {
  const Type *t = resolve(td->typeSyntax);
  if (!t)
    return;
  if (t->isVariablyModified()) {
    error(td->loc, "typedefs of variable-length array types are not supported");
    return;
  }
  td->type = t;
  auto it = scope_->typedefs.find(td->name);
  if (it != scope_->typedefs.end() && it->second != t) {
    if (isCudaType(td->name, it->second) && !options_.cudaTypes) {
      // Not a redefinition: the host compiler's file has no CUDA type of this name.
    } else if (isCudaType(td->name, it->second)) {
      error(td->loc, "'" + td->name +
                         "' is a CUDA built-in type here (a .cu file, or one that includes a "
                         "CUDA header); only a C or C++ file without CUDA headers may declare it");
      return;
    } else {
      error(td->loc, "typedef redefinition with different types ('" + t->str() + "' vs '" +
                         it->second->str() + "')");
      return;
    }
  }
  // C++: an unnamed struct named by a typedef takes that name for linkage and diagnostics.
  if (t->isStruct() && t->record->name.empty())
    t->record->name = td->name;
  scope_->typedefs[td->name] = t;
}

FunctionDecl *Sema::method(const Type *st, const std::string &name) {
  if (!st || !st->isStruct() || st->record->name.empty())
    return nullptr;
  auto it = fileScope_.names.find(st->record->name + "::" + name);
  if (it == fileScope_.names.end()) {
    // Inherited: the first base that has it (a derived class's own member hides a base's).
    for (const StructBase &b : st->record->bases)
      if (FunctionDecl *m = method(b.type, name))
        return m;
    return nullptr;
  }
  auto *f = dynamic_cast<FunctionDecl *>(it->second);
  return f && f->owner ? f : nullptr;
}

bool Sema::memberFunction(FunctionDecl *f) {
  if (!f->owner && parentOf(f->name) != f->ns) {
    // `void S::f() {...}` outside the struct: the definition of a member declared inside.
    auto *proto = dynamic_cast<FunctionDecl *>(lookup(f->name));
    if (!proto || !proto->owner) {
      if (lookupStruct(parentOf(f->name)))
        error(f->loc, "out-of-line definition of '" + f->name +
                          "' does not match any declaration in its struct");
      else
        error(f->loc, "no namespace or struct named '" + parentOf(f->name) + "'");
      return false;
    }
    f->owner = proto->owner;
    f->isStaticMember = proto->isStaticMember;
    f->name = proto->name;
    f->ns = proto->ns;
    ns_ = f->ns;
  }
  if (!f->owner)
    return true;
  if (!f->owner->type || !f->owner->type->record->complete) {
    error(f->loc, "member function of an incomplete struct");
    return false;
  }
  if (f->quals.global) {
    error(f->loc, "a kernel cannot be a member function");
    return false;
  }
  if (f->isStaticMember && f->isConstMethod) {
    error(f->loc, "static member function cannot be 'const'");
    return false;
  }
  if (f->isConversion && !f->body)
    conversions_[f->owner->type->record].push_back(f);
  if (!f->isStaticMember &&
      (f->params.empty() || f->params[0]->name != "this" || f->params[0]->typeSyntax)) {
    auto *self = tu_.make<VarDecl>();
    self->name = "this";
    self->loc = f->loc;
    self->isParam = true;
    f->params.insert(f->params.begin(), self);
  }
  return true;
}

Expr *Sema::addressOf(Expr *lvalue) {
  Expr *a = make(ExprKind::Unary, lvalue->loc);
  a->unaryOp = UnaryOp::AddrOf;
  a->operands.push_back(lvalue);
  unary(a);
  return a;
}

Expr *Sema::temporary(Expr *rvalue) {
  Expr *t = make(ExprKind::Temporary, rvalue->loc);
  t->operands.push_back(rvalue);
  t->type = types_.pointerTo(rvalue->type, side_ == Side::Host ? AddrSpace::Host : AddrSpace::Local,
                             false);
  return t;
}

void Sema::memberCall(Expr *e) {
  Expr *callee = e->operands[0];
  if (!check(callee->operands[0]) || !qualifiedMember(callee))
    return;
  Expr *obj = callee->operands[0];
  const Type *st = obj->type;
  Expr *ptr = nullptr;
  if (callee->isArrow) {
    // `it->f()` on a class with operator->: `it.operator->()->f()`, again while the result is
    // a class, as for `it->x` (member()).
    for (int depth = 0;
         depth < 16 && obj->type && obj->type->isStruct() && method(obj->type, "operator->");
         ++depth) {
      Expr *arrow = make(ExprKind::Member, callee->loc);
      arrow->name = "operator->";
      arrow->operands = {obj};
      Expr *c = make(ExprKind::Call, callee->loc);
      c->operands = {arrow};
      call(c);
      if (!c->type)
        return;
      obj = c;
      callee->operands[0] = obj;
    }
    ptr = rvalue(obj);
    if (!ptr->type->isPointer())
      return;
    st = ptr->type->elem;
  }
  FunctionDecl *m = method(st, callee->name);
  if (!m && st && st->isStruct() && !st->record->name.empty()) {
    // A member function template: the call deduces its arguments after the object.
    auto t = fileScope_.templates.find(st->record->name + "::" + callee->name);
    if (t != fileScope_.templates.end() && !t->second.empty())
      m = t->second.front();
  } else if (m && st->record &&
             fileScope_.templates.count(st->record->name + "::" + callee->name) &&
             reportedOnce_.insert({callee->loc.file, callee->loc.line, callee->loc.col}).second) {
    error(callee->loc, "a member function template beside an ordinary member function of the "
                       "same name ('" +
                           m->name + "') is not supported yet");
  }
  if (!m)
    return; // a field (perhaps a function pointer): an ordinary call
  Expr *self = nullptr;
  if (!m->isStaticMember)
    self = ptr ? ptr : obj->isLValue ? addressOf(obj) : temporary(rvalue(obj));
  callee->kind = ExprKind::Ident;
  callee->name = m->templateParams.empty() ? m->name : st->record->name + "::" + callee->name;
  callee->operands.clear();
  callee->isArrow = false;
  callee->decl = m;
  if (self)
    e->args.insert(e->args.begin(), self);
}

bool Sema::implicitMember(Expr *e) {
  if (!fn_ || !fn_->owner || e->name.find("::") != std::string::npos || lookupLocal(e->name))
    return false;
  const Type *st = fn_->owner->type;
  if (!st || !hasMember(st, e->name))
    return false;
  if (fn_->isStaticMember) {
    error(e->loc, "invalid use of member '" + e->name + "' in a static member function");
    return true;
  }
  Expr *self = make(ExprKind::Ident, e->loc);
  self->name = "this";
  e->kind = ExprKind::Member;
  e->isArrow = true;
  e->operands = {self};
  member(e);
  return true;
}

Expr *Sema::bindReference(Expr *e, const Type *rt, const char *context) {
  if (!check(e))
    return e;
  const Type *want = rt->elem;
  if (e->isLValue && sameForReference(e->type, want)) {
    if (!rt->pointeeConst && isConstLValue(e)) {
      error(e->loc, std::string("binding a reference of type '") + rt->str() +
                        "' to a const object when " + context + " drops 'const'");
      return e;
    }
    return convert(addressOf(e), rt, context);
  }
  if (e->isLValue && isDerivedFrom(e->type, want)) { // `B &b = d;`: d's base subobject
    if (!rt->pointeeConst && isConstLValue(e)) {
      error(e->loc, std::string("binding a reference of type '") + rt->str() +
                        "' to a const object when " + context + " drops 'const'");
      return e;
    }
    return convert(addressOf(e), rt, context);
  }
  if (!rt->pointeeConst) {
    error(e->loc, std::string("a non-const reference of type '") + rt->str() + "' cannot bind to " +
                      (e->isLValue ? "a value of type '" + e->type->str() + "'"
                                   : std::string("a temporary")) +
                      " when " + context);
    return e;
  }
  // A const reference to an rvalue (or to a value of another type) binds to a temporary.
  Expr *v = convert(e, want, context);
  return convert(temporary(v), rt, context);
}

void Sema::dereference(Expr *e) {
  Expr *inner = tu_.make<Expr>(*e);
  inner->isLValue = e->kind == ExprKind::Ident;
  *e = Expr(ExprKind::Unary);
  e->loc = inner->loc;
  e->unaryOp = UnaryOp::Deref;
  e->operands = {rvalue(inner)};
  e->type = inner->type->elem;
  e->isLValue = true;
}

void Sema::blockExtern(VarDecl *v) {
  if (v->init) {
    error(v->init->loc, "'extern' variable cannot have an initializer in a block");
    return;
  }
  Decl *global = nullptr;
  if (auto it = fileScope_.names.find(v->name); it != fileScope_.names.end())
    global = it->second;
  if (global && !dynamic_cast<VarDecl *>(global)) {
    error(v->loc, "'" + v->name +
                      "' is declared as a variable here and as another kind of name "
                      "at file scope");
    return;
  }
  if (!global) {
    // Declared at file scope from here on, as C and C++ link a block's extern declaration.
    auto *g = tu_.make<VarDecl>(*v);
    atFileScope(g, [&] { globalVar(g); });
    if (!g->type)
      return;
    global = g;
  }
  auto *gv = static_cast<VarDecl *>(global);
  const Type *t = resolve(v->typeSyntax, defaultSpace());
  if (t && gv->type && !sameIgnoringSpace(t, gv->type) && !(t->isArray() && gv->type->isArray())) {
    error(v->loc, "'extern' declaration of '" + v->name + "' has type '" + t->str() +
                      "', but the variable of file scope has type '" + gv->type->str() + "'");
    return;
  }
  scope_->names[v->name] = gv;
}

bool Sema::unprototypedMatch(const Type *a, const Type *b) {
  // C: a function type whose parameters are not stated is compatible with one of the same
  // result whose parameters are (C11 6.7.6.3p15; kern does not check their promotions), and
  // so are pointers to such types (`int (**)()` and `int (**)(void *)`).
  while (a->isPointer() && b->isPointer() && a->pointeeConst == b->pointeeConst) {
    a = a->elem;
    b = b->elem;
  }
  return a->isFunction() && b->isFunction() && (a->unprototyped || b->unprototyped) &&
         !a->variadic && !b->variadic && sameIgnoringSpace(a->elem, b->elem);
}

void Sema::variadicFunction(FunctionDecl *f) {
  const auto &q = f->quals;
  if (q.global || q.device) // reported once; the function is still declared
    error(f->loc, q.global ? "a kernel cannot be variadic ('...')"
                           : "variadic __device__ functions are not supported ('...' is for "
                             "host functions)");
  if (f->body && f->vaParams.empty())
    for (const char *name : {"__kern_va_args", "__kern_va_end"}) {
      auto *p = tu_.make<VarDecl>();
      p->name = name;
      p->loc = f->loc;
      p->type = types_.pointerTo(types_.get(TypeKind::ULongLong), AddrSpace::Host, false);
      p->isParam = true;
      f->vaParams.push_back(p);
    }
}

void Sema::blockFunction(FunctionDecl *f) {
  if (f->body) { // the grammar reads a definition only at namespace scope
    error(f->loc, "a function cannot be defined inside another function");
    return;
  }
  if (f->quals.global) {
    error(f->loc, "a kernel cannot be declared inside a function");
    return;
  }
  // `int helper(int);` in a block declares the function of namespace scope, as C and C++ do;
  // it is declared there from here on (the later definition completes it).
  auto *g = tu_.make<FunctionDecl>(*f);
  atFileScope(g, [&] { function(g); });
}

void Sema::atFileScope(Decl *copy, const std::function<void()> &declare) {
  copy->ns.clear();
  Scope *saved = scope_;
  std::string savedNs = ns_;
  scope_ = &fileScope_;
  ns_.clear();
  instances_.insert(copy);
  tu_.decls.push_back(copy);
  declare();
  scope_ = saved;
  ns_ = savedNs;
}

bool Sema::functionNameLiteral(Expr *e) {
  if ((e->name != "__func__" && e->name != "__FUNCTION__") || !fn_)
    return false;
  // Unqualified, without a template's arguments (`twice`, not `S::twice<int>`), as GCC's.
  std::string name = fn_->name;
  if (size_t args = name.find('<'); args != std::string::npos && name.find("operator") != 0)
    name.resize(args);
  if (size_t scope = name.rfind("::"); scope != std::string::npos)
    name = name.substr(scope + 2);
  e->kind = ExprKind::StringLit;
  e->stringValue = name;
  e->type = types_.arrayOf(types_.get(TypeKind::Char), e->stringValue.size() + 1);
  e->isLValue = true;
  return true;
}

} // namespace kern::frontend::sema_detail
