// Counter tables: the divergence worked examples of HARDWARE-MODEL.md ("Divergence"),
// order-independent merging of per-worker sets, per-kind attribution and the derived figures.
#include "runtime/counters.h"

#include <catch2/catch.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <functional>

using namespace kern::runtime;

namespace {

using Lanes = std::array<uint64_t, 32>;

/// Runs one branch of a one-dimensional block the way the runtime does: warp w holds threads
/// 32w..32w+31; lanes past blockDim.x do not exist and are never in the mask.
void runBranch(CounterSet &set, CounterSiteId site, uint32_t blockDim,
               const std::function<bool(uint32_t)> &condition) {
  for (uint32_t warp = 0; warp * 32 < blockDim; ++warp) {
    uint32_t mask = 0, taken = 0;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      uint32_t tid = warp * 32 + lane;
      if (tid >= blockDim)
        break;
      mask |= 1u << lane;
      if (condition(tid))
        taken |= 1u << lane;
    }
    set.recordBranch(site, mask, taken);
    set.recordInstructions(site, 1, static_cast<uint32_t>(std::popcount(mask)));
  }
}

Lanes lanes(const std::function<uint64_t(uint64_t)> &f) {
  Lanes a{};
  for (uint64_t l = 0; l < 32; ++l)
    a[l] = f(l);
  return a;
}

CounterConfig h100Config() { return {}; }

CounterConfig g80Config() {
  return {SharedBankRule::HalfWarp, 16, GlobalCoalescingRule::Cc10, true};
}

/// One warp's worth of mixed work, a different mix for each `seed`.
void recordWork(CounterSet &set, uint32_t seed) {
  Lanes in = lanes([&](uint64_t l) { return 0x1000000 + 4 * (l * (seed % 5 + 1)); });
  Lanes sh = lanes([&](uint64_t l) { return 4 * (l * (seed % 3 + 1)); });
  uint32_t mask = seed % 2 ? ~0u : 0x0FFFFFFFu;
  set.recordGlobal(1, in.data(), mask, 4, MemoryOpKind::Load);
  set.recordGlobal(2, in.data(), mask, 4, MemoryOpKind::Store);
  set.recordShared(3, sh.data(), mask, 4, MemoryOpKind::Load);
  set.recordShared(3, sh.data(), mask, 8, MemoryOpKind::Store);
  set.recordShared(4, sh.data(), mask, 4, MemoryOpKind::Atomic);
  set.recordGlobal(4, in.data(), mask, 4, MemoryOpKind::Atomic);
  set.recordConstant(5, sh.data(), mask);
  set.recordBranch(6, mask, 0x5555u * seed);
  set.recordBarrier(7);
  set.recordInstructions(10 + seed, static_cast<uint32_t>(std::popcount(mask)));
  set.recordInstructions(6, 3, 17);
}

} // namespace

// --- The divergence worked examples -----------------------------------------------------------

TEST_CASE("divergence: if (threadIdx.x % 2) -> 8 branches, 8 divergent", "[runtime][counters]") {
  // Every warp has odd and even lanes.
  CounterSet set(h100Config(), 2);
  runBranch(set, 1, 256, [](uint32_t t) { return t % 2 != 0; });
  CHECK(set.site(1).branchesExecuted == 8);
  CHECK(set.site(1).branchesDivergent == 8);
  CHECK(branchEfficiency(set.site(1)) == Approx(0.0));
  CHECK(divergentBranchPercent(set.site(1)) == Approx(50.0)); // 100 x 8 / (8 + 8)
}

TEST_CASE("divergence: if (threadIdx.x < 16) -> 8 branches, 1 divergent", "[runtime][counters]") {
  // Only warp 0 (threads 0-31) holds both sides.
  CounterSet set(h100Config(), 2);
  runBranch(set, 1, 256, [](uint32_t t) { return t < 16; });
  CHECK(set.site(1).branchesExecuted == 8);
  CHECK(set.site(1).branchesDivergent == 1);
  CHECK(branchEfficiency(set.site(1)) == Approx(87.5));              // 100 x 7 / 8
  CHECK(divergentBranchPercent(set.site(1)) == Approx(100.0 / 9.0)); // 100 x 1 / (1 + 8)
}

