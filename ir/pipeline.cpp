// The pass pipeline from text to verified Kern IR. Read top to bottom: it is the compiler.
#include "ir/pipeline.h"

#include <pthread.h>

#include "frontend/ast_builder.h"
#include "frontend/link.h"
#include "frontend/preprocessor.h"
#include "frontend/sema.h"
#include "ir/analysis.h"
#include "ir/branch_model.h"
#include "ir/hoist.h"
#include "ir/inline.h"
#include "ir/load_waves.h"
#include "ir/lower.h"
#include "ir/promote.h"
#include "ir/sink.h"
#include "ir/spaces.h"

namespace kern::ir {

std::unique_ptr<Module> buildModule(frontend::SourceManager &sm, uint32_t fileId,
                                    frontend::DiagnosticEngine &diags,
                                    const PipelineOptions &options) {
  return buildModule(sm, std::vector<uint32_t>{fileId}, diags, options);
}

namespace {

std::string extension(const std::string &name) {
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? "" : name.substr(dot);
}

/// Whether nvcc compiles a file of this name as CUDA (.cu and headers, kern's .kern, text with
/// no file) rather than handing it to the host compiler (.c, .cc, .cpp, .cxx).
bool isCudaSource(const std::string &name) {
  const std::string ext = extension(name);
  return !(ext == ".c" || ext == ".cc" || ext == ".cpp" || ext == ".cxx" || ext == ".C");
}

/// Preprocesses, parses and checks one file as one translation unit; null on error. Sets
/// `usesCudaArch` if the file asked about __CUDA_ARCH__.
std::unique_ptr<frontend::TranslationUnit> checkFile(frontend::SourceManager &sm, uint32_t fileId,
                                                     frontend::DiagnosticEngine &diags,
                                                     const frontend::PreprocessOptions &ppOptions,
                                                     frontend::TypeContext &types,
                                                     bool *usesCudaArch) {
  const unsigned errorsBefore = diags.errorCount();
  // 1. #include, #define, #if: text -> text with a line map back to the sources.
  frontend::PreprocessOptions fileOptions = ppOptions;
  fileOptions.cplusplus = extension(sm.fileName(fileId)) != ".c";
  frontend::PreprocessedSource pp = frontend::preprocess(sm, fileId, diags, fileOptions);
  if (usesCudaArch)
    *usesCudaArch = pp.usesCudaArch;
  if (diags.errorCount() > errorsBefore)
    return nullptr;
  // 2. ANTLR parse tree -> AST (ANTLR stays inside the AST builder).
  auto tu = std::make_unique<frontend::TranslationUnit>();
  if (!frontend::parseTranslationUnit(pp, *tu, diags))
    return nullptr;
  if (extension(sm.fileName(fileId)) == ".c") // a C file: everything in it has C linkage
    for (frontend::Decl *d : tu->decls)
      d->quals.externC = true;
  // 3. Names, types, qualifiers, execution sides, implicit conversions. A C or C++ file that
  // includes no CUDA header is the host compiler's, as nvcc compiles it: no CUDA types.
  frontend::SemaOptions semaOptions;
  semaOptions.cudaTypes = isCudaSource(sm.fileName(fileId)) || pp.includesCudaHeader;
  semaOptions.cLanguage = extension(sm.fileName(fileId)) == ".c";
  if (!frontend::analyze(*tu, types, diags, semaOptions))
    return nullptr;
  return tu;
}

} // namespace

namespace {

/// The stack the compiler's passes run on: they recurse over the program's nesting, which the
/// parser bounds (frontend: "nesting too deep") far below this, whatever the stack of the
/// thread that asked for the compile (an embedding application's may be small).
constexpr size_t kCompilerStackBytes = size_t(256) << 20;

std::unique_ptr<Module> buildOnThisStack(frontend::SourceManager &sm,
                                         const std::vector<uint32_t> &fileIds,
                                         frontend::DiagnosticEngine &diags,
                                         const PipelineOptions &options);

} // namespace

std::unique_ptr<Module> buildModule(frontend::SourceManager &sm,
                                    const std::vector<uint32_t> &fileIds,
                                    frontend::DiagnosticEngine &diags,
                                    const PipelineOptions &options) {
  struct Call {
    frontend::SourceManager &sm;
    const std::vector<uint32_t> &fileIds;
    frontend::DiagnosticEngine &diags;
    const PipelineOptions &options;
    std::unique_ptr<Module> result;
  } call{sm, fileIds, diags, options, nullptr};
  auto run = [](void *p) -> void * {
    auto *c = static_cast<Call *>(p);
    c->result = buildOnThisStack(c->sm, c->fileIds, c->diags, c->options);
    return nullptr;
  };
  // The stack is reserved, not committed: only the pages a deep program touches are used.
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) == 0) {
    const bool made = pthread_attr_setstacksize(&attr, kCompilerStackBytes) == 0 &&
                      pthread_create(&thread, &attr, run, &call) == 0;
    pthread_attr_destroy(&attr);
    if (made) {
      pthread_join(thread, nullptr);
      return std::move(call.result);
    }
  }
  run(&call); // no thread to be had: this one's stack must do
  return std::move(call.result);
}

