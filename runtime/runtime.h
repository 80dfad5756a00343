// The runtime: plays the GPU for a compiled program (device memory, the CUDA runtime API,
// kernel launches, printf, faults) and runs its host main.
#pragma once

#include "backend/backend.h"
#include "ir/ir.h"
#include "runtime/memory.h"
#include "runtime/printf_format.h"
#include "runtime/scheduler.h"

#include <csetjmp>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
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

} // namespace kern::runtime

/// The hidden first parameter of compiled host code (opaque to it; abi.h declares it).
struct KernHostCtx {
  /// Always &kHostCtxTag. A KernWarpCtx starts with its `params` pointer, which points into
  /// a parameter buffer and so never equals this address.
  const void *tag = &kern::runtime::kHostCtxTag;
  kern::runtime::Runtime *rt = nullptr;
  /// exit() and host faults jump here, back into Runtime::runMain: compiled host code has no
  /// destructors to run, so unwinding by longjmp is safe.
  std::jmp_buf exitJump;
  int32_t exitCode = 0;
};

namespace kern::runtime {

/// How a Runtime behaves; every field has a usable default.
struct RuntimeOptions {
  /// Worker threads that run blocks (the calling thread is one of them). If 0,
  /// std::thread::hardware_concurrency().
  unsigned workers = 0;
  /// The program's stdout and stderr. If empty, the process's stdout and stderr.
  std::function<void(std::string_view)> out;
  std::function<void(std::string_view)> err;
  /// Size of device global memory (only address space is reserved). If 0, 80 GiB (H100).
  uint64_t deviceMemoryBytes = 0;
  /// Wall-clock limit of one launch in seconds. If 0, none.
  double timeoutSeconds = 0;
};

class Runtime {
public:
  using Options = RuntimeOptions;

  explicit Runtime(Options options = {});
  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  /// The compiled program: `kernels` in ir::Module::kernels() order; `module` for sites and
  /// global variables (may be null); `siteLocation` renders a site as "file:line:col" (if
  /// empty, the module's sourceName and the site's line and column). Allocates and
  /// initialises the module's global variables.
  void setProgram(std::vector<KernelInfo> kernels, const ir::Module *module,
                  std::function<std::string(uint32_t)> siteLocation = {});

  /// Runs the program's main with argv = {program name, args...}; returns its exit code
  /// (exit()'s argument; kHostFaultExitCode after a host fault). Flushes all output before returning.
  int runMain(backend::MainFunction main, const std::vector<std::string> &args);
  /// Whether a kernel or host fault happened.
  bool faulted() const { return faulted_; }
  /// The message of the last error reported (empty if none).
  const std::string &lastErrorMessage() const { return lastErrorMessage_; }
  DeviceMemory &deviceMemory() { return device_; }
  const DeviceLimits &limits() const { return limits_; }

  // ---- the runtime API: runtime_api.cpp forwards each kern_rt_* function here ----------------
  // Functions that return bool report a host fault when they return false; the caller then
  // unwinds with unwind().

  int32_t cudaMalloc(void **p, uint64_t size);
  int32_t cudaFree(void *p);
  int32_t cudaMemcpy(void *dst, const void *src, uint64_t n, int32_t kind);
  int32_t cudaMemset(void *p, int32_t value, uint64_t n);
  int32_t cudaDeviceSynchronize();
  int32_t cudaGetLastError();
  int32_t cudaPeekAtLastError();
  int32_t cudaGetDeviceCount(int32_t *count);
  int32_t cudaGetDevice(int32_t *dev);
  int32_t cudaSetDevice(int32_t dev);
  int32_t cudaDeviceReset();
  void launch(uint32_t kernel, const uint32_t grid[3], const uint32_t block[3],
              uint64_t sharedBytes, const uint8_t *params, uint32_t paramBytes, uint32_t site);

  /// Host printf/fprintf/puts/putchar output: stream 1 stdout, 2 stderr.
  void write(int32_t stream, std::string_view text);
  /// The formatter options for host printf (device pointers are not read by %s).
  FormatOptions hostFormatOptions() const;

  void *hostMalloc(uint64_t size);
  void *hostCalloc(uint64_t n, uint64_t size);
  bool hostRealloc(void *p, uint64_t size, void *&result);
  bool hostFree(void *p);
  /// Checks that host code may access [p, p + n) ("memcpy", "destination"): not null, not
  /// device memory, inside its heap block when it is one.
  bool checkHostRange(const char *function, const char *what, const void *p, uint64_t n);
  /// Checks a C string argument and returns its length in `len`.
  bool checkHostString(const char *function, const char *what, const char *s, uint64_t &len);

  int32_t rand();
  void srand(uint32_t seed);

  uint64_t globalAddress(uint32_t globalId) const;

  /// kern_rt_host_fault: reports a fault of host code at `site`.
  void hostFault(uint32_t site, uint32_t kind, uint64_t addr);
  /// exit() and host faults: back to runMain. No destructors may be pending in the caller.
  [[noreturn]] static void unwind(KernHostCtx *ctx, int32_t code);

private:
  int32_t recordError(int32_t code, std::string message);
  void reportHostError(std::string message);
  std::string location(uint32_t site) const;
  std::string siteWhat(uint32_t site) const;
  std::string describeFault(const FaultRecord &f, const KernelInfo &k, uint64_t sharedBytes) const;
  std::string describeDevicePointer(uint64_t addr) const;
  bool checkDeviceRange(const char *function, const char *what, uint64_t addr, uint64_t n,
                        std::string &message) const;

  Options options_;
  DeviceLimits limits_;
  DeviceMemory device_;
  HostMemory host_;
  Scheduler scheduler_;
  std::vector<KernelInfo> kernels_;
  const ir::Module *module_ = nullptr;
  std::function<std::string(uint32_t)> siteLocation_;
  std::vector<uint64_t> globalAddrs_; // by GlobalVar id; 0 where there is none
  std::set<uint64_t> globalDeviceBases_;

  int32_t lastError_ = 0;   // cudaGetLastError
  int32_t stickyError_ = 0; // a kernel fault: returned by every later call
  std::string lastErrorMessage_;
  bool faulted_ = false;
  uint64_t randState_ = 1;
};

} // namespace kern::runtime
