// Unit tests of the timing model: the worked examples of docs/timing.md, computed by hand from
// the profiles' figures, and the model's invariants.
#include "runtime/timing.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace kern::runtime;

namespace {

const DeviceProfile &profile(const char *name) {
  const DeviceProfile *p = findProfile(name);
  REQUIRE(p != nullptr);
  return *p;
}

double limiter(const LaunchTime &t, TimeLimiter l) { return t.limiter(l); }

/// docs/timing.md, step 6: chains of `idle` seconds at DRAM's idle latency, `dramWait` of them
/// waiting for DRAM, beside DRAM busy `dram` seconds: the larger root of
/// T^2 - (idle + dram) T + (idle - dramWait / 2) dram = 0.
double loadedChains(double idle, double dramWait, double dram) {
  const double sum = idle + dram;
  return 0.5 * (sum + std::sqrt(sum * sum - 4 * (idle - 0.5 * dramWait) * dram));
}

} // namespace

TEST_CASE("timing: vector add of 2^24 floats on h100 is bound by DRAM bandwidth",
          "[runtime][timing]") {
  // docs/timing.md, example 1: 65536 blocks of 256 threads, 18 warp instructions, 2 loads and
  // one store of 128 B per warp; three 64 MiB arrays.
  TimingInput in;
  in.blocks = 65536;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 8;
  in.warpInstructions = 9437184;
  in.globalWaits = 524288; // the two loads are issued together: one wait
  in.globalBytes = 201326592;
  in.footprintBytes = 201326592;
  const LaunchTime t = modelLaunchTime(profile("h100"), in);
  CHECK(dramPeakBandwidth(profile("h100")) == Approx(3.35232e12));
  // ceil(65536 / 132) = 497 blocks on the busiest SM, 63 rounds of 8.
  CHECK(limiter(t, TimeLimiter::Issue) == Approx(497.0 * 144 / (4 * 1.98e9)));
  const double dram = 201326592 / (3.35232e12 * 0.88);
  CHECK(limiter(t, TimeLimiter::Dram) == Approx(dram));
  CHECK(dram == Approx(68.245e-6).epsilon(1e-4));
  CHECK(limiter(t, TimeLimiter::L2) == Approx(201326592 / 11.0e12));
  // One warp's chain: 18 x 4 cycles + one wait of 605 cycles (every byte is a first touch),
  // 21.5 us in 63 rounds; DRAM's queue makes it 79.6 us.
  const double chains = loadedChains(63.0 * 677 / 1.98e9, 63.0 * 605 / 1.98e9, dram);
  CHECK(limiter(t, TimeLimiter::Latency) == Approx(chains));
  CHECK(chains == Approx(79.56e-6).epsilon(1e-3));
  CHECK(t.dramBytes == Approx(201326592));
  CHECK(t.warpsPerSM == 64);
  CHECK(t.seconds == Approx(1.5e-6 + chains));
  // The chains take longest, but DRAM is busy 68.2 x 0.88 / 79.6 = 75% of its nominal peak, over
  // the 60% that makes it the bound.
  CHECK(t.bound == TimeLimiter::Dram);
  CHECK(t.warpsToHideLatency == 0);
}

