// Members of class templates defined outside their class, `template <class T> void C<T>::f()
// {...}` (constructors, destructors, static and const members, member templates with a second
// parameter list) and `template <class T> int C<T>::count = 0;` (static data members): each
// definition takes the place of the declaration in C, so it is
// instantiated with C as a member defined in the class is; an instance of C made before the
// definition gets the member then. The members of one instance are copies of the template's,
// analysed with the class's arguments bound (sema_templates.cpp, instantiateClass). Also the
// members a class defines in itself: nested structs and member class templates (named after
// the instance in an instance, `Outer<4>::Inner`) and enumerations, in the order written.
#include "frontend/clone.h"
#include "frontend/sema_impl.h"

namespace kern::frontend::sema_detail {

namespace {

/// `ns::C::f` -> `ns::C` (`C::operator<` -> `C`): the class a member's name is qualified by.
std::string classOf(const std::string &member) {
  size_t op = member.rfind("::operator");
  return member.substr(0, op != std::string::npos ? op : member.rfind("::"));
}

/// `C<T, N>` in the definition names C's parameters in order (those of the definition's own
/// list, which may name them otherwise than the class does). Other arguments would make it a
/// member of a partial specialization.
bool namesParameters(const std::vector<TemplateArg> &args, const std::vector<TemplateParam> &own,
                     const std::vector<TemplateParam> &classParams) {
  if (args.size() != classParams.size() || own.size() != classParams.size())
    return false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (own[i].isType != classParams[i].isType)
      return false;
    const TypeSyntax *t = args[i].type;
    const Expr *v = args[i].value;
    // A name alone: a type (`T`) or a constant (`N`), as the parser read it.
    bool named = (t && t->name == own[i].name && t->keywords.empty() && t->ops.empty() &&
                  t->templateArgs.empty() && !t->isConst) ||
                 (v && v->kind == ExprKind::Ident && v->name == own[i].name);
    if (!named)
      return false;
  }
  return true;
}

} // namespace

StructDecl *Sema::templateOfMember(const Decl *d, const std::string &cls,
                                   const std::vector<TemplateArg> *args,
                                   const std::vector<TemplateParam> &params) {
  StructDecl **primary = find(&Scope::classTemplates, cls);
  if (!primary) {
    error(d->loc, "'" + cls + "' in the definition of '" + d->name + "' is not a class template");
    return nullptr;
  }
  if (args && !namesParameters(*args, params, (*primary)->templateParams)) {
    error(d->loc, "the template arguments of '" + (*primary)->name + "' in the definition of '" +
                      d->name +
                      "' must be its parameters in order (members of partial "
                      "specializations are not supported)");
    return nullptr;
  }
  return *primary;
}

void Sema::defineClassTemplateMember(FunctionDecl *f) {
  std::string cls = classOf(f->name);
  std::string member = f->name.substr(cls.size() + 2);
  if (f->classTemplateParams.empty()) { // `void C<int>::f() {...}` (no `template <...>`)
    error(f->loc, "a member of an explicit specialization of '" + cls + "' defined outside it ('" +
                      f->name + "') is not supported yet");
    return;
  }
  StructDecl *tmpl = templateOfMember(f, cls, &f->classTemplateArgs, f->classTemplateParams);
  if (!tmpl)
    return;
  std::string shortName = tmpl->name.substr(
      tmpl->name.rfind("::") == std::string::npos ? 0 : tmpl->name.rfind("::") + 2);
  FunctionDecl **decl = nullptr;
  for (FunctionDecl *&m : tmpl->methods)
    if (m->name == tmpl->name + "::" + member && m->isConstMethod == f->isConstMethod &&
        sameMemberSignature(m, tmpl->templateParams, f, f->classTemplateParams, shortName))
      decl = &m;
  if (!decl) {
    error(f->loc, "out-of-line definition of '" + f->name +
                      "' does not match any declaration in '" + tmpl->name + "'");
    return;
  }
  FunctionDecl *m = *decl;
  if (m->body) {
    error(f->loc, "redefinition of '" + m->name + "'");
    return;
  }
  // The declaration in the class says what kind of member it is; the definition brings the
  // parameters' names and the body. A default argument is written in the declaration.
  f->name = m->name;
  f->ns = m->ns;
  f->owner = m->owner;
  f->isStaticMember = m->isStaticMember;
  f->isVirtual = m->isVirtual;
  f->isExplicit = m->isExplicit;
  f->isConstructor = m->isConstructor;
  f->isDestructor = m->isDestructor;
  f->isConversion = m->isConversion;
  f->quals.isStatic = false;
  f->quals.device |= m->quals.device;
  f->quals.host |= m->quals.host;
  f->quals.isInline = true; // a template's member: in each file that instantiates it
  for (size_t i = 0; i < f->params.size() && i < m->params.size(); ++i)
    if (!f->params[i]->init)
      f->params[i]->init = m->params[i]->init;
  *decl = f;

  // Instances made before this definition: the member's body for each (its prototype was
  // declared with the instance). By copy: analysing one may make more instances.
  std::vector<ClassInstance> made;
  for (auto &[record, ci] : classInstanceArgs_)
    if (ci.tmpl == tmpl && ci.inst)
      made.push_back(ci);
  for (const ClassInstance &ci : made) {
    SavedContext saved(*this);
    Scope *scope = memberScope(f, tmpl, ci.bindings);
    FunctionDecl *def = memberOfInstance(f, tmpl, ci.inst, ci.inst->name, scope, true);
    if (def) {
      for (FunctionDecl *&im : ci.inst->methods)
        if (im->name == def->name && !im->body && im->loc.file == m->loc.file &&
            im->loc.line == m->loc.line && im->loc.col == m->loc.col)
          im = def;
      instances_.insert(def);
      tu_.decls.push_back(def);
      scope_ = scope;
      ns_ = def->ns;
      fn_ = nullptr;
      side_ = Side::Host;
      loopDepth_ = switchDepth_ = 0;
      function(def);
    }
  }
}

