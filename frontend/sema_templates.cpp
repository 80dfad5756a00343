// Function templates: deduction of template arguments from a call, explicit arguments
// (`reduce<256><<<...>>>`), and instantiation, which analyses a copy of the template with its
// parameters bound in a scope of their own (a type parameter as a typedef, a value parameter
// as a constant). Each instantiation is an ordinary function named as CUDA names it, `f<int>`.
#include "frontend/clone.h"
#include "frontend/sema_impl.h"

namespace kern::frontend::sema_detail {

void Sema::declareTemplate(FunctionDecl *f) {
  std::vector<FunctionDecl *> &set = fileScope_.templates[f->name];
  FunctionDecl **same = nullptr;
  for (FunctionDecl *&t : set)
    if (sameTemplateSignature(t, f))
      same = &t;
  if (!same) { // a new template, or another overload of the name
    size_t cut = f->name.rfind("::");
    if (!f->owner && cut != std::string::npos && lookupStruct(f->name.substr(0, cut))) {
      // `template <class U> void S::f(U) {...}` needs its declaration in S.
      error(f->loc, "out-of-line definition of '" + f->name +
                        "' does not match any declaration in its struct");
      return;
    }
    set.push_back(f);
    return;
  }
  if ((*same)->body && f->body) {
    error(f->loc, "redefinition of template '" + f->name + "'");
    return;
  }
  if (!f->body)
    return; // declared again
  FunctionDecl *proto = *same;
  *same = f;
  if (!f->owner && proto->owner) {
    // A member template of a class, defined outside it: the declaration in the class says
    // what kind of member it is; a default argument is written there.
    f->owner = proto->owner;
    f->ns = proto->ns;
    f->isStaticMember = proto->isStaticMember;
    f->quals.isStatic = false;
    f->quals.device |= proto->quals.device;
    f->quals.host |= proto->quals.host;
    for (size_t i = 0; i < f->params.size() && i < proto->params.size(); ++i)
      if (!f->params[i]->init)
        f->params[i]->init = proto->params[i]->init;
  }
  // Instances made from the declaration before this definition get their bodies now; later
  // uses find them under the definition.
  std::vector<std::pair<std::pair<FunctionDecl *, std::string>, FunctionDecl *>> moved;
  for (auto &[key, inst] : instanceByArgs_)
    if (key.first == proto)
      moved.push_back({{f, key.second}, inst});
  for (auto &m : moved)
    instanceByArgs_.insert(m);
  // By index, and by copy: analysing an instance may make more pending instances.
  for (size_t i = 0; i < pendingInstances_.size(); ++i) {
    if (pendingInstances_[i].tmpl != proto || pendingInstances_[i].done)
      continue;
    pendingInstances_[i].done = true;
    auto p = pendingInstances_[i];
    FunctionDecl *def = Cloner(tu_).function(f);
    def->name = p.instanceName;
    def->quals.isInline = true;
    instances_.insert(def);
    tu_.decls.push_back(def);
    analyseInstance(def, f, p.types, p.values, f->loc);
  }
}

void Sema::explicitInstantiation(FunctionDecl *f) {
  std::vector<FunctionDecl *> *set = find(&Scope::templates, f->name);
  if (!set) {
    error(f->loc, "explicit instantiation of '" + f->name + "', which is not a function template");
    return;
  }
  Expr *callee = make(ExprKind::Ident, f->loc);
  callee->name = f->name;
  callee->hasTemplateArgs = true;
  callee->templateArgs = f->instantiationArgs;
  std::vector<Expr *> none;
  if (set->size() == 1) {
    instantiate(set->front(), callee, none);
    return;
  }
  // Overloaded: the template whose instance has the declared parameter types.
  std::vector<const Type *> declared;
  for (VarDecl *p : f->params) {
    const Type *t = resolve(p->typeSyntax, defaultSpace());
    if (!t)
      return;
    declared.push_back(t->isArray() ? types_.pointerTo(t->elem, defaultSpace()) : t);
  }
  for (FunctionDecl *t : *set) {
    std::vector<const Type *> types, params;
    std::vector<int64_t> values;
    if (t->params.size() != declared.size() ||
        !deduceTemplateArguments(t, callee, none, types, values, false) ||
        !instanceParameterTypes(t, types, values, params))
      continue;
    bool same = true;
    for (size_t i = 0; i < params.size(); ++i)
      same = same &&
             (params[i] == declared[i] || (params[i]->isPointer() && declared[i]->isPointer() &&
                                           params[i]->isReference == declared[i]->isReference &&
                                           sameIgnoringSpace(params[i]->elem, declared[i]->elem)));
    if (same) {
      instantiateWith(t, types, values, f->loc);
      return;
    }
  }
  error(f->loc, "explicit instantiation of '" + f->name +
                    "' does not match any of the templates of that name");
}

bool Sema::functionalCast(Expr *e) {
  Expr *callee = e->operands[0];
  const Type *t = lookup(callee->name) ? nullptr : lookupTypedef(callee->name);
  if (!t || !t->isScalar() || e->args.size() > 1)
    return false; // struct types (dim3, float4...) are constructed, not cast
  auto *ts = tu_.make<TypeSyntax>();
  ts->loc = callee->loc;
  ts->name = callee->name;
  Expr *operand = e->args.empty() ? make(ExprKind::IntLit, e->loc) : e->args[0];
  if (e->args.empty())
    operand->text = "0"; // `T()`: a value-initialised T
  e->kind = ExprKind::Cast;
  e->typeSyntax = ts;
  e->operands = {operand};
  e->args.clear();
  cast(e);
  return true;
}

bool Sema::templateHidden(const std::string &n) {
  if (n.find("::") != std::string::npos)
    return false;
  for (const std::string &c : candidates(n)) {
    if (fileScope_.templates.count(c))
      return false;
    if (fileScope_.names.count(c))
      return true; // a name of an inner scope (a class's member) hides the outer templates
  }
  return false;
}

bool Sema::resolveTemplate(Expr *callee, std::vector<Expr *> &args, FunctionDecl **chosen) {
  std::vector<FunctionDecl *> *set = find(&Scope::templates, callee->name);
  if (!set && callee->hasTemplateArgs && find(&Scope::classTemplates, callee->name)) {
    // `SharedMemory<T>()`: a value of the class template's instance.
    const Type *ct = instantiateClass(callee->name, callee->templateArgs, callee->loc);
    if (!ct)
      return false;
    callee->name = ct->record->name;
    callee->hasTemplateArgs = false;
    return true;
  }
  if (!set) {
    if (callee->hasTemplateArgs) {
      error(callee->loc, "'" + callee->name + "' is not a template");
      return false;
    }
    return true;
  }
  if (templateHidden(callee->name))
    return true; // `find(s, pos, n)` in std::string's members: its member, not std::find
  FunctionDecl *front = set->front();
  if (front->owner) {
    // A member function template: `obj.f(x)` passes the object first (callee->decl is set),
    // which is not one of the arguments its parameters are deduced from.
    auto *f = dynamic_cast<FunctionDecl *>(lookup(callee->name));
    if (f && f->owner == front->owner) {
      if (reportedOnce_.insert({callee->loc.file, callee->loc.line, callee->loc.col}).second)
        error(callee->loc, "a member function template beside an ordinary member function of the "
                           "same name ('" +
                               front->name + "') is not supported yet");
      return false;
    }
  }
  size_t skip = callee->decl && front->owner && !front->isStaticMember ? 1 : 0;
  std::vector<Expr *> callArgs(
      args.begin() + static_cast<std::ptrdiff_t>(std::min(skip, args.size())), args.end());
  // The ordinary functions of the name are candidates too, unless template arguments are
  // given.
  std::vector<FunctionDecl *> ordinary;
  if (!callee->hasTemplateArgs)
    if (auto *f = dynamic_cast<FunctionDecl *>(lookup(callee->name)); f && !f->owner) {
      auto it = overloads_.find(f->name);
      ordinary = it != overloads_.end() ? it->second : std::vector<FunctionDecl *>{f};
    }
  // A program's `template <class T> T max(const T &, const T &)` beside CUDA's overloads of
  // max: `max(1.0f, 2.0)` deduces no T and calls CUDA's `double max(float, double)`.
  std::vector<FunctionDecl *> library;
  if (!callee->hasTemplateArgs && !front->owner && callee->name.find("::") == std::string::npos)
    library = libraryOverloads(callee->name, ordinary);
  FunctionDecl *inst = nullptr;
  if (set->size() == 1 && ordinary.empty() && library.empty()) {
    inst = instantiate(front, callee, callArgs);
  } else {
    std::vector<FunctionDecl *> candidates = ordinary;
    candidates.insert(candidates.end(), library.begin(), library.end());
    inst = chooseTemplate(*set, candidates, callee, callArgs);
    if (inst && isLibraryOverload(inst)) {
      if (chosen)
        *chosen = inst;
      return true;
    }
    if (inst && !instances_.count(inst))
      return true; // an ordinary function: the call chooses among them as before
  }
  if (!inst)
    return false;
  callee->name = inst->name;
  callee->hasTemplateArgs = false;
  if (chosen)
    *chosen = inst;
  return true;
}

namespace {

/// Strips from `a` what the parameter's declarator adds around template parameter `ts->name`
/// (`T *`, `const T &`, `T **`, `T v[3]`): the type T stands for, or null if `a` does not fit.
/// A parameter declared as an array is a pointer (the outermost declarator, the last op).
const Type *deduce(const TypeSyntax *ts, const Type *a) {
  for (size_t i = ts->ops.size(); i-- > 0;) {
    switch (ts->ops[i].kind) {
    case TypeOp::Kind::Reference:
      continue;
    case TypeOp::Kind::Array:
      if (i + 1 != ts->ops.size())
        return nullptr;
      [[fallthrough]];
    case TypeOp::Kind::Pointer:
      if (!a->isPointer())
        return nullptr;
      a = a->elem;
      continue;
    default:
      return nullptr;
    }
  }
  return a;
}

} // namespace

FunctionDecl *Sema::instantiate(FunctionDecl *tmpl, Expr *callee, std::vector<Expr *> &args) {
  std::vector<const Type *> types;
  std::vector<int64_t> values;
  if (!deduceTemplateArguments(tmpl, callee, args, types, values, true))
    return nullptr;
  return instantiateWith(tmpl, types, values, callee->loc);
}

bool Sema::deduceTemplateArguments(FunctionDecl *tmpl, Expr *callee, std::vector<Expr *> &args,
                                   std::vector<const Type *> &types, std::vector<int64_t> &values,
                                   bool report) {
  const auto &params = tmpl->templateParams;
  types.assign(params.size(), nullptr);
  values.assign(params.size(), 0);
  std::vector<bool> bound(params.size(), false);
  if (callee->templateArgs.size() > params.size()) {
    if (report)
      error(callee->loc, "too many template arguments for '" + tmpl->name + "'");
    return false;
  }
  for (size_t i = 0; i < callee->templateArgs.size(); ++i) {
    TemplateArg &a = callee->templateArgs[i];
    if (params[i].isType) {
      if (!a.type) {
        error(a.value->loc,
              "template argument for type parameter '" + params[i].name + "' must be a type");
        return false;
      }
      if (!(types[i] = resolve(a.type, defaultSpace())))
        return false;
    } else {
      if (!a.value) {
        error(a.type->loc, "template argument for '" + params[i].name + "' must be a value");
        return false;
      }
      if (!constantInt(a.value, values[i], "template argument is not a constant expression"))
        return false;
    }
    bound[i] = true;
  }
  // Deduce the rest from the call's arguments.
  for (size_t j = 0; j < tmpl->params.size() && j < args.size(); ++j) {
    const TypeSyntax *ts = tmpl->params[j]->typeSyntax;
    if (!ts || ts->name.empty())
      continue;
    if (!ts->templateArgs.empty()) { // `thread_block_tile<Size> &` from a thread_block_tile<32>
      if (!check(args[j]))
        return false;
      const Type *a = deduce(ts, args[j]->type);
      auto inst =
          a && a->isStruct() ? classInstanceArgs_.find(a->record) : classInstanceArgs_.end();
      std::string callerNs = ns_;
      ns_ = tmpl->ns; // the parameter's type is named where the template is
      StructDecl **ct = find(&Scope::classTemplates, ts->name);
      ns_ = callerNs;
      // Else from a base class that is an instance of the template (`Stack<float>` gives
      // `Storage<T> &` its T through its base `Storage<float>`).
      for (std::vector<const Type *> work = {a};
           a && a->isStruct() && ct && !work.empty() &&
           (inst == classInstanceArgs_.end() || *ct != inst->second.tmpl);) {
        const Type *w = work.back();
        work.pop_back();
        for (const StructBase &b : w->record->bases) {
          inst = classInstanceArgs_.find(b.type->record);
          if (inst != classInstanceArgs_.end() && inst->second.tmpl == *ct)
            break;
          work.push_back(b.type);
        }
      }
      if (inst == classInstanceArgs_.end() || !ct || *ct != inst->second.tmpl)
        continue; // not deducible here; the argument is converted (or reported) later
      for (size_t i = 0; i < ts->templateArgs.size() && i < inst->second.types.size(); ++i) {
        const TemplateArg &ta = ts->templateArgs[i];
        std::string n = ta.type                                         ? ta.type->name
                        : ta.value && ta.value->kind == ExprKind::Ident ? ta.value->name
                                                                        : "";
        for (size_t k = 0; k < params.size(); ++k)
          if (!bound[k] && !n.empty() && params[k].name == n) {
            types[k] = inst->second.types[i];
            values[k] = inst->second.values[i];
            bound[k] = true;
          }
      }
      continue;
    }
    size_t k = 0;
    while (k < params.size() && !(params[k].isType && params[k].name == ts->name))
      ++k;
    if (k == params.size())
      continue;
    if (!check(args[j]))
      return false;
    bool byRef = !ts->ops.empty() && ts->ops.back().kind == TypeOp::Kind::Reference;
    const Type *a = byRef ? args[j]->type : rvalue(args[j])->type;
    const Type *t = deduce(ts, a);
    if (!t) {
      if (report)
        error(args[j]->loc,
              "cannot deduce '" + params[k].name + "' from an argument of type '" + a->str() + "'");
      return false;
    }
    if (bound[k] && types[k] != t) {
      if (callee->templateArgs.size() > k)
        continue; // explicit arguments win; the argument is converted
      if (report)
        error(args[j]->loc, "conflicting types deduced for template parameter '" + params[k].name +
                                "' ('" + types[k]->str() + "' and '" + t->str() + "')");
      return false;
    }
    types[k] = t;
    bound[k] = true;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (bound[i])
      continue;
    const TemplateArg &d = params[i].defaultArg;
    if (params[i].isType && d.type && (types[i] = resolve(d.type, defaultSpace()))) {
      bound[i] = true;
    } else if (!params[i].isType && d.value && constantInt(d.value, values[i])) {
      bound[i] = true;
    } else {
      if (report)
        error(callee->loc,
              "cannot deduce template argument '" + params[i].name + "' of '" + tmpl->name + "'");
      return false;
    }
  }
  return true;
}

void Sema::explicitSpecialization(FunctionDecl *f) {
  // `template <> float row<-1>(float x) {...}`: the instance row<-1> is this function.
  std::vector<FunctionDecl *> *set = find(&Scope::templates, f->name);
  FunctionDecl *primary = nullptr;
  if (set)
    for (FunctionDecl *t : *set)
      if (t->templateParams.size() >= f->instantiationArgs.size() &&
          t->params.size() == f->params.size())
        primary = t;
  if (!primary) {
    error(f->loc, "explicit specialization of '" + f->name + "', which is not a function template");
    return;
  }
  std::vector<const Type *> types;
  std::vector<int64_t> values;
  std::string key = templateArguments(primary->name, primary->templateParams, f->instantiationArgs,
                                      f->loc, types, values);
  if (key.empty())
    return;
  auto [it, fresh] = instanceByArgs_.emplace(std::make_pair(primary, key), f);
  if (!fresh) {
    error(f->loc, "explicit specialization of '" + key + "' after its instantiation");
    return;
  }
  f->name = key;
  f->quals.isInline = true; // defined in a header, in each file that includes it
  instances_.insert(f);
  function(f);
}

FunctionDecl *Sema::instantiateWith(FunctionDecl *tmpl, const std::vector<const Type *> &types,
                                    const std::vector<int64_t> &values, SourceLoc at) {
  const auto &params = tmpl->templateParams;
  std::string name = tmpl->name + "<";
  for (size_t i = 0; i < params.size(); ++i)
    name += (i ? ", " : "") + (params[i].isType ? types[i]->str() : std::to_string(values[i]));
  name += ">";
  auto key = std::make_pair(tmpl, name);
  if (auto it = instanceByArgs_.find(key); it != instanceByArgs_.end())
    return it->second;

  FunctionDecl *inst = Cloner(tu_).function(tmpl);
  inst->name = name;
  inst->quals.isInline = true; // each file that uses an instantiation has its own copy
  instanceByArgs_[key] = inst;
  instances_.insert(inst);
  tu_.decls.push_back(inst);

  if (!tmpl->body) // declared only so far: its body is instantiated when it is defined
    pendingInstances_.push_back({tmpl, name, types, values});
  if (instantiationDepth_ >= 900) { // as compilers stop runaway recursion (`f<i - 1>` unended)
    error(at,
          "recursive template instantiation exceeded the maximum depth of 900 ('" + name + "')");
    return nullptr;
  }
  ++instantiationDepth_;
  bool ok = analyseInstance(inst, tmpl, types, values, at);
  --instantiationDepth_;
  return ok ? inst : nullptr;
}

bool Sema::analyseInstance(FunctionDecl *inst, const FunctionDecl *tmpl,
                           const std::vector<const Type *> &types,
                           const std::vector<int64_t> &values, SourceLoc at) {
  // Analyse the copy at namespace scope, with the parameters bound.
  const auto &params = tmpl->templateParams;
  Scope *savedScope = scope_;
  FunctionDecl *savedFn = fn_;
  Side savedSide = side_;
  std::string savedNs = ns_;
  int savedLoop = loopDepth_, savedSwitch = switchDepth_;
  scopes_.emplace_back();
  Scope &bindings = scopes_.back();
  bindings.parent = templateScope(tmpl);
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].isType)
      bindings.typedefs[params[i].name] = types[i];
    else
      bindings.enumerators[params[i].name] = {values[i], nullptr};
  }
  scope_ = &bindings;
  ns_ = tmpl->ns;
  fn_ = nullptr;
  side_ = Side::Host;
  loopDepth_ = switchDepth_ = 0;
  unsigned before = diags_.errorCount();
  function(inst);
  if (diags_.errorCount() != before)
    diags_.note(at, "in instantiation of '" + inst->name + "' required here");
  scope_ = savedScope;
  fn_ = savedFn;
  side_ = savedSide;
  ns_ = savedNs;
  loopDepth_ = savedLoop;
  switchDepth_ = savedSwitch;
  return diags_.errorCount() == before;
}

