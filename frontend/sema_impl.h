// The semantic analyser's class, shared by the files that implement it: sema.cpp
// (declarations and statements), sema_expr.cpp (expressions), sema_calls.cpp (calls).
#pragma once

#include "frontend/sema.h"

#include <algorithm>
#include <cassert>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace kern::frontend::sema_detail {

/// Enumeration constants known without a header: the runtime API's enums.
const std::map<std::string, int64_t> &builtinEnumerators();
/// More of them (sema_enumerators.cpp): cudaDeviceAttr, cudaLimit, stream attributes.
const std::map<std::string, int64_t> &runtimeApiEnumerators();

struct Enumerator {
  int64_t value;
  EnumDecl *decl;
  const Type *type = nullptr; // a static const member's type (int when null)
};

struct Scope {
  Scope *parent = nullptr;
  std::vector<VarDecl *> destructible; // objects whose destructor runs at the scope's end
  /// Built-ins called on every way out of the scope, after the destructors, each with its
  /// variable argument if named (Stmt::scopeExit: a try block's pop, a handler's end).
  std::vector<std::pair<std::string, std::string>> exits;
  std::map<std::string, Decl *> names;
  std::map<std::string, const Type *> typedefs;
  std::map<std::string, const Type *> structs;
  std::map<std::string, Enumerator> enumerators;
  std::map<std::string, const Type *> enumTypesOf; // an enumeration's underlying type
  std::vector<std::string> usings;                 // `using namespace N;` (N resolved)
  std::map<std::string, std::string> aliases;      // `namespace A = N;`: A -> N
  /// Function templates of each name (overloads: several), each its definition once seen.
  std::map<std::string, std::vector<FunctionDecl *>> templates;
  std::map<std::string, StructDecl *> classTemplates; // class templates (the primary one)
};

enum class Side { Host, Device, Both };

class Sema {
public:
  Sema(TranslationUnit &tu, TypeContext &types, DiagnosticEngine &diags, const SemaOptions &options)
      : tu_(tu), types_(types), diags_(diags), options_(options) {
    scope_ = &fileScope_;
    auto &td = fileScope_.typedefs;
    td["size_t"] = types_.get(TypeKind::ULong);
    td["ssize_t"] = types_.get(TypeKind::Long);
    td["ptrdiff_t"] = types_.get(TypeKind::Long);
    td["cudaError_t"] = types_.intTy();
    td["cudaError"] = types_.intTy(); // enum cudaError, which cudaError_t names
    td["cudaMemcpyKind"] = types_.intTy();
    td["cudaDeviceAttr"] = types_.intTy();
    td["cudaFuncCache"] = types_.intTy();
    td["cudaMemoryAdvise"] = types_.intTy();
    td["cudaMemLocationType"] = types_.intTy();
    td["cudaMemAccessFlags"] = types_.intTy();
    td["cudaMemoryType"] = types_.intTy();
    td["cudaLimit"] = types_.intTy();
    td["cudaComputeMode"] = types_.intTy();
    td["cudaAccessProperty"] = types_.intTy();
    td["cudaStreamAttrID"] = types_.intTy();
    td["cudaLaunchAttributeID"] = types_.intTy();
    td["cudaSynchronizationPolicy"] = types_.intTy();
    td["cudaStream_t"] = types_.pointerTo(types_.voidTy(), AddrSpace::Host);
    td["cudaEvent_t"] = types_.pointerTo(types_.voidTy(), AddrSpace::Host);
    td["cudaStreamCallback_t"] = streamCallbackType();
    td["cudaHostFn_t"] = hostFnType();
    td["cudaMemPool_t"] = types_.pointerTo(types_.voidTy(), AddrSpace::Host);
    td["cudaMemPoolAttr"] = types_.intTy();
    td["cudaMemAllocationType"] = types_.intTy();
    td["cudaMemAllocationHandleType"] = types_.intTy();
    td["cuuint64_t"] = types_.get(TypeKind::ULong); // cuda.h's, the value of pool attributes
    td["int8_t"] = types_.get(TypeKind::SChar);
    td["uint8_t"] = types_.get(TypeKind::UChar);
    td["int16_t"] = types_.get(TypeKind::Short);
    td["uint16_t"] = types_.get(TypeKind::UShort);
    td["int32_t"] = types_.intTy();
    td["uint32_t"] = types_.uintTy();
    td["int64_t"] = types_.get(TypeKind::Long);
    td["uint64_t"] = types_.get(TypeKind::ULong);
    td["clock_t"] = types_.get(TypeKind::Long); // x86-64 Linux, as nvcc's host compiler has it
    td["time_t"] = types_.get(TypeKind::Long);
    td["uint3"] = types_.uint3Ty();
    td["dim3"] = types_.dim3Ty();
    declareVectorTypes();
    declareApiStructs();
    declareHostLibraryTypes();
  }

  /// CUDA's vector types (vector_types.h): char1..4 ... double1..4, with CUDA's alignments
  /// (a float4 is 16-byte aligned, so it moves as one 128-bit access; a float3 is not).
  void declareVectorTypes();

  /// cudaStreamCallback_t, void (*)(cudaStream_t, cudaError_t, void *), and cudaHostFn_t,
  /// void (*)(void *): host functions of the program that a stream calls.
  const Type *streamCallbackType() {
    const Type *vp = types_.pointerTo(types_.voidTy(), AddrSpace::Host);
    return types_.pointerTo(types_.function(types_.voidTy(), {vp, types_.intTy(), vp}, false));
  }
  const Type *hostFnType() {
    const Type *vp = types_.pointerTo(types_.voidTy(), AddrSpace::Host);
    return types_.pointerTo(types_.function(types_.voidTy(), {vp}, false));
  }

  const Type *makeStruct(const std::string &name,
                         const std::vector<std::pair<std::string, const Type *>> &fields);

  /// cudaDeviceProp and cudaFuncAttributes, laid out as backend/abi.h's KernDeviceProp and
  /// KernFuncAttributes, which the runtime fills.
  void declareApiStructs();

  /// The C library's types that host code uses: struct timeval (sys/time.h), struct timespec
  /// (time.h), struct option (getopt.h), laid out as on x86-64 Linux; FILE, an incomplete type
  /// whose pointers are the runtime's stream handles.
  void declareHostLibraryTypes();