TEST_CASE("timing: one warp chasing loads is bound by latency", "[runtime][timing]") {
  // Example 2: one block of one warp, 1000 instructions, 100 loads of 128 B over a 4 KiB
  // array: the first 4096 B come from DRAM, the other 8704 B hit in L2 (68% hits).
  TimingInput in;
  in.blocks = 1;
  in.warpsPerBlock = 1;
  in.blocksPerSM = 32;
  in.warpInstructions = 1000;
  in.globalWaits = 100;
  in.globalBytes = 12800;
  in.footprintBytes = 4096;
  const LaunchTime t = modelLaunchTime(profile("h100"), in);
  CHECK(t.bound == TimeLimiter::Latency);
  CHECK(t.dramBytes == Approx(4096));
  // 1000 x 4 + 100 x (0.68 x 282 + 0.32 x 605) = 4000 + 38536 cycles (DRAM's queue adds a
  // hair: it is busy 0.01% of the time).
  CHECK(limiter(t, TimeLimiter::Latency) == Approx(42536 / 1.98e9).epsilon(1e-4));
  CHECK(t.seconds == Approx(1.5e-6 + 42536 / 1.98e9).epsilon(1e-4));
  // Issue alone would take 1000 / (4 x 1.98 GHz): 171 warps would hide the chain, more than an
  // SM holds.
  CHECK(t.warpsPerSM == 1);
  CHECK(t.warpsToHideLatency == 64);
  CHECK(t.share(TimeLimiter::Latency) == Approx(42536 / 1.98e9 / t.seconds).epsilon(1e-4));
}

TEST_CASE("timing: a 32-way bank conflict makes a kernel bound by shared memory",
          "[runtime][timing]") {
  // Example 3: one block of 8 warps per SM, each warp 100 instructions of which 50 shared
  // loads that take 32 wavefronts each.
  TimingInput in;
  in.blocks = 132;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 8;
  in.warpInstructions = 132 * 8 * 100;
  in.sharedWaits = 132 * 8 * 50;
  in.sharedWavefronts = 132 * 8 * 50 * 32;
  const LaunchTime t = modelLaunchTime(profile("h100"), in);
  CHECK(t.bound == TimeLimiter::Shared);
  CHECK(limiter(t, TimeLimiter::Shared) == Approx(12800 / 1.98e9));
  CHECK(limiter(t, TimeLimiter::Latency) == Approx((100 * 4 + 50 * 29) / 1.98e9));
  CHECK(t.seconds == Approx(1.5e-6 + 12800 / 1.98e9));
}

TEST_CASE("timing: g80 has no L2, so every global byte goes to DRAM", "[runtime][timing]") {
  // Example 4: vector add of 2^20 floats on g80, 3 blocks of 256 threads per SM.
  TimingInput in;
  in.blocks = 4096;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 3;
  in.warpInstructions = 4096 * 8 * 18;
  in.globalWaits = 4096 * 8 * 2;
  in.globalBytes = 12582912;
  in.footprintBytes = 12582912;
  const LaunchTime t = modelLaunchTime(profile("g80"), in);
  CHECK(t.bound == TimeLimiter::Dram);
  CHECK(limiter(t, TimeLimiter::L2) == 0);
  CHECK(dramPeakBandwidth(profile("g80")) == Approx(86.4e9));
  CHECK(limiter(t, TimeLimiter::Issue) == Approx(256.0 * 144 / (0.25 * 1.35e9)));
  // 86 rounds of 3 blocks; a warp's chain is 18 x 22 + 2 x 440 cycles, 81.3 us; DRAM's queue
  // makes it 230.6 us, with DRAM busy 194.2 x 0.75 / 230.6 = 63% of its peak: the bound.
  const double dram = 12582912 / (86.4e9 * 0.75);
  const double chains = loadedChains(86.0 * 1276 / 1.35e9, 86.0 * 880 / 1.35e9, dram);
  CHECK(limiter(t, TimeLimiter::Latency) == Approx(chains));
  CHECK(chains == Approx(230.6e-6).epsilon(1e-3));
  CHECK(t.seconds == Approx(7e-6 + chains));
}

TEST_CASE("timing: capacity misses when the footprint exceeds the L2", "[runtime][timing]") {
  // 100 MiB read twice on h100 (50 MiB of L2): the first pass misses, and half of the second.
  TimingInput in;
  in.blocks = 1000;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 8;
  in.globalBytes = 200ull << 20;
  in.footprintBytes = 100ull << 20;
  const LaunchTime t = modelLaunchTime(profile("h100"), in);
  CHECK(t.dramBytes == Approx((100ull << 20) + (100ull << 20) * 0.5));
}

