// AST -> Kern IR. C's expressions become side-effect statements plus pure expression trees;
// control flow stays structured; every memory operation and branch gets a SiteId.
#include "ir/lower.h"

#include "frontend/sema.h"

#include <cassert>
#include <cstring>
#include <functional>
#include <map>
#include <set>

namespace kern::ir {

namespace fe = kern::frontend;

namespace {

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
};

/// Per-declaration storage.
struct Storage {
  Var *var = nullptr;           // a register variable
  Var *byRef = nullptr;         // a variable holding the object's address (struct parameters)
  LocalSlot *slot = nullptr;    // per-thread memory
  GlobalVar *global = nullptr;  // file-scope variable
  int64_t sharedOffset = -1;    // __shared__ variable: byte offset
  bool dynamicShared = false;   // extern __shared__
};

class Lowerer {
public:
  Lowerer(fe::TranslationUnit &tu, fe::TypeContext &types, fe::DiagnosticEngine &diags,
          Module &m)
      : tu_(tu), types_(types), diags_(diags), m_(m) {}

  void run() {
    // Declare every function first so calls can refer to later definitions.
    for (fe::Decl *d : tu_.decls) {
      if (auto *v = dynamic_cast<fe::VarDecl *>(d))
        globalVar(v);
      if (auto *f = dynamic_cast<fe::FunctionDecl *>(d))
        if (f->body && f->definition == f)
          declare(f);
    }
    // Bodies in source order, so site and variable numbering is deterministic.
    for (fe::Decl *d : tu_.decls)
      if (auto *f = dynamic_cast<fe::FunctionDecl *>(d))
        if (f->body && f->definition == f)
          for (Function *fn : {functions_[f].device, functions_[f].host})
            if (fn)
              body(f, fn);
    propagateBarriers();
  }

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

  // Per function being lowered
  Function *F = nullptr;
  bool device_ = false;
  Block *cur_ = nullptr;
  std::map<fe::VarDecl *, Storage> locals_;
  std::vector<Expr *> dynamicSharedRefs_;
  Var *sret_ = nullptr; // the hidden result pointer of a function returning a struct
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
      int64_t v = e->intValue;
      unsigned bits = t.bits();
      if (bits < 64) {
        uint64_t mask = (uint64_t(1) << bits) - 1;
        uint64_t u = static_cast<uint64_t>(v) & mask;
        if (t.isSigned && (u >> (bits - 1)))
          u |= ~mask;
        v = static_cast<int64_t>(u);
      }
      return constInt(t, v);
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

  void globalVar(fe::VarDecl *v) {
    if (!v->type || globals_.count(v))
      return;
    if (v->quals.isExtern && !v->init) {
      // A declaration only; the definition (if any) comes separately.
      bool defined = false;
      for (fe::Decl *d : tu_.decls)
        if (d != v && d->name == v->name && dynamic_cast<fe::VarDecl *>(d) &&
            !d->quals.isExtern)
          defined = true;
      if (defined)
        return;
    }
    if (v->quals.shared) {
      error(v->loc, "file-scope '__shared__' variables are not supported yet");
      return;
    }
    GlobalVar *g = m_.make<GlobalVar>();
    g->id = static_cast<uint32_t>(m_.globals.size());
    g->name = v->name;
    g->space = v->quals.constant ? AddrSpace::Constant
               : v->quals.device ? AddrSpace::Global
                                 : AddrSpace::Host;
    g->size = v->type->size();
    g->align = std::max<uint64_t>(v->type->align(), 1);
    if (v->init) {
      g->init.assign(g->size, 0);
      if (!constantInit(v->init, v->type, g->init.data()))
        error(v->init->loc, "initializer of a file-scope variable must be a constant");
    }
    m_.globals.push_back(g);
    Storage st;
    st.global = g;
    globals_[v] = st;
    // Every declaration of the same name shares the storage.
    for (fe::Decl *d : tu_.decls)
      if (auto *o = dynamic_cast<fe::VarDecl *>(d))
        if (o != v && o->name == v->name)
          globals_[o] = st;
  }

  bool constantInit(fe::Expr *e, const fe::Type *t, uint8_t *out) {
    if (e->kind == ExprKind::InitList) {
      if (t->isArray()) {
        for (size_t i = 0; i < e->operands.size(); ++i)
          if (!constantInit(e->operands[i], t->elem, out + i * t->elem->size()))
            return false;
        return true;
      }
      if (t->isStruct()) {
        for (size_t i = 0; i < e->operands.size(); ++i)
          if (!constantInit(e->operands[i], t->record->fields[i].type,
                            out + t->record->fields[i].offset))
            return false;
        return true;
      }
      return e->operands.size() == 1 && constantInit(e->operands[0], t, out);
    }
    if (t->isArray() && e->kind == ExprKind::StringLit) {
      std::memcpy(out, e->stringValue.data(), std::min<size_t>(e->stringValue.size(), t->size()));
      return true;
    }
    double fv;
    int64_t iv;
    bool isFloat;
    if (!evalArith(e, iv, fv, isFloat))
      return false;
    if (t->isFloating()) {
      double d = isFloat ? fv : static_cast<double>(iv);
      if (t->kind == TypeKind::Float) {
        float f = static_cast<float>(d);
        std::memcpy(out, &f, 4);
      } else
        std::memcpy(out, &d, 8);
      return true;
    }
    if (t->isInteger()) {
      int64_t v = isFloat ? static_cast<int64_t>(fv) : iv;
      if (t->isBool())
        v = v != 0;
      std::memcpy(out, &v, t->size()); // little-endian
      return true;
    }
    if (t->isPointer() && !isFloat && iv == 0)
      return true;
    return false;
  }

  bool evalArith(fe::Expr *e, int64_t &iv, double &fv, bool &isFloat) {
    switch (e->kind) {
    case ExprKind::IntLit:
    case ExprKind::CharLit:
      iv = static_cast<int64_t>(e->intValue);
      isFloat = false;
      return true;
    case ExprKind::FloatLit:
      fv = e->floatValue;
      isFloat = true;
      return true;
    case ExprKind::Ident:
      if (e->isEnumConst) {
        iv = e->enumValue;
        isFloat = false;
        return true;
      }
      return false;
    case ExprKind::SizeofExpr:
    case ExprKind::SizeofType:
      iv = static_cast<int64_t>(e->intValue);
      isFloat = false;
      return true;
    case ExprKind::Cast: {
      if (!evalArith(e->operands[0], iv, fv, isFloat))
        return false;
      if (e->type->isFloating() && !isFloat) {
        fv = static_cast<double>(iv);
        isFloat = true;
      } else if (e->type->isInteger() && isFloat) {
        iv = static_cast<int64_t>(fv);
        isFloat = false;
      }
      if (e->type->kind == TypeKind::Float)
        fv = static_cast<float>(fv);
      return true;
    }
    case ExprKind::Unary: {
      if (!evalArith(e->operands[0], iv, fv, isFloat))
        return false;
      if (e->unaryOp == UnaryOp::Minus) {
        iv = -iv;
        fv = -fv;
        return true;
      }
      if (e->unaryOp == UnaryOp::Plus)
        return true;
      if (e->unaryOp == UnaryOp::BitNot && !isFloat) {
        iv = ~iv;
        return true;
      }
      return false;
    }
    case ExprKind::Binary: {
      int64_t a, b;
      double fa, fb;
      bool af, bf;
      if (!evalArith(e->operands[0], a, fa, af) || !evalArith(e->operands[1], b, fb, bf))
        return false;
      if (af || bf) {
        if (!af)
          fa = static_cast<double>(a);
        if (!bf)
          fb = static_cast<double>(b);
        isFloat = true;
        switch (e->binaryOp) {
        case BinaryOp::Add: fv = fa + fb; return true;
        case BinaryOp::Sub: fv = fa - fb; return true;
        case BinaryOp::Mul: fv = fa * fb; return true;
        case BinaryOp::Div: fv = fa / fb; return true;
        default: return false;
        }
      }
      isFloat = false;
      switch (e->binaryOp) {
      case BinaryOp::Add: iv = a + b; return true;
      case BinaryOp::Sub: iv = a - b; return true;
      case BinaryOp::Mul: iv = a * b; return true;
      case BinaryOp::Div: if (!b) return false; iv = a / b; return true;
      case BinaryOp::Rem: if (!b) return false; iv = a % b; return true;
      case BinaryOp::Shl: iv = a << (b & 63); return true;
      case BinaryOp::Shr: iv = a >> (b & 63); return true;
      case BinaryOp::BitAnd: iv = a & b; return true;
      case BinaryOp::BitOr: iv = a | b; return true;
      case BinaryOp::BitXor: iv = a ^ b; return true;
      default: return false;
      }
    }
    default:
      return false;
    }
  }

