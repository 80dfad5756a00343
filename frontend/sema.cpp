// Semantic analysis of .kern programs: scopes, types, CUDA qualifiers and execution sides,
// built-ins, and C's implicit conversions made explicit for the lowering.
#include "frontend/sema_impl.h"

#include "frontend/const_eval.h"

namespace kern::frontend {

// ---- Built-ins table ----

static const BuiltinInfo kBuiltins[] = {
#define KERN_BUILTIN(name, sig, side) {name, sig, #side[0]},
#include "frontend/builtins.def"
#undef KERN_BUILTIN
};

int findBuiltin(const std::string &name) {
  static const std::map<std::string, int> index = [] {
    std::map<std::string, int> m;
    for (size_t i = 0; i < sizeof(kBuiltins) / sizeof(kBuiltins[0]); ++i)
      m[kBuiltins[i].name] = static_cast<int>(i);
    return m;
  }();
  auto it = index.find(name);
  return it == index.end() ? -1 : it->second;
}

const BuiltinInfo &builtinInfo(int index) { return kBuiltins[index]; }

size_t builtinCount() { return sizeof(kBuiltins) / sizeof(kBuiltins[0]); }

} // namespace kern::frontend

namespace kern::frontend::sema_detail {

const Type *Sema::baseType(TypeSyntax *ts) {
  if (ts->isAuto && ts->deduced)
    return ts->deduced;
  if (ts->decltypeExpr) { // the expression's type; it is checked, never evaluated
    if (!ts->decltypeExpr->type && !check(ts->decltypeExpr))
      return types_.intTy();
    return ts->decltypeExpr->type;
  }
  if (ts->structDef)
    return defineStruct(ts->structDef);
  if (!ts->structName.empty()) {
    if (const Type *t = lookupStruct(ts->structName))
      return t;
    // A class template's name inside its members: the instance (the injected class name).
    if (find(&Scope::classTemplates, ts->structName))
      if (const Type *t = lookupTypedef(ts->structName); t && t->isStruct())
        return t;
    // A forward reference: an incomplete struct type.
    const Type *t = types_.newStruct(ts->structName);
    fileScope_.structs[ts->structName] = t;
    return t;
  }
  if (ts->enumDef) {
    auto *ed = static_cast<EnumDecl *>(ts->enumDef);
    defineEnum(ed);
    const Type **u = ed->name.empty() ? nullptr : find(&Scope::enumTypesOf, ed->name);
    return u ? *u : types_.intTy();
  }
  if (!ts->enumName.empty()) { // an enumeration is its underlying type (int unless given)
    const Type **u = find(&Scope::enumTypesOf, ts->enumName);
    return u ? *u : types_.intTy();
  }
  if (!ts->name.empty() && !ts->templateArgs.empty()) {
    const Type *c = instantiateClass(ts->name, ts->templateArgs, ts->loc);
    if (!c || ts->memberType.empty())
      return c;
    auto it = fileScope_.typedefs.find(c->record->name + "::" + ts->memberType);
    if (it == fileScope_.typedefs.end()) {
      error(ts->loc, "no type named '" + ts->memberType + "' in '" + c->str() + "'");
      return nullptr;
    }
    return it->second;
  }
  if (!ts->name.empty()) {
    if (const Type *t = lookupTypedef(ts->name))
      return t;
    if (const Type *t = lookupStruct(ts->name)) // C++: a struct's name is a type name
      return t;
    if (const Type **u = find(&Scope::enumTypesOf, ts->name)) // `ns::Dir`: an enumeration
      return *u;
    if (const Type *t = memberTypeOfAlias(ts))
      return t;
    error(ts->loc, "unknown type name '" + ts->name + "'");
    return nullptr;
  }
  // Keywords: count them as C does (`unsigned long long int`).
  int nSigned = 0, nUnsigned = 0, nLong = 0, nShort = 0, nInt = 0;
  std::string base;
  for (auto &k : ts->keywords) {
    if (k == "signed" || k == "__signed__")
      ++nSigned;
    else if (k == "unsigned")
      ++nUnsigned;
    else if (k == "long")
      ++nLong;
    else if (k == "short")
      ++nShort;
    else if (k == "int")
      ++nInt;
    else if (!base.empty()) {
      error(ts->loc, "cannot combine '" + base + "' with '" + k + "'");
      return nullptr;
    } else
      base = k;
  }
  if (nSigned && nUnsigned) {
    error(ts->loc, "cannot combine 'signed' with 'unsigned'");
    return nullptr;
  }
  if (base == "void")
    return types_.voidTy();
  if (base == "bool" || base == "_Bool")
    return types_.boolTy();
  if (base == "float")
    return types_.floatTy();
  if (base == "double")
    return types_.doubleTy(); // long double is treated as double
  if (base == "char")
    return types_.get(nUnsigned ? TypeKind::UChar : nSigned ? TypeKind::SChar : TypeKind::Char);
  if (!base.empty()) {
    error(ts->loc, "unknown type '" + base + "'");
    return nullptr;
  }
  if (nShort)
    return types_.get(nUnsigned ? TypeKind::UShort : TypeKind::Short);
  if (nLong >= 2)
    return types_.get(nUnsigned ? TypeKind::ULongLong : TypeKind::LongLong);
  if (nLong == 1)
    return types_.get(nUnsigned ? TypeKind::ULong : TypeKind::Long);
  if (nInt || nSigned || nUnsigned)
    return types_.get(nUnsigned ? TypeKind::UInt : TypeKind::Int);
  if (options_.cLanguage) { // C89's implicit int (`static count;`), as GCC takes it
    diags_.warning(ts->loc, "type specifier missing, defaults to 'int'");
    return types_.intTy();
  }
  error(ts->loc, "missing type specifier");
  return nullptr;
}

const Type *Sema::resolve(TypeSyntax *ts, AddrSpace space) {
  if (!ts)
    return types_.intTy();
  if (ts->resolved && ts->resolved->isVariablyModified())
    return ts->resolved; // one type per declaration: the lowering ties it to its bound
  const Type *t = baseType(ts);
  if (!t)
    return nullptr;
  bool constNext = ts->isConst;
  // ops are in C's binding order (`int a[2][3]` is {Array(3), Array(2)}): apply them in turn.
  for (TypeOp &op : ts->ops) {
    if (op.kind == TypeOp::Kind::Pointer) {
      if (t->isReference) {
        error(ts->loc, "pointer to a reference");
        return nullptr;
      }
      t = types_.pointerTo(t, space, constNext);
      constNext = op.isConst;
      continue;
    }
    if (op.kind == TypeOp::Kind::Reference) {
      if (t->isReference || t->isVoid()) {
        error(ts->loc,
              t->isVoid() ? "cannot form a reference to 'void'" : "reference to a reference");
        return nullptr;
      }
      t = types_.referenceTo(t, space == AddrSpace::Host ? AddrSpace::Host : AddrSpace::Generic,
                             constNext);
      constNext = false;
      continue;
    }
    if (op.kind == TypeOp::Kind::Function) {
      if (t->isArray() || t->isFunction()) {
        error(op.loc, t->isArray() ? "function cannot return an array"
                                   : "function cannot return a function");
        return nullptr;
      }
      std::vector<const Type *> params;
      for (TypeSyntax *p : op.params) {
        const Type *pt = resolve(p, AddrSpace::Host);
        if (!pt)
          return nullptr;
        if (pt->isArray()) // parameters of array type are pointers
          pt = types_.pointerTo(pt->elem, AddrSpace::Host, p->isConst);
        params.push_back(pt);
      }
      t = types_.function(t, std::move(params), op.variadic, options_.cLanguage && op.emptyList);
      constNext = false;
      continue;
    }
    if (t->isFunction()) {
      error(ts->loc, "array of functions (an array of function pointers is written "
                     "'int (*name[N])(int)')");
      return nullptr;
    }
    uint64_t n = 0;
    if (op.size && isVariableLength(op.size)) {
      if (!variableLengthAllowed(op.size)) {
        // Reported; the declaration stands, so that its uses raise nothing more.
        t = types_.arrayOf(t, 1);
        constNext = false;
        continue;
      }
      if (t->isVoid() || (t->isStruct() && !t->record->complete)) {
        error(ts->loc, t->isVoid() ? "array of void"
                                   : "array has incomplete element type '" + t->str() + "'");
        return nullptr;
      }
      t = types_.vlaOf(t, op.size);
      constNext = false;
      continue;
    }
    if (op.size) {
      int64_t v;
      if (!constantInt(op.size, v,
                       side_ != Side::Host
                           ? "variable-length arrays are not supported (CUDA device code rejects "
                             "them, and C++ has none)"
                           : "array size is not a constant expression (a variable-length array "
                             "can only be a local variable of host code)"))
        v = 1; // reported; the declaration stands, so that its uses raise nothing more
      if (v <= 0) {
        error(op.size->loc, "array size must be positive");
        return nullptr;
      }
      n = static_cast<uint64_t>(v);
    }
    if (t->isVoid()) {
      error(ts->loc, "array of void");
      return nullptr;
    }
    // An object must fit in the address space (g++: "size of array is too large").
    if (t->size() && n > (uint64_t(1) << 48) / t->size()) {
      error(op.size ? op.size->loc : ts->loc, "size of array is too large");
      return nullptr;
    }
    t = types_.arrayOf(t, n);
    constNext = false;
  }
  ts->resolved = t;
  return t;
}

bool Sema::isVariableLength(Expr *size) {
  int64_t v;
  // Outside a host function the size must be constant: constantInt reports it.
  return fn_ && check(size) && !foldInt(size, v);
}

bool Sema::variableLengthAllowed(Expr *size) {
  if (side_ != Side::Host) { // nvcc compiles device code (and __host__ __device__) without VLAs
    error(size->loc, "variable-length arrays are not supported (CUDA device code rejects them, "
                     "and C++ has none)");
    return false;
  }
  // Host code: g++, nvcc's host compiler, accepts C99's variable-length arrays.
  Expr *r = rvalue(size);
  if (!r->type->isInteger()) {
    error(size->loc, "size of array has non-integer type '" + r->type->str() + "'");
    return false;
  }
  return true;
}

const Type *Sema::defineStruct(StructDecl *sd) {
  const Type *t = nullptr;
  if (!sd->name.empty()) {
    auto it = scope_->structs.find(sd->name);
    if (it != scope_->structs.end())
      t = it->second;
  }
  if (!sd->isDefinition) {
    if (!t) {
      t = types_.newStruct(sd->name);
      if (!sd->name.empty())
        scope_->structs[sd->name] = t;
    }
    sd->type = t;
    return t;
  }
  if (t == option_ && sd->name == "option")
    t = nullptr; // a program's own struct option (its getopt.h) replaces kern's
  if (t && t->record->complete) {
    if (sd->type == t)
      return t; // already defined by this very declaration
    error(sd->loc, "redefinition of 'struct " + sd->name + "'");
    return t;
  }
  if (!t) {
    t = types_.newStruct(sd->name);
    if (!sd->name.empty())
      scope_->structs[sd->name] = t;
  }
  std::set<std::string> seen;
  t->record->isUnion = sd->isUnion;
  t->record->pack = sd->pack;
  structBases(sd, t);
  std::string savedNs = ns_;
  if (!sd->name.empty())
    ns_ = sd->name; // a field may name a member type declared before it
  // In the order written: a member type or enumeration may name one declared before it.
  for (size_t i = 0; i <= sd->fields.size(); ++i) {
    defineNestedMembers(sd, i);
    if (i < sd->fields.size())
      structField(sd, sd->fields[i], t, seen); // sema_records.cpp
  }
  ns_ = savedNs;
  types_.layoutStruct(t, sd->quals.alignAs, !options_.cLanguage);
  t->record->podForLayout = podForLayout(sd, t);
  sd->type = t;
  structDecls_[t->record] = sd;
  implicitDefaultConstructor(sd);
  implicitMembers(sd); // sema_copies.cpp
  return t;
}

bool Sema::constantInt(Expr *e, int64_t &out, const char *notConstant) {
  if (!check(e))
    return false;
  const Expr *divisionByZero = nullptr;
  if (!foldInt(e, out, &divisionByZero)) {
    if (divisionByZero)
      error(divisionByZero->loc, "division by zero in a constant expression");
    error(e->loc, notConstant);
    return false;
  }
  return true;
}

void Sema::topLevel(Decl *d) {
  ns_ = d->ns;
  switch (d->kind) {
  case DeclKind::Using:
    usingDecl(static_cast<UsingDecl *>(d));
    return;
  case DeclKind::StaticAssert:
    staticAssert(static_cast<StaticAssertDecl *>(d));
    return;
  case DeclKind::Unsupported: {
    auto *u = static_cast<UnsupportedDecl *>(d);
    error(u->loc,
          u->construct + (u->construct.size() && u->construct.back() == 's' ? " are not supported"
                                                                            : " is not supported"));
    return;
  }
  case DeclKind::Struct:
    if (static_cast<StructDecl *>(d)->isTemplate)
      declareClassTemplate(static_cast<StructDecl *>(d));
    else
      defineStruct(static_cast<StructDecl *>(d));
    return;
  case DeclKind::Enum:
    defineEnum(static_cast<EnumDecl *>(d));
    return;
  case DeclKind::Typedef:
    declareTypedef(static_cast<TypedefDecl *>(d));
    return;
  case DeclKind::Var:
    if (static_cast<VarDecl *>(d)->ofClassTemplate)
      defineClassTemplateStatic(static_cast<VarDecl *>(d));
    else
      globalVar(static_cast<VarDecl *>(d));
    return;
  case DeclKind::Function:
    if (static_cast<FunctionDecl *>(d)->ofClassTemplate)
      defineClassTemplateMember(static_cast<FunctionDecl *>(d));
    else if (static_cast<FunctionDecl *>(d)->isExplicitSpecialization)
      explicitSpecialization(static_cast<FunctionDecl *>(d));
    else if (static_cast<FunctionDecl *>(d)->isExplicitInstantiation)
      explicitInstantiation(static_cast<FunctionDecl *>(d));
    else if (!static_cast<FunctionDecl *>(d)->templateParams.empty())
      declareTemplate(static_cast<FunctionDecl *>(d));
    else
      function(static_cast<FunctionDecl *>(d));
    return;
  }
}

void Sema::globalVar(VarDecl *v) {
  v->isGlobalScope = true;
  AddrSpace space = v->quals.constant ? AddrSpace::Constant
                    : v->quals.shared ? AddrSpace::Shared
                    : v->quals.device ? AddrSpace::Global
                                      : AddrSpace::Host;
  if (v->quals.global) {
    error(v->loc, "'__global__' applies only to functions");
    return;
  }
  if (v->quals.shared) {
    // File-scope __shared__ is legal CUDA (shared by every kernel); we support it as such.
  }
  if (!deduceAuto(v, AddrSpace::Generic))
    return;
  const Type *t = resolve(v->typeSyntax);
  if (!t)
    return;
  (void)space;
  if (t->isReference) {
    error(v->loc, "references at namespace scope are not supported yet");
    return;
  }
  if (t->isFunction()) {
    error(v->loc, "'" + v->name +
                      "' is declared as a function type; a function pointer is "
                      "written '(*" +
                      v->name + ")'");
    return;
  }
  if (t->isVoid()) {
    error(v->loc, "variable '" + v->name + "' has type void");
    return;
  }
  v->type = t;
  if (Decl *prev = fileScope_.names.count(v->name) ? fileScope_.names[v->name] : nullptr) {
    auto *pv = dynamic_cast<VarDecl *>(prev);
    if (!pv || !(pv->quals.isExtern || v->quals.isExtern)) {
      error(v->loc, "redefinition of '" + v->name + "'");
      return;
    }
  }
  fileScope_.names[v->name] = v;
  if (!v->init && !v->quals.isExtern && !v->quals.shared && constructorOf(t) &&
      !emptyDefaultConstructor(t))
    v->init = constructorCall(t, {}, v->loc); // `S s;`: made by its constructor before main
  if (v->init) {
    Side saved = side_;
    side_ = space == AddrSpace::Host ? Side::Host : Side::Device;
    initializer(v, v->init, t);
    side_ = saved;
  }
}

void Sema::function(FunctionDecl *f) {
  if (!memberFunction(f))
    return;
  if (options_.cLanguage && f->emptyParameterList && !f->body && !f->owner)
    f->unprototyped = true;            // C: `int f();` says nothing of the parameters
  if (f->isKnr && !options_.cLanguage) // reported; the function is still declared
    error(f->loc, "a parameter list without types (K&R C) is only allowed in a C file (.c)");
  auto &q = f->quals;
  launchBounds(f);
  if (q.global && (q.host || q.device)) {
    error(f->loc,
          q.host ? "a kernel cannot also be '__host__'" : "a kernel cannot also be '__device__'");
    return;
  }
  const Type *ret = resolve(f->returnType, q.global || (q.device && !q.host) ? AddrSpace::Generic
                                                                             : AddrSpace::Host);
  if (!ret)
    return;
  if (q.global && !ret->isVoid()) {
    error(f->returnType && f->returnType->loc.isValid() ? f->returnType->loc : f->loc,
          "kernel '" + f->name + "' must return void");
    return;
  }
  if (ret->isArray()) {
    error(f->loc, "function cannot return an array");
    return;
  }
  std::vector<const Type *> params;
  // Kernel pointer parameters point into global memory (the only memory a host can pass).
  AddrSpace pspace = q.global                ? AddrSpace::Global
                     : (q.device && !q.host) ? AddrSpace::Generic
                                             : AddrSpace::Host;
  for (VarDecl *p : f->params) {
    if (p->name == "this" && !p->typeSyntax) { // a member function's object
      p->type =
          types_.pointerTo(f->owner->type, pspace == AddrSpace::Host ? pspace : AddrSpace::Generic,
                           f->isConstMethod);
      p->isParam = true;
      params.push_back(p->type);
      continue;
    }
    const Type *pt = resolve(p->typeSyntax, pspace);
    if (!pt)
      return;
    if (pt->isArray()) // parameters of array type are pointers
      pt = types_.pointerTo(pt->elem, pspace, p->typeSyntax->isConst);
    if (pt->isVoid()) {
      error(p->loc, "parameter has type void");
      return;
    }
    if (pt->isStruct() && !pt->record->complete) {
      error(p->loc, "parameter has incomplete type '" + pt->str() + "'");
      return;
    }
    p->type = pt;
    p->isParam = true;
    params.push_back(pt);
  }
  f->type = types_.function(ret, params, f->variadic);
  if (f->variadic)
    variadicFunction(f); // sema_names.cpp
  if (f->name == "main" && (q.global || (q.device && !q.host))) {
    error(f->loc, "'main' must be a host function");
    return;
  }
  // CUDA's integer min/max helpers are not C library names: a program may define its own
  // (as host code compiled without CUDA's headers does), which then hides kern's.
  static const std::set<std::string> definable = {"min",   "max",   "umin",   "umax",
                                                  "llmin", "llmax", "ullmin", "ullmax"};
  bool takesStruct = false; // `float3 fminf(float3, float3)`: an overload of the library's
  for (const Type *p : params)
    takesStruct |= p->isStruct();
  // A program may declare a C library function itself (a prototype of printf): kern's is
  // called. A host one it defines is its own, called everywhere (ir/lower_calls.cpp).
  if (findBuiltin(f->name) >= 0 && f->name != "main" && !definable.count(f->name) && !takesStruct &&
      !ownsLibraryFunction(f))
    return;
  Decl *prev = fileScope_.names.count(f->name) ? fileScope_.names[f->name] : nullptr;
  if (prev) {
    auto *pf = dynamic_cast<FunctionDecl *>(prev);
    if (!pf) {
      error(f->loc, "redefinition of '" + f->name + "' as a different kind of symbol");
      return;
    }
    if ((!sameSignature(pf->type, f->type) ||
         (!options_.cLanguage && !sameReferencesAndConst(pf->type, f->type))) &&
        !(options_.cLanguage && (pf->unprototyped || f->unprototyped))) {
      // C++ overloading: another function of the same name, unless only the result differs.
      pf = overload(pf, f);
      if (!pf)
        return;
      prev = pf;
    }
    if (pf->quals.global != q.global) {
      error(f->loc, "conflicting CUDA qualifiers for '" + f->name + "'");
      return;
    }
    if ((pf->quals.device != q.device || pf->quals.host != q.host) &&
        !(f->body && (pf->body || pf->definition))) // a redefinition: reported below
      mergeCudaQualifiers(pf, f);
    FunctionDecl *def = pf->definition ? pf->definition : (pf->body ? pf : nullptr);
    if (def && f->body) {
      error(f->loc, "redefinition of '" + f->name + "'");
      return;
    }
    if (f->body)
      pf->definition = f;
    else
      f->definition = def;
    mergeDefaultArguments(pf, f);
    f->isOverloaded |= pf->isOverloaded;
    if (!f->body)
      return;
  }
  fileScope_.names[f->name] = prev ? prev : f;
  if (f->body) {
    f->definition = f;
    if (prev)
      static_cast<FunctionDecl *>(prev)->definition = f;
    functionBody(f);
  }
}

void Sema::functionBody(FunctionDecl *f) {
  fn_ = f;
  side_ = f->quals.global || (f->quals.device && !f->quals.host) ? Side::Device
          : f->quals.device                                      ? Side::Both
                                                                 : Side::Host;
  push();
  for (VarDecl *p : f->params) {
    if (p->name.empty())
      continue;
    if (scope_->names.count(p->name)) {
      error(p->loc, "redefinition of parameter '" + p->name + "'");
      continue;
    }
    scope_->names[p->name] = p;
    // A parameter passed by value is the callee's object: destroyed when the function ends.
    if (!f->quals.global && p->type && p->type->isStruct() && needsDestruction(p->type))
      scope_->destructible.push_back(p);
  }
  for (VarDecl *p : f->vaParams) // `...`'s arguments, for va_start (<stdarg.h>)
    scope_->names[p->name] = p;
  if (f->isConstructor) // with the parameters in scope: `D(int a) : B(a) {}`
    memberInitializers(f);
  // The body's braces share the parameters' scope in C.
  Scope *outerFunctionScope = functionScope_;
  std::vector<Scope *> outerBreaks, outerContinues;
  std::swap(outerBreaks, breakScopes_);
  std::swap(outerContinues, continueScopes_);
  functionScope_ = scope_;
  GotoState outerGotos;
  std::swap(outerGotos, gotos_);
  for (size_t i = 0; i < f->body->body.size(); ++i)
    stmt(f->body->body[i]);
  endScope(f->body->body, f->body->loc);
  resolveGotos(f->body);
  std::swap(outerGotos, gotos_);
  functionScope_ = outerFunctionScope;
  std::swap(outerBreaks, breakScopes_);
  std::swap(outerContinues, continueScopes_);
  pop();
  fn_ = nullptr;
  side_ = Side::Host;
}

void Sema::localVar(VarDecl *v) {
  if (v->quals.isExtern && !v->quals.shared) {
    blockExtern(v); // sema_names.cpp
    return;
  }
  if (v->quals.global) {
    error(v->loc, "'__global__' applies only to functions");
    return;
  }
  if (v->quals.constant) {
    error(v->loc, "'__constant__' variables must be declared at file scope");
    return;
  }
  if (v->quals.shared && side_ == Side::Host) {
    error(v->loc, "'__shared__' variables can only be declared in device code");
    return;
  }
  if (!deduceAuto(v, defaultSpace()))
    return;
  const Type *t = resolve(v->typeSyntax, defaultSpace());
  if (!t)
    return;
  if (t->isFunction()) {
    error(v->loc, "local function declarations are not supported");
    return;
  }
  if (t->isVoid()) {
    error(v->loc, "variable '" + v->name + "' has type void");
    return;
  }
  if (t->isStruct() && !t->record->complete) {
    error(v->loc, "variable has incomplete type '" + t->str() + "'");
    return;
  }
  if (t->isVariablyModified()) {
    if (v->quals.isStatic || v->quals.isExtern) {
      error(v->loc, std::string("a variable-length array cannot be '") +
                        (v->quals.isStatic ? "static" : "extern") + "'");
      return;
    }
    if (v->init && t->hasRuntimeSize()) {
      error(v->init->loc, "variable-sized object may not be initialized");
      return;
    }
  }
  if (t->isArray() && t->count == 0 && !t->hasRuntimeSize() &&
      !(v->quals.shared && v->quals.isExtern) &&
      !(v->init && (v->init->kind == ExprKind::InitList || v->init->kind == ExprKind::StringLit))) {
    error(v->loc, "array '" + v->name + "' needs an explicit size");
    return;
  }
  v->type = t;
  if (scope_->names.count(v->name)) {
    error(v->loc, "redefinition of '" + v->name + "'");
    return;
  }
  scope_->names[v->name] = v;
  if (!v->init && !v->quals.isExtern && !v->quals.shared && constructorOf(t))
    v->init = constructorCall(t, {}, v->loc); // `S x;`: the default constructor
  if (t->isArray() && constructorOf(t->elem) && !v->quals.shared && !v->quals.isExtern &&
      !(v->init && v->init->kind == ExprKind::InitList && t->count == v->init->operands.size()) &&
      !emptyDefaultConstructor(t->elem) && !(!v->init && !t->elem->isArray())) {
    // Elements are made by the list (`half2 v[2] = {half2(1, 2), x};`), or left as they are
    // by a default constructor that does nothing; others are not run yet.
    error(v->loc, "arrays of a struct whose default constructor does work are not supported yet");
    return;
  }
  if (t->isReference) {
    if (!v->init || v->init->kind == ExprKind::InitList) {
      error(v->loc, "declaration of reference variable '" + v->name + "' requires an initializer");
      return;
    }
    if (check(v->init))
      v->init = bindReference(v->init, t, "initializing");
    return;
  }
  if (v->init) {
    if (v->quals.shared) {
      error(v->init->loc, "initialization is not supported for '__shared__' variables");
      return;
    }
    initializer(v, v->init, t);
  }
}

void Sema::initializer(VarDecl *v, Expr *&init, const Type *t) {
  if (init->kind == ExprKind::InitList && t->isStruct() && constructorOf(t) &&
      (!hasImplicitConstructorsOnly(t) || (init->operands.empty() && !hasMemberDefaults(t))))
    init = constructorCall(t, init->operands, init->loc); // `S x = {a, b};` calls S(a, b)
  if (init->kind == ExprKind::InitList) {
    if (t->isArray()) {
      if (init->operands.size() == 1 && init->operands[0]->kind == ExprKind::StringLit &&
          t->elem->size() == 1) { // `char s[] = {"text"};`: the string, braced
        init = init->operands[0];
        initializer(v, init, t);
        return;
      }
      if (t->count && init->operands.size() > t->count) {
        error(init->loc, "excess elements in array initializer");
        return;
      }
      if (t->count == 0) {
        t = types_.arrayOf(t->elem, init->operands.size());
        v->type = t;
      }
      for (auto &e : init->operands)
        initializer(v, e, t->elem);
      init->type = t;
      return;
    }
    if (t->isStruct()) {
      auto &fields = t->record->fields;
      if (init->operands.size() > (t->record->isUnion ? 1 : fields.size())) { // a union: its first
        error(init->loc, std::string("excess elements in ") +
                             (t->record->isUnion ? "union" : "struct") + " initializer");
        return;
      }
      fillMemberDefaults(init, t); // `S x = {a};`: the fields left out take their defaults
      for (size_t i = 0; i < init->operands.size(); ++i)
        initializer(v, init->operands[i], fields[i].type);
      init->type = t;
      return;
    }
    if (init->operands.size() == 1) { // `int i = {9};`, `int i{9};`: the element
      init = init->operands[0];
      initializer(v, init, t);
      return;
    }
    if (init->operands.empty()) { // `float f{};`: zero
      Expr *zero = make(ExprKind::IntLit, init->loc);
      zero->text = "0";
      init = zero;
      initializer(v, init, t);
      return;
    }
    error(init->loc, "scalar initializer must have exactly one element");
    return;
  }
  if (!check(init))
    return;
  if (t->isArray()) {
    if (init->kind == ExprKind::StringLit && t->elem->size() == 1) {
      if (t->count && init->stringValue.size() > t->count) {
        error(init->loc, "initializer-string for char array is too long");
        return;
      }
      if (t->count == 0)
        v->type = types_.arrayOf(t->elem, init->stringValue.size() + 1);
      return;
    }
    error(init->loc, "array initializer must be an initializer list");
    return;
  }
  if (!copyConstruct(init, t))
    init = convert(init, t, "initializing");
}

void Sema::stmt(Stmt *s) {
  if (!s)
    return;
  switch (s->kind) {
  case StmtKind::Compound:
    push();
    if (!s->scopeExit.empty())
      scope_->exits.emplace_back(s->scopeExit, s->scopeExitArg);
    for (size_t i = 0; i < s->body.size(); ++i)
      stmt(s->body[i]);
    endScope(s->body, s->loc);
    pop();
    return;
  case StmtKind::Decl: {
    std::vector<Stmt *> constructions; // `S a[4];`: each element's default constructor
    for (Decl *d : s->decls) {
      switch (d->kind) {
      case DeclKind::Var: {
        auto *v = static_cast<VarDecl *>(d);
        localVar(v);
        if (v->type && !v->type->isReference && !v->quals.isStatic && !v->quals.shared &&
            !v->quals.isExtern && needsDestruction(v->type))
          scope_->destructible.push_back(v); // its destructor runs at the scope's end
        if (Stmt *make = constructElements(v))
          constructions.push_back(make);
        break;
      }
      case DeclKind::Struct:
        defineStruct(static_cast<StructDecl *>(d));
        break;
      case DeclKind::Typedef:
        declareTypedef(static_cast<TypedefDecl *>(d));
        break;
      case DeclKind::Enum:
        defineEnum(static_cast<EnumDecl *>(d));
        break;
      case DeclKind::Function:
        blockFunction(static_cast<FunctionDecl *>(d));
        break;
      case DeclKind::Using:
        usingDecl(static_cast<UsingDecl *>(d));
        break;
      case DeclKind::StaticAssert:
        staticAssert(static_cast<StaticAssertDecl *>(d));
        break;
      case DeclKind::Unsupported:
        topLevel(d);
        break;
      }
    }
    if (!constructions.empty()) { // the declaration, then the constructions, in this scope
      Stmt *decl = tu_.make<Stmt>(*s);
      s->kind = StmtKind::Compound;
      s->decls.clear();
      s->body = {decl};
      s->body.insert(s->body.end(), constructions.begin(), constructions.end());
    }
    return;
  }
  case StmtKind::Expr:
    if (s->expr)
      check(s->expr);
    return;
  case StmtKind::If:
    s->cond = condition(s->cond);
    scopedStmt(s->then);
    scopedStmt(s->elseStmt);
    return;
  case StmtKind::For:
    push();
    if (s->init)
      stmt(s->init);
    if (s->cond)
      s->cond = condition(s->cond);
    if (s->step)
      check(s->step);
    ++loopDepth_;
    loopBody(s->then);
    --loopDepth_;
    pop();
    return;
  case StmtKind::While:
    s->cond = condition(s->cond);
    ++loopDepth_;
    loopBody(s->then);
    --loopDepth_;
    return;
  case StmtKind::DoWhile:
    ++loopDepth_;
    loopBody(s->then);
    --loopDepth_;
    s->cond = condition(s->cond);
    return;
  case StmtKind::Switch: {
    if (!check(s->cond))
      return;
    Expr *c = rvalue(s->cond);
    if (!c->type->isInteger()) {
      error(s->cond->loc, "switch condition must have integer type, not '" + c->type->str() + "'");
      return;
    }
    s->cond = convert(c, promote(c->type), "switch");
    ++switchDepth_;
    std::set<int64_t> seen;
    bool hasDefault = false;
    checkSwitchLabels(s->then, seen, hasDefault, s->cond->type);
    breakScopes_.push_back(scope_);
    scopedStmt(s->then);
    breakScopes_.pop_back();
    --switchDepth_;
    if (s->then && s->then->kind == StmtKind::Compound) {
      // C: a label may not jump past a variable-length array's declaration into its scope.
      bool vla = false;
      for (Stmt *c : s->then->body) {
        if ((c->kind == StmtKind::Case || c->kind == StmtKind::Default) && vla) {
          error(c->loc, "switch jumps into scope of identifier with variably modified type");
          break;
        }
        if (c->kind == StmtKind::Decl)
          for (Decl *d : c->decls)
            if (auto *v = dynamic_cast<VarDecl *>(d); v && v->type && v->type->isVariablyModified())
              vla = true;
      }
    }
    return;
  }
  case StmtKind::Case:
  case StmtKind::Default:
    if (switchDepth_ == 0) {
      error(s->loc, s->kind == StmtKind::Case ? "'case' statement not in switch statement"
                                              : "'default' statement not in switch statement");
      return;
    }
    if (s->then)
      stmt(s->then);
    return;
  case StmtKind::Break:
    if (destroyBeforeJump(s))
      return;
    if (loopDepth_ == 0 && switchDepth_ == 0)
      error(s->loc, stmtExprDepth_ ? "'break' out of a statement expression is not supported"
                                   : "'break' statement not in loop or switch statement");
    return;
  case StmtKind::Continue:
    if (destroyBeforeJump(s))
      return;
    if (loopDepth_ == 0)
      error(s->loc, stmtExprDepth_ ? "'continue' out of a statement expression is not supported"
                                   : "'continue' statement not in loop statement");
    return;
  case StmtKind::Return: {
    if (destroyBeforeJump(s))
      return;
    if (fn_->deducesReturnType)
      deduceReturnType(s->expr);
    const Type *ret = fn_->type->elem;
    if (!s->expr) {
      if (!ret->isVoid() && fn_->name != "main")
        error(s->loc, "non-void function '" + fn_->name + "' should return a value");
      return;
    }
    if (s->expr->kind == ExprKind::InitList) { // `return {a, b};`
      s->expr = bracedValue(s->expr, ret);
      return;
    }
    if (!check(s->expr))
      return;
    if (ret->isVoid()) {
      if (!rvalue(s->expr)->type->isVoid())
        error(s->expr->loc, "void function '" + fn_->name + "' should not return a value");
      return;
    }
    if (ret->isReference)
      s->expr = bindReference(s->expr, ret, "returning");
    else if (namesLocalObject(s->expr) || !copyConstruct(s->expr, ret))
      s->expr = convert(s->expr, ret, "returning"); // a local object is handed over, not copied
    return;
  }
  case StmtKind::RangeFor:
    rangeFor(s);
    return;
  case StmtKind::Goto:
    gotoStmt(s);
    return;
  case StmtKind::Label:
    label(s);
    stmt(s->then);
    return;
  case StmtKind::Try:
    tryStmt(s);
    return;
  case StmtKind::Throw:
    throwStmt(s);
    return;
  case StmtKind::Catch: // only inside a Try, which tryStmt rewrites
    return;
  case StmtKind::Pragma:
    return;
  case StmtKind::Unsupported:
    error(s->loc, s->text);
    return;
  }
}

void Sema::loopBody(Stmt *s) {
  breakScopes_.push_back(scope_);
  continueScopes_.push_back(scope_);
  scopedStmt(s);
  breakScopes_.pop_back();
  continueScopes_.pop_back();
}

void Sema::scopedStmt(Stmt *s) {
  if (!s)
    return;
  push();
  stmt(s);
  pop();
}

} // namespace kern::frontend::sema_detail

namespace kern::frontend {

bool analyze(TranslationUnit &tu, TypeContext &types, DiagnosticEngine &diags,
             const SemaOptions &options) {
  sema_detail::Sema s(tu, types, diags, options);
  return s.run();
}

} // namespace kern::frontend