TEST_CASE("timing: the L2 holds a launch's last writes, dirty, when it ends", "[runtime][timing]") {
  // docs/timing.md, step 4: a 2048 x 2048 transpose on h100 (50 MiB of L2) reads 16 MiB and
  // writes 16 MiB, which stay in the L2: only the reads reach DRAM. A copy of 64 MiB leaves a
  // third of the L2 of its writes there.
  TimingInput in;
  in.blocks = 4096;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 8;
  in.globalBytes = 32ull << 20;
  in.footprintBytes = 32ull << 20;
  in.storeSectors = (16ull << 20) / 32;
  in.storeBytesRequested = 16ull << 20;
  CHECK(modelLaunchTime(profile("h100"), in).dramBytes == Approx(16ull << 20));
  in.globalBytes = 128ull << 20;
  in.footprintBytes = 128ull << 20;
  in.storeSectors = (64ull << 20) / 32;
  in.storeBytesRequested = 64ull << 20;
  CHECK(modelLaunchTime(profile("h100"), in).dramBytes ==
        Approx((128ull << 20) - (50ull << 20) / 3.0));
  // No L2 (cc1.x): every byte goes to DRAM.
  CHECK(modelLaunchTime(profile("g80"), in).dramBytes == Approx(128ull << 20));
}

TEST_CASE("timing: an empty launch takes the launch overhead and every share is in 0 to 1",
          "[runtime][timing]") {
  for (const DeviceProfile &dev : builtinProfiles()) {
    const LaunchTime empty = modelLaunchTime(dev, TimingInput{});
    CHECK(empty.seconds == Approx(dev.launchOverheadUs * 1e-6));
    CHECK(empty.bound == TimeLimiter::Launch);
    TimingInput in;
    in.blocks = 10000;
    in.warpsPerBlock = 4;
    in.blocksPerSM = 4;
    in.warpInstructions = 10000 * 4 * 50;
    in.globalWaits = 10000 * 4 * 3;
    in.globalBytes = 10000 * 4 * 3 * 128;
    in.barriers = 10000 * 4 * 2;
    in.atomicLaneOps = 1000;
    const LaunchTime t = modelLaunchTime(dev, in);
    CHECK(t.seconds > empty.seconds);
    for (size_t l = 0; l < kTimeLimiters; ++l) {
      CHECK(t.share(TimeLimiter(l)) >= 0);
      CHECK(t.share(TimeLimiter(l)) <= 1);
    }
  }
}

TEST_CASE("timing: h100's DRAM reads 64-byte blocks, so a 128-byte stride reads twice its "
          "sectors",
          "[runtime][timing]") {
  // Example 5: 2^20 warps each load one float a lane with a 128-byte lane stride (32 sectors
  // in 32 lines per instruction) over a 4 GiB array: 2 sectors fetched for each one used.
  TimingInput in;
  in.blocks = 1 << 17;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 8;
  in.globalWaits = 1 << 20;
  in.loadSectors = uint64_t(32) << 20;
  in.loadLines = uint64_t(32) << 20;
  in.globalBytes = in.loadSectors * 32;
  in.footprintBytes = 4ull << 30;
  const LaunchTime t = modelLaunchTime(profile("h100"), in);
  // 4 GiB of footprint in a 50 MiB L2: the first touches miss, and there are no re-reads.
  CHECK(t.dramBytes == Approx(2.0 * double(in.globalBytes)));
  // With lane stride 32 B (8 sectors a line), both sectors of each block are used: no extra.
  in.loadLines = uint64_t(8) << 20;
  CHECK(modelLaunchTime(profile("h100"), in).dramBytes == Approx(double(in.globalBytes)));
  // v100 reads sectors.
  in.loadLines = uint64_t(32) << 20;
  CHECK(modelLaunchTime(profile("v100"), in).dramBytes == Approx(double(in.globalBytes)));
}

