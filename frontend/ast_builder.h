// Parses preprocessed source into the AST. The only interface to ANTLR: nothing of ANTLR is
// visible through it.
#pragma once

#include "frontend/ast.h"
#include "frontend/preprocessor.h"

namespace kern::frontend {

/// Parses `src` into `tu`. Syntax errors are reported to `diags` at their original locations
/// (one per error, no cascades). Returns false if any error was reported.
bool parseTranslationUnit(const PreprocessedSource &src, TranslationUnit &tu,
                          DiagnosticEngine &diags);

} // namespace kern::frontend
