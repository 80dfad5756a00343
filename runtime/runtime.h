// The runtime: plays the GPU for a compiled program (device memory, the CUDA runtime API,
// kernel launches, printf, faults) and runs its host main.
#pragma once

#include "backend/program_image.h"
#include "runtime/checked.h"
#include "runtime/counter_hooks.h"
#include "runtime/device.h"
#include "runtime/device_heap.h"
#include "runtime/host_heap.h"
#include "runtime/host_state.h"
#include "runtime/host_threads.h"
#include "runtime/memory.h"
#include "runtime/modules.h"
#include "runtime/occupancy.h"
#include "runtime/printf_format.h"
#include "runtime/random.h"
#include "runtime/scheduler.h"
#include "runtime/stop.h"
#include "runtime/stream_clock.h"
#include "runtime/timing.h"

#include <chrono>
#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <setjmp.h>
#include <string>
#include <string_view>
#include <vector>

namespace kern::runtime {

class Runtime;

/// KernHostCtx::tag's value: kern_rt_global_addr receives either a KernWarpCtx* or a
/// KernHostCtx* and tells them apart by the first word.
extern const char kHostCtxTag;

/// The exit code of a program stopped by a host fault: the `kern` command's "runtime fault"
/// code, since the program itself did not choose it.
constexpr int32_t kHostFaultExitCode = 3;
/// runMain's result when the program was stopped by a StopRequest (Ctrl-C: 128 + SIGINT, as
/// a shell reports a program that SIGINT ended).
constexpr int32_t kInterruptedExitCode = 130;

} // namespace kern::runtime

/// The hidden first parameter of compiled host code: abi.h's head, then what only the
/// runtime reads.
struct KernHostCtx : KernHostHead {
  /// tag is always &kHostCtxTag. A KernWarpCtx starts with its `params` pointer, which points
  /// into a parameter buffer and so never equals this address.
  KernHostCtx() : KernHostHead{&kern::runtime::kHostCtxTag, 0, 0, nullptr, 0, 0, 0, 0} {}
  kern::runtime::Runtime *rt = nullptr;
  /// exit() and host faults jump here, back into Runtime::runMain: compiled host code has no
  /// destructors to run, so unwinding by longjmp is safe.
  std::jmp_buf exitJump;
  int32_t exitCode = 0;
  /// A memory fault of host code that no check of kern's caught (e.g. a write past the end of
  /// a malloc block into unmapped memory) lands here through the signal guard of runMain.
  sigjmp_buf signalJump;
  int signal = 0;
  uint64_t signalAddr = 0;
  /// setjmp's contexts (runtime/host_jumps.cpp): the program's jmp_buf holds only a slot's
  /// number and generation, so no value the program writes is ever jumped to.
  struct Jump {
    std::jmp_buf native; // filled by the C library's _setjmp, called by the compiled code
    uint64_t generation = 0;
    uint64_t frame = 0;   // the machine frame of the function that called setjmp
    uint64_t stackLo = 0; // its thread (each thread's stack in the arena has its own)
    uint64_t arenaSp = 0; // the arena stack's top then, given back to on longjmp
    uint64_t env = 0;     // the jmp_buf's address
    bool live = false;    // the function that called setjmp has not returned
  };
  std::vector<std::unique_ptr<Jump>> jumps;
  /// C++ exceptions (runtime/host_exceptions.cpp). An exception: its object (a block of the
  /// host heap made by `new`), what a handler may catch it as (types, each with the offset of
  /// that subobject), and for the message of one that none catches its type's name and what().
  struct Exception {
    char kind = 'V';      // 'C' a class object, 'P' a pointer (the object holds it), 'V' other
    uint64_t object = 0;  // the heap block
    uint64_t pointer = 0; // 'P': the pointer thrown (a handler's copy is adjusted to its base)
    std::string name;     // as libstdc++ prints it: "std::runtime_error", "char const*"
    std::vector<std::pair<std::string, uint64_t>> types;
    bool hasWhat = false;
    std::string what;
    uint32_t site = 0; // the throw
  };
  /// A try block entered and not yet left: its frame (a jmp_buf of setjmp's), and how many
  /// exceptions were being handled when it was entered.
  struct Try {
    uint64_t env = 0;
    size_t caughtDepth = 0;
  };
  std::vector<Try> tries;        // innermost last
  std::vector<Exception> thrown; // the exception on its way to a handler (0 or 1)
  std::vector<Exception> caught; // the exceptions being handled, innermost last
};

namespace kern::runtime {

/// While one lives, the host signal guard of runMain lets this thread's faults through to the
/// default action instead of unwinding host code: a launch runs kernels on this thread, and
/// nothing may unwind out of the middle of one while other workers still run it.
class HostSignalPause {
public:
  HostSignalPause();
  ~HostSignalPause();
  HostSignalPause(const HostSignalPause &) = delete;
  HostSignalPause &operator=(const HostSignalPause &) = delete;

private:
  KernHostCtx *saved_;
};

/// Which launches of a run that counts are profiled (Nsight Compute's launch filter, kern's
/// --kernel-name, --launch-skip, --launch-count, --profile-from-start). A launch that runs is
/// profiled when, in this order: the profiler is active (from the start, or after
/// cudaProfilerStart(); cudaProfilerStop() ends it), its kernel matches `kernelName`,
/// `predicate` accepts it, the first `launchSkip` launches that got this far are past, and
/// fewer than `launchCount` have been profiled. Launches rejected before they run are not
/// profiled and do not count towards the skip or the limit.
struct LaunchFilter {
  /// The kernel's name, exactly; "regex:PATTERN": names in which the ECMAScript regular
  /// expression PATTERN finds a match (std::regex_search). If empty, every kernel.
  std::string kernelName;
  /// Launches (that match the name and predicate) to let pass unprofiled first. If 0, none.
  uint64_t launchSkip = 0;
  /// Launches to profile at most, after the skipped ones. If 0, no limit.
  uint64_t launchCount = 0;
  /// Whether the profiler is active from the start. If false, nothing is profiled until the
  /// program calls cudaProfilerStart().
  bool profileFromStart = true;
  /// Called with the kernel's name and the launch's index in Runtime::launches(); false: not
  /// profiled. If empty, every launch passes.
  std::function<bool(std::string_view kernel, uint64_t launchIndex)> predicate;