  Function *newFunction(fe::FunctionDecl *f, FunctionKind kind) {
    Function *F = m_.make<Function>();
    F->name = f->name;
    F->kind = kind;
    F->loc = f->loc;
    device_ = kind != FunctionKind::Host;
    // A struct result goes through a hidden pointer parameter (see body()).
    F->returnType = f->type->elem->isStruct() ? Type::voidTy() : irType(f->type->elem);
    F->isMain = kind == FunctionKind::Host && f->name == "main";
    F->launchBoundsMaxThreads = f->quals.launchBoundsMaxThreads;
    F->mainTakesArgs = F->isMain && !f->params.empty();
    m_.functions.push_back(F);
    return F;
  }

  void declare(fe::FunctionDecl *f) {
    Fns fns;
    if (f->quals.global) {
      fns.device = newFunction(f, FunctionKind::Kernel);
    } else {
      if (f->quals.device)
        fns.device = newFunction(f, FunctionKind::Device);
      if (!f->quals.device || f->quals.host)
        fns.host = newFunction(f, FunctionKind::Host);
    }
    functions_[f] = fns;
    // Prototypes refer to the same definition.
    for (fe::Decl *d : tu_.decls)
      if (auto *o = dynamic_cast<fe::FunctionDecl *>(d))
        if (o != f && o->name == f->name)
          functions_[o] = fns;
  }

  void body(fe::FunctionDecl *f, Function *fn) {
    if (functions_[f].host != fn && functions_[f].device != fn)
      return;
    if (f->definition != f)
      return; // a prototype sharing the definition's Fns
    F = fn;
    device_ = fn->kind != FunctionKind::Host;
    locals_.clear();
    dynamicSharedRefs_.clear();
    nextVarId_ = 0;
    F->body = newBlock();
    cur_ = F->body;
    uint32_t offset = 0;
    sret_ = nullptr;
    if (f->type->elem->isStruct()) {
      // A struct result is written through a hidden first parameter: the caller's slot.
      sret_ = newVar("sret", Type::ptr(slotSpace()));
      sret_->isParam = true;
      F->params.push_back(sret_);
    }
    for (fe::VarDecl *p : f->params) {
      Type t = irType(p->type);
      if (p->type->isStruct()) {
        // Structs by value. A kernel reads its copy from the parameter buffer into a local
        // slot (a kernel may modify its parameter; the buffer is shared by every thread).
        // A device or host function receives the address of a copy its caller made.
        Var *v = newVar(p->name.empty() ? "arg" : p->name, Type::ptr(slotSpace()));
        v->isParam = true;
        F->params.push_back(v);
        Storage st;
        if (F->kind == FunctionKind::Kernel) {
          uint32_t a = static_cast<uint32_t>(p->type->align());
          offset = (offset + a - 1) / a * a;
          F->paramOffsets.push_back(offset);
          v->aggregateBytes = static_cast<uint32_t>(p->type->size());
          st.slot = newSlot(p->name, p->type);
          Expr *src = node(ir::ExprKind::ParamAddr, Type::ptr(AddrSpace::Local));
          src->intValue = offset;
          copyStruct(slotAddr(st.slot), slotSpace(), src, AddrSpace::Local, p->type, p->loc);
          offset += static_cast<uint32_t>(p->type->size());
        } else {
          st.byRef = v;
        }
        locals_[p] = st;
        continue;
      }
      Var *v = newVar(p->name.empty() ? "arg" : p->name, t);
      v->isParam = true;
      F->params.push_back(v);
      if (F->kind == FunctionKind::Kernel) {
        uint32_t a = t.bytes();
        offset = (offset + a - 1) / a * a;
        F->paramOffsets.push_back(offset);
        offset += a;
      }
      if (p->addressTaken) {
        // The parameter lives in memory: copy it there on entry.
        Storage st;
        st.slot = newSlot(p->name, p->type);
        store(slotAddr(st.slot), ref(v), slotSpace(), p->loc);
        locals_[p] = st;
      } else {
        Storage st;
        st.var = v;
        locals_[p] = st;
      }
    }
    F->paramBytes = offset;
    for (fe::Stmt *s : f->body->body)
      stmt(s);
    uint64_t dyn = (F->staticSharedBytes + 15) / 16 * 16;
    for (Expr *e : dynamicSharedRefs_)
      e->intValue = static_cast<int64_t>(dyn);
  }

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

  void stmt(fe::Stmt *s) {
    if (!s)
      return;
    switch (s->kind) {
    case StmtKind::Compound:
      for (fe::Stmt *c : s->body)
        stmt(c);
      return;
    case StmtKind::Decl:
      for (fe::Decl *d : s->decls)
        if (auto *v = dynamic_cast<fe::VarDecl *>(d))
          localVar(v);
      return;
    case StmtKind::Expr:
      if (s->expr)
        effect(s->expr);
      return;
    case StmtKind::If: {
      Expr *c = cond(s->cond);
      Stmt *st = emit(ir::StmtKind::If, s->loc);
      st->cond = c;
      st->site = m_.addSite(SiteKind::Branch, s->loc, "if");
      st->thenBody = region([&] { stmt(s->then); });
      if (s->elseStmt)
        st->elseBody = region([&] { stmt(s->elseStmt); });
      return;
    }
    case StmtKind::For: {
      if (s->init)
        stmt(s->init);
      Stmt *st = m_.make<Stmt>(ir::StmtKind::Loop);
      st->loc = s->loc;
      st->site = m_.addSite(SiteKind::Loop, s->loc, "for");
      st->testFirst = true;
      st->preCond = region([&] {
        if (s->cond)
          st->cond = cond(s->cond);
      });
      loopBody(st, s->then);
      st->step = region([&] {
        if (s->step)
          effect(s->step);
      });
      cur_->stmts.push_back(st);
      return;
    }
    case StmtKind::While: {
      Stmt *st = m_.make<Stmt>(ir::StmtKind::Loop);
      st->loc = s->loc;
      st->site = m_.addSite(SiteKind::Loop, s->loc, "while");
      st->testFirst = true;
      st->preCond = region([&] { st->cond = cond(s->cond); });
      loopBody(st, s->then);
      cur_->stmts.push_back(st);
      return;
    }
    case StmtKind::DoWhile: {
      Stmt *st = m_.make<Stmt>(ir::StmtKind::Loop);
      st->loc = s->loc;
      st->site = m_.addSite(SiteKind::Loop, s->loc, "do-while");
      st->testFirst = false;
      loopBody(st, s->then);
      // The condition's side effects run after the body (and after `continue`).
      st->step = region([&] { st->cond = cond(s->cond); });
      cur_->stmts.push_back(st);
      return;
    }
    case StmtKind::Switch:
      switchStmt(s);
      return;
    case StmtKind::Case:
    case StmtKind::Default:
      // Labels are handled by switchStmt; a label's own statement follows.
      if (s->then)
        stmt(s->then);
      return;
    case StmtKind::Break:
      emit(ir::StmtKind::Break, s->loc);
      return;
    case StmtKind::Continue:
      if (!switchContinueFlags_.empty() && loopDepthInSwitch_ == 0) {
        // `continue` inside a switch: leave the switch's one-trip loop, then continue.
        assign(switchContinueFlags_.back(), constInt(Type::boolTy(), 1), s->loc);
        emit(ir::StmtKind::Break, s->loc);
        return;
      }
      emit(ir::StmtKind::Continue, s->loc);
      return;
    case StmtKind::Return: {
      Stmt *r = m_.make<Stmt>(ir::StmtKind::Return);
      r->loc = s->loc;
      if (s->expr && sret_) {
        LValue src = structValue(s->expr);
        copyStruct(ref(sret_), slotSpace(), src.addr, src.space, s->expr->type, s->loc);
      } else if (s->expr) {
        if (F->returnType.isVoid())
          effect(s->expr);
        else
          r->value = cast(rvalue(s->expr), F->returnType);
      } else if (F->isMain) {
        r->value = constInt(Type::i32(true), 0);
      }
      cur_->stmts.push_back(r);
      return;
    }
    case StmtKind::Label:
      stmt(s->then);
      return;
    default:
      return; // goto and pragmas: rejected or ignored by sema
    }
  }

