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
#include <type_traits>
#include <vector>

namespace kern {

/// Result codes, also used as the `kern` command's exit codes.
enum class Status {
  Ok = 0,
  CompileError = 1, // the program has errors (see diagnostics)
  UsageError = 2,   // the API or command line was used wrongly
  RuntimeError = 3, // a kernel or host fault, or a failed launch
  // A sandboxed run (Options::sandbox) that the sandbox stopped (docs/sandbox.md):
  SandboxViolation = 4, // it tried a forbidden system call, or its process crashed
  MemoryLimit = 5,      // it exceeded SandboxOptions::memoryLimitBytes
  TimeLimit = 6,        // it exceeded SandboxOptions::cpuSeconds (or Options::timeoutSeconds)
  Interrupted = 130,    // stopped by Engine::interrupt or Session::interrupt (Ctrl-C: 128 + 2)
};

/// Runs the program in a child process confined by the kernel (docs/sandbox.md): the program
/// is compiled and run there, under seccomp (no network, no new processes, no ptrace...),
/// Landlock (only the directories below) and resource limits; its output, exit code and
/// reports come back to the caller, and its crash or a kill by a limit is reported, never
/// taking the caller down.
struct SandboxOptions {
  /// Compile and run in the sandbox. If false (the default), in the calling process.
  bool enabled = false;
  /// Directories the program may read (besides its own source files' directories and the
  /// -I directories, Options::includePaths). If empty, none more.
  std::vector<std::string> allowRead;
  /// The one directory where the program may create, write and remove files (it may read
  /// there too). If empty, it may write nowhere.
  std::string outputDir;
  /// The child's address-space limit in bytes (RLIMIT_AS): a malloc beyond it returns NULL
  /// with a note, and a run that fails for it is Status::MemoryLimit. If 0, none.
  uint64_t memoryLimitBytes = 0;
  /// The child's CPU-time limit in seconds, compilation and every thread included
  /// (RLIMIT_CPU); a run over it is stopped with Status::TimeLimit. If 0, none.
  double cpuSeconds = 0;
};

/// How a run treats its kernels (docs/api.md, "Modes"). The default of the API and of
/// `kern run` is Fast; a Session (the REPL) profiles.
enum class Mode {
  Fast,    // nothing counted or checked: kernels are compiled without hooks
  Profile, // count what a GPU would suffer (coalescing, bank conflicts, divergence...)
  Checked, // report shared-memory data races and reads of never-written global memory
};

/// What an Engine does. Every field has a default that works.
struct Options {
  /// Worker threads that run blocks, and that compile the program's parts at once (its code
  /// is the same whatever their number). If 0, one per hardware thread.
  unsigned workers = 0;
  /// The run-wide mode. If Fast (the default), the fields below still turn counting on
  /// (counters, stats, reportPath, countersTextPath, annotate, the launch filter) or checking
  /// (checked); Profile is the same as counters = true, Checked as checked = true.
  Mode mode = Mode::Fast;
  /// Compile the counter hooks into kernels. If false, nothing is counted (fast mode).
  bool counters = false;
  /// Checked mode: report shared-memory data races between barriers and reads of never-written
  /// global memory, as errors (a run with any is a RuntimeError); the program and its output
  /// go on unchanged. Slower: every global and shared access is checked. If false, off.
  bool checked = false;
  /// Print a table of counters after each launch, and a short summary and the advisor's
  /// findings at the end of the run, to `err`. Turns counters on.
  bool stats = false;
  /// After each launch, print to `err` the host's wall time of its run on the workers
  /// (`kern: launch 3 reduce: 1.234 ms`): what kern itself took, from a monotonic clock around
  /// the blocks' execution (compilation, copies and host code excluded). For benchmarks; it is
  /// not modelled GPU time, and it differs from run to run. Counts nothing by itself.
  bool timeKernels = false;
  /// Print to `err` how long compiling the program took: the front end (preprocessing, parsing
  /// and checking; lowering to kern's IR), then each module of native code (the kernels in it,
  /// host code, or the shared access functions) by stage (generating LLVM IR, optimising,
  /// generating machine code), and linking (`kern run --time-compile`). For finding slow
  /// compiles; the figures differ from run to run.
  bool timeCompile = false;
  /// Write the JSON report (docs/report-schema.md) to this file; "-" writes it to `err`. If
  /// empty, none. Turns counters on.
  std::string reportPath;
  /// Write the HTML report here (`kern run --html`): one self-contained page with the source and
  /// each line's counters and share of the modelled time, each access's lanes drawn for its
  /// first and worst warp, the occupancy graphs, the timeline, the advice and the device;
  /// "-" writes it to `err`. Turns counters on. If empty, none.
  std::string htmlPath;
  /// Write a Chrome trace-event file (transfers, launches, blocks on SMs) here. If empty, none.
  std::string tracePath;
  /// Write every counter as stable text (docs/report-schema.md, "Counter text") to this file;
  /// "-" writes it to `err`. If empty, none. Turns counters on.
  std::string countersTextPath;
  /// At the end of the run, list each profiled launch's metrics under Nsight Compute's names
  /// (docs/report-schema.md), to `err`: those named here (Nsight names such as
  /// "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", or kern keys such as
  /// "global.load.sectors"); all of them if `csv` is set and this is empty. Turns counters on.
  std::vector<std::string> metrics;
  /// List them as CSV, one row per launch and metric, as `ncu --csv` does. Turns counters on.
  bool csv = false;
  /// Prepare the annotated source (Program::annotatedSource) and print the advisor's findings
  /// to `err`. Turns counters on.
  bool annotate = false;
  /// `kern explain`: draw the lane maps of this line of the first source file
  /// (Program::explanation): for each memory access on it, the first warp that ran it and the
  /// worst, lane by lane against the device's rules; for each branch, the lanes of a warp that
  /// split. Turns counters on; the accesses of the line are then counted without memos (slower
  /// there). Not in a sandbox. If 0, none.
  uint32_t explainLine = 0;
  /// Stop a kernel that runs longer than this many seconds, and host code that runs longer than
  /// this many seconds outside kernels (polled on its loops). If 0, no limit.
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
  /// Directories searched for `#include "x"` after the including file's own, and for
  /// `#include <x>` when x is not one of kern's headers, in order (a compiler's -I). If empty,
  /// none.
  std::vector<std::string> includePaths;
  /// Macros defined before the first line, `NAME` (as 1) or `NAME=VALUE` (a compiler's -D).
  /// If empty, none.
  std::vector<std::string> defines;
  /// Device code fuses a multiply and a dependent add into one fused multiply-add, rounded
  /// once, as nvcc does by default (--fmad=true). If false, each operation is rounded.
  bool fmad = true;
  /// The program's host code may open, create and remove files (fopen, remove), read stdin and
  /// the environment (getenv), as a native program would. If false (the default for an
  /// embedding application), fopen returns NULL with errno EACCES and a note on `err`, stdin
  /// reads as empty and getenv returns NULL. `kern run` allows it unless given --no-files.
  bool allowFiles = false;
  /// Colour diagnostics with ANSI escapes. If false, plain text.
  bool color = false;
  /// Where the program's standard output goes. If empty, to the process's stdout.
  std::function<void(std::string_view)> out;
  /// Where the program's standard error and kern's runtime errors go. If empty, to the
  /// process's stderr.
  std::function<void(std::string_view)> err;
  /// Called with the rendered diagnostics (errors and warnings) of every compile that has any,
  /// in addition to their being returned. If empty, diagnostics are only returned.
  std::function<void(std::string_view)> diagnostics;
  /// Compile and run in a confined child process (docs/sandbox.md). A sandboxed Program offers
  /// ok(), diagnostics(), run() and annotatedSource(); its other calls fail with UsageError
  /// (or return empty text). Its program may use files (as allowFiles) only within the
  /// sandbox's directories, and sees no environment.
  SandboxOptions sandbox;