TEST_CASE("timing: a barrier costs a fixed part and a part per warp of the block",
          "[runtime][timing]") {
  // Example 6: one block of 8 warps per SM reaching 10000 barriers each: 13 + 2 x 8 cycles.
  TimingInput in;
  in.blocks = 132;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 8;
  in.barriers = 132 * 8 * 10000;
  const LaunchTime t = modelLaunchTime(profile("h100"), in);
  CHECK(t.bound == TimeLimiter::Barriers);
  CHECK(t.limiter(TimeLimiter::Barriers) == Approx(10000.0 * 29 / 1.98e9));
}

TEST_CASE("timing: global atomics are bound by the L2's units or by the hottest chunk",
          "[runtime][timing]") {
  // docs/timing.md, example 7: 528 blocks of 8 warps; each warp adds 64 times, a lane a sector
  // (32 one-lane passes an instruction), result unused.
  const DeviceProfile &h100 = profile("h100");
  TimingInput in;
  in.blocks = 528;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 8;
  in.atomicLaneOps = 528ull * 256 * 64;
  in.atomicUnits = 528ull * 8 * 64 * 32;
  in.atomicHotPasses = 64ull * 32 * 8; // a chunk holds 16 of those sectors, one warp's 2
  LaunchTime t = modelLaunchTime(h100, in);
  CHECK(t.bound == TimeLimiter::Atomics);
  CHECK(limiter(t, TimeLimiter::Atomics) == Approx(8650752 / (48.7 * 1.98e9)));
  CHECK(t.seconds == Approx(91.2e-6).epsilon(1e-3));
  // The results used (ATOM): 1.28 times the work.
  in.atomicReturnShare = 1.0;
  CHECK(modelLaunchTime(h100, in).seconds == Approx(1.5e-6 + 1.28 * 89.71e-6).epsilon(1e-3));
  // A histogram of one bin: 2^25 lanes' adds on one word, 2^25 passes of that chunk.
  TimingInput hist;
  hist.blocks = 1056;
  hist.warpsPerBlock = 8;
  hist.blocksPerSM = 8;
  hist.atomicLaneOps = 1ull << 25;
  hist.atomicUnits = 1ull << 25;
  hist.atomicHotPasses = 1ull << 25;
  t = modelLaunchTime(h100, hist);
  CHECK(limiter(t, TimeLimiter::Atomics) == Approx(33554432 / (0.69 * 1.98e9)));
  CHECK(t.seconds == Approx(24.56e-3).epsilon(1e-3));
}

TEST_CASE("timing: the modelled clock's figures", "[runtime][timing]") {
  // docs/timing.md, "clock() and clock64()": h100, one block of 8 warps on an SM.
  const ClockFigures f = clockFigures(profile("h100"), 8, 8);
  CHECK(f.instruction16 == 32);  // 8 warps share 4 issue slots: a warp issues every 2 cycles
  CHECK(f.global16 == 7096);     // (282 + 605) / 2 = 443.5 cycles
  CHECK(f.shared16 == 29 * 16);  // 29 cycles
  CHECK(f.barrier16 == 29 * 16); // 13 + 2 x 8 cycles
  // A warp alone issues every cycle; on g80 (a warp instruction takes 4 cycles) every 4.
  CHECK(clockFigures(profile("h100"), 1, 1).instruction16 == 16);
  CHECK(clockFigures(profile("g80"), 1, 1).instruction16 == 64);
  CHECK(clockFigures(profile("g80"), 1, 1).global16 ==
        uint32_t(16 * profile("g80").dramLatencyCycles));
}

