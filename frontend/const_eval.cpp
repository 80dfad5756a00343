// The one constant folder of the front end (see const_eval.h): one recursive evaluator, with or
// without floating point.
#include "frontend/const_eval.h"

#include "frontend/sema.h"

namespace kern::frontend {

int64_t wrapInt(int64_t v, unsigned bits, bool isSigned) {
  if (bits >= 64)
    return v;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (isSigned && (u >> (bits - 1)))
    u |= ~mask;
  return static_cast<int64_t>(u);
}

int64_t truncateToType(int64_t v, const Type *t) {
  if (!t || !t->isInteger())
    return v;
  if (t->isBool())
    return v != 0;
  return wrapInt(v, static_cast<unsigned>(t->size() * 8), t->isSigned());
}

namespace {

class Folder {
public:
  Folder(bool allowFloat, const Expr **divisionByZero)
      : allowFloat_(allowFloat), divisionByZero_(divisionByZero) {}

  bool eval(const Expr *e, ConstValue &v) {
    switch (e->kind) {
    case ExprKind::IntLit:
    case ExprKind::CharLit:
      return integer(v, static_cast<int64_t>(e->intValue));
    case ExprKind::FloatLit:
      if (!allowFloat_)
        return false;
      v.isFloat = true;
      v.f = e->floatValue;
      return true;
    case ExprKind::Ident:
      return ident(e, v);
    case ExprKind::SizeofType:
    case ExprKind::SizeofExpr:
      // sema computes the size (and types the expression); before it, sizeof is not known.
      // The size of a variable-length array is known only at run time.
      return e->type && !sizeofAtRunTime(e) && integer(v, static_cast<int64_t>(e->intValue));
    case ExprKind::Cast:
      return cast(e, v);
    case ExprKind::Unary:
      return unary(e, v);
    case ExprKind::Conditional: {
      ConstValue c, a, b;
      if (!eval(e->operands[0], c) || !eval(e->operands[1], a) || !eval(e->operands[2], b))
        return false;
      v = (c.isFloat ? c.f != 0 : c.i != 0) ? a : b;
      return true;
    }
    case ExprKind::Binary:
      return binary(e, v);
    default:
      return false;
    }
  }

private:
  bool allowFloat_;
  const Expr **divisionByZero_;

  static bool integer(ConstValue &v, int64_t i) {
    v.isFloat = false;
    v.i = i;
    return true;
  }

  bool ident(const Expr *e, ConstValue &v) {
    if (e->isEnumConst)
      return integer(v, e->enumValue);
    if (e->builtin == kBuiltinWarpSize)
      return integer(v, 32);
    // A const integer variable with a constant initialiser (C++ allows it in array sizes).
    if (auto *vd = dynamic_cast<const VarDecl *>(e->decl))
      if (vd->type && vd->type->isInteger() && vd->typeSyntax && vd->typeSyntax->isConst &&
          vd->init) {
        int64_t i = 0;
        return foldInt(vd->init, i, divisionByZero_) && integer(v, i);
      }
    // Where floating values fold, a const floating variable of the host with a constant
    // initialiser (`const float scale = 1.0 / base;`, which device code may use as CUDA lets
    // it): its value, converted to its type.
    if (auto *vd = dynamic_cast<const VarDecl *>(e->decl))
      if (allowFloat_ && vd->type && vd->type->isFloating() && vd->typeSyntax &&
          vd->typeSyntax->isConst && !vd->typeSyntax->isVolatile && vd->init && !vd->quals.device &&
          !vd->quals.constant && !vd->quals.shared && eval(vd->init, v)) {
        if (!v.isFloat) {
          v.f = static_cast<double>(v.i);
          v.isFloat = true;
        }
        if (vd->type->kind == TypeKind::Float)
          v.f = static_cast<float>(v.f);
        return true;
      }
    return false;
  }

  bool cast(const Expr *e, ConstValue &v) {
    const Type *to = e->type, *from = e->operands[0]->type;
    if (!to)
      return false;
    if (!allowFloat_ && (!to->isInteger() || !from || !from->isInteger()))
      return false;
    if (!eval(e->operands[0], v))
      return false;
    if (to->isFloating()) {
      if (!v.isFloat) {
        v.f = static_cast<double>(v.i);
        v.isFloat = true;
      }
      if (to->kind == TypeKind::Float)
        v.f = static_cast<float>(v.f);
    } else if (to->isInteger()) {
      if (v.isFloat)
        integer(v, to->isBool() ? v.f != 0 : static_cast<int64_t>(v.f));
      v.i = truncateToType(v.i, to);
    }
    // Any other target (a pointer: `(int *)0`) keeps the value.
    return true;
  }

