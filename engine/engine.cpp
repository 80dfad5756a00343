// kern::Engine and kern::Program (include/kern/kern.hpp): the pipeline, the JIT and the runtime
// put together behind the public API. Launches from the host application: program_api.cpp.
#include "engine/engine_impl.h"
#include "engine/sandbox.h"
#include "frontend/mangle.h"
#include "ir/analysis.h"

#include "runtime/ncu_metrics.h"
#include "runtime/symbols.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kern {

namespace {

std::string knownDevices() {
  std::string names;
  for (const runtime::DeviceProfile &p : runtime::builtinProfiles())
    names += (names.empty() ? "" : ", ") + p.name;
  return names;
}

} // namespace

bool resolveDevice(const Options &options, runtime::DeviceProfile &out, std::string &error) {
  if (!options.deviceFile.empty()) {
    std::ifstream in(options.deviceFile, std::ios::binary);
    if (!in) {
      error = "cannot open device file '" + options.deviceFile + "'";
      return false;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    std::string parseError;
    if (!runtime::parseProfileJson(ss.str(), out, parseError)) {
      error = options.deviceFile + ": " + parseError;
      return false;
    }
    return true;
  }
  const std::string name =
      options.device.empty() ? std::string(runtime::kDefaultProfileName) : options.device;
  const runtime::DeviceProfile *p = runtime::findProfile(name);
  if (!p) {
    error = "unknown device '" + name + "' (known devices: " + knownDevices() + ")";
    return false;
  }
  out = *p;
  return true;
}

int cudaArchFor(const Options &options) {
  runtime::DeviceProfile p;
  std::string error;
  if (!resolveDevice(options, p, error))
    return 0;
  return p.ccMajor * 100 + p.ccMinor * 10;
}

bool checkDevice(const Options &options, std::string &error) {
  runtime::DeviceProfile p;
  return resolveDevice(options, p, error);
}

std::string deviceList() {
  std::string out;
  for (const runtime::DeviceProfile &p : runtime::builtinProfiles())
    out += runtime::profileSummary(p) + "\n";
  return out;
}

std::string deviceListJson() { return runtime::profilesToJson(runtime::builtinProfiles()); }

bool checkMetrics(const std::vector<std::string> &metrics, std::string &error) {
  return runtime::checkMetricNames(metrics, error);
}

std::string didYouMean(const std::string &word, const std::vector<std::string> &known) {
  const std::string nearest = runtime::nearestName(word, known);
  return nearest.empty() ? "" : "; did you mean '" + nearest + "'?";
}

std::string functionPart(const std::string &all, bool llvm, const std::string &name) {
  std::istringstream src(all);
  std::string text, l;
  bool inside = false;
  while (std::getline(src, l)) {
    const bool start =
        llvm ? l.rfind("define ", 0) == 0
             : (!l.empty() && l[0] != '\t' && l[0] != ' ' && l[0] != '.' && l.back() == ':');
    if (start)
      inside = l.find(name) != std::string::npos;
    if (inside)
      text += l + "\n";
    if ((llvm && l == "}") || (!llvm && l.find(".Lfunc_end") == 0))
      inside = false;
  }
  return text;
}

bool occupancyCalculator(const Options &options, int threads, int registersPerThread,
                         uint64_t sharedBytes, std::string &out, std::string &error) {
  runtime::DeviceProfile p;
  if (!resolveDevice(options, p, error))
    return false;
  runtime::OccupancyInput in;
  in.threadsPerBlock = threads;
  in.registersPerThread = registersPerThread;
  in.sharedPerBlock = sharedBytes;
  const runtime::OccupancyResult r = runtime::computeOccupancy(p, in);
  out = runtime::occupancyReport(p, in, r);
  out += "\n" + runtime::occupancyTable(p, registersPerThread, sharedBytes);
  error = r.error; // a block the device cannot run: the report says why, and it is an error
  return r.error.empty();
}

struct Engine::Impl {
  Options options;
  // Engine::interrupt; shared with the programs it compiles and the runtimes they make.
  std::shared_ptr<runtime::StopRequest> stop = std::make_shared<runtime::StopRequest>();
};

runtime::LaunchFilter launchFilter(const Options &o) {
  runtime::LaunchFilter f;
  f.kernelName = o.kernelName;
  f.launchSkip = o.launchSkip;
  f.launchCount = o.launchCount;
  f.profileFromStart = o.profileFromStart;
  f.predicate = o.launchFilter;
  return f;
}

bool countersOn(const Options &o) {
  return o.mode == Mode::Profile || o.counters || o.stats || o.annotate || o.explainLine != 0 ||
         !o.htmlPath.empty() || !o.reportPath.empty() || !o.countersTextPath.empty() ||
         !o.metrics.empty() || o.csv || launchFilter(o).selects();
}

/// Whether a run of `module` counts: as the options ask, or because the program calls
/// cudaEventElapsedTime, which reads the timing model, which reads the counters (quietly:
/// what is printed still follows the options).
static bool countsFor(const Options &o, const ir::Module &module) {
  return countersOn(o) || module.readsModelledTime;
}

bool checkedOn(const Options &o) { return o.mode == Mode::Checked || o.checked; }

bool selectsLaunches(const Options &o) { return countersOn(o) && launchFilter(o).selects(); }

bool checkLaunchFilter(const Options &options, std::string &error) {
  return runtime::checkLaunchFilter(launchFilter(options), error);
}

void writeErr(const Options &o, std::string_view text) {
  if (o.err) {
    o.err(text);
    return;
  }
  std::fflush(stdout); // the program's output so far comes first on a terminal
  std::fwrite(text.data(), 1, text.size(), stderr);
}

runtime::Runtime::Options runtimeOptions(const Options &o) {
  runtime::Runtime::Options ro;
  ro.registersPerThread = o.registersPerThread;
  ro.workers = o.workers;
  ro.out = o.out;
  ro.err = o.err;
  ro.timeoutSeconds = o.timeoutSeconds;
  ro.counters = countersOn(o);
  ro.checked = checkedOn(o);
  ro.filter = launchFilter(o);
  ro.explainLine = o.explainLine;
  ro.captureAll = !o.htmlPath.empty();
  ro.allowFiles = o.allowFiles;
  if (o.sandbox.enabled) {
    // A sandboxed program may use files beneath the sandbox's directories only (in its child,
    // allowRead holds every readable directory: engine/sandbox.h), and sees no environment.
    ro.allowFiles = true;
    ro.sandbox.enabled = true;
    ro.sandbox.readDirs = o.sandbox.allowRead;
    if (!o.sandbox.outputDir.empty()) {
      std::error_code ec;
      auto dir =
          std::filesystem::weakly_canonical(std::filesystem::absolute(o.sandbox.outputDir), ec);
      ro.sandbox.writeDir = ec ? o.sandbox.outputDir : dir.string();
    }
    ro.sandbox.memoryLimitBytes = o.sandbox.memoryLimitBytes;
    ro.sandbox.onMemoryLimit = sandboxMemoryHook();
  }
  return ro;
}

void collectKernelTypes(const frontend::TranslationUnit &tu, KernelTypes &out) {
  for (const frontend::Decl *d : tu.decls) {
    auto *f = dynamic_cast<const frontend::FunctionDecl *>(d);
    if (!f || !f->isKernel() || !f->body)
      continue;
    std::vector<std::string> types;
    for (const frontend::VarDecl *p : f->params)
      types.push_back(p->type ? p->type->str() : std::string("?"));
    out[f->name] = std::move(types);
  }
}

void collectMangledNames(const frontend::TranslationUnit &tu,
                         std::map<std::string, std::string> &out) {
  for (const frontend::Decl *d : tu.decls) {
    auto *f = dynamic_cast<const frontend::FunctionDecl *>(d);
    if (!f || !f->isKernel() || !f->body)
      continue;
    std::string name = frontend::itaniumName(*f);
    if (!name.empty())
      out[f->name] = std::move(name);
  }
}

void buildSignatures(Program::Impl &p, const KernelTypes &types) {
  p.signatures.clear();
  if (!p.module)
    return;
  for (const ir::Function *k : p.module->kernels()) {
    KernelSignature sig;
    sig.name = k->name;
    sig.registers = ir::estimateRegisters(*k);
    sig.sharedBytes = k->staticSharedBytes;
    sig.localBytes = ir::localMemoryNeed(*k).bytesPerThread;
    auto it = types.find(k->name);
    for (size_t i = 0; i < k->params.size(); ++i) {
      const ir::Var *v = k->params[i];
      ParamInfo info;
      info.name = v->name;
      info.type = it != types.end() && i < it->second.size() ? it->second[i] : v->type.str();
      info.isSigned = v->type.isSigned;
      if (v->aggregateBytes) {
        info.kind = ParamKind::Struct;
        info.size = v->aggregateBytes;
      } else {
        info.kind = v->type.isPtr()     ? ParamKind::Pointer
                    : v->type.isFloat() ? ParamKind::Float
                                        : ParamKind::Int;
        info.size = v->type.bytes();
      }
      sig.params.push_back(std::move(info));
    }
    p.signatures.push_back(std::move(sig));
  }
}

namespace {

/// What compiled code may call: the runtime's functions.
const backend::SymbolList &jitSymbols() {
  static const backend::SymbolList symbols = runtime::runtimeSymbols();
  return symbols;
}

backend::CompileOptions compileOptions(const Options &o, bool counters) {
  backend::CompileOptions co;
  co.counters = counters;
  co.checked = checkedOn(o);
  co.optLevel = o.optLevel >= 0 && o.optLevel <= 3 ? o.optLevel : 2;
  co.fmad = o.fmad;
  co.threads = o.workers; // the workers that run blocks compile the program's modules too
  return co;
}

} // namespace

bool Program::Impl::compileNative() {
  if (nativeTried)
    return native != nullptr;
  nativeTried = true;
  // A run that selects launches one by one starts with the fast variant only: the counting one
  // is compiled when a launch needs it, so a filter that selects nothing costs nothing.
  const bool counters = countsFor(*options, *module) && !selectsLaunches(*options);
  backend::CompileOptions co = compileOptions(*options, counters);
  co.keepIR = wantIR;
  co.cache = cache;
  backend::CompileTimings timings;
  co.timings = options->timeCompile ? &timings : nullptr;
  native = backend::compile(*module, co, jitSymbols(), nativeError);
  if (native && co.timings)
    printCompileTimes(timings, "");
  return native != nullptr;
}

void Program::Impl::printCompileTimes(const backend::CompileTimings &timings, const char *what) {
  auto ms = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f ms", v);
    return std::string(text);
  };
  std::string out;
  for (const backend::ModuleTiming &m : timings.modules) {
    std::string name = m.accessFunctions ? "the access functions" : "host code";
    if (!m.kernels.empty()) // a module of small kernels holds several
      name = m.kernels.size() > 1 ? "kernels" : "kernel";
    for (size_t i = 0; i < m.kernels.size(); ++i)
      name += (i ? ", " : " ") + m.kernels[i];
    out += "kern: compile" + std::string(what) + ": " + name + ": generate " + ms(m.generateMs);
    out += m.cached ? ", the rest from the cache\n"
                    : ", optimise " + ms(m.optimiseMs) + ", machine code " + ms(m.codeMs) + "\n";
  }
  out += "kern: compile" + std::string(what) + ": link " + ms(timings.linkMs) + "; in all " +
         ms(timings.wallMs) + " on " + std::to_string(timings.threads) + " thread" +
         (timings.threads == 1 ? "" : "s") + "\n";
  writeErr(*options, out);
}