void Sema::launchBounds(FunctionDecl *f) {
  if (!f->templateParams.empty())
    return; // evaluated for each instance
  Qualifiers &q = f->quals;
  for (auto [e, out] : {std::pair{q.launchBoundsMaxExpr, &q.launchBoundsMaxThreads},
                        std::pair{q.launchBoundsMinExpr, &q.launchBoundsMinBlocks}}) {
    int64_t v = 0;
    if (!e || !constantInt(e, v, "argument of __launch_bounds__ must be a constant expression"))
      continue;
    if (v < 0 || v > INT32_MAX)
      error(e->loc, "argument of __launch_bounds__ must be a non-negative integer constant");
    else
      *out = static_cast<int>(v);
  }
}

void Sema::declareClassTemplate(StructDecl *sd) {
  if (sd->specializationArgs.empty()) {
    fileScope_.classTemplates[sd->name] = sd;
    return;
  }
  // `template <> struct S<int> {...}`: used when S<int> is named.
  StructDecl **primary = find(&Scope::classTemplates, sd->name);
  if (!primary) {
    error(sd->loc, "explicit specialization of '" + sd->name + "', which is not a class template");
    return;
  }
  std::vector<const Type *> types;
  std::vector<int64_t> values;
  std::string key = templateArguments((*primary)->name, (*primary)->templateParams,
                                      sd->specializationArgs, sd->loc, types, values);
  if (!key.empty())
    specializations_[key] = sd;
}