TEST_CASE("timing: a site's use of what bounds the launch", "[runtime][timing]") {
  const DeviceProfile &h100 = profile("h100");
  // 1 global load, 2 shared loads, 3 instructions, 40 wavefronts, 500 bytes, 6 atomic units
  // and 7 barrier arrivals.
  SiteCounters c;
  c.global[size_t(MemoryOpKind::Load)].instructions = 1;
  c.global[size_t(MemoryOpKind::Load)].bytesMoved = 500;
  c.shared[size_t(MemoryOpKind::Load)].instructions = 2;
  c.shared[size_t(MemoryOpKind::Load)].steps = 40;
  c.warpInstructions = 3;
  c.atomicUnits = 6;
  c.barriersExecuted = 7;
  LaunchTime t;
  t.bound = TimeLimiter::Shared;
  CHECK(siteBoundUse(h100, t, c) == 40);
  t.bound = TimeLimiter::Dram;
  CHECK(siteBoundUse(h100, t, c) == 500);
  t.bound = TimeLimiter::Latency;
  t.memoryLatencyCycles = 400;
  // 3 instructions x 4 + 1 global wait x 400 + 2 shared waits x 29.
  CHECK(siteBoundUse(h100, t, c) == 12 + 400 + 58);
  // Bound by its overhead: the longest other limiter (here barriers).
  t.bound = TimeLimiter::Launch;
  t.limiterSeconds[static_cast<size_t>(TimeLimiter::Barriers)] = 1e-6;
  CHECK(siteBoundUse(h100, t, c) == 7);
}

TEST_CASE("timing: a block's re-reads hit in L1", "[runtime][timing]") {
  // docs/timing.md, example 8 (a naive matmul's block): one block of 8 warps, each making 64
  // loads of 2 sectors (128 loads' worth of sectors: 1024) where the sampled block touched 128
  // distinct sectors: 1 - 128 / 1024 = 87.5% hit in L1, 4 KiB fit beside no shared memory.
  TimingInput in;
  in.blocks = 1;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 8;
  in.warpInstructions = 8 * 200;
  in.globalWaits = 8 * 64;
  in.globalBytes = 1024 * 32;
  in.loadSectors = in.cachedLoadSectors = 1024;
  in.loadLines = 512;
  in.footprintBytes = 1 << 20;
  in.l1SampledBlocks = 1;
  in.l1SampledSectors = 1024;
  in.l1SampledMisses = 128;
  const DeviceProfile &h100 = profile("h100");
  const LaunchTime t = modelLaunchTime(h100, in);
  CHECK(t.l1HitShare == Approx(0.875));
  // The hits never leave the SM and fetch nothing: only the 128 first touches go to DRAM, each
  // with the other sector of its 64-byte block (the 1024 sectors lie in 1024 blocks, each
  // sector of a line apart): 128 x 64 B. The L2 serves the 128 missing sectors.
  CHECK(t.dramBytes == Approx(128 * 64));
  CHECK(limiter(t, TimeLimiter::L2) == Approx(128.0 * 32 / 11.0e12));
  // A load waits 0.875 x 40 + 0.125 x 605 = 110.6 cycles.
  CHECK(t.memoryLatencyCycles == Approx(0.875 * 40 + 0.125 * 605));
  CHECK(limiter(t, TimeLimiter::Latency) ==
        Approx((200.0 * 4 + 64 * (0.875 * 40 + 0.125 * 605)) / 1.98e9).epsilon(1e-2));
  // A block touching more than the L1 holds keeps only what fits: 512 KiB of first touches
  // against 256 KiB, so half the re-reads hit.
  in.l1SampledMisses = 16384;
  in.l1SampledSectors = 16384 * 8;
  CHECK(modelLaunchTime(h100, in).l1HitShare == Approx(0.875 * 262144 / (16384.0 * 32)));
  // cc1.x has no L1 for global loads.
  CHECK(modelLaunchTime(profile("gt200"), in).l1HitShare == 0);
}

