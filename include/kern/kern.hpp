// kern's C++ API: compile a .kern program and run it on the virtual GPU.
//
// Everything hangs off an Engine; there is no global state. No exception, LLVM or ANTLR type
// crosses this header: fallible calls return values that carry a status and diagnostics.
#pragma once

#include "kern/version.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kern {

/// Result codes, also used as the `kern` command's exit codes.
enum class Status {
  Ok = 0,
  CompileError = 1, // the program has errors (see diagnostics)
  UsageError = 2,   // the API or command line was used wrongly
  RuntimeError = 3, // a kernel or host fault, or a failed launch
};

/// What an Engine does. Every field has a default that works.
struct Options {
  /// Worker threads that run blocks. If 0, one per hardware thread.
  unsigned workers = 0;
  /// Compile the counter hooks into kernels. If false, nothing is counted (fast mode).
  bool counters = false;
  /// Print a table of counters after each launch, and a short summary and the advisor's
  /// findings at the end of the run, to `err`. Turns counters on.
  bool stats = false;
  /// Write the JSON report (docs/report-schema.md) to this file; "-" writes it to `err`. If
  /// empty, none. Turns counters on.
  std::string reportPath;
  /// Write a Chrome trace-event file (transfers, launches, blocks on SMs) here. If empty, none.
  std::string tracePath;
  /// Write every counter as stable text (docs/report-schema.md, "Counter text") to this file;
  /// "-" writes it to `err`. If empty, none. Turns counters on.
  std::string countersTextPath;
  /// Prepare the annotated source (Program::annotatedSource) and print the advisor's findings
  /// to `err`. Turns counters on.
  bool annotate = false;
  /// Stop a kernel that runs longer than this many seconds. If 0, no limit.
  double timeoutSeconds = 0;
  /// The GPU the program runs on, by built-in profile name (see deviceList()). If empty, h100.
  std::string device;
  /// A JSON device profile (docs/devices.md) to use instead of `device`. If empty, none.
  std::string deviceFile;
  /// Registers per thread of every kernel, for occupancy and launch checks. If 0, kern's
  /// estimate for each kernel.
  int registersPerThread = 0;
  /// LLVM optimisation level of the JIT, 0-3. If out of range, 2.
  int optLevel = 2;
  /// Colour diagnostics with ANSI escapes. If false, plain text.
  bool color = false;
  /// Where the program's standard output goes. If empty, to the process's stdout.
  std::function<void(std::string_view)> out;
  /// Where the program's standard error and kern's runtime errors go. If empty, to the
  /// process's stderr.
  std::function<void(std::string_view)> err;
};

/// The outcome of running a program's main.
struct RunResult {
  Status status = Status::Ok;
  /// The program's exit code (main's return value or exit()'s argument).
  int exitCode = 0;
  /// True if a kernel or the host code faulted, or a launch failed (errors were reported).
  bool faulted = false;
};

/// A compiled program. Obtained from Engine::compile; valid while its Engine lives.
class Program {
public:
  ~Program();
  /// True if the program compiled without errors.
  bool ok() const;
  /// The rendered diagnostics (errors and warnings), empty if none.
  const std::string &diagnostics() const;
  /// Kern IR as text.
  std::string ir() const;
  /// LLVM IR after optimisation, or the reason it could not be produced.
  std::string llvmIR();
  /// Native assembly, or the reason it could not be produced.
  std::string assembly();
  /// Runs the program's main with `args` (argv[1...]). A program without main is an error.
  RunResult run(const std::vector<std::string> &args = {});
  /// After a run with Options::annotate: the source with each line's counters beside it and
  /// the costliest lines marked. Empty otherwise.
  const std::string &annotatedSource() const;

  struct Impl;
  explicit Program(std::unique_ptr<Impl> impl);

private:
  std::unique_ptr<Impl> impl_;
};

/// Checks that `options` name a usable device (a built-in profile, or a readable and valid
/// JSON profile). On failure returns false and sets `error` (for an unknown name it lists the
/// known ones). Program::run makes the same check and fails with Status::UsageError.
bool checkDevice(const Options &options, std::string &error);

/// The built-in device profiles, one line each: name, GPU, compute capability, main limits.
std::string deviceList();

/// The occupancy calculator for a block of `threads` threads at `registersPerThread` registers
/// and `sharedBytes` bytes of shared memory on the device that `options` name: the report and
/// the table of occupancy against block size. False with `error` set if the device is unusable.
bool occupancyCalculator(const Options &options, int threads, int registersPerThread,
                         uint64_t sharedBytes, std::string &out, std::string &error);

class Engine {
public:
  explicit Engine(Options options = {});
  ~Engine();
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  /// Compiles `source`; `name` is the file name used in diagnostics. Never null: check ok().
  std::unique_ptr<Program> compile(std::string source, std::string name = "<input>");
  /// Reads and compiles a file. A missing file gives a Program whose diagnostics say so.
  std::unique_ptr<Program> compileFile(const std::string &path);

  const Options &options() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace kern
