// Syntax errors of the Kern parser as clang-style diagnostics, and the CUDA features rejected by
// name before the parse. Names ANTLR types: for the front end's .cpp files only.
#pragma once

#include "frontend/antlr_headers.h"
#include "frontend/preprocessor.h"

#include <memory>

namespace kern::frontend {

/// The error strategy of the reporting parse: turns ANTLR's recognition errors into
/// clang-style messages at their original locations. The first error stops the parse (the
/// strategy throws ParseCancellationException), so there are no follow-on errors.
std::shared_ptr<antlr4::ANTLRErrorStrategy> makeSyntaxErrorStrategy(const PreprocessedSource &src,
                                                                    DiagnosticEngine &diags);

/// Lexers report nothing: every character forms some token (Unknown catches the rest).
class SilentListener : public antlr4::BaseErrorListener {};

/// CUDA features that are spelled as ordinary names (no keyword announces them): reported once,
/// at the first use, naming the feature, before the parser trips over them with a vaguer
/// message (an unknown type name, an unexpected '<').
/// Returns false once one is reported.
bool rejectUnsupportedNames(antlr4::CommonTokenStream &tokens, const PreprocessedSource &src,
                            DiagnosticEngine &diags);

} // namespace kern::frontend
