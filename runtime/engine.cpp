// kern::Engine and kern::Program (include/kern/kern.hpp): the pipeline, the JIT and the runtime
// put together behind the public API.
#include "kern/kern.hpp"

#include "backend/backend.h"
#include "frontend/source.h"
#include "ir/pipeline.h"
#include "runtime/report.h"
#include "runtime/runtime.h"
#include "runtime/symbols.h"

#include <cstdio>
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

/// The profile that `options` name: the JSON file if given, else the built-in by name.
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

} // namespace

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

bool occupancyCalculator(const Options &options, int threads, int registersPerThread,
                         uint64_t sharedBytes, std::string &out, std::string &error) {
  runtime::DeviceProfile p;
  if (!resolveDevice(options, p, error))
    return false;
  runtime::OccupancyInput in;
  in.threadsPerBlock = threads;
  in.registersPerThread = registersPerThread;
  in.sharedPerBlock = sharedBytes;
  out = runtime::occupancyReport(p, in, runtime::computeOccupancy(p, in));
  out += "\n" + runtime::occupancyTable(p, registersPerThread, sharedBytes);
  return true;
}

struct Engine::Impl {
  Options options;
};

/// Every report but the trace reads the counters, so asking for one turns them on.
bool countersOn(const Options &o) {
  return o.counters || o.stats || o.annotate || !o.reportPath.empty() ||
         !o.countersTextPath.empty();
}

struct Program::Impl {
  std::string annotated; // the last run's annotated source (Options::annotate)
  const Options *options = nullptr;
  frontend::SourceManager sources;
  std::unique_ptr<frontend::DiagnosticEngine> diags;
  std::string diagnosticText;
  std::unique_ptr<ir::Module> module;
  std::unique_ptr<backend::CompiledProgram> native;
  std::string nativeError;
  bool nativeTried = false;

  /// JIT-compiles the module on first use (emit --ir never needs it).
  bool compileNative() {
    if (nativeTried)
      return native != nullptr;
    nativeTried = true;
    backend::CompileOptions co;
    co.counters = countersOn(*options);
    co.optLevel = options->optLevel >= 0 && options->optLevel <= 3 ? options->optLevel : 2;
    native = backend::compile(*module, co, runtime::runtimeSymbols(), nativeError);
    return native != nullptr;
  }

  void reportInternal(const std::string &what) {
    std::string text = "kern: internal error: " + what + "\n";
    if (options->err)
      options->err(text);
    else
      std::fputs(text.c_str(), stderr);
  }

  std::string siteLocation(uint32_t site) const {
    if (!module || site == 0 || site >= module->sites.size())
      return module ? module->sourceName : std::string("<unknown>");
    const frontend::SourceLoc &loc = module->sites[site].loc;
    std::string file =
        loc.file < sources.fileCount() ? sources.fileName(loc.file) : module->sourceName;
    return file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
  }
};

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::~Program() = default;

bool Program::ok() const { return impl_->module != nullptr; }

const std::string &Program::annotatedSource() const { return impl_->annotated; }

const std::string &Program::diagnostics() const { return impl_->diagnosticText; }

std::string Program::ir() const { return impl_->module ? ir::print(*impl_->module) : ""; }

std::string Program::llvmIR() {
  if (!ok())
    return "";
  if (!impl_->compileNative())
    return "; " + impl_->nativeError + "\n";
  return impl_->native->llvmIR();
}

std::string Program::assembly() {
  if (!ok())
    return "";
  if (!impl_->compileNative())
    return "# " + impl_->nativeError + "\n";
  return impl_->native->assembly();
}

