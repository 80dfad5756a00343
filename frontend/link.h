// Linking several checked translation units into one program, as a C++ linker does (with CUDA's
// separate compilation, -rdc=true): every external name has one definition across the files,
// `static` names and namespace-scope `const` variables stay in their own file, and `inline`
// functions defined in several files (a header's) are one function.
#pragma once

#include "frontend/ast.h"
#include "frontend/source.h"

#include <vector>

namespace kern::frontend {

/// Resolves the file-scope declarations of `units` (each already checked by sema) against one
/// another and appends all their declarations to `linked.decls`, which owns none of them.
/// A declaration in one file whose definition is in another is pointed at it
/// (FunctionDecl::definition); variables share storage by name. File-local names that clash
/// with a name of another file are renamed (`name.N`, N the file's number counting from 1) so
/// that every name in `linked` means one entity. Reports multiple definitions, conflicting
/// types across files and a missing or repeated `main` to `diags`; returns false on error.
/// With one unit it only copies the declarations.
bool linkTranslationUnits(const std::vector<TranslationUnit *> &units, TranslationUnit &linked,
                          DiagnosticEngine &diags);

} // namespace kern::frontend