  /// True when a field differs from its default, i.e. launches are selected one by one.
  bool selects() const {
    return !kernelName.empty() || launchSkip != 0 || launchCount != 0 || !profileFromStart ||
           predicate != nullptr;
  }
};

/// LaunchFilter::kernelName's prefix for a regular expression (Nsight Compute's spelling).
constexpr std::string_view kRegexPrefix = "regex:";

/// Checks that `filter` can be used (a "regex:" name must be a valid regular expression);
/// false with `error` set otherwise.
bool checkLaunchFilter(const LaunchFilter &filter, std::string &error);

/// How a Runtime behaves; every field has a usable default.
struct RuntimeOptions {
  /// The GPU the runtime plays: launch limits, occupancy, SMs, the host link, the properties
  /// cudaGetDeviceProperties reports. If not set, the default profile (h100).
  DeviceProfile device = *findProfile(kDefaultProfileName);
  /// Registers per thread of every kernel, for occupancy and the launch check. If 0, each
  /// kernel's KernelInfo::registers (an estimate unless the backend knows).
  int registersPerThread = 0;
  /// Worker threads that run blocks (the calling thread is one of them). If 0,
  /// std::thread::hardware_concurrency().
  unsigned workers = 0;
  /// The program's stdout and stderr. If empty, the process's stdout and stderr.
  std::function<void(std::string_view)> out;
  std::function<void(std::string_view)> err;
  /// Size of device global memory (only address space is reserved). If 0, the profile's
  /// memoryBytes.
  uint64_t deviceMemoryBytes = 0;
  /// Wall-clock limit of one launch in seconds. If 0, none.
  double timeoutSeconds = 0;
  /// How the messages of a run stopped by the time limit name the setting that sets it.
  std::string timeoutSetting = "--timeout";
  /// Where a stop is asked for from outside (Ctrl-C, kern_interrupt): a kernel or host code
  /// that notices it stops, and runMain returns kInterruptedExitCode. If null, none can be.
  std::shared_ptr<const StopRequest> stop;
  /// Count what the GPU would suffer (counters()); the kernels must be compiled with the
  /// counter hooks, or the program image carry the counting variant. If false, nothing is counted
  /// (setCounting() changes it between launches).
  bool counters = false;
  /// Which launches count when `counters` is on. If it selects nothing, every launch.
  LaunchFilter filter;
  /// `kern explain`: the access sites on this line of the main file (file 0) keep the whole
  /// access of their first and worst warp (CounterCollector::captures), with counters on. If 0,
  /// none.
  uint32_t explainLine = 0;
  /// The HTML report: every access site keeps its first and worst warp (as explainLine's).
  bool captureAll = false;
  /// Checked mode: report shared-memory races and reads of never-written global memory (the
  /// kernels must be compiled checked). Each finding is an
  /// error that makes faulted() true; the program and its output go on unchanged.
  bool checked = false;
  /// Called after each launch that ran (faulted or not) with its index in launches(): where
  /// `--stats` prints its table. If empty, nothing is called.
  std::function<void(size_t)> onLaunchEnd;
  /// Host code may open files (fopen, remove). If false, fopen returns NULL with errno EACCES
  /// and a note on `err`, and remove fails likewise.
  bool allowFiles = false;
  /// A sandboxed run (docs/sandbox.md): host code's files are confined to these directories,
  /// and the program sees no environment. If not enabled, allowFiles alone decides.
  struct Sandbox {
    bool enabled = false;
    /// Canonical directories that host code may read beneath.
    std::vector<std::string> readDirs;
    /// The one canonical directory it may create, write and remove files beneath (and read).
    /// If empty, nowhere.
    std::string writeDir;
    /// The process's address-space limit, for the note of a failed malloc. If 0, none.
    uint64_t memoryLimitBytes = 0;
    /// Called when a host allocation fails under that limit. If empty, nothing is called.
    std::function<void()> onMemoryLimit;
  } sandbox;
};

/// One kernel launch as the virtual GPU saw it, failed launches included.
struct LaunchRecord {
  std::string kernel;
  uint32_t site = 0; ///< the launch's source site (ProgramImage::sites), 0 if unknown
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  uint64_t sharedBytes = 0;   ///< static + dynamic
  int registersPerThread = 0; ///< what occupancy was computed with
  /// How the registers were chosen: "--regs" (the option), "kernel" (a count the backend
  /// knows), "estimate" (KernelInfo's default), "estimate, lowered to fit" (see KernelInfo).
  std::string registersSource;
  OccupancyResult occupancy; ///< empty (blocksPerSM 0) if the launch failed before it
  Waves waves;               ///< blocks on virtual SMs, wave by wave (placeBlock)
  double startSeconds = 0;   ///< the modelled clock when the launch began
  /// The timing model's duration of a profiled launch (time.seconds); 0 for a launch that was
  /// not counted.
  double modelledSeconds = 0;
  LaunchTime time; ///< the timing model's answer (runtime/timing.h); empty unless profiled
  /// The host's wall time (steady clock) of the launch's run on the workers, blocks only: what
  /// kern itself took, for --time-kernels and benchmarks; never in a report (not reproducible).
  double wallSeconds = 0;
  int32_t error = 0;    ///< the cudaError_t of the launch (0: it ran; see also faulted)
  bool faulted = false; ///< the kernel ran and faulted (error is then the fault's code)
  /// The launch ran with counters (the run counts and the launch passed the LaunchFilter);
  /// false: nothing was counted and counters().launch(i) is empty.
  bool profiled = false;
};

/// Which way a host <-> device copy goes.
enum class TransferDirection { HostToDevice, DeviceToHost };

/// One host <-> device copy (HARDWARE-MODEL.md, "Host <-> device transfers"). Copies within the
/// host or within the device cross no bus and are not transfers.
struct TransferRecord {
  std::string api; ///< "cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpyToSymbol"...
  TransferDirection direction = TransferDirection::HostToDevice;
  uint64_t bytes = 0;
  bool pinned = false;     ///< the host side is page-locked (cudaMallocHost, cudaHostRegister...)
  double startSeconds = 0; ///< the modelled clock when the copy began
  double seconds = 0;      ///< transferSeconds(profile, bytes, pinned)
};

/// The program's device work in program order: launches and transfers interleaved.
struct TimelineEvent {
  enum class Kind { Launch, Transfer };
  Kind kind = Kind::Launch;
  size_t index = 0; ///< into launches() or transfers()
};

class Runtime {
public:
  using Options = RuntimeOptions;

