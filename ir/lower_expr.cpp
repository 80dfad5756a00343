// AST -> Kern IR for expressions: lvalues, side effects as statements, short-circuits.
#include "ir/lower_impl.h"

namespace kern::ir::lower_detail {

void Lowerer::effect(fe::Expr *e) {
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
    return;
  }
  // An atomic whose result is discarded: the temporary that holds its result is never read, so
  // the statement only evaluates it (the backend then counts a reduction, RED, as nvcc emits).
  if (v && v->kind == ir::ExprKind::VarRef && !cur_->stmts.empty()) {
    Stmt *last = cur_->stmts.back();
    if (last->kind == ir::StmtKind::Assign && last->var == v->var && last->value &&
        last->value->kind == ir::ExprKind::Intrinsic && last->value->site != 0 &&
        last->value->site < m_.sites.size() &&
        m_.sites[last->value->site].kind == SiteKind::Atomic) {
      last->kind = ir::StmtKind::Eval;
      last->var = nullptr;
    }
  }
}

Storage *Lowerer::storageOf(fe::Expr *e) {
  auto *v = dynamic_cast<fe::VarDecl *>(e->decl);
  if (!v)
    return nullptr;
  auto it = locals_.find(v);
  if (it != locals_.end())
    return &it->second;
  auto g = globals_.find(v);
  if (g == globals_.end())
    return nullptr;
  if (undefinedExterns_.count(v->name) && undefinedReported_.insert(v->name).second)
    error(e->loc, "undefined reference to '" + v->name +
                      "': it is declared extern, and no file of the program defines it");
  return &g->second;
}

