// Semantic analysis of expressions: types, lvalues, C's conversions and promotions.
#include "frontend/sema_impl.h"
#include "frontend/texture_refs.h"

namespace kern::frontend::sema_detail {

Expr *Sema::condition(Expr *e) {
  if (!check(e))
    return e;
  Expr *r = rvalue(e);
  if (r->type->isStruct() && conversionRank(r, types_.boolTy()) >= 0) // `operator bool()`
    return convert(r, types_.boolTy(), "condition");
  if (!r->type->isScalar()) {
    error(e->loc,
          "value of type '" + r->type->str() + "' is not contextually convertible to 'bool'");
    return r;
  }
  return convert(r, types_.boolTy(), "condition");
}

Expr *Sema::rvalue(Expr *e) {
  if (!e->type)
    return e;
  if (e->type->isFunction()) { // a function designator decays to a pointer to the function
    auto *f = e->kind == ExprKind::Ident ? dynamic_cast<FunctionDecl *>(e->decl) : nullptr;
    functionAddressTaken(f, e->loc);
    return implicitCast(e, types_.pointerTo(e->type));
  }
  if (e->type->isArray()) {
    AddrSpace sp = spaceOfObject(e);
    return implicitCast(
        e, types_.pointerTo(e->type->elem, sp, e->typeSyntax ? e->typeSyntax->isConst : false));
  }
  return e;
}

AddrSpace Sema::spaceOfObject(Expr *e) {
  switch (e->kind) {
  case ExprKind::Ident:
    if (auto *v = dynamic_cast<VarDecl *>(e->decl)) {
      if (v->quals.shared)
        return AddrSpace::Shared;
      if (v->quals.constant)
        return AddrSpace::Constant;
      if (v->isGlobalScope)
        return v->quals.device ? AddrSpace::Global : AddrSpace::Host;
      return side_ == Side::Host ? AddrSpace::Host : AddrSpace::Local;
    }
    return defaultSpace();
  case ExprKind::Index:
    if (e->operands[0]->type && e->operands[0]->type->isPointer())
      return e->operands[0]->type->space;
    return spaceOfObject(e->operands[0]);
  case ExprKind::Member:
    if (e->isArrow)
      return e->operands[0]->type->space;
    return spaceOfObject(e->operands[0]);
  case ExprKind::Unary:
    if (e->unaryOp == UnaryOp::Deref)
      return e->operands[0]->type->space;
    return defaultSpace();
  case ExprKind::Cast:
    if (e->operands[0]->type && e->operands[0]->type->isArray())
      return spaceOfObject(e->operands[0]);
    return defaultSpace();
  default:
    return defaultSpace();
  }
}

const Type *Sema::promote(const Type *t) {
  if (t->isInteger() && t->rank() < types_.intTy()->rank())
    return types_.intTy();
  return t;
}

const Type *Sema::common(const Type *a, const Type *b) {
  if (a->kind == TypeKind::Double || b->kind == TypeKind::Double)
    return types_.doubleTy();
  if (a->kind == TypeKind::Float || b->kind == TypeKind::Float)
    return types_.floatTy();
  a = promote(a);
  b = promote(b);
  if (a == b)
    return a;
  if (a->isSigned() == b->isSigned())
    return a->rank() >= b->rank() ? a : b;
  const Type *u = a->isSigned() ? b : a;
  const Type *s = a->isSigned() ? a : b;
  if (u->rank() >= s->rank())
    return u;
  if (s->size() > u->size())
    return s;
  // Signed type cannot represent the unsigned one: its unsigned counterpart.
  switch (s->kind) {
  case TypeKind::Long:
    return types_.get(TypeKind::ULong);
  case TypeKind::LongLong:
    return types_.get(TypeKind::ULongLong);
  default:
    return types_.uintTy();
  }
}

Expr *Sema::convert(Expr *e, const Type *to, const char *context) {
  if (!e->type)
    return e;
  e = rvalue(e);
  const Type *from = e->type;
  if (from == to)
    return e;
  if (to->isBool() && (from->isArithmetic() || from->isPointer()))
    return implicitCast(e, to);
  if (to->isArithmetic() && from->isArithmetic())
    return implicitCast(e, to);
  if (to->isPointer()) {
    if (from->isPointer()) {
      bool compatible = to->elem == from->elem || sameIgnoringSpace(to->elem, from->elem) ||
                        (to->elem->isVoid() && !from->elem->isFunction()) ||
                        (options_.cLanguage && from->elem->isVoid() && !to->elem->isFunction()) ||
                        unprototypedMatch(to->elem, from->elem);
      if (!compatible && options_.cLanguage && !from->elem->isFunction() &&
          !to->elem->isFunction()) {
        // C converts between object pointer types with a warning (GCC's
        // -Wincompatible-pointer-types); C++ does not.
        diags_.warning(e->loc, std::string("incompatible pointer types: '") + from->str() +
                                   "' converted to '" + to->str() + "' when " + context);
        return implicitCast(e, to);
      }
      if (Expr *c = compatible ? nullptr : derivedToBase(e, to, context))
        return c;
      if (!compatible) {
        error(e->loc, std::string("cannot convert '") + from->str() + "' to '" + to->str() +
                          "' when " + context + " (a cast is needed)");
        return e;
      }
      if (from->pointeeConst && !to->pointeeConst) {
        error(e->loc, std::string("cannot convert '") + from->str() + "' to '" + to->str() +
                          "' when " + context + ": it discards 'const'");
        return e;
      }
      return implicitCast(e, to);
    }
    if (from->isInteger() && isNullConstant(e))
      return implicitCast(e, to);
  }
  if (to->isStruct() && from == to)
    return e;
  if (to == types_.dim3Ty() && (from == types_.uint3Ty() || from->isInteger())) {
    // dim3 from an integer: dim3(n, 1, 1); from uint3: member-wise.
    Expr *c = implicitCast(e, to);
    return c;
  }
  if (to == types_.uint3Ty() && from == types_.dim3Ty())
    return implicitCast(e, to);
  if (to->isStruct() && from->isStruct() && to->record == from->record)
    return e;
  if (Expr *base = sliceToBase(e, to))
    return base;
  if (from->isStruct())
    if (Expr *c = conversionCall(e, to))
      return c->type ? convert(c, to, context) : c;
  if (to->isStruct() && convertingConstructor(to, e)) {
    // `half h = 1.5f;`: the converting constructor `__half(float)` makes the value.
    Expr *c = constructorCall(to, {e}, e->loc);
    check(c);
    return c;
  }
  error(e->loc,
        std::string("cannot convert '") + from->str() + "' to '" + to->str() + "' when " + context);
  return e;
}

bool Sema::check(Expr *e) {
  if (!e)
    return false;
  if (e->type)
    return true; // already checked (shared subtrees such as constant array sizes)
  checkExpr(e);
  return e->type != nullptr;
}

void Sema::checkExpr(Expr *e) {
  switch (e->kind) {
  case ExprKind::IntLit:
    e->type = intLiteralType(e);
    return;
  case ExprKind::FloatLit:
    e->type = e->isFloatSuffix ? types_.floatTy() : types_.doubleTy();
    return;
  case ExprKind::CharLit:
    e->type = types_.get(TypeKind::Char);
    return;
  case ExprKind::StringLit:
    e->type = types_.arrayOf(types_.get(TypeKind::Char), e->stringValue.size() + 1);
    e->isLValue = true;
    return;
  case ExprKind::Ident:
    ident(e);
    return;
  case ExprKind::Unary:
    unary(e);
    return;
  case ExprKind::Binary:
    binary(e);
    return;
  case ExprKind::Conditional:
    conditional(e);
    return;
  case ExprKind::Call:
    call(e);
    return;
  case ExprKind::Lambda:
    lambda(e);
    return;
  case ExprKind::New:
  case ExprKind::Delete:
    newExpression(e);
    return;
  case ExprKind::Index:
    index(e);
    return;
  case ExprKind::Member:
    member(e);
    return;
  case ExprKind::Cast:
    cast(e);
    return;
  case ExprKind::SizeofType: {
    const Type *t = resolve(e->typeSyntax, defaultSpace());
    if (!t)
      return;
    if (t->isVoid() || t->isFunction() || (t->isStruct() && !t->record->complete)) {
      error(e->loc, std::string("invalid application of '") +
                        (e->isAlignof ? "alignof" : "sizeof") + "' to an incomplete type '" +
                        t->str() + "'");
      return;
    }
    e->intValue = e->isAlignof ? t->align() : t->size();
    e->type = types_.sizeTy();
    return;
  }
  case ExprKind::SizeofExpr: {
    if (!check(e->operands[0]))
      return;
    e->intValue = e->isAlignof ? e->operands[0]->type->align() : e->operands[0]->type->size();
    e->type = types_.sizeTy();
    return;
  }
  case ExprKind::InitList:
    error(e->loc, "initializer list is only allowed in a declaration");
    return;
  case ExprKind::Temporary: // made by sema, typed when made
  case ExprKind::Construct:
  case ExprKind::ConstructTarget:
    return;
  case ExprKind::StmtExpr:
    stmtExpr(e);
    return;
  }
}

void Sema::stmtExpr(Expr *e) {
  if (!fn_) {
    error(e->loc, "statement expressions are not allowed outside functions");
    return;
  }
  // A jump out of the braces (GCC allows one) is not lowered: break and continue must find
  // their loop or switch inside.
  int savedLoop = loopDepth_, savedSwitch = switchDepth_;
  loopDepth_ = switchDepth_ = 0;
  ++stmtExprDepth_;
  push();
  for (Stmt *s : e->body->body)
    stmt(s);
  pop();
  --stmtExprDepth_;
  loopDepth_ = savedLoop;
  switchDepth_ = savedSwitch;
  Stmt *last = e->body->body.empty() ? nullptr : e->body->body.back();
  if (!last || last->kind != StmtKind::Expr || !last->expr) {
    e->type = types_.voidTy();
    return;
  }
  if (!last->expr->type)
    return; // reported
  // The value is a copy of the last expression's (GCC: an rvalue, arrays decayed).
  last->expr = rvalue(last->expr);
  e->type = last->expr->type;
}

const Type *Sema::intLiteralType(Expr *e) {
  std::string suffix;
  for (char c : e->text)
    if (c == 'u' || c == 'U' || c == 'l' || c == 'L')
      suffix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool isU = suffix.find('u') != std::string::npos;
  int nl = static_cast<int>(std::count(suffix.begin(), suffix.end(), 'l'));
  bool decimal = !(e->text.size() > 1 && e->text[0] == '0');
  uint64_t v = e->intValue;
  // C's rule: the first type of the list that can represent the value.
  std::vector<TypeKind> candidates;
  if (!isU && nl == 0) {
    candidates = {TypeKind::Int};
    if (!decimal)
      candidates.push_back(TypeKind::UInt);
    candidates.push_back(TypeKind::Long);
    if (!decimal)
      candidates.push_back(TypeKind::ULong);
    candidates.push_back(TypeKind::LongLong);
    candidates.push_back(TypeKind::ULongLong);
  } else if (isU && nl == 0)
    candidates = {TypeKind::UInt, TypeKind::ULong, TypeKind::ULongLong};
  else if (!isU && nl == 1)
    candidates = decimal ? std::vector<TypeKind>{TypeKind::Long, TypeKind::LongLong}
                         : std::vector<TypeKind>{TypeKind::Long, TypeKind::ULong,
                                                 TypeKind::LongLong, TypeKind::ULongLong};
  else if (isU && nl == 1)
    candidates = {TypeKind::ULong, TypeKind::ULongLong};
  else if (!isU)
    candidates = decimal ? std::vector<TypeKind>{TypeKind::LongLong}
                         : std::vector<TypeKind>{TypeKind::LongLong, TypeKind::ULongLong};
  else
    candidates = {TypeKind::ULongLong};
  for (TypeKind k : candidates) {
    const Type *t = types_.get(k);
    uint64_t max = t->size() == 8 ? (t->isSigned() ? INT64_MAX : UINT64_MAX)
                                  : (t->isSigned() ? INT32_MAX : UINT32_MAX);
    if (v <= max)
      return t;
  }
  return types_.get(TypeKind::ULongLong);
}

void Sema::ident(Expr *e) {
  if (!instanceMember(e))
    return;
  if (implicitMember(e))
    return;
  if (e->name.find("::") != std::string::npos && !lookup(e->name) && !lookupEnumerator(e->name))
    if (std::string base = inheritedStatic(e->name, 0); !base.empty())
      e->name = base;
  const std::string &n = e->name;
  if (Decl *d = lookup(n)) {
    e->decl = d;
    if (auto *v = dynamic_cast<VarDecl *>(d)) {
      if (!v->type)
        return; // an earlier error
      if (v->isGlobalScope) {
        bool deviceVar = v->quals.device || v->quals.constant || v->quals.shared;
        if (side_ == Side::Host && deviceVar) {
          error(e->loc, "device variable '" + n +
                            "' cannot be used directly in host code (use cudaMemcpyToSymbol)");
          return;
        }
        // A texture reference is both a host and a device object (texture_refs.h).
        if (side_ == Side::Device && !deviceVar && !(v->typeSyntax && v->typeSyntax->isConst) &&
            !isTextureReferenceType(v->type)) {
          error(e->loc, "host variable '" + n + "' cannot be used in device code");
          return;
        }
      }
      e->type = v->type;
      e->isLValue = true;
      if (v->type->isReference)
        dereference(e);
      return;
    }
    if (auto *f = dynamic_cast<FunctionDecl *>(d)) {
      e->type = f->type;
      f->isUsed = true;
      return;
    }
  }
  if (const Enumerator *en = lookupEnumerator(n)) {
    e->isEnumConst = true;
    e->enumValue = en->value;
    e->type = en->type ? en->type : types_.intTy();
    return;
  }
  static const std::map<std::string, int> objects = {
      {"threadIdx", kBuiltinThreadIdx}, {"blockIdx", kBuiltinBlockIdx},
      {"blockDim", kBuiltinBlockDim},   {"gridDim", kBuiltinGridDim},
      {"warpSize", kBuiltinWarpSize},   {"stdout", kBuiltinStdout},
      {"stderr", kBuiltinStderr},       {"stdin", kBuiltinStdin}};
  auto it = objects.find(n);
  if (it != objects.end()) {
    e->builtin = it->second;
    if (it->second <= kBuiltinGridDim) {
      if (side_ == Side::Host) {
        error(e->loc, "'" + n + "' is only available in device code");
        return;
      }
      e->type = it->second == kBuiltinThreadIdx || it->second == kBuiltinBlockIdx ? types_.uint3Ty()
                                                                                  : types_.dim3Ty();
    } else if (it->second == kBuiltinWarpSize) {
      e->type = types_.intTy();
    } else {
      if (side_ != Side::Host) {
        error(e->loc, "'" + n + "' is only available in host code");
        return;
      }
      e->type = types_.pointerTo(file_, AddrSpace::Host);
    }
    return;
  }
  const std::map<std::string, int64_t> *table = &builtinEnumerators();
  if (!table->count(n))
    table = &runtimeApiEnumerators();
  if (auto en = table->find(n); en != table->end()) {
    e->isEnumConst = true;
    e->enumValue = en->second;
    e->type = types_.intTy();
    return;
  }
  if (n == "true" || n == "false") {
    e->kind = ExprKind::IntLit;
    e->intValue = n == "true";
    e->text = e->intValue ? "1" : "0";
    e->type = types_.boolTy();
    return;
  }
  if (n == "INFINITY" || n == "NAN" || n == "HUGE_VALF" || n == "HUGE_VAL") {
    e->kind = ExprKind::FloatLit;
    e->floatValue = n == "NAN" ? __builtin_nan("") : __builtin_inf();
    e->isFloatSuffix = n != "HUGE_VAL";
    e->type = e->isFloatSuffix ? types_.floatTy() : types_.doubleTy();
    return;
  }
  if (findBuiltin(n) >= 0) {
    error(e->loc, "built-in function '" + n + "' can only be called");
    return;
  }
  if (n == "__kern_va_args" || n == "__kern_va_end") { // <stdarg.h>'s va_start
    if (n == "__kern_va_args")
      error(e->loc, fn_ && fn_->variadic ? "'va_start' in a lambda or local class of a "
                                           "variadic function is not supported"
                                         : "'va_start' used in a function with fixed arguments");
    return;
  }
  if (!functionNameLiteral(e))
    error(e->loc, "use of undeclared identifier '" + n + "'" + didYouMean(n));
}

bool Sema::modifiable(Expr *e, const char *what) {
  Expr *base = e;
  while (base->kind == ExprKind::Member && !base->isArrow)
    base = base->operands[0];
  if (isBuiltinObject(base)) {
    error(base->loc, "cannot assign to built-in variable '" + base->name + "'");
    return false;
  }
  if (!e->isLValue) {
    error(e->loc, std::string("expression is not assignable") + what);
    return false;
  }
  if (e->type->isArray()) {
    error(e->loc, "array type '" + e->type->str() + "' is not assignable");
    return false;
  }
  if (isConstLValue(e)) {
    error(e->loc, "cannot assign to a const-qualified object");
    return false;
  }
  return true;
}

bool Sema::isConstLValue(Expr *e) {
  switch (e->kind) {
  case ExprKind::Ident:
    if (auto *v = dynamic_cast<VarDecl *>(e->decl))
      return v->typeSyntax && v->typeSyntax->isConst &&
             (v->typeSyntax->ops.empty() || v->typeSyntax->ops.back().kind == TypeOp::Kind::Array);
    return false;
  case ExprKind::Unary:
    return e->unaryOp == UnaryOp::Deref && e->operands[0]->type->isPointer() &&
           e->operands[0]->type->pointeeConst;
  case ExprKind::Index: {
    const Type *bt = e->operands[0]->type;
    if (bt->isPointer())
      return bt->pointeeConst;
    return false;
  }
  case ExprKind::Member:
    if (e->isArrow)
      return e->operands[0]->type->pointeeConst;
    return isConstLValue(e->operands[0]);
  default:
    return false;
  }
}

void Sema::unary(Expr *e) {
  Expr *&o = e->operands[0];
  if (!check(o))
    return;
  if (e->unaryOp != UnaryOp::AddrOf && operatorCall(e))
    return;
  switch (e->unaryOp) {
  case UnaryOp::Plus:
  case UnaryOp::Minus:
  case UnaryOp::BitNot: {
    Expr *r = rvalue(o);
    if (!r->type->isArithmetic() || (e->unaryOp == UnaryOp::BitNot && !r->type->isInteger())) {
      error(e->loc,
            std::string("invalid argument type '") + r->type->str() + "' to unary expression");
      return;
    }
    const Type *t = promote(r->type);
    o = convert(r, t, "operand");
    e->type = t;
    return;
  }
  case UnaryOp::Not: {
    Expr *r = rvalue(o);
    if (!r->type->isScalar()) {
      error(e->loc, "invalid argument type '" + r->type->str() + "' to unary expression");
      return;
    }
    o = convert(r, types_.boolTy(), "operand");
    e->type = truthType(); // C: int; C++: bool
    return;
  }
  case UnaryOp::Deref: {
    Expr *r = rvalue(o);
    if (!r->type->isPointer()) {
      error(e->loc, "indirection requires pointer operand ('" + r->type->str() + "' invalid)");
      return;
    }
    if (r->type->elem->isVoid()) {
      error(e->loc, "cannot dereference a 'void *' pointer");
      return;
    }
    if (r->type->elem->isFunction()) { // `*p`: the function again, which decays back
      o = r;
      e->type = r->type->elem;
      return;
    }
    o = r;
    e->type = r->type->elem;
    e->isLValue = true;
    return;
  }
  case UnaryOp::AddrOf: {
    if (isBuiltinObject(o) || (o->kind == ExprKind::Member && isBuiltinObject(o->operands[0]))) {
      error(e->loc, "cannot take the address of built-in variable '" +
                        (o->kind == ExprKind::Member ? o->operands[0]->name : o->name) + "'");
      return;
    }
    if (o->type->isFunction()) { // `&f`: the same pointer as `f` decays to
      auto *f = o->kind == ExprKind::Ident ? dynamic_cast<FunctionDecl *>(o->decl) : nullptr;
      functionAddressTaken(f, e->loc);
      e->type = types_.pointerTo(o->type);
      return;
    }
    if (!o->isLValue) {
      error(e->loc, "cannot take the address of an rvalue of type '" + o->type->str() + "'");
      return;
    }
    markAddressTaken(o);
    e->type = types_.pointerTo(o->type, spaceOfObject(o), isConstLValue(o));
    return;
  }
  case UnaryOp::PreInc:
  case UnaryOp::PreDec:
  case UnaryOp::PostInc:
  case UnaryOp::PostDec: {
    if (!modifiable(o, ""))
      return;
    if (!o->type->isScalar() ||
        (o->type->isPointer() && (o->type->elem->isVoid() || o->type->elem->isFunction()))) {
      error(e->loc, "cannot increment value of type '" + o->type->str() + "'");
      return;
    }
    e->type = o->type;
    return;
  }
  }
}

void Sema::markAddressTaken(Expr *o) {
  while (o->kind == ExprKind::Member && !o->isArrow)
    o = o->operands[0];
  while (o->kind == ExprKind::Index && o->operands[0]->type->isArray())
    o = o->operands[0];
  if (o->kind == ExprKind::Ident)
    if (auto *v = dynamic_cast<VarDecl *>(o->decl))
      v->addressTaken = true;
}

/// "invalid operands to binary expression ('int *' and 'float')", clang's wording. Operators on
/// CUDA's vector types (float3 + float3) come from helper_math.h's overloads: said so.
void Sema::invalidOperands(Expr *e, const Type *l, const Type *r) {
  auto isVector = [this](const Type *t) {
    if (t == types_.dim3Ty())
      return true;
    for (const auto &v : vectorTypes_)
      if (v.second == t)
        return true;
    return false;
  };
  error(e->loc, "invalid operands to binary expression ('" + l->str() + "' and '" + r->str() +
                    "')" +
                    (isVector(l) || isVector(r) ? "; CUDA's vector types have no operators of "
                                                  "their own: helper_math.h defines them"
                                                : ""));
}

/// Both operands converted to their common type (C's usual arithmetic conversions).
void Sema::usualConversions(Expr *e, Expr *&l, Expr *&r, Expr *lv, Expr *rv) {
  const Type *ct = common(lv->type, rv->type);
  l = convert(lv, ct, "operand");
  r = convert(rv, ct, "operand");
  e->type = ct;
}

void Sema::binary(Expr *e) {
  Expr *&l = e->operands[0];
  Expr *&r = e->operands[1];
  if (!check(l) | !check(r))
    return;
  if (!e->initializes && operatorCall(e))
    return;
  BinaryOp op = e->binaryOp;
  if (op == BinaryOp::Comma) {
    r = rvalue(r);
    e->type = r->type;
    return;
  }
  if (isAssignment(op)) {
    if (!modifiable(l, ""))
      return;
    if (op == BinaryOp::Assign) {
      if (l->type->isStruct()) {
        Expr *rv = rvalue(r);
        if (rv->type != l->type &&
            !(l->type == types_.dim3Ty() &&
              (rv->type->isInteger() || rv->type == types_.uint3Ty())) &&
            !convertingConstructor(l->type, rv)) {
          error(e->loc, "assigning to '" + l->type->str() + "' from incompatible type '" +
                            rv->type->str() + "'");
          return;
        }
        r = convert(rv, l->type, "assigning");
        e->type = l->type;
        return;
      }
      r = convert(r, l->type, "assigning");
      e->type = l->type;
      return;
    }
    // Compound assignment: l = l op r, computed in the common type.
    BinaryOp base = compoundBase(op);
    Expr *rv = rvalue(r);
    if (l->type->isPointer() && (base == BinaryOp::Add || base == BinaryOp::Sub)) {
      if (!rv->type->isInteger() || l->type->elem->isFunction()) {
        error(e->loc, "invalid operands to pointer arithmetic");
        return;
      }
      r = convert(rv, types_.get(TypeKind::Long), "pointer arithmetic");
      e->type = l->type;
      return;
    }
    if (!l->type->isArithmetic() || !rv->type->isArithmetic()) {
      invalidOperands(e, l->type, rv->type);
      return;
    }
    bool intOnly = base == BinaryOp::Rem || base == BinaryOp::Shl || base == BinaryOp::Shr ||
                   base == BinaryOp::BitAnd || base == BinaryOp::BitOr || base == BinaryOp::BitXor;
    if (intOnly && (!l->type->isInteger() || !rv->type->isInteger())) {
      invalidOperands(e, l->type, rv->type);
      return;
    }
    const Type *ct = (base == BinaryOp::Shl || base == BinaryOp::Shr) ? promote(l->type)
                                                                      : common(l->type, rv->type);
    r = convert(rv, base == BinaryOp::Shl || base == BinaryOp::Shr ? promote(rv->type) : ct,
                "operand");
    // The computation type is recorded in intValue-free form: lowering recomputes it as
    // common(l, r) from the operand types, so keep r converted to it.
    e->type = l->type;
    return;
  }
  Expr *lv = rvalue(l), *rv = rvalue(r);
  const Type *lt = lv->type, *rt = rv->type;
  switch (op) {
  case BinaryOp::LogAnd:
  case BinaryOp::LogOr:
    if (!lt->isScalar() || !rt->isScalar()) {
      invalidOperands(e, lt, rt);
      return;
    }
    l = convert(lv, types_.boolTy(), "operand");
    r = convert(rv, types_.boolTy(), "operand");
    e->type = truthType();
    return;
  case BinaryOp::Add:
  case BinaryOp::Sub:
    if ((lt->isPointer() && lt->elem->isFunction()) ||
        (rt->isPointer() && rt->elem->isFunction())) {
      error(e->loc, "arithmetic on a pointer to a function");
      return;
    }
    if (lt->isPointer() && rt->isInteger()) {
      l = lv;
      r = convert(rv, types_.get(TypeKind::Long), "pointer arithmetic");
      e->type = lt;
      return;
    }
    if (op == BinaryOp::Add && lt->isInteger() && rt->isPointer()) {
      // Canonicalise `n + p` to `p + n`.
      std::swap(l, r);
      l = rv;
      r = convert(lv, types_.get(TypeKind::Long), "pointer arithmetic");
      e->type = rt;
      return;
    }
    if (op == BinaryOp::Sub && lt->isPointer() && rt->isPointer()) {
      if (!sameIgnoringSpace(lt->elem, rt->elem)) {
        error(e->loc,
              "'" + lt->str() + "' and '" + rt->str() + "' are not pointers to compatible types");
        return;
      }
      l = lv;
      r = rv;
      e->type = types_.get(TypeKind::Long);
      return;
    }
    [[fallthrough]];
  case BinaryOp::Mul:
  case BinaryOp::Div:
    if (!lt->isArithmetic() || !rt->isArithmetic()) {
      invalidOperands(e, lt, rt);
      return;
    }
    usualConversions(e, l, r, lv, rv);
    return;
  case BinaryOp::Rem:
  case BinaryOp::BitAnd:
  case BinaryOp::BitOr:
  case BinaryOp::BitXor:
    if (!lt->isInteger() || !rt->isInteger()) {
      invalidOperands(e, lt, rt);
      return;
    }
    usualConversions(e, l, r, lv, rv);
    return;
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    if (!lt->isInteger() || !rt->isInteger()) {
      invalidOperands(e, lt, rt);
      return;
    }
    l = convert(lv, promote(lt), "operand");
    r = convert(rv, promote(rt), "operand");
    e->type = promote(lt);
    return;
  case BinaryOp::Lt:
  case BinaryOp::Gt:
  case BinaryOp::Le:
  case BinaryOp::Ge:
  case BinaryOp::Eq:
  case BinaryOp::Ne:
    e->type = truthType();
    if (lt->isArithmetic() && rt->isArithmetic()) {
      const Type *ct = common(lt, rt);
      l = convert(lv, ct, "operand");
      r = convert(rv, ct, "operand");
      return;
    }
    if (lt->isPointer() && rt->isPointer()) {
      if (rt->elem->isVoid() && !lt->elem->isVoid()) { // `p == v`: compared as void pointers
        l = convert(lv, rt, "comparison");
        r = rv;
        return;
      }
      if (sameIgnoringSpace(lt->elem, rt->elem) && rt->pointeeConst && !lt->pointeeConst) {
        l = convert(lv, rt, "comparison"); // `this != &other`: compared as const pointers
        r = rv;
        return;
      }
      l = lv;
      r = convert(rv, lt->elem->isVoid() || sameIgnoringSpace(lt->elem, rt->elem) ? lt : rt,
                  "comparison");
      return;
    }
    if (lt->isPointer() && rt->isInteger() && isNullConstant(rv)) {
      l = lv;
      r = implicitCast(rv, lt);
      return;
    }
    if (rt->isPointer() && lt->isInteger() && isNullConstant(lv)) {
      r = rv;
      l = implicitCast(lv, rt);
      return;
    }
    if (options_.cLanguage && (lt->isPointer() != rt->isPointer()) &&
        (lt->isInteger() || rt->isInteger())) {
      // C compares a pointer with an integer after a warning (`p != '\n'`), as GCC does.
      diags_.warning(e->loc, "comparison between pointer and integer ('" + lt->str() + "' and '" +
                                 rt->str() + "')");
      const Type *pt = lt->isPointer() ? lt : rt;
      l = lt->isPointer() ? lv : implicitCast(lv, pt);
      r = rt->isPointer() ? rv : implicitCast(rv, pt);
      return;
    }
    invalidOperands(e, lt, rt);
    e->type = nullptr;
    return;
  default:
    error(e->loc, "unsupported binary operator");
    return;
  }
}

void Sema::conditional(Expr *e) {
  for (auto *o : e->operands)
    if (!check(o))
      return;
  e->operands[0] = condition(e->operands[0]);
  if (lvalueConditional(e))
    return;
  Expr *a = rvalue(e->operands[1]), *b = rvalue(e->operands[2]);
  const Type *at = a->type, *bt = b->type;
  if (at->isArithmetic() && bt->isArithmetic()) {
    const Type *ct = common(at, bt);
    e->operands[1] = convert(a, ct, "operand");
    e->operands[2] = convert(b, ct, "operand");
    e->type = ct;
    return;
  }
  if (at == bt) {
    e->operands[1] = a;
    e->operands[2] = b;
    e->type = at;
    return;
  }
  if (at->isPointer() && bt->isPointer() && !at->elem->isFunction() && !bt->elem->isFunction()) {
    // The composite pointer type: const if either side's pointee is (`n ? n : "lit"` with a
    // `const char *n`), `void *` if either side is.
    const bool isConst = at->pointeeConst || bt->pointeeConst;
    const Type *elem = at->elem->isVoid() || bt->elem->isVoid() ? types_.voidTy() : at->elem;
    const Type *ct = types_.pointerTo(elem, at->space, isConst);
    e->operands[1] = convert(a, ct, "operand");
    e->operands[2] = convert(b, ct, "operand");
    e->type = ct;
    return;
  }
  if (at->isPointer() && (bt->isPointer() || isNullConstant(b))) {
    e->operands[1] = a;
    e->operands[2] = convert(b, at, "operand");
    e->type = at;
    return;
  }
  if (bt->isPointer() && isNullConstant(a)) {
    e->operands[1] = convert(a, bt, "operand");
    e->operands[2] = b;
    e->type = bt;
    return;
  }
  error(e->loc, "incompatible operand types ('" + at->str() + "' and '" + bt->str() + "')");
}

void Sema::index(Expr *e) {
  if (!check(e->operands[0]) | !check(e->operands[1]))
    return;
  if (operatorCall(e))
    return;
  Expr *b = rvalue(e->operands[0]), *i = rvalue(e->operands[1]);
  if (b->type->isInteger() && i->type->isPointer())
    std::swap(b, i); // `i[p]` is `p[i]`
  if (!b->type->isPointer()) {
    error(e->loc, "subscripted value is not an array or pointer");
    return;
  }
  if (!i->type->isInteger()) {
    error(e->operands[1]->loc, "array subscript is not an integer");
    return;
  }
  if (b->type->elem->isVoid()) {
    error(e->loc, "subscript of a 'void *' pointer");
    return;
  }
  if (b->type->elem->isFunction()) {
    error(e->loc, "subscript of a pointer to a function");
    return;
  }
  e->operands[0] = b;
  e->operands[1] = convert(i, types_.get(TypeKind::Long), "subscript");
  e->type = b->type->elem;
  e->isLValue = true;
}

void Sema::member(Expr *e) {
  if (!check(e->operands[0]) || !qualifiedMember(e))
    return;
  Expr *b = e->operands[0];
  const Type *st = b->type;
  if (e->isArrow) {
    // `it->x` on a class with operator->: `it.operator->()->x`, again while the result is a
    // class (C++'s drill-down).
    for (int depth = 0;
         depth < 16 && b->type && b->type->isStruct() && method(b->type, "operator->"); ++depth) {
      Expr *callee = make(ExprKind::Member, e->loc);
      callee->name = "operator->";
      callee->operands = {b};
      Expr *c = make(ExprKind::Call, e->loc);
      c->operands = {callee};
      call(c);
      if (!c->type)
        return;
      b = c;
      e->operands[0] = b;
    }
    b = rvalue(b);
    e->operands[0] = b;
    if (!b->type->isPointer() || !b->type->elem->isStruct()) {
      error(e->loc, "member reference type '" + b->type->str() + "' is not a pointer to a struct");
      return;
    }
    st = b->type->elem;
  } else if (!st->isStruct()) {
    error(e->loc, "member reference base type '" + st->str() + "' is not a struct");
    return;
  }
  if (!st->record->complete) {
    error(e->loc, "incomplete type '" + st->str() + "'");
    return;
  }
  const StructField *f = st->record->field(e->name);
  if (!f && (anonymousMember(e, st) || inheritedMember(e, st)))
    return;
  if (!f) {
    error(e->loc, "no member named '" + e->name + "' in '" + st->str() + "'");
    return;
  }
  e->type = f->type;
  e->isLValue = e->isArrow || b->isLValue;
}

void Sema::cast(Expr *e) {
  if (e->operands[0]->kind == ExprKind::InitList && e->typeSyntax) { // `(T){...}`
    if (const Type *t = resolve(e->typeSyntax, defaultSpace())) {
      e->operands[0] = bracedValue(e->operands[0], t);
      e->type = e->operands[0]->type ? t : nullptr;
    }
    return;
  }
  if (e->text == "dynamic_cast") {
    dynamicCast(e);
    return;
  }
  if (!check(e->operands[0]))
    return;
  const Type *to = resolve(e->typeSyntax, defaultSpace());
  if (!to)
    return;
  Expr *o = rvalue(e->operands[0]);
  e->operands[0] = o;
  const Type *from = o->type;
  if (to->isVoid()) {
    e->type = to;
    return;
  }
  bool ok = (to->isArithmetic() && from->isArithmetic()) ||
            (to->isPointer() && (from->isPointer() || from->isInteger())) ||
            (to->isInteger() && from->isPointer() && to->size() == 8) ||
            (to->isBool() && from->isPointer()) || (to == from);
  if (!ok) {
    if (to == types_.dim3Ty() && from->isInteger()) {
      e->type = to;
      return;
    }
    if (from->isStruct() || (to->isStruct() && convertingConstructor(to, o))) {
      // `(float)h` through `operator float()`, `(S)x` through `S(x)`: the conversion itself.
      unsigned before = diags_.errorCount();
      Expr *c = convert(o, to, "casting");
      if (diags_.errorCount() == before) {
        e->kind = ExprKind::Cast;
        e->typeSyntax = nullptr; // an implicit cast of the converted value
        e->operands = {c};
        e->type = to;
        return;
      }
      return;
    }
    error(e->loc, "cannot cast from '" + from->str() + "' to '" + to->str() + "'");
    return;
  }
  if (to->isPointer() && from->isPointer() && to->space == AddrSpace::Generic &&
      from->space != AddrSpace::Generic && side_ != Side::Host)
    to = types_.pointerTo(to->elem, from->space, to->pointeeConst); // keep what we know
  if (to->isPointer() && from->isPointer() && e->text != "reinterpret_cast")
    e->baseOffset = classCastOffset(from->elem, to->elem);
  e->type = to;
}

} // namespace kern::frontend::sema_detail
