// The compiler's table of contents: source text -> Kern IR, one line per pass.
#pragma once

#include "frontend/ast.h"
#include "frontend/preprocessor.h"
#include "frontend/source.h"
#include "frontend/types.h"
#include "ir/ir.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kern::ir {

struct PipelineOptions {
  /// Called after each pass with the pass name and the module printed as text
  /// (`--print-after-all`). If empty, nothing is printed.
  std::function<void(const std::string &pass, const std::string &ir)> printAfter;
  /// Called with the checked AST before lowering: how the embedding API learns kernels' C
  /// parameter types and the REPL the type of an expression. If empty, nothing is called.
  std::function<void(const frontend::TranslationUnit &)> afterSema;
  /// -I directories and -D definitions (frontend/preprocessor.h).
  frontend::PreprocessOptions preprocess;
  /// The first site id and global id of the module (Module::firstGlobalId): above a running
  /// program's when the module is loaded into it (NVRTC, cuModuleLoad).
  uint32_t firstSite = 1;
  uint32_t firstGlobal = 0;
};

/// Preprocesses, parses, checks and lowers file `fileId` of `sm`. Diagnostics go to `diags`;
/// returns null if there was any error.
std::unique_ptr<Module> buildModule(frontend::SourceManager &sm, uint32_t fileId,
                                    frontend::DiagnosticEngine &diags,
                                    const PipelineOptions &options = {});

/// The same for a program of several source files: each is preprocessed, parsed and checked as
/// its own translation unit, then they are linked (frontend/link.h) and lowered as one.
std::unique_ptr<Module> buildModule(frontend::SourceManager &sm,
                                    const std::vector<uint32_t> &fileIds,
                                    frontend::DiagnosticEngine &diags,
                                    const PipelineOptions &options = {});

} // namespace kern::ir
