// The AST -> Kern IR lowering's class, shared by the files that implement it: lower.cpp
// (declarations and statements), lower_expr.cpp (expressions), lower_calls.cpp (calls).
#pragma once

#include "ir/lower.h"

#include "frontend/const_eval.h"
#include "frontend/sema.h"
#include "frontend/texture_refs.h"

#include <cassert>
#include <cstring>
#include <functional>
#include <map>
#include <set>

namespace kern::ir::lower_detail {

namespace fe = kern::frontend;

using fe::BinaryOp;
using fe::ExprKind;
using fe::StmtKind;
using fe::TypeKind;
using fe::UnaryOp;

/// Where an lvalue lives: a register variable, or memory at an address.
struct LValue {
  Var *var = nullptr;
  Expr *addr = nullptr;
  AddrSpace space = AddrSpace::Generic;
  const fe::Type *type = nullptr;
  /// A member that `#pragma pack` placed below its type's alignment: the alignment its address
  /// is known to have (0: the type's own).
  uint64_t align = 0;
};

/// Per-declaration storage.
struct Storage {
  Var *var = nullptr;              // a register variable
  Var *byRef = nullptr;            // a variable holding the object's address (struct parameters)
  LocalSlot *slot = nullptr;       // per-thread memory
  GlobalVar *global = nullptr;     // file-scope variable
  GlobalVar *deviceTwin = nullptr; // a texture reference: the copy kernels read (global space)
  int64_t sharedOffset = -1;       // __shared__ variable: byte offset
  bool dynamicShared = false;      // extern __shared__
};

class Lowerer {
public:
  Lowerer(fe::TranslationUnit &tu, fe::TypeContext &types, fe::DiagnosticEngine &diags, Module &m)
      : tu_(tu), types_(types), diags_(diags), m_(m) {}

  void run();
  // ---- shared variables outside kernels (lower_shared.cpp) ----
  void placeCommonShared();
  std::map<fe::VarDecl *, int64_t> commonShared_; // file-scope and device-function __shared__
  /// The end of the common variables that kernel `k` may reach (16-byte aligned): where its
  /// own shared variables start.
  uint64_t commonSharedEnd(const fe::FunctionDecl *k) const;
  std::map<const fe::FunctionDecl *, uint64_t> commonSharedEnds_;
  uint64_t everywhereSharedBytes_ = 0; // the variables every kernel may reach

private:
  fe::TranslationUnit &tu_;
  fe::TypeContext &types_;
  fe::DiagnosticEngine &diags_;
  Module &m_;

  struct Fns {
    Function *host = nullptr;   // host version (Host functions, main, __host__ __device__)
    Function *device = nullptr; // kernel or device version
  };
  std::map<fe::FunctionDecl *, Fns> functions_;
  std::map<fe::VarDecl *, Storage> globals_;
  /// String literals: each a global of its own (one per distinct text and side), in the host
  /// arena for host code and in global memory for device code.
  std::map<std::pair<std::string, AddrSpace>, GlobalVar *> literals_;
  GlobalVar *literalGlobal(const std::string &text, AddrSpace space);
  /// A literal printf/scanf format `f`: null in device code (the text is the format), its
  /// host literal's address in host code (the runtime reads it from the program's memory).
  Expr *hostFormat(fe::Expr *f);
  std::map<std::pair<fe::VarDecl *, bool>, GlobalVar *> staticLocals_; // by (variable, device)
  /// Variables declared extern that no file defines, and those already reported at a use.
  std::set<std::string> undefinedExterns_, undefinedReported_;
  /// Host functions whose address is taken, in the order they were first named: a function
  /// pointer's value is 1 + the index here (Module::hostFunctionTable, filled at the end).
  std::vector<fe::FunctionDecl *> addressTaken_;
  int64_t functionPointerValue(fe::FunctionDecl *fd) {
    if (fd && fd->definition)
      fd = fd->definition;
    for (size_t i = 0; i < addressTaken_.size(); ++i)
      if (addressTaken_[i] == fd)
        return static_cast<int64_t>(i) + 1;
    addressTaken_.push_back(fd);
    return static_cast<int64_t>(addressTaken_.size());
  }
  /// The value of a function designator (`f`, `*p`) where it decays to a pointer.
  Expr *functionPointer(fe::Expr *e);
  Expr *indirectCall(fe::Expr *e);
  /// The functions (of `device` code: device functions, else kernels) whose address is taken,
  /// with their pointer values, that a pointer of function type `ft` may point to.
  std::vector<std::pair<int64_t, Function *>> pointerTargets(const fe::Type *ft, bool kernels);
  /// Runs `each(target)` for the target whose number the value `v` holds (an if per target, as
  /// a switch on the function); a value that is none of them faults.
  void dispatch(Expr *v, const std::vector<std::pair<int64_t, Function *>> &targets,
                fe::SourceLoc loc, const std::function<void(Function *)> &each,
                IntrinsicId fault = IntrinsicId::FnPtrFault,
                const std::string &what = "call through a function pointer");
  /// A virtual function's dispatcher (lower_virtual.cpp): its body calls the overrider of the
  /// class that the object's vtable pointer names.
  void virtualBody(fe::FunctionDecl *f);
  /// The body of a dynamic_cast's function (frontend/sema_dynamic_cast.cpp).
  void dynamicCastBody(fe::FunctionDecl *f);
  /// The vtable pointer of the class numbered `number` on this side (host or device).
  int64_t vtableValue(uint64_t number) const;