  bool run() {
    // By index: instantiating a template appends its (already analysed) copy.
    for (size_t i = 0; i < tu_.decls.size(); ++i)
      if (!instances_.count(tu_.decls[i]))
        topLevel(tu_.decls[i]);
    finishVirtualDispatch();
    finishDynamicCasts();
    return !diags_.hasErrors();
  }

private:
  TranslationUnit &tu_;
  TypeContext &types_;
  DiagnosticEngine &diags_;
  SemaOptions options_;
  Scope fileScope_;
  Scope *scope_;
  std::deque<Scope> scopes_;
  FunctionDecl *fn_ = nullptr; // function being analysed
  Side side_ = Side::Host;
  int loopDepth_ = 0;
  int switchDepth_ = 0;
  int stmtExprDepth_ = 0; // inside the braces of a statement expression
  /// The analysis context (scope, function, side, namespace, loop and switch depth), put back
  /// when this goes out of scope: for analysing another function (an instance, an implicit
  /// member) in the middle of whatever is being analysed.
  class SavedContext {
  public:
    explicit SavedContext(Sema &s)
        : s_(s), scope_(s.scope_), fn_(s.fn_), side_(s.side_), ns_(s.ns_), loop_(s.loopDepth_),
          switch_(s.switchDepth_) {}
    ~SavedContext() {
      s_.scope_ = scope_;
      s_.fn_ = fn_;
      s_.side_ = side_;
      s_.ns_ = ns_;
      s_.loopDepth_ = loop_;
      s_.switchDepth_ = switch_;
    }
    SavedContext(const SavedContext &) = delete;
    SavedContext &operator=(const SavedContext &) = delete;

  private:
    Sema &s_;
    Scope *scope_;
    FunctionDecl *fn_;
    Side side_;
    std::string ns_;
    int loop_, switch_;
  };
  struct GotoState {
    std::map<std::string, Stmt *> labels;
    std::vector<Stmt *> gotos;
    std::set<Stmt *> inStmtExpr; // labels inside a statement expression
    /// Objects with destructors in the scopes a goto is in, innermost scope first: the scope's
    /// depth in the function, and per object (in declaration order) its destructor calls,
    /// made where the goto is. resolveGotos keeps those of the scopes the jump leaves.
    struct Level {
      size_t depth = 0;
      std::vector<std::vector<Stmt *>> objects;
    };
    std::map<Stmt *, std::vector<Level>> exits;
    /// Per label: its scope's depth and how many objects with destructors that scope held.
    std::map<Stmt *, std::pair<size_t, size_t>> labelScopes;
  } gotos_; // of the function being analysed
  std::set<std::string> reportedUnsupported_;
  std::set<EnumDecl *> definedEnums_;
  std::map<std::string, const Type *> vectorTypes_;
  const Type *deviceProp_ = nullptr;
  const Type *funcAttributes_ = nullptr;
  const Type *memLocation_ = nullptr;     // cudaMemLocation, as KernMemLocation
  const Type *pointerAttrs_ = nullptr;    // cudaPointerAttributes, as KernPointerAttributes
  const Type *streamAttrValue_ = nullptr; // cudaStreamAttrValue, as KernStreamAttrValue
  const Type *memPoolProps_ = nullptr;    // cudaMemPoolProps, as KernMemPoolProps
  const Type *memAccessDesc_ = nullptr;   // cudaMemAccessDesc, as KernMemAccessDesc
  const Type *timeval_ = nullptr;
  const Type *timespec_ = nullptr;
  const Type *option_ = nullptr;
  const Type *file_ = nullptr;

  void error(SourceLoc loc, std::string msg) { diags_.error(loc, std::move(msg)); }

  // ---- scopes ----
  void push() {
    scopes_.emplace_back();
    scopes_.back().parent = scope_;
    scope_ = &scopes_.back();
  }
  void pop() { scope_ = scope_->parent; }

  // ---- names (sema_names.cpp) ----
  // Block scopes hold plain names; the file scope holds every namespace-scope name qualified
  // (`ns::f`, `S::method`). A name as written is looked up in the blocks, then at file scope
  // as C++ does: from the namespace of the code (or struct, in a member function) outwards,
  // then in the namespaces that using-directives made visible.
  std::string ns_; // the namespace (or struct) the code being analysed is in
  /// The file-scope spellings `n` may stand for, in lookup order.
  std::vector<std::string> candidates(const std::string &n) const;
  /// A namespace name as written, with aliases replaced.
  std::string resolveNamespace(const std::string &n) const;
  /// For an unknown name `n`: "; did you mean 'x'?" when a visible name (a variable, function,
  /// enumerator or built-in) is a small typo away, else "".
  std::string didYouMean(const std::string &n) const;
  /// `__func__` (and GCC's `__FUNCTION__`) in a function: its name, as a string literal.
  bool functionNameLiteral(Expr *e);
  template <typename V> V *find(std::map<std::string, V> Scope::*table, const std::string &n) {
    if (n.find("::") == std::string::npos)
      for (Scope *s = scope_; s && s != &fileScope_; s = s->parent) {
        auto it = (s->*table).find(n);
        if (it != (s->*table).end())
          return &it->second;
      }
    for (const std::string &c : candidates(n)) {
      auto it = (fileScope_.*table).find(c);
      if (it != (fileScope_.*table).end())
        return &it->second;
    }
    return nullptr;
  }
  Decl *lookup(const std::string &n) {
    Decl **d = find(&Scope::names, n);
    return d ? *d : nullptr;
  }
  /// Only the block scopes (parameters included): what hides a struct's members.
  Decl *lookupLocal(const std::string &n) {
    for (Scope *s = scope_; s && s != &fileScope_; s = s->parent) {
      auto it = s->names.find(n);
      if (it != s->names.end())
        return it->second;
    }
    return nullptr;
  }
  const Type *lookupTypedef(const std::string &n) {
    const Type **t = find(&Scope::typedefs, n);
    return t ? *t : nullptr;
  }
  /// `M::const_iterator` with M a typedef of a class (`typedef std::map<int, int> M;`): the
  /// member type of that class (sema_records.cpp), or null.
  const Type *memberTypeOfAlias(TypeSyntax *ts);
  std::string inheritedStatic(const std::string &qualified, int depth);
  /// How many scopes `sc` is inside the function's own (sema_goto.cpp).
  size_t scopeDepth(const Scope *sc) const;
  /// Makes goto `g` destroy the objects whose scopes its jump to `l` leaves.
  void leaveScopes(Stmt *g, Stmt *l);
  const Type *lookupStruct(const std::string &n) {
    const Type **t = find(&Scope::structs, n);
    return t ? *t : nullptr;
  }
  const Enumerator *lookupEnumerator(const std::string &n) { return find(&Scope::enumerators, n); }
  void usingDecl(UsingDecl *u);
  bool stdLibraryFunction(Expr *callee);