  explicit Runtime(Options options = {});
  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  /// The compiled program. Allocates and initialises its global variables that are new (a REPL
  /// session hands a grown image for each input: variables it had keep their storage). When
  /// the image has ProgramImage::countingKernels, its kernels are the fast variant and run the
  /// launches that are not profiled; the counting variant is asked for once, at the first launch
  /// that is (and kept until the next setProgram).
  void setProgram(backend::ProgramImage image);

  /// argv[0] of a program compiled from `source` (a file name), as a native build's would be.
  static std::string programName(const std::string &source);
  /// Runs the program's main with argv = {program name, args...}; returns its exit code
  /// (exit()'s argument; kHostFaultExitCode after a host fault). Flushes all output before
  /// returning.
  /// (Returns 0 at once when the image has no main.)
  int runMain(const std::vector<std::string> &args);
  /// Whether a kernel or host fault happened.
  bool faulted() const { return faulted_; }
  /// The message of the last error reported (empty if none).
  const std::string &lastErrorMessage() const { return lastErrorMessage_; }
  DeviceMemory &deviceMemory() { return device_; }
  const DeviceProfile &device() const { return options_.device; }
  /// Every launch, transfer, and both in program order.
  const std::vector<LaunchRecord> &launches() const { return launches_; }
  const std::vector<TransferRecord> &transfers() const { return transfers_; }
  const std::vector<TimelineEvent> &timeline() const { return timeline_; }
  /// The modelled clock, in seconds since the program started: the end of all device work
  /// issued so far (what cudaDeviceSynchronize would wait for).
  double modelledClock() const { return clock_.deviceEnd(); }
  /// The counters of every profiled launch and of the program (empty unless
  /// Options::counters).
  const CounterCollector &counters() const { return counters_; }
  /// Whether the following launches count (Options::counters, then setCounting()).
  bool counting() const { return options_.counters; }
  /// The line whose access sites keep their warps whole (Options::explainLine) from the next
  /// launch on, in the current program. 0: none.
  void setExplainLine(uint32_t line);
  /// Turns counting on or off for the following launches (the REPL's `:mode`). The kernels
  /// must have the counter hooks (or setProgram a counting variant) for them to count.
  void setCounting(bool on) { options_.counters = on; }
  /// The time limit of the following runs (Options::timeoutSeconds; the REPL's `:timeout`).
  void setTimeout(double seconds) { options_.timeoutSeconds = seconds; }
  /// Turns checked mode's records on or off for the following launches (the REPL's `:mode
  /// checked`); the kernels must be compiled checked. Memory allocated before counts as
  /// written: what the program put there was not recorded, so no read of it is reported.
  void setChecked(bool on);
  /// The error a kernel fault left on the device (0: none): every CUDA call returns it until
  /// cudaDeviceReset. How many calls have returned it so far.
  int32_t stickyError() const { return stickyError_; }
  uint64_t stickyReturns() const { return stickyReturns_; }
  /// The bytes host code may read from `addr` on, within its object (0: none).
  uint64_t hostObjectRoom(uint64_t addr);
  /// Launches profiled so far.
  uint64_t profiledLaunches() const { return profiledLaunches_; }

  // ---- the runtime API: runtime_api.cpp forwards each kern_rt_* function here ----------------
  // Functions that return bool report a host fault when they return false; the caller then
  // unwinds with unwind().

  /// Whether a runtime call has made the device's context (cudaMalloc, cudaFree, cudaSetDevice,
  /// the other allocations): CUDA's runtime initialises the driver then, so the driver API works
  /// without cuInit afterwards (frontend/headers/cuda/kern_cuda_driver.h).
  bool contextMade() const { return contextMade_; }
  int32_t cudaMalloc(void **p, uint64_t size);
  /// Also cudaFreeAsync's work, under its name.
  int32_t cudaFree(void *p, const char *function = "cudaFree");
  int32_t cudaMemcpy(void *dst, const void *src, uint64_t n, int32_t kind);
  int32_t cudaMemset(void *p, int32_t value, uint64_t n);
  int32_t cudaDeviceSynchronize();
  int32_t cudaGetLastError();
  int32_t cudaPeekAtLastError();
  int32_t cudaGetDeviceCount(int32_t *count);
  int32_t cudaGetDevice(int32_t *dev);
  int32_t cudaSetDevice(int32_t dev);
  int32_t cudaDeviceReset();
  /// cuda_profiler_api.h (api_device.cpp): the profiler's active range. Start makes the
  /// following launches eligible for profiling, Stop ends that until the next Start.
  int32_t cudaProfilerStart();
  int32_t cudaProfilerStop();
  void launch(uint32_t kernel, const uint32_t grid[3], const uint32_t block[3],
              uint64_t sharedBytes, void *stream, const uint8_t *params, uint32_t paramBytes,
              uint32_t site);

  // Pinned host memory, streams and events, the modelled clock (api_streams.cpp). Every
  // stream runs its work synchronously, in program order, before the call returns: one legal
  // schedule of any CUDA program, since work within a stream is ordered and the default stream
  // waits for everything anyway.
  int32_t cudaMallocHost(void **p, uint64_t size, const char *function = "cudaMallocHost");
  int32_t cudaHostAlloc(void **p, uint64_t size, uint32_t flags);
  int32_t cudaFreeHost(void *p);
  int32_t cudaMemcpyAsync(void *dst, const void *src, uint64_t n, int32_t kind, void *stream);
  int32_t cudaMemsetAsync(void *p, int32_t value, uint64_t n, void *stream);
  int32_t cudaStreamCreate(void **stream, uint32_t flags = 0,
                           const char *function = "cudaStreamCreate");
  /// Every stream's work is done when its call returns: cudaSuccess for a live stream.
  int32_t cudaStreamQuery(void *stream);
  /// Work is ordered in program order already: checks the handles and flags.
  int32_t cudaStreamWaitEvent(void *stream, void *event, uint32_t flags);
  int32_t cudaStreamDestroy(void *stream);
  int32_t cudaStreamSynchronize(void *stream);
  /// A compiled host function: cudaStreamCallback_t and cudaHostFn_t as the JIT compiled them
  /// (the host context first).
  using StreamCallback = void (*)(KernHostCtx *, void *stream, int32_t status, void *userData);
  using HostFn = void (*)(KernHostCtx *, void *userData);
  /// cudaStreamAddCallback / cudaLaunchHostFunc: the function runs now, before the call
  /// returns, which is after all earlier work of the stream (done when its call returned) and
  /// before any later work. It may unwind (exit, a fault): the caller holds nothing to destroy.
  int32_t cudaStreamAddCallback(KernHostCtx *ctx, void *stream, StreamCallback fn, void *userData,
                                uint32_t flags);
  int32_t cudaLaunchHostFunc(KernHostCtx *ctx, void *stream, HostFn fn, void *userData);
  int32_t cudaEventCreate(void **event, uint32_t flags = 0,
                          const char *function = "cudaEventCreate");
  int32_t cudaEventRecord(void *event, void *stream);
  int32_t cudaEventSynchronize(void *event);
  int32_t cudaEventQuery(void *event);
  int32_t cudaEventElapsedTime(float *ms, void *start, void *end);
  int32_t cudaEventDestroy(void *event);

