// The one constant folder of the front end: integer and arithmetic constant expressions of the
// AST, for sema (array sizes, enumerators, case labels), the AST builder (alignments, launch
// bounds) and the lowering (file-scope initialisers).
#pragma once

#include "frontend/ast.h"

#include <cstdint>

namespace kern::frontend {

/// The value of a constant expression: an integer, or (where floating point is allowed) a double.
struct ConstValue {
  bool isFloat = false;
  int64_t i = 0;
  double f = 0;
};

/// `v` wrapped to `bits` bits, sign-extended when `isSigned` (two's complement, as the hardware
/// does it): wrapInt(255, 8, true) is -1, wrapInt(-1, 8, false) is 255.
int64_t wrapInt(int64_t v, unsigned bits, bool isSigned);

/// `v` converted to integer type `t`: wrapped to its width and signedness, 0 or 1 for bool.
/// Other types, or none (an expression sema has not typed yet), keep `v`.
int64_t truncateToType(int64_t v, const Type *t);

/// Whether sizeof expression `e` (SizeofType or SizeofExpr, typed by sema) measures a type whose
/// size is known only at run time (a variable-length array).
inline bool sizeofAtRunTime(const Expr *e) {
  if (e->isAlignof) // an array's alignment is its element's, known at compile time
    return false;
  const Type *t = e->kind == ExprKind::SizeofType
                      ? (e->typeSyntax ? e->typeSyntax->resolved : nullptr)
                  : e->operands.empty() ? nullptr
                                        : e->operands[0]->type;
  return t && t->hasRuntimeSize();
}

/// Folds `e` as an integer constant expression: literals, enumerators, warpSize, const integer
/// variables with constant initialisers, sizeof, integer casts and the arithmetic, bitwise,
/// comparison, logical, conditional and comma operators. Each result is wrapped to the
/// expression's type and unsigned operands divide, shift and compare as unsigned; before sema
/// (no types yet) the arithmetic is that of int64_t. Returns false if `e` is not constant; a
/// division or remainder by zero also sets `*divisionByZero` (when given) to that expression.
bool foldInt(const Expr *e, int64_t &v, const Expr **divisionByZero = nullptr);

/// Folds `e` as an arithmetic constant, what a file-scope initialiser may hold: foldInt's
/// integers, plus floating-point literals, casts between integer and floating types (a cast to
/// float rounds to float) and + - * / on floating operands (computed in double).
bool foldArith(const Expr *e, ConstValue &v, const Expr **divisionByZero = nullptr);

} // namespace kern::frontend
