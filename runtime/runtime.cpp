// The Runtime: device memory and the CUDA runtime API with CUDA's error semantics, launch
// validation and fault reports, the host C library subset, and the host main's runner.
#include "runtime/runtime.h"

#include "runtime/errors.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <thread>

namespace kern::runtime {

const char kHostCtxTag = 0;

namespace {

// LaunchFilter::kernelName's prefix for a regular expression (Nsight Compute's spelling).
constexpr std::string_view kRegexPrefix = "regex:";

// Addresses below this are "near null": a null struct pointer plus a field offset.
constexpr uint64_t kNullPage = 4096;

const char *const kMemcpyKindNames[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice",
                                        "cudaMemcpyDeviceToHost", "cudaMemcpyDeviceToDevice",
                                        "cudaMemcpyDefault"};

std::string bytes(uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

std::string range(uint64_t addr, uint64_t n) {
  return std::string("[") + hexAddress(addr) + ", " + hexAddress(addr + n) + ")";
}

uint64_t addressOf(const void *p) { return reinterpret_cast<uint64_t>(p); }

// Compiled host main, run under setjmp so that exit() and host faults return here. Kept apart
// from runMain so that no C++ object lives in the frame that longjmp returns to.
int32_t callMain(KernHostCtx *ctx, backend::MainFunction main, int32_t argc, char **argv) {
  if (setjmp(ctx->exitJump) != 0)
    return ctx->exitCode;
  if (sigsetjmp(ctx->signalJump, 1) != 0)
    return kHostFaultExitCode;
  return main(ctx, argc, argv);
}

/// The host context of the program running on this thread, for the signal guard.
thread_local KernHostCtx *tlsHostCtx = nullptr;

/// SIGSEGV/SIGBUS/SIGFPE in the compiled host code: kern's own checks (device pointers,
/// null, division by zero, and every runtime function's ranges) did not catch the access, so
/// it was a wild one, e.g. past the end of a malloc block. The program is stopped with an
/// error instead of taking the process (a REPL, an embedding application) down with it.
void onHostSignal(int sig, siginfo_t *info, void *) {
  KernHostCtx *ctx = tlsHostCtx;
  if (!ctx) { // not compiled host code: the default action
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  ctx->signal = sig;
  ctx->signalAddr = reinterpret_cast<uint64_t>(info ? info->si_addr : nullptr);
  siglongjmp(ctx->signalJump, 1);
}

/// Installs onHostSignal (with an alternate stack, so a runaway recursion is caught too) for
/// the duration of one run of host code, and restores what was there before.
class HostSignalGuard {
public:
  explicit HostSignalGuard(KernHostCtx *ctx) : stack_(kStackBytes) {
    tlsHostCtx = ctx;
    stack_t ss{};
    ss.ss_sp = stack_.data();
    ss.ss_size = stack_.size();
    sigaltstack(&ss, &oldStack_);
    struct sigaction sa {};
    sa.sa_sigaction = onHostSignal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i)
      sigaction(kSignals[i], &sa, &old_[i]);
  }
  ~HostSignalGuard() {
    for (int i = 0; i < 3; ++i)
      sigaction(kSignals[i], &old_[i], nullptr);
    sigaltstack(&oldStack_, nullptr);
    tlsHostCtx = nullptr;
  }

private:
  static constexpr size_t kStackBytes = 64 * 1024;
  static constexpr int kSignals[3] = {SIGSEGV, SIGBUS, SIGFPE};
  std::vector<char> stack_;
  stack_t oldStack_{};
  struct sigaction old_[3]{};
};

} // namespace

Runtime::Runtime(Options options)
    : options_(std::move(options)),
      device_(options_.deviceMemoryBytes ? options_.deviceMemoryBytes
                                         : options_.device.memoryBytes),
      scheduler_(options_.workers ? options_.workers
                                  : std::max(1u, std::thread::hardware_concurrency())) {
  if (!options_.out)
    options_.out = [](std::string_view s) { std::fwrite(s.data(), 1, s.size(), stdout); };
  if (!options_.err)
    options_.err = [](std::string_view s) {
      std::fflush(stdout); // so that messages appear after the output that preceded them
      std::fwrite(s.data(), 1, s.size(), stderr);
    };
  if (options_.checked)
    checker_ = std::make_unique<Checker>(device_.lo(), device_.hi() - device_.lo());
  profilerActive_ = options_.filter.profileFromStart;
  const std::string &name = options_.filter.kernelName;
  if (name.rfind(kRegexPrefix, 0) == 0) {
    // Checked by checkLaunchFilter before a run; a pattern that still fails matches nothing.
    try {
      auto re = std::make_shared<const std::regex>(name.substr(kRegexPrefix.size()));
      kernelMatches_ = [re](std::string_view k) {
        return std::regex_search(k.begin(), k.end(), *re);
      };
    } catch (const std::regex_error &) {
      kernelMatches_ = [](std::string_view) { return false; };
    }
  } else if (!name.empty()) {
    kernelMatches_ = [name](std::string_view k) { return k == name; };
  }
}

bool checkLaunchFilter(const LaunchFilter &filter, std::string &error) {
  const std::string &name = filter.kernelName;
  if (name.rfind(kRegexPrefix, 0) != 0)
    return true;
  const std::string pattern = name.substr(kRegexPrefix.size());
  if (pattern.empty()) {
    error = "the kernel name filter 'regex:' has no pattern";
    return false;
  }
  try {
    std::regex re(pattern);
  } catch (const std::regex_error &e) {
    error = "the kernel name filter '" + name + "' is not a valid regular expression (" + e.what() +
            ")";
    return false;
  }
  return true;
}

Runtime::~Runtime() = default;

void Runtime::setProgram(std::vector<KernelInfo> kernels, const ir::Module *module,
                         std::function<std::string(uint32_t)> siteLocation,
                         CountingVariant counting) {
  kernels_ = std::move(kernels);
  countingVariant_ = std::move(counting);
  countingKernels_.clear();
  countingFetched_ = false;
  module_ = module;
  siteLocation_ = std::move(siteLocation);
  if (!module_)
    return;
  // Globals keep their addresses when the program grows (a REPL adds definitions): only the
  // new ones are allocated. They are allocated before the program runs, so their device
  // addresses come first and are the same on every run.
  for (const ir::GlobalVar *g : module_->globals) {
    if (g->id >= globalAddrs_.size())
      globalAddrs_.resize(g->id + 1, 0);
    if (globalAddrs_[g->id]) {
      // The new module's GlobalVar replaces the old one's (a REPL frees the old module).
      if (g->space != ir::AddrSpace::Host)
        symbols_[globalAddrs_[g->id]] = g;
      continue;
    }
    const uint64_t size = std::max<uint64_t>(g->size, 1);
    void *p = nullptr;
    if (g->space == ir::AddrSpace::Host) {
      p = host_.allocate(size, g->align);
      if (p)
        std::memset(p, 0, size);
    } else {
      // __device__ and __constant__ variables are device memory: kernels reach them through
      // the same bounds checks as cudaMalloc'd buffers.
      const uint64_t base = device_.allocate(size);
      if (base) {
        globalDeviceBases_.insert(base);
        symbols_[base] = g;
      }
      p = reinterpret_cast<void *>(base);
    }
    if (!p) {
      reportHostError("cannot allocate the " + bytes(size) + " of global variable '" + g->name +
                      "'");
      continue;
    }
    if (!g->init.empty()) // memcpy's source must not be null, even for 0 bytes
      std::memcpy(p, g->init.data(), std::min<uint64_t>(g->init.size(), size));
    globalAddrs_[g->id] = addressOf(p);
    // A __device__ variable has its initialiser, or zeros by C's rules: never "unwritten".
    if (checker_ && g->space != ir::AddrSpace::Host)
      checker_->init().mark(addressOf(p), size);
  }
}

// ---- errors and messages --------------------------------------------------------------------

std::string Runtime::location(uint32_t site) const {
  if (site == 0)
    return "";
  if (siteLocation_)
    return siteLocation_(site);
  if (!module_ || site >= module_->sites.size() || !module_->sites[site].loc.isValid())
    return "";
  const ir::SourceLoc &loc = module_->sites[site].loc;
  return module_->sourceName + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

int32_t Runtime::recordError(int32_t code, std::string message) {
  lastError_ = code;
  if (isStickyError(code))
    stickyError_ = code;
  if (!message.empty()) {
    if (message.back() != '\n')
      message += '\n';
    options_.err(message);
    message.pop_back();
  }
  lastErrorMessage_ = std::move(message);
  return code;
}

void Runtime::reportHostError(std::string message) {
  faulted_ = true;
  lastErrorMessage_ = "kern: error: " + message;
  options_.err(lastErrorMessage_ + "\n");
}

std::string Runtime::describeDevicePointer(uint64_t addr) const {
  const std::string where = device_.describe(addr, 1);
  return hexAddress(addr) + (where.empty() ? "" : " (" + where + ")");
}

// ---- device memory --------------------------------------------------------------------------

int32_t Runtime::cudaMalloc(void **p, uint64_t size) {
  if (stickyError_)
    return stickyError_;
  if (!p || device_.contains(addressOf(p)))
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaMalloc: the pointer argument is not a valid host pointer");
  if (size == 0) { // CUDA: success, and a null pointer
    *p = nullptr;
    return cudaSuccess;
  }
  const uint64_t base = device_.allocate(size);
  if (!base) {
    uint64_t used = 0;
    for (const auto &[b, a] : device_.live())
      used += a.size;
    return recordError(cudaErrorMemoryAllocation,
                       "kern: cudaMalloc: out of memory: cannot allocate " + bytes(size) + " (" +
                           bytes(used) + " of the device's " + bytes(device_.hi() - device_.lo()) +
                           " are allocated)");
  }
  *p = reinterpret_cast<void *>(base);
  if (checker_) // CUDA's fresh allocations hold garbage: nothing in them counts as written
    checker_->init().clear(base, size);
  return cudaSuccess;
}

int32_t Runtime::cudaFree(void *p) {
  if (stickyError_)
    return stickyError_;
  const uint64_t addr = addressOf(p);
  if (!p)
    return cudaSuccess;
  if (globalDeviceBases_.count(addr))
    return recordError(cudaErrorInvalidValue, "kern: cudaFree: " + hexAddress(addr) +
                                                  " is a __device__ variable, not an allocation");
  if (device_.release(addr))
    return cudaSuccess;
  std::string why;
  if (const Allocation *a = device_.find(addr))
    why = " is not the start of an allocation (it is at offset " + std::to_string(addr - a->base) +
          " of a " + std::to_string(a->size) + "-byte allocation at " + hexAddress(a->base) + ")";
  else if (const Allocation *f = device_.findFreed(addr); f && f->base == addr)
    why = " was already freed (double free)";
  else if (device_.contains(addr))
    why = " was not returned by cudaMalloc";
  else
    why = " is not a device pointer" + std::string(host_.find(addr) ? " (it was returned by "
                                                                      "malloc; use free)"
                                                                    : "");
  return recordError(cudaErrorInvalidValue, "kern: cudaFree: " + hexAddress(addr) + why);
}

bool Runtime::checkDeviceRange(const char *function, const char *what, uint64_t addr, uint64_t n,
                               std::string &message) const {
  const std::string head = std::string("kern: ") + function + ": the " + what + " ";
  const Allocation *a = device_.find(addr);
  if (!a) {
    if (addr < kNullPage)
      message = head + "is a null pointer";
    else if (!device_.contains(addr))
      message = head + hexAddress(addr) + " is not a device pointer";
    else
      message = head + describeDevicePointer(addr) + " is not inside a live allocation";
    return false;
  }
  if (n > a->end() - addr) {
    message = head + "range " + range(addr, n) + " (" + bytes(n) + ") runs " +
              bytes(addr + n - a->end()) + " past the end of a " + std::to_string(a->size) +
              "-byte allocation at " + hexAddress(a->base);
    return false;
  }
  return true;
}

int32_t Runtime::cudaMemcpy(void *dst, const void *src, uint64_t n, int32_t kind) {
  return memcpyImpl("cudaMemcpy", dst, src, n, kind);
}

int32_t Runtime::memcpyImpl(const char *api, void *dst, const void *src, uint64_t n, int32_t kind) {
  if (stickyError_)
    return stickyError_;
  if (kind < 0 || kind > 4)
    return recordError(cudaErrorInvalidMemcpyDirection,
                       "kern: cudaMemcpy: " + std::to_string(kind) + " is not a cudaMemcpyKind");
  if (n == 0)
    return cudaSuccess;
  const uint64_t d = addressOf(dst), s = addressOf(src);
  bool dstDevice = kind == 1 || kind == 3, srcDevice = kind == 2 || kind == 3;
  if (kind == 4) { // cudaMemcpyDefault: unified addressing tells the direction
    dstDevice = device_.contains(d);
    srcDevice = device_.contains(s);
  }
  const std::string fn = kMemcpyKindNames[kind];
  std::string message;
  auto checkHost = [&](const char *what, uint64_t addr) {
    const std::string head = "kern: " + fn + ": the " + what + " ";
    if (addr < kNullPage) {
      message = head + "is a null pointer";
      return false;
    }
    if (device_.contains(addr)) {
      // What CUDA returns for a device pointer where a host pointer belongs.
      message = head + describeDevicePointer(addr) + " is a device pointer";
      return false;
    }
    if (const Allocation *a = host_.find(addr); a && n > a->end() - addr) {
      message = head + "range " + range(addr, n) + " (" + bytes(n) + ") runs " +
                bytes(addr + n - a->end()) + " past the end of a " + std::to_string(a->size) +
                "-byte block allocated by malloc at " + hexAddress(a->base);
      return false;
    }
    return true;
  };
  const bool ok =
      (dstDevice ? checkDeviceRange(fn.c_str(), "destination", d, n, message)
                 : checkHost("destination", d)) &&
      (srcDevice ? checkDeviceRange(fn.c_str(), "source", s, n, message) : checkHost("source", s));
  if (!ok)
    return recordError(cudaErrorInvalidValue, std::move(message));
  std::memmove(dst, src, n);
  if (checker_ && dstDevice) {
    if (srcDevice) // unwritten bytes stay unwritten when copied
      checker_->init().copy(d, s, n);
    else
      checker_->init().mark(d, n);
  }
  if (dstDevice != srcDevice)
    recordTransfer(api,
                   dstDevice ? TransferDirection::HostToDevice : TransferDirection::DeviceToHost, n,
                   dstDevice ? s : d);
  return cudaSuccess;
}

int32_t Runtime::cudaMemset(void *p, int32_t value, uint64_t n) {
  if (stickyError_)
    return stickyError_;
  if (n == 0)
    return cudaSuccess;
  std::string message;
  if (!checkDeviceRange("cudaMemset", "destination", addressOf(p), n, message))
    return recordError(cudaErrorInvalidValue, std::move(message));
  std::memset(p, value, n);
  if (checker_)
    checker_->init().mark(addressOf(p), n);
  return cudaSuccess;
}

// ---- device and error state -----------------------------------------------------------------

int32_t Runtime::cudaDeviceSynchronize() {
  // Launches run to completion before kern_rt_launch returns; only their faults remain.
  return stickyError_;
}

int32_t Runtime::cudaGetLastError() {
  if (stickyError_)
    return stickyError_; // a sticky error is never reset, as on a GPU
  const int32_t e = lastError_;
  lastError_ = cudaSuccess;
  return e;
}

int32_t Runtime::cudaPeekAtLastError() { return stickyError_ ? stickyError_ : lastError_; }

int32_t Runtime::cudaGetDeviceCount(int32_t *count) {
  if (!count)
    return recordError(cudaErrorInvalidValue, "kern: cudaGetDeviceCount: null pointer argument");
  *count = 1;
  return stickyError_;
}

int32_t Runtime::cudaGetDevice(int32_t *dev) {
  if (!dev)
    return recordError(cudaErrorInvalidValue, "kern: cudaGetDevice: null pointer argument");
  *dev = 0;
  return stickyError_;
}

int32_t Runtime::cudaSetDevice(int32_t dev) {
  if (dev != 0)
    return recordError(cudaErrorInvalidDevice, "kern: cudaSetDevice: there is no device " +
                                                   std::to_string(dev) +
                                                   " (kern models one device, device 0)");
  return stickyError_;
}

int32_t Runtime::cudaDeviceReset() {
  // A fresh context: every allocation is gone and errors, sticky ones included, are cleared.
  // Global variables stay (on a GPU the module would be loaded again).
  device_.releaseAllExcept(globalDeviceBases_);
  lastError_ = cudaSuccess;
  stickyError_ = cudaSuccess;
  return cudaSuccess;
}

// ---- launches -------------------------------------------------------------------------------

int Runtime::kernelRegisters(const KernelInfo &k, std::string *source) const {
  if (options_.registersPerThread > 0) {
    if (source)
      *source = "--regs";
    return options_.registersPerThread;
  }
  if (source)
    *source = k.registersEstimated ? "estimate" : "kernel";
  return k.registers;
}

bool Runtime::selectForProfile(const KernelInfo &k, uint64_t index) {
  if (!options_.counters || !profilerActive_)
    return false;
  const LaunchFilter &f = options_.filter;
  if (kernelMatches_ && !kernelMatches_(k.name))
    return false;
  if (f.predicate && !f.predicate(k.name, index))
    return false;
  // Nsight Compute's --launch-skip and --launch-count count launches that passed the filters.
  const uint64_t passed = filterPassed_++;
  if (passed < f.launchSkip)
    return false;
  return f.launchCount == 0 || passed - f.launchSkip < f.launchCount;
}

const KernelInfo *Runtime::countingKernel(uint32_t kernel) {
  if (!countingVariant_)
    return &kernels_[kernel]; // the kernels were compiled as the run counts
  if (!countingFetched_) {
    countingFetched_ = true;
    std::vector<backend::WarpFunction> fns;
    std::string error;
    if (!countingVariant_(fns, error) || fns.size() != kernels_.size()) {
      reportHostError("internal error: the kernels with counters are not available" +
                      (error.empty() ? std::string() : ": " + error));
    } else {
      countingKernels_ = kernels_;
      for (size_t i = 0; i < fns.size(); ++i)
        countingKernels_[i].fn = fns[i];
    }
  }
  return kernel < countingKernels_.size() && countingKernels_[kernel].fn ? &countingKernels_[kernel]
                                                                         : nullptr;
}

double modelledKernelSeconds(const DeviceProfile &, const LaunchRecord &) {
  // No kernel timing model yet (HARDWARE-MODEL.md leaves it for later): kernels take no
  // modelled time, so cudaEventElapsedTime around a launch measures only the transfers.
  return 0;
}

void Runtime::launch(uint32_t kernel, const uint32_t grid[3], const uint32_t block[3],
                     uint64_t sharedBytes, void *stream, const uint8_t *params, uint32_t paramBytes,
                     uint32_t site) {
  if (stickyError_)
    return; // the context is unusable after a fault: the launch does nothing
  const DeviceProfile &dev = options_.device;
  const std::string loc = location(site);
  // A rejected launch is an error value that the program may check and survive, as on a
  // GPU, not a fault: it is reported as a warning, and faulted() stays false.
  const std::string prefix = loc.empty() ? "kern: warning: " : loc + ": warning: ";
  if (kernel >= kernels_.size() || !kernels_[kernel].fn) {
    recordError(cudaErrorInvalidDeviceFunction, prefix + "launch of kernel number " +
                                                    std::to_string(kernel) +
                                                    ", which the program does not have");
    return;
  }
  const KernelInfo &k = kernels_[kernel];
  const std::string head = prefix + "launch of '" + k.name + "': ";

  LaunchRecord rec;
  rec.kernel = k.name;
  rec.site = site;
  std::copy(grid, grid + 3, rec.grid);
  std::copy(block, block + 3, rec.block);
  rec.sharedBytes = k.staticSharedBytes + sharedBytes;
  rec.startSeconds = clock_;
  rec.registersPerThread = kernelRegisters(k, &rec.registersSource);
  // Every launch, failed or not, is on the timeline: a failed one is recorded with its error.
  auto fail = [&](int32_t code, const std::string &message) {
    rec.error = code;
    timeline_.push_back({TimelineEvent::Kind::Launch, launches_.size()});
    launches_.push_back(rec);
    recordError(code, head + message);
  };

  // An invalid handle is checked first: CUDA rejects it before looking at the configuration.
  if (stream && !findHandle(stream, Handle::Kind::Stream)) {
    fail(cudaErrorInvalidResourceHandle,
         "stream " + hexAddress(addressOf(stream)) +
             " is not a stream (it was not returned by cudaStreamCreate, or was destroyed)");
    return;
  }
  static const char *const kAxis[] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d) {
    if (grid[d] == 0 || block[d] == 0) {
      fail(cudaErrorInvalidConfiguration,
           std::string(grid[d] == 0 ? "grid" : "block") + " dimension " + kAxis[d] + " is 0");
      return;
    }
  }
  // The total first: for <<<1, 2048>>> it is the number the programmer thinks of.
  const uint64_t threads = uint64_t(block[0]) * block[1] * block[2];
  if (threads > uint64_t(dev.maxThreadsPerBlock)) {
    fail(cudaErrorInvalidConfiguration,
         std::to_string(threads) + " threads per block exceeds the limit of " +
             std::to_string(dev.maxThreadsPerBlock) + " on " + dev.name);
    return;
  }
  const int maxBlock[3] = {dev.maxBlockX, dev.maxBlockY, dev.maxBlockZ};
  for (int d = 0; d < 3; ++d) {
    if (block[d] > uint32_t(maxBlock[d])) {
      fail(cudaErrorInvalidConfiguration, "block dimension " + std::string(kAxis[d]) + " of " +
                                              std::to_string(block[d]) + " exceeds the limit of " +
                                              std::to_string(maxBlock[d]) + " on " + dev.name);
      return;
    }
  }
  const int maxGrid[3] = {dev.maxGridX, dev.maxGridY, dev.maxGridZ};
  for (int d = 0; d < 3; ++d) {
    if (grid[d] > uint32_t(maxGrid[d])) {
      fail(cudaErrorInvalidConfiguration, "grid dimension " + std::string(kAxis[d]) + " of " +
                                              std::to_string(grid[d]) + " exceeds the limit of " +
                                              std::to_string(maxGrid[d]) + " on " + dev.name);
      return;
    }
  }
  // __launch_bounds__ promises the compiler a block size; a larger block cannot run the code
  // compiled under that promise (CUDA: "too many resources requested for launch").
  if (k.launchBoundsMaxThreads > 0 && threads > uint64_t(k.launchBoundsMaxThreads)) {
    fail(cudaErrorLaunchOutOfResources,
         std::to_string(threads) + " threads per block exceeds the kernel's __launch_bounds__ of " +
             std::to_string(k.launchBoundsMaxThreads));
    return;
  }
  // Only the default per-block limit: raising it takes cudaFuncSetAttribute, which kern does
  // not have, so the opt-in sizes of cc7.0+ are never available to a launch.
  const uint64_t shared = rec.sharedBytes;
  if (sharedBytes > dev.sharedPerBlockDefault || shared > dev.sharedPerBlockDefault) {
    fail(cudaErrorLaunchOutOfResources,
         std::to_string(shared) + " bytes of shared memory per block (" +
             std::to_string(k.staticSharedBytes) + " static + " + std::to_string(sharedBytes) +
             " dynamic) exceed the limit of " + std::to_string(dev.sharedPerBlockDefault) + " on " +
             dev.name);
    return;
  }
  if (paramBytes != k.paramBytes || (paramBytes && !params)) {
    fail(cudaErrorInvalidValue, "internal error: " + std::to_string(paramBytes) +
                                    " bytes of parameters passed, the kernel takes " +
                                    std::to_string(k.paramBytes));
    return;
  }
  if (paramBytes > dev.maxKernelParamBytes) {
    fail(cudaErrorInvalidValue, std::to_string(paramBytes) +
                                    " bytes of kernel parameters exceed the limit of " +
                                    std::to_string(dev.maxKernelParamBytes) + " on " + dev.name);
    return;
  }
  // Occupancy: how many blocks an SM holds. None means the registers do not fit (threads and
  // shared memory were checked above).
  OccupancyInput in;
  in.threadsPerBlock = static_cast<int>(threads);
  in.registersPerThread = rec.registersPerThread;
  in.sharedPerBlock = shared;
  in.sharedOptIn = false;
  rec.occupancy = computeOccupancy(dev, in);
  if (rec.occupancy.blocksPerSM == 0 && rec.registersSource == "estimate") {
    // An estimate is not the compiler's word: ptxas, told the block size, would spill rather
    // than produce a kernel that cannot launch. Lower the estimate until one block fits.
    for (int r = std::min(rec.registersPerThread, dev.maxRegistersPerThread); r > 0; --r) {
      in.registersPerThread = r;
      OccupancyResult o = computeOccupancy(dev, in);
      if (o.blocksPerSM > 0) {
        rec.occupancy = o;
        rec.registersPerThread = r;
        rec.registersSource = "estimate, lowered to fit";
        break;
      }
    }
  }
  if (rec.occupancy.blocksPerSM == 0) {
    fail(rec.occupancy.limitByWarps == 0 ? cudaErrorInvalidConfiguration
                                         : cudaErrorLaunchOutOfResources,
         rec.occupancy.error + " on " + dev.name);
    return;
  }
  const uint64_t blocks = uint64_t(grid[0]) * grid[1] * grid[2];
  rec.waves = computeWaves(dev, blocks, rec.occupancy.blocksPerSM);

  // The parameters get their own aligned buffer: compiled code may load them with aligned
  // vector loads, and the pointer must never be null (see KernHostCtx::tag).
  std::vector<uint64_t> paramBuffer((paramBytes + 7) / 8 + 2, 0);
  if (paramBytes)
    std::memcpy(paramBuffer.data(), params, paramBytes);

  // Per-launch selection: a profiled launch runs the kernel with the counter hooks, any other
  // the fast one (with counters().launch(i) left empty).
  const KernelInfo *run = &k;
  rec.profiled = selectForProfile(k, launches_.size());
  if (rec.profiled) {
    // The variant with hooks may be compiled now: nothing of the host program may unwind it.
    KernHostCtx *hostCtx = tlsHostCtx;
    tlsHostCtx = nullptr;
    run = countingKernel(kernel);
    tlsHostCtx = hostCtx;
    if (!run) {
      rec.profiled = false;
      run = &k;
    }
  }

  LaunchConfig cfg;
  cfg.kernel = run;
  std::copy(grid, grid + 3, cfg.grid);
  std::copy(block, block + 3, cfg.block);
  cfg.sharedBytes = shared;
  cfg.params = reinterpret_cast<const uint8_t *>(paramBuffer.data());
  cfg.globalLo = device_.lo();
  cfg.globalHi = device_.hi();
  cfg.shadow = device_.shadow();
  cfg.timeoutSeconds = options_.timeoutSeconds;
  cfg.globalAddrs = &globalAddrs_;
  if (rec.profiled)
    cfg.workerCounters =
        counters_.beginLaunch(dev, module_ ? module_->sites.size() : 0, scheduler_.workers());
  if (checker_)
    cfg.workerChecked = checker_->beginLaunch(scheduler_.workers());
  // Kernels run partly on this thread (worker 0): the host code's signal guard must not
  // unwind out of the middle of a launch while other workers still run it.
  KernHostCtx *hostCtx = tlsHostCtx;
  tlsHostCtx = nullptr;
  LaunchResult result = scheduler_.launch(cfg);
  tlsHostCtx = hostCtx;
  if (rec.profiled && result.faulted) {
    // Blocks above the faulting one ran, or ran partly, as the timing of the workers had it:
    // the launch's counters would differ from run to run, so none are kept.
    counters_.dropLaunch();
    rec.profiled = false;
  } else if (rec.profiled) {
    counters_.endLaunch(launches_.size());
    ++profiledLaunches_;
  }
  rec.modelledSeconds = modelledKernelSeconds(dev, rec);
  clock_ += rec.modelledSeconds;
  rec.faulted = result.faulted;
  timeline_.push_back({TimelineEvent::Kind::Launch, launches_.size()});
  launches_.push_back(rec);
  // Kernel printf output appears at the end of the launch, the synchronisation point on a GPU.
  if (!result.output.empty())
    options_.out(result.output);
  if (checker_)
    reportChecked(checker_->endLaunch(), k, result);
  if (options_.onLaunchEnd)
    options_.onLaunchEnd(launches_.size() - 1);
  if (!result.faulted)
    return;
  faulted_ = true;
  int32_t code;
  switch (result.fault.kind) {
  case KERN_FAULT_GLOBAL_OOB:
  case KERN_FAULT_SHARED_OOB:
  case KERN_FAULT_HOST_PTR:
  case KERN_FAULT_DEVICE_PTR:
  case KERN_FAULT_NULL:
  case KERN_FAULT_CONST_OOB:
  case KERN_FAULT_LOCAL_OOB:
    code = cudaErrorIllegalAddress;
    break;
  case KERN_FAULT_MISALIGNED:
    code = cudaErrorMisalignedAddress;
    break;
  case KERN_FAULT_TIMEOUT:
    code = cudaErrorLaunchTimeout;
    break;
  case KERN_FAULT_ASSERT:
    code = cudaErrorAssert;
    break;
  default:
    code = cudaErrorLaunchFailure;
    break;
  }
  launches_.back().error = code;
  recordError(code, result.fault.kind == KERN_FAULT_TIMEOUT
                        ? describeTimeout(result, k, blocks)
                        : describeFault(result.fault, k, shared));
}

std::string Runtime::describeTimeout(const LaunchResult &r, const KernelInfo &k,
                                     uint64_t blocks) const {
  const std::string loc = location(r.fault.site);
  const uint32_t *grid = launches_.back().grid; // this launch, recorded just before
  auto blockName = [&](uint64_t linear) {
    return "(" + std::to_string(linear % grid[0]) + "," +
           std::to_string(linear / grid[0] % grid[1]) + "," +
           std::to_string(linear / (uint64_t(grid[0]) * grid[1])) + ")";
  };
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f", options_.timeoutSeconds);
  std::string text = (loc.empty() ? "kern: error: " : loc + ": error: ") + "kernel '" + k.name +
                     "' stopped after " + secs + " s (--timeout): ";
  const std::vector<uint64_t> &running = r.runningBlocks;
  constexpr size_t kShown = 8;
  text += running.size() == 1 ? "block " : "blocks ";
  for (size_t i = 0; i < running.size() && i < kShown; ++i)
    text += (i ? ", " : "") + blockName(running[i]);
  if (running.size() > kShown)
    text += " and " + std::to_string(running.size() - kShown) + " more";
  if (running.empty())
    text += blockName(r.fault.blockLinear);
  text += running.size() > 1 ? " were still running" : " was still running";
  const uint64_t notStarted =
      blocks - std::min<uint64_t>(blocks, r.finishedBlocks + std::max<size_t>(running.size(), 1));
  text += " (" + std::to_string(r.finishedBlocks) + " of " + std::to_string(blocks) +
          " blocks finished, " + std::to_string(notStarted) + " not started)";
  return text;
}

std::string Runtime::lineCol(uint32_t site) const {
  const std::string loc = location(site);
  const size_t col = loc.rfind(':');
  const size_t line = col == std::string::npos || col == 0 ? col : loc.rfind(':', col - 1);
  return line == std::string::npos ? loc : loc.substr(line + 1);
}

void Runtime::reportChecked(const Checker::Findings &f, const KernelInfo &k,
                            const LaunchResult &r) {
  // Blocks above a faulting block stop early or never run, depending on timing: only findings
  // at or below it are the same for every number of workers.
  const uint64_t limit = r.faulted ? r.fault.blockLinear : UINT64_MAX;
  auto triple = [](const uint32_t v[3]) {
    return std::string("(") + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," +
           std::to_string(v[2]) + ")";
  };
  auto report = [&](uint32_t site, const std::string &what) {
    const std::string loc = location(site);
    faulted_ = true;
    lastErrorMessage_ = (loc.empty() ? "kern: error: " : loc + ": error: ") + what;
    options_.err(lastErrorMessage_ + "\n");
  };
  if (const RaceRecord &race = f.race;
      race.blockLinear <= limit && race.blockLinear != UINT64_MAX) {
    static const char *const kKinds[] = {"read-after-write", "write-after-read",
                                         "write-after-write"};
    const std::string head = std::string("shared-memory data race (") +
                             kKinds[static_cast<int>(race.kind)] + ") in kernel '" + k.name +
                             "', block " + triple(race.blockIdx) + ": ";
    const std::string offset = "shared offset " + std::to_string(race.offset);
    if (race.sameInstruction) {
      report(race.secondSite, head + "lanes " + std::to_string(race.firstLane) + " and " +
                                  std::to_string(race.secondLane) + " of warp " +
                                  std::to_string(race.secondWarp) + " (threads " +
                                  triple(race.firstThread) + " and " + triple(race.secondThread) +
                                  ") store different values to " + offset + " in one instruction");
    } else {
      auto verb = [](bool write, bool atomic, bool past) {
        return std::string(atomic  ? (past ? "atomically updated" : "atomically updates")
                           : write ? (past ? "stored to" : "stores to")
                                   : (past ? "loaded" : "loads"));
      };
      const bool secondWrite = race.kind != RaceKind::ReadAfterWrite;
      const bool firstWrite = race.kind != RaceKind::WriteAfterRead;
      report(race.secondSite, head + "thread " + triple(race.secondThread) + " (warp " +
                                  std::to_string(race.secondWarp) + ") " +
                                  verb(secondWrite, race.secondAtomic, false) + " " + offset +
                                  ", which thread " + triple(race.firstThread) + " (warp " +
                                  std::to_string(race.firstWarp) + ") " +
                                  verb(firstWrite, race.firstAtomic, true) + " at " +
                                  lineCol(race.firstSite) + " with no __syncthreads() in between");
    }
  }
  if (const UninitRecord &u = f.uninit; u.blockLinear <= limit && u.blockLinear != UINT64_MAX) {
    std::string where = "nothing wrote it since cudaMalloc";
    if (const Allocation *a = device_.find(u.unwritten))
      where = "offset " + std::to_string(u.unwritten - a->base) + " of the " +
              std::to_string(a->size) + "-byte allocation at " + hexAddress(a->base) + "; " +
              "no cudaMemcpy, cudaMemset or kernel store wrote it since cudaMalloc";
    report(u.site, std::string(u.atomic ? "atomic" : "load") +
                       " of never-written global memory at " + hexAddress(u.unwritten) + " (" +
                       where + ") in kernel '" + k.name + "', block " + triple(u.blockIdx) +
                       ", thread " + triple(u.thread));
  }
}

std::string Runtime::siteWhat(uint32_t site) const {
  if (!module_ || site == 0 || site >= module_->sites.size())
    return "";
  return module_->sites[site].what;
}

std::string Runtime::describeFault(const FaultRecord &f, const KernelInfo &k,
                                   uint64_t sharedBytes) const {
  const std::string loc = location(f.site);
  std::string access = "access";
  if (module_ && f.site && f.site < module_->sites.size()) {
    switch (module_->sites[f.site].kind) {
    case ir::SiteKind::Load:
      access = "load";
      break;
    case ir::SiteKind::Store:
      access = "store";
      break;
    case ir::SiteKind::Atomic:
      access = "atomic";
      break;
    default:
      break;
    }
  }
  const std::string at = " at address " + hexAddress(f.addr);
  std::string what;
  switch (f.kind) {
  case KERN_FAULT_GLOBAL_OOB: {
    const std::string where = device_.describe(f.addr, 1);
    what = "out-of-bounds global " + access + at + (where.empty() ? "" : " (" + where + ")");
    break;
  }
  case KERN_FAULT_SHARED_OOB:
    // The scheduler turned the address into an offset from the block's shared memory: the
    // absolute address depends on the worker and means nothing to the user.
    what = "out-of-bounds shared " + access + " at offset " +
           std::to_string(static_cast<int64_t>(f.addr)) + " (the block has " + bytes(sharedBytes) +
           " of shared memory)";
    break;
  case KERN_FAULT_HOST_PTR:
    what = "kernel " + access + " through host pointer " + hexAddress(f.addr) +
           " (kernels can only access device memory)";
    break;
  case KERN_FAULT_DEVICE_PTR:
    what = "device pointer fault" + at;
    break;
  case KERN_FAULT_NULL:
    what = "null pointer " + access + at;
    break;
  case KERN_FAULT_DIV_ZERO:
    what = "integer division by zero";
    break;
  case KERN_FAULT_MISALIGNED:
    what = "misaligned " + access + at;
    break;
  case KERN_FAULT_TIMEOUT: {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%g", options_.timeoutSeconds);
    what = std::string("kernel ran longer than the time limit of ") + secs + " seconds";
    break;
  }
  case KERN_FAULT_RECURSION:
    what = "device function calls nested too deeply (call depth limit exceeded)";
    break;
  case KERN_FAULT_BARRIER:
    what = f.message;
    break;
  case KERN_FAULT_ASSERT: {
    const std::string text = siteWhat(f.site);
    what = "assertion failed" + (text.empty() ? "" : ": " + text);
    break;
  }
  case KERN_FAULT_CONST_OOB:
    what = "out-of-bounds constant " + access + at;
    break;
  case KERN_FAULT_LOCAL_OOB: {
    // The address is on a worker's stack and means nothing to the user: name the variable.
    const std::string text = siteWhat(f.site);
    const size_t quote = text.find('\'');
    what = "out-of-bounds local " + access +
           (quote == std::string::npos ? std::string(" outside its local variable")
                                       : " outside local variable " + text.substr(quote));
    break;
  }
  default:
    what = "fault of kind " + std::to_string(f.kind) + at;
    break;
  }
  if (!f.message.empty() && f.kind != KERN_FAULT_BARRIER)
    what = f.message;
  auto triple = [](const uint32_t v[3]) {
    return std::string("(") + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," +
           std::to_string(v[2]) + ")";
  };
  return (loc.empty() ? "kern: error: " : loc + ": error: ") + what + " in kernel '" + k.name +
         "', block " + triple(f.blockIdx) + ", thread " + triple(f.thread);
}

// ---- host side ------------------------------------------------------------------------------

void Runtime::write(int32_t stream, std::string_view text) {
  if (text.empty())
    return;
  if (stream == 2)
    options_.err(text);
  else
    options_.out(text);
}

FormatOptions Runtime::hostFormatOptions() const {
  FormatOptions o;
  o.unreadableLo = device_.lo();
  o.unreadableHi = device_.hi();
  return o;
}

void *Runtime::hostMalloc(uint64_t size) { return host_.allocate(size); }

void *Runtime::hostCalloc(uint64_t n, uint64_t size) {
  if (size && n > UINT64_MAX / size)
    return nullptr;
  void *p = host_.allocate(n * size);
  if (p)
    std::memset(p, 0, n * size);
  return p;
}

bool Runtime::hostRealloc(void *p, uint64_t size, void *&result) {
  if (device_.contains(addressOf(p))) {
    reportHostError("realloc: " + describeDevicePointer(addressOf(p)) +
                    " is a device pointer (it was not returned by malloc)");
    return false;
  }
  if (p && host_.isPinned(addressOf(p))) {
    reportHostError("realloc: " + hexAddress(addressOf(p)) +
                    " was allocated by cudaMallocHost or cudaHostAlloc (pinned memory cannot be "
                    "resized)");
    return false;
  }
  bool ok;
  result = host_.reallocate(p, size, ok);
  if (!ok) {
    reportHostError("realloc: " + hexAddress(addressOf(p)) + " was not returned by malloc");
    return false;
  }
  return true;
}

bool Runtime::hostFree(void *p) {
  const uint64_t addr = addressOf(p);
  if (device_.contains(addr)) {
    reportHostError("free: " + describeDevicePointer(addr) + " is a device pointer (use cudaFree)");
    return false;
  }
  if (p && host_.isPinned(addr)) {
    // On a real system free() of page-locked memory corrupts the heap or crashes later.
    reportHostError("free: " + hexAddress(addr) +
                    " was allocated by cudaMallocHost or cudaHostAlloc (use cudaFreeHost)");
    return false;
  }
  switch (host_.release(p)) {
  case HostMemory::FreeResult::Ok:
    return true;
  case HostMemory::FreeResult::DoubleFree:
    reportHostError("free: " + hexAddress(addr) + " was already freed (double free)");
    return false;
  case HostMemory::FreeResult::NotAllocated:
    break;
  }
  if (const Allocation *a = host_.find(addr))
    reportHostError("free: " + hexAddress(addr) + " is not the start of a block (it is at offset " +
                    std::to_string(addr - a->base) + " of a " + std::to_string(a->size) +
                    "-byte block allocated by malloc at " + hexAddress(a->base) + ")");
  else
    reportHostError("free: " + hexAddress(addr) + " was not returned by malloc");
  return false;
}

bool Runtime::checkHostRange(const char *function, const char *what, const void *p, uint64_t n) {
  if (n == 0)
    return true;
  const uint64_t addr = addressOf(p);
  const std::string head = std::string(function) + ": the " + what + " ";
  if (addr < kNullPage) {
    reportHostError(head + "is a null pointer");
    return false;
  }
  if (device_.contains(addr)) {
    reportHostError(head + describeDevicePointer(addr) +
                    " is a device pointer (host code cannot access device memory; use "
                    "cudaMemcpy)");
    return false;
  }
  if (const Allocation *a = host_.find(addr); a && n > a->end() - addr) {
    reportHostError(head + "range " + range(addr, n) + " (" + bytes(n) + ") runs " +
                    bytes(addr + n - a->end()) + " past the end of a " + std::to_string(a->size) +
                    "-byte block allocated by malloc at " + hexAddress(a->base));
    return false;
  }
  return true;
}

bool Runtime::checkHostString(const char *function, const char *what, const char *s,
                              uint64_t &len) {
  const uint64_t addr = addressOf(s);
  if (!checkHostRange(function, what, s, 1))
    return false;
  if (const Allocation *a = host_.find(addr)) {
    const uint64_t room = a->end() - addr;
    len = strnlen(s, room);
    if (len == room) {
      reportHostError(std::string(function) + ": the " + what + " at " + hexAddress(addr) +
                      " is not NUL-terminated within its " + std::to_string(a->size) +
                      "-byte block allocated by malloc");
      return false;
    }
    return true;
  }
  len = std::strlen(s);
  return true;
}

int32_t Runtime::rand() {
  // kern's rand(): a 64-bit linear congruential generator (Knuth's MMIX constants), the top
  // 31 bits returned, so that values span [0, RAND_MAX = 2147483647] and every platform
  // produces the same sequence for the same seed. It does not reproduce glibc's sequence.
  randState_ = randState_ * 6364136223846793005ull + 1442695040888963407ull;
  return static_cast<int32_t>(randState_ >> 33);
}

void Runtime::srand(uint32_t seed) { randState_ = seed; }

uint64_t Runtime::globalAddress(uint32_t globalId) const {
  return globalId < globalAddrs_.size() ? globalAddrs_[globalId] : 0;
}

void Runtime::hostFault(uint32_t site, uint32_t kind, uint64_t addr) {
  const std::string loc = location(site);
  std::string what;
  switch (kind) {
  case KERN_FAULT_DEVICE_PTR:
    what = "host code dereferences device pointer " + describeDevicePointer(addr) +
           " (use cudaMemcpy to reach device memory)";
    break;
  case KERN_FAULT_NULL:
    what = "null pointer dereference at address " + hexAddress(addr);
    break;
  case KERN_FAULT_DIV_ZERO:
    what = "integer division by zero";
    break;
  case KERN_FAULT_MISALIGNED:
    what = "misaligned access at address " + hexAddress(addr);
    break;
  default:
    what = "fault of kind " + std::to_string(kind) + " at address " + hexAddress(addr);
    break;
  }
  faulted_ = true;
  lastErrorMessage_ = (loc.empty() ? "kern: error: " : loc + ": error: ") + what;
  options_.err(lastErrorMessage_ + "\n");
}

void Runtime::unwind(KernHostCtx *ctx, int32_t code) {
  ctx->exitCode = code;
  std::longjmp(ctx->exitJump, 1);
}

int Runtime::runMain(backend::MainFunction main, const std::vector<std::string> &args) {
  std::vector<std::string> argvStrings;
  argvStrings.push_back(module_ && !module_->sourceName.empty() ? module_->sourceName : "kern");
  argvStrings.insert(argvStrings.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (std::string &s : argvStrings)
    argv.push_back(s.data());
  argv.push_back(nullptr);
  KernHostCtx ctx;
  ctx.rt = this;
  int32_t code;
  {
    HostSignalGuard guard(&ctx);
    code = callMain(&ctx, main, static_cast<int32_t>(argvStrings.size()), argv.data());
  }
  if (ctx.signal) {
    faulted_ = true;
    lastErrorMessage_ =
        std::string("kern: error: host code ") +
        (ctx.signal == SIGFPE
             ? "raised an arithmetic exception"
             : "made an invalid memory access at address " + hexAddress(ctx.signalAddr)) +
        " that kern's checks did not catch (for example an index past the end of a malloc "
        "block, or a runaway recursion); the program was stopped";
    options_.err(lastErrorMessage_ + "\n");
  }
  std::fflush(stdout);
  std::fflush(stderr);
  return code;
}

} // namespace kern::runtime
