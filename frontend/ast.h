// The abstract syntax tree of a .kern program: kern's own classes, built from the ANTLR parse
// tree by ast_builder (the only file that sees ANTLR) and annotated in place by sema.
#pragma once

#include "frontend/source.h"
#include "frontend/types.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace kern::frontend {

struct Expr;
struct Stmt;
struct Decl;
struct VarDecl;
struct FunctionDecl;
struct StructDecl;

// ---------------------------------------------------------------------------------------------
// Type syntax: what the source wrote. Sema resolves it to a Type*.
// ---------------------------------------------------------------------------------------------

/// One declarator suffix or prefix, innermost last as written: `int *a[4]` is base int,
/// declarator ops [Pointer, Array(4)] read as C reads them (see TypeSyntax::ops).
struct TypeSyntax;
struct TypeOp {
  enum class Kind { Pointer, Array, Function, Reference } kind = Kind::Pointer;
  bool isConst = false; // Pointer: `* const`
  Expr *size = nullptr; // Array: the size expression; nullptr for `[]`
  /// Function: the parameter types of `(*p)(int, float)` (empty for `()` and `(void)`).
  std::vector<TypeSyntax *> params;
  bool variadic = false;  // Function: `...`
  bool emptyList = false; // Function: `()`, which in C leaves the parameters unstated
  SourceLoc loc;          // Function: the parameter list
};

/// A template argument as written: a type or a constant expression.
struct TemplateArg {
  TypeSyntax *type = nullptr;
  Expr *value = nullptr;
};

/// A type as written: specifiers plus declarator operators.
///   `const unsigned int * const p[3]` -> keywords {"unsigned","int"}, isConst, ops as below.
struct TypeSyntax {
  SourceLoc loc;
  /// Builtin type keywords in source order, e.g. {"unsigned","long","long"}; empty when the
  /// base type is named (typedef name such as `size_t`, `float4`, `dim3`) or a struct/enum.
  std::vector<std::string> keywords;
  std::string name;                      // a typedef / builtin type name, e.g. "size_t", "dim3"
  std::string structName;                // `struct S` (used with or without structDef)
  std::vector<TemplateArg> templateArgs; // `S<float, 4>`: a class template's arguments
  std::string memberType;                // `S<float>::iterator`: a member type of that instance
  StructDecl *structDef = nullptr;       // `struct S { ... }` written inline
  std::string enumName;                  // `enum E` (no definition)
  Decl *enumDef = nullptr;               // `enum E { ... }` written inline (an EnumDecl)
  bool isConst = false;                  // applies to the base type
  bool isVolatile = false;
  bool isAuto = false;           // `auto`: the base type is deduced from the initialiser
  const Type *deduced = nullptr; // filled by sema: the type `auto` stands for
  Expr *decltypeExpr = nullptr;  // `decltype(e)`: the type of e (not evaluated)
  /// Declarator operators in C's binding order, applied to the base type one after another:
  /// `int *a[4]` (array of 4 pointers to int) -> {Pointer, Array(4)};
  /// `int (*p)[4]` (pointer to array)          -> {Array(4), Pointer}.
  std::vector<TypeOp> ops;
  const Type *resolved = nullptr; // filled by sema
};

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

enum class ExprKind {
  IntLit,      // intValue; text keeps the spelling (suffixes u, l, ll, ul, ull; hex, octal)
  FloatLit,    // floatValue; isFloatSuffix for `1.0f`
  CharLit,     // intValue holds the character code
  StringLit,   // stringValue: adjacent literals concatenated, escapes decoded
  Ident,       // name
  Unary,       // unaryOp, operands[0]
  Binary,      // binaryOp, operands[0], operands[1] (assignment and comma included)
  Conditional, // operands[0] ? operands[1] : operands[2]
  Call,        // operands[0] = callee (usually Ident), args; launch config if isLaunch
  Index,       // operands[0][operands[1]]
  Member,      // operands[0].name or operands[0]->name (isArrow)
  Cast,        // (typeSyntax) operands[0]
  SizeofType,  // sizeof(typeSyntax)
  SizeofExpr,  // sizeof operands[0]
  InitList,    // { operands... } (initialisers only)
  Temporary,   // sema: a temporary holding the rvalue operands[0]; the value is its address
  Construct,   // sema: a struct object made by its constructor call operands[0] (a struct rvalue)
  ConstructTarget, // sema: in that call, the address of the object being constructed
  StmtExpr,        // GNU `({ stmts; expr; })`: body (a Compound); the value is its last expression
                   // statement's (sema makes that expression an rvalue), void if there is none
  Lambda, // `[captures](params) -> ret {body}`: lambda; sema makes it a value of a closure struct
  New,    // `new T...`: typeSyntax T; operands[0] the count of `new T[n]` (isArrayForm); args the
          // initialiser's values; newInit: 0 none, 1 `(...)`, 2 `{...}`. Sema rewrites it.
  Delete, // `delete p` / `delete[] p` (isArrayForm): operands[0]. Sema rewrites it.
};