  // ---- which launches are profiled (Nsight Compute's launch filter) -------------------------
  // When the run counts, a launch that runs is profiled if, in this order: the profiler is
  // active (profileFromStart, cudaProfilerStart/Stop), its kernel matches kernelName,
  // launchFilter accepts it, launchSkip earlier ones got this far, and fewer than launchCount
  // were profiled. Any other launch runs the fast variant of its kernel and counts nothing
  // (LaunchStats::counted false, no --stats table, left out of the summary and the advisor).
  // Setting any of these fields turns counters on. Program::run and Program::launch fail with
  // UsageError for an invalid "regex:" pattern.

  /// Profile only launches of this kernel: its exact name, or "regex:PATTERN" for the kernels
  /// in whose name the ECMAScript regular expression PATTERN finds a match. If empty, every
  /// kernel.
  std::string kernelName;
  /// Let this many launches that pass kernelName and launchFilter go unprofiled first. If 0,
  /// none.
  uint64_t launchSkip = 0;
  /// Profile at most this many launches (after the skipped ones). If 0, no limit.
  uint64_t launchCount = 0;
  /// Profile from the start. If false, nothing is profiled until the program calls
  /// cudaProfilerStart(). Either way cudaProfilerStop() stops profiling until the next
  /// cudaProfilerStart().
  bool profileFromStart = true;
  /// Called for each launch that passes kernelName while the profiler is active, with the
  /// kernel's name and the launch's index (its position in the run's launches, or in
  /// Program::launches()); false: not profiled. It runs on the thread that launches and must
  /// not throw. If empty, every launch passes.
  std::function<bool(std::string_view kernel, uint64_t launchIndex)> launchFilter;
};

/// The outcome of a fallible call: a status and, when it is not Ok, what went wrong (rendered
/// diagnostics or a runtime message, one per line).
struct Result {
  Status status = Status::Ok;
  std::string diagnostics;
  bool ok() const { return status == Status::Ok; }
};

/// A grid or block size, as CUDA's dim3: unset axes are 1.
struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  Dim3(uint32_t x_ = 1, uint32_t y_ = 1, uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}
};

