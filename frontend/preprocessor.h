// The preprocessor: #include of system headers ignored, #define (object-like and function-like),
// #undef, #if/#ifdef/#ifndef/#elif/#else/#endif with defined(), #pragma, #include "local".
#pragma once

#include "frontend/source.h"

#include <string>
#include <utility>
#include <vector>

namespace kern::frontend {

/// Preprocessed text plus, for every output line, where it came from.
struct PreprocessedSource {
  std::string text;
  /// lineMap[i] is the original location of output line i+1 (column 1 of that line);
  /// columns of tokens on a line map one to one unless a macro expansion shifted them.
  std::vector<SourceLoc> lineMap;
  /// True if the text asked about `__CUDA_ARCH__` (#ifdef, defined(), or used it): its device
  /// code and its host code may then differ, and the file needs a pass of each.
  bool usesCudaArch = false;
  /// True if the text includes one of CUDA's headers (cuda_runtime.h, vector_types.h...), or
  /// a sample helper that includes them, directly or through another header.
  bool includesCudaHeader = false;
  /// `#pragma pack` in the text: from output line `first` on, struct members are aligned to at
  /// most `pack` bytes (0: their natural alignment). In order of `first`.
  struct PackChange {
    uint32_t first = 0;
    uint64_t pack = 0;
  };
  std::vector<PackChange> packs;
  /// Maps an output (line, col) back to the original location.
  SourceLoc map(uint32_t line, uint32_t col) const;
  /// The `#pragma pack` value in effect on output line `line` (0: none).
  uint64_t packAt(uint32_t line) const;
};

/// What the command line adds to a translation unit, as a compiler's -I and -D do.
struct PreprocessOptions {
  /// Directories searched for `#include "x"` after the including file's own, and for
  /// `#include <x>` when x is not one of kern's own headers; in order, and after kern's text
  /// headers (frontend/headers: helper_cuda.h...), which therefore win over a -I directory.
  std::vector<std::string> includePaths;
  /// `NAME` (defined as 1) or `NAME=VALUE`, defined before the first line, in order.
  std::vector<std::string> defines;
  /// Non-zero: the device pass, with `__CUDA_ARCH__` defined as this (the compute capability
  /// of the modelled GPU times 100: 900 for cc 9.0). Zero: the host pass, where it is not.
  int cudaArch = 0;
  /// A C++ file (.cu, .cpp, .kern...): `__cplusplus` is defined, as nvcc and g++ define it
  /// (C++17); a C file (.c) has C linkage and no `__cplusplus`.
  bool cplusplus = true;
  /// Headers held in memory, by the name an `#include` gives (NVRTC's headers and
  /// includeNames): found before any file, by that exact name.
  std::vector<std::pair<std::string, std::string>> memoryHeaders;
  /// A sandboxed compile (docs/sandbox.md): files are included only from beneath
  /// `includeRoots` (kern's own headers aside); another is an error. If false, from anywhere
  /// but /proc, /sys and /dev, which are refused in every compile.
  bool confineIncludes = false;
  std::vector<std::string> includeRoots;
};

/// Preprocesses file `fileId` of `sm`. Errors (unterminated #if, bad directive, missing
/// include) go to `diags`. `#include "x"` files are added to `sm` and read relative to the
/// including file's directory, then from kern's text headers (added as "<kern>/x"), then from
/// `options.includePaths`; `#include <x>` skips the including file's directory.
PreprocessedSource preprocess(SourceManager &sm, uint32_t fileId, DiagnosticEngine &diags,
                              const PreprocessOptions &options = {});

} // namespace kern::frontend