  // ---- overloading and default arguments (sema_overloads.cpp) ----
  std::map<std::string, std::vector<FunctionDecl *>> overloads_; // by qualified name
  /// `f` declares a function of the same name as `prev` with other parameters: the earlier
  /// declaration of f's signature (to pair with), or null when f is a new overload (then
  /// analysed here) or an error.
  FunctionDecl *overload(FunctionDecl *prev, FunctionDecl *f);
  /// A prototype's default arguments apply to the definition, and the other way round.
  static void mergeDefaultArguments(FunctionDecl *a, FunctionDecl *b);
  /// The constructor of struct `t` that converts `a` (of another type) implicitly, if any.
  FunctionDecl *convertingConstructor(const Type *t, Expr *a);
  /// `S(s)` with `s` an S and no copy constructor declared: a member-wise copy.
  bool isCopyConstruction(const Type *t, std::vector<Expr *> &args);
  /// Struct `t` has a default constructor that does nothing (`S() {}`).
  bool emptyDefaultConstructor(const Type *t);
  /// Struct `from` has a conversion function to `to` (`operator thread_group()`).
  bool convertsTo(const Type *from, const Type *to);
  /// The overload of `f`'s name that the arguments of call `e` select, or null (reported).
  FunctionDecl *chooseOverload(FunctionDecl *f, Expr *e, bool explicitObject);
  /// How well argument `a` converts to a parameter of type `pt`: 0 exact, 1 promotion,
  /// 2 conversion, -1 not at all (C++'s ranking of implicit conversion sequences).
  int conversionRank(Expr *a, const Type *pt);
  /// Appends the default arguments that a call to `f` leaves out.
  void defaultArguments(Expr *e, FunctionDecl *f);
  /// CUDA's overloads of `min`, `max` and `abs` (math_functions.h: `double max(float,
  /// double)`, `unsigned min(int, unsigned)`...) as declarations, the candidates that a call
  /// weighs beside the program's own templates of the name; those whose parameters are one
  /// of `user`'s are left out (the program's function is the one called). Empty for other
  /// names and in C.
  std::vector<FunctionDecl *> libraryOverloads(const std::string &name,
                                               const std::vector<FunctionDecl *> &user);
  bool isLibraryOverload(const FunctionDecl *f) const { return libraryDecls_.count(f) != 0; }
  /// Call `e` chose library overload `f`: its arguments convert to f's parameters, and the
  /// call is the built-in's.
  void libraryOverloadCall(Expr *e, FunctionDecl *f);
  std::map<std::string, std::vector<FunctionDecl *>> libraryOverloads_;
  std::set<const FunctionDecl *> libraryDecls_;

  // ---- constructors and operators (sema_objects.cpp) ----
  /// The constructors of struct type `t` (the first of the overload set), or null.
  FunctionDecl *constructorOf(const Type *t);
  /// `S(args)` with S a struct that has constructors: `e` becomes a Construct. False if `e`
  /// is no such call.
  bool construct(Expr *e);
  /// A call `S(args)` of struct type `t` (the form sema checks to construct one).
  Expr *constructorCall(const Type *t, std::vector<Expr *> args, SourceLoc at);
  /// A braced list `{a, b}` made a value of type `t`: the constructor call, or the list
  /// checked as an initialiser of a `t` (the lowering builds it in a temporary).
  Expr *bracedValue(Expr *list, const Type *t);
  /// A constructor's member initialisers, as assignments at the start of its body (members of
  /// class type it does not name are default-constructed).
  void memberInitializers(FunctionDecl *f);
  /// Whether the struct type `t` has a constructor callable with no arguments.
  bool hasDefaultConstructor(const Type *t);
  /// An operator applied to a struct (`a * b`, `-v`, `a[i]`, `a += b`): the call of the
  /// member or namespace-scope `operatorX` it names, if there is one. False otherwise.
  bool operatorCall(Expr *e);