/// A block of device memory allocated by Program::allocate. A handle: the host never sees a
/// device address, so copies go through Program::write and Program::read, which check bounds.
/// A default-constructed Buffer is invalid (it passes a null pointer to a kernel).
class Buffer {
public:
  Buffer() = default;
  /// Bytes allocated; 0 for an invalid buffer.
  uint64_t size() const { return size_; }
  bool valid() const { return handle_ != 0; }
  /// The handle's number (unique within its Program; 0 if invalid). For the C API.
  uint64_t handle() const { return handle_; }

private:
  friend class Program;
  uint64_t handle_ = 0;
  uint64_t size_ = 0;
};

/// What kind of value a kernel parameter takes.
enum class ParamKind {
  Pointer, // a device pointer: pass a Buffer (or Arg::null())
  Int,     // bool, char, short, int, long, long long, signed or not
  Float,   // float or double
  Struct,  // a struct by value: pass Arg::bytes() of exactly `size` bytes
};

/// One parameter of a kernel's signature.
struct ParamInfo {
  std::string name;
  std::string type; // its C spelling, e.g. "const float *", "int"
  ParamKind kind = ParamKind::Int;
  uint32_t size = 0; // bytes
  bool isSigned = false;
};

/// A __global__ function of a compiled program.
struct KernelSignature {
  std::string name;
  std::vector<ParamInfo> params;
  /// What the kernel takes of an SM, as `nvcc --resource-usage` reports it (`kern check
  /// --resource-usage`): registers per thread (kern's estimate of ptxas's count, docs/occupancy.md;
  /// Options::registersPerThread overrides it at launch), static shared memory per block and
  /// local memory per thread, in bytes.
  int registers = 0;
  uint64_t sharedBytes = 0;
  uint64_t localBytes = 0;
};