  // Per function being lowered
  Function *F = nullptr;
  bool device_ = false;
  Block *cur_ = nullptr;
  std::map<fe::VarDecl *, Storage> locals_;
  std::vector<Expr *> dynamicSharedRefs_;
  Var *sret_ = nullptr;             // the hidden result pointer of a function returning a struct
  Expr *constructTarget_ = nullptr; // the object a constructor call being lowered makes
  std::map<Var *, LocalSlot *> addressSlots_; // address snapshots into local slots
  uint32_t nextVarId_ = 0;
  // switch lowering: lanes that executed `continue` inside a switch (see switchStmt)
  std::vector<Var *> switchContinueFlags_;
  int loopDepthInSwitch_ = 0;

  void error(fe::SourceLoc loc, const std::string &msg) { diags_.error(loc, msg); }

  // ---------------------------------------------------------------------------------------
  // Types
  // ---------------------------------------------------------------------------------------

  Type irType(const fe::Type *t) {
    switch (t->kind) {
    case TypeKind::Void:
      return Type::voidTy();
    case TypeKind::Bool:
      return Type::boolTy();
    case TypeKind::Char:
    case TypeKind::SChar:
      return Type::i8(true);
    case TypeKind::UChar:
      return Type::i8(false);
    case TypeKind::Short:
      return Type::i16(true);
    case TypeKind::UShort:
      return Type::i16(false);
    case TypeKind::Int:
      return Type::i32(true);
    case TypeKind::UInt:
      return Type::i32(false);
    case TypeKind::Long:
    case TypeKind::LongLong:
      return Type::i64(true);
    case TypeKind::ULong:
    case TypeKind::ULongLong:
      return Type::i64(false);
    case TypeKind::Float:
      return Type::f32();
    case TypeKind::Double:
      return Type::f64();
    case TypeKind::Pointer:
      return Type::ptr(fixSpace(t->space));
    case TypeKind::Array:
      return Type::ptr(defaultSpace());
    case TypeKind::Struct:
    case TypeKind::Function:
      return Type::ptr(defaultSpace());
    }
    return Type::voidTy();
  }

  AddrSpace defaultSpace() const { return device_ ? AddrSpace::Generic : AddrSpace::Host; }
  /// Pointers typed in host code point to host memory as far as the static type knows
  /// (device pointers held by the host are never dereferenced there; a check catches it).
  AddrSpace fixSpace(AddrSpace s) const {
    if (!device_)
      return AddrSpace::Host;
    return s == AddrSpace::Host ? AddrSpace::Generic : s;
  }

  // ---------------------------------------------------------------------------------------
  // IR construction helpers
  // ---------------------------------------------------------------------------------------