void Sema::defineClassTemplateStatic(VarDecl *v) {
  std::string cls = classOf(v->name);
  std::string member = v->name.substr(cls.size() + 2);
  if (v->classTemplateParams.empty() && !v->specializesMember) { // `int C<int>::n = 5;`
    error(v->loc, "'" + v->name +
                      "' of a class template's instance is defined without "
                      "'template <>' before it");
    return;
  }
  StructDecl *tmpl = templateOfMember(
      v, cls, v->specializesMember ? nullptr : &v->classTemplateArgs, v->classTemplateParams);
  if (!tmpl)
    return;
  const StructDecl::Field *declared = nullptr;
  for (const StructDecl::Field &f : tmpl->fields)
    if (f.name == member && !f.isTypedef)
      declared = &f;
  if (!declared || !declared->isStatic) {
    error(v->loc, declared ? "'" + v->name + "' is not a static data member of '" + tmpl->name +
                                 "': only a static member may be defined outside its class"
                           : "no member named '" + member + "' in '" + tmpl->name + "'");
    return;
  }
  if (declared->init) {
    error(v->loc, "redefinition of '" + v->name + "': its class gives it its value");
    return;
  }
  if (v->specializesMember) {
    specializeStatic(v, tmpl, member);
    return;
  }
  std::vector<VarDecl *> &defs = classTemplateStatics_[tmpl];
  for (const VarDecl *d : defs)
    if (d->name == v->name) {
      error(v->loc, "redefinition of '" + v->name + "'");
      return;
    }
  defs.push_back(v);
  // Instances made before this definition get the variable now. By copy: analysing its
  // initialiser may make more instances (which define it themselves).
  std::vector<ClassInstance> made;
  for (auto &[record, ci] : classInstanceArgs_)
    if (ci.tmpl == tmpl && ci.inst)
      made.push_back(ci);
  for (const ClassInstance &ci : made)
    staticOfInstance(v, tmpl, ci);
}

void Sema::specializeStatic(VarDecl *v, const StructDecl *tmpl, const std::string &member) {
  std::vector<const Type *> types;
  std::vector<int64_t> values;
  std::string key = templateArguments(tmpl->name, tmpl->templateParams, v->classTemplateArgs,
                                      v->loc, types, values);
  if (key.empty())
    return;
  std::string name = key + "::" + member;
  // With an initialiser a definition (of the program's one variable: not inline, C++ has it in
  // one file), without one a declaration (C++: `template <> T C<int>::x;` defines nothing).
  bool &defined = specializedStatics_[name];
  if (defined && v->init) {
    error(v->loc, "redefinition of '" + name + "'");
    return;
  }
  defined = defined || v->init;
  if (!instantiateClass(tmpl->name, v->classTemplateArgs, v->loc))
    return;
  v->name = name;
  v->ns = tmpl->ns;
  v->ofClassTemplate = false;
  v->quals.isExtern = v->init == nullptr;
  SavedContext saved(*this);
  ns_ = tmpl->ns;
  globalVar(v);
}