TEST_CASE("timing: re-reads of what the blocks just before touched hit in the L2",
          "[runtime][timing]") {
  // docs/timing.md, step 4: a 5-point stencil's sampled blocks first-touch 48 sectors each, of
  // which 8 (a row of the block above and the block above's last row) the block a row before
  // touched. Of 122 MiB of loads that reach the L2, 1/6 are near re-reads; the rest (and 64
  // MiB of stores) meet the capacity rule against a 128 MiB footprint on h100 (50 MiB L2).
  TimingInput in;
  in.blocks = 65536;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 8;
  in.globalBytes = (122ull + 64) << 20;
  in.storeSectors = (64ull << 20) / 32;
  in.storeBytesRequested = 64ull << 20;
  in.footprintBytes = 128ull << 20;
  in.gridRowBlocks = 128;
  in.l2NeighbourSampled = 144;
  in.l2NeighbourTouches = 24;
  const double mib = 1 << 20;
  const double rest = (122 + 64) * mib - 122 * mib / 6;
  const double dram = 128 * mib + (rest - 128 * mib) * (1 - 50.0 / 128) - 50 * mib / 3;
  CHECK(modelLaunchTime(profile("h100"), in).dramBytes == Approx(dram));
  // A row of blocks whose traffic does not fit in the L2 keeps only the share that fits.
  in.gridRowBlocks = 65536;
  const double far = (122 + 64) * mib - 122 * mib / 6 * (50.0 / 186);
  CHECK(modelLaunchTime(profile("h100"), in).dramBytes ==
        Approx(128 * mib + (far - 128 * mib) * (1 - 50.0 / 128) - 50 * mib / 3));
}

TEST_CASE("timing: loads issued together wait for the slowest of them", "[runtime][timing]") {
  // docs/timing.md, step 6: 5 independent loads a wait (a 5-point stencil's), each an L1 hit
  // with probability 0.5, an L1 miss that hits L2 never (every miss is a first touch): the
  // wait is L1's only when all five hit, 1 / 32 of the time, and DRAM's otherwise.
  TimingInput in;
  in.blocks = 1;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 8;
  in.globalLoads = 8 * 5;
  in.globalWaits = 8;
  in.globalBytes = 8 * 5 * 4 * 32;
  in.loadSectors = in.cachedLoadSectors = 8 * 5 * 4;
  in.loadLines = 8 * 5;
  in.footprintBytes = 1 << 20;
  in.l1SampledBlocks = 1;
  in.l1SampledSectors = 160;
  in.l1SampledMisses = 80;
  const LaunchTime t = modelLaunchTime(profile("h100"), in);
  CHECK(t.l1HitShare == Approx(0.5));
  CHECK(t.memoryLatencyCycles == Approx(40.0 / 32 + 605.0 * 31 / 32));
  // One load a wait: the average of the two.
  in.globalLoads = 8;
  CHECK(modelLaunchTime(profile("h100"), in).memoryLatencyCycles == Approx(0.5 * 40 + 0.5 * 605));
  // Half of the hits are on sectors another warp of the block touched first at the same point
  // of its code (a stencil's rows above and below): they wait for that warp's miss. The L1
  // still serves half the sectors (the traffic), but a quarter at its own latency.
  in.l1SampledConcurrent = 40;
  const LaunchTime c = modelLaunchTime(profile("h100"), in);
  CHECK(c.l1HitShare == Approx(0.5));
  CHECK(c.memoryLatencyCycles == Approx(0.25 * 40 + 0.75 * 605));
}