  Expr *node(ir::ExprKind k, Type t) { return m_.make<Expr>(k, t); }
  Expr *constInt(Type t, int64_t v) {
    Expr *e = node(ir::ExprKind::Const, t);
    e->intValue = v;
    return e;
  }
  Expr *constFloat(Type t, double v) {
    Expr *e = node(ir::ExprKind::Const, t);
    e->floatValue = v;
    return e;
  }
  Expr *i64(int64_t v) { return constInt(Type::i64(true), v); }
  Expr *bin(ir::BinaryOp op, Expr *a, Expr *b) {
    bool cmp = op >= ir::BinaryOp::Lt && op <= ir::BinaryOp::Ne;
    Expr *e = node(ir::ExprKind::Binary, cmp ? Type::boolTy() : a->type);
    e->binaryOp = op;
    e->ops = {a, b};
    return e;
  }
  Expr *cast(Expr *e, Type t) {
    if (e->type == t)
      return e;
    // Constant folding of integer constants keeps the IR readable.
    if (e->kind == ir::ExprKind::Const && e->type.isInt() && t.isInt()) {
      return constInt(t, fe::wrapInt(e->intValue, t.bits(), t.isSigned));
    }
    Expr *c = node(ir::ExprKind::Cast, t);
    c->ops = {e};
    return c;
  }
  Expr *toBool(Expr *e) {
    if (e->type.isBool())
      return e;
    // `int` produced from a comparison or logical operator: use the bool directly.
    if (e->kind == ir::ExprKind::Cast && e->ops[0]->type.isBool())
      return e->ops[0];
    if (e->type.isPtr())
      return bin(ir::BinaryOp::Ne, cast(e, Type::i64(false)), constInt(Type::i64(false), 0));
    return cast(e, Type::boolTy());
  }
  Var *newVar(const std::string &name, Type t) {
    Var *v = m_.make<Var>();
    v->id = nextVarId_++;
    v->name = name;
    v->type = t;
    F->vars.push_back(v);
    return v;
  }
  Expr *ref(Var *v) {
    Expr *e = node(ir::ExprKind::VarRef, v->type);
    e->var = v;
    return e;
  }
  Stmt *emit(ir::StmtKind k, fe::SourceLoc loc) {
    Stmt *s = m_.make<Stmt>(k);
    s->loc = loc;
    cur_->stmts.push_back(s);
    return s;
  }
  void assign(Var *v, Expr *value, fe::SourceLoc loc) {
    Stmt *s = emit(ir::StmtKind::Assign, loc);
    s->var = v;
    s->value = value;
  }
  /// Evaluates `e` now into a fresh temporary (its value cannot change afterwards).
  void appendArguments(fe::Expr *e, std::vector<Expr *> &args);
  /// The order in which a call's `n` arguments are evaluated: right to left in host code, as
  /// the host compiler (GCC on x86-64) does, so `printf("%d %d", rand(), rand())` prints what
  /// the native build prints; left to right in device code, as nvcc's device compiler does.
  std::vector<size_t> argumentOrder(size_t n) const {
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i)
      order[i] = device_ ? i : n - 1 - i;
    return order;
  }
  Expr *snapshot(Expr *e, const std::string &name, fe::SourceLoc loc) {
    if (e->kind == ir::ExprKind::Const || e->kind == ir::ExprKind::BuiltinVar ||
        e->kind == ir::ExprKind::SharedAddr || e->kind == ir::ExprKind::LocalAddr ||
        e->kind == ir::ExprKind::StringConst)
      return e;
    Var *t = newVar(name, e->type);
    assign(t, e, loc);
    // A snapshot of an address into a local slot still points into that slot: remember it, so
    // accesses through the snapshot are checked against the slot.
    if (e->type.isPtr() && e->type.space == AddrSpace::Local)
      if (LocalSlot *slot = rootSlot(e))
        addressSlots_[t] = slot;
    return ref(t);
  }
  Block *newBlock() { return m_.make<Block>(); }

  /// The local slot an address points into, when it is the slot's address plus offsets.
  LocalSlot *rootSlot(Expr *addr) {
    while (addr->kind == ir::ExprKind::PtrAdd || addr->kind == ir::ExprKind::Cast)
      addr = addr->ops[0];
    if (addr->kind == ir::ExprKind::VarRef) { // an address snapshot (see snapshot())
      auto it = addressSlots_.find(addr->var);
      return it == addressSlots_.end() ? nullptr : it->second;
    }
    return addr->kind == ir::ExprKind::LocalAddr ? addr->slot : nullptr;
  }

