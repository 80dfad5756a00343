// The insides of kern::Engine and kern::Program, shared by engine.cpp, program_api.cpp,
// session.cpp and c_api.cpp. Not installed: embedders see include/kern only.
#pragma once

#include "kern/kern.hpp"

#include "backend/backend.h"
#include "frontend/source.h"
#include "ir/pipeline.h"
#include "runtime/compare.h"
#include "runtime/report.h"
#include "runtime/runtime.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kern {

/// Whether a run counts: Mode::Profile, or any field that needs counters (every report but
/// the trace, and the launch filter).
bool countersOn(const Options &o);
/// Whether a run checks: Mode::Checked or Options::checked.
bool checkedOn(const Options &o);
/// The lines of the LLVM IR (`llvm`) or assembly `all` that belong to the functions whose names
/// contain `name`.
std::string functionPart(const std::string &all, bool llvm, const std::string &name);
/// The launch filter that `o` describes (Options::kernelName, launchSkip...).
runtime::LaunchFilter launchFilter(const Options &o);
/// Whether runs select the launches they profile one by one (counters on and a filter): the
/// program is then compiled fast, and its counting variant on the first profiled launch.
bool selectsLaunches(const Options &o);
/// The profile that `options` name: the JSON file if given, else the built-in by name.
bool resolveDevice(const Options &options, runtime::DeviceProfile &out, std::string &error);
/// What `__CUDA_ARCH__` is in device code for the modelled GPU (900 for cc 9.0); 0 if the
/// device is unknown (the run reports that).
int cudaArchFor(const Options &options);
/// Writes `text` to Options::err, or to the process's stderr after flushing stdout.
void writeErr(const Options &o, std::string_view text);
/// The runtime options an Engine's options ask for (device aside).
runtime::Runtime::Options runtimeOptions(const Options &o);
/// The C signature of each kernel by name, from the typed AST (ParamInfo::type).
using KernelTypes = std::map<std::string, std::vector<std::string>>;

/// The child process of a sandboxed program (engine/sandbox.h).
struct SandboxChild;

struct Program::Impl {
  std::string annotated;   // the last run's annotated source (Options::annotate)
  std::string explanation; // the last run's lane maps (Options::explainLine)
  /// What the last run counted, per kernel (compareDevices reads it); empty before a run.
  std::optional<runtime::RunDigest> digest;
  /// Count without printing the summary at the end (compareDevices prints its own table).
  bool quietSummary = false;
  /// A sandboxed program (Options::sandbox): the child process that compiled it and runs it;
  /// the module and native code below stay empty in this process.
  std::shared_ptr<SandboxChild> sandbox;
  const Options *options = nullptr;
  /// Engine::interrupt (or Session::interrupt): given to each runtime the program makes.
  std::shared_ptr<runtime::StopRequest> stop;
  frontend::SourceManager sources;
  std::unique_ptr<frontend::DiagnosticEngine> diags;
  std::string diagnosticText;
  std::unique_ptr<ir::Module> module;
  std::unique_ptr<backend::CompiledProgram> native;
  std::string nativeError;
  bool nativeTried = false;
  /// llvmIR() or assembly() was asked for before the native code was compiled: keep its IR.
  bool wantIR = false;
  // With per-launch selection (selectsLaunches), `native` is the fast variant and this the
  // one with the counter hooks, compiled once, when the first profiled launch needs it.
  std::unique_ptr<backend::CompiledProgram> countingNative;
  std::string countingError;
  bool countingTried = false;
  /// Modules compiled before (the REPL's session keeps one): unchanged ones are not compiled
  /// again.
  std::shared_ptr<backend::ObjectCache> cache;
  std::vector<KernelSignature> signatures;
  /// Each kernel's C++ symbol name, where it has one (frontend/mangle.h).
  std::map<std::string, std::string> mangledNames;

  // The virtual device of Program::launch (program_api.cpp), created on first use.
  std::unique_ptr<runtime::Runtime> device;
  runtime::ReportInput report;
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> buffers; // handle -> (address, size)
  uint64_t nextHandle = 1;
  std::string captured; // the runtime's messages during the current call
  std::vector<std::string> launchTables;

  /// JIT-compiles the module on first use (emit --ir never needs it).
  bool compileNative();
  /// Options::timeCompile: prints the back end's `timings` (`what`: "", or which variant).
  void printCompileTimes(const backend::CompileTimings &timings, const char *what);
  /// JIT-compiles the counting variant on first use (per-launch selection only).
  bool compileCounting();
  /// The program image the runtime runs (engine/image.cpp): the module's kernels with their
  /// native code, sites, globals and main; the counting variant on demand when the run selects
  /// launches one by one. The native code must be compiled. Built once: the module and its code
  /// do not change after compilation (a REPL input compiles a new Program).
  const backend::ProgramImage &image();
  std::optional<backend::ProgramImage> imageCache;
  void reportInternal(const std::string &what);
};

/// The runtime's view of kernel `index` of `p`'s module, compiled as `native` (image.cpp).
backend::KernelImage kernelImage(const Program::Impl &p, size_t index,
                                 const backend::CompiledProgram &native);
/// The runtime's view of a site and of a global variable (image.cpp).
backend::SiteKind siteKind(ir::SiteKind k);
backend::GlobalImage globalImage(const ir::GlobalVar &g);

/// The modules a running program built (NVRTC) or loaded (cuModuleLoad*), with their code.
struct RunModules {
  std::vector<std::unique_ptr<Options>> options;
  std::vector<std::unique_ptr<Program::Impl>> programs;
};
/// The compiler of those modules (modules.cpp): each is compiled with `options` and the
/// request's own, and kept in `store`, which must outlive the runtime that calls it.
backend::ModuleCompiler moduleCompiler(const Options &options, RunModules &store);
/// Fills Program::Impl::signatures from the module and the C spellings in `types`.
void buildSignatures(Program::Impl &p, const KernelTypes &types);
/// The C spellings of kernel parameters, gathered after sema (a PipelineOptions::afterSema).
void collectKernelTypes(const frontend::TranslationUnit &tu, KernelTypes &out);
/// Each kernel's C++ symbol name (frontend/mangle.h), gathered after sema.
void collectMangledNames(const frontend::TranslationUnit &tu,
                         std::map<std::string, std::string> &out);

} // namespace kern