  // ---- templates (sema_templates.cpp) ----
  std::set<Decl *> instances_;
  std::map<std::pair<FunctionDecl *, std::string>, FunctionDecl *> instanceByArgs_;
  void declareTemplate(FunctionDecl *f);
  /// `template void f<float>(float *);`: instantiates f<float> here.
  void explicitInstantiation(FunctionDecl *f);
  /// If `callee` (an Ident) names a function template: the instantiation that its explicit
  /// arguments and the call's arguments select (callee is renamed to it, and `*chosen` set),
  /// or the ordinary function of the name that fits better (callee as is). False after an
  /// error.
  bool resolveTemplate(Expr *callee, std::vector<Expr *> &args, FunctionDecl **chosen = nullptr);
  /// Unqualified name `n` names a function of an inner scope (a member of the class whose
  /// member function is analysed) before any template of the name: C++ finds that one only.
  bool templateHidden(const std::string &n);
  FunctionDecl *instantiate(FunctionDecl *tmpl, Expr *callee, std::vector<Expr *> &args);
  /// The arguments of template `tmpl` for a call: `callee`'s explicit ones, then those deduced
  /// from `args`, then the defaults. False when they cannot be found (reported if `report`).
  bool deduceTemplateArguments(FunctionDecl *tmpl, Expr *callee, std::vector<Expr *> &args,
                               std::vector<const Type *> &types, std::vector<int64_t> &values,
                               bool report);
  /// The instance of `tmpl` for these arguments, made and analysed on first use.
  FunctionDecl *instantiateWith(FunctionDecl *tmpl, const std::vector<const Type *> &types,
                                const std::vector<int64_t> &values, SourceLoc at);
  /// Where a diagnostic that a re-analysed expression would repeat was given.
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> reportedOnce_;
  /// The scope a member template of a class template's instance sees (the class's arguments).
  std::map<const FunctionDecl *, Scope *> templateScopes_;
  Scope *templateScope(const FunctionDecl *tmpl) {
    auto it = templateScopes_.find(tmpl);
    return it != templateScopes_.end() ? it->second : &fileScope_;
  }
  // Overloaded function templates (sema_template_choice.cpp).
  /// The parameter types an instance of `tmpl` with these arguments has (false if one does
  /// not resolve).
  bool instanceParameterTypes(FunctionDecl *tmpl, const std::vector<const Type *> &types,
                              const std::vector<int64_t> &values, std::vector<const Type *> &out);
  /// C++'s choice among the templates `set` and the ordinary functions `ordinary` of one name
  /// for a call: the better conversions, then an ordinary function over a template, then the
  /// more specialised template. The chosen template's instance (callee renamed), or the
  /// ordinary function; null after an error (reported).
  FunctionDecl *chooseTemplate(const std::vector<FunctionDecl *> &set,
                               const std::vector<FunctionDecl *> &ordinary, Expr *callee,
                               std::vector<Expr *> &args);
  /// The arguments `a` of one partial specialization are at least as specialised as `b` of
  /// another (whose parameters are `bParams`): b's can be deduced from a's.
  static bool argumentsAtLeastAsSpecialised(const std::vector<TemplateArg> &a,
                                            const std::vector<TemplateArg> &b,
                                            const std::vector<TemplateParam> &bParams);
  /// Two declarations of one template (same template and function parameters).
  static bool sameTemplateSignature(const FunctionDecl *a, const FunctionDecl *b);
  /// Two declarations of one member of a class template whose parameters they name `aClass`
  /// and `bClass`: the same parameters, the class's own name (`className` without a
  /// namespace) standing for the class with its parameters.
  static bool sameMemberSignature(const FunctionDecl *a, const std::vector<TemplateParam> &aClass,
                                  const FunctionDecl *b, const std::vector<TemplateParam> &bClass,
                                  const std::string &className);
  /// The C++ conversion ranks of `args` for a function of type `ft` (declaration `c`), or
  /// false if it cannot take them.
  bool argumentRanks(const FunctionDecl *c, const Type *ft, const std::vector<Expr *> &args,
                     std::vector<int> &ranks);
  /// Analyses `inst`, a copy of `tmpl`, with the template's parameters bound.
  bool analyseInstance(FunctionDecl *inst, const FunctionDecl *tmpl,
                       const std::vector<const Type *> &types, const std::vector<int64_t> &values,
                       SourceLoc at);
  struct PendingInstance {
    const FunctionDecl *tmpl; // the declaration it was made from
    std::string instanceName;
    std::vector<const Type *> types;
    std::vector<int64_t> values;
    bool done = false;
  };
  std::vector<PendingInstance> pendingInstances_;
  /// `T(x)` with T a type name: a functional cast.
  bool functionalCast(Expr *e);
  // Class templates: explicit specializations by instance name, instances by name.
  std::map<std::string, StructDecl *> specializations_;
  std::map<std::string, const Type *> classInstances_;
  struct ClassInstance {
    StructDecl *tmpl;
    std::vector<const Type *> types;
    std::vector<int64_t> values;
    /// Made from the primary template (not an explicit specialization): the instance and
    /// the scope that binds the template's parameters, where a member defined later is
    /// instantiated.
    StructDecl *inst = nullptr;
    Scope *bindings = nullptr;
  };
  std::map<const StructInfo *, ClassInstance> classInstanceArgs_;
  void declareClassTemplate(StructDecl *sd);
  /// `__launch_bounds__(max, min)`: the arguments' values (in a template's instance, with its
  /// parameters bound).
  void launchBounds(FunctionDecl *f);
  /// The scope a member class template of a class template's instance sees (the outer
  /// class's arguments); the file scope for others.
  std::map<const StructDecl *, Scope *> classTemplateScopes_;
  /// The structs, class templates and enumerations defined in `sd` before its field
  /// `position` (sema_template_members.cpp).
  void defineNestedMembers(StructDecl *sd, size_t position);
  /// Names the copies of the structs nested in `sd` (an instance's copy of its template)
  /// after the instance `S<int>::N`; a nested class template's member functions are copied
  /// under its new name.
  void renameNestedStructs(StructDecl *sd, const std::string &from, const std::string &to);
  // Members of class templates defined outside the class (sema_template_members.cpp).
  /// `template <class T> void C<T>::f() {...}`: the definition of the member f that C
  /// declares, instantiated with C (and now for the instances already made).
  void defineClassTemplateMember(FunctionDecl *f);
  /// The class template `cls` that member `d`, defined outside it, belongs to, its arguments
  /// `args` (when given) checked to be its parameters `params` in order; null after an error.
  StructDecl *templateOfMember(const Decl *d, const std::string &cls,
                               const std::vector<TemplateArg> *args,
                               const std::vector<TemplateParam> &params);
  /// `template <class T> int C<T>::count = 0;`: the definition of the static data member C
  /// declares, for every instance of C (made before it or after).
  void defineClassTemplateStatic(VarDecl *v);
  /// The definitions of a class template's static data members, by template.
  std::map<const StructDecl *, std::vector<VarDecl *>> classTemplateStatics_;
  /// The static data members explicitly specialized (`C<int>::count`), which the class
  /// template's definition does not define; whether a definition (an initialiser) was seen.
  std::map<std::string, bool> specializedStatics_;
  /// `template <> int C<int>::count = 5;` (`v`, of class template `tmpl`).
  void specializeStatic(VarDecl *v, const StructDecl *tmpl, const std::string &member);
  /// Defines static data member `def` (a definition outside class template `tmpl`) for its
  /// instance `ci`: an inline variable of the program, as C++ gives every file that uses it.
  void staticOfInstance(const VarDecl *def, const StructDecl *tmpl, const ClassInstance &ci);
  /// The scope member `m` of class template `tmpl` is analysed in, for an instance whose
  /// parameters `bindings` binds: `bindings`, or one that binds the other names a definition
  /// outside the class gave the parameters (`template <class U> U C<U>::get()`).
  Scope *memberScope(const FunctionDecl *m, const StructDecl *tmpl, Scope *bindings);
  Scope *memberScope(const std::vector<TemplateParam> &own, const StructDecl *tmpl,
                     Scope *bindings);
  /// Copies member `m` of class template `source` for its instance `inst` (named `key`):
  /// a prototype or a definition (`body`), or, for a member template, a template of the
  /// instance (declared here; null is returned).
  FunctionDecl *memberOfInstance(const FunctionDecl *m, const StructDecl *source, StructDecl *inst,
                                 const std::string &key, Scope *scope, bool body);
  /// Template arguments as written, evaluated: the instance's name `S<float, 4>` (empty after
  /// an error), with the types and values bound to `params`.
  std::string templateArguments(const std::string &name, const std::vector<TemplateParam> &params,
                                const std::vector<TemplateArg> &args, SourceLoc at,
                                std::vector<const Type *> &types, std::vector<int64_t> &values);
  /// The struct type `name<args>` names, instantiated on first use.
  const Type *instantiateClass(const std::string &name, const std::vector<TemplateArg> &args,
                               SourceLoc at);
  /// Conversion functions (`operator T *()`) by struct.
  std::map<const StructInfo *, std::vector<FunctionDecl *>> conversions_;
  /// `e` (a struct value) converted to `to` by one of its conversion functions, or null.
  Expr *conversionCall(Expr *e, const Type *to);