  Expr *load(Expr *addr, Type t, AddrSpace space, fe::SourceLoc loc) {
    Expr *e = node(ir::ExprKind::Load, t);
    e->ops = {addr};
    e->space = space;
    if (space == AddrSpace::Local)
      e->slot = rootSlot(addr);
    std::string what = "load " + t.str() + " " + fe::addrSpaceName(space);
    if (e->slot)
      what += " '" + e->slot->name + "'";
    e->site = m_.addSite(SiteKind::Load, loc, what);
    return e;
  }
  void store(Expr *addr, Expr *value, AddrSpace space, fe::SourceLoc loc) {
    Stmt *s = emit(ir::StmtKind::Store, loc);
    s->addr = addr;
    s->value = value;
    s->space = space;
    if (space == AddrSpace::Local)
      s->slot = rootSlot(addr);
    s->site = m_.addSite(SiteKind::Store, loc,
                         "store " + value->type.str() + " " + fe::addrSpaceName(space) +
                             (s->slot ? " '" + s->slot->name + "'" : std::string()));
  }
  Expr *ptrAdd(Expr *p, Expr *byteOffset, Type resultType) {
    if (byteOffset->kind == ir::ExprKind::Const && byteOffset->intValue == 0 &&
        p->type == resultType)
      return p;
    Expr *e = node(ir::ExprKind::PtrAdd, resultType);
    e->ops = {p, cast(byteOffset, Type::i64(true))};
    return e;
  }
  Expr *scaled(Expr *index, uint64_t size) {
    index = cast(index, Type::i64(true));
    if (size == 1)
      return index;
    if (index->kind == ir::ExprKind::Const)
      return i64(index->intValue * static_cast<int64_t>(size));
    return bin(ir::BinaryOp::Mul, index, i64(static_cast<int64_t>(size)));
  }
  Expr *intrinsic(IntrinsicId id, Type t, std::vector<Expr *> ops) {
    Expr *e = node(ir::ExprKind::Intrinsic, t);
    e->intrinsic = id;
    e->ops = std::move(ops);
    return e;
  }

  // ---------------------------------------------------------------------------------------
  // Declarations
  // ---------------------------------------------------------------------------------------

  void globalVar(fe::VarDecl *v);

  bool constantInit(fe::Expr *e, const fe::Type *t, uint8_t *out);
  /// The value of a file-scope const scalar with a constant initialiser named by `e`, or null.
  Expr *fileScopeConstant(fe::Expr *e);
  /// A pointer initialised with an address known only at run time: a string literal, `&v` or
  /// an array `v` of file scope. Records a GlobalReloc in initGlobal_; false if `e` is none.
  bool addressInit(fe::Expr *e, uint8_t *out);
  /// A texture reference's device twin, and the host object's defaults (lower_texref.cpp).
  GlobalVar *textureReferenceTwin(GlobalVar *host, const fe::Type *t);
  /// The program's own definition of the library function a built-in call names, if any.
  fe::FunctionDecl *ownLibraryFunction(fe::Expr *call);
  std::map<std::string, fe::FunctionDecl *> ownLibrary_; // filled at the first built-in call
  bool ownLibraryKnown_ = false;
  GlobalVar *initGlobal_ = nullptr; // the global whose initialiser constantInit is reading
  /// Host variables of file scope whose initialisers are not constants (`int a = f();`,
  /// `S s(args);`): C++'s dynamic initialisation, run in declaration order when main starts.
  std::vector<std::pair<fe::VarDecl *, GlobalVar *>> dynamicInits_;
  void runDynamicInits();

  Function *newFunction(fe::FunctionDecl *f, FunctionKind kind);

  void declare(fe::FunctionDecl *f);

  void body(fe::FunctionDecl *f, Function *fn);

  /// A host call's arguments from `from` on, packed for a variadic callee (lower_calls.cpp).
  void packVariadic(std::vector<Expr *> &args, size_t from, fe::SourceLoc loc);
  /// A variadic host function's two hidden parameters, after its own (lower_calls.cpp).
  void variadicParams(fe::FunctionDecl *f);
  LocalSlot *newSlot(const std::string &name, const fe::Type *t) {
    LocalSlot *s = m_.make<LocalSlot>();
    s->id = static_cast<uint32_t>(F->slots.size());
    s->name = name;
    s->size = std::max<uint64_t>(t->size(), 1);
    s->align = std::max<uint64_t>(t->align(), 1);
    F->slots.push_back(s);
    return s;
  }
  AddrSpace slotSpace() const { return device_ ? AddrSpace::Local : AddrSpace::Host; }
  Expr *slotAddr(LocalSlot *s) {
    Expr *e = node(ir::ExprKind::LocalAddr, Type::ptr(slotSpace()));
    e->slot = s;
    return e;
  }