  void loopBody(Stmt *loop, fe::Stmt *body) {
    int saved = loopDepthInSwitch_;
    loopDepthInSwitch_ = switchContinueFlags_.empty() ? 0 : loopDepthInSwitch_ + 1;
    loop->body = region([&] { stmt(body); });
    loopDepthInSwitch_ = saved;
  }

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
  void switchStmt(fe::Stmt *s) {
    Expr *v = snapshot(rvalue(s->cond), "switch.value", s->loc);
    // Gather the labels of this switch (not of nested switches).
    std::vector<fe::Stmt *> labels;
    std::function<void(fe::Stmt *)> gather = [&](fe::Stmt *x) {
      if (!x || x->kind == StmtKind::Switch)
        return;
      if (x->kind == StmtKind::Case || x->kind == StmtKind::Default)
        labels.push_back(x);
      if (x->kind == StmtKind::Compound)
        for (auto *c : x->body)
          gather(c);
      if (x->kind == StmtKind::Case || x->kind == StmtKind::Default)
        gather(x->then);
    };
    gather(s->then);
    Var *matched = newVar("switch.matched", Type::boolTy());
    assign(matched, constInt(Type::boolTy(), 0), s->loc);
    Expr *anyCase = constInt(Type::boolTy(), 0);
    for (auto *l : labels)
      if (l->kind == StmtKind::Case)
        anyCase = bin(ir::BinaryOp::Or, anyCase,
                      bin(ir::BinaryOp::Eq, v, constInt(v->type, static_cast<int64_t>(l->caseValue->intValue))));
    Var *isDefault = newVar("switch.default", Type::boolTy());
    assign(isDefault, unaryNot(anyCase), s->loc);
    Var *contFlag = newVar("switch.continue", Type::boolTy());
    assign(contFlag, constInt(Type::boolTy(), 0), s->loc);

    Stmt *loop = m_.make<Stmt>(ir::StmtKind::Loop);
    loop->loc = s->loc;
    loop->site = 0; // the one-trip loop is not a branch of the source
    loop->testFirst = true;
    switchContinueFlags_.push_back(contFlag);
    int savedDepth = loopDepthInSwitch_;
    loopDepthInSwitch_ = 0;
    SiteId site = m_.addSite(SiteKind::Branch, s->loc, "switch");
    loop->body = region([&] {
      // Walk the body's statements in order; each label opens a guarded section.
      std::vector<fe::Stmt *> flat;
      if (s->then && s->then->kind == StmtKind::Compound)
        flat = s->then->body;
      else if (s->then)
        flat = {s->then};
      Block *section = nullptr;
      for (fe::Stmt *x : flat) {
        fe::Stmt *inner = x;
        while (inner && (inner->kind == StmtKind::Case || inner->kind == StmtKind::Default)) {
          Expr *hit = inner->kind == StmtKind::Default
                          ? ref(isDefault)
                          : bin(ir::BinaryOp::Eq, v,
                                constInt(v->type, static_cast<int64_t>(inner->caseValue->intValue)));
          assign(matched, bin(ir::BinaryOp::Or, ref(matched), hit), inner->loc);
          Stmt *g = emit(ir::StmtKind::If, inner->loc);
          g->cond = ref(matched);
          g->site = site;
          g->thenBody = newBlock();
          section = g->thenBody;
          inner = inner->then;
        }
        if (!inner)
          continue;
        if (!section) {
          continue; // statements before the first label never run
        }
        Block *saved = cur_;
        cur_ = section;
        stmt(inner);
        cur_ = saved;
      }
      emit(ir::StmtKind::Break, s->loc);
    });
    loopDepthInSwitch_ = savedDepth;
    switchContinueFlags_.pop_back();
    cur_->stmts.push_back(loop);
    // Lanes that hit `continue` inside the switch continue the enclosing loop.
    if (hasContinue(s->then)) {
      Stmt *c = emit(ir::StmtKind::If, s->loc);
      c->cond = ref(contFlag);
      c->isBranch = false;
      c->thenBody = newBlock();
      Stmt *cont = m_.make<Stmt>(ir::StmtKind::Continue);
      cont->loc = s->loc;
      c->thenBody->stmts.push_back(cont);
    }
  }

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

  void localVar(fe::VarDecl *v) {
    if (!v->type)
      return;
    Storage st;
    const fe::Type *t = v->type;
    if (v->quals.shared) {
      if (F->kind != FunctionKind::Kernel) {
        error(v->loc, "'__shared__' variables in __device__ functions are not supported yet");
        return;
      }
      if (v->quals.isExtern) {
        st.dynamicShared = true;
      } else {
        uint64_t a = std::max<uint64_t>(t->align(), 4);
        uint64_t off = (F->staticSharedBytes + a - 1) / a * a;
        st.sharedOffset = static_cast<int64_t>(off);
        F->staticSharedBytes = off + t->size();
      }
      locals_[v] = st;
      return;
    }
    if (t->isScalar() && !v->addressTaken) {
      st.var = newVar(v->name, irType(t));
      locals_[v] = st;
      if (v->init)
        assign(st.var, cast(rvalue(v->init), st.var->type), v->loc);
      return;
    }
    st.slot = newSlot(v->name, t);
    locals_[v] = st;
    if (v->init)
      initMemory(slotAddr(st.slot), slotSpace(), t, v->init, v->loc, true);
    else if (t == types_.dim3Ty()) // dim3's constructor defaults every component to 1
      for (int d = 0; d < 3; ++d)
        store(ptrAdd(slotAddr(st.slot), i64(4 * d), Type::ptr(slotSpace())),
              constInt(Type::i32(false), 1), slotSpace(), v->loc);
  }

  /// Stores initializer `init` for an object of type `t` at `addr`.
  void initMemory(Expr *addr, AddrSpace space, const fe::Type *t, fe::Expr *init,
                  fe::SourceLoc loc, bool zeroRest) {
    if (init->kind == ExprKind::InitList) {
      if (t->isArray()) {
        uint64_t given = std::min<uint64_t>(init->operands.size(), t->count);
        for (uint64_t i = 0; i < given; ++i) {
          Expr *ea = ptrAdd(addr, i64(static_cast<int64_t>(i * t->elem->size())), addr->type);
          initMemory(ea, space, t->elem, init->operands[i], loc, zeroRest);
        }
        if (zeroRest && given < t->count) {
          Expr *rest = ptrAdd(addr, i64(static_cast<int64_t>(given * t->elem->size())), addr->type);
          zeroMemory(rest, space, types_.arrayOf(t->elem, t->count - given), loc);
        }
        return;
      }
      if (t->isStruct()) {
        auto &fields = t->record->fields;
        for (size_t i = 0; i < fields.size(); ++i) {
          Expr *fa = ptrAdd(addr, i64(static_cast<int64_t>(fields[i].offset)), addr->type);
          if (i < init->operands.size())
            initMemory(fa, space, fields[i].type, init->operands[i], loc, zeroRest);
          else if (zeroRest)
            zeroMemory(fa, space, fields[i].type, loc);
        }
        return;
      }
      if (!init->operands.empty())
        initMemory(addr, space, t, init->operands[0], loc, zeroRest);
      return;
    }
    if (t->isArray() && init->kind == ExprKind::StringLit) {
      for (uint64_t i = 0; i < t->count; ++i) {
        char c = i < init->stringValue.size() ? init->stringValue[i] : 0;
        store(ptrAdd(addr, i64(static_cast<int64_t>(i)), addr->type), constInt(Type::i8(true), c),
              space, loc);
      }
      return;
    }
    if (t->isStruct()) {
      LValue src = structValue(init);
      copyStruct(addr, space, src.addr, src.space, t, loc);
      return;
    }
    store(addr, cast(rvalue(init), irType(t)), space, loc);
  }

  void zeroMemory(Expr *addr, AddrSpace space, const fe::Type *t, fe::SourceLoc loc) {
    if (t->isArray() && t->count > kUnrollLimit) {
      Expr *a = snapshot(addr, "zero.dst", loc);
      elementLoop(t->count, t->elem->size(), loc, [&](Expr *off) {
        zeroMemory(ptrAdd(a, off, a->type), space, t->elem, loc);
      });
      return;
    }
    if (t->isArray()) {
      for (uint64_t i = 0; i < t->count; ++i)
        zeroMemory(ptrAdd(addr, i64(static_cast<int64_t>(i * t->elem->size())), addr->type), space,
                   t->elem, loc);
      return;
    }
    if (t->isStruct()) {
      for (auto &f : t->record->fields)
        zeroMemory(ptrAdd(addr, i64(static_cast<int64_t>(f.offset)), addr->type), space, f.type,
                   loc);
      return;
    }
    Type it = irType(t);
    store(addr, it.isFloat() ? constFloat(it, 0) : constInt(it, 0), space, loc);
  }

  /// Copies a struct member by member (scalar leaves).
  /// Emits `for (i = 0; i < count; ++i) body(byteOffset)`: large arrays are copied or zeroed
  /// by a loop, not unrolled (a 4 KB struct would otherwise be thousands of statements).
  void elementLoop(uint64_t count, uint64_t elemSize, fe::SourceLoc loc,
                   const std::function<void(Expr *offset)> &body) {
    Var *i = newVar("elem", Type::i64(true));
    assign(i, i64(0), loc);
    Stmt *st = m_.make<Stmt>(ir::StmtKind::Loop);
    st->loc = loc;
    st->site = 0; // not a loop of the source: no branch is counted
    st->testFirst = true;
    st->cond = bin(ir::BinaryOp::Lt, ref(i), i64(static_cast<int64_t>(count)));
    st->body = region([&] { body(bin(ir::BinaryOp::Mul, ref(i), i64(static_cast<int64_t>(elemSize)))); });
    st->step = region([&] { assign(i, bin(ir::BinaryOp::Add, ref(i), i64(1)), loc); });
    cur_->stmts.push_back(st);
  }

