// The Runtime: its construction, the program image it runs (globals allocated and initialised),
// error reporting, and the runner of the host main (exit(), host faults and signals).
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
  // A managed page that lives on the device: it migrates, and the access is made again.
  if (ctx && sig == SIGSEGV && info && ctx->rt &&
      ctx->rt->resolveManagedFault(reinterpret_cast<uint64_t>(info->si_addr)))
    return;
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

HostSignalPause::HostSignalPause() : saved_(tlsHostCtx) { tlsHostCtx = nullptr; }
HostSignalPause::~HostSignalPause() { tlsHostCtx = saved_; }

Runtime::Runtime(Options options)
    : options_(std::move(options)),
      device_(options_.deviceMemoryBytes ? options_.deviceMemoryBytes
                                         : options_.device.memoryBytes),
      scheduler_(options_.workers ? options_.workers
                                  : std::max(1u, std::thread::hardware_concurrency())),
      modules_(std::make_unique<RuntimeModules>()) {
  if (!options_.out)
    options_.out = [](std::string_view s) { std::fwrite(s.data(), 1, s.size(), stdout); };
  if (!options_.err)
    options_.err = [](std::string_view s) {
      std::fflush(stdout); // so that messages appear after the output that preceded them
      std::fwrite(s.data(), 1, s.size(), stderr);
    };
  const uint64_t wanted =
      options_.deviceMemoryBytes ? options_.deviceMemoryBytes : options_.device.memoryBytes;
  if (!device_.isValid())
    options_.err("kern: error: no address space for the device's memory (is `ulimit -v` "
                 "set?): every cudaMalloc will fail\n");
  else if (device_.deviceCapacity() < wanted)
    options_.err("kern: note: the process's address space limit (`ulimit -v`) leaves room for " +
                 byteCount(device_.deviceCapacity()) + " of the " + byteCount(wanted) +
                 " of device memory of " + options_.device.name + "\n");
  setChecked(options_.checked);
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

void Runtime::setChecked(bool on) {
  options_.checked = on;
  if (!on) {
    checker_.reset();
    return;
  }
  if (checker_)
    return;
  checker_ = std::make_unique<Checker>(device_.lo(), device_.hi() - device_.lo());
  for (const auto &[base, a] : device_.live())
    checker_->init().mark(base, a.size);
}

void Runtime::setProgram(backend::ProgramImage image) {
  image_ = std::move(image);
  countingKernels_.clear();
  countingFetched_ = false;
  symbols_.clear();
  resetModules();
  allocateGlobals();
  counters_.clearSiteSamples(); // a REPL's new image numbers its sites anew
  if (options_.explainLine != 0 || options_.captureAll)
    setExplainLine(options_.explainLine);
}

void Runtime::setExplainLine(uint32_t line) {
  options_.explainLine = line;
  std::vector<uint8_t> sites(line != 0 || options_.captureAll ? image_.sites.size() : 0, 0);
  for (size_t i = 0; i < sites.size(); ++i)
    sites[i] = options_.captureAll || (image_.sites[i].file == 0 && image_.sites[i].line == line);
  counters_.captureSites(std::move(sites));
}

void Runtime::allocateGlobals() {
  // Globals keep their addresses when the program grows (a REPL adds definitions, a module is
  // loaded): only the new ones are allocated. The program's are allocated before it runs, so
  // their device addresses come first and are the same on every run.
  std::vector<size_t> fresh; // allocated now: their pointers to other globals are written below
  for (size_t index = 0; index < image_.globals.size(); ++index) {
    const backend::GlobalImage &g = image_.globals[index];
    const bool onDevice = g.space != backend::GlobalSpace::Host;
    if (g.id >= globalAddrs_.size()) {
      globalAddrs_.resize(g.id + 1, 0);
      globalKeys_.resize(g.id + 1);
    }
    // A REPL input's string literals take the ids the last input's had: an id keeps its
    // storage only while it names the same variable, or a literal of the same text.
    std::string key =
        std::to_string(static_cast<int>(g.space)) + ":" + g.name + ":" + std::to_string(g.size);
    if (g.name == "string literal")
      key.append(g.init.begin(), g.init.end());
    if (globalAddrs_[g.id] && globalKeys_[g.id] != key)
      globalAddrs_[g.id] = 0; // its old storage stays: a pointer the program kept still works
    globalKeys_[g.id] = std::move(key);
    if (globalAddrs_[g.id]) {
      if (onDevice)
        symbols_[globalAddrs_[g.id]] = index;
      continue;
    }
    const uint64_t size = std::max<uint64_t>(g.size, 1);
    void *p = nullptr;
    if (!onDevice) {
      p = host_.allocate(size, g.align);
      if (p) {
        std::memset(p, 0, size);
        host_.setName(addressOf(p),
                      g.name == "string literal" ? g.name : "global variable '" + g.name + "'");
      }
    } else {
      // __device__ and __constant__ variables are device memory: kernels reach them through
      // the same bounds checks as cudaMalloc'd buffers.
      const uint64_t base = device_.allocate(size);
      if (base) {
        globalDeviceBases_.insert(base);
        symbols_[base] = index;
      }
      p = reinterpret_cast<void *>(base);
    }
    if (!p) {
      reportHostError("cannot allocate the " + byteCount(size) + " of global variable '" + g.name +
                      "'");
      continue;
    }
    if (!g.init.empty()) // memcpy's source must not be null, even for 0 bytes
      std::memcpy(p, g.init.data(), std::min<uint64_t>(g.init.size(), size));
    globalAddrs_[g.id] = addressOf(p);
    fresh.push_back(index);
    // A __device__ variable has its initialiser, or zeros by C's rules: never "unwritten".
    if (checker_ && onDevice)
      checker_->init().mark(addressOf(p), size);
  }
  for (size_t index : fresh) {
    const backend::GlobalImage &g = image_.globals[index];
    for (const backend::GlobalImage::Reloc &r : g.relocs) {
      if (r.target >= globalAddrs_.size() || r.offset + 8 > g.size)
        continue; // the target could not be allocated (reported above)
      const uint64_t value = globalAddrs_[r.target] + static_cast<uint64_t>(r.addend);
      std::memcpy(reinterpret_cast<void *>(globalAddrs_[g.id] + r.offset), &value, 8);
    }
  }
}

bool Runtime::hostMayGoOn(uint32_t site, bool inLoop) {
  if (interrupted_)
    return false; // already reported (a kernel of this run noticed the stop)
  // Called before every runtime call of host code: the location is made only for a report.
  const char *where = inLoop ? "in this loop" : "in this call";
  if (stopRequested()) {
    const std::string loc = location(site);
    faulted_ = true;
    interrupted_ = true;
    lastErrorMessage_ = (loc.empty() ? std::string("kern") : loc) +
                        ": error: interrupted: the program was stopped in host code, " + where;
    options_.err(lastErrorMessage_ + "\n");
    return false;
  }
  if (options_.timeoutSeconds <= 0)
    return true;
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - mainStart_).count();
  if (total - launchWallSeconds_ <= options_.timeoutSeconds)
    return true;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", options_.timeoutSeconds);
  const std::string loc = location(site);
  faulted_ = true;
  lastErrorMessage_ = (loc.empty() ? std::string("kern") : loc) +
                      ": error: host code ran longer than the time limit of " + secs +
                      " seconds (" + options_.timeoutSetting + "; the time outside kernels), " +
                      where;
  options_.err(lastErrorMessage_ + "\n");
  return false;
}

