// The kernel timing model (runtime/timing.h). docs/timing.md derives each step and works the
// examples that tests/unit/runtime/timing_test.cpp checks.
#include "runtime/timing.h"

#include <algorithm>
#include <cmath>

namespace kern::runtime {

namespace {

/// The share of its peak at which a unit is the bound though the chains take longer (Nsight
/// Compute's speed-of-light threshold).
constexpr double kSaturated = 0.6;
/// DRAM's queue: the waiting time of an M/D/1 queue (fixed-size transfers), u / (2 (1 - u))
/// times the latency, where u is DRAM's busy share (docs/timing.md, step 6).
constexpr double kDramQueue = 0.5;
/// The share of the L2 that holds a launch's last written sectors, dirty, when it ends: they
/// reach DRAM only later (docs/timing.md, step 4; cal_dram.cu, cal_loaded.cu and cal_stores.cu
/// on the H200 left 18 to 26 MiB of their writes in its 60 MiB L2).
constexpr double kDirtyL2Share = 1.0 / 3.0;

struct LimiterNames {
  const char *name, *key;
};
constexpr LimiterNames kNames[kTimeLimiters] = {
    {"instruction issue", "issue"}, {"L1/shared data pipe", "shared"},
    {"latency", "latency"},         {"barriers", "barriers"},
    {"L2 bandwidth", "l2"},         {"DRAM bandwidth", "dram"},
    {"atomics", "atomics"},         {"launch overhead", "launch"},
};

} // namespace

const char *issuePipeKey(IssuePipe pipe) {
  switch (pipe) {
  case IssuePipe::Fp64:
    return "fp64";
  case IssuePipe::Xu:
    return "xu";
  case IssuePipe::Adu:
    return "adu";
  case IssuePipe::Issue:
    break;
  }
  return "issue";
}

const char *boundName(TimeLimiter bound, IssuePipe pipe) {
  if (bound == TimeLimiter::Issue)
    switch (pipe) {
    case IssuePipe::Fp64:
      return "the FP64 pipe";
    case IssuePipe::Xu:
      return "the XU pipe (special functions, conversions)";
    case IssuePipe::Adu:
      return "the ADU (barriers, constant-bank loads)";
    case IssuePipe::Issue:
      break;
    }
  return timeLimiterName(bound);
}

const char *timeLimiterName(TimeLimiter l) { return kNames[static_cast<size_t>(l)].name; }
const char *timeLimiterKey(TimeLimiter l) { return kNames[static_cast<size_t>(l)].key; }

double LaunchTime::share(TimeLimiter l) const {
  return seconds > 0 ? std::clamp(limiter(l) / seconds, 0.0, 1.0) : 0.0;
}

uint64_t globalWaits(const SiteCounters &c) {
  return c.globalOf(MemoryOpKind::Load).instructions +
         c.globalOf(MemoryOpKind::Atomic).instructions;
}

uint64_t sharedWaits(const SiteCounters &c) {
  return c.sharedOf(MemoryOpKind::Load).instructions +
         c.sharedOf(MemoryOpKind::Atomic).instructions;
}

double siteBoundUse(const DeviceProfile &dev, const LaunchTime &time, const SiteCounters &c) {
  // A launch that its overhead bounds: the longest of the rest.
  TimeLimiter bound = time.bound;
  if (bound == TimeLimiter::Launch) {
    double longest = 0;
    for (size_t l = 0; l < kTimeLimiters; ++l)
      if (static_cast<TimeLimiter>(l) != TimeLimiter::Launch && time.limiterSeconds[l] > longest) {
        longest = time.limiterSeconds[l];
        bound = static_cast<TimeLimiter>(l);
      }
  }
  switch (bound) {
  case TimeLimiter::Issue:
    return double(c.warpInstructions);
  case TimeLimiter::Shared: {
    // The data pipe's wavefronts: shared ones, and the global lines where the L1 serves them.
    const GlobalOpCounters &load = c.globalOf(MemoryOpKind::Load),
                           &store = c.globalOf(MemoryOpKind::Store);
    return double(c.sharedTotal().steps) +
           (dev.l1LatencyCycles > 0 ? double(load.lines128 + store.lines128) : 0.0);
  }
  case TimeLimiter::L2:
  case TimeLimiter::Dram:
    return double(c.globalTotal().bytesMoved);
  case TimeLimiter::Atomics:
    return double(c.atomicUnits);
  case TimeLimiter::Barriers:
    return double(c.barriersExecuted);
  case TimeLimiter::Latency: {
    const double latency =
        time.memoryLatencyCycles > 0 ? time.memoryLatencyCycles : double(dev.dramLatencyCycles);
    return double(c.warpInstructions) * dev.dependentIssueCycles +
           double(globalWaits(c)) * latency + double(sharedWaits(c)) * dev.sharedLatencyCycles;
  }
  case TimeLimiter::Launch:
    break;
  }
  return 0;
}

double residentWarpsPerSM(const DeviceProfile &dev, uint64_t blocks, uint32_t warpsPerBlock,
                          uint32_t blocksPerSM) {
  const double perSM = std::ceil(double(blocks) / std::max(1, dev.smCount));
  return std::min(perSM, std::max<double>(1, blocksPerSM)) * warpsPerBlock;
}

ClockFigures clockFigures(const DeviceProfile &dev, double warpsPerSM, uint32_t warpsPerBlock) {
  auto fixed = [](double cycles) { return static_cast<uint32_t>(std::lround(cycles * 16)); };
  ClockFigures f;
  // A warp issues at most one instruction a cycle (one every 1 / issueRate cycles where the SM
  // issues less than one a cycle), and less often when the SM's resident warps share its issue
  // slots. Not dependentIssueCycles: kern's operations are several to each of nvcc's unrolled
  // instructions, and the SM overlaps the independent ones (docs/timing.md).
  const double issue = dev.issueRate > 0 ? dev.issueRate : 1.0;
  f.instruction16 = fixed(std::max(1.0 / std::min(issue, 1.0), warpsPerSM / issue));
  // A load may hit in the L2 or go to DRAM: the mean of the two latencies.
  f.global16 = fixed(dev.l2Bytes > 0 ? 0.5 * (dev.l2LatencyCycles + dev.dramLatencyCycles)
                                     : double(dev.dramLatencyCycles));
  f.shared16 = fixed(dev.sharedLatencyCycles);
  f.barrier16 = fixed(dev.barrierCycles + double(dev.barrierCyclesPerWarp) * warpsPerBlock);
  return f;
}

double dramPeakBandwidth(const DeviceProfile &dev) {
  return double(dev.memoryClockKHz) * 1e3 * 2 * dev.memoryBusWidthBits / 8;
}

double deviceCopySeconds(const DeviceProfile &dev, uint64_t bytes) {
  const double rate = dramPeakBandwidth(dev) * dev.dramEfficiency;
  return dev.launchOverheadUs * 1e-6 + (rate > 0 ? 2.0 * double(bytes) / rate : 0.0);
}

LaunchTime modelLaunchTime(const DeviceProfile &dev, const TimingInput &in) {
  LaunchTime t;
  auto set = [&t](TimeLimiter l, double s) { t.limiterSeconds[static_cast<size_t>(l)] = s; };
  const double launch = dev.launchOverheadUs * 1e-6;
  set(TimeLimiter::Launch, launch);
  t.seconds = launch;
  if (in.blocks == 0 || in.warpsPerBlock == 0 || dev.clockRateKHz <= 0)
    return t;

  const double hz = double(dev.clockRateKHz) * 1e3;
  const double blocks = double(in.blocks), warps = blocks * in.warpsPerBlock;
  // Blocks go round-robin to the SMs: the busiest runs ceil(blocks / SMs) of them, blocksPerSM
  // at a time, in `rounds` rounds (the last one, the tail, may be partly empty).
  const double perSM = std::ceil(blocks / dev.smCount);
  const double resident = std::max<double>(1, in.blocksPerSM);
  const double rounds = std::ceil(perSM / resident);
  t.warpsPerSM = residentWarpsPerSM(dev, in.blocks, in.warpsPerBlock, in.blocksPerSM);

  // Throughput of the busiest SM: every instruction it issues, every wavefront it serves. The
  // FP64 units and the XU complete fewer instructions a clock than the SM issues: where a
  // kernel's share of them is large enough, its pipe limits the issue.
  auto perClock = [&](double instructions, double rate) {
    return rate > 0 ? perSM * (instructions / blocks) / (rate * hz) : 0.0;
  };
  double issue = perClock(double(in.warpInstructions), dev.issueRate);
  if (const double fp64 = perClock(double(in.fp64Instructions), dev.fp64PerCycle); fp64 > issue) {
    issue = fp64;
    t.pipe = IssuePipe::Fp64;
  }
  if (const double xu = perClock(double(in.xuInstructions), dev.xuPerCycle); xu > issue) {
    issue = xu;
    t.pipe = IssuePipe::Xu;
  }
  t.aduInstructions = double(in.aduInstructions);
  if (const double adu = perClock(double(in.aduInstructions), dev.aduPerCycle); adu > issue) {
    issue = adu;
    t.pipe = IssuePipe::Adu;
  }
  set(TimeLimiter::Issue, issue);
  // The L1/shared data pipe: the shared wavefronts; where the L1 serves global accesses, a
  // wavefront per 128-byte line of each; one per memory instruction issued with no lane on; and
  // in a launch that touches memory, one per warp and, with barriers, one per block.
  const double ownWavefronts = in.touchesMemory ? warps + (in.barriers > 0 ? blocks : 0.0) : 0.0;
  const double wavefronts = double(in.sharedWavefronts) + double(in.idleAccesses) +
                            (dev.l1LatencyCycles > 0 ? double(in.globalLines) : 0.0) +
                            ownWavefronts;
  set(TimeLimiter::Shared, perSM * (wavefronts / blocks) / (dev.sharedWavefrontsPerCycle * hz));

  // Global traffic. Without an L2 (cc1.x) every byte goes to DRAM. With one, the first touch of
  // each byte the launch can reach goes to DRAM (compulsory misses), and a re-read misses only
  // in the share of the footprint that does not fit in the L2 (capacity misses).
  const double bytes = double(in.globalBytes);
  // DRAM reads whole blocks of dramAccessBytes: a load that uses one sector of a 64-byte block
  // fetches both. Per instruction, the blocks are at most the sectors and at most 128 /
  // dramAccessBytes per line; for loads of one stride they are exactly the smaller of the two.
  const double access = std::max(32, dev.dramAccessBytes);
  const double loadBlocks = std::min(double(in.loadSectors), 128 / access * double(in.loadLines));
  const double blockExtra = std::max(0.0, loadBlocks * access - double(in.loadSectors) * 32);
  // L1 (docs/timing.md, "L1"): in the sampled blocks, a global load's sector that the block
  // touched before hits (the warps of a block run together, so its re-reads come soon), unless
  // what one block touches does not fit beside the resident blocks' shared memory. What the L1
  // serves never reaches the L2.
  // Of the hits, those on a sector another warp of the block touched first wait for its miss:
  // the share of the sectors that the L1 serves at its own latency is the rest.
  double l1QuickShare = 0;
  if (dev.l1LatencyCycles > 0 && in.l1SampledSectors > 0 && in.l1SampledBlocks > 0) {
    t.l1HitShare = 1.0 - double(in.l1SampledMisses) / double(in.l1SampledSectors);
    l1QuickShare =
        std::max(0.0, t.l1HitShare - double(in.l1SampledConcurrent) / double(in.l1SampledSectors));
    const double need = 32.0 * double(in.l1SampledMisses) / double(in.l1SampledBlocks);
    const double room =
        std::max(0.0, double(dev.l1Bytes) - double(in.sharedBytesPerBlock) * resident);
    if (need > room) {
      t.l1HitShare *= room / need;
      l1QuickShare *= room / need;
    }
  }
  const double l1Bytes = t.l1HitShare * double(in.cachedLoadSectors) * 32;
  // What DRAM may have to supply: the L1's misses, with the rest of the blocks they fetch (a
  // load the L1 serves fetches nothing).
  const double toL2 = std::max(0.0, bytes - l1Bytes) + blockExtra * (1.0 - t.l1HitShare);
  // Stores that fill a sector in part: the L2 merges each such sector on its own. The sectors
  // beyond those the written bytes fill are the partial ones (all of them when every lane
  // writes a sector of its own, less one in eight of those of 4-byte stores; docs/timing.md).
  t.partialSectors = std::max(0.0, double(in.storeSectors) - double(in.storeBytesRequested) / 32);
  const double partial = dev.l2PartialSectorsPerCycle > 0
                             ? t.partialSectors / (dev.l2PartialSectorsPerCycle * hz)
                             : 0.0;
  set(TimeLimiter::L2,
      dev.l2Bytes > 0 ? std::max(0.0, bytes - l1Bytes) / dev.l2Bandwidth + partial : 0.0);
  // Near re-reads: the share of the sampled blocks' first touches that their neighbours just
  // before them touched too hit in the L2, as long as a row of blocks' traffic fits in it.
  double near = 0;
  if (dev.l2Bytes > 0 && in.l2NeighbourSampled > 0 && blocks > 0) {
    const double share = double(in.l2NeighbourTouches) / double(in.l2NeighbourSampled);
    const double loadsToL2 = std::max(0.0, toL2 - double(in.storeSectors) * 32);
    const double distance = double(in.gridRowBlocks) * toL2 / blocks;
    near = share * loadsToL2 * std::min(1.0, double(dev.l2Bytes) / std::max(distance, 1.0));
  }
  double dram = toL2;
  if (dev.l2Bytes > 0) {
    dram = toL2 - near;
    if (in.footprintBytes > 0) {
      const double footprint = double(in.footprintBytes), l2 = double(dev.l2Bytes);
      const double unique = std::min(dram, footprint);
      const double miss = footprint <= l2 ? 0.0 : 1.0 - l2 / footprint;
      dram = unique + (dram - unique) * miss;
    }
  }
  // The L2 writes back: the last stores of the launch are still in it, dirty, when it ends.
  const double written = double(in.storeSectors) * 32;
  const double heldDirty =
      dev.l2Bytes > 0 ? std::min(written, kDirtyL2Share * double(dev.l2Bytes)) : 0.0;
  t.dramBytes = std::max(0.0, dram - heldDirty);
  const double dramBandwidth = dramPeakBandwidth(dev) * dev.dramEfficiency;
  set(TimeLimiter::Dram, dramBandwidth > 0 ? t.dramBytes / dramBandwidth : 0.0);
  // Global atomics: the lane operations, the L2's atomic units (a result that returns costs
  // more than a reduction's), and the passes of the hottest chunk, one after another.
  const double atomicWork =
      double(in.atomicUnits) * (1.0 + (dev.atomicReturnCost - 1.0) * in.atomicReturnShare);
  set(TimeLimiter::Atomics,
      std::max({double(in.atomicLaneOps) / (dev.atomicsPerCycle * hz),
                atomicWork / (dev.atomicUnitsPerCycle * hz),
                double(in.atomicHotPasses) / (dev.atomicChunkPassesPerCycle * hz)}));

  // Latency: one warp alone, each instruction waiting for the one before it, each global load
  // for its data (from L1, L2 or DRAM in the proportions above) and each shared load likewise.
  // Loads issued together wait once (ir/load_waves.h), for the slowest of them: with k loads a
  // wait, each from L1 with probability p1 and from L1 or L2 with p12, the wait is L1's with
  // probability p1^k, at most L2's with p12^k. A round of resident warps takes at least this
  // long; the SM runs `rounds` of them.
  const double hit = dev.l2Bytes > 0 && toL2 > 0 ? 1.0 - dram / toL2 : 0.0;
  const double perWait =
      in.globalWaits > 0 ? std::max(1.0, double(in.globalLoads) / in.globalWaits) : 1.0;
  const double p1 = std::pow(l1QuickShare, perWait);
  const double p12 = std::pow(l1QuickShare + (1.0 - l1QuickShare) * hit, perWait);
  const double dramShare = 1.0 - p12;
  const double memoryLatency = p1 * dev.l1LatencyCycles + (p12 - p1) * dev.l2LatencyCycles +
                               dramShare * double(dev.dramLatencyCycles);
  t.memoryLatencyCycles = memoryLatency;
  const double chain = double(in.warpInstructions) / warps * dev.dependentIssueCycles +
                       in.globalWaits / warps * memoryLatency +
                       in.sharedWaits / warps * dev.sharedLatencyCycles;
  set(TimeLimiter::Latency, rounds * chain / hz);
  set(TimeLimiter::Barriers,
      rounds * (double(in.barriers) / warps) *
          (dev.barrierCycles + double(dev.barrierCyclesPerWarp) * in.warpsPerBlock) / hz);
  // DRAM's latency under load: its requests queue, so the idle latency grows to
  // dramLatencyCycles × (1 + q u / (1 - u)) where DRAM is busy a share u of the time (a queue's
  // waiting time; q = kDramQueue). With the chains' DRAM part B, the rest A and DRAM's busy
  // time D (u = D / T), the chains take T = A + B + q B D / (T - D): the larger root of
  // T^2 - (A + B + D) T + (A + (1 - q) B) D = 0.
  const double dramTime = t.limiter(TimeLimiter::Dram);
  const double idleChains = t.limiter(TimeLimiter::Latency) + t.limiter(TimeLimiter::Barriers);
  const double dramWait =
      rounds * in.globalWaits / warps * dramShare * double(dev.dramLatencyCycles) / hz;
  double chains = idleChains;
  if (dramWait > 0 && dramTime > 0) {
    const double a = idleChains - kDramQueue * dramWait, sum = idleChains + dramTime;
    chains = 0.5 * (sum + std::sqrt(std::max(0.0, sum * sum - 4 * a * dramTime)));
    t.limiterSeconds[static_cast<size_t>(TimeLimiter::Latency)] += chains - idleChains;
  }

  // The launch takes as long as its slowest part: the busiest SM (issue, shared, or its warps'
  // chains and barriers), or the memory system all SMs share.
  const TimeLimiter chainBound = t.limiter(TimeLimiter::Latency) >= t.limiter(TimeLimiter::Barriers)
                                     ? TimeLimiter::Latency
                                     : TimeLimiter::Barriers;
  constexpr TimeLimiter kThroughputs[] = {TimeLimiter::Issue, TimeLimiter::Shared,
                                          TimeLimiter::Dram, TimeLimiter::L2, TimeLimiter::Atomics};
  double throughput = 0;
  TimeLimiter busiest = TimeLimiter::Launch;
  for (TimeLimiter l : kThroughputs)
    if (t.limiter(l) > throughput) {
      throughput = t.limiter(l);
      busiest = l;
    }
  const double body = std::max(throughput, chains);
  t.seconds = launch + body;
  TimeLimiter bound = busiest;
  if (chains > throughput) {
    // The chains take longest. As Nsight Compute's speed-of-light section names it, a unit
    // busy kSaturated of its peak or more bounds the launch all the same (DRAM's peak is the
    // nominal one, of which a streaming kernel reaches dramEfficiency); below that it is
    // latency.
    bound = chainBound;
    double most = kSaturated;
    for (TimeLimiter l : kThroughputs) {
      const double peak = l == TimeLimiter::Dram ? dev.dramEfficiency : 1.0;
      if (t.limiter(l) * peak / body >= most) {
        most = t.limiter(l) * peak / body;
        bound = l;
      }
    }
  }
  t.bound = body >= launch ? bound : TimeLimiter::Launch;
  if (t.bound == TimeLimiter::Latency && throughput > 0) {
    // Little's law: k times the warps in flight shorten the rounds k times, until a throughput
    // limit is reached.
    const double needed = std::ceil(t.warpsPerSM * chains / throughput);
    t.warpsToHideLatency = std::min<double>(needed, dev.maxWarpsPerSM());
  }
  return t;
}

} // namespace kern::runtime