  static constexpr uint64_t kUnrollLimit = 16;

  void copyStruct(Expr *dst, AddrSpace dspace, Expr *src, AddrSpace sspace, const fe::Type *t,
                  fe::SourceLoc loc) {
    if (t->isArray() && t->count > kUnrollLimit) {
      Expr *d = snapshot(dst, "copy.dst", loc), *s = snapshot(src, "copy.src", loc);
      elementLoop(t->count, t->elem->size(), loc, [&](Expr *off) {
        copyStruct(ptrAdd(d, off, d->type), dspace, ptrAdd(s, off, s->type), sspace, t->elem, loc);
      });
      return;
    }
    // A struct of 4, 8 or 16 bytes aligned to its size moves as one access of that size, as
    // nvcc emits it (a float4 is one 128-bit load): the counters must see one wide access.
    if (t->isStruct() && t->align() == t->size() &&
        (t->size() == 4 || t->size() == 8 || t->size() == 16)) {
      Type wide = t->size() == 4 ? Type::i32(false) : t->size() == 8 ? Type::i64(false) : Type::b128();
      store(dst, load(src, wide, sspace, loc), dspace, loc);
      return;
    }
    if (t->isArray()) {
      for (uint64_t i = 0; i < t->count; ++i) {
        int64_t off = static_cast<int64_t>(i * t->elem->size());
        copyStruct(ptrAdd(dst, i64(off), dst->type), dspace, ptrAdd(src, i64(off), src->type),
                   sspace, t->elem, loc);
      }
      return;
    }
    if (t->isStruct()) {
      for (auto &f : t->record->fields) {
        int64_t off = static_cast<int64_t>(f.offset);
        copyStruct(ptrAdd(dst, i64(off), dst->type), dspace, ptrAdd(src, i64(off), src->type),
                   sspace, f.type, loc);
      }
      return;
    }
    Type it = irType(t);
    store(dst, load(src, it, sspace, loc), dspace, loc);
  }

  // ---------------------------------------------------------------------------------------
  // Expressions
  // ---------------------------------------------------------------------------------------

  /// Evaluates `e` for its side effects only.
  void effect(fe::Expr *e) {
    if (e->kind == ExprKind::Binary && e->binaryOp == BinaryOp::Comma) {
      effect(e->operands[0]);
      effect(e->operands[1]);
      return;
    }
    if (e->kind == ExprKind::Cast && e->type->isVoid()) {
      effect(e->operands[0]);
      return;
    }
    Expr *v = rvalue(e);
    if (v && (v->kind == ir::ExprKind::Call || v->kind == ir::ExprKind::Intrinsic)) {
      Stmt *s = emit(ir::StmtKind::Eval, e->loc);
      s->value = v;
    }
  }

  /// Storage of a variable reference.
  Storage *storageOf(fe::Expr *e) {
    auto *v = dynamic_cast<fe::VarDecl *>(e->decl);
    if (!v)
      return nullptr;
    auto it = locals_.find(v);
    if (it != locals_.end())
      return &it->second;
    auto g = globals_.find(v);
    if (g != globals_.end())
      return &g->second;
    return nullptr;
  }

  /// The lvalue designated by `e`.
  LValue lvalue(fe::Expr *e) {
    LValue lv;
    lv.type = e->type;
    switch (e->kind) {
    case ExprKind::Ident: {
      Storage *st = storageOf(e);
      if (!st) {
        error(e->loc, "internal: no storage for '" + e->name + "'");
        lv.var = newVar("error", irType(e->type));
        return lv;
      }
      if (st->var) {
        lv.var = st->var;
        return lv;
      }
      if (st->byRef) {
        lv.addr = ref(st->byRef);
        lv.space = slotSpace();
        return lv;
      }
      if (st->slot) {
        lv.addr = slotAddr(st->slot);
        lv.space = slotSpace();
        return lv;
      }
      if (st->global) {
        Expr *a = node(ir::ExprKind::GlobalAddr, Type::ptr(st->global->space == AddrSpace::Host
                                                               ? AddrSpace::Host
                                                               : device_ ? st->global->space
                                                                         : AddrSpace::Host));
        a->global = st->global;
        lv.addr = a;
        lv.space = a->type.space;
        return lv;
      }
      Expr *a = node(ir::ExprKind::SharedAddr, Type::ptr(AddrSpace::Shared));
      a->intValue = st->sharedOffset;
      if (st->dynamicShared)
        dynamicSharedRefs_.push_back(a);
      lv.addr = a;
      lv.space = AddrSpace::Shared;
      return lv;
    }
    case ExprKind::Unary: {
      assert(e->unaryOp == UnaryOp::Deref);
      Expr *p = rvalue(e->operands[0]);
      lv.addr = p;
      lv.space = p->type.space;
      return lv;
    }
    case ExprKind::Index: {
      Expr *p = rvalue(e->operands[0]);
      Expr *i = rvalue(e->operands[1]);
      lv.addr = ptrAdd(p, scaled(i, e->type->size()), p->type);
      lv.space = p->type.space;
      return lv;
    }
    case ExprKind::Member: {
      const fe::Type *st = e->isArrow ? e->operands[0]->type->elem : e->operands[0]->type;
      const fe::StructField *f = st->record->field(e->name);
      if (e->isArrow) {
        Expr *p = rvalue(e->operands[0]);
        lv.addr = ptrAdd(p, i64(static_cast<int64_t>(f->offset)), p->type);
        lv.space = p->type.space;
        return lv;
      }
      LValue base = structValue(e->operands[0]);
      lv.addr = ptrAdd(base.addr, i64(static_cast<int64_t>(f->offset)), base.addr->type);
      lv.space = base.space;
      return lv;
    }
    case ExprKind::StringLit: {
      Expr *s = node(ir::ExprKind::StringConst, Type::ptr(device_ ? AddrSpace::Constant : AddrSpace::Host));
      s->text = e->stringValue;
      lv.addr = s;
      lv.space = s->type.space;
      return lv;
    }
    default: {
      // An rvalue of struct type (a call result, a constructor): materialise it.
      if (e->type && e->type->isStruct())
        return structValue(e);
      error(e->loc, "internal: expression is not an lvalue");
      lv.var = newVar("error", irType(e->type));
      return lv;
    }
    }
  }

  /// The address of a struct-typed value (an lvalue, or a temporary for constructed values).
  LValue structValue(fe::Expr *e) {
    if (e->kind == ExprKind::Call && e->builtin == -2)
      return construct(e);
    if (e->kind == ExprKind::Cast && !e->typeSyntax && e->type->isStruct() &&
        e->operands[0]->type->isInteger())
      return constructDim3({e->operands[0]}, e->loc);
    if (e->kind == ExprKind::Cast && e->type->isStruct())
      return structValue(e->operands[0]);
    if (e->kind == ExprKind::Ident && e->builtin >= fe::kBuiltinThreadIdx &&
        e->builtin <= fe::kBuiltinGridDim) {
      // threadIdx etc. used as a whole uint3: materialise a temporary.
      LocalSlot *s = newSlot("builtin", e->type);
      for (int d = 0; d < 3; ++d)
        store(ptrAdd(slotAddr(s), i64(4 * d), Type::ptr(slotSpace())), builtinComponent(e->builtin, d),
              slotSpace(), e->loc);
      LValue lv;
      lv.addr = slotAddr(s);
      lv.space = slotSpace();
      lv.type = e->type;
      return lv;
    }
    if (e->kind == ExprKind::Binary && isAssignment(e->binaryOp)) {
      rvalue(e);
      return lvalue(e->operands[0]);
    }
    if (e->kind == ExprKind::Call) {
      LValue lv;
      lv.addr = call(e);
      lv.space = slotSpace();
      lv.type = e->type;
      return lv;
    }
    if (e->kind == ExprKind::Conditional) {
      error(e->loc, "conditional expressions of struct type are not supported yet");
      LValue lv;
      lv.addr = slotAddr(newSlot("error", e->type));
      lv.space = slotSpace();
      return lv;
    }
    return lvalue(e);
  }

  /// dim3(...)/uint3(...) (missing components are 1) or make_<vector>(...).
  LValue construct(fe::Expr *e) {
    if (e->type == types_.dim3Ty() || e->type == types_.uint3Ty())
      return constructDim3(e->args, e->loc);
    LocalSlot *s = newSlot(e->type->str(), e->type);
    auto &fields = e->type->record->fields;
    for (size_t i = 0; i < fields.size() && i < e->args.size(); ++i)
      store(ptrAdd(slotAddr(s), i64(static_cast<int64_t>(fields[i].offset)),
                   Type::ptr(slotSpace())),
            cast(rvalue(e->args[i]), irType(fields[i].type)), slotSpace(), e->loc);
    LValue lv;
    lv.addr = slotAddr(s);
    lv.space = slotSpace();
    lv.type = e->type;
    return lv;
  }