/// What a lambda captures: `x` (a copy), `&x` (a reference), `x = init` (a copy of init).
struct LambdaCapture {
  SourceLoc loc;
  std::string name;
  bool byReference = false;
  Expr *init = nullptr;
};

enum class UnaryOp { Plus, Minus, Not, BitNot, Deref, AddrOf, PreInc, PreDec, PostInc, PostDec };

enum class BinaryOp {
  Mul,
  Div,
  Rem,
  Add,
  Sub,
  Shl,
  Shr,
  Lt,
  Gt,
  Le,
  Ge,
  Eq,
  Ne,
  BitAnd,
  BitXor,
  BitOr,
  LogAnd,
  LogOr,
  Assign,
  MulAssign,
  DivAssign,
  RemAssign,
  AddAssign,
  SubAssign,
  ShlAssign,
  ShrAssign,
  AndAssign,
  XorAssign,
  OrAssign,
  Comma,
};
const char *binaryOpSpelling(BinaryOp op);
const char *unaryOpSpelling(UnaryOp op);
bool isAssignment(BinaryOp op);
/// `ns::Box<float>` -> `Box`: a class's name as its constructors are named.
std::string shortClassName(const std::string &name);

struct Expr {
  ExprKind kind;
  SourceLoc loc; // the operator or first token
  // Payload (which fields are used depends on kind)
  uint64_t intValue = 0;
  double floatValue = 0;
  bool isFloatSuffix = false;
  std::string text;        // literal spelling
  std::string stringValue; // StringLit
  std::string name;        // Ident, Member
  bool isArrow = false;    // Member
  UnaryOp unaryOp = UnaryOp::Plus;
  BinaryOp binaryOp = BinaryOp::Add;
  std::vector<Expr *> operands;
  std::vector<Expr *> args; // Call arguments
  // Call with `<<<grid, block[, shared[, stream]]>>>`
  bool isLaunch = false;
  std::vector<Expr *> launchConfig;
  TypeSyntax *typeSyntax = nullptr; // Cast, SizeofType
  // Ident naming a template with arguments: `reduce<256>`, `K<float, 4>`
  bool hasTemplateArgs = false;
  std::string instanceMember; // Ident: `S<int>::member`, a member of that class template instance
  std::vector<TemplateArg> templateArgs;
  Stmt *body = nullptr; // StmtExpr
  // Lambda: the call operator as written (no name; returnType null when deduced), what it
  // captures, and the default capture ('&', '=' or 0).
  FunctionDecl *lambda = nullptr;
  std::vector<LambdaCapture> captures;
  char captureDefault = 0;
  bool isArrayForm = false; // New, Delete
  /// Cast (sema): a pointer conversion between a class and its base class adds this many
  /// bytes (negative from a base to a derived class); a null pointer stays null.
  int64_t baseOffset = 0;
  int newInit = 0;           // New
  bool isAlignof = false;    // SizeofType, SizeofExpr: `alignof`/`__alignof__`, the alignment
  Expr *placement = nullptr; // New: `new (p) T`, the memory the object is made in
  /// New: all of `new (a, b) T`'s placement arguments (a class's `operator new(size_t, A, B)`
  /// takes them after the size); `::new`, `::delete`: the global operator, not the class's.
  std::vector<Expr *> placementArgs;
  bool globalNew = false;
  bool noVirtual = false; // Call: of the named function itself (a base's destructor), no dispatch
  // Binary Assign: initialises its left operand, storage that holds no object yet (a
  // constructor's member initialiser `this->m = M(args)`, an element made by `new T[n]`, a
  // member of an implicit copy constructor). A Construct on the right makes the object in
  // place (its constructor's `this` is the left operand's address); any other value is copied
  // as its bytes. No operator= applies.
  bool initializes = false;

