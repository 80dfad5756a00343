// Unit tests of the rules of atomics (runtime/counter_rules_atomics.cpp): the worked examples of
// docs/atomics.md, each a pattern measured with Nsight Compute on an H200
// (tests/gpu/atomics/results/h200), and the counters they feed.
#include "runtime/counters.h"

#include <catch2/catch.hpp>

#include <array>
#include <functional>

using namespace kern::runtime;

namespace {

/// Lane l's address: `base` + 4 x word(l).
std::array<uint64_t, 32> words(const std::function<int64_t(int)> &word, uint64_t base = 4096) {
  std::array<uint64_t, 32> a{};
  for (int l = 0; l < 32; ++l)
    a[l] = base + 4 * static_cast<uint64_t>(word(l));
  return a;
}

SharedAccessCost shared(const std::array<uint64_t, 32> &off, AtomicForm form, uint32_t mask = ~0u) {
  return sharedAtomicCost(SharedBankRule::WarpMulticast, 32, off.data(), mask, 4, form, true);
}

} // namespace

TEST_CASE("atomics: a global atomic's passes are the sum over its sectors of the most lanes on "
          "one address",
          "[runtime][atomics]") {
  // docs/atomics.md, table 1 (the H200's l1tex__t_sectors_pipe_lsu_mem_global_op_red counts).
  auto passes = [](const std::function<int64_t(int)> &w, uint32_t mask = ~0u) {
    return globalAtomicCost(words(w).data(), mask).passes;
  };
  CHECK(passes([](int l) { return l; }) == 4);                        // distinct
  CHECK(passes([](int) { return 0; }) == 32);                         // one word
  CHECK(passes([](int l) { return l / 2; }) == 4);                    // pairs: 2 sectors x 2
  CHECK(passes([](int l) { return l / 4; }) == 4);                    // 8 words x 4 lanes
  CHECK(passes([](int l) { return l / 16; }) == 16);                  // 2 words x 16
  CHECK(passes([](int l) { return l % 3; }) == 11);                   // 11, 11, 10 lanes
  CHECK(passes([](int l) { return l * 8; }) == 32);                   // a sector a lane
  CHECK(passes([](int l) { return (l % 4) * 8; }) == 32);             // 4 sectors x 8
  CHECK(passes([](int l) { return l < 8 ? 0 : (l - 7) * 8; }) == 32); // 8 + 24 sectors
  CHECK(passes([](int l) { return l < 8 ? 0 : 1 + l % 7; }) == 8);    // one sector, 8 hot
  CHECK(passes([](int l) { return l; }, 0x55555555u) == 4);           // half the lanes
  CHECK(passes([](int l) { return l == 5 ? 7 : 0; }, 1u << 5) == 1);  // one lane
  // 8-byte lanes: 32 of them fill 8 sectors.
  std::array<uint64_t, 32> d{};
  for (int l = 0; l < 32; ++l)
    d[l] = 4096 + 8 * static_cast<uint64_t>(l);
  CHECK(globalAtomicCost(d.data(), ~0u).passes == 8);
}

TEST_CASE("atomics: the L2's work is a unit a one-lane pass and two a pass of several lanes",
          "[runtime][atomics]") {
  auto units = [](const std::function<int64_t(int)> &w) {
    return globalAtomicCost(words(w).data(), ~0u).units;
  };
  CHECK(units([](int l) { return l * 8; }) == 32); // 32 passes of one lane
  CHECK(units([](int) { return 0; }) == 32);       // 32 passes of one lane
  CHECK(units([](int l) { return l; }) == 8);      // 4 passes of 8 lanes
  CHECK(units([](int l) { return l / 8; }) == 16); // 8 passes of 4 lanes (4 words)
  // Sector 0: a pass of 7 lanes and one of the second lane on word 0 (3); 3 more sectors of a
  // pass of 8 lanes each (6).
  CHECK(units([](int l) { return l < 2 ? 0 : l; }) == 9);
}