TEST_CASE("timing: stores that fill sectors in part cost the L2 a merge each",
          "[runtime][timing]") {
  // docs/timing.md, example 9 (a naive transpose's stores): 131072 warps each storing 4 bytes
  // a lane, every lane in a sector of its own: 32 sectors an instruction, 128 bytes written.
  // 4194304 sectors, of which 4194304 - 16777216 / 32 = 3670016 are counted as partial.
  TimingInput in;
  in.blocks = 16384;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 8;
  in.warpInstructions = 131072 * 10;
  in.globalBytes = 4194304ull * 32;
  in.storeSectors = 4194304;
  in.storeBytesRequested = 16777216;
  in.footprintBytes = 1ull << 25;
  const DeviceProfile &h100 = profile("h100");
  const LaunchTime t = modelLaunchTime(h100, in);
  CHECK(t.partialSectors == Approx(3670016));
  // The L2: the bytes at l2Bandwidth, then each partial sector at 40.4 a clock.
  CHECK(limiter(t, TimeLimiter::L2) ==
        Approx(4194304.0 * 32 / 11.0e12 + 3670016 / (40.4 * 1.98e9)));
  CHECK(t.bound == TimeLimiter::L2);
  // Whole sectors (the same bytes, 8 lanes a sector) cost their bytes only.
  in.storeSectors = 524288;
  in.storeBytesRequested = 16777216;
  in.globalBytes = 524288ull * 32;
  CHECK(modelLaunchTime(h100, in).partialSectors == 0);
}

TEST_CASE("timing: global lines and idle accesses take the L1/shared data pipe",
          "[runtime][timing]") {
  // docs/timing.md, step 3: 1024 blocks of 8 warps on h100 (8 on the busiest SM); each warp
  // 512 global loads of 1.5 lines each (the naive matmul's two rows of A and one line of B) and
  // 100 shared instructions issued with no lane on.
  TimingInput in;
  in.blocks = 1024;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 8;
  in.warpInstructions = 1024 * 8 * 100;
  in.globalLines = 1024 * 8 * 768;
  in.idleAccesses = 1024 * 8 * 100;
  const LaunchTime t = modelLaunchTime(profile("h100"), in);
  CHECK(limiter(t, TimeLimiter::Shared) == Approx(8.0 * 8 * (768 + 100) / 1.98e9));
  CHECK(t.bound == TimeLimiter::Shared);
  // cc1.x has no L1 for global loads: only the idle accesses take the pipe.
  const LaunchTime g = modelLaunchTime(profile("g80"), in);
  CHECK(limiter(g, TimeLimiter::Shared) ==
        Approx(std::ceil(1024.0 / 16) * 8 * 100 / (1.0 * 1.35e9)));
}

TEST_CASE("timing: a warp and a block with barriers take data-pipe wavefronts of their own",
          "[runtime][timing]") {
  // docs/timing.md, step 3: the barrier loop of cal_launch.cu, 132 blocks of 8 warps on h100
  // (one on each SM), 10000 barriers a warp and one global store: Nsight Compute counts 1188
  // wavefronts, one per warp and one per block; without barriers, one per warp; a launch that
  // touches no memory, none.
  TimingInput in;
  in.blocks = 132;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 8;
  in.warpInstructions = 132 * 8 * 4;
  in.barriers = 132 * 8 * 10000;
  in.touchesMemory = true;
  const DeviceProfile &h100 = profile("h100");
  CHECK(limiter(modelLaunchTime(h100, in), TimeLimiter::Shared) == Approx(9 / 1.98e9));
  in.barriers = 0;
  CHECK(limiter(modelLaunchTime(h100, in), TimeLimiter::Shared) == Approx(8 / 1.98e9));
  in.touchesMemory = false;
  CHECK(limiter(modelLaunchTime(h100, in), TimeLimiter::Shared) == 0);
}

