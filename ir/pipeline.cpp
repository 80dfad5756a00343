// The pass pipeline from text to verified Kern IR. Read top to bottom: it is the compiler.
#include "ir/pipeline.h"

#include "frontend/ast_builder.h"
#include "frontend/preprocessor.h"
#include "frontend/sema.h"
#include "ir/analysis.h"
#include "ir/lower.h"

namespace kern::ir {

std::unique_ptr<Module> buildModule(frontend::SourceManager &sm, uint32_t fileId,
                                    frontend::DiagnosticEngine &diags,
                                    const PipelineOptions &options) {
  // 1. #include, #define, #if: text -> text with a line map back to the sources.
  frontend::PreprocessedSource pp = frontend::preprocess(sm, fileId, diags, options.preprocess);
  if (diags.hasErrors())
    return nullptr;
  // 2. ANTLR parse tree -> AST (ANTLR stays inside the AST builder).
  frontend::TranslationUnit tu;
  if (!frontend::parseTranslationUnit(pp, tu, diags))
    return nullptr;
  // 3. Names, types, qualifiers, execution sides, implicit conversions.
  frontend::TypeContext types;
  if (!frontend::analyze(tu, types, diags))
    return nullptr;
  if (options.afterSema)
    options.afterSema(tu);
  // 4. AST -> per-thread structured IR with address spaces and sites.
  std::unique_ptr<Module> m = lower(tu, types, diags, sm.fileName(fileId));
  if (!m)
    return nullptr;
  if (options.printAfter)
    options.printAfter("lower", print(*m));
  // 5. Structural checks: a failure here is kern's bug, reported as an internal error.
  std::string problem = verify(*m);
  if (!problem.empty()) {
    diags.error({}, "internal error: invalid IR: " + problem);
    return nullptr;
  }
  // 6. Which values are the same in every lane of a warp (the backend keeps those scalar).
  analyzeUniformity(*m);
  return m;
}

} // namespace kern::ir
