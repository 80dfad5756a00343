// Semantic analysis of calls: user functions, execution sides, built-ins, kernel launches.
#include "frontend/sema_impl.h"

namespace kern::frontend::sema_detail {

bool Sema::sideAllows(char builtinSide) {
  if (builtinSide == 'B')
    return true;
  if (side_ == Side::Both)
    return false;
  return (builtinSide == 'H') == (side_ == Side::Host);
}

const char *Sema::sideName() const {
  if (!fn_) // a file-scope initialiser
    return side_ == Side::Device ? "the initializer of a __device__ or __constant__ variable"
                                 : "host code";
  if (fn_->quals.global)
    return "a __global__ function";
  if (fn_->quals.device && fn_->quals.host)
    return "a __host__ __device__ function";
  if (fn_->quals.device)
    return "a __device__ function";
  return "host code";
}

bool Sema::literalChoice(const Expr *e) {
  while (e->kind == ExprKind::Cast && !e->typeSyntax)
    e = e->operands[0];
  if (e->kind == ExprKind::StringLit)
    return true;
  return e->kind == ExprKind::Conditional && literalChoice(e->operands[1]) &&
         literalChoice(e->operands[2]);
}

void Sema::call(Expr *e) {
  Expr *callee = e->operands[0];
  // `B::f()` calls B's own f, without dispatch; so does a base's destructor.
  const bool qualified = e->noVirtual || callee->name.find("::") != std::string::npos;
  if (callee->kind == ExprKind::Member && !e->isLaunch)
    memberCall(e);                // `obj.f(...)` naming a member function becomes a call of `S::f`
  FunctionDecl *chosen = nullptr; // a template's instance that the call selected
  if (callee->kind == ExprKind::Ident && !instanceMember(callee))
    return;
  if (callee->kind == ExprKind::Ident && !resolveTemplate(callee, e->args, &chosen))
    return;
  if (callee->kind == ExprKind::Ident && !e->isLaunch && (functionalCast(e) || construct(e)))
    return;
  if (callee->kind != ExprKind::Ident ||
      (!e->isLaunch && dynamic_cast<VarDecl *>(lookup(callee->name)))) {
    indirectCall(e);
    return;
  }
  if (!e->isLaunch && !lookup(callee->name) && implicitMember(callee)) {
    if (callee->type) // a data member called: a function pointer, or a functor's operator()
      indirectCall(e);
    return;
  }
  if (!chosen && callee->name.find("::") != std::string::npos && !lookup(callee->name))
    if (std::string base = inheritedStatic(callee->name, 0); !base.empty())
      callee->name = base; // `D::f()` for a static member function of a base of D
  const std::string &n = callee->name;
  if (e->isLaunch) {
    launch(e);
    return;
  }
  if (chosen && isLibraryOverload(chosen)) {
    libraryOverloadCall(e, chosen); // CUDA's `max(float, double)` beside a program's template
    return;
  }
  Decl *d = chosen ? chosen : lookup(n);
  if (d && builtinVectorMaker(d, e))
    d = nullptr; // `make_float3(x, y, z)` beside helper_math.h's `make_float3(float4)`
  if (!d && stdLibraryFunction(callee)) {
    // `std::sqrt(x)`: the C library's function, as <cmath> declares it in std; in a member
    // function of a class with a member of that name (`int ferror() { return
    // std::ferror(fp); }`), still the library's.
    if (fn_ && fn_->owner && fn_->owner->type && method(fn_->owner->type, callee->name))
      builtinCall(e, findBuiltin(callee->name));
    else
      call(e);
    return;
  }
  if (!d) {
    if (n == "dim3" || n == "uint3") {
      constructDim3(e, n == "dim3" ? types_.dim3Ty() : types_.uint3Ty());
      return;
    }
    if (n.rfind("make_", 0) == 0 && vectorTypes_.count(n.substr(5))) {
      constructVector(e, vectorTypes_[n.substr(5)], n);
      return;
    }
    if (n == "assert") {
      error(e->loc, "assert must be used as the assert(condition) macro");
      return;
    }
    if (side_ == Side::Device && (n == "malloc" || n == "free")) {
      callee->name = "__kern_device_" + n; // the device heap (runtime/device_heap.h)
      call(e);
      return;
    }
    int b = findBuiltin(n);
    if (b < 0 && options_.cLanguage && !unavailableFunction(n) &&
        n.find("::") == std::string::npos) {
      // C89: a call of an undeclared function declares `int f()` (GCC warns, and so does kern).
      diags_.warning(callee->loc, "implicit declaration of function '" + n + "'");
      // The POSIX functions that kern's <unistd.h> and <fcntl.h> give reach the same runtime.
      static const std::set<std::string> posix = {"read", "write", "close", "lseek", "open"};
      if (posix.count(n) && findBuiltin("__kern_" + n) >= 0) {
        callee->name = "__kern_" + n;
        if (n == "open" && e->args.size() == 2) { // the mode, read only with O_CREAT
          Expr *mode = make(ExprKind::IntLit, e->loc);
          mode->text = "0u";
          e->args.push_back(mode);
        }
        call(e);
        return;
      }
      auto *f = tu_.make<FunctionDecl>();
      f->name = n;
      f->loc = callee->loc;
      f->returnType = tu_.make<TypeSyntax>();
      f->returnType->loc = callee->loc;
      f->returnType->keywords = {"int"};
      f->emptyParameterList = true;
      f->quals.externC = true;
      f->quals.device = side_ == Side::Device; // host code's functions are plain ones
      Scope *saved = scope_;
      scope_ = &fileScope_;
      function(f);
      scope_ = saved;
      tu_.decls.push_back(f);
      instances_.insert(f); // declared here, not again
      call(e);
      return;
    }
    if (b < 0) {
      if (n == "typeid") {
        error(callee->loc, "typeid (run-time type information) is not supported");
        return;
      }
      if (const char *why = unavailableFunction(n)) {
        error(callee->loc, "'" + n + "' is not available in kern: " + why);
        return;
      }
      error(callee->loc, "use of undeclared identifier '" + n + "'" + didYouMean(n));
      return;
    }
    builtinCall(e, b);
    return;
  }
  auto *f = dynamic_cast<FunctionDecl *>(d);
  bool explicitObject = callee->decl != nullptr; // memberCall passed the object
  if (f && f->isOverloaded && !chosen && !(f = chooseOverload(f, e, explicitObject)))
    return;
  if (!f) {
    error(callee->loc, "called object type '" +
                           (d && dynamic_cast<VarDecl *>(d) && static_cast<VarDecl *>(d)->type
                                ? static_cast<VarDecl *>(d)->type->str()
                                : std::string("?")) +
                           "' is not a function");
    return;
  }
  if (f->owner && !f->isStaticMember && !explicitObject) {
    // A member function named alone inside another member function: `this->f(...)`.
    if (!fn_ || !fn_->owner || fn_->isStaticMember ||
        (fn_->owner != f->owner && !isDerivedFrom(fn_->owner->type, f->owner->type))) {
      error(callee->loc, "call to non-static member function '" + n + "' without an object");
      return;
    }
    Expr *self = make(ExprKind::Ident, callee->loc);
    self->name = "this";
    e->args.insert(e->args.begin(), self);
  }
  virtualCall(e, f, qualified);
  callee->decl = f;
  callee->type = f->type;
  e->decl = f;
  f->isUsed = true;
  if (f->isDeleted || (f->definition && f->definition->isDeleted)) {
    error(e->loc, "use of deleted function '" + f->name + "'");
    diags_.note(f->loc, f->isImplicit || (f->definition && f->definition->isImplicit)
                            ? "implicitly deleted: a base or member of its class cannot be copied"
                            : "declared here as deleted");
    return;
  }
  if (f->quals.global) {
    error(e->loc, "a kernel ('" + n + "') must be launched with <<<...>>>");
    return;
  }
  bool hostOk = f->isHostCallable(), devOk = f->isDeviceCallable();
  if (side_ == Side::Host && !hostOk) {
    error(e->loc, "calling a __device__ function ('" + n + "') from host code is not allowed");
    return;
  }
  f->calledFromHost |= side_ == Side::Host;
  if (side_ == Side::Device && !devOk) {
    error(e->loc,
          "calling a __host__ function ('" + n + "') from " + sideName() + " is not allowed");
    return;
  }
  if (side_ == Side::Both && !(hostOk && devOk) && instances_.count(fn_)) {
    // A __host__ __device__ template's instance that calls a function of one side only is a
    // function of that side (CUDA compiles it only where it is used).
    fn_->quals.host = hostOk;
    fn_->quals.device = devOk;
    side_ = hostOk ? Side::Host : Side::Device;
  }
  if (side_ == Side::Both && !(hostOk && devOk)) {
    error(e->loc, std::string("calling a ") + (hostOk ? "__host__" : "__device__") +
                      " function ('" + n + "') from a __host__ __device__ function is not allowed");
    return;
  }
  if (f->unprototyped) {
    // A C function declared without its parameters: the arguments are promoted as for `...`,
    // and the lowering converts them to the definition's parameter types.
    for (Expr *&a : e->args)
      if (check(a))
        a = variadicArg(a);
    e->type = f->type->elem;
    return;
  }
  defaultArguments(e, f);
  if (!arguments(e, f->type, n))
    return;
  e->type = f->type->elem;
  if (e->type->isReference)
    dereference(e);
}

void Sema::indirectCall(Expr *e) {
  Expr *&callee = e->operands[0];
  if (!check(callee))
    return;
  if (e->isLaunch) { // `table[i]<<<g, b>>>(...)`: through a pointer to a kernel
    launch(e);
    return;
  }
  if (callee->type->isStruct() && method(callee->type, "operator()")) {
    // `f(x)` on an object with a function-call operator: `f.operator()(x)`.
    Expr *m = make(ExprKind::Member, callee->loc);
    m->name = "operator()";
    m->operands = {callee};
    callee = m;
    call(e);
    return;
  }
  std::string n = callee->kind == ExprKind::Ident ? callee->name : "(function pointer)";
  Expr *r = rvalue(callee);
  if (!r->type->isPointer() || !r->type->elem->isFunction()) {
    error(callee->loc, "called object type '" + r->type->str() +
                           "' is not a function or "
                           "function pointer");
    return;
  }
  callee = r;
  const Type *ft = r->type->elem;
  if (ft->unprototyped) {
    // C's `int (*fp)()`: the arguments are promoted as for `...`, and the call is made as to a
    // function of the promoted types (what C requires the function it reaches to take).
    std::vector<const Type *> params;
    for (Expr *&a : e->args) {
      if (!check(a))
        return;
      a = variadicArg(a);
      params.push_back(a->type);
    }
    const Type *called = types_.function(ft->elem, params, false);
    callee = implicitCast(callee, types_.pointerTo(called, r->type->space));
    e->type = ft->elem;
    return;
  }
  if (!arguments(e, ft, n))
    return;
  e->type = ft->elem;
  if (e->type->isStruct() && !e->type->record->complete) {
    error(e->loc, "calling a function with incomplete return type '" + e->type->str() + "'");
    e->type = nullptr;
  }
}

bool Sema::arguments(Expr *e, const Type *ft, const std::string &n) {
  if (e->args.size() != ft->params.size() &&
      !(ft->variadic && e->args.size() > ft->params.size())) {
    error(e->loc, std::string(e->args.size() < ft->params.size() ? "too few" : "too many") +
                      " arguments to function call '" + n + "', expected " +
                      std::to_string(ft->params.size()) + ", have " +
                      std::to_string(e->args.size()));
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < e->args.size(); ++i) {
    if (e->args[i]->builtin <= -3 && e->args[i]->builtin >= -6)
      continue; // a symbol, kernel or host function named as an argument: see builtinCall
    if (!check(e->args[i])) {
      ok = false;
      continue;
    }
    if (i < ft->params.size() && ft->params[i]->isReference) {
      unsigned before = diags_.errorCount();
      e->args[i] = bindReference(e->args[i], ft->params[i], "passing an argument");
      if (diags_.errorCount() != before)
        ok = false;
      continue;
    }
    if (i < ft->params.size()) {
      const Type *pt = ft->params[i];
      if (copyConstruct(e->args[i], pt))
        continue;
      Expr *a = rvalue(e->args[i]);
      if (pt->isStruct()) {
        if (a->type != pt && !(pt == types_.dim3Ty() && a->type->isInteger()) &&
            !(a->type->isStruct() && a->type->record == pt->record) &&
            !convertingConstructor(pt, a) && !convertsTo(a->type, pt)) {
          error(a->loc, "cannot pass '" + a->type->str() + "' as '" + pt->str() + "'");
          ok = false;
          continue;
        }
      }
      unsigned before = diags_.errorCount();
      e->args[i] = convert(a, pt, "passing an argument");
      if (diags_.errorCount() != before)
        ok = false;
    } else {
      e->args[i] = variadicArg(e->args[i]);
    }
  }
  return ok;
}

Expr *Sema::variadicArg(Expr *a) {
  a = rvalue(a);
  const Type *t = a->type;
  if (t->kind == TypeKind::Float)
    return implicitCast(a, types_.doubleTy());
  if (t->isInteger() && t->rank() < types_.intTy()->rank())
    return implicitCast(a, types_.intTy());
  if (t->isStruct()) {
    error(a->loc, "cannot pass a struct through '...'");
    return a;
  }
  return a;
}

void Sema::constructDim3(Expr *e, const Type *t) {
  if (e->args.size() > 3) {
    error(e->loc, "too many arguments to '" + t->str() + "' (at most 3)");
    return;
  }
  for (auto &a : e->args) {
    if (!check(a))
      return;
    Expr *r = rvalue(a);
    if (!r->type->isArithmetic()) {
      error(a->loc, "'" + t->str() + "' components must be integers");
      return;
    }
    a = convert(r, types_.uintTy(), "constructing");
  }
  e->type = t;
  e->builtin = -2; // a constructor
}

bool Sema::builtinVectorMaker(Decl *d, Expr *e) {
  auto *f = dynamic_cast<FunctionDecl *>(d);
  if (!f || f->owner)
    return false;
  std::vector<FunctionDecl *> user = {f};
  if (auto it = overloads_.find(f->name); it != overloads_.end())
    user = it->second;
  auto vt = vectorTypes_.find(f->name.rfind("make_", 0) == 0 ? f->name.substr(5) : "");
  if (vt != vectorTypes_.end()) {
    // The built-in maker takes a value for each component; user overloads with as many
    // parameters are the ones to call.
    if (!vt->second->isStruct() || e->args.size() != vt->second->record->fields.size())
      return false;
    for (FunctionDecl *c : user)
      if (c->type && c->type->params.size() == e->args.size())
        return false;
    return true;
  }
  // A library function that the program overloads for vectors (helper_math.h's
  // `fminf(float3, float3)`): calls with arithmetic arguments are the library's.
  if (findBuiltin(f->name) < 0)
    return false;
  for (FunctionDecl *c : user) {
    bool takesStruct = false;
    for (const Type *p : c->type ? c->type->params : std::vector<const Type *>{})
      takesStruct |= p->isStruct();
    if (!takesStruct)
      return false;
  }
  for (Expr *a : e->args)
    if (!check(a) || a->type->isStruct())
      return false;
  return true;
}

void Sema::constructVector(Expr *e, const Type *t, const std::string &n) {
  auto &fields = t->record->fields;
  if (e->args.size() != fields.size()) {
    error(e->loc, std::string(e->args.size() < fields.size() ? "too few" : "too many") +
                      " arguments to function call '" + n + "', expected " +
                      std::to_string(fields.size()) + ", have " + std::to_string(e->args.size()));
    return;
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!check(e->args[i]))
      return;
    Expr *r = rvalue(e->args[i]);
    if (!r->type->isArithmetic()) {
      error(r->loc, "'" + n + "' takes numbers, not '" + r->type->str() + "'");
      return;
    }
    e->args[i] = convert(r, fields[i].type, "constructing");
  }
  e->type = t;
  e->builtin = -2; // a constructor
}