LValue Lowerer::lvalue(fe::Expr *e) {
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
      // A texture reference in device code is its device twin (lower_texref.cpp).
      GlobalVar *g = device_ && st->deviceTwin ? st->deviceTwin : st->global;
      Expr *a =
          node(ir::ExprKind::GlobalAddr, Type::ptr(g->space == AddrSpace::Host ? AddrSpace::Host
                                                   : device_                   ? g->space
                                                                               : AddrSpace::Host));
      a->global = g;
      lv.addr = a;
      lv.space = a->type.space;
      return lv;
    }
    Expr *a = node(ir::ExprKind::SharedAddr, Type::ptr(AddrSpace::Shared));
    a->intValue = st->sharedOffset;
    if (st->dynamicShared && F->kind != FunctionKind::Kernel) {
      // The dynamic region starts after the calling kernel's static shared memory, which a
      // __device__ function does not know: the runtime says where (SharedAddr::dynamicShared).
      a->intValue = 0;
      a->dynamicShared = true;
    } else if (st->dynamicShared) {
      dynamicSharedRefs_.push_back(a);
    }
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
    lv.addr = ptrAdd(p, scaledBy(i, e->type), p->type);
    lv.space = p->type.space;
    return lv;
  }
  case ExprKind::Member: {
    const fe::Type *st = e->isArrow ? e->operands[0]->type->elem : e->operands[0]->type;
    const fe::StructField *f = st->record->field(e->name);
    // A packed struct's member is aligned to the pack at most, and to its object's alignment.
    uint64_t natural = f->type->align(), parent = st->align();
    uint64_t align = st->record->pack ? std::min(natural, st->record->pack) : natural;
    if (e->isArrow) {
      Expr *p = rvalue(e->operands[0]);
      lv.addr = ptrAdd(p, i64(static_cast<int64_t>(f->offset)), p->type);
      lv.space = p->type.space;
    } else {
      LValue base = structValue(e->operands[0]);
      lv.addr = ptrAdd(base.addr, i64(static_cast<int64_t>(f->offset)), base.addr->type);
      lv.space = base.space;
      parent = base.align ? base.align : parent;
    }
    align = std::min(align, parent);
    lv.align = align < natural ? align : 0;
    return lv;
  }
  case ExprKind::StringLit: {
    // A literal is an object of the program's memory: the host arena's for host code, global
    // memory for device code (where nvcc puts it too), so that a pointer to it is checked and
    // read like any other.
    const AddrSpace space = device_ ? AddrSpace::Global : AddrSpace::Host;
    Expr *a = node(ir::ExprKind::GlobalAddr, Type::ptr(space));
    a->global = literalGlobal(e->stringValue, space);
    lv.addr = a;
    lv.space = space;
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

LValue Lowerer::structValue(fe::Expr *e) {
  if (e->kind == ExprKind::InitList && e->type && e->type->isStruct()) {
    // `return {a, b};`, `(S){a, b}`: the value built in a temporary.
    LocalSlot *s = newSlot(e->type->str(), e->type);
    initMemory(slotAddr(s), slotSpace(), e->type, e, e->loc, true);
    LValue lv;
    lv.addr = slotAddr(s);
    lv.space = slotSpace();
    lv.type = e->type;
    return lv;
  }
  if (e->kind == ExprKind::Construct) {
    // A fresh object, then its constructor's call with the object's address as `this`.
    LocalSlot *s = newSlot(e->type->str(), e->type);
    Expr *saved = constructTarget_;
    constructTarget_ = slotAddr(s);
    rvalue(e->operands[0]);
    constructTarget_ = saved;
    LValue lv;
    lv.addr = slotAddr(s);
    lv.space = slotSpace();
    lv.type = e->type;
    return lv;
  }
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
      store(ptrAdd(slotAddr(s), i64(4 * d), Type::ptr(slotSpace())),
            builtinComponent(e->builtin, d), slotSpace(), e->loc);
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
  if (e->kind == ExprKind::StmtExpr) {
    LValue lv;
    lv.addr = stmtExpr(e);
    lv.space = slotSpace();
    lv.type = e->type;
    return lv;
  }
  if (e->kind == ExprKind::Conditional) {
    // `c ? s1 : s2` of struct type: each lane copies its side into a temporary.
    fe::Expr *a = e->operands[1], *b = e->operands[2];
    LocalSlot *tmp = newSlot("cond", e->type);
    Stmt *s = emit(ir::StmtKind::If, e->loc);
    s->cond = toBool(rvalue(e->operands[0]));
    s->isBranch = hasEffects(a) || hasEffects(b);
    s->shortCircuit = true;
    s->site = m_.addSite(SiteKind::Branch, e->loc, "?:");
    auto side = [&](fe::Expr *x) {
      return region([&] {
        LValue src = structValue(x);
        copyStruct(slotAddr(tmp), slotSpace(), src.addr, src.space, e->type, x->loc);
      });
    };
    s->thenBody = side(a);
    s->elseBody = side(b);
    LValue lv;
    lv.addr = slotAddr(tmp);
    lv.space = slotSpace();
    lv.type = e->type;
    return lv;
  }
  return lvalue(e);
}

LValue Lowerer::construct(fe::Expr *e) {
  if (e->type == types_.dim3Ty() || e->type == types_.uint3Ty())
    return constructDim3(e->args, e->loc);
  LocalSlot *s = newSlot(e->type->str(), e->type);
  auto &fields = e->type->record->fields;
  for (size_t i = 0; i < fields.size() && i < e->args.size(); ++i)
    store(ptrAdd(slotAddr(s), i64(static_cast<int64_t>(fields[i].offset)), Type::ptr(slotSpace())),
          cast(rvalue(e->args[i]), irType(fields[i].type)), slotSpace(), e->loc);
  LValue lv;
  lv.addr = slotAddr(s);
  lv.space = slotSpace();
  lv.type = e->type;
  return lv;
}

LValue Lowerer::constructDim3(const std::vector<fe::Expr *> &args, fe::SourceLoc loc) {
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

Expr *Lowerer::builtinComponent(int object, int d) {
  static const BuiltinVar base[] = {BuiltinVar::ThreadIdxX, BuiltinVar::BlockIdxX,
                                    BuiltinVar::BlockDimX, BuiltinVar::GridDimX};
  Expr *e = node(ir::ExprKind::BuiltinVar, Type::i32(false));
  e->builtinVar =
      static_cast<BuiltinVar>(static_cast<int>(base[object - fe::kBuiltinThreadIdx]) + d);
  return e;
}

Expr *Lowerer::readLValue(const LValue &lv, fe::SourceLoc loc) {
  if (lv.var)
    return ref(lv.var);
  if (lv.align && device_ && lv.type->isScalar())
    return loadInPieces(lv, loc);
  return load(lv.addr, irType(lv.type), lv.space, loc);
}

void Lowerer::writeLValue(const LValue &lv, Expr *v, fe::SourceLoc loc) {
  if (lv.var) {
    assign(lv.var, cast(v, lv.var->type), loc);
    return;
  }
  if (lv.align && device_ && lv.type->isScalar()) {
    storeInPieces(lv, cast(v, irType(lv.type)), loc);
    return;
  }
  store(lv.addr, cast(v, irType(lv.type)), lv.space, loc);
}

namespace {

Type unsignedOfBytes(uint64_t n) {
  return n == 8   ? Type::i64(false)
         : n == 4 ? Type::i32(false)
         : n == 2 ? Type::i16(false)
                  : Type::i8(false);
}

} // namespace

Expr *Lowerer::loadInPieces(const LValue &lv, fe::SourceLoc loc) {
  Type t = irType(lv.type);
  uint64_t n = t.bytes(), a = lv.align;
  Type bits = unsignedOfBytes(n);
  Expr *addr = snapshot(lv.addr, "packed.addr", loc);
  Expr *acc = nullptr;
  for (uint64_t k = 0; k * a < n; ++k) {
    Expr *piece = load(ptrAdd(addr, i64(static_cast<int64_t>(k * a)), addr->type),
                       unsignedOfBytes(a), lv.space, loc);
    Expr *v = cast(piece, bits);
    if (k)
      v = bin(ir::BinaryOp::Shl, v, constInt(bits, static_cast<int64_t>(8 * a * k)));
    acc = acc ? bin(ir::BinaryOp::Or, acc, v) : v;
  }
  if (!t.isFloat())
    return cast(acc, t);
  Expr *r = node(ir::ExprKind::Unary, t); // the same bits, as the float they are
  r->unaryOp = ir::UnaryOp::Bitcast;
  r->ops = {acc};
  return r;
}

void Lowerer::storeInPieces(const LValue &lv, Expr *v, fe::SourceLoc loc) {
  Type t = irType(lv.type);
  uint64_t n = t.bytes(), a = lv.align;
  Type bits = unsignedOfBytes(n);
  if (t.isFloat()) {
    Expr *r = node(ir::ExprKind::Unary, bits);
    r->unaryOp = ir::UnaryOp::Bitcast;
    r->ops = {v};
    v = r;
  }
  Expr *value = snapshot(cast(v, bits), "packed.val", loc);
  Expr *addr = snapshot(lv.addr, "packed.addr", loc);
  for (uint64_t k = 0; k * a < n; ++k) {
    Expr *part =
        k ? bin(ir::BinaryOp::Shr, value, constInt(bits, static_cast<int64_t>(8 * a * k))) : value;
    store(ptrAdd(addr, i64(static_cast<int64_t>(k * a)), addr->type),
          cast(part, unsignedOfBytes(a)), lv.space, loc);
  }
}

namespace {

/// Whether evaluating `e` twice gives the same value and does nothing else: arithmetic on
/// variables and addresses, no load, call or intrinsic.
bool recomputable(const ir::Expr *e) {
  switch (e->kind) {
  case ir::ExprKind::Const:
  case ir::ExprKind::VarRef:
  case ir::ExprKind::BuiltinVar:
  case ir::ExprKind::GlobalAddr:
  case ir::ExprKind::SharedAddr:
  case ir::ExprKind::LocalAddr:
  case ir::ExprKind::ParamAddr:
  case ir::ExprKind::StringConst:
    return true;
  case ir::ExprKind::Binary:
    // Integer division may fault: evaluated once.
    if ((e->binaryOp == ir::BinaryOp::Div || e->binaryOp == ir::BinaryOp::Rem) && e->type.isInt())
      return false;
    [[fallthrough]];
  case ir::ExprKind::Unary:
  case ir::ExprKind::Cast:
  case ir::ExprKind::PtrAdd:
    for (const ir::Expr *op : e->ops)
      if (!recomputable(op))
        return false;
    return true;
  default:
    return false;
  }
}

} // namespace

LValue Lowerer::stable(LValue lv, fe::SourceLoc loc) {
  // The address is read, then written, with nothing in between that could change what it is
  // made of; one without loads or calls is simply computed twice (the backend folds it, and
  // sees its form: a uniform pointer plus a scaled index).
  if (lv.addr && !recomputable(lv.addr))
    lv.addr = snapshot(lv.addr, "addr", loc);
  return lv;
}

bool Lowerer::isPure(fe::Expr *e) {
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

bool Lowerer::hasEffects(fe::Expr *e) {
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
  case ExprKind::StmtExpr: // statements: counted as effects, as a call is
    return true;
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

ir::BinaryOp Lowerer::irBinary(BinaryOp op) {
  switch (op) {
  case BinaryOp::Mul:
  case BinaryOp::MulAssign:
    return ir::BinaryOp::Mul;
  case BinaryOp::Div:
  case BinaryOp::DivAssign:
    return ir::BinaryOp::Div;
  case BinaryOp::Rem:
  case BinaryOp::RemAssign:
    return ir::BinaryOp::Rem;
  case BinaryOp::Add:
  case BinaryOp::AddAssign:
    return ir::BinaryOp::Add;
  case BinaryOp::Sub:
  case BinaryOp::SubAssign:
    return ir::BinaryOp::Sub;
  case BinaryOp::Shl:
  case BinaryOp::ShlAssign:
    return ir::BinaryOp::Shl;
  case BinaryOp::Shr:
  case BinaryOp::ShrAssign:
    return ir::BinaryOp::Shr;
  case BinaryOp::BitAnd:
  case BinaryOp::AndAssign:
    return ir::BinaryOp::And;
  case BinaryOp::BitOr:
  case BinaryOp::OrAssign:
    return ir::BinaryOp::Or;
  case BinaryOp::BitXor:
  case BinaryOp::XorAssign:
    return ir::BinaryOp::Xor;
  case BinaryOp::Lt:
    return ir::BinaryOp::Lt;
  case BinaryOp::Gt:
    return ir::BinaryOp::Gt;
  case BinaryOp::Le:
    return ir::BinaryOp::Le;
  case BinaryOp::Ge:
    return ir::BinaryOp::Ge;
  case BinaryOp::Eq:
    return ir::BinaryOp::Eq;
  case BinaryOp::Ne:
    return ir::BinaryOp::Ne;
  default:
    return ir::BinaryOp::Add;
  }
}

Expr *Lowerer::arith(ir::BinaryOp op, Expr *a, Expr *b, const fe::Type *resultType) {
  if (a->type.isPtr() && (op == ir::BinaryOp::Add || op == ir::BinaryOp::Sub)) {
    Expr *off = resultType->isPointer() ? scaledBy(b, resultType->elem) : scaled(b, 1);
    if (op == ir::BinaryOp::Sub)
      off = neg(off);
    return ptrAdd(a, off, a->type);
  }
  if (op == ir::BinaryOp::Shl || op == ir::BinaryOp::Shr)
    b = cast(b, a->type);
  return bin(op, a, b);
}

Expr *Lowerer::neg(Expr *x) {
  if (x->kind == ir::ExprKind::Const && x->type.isInt())
    return constInt(x->type, -x->intValue);
  Expr *e = node(ir::ExprKind::Unary, x->type);
  e->unaryOp = ir::UnaryOp::Neg;
  e->ops = {x};
  return e;
}

Expr *Lowerer::fileScopeConstant(fe::Expr *e) {
  // CUDA lets device code use the value of a namespace-scope const scalar without an execution
  // space that was initialised with a constant expression: it is a compile-time constant, not
  // a read of host memory. Host code reads it the same way.
  auto *v = dynamic_cast<fe::VarDecl *>(e->decl);
  if (!v || !v->init || !e->type->isArithmetic() || !v->typeSyntax || !v->typeSyntax->isConst ||
      v->typeSyntax->isVolatile || v->quals.device || v->quals.constant || v->quals.shared ||
      !globals_.count(v))
    return nullptr;
  fe::ConstValue c;
  if (!fe::foldArith(v->init, c))
    return nullptr;
  const Type t = irType(e->type);
  if (e->type->isFloating())
    return constFloat(t, c.isFloat ? c.f : static_cast<double>(c.i));
  int64_t i = c.isFloat ? static_cast<int64_t>(c.f) : c.i;
  if (e->type->isBool())
    i = i != 0;
  return constInt(t, i);
}

Expr *Lowerer::rvalue(fe::Expr *e) {
  switch (e->kind) {
  case ExprKind::IntLit:
  case ExprKind::CharLit:
    return constInt(irType(e->type), static_cast<int64_t>(e->intValue));
  case ExprKind::FloatLit:
    return constFloat(irType(e->type), e->type->kind == TypeKind::Float
                                           ? static_cast<float>(e->floatValue)
                                           : e->floatValue);
  case ExprKind::SizeofType:
  case ExprKind::SizeofExpr:
    if (fe::sizeofAtRunTime(e)) { // a variable-length array's size
      const fe::Type *t =
          e->kind == ExprKind::SizeofType ? e->typeSyntax->resolved : e->operands[0]->type;
      if (e->kind == ExprKind::SizeofType)
        evaluateBounds(t, e->loc); // `sizeof(float[n])` evaluates n
      return cast(sizeOf(t), Type::i64(false));
    }
    return constInt(Type::i64(false), static_cast<int64_t>(e->intValue));
  case ExprKind::StringLit:
    return lvalue(e).addr;
  case ExprKind::Ident: {
    if (e->isEnumConst)
      return constInt(e->type ? irType(e->type) : Type::i32(true), e->enumValue);
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
    if (e->builtin == fe::kBuiltinStdout || e->builtin == fe::kBuiltinStderr ||
        e->builtin == fe::kBuiltinStdin) // FILE handles (runtime/host_state.h)
      return constInt(Type::ptr(AddrSpace::Host), e->builtin == fe::kBuiltinStdout   ? 1
                                                  : e->builtin == fe::kBuiltinStderr ? 2
                                                                                     : 3);
    if (e->builtin == -5) { // a host function named as qsort's comparator: its pointer
      auto *fd = dynamic_cast<fe::FunctionDecl *>(e->decl);
      auto f = functions_.find(fd);
      if (f == functions_.end() || !f->second.host) {
        error(e->loc, "function '" + e->name + "' is declared but never defined");
        return constInt(Type::ptr(AddrSpace::Host), 0);
      }
      return constInt(Type::ptr(AddrSpace::Host), functionPointerValue(fd));
    }
    if (e->type->isArray() || e->type->isStruct())
      return lvalue(e).addr;
    if (Expr *c = fileScopeConstant(e))
      return c;
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
    if (e->typeSyntax && e->type->isVariablyModified())
      evaluateBounds(e->type, e->loc); // `(float (*)[n])p`: n is evaluated by the cast
    if (e->type->isVoid()) {
      effect(o);
      return constInt(Type::i32(true), 0);
    }
    if (o->type->isArray()) // decay: the array's address
      return cast(lvalue(o).addr, irType(e->type));
    if (o->type->isFunction()) // decay: the function's pointer
      return functionPointer(o);
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
      if (e->baseOffset != 0) { // between a class and its base: moved, but null stays null
        v = snapshot(v, "base", e->loc);
        Expr *moved = node(ir::ExprKind::PtrAdd, v->type);
        moved->ops = {v, constInt(Type::i64(true), e->baseOffset)};
        if (v->kind == ir::ExprKind::LocalAddr || v->kind == ir::ExprKind::SharedAddr)
          return cast(moved, to); // an object's own address: never null
        Expr *s = node(ir::ExprKind::Select, v->type);
        s->ops = {bin(ir::BinaryOp::Ne, cast(v, Type::i64(false)), constInt(Type::i64(false), 0)),
                  moved, v};
        return cast(s, to);
      }
      return cast(v, to);
    }
    return cast(v, to);
  }
  case ExprKind::InitList:
    if (e->type && e->type->isStruct())
      return structValue(e).addr;
    error(e->loc, "initializer list is only allowed in a declaration");
    return constInt(Type::i32(true), 0);
  case ExprKind::Construct:
    return structValue(e).addr;
  case ExprKind::ConstructTarget:
    if (!constructTarget_) {
      error(e->loc, "internal: a constructor's object outside its construction");
      return constInt(Type::ptr(slotSpace()), 0);
    }
    return cast(constructTarget_, irType(e->type));
  case ExprKind::Temporary: {
    // A temporary a const reference (or a member function's `this`) binds to: the value in a
    // fresh local slot, or a struct rvalue where it was made.
    fe::Expr *o = e->operands[0];
    if (o->type->isStruct())
      return cast(structValue(o).addr, irType(e->type));
    LocalSlot *s = newSlot("temporary", o->type);
    store(slotAddr(s), cast(rvalue(o), irType(o->type)), slotSpace(), e->loc);
    return cast(slotAddr(s), irType(e->type));
  }
  case ExprKind::StmtExpr:
    return stmtExpr(e);
  case ExprKind::Lambda: // sema rewrites these
  case ExprKind::New:
  case ExprKind::Delete:
    break;
  }
  return constInt(Type::i32(true), 0);
}

Expr *Lowerer::stmtExpr(fe::Expr *e) {
  const std::vector<fe::Stmt *> &body = e->body->body;
  const bool hasValue = !e->type->isVoid();
  const bool vla = declaresVla(body);
  if (vla)
    openVlaScope(e->loc);
  for (size_t i = 0; i + (hasValue ? 1 : 0) < body.size(); ++i)
    stmt(body[i]);
  Expr *value = constInt(Type::i32(true), 0);
  if (hasValue && e->type->isStruct()) {
    fe::Expr *last = body.back()->expr;
    LocalSlot *copy = newSlot("stmt.expr", e->type);
    LValue src = structValue(last);
    copyStruct(slotAddr(copy), slotSpace(), src.addr, src.space, e->type, last->loc);
    value = slotAddr(copy);
  } else if (hasValue) {
    // A snapshot: the variables the value reads may change before the enclosing expression
    // uses it (and a VLA it reads is given back below).
    fe::Expr *last = body.back()->expr;
    value = snapshot(rvalue(last), "stmt.expr", last->loc);
  }
  if (vla)
    closeVlaScope(e->loc);
  return value;
}

Expr *Lowerer::unary(fe::Expr *e) {
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
    if (o->type->isFunction())
      return functionPointer(o);
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
      nv = ptrAdd(old, scaledBy(i64(inc ? 1 : -1), o->type->elem), old->type);
    else if (old->type.isBool())
      nv = inc ? constInt(Type::boolTy(), 1) : unaryNot(old);
    else {
      // Arithmetic happens in the promoted type, then converts back (char, short wrap).
      Type pt = old->type.isInt() && old->type.bits() < 32 ? Type::i32(true) : old->type;
      nv =
          cast(bin(inc ? ir::BinaryOp::Add : ir::BinaryOp::Sub, cast(old, pt), one(pt)), old->type);
    }
    writeLValue(lv, nv, e->loc);
    if (post)
      return old;
    return lv.var ? ref(lv.var) : readLValue(lv, e->loc);
  }
  }
  return constInt(Type::i32(true), 0);
}

Expr *Lowerer::binary(fe::Expr *e) {
  BinaryOp op = e->binaryOp;
  fe::Expr *l = e->operands[0], *r = e->operands[1];
  if (op == BinaryOp::Comma) {
    effect(l);
    return rvalue(r);
  }
  if (op == BinaryOp::Assign) {
    if (l->type->isStruct()) {
      LValue dst = lvalue(l);
      if (e->initializes && r->kind == ExprKind::Construct && r->type == l->type) {
        // An object made where it lives (a member by a constructor's initialiser, `this->m =
        // M(args)`; an element of `new T[n]`): its constructor's `this` is its address.
        dst = stable(dst, e->loc);
        Expr *saved = constructTarget_;
        constructTarget_ = dst.addr;
        rvalue(r->operands[0]);
        constructTarget_ = saved;
        return dst.addr;
      }
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
    // The address is used once, by the store, right after the value's snapshot: it needs no
    // snapshot of its own (C++17 sequences the right operand before the left anyway), and
    // left in place the backend sees its form (a uniform pointer plus a scaled index).
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
      result =
          cast(withDivSite(arith(iop, cast(old, ct), cast(rv, ct), l->type), e->loc), old->type);
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
    s->shortCircuit = true;
    s->site = m_.addSite(SiteKind::Branch, e->loc, op == BinaryOp::LogAnd ? "&&" : "||");
    s->thenBody = region([&] { assign(t, toBool(rvalue(r)), r->loc); });
    return cast(ref(t), Type::i32(true));
  }
  Expr *a = rvalue(l);
  Expr *b = rvalue(r);
  if (a->type.isPtr() && b->type.isPtr()) {
    if (op == BinaryOp::Sub) {
      Expr *diff = bin(ir::BinaryOp::Sub, cast(a, Type::i64(true)), cast(b, Type::i64(true)));
      if (l->type->elem->hasRuntimeSize())
        return bin(ir::BinaryOp::Div, diff, sizeOf(l->type->elem));
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

Expr *Lowerer::withDivSite(Expr *x, fe::SourceLoc loc) {
  if (x->kind == ir::ExprKind::Binary &&
      (x->binaryOp == ir::BinaryOp::Div || x->binaryOp == ir::BinaryOp::Rem) && x->type.isInt())
    x->site = m_.addSite(SiteKind::Other, loc, x->binaryOp == ir::BinaryOp::Div ? "/" : "%");
  return x;
}

Expr *Lowerer::conditional(fe::Expr *e) {
  fe::Expr *c = e->operands[0], *a = e->operands[1], *b = e->operands[2];
  if (e->type->isStruct())
    return structValue(e).addr;
  // A constant condition (`Size >= 32 ? x : f()` in a template instance) picks its arm: no
  // branch, as the GPU's compiler leaves none.
  if (fe::ConstValue k; fe::foldArith(c, k))
    return cast(rvalue((k.isFloat ? k.f != 0 : k.i != 0) ? a : b), irType(e->type));
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
  s->shortCircuit = true;
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

} // namespace kern::ir::lower_detail
