// The preprocessor: #include of system headers ignored, #define (object-like and function-like),
// #undef, #if/#ifdef/#ifndef/#elif/#else/#endif with defined(), #pragma, #include "local".
#pragma once

#include "frontend/source.h"

#include <string>
#include <vector>

namespace kern::frontend {

/// Preprocessed text plus, for every output line, where it came from.
struct PreprocessedSource {
  std::string text;
  /// lineMap[i] is the original location of output line i+1 (column 1 of that line);
  /// columns of tokens on a line map one to one unless a macro expansion shifted them.
  std::vector<SourceLoc> lineMap;
  /// Maps an output (line, col) back to the original location.
  SourceLoc map(uint32_t line, uint32_t col) const;
};

/// Preprocesses file `fileId` of `sm`. Errors (unterminated #if, bad directive, missing local
/// include) go to `diags`. `#include "x"` files are added to `sm` and read relative to the
/// including file's directory.
PreprocessedSource preprocess(SourceManager &sm, uint32_t fileId, DiagnosticEngine &diags);

} // namespace kern::frontend