  LValue constructDim3(const std::vector<fe::Expr *> &args, fe::SourceLoc loc) {
    LocalSlot *s = newSlot("dim3", types_.dim3Ty());
    for (int d = 0; d < 3; ++d) {
      Expr *v = d < static_cast<int>(args.size()) ? cast(rvalue(args[d]), Type::i32(false))
                                                  : constInt(Type::i32(false), 1);
      store(ptrAdd(slotAddr(s), i64(4 * d), Type::ptr(slotSpace())), v, slotSpace(), loc);
    }
    LValue lv;
    lv.addr = slotAddr(s);
    lv.space = slotSpace();
    lv.type = types_.dim3Ty();
    return lv;
  }

  Expr *builtinComponent(int object, int d) {
    static const BuiltinVar base[] = {BuiltinVar::ThreadIdxX, BuiltinVar::BlockIdxX,
                                      BuiltinVar::BlockDimX, BuiltinVar::GridDimX};
    Expr *e = node(ir::ExprKind::BuiltinVar, Type::i32(false));
    e->builtinVar = static_cast<BuiltinVar>(static_cast<int>(base[object - fe::kBuiltinThreadIdx]) + d);
    return e;
  }

  Expr *readLValue(const LValue &lv, fe::SourceLoc loc) {
    if (lv.var)
      return ref(lv.var);
    return load(lv.addr, irType(lv.type), lv.space, loc);
  }

  void writeLValue(const LValue &lv, Expr *v, fe::SourceLoc loc) {
    if (lv.var) {
      assign(lv.var, cast(v, lv.var->type), loc);
      return;
    }
    store(lv.addr, cast(v, irType(lv.type)), lv.space, loc);
  }

  /// Makes an lvalue's address safe to use twice (read-modify-write).
  LValue stable(LValue lv, fe::SourceLoc loc) {
    if (lv.addr)
      lv.addr = snapshot(lv.addr, "addr", loc);
    return lv;
  }

  /// Is `e` free of side effects and memory reads (safe to evaluate for every lane)?
  bool isPure(fe::Expr *e) {
    switch (e->kind) {
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
    case ExprKind::CharLit:
    case ExprKind::SizeofType:
    case ExprKind::SizeofExpr:
    case ExprKind::StringLit:
      return true;
    case ExprKind::Ident: {
      if (e->isEnumConst || e->builtin >= 0)
        return true;
      Storage *st = storageOf(e);
      return st && st->var;
    }
    case ExprKind::Member:
      if (!e->isArrow && e->operands[0]->kind == ExprKind::Ident && e->operands[0]->builtin >= 0)
        return true;
      return false;
    case ExprKind::Cast:
      return isPure(e->operands[0]) && !(e->type && e->type->isStruct());
    case ExprKind::Unary:
      if (e->unaryOp == UnaryOp::Deref || e->unaryOp >= UnaryOp::PreInc)
        return false;
      if (e->unaryOp == UnaryOp::AddrOf)
        return false;
      return isPure(e->operands[0]);
    case ExprKind::Binary:
      if (isAssignment(e->binaryOp) || e->binaryOp == BinaryOp::Comma)
        return false;
      if ((e->binaryOp == BinaryOp::Div || e->binaryOp == BinaryOp::Rem) && e->type->isInteger())
        return false; // may fault on lanes the short-circuit would have skipped
      return isPure(e->operands[0]) && isPure(e->operands[1]);
    case ExprKind::Conditional:
      return isPure(e->operands[0]) && isPure(e->operands[1]) && isPure(e->operands[2]);
    default:
      return false;
    }
  }

  /// Does `e` have side effects (writes, calls with effects)? Loads alone are not effects.
  bool hasEffects(fe::Expr *e) {
    if (!e)
      return false;
    switch (e->kind) {
    case ExprKind::Unary:
      if (e->unaryOp >= UnaryOp::PreInc)
        return true;
      break;
    case ExprKind::Binary:
      if (isAssignment(e->binaryOp))
        return true;
      break;
    case ExprKind::Call:
      if (e->builtin < 0 || e->builtin == -2)
        return e->builtin != -2;
      {
        std::string n = fe::builtinInfo(e->builtin).name;
        IntrinsicId id;
        if (!intrinsicByName(n, id) || intrinsicKind(id) != IntrinsicKind::Math)
          return true;
      }
      break;
    default:
      break;
    }
    for (auto *o : e->operands)
      if (hasEffects(o))
        return true;
    for (auto *a : e->args)
      if (hasEffects(a))
        return true;
    return false;
  }

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

  ir::BinaryOp irBinary(BinaryOp op) {
    switch (op) {
    case BinaryOp::Mul: case BinaryOp::MulAssign: return ir::BinaryOp::Mul;
    case BinaryOp::Div: case BinaryOp::DivAssign: return ir::BinaryOp::Div;
    case BinaryOp::Rem: case BinaryOp::RemAssign: return ir::BinaryOp::Rem;
    case BinaryOp::Add: case BinaryOp::AddAssign: return ir::BinaryOp::Add;
    case BinaryOp::Sub: case BinaryOp::SubAssign: return ir::BinaryOp::Sub;
    case BinaryOp::Shl: case BinaryOp::ShlAssign: return ir::BinaryOp::Shl;
    case BinaryOp::Shr: case BinaryOp::ShrAssign: return ir::BinaryOp::Shr;
    case BinaryOp::BitAnd: case BinaryOp::AndAssign: return ir::BinaryOp::And;
    case BinaryOp::BitOr: case BinaryOp::OrAssign: return ir::BinaryOp::Or;
    case BinaryOp::BitXor: case BinaryOp::XorAssign: return ir::BinaryOp::Xor;
    case BinaryOp::Lt: return ir::BinaryOp::Lt;
    case BinaryOp::Gt: return ir::BinaryOp::Gt;
    case BinaryOp::Le: return ir::BinaryOp::Le;
    case BinaryOp::Ge: return ir::BinaryOp::Ge;
    case BinaryOp::Eq: return ir::BinaryOp::Eq;
    case BinaryOp::Ne: return ir::BinaryOp::Ne;
    default: return ir::BinaryOp::Add;
    }
  }

  /// a op b for arithmetic operands of one type (or pointer +- integer).
  Expr *arith(ir::BinaryOp op, Expr *a, Expr *b, const fe::Type *resultType) {
    if (a->type.isPtr() && (op == ir::BinaryOp::Add || op == ir::BinaryOp::Sub)) {
      uint64_t size = resultType->isPointer() ? resultType->elem->size() : 1;
      Expr *off = scaled(b, size);
      if (op == ir::BinaryOp::Sub)
        off = neg(off);
      return ptrAdd(a, off, a->type);
    }
    if (op == ir::BinaryOp::Shl || op == ir::BinaryOp::Shr)
      b = cast(b, a->type);
    return bin(op, a, b);
  }

  Expr *neg(Expr *x) {
    if (x->kind == ir::ExprKind::Const && x->type.isInt())
      return constInt(x->type, -x->intValue);
    Expr *e = node(ir::ExprKind::Unary, x->type);
    e->unaryOp = ir::UnaryOp::Neg;
    e->ops = {x};
    return e;
  }

  Expr *one(Type t) { return t.isFloat() ? constFloat(t, 1.0) : constInt(t, 1); }