TEST_CASE("divergence: if ((threadIdx.x / 32) % 2) -> 8 branches, 0 divergent",
          "[runtime][counters]") {
  // The condition is uniform within each warp.
  CounterSet set(h100Config(), 2);
  runBranch(set, 1, 256, [](uint32_t t) { return (t / 32) % 2 != 0; });
  CHECK(set.site(1).branchesExecuted == 8);
  CHECK(set.site(1).branchesDivergent == 0);
  CHECK(branchEfficiency(set.site(1)) == Approx(100.0));
  CHECK(divergentBranchPercent(set.site(1)) == Approx(0.0));
}

TEST_CASE("divergence: blockDim.x = 100, if (threadIdx.x < 100) -> 0 divergent",
          "[runtime][counters]") {
  // 4 warps; the last has lanes 0-3 (threads 96-99). Its 28 missing lanes are never active, so
  // they do not make the always-true condition divergent.
  CounterSet set(h100Config(), 2);
  runBranch(set, 1, 100, [](uint32_t t) { return t < 100; });
  CHECK(set.site(1).branchesExecuted == 4);
  CHECK(set.site(1).branchesDivergent == 0);
  // Warp execution efficiency of those 4 instructions: 100 threads / (32 x 4) = 78.125 %.
  CHECK(set.site(1).warpInstructions == 4);
  CHECK(set.site(1).threadInstructions == 100);
  CHECK(warpExecutionEfficiency(set.site(1)) == Approx(78.125));
  CHECK(controlFlowDivergence(set.site(1)) == Approx(21.875));
  CHECK(threadsPerWarpInstruction(set.site(1)) == Approx(25.0));
}

TEST_CASE("isDivergent looks only at active lanes", "[runtime][counters]") {
  CHECK(isDivergent(0b1111u, 0b0011u));
  CHECK_FALSE(isDivergent(0b0011u, 0b0011u)); // taken by every active lane
  CHECK_FALSE(isDivergent(0b0011u, 0b1100u)); // taken by no active lane
  CHECK_FALSE(isDivergent(0b0011u, ~0u));     // inactive lanes' conditions are ignored
  CHECK_FALSE(isDivergent(0u, 0b1u));         // no active lane
  CHECK(branchCost(~0u, 1u).divergent);
  CHECK_FALSE(branchCost(~0u, ~0u).divergent);
}

// --- Merging ----------------------------------------------------------------------------------

TEST_CASE("merging per-worker sets equals one set that recorded everything",
          "[runtime][counters]") {
  for (CounterConfig config : {h100Config(), g80Config()}) {
    CounterSet all(config, 8);
    for (uint32_t seed = 0; seed < 12; ++seed)
      recordWork(all, seed);

    // Two workers, blocks dealt out in two different ways, merged in both orders.
    CounterSet a(config, 8), b(config, 8), c(config, 8), d(config, 8);
    for (uint32_t seed = 0; seed < 12; ++seed) {
      recordWork(seed % 2 ? a : b, seed);
      recordWork(seed < 5 ? c : d, seed);
    }
    CounterSet ab = a;
    ab.merge(b);
    CounterSet ba = b;
    ba.merge(a);
    CounterSet dc = d;
    dc.merge(c);
    CHECK(ab.launchCounters() == all.launchCounters());
    CHECK(ba.launchCounters() == all.launchCounters());
    CHECK(dc.launchCounters() == all.launchCounters());
    CHECK(ab.total() == all.total());

    // A worker whose table grew (a site beyond the initial count) merges either way round.
    CounterSet small(config, 2), big(config, 2);
    small.recordBarrier(1);
    big.recordBarrier(9);
    CounterSet sb = small, bs = big;
    sb.merge(big);
    bs.merge(small);
    CHECK(sb.launchCounters() == bs.launchCounters());
    CHECK(sb.siteCount() == 10);
    CHECK(sb.site(9).barriersExecuted == 1);
  }
}