  // ---- C++ members and references (sema_names.cpp) ----
  std::map<const StructInfo *, StructDecl *> structDecls_;
  /// By struct and field name: the field's default member initializer (`int n = 4;`).
  std::map<const StructInfo *, std::map<std::string, const Expr *>> memberDefaults_;
  /// Whether struct `t` has a field with a default member initializer.
  bool hasMemberDefaults(const Type *t) const {
    return t->isStruct() && memberDefaults_.count(t->record) != 0;
  }
  /// A fresh copy of field `name`'s default member initializer in struct `t`, or null.
  Expr *memberDefault(const Type *t, const std::string &name);
  /// `S x = {a};` of an aggregate with default member initializers: the operands the braces
  /// leave out up to the last such field (each its initializer, or `{}`), appended.
  void fillMemberDefaults(Expr *list, const Type *t);
  /// The member function `name` of struct type `st`, or null.
  FunctionDecl *method(const Type *st, const std::string &name);
  /// Checks a member function's declaration: an out-of-class definition `void S::f() {...}`
  /// takes its prototype's place; a non-static member gets its `this` parameter.
  bool memberFunction(FunctionDecl *f);
  /// `obj.f(args)` / `p->f(args)` naming a member function: becomes `S::f(&obj, args)`.
  void memberCall(Expr *e);
  /// An unqualified name inside a member function that names a field: `this->name`.
  bool implicitMember(Expr *e);
  /// Binds reference type `rt` to `e`: its address, or (a const reference to an rvalue) the
  /// address of a temporary holding it.
  Expr *bindReference(Expr *e, const Type *rt, const char *context);
  /// `e`, of reference type, becomes the object it refers to (`*e`).
  void dereference(Expr *e);
  Expr *addressOf(Expr *lvalue);
  Expr *temporary(Expr *rvalue);

  // ---- struct and union members (sema_records.cpp) ----
  /// Checks member `f` of struct or union `sd` and adds it to `t` (`seen`: the names so far,
  /// those of anonymous members' members included).
  void structField(StructDecl *sd, StructDecl::Field &f, const Type *t,
                   std::set<std::string> &seen);
  /// The anonymous struct or union members of `st` through which its member `name` is
  /// reached (`union { float4 v; struct { float x, y; }; }`: y through two), into `path`;
  /// false when no anonymous member has it.
  bool anonymousPath(const Type *st, const std::string &name,
                     std::vector<const StructField *> &path);
  /// `obj.name` / `p->name` where `name` is a member of an anonymous member of `st`: e
  /// rewritten to name it through them (`obj.<anonymous 0>.name`) and checked.
  bool anonymousMember(Expr *e, const Type *st);

  // ---- base classes (sema_bases.cpp) ----
  /// Resolves struct `sd`'s base classes into `t` (before its fields): each base that has
  /// data becomes a field of its own.
  void structBases(StructDecl *sd, const Type *t);
  /// Whether `t` (defined by `sd`) is a POD for the purpose of layout (StructInfo).
  bool podForLayout(StructDecl *sd, const Type *t);
  /// A struct without constructors whose base has one gets C++'s implicit default constructor.
  void implicitDefaultConstructor(StructDecl *sd);

  // ---- virtual functions (sema_virtual.cpp) ----
  /// A class with virtual functions gets its vtable pointer (or shares its first base's).
  void vtablePointer(StructDecl *sd, const Type *t);
  static uint64_t vtableNumber(const std::string &className);
  /// `this-><vptr> = <st's vtable>;`, which a constructor runs after its bases' constructors.
  Stmt *vptrStore(const Type *st, SourceLoc at);
  /// Same name, parameters and constness (both destructors): one overrides the other.
  static bool sameSignature(const FunctionDecl *a, const FunctionDecl *b);
  bool isVirtualMethod(const FunctionDecl *f);
  FunctionDecl *dispatcherOf(FunctionDecl *f);
  FunctionDecl *finalOverrider(const Type *ct, FunctionDecl *m);
  void finishVirtualDispatch();
  /// A call `e` of member function `f`: `f` becomes its dispatcher where C++ dispatches.
  void virtualCall(Expr *e, FunctionDecl *&f, bool qualified);
  std::map<std::pair<const StructInfo *, std::string>, std::vector<FunctionDecl *>> dispatchers_;