  // ---------------------------------------------------------------------------------------
  // Statements
  // ---------------------------------------------------------------------------------------

  void stmt(fe::Stmt *s);

  void loopBody(Stmt *loop, fe::Stmt *body);

  // ---- variable-length arrays, host code only (lower_vla.cpp) ----

  /// The evaluated bound (an i64 variable) of each variable-length array type of the function.
  std::map<const fe::Type *, Var *> vlaBounds_;
  /// The stack positions saved at the start of each open scope that declares a VLA.
  std::vector<Var *> vlaScopes_;
  /// The enclosing loops and switches, innermost last: what break (any) and continue (loops)
  /// leave, with the number of VLA scopes open where its body starts.
  struct JumpTarget {
    bool isLoop = true;
    size_t vlaDepth = 0;
  };
  std::vector<JumpTarget> jumpTargets_;

  // goto (ir/lower_goto.cpp): a flag per targeted label, the loop depth of each label's list,
  // the labels that gotos jump forward to in the list being lowered, the labels whose gotos
  // break out of the loop being lowered (per open loop), and the open goto loops.
  struct GotoUnit;
  struct GotoLoop {
    int depth = 0;
    std::vector<fe::Stmt *> labels;
    Var *breakFlag = nullptr, *continueFlag = nullptr;
    fe::Stmt *breakStmt = nullptr, *continueStmt = nullptr;
  };
  std::map<fe::Stmt *, Var *> gotoFlags_;
  std::map<fe::Stmt *, int> labelDepth_;
  int loopDepth_ = 0;
  std::vector<fe::Stmt *> pending_, brokenGotos_;
  std::vector<std::vector<fe::Stmt *>> loopEscapes_;
  std::vector<GotoLoop> gotoLoops_;
  void resetGotos();
  Var *gotoFlag(fe::Stmt *label);
  int gotoDepth(fe::Stmt *label) const;
  Expr *anyFlag(const std::vector<fe::Stmt *> &labels);
  /// A block's statements (or a branch's or body's one statement), with its labels and gotos.
  void stmtList(const std::vector<fe::Stmt *> &items);
  void gotoUnits(const std::vector<fe::Stmt *> &items, const std::vector<GotoUnit> &units,
                 size_t from, size_t to);
  void gotoLoop(const std::vector<fe::Stmt *> &items, const GotoUnit &unit);
  /// break or continue directly in a goto loop: leaves it and is done again after it.
  bool jumpOutOfGotoLoop(fe::Stmt *s);
  void gotoStmt(fe::Stmt *s);
  /// Around every loop (and a switch's one-trip loop): gotos that break out of it.
  void beginLoopBody();
  void endLoopBody();
  void finishLoop(fe::SourceLoc loc);
  /// The labels of a switch's body, and one statement of it (after its case labels).
  void switchLabels(const std::vector<fe::Stmt *> &flat);
  void switchItem(fe::Stmt *s);

  /// Evaluates the bounds of the variable-length arrays in `t` (through arrays and pointers),
  /// as C does when a declaration, cast or sizeof of the type runs.
  void evaluateBounds(const fe::Type *t, fe::SourceLoc loc);
  Expr *vlaBound(const fe::Type *t);
  /// sizeof(t) as an i64: a constant, or computed from evaluated VLA bounds.
  Expr *sizeOf(const fe::Type *t);
  /// index * sizeof(elem): the byte offset of element `index`.
  Expr *scaledBy(Expr *index, const fe::Type *elem);
  /// Does one of `stmts` (a scope's own statements) declare a variable-length array?
  static bool declaresVla(const std::vector<fe::Stmt *> &stmts);
  void openVlaScope(fe::SourceLoc loc);
  void closeVlaScope(fe::SourceLoc loc);
  /// Gives back the stack of the VLA scopes from `depth` (an index into vlaScopes_) inwards.
  void restoreStack(size_t depth, fe::SourceLoc loc);
  /// Before a break or continue: gives back the VLAs of the scopes it leaves.
  void leaveScopesFor(bool isContinue, fe::SourceLoc loc);
  /// The statements of one scope, which gives back the VLAs it declares when it ends.
  void scopedStmts(const std::vector<fe::Stmt *> &stmts, fe::SourceLoc loc);
  /// A local variable whose size is known only at run time: stack memory taken now.
  void vlaLocal(fe::VarDecl *v);