/// One kernel argument, typed by its C++ type; Program::launch checks it against the parameter.
/// Integers fit any integer parameter whose range holds the value; a float fits a float or
/// double parameter, a double only a double one; a Buffer only a pointer parameter.
class Arg {
public:
  enum class Kind { Buffer, Null, Int, UInt, Float, Double, Bytes };
  Arg(const Buffer &b) : kind_(Kind::Buffer), buffer_(b) {}
  /// Any integer type: char, short, int, long, long long, their unsigned forms, bool.
  template <class T, std::enable_if_t<std::is_integral_v<T> && std::is_signed_v<T>, int> = 0>
  Arg(T v) : kind_(Kind::Int), i_(static_cast<int64_t>(v)) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_signed_v<T>, int> = 0>
  Arg(T v) : kind_(Kind::UInt), u_(static_cast<uint64_t>(v)) {}
  Arg(float v) : kind_(Kind::Float), d_(v) {}
  /// double and long double (rounded to double).
  template <class T,
            std::enable_if_t<std::is_floating_point_v<T> && !std::is_same_v<T, float>, int> = 0>
  Arg(T v) : kind_(Kind::Double), d_(static_cast<double>(v)) {}
  /// A null pointer for a pointer parameter.
  static Arg null() { return Arg(Kind::Null); }
  /// The raw bytes of a struct passed by value.
  static Arg bytes(const void *data, size_t size);

  Kind kind() const { return kind_; }
  const Buffer &buffer() const { return buffer_; }
  int64_t intValue() const { return i_; }
  uint64_t uintValue() const { return u_; }
  double floatValue() const { return d_; }
  const std::vector<uint8_t> &byteValue() const { return bytes_; }

private:
  explicit Arg(Kind k) : kind_(k) {}
  Kind kind_;
  Buffer buffer_;
  int64_t i_ = 0;
  uint64_t u_ = 0;
  double d_ = 0;
  std::vector<uint8_t> bytes_;
};

/// What one launch counted (all zero unless the Engine counts: Options::counters, stats...).
/// The names follow docs/report-schema.md.
struct Counters {
  uint64_t warpInstructions = 0;   // executed operations, one per warp
  uint64_t threadInstructions = 0; // executed operations, one per active lane
  uint64_t branches = 0;           // warp-level branches
  uint64_t divergentBranches = 0;  // of those, the ones whose lanes split
  uint64_t globalLoadRequests = 0;
  uint64_t globalLoadTransactions = 0;
  uint64_t globalStoreRequests = 0;
  uint64_t globalStoreTransactions = 0;
  uint64_t globalBytesRequested = 0;
  uint64_t globalBytesMoved = 0;
  uint64_t sharedRequests = 0;
  uint64_t sharedBankConflicts = 0; // extra wavefronts over a conflict-free access
  uint64_t constantRequests = 0;
  uint64_t barriers = 0; // warp arrivals at __syncthreads()
  uint64_t atomics = 0;  // warp-level atomic instructions
  /// 100 * active lanes per instruction / 32; 0 when nothing ran.
  double warpExecutionEfficiency = 0;
  /// 100 * non-divergent / all branches; 100 when no branch ran.
  double branchEfficiency = 100;
};

/// One launch as the virtual GPU saw it.
struct LaunchStats {
  std::string kernel;
  Dim3 grid, block;
  uint64_t sharedBytes = 0;   // static + dynamic
  int registersPerThread = 0; // what occupancy was computed with
  int blocksPerSM = 0;        // resident blocks per SM (0 if the launch failed first)
  double occupancy = 0;       // achieved warps / the SM's maximum, 0-1
  int errorCode = 0;          // the cudaError_t of the launch; 0 when it ran
  bool faulted = false;       // the kernel ran and faulted
  /// The launch was profiled: the counters below were gathered. False in fast mode, for a
  /// launch the launch filter (Options::kernelName...) left out, and for one that did not run.
  bool counted = false;
  Counters counters;
};

