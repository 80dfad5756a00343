// The pass pipeline from text to verified Kern IR. Read top to bottom: it is the compiler.
#include "ir/pipeline.h"

#include "frontend/ast_builder.h"
#include "frontend/link.h"
#include "frontend/preprocessor.h"
#include "frontend/sema.h"
#include "ir/analysis.h"
#include "ir/lower.h"

namespace kern::ir {

std::unique_ptr<Module> buildModule(frontend::SourceManager &sm, uint32_t fileId,
                                    frontend::DiagnosticEngine &diags,
                                    const PipelineOptions &options) {
  return buildModule(sm, std::vector<uint32_t>{fileId}, diags, options);
}

std::unique_ptr<Module> buildModule(frontend::SourceManager &sm,
                                    const std::vector<uint32_t> &fileIds,
                                    frontend::DiagnosticEngine &diags,
                                    const PipelineOptions &options) {
  frontend::TypeContext types;
  std::vector<std::unique_ptr<frontend::TranslationUnit>> units;
  for (uint32_t fileId : fileIds) {
    const unsigned errorsBefore = diags.errorCount();
    // 1. #include, #define, #if: text -> text with a line map back to the sources.
    frontend::PreprocessedSource pp = frontend::preprocess(sm, fileId, diags, options.preprocess);
    if (diags.errorCount() > errorsBefore)
      continue; // the next file's diagnostics are still worth having
    // 2. ANTLR parse tree -> AST (ANTLR stays inside the AST builder).
    auto tu = std::make_unique<frontend::TranslationUnit>();
    if (!frontend::parseTranslationUnit(pp, *tu, diags))
      continue;
    // 3. Names, types, qualifiers, execution sides, implicit conversions.
    if (frontend::analyze(*tu, types, diags))
      units.push_back(std::move(tu));
  }
  if (diags.hasErrors() || units.empty())
    return nullptr;
  // 4. One definition per external name across the files; file-local names kept apart.
  std::vector<frontend::TranslationUnit *> unitPtrs;
  for (auto &u : units)
    unitPtrs.push_back(u.get());
  frontend::TranslationUnit linked;
  if (!frontend::linkTranslationUnits(unitPtrs, linked, diags))
    return nullptr;
  if (options.afterSema)
    options.afterSema(linked);
  // 5. AST -> per-thread structured IR with address spaces and sites.
  std::unique_ptr<Module> m = lower(linked, types, diags, sm.fileName(fileIds.front()));
  if (!m)
    return nullptr;
  if (options.printAfter)
    options.printAfter("lower", print(*m));
  // 6. Structural checks: a failure here is kern's bug, reported as an internal error.
  std::string problem = verify(*m);
  if (!problem.empty()) {
    diags.error({}, "internal error: invalid IR: " + problem);
    return nullptr;
  }
  // 7. Which values are the same in every lane of a warp (the backend keeps those scalar).
  analyzeUniformity(*m);
  return m;
}

} // namespace kern::ir