bool Program::Impl::compileCounting() {
  if (countingTried)
    return countingNative != nullptr;
  countingTried = true;
  backend::CompileOptions co = compileOptions(*options, true);
  co.cache = cache;
  backend::CompileTimings timings;
  co.timings = options->timeCompile ? &timings : nullptr;
  countingNative = backend::compile(*module, co, jitSymbols(), countingError);
  if (countingNative && co.timings)
    printCompileTimes(timings, " (counting variant)");
  return countingNative != nullptr;
}

void Program::Impl::reportInternal(const std::string &what) {
  writeErr(*options, "kern: internal error: " + what + "\n");
}

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::~Program() = default;

bool Program::ok() const {
  return impl_->module != nullptr || (impl_->sandbox && sandboxCompiled(*impl_->sandbox));
}

const std::string &Program::annotatedSource() const { return impl_->annotated; }

const std::string &Program::explanation() const { return impl_->explanation; }

const std::string &Program::diagnostics() const { return impl_->diagnosticText; }

std::string Program::ir() const { return impl_->module ? ir::print(*impl_->module) : ""; }

std::string Program::llvmIR() {
  if (impl_->sandbox)
    return "; not available for a sandboxed program\n";
  if (!ok())
    return "";
  impl_->wantIR = true; // compiled now: the IR is kept as it is made
  if (!impl_->compileNative())
    return "; " + impl_->nativeError + "\n";
  return impl_->native->llvmIR();
}