/// The outcome of Program::launch.
struct LaunchResult : Result {
  LaunchStats stats;
};

/// The outcome of Program::allocate.
struct BufferResult : Result {
  Buffer buffer;
};

/// The outcome of running a program's main.
struct RunResult {
  Status status = Status::Ok;
  /// The program's exit code (main's return value or exit()'s argument).
  int exitCode = 0;
  /// True if a kernel or the host code faulted, or a launch failed (errors were reported).
  bool faulted = false;
};

struct Comparison;

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
  /// ir(), llvmIR() or assembly() cut down to one kernel or function, with the code generated
  /// for it under names that contain its name (`kern emit -k NAME`, the REPL's `:emit`); empty
  /// when the program has no function of that name.
  std::string irOf(const std::string &function) const;
  std::string llvmIROf(const std::string &function);
  std::string assemblyOf(const std::string &function);
  /// The program's first source file as a module image: what cuModuleLoad and
  /// cuModuleLoadData take under kern, as they take a cubin or fatbin that nvcc made (`kern
  /// emit --module`). It holds the source, the -I directories (the file's own first) and the
  /// -D definitions; the module is compiled again when it is loaded.
  std::string moduleImage() const;
  /// Runs the program's main with `args` (argv[1...]). A program without main is an error.
  RunResult run(const std::vector<std::string> &args = {});
  /// After a run with Options::annotate: the source with each line's counters beside it and
  /// the costliest lines marked. Empty otherwise.
  const std::string &annotatedSource() const;
  /// After a run with Options::explainLine: the lane maps of that line; empty if nothing on it
  /// ran in a kernel (or none was asked for).
  const std::string &explanation() const;

  // ---- embedding: kernels launched by the host application ---------------------------------
  // These calls share one virtual device per Program (created on first use, separate from the
  // one run() creates for main). A kernel fault makes the device unusable, as on a GPU: later
  // calls fail until resetDevice().

  /// The program's kernels, in source order.
  std::vector<KernelSignature> kernels() const;
  /// The kernel called `name`, or null.
  const KernelSignature *kernel(std::string_view name) const;
  /// Allocates `bytes` of device memory (zeroed).
  BufferResult allocate(uint64_t bytes);
  /// Copies `bytes` from host memory at `data` into `buffer` at `offset`.
  Result write(const Buffer &buffer, const void *data, uint64_t bytes, uint64_t offset = 0);
  /// Copies `bytes` from `buffer` at `offset` into host memory at `data`.
  Result read(const Buffer &buffer, void *data, uint64_t bytes, uint64_t offset = 0);
  /// Frees `buffer`; it becomes invalid. Freeing an invalid buffer does nothing.
  Result release(Buffer &buffer);
  /// Launches kernel `name` on `grid` x `block` threads with `args`, checked against the
  /// kernel's signature (wrong count or type: UsageError naming the parameter), and waits for
  /// it. A rejected configuration or a fault: RuntimeError with the runtime's message.
  LaunchResult launch(std::string_view name, Dim3 grid, Dim3 block, const std::vector<Arg> &args,
                      uint64_t dynamicSharedBytes = 0);
  /// Every launch made through launch(), in order.
  std::vector<LaunchStats> launches() const;
  /// The Nsight-Compute-like table of launch `index` (the `--stats` table); empty if none.
  std::string launchTable(size_t index) const;
  /// The JSON report (docs/report-schema.md) of the launches made through launch().
  std::string reportJson() const;
  /// The HTML report (docs/html-report.md) of the launches made through launch(); its lane maps
  /// need the engine to count.
  std::string reportHtml() const;
  /// Discards the virtual device of launch() (its buffers become invalid), e.g. after a fault.
  void resetDevice();
  /// cudaProfilerStart() / cudaProfilerStop() for the launches of launch(): with
  /// Options::profileFromStart false, launches are profiled only after profilerStart(), and
  /// profilerStop() pauses profiling until the next profilerStart() (see the launch filter).
  /// UsageError if the program cannot run.
  Result profilerStart();
  Result profilerStop();

  struct Impl;
  explicit Program(std::unique_ptr<Impl> impl);