const Type *Sema::sigType(char c) {
  switch (c) {
  case 'v':
    return types_.voidTy();
  case 'b':
    return types_.boolTy();
  case 'c':
    return types_.get(TypeKind::Char);
  case 'i':
    return types_.intTy();
  case 'j':
    return types_.uintTy();
  case 'l':
    return types_.get(TypeKind::Long);
  case 'm':
    return types_.get(TypeKind::ULong);
  case 'x':
    return types_.get(TypeKind::LongLong);
  case 'y':
    return types_.get(TypeKind::ULongLong);
  case 'f':
    return types_.floatTy();
  case 'd':
    return types_.doubleTy();
  case 's':
    return types_.pointerTo(types_.get(TypeKind::Char), defaultSpace(), true);
  case 'S':
    return types_.pointerTo(types_.get(TypeKind::Char), defaultSpace());
  case 'p':
    return types_.pointerTo(types_.voidTy(), defaultSpace());
  case 'q':
    return types_.pointerTo(types_.voidTy(), defaultSpace(), true);
  case 'P':
    return types_.pointerTo(types_.pointerTo(types_.voidTy(), AddrSpace::Host), AddrSpace::Host);
  case 'I':
    return types_.pointerTo(types_.intTy(), defaultSpace());
  case 'U':
    return types_.pointerTo(types_.uintTy(), defaultSpace());
  case 'F':
    return types_.pointerTo(types_.floatTy(), defaultSpace());
  case 'R':
    return types_.pointerTo(types_.doubleTy(), defaultSpace());
  case 'Z':
    return types_.pointerTo(types_.sizeTy(), defaultSpace());
  case 'D':
    return types_.pointerTo(deviceProp_, defaultSpace());
  case 'A':
    return types_.pointerTo(funcAttributes_, defaultSpace());
  case 'M':
    return memLocation_;
  case '3': // dim3, by value
    return types_.dim3Ty();
  case 'N':
    return types_.pointerTo(pointerAttrs_, defaultSpace());
  case 'Q':
    return types_.pointerTo(streamAttrValue_, defaultSpace());
  case 'X':
    return types_.pointerTo(streamAttrValue_, defaultSpace(), true);
  case 'J': { // a thread routine, void *(*)(void *)
    const Type *vp = types_.pointerTo(types_.voidTy(), AddrSpace::Host);
    return types_.pointerTo(types_.function(vp, {vp}, false));
  }
  case 'B':
    return types_.pointerTo(memPoolProps_, defaultSpace(), true);
  case 'e':
    return types_.pointerTo(memAccessDesc_, defaultSpace(), true);
  case 'r':
    return types_.pointerTo(memLocation_, defaultSpace());
  case 'C': // a stream callback, cudaStreamCallback_t
    return streamCallbackType();
  case 'G': // a host function, cudaHostFn_t
    return hostFnType();
  case 'Y': // a symbol: passed as its device address
  case 'K': // a kernel: passed as its index
    return types_.pointerTo(types_.voidTy(), AddrSpace::Host);
  case 'E':
    return types_.pointerTo(types_.pointerTo(types_.get(TypeKind::Char), defaultSpace()),
                            defaultSpace());
  case 'W':
    return types_.pointerTo(file_, defaultSpace());
  case 'V':
    return types_.pointerTo(timeval_, defaultSpace());
  case 'T':
    return types_.pointerTo(timespec_, defaultSpace());
  case 'O':
    return types_.pointerTo(option_, defaultSpace(), true);
  case 'L':
    return types_.pointerTo(types_.get(TypeKind::Long), defaultSpace());
  case 'H': // a host function: passed as its address
    return types_.pointerTo(types_.voidTy(), AddrSpace::Host);
  }
  return types_.intTy();
}