  Block *region(const std::function<void()> &fn) {
    Block *saved = cur_;
    Block *b = newBlock();
    cur_ = b;
    fn();
    cur_ = saved;
    return b;
  }

  /// switch: a one-trip loop (so `break` works) whose case sections run under
  /// `matched |= (value == case)`, which gives C's fall-through per lane.
  void switchStmt(fe::Stmt *s);

  static bool hasContinue(fe::Stmt *s) {
    if (!s)
      return false;
    switch (s->kind) {
    case StmtKind::Continue:
      return true;
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::DoWhile:
    case StmtKind::Switch:
      return false;
    case StmtKind::Compound:
      for (auto *c : s->body)
        if (hasContinue(c))
          return true;
      return false;
    case StmtKind::If:
      return hasContinue(s->then) || hasContinue(s->elseStmt);
    default:
      return hasContinue(s->then);
    }
  }

  Expr *unaryNot(Expr *b) {
    Expr *e = node(ir::ExprKind::Unary, Type::boolTy());
    e->unaryOp = ir::UnaryOp::LogNot;
    e->ops = {b};
    return e;
  }

  Expr *cond(fe::Expr *e) { return toBool(rvalue(e)); }

  void localVar(fe::VarDecl *v);

  /// Stores initializer `init` for an object of type `t` at `addr`.
  void initMemory(Expr *addr, AddrSpace space, const fe::Type *t, fe::Expr *init, fe::SourceLoc loc,
                  bool zeroRest);

  /// Zero-initialises (C's rule for the members an initializer list leaves out); a dim3 in it
  /// is value-initialised by its constructor to (1, 1, 1).
  void zeroMemory(Expr *addr, AddrSpace space, const fe::Type *t, fe::SourceLoc loc);

  /// dim3's constructor defaults every component to 1 (CUDA's vector_types.h:
  /// `dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1)`), so a dim3 that no initialiser
  /// names, alone or in an array or struct, is (1, 1, 1) where a C object would be zero or
  /// indeterminate (simpleMultiCopy launches with a file-scope `dim3 grid;` never assigned in z).
  bool hasDim3(const fe::Type *t);
  /// The default-constructed dim3 components of an object of type `t`, in its initial bytes.
  void dim3Defaults(const fe::Type *t, uint8_t *out);
  /// Stores the default-constructed dim3 components of the object of type `t` at `addr`.
  void constructDefaults(Expr *addr, AddrSpace space, const fe::Type *t, fe::SourceLoc loc);

  /// Copies a struct member by member (scalar leaves).
  /// Emits `for (i = 0; i < count; ++i) body(byteOffset)`: large arrays are copied or zeroed
  /// by a loop, not unrolled (a 4 KB struct would otherwise be thousands of statements).
  void elementLoop(uint64_t count, uint64_t elemSize, fe::SourceLoc loc,
                   const std::function<void(Expr *offset)> &body) {
    elementLoop(i64(static_cast<int64_t>(count)), elemSize, loc, body);
  }
  void elementLoop(Expr *count, uint64_t elemSize, fe::SourceLoc loc,
                   const std::function<void(Expr *offset)> &body);

  static constexpr uint64_t kUnrollLimit = 16;

  /// A union, or a struct whose members `#pragma pack` placed below their alignment: copied
  /// and zeroed as bytes, in pieces of its own alignment (as nvcc moves one), since its
  /// members overlap or would be misaligned accesses.
  static bool movedAsBytes(const fe::Type *t) {
    return t->isStruct() && (t->record->isUnion || t->record->packed);
  }
  /// Copies (src non-null) or zeroes the bytes [begin, end) of an object at dst, in the widest
  /// pieces that `align` (the object's alignment) and the offsets allow.
  void moveBytes(Expr *dst, AddrSpace dspace, Expr *src, AddrSpace sspace, uint64_t begin,
                 uint64_t end, uint64_t align, fe::SourceLoc loc);

  void copyStruct(Expr *dst, AddrSpace dspace, Expr *src, AddrSpace sspace, const fe::Type *t,
                  fe::SourceLoc loc);