private:
  friend Comparison compareDevices(const Options &, const std::vector<std::string> &,
                                   const std::vector<std::string> &,
                                   const std::vector<std::string> &);
  std::unique_ptr<Impl> impl_;
};

/// Checks that `options` name a usable device (a built-in profile, or a readable and valid
/// JSON profile). On failure returns false and sets `error` (for an unknown name it lists the
/// known ones). Program::run makes the same check and fails with Status::UsageError.
bool checkDevice(const Options &options, std::string &error);

/// Checks the launch filter of `options` (a "regex:" kernel name must be a valid regular
/// expression). On failure returns false and sets `error`. Program::run and Program::launch
/// make the same check and fail with Status::UsageError.
bool checkLaunchFilter(const Options &options, std::string &error);

/// One device's part of a comparison (compareDevices).
struct DeviceRun {
  std::string device;      // the profile's name, as given
  RunResult result;        // Status::CompileError when it did not compile for this device
  std::string diagnostics; // the compile's diagnostics (errors and warnings), empty if none
  std::string output;      // what the program wrote to its standard output
  std::string errors;      // its standard error and kern's runtime messages
};

/// The same program run on several devices.
struct Comparison : Result {
  std::vector<DeviceRun> runs; // one per device, in the order given
  /// The runs side by side, a column per device: per kernel its launches, modelled time and
  /// bound, occupancy, global transactions and efficiency, shared wavefronts and conflicts,
  /// divergent branches and warp execution efficiency; the transfers and each run's outcome.
  std::string table;
};

/// Compiles the program of `paths` and runs its main with `args` once on each built-in device
/// of `devices` (at least one), with `options` otherwise, every launch counted and each run's
/// output captured (Options::out and err are not used). Each device gets its own compile, as
/// its `__CUDA_ARCH__` differs. With Options::htmlPath, one page holds the table and each
/// device's HTML report behind a switcher. UsageError, with nothing run, for an unknown device, a
/// sandboxed or device-file run, or options that describe one run (reportPath, tracePath,
/// countersTextPath, metrics, csv, annotate, explainLine). A
/// program that fails to compile or to run on a device is that column's outcome, not an error.
Comparison compareDevices(const Options &options, const std::vector<std::string> &paths,
                          const std::vector<std::string> &devices,
                          const std::vector<std::string> &args = {});

/// Whether this kern can run sandboxed programs (Options::sandbox): it was built with seccomp
/// (libseccomp) and this system lets a process install a filter. If not, false with `why` set
/// ("this kern was built without seccomp"...); a sandboxed compile then fails with UsageError.
bool sandboxAvailable(std::string &why);

/// The built-in device profiles, one line each: name, GPU, compute capability, main limits.
std::string deviceList();
/// The built-in device profiles as a JSON array, each in the format of a device file
/// (`--device-file`, docs/devices.md): `kern devices --json`.
std::string deviceListJson();
/// Whether every name in `metrics` (Options::metrics) is known; `error` names the first that
/// is not, with the nearest known one.
bool checkMetrics(const std::vector<std::string> &metrics, std::string &error);
/// "; did you mean 'x'?" for the word in `known` nearest to `word` (a few letters off, or the one
/// word it begins), or "" when none is near.
std::string didYouMean(const std::string &word, const std::vector<std::string> &known);