  // The device, kernels and symbols (api_device.cpp).
  /// cudaRuntimeGetVersion / cudaDriverGetVersion: the CUDA release kern implements, 13.0.
  int32_t cudaVersion(const char *function, int32_t *version);
  int32_t cudaSetDeviceFlags(uint32_t flags);
  int32_t cudaGetDeviceFlags(uint32_t *flags);
  /// Limits, stream attributes, peer access and device attributes (api_attributes.cpp).
  int32_t cudaDeviceGetAttribute(int32_t *value, int32_t attr, int32_t device);
  /// cudaLimitStackSize, PrintfFifoSize, MallocHeapSize and PersistingL2CacheSize are kept
  /// and reported back; none changes what a kernel computes (docs/runtime-api.md).
  int32_t cudaDeviceSetLimit(int32_t limit, uint64_t value);
  int32_t cudaDeviceGetLimit(uint64_t *value, int32_t limit);
  /// The access policy window and synchronization policy of a stream: checked and kept; the
  /// model has no persisting L2 lines, so they change no result or counter.
  int32_t cudaStreamSetAttribute(void *stream, int32_t attr, const KernStreamAttrValue *value);
  int32_t cudaStreamGetAttribute(void *stream, int32_t attr, KernStreamAttrValue *value);
  int32_t cudaCtxResetPersistingL2Cache();
  /// One device: no device has a peer. A copy from device 0 to device 0 is a device copy.
  int32_t cudaDeviceCanAccessPeer(int32_t *canAccess, int32_t device, int32_t peer);
  int32_t cudaDeviceEnablePeerAccess(int32_t peer, uint32_t flags);
  int32_t cudaDeviceDisablePeerAccess(int32_t peer);
  int32_t cudaMemcpyPeer(void *dst, int32_t dstDevice, const void *src, int32_t srcDevice,
                         uint64_t n, void *stream, const char *function);
  /// cudaDeviceSetCacheConfig: a valid cudaFuncCache is accepted (the profiles' shared memory
  /// per block does not depend on it); another is cudaErrorInvalidValue.
  int32_t cudaCacheConfig(const char *function, int32_t config);
  int32_t cudaFuncSetCacheConfig(uint32_t kernel, int32_t config);
  int32_t cudaGetDeviceProperties(KernDeviceProp *prop, int32_t device);
  int32_t cudaMemcpyToSymbol(void *symbol, const void *src, uint64_t n, uint64_t offset,
                             int32_t kind);
  int32_t cudaMemcpyFromSymbol(void *dst, const void *symbol, uint64_t n, uint64_t offset,
                               int32_t kind);
  int32_t cudaGetSymbolAddress(void **p, void *symbol);
  int32_t cudaGetSymbolSize(uint64_t *size, void *symbol);
  int32_t cudaFuncGetAttributes(KernFuncAttributes *attr, uint32_t kernel);
  /// What is wrong with kernel number `kernel`, which the program does not have: a number, or
  /// 0xffffffff, a pointer's value that names no kernel (see the lowering's kernelIndexOf).
  static int32_t unknownKernelError(uint32_t kernel);
  static std::string unknownKernel(uint32_t kernel);
  int32_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int32_t *n, uint32_t kernel,
                                                        int32_t blockSize, uint64_t dynamicShared);
  // Mapped, registered and managed memory (api_unified.cpp, api_managed.cpp).
  int32_t cudaHostGetDevicePointer(void **device, void *host, uint32_t flags);
  int32_t cudaHostRegister(void *p, uint64_t size, uint32_t flags);
  int32_t cudaHostUnregister(void *p);
  int32_t cudaMallocManaged(void **p, uint64_t size, uint32_t flags);
  int32_t cudaMemPrefetchAsync(const void *p, uint64_t n, const KernMemLocation *location,
                               uint32_t flags, void *stream);
  int32_t cudaMemAdvise(const void *p, uint64_t n, int32_t advice, const KernMemLocation *location);
  int32_t cudaStreamAttachMemAsync(void *stream, const void *p, uint64_t length, uint32_t flags);
  int32_t cudaMemGetInfo(uint64_t *free, uint64_t *total);
  int32_t cudaPointerGetAttributes(KernPointerAttributes *attr, const void *p);
  /// A host access faulted at `addr`: if it is a managed page resident on the device, migrate
  /// it to the host (counted as a transfer) and return true, so the access is retried.
  bool resolveManagedFault(uint64_t addr);
  // Stream-ordered allocation and memory pools (api_pools.cpp). Each allocation is ordinary
  // device memory (checked as cudaMalloc's); the pool keeps the books CUDA's attributes report.
  int32_t cudaMallocAsync(void **p, uint64_t size, void *stream);
  int32_t cudaMallocFromPoolAsync(void **p, uint64_t size, void *pool, void *stream);
  int32_t cudaFreeAsync(void *p, void *stream);
  int32_t cudaDeviceGetMemPool(void **pool, int32_t device, bool defaultPool);
  int32_t cudaDeviceSetMemPool(int32_t device, void *pool);
  int32_t cudaMemPoolSetAttribute(void *pool, int32_t attr, void *value);
  int32_t cudaMemPoolGetAttribute(void *pool, int32_t attr, void *value);
  int32_t cudaMemPoolTrimTo(void *pool, uint64_t minBytesToKeep);
  /// One device: its own pools are always read-write to it; any other device is invalid.
  int32_t cudaMemPoolSetAccess(void *pool, const KernMemAccessDesc *descs, uint64_t count);
  int32_t cudaMemPoolGetAccess(int32_t *flags, void *pool, const KernMemLocation *location);
  int32_t cudaMemPoolCreate(void **pool, const KernMemPoolProps *props);
  int32_t cudaMemPoolDestroy(void *pool);
  // Pitched memory and the occupancy helper (api_pitch.cpp).
  int32_t cudaMallocPitch(void **p, uint64_t *pitch, uint64_t width, uint64_t height);
  int32_t cudaMemcpy2D(void *dst, uint64_t dpitch, const void *src, uint64_t spitch, uint64_t width,
                       uint64_t height, int32_t kind, const char *api = "cudaMemcpy2D");
  int32_t cudaMemcpy2DAsync(void *dst, uint64_t dpitch, const void *src, uint64_t spitch,
                            uint64_t width, uint64_t height, int32_t kind, void *stream);
  int32_t cudaMemset2D(void *p, uint64_t pitch, int32_t value, uint64_t width, uint64_t height);
  int32_t cudaOccupancyMaxPotentialBlockSize(int32_t *minGridSize, int32_t *blockSize,
                                             uint32_t kernel, uint64_t dynamicShared,
                                             int32_t blockSizeLimit);
  // Modules compiled and loaded while the program runs, and launches with their arguments in
  // an array (api_modules.cpp). The module functions return CUresult values.
  /// The engine's compiler of run-time modules (NVRTC, cuModuleLoad*); without one, such
  /// modules fail to compile with a log that says so.
  void setModuleCompiler(backend::ModuleCompiler compiler);
  /// nvrtcCreateProgram's parts as a module image, in the program's heap.
  char *rtcImage(const char *source, const char *name, int32_t numHeaders, void **headers,
                 void **includeNames, int32_t numOptions, void **options);
  /// nvrtcCompileProgram: 0 if the image compiled, 1 if not; the log in the program's heap.
  int32_t rtcCompile(const char *image, void **log);
  int32_t moduleLoad(void **module, const char *imageOrPath, bool isFile, uint32_t site);
  int32_t moduleUnload(void *module);
  int32_t moduleFunction(void **fn, void *module, const char *name);
  int32_t moduleGlobal(void **dptr, uint64_t *bytes, void *module, const char *name);
  /// The kernel a CUfunction names (0xffffffff for none), and the CUfunction of a kernel.
  uint32_t functionKernel(const void *fn) const;
  void *kernelFunction(uint32_t kernel);
  int32_t functionAttributes(KernFuncAttributes *attr, const void *fn);
  /// Packs `args` (one pointer per parameter) or cuLaunchKernel's `extra` and launches; the
  /// launch's error in `result`. False after a host fault (a bad argument pointer): the caller
  /// unwinds.
  bool launchWithArgs(const char *api, uint32_t kernel, const uint32_t grid[3],
                      const uint32_t block[3], uint64_t sharedBytes, void *stream, void **args,
                      void **extra, uint32_t site, int32_t &result);
  /// What stops a cooperative launch of this size (cudaErrorCooperativeLaunchTooLarge,
  /// cudaErrorNotSupported before cc 6.0), or 0; and that error, recorded.
  int32_t cooperativeLimit(uint32_t kernel, const uint32_t grid[3], const uint32_t block[3],
                           uint64_t sharedBytes);
  int32_t cooperativeLaunchError(int32_t error, uint32_t kernel, uint32_t site);
  /// The program as it runs now: the image with the modules loaded so far.
  const backend::ProgramImage &program() const { return image_; }