  // ---- filled by sema ----
  const Type *type = nullptr;
  bool isLValue = false;
  Decl *decl = nullptr;  // Ident: the variable or function it names; Call: the callee
  int builtin = -1;      // Ident/Call: index into the builtins table when it names one
  int64_t enumValue = 0; // Ident naming an enumerator
  bool isEnumConst = false;

  explicit Expr(ExprKind k) : kind(k) {}
};

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

enum class StmtKind {
  Compound, // body
  Decl,     // decls (one per declarator: `int a, b;` gives two VarDecls)
  Expr,     // expr (may be null for `;`)
  If,       // cond, then, elseStmt (may be null)
  For,   // init (Decl or Expr stmt, may be null), cond (may be null), step (may be null), then=body
  While, // cond, then=body
  DoWhile, // then=body, cond
  Switch,  // cond, then=body (a Compound holding Case/Default labels among its statements)
  Case,    // caseValue; the labelled statement follows it in the enclosing body (then may be set)
  Default, // as Case
  Break,
  Continue,
  Return,   // expr (may be null)
  RangeFor, // `for (decl : expr) then`: init (a Decl of the variable), expr; sema makes it a For
  Goto,     // unsupported: sema reports it (name = label)
  Label,    // unsupported label `name:`; then = labelled statement
  Pragma,   // `#pragma unroll [n]` kept by the preprocessor: text
  /// `try then catch...`: then = the try block, body = its Catch clauses; sema rewrites it
  /// into plain statements (sema_exceptions.cpp).
  Try,
  Catch, // decls = {the parameter} (none for `catch (...)`), then = the handler
  Throw, // expr (null for `throw;`); sema rewrites it into a call of the runtime
  /// A construct kern does not support: text is its diagnostic, given when sema analyses the
  /// function (so not for a template that is never instantiated).
  Unsupported,
};

struct Stmt {
  StmtKind kind;
  SourceLoc loc;
  std::vector<Stmt *> body;  // Compound
  std::vector<Decl *> decls; // Decl
  Expr *expr = nullptr;      // Expr, Return
  Expr *cond = nullptr;      // If, For, While, DoWhile, Switch
  Stmt *init = nullptr;      // For
  Expr *step = nullptr;      // For
  Stmt *then = nullptr;      // If then-branch; loop/switch body; Case/Label's statement
  Stmt *elseStmt = nullptr;  // If
  Expr *caseValue = nullptr; // Case
  std::string name;          // Goto, Label
  /// Goto: its label (set by sema). Label: the last statement of its list that jumps back to
  /// it (the end of the loop it starts), or null when every goto to it jumps forward.
  Stmt *target = nullptr;
  bool isTargeted = false; // Label: some goto jumps to it
  std::string text;        // Pragma, Unsupported
  /// Compound written by sema (sema_exceptions.cpp): a built-in called, with the variable
  /// scopeExitArg if named, on every way out of the block (its end, break, continue, return).
  std::string scopeExit, scopeExitArg;
  explicit Stmt(StmtKind k) : kind(k) {}
};

// ---------------------------------------------------------------------------------------------
// Declarations
// ---------------------------------------------------------------------------------------------

enum class DeclKind { Var, Function, Struct, Typedef, Enum, Using, StaticAssert, Unsupported };