void Sema::builtinCall(Expr *e, int b) {
  // CUDA's C++ overload cudaMallocAsync(ptr, size, pool, stream) is cudaMallocFromPoolAsync.
  if (std::string(builtinInfo(b).name) == "cudaMallocAsync" && e->args.size() == 4)
    b = findBuiltin("cudaMallocFromPoolAsync");
  const BuiltinInfo &info = builtinInfo(b);
  const std::string n = info.name;
  e->builtin = b;
  e->operands[0]->builtin = b;
  if (!sideAllows(info.side)) {
    // Named as the program wrote it: a header's macro over kern's (`setjmp`, `__kern_setjmp`).
    const std::string shown = n.rfind("__kern_", 0) == 0 ? n.substr(7) : n;
    error(e->loc, std::string("calling a ") + (info.side == 'H' ? "__host__" : "__device__") +
                      " function ('" + shown + "') from " + sideName() + " is not allowed");
    return;
  }
  std::string sig = info.signature;
  if (sig.find('g') != std::string::npos) {
    genericBuiltin(e, n, sig);
    return;
  }
  // Trailing arguments that CUDA's headers give defaults.
  static const std::map<std::string, std::vector<std::pair<size_t, int64_t>>> defaults = {
      {"__syncwarp", {{0, 0xffffffffLL}}},
      {"cudaMemcpyAsync", {{4, 0}}},
      {"cudaMemsetAsync", {{3, 0}}},
      {"cudaEventRecord", {{1, 0}}},
      {"cudaStreamWaitEvent", {{2, 0}}},
      {"cudaMemcpyToSymbol", {{3, 0}, {4, 1}}},   // offset 0, cudaMemcpyHostToDevice
      {"cudaMemcpyFromSymbol", {{3, 0}, {4, 2}}}, // offset 0, cudaMemcpyDeviceToHost
      {"cudaMallocManaged", {{2, 1}}},            // cudaMemAttachGlobal
      {"cudaMemPrefetchAsync", {{4, 0}}},
      {"cudaStreamAttachMemAsync", {{2, 0}, {3, 4}}}, // the whole allocation, cudaMemAttachSingle
      {"cudaOccupancyMaxPotentialBlockSize", {{3, 0}, {4, 0}}},
      {"cudaMemcpy2DAsync", {{7, 0}}},
      {"cudaLaunchKernel", {{4, 0}, {5, 0}}}, // no dynamic shared memory, the default stream
      {"cudaLaunchCooperativeKernel", {{4, 0}, {5, 0}}},
  };
  if (auto d = defaults.find(n); d != defaults.end())
    for (auto [index, value] : d->second)
      if (e->args.size() == index) {
        Expr *lit = make(ExprKind::IntLit, e->loc);
        lit->intValue = static_cast<uint64_t>(value);
        lit->text = std::to_string(value);
        e->args.push_back(lit);
      }
  // cudaMalloc(void**, size_t) and friends accept any T** (C++ templates make that
  // implicit in CUDA).
  if ((n == "cudaMalloc" || n == "cudaMallocHost" || n == "cudaHostAlloc" ||
       n == "cudaGetSymbolAddress" || n == "cudaHostGetDevicePointer" || n == "cudaMallocManaged" ||
       n == "cudaMallocPitch" || n == "cudaMallocAsync" || n == "cudaMallocFromPoolAsync") &&
      !e->args.empty() && check(e->args[0])) {
    Expr *a = rvalue(e->args[0]);
    if (a->type->isPointer() && a->type->elem->isPointer()) {
      e->args[0] = implicitCast(a, sigType('P'));
    } else {
      error(a->loc, n + " needs the address of a pointer, not '" + a->type->str() + "'");
      return;
    }
  }
  // Symbols (__device__/__constant__ variables named by the host) and kernels named as
  // arguments: resolved here, where host code may name them.
  for (size_t i = 1; i < sig.size() && i - 1 < e->args.size(); ++i) {
    char c = sig[i];
    if (c == 'H') {
      if (!hostFunctionArgument(e, i - 1, n))
        return;
      continue;
    }
    if (c != 'Y' && c != 'K')
      continue;
    Expr *a = e->args[i - 1];
    while (a->kind == ExprKind::Unary && a->unaryOp == UnaryOp::AddrOf && c == 'Y')
      a = a->operands[0]; // `&symbol` is accepted too
    Decl *d = a->kind == ExprKind::Ident ? lookup(a->name) : nullptr;
    if (c == 'Y') {
      auto *v = dynamic_cast<VarDecl *>(d);
      if (!v || !v->isGlobalScope || !(v->quals.device || v->quals.constant) || !v->type) {
        // CUDA's symbol parameter takes any object (`const T &`): what is not a symbol (a
        // string, as before CUDA 5; a host variable) fails when called, with
        // cudaErrorInvalidSymbol. kern says so when compiling too.
        Expr *orig = e->args[i - 1];
        if (orig->kind == ExprKind::StringLit || (check(orig) && orig->isLValue)) {
          diags_.warning(orig->loc,
                         "the symbol argument of '" + n +
                             "' is not a __device__ or __constant__ variable: the call will "
                             "fail with cudaErrorInvalidSymbol");
          Expr *addr = orig->kind == ExprKind::StringLit ? orig : addressOf(orig);
          e->args[i - 1] = check(addr) ? convert(addr, sigType('Y'), "symbol") : orig;
          continue;
        }
        error(a->loc,
              "the symbol argument of '" + n + "' must be a __device__ or __constant__ variable");
        return;
      }
      a->decl = v;
      a->type = v->type;
      a->isLValue = true;
      a->builtin = -3; // a symbol reference (see the lowering)
    } else {
      // A kernel's name, as written or cast (`(void *)square`, `&square`).
      Expr *core = a;
      while ((core->kind == ExprKind::Cast && core->operands.size() == 1) ||
             (core->kind == ExprKind::Unary && core->unaryOp == UnaryOp::AddrOf))
        core = core->operands[0];
      auto *f = core->kind == ExprKind::Ident ? dynamic_cast<FunctionDecl *>(lookup(core->name))
                                              : nullptr;
      if (f && f->quals.global) {
        a = core;
        a->decl = f;
        a->type = f->type;
        a->builtin = -4; // a kernel reference (see the lowering)
      } else if (!(a = kernelPointerArgument(a, n))) {
        return;
      }
    }
    e->args[i - 1] = a;
  }
  bool variadic = sig.back() == '.';
  if (variadic)
    sig.pop_back();
  std::vector<const Type *> params;
  for (size_t i = 1; i < sig.size(); ++i)
    params.push_back(sigType(sig[i]));
  const Type *ft = types_.function(sigType(sig[0]), params, variadic);
  if (!arguments(e, ft, n))
    return;
  if (n == "printf" || n == "fprintf" || n == "sprintf" || n == "snprintf") {
    size_t fi = n == "printf" ? 0 : n == "fprintf" ? 1 : n == "sprintf" ? 1 : 2;
    // Host code formats at run time: any `const char *` is a format, as in C. Device code
    // needs the format's text when it is compiled: a literal, or a choice between literals
    // (`ok ? "PASS\n" : "FAIL\n"`).
    if (side_ != Side::Host && !literalChoice(e->args[fi])) {
      error(e->args[fi]->loc, "in " + std::string(sideName()) + ", the format of '" + n +
                                  "' must be a string literal or a choice between string "
                                  "literals");
      return;
    }
    for (size_t i = fi + 1; i < e->args.size(); ++i) {
      const Type *t = e->args[i]->type;
      if (t->isStruct()) {
        error(e->args[i]->loc, "cannot print a struct");
        return;
      }
    }
  }
  e->type = ft->elem;
  if (n == "clock" && side_ == Side::Host)
    e->type = types_.get(TypeKind::Long); // C's clock(): clock_t
}