namespace {

std::unique_ptr<Module> buildOnThisStack(frontend::SourceManager &sm,
                                         const std::vector<uint32_t> &fileIds,
                                         frontend::DiagnosticEngine &diags,
                                         const PipelineOptions &options) {
  frontend::TypeContext types;
  std::vector<std::unique_ptr<frontend::TranslationUnit>> units; // own the passes' ASTs
  std::vector<frontend::TranslationUnit *> files;                // one per file, to link
  for (uint32_t fileId : fileIds) {
    frontend::PreprocessOptions hostOptions = options.preprocess;
    hostOptions.cudaArch = 0;
    bool usesCudaArch = false;
    auto host = checkFile(sm, fileId, diags, hostOptions, types, &usesCudaArch);
    if (!host)
      continue; // the next file's diagnostics are still worth having
    if (!usesCudaArch || options.preprocess.cudaArch == 0) {
      files.push_back(host.get());
      units.push_back(std::move(host));
      continue;
    }
    // 1-3 again with __CUDA_ARCH__ defined, as nvcc compiles device code; the diagnostics the
    // host pass already gave are not repeated.
    frontend::DiagnosticEngine deviceDiags(sm);
    auto device = checkFile(sm, fileId, deviceDiags, options.preprocess, types, nullptr);
    for (const frontend::Diagnostic &d : deviceDiags.diagnostics())
      diags.addUnique(d);
    if (!device)
      continue;
    auto merged = std::make_unique<frontend::TranslationUnit>();
    frontend::mergeDeviceAndHostPasses(*device, *host, *merged);
    files.push_back(merged.get());
    units.push_back(std::move(host));
    units.push_back(std::move(device));
    units.push_back(std::move(merged));
  }
  if (diags.hasErrors() || files.empty())
    return nullptr;
  // 4. One definition per external name across the files; file-local names kept apart.
  frontend::TranslationUnit linked;
  if (!frontend::linkTranslationUnits(files, linked, diags))
    return nullptr;
  if (options.afterSema)
    options.afterSema(linked);
  // 5. AST -> per-thread structured IR with address spaces and sites.
  std::unique_ptr<Module> m = lower(linked, types, diags, sm.fileName(fileIds.front()),
                                    options.firstSite, options.firstGlobal);
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
  // 7. Small device functions copied into their callers, as nvcc inlines them: `this`,
  // references and struct results become the caller's own objects (ir/inline.cpp).
  inlineDeviceCalls(*m);
  refineAddressSpaces(*m);
  sinkCommonStores(*m);
  if (options.printAfter)
    options.printAfter("inline", print(*m));
  problem = verify(*m);
  if (!problem.empty()) {
    diags.error({}, "internal error: invalid IR after inlining: " + problem);
    return nullptr;
  }
  // 8. Which local slots are reached only by their own loads and stores (laid out by lanes),
  // and those of them whose fields become variables.
  markDirectSlots(*m);
  promoteDirectSlots(*m);
  // 9. Which values are the same in every lane of a warp (the backend keeps those scalar).
  analyzeUniformity(*m);
  // 10. What nvcc makes of the control flow, for the branch counters: predicated ifs and
  // exits, unrolled loops, the slow-path checks of divisions (ir/branch_model.cpp).
  modelCompiledBranches(*m);
  // 11. The loop-invariant arithmetic nvcc computes before each loop, the pointers it steps
  // and the addresses it reuses, for the instruction counters; then the predicated ifs whose
  // sides are still too long for nvcc to predicate.
  modelHoisting(*m);
  reviewPredication(*m);
  // 12. Which loads are in flight together, for the timing model's latency chain.
  modelLoadWaves(*m);
  return m;
}

} // namespace

} // namespace kern::ir