/// CUDA and C qualifiers and storage classes found in declaration specifiers.
struct Qualifiers {
  bool global = false;   // __global__
  bool device = false;   // __device__
  bool host = false;     // __host__
  bool shared = false;   // __shared__
  bool constant = false; // __constant__
  bool isExtern = false;
  bool externC = false; // C linkage: inside extern "C", or declared in a C file (.c)
  bool isStatic = false;
  bool isInline = false;          // inline / __inline__ / __forceinline__
  bool noinline = false;          // __noinline__
  bool restrict = false;          // __restrict__ (anywhere in the declaration)
  int launchBoundsMaxThreads = 0; // __launch_bounds__(max[, min])
  int launchBoundsMinBlocks = 0;
  /// Arguments of __launch_bounds__ that name a template's parameters: sema evaluates them
  /// for each instance.
  Expr *launchBoundsMaxExpr = nullptr;
  Expr *launchBoundsMinExpr = nullptr;
  uint64_t alignAs = 0; // __align__(n) on a struct
};

struct Decl {
  DeclKind kind;
  SourceLoc loc; // the name
  /// At namespace scope the qualified name (`cooperative_groups::sync`, `S::method`).
  std::string name;
  /// The namespace (or struct, for a member function) that names in the declaration are
  /// looked up from: "" for the global namespace.
  std::string ns;
  Qualifiers quals;
  explicit Decl(DeclKind k) : kind(k) {}
  virtual ~Decl() = default;
};

/// A template parameter: `typename T` (isType) or `int N`, with its default if any.
struct TemplateParam {
  SourceLoc loc;
  std::string name;
  bool isType = true;
  TypeSyntax *type = nullptr; // a non-type parameter's type
  TemplateArg defaultArg;     // either part may be null
};

struct VarDecl : Decl {
  TypeSyntax *typeSyntax = nullptr;
  Expr *init = nullptr; // may be an InitList; a parameter's default argument
  bool isParam = false;
  /// A static data member of a class template defined outside it, `template <class T> int
  /// C<T>::count = 0;` (named `C::count`): the class's arguments as written and its parameters
  /// as this definition names them. Sema defines the member of each instance of C by it.
  bool ofClassTemplate = false;
  std::vector<TemplateArg> classTemplateArgs;
  std::vector<TemplateParam> classTemplateParams;
  /// `template <> int C<int>::count = 5;`: the member of that one instance (an explicit
  /// specialization), which the class template's own definition then does not define.
  bool specializesMember = false;
  // ---- filled by sema ----
  const Type *type = nullptr;
  bool isGlobalScope = false; // file scope (__device__, __constant__, host globals)
  bool addressTaken = false;
  VarDecl() : Decl(DeclKind::Var) {}
};