  /// The value of `e` (emitting its side effects as statements first).
  Expr *rvalue(fe::Expr *e) {
    switch (e->kind) {
    case ExprKind::IntLit:
    case ExprKind::CharLit:
      return constInt(irType(e->type), static_cast<int64_t>(e->intValue));
    case ExprKind::FloatLit:
      return constFloat(irType(e->type),
                        e->type->kind == TypeKind::Float ? static_cast<float>(e->floatValue)
                                                         : e->floatValue);
    case ExprKind::SizeofType:
    case ExprKind::SizeofExpr:
      return constInt(Type::i64(false), static_cast<int64_t>(e->intValue));
    case ExprKind::StringLit:
      return lvalue(e).addr;
    case ExprKind::Ident: {
      if (e->isEnumConst)
        return constInt(Type::i32(true), e->enumValue);
      if (e->builtin == -3) { // a symbol named by host code: its device address
        auto g = globals_.find(dynamic_cast<fe::VarDecl *>(e->decl));
        if (g == globals_.end() || !g->second.global) {
          error(e->loc, "internal: no storage for symbol '" + e->name + "'");
          return constInt(Type::ptr(AddrSpace::Host), 0);
        }
        Expr *a = node(ir::ExprKind::GlobalAddr, Type::ptr(AddrSpace::Host));
        a->global = g->second.global;
        return a;
      }
      if (e->builtin == -4) // a kernel named by host code: its index
        return constInt(Type::i32(false), kernelIndex(dynamic_cast<fe::FunctionDecl *>(e->decl)));
      if (e->builtin == fe::kBuiltinWarpSize)
        return constInt(Type::i32(true), 32);
      if (e->builtin == fe::kBuiltinStdout || e->builtin == fe::kBuiltinStderr)
        return constInt(Type::i64(false), e->builtin == fe::kBuiltinStdout ? 1 : 2);
      if (e->type->isArray() || e->type->isStruct())
        return lvalue(e).addr;
      return readLValue(lvalue(e), e->loc);
    }
    case ExprKind::Member: {
      fe::Expr *b = e->operands[0];
      if (!e->isArrow && b->kind == ExprKind::Ident && b->builtin >= fe::kBuiltinThreadIdx &&
          b->builtin <= fe::kBuiltinGridDim)
        return builtinComponent(b->builtin, e->name == "x" ? 0 : e->name == "y" ? 1 : 2);
      LValue lv = lvalue(e);
      if (e->type->isArray() || e->type->isStruct())
        return lv.addr;
      return readLValue(lv, e->loc);
    }
    case ExprKind::Index: {
      LValue lv = lvalue(e);
      if (e->type->isArray() || e->type->isStruct())
        return lv.addr;
      return readLValue(lv, e->loc);
    }
    case ExprKind::Unary:
      return unary(e);
    case ExprKind::Binary:
      return binary(e);
    case ExprKind::Conditional:
      return conditional(e);
    case ExprKind::Call:
      return call(e);
    case ExprKind::Cast: {
      fe::Expr *o = e->operands[0];
      if (e->type->isVoid()) {
        effect(o);
        return constInt(Type::i32(true), 0);
      }
      if (o->type->isArray()) // decay: the array's address
        return cast(lvalue(o).addr, irType(e->type));
      if (e->type->isStruct())
        return structValue(e).addr;
      Expr *v = rvalue(o);
      Type to = irType(e->type);
      if (to.isBool())
        return toBool(v);
      if (v->type.isPtr() && to.isPtr()) {
        // Keep what is known about the pointer's memory when the cast's type does not know.
        if (to.space == AddrSpace::Generic && device_)
          to.space = v->type.space;
        return cast(v, to);
      }
      return cast(v, to);
    }
    case ExprKind::InitList:
      error(e->loc, "initializer list is only allowed in a declaration");
      return constInt(Type::i32(true), 0);
    }
    return constInt(Type::i32(true), 0);
  }

  Expr *unary(fe::Expr *e) {
    fe::Expr *o = e->operands[0];
    switch (e->unaryOp) {
    case UnaryOp::Plus:
      return rvalue(o);
    case UnaryOp::Minus:
      return neg(rvalue(o));
    case UnaryOp::BitNot: {
      Expr *v = rvalue(o);
      Expr *r = node(ir::ExprKind::Unary, v->type);
      r->unaryOp = ir::UnaryOp::BitNot;
      r->ops = {v};
      return r;
    }
    case UnaryOp::Not:
      return cast(unaryNot(toBool(rvalue(o))), Type::i32(true));
    case UnaryOp::Deref: {
      LValue lv = lvalue(e);
      if (e->type->isArray() || e->type->isStruct())
        return lv.addr;
      return readLValue(lv, e->loc);
    }
    case UnaryOp::AddrOf: {
      LValue lv = lvalue(o);
      if (lv.var) {
        error(e->loc, "internal: address of a register variable");
        return constInt(Type::ptr(defaultSpace()), 0);
      }
      return cast(lv.addr, irType(e->type));
    }
    case UnaryOp::PreInc:
    case UnaryOp::PreDec:
    case UnaryOp::PostInc:
    case UnaryOp::PostDec: {
      bool inc = e->unaryOp == UnaryOp::PreInc || e->unaryOp == UnaryOp::PostInc;
      bool post = e->unaryOp == UnaryOp::PostInc || e->unaryOp == UnaryOp::PostDec;
      LValue lv = stable(lvalue(o), e->loc);
      Expr *old = readLValue(lv, e->loc);
      if (post)
        old = snapshot(old, "old", e->loc);
      Expr *nv;
      if (old->type.isPtr())
        nv = ptrAdd(old, i64(inc ? static_cast<int64_t>(o->type->elem->size())
                                 : -static_cast<int64_t>(o->type->elem->size())),
                    old->type);
      else if (old->type.isBool())
        nv = inc ? constInt(Type::boolTy(), 1) : unaryNot(old);
      else {
        // Arithmetic happens in the promoted type, then converts back (char, short wrap).
        Type pt = old->type.isInt() && old->type.bits() < 32 ? Type::i32(true) : old->type;
        nv = cast(bin(inc ? ir::BinaryOp::Add : ir::BinaryOp::Sub, cast(old, pt), one(pt)),
                  old->type);
      }
      writeLValue(lv, nv, e->loc);
      if (post)
        return old;
      return lv.var ? ref(lv.var) : readLValue(lv, e->loc);
    }
    }
    return constInt(Type::i32(true), 0);
  }

  Expr *binary(fe::Expr *e) {
    BinaryOp op = e->binaryOp;
    fe::Expr *l = e->operands[0], *r = e->operands[1];
    if (op == BinaryOp::Comma) {
      effect(l);
      return rvalue(r);
    }
    if (op == BinaryOp::Assign) {
      if (l->type->isStruct()) {
        LValue dst = lvalue(l);
        LValue src = structValue(r);
        copyStruct(dst.addr, dst.space, src.addr, src.space, l->type, e->loc);
        return dst.addr;
      }
      Expr *v = rvalue(r);
      LValue lv = lvalue(l);
      if (lv.var) {
        writeLValue(lv, v, e->loc);
        return ref(lv.var);
      }
      lv = stable(lv, e->loc);
      Expr *val = snapshot(cast(v, irType(l->type)), "val", e->loc);
      writeLValue(lv, val, e->loc);
      return val;
    }
    if (fe::isAssignment(op)) {
      Expr *rv = rvalue(r);
      LValue lv = stable(lvalue(l), e->loc);
      Expr *old = readLValue(lv, e->loc);
      ir::BinaryOp iop = irBinary(op);
      Expr *result;
      if (old->type.isPtr()) {
        result = arith(iop, old, rv, l->type);
      } else {
        // Computed in sema's computation type (the converted right operand's type; for
        // shifts, the promoted left operand).
        Type ct = rv->type;
        if (iop == ir::BinaryOp::Shl || iop == ir::BinaryOp::Shr)
          ct = old->type.isInt() && old->type.bits() < 32 ? Type::i32(true) : old->type;
        if (iop == ir::BinaryOp::Div || iop == ir::BinaryOp::Rem)
          rv = snapshot(rv, "divisor", e->loc);
        result = cast(withDivSite(arith(iop, cast(old, ct), cast(rv, ct), l->type), e->loc),
                      old->type);
      }
      if (lv.var) {
        writeLValue(lv, result, e->loc);
        return ref(lv.var);
      }
      Expr *val = snapshot(result, "val", e->loc);
      writeLValue(lv, val, e->loc);
      return val;
    }
    if (op == BinaryOp::LogAnd || op == BinaryOp::LogOr) {
      Expr *a = toBool(rvalue(l));
      if (isPure(r)) {
        Expr *b = toBool(rvalue(r));
        return cast(bin(op == BinaryOp::LogAnd ? ir::BinaryOp::And : ir::BinaryOp::Or, a, b),
                    Type::i32(true));
      }
      // Per-lane short-circuit: the right side runs only for lanes that need it.
      Var *t = newVar(op == BinaryOp::LogAnd ? "and" : "or", Type::boolTy());
      assign(t, a, e->loc);
      Stmt *s = emit(ir::StmtKind::If, e->loc);
      s->cond = op == BinaryOp::LogAnd ? ref(t) : unaryNot(ref(t));
      s->isBranch = hasEffects(r);
      s->site = m_.addSite(SiteKind::Branch, e->loc, op == BinaryOp::LogAnd ? "&&" : "||");
      s->thenBody = region([&] { assign(t, toBool(rvalue(r)), r->loc); });
      return cast(ref(t), Type::i32(true));
    }
    Expr *a = rvalue(l);
    Expr *b = rvalue(r);
    if (a->type.isPtr() && b->type.isPtr()) {
      if (op == BinaryOp::Sub) {
        Expr *diff = bin(ir::BinaryOp::Sub, cast(a, Type::i64(true)), cast(b, Type::i64(true)));
        int64_t size = static_cast<int64_t>(l->type->elem->size());
        return size == 1 ? diff : bin(ir::BinaryOp::Div, diff, i64(size));
      }
      // Pointer comparisons compare addresses.
      return cast(bin(irBinary(op), cast(a, Type::i64(false)), cast(b, Type::i64(false))),
                  Type::i32(true));
    }
    ir::BinaryOp iop = irBinary(op);
    if (iop >= ir::BinaryOp::Lt && iop <= ir::BinaryOp::Ne)
      return cast(bin(iop, a, b), Type::i32(true));
    return withDivSite(arith(iop, a, b, e->type), e->loc);
  }