std::string Program::irOf(const std::string &function) const {
  const ir::Function *f = impl_->module ? impl_->module->findFunction(function) : nullptr;
  return f ? ir::print(*f, *impl_->module) : "";
}

std::string Program::llvmIROf(const std::string &function) {
  if (!impl_->module || !impl_->module->findFunction(function))
    return "";
  return functionPart(llvmIR(), true, function);
}

std::string Program::assemblyOf(const std::string &function) {
  if (!impl_->module || !impl_->module->findFunction(function))
    return "";
  return functionPart(assembly(), false, function);
}

std::string Program::assembly() {
  if (impl_->sandbox)
    return "# not available for a sandboxed program\n";
  if (!ok())
    return "";
  impl_->wantIR = true;
  if (!impl_->compileNative())
    return "# " + impl_->nativeError + "\n";
  return impl_->native->assembly();
}

RunResult Program::run(const std::vector<std::string> &args) {
  if (impl_->sandbox)
    return runSandboxed(*impl_, args);
  RunResult result;
  if (!ok()) {
    result.status = Status::CompileError;
    result.exitCode = 1;
    return result;
  }
  if (!impl_->compileNative()) {
    impl_->reportInternal(impl_->nativeError);
    result.status = Status::RuntimeError;
    result.exitCode = 1;
    result.faulted = true;
    return result;
  }
  backend::MainFunction mainFn = impl_->native->main();
  if (!mainFn) {
    writeErr(*impl_->options,
             impl_->module->sourceName + ": error: the program has no 'main' function\n");
    result.status = Status::UsageError;
    result.exitCode = 2;
    return result;
  }

  runtime::Runtime::Options ro = runtimeOptions(*impl_->options);
  ro.stop = impl_->stop;
  ro.counters = countsFor(*impl_->options, *impl_->module);
  std::string deviceError;
  if (!checkLaunchFilter(*impl_->options, deviceError) ||
      !checkMetrics(impl_->options->metrics, deviceError) ||
      !resolveDevice(*impl_->options, ro.device, deviceError)) {
    writeErr(*impl_->options, "kern: " + deviceError + "\n");
    result.status = Status::UsageError;
    result.exitCode = 2;
    return result;
  }
  // Reports (runtime/report.h): the input is filled once the runtime exists.
  const Options &o = *impl_->options;
  runtime::ReportInput report;
  auto errOut = [&o](std::string_view text) { writeErr(o, text); };
  if (o.stats || o.timeKernels)
    ro.onLaunchEnd = [&report, &o, errOut](size_t launch) {
      const runtime::LaunchRecord &r = report.rt->launches()[launch];
      if (o.timeKernels && r.error == 0) { // the blocks ran to their end
        char line[64];
        std::snprintf(line, sizeof line, ": %.3f ms\n", r.wallSeconds * 1e3);
        errOut("kern: launch " + std::to_string(launch + 1) + " " + r.kernel + line);
      }
      if (o.stats && r.profiled) // no table for a launch that counted nothing
        errOut(runtime::launchStatsTable(report, launch));
    };
  // Modules the program compiles (NVRTC) or loads (cuModuleLoad*) while it runs: their code
  // outlives the runtime that runs it.
  RunModules modules;
  runtime::Runtime rt(ro);
  rt.setModuleCompiler(moduleCompiler(*impl_->options, modules));
  report.rt = &rt;
  report.program = impl_->module->sourceName;
  report.mainFileId = 0;
  if (impl_->sources.fileCount() > 0)
    report.source = impl_->sources.fileText(0);
  backend::ProgramImage image = impl_->image();
  report.sites = runtime::siteTable(image);
  auto finishReports = [&](runtime::Runtime &run, runtime::ReportInput &in) {
    runtime::ReportRequest req;
    req.stats = o.stats;
    // A metrics listing (--metrics, --csv) replaces the summary, unless that is asked for too.
    // Nor does explain alone (its lane maps are the report).
    const bool explainOnly =
        o.explainLine != 0 && !o.counters && !o.stats && o.mode != Mode::Profile;
    req.summary =
        countersOn(o) && !impl_->quietSummary && !explainOnly &&
        ((o.metrics.empty() && !o.csv) || o.counters || o.stats || o.mode == Mode::Profile);
    req.annotate = o.annotate;
    req.reportPath = o.reportPath;
    req.tracePath = o.tracePath;
    req.countersTextPath = o.countersTextPath;
    req.htmlPath = o.htmlPath;
    req.metrics = o.metrics;
    req.listMetrics = !o.metrics.empty();
    req.csv = o.csv;
    req.writeFile = sandboxReportWriter();        // in a sandbox's child: the parent writes them
    in.sites = runtime::siteTable(run.program()); // with the sites of the modules it loaded
    impl_->annotated.clear();
    impl_->explanation =
        o.explainLine != 0 ? runtime::explainLine(in, o.explainLine) : std::string();
    if (!runtime::finishReports(in, req, errOut, impl_->annotated) && result.status == Status::Ok)
      result.status = Status::RuntimeError;
  };

  rt.setProgram(std::move(image));
  // runMain puts the program's name in argv[0] itself.
  result.exitCode = rt.runMain(args);
  result.faulted = rt.faulted();
  result.status = rt.interrupted() ? Status::Interrupted
                  : result.faulted ? Status::RuntimeError
                                   : Status::Ok;
  if (impl_->stop)
    impl_->stop->clear(); // one interrupt stops one run
  finishReports(rt, report);
  impl_->digest = runtime::digestRun(report);
  return result;
}

