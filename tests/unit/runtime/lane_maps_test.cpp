// The lane maps (sharedLaneMap, globalLaneMap) against the counting rules: on random accesses
// their steps and transactions are the rules', every step serves a lane and every transaction
// one; on the worked examples of HARDWARE-MODEL.md each lane lands where the rules say.
#include "runtime/counter_rules.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <set>

using namespace kern::runtime;

namespace {

using Lanes = std::array<uint64_t, 32>;

Lanes stride(uint64_t base, int64_t bytes) {
  Lanes a{};
  for (int64_t l = 0; l < 32; ++l)
    a[l] = base + static_cast<uint64_t>(bytes * l);
  return a;
}

/// The steps that serve some lane: every step from 0 to steps - 1 must.
std::set<int> roundsUsed(const SharedLaneMap &m, uint32_t mask) {
  std::set<int> used;
  for (int l = 0; l < 32; ++l)
    if ((mask >> l) & 1)
      used.insert(m.round[l]);
  return used;
}

} // namespace

TEST_CASE("shared lane maps give the rule's steps, every step serving a lane", "[runtime][banks]") {
  std::mt19937_64 rng(7);
  const uint32_t sizes[] = {1, 2, 4, 8, 16};
  for (int i = 0; i < 5000; ++i) {
    const SharedBankRule rule = i % 2 ? SharedBankRule::HalfWarp : SharedBankRule::WarpMulticast;
    const uint32_t banks = rule == SharedBankRule::HalfWarp ? 16 : 32;
    const uint32_t size = sizes[rng() % 5];
    const uint32_t mask = rng() % 3 ? ~0u : static_cast<uint32_t>(rng()) | 1u;
    const bool write = rng() % 2;
    Lanes a{};
    const uint64_t range = rng() % 2 ? 64 : 4096;
    for (uint64_t &o : a)
      o = (rng() % range) / size * size;
    const SharedLaneMap m = sharedLaneMap(rule, banks, a.data(), mask, size, write);
    const SharedAccessCost c = sharedAccessCostGeneral(rule, banks, a.data(), mask, size, write);
    INFO("case " << i << " size " << size << " mask " << mask << " write " << write);
    REQUIRE(m.cost.steps == c.steps);
    REQUIRE(m.cost.idealSteps == c.idealSteps);
    // The last step of each wide lane is counted; in a wide access on cc1.x a step can serve
    // only earlier parts, so the rounds used are at least the requests' last steps.
    const std::set<int> used = roundsUsed(m, mask);
    REQUIRE(*used.rbegin() == static_cast<int>(c.steps) - 1);
    if (size <= 4)
      REQUIRE(used.size() == c.steps);
    // Every step serves an active lane, and each lane is served by as many steps as it has
    // 32-bit parts on cc1.x, or at least once on the multicast rule (its words, one bank each).
    uint32_t served[32] = {};
    for (uint32_t step = 0; step < c.steps; ++step) {
      REQUIRE(m.serves[step] != 0);
      REQUIRE((m.serves[step] & ~mask) == 0);
      for (int l = 0; l < 32; ++l)
        served[l] += (m.serves[step] >> l) & 1;
    }
    for (int l = 0; l < 32; ++l)
      if ((mask >> l) & 1 && rule == SharedBankRule::HalfWarp)
        REQUIRE(served[l] == (size > 4 ? size / 4 : 1));
      else if ((mask >> l) & 1)
        REQUIRE(served[l] >= 1);
    for (int l = 0; l < 32; ++l)
      if ((mask >> l) & 1)
        REQUIRE(m.bank[l] == a[l] / 4 % banks);
      else
        REQUIRE(m.round[l] == 255);
  }
}

TEST_CASE("shared lane maps of the worked examples", "[runtime][banks]") {
  // s[2*tid] on 32 banks: lanes 0-15 in step 0 (banks 0, 2 ... 30), lanes 16-31 in step 1.
  Lanes a = stride(0, 8);
  SharedLaneMap m = sharedLaneMap(SharedBankRule::WarpMulticast, 32, a.data(), ~0u, 4, false);
  CHECK(m.cost.steps == 2);
  for (int l = 0; l < 32; ++l) {
    CHECK(m.bank[l] == (2 * l) % 32);
    CHECK(m.round[l] == (l < 16 ? 0 : 1));
  }
  // The same on cc1.x: each half-warp two steps of its own (lanes 0-7, 8-15, 16-23, 24-31).
  m = sharedLaneMap(SharedBankRule::HalfWarp, 16, a.data(), ~0u, 4, false);
  CHECK(m.cost.steps == 4);
  for (int l = 0; l < 32; ++l)
    CHECK(m.round[l] == l / 8);
  // s[32*tid]: 32 steps, one lane each; s[17*tid] and s[3]: one step.
  a = stride(0, 128);
  m = sharedLaneMap(SharedBankRule::WarpMulticast, 32, a.data(), ~0u, 4, false);
  CHECK(m.cost.steps == 32);
  for (int l = 0; l < 32; ++l)
    CHECK((m.bank[l] == 0 && m.round[l] == l));
  a = stride(0, 68);
  CHECK(roundsUsed(sharedLaneMap(SharedBankRule::WarpMulticast, 32, a.data(), ~0u, 4, false),
                   ~0u) == std::set<int>{0});
  a = stride(12, 0);
  CHECK(roundsUsed(sharedLaneMap(SharedBankRule::HalfWarp, 16, a.data(), ~0u, 4, false), ~0u) ==
        std::set<int>{0, 1});
  // s[tid/8] on cc1.x: one broadcast word per step, plus one thread for each other bank, so
  // of each half-warp's second word only the first reader (lane 8, lane 24) is served with
  // the broadcast; the others wait a step.
  for (int l = 0; l < 32; ++l)
    a[l] = 4 * (l / 8);
  m = sharedLaneMap(SharedBankRule::HalfWarp, 16, a.data(), ~0u, 4, false);
  CHECK(m.cost.steps == 4);
  for (int l = 0; l < 32; ++l)
    CHECK(m.round[l] == 2 * (l / 16) + (l % 16 > 8 ? 1 : 0));
  // double d[tid] on cc1.x: two 32-bit requests per half-warp, each 2-way; a lane's last part
  // is served in the second request's steps.
  a = stride(0, 8);
  m = sharedLaneMap(SharedBankRule::HalfWarp, 16, a.data(), ~0u, 8, false);
  CHECK(m.cost.steps == 8);
  CHECK(m.round[0] == 2);
  CHECK(m.round[8] == 3);
  CHECK(m.round[16] == 6);
  CHECK(m.round[31] == 7);
}