  // ---- dynamic_cast (sema_dynamic_cast.cpp) ----
  /// `dynamic_cast<T *>(p)`, `dynamic_cast<T &>(r)`: e becomes the conversion or the call of
  /// the pair's cast function.
  void dynamicCast(Expr *e);
  FunctionDecl *dynamicCastFunction(const Type *source, const Type *target, bool reference,
                                    SourceLoc at);
  /// Each cast function's targets: the classes of the file that the object may be.
  void finishDynamicCasts();
  std::map<std::tuple<const StructInfo *, const StructInfo *, bool>, FunctionDecl *> dynamicCasts_;
  /// `base` is a base class of `derived` (at any depth): the offset of its subobject (the
  /// first one), and how many subobjects of that type there are in `*paths`.
  bool baseOffset(const Type *derived, const Type *base, int64_t &offset, int *paths = nullptr);
  bool isDerivedFrom(const Type *derived, const Type *base);
  /// The bases from `st` to the one that declares field `name` (empty: `st` itself), and how
  /// many declare it.
  bool memberPath(const Type *st, const std::string &name, std::vector<const Type *> &path,
                  int &paths);
  /// Whether struct `st` or one of its bases has a field `name`.
  bool hasMember(const Type *st, const std::string &name);
  /// The subobject of type `base` in the (checked) object `obj`.
  Expr *baseSubobject(Expr *obj, const Type *base);
  /// `obj.name` / `p->name` where st has no field `name`: one of its bases' (e rewritten and
  /// checked). False if no base has it.
  bool inheritedMember(Expr *e, const Type *st);
  /// `obj.B::name` / `p->B::name` (e->name qualified): obj becomes its B subobject and the
  /// name plain. False after an error (reported).
  bool qualifiedMember(Expr *e);
  /// A pointer (or reference) to a derived class converted to one to its base: the cast, or
  /// null when `to` is no base of what `e` points to.
  Expr *derivedToBase(Expr *e, const Type *to, const char *context);
  /// A derived object used as a value of its base (C++'s slicing): the base subobject, or null.
  Expr *sliceToBase(Expr *e, const Type *to);
  /// An explicit cast of a pointer between a class and its base: the bytes it adds.
  int64_t classCastOffset(const Type *from, const Type *to);
  /// A constructor's base classes constructed, first, from its initialiser list or by default.
  void baseInitializers(FunctionDecl *f, std::vector<Stmt *> &inits);
  /// At the end of an object's life, after its members: its empty bases' destructors.
  void destroyEmptyBases(Expr *obj, const Type *t, std::vector<Stmt *> &out, SourceLoc at);

  // ---- C++ declarations and statements (sema_statements.cpp) ----
  /// `auto x = e;` (`auto *p`, `const auto &r`...): deduces the type `auto` stands for from
  /// the initialiser, as C++ deduces a template argument. False after an error.
  bool deduceAuto(VarDecl *v, AddrSpace space);
  /// A value's type as an explicit declaration in `space` would have it (its pointers there).
  const Type *inSpace(const Type *t, AddrSpace space);
  /// `static_assert(cond, "message")`: folds `cond` with the constant folder; reports the
  /// message when it is false.
  void staticAssert(StaticAssertDecl *d);
  /// The static_asserts of class template (or specialization) `source`, checked for the
  /// instance being defined (its arguments bound in the current scope).
  void classStaticAsserts(StructDecl *source);
  /// `for (decl : array) body` becomes, in place, the loop C++ defines it as:
  /// `{ auto &range = array; for (size_t i = 0; i < N; ++i) { decl = range[i]; body } }`
  /// (an array named directly is indexed directly). Arrays of known size only.
  void rangeFor(Stmt *s);
  void rangeForObject(Stmt *s, VarDecl *v);
  // ---- exceptions (sema_exceptions.cpp): try, catch and throw become plain statements ----
  void tryStmt(Stmt *s);
  void throwStmt(Stmt *s);
  bool exceptionsAllowed(SourceLoc at, const char *what);
  Expr *exceptionName(const std::string &n, SourceLoc at);
  Expr *exceptionCall(const char *builtin, std::vector<Expr *> args, SourceLoc at);
  Stmt *exceptionStatement(Expr *e);
  int exceptionCount_ = 0;
  bool lvalueConditional(Expr *e);
  void explicitSpecialization(FunctionDecl *f);
  int instantiationDepth_ = 0;
  /// `S<int>::member` named as `S<int>`'s instance's member; false if reported.
  bool instanceMember(Expr *e);
  /// The type of `a < b`, `!a`, `a && b`: int in C, bool in C++.
  const Type *truthType() { return options_.cLanguage ? types_.intTy() : types_.boolTy(); }
  bool memberOperatorTakes(FunctionDecl *member, Expr *operand);
  bool freeOperatorTakes(FunctionDecl *f, const std::vector<Expr *> &operands);
  void staticConstMember(StructDecl *sd, StructDecl::Field &f, const Type *t);
  /// `x` made into a copy-constructor call when it initialises a `t` (see sema_objects.cpp).
  bool copyConstruct(Expr *&x, const Type *t);
  /// `e` names a local object of the function being analysed (not a parameter): `return e;`
  /// hands it over without a copy.
  bool namesLocalObject(const Expr *e);

  // ---- implicit special members (sema_copies.cpp) ----
  /// The copy constructor of struct type `t` (declared or implicit), or null.
  FunctionDecl *copyConstructorOf(const Type *t);
  /// The copy assignment operator of struct type `t` itself (declared or implicit), or null.
  FunctionDecl *copyAssignmentOf(const Type *t);
  /// `t` has constructors, all of them implicit: an aggregate still (`S s = {"a", 1};`).
  bool hasImplicitConstructorsOnly(const Type *t);
  /// Declares (and analyses) the special members C++ declares implicitly for the class `sd`
  /// defines, where one of its parts has its own: copy constructor, copy assignment, default
  /// constructor.
  void implicitMembers(StructDecl *sd);

  // ---- types ----
  const Type *baseType(TypeSyntax *ts);

  /// Resolves a TypeSyntax. Pointers are created in `space` (the context's default).
  const Type *resolve(TypeSyntax *ts, AddrSpace space = AddrSpace::Generic);

  /// A non-constant array size inside a function body: a variable-length array's.
  bool isVariableLength(Expr *size);
  /// Reports a variable-length array where there may be none (device code) or whose bound is
  /// not an integer.
  bool variableLengthAllowed(Expr *size);

  const Type *defineStruct(StructDecl *sd);

  /// `member`: an enumeration of a struct, its enumerators named after the struct at file
  /// scope (a class template's instance is analysed in a scope of its own).
  void defineEnum(EnumDecl *ed, bool member = false);

  // ---- constant expressions ----
  /// Checks `e` and folds it with the front end's constant folder (const_eval.h); reports it
  /// when it is not an integer constant expression.
  bool constantInt(Expr *e, int64_t &out,
                   const char *notConstant = "expression is not an integer constant expression");

  // ---- declarations ----
  void topLevel(Decl *d);
  /// `extern int n;` in a block: the name means the variable of file scope (declared there
  /// now if the file has not declared it yet).
  void blockExtern(VarDecl *v);
  void blockFunction(FunctionDecl *f);
  /// `copy` (of a block's declaration) added to the translation unit and declared by `declare`
  /// at file scope, outside any namespace (blockExtern, blockFunction).
  void atFileScope(Decl *copy, const std::function<void()> &declare);
  /// A function with `...`: device ones are refused; a host definition gets its hidden
  /// parameters (FunctionDecl::vaParams).
  void variadicFunction(FunctionDecl *f);
  bool unprototypedMatch(const Type *a, const Type *b);