bool Runtime::hostSleep(KernHostCtx *ctx, uint64_t nanoseconds) {
  const uint32_t site = apiSite_;
  if (hostThreads_)
    hostThreads_->yield(ctx); // a sleeping thread lets the others run
  // In slices, so that a stop or the time limit ends a long sleep within milliseconds.
  constexpr uint64_t kSlice = 10'000'000;
  const auto end = std::chrono::steady_clock::now() + std::chrono::nanoseconds(nanoseconds);
  for (;;) {
    if (!hostMayGoOn(site, false))
      return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= end)
      return true;
    std::this_thread::sleep_for(
        std::min<std::chrono::nanoseconds>(end - now, std::chrono::nanoseconds(kSlice)));
  }
}

// ---- errors and messages --------------------------------------------------------------------

std::string Runtime::location(uint32_t site) const { return image_.location(site); }

int32_t Runtime::recordError(int32_t code, std::string message) {
  lastError_ = code;
  if (isStickyError(code)) {
    stickySeen_ = stickySeen_ && stickyError_; // a first fault is not seen yet
    stickyError_ = code;
  }
  // A runtime API call of compiled host code names its line (setApiSite).
  if (apiSite_ && message.rfind("kern: ", 0) == 0 && !location(apiSite_).empty())
    message = location(apiSite_) + ": warning: " + message.substr(6);
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
  const std::string loc = apiSite_ ? location(apiSite_) : std::string();
  lastErrorMessage_ = (loc.empty() ? std::string("kern") : loc) + ": error: " + message;
  options_.err(lastErrorMessage_ + "\n");
}

