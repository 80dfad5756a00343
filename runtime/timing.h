// The kernel timing model (docs/timing.md): how long a counted launch would take on the
// profile's GPU, and what bounds it. One place for every formula; tests/unit/runtime/
// timing_test.cpp holds the worked examples of docs/timing.md.
#pragma once

#include "runtime/counters.h"
#include "runtime/device.h"

#include <array>
#include <cstddef>
#include <cstdint>

namespace kern::runtime {

/// What can bound a launch's time, each with the time it alone would take (LaunchTime).
enum class TimeLimiter : uint8_t {
  Issue,    ///< the SMs issue warp instructions as fast as they can
  Shared,   ///< the L1/shared data pipe's wavefronts (bank conflicts multiply them)
  Latency,  ///< too few warps in flight to hide the latency of dependent instructions
  Barriers, ///< warps waiting at __syncthreads()
  L2,       ///< global traffic through the L2
  Dram,     ///< global traffic to DRAM
  Atomics,  ///< global atomics: the L2's atomic units, or one hot address after another
  Launch,   ///< the launch's fixed cost (a kernel too small for anything else to show)
};
constexpr size_t kTimeLimiters = 8;

/// "instruction issue", "L1/shared data pipe", "latency", ... (for --stats and advice).
const char *timeLimiterName(TimeLimiter limiter);
/// "issue", "shared", "latency", ... (the JSON report's keys).
const char *timeLimiterKey(TimeLimiter limiter);

/// What the model reads of one launch: its shape, its occupancy and its counters' totals.
struct TimingInput {
  uint64_t blocks = 0;        ///< blocks in the grid
  uint32_t warpsPerBlock = 0; ///< warps of one block
  uint32_t blocksPerSM = 0;   ///< blocks an SM holds at once (the occupancy calculation)
  uint64_t warpInstructions = 0;
  /// Of them, the FP64 ones and the XU's (special functions and conversions).
  uint64_t fp64Instructions = 0, xuInstructions = 0;
  /// Warp-level global loads and atomics, each weighed by its share of a wait (loads issued
  /// together wait once: ir/load_waves.h; a store does not wait).
  double globalWaits = 0;
  uint64_t globalLoads = 0; ///< the global loads and atomics themselves (instructions)
  uint64_t globalBytes = 0; ///< bytes the global transactions moved (sectors x 32 B...)
  /// Of the global loads (sectors rule, cc3.0 on): the sectors, and the 128-byte lines they lie
  /// in, summed over the instructions (for DRAM's access granularity).
  uint64_t loadSectors = 0, loadLines = 0;
  /// Bytes of the device allocations the launch's arguments point into: what it can touch at
  /// most. 0 when unknown (then every global byte is charged to DRAM).
  uint64_t footprintBytes = 0;
  double sharedWaits = 0; ///< warp-level shared-memory loads and atomics, weighed likewise
  uint64_t sharedWavefronts = 0;
  /// The 128-byte lines of the global loads and stores, summed over the instructions: their
  /// wavefronts in the L1/shared data pipe (profiles whose L1 caches global loads).
  uint64_t globalLines = 0;
  /// Memory instructions issued with no lane on (SiteCounters::idleAccesses): one wavefront each.
  uint64_t idleAccesses = 0;
  uint64_t barriers = 0; ///< warp arrivals at __syncthreads()
  /// The ADU's instructions: the barriers, each warp's EXIT and its constant-bank loads.
  uint64_t aduInstructions = 0;
  bool touchesMemory = false; ///< some warp executed a load, store or atomic
  uint64_t atomicLaneOps = 0; ///< global atomic operations, one per active lane
  uint64_t atomicUnits = 0;   ///< the L2's work for them (GlobalAtomicCost::units)
  /// The share of that work whose results return (ATOM; the rest are reductions, RED), 0..1.
  double atomicReturnShare = 0;
  /// The most passes one 512-byte chunk received (LaunchCounters::atomicHotPasses).
  uint64_t atomicHotPasses = 0;
  /// The L1 sample (LaunchCounters::l1Sampled*): blocks, the sectors their global loads asked
  /// for, and the first touches among them; the sectors of all global loads (not atomics),
  /// which L1 hits keep from the L2; the shared memory of a block.
  uint64_t l1SampledBlocks = 0, l1SampledSectors = 0, l1SampledMisses = 0;
  /// Of the sample's hits, those on a sector another warp of the block touched first
  /// (LaunchCounters::l1SampledConcurrent): they wait as long as that warp's miss.
  uint64_t l1SampledConcurrent = 0;
  uint64_t cachedLoadSectors = 0;
  /// The L2's near re-reads (LaunchCounters::l2Neighbour*): of the sampled blocks' first
  /// touches, those their neighbours before them touched; and the blocks of a row of the grid
  /// (gridDim.x), which a neighbour in y ran before.
  uint64_t l2NeighbourTouches = 0, l2NeighbourSampled = 0;
  uint64_t gridRowBlocks = 1;
  /// Global stores: their sectors and the bytes their lanes wrote (the sectors filled in part
  /// follow from the two).
  uint64_t storeSectors = 0, storeBytesRequested = 0;
  uint64_t sharedBytesPerBlock = 0;
};

/// What limits the issue of instructions: the issue slots, or a pipe slower than them.
enum class IssuePipe : uint8_t { Issue, Fp64, Xu, Adu };
/// "issue", "fp64", "xu", "adu" (the JSON report's time.pipe).
const char *issuePipeKey(IssuePipe pipe);
/// What bounds a launch, in words: timeLimiterName, or where a pipe limits the issue, the pipe
/// ("the ADU (barriers, constant-bank loads)").
const char *boundName(TimeLimiter bound, IssuePipe pipe);

/// The model's answer for one launch.
struct LaunchTime {
  double seconds = 0; ///< the launch's overhead plus its longest limiter
  TimeLimiter bound = TimeLimiter::Launch;
  std::array<double, kTimeLimiters> limiterSeconds{}; ///< what each limiter alone would take
  /// What the Issue limiter is: the issue slots, or the FP64 or XU pipe where it takes longer.
  IssuePipe pipe = IssuePipe::Issue;
  double dramBytes = 0; ///< the DRAM traffic charged (the rest of the global bytes hit L2)
  /// The ADU's warp instructions (TimingInput::aduInstructions; Nsight Compute's
  /// sm__inst_executed_pipe_adu.sum).
  double aduInstructions = 0;
  double memoryLatencyCycles = 0; ///< a global load's latency, L1 and L2 hits and DRAM mixed
  double l1HitShare = 0;          ///< of the global load sectors, the share the L1 serves
  double partialSectors = 0;      ///< store sectors filled in part (docs/timing.md, step 4)
  double warpsPerSM = 0;          ///< warps resident on an SM at once
  /// When latency bounds the launch: the resident warps per SM that would hide it (capped at
  /// the profile's maximum); 0 otherwise.
  double warpsToHideLatency = 0;