  void declareTypedef(TypedefDecl *td);

  /// Is file-scope typedef `name`, of type `t`, one of CUDA's vector types or dim3? A file that
  /// sees no CUDA header (SemaOptions::cudaTypes) may declare its own.
  bool isCudaType(const std::string &name, const Type *t) const {
    if (scope_ != &fileScope_)
      return false;
    auto it = vectorTypes_.find(name);
    return (it != vectorTypes_.end() && it->second == t) || t == types_.dim3Ty();
  }

  void globalVar(VarDecl *v);

  void function(FunctionDecl *f);
  /// A function redeclared with other __host__/__device__ qualifiers (sema_records.cpp).
  void mergeCudaQualifiers(FunctionDecl *prev, FunctionDecl *f);

  static bool sameSignature(const Type *a, const Type *b) {
    if (a->elem != b->elem || a->params.size() != b->params.size() || a->variadic != b->variadic)
      return false;
    for (size_t i = 0; i < a->params.size(); ++i)
      if (!sameIgnoringSpace(a->params[i], b->params[i]))
        return false;
    return true;
  }

  /// C++: parameters that differ in a reference or in the const of what they point to make
  /// other functions (overloads), as `f(int *)` and `f(const int *)` are.
  static bool sameReferencesAndConst(const Type *a, const Type *b) {
    for (size_t i = 0; i < a->params.size() && i < b->params.size(); ++i)
      for (const Type *x = a->params[i], *y = b->params[i]; x->isPointer() && y->isPointer();
           x = x->elem, y = y->elem)
        if (x->isReference != y->isReference || x->pointeeConst != y->pointeeConst)
          return false;
    return true;
  }

  static bool sameIgnoringSpace(const Type *a, const Type *b) {
    if (a == b)
      return true;
    if (a->isPointer() && b->isPointer())
      return sameIgnoringSpace(a->elem, b->elem);
    if (a->isFunction() && b->isFunction())
      return sameFunctionType(a, b);
    // C: array types are compatible when their elements are and, if both sizes are constant,
    // the sizes agree (a variable-length array's is checked by nothing, as in C).
    if (a->isArray() && b->isArray() && (a->vlaBound || b->vlaBound || a->count == b->count))
      return sameIgnoringSpace(a->elem, b->elem);
    return false;
  }

  /// What a reference may bind to: the same type, or a pointer that differs only in being a
  /// host pointer or one whose space is not known (a struct member's `float *` and a host
  /// function's `float *&` parameter), at any depth.
  static bool sameForReference(const Type *a, const Type *b) {
    if (a == b)
      return true;
    auto hostOrGeneric = [](const Type *t) {
      return t->space == AddrSpace::Host || t->space == AddrSpace::Generic;
    };
    return a->isPointer() && b->isPointer() && !a->isReference && !b->isReference &&
           hostOrGeneric(a) && hostOrGeneric(b) && a->pointeeConst == b->pointeeConst &&
           sameForReference(a->elem, b->elem);
  }

  void functionBody(FunctionDecl *f);
  void label(Stmt *s);
  void gotoStmt(Stmt *s);
  void resolveGotos(Stmt *body);

  /// Function `f` named where it decays to a pointer (`p = f`, `&f`): marked for the lowering,
  /// which lets a call through a pointer reach it. Device code may point only to functions
  /// it may call.
  void functionAddressTaken(FunctionDecl *f, SourceLoc at) {
    if (!f)
      return;
    f->addressTaken = true;
    if (f->definition)
      f->definition->addressTaken = true;
    if (side_ == Side::Device && !f->isDeviceCallable())
      error(at, "a pointer to " + std::string(f->quals.global ? "__global__" : "__host__") +
                    " function '" + f->name + "' in " + sideName() + " is not allowed");
  }
  /// Two function types that agree in result, parameters and `...`, ignoring address spaces.
  static bool sameFunctionType(const Type *a, const Type *b) {
    if (a == b)
      return true;
    if (!a->isFunction() || !b->isFunction() || a->params.size() != b->params.size() ||
        a->variadic != b->variadic || !sameIgnoringSpace(a->elem, b->elem))
      return false;
    for (size_t i = 0; i < a->params.size(); ++i)
      if (!sameIgnoringSpace(a->params[i], b->params[i]))
        return false;
    return true;
  }
  /// A call through a function pointer (`p(x)`, `(*p)(x)`, `ops[i](x)`).
  void indirectCall(Expr *e);

  AddrSpace defaultSpace() const {
    return side_ == Side::Host ? AddrSpace::Host : AddrSpace::Generic;
  }

  void localVar(VarDecl *v);

  /// Checks `init` for an object of type `t`; rewrites v->init with conversions.
  void initializer(VarDecl *v, Expr *&init, const Type *t);

  // ---- statements ----
  void stmt(Stmt *s);

  void checkSwitchLabels(Stmt *s, std::set<int64_t> &seen, bool &hasDefault, const Type *ct);

  void scopedStmt(Stmt *s);
  /// A loop's body: break and continue in it stop destroying objects at the loop.
  void loopBody(Stmt *s);

  Expr *condition(Expr *e);

  // ---- expressions ----
  Expr *make(ExprKind k, SourceLoc loc) {
    Expr *e = tu_.make<Expr>(k);
    e->loc = loc;
    return e;
  }

  Expr *implicitCast(Expr *e, const Type *to) {
    Expr *c = make(ExprKind::Cast, e->loc);
    c->operands.push_back(e);
    c->type = to;
    return c;
  }

  /// Lvalue-to-rvalue and array/function decay.
  Expr *rvalue(Expr *e);

  /// Which memory an lvalue lives in (for the pointer its address or decay yields).
  AddrSpace spaceOfObject(Expr *e);

  const Type *promote(const Type *t);

  /// C's usual arithmetic conversions.
  const Type *common(const Type *a, const Type *b);

  static bool isNullConstant(Expr *e) {
    while (e->kind == ExprKind::Cast && !e->typeSyntax)
      e = e->operands[0];
    return (e->kind == ExprKind::IntLit && e->intValue == 0);
  }

  /// Implicit conversion of `e` (checked) to `to` (assignment-like contexts).
  Expr *convert(Expr *e, const Type *to, const char *context);