const char *Sema::unavailableFunction(const std::string &n) {
  static const std::set<std::string> processes = {
      "system", "popen",  "pclose", "fork",    "vfork",       "execl",        "execlp", "execle",
      "execv",  "execvp", "execve", "execvpe", "posix_spawn", "posix_spawnp", "kill"};
  static const std::set<std::string> network = {"socket",   "connect",     "bind",         "listen",
                                                "accept",   "send",        "recv",         "sendto",
                                                "recvfrom", "getaddrinfo", "gethostbyname"};
  if (processes.count(n))
    return "programs cannot run other programs";
  if (network.count(n))
    return "programs cannot use the network";
  return nullptr;
}

bool Sema::hostFunctionArgument(Expr *e, size_t index, const std::string &n) {
  if (index >= e->args.size())
    return true; // the count is checked with the other arguments
  Expr *a = e->args[index];
  while (a->kind == ExprKind::Unary && a->unaryOp == UnaryOp::AddrOf)
    a = a->operands[0]; // `&compare` is accepted too
  const std::string want = "the comparator of '" + n +
                           "' must be a host function 'int f(const void *, const void *)' or a "
                           "pointer to one";
  Decl *d = a->kind == ExprKind::Ident ? lookup(a->name) : nullptr;
  auto *f = dynamic_cast<FunctionDecl *>(d);
  if (!f && !(a->kind == ExprKind::Ident && !d)) {
    // A function pointer's value: its function is found (and its type checked) when called.
    if (!check(e->args[index]))
      return false;
    Expr *p = rvalue(e->args[index]);
    const Type *t = p->type;
    const Type *ft = t->isPointer() ? t->elem : nullptr;
    bool fits = ft && ft->isFunction() && ft->elem == types_.intTy() && !ft->variadic &&
                (ft->unprototyped || (ft->params.size() == 2 && ft->params[0]->isPointer() &&
                                      ft->params[1]->isPointer()));
    if (!fits) {
      error(a->loc, want + ", not '" + t->str() + "'");
      return false;
    }
    Expr *w = make(ExprKind::Cast, a->loc);
    w->operands = {p};
    w->type = t;
    w->builtin = -5; // a host function's pointer (see the lowering)
    e->args[index] = w;
    return true;
  }
  if (!f || !f->type || f->quals.global || !f->isHostCallable()) {
    error(a->loc, want);
    return false;
  }
  const Type *ft = f->type;
  bool ok = ft->elem == types_.intTy() && ft->params.size() == 2 && !ft->variadic;
  for (size_t i = 0; ok && i < 2; ++i)
    ok = ft->params[i]->isPointer();
  if (!ok) {
    error(a->loc, want + ", not '" + ft->str() + "'");
    return false;
  }
  a->decl = f;
  a->type = f->type;
  a->builtin = -5; // a host function reference (see the lowering)
  e->args[index] = a;
  return true;
}