  /// The source site of the runtime API call compiled host code is making (0 after it): its
  /// warnings and errors name that line.
  void setApiSite(uint32_t site) { apiSite_ = site; }
  uint32_t apiSite() const { return apiSite_; }
  /// Whether host code may go on: no stop was asked for (Options::stop), and it is within
  /// the time limit (Options::timeoutSeconds, counting the time since main started outside
  /// kernel launches). If not, reports it at `site` (`inLoop`: a loop's back-edge, else a call);
  /// the caller then unwinds with stopExitCode().
  bool hostMayGoOn(uint32_t site, bool inLoop);
  /// Whether a stop was asked for from outside (Options::stop) and not yet cleared.
  bool stopRequested() const { return options_.stop && options_.stop->requested(); }
  /// Whether the run was stopped by such a request (a kernel or host code noticed it).
  bool interrupted() const { return interrupted_; }
  /// Forgets that a launch made outside runMain (an embedding's Program::launch) was stopped.
  void clearInterrupted() { interrupted_ = false; }
  /// The exit code to unwind host code with after hostMayGoOn() said no, or a launch was
  /// interrupted: kInterruptedExitCode or kHostFaultExitCode.
  int32_t stopExitCode() const { return interrupted_ ? kInterruptedExitCode : kHostFaultExitCode; }
  /// Sleeps `nanoseconds` of host time (sleep, usleep, nanosleep), letting the program's other
  /// threads run first; false if a stop or the time limit ended it (reported at the call's
  /// site).
  bool hostSleep(KernHostCtx *ctx, uint64_t nanoseconds);
  /// A failed assert() in host code: reports it (the caller then unwinds with kHostFaultExitCode).
  void hostAssert(uint32_t site, const char *message);

  /// Host printf/fprintf/puts/putchar output: stream 1 stdout, 2 stderr.
  void write(int32_t stream, std::string_view text);
  /// The formatter options for host printf (device pointers are not read by %s).
  FormatOptions hostFormatOptions();

  void *hostMalloc(uint64_t size);
  void *hostCalloc(uint64_t n, uint64_t size);
  bool hostRealloc(void *p, uint64_t size, void *&result);
  bool hostFree(void *p);
  /// C++'s `new`/`new[]` (a block of `size` bytes, at least one) and `delete`/`delete[]`: the
  /// same heap as malloc, with the form remembered, so that mixing them with each other or
  /// with malloc/free is reported.
  void *hostNew(uint64_t size, bool isArray);
  /// The bytes a block from new[] holds (what delete[] divides into elements), 0 if `p` is not one.
  uint64_t hostNewSize(const void *p) const;
  /// delete (`form` 0) or delete[] (1) of `p`; bit 2 of `form`: its type has nothing to
  /// destroy, so the other form is a warning, not an error.
  bool hostDelete(void *p, int32_t form);
  /// Host memory beyond malloc (host_memory.cpp), setting errno as glibc does: a block aligned
  /// to `alignment` (a power of two); an anonymous mapping (mmap's flags and protection,
  /// checked; MAP_FAILED's null here on failure); munmap; malloc_usable_size (false, reported,
  /// when `p` is no block of malloc).
  void *hostAlignedAlloc(uint64_t alignment, uint64_t size);
  void *hostMmap(uint64_t length, int32_t prot, int32_t flags, int32_t fd);
  int32_t hostMunmap(void *addr, uint64_t length);
  bool hostUsableSize(const void *p, uint64_t &size);
  /// Checks that host code may access [p, p + n) ("memcpy", "destination"): not null, not
  /// device memory, inside its heap block when it is one.
  bool checkHostRange(const char *function, const char *what, const void *p, uint64_t n);
  /// Checks a C string argument and returns its length in `len`.
  bool checkHostString(const char *function, const char *what, const char *s, uint64_t &len);