RunResult Program::run(const std::vector<std::string> &args) {
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
    std::string text = impl_->module->sourceName + ": error: the program has no 'main' function\n";
    if (impl_->options->err)
      impl_->options->err(text);
    else
      std::fputs(text.c_str(), stderr);
    result.status = Status::UsageError;
    result.exitCode = 2;
    return result;
  }

  runtime::Runtime::Options ro;
  std::string deviceError;
  if (!resolveDevice(*impl_->options, ro.device, deviceError)) {
    std::string text = "kern: " + deviceError + "\n";
    if (impl_->options->err)
      impl_->options->err(text);
    else
      std::fputs(text.c_str(), stderr);
    result.status = Status::UsageError;
    result.exitCode = 2;
    return result;
  }
  ro.registersPerThread = impl_->options->registersPerThread;
  ro.workers = impl_->options->workers;
  ro.out = impl_->options->out;
  ro.err = impl_->options->err;
  ro.timeoutSeconds = impl_->options->timeoutSeconds;
  // Reports (runtime/report.h): the input is filled once the runtime exists.
  const Options &o = *impl_->options;
  runtime::ReportInput report;
  ro.counters = countersOn(o);
  auto errOut = [&o](std::string_view text) {
    if (o.err) {
      o.err(text);
      return;
    }
    std::fflush(stdout); // the program's output so far comes first on a terminal
    std::fwrite(text.data(), 1, text.size(), stderr);
  };
  if (o.stats)
    ro.onLaunchEnd = [&report, errOut](size_t launch) {
      errOut(runtime::launchStatsTable(report, launch));
    };
  runtime::Runtime rt(ro);
  report.rt = &rt;
  report.program = impl_->module->sourceName;
  report.mainFileId = 0;
  if (impl_->sources.fileCount() > 0)
    report.source = impl_->sources.fileText(0);
  report.sites = runtime::siteTable(*impl_->module, [this](uint32_t f) {
    return f < impl_->sources.fileCount() ? impl_->sources.fileName(f) : impl_->module->sourceName;
  });
  auto finishReports = [&](runtime::Runtime &, runtime::ReportInput &in) {
    runtime::ReportRequest req;
    req.stats = o.stats;
    req.summary = ro.counters;
    req.annotate = o.annotate;
    req.reportPath = o.reportPath;
    req.tracePath = o.tracePath;
    req.countersTextPath = o.countersTextPath;
    impl_->annotated.clear();
    if (!runtime::finishReports(in, req, errOut, impl_->annotated) && result.status == Status::Ok)
      result.status = Status::RuntimeError;
  };

  std::vector<runtime::KernelInfo> kernels;
  auto irKernels = impl_->module->kernels();
  for (size_t i = 0; i < irKernels.size(); ++i) {
    runtime::KernelInfo k;
    k.name = irKernels[i]->name;
    k.fn = impl_->native->kernel(i);
    k.paramBytes = irKernels[i]->paramBytes;
    k.staticSharedBytes = irKernels[i]->staticSharedBytes;
    k.usesBarriers = irKernels[i]->usesBarriers;
    k.launchBoundsMaxThreads = irKernels[i]->launchBoundsMaxThreads;
    kernels.push_back(std::move(k));
  }
  Impl *impl = impl_.get();
  rt.setProgram(std::move(kernels), impl_->module.get(),
                [impl](uint32_t site) { return impl->siteLocation(site); });
  // runMain puts the program's name in argv[0] itself.
  result.exitCode = rt.runMain(mainFn, args);
  result.faulted = rt.faulted();
  result.status = result.faulted ? Status::RuntimeError : Status::Ok;
  finishReports(rt, report);
  return result;
}

Engine::Engine(Options options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
}

Engine::~Engine() = default;

const Options &Engine::options() const { return impl_->options; }

std::unique_ptr<Program> Engine::compile(std::string source, std::string name) {
  auto p = std::make_unique<Program::Impl>();
  p->options = &impl_->options;
  p->diags = std::make_unique<frontend::DiagnosticEngine>(p->sources);
  uint32_t file = p->sources.addFile(name, std::move(source));
  p->module = ir::buildModule(p->sources, file, *p->diags);
  p->diagnosticText = p->diags->renderAll(impl_->options.color);
  return std::make_unique<Program>(std::move(p));
}

std::unique_ptr<Program> Engine::compileFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    auto p = std::make_unique<Program::Impl>();
    p->options = &impl_->options;
    p->diagnosticText = path + ": error: cannot open file\n";
    return std::make_unique<Program>(std::move(p));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return compile(ss.str(), path);
}

} // namespace kern