Expr *Sema::kernelPointerArgument(Expr *a, const std::string &n) {
  if (!check(a))
    return nullptr;
  Expr *p = rvalue(a);
  if (!p->type->isPointer()) {
    error(a->loc, "the kernel argument of '" + n +
                      "' must be a __global__ function or a pointer to one, not '" +
                      p->type->str() + "'");
    return nullptr;
  }
  Expr *w = make(ExprKind::Cast, a->loc);
  w->operands = {p};
  w->type = sigType('K');
  w->builtin = -6; // a kernel's pointer: its index, found at run time (see the lowering)
  return w;
}

void Sema::genericBuiltin(Expr *e, const std::string &n, const std::string &sig) {
  size_t nparams = sig.size() - 1;
  // The shuffles' last argument, width, defaults to warpSize.
  bool optionalLast = n.rfind("__shfl", 0) == 0;
  if (e->args.size() != nparams && !(optionalLast && e->args.size() + 1 == nparams)) {
    error(e->loc, std::string(e->args.size() < nparams ? "too few" : "too many") +
                      " arguments to function call '" + n + "', expected " +
                      std::to_string(nparams) + ", have " + std::to_string(e->args.size()));
    return;
  }
  for (auto *a : e->args)
    if (!check(a))
      return;
  if (n == "min" || n == "max") {
    Expr *a = rvalue(e->args[0]), *b = rvalue(e->args[1]);
    if (!a->type->isArithmetic() || !b->type->isArithmetic()) {
      error(e->loc, "no matching function for call to '" + n + "'");
      return;
    }
    const Type *ct = common(a->type, b->type);
    e->args[0] = convert(a, ct, "argument");
    e->args[1] = convert(b, ct, "argument");
    e->type = ct;
    return;
  }
  if (n == "isnan" || n == "isinf" || n == "isfinite" || n == "signbit") {
    Expr *a = rvalue(e->args[0]);
    if (!a->type->isArithmetic()) {
      error(e->loc, "no matching function for call to '" + n + "'");
      return;
    }
    e->args[0] = convert(a, a->type->isFloating() ? a->type : types_.doubleTy(), "argument");
    e->type = types_.intTy();
    return;
  }
  if (n == "abs") {
    Expr *a = rvalue(e->args[0]);
    if (!a->type->isArithmetic()) {
      error(e->loc, "no matching function for call to 'abs'");
      return;
    }
    const Type *t = promote(a->type);
    e->args[0] = convert(a, t, "argument");
    e->type = t;
    return;
  }
  if (n.rfind("__shfl", 0) == 0) {
    Expr *v = rvalue(e->args[1]);
    if (!v->type->isArithmetic()) {
      error(v->loc, "no matching function for call to '" + n + "' with '" + v->type->str() + "'");
      return;
    }
    const Type *t = promote(v->type);
    e->args[0] = convert(rvalue(e->args[0]), types_.uintTy(), "argument");
    e->args[1] = convert(v, t, "argument");
    e->args[2] = convert(rvalue(e->args[2]), sigType(sig[3]), "argument");
    if (e->args.size() > 3)
      e->args[3] = convert(rvalue(e->args[3]), types_.intTy(), "argument");
    e->type = t;
    return;
  }
  if (n == "__match_any_sync") { // (mask, value of an arithmetic type) -> the matching lanes
    Expr *v = rvalue(e->args[1]);
    if (!v->type->isArithmetic()) {
      error(v->loc, "no matching function for call to '" + n + "' with '" + v->type->str() + "'");
      return;
    }
    e->args[0] = convert(rvalue(e->args[0]), types_.uintTy(), "argument");
    e->args[1] = convert(v, promote(v->type), "argument");
    e->type = types_.uintTy();
    return;
  }
  // Atomics: the first argument is a pointer; its pointee type selects the form.
  Expr *p = rvalue(e->args[0]);
  if (!p->type->isPointer()) {
    error(p->loc, "the first argument of '" + n + "' must be a pointer");
    return;
  }
  const Type *t = p->type->elem;
  // atomicAdd_block, atomicAdd_system: typed as the plain form.
  const std::string base = n.substr(0, n.find('_'));
  static const std::set<std::string> intOnly = {"atomicSub", "atomicMin", "atomicMax",
                                                "atomicInc", "atomicDec", "atomicAnd",
                                                "atomicOr",  "atomicXor", "atomicCAS"};
  bool okType = t->kind == TypeKind::Int || t->kind == TypeKind::UInt ||
                t->kind == TypeKind::ULongLong || t->kind == TypeKind::LongLong ||
                t->kind == TypeKind::ULong || t->kind == TypeKind::Long ||
                (!intOnly.count(base) && t->isFloating());
  if ((base == "atomicInc" || base == "atomicDec") && t->kind != TypeKind::UInt)
    okType = false;
  if (!okType) {
    error(e->loc, "no matching function for call to '" + n + "' with '" + p->type->str() + "'");
    return;
  }
  if (p->type->pointeeConst) {
    error(p->loc, "'" + n + "' cannot modify a const object");
    return;
  }
  e->args[0] = p;
  for (size_t i = 1; i < e->args.size(); ++i)
    e->args[i] = convert(rvalue(e->args[i]), t, "argument");
  e->type = t;
}