  int32_t rand();
  void srand(uint32_t seed);
  Rand48 &rand48() { return rand48_; }

  /// The host C library's state: errno, getopt, open files (host_state.h).
  HostLibraryState &hostLibrary() { return lib_; }
  bool allowFiles() const { return options_.allowFiles; }
  /// A sandboxed run (RuntimeOptions::sandbox).
  bool sandboxed() const { return options_.sandbox.enabled; }
  /// Whether host code may open `path` for `function` (to create, write or remove it if
  /// `write`): always outside a sandbox; in one, only beneath its directories. If not, the
  /// program's errno is EACCES and a note goes to err (host_paths.cpp).
  bool sandboxAllows(const char *function, const char *path, bool write);
  /// A host allocation of `bytes` failed: under a sandbox's memory limit, a note (once) and
  /// RuntimeOptions::Sandbox::onMemoryLimit.
  void hostAllocationFailed(uint64_t bytes);
  /// Reports an error of host code's use of the C library (the caller then unwinds with
  /// kHostFaultExitCode).
  void hostLibraryError(std::string message) { reportHostError(std::move(message)); }
  /// Writes to the program's stderr (a note, not an error).
  void note(std::string_view text) { options_.err(text); }

  uint64_t globalAddress(uint32_t globalId) const;

  /// kern_rt_host_fault: reports a fault of host code at `site`.
  void hostFault(uint32_t site, uint32_t kind, uint64_t addr);
  /// Reports a fault of host code at `site` that says `what` (the caller then unwinds).
  void hostProblem(uint32_t site, const std::string &what);
  /// An object of host code that an address was computed from, for messages.
  struct HostObject {
    std::string name; // "local variable 'a' of main"
    uint64_t base, size;
  };
  /// kern_rt_host_check (host_checks.cpp): an access of `n` bytes at `addr` by host code at
  /// `site` that the compiled check did not pass (outside the host arena, or outside every
  /// object in it). True if it is allowed all the same (managed or mapped memory, an object
  /// of the runtime's that the program was handed); else reported. With `object`: the address
  /// was computed from that object and leaves it, which is always a fault.
  bool hostAccess(uint32_t site, uint64_t addr, uint64_t n, bool store, const HostObject *object);
  /// An object of the runtime's that host code is handed a pointer to (errno, optarg, the
  /// text of strerror or getenv): host code may then read it (and write it, if `writable`).
  /// Returns `p`.
  template <class T> T *handOut(T *p, uint64_t size, const char *name, bool writable) {
    if (p)
      handOutObject(addressOf(p), size, name, writable);
    return p;
  }
  /// A C string of the runtime's handed out (read-only).
  const char *handOutString(const char *s);
  /// The host arena (host_heap.h).
  HostMemory &hostHeap() { return host_; }
  /// After host code was let access `addr` outside the arena: if it lies in a mapped pinned
  /// block, the block becomes the context's inline-checked one (KernHostHead::visibleLo).
  void noteVisibleAccess(KernHostCtx *ctx, uint64_t addr);
  /// Pinned memory in the host-visible arena, mapped for kernels at the same address
  /// (cudaHostAllocMapped, and every pinned allocation with unified addressing).
  int32_t mappedPinned(void **p, uint64_t size, uint32_t flags, const char *function);
  /// exit() and host faults: back to runMain. No destructors may be pending in the caller.
  [[noreturn]] static void unwind(KernHostCtx *ctx, int32_t code);
  /// The program's threads (<pthread.h>), for the run of main in progress.
  HostThreads &hostThreads() {
    if (!hostThreads_)
      hostThreads_ = std::make_unique<HostThreads>(*this);
    return *hostThreads_;
  }

private:
  /// A handle given out by cudaStreamCreate / cudaEventCreate. Handles are never freed before
  /// the Runtime, so a destroyed handle's address is never handed out again and stays invalid.
  struct Handle {
    enum class Kind { Stream, Event } kind = Kind::Stream;
    bool live = true;
    bool recorded = false; ///< events: cudaEventRecord was called
    double stamp = 0;      ///< events: the modelled clock at the last record
    /// events: the stream of the last record, and the stream-ordered frees queued before it
    const void *stream = nullptr;
    uint64_t freeSeq = 0;
  };

public:
  /// A live allocation of the host-visible arena (DeviceMemory::Arena::HostVisible).
  struct HostVisibleBlock {
    enum class Kind { MappedPinned, Managed } kind = Kind::Managed;
    uint64_t base = 0, size = 0;
    uint32_t flags = 0;
    /// Managed memory, per DeviceMemory::kHostVisibleUnit: where the unit lives and the advice
    /// given for it.
    enum class Where : uint8_t { Unpopulated, Host, Device, Both };
    struct Unit {
      Where where = Where::Unpopulated;
      bool readMostly = false;
      int8_t preferred = 0; // 0 none, 1 the device, 2 the host
      bool accessedByDevice = false, accessedByHost = false;
    };
    std::vector<Unit> units;
  };
  /// A host range kernels reach through a device view: cudaHostRegister, or a pinned block
  /// whose device pointer was asked for. The host copy is authoritative between launches; the
  /// device view is filled before each launch (or device-side copy) and read back after.
  struct HostAlias {
    uint64_t host = 0, size = 0, device = 0;
    uint64_t heapBase = 0; // the malloc block holding the range when registered, or 0
    bool registered = false;
  };