Engine::Engine(Options options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
}

Engine::~Engine() = default;

const Options &Engine::options() const { return impl_->options; }

void Engine::interrupt() { impl_->stop->request(); }

std::unique_ptr<Program> Engine::compile(std::string source, std::string name) {
  return compile(std::vector<SourceFile>{{std::move(name), std::move(source)}});
}

std::unique_ptr<Program> Engine::compile(const std::vector<SourceFile> &files) {
  if (impl_->options.sandbox.enabled && !insideSandbox()) {
    SandboxSources sources;
    sources.files = files;
    std::unique_ptr<Program::Impl> sandboxed = compileSandboxed(impl_->options, std::move(sources));
    sandboxed->stop = impl_->stop;
    return std::make_unique<Program>(std::move(sandboxed));
  }
  auto p = std::make_unique<Program::Impl>();
  p->options = &impl_->options;
  p->stop = impl_->stop;
  p->diags = std::make_unique<frontend::DiagnosticEngine>(p->sources);
  std::vector<uint32_t> ids;
  for (const SourceFile &f : files)
    ids.push_back(p->sources.addFile(f.name, f.text));
  KernelTypes types;
  ir::PipelineOptions po;
  const auto start = std::chrono::steady_clock::now();
  auto checked = start;
  po.afterSema = [&types, &p, &checked](const frontend::TranslationUnit &tu) {
    collectKernelTypes(tu, types);
    collectMangledNames(tu, p->mangledNames);
    checked = std::chrono::steady_clock::now();
  };
  po.preprocess.includePaths = impl_->options.includePaths;
  po.preprocess.defines = impl_->options.defines;
  po.preprocess.cudaArch = cudaArchFor(impl_->options);
  if (impl_->options.sandbox.enabled) { // in the sandbox's child: its readable directories only
    po.preprocess.confineIncludes = true;
    po.preprocess.includeRoots = impl_->options.sandbox.allowRead;
  }
  if (ids.empty())
    p->diags->error({}, "no source files");
  else
    p->module = ir::buildModule(p->sources, ids, *p->diags, po);
  if (impl_->options.timeCompile && p->module) {
    using Ms = std::chrono::duration<double, std::milli>;
    const auto end = std::chrono::steady_clock::now();
    char line[160];
    std::snprintf(line, sizeof line,
                  "kern: compile: front end %.1f ms (preprocess, parse and check %.1f ms; lower "
                  "to kern IR %.1f ms)\n",
                  Ms(end - start).count(), Ms(checked - start).count(), Ms(end - checked).count());
    writeErr(impl_->options, line);
  }
  p->diagnosticText = p->diags->renderAll(impl_->options.color);
  buildSignatures(*p, types);
  if (!p->diagnosticText.empty() && impl_->options.diagnostics)
    impl_->options.diagnostics(p->diagnosticText);
  return std::make_unique<Program>(std::move(p));
}