void Sema::launch(Expr *e) {
  Expr *callee = e->operands[0];
  if (side_ != Side::Host) {
    error(e->loc, "kernel launches from device code (dynamic parallelism) are not supported");
    return;
  }
  Decl *d = callee->kind == ExprKind::Ident ? lookup(callee->name) : nullptr;
  auto *f = dynamic_cast<FunctionDecl *>(d);
  const Type *pointee = nullptr; // launched through a pointer to a kernel: its function type
  if (!f && (dynamic_cast<VarDecl *>(d) || callee->kind != ExprKind::Ident)) {
    if (!check(callee))
      return;
    Expr *r = rvalue(callee);
    if (!r->type->isPointer() || !r->type->elem->isFunction() || !r->type->elem->elem->isVoid()) {
      error(callee->loc, "'" + r->type->str() + "' is not a pointer to a __global__ function");
      return;
    }
    e->operands[0] = callee = r;
    pointee = r->type->elem;
  }
  if (f && f->isOverloaded && !(f = chooseOverload(f, e, false)))
    return;
  if (!f && !pointee) {
    if (!d)
      error(callee->loc,
            "use of undeclared identifier '" + callee->name + "'" + didYouMean(callee->name));
    else
      error(callee->loc, "'" + callee->name + "' is not a function");
    return;
  }
  if (f && !f->quals.global) {
    error(callee->loc,
          "'" + callee->name + "' is not a __global__ function and cannot be launched");
    return;
  }
  if (f) {
    callee->decl = f;
    callee->type = f->type;
    e->decl = f;
    f->isUsed = true;
  }
  auto &cfg = e->launchConfig;
  if (cfg.size() < 2 || cfg.size() > 4) {
    error(e->loc,
          "a launch takes 2 to 4 configuration arguments <<<grid, block[, shared[, stream]]>>>");
    return;
  }
  for (size_t i = 0; i < cfg.size(); ++i) {
    if (!check(cfg[i]))
      return;
    Expr *c = rvalue(cfg[i]);
    if (i < 2) {
      if (c->type == types_.dim3Ty() || c->type == types_.uint3Ty())
        cfg[i] = c;
      else if (c->type->isInteger())
        cfg[i] = convert(c, types_.uintTy(), "launch configuration");
      else {
        error(c->loc,
              "launch configuration must be an integer or dim3, not '" + c->type->str() + "'");
        return;
      }
    } else if (i == 2) {
      if (!c->type->isInteger()) {
        error(c->loc, "dynamic shared memory size must be an integer");
        return;
      }
      cfg[i] = convert(c, types_.sizeTy(), "launch configuration");
    } else {
      if (!(c->type->isPointer() || isNullConstant(c))) {
        error(c->loc, "stream must be a cudaStream_t");
        return;
      }
      cfg[i] = convert(c, types_.pointerTo(types_.voidTy(), AddrSpace::Host), "stream");
    }
  }
  if (f)
    defaultArguments(e, f);
  if (!arguments(e, f ? f->type : pointee, f ? callee->name : "(kernel pointer)"))
    return;
  e->type = types_.voidTy();
}

} // namespace kern::frontend::sema_detail
