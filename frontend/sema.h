// Semantic analysis: names, types, qualifiers, built-ins and C's implicit conversions. Annotates
// the AST in place (Expr::type, Expr::decl, implicit Cast nodes) for the IR lowering.
#pragma once

#include "frontend/ast.h"

namespace kern::frontend {

/// A built-in function of builtins.def.
struct BuiltinInfo {
  const char *name;
  const char *signature; // see builtins.def
  char side;             // 'H' host, 'D' device, 'B' both
};
int findBuiltin(const std::string &name); // -1 if none
const BuiltinInfo &builtinInfo(int index);
size_t builtinCount();

/// Expr::builtin values for the built-in variables and objects (above the function indices).
enum BuiltinObject : int {
  kBuiltinThreadIdx = 1000,
  kBuiltinBlockIdx,
  kBuiltinBlockDim,
  kBuiltinGridDim,
  kBuiltinWarpSize,
  kBuiltinStdout,
  kBuiltinStderr,
  kBuiltinStdin,
};

/// What sema knows of a translation unit beyond its text.
struct SemaOptions {
  /// False for a C or C++ source file (.c, .cpp...) that includes no CUDA header: nvcc hands
  /// such a file to the host compiler, where CUDA's vector types do not exist, so a program may
  /// declare its own `uchar4` (CUDA's samples do); the declaration then replaces kern's
  /// built-in type of that name in this file.
  bool cudaTypes = true;
  /// A C file (.c): `int f();` declares f without saying its parameters (calls promote their
  /// arguments), and calling an undeclared function declares it as `int f()` (C89), as GCC
  /// compiles such files (with a warning).
  bool cLanguage = false;
};

/// Checks and annotates `tu`. Every problem is a diagnostic; returns false if any error.
/// After success: every Expr has a type; implicit conversions are explicit Cast nodes whose
/// typeSyntax is null (array-to-pointer decay included: a Cast from an array to a pointer);
/// every Ident names a VarDecl, FunctionDecl, enumerator (isEnumConst) or builtin.
bool analyze(TranslationUnit &tu, TypeContext &types, DiagnosticEngine &diags,
             const SemaOptions &options = {});

} // namespace kern::frontend