  /// Integer division can fault (by zero): give it a site so the fault names its line.
  Expr *withDivSite(Expr *x, fe::SourceLoc loc) {
    if (x->kind == ir::ExprKind::Binary &&
        (x->binaryOp == ir::BinaryOp::Div || x->binaryOp == ir::BinaryOp::Rem) && x->type.isInt())
      x->site = m_.addSite(SiteKind::Other, loc, x->binaryOp == ir::BinaryOp::Div ? "/" : "%");
    return x;
  }

  Expr *conditional(fe::Expr *e) {
    fe::Expr *c = e->operands[0], *a = e->operands[1], *b = e->operands[2];
    if (e->type->isStruct()) {
      error(e->loc, "conditional expressions of struct type are not supported yet");
      return constInt(Type::i32(true), 0);
    }
    Expr *cv = toBool(rvalue(c));
    if (isPure(a) && isPure(b)) {
      Expr *s = node(ir::ExprKind::Select, irType(e->type));
      s->ops = {cv, cast(rvalue(a), irType(e->type)), cast(rvalue(b), irType(e->type))};
      return s;
    }
    Type t = irType(e->type);
    Var *tmp = t.isVoid() ? nullptr : newVar("cond", t);
    Stmt *s = emit(ir::StmtKind::If, e->loc);
    s->cond = cv;
    s->isBranch = hasEffects(a) || hasEffects(b);
    s->site = m_.addSite(SiteKind::Branch, e->loc, "?:");
    s->thenBody = region([&] {
      if (tmp)
        assign(tmp, cast(rvalue(a), t), a->loc);
      else
        effect(a);
    });
    s->elseBody = region([&] {
      if (tmp)
        assign(tmp, cast(rvalue(b), t), b->loc);
      else
        effect(b);
    });
    return tmp ? ref(tmp) : constInt(Type::i32(true), 0);
  }

  // ---- calls ----
  Expr *call(fe::Expr *e) {
    if (e->isLaunch) {
      launch(e);
      return constInt(Type::i32(true), 0);
    }
    if (e->builtin == -2)
      return construct(e).addr;
    if (e->builtin >= 0)
      return builtinCall(e);
    auto *fd = dynamic_cast<fe::FunctionDecl *>(e->decl);
    auto it = functions_.find(fd);
    if (!fd || it == functions_.end()) {
      error(e->loc, "function '" + (fd ? fd->name : std::string("?")) + "' is declared but never defined");
      return constInt(irType(e->type), 0);
    }
    Function *callee = device_ ? it->second.device : it->second.host;
    if (!callee) {
      error(e->loc, "internal: no version of '" + fd->name + "' for this side");
      return constInt(Type::i32(true), 0);
    }
    std::vector<Expr *> args;
    LocalSlot *result = nullptr;
    if (e->type->isStruct()) {
      result = newSlot(fd->name + ".result", e->type);
      args.push_back(slotAddr(result));
    }
    for (size_t i = 0; i < e->args.size(); ++i) {
      if (e->args[i]->type->isStruct()) {
        // By value: the callee gets the address of a copy of its own.
        LValue src = structValue(e->args[i]);
        LocalSlot *copy = newSlot("arg", e->args[i]->type);
        copyStruct(slotAddr(copy), slotSpace(), src.addr, src.space, e->args[i]->type, e->loc);
        args.push_back(slotAddr(copy));
        continue;
      }
      Expr *a = rvalue(e->args[i]);
      args.push_back(snapshot(a, "arg", e->loc));
    }
    Expr *c = node(ir::ExprKind::Call, result ? Type::voidTy() : irType(e->type));
    c->callee = callee;
    c->ops = std::move(args);
    c->site = m_.addSite(SiteKind::Call, e->loc, "call " + fd->name);
    if (c->type.isVoid()) {
      Stmt *s = emit(ir::StmtKind::Eval, e->loc);
      s->value = c;
      return result ? slotAddr(result) : constInt(Type::i32(true), 0);
    }
    // Evaluate the call where it stands in the source order.
    return snapshot(c, fd->name + ".result", e->loc);
  }

  Expr *builtinCall(fe::Expr *e) {
    std::string n = fe::builtinInfo(e->builtin).name;
    auto args = [&](size_t from = 0) {
      std::vector<Expr *> v;
      for (size_t i = from; i < e->args.size(); ++i)
        v.push_back(rvalue(e->args[i]));
      return v;
    };
    if (n == "printf" || n == "fprintf") {
      size_t fi = n == "printf" ? 0 : 1;
      fe::Expr *f = e->args[fi];
      while (f->kind == ExprKind::Cast && !f->typeSyntax)
        f = f->operands[0];
      std::vector<Expr *> vs;
      for (size_t i = fi + 1; i < e->args.size(); ++i)
        vs.push_back(snapshot(rvalue(e->args[i]), "printf.arg", e->loc));
      Stmt *s = emit(ir::StmtKind::Printf, e->loc);
      s->text = f->stringValue;
      s->args = vs;
      s->site = m_.addSite(SiteKind::Printf, e->loc, n);
      if (n == "fprintf") {
        fe::Expr *stream = e->args[0];
        s->printfStream = stream->builtin == fe::kBuiltinStderr ? 2 : 1;
      }
      return constInt(Type::i32(true), 0);
    }
    if (n == "sprintf" || n == "snprintf") {
      bool sized = n == "snprintf";
      size_t fi = sized ? 2 : 1;
      fe::Expr *f = e->args[fi];
      while (f->kind == ExprKind::Cast && !f->typeSyntax)
        f = f->operands[0];
      Expr *buf = snapshot(rvalue(e->args[0]), "sprintf.buf", e->loc);
      Expr *size = sized ? snapshot(cast(rvalue(e->args[1]), Type::i64(false)), "sprintf.size", e->loc)
                         : constInt(Type::i64(false), -1);
      std::vector<Expr *> vs;
      for (size_t i = fi + 1; i < e->args.size(); ++i)
        vs.push_back(snapshot(rvalue(e->args[i]), "printf.arg", e->loc));
      Var *count = newVar(n + ".count", Type::i32(true));
      Stmt *s = emit(ir::StmtKind::Printf, e->loc);
      s->printfStream = 0;
      s->text = f->stringValue;
      s->args = vs;
      s->addr = buf;
      s->value = size;
      s->var = count;
      s->site = m_.addSite(SiteKind::Printf, e->loc, n);
      return ref(count);
    }
    if (n == "__kern_assert") {
      // assert(c): if (!c) fail with the condition's text. Predicated on a GPU, not a branch.
      Expr *c = toBool(rvalue(e->args[0]));
      fe::Expr *t = e->args[1];
      while (t->kind == ExprKind::Cast && !t->typeSyntax)
        t = t->operands[0];
      Stmt *s = emit(ir::StmtKind::If, e->loc);
      s->cond = unaryNot(c);
      s->isBranch = false;
      s->site = m_.addSite(SiteKind::Branch, e->loc, "assert");
      s->thenBody = region([&] {
        Expr *msg = node(ir::ExprKind::StringConst,
                         Type::ptr(device_ ? AddrSpace::Constant : AddrSpace::Host));
        msg->text = t->stringValue;
        Expr *x = intrinsic(IntrinsicId::AssertFail, Type::voidTy(), {msg});
        x->site = m_.addSite(SiteKind::Other, e->loc, "assert");
        Stmt *ev = emit(ir::StmtKind::Eval, e->loc);
        ev->value = x;
      });
      return constInt(Type::i32(true), 0);
    }
    if (n == "__syncthreads") {
      Stmt *s = emit(ir::StmtKind::Barrier, e->loc);
      s->site = m_.addSite(SiteKind::Barrier, e->loc, "__syncthreads");
      F->usesBarriers = true;
      return constInt(Type::i32(true), 0);
    }
    if (n == "min" || n == "max") {
      auto v = args();
      return bin(n == "min" ? ir::BinaryOp::Min : ir::BinaryOp::Max, v[0], v[1]);
    }
    if (n == "isnan" || n == "isinf" || n == "isfinite" || n == "signbit") {
      Expr *x = snapshot(args()[0], n + ".arg", e->loc);
      Type t = x->type;
      Expr *inf = constFloat(t, __builtin_inf());
      Expr *mag = intrinsic(t.kind == ir::TypeKind::F32 ? IntrinsicId::FabsF : IntrinsicId::Fabs, t, {x});
      Expr *r;
      if (n == "isnan")
        r = bin(ir::BinaryOp::Ne, x, x); // only NaN is unequal to itself
      else if (n == "isinf")
        r = bin(ir::BinaryOp::Eq, mag, inf);
      else if (n == "isfinite")
        r = bin(ir::BinaryOp::Lt, mag, inf); // false for NaN too: ordered comparison
      else {
        Expr *bitsOf = node(ir::ExprKind::Unary, t.kind == ir::TypeKind::F32 ? Type::i32(true) : Type::i64(true));
        bitsOf->unaryOp = ir::UnaryOp::Bitcast;
        bitsOf->ops = {x};
        r = bin(ir::BinaryOp::Lt, bitsOf, constInt(bitsOf->type, 0));
      }
      return cast(r, Type::i32(true));
    }
    if (n.size() > 4 && n.rfind("__", 0) == 0 && n.find("_as_") != std::string::npos) {
      // __int_as_float and friends: the same bits, another type.
      Expr *x = args()[0];
      Expr *r = node(ir::ExprKind::Unary, irType(e->type));
      r->unaryOp = ir::UnaryOp::Bitcast;
      r->ops = {x};
      return r;
    }
    if (n == "abs" || n == "labs" || n == "llabs") {
      auto v = args();
      if (v[0]->type.kind == ir::TypeKind::F32)
        return intrinsic(IntrinsicId::FabsF, v[0]->type, v);
      if (v[0]->type.kind == ir::TypeKind::F64)
        return intrinsic(IntrinsicId::Fabs, v[0]->type, v);
      return intrinsic(IntrinsicId::Abs, v[0]->type, v);
    }
    if (n == "__ballot" || n == "__any" || n == "__all") {
      auto v = args();
      IntrinsicId id = n == "__ballot" ? IntrinsicId::Ballot
                       : n == "__any"  ? IntrinsicId::Any
                                       : IntrinsicId::All;
      return intrinsic(id, irType(e->type),
                       {constInt(Type::i32(false), -1), toBool(v[0])});
    }
    if (n == "__ballot_sync" || n == "__any_sync" || n == "__all_sync") {
      auto v = args();
      IntrinsicId id;
      intrinsicByName(n, id);
      return intrinsic(id, irType(e->type), {v[0], toBool(v[1])});
    }
    if (n == "__syncthreads_count" || n == "__syncthreads_and" || n == "__syncthreads_or") {
      auto v = args();
      IntrinsicId id;
      intrinsicByName(n, id);
      F->usesBarriers = true;
      Expr *x = intrinsic(id, Type::i32(true), {toBool(v[0])});
      x->site = m_.addSite(SiteKind::Barrier, e->loc, n);
      return snapshot(x, "sync", e->loc);
    }
    if (n.rfind("__shfl", 0) == 0) {
      auto v = args();
      if (v.size() == 3)
        v.push_back(constInt(Type::i32(true), 32));
      IntrinsicId id;
      intrinsicByName(n, id);
      return intrinsic(id, irType(e->type), v);
    }
    if (n == "clock" || n == "clock64") {
      Expr *x = intrinsic(IntrinsicId::Clock, Type::i64(true), {});
      return snapshot(x, "clock", e->loc);
    }
    IntrinsicId id;
    if (!intrinsicByName(n, id)) {
      error(e->loc, "'" + n + "' is not supported yet");
      return constInt(Type::i32(true), 0);
    }
    auto v = args();
    Expr *x = intrinsic(id, irType(e->type), v);
    if (n.rfind("atomic", 0) == 0) {
      x->site = m_.addSite(SiteKind::Atomic, e->loc, n);
      x->space = v[0]->type.space;
    }
    if (intrinsicKind(id) == IntrinsicKind::Math)
      return x;
    // Calls with effects run where they stand in the source.
    if (x->type.isVoid()) {
      Stmt *s = emit(ir::StmtKind::Eval, e->loc);
      s->value = x;
      return constInt(Type::i32(true), 0);
    }
    return snapshot(x, n, e->loc);
  }