  /// A memory pool (cudaMemPool_t): the device's default pool or one of cudaMemPoolCreate. As
  /// CUDA's does (measured on an H100), it places its allocations first fit in an address range
  /// of its own and backs that range with device memory in units of kUnitBytes: a unit is
  /// reserved from the first allocation on it until, with no allocation on it and no free on it
  /// that the host has yet to see complete, a synchronisation gives it back (while the pool
  /// holds more than its release threshold) or cudaMemPoolTrimTo does.
  struct MemPool {
    static constexpr uint64_t kUnitBytes = 32ull << 20;
    bool live = true;
    bool isDefault = false;
    uint64_t limit = 0; // cudaMemPoolProps::maxSize in whole units; 0: the device's memory
    uint64_t releaseThreshold = 0;
    int32_t reuse[3] = {1, 1, 1}; // the cudaMemPoolReuse* attributes, kept and reported
    uint64_t used = 0, usedHigh = 0, reservedHigh = 0;
    std::map<uint64_t, uint64_t> blocks; // offset -> bytes of each live allocation
    std::map<uint64_t, uint32_t> units;  // reserved unit -> allocations and pending frees on it
    uint64_t reserved() const { return units.size() * kUnitBytes; }
  };
  /// An allocation of cudaMallocAsync: its pool, its offset in the pool's range, its bytes.
  struct PoolAllocation {
    MemPool *pool = nullptr;
    uint64_t offset = 0, bytes = 0;
  };
  /// A cudaFreeAsync of pool memory that the host has not seen complete (by synchronising with
  /// its stream after it): its units stay reserved.
  struct PendingFree {
    PoolAllocation block;
    const void *stream = nullptr;
    uint64_t seq = 0; // freeSeq_ after it
  };

private:
  HostVisibleBlock *findHostVisible(uint64_t addr);
  void handOutObject(uint64_t addr, uint64_t size, const char *name, bool writable);
  /// Where [addr, addr + n) lies for a message; empty if it is an object host code may access.
  std::string hostAccessProblem(uint64_t addr, uint64_t n, bool store);
  std::set<uint32_t> mallocRoomWarned_; // sites warned by allowMallocRoom
  KernHostCtx *hostCtx_ = nullptr;      // the running program's host context (runMain)
  std::set<uint32_t> mismatchWarned_;   // sites warned by hostDelete
  struct HandedOut {
    uint64_t size;
    const char *name;
    bool writable;
  };
  std::map<uint64_t, HandedOut> handedOut_; // by address
  std::set<std::string> handedStrings_;     // handOutString's copies (stable addresses)
  HostAlias *findAlias(uint64_t hostAddr);
  HostAlias *findAliasByDevice(uint64_t deviceAddr);
  /// Creates the device view of [host, host + size); 0 when the device is out of memory.
  uint64_t makeAlias(uint64_t host, uint64_t size, bool registered);
  void dropAlias(uint64_t host);
  /// Copies a host range (every one) into its device view (toDevice) or back.
  void syncAlias(HostAlias &a, bool toDevice);
  void syncAliases(bool toDevice);
  /// Managed memory around a launch: migrate what the launch touches, open every unit to the
  /// kernels; afterwards protect the units the host may not touch without a fault.
  void managedBeforeLaunch(const uint8_t *params, uint32_t paramBytes);
  /// Bytes of the device allocations the launch's arguments point into (the timing model's
  /// footprint).
  uint64_t launchFootprint(const uint8_t *params, uint32_t paramBytes) const;
  void managedAfterLaunch();
  /// A write by the device (cudaMemset) to [addr, addr + n): if that is managed memory, its
  /// units are placed on the device first, as a kernel's write would place them, and `write`
  /// runs with them open.
  void managedDeviceWrite(uint64_t addr, uint64_t n, const std::function<void()> &write);
  void protectUnits(const HostVisibleBlock &b, size_t first, size_t count);
  void releaseHostVisible(uint64_t base);
  void releaseUnifiedState();
  Handle *findHandle(const void *p, Handle::Kind kind) const;
  /// Null (the default stream) or a live stream: cudaSuccess; else an error recorded for
  /// `function`.
  int32_t checkStream(const char *function, void *stream);
  /// A copy; `stream` and `async` for cudaMemcpyAsync (the modelled clock only: kern copies at
  /// once either way).
  int32_t memcpyImpl(const char *api, void *dst, const void *src, uint64_t n, int32_t kind,
                     void *stream = nullptr, bool async = false);
  /// A host <-> device copy on the modelled clock: on `stream`, and the host waits for it
  /// unless it is `async` from pinned memory (CUDA stages a pageable copy before returning).
  void recordTransfer(const char *api, TransferDirection direction, uint64_t bytes,
                      uint64_t hostAddr, void *stream = nullptr, bool async = false);
  bool isPinned(uint64_t hostAddr) const;
  /// The __device__ or __constant__ variable whose address is `addr`, or null.
  const backend::GlobalImage *findSymbol(uint64_t addr) const;
  int32_t checkSymbol(const char *function, uint64_t addr, uint64_t n, uint64_t offset,
                      const backend::GlobalImage *&var);
  /// Whether a launch of `k`, about to run as launch `index`, is profiled (LaunchFilter).
  bool selectForProfile(const KernelInfo &k, uint64_t index);
  /// The counting variant of kernel `kernel` (fetched on first use), or null when it cannot
  /// be had (an internal error, reported).
  const KernelInfo *countingKernel(uint32_t kernel);
  /// The registers per thread a launch of `k` uses and where the number comes from.
  int kernelRegisters(const KernelInfo &k, std::string *source = nullptr) const;
  int32_t recordError(int32_t code, std::string message);
  void reportHostError(std::string message);
  std::string location(uint32_t site) const;
  std::string siteWhat(uint32_t site) const;
  std::string describeFault(const FaultRecord &f, const KernelInfo &k, uint64_t sharedBytes) const;
  /// A failed device assert(), as CUDA prints it: a line per failing thread.
  std::string describeAssert(const FaultRecord &f, const KernelInfo &k) const;
  std::string describeTimeout(const LaunchResult &r, const KernelInfo &k, uint64_t blocks) const;
  std::string describeDevicePointer(uint64_t addr) const;
  /// Checked mode's findings of one launch, reported as errors (they do not stop anything).
  void reportChecked(const Checker::Findings &f, const KernelInfo &k, const LaunchResult &r);
  /// "LINE:COL" of a site, for naming a second site in a message.
  std::string lineCol(uint32_t site) const;
  bool checkDeviceRange(const char *function, const char *what, uint64_t addr, uint64_t n,
                        std::string &message) const;
  /// cudaSuccess where the profile has memory pools (cc6.0 and later); else an error recorded
  /// for `function`.
  int32_t poolsSupported(const char *function);
  int32_t poolAllocate(void **p, uint64_t size, MemPool &pool, void *stream, const char *function);
  /// The pool that the handle `p` names (live), or null.
  MemPool *findPool(const void *p) const;
  MemPool &defaultPool();
  /// Frees a pool allocation: its device memory and its bytes at once; its units when the host
  /// sees the free complete: at once for cudaFree, later for cudaFreeAsync in `stream`.
  void releasePoolAllocation(uint64_t base, bool async, const void *stream);
  /// Adds `delta` to the count of every unit that [offset, offset + bytes) of `pool` covers.
  void pinUnits(MemPool &pool, uint64_t offset, uint64_t bytes, int delta);
  /// A synchronisation that shows the host the completion of the pending frees of `stream`
  /// (of every stream if `all`) queued before free number `upTo`; then each pool gives back
  /// its empty units while it holds more than its release threshold.
  void synchronizePools(const void *stream, uint64_t upTo, bool all);
  /// Gives back `pool`'s empty units, newest first, while it holds more than its release
  /// threshold (0 once destroyed).
  void releaseEmptyUnits(MemPool &pool);
  /// cudaMemPoolTrimTo: gives back `pool`'s empty units, newest first, while `keep` bytes stay.
  void trimPool(MemPool &pool, uint64_t keep);
  /// Device bytes not held by pools (cudaMalloc...) plus every pool's reserved bytes.
  uint64_t deviceBytesCommitted() const;