TEST_CASE("global lane maps give the rule's transactions, each serving a lane",
          "[runtime][coalescing]") {
  std::mt19937_64 rng(11);
  const GlobalCoalescingRule rules[] = {GlobalCoalescingRule::Cc10, GlobalCoalescingRule::Cc12,
                                        GlobalCoalescingRule::Cc2x, GlobalCoalescingRule::Sectors};
  const uint32_t sizes[] = {1, 2, 4, 8, 16};
  for (int i = 0; i < 5000; ++i) {
    const GlobalCoalescingRule rule = rules[i % 4];
    const uint32_t size = sizes[rng() % 5];
    const uint32_t mask = rng() % 3 ? ~0u : static_cast<uint32_t>(rng()) | 1u;
    const bool write = rng() % 2;
    Lanes a{};
    const int64_t step = static_cast<int64_t>(rng() % 5) * size;
    for (int l = 0; l < 32; ++l)
      a[l] = rng() % 4 ? (1u << 20) + static_cast<uint64_t>(step * l)
                       : (1u << 20) + (rng() % 8192) / size * size;
    const GlobalLaneMap m = globalLaneMap(rule, a.data(), mask, size, write);
    const GlobalAccessCost c = globalAccessCost(rule, a.data(), mask, size, write);
    INFO("case " << i << " rule " << int(rule) << " size " << size << " mask " << mask);
    REQUIRE(m.transactionCount == c.transactions);
    uint64_t bytes = 0;
    for (uint32_t t = 0; t < m.transactionCount; ++t)
      bytes += m.transactionBytes[t];
    REQUIRE(bytes == c.bytesMoved);
    std::set<int> used;
    for (int l = 0; l < 32; ++l) {
      if (!((mask >> l) & 1)) {
        REQUIRE(m.transaction[l] == 255);
        continue;
      }
      const uint32_t t = m.transaction[l];
      REQUIRE(t < m.transactionCount);
      // The lane's first byte lies in its transaction.
      REQUIRE(a[l] >= m.transactionStart[t]);
      REQUIRE(a[l] < m.transactionStart[t] + m.transactionBytes[t]);
      used.insert(static_cast<int>(t));
    }
    // Every transaction serves a lane (the lanes are aligned, so none spans two sectors), but
    // on cc1.0, where a coalesced 16-byte half-warp takes two 128 B transactions for lanes 0-7
    // and 8-15 whatever their mask.
    if (rule != GlobalCoalescingRule::Cc10)
      REQUIRE(used.size() == m.transactionCount);
  }
}

TEST_CASE("global lane maps of the worked examples", "[runtime][coalescing]") {
  // in[i+1] on gt200: 128 + 64 + 32 B: lanes 0-15 in 128 B at 256, lanes 16-30 in the upper
  // 64 B of that segment, lane 31 in 32 B at 384.
  Lanes a = stride(256 + 4, 4);
  GlobalLaneMap m = globalLaneMap(GlobalCoalescingRule::Cc12, a.data(), ~0u, 4, false);
  REQUIRE(m.transactionCount == 3);
  CHECK(m.transactionBytes[0] == 128);
  CHECK(m.transactionStart[0] == 256);
  CHECK(m.transaction[0] == 0);
  CHECK(m.transaction[15] == 0);
  CHECK(m.transactionBytes[1] == 64);
  CHECK(m.transactionStart[1] == 320);
  CHECK(m.transaction[16] == 1);
  CHECK(m.transaction[30] == 1);
  CHECK(m.transactionBytes[2] == 32);
  CHECK(m.transactionStart[2] == 384);
  CHECK(m.transaction[31] == 2);
  // in[i] on g80: one 64 B transaction per half-warp; in[i+1]: one per lane.
  a = stride(256, 4);
  m = globalLaneMap(GlobalCoalescingRule::Cc10, a.data(), ~0u, 4, false);
  REQUIRE(m.transactionCount == 2);
  CHECK((m.transaction[15] == 0 && m.transaction[16] == 1 && m.transactionBytes[1] == 64));
  a = stride(260, 4);
  m = globalLaneMap(GlobalCoalescingRule::Cc10, a.data(), ~0u, 4, false);
  CHECK(m.transactionCount == 32);
  // in[i] on h100: 4 sectors of 8 lanes; in[32*i]: a sector per lane.
  a = stride(256, 4);
  m = globalLaneMap(GlobalCoalescingRule::Sectors, a.data(), ~0u, 4, false);
  REQUIRE(m.transactionCount == 4);
  for (int l = 0; l < 32; ++l)
    CHECK(m.transaction[l] == l / 8);
  a = stride(256, 128);
  CHECK(globalLaneMap(GlobalCoalescingRule::Sectors, a.data(), ~0u, 4, false).transactionCount ==
        32);
}