std::string Sema::templateArguments(const std::string &name,
                                    const std::vector<TemplateParam> &params,
                                    const std::vector<TemplateArg> &args, SourceLoc at,
                                    std::vector<const Type *> &types,
                                    std::vector<int64_t> &values) {
  types.assign(params.size(), nullptr);
  values.assign(params.size(), 0);
  if (args.size() > params.size()) {
    error(at, "too many template arguments for '" + name + "'");
    return "";
  }
  // A default argument is named where the template is declared.
  std::string callerNs = ns_;
  size_t cut = name.rfind("::");
  std::string templateNs = cut == std::string::npos ? "" : name.substr(0, cut);
  struct RestoreNs {
    std::string &ns, saved;
    ~RestoreNs() { ns = saved; }
  } restore{ns_, callerNs};
  for (size_t i = 0; i < params.size(); ++i) {
    const TemplateArg *a = i < args.size() ? &args[i] : &params[i].defaultArg;
    ns_ = i < args.size() ? callerNs : templateNs;
    // A default argument may name the parameters before it (`class C = less<T>`): it is read
    // with those bound.
    Scope *savedScope = scope_;
    if (i >= args.size() && i > 0) {
      scopes_.emplace_back();
      Scope &earlier = scopes_.back();
      earlier.parent = scope_;
      for (size_t j = 0; j < i; ++j) {
        if (params[j].isType)
          earlier.typedefs[params[j].name] = types[j];
        else
          earlier.enumerators[params[j].name] = {values[j], nullptr};
      }
      scope_ = &earlier;
    }
    struct RestoreScope {
      Scope *&scope;
      Scope *saved;
      ~RestoreScope() { scope = saved; }
    } restoreScope{scope_, savedScope};
    if (params[i].isType) {
      if (!a->type) {
        error(a->value ? a->value->loc : at, "template argument for type parameter '" +
                                                 params[i].name + "' of '" + name +
                                                 "' must be a type");
        return "";
      }
      if (!(types[i] = resolve(a->type, defaultSpace())))
        return "";
    } else {
      if (!a->value) {
        error(a->type ? a->type->loc : at, "template argument for '" + params[i].name + "' of '" +
                                               name + "' must be a constant");
        return "";
      }
      if (!constantInt(a->value, values[i], "template argument is not a constant expression"))
        return "";
    }
  }
  std::string key = name + "<";
  for (size_t i = 0; i < params.size(); ++i)
    key += (i ? ", " : "") + (params[i].isType ? types[i]->str() : std::to_string(values[i]));
  return key + ">";
}

