// AST -> Kern IR for the CUDA Math API calls that are not one intrinsic of the same name:
// results through pointers (sincos, frexp, modf, remquo), arithmetic in a given rounding mode
// (__fadd_rz, __fmaf_ru, ...), type conversions (__float2int_rd, __ll2float_ru, ...), bit
// splits (__double2hiint) and aliases of other functions (__log2f).
#include "ir/lower_impl.h"

#include <map>
#include <regex>

namespace kern::ir::lower_detail {

namespace {

// Rounding modes and operations as the backend's math library numbers them
// (backend/math_library.h: KernRoundingMode, KernRoundedOp).
int roundingMode(const std::string &m) { return m == "rn" ? 0 : m == "rz" ? 1 : m == "rd" ? 2 : 3; }
int roundedOp(const std::string &op) {
  static const std::map<std::string, int> ops = {{"add", 0}, {"sub", 1},  {"mul", 2}, {"div", 3},
                                                 {"rcp", 4}, {"sqrt", 5}, {"fma", 6}};
  return ops.at(op);
}

} // namespace

bool Lowerer::mathBuiltin(fe::Expr *e, const std::string &n, Expr *&out) {
  static const std::map<std::string, std::string> aliases = {
      {"__log2f", "log2f"}, {"__log10f", "log10f"}, {"__tanf", "tanf"}, {"fdividef", "__fdividef"}};
  auto args = [&] {
    std::vector<Expr *> v;
    for (fe::Expr *a : e->args)
      v.push_back(rvalue(a));
    return v;
  };
  Type rt = irType(e->type);
  if (n == "__exp10f") {
    // As the GPU computes it: 2 to the power x * log2(10), the product rounded to float (so
    // __exp10f(2.0f) is 99.9999924, as on an H100, not 100).
    std::vector<Expr *> v = args();
    out =
        intrinsic(IntrinsicId::Exp2F, rt,
                  {bin(ir::BinaryOp::Mul, v[0], constFloat(Type::f32(), 3.32192809488736234787))});
    return true;
  }
  if (auto it = aliases.find(n); it != aliases.end()) {
    IntrinsicId id{};
    if (!intrinsicByName(it->second, id))
      return false; // not reached: every alias names an intrinsic of intrinsics.def
    out = intrinsic(id, rt, args());
    return true;
  }
  auto storeTo = [&](Expr *addr, Expr *value) { store(addr, value, addr->type.space, e->loc); };
  auto isFloat = [&](Expr *x) { return x->type.kind == ir::TypeKind::F32; };
  auto pick = [&](Expr *x, IntrinsicId f, IntrinsicId d) { return isFloat(x) ? f : d; };

  // Results through pointers: each is computed on its own and stored where the call stands.
  if (n == "sincosf" || n == "sincos" || n == "__sincosf" || n == "sincospif" || n == "sincospi") {
    auto v = args();
    Expr *x = snapshot(v[0], n + ".x", e->loc);
    bool pi = n.find("pi") != std::string::npos;
    storeTo(v[1], intrinsic(pi ? pick(x, IntrinsicId::SinpiF, IntrinsicId::Sinpi)
                               : pick(x, IntrinsicId::SinF, IntrinsicId::Sin),
                            x->type, {x}));
    storeTo(v[2], intrinsic(pi ? pick(x, IntrinsicId::CospiF, IntrinsicId::Cospi)
                               : pick(x, IntrinsicId::CosF, IntrinsicId::Cos),
                            x->type, {x}));
    out = constInt(Type::i32(true), 0);
    return true;
  }
  if (n == "frexpf" || n == "frexp" || n == "modff" || n == "modf") {
    auto v = args();
    Expr *x = snapshot(v[0], n + ".x", e->loc);
    if (n[0] == 'f') {
      storeTo(v[1], intrinsic(pick(x, IntrinsicId::FrexpExpF, IntrinsicId::FrexpExp),
                              Type::i32(true), {x}));
      out = intrinsic(pick(x, IntrinsicId::FrexpF, IntrinsicId::Frexp), rt, {x});
    } else {
      storeTo(v[1], intrinsic(pick(x, IntrinsicId::TruncF, IntrinsicId::Trunc), x->type, {x}));
      out = intrinsic(pick(x, IntrinsicId::ModfF, IntrinsicId::Modf), rt, {x});
    }
    out = snapshot(out, n, e->loc);
    return true;
  }
  if (n == "remquof" || n == "remquo") {
    auto v = args();
    Expr *x = snapshot(v[0], n + ".x", e->loc);
    Expr *y = snapshot(v[1], n + ".y", e->loc);
    storeTo(v[2], intrinsic(pick(x, IntrinsicId::RemquoQuoF, IntrinsicId::RemquoQuo),
                            Type::i32(true), {x, y}));
    out = snapshot(intrinsic(pick(x, IntrinsicId::RemainderF, IntrinsicId::Remainder), rt, {x, y}),
                   n, e->loc);
    return true;
  }

  std::smatch m;
  // Arithmetic with a stated rounding: _rn is the IEEE operation itself.
  static const std::regex arith("__(f|d)(add|sub|mul|div|rcp|sqrt)_(rn|rz|rd|ru)|__(fmaf|fma)_"
                                "(rn|rz|rd|ru)");
  if (std::regex_match(n, m, arith)) {
    auto v = args();
    std::string op = m[2].matched ? m[2].str() : "fma";
    std::string mode = m[3].matched ? m[3].str() : m[5].str();
    bool f = rt.kind == ir::TypeKind::F32;
    if (mode == "rn") {
      static const std::map<std::string, ir::BinaryOp> binary = {{"add", ir::BinaryOp::Add},
                                                                 {"sub", ir::BinaryOp::Sub},
                                                                 {"mul", ir::BinaryOp::Mul},
                                                                 {"div", ir::BinaryOp::Div}};
      if (auto it = binary.find(op); it != binary.end())
        out = bin(it->second, v[0], v[1]);
      else if (op == "rcp")
        out = bin(ir::BinaryOp::Div, constFloat(rt, 1.0), v[0]);
      else if (op == "sqrt")
        out = intrinsic(f ? IntrinsicId::SqrtF : IntrinsicId::Sqrt, rt, v);
      else
        out = intrinsic(f ? IntrinsicId::FmaF : IntrinsicId::Fma, rt, v);
      return true;
    }
    while (v.size() < 3)
      v.push_back(constFloat(rt, 0.0));
    out = intrinsic(f ? IntrinsicId::RoundedF : IntrinsicId::Rounded, rt,
                    {constInt(Type::i32(true), roundedOp(op)),
                     constInt(Type::i32(true), roundingMode(mode)), v[0], v[1], v[2]});
    return true;
  }

  // Conversions with a stated rounding.
  static const std::regex convert("__(float|double|int|uint|ll|ull)2(float|double|int|uint|ll|ull)_"
                                  "(rn|rz|rd|ru)");
  if (std::regex_match(n, m, convert)) {
    Expr *x = args()[0];
    std::string mode = m[3].str();
    if (x->type.isFloat() && rt.isInt()) {
      // Round to an integral value in the mode, then convert as the GPU does (saturating).
      bool f = isFloat(x);
      IntrinsicId round = mode == "rn"   ? (f ? IntrinsicId::RintF : IntrinsicId::Rint)
                          : mode == "rz" ? (f ? IntrinsicId::TruncF : IntrinsicId::Trunc)
                          : mode == "rd" ? (f ? IntrinsicId::FloorF : IntrinsicId::Floor)
                                         : (f ? IntrinsicId::CeilF : IntrinsicId::Ceil);
      out = intrinsic(IntrinsicId::FpToIntSat, rt, {intrinsic(round, x->type, {x})});
      return true;
    }
    // To floating point: round to nearest is the C conversion; int and unsigned convert to
    // double exactly.
    if (mode == "rn" || (rt.kind == ir::TypeKind::F64 && x->type.isInt() && x->type.bits() == 32)) {
      out = cast(x, rt);
      return true;
    }
    Expr *modeArg = constInt(Type::i32(true), roundingMode(mode));
    if (x->type.isFloat()) { // double to float
      out = intrinsic(IntrinsicId::F64ToF32, rt, {modeArg, x});
      return true;
    }
    Type wide = Type::i64(x->type.isSigned);
    IntrinsicId id = rt.kind == ir::TypeKind::F32
                         ? (x->type.isSigned ? IntrinsicId::I64ToF32 : IntrinsicId::U64ToF32)
                         : (x->type.isSigned ? IntrinsicId::I64ToF64 : IntrinsicId::U64ToF64);
    out = intrinsic(id, rt, {modeArg, cast(x, wide)});
    return true;
  }

  auto bitcast = [&](Expr *x, Type t) {
    Expr *r = node(ir::ExprKind::Unary, t);
    r->unaryOp = ir::UnaryOp::Bitcast;
    r->ops = {x};
    return r;
  };
  if (n == "__double2hiint" || n == "__double2loint") {
    Expr *bits = bitcast(args()[0], Type::i64(true));
    if (n == "__double2hiint")
      bits = bin(ir::BinaryOp::Shr, bits, i64(32));
    out = cast(bits, Type::i32(true));
    return true;
  }
  if (n == "__hiloint2double") {
    auto v = args();
    Expr *hi = bin(ir::BinaryOp::Shl, cast(v[0], Type::i64(true)), i64(32));
    Expr *lo = cast(cast(v[1], Type::i32(false)), Type::i64(true)); // zero-extended
    out = bitcast(bin(ir::BinaryOp::Or, hi, lo), Type::f64());
    return true;
  }
  return false;
}

} // namespace kern::ir::lower_detail