  bool check(Expr *e);

  void checkExpr(Expr *e);

  const Type *intLiteralType(Expr *e);

  void ident(Expr *e);

  bool isBuiltinObject(Expr *e) {
    return e->kind == ExprKind::Ident && e->builtin >= kBuiltinThreadIdx &&
           e->builtin <= kBuiltinWarpSize;
  }

  /// Is `e` a modifiable lvalue? Reports why not.
  bool modifiable(Expr *e, const char *what);

  bool isConstLValue(Expr *e);

  void unary(Expr *e);

  void markAddressTaken(Expr *o);

  void binary(Expr *e);
  void invalidOperands(Expr *e, const Type *l, const Type *r);
  void usualConversions(Expr *e, Expr *&l, Expr *&r, Expr *lv, Expr *rv);

  static BinaryOp compoundBase(BinaryOp op) {
    switch (op) {
    case BinaryOp::MulAssign:
      return BinaryOp::Mul;
    case BinaryOp::DivAssign:
      return BinaryOp::Div;
    case BinaryOp::RemAssign:
      return BinaryOp::Rem;
    case BinaryOp::AddAssign:
      return BinaryOp::Add;
    case BinaryOp::SubAssign:
      return BinaryOp::Sub;
    case BinaryOp::ShlAssign:
      return BinaryOp::Shl;
    case BinaryOp::ShrAssign:
      return BinaryOp::Shr;
    case BinaryOp::AndAssign:
      return BinaryOp::BitAnd;
    case BinaryOp::XorAssign:
      return BinaryOp::BitXor;
    case BinaryOp::OrAssign:
      return BinaryOp::BitOr;
    default:
      return op;
    }
  }

  void conditional(Expr *e);

  void index(Expr *e);

  void member(Expr *e);

  void cast(Expr *e);

  /// GNU `({ ... })`: the braces are a scope; the value is the last expression statement's.
  void stmtExpr(Expr *e);

  // ---- calls ----
  bool sideAllows(char builtinSide);
  /// A host C library function the program defines itself (sema_library.cpp).
  bool ownsLibraryFunction(const FunctionDecl *f);

  const char *sideName() const;
  /// A string literal, or a conditional whose arms are such choices (implicit casts aside).
  static bool literalChoice(const Expr *e);

  void call(Expr *e);

  bool arguments(Expr *e, const Type *ft, const std::string &n);

  /// C's default argument promotions for `...`.
  Expr *variadicArg(Expr *a);

  void constructDim3(Expr *e, const Type *t);

  /// make_float4(x, y, z, w) and friends: one argument per component.
  void constructVector(Expr *e, const Type *t, const std::string &n);

  // ---- lambdas (sema_lambdas.cpp) ----
  int lambdaCount_ = 0;
  /// `[captures](params) {body}`: defines its closure struct and call operator, and makes `e`
  /// the closure value.
  void lambda(Expr *e);
  /// The first `return` of a lambda without `-> T` fixes its result type.
  void deduceReturnType(Expr *value);

  // ---- new and delete (sema_new.cpp) ----
  int newCount_ = 0;
  /// `new ...` / `delete p` in host code: rewritten as calls of kern's heap.
  void newExpression(Expr *e);

  // ---- destructors (sema_destructors.cpp) ----
  /// The scopes where a break (and a continue) stop destroying: those around the innermost
  /// loop or switch; the function's outermost scope.
  std::vector<Scope *> breakScopes_, continueScopes_;
  Scope *functionScope_ = nullptr;
  bool rewritingReturn_ = false;
  int returnCount_ = 0;
  /// Struct `t`'s destructor, if it declares one.
  FunctionDecl *destructorOf(const Type *t);
  /// Whether ending the life of a `t` runs code (its destructor, or its members' or elements').
  bool needsDestruction(const Type *t);
  /// The statements that end the life of `obj` (of type t), already checked.
  void destroy(Expr *obj, const Type *t, std::vector<Stmt *> &out, SourceLoc at);
  /// The statements that end the lives of the objects of the scopes from the current one out to
  /// `stop` (excluded).
  std::vector<Stmt *> destroyScopes(Scope *stop, SourceLoc at, VarDecl *kept = nullptr);
  bool movingResult_ = false; // the result of `return v;` takes v's value, not a copy
  /// At a scope's end: its objects' destructors, appended to `body`.
  void endScope(std::vector<Stmt *> &body, SourceLoc at);
  /// The call of a scope's exit built-in (Scope::exits), checked; null if it does not check.
  Stmt *scopeExitCall(const std::pair<std::string, std::string> &exit, SourceLoc at);
  /// `break`, `continue` or `return` leaving scopes with objects: they are destroyed first.
  bool destroyBeforeJump(Stmt *s);
  /// The (unchecked) calls that end the life of `obj`, a struct of type t: for `delete`.
  bool destructorCalls(Expr *obj, const Type *t, std::vector<Expr *> &out, SourceLoc at,
                       bool base = false);
  /// `S a[n];` of a struct whose default constructor does work: the loop that runs it for each
  /// element (checked), or null.
  Stmt *constructElements(VarDecl *v);
  /// A call of `make_float3` (any vector's maker) with one argument per component that no
  /// user-declared overload of that name takes, or of a library function (`fminf`) with
  /// arithmetic arguments where the program overloads it only for structs: the built-in.
  bool builtinVectorMaker(Decl *d, Expr *e);

  const Type *sigType(char c);
  /// Why a C library function that kern leaves out on purpose is not there, or null.
  static const char *unavailableFunction(const std::string &n);
  /// qsort's and bsearch's comparator: argument `index` of builtin call `e` must name a host
  /// function int(const void *, const void *).
  bool hostFunctionArgument(Expr *e, size_t index, const std::string &n);
  /// The kernel argument `a` of `n` (cudaFuncGetAttributes, the occupancy calculator) that
  /// is no kernel's name: a pointer whose value names a kernel at run time (`void *kernel`, a
  /// pointer to a kernel), wrapped for the lowering; null (reported) if it is no pointer.
  Expr *kernelPointerArgument(Expr *a, const std::string &n);

  void builtinCall(Expr *e, int b);

  void genericBuiltin(Expr *e, const std::string &n, const std::string &sig);

  void launch(Expr *e);
};

} // namespace kern::frontend::sema_detail