std::string Runtime::describeDevicePointer(uint64_t addr) const {
  const std::string where = device_.describe(addr, 1);
  return hexAddress(addr) + (where.empty() ? "" : " (" + where + ")");
}

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
  case KERN_FAULT_HOST_STACK:
    what = "stack overflow: a frame of " + byteCount(addr) +
           " does not fit on what is left of the thread's stack (runaway recursion, or local "
           "arrays too large for the stack: allocate them with malloc or new)";
    break;
  case KERN_FAULT_DIV_ZERO:
    what = "integer division by zero";
    break;
  case KERN_FAULT_MISALIGNED:
    what = "misaligned access at address " + hexAddress(addr);
    break;
  case KERN_FAULT_NULL_FNPTR:
    what = "call through a null function pointer";
    break;
  case KERN_FAULT_BAD_FNPTR:
    what = "call through an invalid function pointer (value " + hexAddress(addr) +
           " is not a function of the program)";
    break;
  case KERN_FAULT_FNPTR_TYPE:
    what = "call through a function pointer whose type does not match the function it "
           "points to";
    break;
  case KERN_FAULT_VLA_BOUND:
    what = "variable-length array bound is " + std::to_string(static_cast<int64_t>(addr)) +
           " (it must be positive)";
    break;
  case KERN_FAULT_DEVICE_FNPTR:
    what = "call through an invalid function pointer (value " + hexAddress(addr) +
           " is no function of the pointer's type that this code may call)";
    break;
  case KERN_FAULT_BAD_CAST: // the site says which cast: "dynamic_cast<D &>(B &)"
    what = "bad " + siteWhat(site) + ": the object (vtable pointer " + hexAddress(addr) +
           ") is not of the class (C++ would throw std::bad_cast; kern has no exceptions)";
    break;
  case KERN_FAULT_BAD_VPTR: // the site says which function: "virtual call of S::f"
    what = siteWhat(site) + " on an object whose vtable pointer (value " + hexAddress(addr) +
           ") is no host vtable of its class (an object not constructed on the host, freed, "
           "or not an object)";
    break;
  case KERN_FAULT_VLA_SIZE:
    what = (addr == UINT64_MAX ? std::string("variable-length array size overflows")
                               : "variable-length array of " + std::to_string(addr) + " bytes") +
           ", larger than a thread's " + std::to_string(KERN_MAX_VLA_BYTES >> 20) + " MiB stack";
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

/// argv[0]: what the native build's executable would be called, run from where it was built
/// (`nvcc -o x x.cu && ./x`): the source path without its extension, "./" first when it has
/// no directory ("vectorAdd.cu" -> "./vectorAdd", "src/app.cu" -> "src/app").
std::string Runtime::programName(const std::string &source) {
  if (source.empty() || source[0] == '<')
    return "kern"; // source text without a file ("<input>", "<stdin>")
  std::string name = source;
  const size_t slash = name.rfind('/');
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot > (slash == std::string::npos ? 0 : slash + 1))
    name.erase(dot);
  return slash == std::string::npos ? "./" + name : name;
}

int Runtime::runMain(const std::vector<std::string> &args) {
  if (!image_.main)
    return 0;
  std::vector<std::string> argvStrings;
  argvStrings.push_back(programName(image_.name));
  argvStrings.insert(argvStrings.end(), args.begin(), args.end());
  lib_.programName = argvStrings[0];
  // argv and its strings are objects of the program: they live in the host arena.
  std::vector<void *> argvBlocks;
  auto arenaCopy = [&](const void *data, uint64_t size, const char *name) {
    void *p = host_.allocate(size);
    if (p) {
      std::memcpy(p, data, size);
      host_.setName(addressOf(p), name);
      argvBlocks.push_back(p);
    }
    return p;
  };
  std::vector<char *> argvList;
  for (std::string &s : argvStrings)
    argvList.push_back(static_cast<char *>(arenaCopy(s.c_str(), s.size() + 1, "argument string")));
  argvList.push_back(nullptr);
  char **argv = static_cast<char **>(
      arenaCopy(argvList.data(), argvList.size() * sizeof(char *), "argv array"));
  KernHostCtx ctx;
  ctx.rt = this;
  // Main's local objects: a stack of its own in the arena, as large as the default `ulimit -s`.
  constexpr uint64_t kMainStackBytes = uint64_t(8) << 20;
  const uint64_t stack = host_.allocateStack(kMainStackBytes);
  ctx.arenaLo = host_.lo();
  ctx.arenaBytes = host_.bytes();
  ctx.shadow = host_.shadow();
  ctx.stackLo = stack;
  ctx.sp = stack ? stack + kMainStackBytes : 0;
  hostCtx_ = &ctx;
  int32_t code;
  hostThreads_.reset();
  mainStart_ = std::chrono::steady_clock::now();
  launchWallSeconds_ = 0;
  interrupted_ = false;
  {
    HostSignalGuard guard(&ctx);
    code = argv ? callMain(&ctx, image_.main, static_cast<int32_t>(argvStrings.size()), argv) : 1;
  }
  if (interrupted_) // a launch noticed the stop, and host code did not reach a poll after it
    code = kInterruptedExitCode;
  lib_.closeAll();      // as at a native exit: what the program wrote reaches its files
  hostThreads_.reset(); // main has returned: threads still running are abandoned
  hostCtx_ = nullptr;
  if (stack)
    host_.releaseStack(stack);
  for (void *p : argvBlocks)
    host_.release(p);
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