std::unique_ptr<Program> Engine::compileFile(const std::string &path) {
  return compileFiles({path});
}

std::unique_ptr<Program> Engine::compileFiles(const std::vector<std::string> &paths) {
  if (impl_->options.sandbox.enabled && !insideSandbox()) { // the child reads the files
    SandboxSources sources;
    sources.paths = paths;
    sources.fromPaths = true;
    std::unique_ptr<Program::Impl> sandboxed = compileSandboxed(impl_->options, std::move(sources));
    sandboxed->stop = impl_->stop;
    return std::make_unique<Program>(std::move(sandboxed));
  }
  std::vector<SourceFile> files;
  std::string missing;
  for (const std::string &path : paths) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
      missing += path + ": error: not a regular file (a source file is needed)\n";
      continue;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      missing += path + ": error: cannot open file: " + std::strerror(errno) + "\n";
      continue;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    files.push_back({path, ss.str()});
  }
  if (missing.empty())
    return compile(files);
  auto p = std::make_unique<Program::Impl>();
  p->options = &impl_->options;
  p->stop = impl_->stop;
  p->diagnosticText = missing;
  if (impl_->options.diagnostics)
    impl_->options.diagnostics(p->diagnosticText);
  return std::make_unique<Program>(std::move(p));
}

} // namespace kern