  bool unary(const Expr *e, ConstValue &v) {
    if (!eval(e->operands[0], v))
      return false;
    if (v.isFloat) {
      if (e->unaryOp == UnaryOp::Minus)
        v.f = -v.f;
      return e->unaryOp == UnaryOp::Minus || e->unaryOp == UnaryOp::Plus;
    }
    switch (e->unaryOp) {
    case UnaryOp::Plus:
      return true;
    case UnaryOp::Minus:
      v.i = truncateToType(-v.i, e->type);
      return true;
    case UnaryOp::Not:
      v.i = !v.i;
      return true;
    case UnaryOp::BitNot:
      v.i = truncateToType(~v.i, e->type);
      return true;
    default:
      return false;
    }
  }

  bool binary(const Expr *e, ConstValue &v) {
    ConstValue l, r;
    if (!eval(e->operands[0], l) || !eval(e->operands[1], r))
      return false;
    if (l.isFloat || r.isFloat)
      return floating(e->binaryOp, l, r, v);
    int64_t a = l.i, b = r.i, x = 0;
    const Type *ot = e->operands[0]->type;
    bool uns = ot && ot->isInteger() && !ot->isSigned();
    uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    switch (e->binaryOp) {
    case BinaryOp::Add:
      x = a + b;
      break;
    case BinaryOp::Sub:
      x = a - b;
      break;
    case BinaryOp::Mul:
      x = a * b;
      break;
    case BinaryOp::Div:
    case BinaryOp::Rem:
      if (b == 0) {
        if (divisionByZero_)
          *divisionByZero_ = e;
        return false;
      }
      if (e->binaryOp == BinaryOp::Div)
        x = uns ? static_cast<int64_t>(ua / ub) : a / b;
      else
        x = uns ? static_cast<int64_t>(ua % ub) : a % b;
      break;
    case BinaryOp::Shl:
      x = static_cast<int64_t>(ua << (b & 63));
      break;
    case BinaryOp::Shr:
      x = uns ? static_cast<int64_t>(ua >> (b & 63)) : a >> (b & 63);
      break;
    case BinaryOp::Lt:
      x = uns ? ua < ub : a < b;
      break;
    case BinaryOp::Gt:
      x = uns ? ua > ub : a > b;
      break;
    case BinaryOp::Le:
      x = uns ? ua <= ub : a <= b;
      break;
    case BinaryOp::Ge:
      x = uns ? ua >= ub : a >= b;
      break;
    case BinaryOp::Eq:
      x = a == b;
      break;
    case BinaryOp::Ne:
      x = a != b;
      break;
    case BinaryOp::BitAnd:
      x = a & b;
      break;
    case BinaryOp::BitOr:
      x = a | b;
      break;
    case BinaryOp::BitXor:
      x = a ^ b;
      break;
    case BinaryOp::LogAnd:
      x = a && b;
      break;
    case BinaryOp::LogOr:
      x = a || b;
      break;
    case BinaryOp::Comma:
      x = b;
      break;
    default:
      return false;
    }
    return integer(v, truncateToType(x, e->type));
  }

  // Floating operands (only foldArith gets here): the four arithmetic operators, in double.
  static bool floating(BinaryOp op, ConstValue l, ConstValue r, ConstValue &v) {
    double a = l.isFloat ? l.f : static_cast<double>(l.i);
    double b = r.isFloat ? r.f : static_cast<double>(r.i);
    v.isFloat = true;
    switch (op) {
    case BinaryOp::Add:
      v.f = a + b;
      return true;
    case BinaryOp::Sub:
      v.f = a - b;
      return true;
    case BinaryOp::Mul:
      v.f = a * b;
      return true;
    case BinaryOp::Div:
      v.f = a / b;
      return true;
    default:
      return false;
    }
  }
};

} // namespace

bool foldInt(const Expr *e, int64_t &v, const Expr **divisionByZero) {
  ConstValue c;
  if (!e || !Folder(false, divisionByZero).eval(e, c))
    return false;
  v = c.i;
  return true;
}

bool foldArith(const Expr *e, ConstValue &v, const Expr **divisionByZero) {
  return e && Folder(true, divisionByZero).eval(e, v);
}

} // namespace kern::frontend