const Type *Sema::instantiateClass(const std::string &name, const std::vector<TemplateArg> &args,
                                   SourceLoc at) {
  StructDecl **primary = find(&Scope::classTemplates, name);
  if (!primary) {
    error(at, "'" + name + "' is not a class template");
    return nullptr;
  }
  StructDecl *tmpl = *primary;
  std::vector<const Type *> types;
  std::vector<int64_t> values;
  std::string key = templateArguments(tmpl->name, tmpl->templateParams, args, at, types, values);
  if (key.empty())
    return nullptr;
  if (auto it = classInstances_.find(key); it != classInstances_.end())
    return it->second;
  auto spec = specializations_.find(key);
  StructDecl *source = spec != specializations_.end() ? spec->second : tmpl;

  Cloner clone(tu_);
  auto *inst = static_cast<StructDecl *>(clone.decl(source));
  inst->name = key;
  inst->isTemplate = false;
  inst->templateParams.clear();
  inst->specializationArgs.clear();
  const Type *t = types_.newStruct(key);
  classInstances_[key] = t;
  classInstanceArgs_[t->record] = {tmpl, types, values};
  fileScope_.structs[key] = t;

  Scope *savedScope = scope_;
  FunctionDecl *savedFn = fn_;
  Side savedSide = side_;
  std::string savedNs = ns_;
  int savedLoop = loopDepth_, savedSwitch = switchDepth_;
  scopes_.emplace_back();
  Scope &bindings = scopes_.back();
  auto outer = classTemplateScopes_.find(tmpl); // a member class template sees its class's
  bindings.parent = outer != classTemplateScopes_.end() ? outer->second : &fileScope_;
  renameNestedStructs(inst, source->name, key);
  if (source == tmpl)
    for (size_t i = 0; i < tmpl->templateParams.size(); ++i) {
      if (tmpl->templateParams[i].isType)
        bindings.typedefs[tmpl->templateParams[i].name] = types[i];
      else
        bindings.enumerators[tmpl->templateParams[i].name] = {values[i], nullptr};
    }
  size_t cut = tmpl->name.rfind("::");
  std::string injected = cut == std::string::npos ? tmpl->name : tmpl->name.substr(cut + 2);
  bindings.typedefs[injected] = t;
  fileScope_.typedefs[key + "::" + injected] = t; // found first inside members (ns_ is key)
  bindings.structs[key] = t;
  if (source == tmpl) { // a member defined after this point is instantiated here then
    classInstanceArgs_[t->record].inst = inst;
    classInstanceArgs_[t->record].bindings = &bindings;
  }
  scope_ = &bindings;
  ns_ = tmpl->ns;
  fn_ = nullptr;
  side_ = Side::Host;
  loopDepth_ = switchDepth_ = 0;
  unsigned before = diags_.errorCount();
  defineStruct(inst);
  classStaticAsserts(source);
  // Its member functions: all declared, then the bodies (one may call one defined later).
  std::vector<std::pair<FunctionDecl *, Scope *>> protos, defs;
  std::vector<FunctionDecl *> members;
  for (FunctionDecl *m : source->methods) {
    Scope *scope = source == tmpl ? memberScope(m, tmpl, &bindings) : &bindings;
    FunctionDecl *proto = memberOfInstance(m, source, inst, key, scope, false);
    if (!proto)
      continue; // a member template: a template of the instance
    protos.push_back({proto, scope});
    if (m->body)
      defs.push_back({memberOfInstance(m, source, inst, key, scope, true), scope});
    members.push_back(m->body ? defs.back().first : proto);
  }
  // The member functions of the structs nested in it (a nested class template keeps its own).
  // Each is the instance's copy, its members already named after it (renameNestedStructs).
  std::vector<StructDecl *> nested = inst->nestedStructs;
  for (size_t k = 0; k < nested.size(); ++k) {
    StructDecl *n = nested[k];
    if (n->isTemplate)
      continue;
    nested.insert(nested.end(), n->nestedStructs.begin(), n->nestedStructs.end());
    std::vector<FunctionDecl *> own;
    for (FunctionDecl *m : n->methods) {
      FunctionDecl *proto = memberOfInstance(m, n, n, n->name, &bindings, false);
      if (!proto)
        continue;
      protos.push_back({proto, &bindings});
      if (m->body)
        defs.push_back({memberOfInstance(m, n, n, n->name, &bindings, true), &bindings});
      own.push_back(m->body ? defs.back().first : proto);
    }
    n->methods = own;
  }
  for (auto *list : {&protos, &defs})
    for (auto [f, scope] : *list) {
      instances_.insert(f);
      tu_.decls.push_back(f);
      ns_ = f->ns;
      scope_ = scope;
      function(f);
    }
  inst->methods = members; // the instance's own (virtual calls find overriders among them)
  // Its static data members defined outside the class template so far.
  if (source == tmpl)
    if (auto statics = classTemplateStatics_.find(tmpl); statics != classTemplateStatics_.end())
      for (const VarDecl *def : std::vector<VarDecl *>(statics->second))
        staticOfInstance(def, tmpl, classInstanceArgs_[t->record]);
  if (diags_.errorCount() != before)
    diags_.note(at, "in instantiation of '" + key + "' required here");
  scope_ = savedScope;
  fn_ = savedFn;
  side_ = savedSide;
  ns_ = savedNs;
  loopDepth_ = savedLoop;
  switchDepth_ = savedSwitch;
  return t;
}

Expr *Sema::conversionCall(Expr *e, const Type *to) {
  auto it = conversions_.find(e->type->record);
  if (it == conversions_.end())
    return nullptr;
  for (FunctionDecl *f : it->second) {
    const Type *r = f->type ? f->type->elem : nullptr;
    if (!r ||
        !(r == to || (r->isPointer() && to->isPointer() && sameIgnoringSpace(r->elem, to->elem)) ||
          (r->isArithmetic() && to->isArithmetic())))
      continue;
    Expr *c = make(ExprKind::Call, e->loc);
    Expr *m = make(ExprKind::Member, e->loc);
    m->name = f->name.substr(f->name.rfind("::") + 2);
    m->operands = {e};
    c->operands = {m};
    check(c);
    return c;
  }
  return nullptr;
}

} // namespace kern::frontend::sema_detail
