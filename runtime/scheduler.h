// Kernel launches: the device limits a configuration is checked against, the worker pool that
// runs blocks, and the per-block execution of warps (one after another, or as fibers that
// meet at __syncthreads()).
#pragma once

#include "backend/backend.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kern::runtime {

/// The launch limits of the modelled GPU: an H100, compute capability 9.0 (CUDA C++
/// Programming Guide, "Compute Capabilities", table "Technical Specifications per Compute
/// Capability", column 9.0). The full per-profile table of HARDWARE-MODEL.md replaces this.
struct DeviceLimits {
  uint32_t maxThreadsPerBlock = 1024;
  uint32_t maxBlockDim[3] = {1024, 1024, 64};
  uint32_t maxGridDim[3] = {2147483647u, 65535, 65535};
  /// Shared memory per block without the cudaFuncSetAttribute opt-in (48 KB; 227 KB opt-in).
  uint64_t maxSharedPerBlock = 48 * 1024;
  /// Kernel parameter bytes (4 KB from cc 2.0 on; HARDWARE-MODEL.md).
  uint32_t maxParamBytes = 4096;
};

/// A compiled kernel, as the runtime sees it.
struct KernelInfo {
  std::string name;
  backend::WarpFunction fn = nullptr;
  uint32_t paramBytes = 0;
  uint64_t staticSharedBytes = 0;
  bool usesBarriers = false;
};

/// One launch, already validated.
struct LaunchConfig {
  const KernelInfo *kernel = nullptr;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint64_t sharedBytes = 0;        // static + dynamic
  const uint8_t *params = nullptr; // kernel->paramBytes bytes
  uint64_t globalLo = 0, globalHi = 0;
  const uint16_t *shadow = nullptr; // DeviceMemory::shadow()
  double timeoutSeconds = 0;                          // 0: no wall-clock limit
  const std::vector<uint64_t> *globalAddrs = nullptr; // kern_rt_global_addr, by GlobalVar id
};

/// The fault that ends a launch: the first one of the faulting block with the lowest linear
/// index, so the report does not depend on the number of workers.
struct FaultRecord {
  uint64_t blockLinear = 0;
  uint32_t blockIdx[3] = {0, 0, 0};
  uint32_t thread[3] = {0, 0, 0};
  uint32_t warpId = 0;
  uint32_t lane = 0;
  uint32_t site = 0;
  uint32_t kind = 0; // KernFaultKind
  uint64_t addr = 0;
  /// The description, where the runtime wrote one itself (barrier faults); else empty and
  /// the caller describes `kind` and `addr`.
  std::string message;
};

struct LaunchResult {
  bool faulted = false;
  FaultRecord fault;
  /// Kernel printf output, by block (linear index), then in execution order within a block.
  std::string output;
};

/// Loop back-edges between two kern_rt_poll calls (backend::CompileOptions::pollInterval).
constexpr int64_t kPollInterval = 1 << 16;

struct WorkerState;

/// A pool of worker threads, created once and reused by every launch. The calling thread is
/// worker 0, so one worker means no thread at all.
class Scheduler {
public:
  explicit Scheduler(unsigned workers);
  ~Scheduler();
  Scheduler(const Scheduler &) = delete;
  Scheduler &operator=(const Scheduler &) = delete;

  unsigned workers() const { return workers_; }
  /// Runs every block of the launch and returns when all have finished (or stopped after a
  /// fault).
  LaunchResult launch(const LaunchConfig &config);

private:
  /// Runs job(worker) on every worker and waits for all of them.
  void runOnAll(const std::function<void(unsigned)> &job);
  void threadMain(unsigned index);

  unsigned workers_;
  std::vector<std::unique_ptr<WorkerState>> states_;
  std::vector<std::thread> threads_; // started at the first launch that needs them
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  uint64_t generation_ = 0;
  unsigned pending_ = 0;
  bool quit_ = false;
  const std::function<void(unsigned)> *job_ = nullptr;
};

// The runtime functions that warp functions call (runtime_api.cpp forwards to these).
void warpFault(KernWarpCtx *ctx, uint32_t site, uint32_t kind, uint32_t lane, uint64_t addr);
int32_t warpPoll(KernWarpCtx *ctx, uint32_t site);
void warpPrintf(KernWarpCtx *ctx, uint32_t lane, const char *fmt, int32_t nargs,
                const uint64_t *args);
/// `op` -1: a plain barrier; 0 count, 1 and, 2 or (kern_rt_barrier_reduce).
int32_t warpBarrier(KernWarpCtx *ctx, uint32_t site, uint32_t activeMask, uint32_t predMask,
                    int32_t op);
uint64_t warpGlobalAddr(KernWarpCtx *ctx, uint32_t globalId);

} // namespace kern::runtime