/// The occupancy calculator for a block of `threads` threads at `registersPerThread` registers
/// and `sharedBytes` bytes of shared memory on the device that `options` name: the report and
/// the table of occupancy against block size. False with `error` set if the device is unusable
/// (`out` empty), or if it cannot run such a block at all (`out` has the report, which says
/// why, and the table).
bool occupancyCalculator(const Options &options, int threads, int registersPerThread,
                         uint64_t sharedBytes, std::string &out, std::string &error);

/// An interactive session (the REPL's engine): definitions, host variables and statements
/// arrive a piece at a time and run on one virtual device that persists between them. Every
/// call reports through Options::out and Options::err; an error leaves the session as it was.
class Session {
public:
  explicit Session(Options options = {});
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// The outcome of eval().
  struct EvalResult : Result {
    bool quit = false; // `:quit` was given
  };
  /// Evaluates one complete input: kernels, __device__ functions, structs, typedefs and
  /// #defines (kept; a redefinition replaces the old one), host variable declarations (they
  /// persist), statements (run once), a bare expression (its value is printed; a device
  /// pointer shows its first elements), or a meta-command (`:help` lists them).
  EvalResult eval(std::string_view input);
  /// True when `input` has no open brace, parenthesis, bracket, string or comment: what a
  /// prompt needs to decide between running an input and asking for its next line.
  static bool isComplete(std::string_view input);
  /// Names that start with `prefix`: meta-commands (for a ':' prefix), built-in functions,
  /// keywords and types, and the session's kernels, functions and variables.
  std::vector<std::string> completions(std::string_view prefix) const;
  /// What may replace `word`, the word before the cursor, given `line`, the input up to the
  /// cursor (ending with `word`): after `:device ` the device names, after `:mode ` the modes,
  /// after `:annotate ` or `:emit ir ` the kernels, after `:load ` the file names of the
  /// directory typed so far (`word` is then the part after its last '/'); a member of a
  /// variable's struct or vector type after `v.` (in `word`) or `p->` (in `line`); otherwise
  /// as completions(word).
  std::vector<std::string> completions(std::string_view word, std::string_view line) const;
  /// The program the session has accumulated (definitions and variables), as source text.
  std::string source() const;
  /// Milliseconds the last eval() spent compiling (parse to native code).
  double lastCompileMilliseconds() const;
  /// Stops the input being evaluated (its kernel or host code) within milliseconds: eval()
  /// reports where it stopped and the session goes on, its definitions kept. Input that is not
  /// running is not affected. Callable from any thread, and from a signal handler (Ctrl-C).
  void interrupt();
  /// The mode of the following launches: Profile (a session's default) counts each launch
  /// (`:stats`, `:annotate`), Fast counts none, Checked counts none and reports shared-memory
  /// races and reads of uninitialised memory (the following inputs are compiled with the
  /// checks; memory allocated before counts as written). The same as `:mode`.
  Result setMode(Mode mode);
  Mode mode() const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

/// One source file of a program, given as text (Engine::compile of several files).
struct SourceFile {
  std::string name; // the file name used in diagnostics and for "..." includes
  std::string text;
};

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
  /// A program of several source files (.cu, .cpp, .c, .kern): each is compiled as its own
  /// translation unit and they are linked as nvcc -rdc=true links them: `static` names stay
  /// in their file, `extern` declarations and prototypes find their definition in another
  /// file, one definition per external name (inline functions excepted), one `main`.
  std::unique_ptr<Program> compile(const std::vector<SourceFile> &files);
  /// Reads the files and compiles them as one program (as compile(files) above).
  std::unique_ptr<Program> compileFiles(const std::vector<std::string> &paths);

  const Options &options() const;

  /// Stops the program that this engine's Program::run or Program::launch is running, within
  /// milliseconds, wherever it is (a kernel, host code, a sleep): the run returns
  /// Status::Interrupted after reporting where it stopped. If none is running, the next one
  /// stops at its start; one call stops one run. Callable from any thread, and from a signal
  /// handler (it only sets a flag).
  void interrupt();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace kern