  double limiter(TimeLimiter l) const { return limiterSeconds[static_cast<size_t>(l)]; }
  /// The share of the launch's time limiter `l` alone would take, in [0, 1].
  double share(TimeLimiter l) const;
};

/// The modelled time of a launch on `dev` (docs/timing.md gives each formula and its source).
LaunchTime modelLaunchTime(const DeviceProfile &dev, const TimingInput &in);

/// How much of what bounds a launch (for a launch its overhead bounds, the longest of the
/// other limiters) one site used: its warp instructions when issue bounds the launch, its
/// data-pipe wavefronts for shared (and its global lines where the L1 serves them), its bytes
/// for L2 or DRAM, its atomic units for atomics, its barrier
/// arrivals for barriers, and for latency its share of the warps' chains (instructions ×
/// dependentIssueCycles + global waits × the launch's memory latency + shared waits ×
/// sharedLatencyCycles). A line's share of the launch's time is its sites' sum over all sites'
/// (`kern annotate`).
double siteBoundUse(const DeviceProfile &dev, const LaunchTime &time, const SiteCounters &c);

/// The accesses of `c` that make their warp wait: global loads and atomics whose result is used
/// (a reduction, like a store, does not), and shared loads and atomics.
uint64_t globalWaits(const SiteCounters &c);
uint64_t sharedWaits(const SiteCounters &c);

/// What a warp's modelled SM clock (clock(), clock64()) advances by, in 1/16 cycles.
struct ClockFigures {
  uint32_t instruction16 = 0; ///< a warp instruction: the issue interval of one warp
  uint32_t global16 = 0;      ///< a global load, or an atomic whose result is used
  uint32_t shared16 = 0;      ///< a shared load or atomic
  uint32_t barrier16 = 0;     ///< a __syncthreads() (after the block's warps have met)
};

/// The warps resident on the busiest SM at once: blocks go round-robin to the SMs, so it runs
/// ceil(blocks / SMs) of them, at most blocksPerSM at a time (docs/timing.md, step 1).
double residentWarpsPerSM(const DeviceProfile &dev, uint64_t blocks, uint32_t warpsPerBlock,
                          uint32_t blocksPerSM);

/// The clock figures of a launch with `warpsPerSM` resident warps per SM, in blocks of
/// `warpsPerBlock` (docs/timing.md, "clock() and clock64()").
ClockFigures clockFigures(const DeviceProfile &dev, double warpsPerSM, uint32_t warpsPerBlock);

/// The DRAM peak of `dev` in bytes/s (memoryClockKHz x 2 x memoryBusWidthBits / 8, double data
/// rate); 0 when the profile does not know its memory.
double dramPeakBandwidth(const DeviceProfile &dev);

/// The modelled time of a copy of `bytes` within the device's memory (cudaMemcpy
/// DeviceToDevice, cudaMemcpyPeer on one device): a launch's fixed cost, then every byte read
/// and written at DRAM's streaming rate (2 x bytes / (peak x dramEfficiency)), as the copy
/// kernel CUDA runs for it moves them (docs/timing.md, "Copies within the device").
double deviceCopySeconds(const DeviceProfile &dev, uint64_t bytes);

} // namespace kern::runtime