  /// Allocates and initialises the globals of image_ that have no storage yet.
  void allocateGlobals();
  /// Forgets every run-time module (a new program image).
  void resetModules();
  std::shared_ptr<RuntimeModules::Compiled> compileModule(const std::string &image, bool forLoad);
  RuntimeModules::Loaded *findModule(const void *module);
  /// "<file:line>: warning: <message>" (or "kern: warning: ..." without a site).
  void warnAt(uint32_t site, const std::string &message);
  /// An access of [addr, addr + n) that runs past the end of a block of malloc or new but stays
  /// in the room glibc's malloc gives that block (HostMemory::mallocRoomEnd): true, after a
  /// warning (once per site) that says `what` and where it lands; false for anything else.
  bool allowMallocRoom(uint32_t site, const std::string &what, uint64_t addr, uint64_t n);

  Options options_;
  DeviceMemory device_;
  HostMemory host_;
  std::map<uint64_t, bool> newBlocks_; // blocks of new (false) and new[] (true), by base
  Scheduler scheduler_;
  backend::ProgramImage image_;
  std::unique_ptr<RuntimeModules> modules_;
  std::vector<KernelInfo> countingKernels_; // fetched from image_.countingKernels on first use
  bool countingFetched_ = false;
  std::function<bool(std::string_view)> kernelMatches_; // LaunchFilter::kernelName; empty: all
  bool profilerActive_ = true;                          // cudaProfilerStart/Stop
  uint64_t filterPassed_ = 0;           // launches that passed the name and predicate so far
  uint64_t profiledLaunches_ = 0;       // launches profiled so far
  std::vector<uint64_t> globalAddrs_;   // by GlobalImage::id; 0 where there is none
  std::vector<std::string> globalKeys_; // by id: what the storage at globalAddrs_ was made for
  std::set<uint64_t> globalDeviceBases_;
  // __device__/__constant__ variables by address: their index in image_.globals.
  std::map<uint64_t, size_t> symbols_;

  std::vector<LaunchRecord> launches_;
  std::vector<TransferRecord> transfers_;
  std::vector<TimelineEvent> timeline_;
  CounterCollector counters_;
  std::unique_ptr<Checker> checker_; // checked mode only
  StreamClock clock_; // the modelled clock of the streams (docs/timing.md, "Streams")
  std::chrono::steady_clock::time_point mainStart_; // when runMain started main
  double launchWallSeconds_ = 0;                    // real time spent in launches since
  std::vector<std::unique_ptr<Handle>> handleStore_;
  std::map<const void *, Handle *> handles_;

  std::map<uint64_t, HostVisibleBlock> hostVisible_; // by base
  std::map<uint64_t, HostAlias> aliases_;            // by host address
  bool launchOpen_ = false; // managed units are open to kernels (managedBeforeLaunch)

  uint32_t apiSite_ = 0;    // setApiSite
  int32_t lastError_ = 0;   // cudaGetLastError
  int32_t stickyError_ = 0; // a kernel fault: returned by every later call
  // Whether a call has returned the sticky error yet. Until one has, a call that only enqueues
  // work and never waits (cudaEventRecord) succeeds, as on a GPU the faulting kernel is still
  // running when the host makes it: the fault shows at the next call that waits.
  bool stickySeen_ = true;
  int32_t seenSticky() {
    stickySeen_ = true;
    ++stickyReturns_;
    return stickyError_;
  }
  uint64_t stickyReturns_ = 0;
  std::string lastErrorMessage_;
  bool faulted_ = false;
  bool contextMade_ = false;                                // contextMade()
  bool interrupted_ = false;                                // this run was stopped by Options::stop
  uint32_t deviceFlags_ = 0;                                // cudaSetDeviceFlags
  std::map<int32_t, uint64_t> limits_;                      // cudaDeviceSetLimit, by cudaLimit
  std::map<const void *, KernStreamAttrValue> streamAttrs_; // by stream (null: the default)
  std::vector<std::unique_ptr<MemPool>> pools_; // [0] the default pool once asked for; never freed
  MemPool *currentPool_ = nullptr;              // cudaDeviceSetMemPool; null: the default
  std::map<uint64_t, PoolAllocation> poolAllocations_; // by device address
  std::vector<PendingFree> pendingFrees_;
  uint64_t freeSeq_ = 0;                     // cudaFreeAsync calls so far
  std::unique_ptr<HostThreads> hostThreads_; // created by the first pthread call of a run
  friend class HostThreads;
  GlibcRandom rand_; // rand() and srand(): the same sequences as a native build
  Rand48 rand48_;    // lrand48(), drand48(), srand48()
  DeviceHeap heap_;  // malloc and new in device code
  HostLibraryState lib_;
};

} // namespace kern::runtime