struct FunctionDecl : Decl {
  TypeSyntax *returnType = nullptr;
  /// A lambda's call operator without `-> T`: sema takes the result type from the first
  /// `return` (void if none).
  bool deducesReturnType = false;
  /// Declared with `()`: in C, nothing said about the parameters (set by sema in C files).
  bool emptyParameterList = false;
  bool unprototyped = false;
  bool isKnr = false;          // a K&R definition: `int f(a, b) int a; float b; {...}`
  bool isUsed = false;         // called or named in its file (the linker checks only what is used)
  bool addressTaken = false;   // named as a pointer: a call through a function pointer may reach it
  bool calledFromHost = false; // host code calls it (sema_records.cpp: a redeclaration keeps that)
  bool isExplicit = false;     // an `explicit` constructor: not used for implicit conversions
  bool isDefaulted = false;    // `= default`: what C++ would declare implicitly
  bool isDeleted = false;      // `= delete`: declared so that using it is an error
  /// Declared by sema where C++ declares it implicitly (sema_copies.cpp): the default
  /// constructor, copy constructor or copy assignment of a class whose members or bases have
  /// their own. A class whose constructors are all implicit is still an aggregate.
  bool isImplicit = false;
  /// A function template: never analysed or lowered itself; sema analyses one copy per
  /// instantiation (named `f<int>`), with the parameters bound in a scope of their own.
  std::vector<TemplateParam> templateParams;
  /// A member of a class template defined outside it, `template <class T> void C<T>::f() {...}`
  /// (named `C::f`): the class's arguments as written (`<T>`) and its parameters as this
  /// definition names them. Sema makes it the definition of the member declared in C, which is
  /// instantiated with the class; `templateParams` are then a member template's own.
  bool ofClassTemplate = false;
  std::vector<TemplateArg> classTemplateArgs;
  std::vector<TemplateParam> classTemplateParams;
  std::vector<VarDecl *> params;
  bool variadic = false;
  Stmt *body = nullptr; // null for a prototype
  /// A variadic host function's definition: the hidden parameters after the stated ones, the
  /// first and past-the-end slots of the caller's packed `...` arguments (each 8 bytes, after
  /// C's default promotions), named `__kern_va_args` and `__kern_va_end` in its body (which
  /// <stdarg.h>'s va_start reads).
  std::vector<VarDecl *> vaParams;
  // ---- filled by sema ----
  // A member function: `this` is its first parameter (sema adds it), unless it is static.
  StructDecl *owner = nullptr;
  bool isConstMethod = false; // `int f() const`
  bool isStaticMember = false;
  bool isOverloaded = false; // another function has this name (C++ overloading)
  bool isConstructor = false;
  bool isDestructor = false; // `~S()`, named `S::~S`
  bool isConversion = false; // `operator float *()`: converts its object to its result type
  bool isVirtual = false;    // declared `virtual` (or overriding a base's virtual function)
  bool isPure = false;       // `virtual void f() = 0;`
  /// The dispatcher of a virtual member function (sema_virtual.cpp): a function of the
  /// method's type whose body the lowering makes, one call per class the object may have,
  /// chosen by the object's vtable pointer. Each target is (the class's vtable number, its
  /// final overrider of the method).
  FunctionDecl *dispatches = nullptr;
  /// A destructor's dispatcher calls a chain: the class's destructor, then its bases' (the
  /// first base, and its first base...).
  std::vector<std::pair<uint64_t, std::vector<FunctionDecl *>>> virtualTargets;
  /// A `dynamic_cast` to a class (sema_dynamic_cast.cpp): a function from a pointer to the
  /// operand's class to a pointer to this class, whose body the lowering makes. Each target is
  /// a class the object may be (its vtable number) and the offset of this class in it; any
  /// other object gives null, or, for a cast to a reference, a fault.
  const Type *dynamicCastTo = nullptr;
  bool dynamicCastReference = false;
  std::vector<std::pair<uint64_t, int64_t>> castTargets;
  /// `template void f<float>(float *);`: instantiates template f with these arguments.
  bool isExplicitInstantiation = false;
  bool isExplicitSpecialization = false; // `template <> float f<-1>(float x) {...}`
  std::vector<TemplateArg> instantiationArgs;
  /// A constructor's member initialisers, `: re(a), im(b)`: sema runs them before the body.
  struct MemberInit {
    SourceLoc loc;
    std::string name;
    std::vector<Expr *> args;
  };
  std::vector<MemberInit> memberInits;
  const Type *type = nullptr;
  FunctionDecl *definition = nullptr; // the defining declaration when this is a prototype
  bool isKernel() const { return quals.global; }
  /// Host code: no __global__/__device__, or __host__ (possibly with __device__).
  bool isHostCallable() const { return !quals.global && (quals.host || !quals.device); }
  bool isDeviceCallable() const { return quals.device; }
  FunctionDecl() : Decl(DeclKind::Function) {}
};

