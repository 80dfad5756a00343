// Kernel launches: the worker pool that runs blocks, the per-block execution of warps (one
// after another, or as fibers that meet at __syncthreads()), and the placement of blocks on the
// device profile's virtual SMs.
#pragma once

#include "backend/program_image.h"
#include "runtime/block_dealer.h"
#include "runtime/stop.h"

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kern::runtime {

/// Checked mode's state of one worker (runtime/checked.h): the scheduler only hands it on.
struct CheckedWorker;
class DeviceHeap;

/// A compiled kernel, as the runtime sees it: the program image's entry (backend/program_image.h).
using KernelInfo = backend::KernelImage;

/// Where block `linear` of a launch runs on the virtual GPU. Blocks are placed in linear order,
/// wave by wave: a wave holds smCount x blocksPerSM blocks; within a wave, consecutive runs of
/// blocksPerSM blocks share an SM, so block b is in wave b / (sms x bpsm), on SM
/// (b % (sms x bpsm)) / bpsm, in slot b % bpsm of that SM. The placement is a property of the
/// launch, not of the host: workers take blocks in any order, and nothing observable depends on
/// which worker ran which block.
struct BlockPlacement {
  uint64_t wave = 0;
  int sm = 0;
  int slot = 0;
};
BlockPlacement placeBlock(uint64_t linear, int sms, int blocksPerSM);

/// One launch, already validated.
struct LaunchConfig {
  const KernelInfo *kernel = nullptr;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint64_t sharedBytes = 0;        // static + dynamic
  const uint8_t *params = nullptr; // kernel->paramBytes bytes
  uint64_t globalLo = 0, globalHi = 0;
  const uint64_t *shadow = nullptr;                   // DeviceMemory::shadow()
  double timeoutSeconds = 0;                          // 0: no wall-clock limit
  const StopRequest *stop = nullptr;                  // a stop asked for from outside, or null
  const std::vector<uint64_t> *globalAddrs = nullptr; // kern_rt_global_addr, by GlobalVar id
  /// Counters on: one opaque counter set per worker (CounterCollector::beginLaunch), which
  /// KernWarpCtx::counters points at. Null: counters off.
  void *const *workerCounters = nullptr;
  /// Checked mode on: one CheckedWorker per worker (Checker::beginLaunch). Null: off.
  CheckedWorker *const *workerChecked = nullptr;
  /// malloc/new in device code (runtime/device_heap.h); null when the program has none.
  DeviceHeap *heap = nullptr;
  /// The bytes of local memory each warp gets (KernWarpCtx::localSp; runtime/local_memory.h);
  /// 0 when the kernel keeps every frame on the stack. Scheduler::reserveLocalMemory reserves
  /// them before the launch.
  uint64_t localBytesPerWarp = 0;
  /// The modelled clock's figures (KernWarpCtx::clockInstr16...; timing.h clockFigures).
  uint32_t clock16[4] = {0, 0, 0, 0};
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
  /// KERN_FAULT_ASSERT: threadIdx of every lane of the warp that failed the assertion, in lane
  /// order (`thread` is the first).
  std::vector<std::array<uint32_t, 3>> assertThreads;
};

struct LaunchResult {
  bool faulted = false;
  FaultRecord fault;
  /// Failed device assert()s, one per block that had one (its first), by block: a block stops
  /// at its assertion, other blocks run on (up to a fault, when there is one).
  std::vector<FaultRecord> asserts;
  /// After a timeout: the blocks (linear indices, ascending) that had started and not finished
  /// when the limit struck, and how many blocks finished. Which blocks these are depends on
  /// the host's speed and the number of workers: a timeout is the one report that may.
  std::vector<uint64_t> runningBlocks;
  uint64_t finishedBlocks = 0;
  /// Kernel printf output, by block (linear index), then in execution order within a block.
  std::string output;
};

/// Loop back-edges between two kern_rt_poll calls (the backend's CompileOptions::pollInterval).
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
  /// Reserves the warps' local memory of `config` (LaunchConfig::localBytesPerWarp) on every
  /// worker, for the next launch (which gives it back at its end); false when the address space
  /// cannot be had.
  bool reserveLocalMemory(const LaunchConfig &config);

private:
  /// Runs job(worker) on every worker and waits for all of them.
  void runOnAll(const std::function<void(unsigned)> &job);
  void threadMain(unsigned index);

  unsigned workers_;
  std::vector<std::unique_ptr<WorkerState>> states_;
  BlockDealer dealer_;
  std::vector<std::thread> threads_; // started at the first launch that needs them
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  // Changed under mutex_; read without it too, by threads that spin before they sleep.
  std::atomic<uint64_t> generation_{0};
  std::atomic<unsigned> pending_{0};
  bool quit_ = false;
  const std::function<void(unsigned)> *job_ = nullptr;
};

// The runtime functions that warp functions call (runtime_api.cpp forwards to these).
void warpFault(KernWarpCtx *ctx, uint32_t site, uint32_t kind, uint32_t lane, uint64_t addr);
/// The device heap of the launch that `ctx` belongs to (null if the program has none).
DeviceHeap *heapOf(KernWarpCtx *ctx);
/// A failed device assert(): a KERN_FAULT_ASSERT whose message carries the assertion's text.
void warpAssert(KernWarpCtx *ctx, uint32_t site, uint32_t lanes, const char *message);
int32_t warpPoll(KernWarpCtx *ctx, uint32_t site);
void warpPrintf(KernWarpCtx *ctx, uint32_t lane, const char *fmt, int32_t nargs,
                const uint64_t *args);
/// `op` -1: a plain barrier; 0 count, 1 and, 2 or (kern_rt_barrier_reduce).
int32_t warpBarrier(KernWarpCtx *ctx, uint32_t site, uint32_t activeMask, uint32_t predMask,
                    int32_t op);
uint64_t warpGlobalAddr(KernWarpCtx *ctx, uint32_t globalId);
/// Kernels that run a whole block per call (KernelInfo::wholeBlock): the warp arrives at a
/// barrier (warpBarrier's checks and bookkeeping, without waiting). 0: the warp waits; 2:
/// released at once; 1: ctx->fault is set.
int32_t warpArrive(KernWarpCtx *ctx, uint32_t site, uint32_t activeMask, uint32_t predMask,
                   int32_t op);
/// The value of the barrier the warp was just resumed from (__syncthreads_count/and/or).
int32_t warpBarrierResult(KernWarpCtx *ctx);
/// The frame of a kernel that runs a whole block per call: `size` bytes aligned to `align`
/// (at most 64), the worker's.
void *regionFrame(KernWarpCtx *ctx, uint64_t size, uint64_t align);
/// Such a kernel's warp may start (kern_rt_region_start).
int32_t regionStart(KernWarpCtx *ctx);
/// The end of a phase of such a kernel's block (kern_rt_region_phase, kern_rt_region_release).
int32_t regionPhase(KernWarpCtx *ctx0);
int32_t regionRelease(KernWarpCtx *ctx0, uint32_t count);
/// The CheckedWorker of the worker running the warp's block, or null (checked mode off).
CheckedWorker *checkedStateOf(KernWarpCtx *ctx);

} // namespace kern::runtime