  void dimComponents(fe::Expr *c, Expr *out[3]) {
    if (c->type->isStruct()) {
      LValue lv = structValue(c);
      Expr *base = snapshot(lv.addr, "dim", c->loc);
      for (int d = 0; d < 3; ++d)
        out[d] = snapshot(load(ptrAdd(base, i64(4 * d), base->type), Type::i32(false), lv.space, c->loc),
                          "dim", c->loc);
      return;
    }
    out[0] = snapshot(cast(rvalue(c), Type::i32(false)), "dim", c->loc);
    out[1] = constInt(Type::i32(false), 1);
    out[2] = constInt(Type::i32(false), 1);
  }

  void launch(fe::Expr *e) {
    auto *fd = dynamic_cast<fe::FunctionDecl *>(e->decl);
    auto it = functions_.find(fd);
    if (!fd || it == functions_.end() || !it->second.device) {
      error(e->loc, "kernel '" + (fd ? fd->name : std::string("?")) + "' is declared but never defined");
      return;
    }
    Function *k = it->second.device;
    Stmt tmp(ir::StmtKind::Launch);
    dimComponents(e->launchConfig[0], tmp.grid);
    dimComponents(e->launchConfig[1], tmp.blockDim);
    Expr *shared = e->launchConfig.size() > 2
                       ? snapshot(cast(rvalue(e->launchConfig[2]), Type::i64(false)), "shared", e->loc)
                       : constInt(Type::i64(false), 0);
    Expr *stream = e->launchConfig.size() > 3 ? snapshot(rvalue(e->launchConfig[3]), "stream", e->loc)
                                              : constInt(Type::ptr(AddrSpace::Host), 0);
    std::vector<Expr *> args;
    std::vector<uint32_t> argBytes;
    for (size_t i = 0; i < e->args.size(); ++i) {
      if (e->args[i]->type->isStruct()) {
        // The struct's bytes go into the parameter buffer (argBytes says how many).
        LValue src = structValue(e->args[i]);
        LocalSlot *copy = newSlot("karg", e->args[i]->type);
        copyStruct(slotAddr(copy), slotSpace(), src.addr, src.space, e->args[i]->type, e->loc);
        args.push_back(slotAddr(copy));
        argBytes.push_back(static_cast<uint32_t>(e->args[i]->type->size()));
        continue;
      }
      Expr *a = cast(rvalue(e->args[i]), k->params.size() > i ? k->params[i]->type
                                                               : irType(e->args[i]->type));
      args.push_back(snapshot(a, "karg", e->loc));
      argBytes.push_back(0);
    }
    Stmt *s = emit(ir::StmtKind::Launch, e->loc);
    s->kernel = k;
    for (int d = 0; d < 3; ++d) {
      s->grid[d] = tmp.grid[d];
      s->blockDim[d] = tmp.blockDim[d];
    }
    s->sharedBytes = shared;
    s->stream = stream;
    s->args = args;
    s->argBytes = argBytes;
    s->site = m_.addSite(SiteKind::Launch, e->loc, "launch " + fd->name);
  }

  /// The index of a kernel in Module::kernels() order (the runtime's numbering).
  int64_t kernelIndex(fe::FunctionDecl *fd) {
    auto it = functions_.find(fd);
    if (it == functions_.end() || !it->second.device)
      return -1;
    int64_t i = 0;
    for (Function *f : m_.functions) {
      if (f == it->second.device)
        return i;
      if (f->kind == FunctionKind::Kernel)
        ++i;
    }
    return -1;
  }

  /// A kernel uses barriers if it or any device function it calls does.
  void propagateBarriers() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (Function *f : m_.functions) {
        if (f->usesBarriers || f->kind == FunctionKind::Host)
          continue;
        if (callsBarrierFunction(f->body)) {
          f->usesBarriers = true;
          changed = true;
        }
      }
    }
  }

  bool callsBarrierFunction(Block *b) {
    if (!b)
      return false;
    for (Stmt *s : b->stmts) {
      for (Expr *e : {s->value, s->cond, s->addr})
        if (e && exprCallsBarrier(e))
          return true;
      for (Expr *e : s->args)
        if (exprCallsBarrier(e))
          return true;
      for (Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        if (callsBarrierFunction(c))
          return true;
    }
    return false;
  }

  bool exprCallsBarrier(Expr *e) {
    if (e->kind == ir::ExprKind::Call && e->callee->usesBarriers)
      return true;
    for (Expr *o : e->ops)
      if (exprCallsBarrier(o))
        return true;
    return false;
  }
};

} // namespace

std::unique_ptr<Module> lower(fe::TranslationUnit &tu, fe::TypeContext &types,
                              fe::DiagnosticEngine &diags, const std::string &name) {
  auto m = std::make_unique<Module>();
  m->sourceName = name;
  Lowerer l(tu, types, diags, *m);
  l.run();
  if (diags.hasErrors())
    return nullptr;
  return m;
}

} // namespace kern::ir