struct StructDecl : Decl {
  struct Field {
    SourceLoc loc;
    std::string name;
    TypeSyntax *typeSyntax = nullptr;
    bool isTypedef = false; // a member type: `typedef T *iterator;`, named S::iterator
    bool isStatic = false;  // a static const member: `static const int n = 4;`, named S::n
    Expr *init = nullptr;   // its value
    /// An anonymous struct or union member (`union { float4 v; float a[4]; };`): its members
    /// are found as members of the enclosing struct.
    bool isAnonymous = false;
  };
  std::vector<Field> fields;
  bool isUnion = false; // `union U {...}`: every member at offset 0
  /// The `#pragma pack(n)` in effect where the struct is defined: no member is aligned to more
  /// than this many bytes (0: none).
  uint64_t pack = 0;
  /// `struct D : B, private C`: the base classes in order (access is parsed, not checked).
  struct Base {
    SourceLoc loc;
    TypeSyntax *typeSyntax = nullptr;
    bool isVirtual = false;
  };
  std::vector<Base> bases;
  /// A field declared under `private:` or `protected:` (or in a `class` before any access
  /// specifier): the struct is then not a POD, which its layout as a base depends on.
  bool hasNonPublicFields = false;
  std::vector<FunctionDecl *> methods; // member functions, declared or defined inside
  std::vector<Decl *> nestedEnums;     // `enum E {...};` as a member: enumerators S::A...
  /// Structs and class templates defined in it, named `S::N` (their member functions follow
  /// S as S's do; a class template's stay with it, as do those of its nested structs).
  std::vector<StructDecl *> nestedStructs;
  /// Where each nested enumeration and struct was declared: the number of fields before it
  /// (a member type or enumeration may name the members declared before it).
  std::vector<size_t> nestedEnumAt, nestedStructAt;
  /// A class template (its parameters), or with specializationArgs an explicit
  /// specialization (`template <> struct S<int> {...}`): defined only when instantiated.
  std::vector<TemplateParam> templateParams;
  std::vector<TemplateArg> specializationArgs;
  bool isTemplate = false;
  bool isDefinition = false;
  const Type *type = nullptr; // filled by sema
  StructDecl() : Decl(DeclKind::Struct) {}
};

struct TypedefDecl : Decl {
  TypeSyntax *typeSyntax = nullptr;
  const Type *type = nullptr; // filled by sema
  TypedefDecl() : Decl(DeclKind::Typedef) {}
};

struct EnumDecl : Decl {
  struct Enumerator {
    SourceLoc loc;
    std::string name;
    Expr *value = nullptr; // may be null
    int64_t resolved = 0;  // filled by sema
  };
  std::vector<Enumerator> enumerators;
  bool isScoped = false;            // `enum class`: enumerators are named E::A
  TypeSyntax *underlying = nullptr; // `: unsigned char`; int when absent
  EnumDecl() : Decl(DeclKind::Enum) {}
};

/// `using namespace N;` (isDirective), `namespace A = N;` (alias = "A"), `using N::x;`.
struct UsingDecl : Decl {
  std::string target; // the namespace or name as written
  std::string alias;
  bool isDirective = false;
  UsingDecl() : Decl(DeclKind::Using) {}
};

/// `static_assert(cond, "message");`: sema folds `cond` and reports the message if it is false.
struct StaticAssertDecl : Decl {
  Expr *cond = nullptr;
  std::string message;
  bool hasMessage = false;
  StructDecl *owner = nullptr; // written inside this struct (then placed after it)
  StaticAssertDecl() : Decl(DeclKind::StaticAssert) {}
};

/// A construct the language does not support (class, template, namespace, asm...). The AST
/// builder records it with the construct's name; sema reports one diagnostic for it.
struct UnsupportedDecl : Decl {
  std::string construct; // e.g. "C++ classes", "templates", "inline PTX"
  UnsupportedDecl() : Decl(DeclKind::Unsupported) {}
};

/// Whether member function `f` of class `className` takes one parameter of that class, by value
/// or by reference, as written (`S(const S &)`, `pair &operator=(const pair<T1, T2> &)`): the
/// signature of a copy constructor or copy assignment.
bool takesOwnClass(const FunctionDecl *f, const std::string &className);

/// One translation unit. Owns every node.
struct TranslationUnit {
  std::vector<Decl *> decls; // in source order; a declaration with several declarators
                             // contributes one Decl per declarator

  template <typename T, typename... A> T *make(A &&...a) {
    auto p = std::make_unique<T>(std::forward<A>(a)...);
    T *raw = p.get();
    if constexpr (std::is_base_of_v<Decl, T>)
      decls_.push_back(std::move(p));
    else if constexpr (std::is_same_v<T, Expr>)
      exprs_.push_back(std::move(p));
    else if constexpr (std::is_same_v<T, Stmt>)
      stmts_.push_back(std::move(p));
    else
      types_.push_back(std::move(p));
    return raw;
  }

private:
  std::deque<std::unique_ptr<Decl>> decls_;
  std::deque<std::unique_ptr<Expr>> exprs_;
  std::deque<std::unique_ptr<Stmt>> stmts_;
  std::deque<std::unique_ptr<TypeSyntax>> types_;
};

} // namespace kern::frontend