TEST_CASE("launch totals sum the sites and the unattributed work", "[runtime][counters]") {
  CounterSet set(h100Config(), 4);
  set.recordInstructions(5, 32);
  set.recordInstructions(2, 3, 10);
  set.recordBarrier(3);
  LaunchCounters lc = set.launchCounters();
  CHECK(lc.sites.size() == 4);
  CHECK(lc.total.warpInstructions == 8);
  CHECK(lc.total.threadInstructions == 5 * 32 + 3 * 10);
  CHECK(lc.total.barriersExecuted == 1);
  CHECK(set.unattributed().warpInstructions == 5);
  CHECK(set.site(100).warpInstructions == 0); // never recorded: zeros, no growth
  CHECK(set.siteCount() == 4);
  set.clear();
  CHECK(set.total() == SiteCounters{});
  CHECK(set.siteCount() == 4);
}

// --- Attribution ------------------------------------------------------------------------------

TEST_CASE("memory counters keep loads, stores and atomics apart", "[runtime][counters]") {
  CounterSet set(h100Config(), 4);
  Lanes in = lanes([](uint64_t l) { return 0x1000000 + 4 * l; });
  Lanes strided = lanes([](uint64_t l) { return 0x1000000 + 8 * l; });
  set.recordGlobal(1, in.data(), ~0u, 4, MemoryOpKind::Load);
  set.recordGlobal(1, strided.data(), ~0u, 4, MemoryOpKind::Store);
  set.recordGlobal(1, in.data(), 0xFFu, 4, MemoryOpKind::Atomic);
  const SiteCounters &s = set.site(1);
  CHECK(s.globalOf(MemoryOpKind::Load).sectors == 4);
  CHECK(s.globalOf(MemoryOpKind::Load).requests == 1);
  CHECK(s.globalOf(MemoryOpKind::Load).instructions == 1);
  CHECK(s.globalOf(MemoryOpKind::Store).sectors == 8);
  CHECK(s.globalOf(MemoryOpKind::Atomic).sectors == 1);
  CHECK(s.atomicsExecuted == 1);
  CHECK(s.atomicThreadOps == 8);
  CHECK(s.globalTotal().sectors == 13);
  CHECK(s.globalTotal().bytesRequested == 128 + 128 + 32);
  // Global efficiency: in[i] 128 / 128 bytes; in[2*i] 128 / 256 bytes.
  CHECK(globalEfficiency(s.globalOf(MemoryOpKind::Load)) == Approx(100.0));
  CHECK(globalEfficiency(s.globalOf(MemoryOpKind::Store)) == Approx(50.0));
  CHECK(sectorsPerRequest(s.globalOf(MemoryOpKind::Store)) == Approx(8.0));
  // The 12-byte struct: 128 requested, 12 sectors moved.
  Lanes vec3 = lanes([](uint64_t l) { return 0x1000000 + 12 * l; });
  set.recordGlobal(2, vec3.data(), ~0u, 4, MemoryOpKind::Load);
  CHECK(globalEfficiency(set.site(2).globalOf(MemoryOpKind::Load)) == Approx(100.0 / 3.0));

  Lanes s2 = lanes([](uint64_t l) { return 8 * l; }); // s[2*tid]
  set.recordShared(3, s2.data(), ~0u, 4, MemoryOpKind::Load);
  set.recordShared(3, s2.data(), ~0u, 4, MemoryOpKind::Store);
  set.recordShared(3, s2.data(), ~0u, 4, MemoryOpKind::Atomic);
  const SiteCounters &t = set.site(3);
  CHECK(t.sharedOf(MemoryOpKind::Load).steps == 2);
  CHECK(t.sharedOf(MemoryOpKind::Load).conflicts() == 1);
  CHECK(t.sharedOf(MemoryOpKind::Store).conflicts() == 1);
  CHECK(t.sharedOf(MemoryOpKind::Atomic).instructions == 1);
  CHECK(t.sharedTotal().steps == 6);
  CHECK(t.atomicsExecuted == 1);
  CHECK(sharedStepsPerInstruction(t.sharedTotal()) == Approx(2.0));
  // An empty mask records nothing.
  set.recordShared(3, s2.data(), 0, 4, MemoryOpKind::Load);
  CHECK(set.site(3).sharedOf(MemoryOpKind::Load).instructions == 1);
}