void Sema::staticOfInstance(const VarDecl *def, const StructDecl *tmpl, const ClassInstance &ci) {
  std::string name = ci.inst->name + def->name.substr(classOf(def->name).size());
  if (specializedStatics_.count(name))
    return; // `template <> T C<int>::value = ...;` defines it
  SavedContext saved(*this);
  auto *c = static_cast<VarDecl *>(Cloner(tu_).decl(def));
  c->name = name;
  c->ns = ci.inst->ns;
  c->ofClassTemplate = false;
  c->classTemplateArgs.clear();
  c->classTemplateParams.clear();
  c->quals.isExtern = false;
  c->quals.isStatic = false;
  c->quals.isInline = true; // defined by every file that instantiates the class, as in C++
  instances_.insert(c);
  tu_.decls.push_back(c);
  scope_ = memberScope(def->classTemplateParams, tmpl, ci.bindings);
  ns_ = ci.inst->ns;
  fn_ = nullptr;
  side_ = Side::Host;
  loopDepth_ = switchDepth_ = 0;
  globalVar(c);
}

Scope *Sema::memberScope(const FunctionDecl *m, const StructDecl *tmpl, Scope *bindings) {
  return memberScope(m->classTemplateParams, tmpl, bindings);
}

Scope *Sema::memberScope(const std::vector<TemplateParam> &own, const StructDecl *tmpl,
                         Scope *bindings) {
  bool renamed = false;
  for (size_t i = 0; i < own.size() && i < tmpl->templateParams.size(); ++i)
    renamed = renamed || own[i].name != tmpl->templateParams[i].name;
  if (!renamed)
    return bindings;
  scopes_.emplace_back();
  Scope &names = scopes_.back();
  names.parent = bindings;
  for (size_t i = 0; i < own.size() && i < tmpl->templateParams.size(); ++i) {
    const std::string &n = tmpl->templateParams[i].name;
    if (own[i].isType)
      names.typedefs[own[i].name] = bindings->typedefs.at(n);
    else
      names.enumerators[own[i].name] = bindings->enumerators.at(n);
  }
  return &names;
}

FunctionDecl *Sema::memberOfInstance(const FunctionDecl *m, const StructDecl *source,
                                     StructDecl *inst, const std::string &key, Scope *scope,
                                     bool body) {
  std::string member = m->name.substr(source->name.size());
  FunctionDecl *c = Cloner(tu_).function(m);
  c->name = key + member;
  c->ns = key;
  c->owner = inst;
  if (!m->templateParams.empty()) {
    // A member function template: a template of the instance, whose own instances see the
    // class's arguments.
    c->templateParams = m->templateParams;
    c->quals.isInline = true;
    templateScopes_[c] = scope;
    declareTemplate(c);
    return nullptr;
  }
  if (body)
    c->quals.isInline = true;
  else
    c->body = nullptr;
  return c;
}

void Sema::defineNestedMembers(StructDecl *sd, size_t position) {
  for (size_t i = 0; i < sd->nestedEnums.size(); ++i)
    if ((i < sd->nestedEnumAt.size() ? sd->nestedEnumAt[i] : 0) == position)
      defineEnum(static_cast<EnumDecl *>(sd->nestedEnums[i]), !fn_ && !sd->name.empty());
  // In an instance of a class template, the nested structs are found under their instance's
  // name from anywhere (`Outer<int>::Inner`), and a nested class template's instances see the
  // outer class's arguments.
  const bool inInstance = scope_ != &fileScope_;
  for (size_t i = 0; i < sd->nestedStructs.size(); ++i) {
    if ((i < sd->nestedStructAt.size() ? sd->nestedStructAt[i] : 0) != position)
      continue;
    StructDecl *n = sd->nestedStructs[i];
    if (n->isTemplate) {
      declareClassTemplate(n);
      if (inInstance)
        classTemplateScopes_[n] = scope_;
      continue;
    }
    const Type *t = defineStruct(n);
    if (inInstance && t) { // also a member type of the instance: `Outer<4>::Inner x;`
      fileScope_.structs[n->name] = t;
      fileScope_.typedefs[n->name] = t;
    }
  }
}

void Sema::renameNestedStructs(StructDecl *sd, const std::string &from, const std::string &to) {
  for (StructDecl *n : sd->nestedStructs) {
    std::string old = n->name;
    n->name = to + old.substr(from.size());
    n->ns = sd->name;
    // Its member functions, copied under its new name (instantiated with it).
    std::vector<FunctionDecl *> methods;
    for (FunctionDecl *m : n->methods) {
      FunctionDecl *c = Cloner(tu_).function(m);
      c->templateParams = m->templateParams;
      c->name = n->name + m->name.substr(old.size());
      c->ns = n->name;
      c->owner = n;
      methods.push_back(c);
    }
    n->methods = methods;
    renameNestedStructs(n, old, n->name);
  }
}

} // namespace kern::frontend::sema_detail