TEST_CASE("timing: FP64 and the XU complete fewer instructions than the SM issues",
          "[runtime][timing]") {
  // docs/timing.md, step 2: one block of 8 warps per SM on h100, each warp 8192 FP64 FMAs and
  // 100 other instructions. Issue alone: 8 x 8292 / (4 x 1.98 GHz) = 8.4 us; the FP64 pipe,
  // 2 a clock: 8 x 8192 / (2 x 1.98 GHz) = 16.5 us.
  TimingInput in;
  in.blocks = 132;
  in.warpsPerBlock = 8;
  in.blocksPerSM = 8;
  in.warpInstructions = 132 * 8 * 8292;
  in.fp64Instructions = 132 * 8 * 8192;
  LaunchTime t = modelLaunchTime(profile("h100"), in);
  CHECK(limiter(t, TimeLimiter::Issue) == Approx(8.0 * 8192 / (2 * 1.98e9)));
  CHECK(t.pipe == IssuePipe::Fp64);
  CHECK(std::string(issuePipeKey(t.pipe)) == "fp64");
  // The same instructions as special functions: the XU, 0.5 a clock, takes 4 times longer.
  in.fp64Instructions = 0;
  in.xuInstructions = 132 * 8 * 8192;
  t = modelLaunchTime(profile("h100"), in);
  CHECK(limiter(t, TimeLimiter::Issue) == Approx(8.0 * 8192 / (0.5 * 1.98e9)));
  CHECK(t.pipe == IssuePipe::Xu);
  // A few special functions among many other instructions: the issue slots.
  in.xuInstructions = 132 * 8 * 1000;
  t = modelLaunchTime(profile("h100"), in);
  CHECK(limiter(t, TimeLimiter::Issue) == Approx(8.0 * 8292 / (4 * 1.98e9)));
  CHECK(t.pipe == IssuePipe::Issue);
}

TEST_CASE("timing: the ADU runs barriers, EXIT and constant-bank loads at half a clock",
          "[runtime][timing]") {
  // docs/timing.md, step 2. The padded Blelloch scan of tests/gpu/timing/val_scan.cu: 16384
  // blocks of 16 warps on h100, 4 blocks an SM, so the busiest SM runs ceil(16384 / 132) = 125.
  // Each warp issues 190 instructions (the H200's count) and 25 of them on the ADU (21
  // barriers, EXIT, the stack pointer's load, the shared window's and the `sums` pointer's).
  // Issue: 125 x 16 x 190 / (4 x 1.98 GHz) = 48.0 us; the ADU, 0.5 a clock: 125 x 16 x 25 /
  // (0.5 x 1.98 GHz) = 50.5 us, the longer (on the H200 the ADU was 61% busy, the issue 58%).
  TimingInput in;
  in.blocks = 16384;
  in.warpsPerBlock = 16;
  in.blocksPerSM = 4;
  in.warpInstructions = 16384ull * 16 * 190;
  in.aduInstructions = 16384ull * 16 * 25;
  in.barriers = 16384ull * 16 * 21;
  LaunchTime t = modelLaunchTime(profile("h100"), in);
  CHECK(limiter(t, TimeLimiter::Issue) == Approx(125.0 * 16 * 25 / (0.5 * 1.98e9)));
  CHECK(t.pipe == IssuePipe::Adu);
  CHECK(std::string(issuePipeKey(t.pipe)) == "adu");
  CHECK(t.aduInstructions == Approx(16384.0 * 16 * 25));
  // Profiles without an ADU figure (before cc7.0) leave the barriers to their own limiter.
  t = modelLaunchTime(profile("fermi"), in);
  CHECK(t.pipe == IssuePipe::Issue);
}

TEST_CASE("timing: a copy within the device reads and writes its bytes at DRAM's rate",
          "[runtime][timing]") {
  // docs/timing.md, "Copies within the device": 40 MiB on h100, 1.5 us + 2 x 41943040 B /
  // (3.35232 TB/s x 0.88) = 29.94 us: 2.80 TB/s of reads and writes, as the samples'
  // p2pBandwidthLatencyTest counts a copy within one device.
  const double s = deviceCopySeconds(profile("h100"), 41943040);
  CHECK(s == Approx(1.5e-6 + 2.0 * 41943040 / (3.35232e12 * 0.88)));
  CHECK(s == Approx(29.94e-6).epsilon(1e-3));
  CHECK(2.0 * 41943040 / s / 1e12 == Approx(2.802).epsilon(1e-3));
  // A profile that does not know its memory takes the fixed cost alone.
  DeviceProfile unknown = profile("h100");
  unknown.memoryClockKHz = 0;
  CHECK(deviceCopySeconds(unknown, 41943040) == Approx(1.5e-6));
}