TEST_CASE("counter sets follow their configured rules", "[runtime][counters]") {
  // double d[tid] under the half-warp rule: 8 steps, 4 conflicts; in[i+1] under cc1.0: 32.
  CounterSet g80(g80Config(), 2);
  Lanes d = lanes([](uint64_t l) { return 8 * l; });
  g80.recordShared(1, d.data(), ~0u, 8, MemoryOpKind::Load);
  CHECK(g80.site(1).sharedOf(MemoryOpKind::Load).steps == 8);
  CHECK(g80.site(1).sharedOf(MemoryOpKind::Load).conflicts() == 4);
  Lanes shifted = lanes([](uint64_t l) { return 0x1000000 + 4 * (l + 1); });
  g80.recordGlobal(1, shifted.data(), ~0u, 4, MemoryOpKind::Load);
  CHECK(g80.site(1).globalOf(MemoryOpKind::Load).transactions == 32);
  CHECK(g80.site(1).globalOf(MemoryOpKind::Load).requests == 2);
  // Constant reads: per half-warp on cc1.x, per warp later.
  Lanes same = lanes([](uint64_t) { return 0x10; });
  g80.recordConstant(1, same.data(), ~0u);
  CHECK(g80.site(1).constantRequests == 2);
  CHECK(g80.site(1).constantSerialization == 2);
  CounterSet h100(h100Config(), 2);
  h100.recordConstant(1, same.data(), ~0u);
  CHECK(h100.site(1).constantRequests == 1);
  CHECK(h100.site(1).constantSerialization == 1);
  h100.recordShared(1, d.data(), ~0u, 8, MemoryOpKind::Load);
  CHECK(h100.site(1).sharedOf(MemoryOpKind::Load).steps == 2);
}

TEST_CASE("derived figures with nothing counted", "[runtime][counters]") {
  SiteCounters none;
  CHECK(branchEfficiency(none) == Approx(100.0));
  CHECK(divergentBranchPercent(none) == Approx(0.0));
  CHECK(warpExecutionEfficiency(none) == Approx(100.0));
  CHECK(threadsPerWarpInstruction(none) == Approx(0.0));
  CHECK(globalEfficiency(GlobalOpCounters{}) == Approx(100.0));
  CHECK(sectorsPerRequest(GlobalOpCounters{}) == Approx(0.0));
  CHECK(sharedStepsPerInstruction(SharedOpCounters{}) == Approx(0.0));
}

// --- Branches of the GPU's code: a loop by its shape (docs/counters.md) -----------------------