  // ---------------------------------------------------------------------------------------
  // Expressions
  // ---------------------------------------------------------------------------------------

  /// Evaluates `e` for its side effects only.
  void effect(fe::Expr *e);

  /// Storage of a variable reference.
  Storage *storageOf(fe::Expr *e);

  /// The lvalue designated by `e`.
  LValue lvalue(fe::Expr *e);

  /// The address of a struct-typed value (an lvalue, or a temporary for constructed values).
  LValue structValue(fe::Expr *e);

  /// dim3(...)/uint3(...) (missing components are 1) or make_<vector>(...).
  LValue construct(fe::Expr *e);

  LValue constructDim3(const std::vector<fe::Expr *> &args, fe::SourceLoc loc);

  Expr *builtinComponent(int object, int d);

  Expr *readLValue(const LValue &lv, fe::SourceLoc loc);
  /// Device code reads and writes a scalar whose address is aligned below its size (a packed
  /// member) in pieces of that alignment, as nvcc does, little-endian: one misaligned access
  /// would fault.
  Expr *loadInPieces(const LValue &lv, fe::SourceLoc loc);
  void storeInPieces(const LValue &lv, Expr *v, fe::SourceLoc loc);
  /// memcpy and memset in device code (a constant size): loads and stores.
  Expr *deviceMemoryCopy(fe::Expr *e, bool isSet);

  void writeLValue(const LValue &lv, Expr *v, fe::SourceLoc loc);

  /// Makes an lvalue's address safe to use twice (read-modify-write).
  LValue stable(LValue lv, fe::SourceLoc loc);

  /// Is `e` free of side effects and memory reads (safe to evaluate for every lane)?
  bool isPure(fe::Expr *e);

  /// Does `e` have side effects (writes, calls with effects)? Loads alone are not effects.
  bool hasEffects(fe::Expr *e);

  static bool intrinsicByName(const std::string &n, IntrinsicId &out) {
    static const std::map<std::string, IntrinsicId> table = [] {
      std::map<std::string, IntrinsicId> m;
#define KERN_INTRINSIC(Id, spelling, kind) m[spelling] = IntrinsicId::Id;
#include "ir/intrinsics.def"
#undef KERN_INTRINSIC
      return m;
    }();
    auto it = table.find(n);
    if (it == table.end())
      return false;
    out = it->second;
    return true;
  }

  ir::BinaryOp irBinary(BinaryOp op);

  /// a op b for arithmetic operands of one type (or pointer +- integer).
  Expr *arith(ir::BinaryOp op, Expr *a, Expr *b, const fe::Type *resultType);

  Expr *neg(Expr *x);

  Expr *one(Type t) { return t.isFloat() ? constFloat(t, 1.0) : constInt(t, 1); }

  /// The value of `e` (emitting its side effects as statements first).
  Expr *rvalue(fe::Expr *e);

  Expr *unary(fe::Expr *e);

  Expr *binary(fe::Expr *e);

  /// Integer division can fault (by zero): give it a site so the fault names its line.
  Expr *withDivSite(Expr *x, fe::SourceLoc loc);

  Expr *conditional(fe::Expr *e);

  /// GNU `({ ... })`: runs the statements, then yields a copy of the last expression's value
  /// (for a struct, the address of the copy; for void, a dummy 0).
  Expr *stmtExpr(fe::Expr *e);

  // ---- calls ----
  Expr *call(fe::Expr *e);

  Expr *builtinCall(fe::Expr *e);
  /// The CUDA Math API calls that lower_math.cpp handles: sets `out` and returns true.
  bool mathBuiltin(fe::Expr *e, const std::string &n, Expr *&out);

  void dimComponents(fe::Expr *c, Expr *out[3]);

  void launch(fe::Expr *e);

  /// The index of a kernel in Module::kernels() order (the runtime's numbering).
  int64_t kernelIndex(fe::FunctionDecl *fd);
  /// The index of the kernel that a pointer's value names (a function pointer value, see
  /// functionPointerValue), found at run time; 0xffffffff when it names no kernel.
  Expr *kernelIndexOf(fe::Expr *pointer, fe::SourceLoc loc);

  /// A kernel uses barriers if it or any device function it calls does.
  void propagateBarriers();

  bool callsBarrierFunction(Block *b);

  bool exprCallsBarrier(Expr *e);
};

} // namespace kern::ir::lower_detail