TEST_CASE("atomics: passes split by 512-byte chunk", "[runtime][atomics]") {
  // Lanes 0..15 on word 0 (chunk 8 of base 4096), lanes 16..31 a sector each from 512 bytes on.
  const auto a = words([](int l) { return l < 16 ? 0 : 128 + (l - 16) * 8; });
  const GlobalAtomicCost cost = globalAtomicCost(a.data(), ~0u);
  const AtomicChunkPasses *chunks = cost.chunks;
  const uint32_t n = cost.chunkCount;
  REQUIRE(n == 2);
  CHECK(chunks[0].chunk == 8);
  CHECK(chunks[0].passes == 16);
  CHECK(chunks[1].chunk == 9);
  CHECK(chunks[1].passes == 16);
}

TEST_CASE("atomics: shared atomics serialise the lanes of a bank, even on one word",
          "[runtime][atomics]") {
  // docs/atomics.md, table 2 (the H200's l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom).
  auto steps = [](const std::function<int64_t(int)> &w, AtomicForm f = AtomicForm::Plain) {
    return shared(words(w, 0), f).steps;
  };
  CHECK(steps([](int l) { return l; }) == 1);
  CHECK(steps([](int) { return 0; }) == 32);
  CHECK(steps([](int l) { return l / 2; }) == 2);
  CHECK(steps([](int l) { return l * 8; }) == 8);        // 4 banks, 8 words each
  CHECK(steps([](int l) { return (l % 4) * 8; }) == 8);  // 4 words, 8 lanes each
  CHECK(steps([](int l) { return (l % 16) * 8; }) == 8); // a bank: 4 words x 2 lanes
  CHECK(steps([](int l) { return l < 8 ? 0 : (l - 7) * 8; }) == 14);
  CHECK(shared(words([](int) { return 0; }, 0), AtomicForm::Plain).conflicts() == 31);
  // atomicAdd(p, 1) with the result unused serves one word's lanes at once (ATOMS.POPC.INC).
  CHECK(steps([](int) { return 0; }, AtomicForm::Increment) == 1);
  CHECK(steps([](int l) { return (l % 16) * 8; }, AtomicForm::Increment) == 4);
  CHECK(steps([](int l) { return l < 8 ? 0 : (l - 7) * 8; }, AtomicForm::Increment) == 7);
  // atomicCAS: two wavefronts a pass, the conflicts of the passes.
  const SharedAccessCost cas = shared(words([](int) { return 0; }, 0), AtomicForm::CompareSwap);
  CHECK(cas.steps == 64);
  CHECK(cas.conflicts() == 31);
  CHECK(shared(words([](int l) { return l; }, 0), AtomicForm::CompareSwap).steps == 2);
  // A float add is a compare-and-swap loop: a trip per pass, 2 wavefronts each, no conflict.
  const SharedAccessCost fadd = shared(words([](int l) { return l * 8; }, 0), AtomicForm::FloatAdd);
  CHECK(fadd.instructions == 8);
  CHECK(fadd.steps == 16);
  CHECK(fadd.conflicts() == 0);
}

TEST_CASE("atomics: the counters keep reductions apart and count a warp-aggregated add once",
          "[runtime][atomics]") {
  CounterConfig config;
  config.warpAggregatedAtomics = true;
  CounterSet set(config, 4);
  const auto same = words([](int) { return 0; });
  set.recordGlobal(1, same.data(), ~0u, 4, MemoryOpKind::Reduction);
  set.recordGlobal(2, same.data(), ~0u, 4, MemoryOpKind::Atomic);
  const SiteCounters &red = set.site(1), &atom = set.site(2);
  CHECK(red.globalOf(MemoryOpKind::Reduction).sectors == 32);
  CHECK(red.globalOf(MemoryOpKind::Reduction).requests == 1);
  CHECK(red.globalOf(MemoryOpKind::Atomic).instructions == 0);
  CHECK(atom.globalOf(MemoryOpKind::Atomic).sectors == 32);
  CHECK(red.atomicUnits == 32);
  CHECK(red.atomicThreadOps == 32);
  // Efficiencies stay in range however many passes the lanes take.
  CHECK(globalEfficiency(red.globalOf(MemoryOpKind::Reduction)) <= 100.0);
}