TEST_CASE("loop branches by shape: the measured worked examples", "[runtime][counters]") {
  using S = LoopShapeCode;
  CHECK(loopBranches(S::EveryTest, 8) == 9);   // dotProduct's i /= 2 from 128: entry + 8
  CHECK(loopBranches(S::SkipEntry, 16) == 16); // saxpyGridStride: 16 back-edges
  CHECK(loopBranches(S::Unrolled, 45) == 0);
  CHECK(loopBranches(S::Endless, 170) == 0);
  CHECK(loopBranches(S::Partial4, 31) == 15); // nwDiagonal: 8 exit tests, 7 jumps back
  CHECK(loopBranches(S::Partial4, 32) == 8);
  CHECK(loopBranches(S::Runtime4, 128) == 35);  // nbodyForces: 1 + 1 + 32 + 1 + 0
  CHECK(loopBranches(S::Runtime4, 100) == 28);  // rowSums
  CHECK(loopBranches(S::Runtime4, 7) == 7);     // 1 + 1 + 1 + 1 + 3
  CHECK(loopBranches(S::Runtime4, 3) == 6);     // no 4-wide pass: 3 + 3
  CHECK(loopBranches(S::Runtime4, 0) == 1);     // the entry test alone
  CHECK(loopBranches(S::Runtime16, 256) == 23); // matmulNaive, countAbove
  CHECK(loopBranches(S::Runtime16, 9) == 8);    // 2 + (2 + 0 + 2 + 0) + 1 + 1
  CHECK(loopBranches(S::Runtime16, 2) == 5);
}

TEST_CASE("a branch counts as the source's, the GPU code's, or both", "[runtime][counters]") {
  CounterSet set(h100Config(), 2);
  set.recordBranch(1, 0xffffffffu, 0x0000ffffu, KERN_BRANCH_SOURCE);
  set.recordBranch(1, 0xffffffffu, 0xffffffffu, KERN_BRANCH_SASS);
  set.recordBranch(1, 0xffffffffu, 0x00ff00ffu);
  set.recordUniformBranches(1, 5);
  CHECK(set.site(1).branchesExecuted == 2);
  CHECK(set.site(1).branchesDivergent == 2);
  CHECK(set.site(1).sassBranches == 7);
  CHECK(set.site(1).sassBranchesDivergent == 1);
}

TEST_CASE("counters: the L2 sample's blocks and their neighbours before them", "[counters]") {
  // A 128 x 512 grid: the samples at a quarter, half and three quarters are in the middle of
  // the rows of blocks 16384, 32768 and 49152 (x = 64, away from the grid's edge): 16448,
  // 32832 and 49216, each with the block before it in x and the block a row before it in y.
  const uint32_t grid[3] = {128, 512, 1};
  CHECK(sampleBlock(1, grid) == 16448);
  CHECK(sampleBlock(0, grid) == 0);
  CHECK(l1SampleBlock(32832, grid));
  CHECK_FALSE(l1SampleBlock(32768, grid));
  CHECK(l2SampleRoles(16448, grid) == 2u);
  CHECK(l2SampleRoles(16447, grid) == 32u);
  CHECK(l2SampleRoles(16448 - 128, grid) == 32u);
  CHECK(l2SampleRoles(32832 - 128, grid) == 64u);
  CHECK(l2SampleRoles(49216 - 128, grid) == 128u);
  CHECK(l2SampleRoles(16384, grid) == 0u); // the start of the row: not a neighbour
  CHECK(l2SampleRoles(0, grid) == 0u);     // the first block has no sample role
  // A 1-D grid of 10 blocks: samples 2, 5 and 7, each with the block before it; block 2 is
  // neither, block 4 the neighbour of sample 5, block 6 of sample 7.
  const uint32_t row[3] = {10, 1, 1};
  CHECK(l2SampleRoles(2, row) == 2u);
  CHECK(l2SampleRoles(1, row) == 32u);
  CHECK(l2SampleRoles(4, row) == 64u);
  CHECK(l2SampleRoles(6, row) == 128u);
  CHECK(l2SampleRoles(7, row) == 8u);
  // A 2 x 2 x 2 grid: sample 6 = (0, 1, 1) has neighbours 4 in y and 2 in z.
  const uint32_t cube[3] = {2, 2, 2};
  CHECK((l2SampleRoles(6, cube) & 8u) != 0);
  CHECK((l2SampleRoles(4, cube) & 128u) != 0);
  CHECK((l2SampleRoles(2, cube) & 128u) != 0);
}
