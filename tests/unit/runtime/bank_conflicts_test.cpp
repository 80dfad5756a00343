// Shared-memory bank rules: every worked example of HARDWARE-MODEL.md ("Shared memory banks")
// under the cc1.x half-warp rule and the cc2.0+ multicast rule, the CUDA guides' own examples,
// and a brute-force cross-check of the fast paths.
#include "runtime/counter_rules.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>

using namespace kern::runtime;

namespace {

using Lanes = std::array<uint64_t, 32>;

/// The 32 lanes' byte offsets of an access expression, tid = lane (blockDim.x >= 32, warp 0).
Lanes offsets(const std::function<uint64_t(uint64_t)> &byteOffset) {
  Lanes a{};
  for (uint64_t tid = 0; tid < 32; ++tid)
    a[tid] = byteOffset(tid);
  return a;
}

SharedAccessCost g80(const Lanes &a, uint32_t bytes = 4, uint32_t mask = ~0u, bool write = false) {
  return sharedAccessCost(SharedBankRule::HalfWarp, 16, a.data(), mask, bytes, write);
}

SharedAccessCost h100(const Lanes &a, uint32_t bytes = 4, uint32_t mask = ~0u, bool write = false) {
  return sharedAccessCost(SharedBankRule::WarpMulticast, 32, a.data(), mask, bytes, write);
}

/// A literal, unoptimised reading of the rules, for cross-checking the fast paths.
SharedAccessCost reference(SharedBankRule rule, uint32_t banks, const Lanes &off, uint32_t mask,
                           uint32_t bytes, bool write) {
  SharedAccessCost c;
  uint32_t words = bytes > 4 ? bytes / 4 : 1;
  if (rule == SharedBankRule::WarpMulticast && !write && words > 1) {
    // Wide loads: entries of lanes in order (a lane reading its predecessor's address joins
    // it), 128 bytes of entries a step, counted per half-warp for 128 bits; or more steps where
    // a bank holds more distinct words.
    if (mask == 0)
      return c;
    c.requests = 1;
    uint32_t groups = bytes == 16 ? 2 : 1, per = 128 / bytes, chunks = 0;
    for (uint32_t g = 0; g < groups; ++g) {
      uint32_t entries = 0;
      bool first = true;
      uint64_t last = 0;
      for (uint32_t l = g * 32 / groups; l < (g + 1) * 32 / groups; ++l)
        if (mask >> l & 1) {
          if (first || off[l] != last)
            ++entries;
          first = false;
          last = off[l];
        }
      chunks += (entries + per - 1) / per;
    }
    std::map<uint64_t, std::set<uint64_t>> perBank;
    for (uint32_t l = 0; l < 32; ++l)
      if (mask >> l & 1)
        for (uint32_t j = 0; j < words; ++j)
          perBank[(off[l] / 4 + j) % banks].insert(off[l] / 4 + j);
    uint32_t most = 0;
    for (auto &[b, set] : perBank)
      most = std::max<uint32_t>(most, static_cast<uint32_t>(set.size()));
    c.steps = std::max(chunks, most);
    c.idealSteps = chunks;
    return c;
  }
  if (rule == SharedBankRule::WarpMulticast) {
    if (mask == 0)
      return c;
    c.requests = 1;
    uint32_t per = 32 / words;
    for (uint32_t p = 0; p < words; ++p) {
      std::map<uint64_t, std::set<uint64_t>> perBank;
      bool any = false;
      for (uint32_t l = p * per; l < (p + 1) * per; ++l)
        if (mask >> l & 1) {
          any = true;
          for (uint32_t j = 0; j < words; ++j)
            perBank[(off[l] / 4 + j) % banks].insert(off[l] / 4 + j);
        }
      if (!any)
        continue;
      uint32_t most = 0;
      for (auto &[b, s] : perBank)
        most = std::max<uint32_t>(most, static_cast<uint32_t>(s.size()));
      c.steps += most;
      ++c.idealSteps;
    }
    return c;
  }
  for (uint32_t h = 0; h < 2; ++h) {
    bool any = false;
    for (uint32_t l = 16 * h; l < 16 * h + 16; ++l)
      any = any || (mask >> l & 1);
    if (!any)
      continue;
    for (uint32_t j = 0; j < words; ++j) {
      ++c.requests;
      ++c.idealSteps;
      std::map<uint32_t, uint64_t> word, key; // by lane
      for (uint32_t l = 16 * h; l < 16 * h + 16; ++l)
        if (mask >> l & 1) {
          word[l] = off[l] / 4 + (bytes >= 4 ? j : 0);
          key[l] = bytes < 4 ? off[l] : word[l];
        }
      if (write) {
        std::map<uint64_t, std::set<uint64_t>> perBank;
        for (auto &[l, w] : word)
          perBank[w % banks].insert(key[l]);
        uint32_t most = 0;
        for (auto &[b, s] : perBank)
          most = std::max<uint32_t>(most, static_cast<uint32_t>(s.size()));
        c.steps += most;
        continue;
      }
      // The guide's read procedure: broadcast the lowest pending thread's word, serve one
      // thread of every other bank.
      while (!word.empty()) {
        ++c.steps;
        uint64_t bw = word.begin()->second;
        std::set<uint64_t> banksServed{bw % banks};
        for (auto it = word.begin(); it != word.end();) {
          uint64_t b = it->second % banks;
          if (it->second == bw) {
            it = word.erase(it);
          } else if (!banksServed.count(b)) {
            banksServed.insert(b);
            it = word.erase(it);
          } else {
            ++it;
          }
        }
      }
    }
  }
  return c;
}

void checkSteps(const SharedAccessCost &c, uint32_t steps, uint32_t conflicts) {
  CHECK(c.steps == steps);
  CHECK(c.conflicts() == conflicts);
}

} // namespace

// --- The worked examples, int s[] (4-byte words), all 32 lanes active ------------------------

TEST_CASE("shared s[tid]: 2 (0) on g80/gt200, 1 (0) on fermi..h100", "[runtime][banks]") {
  // Half-warp: words 0..15 fall in banks 0..15, one each: 1 step per half-warp, 2 per warp.
  // Multicast: words 0..31 in banks 0..31: 1 step.
  Lanes a = offsets([](uint64_t t) { return 4 * t; });
  checkSteps(g80(a), 2, 0);
  CHECK(g80(a).requests == 2);
  checkSteps(h100(a), 1, 0);
  CHECK(h100(a).requests == 1);
}

TEST_CASE("shared s[2*tid]: 4 (2) / 2 (1)", "[runtime][banks]") {
  // Half-warp: words 0,2,..,30 -> banks 0,2,..,14, each holding two words (w and w+16):
  // 2 steps per half-warp, 4 per warp, ideal 2. Multicast: words 0..62 step 2 -> banks
  // 0,2,..,30, two words each: 2 steps, ideal 1.
  Lanes a = offsets([](uint64_t t) { return 4 * 2 * t; });
  checkSteps(g80(a), 4, 2);
  checkSteps(h100(a), 2, 1);
}

TEST_CASE("shared s[4*tid]: 8 (6) / 4 (3), the seed's quarter-speed case", "[runtime][banks]") {
  // Half-warp: words 4t, t < 16 -> banks 0,4,8,12, four words each: 4 steps per half.
  // Multicast: words 4t, t < 32 -> banks 0,4,..,28, four words each: 4 steps.
  Lanes a = offsets([](uint64_t t) { return 4 * 4 * t; });
  checkSteps(g80(a), 8, 6);
  checkSteps(h100(a), 4, 3);
}

TEST_CASE("shared s[16*tid]: 32 (30) / 16 (15)", "[runtime][banks]") {
  // Half-warp: every word 16t is in bank 0, 16 distinct words: 16 steps per half.
  // Multicast: 16t mod 32 is 0 or 16: banks 0 and 16 hold 16 distinct words each.
  Lanes a = offsets([](uint64_t t) { return 4 * 16 * t; });
  checkSteps(g80(a), 32, 30);
  checkSteps(h100(a), 16, 15);
}

TEST_CASE("shared s[17*tid]: 2 (0) / 1 (0), padded to an odd stride", "[runtime][banks]") {
  // gcd(17, 16) = gcd(17, 32) = 1: every lane of a half-warp (or warp) has its own bank.
  Lanes a = offsets([](uint64_t t) { return 4 * 17 * t; });
  checkSteps(g80(a), 2, 0);
  checkSteps(h100(a), 1, 0);
}

TEST_CASE("shared s[32*tid]: 32 (30) / 32 (31)", "[runtime][banks]") {
  // Every word 32t is in bank 0 under both rules: 16 distinct per half-warp, 32 per warp.
  Lanes a = offsets([](uint64_t t) { return 4 * 32 * t; });
  checkSteps(g80(a), 32, 30);
  checkSteps(h100(a), 32, 31);
}

TEST_CASE("shared s[3]: 2 (0) / 1 (0), broadcast", "[runtime][banks]") {
  // One word for all: the first step's broadcast word serves the whole half-warp; multicast
  // serves the whole warp.
  Lanes a = offsets([](uint64_t) { return 4 * 3; });
  checkSteps(g80(a), 2, 0);
  checkSteps(h100(a), 1, 0);
}

TEST_CASE("shared s[tid/8]: 4 (2) / 1 (0), two words per half-warp", "[runtime][banks]") {
  // Half-warp 0: threads 0-7 read word 0 (bank 0), threads 8-15 word 1 (bank 1). Step 1
  // broadcasts word 0 (threads 0-7) and serves one address of bank 1 (thread 8); step 2
  // broadcasts word 1 for threads 9-15. 2 steps per half-warp, 4 per warp, ideal 2.
  // Multicast: words 0..3 in banks 0..3, one word per bank: 1 step.
  Lanes a = offsets([](uint64_t t) { return 4 * (t / 8); });
  checkSteps(g80(a), 4, 2);
  checkSteps(h100(a), 1, 0);
}

TEST_CASE("shared double d[tid]: 8 (4) / 2 (0)", "[runtime][banks]") {
  // Half-warp: two 32-bit requests per half-warp, words 2t and 2t+1 (stride 2): each 2-way,
  // so 2 x 2 steps per half-warp, 8 per warp; ideal 1 per request, 4 in all.
  // Multicast: phase 1 is lanes 0-15, words 0..31, one per bank: 1 step; phase 2 likewise.
  Lanes a = offsets([](uint64_t t) { return 8 * t; });
  checkSteps(g80(a, 8), 8, 4);
  CHECK(g80(a, 8).requests == 4);
  checkSteps(h100(a, 8), 2, 0);
  CHECK(h100(a, 8).requests == 1);
  CHECK(h100(a, 8).idealSteps == 2);
}

// --- cc1.x beyond the table ------------------------------------------------------------------

TEST_CASE("cc1.x writes have no broadcast but same-word writes count once", "[runtime][banks]") {
  // s[tid/8] = x: half-warp 0 writes word 0 (bank 0) and word 1 (bank 1); one write per word
  // survives and the two banks work in parallel: 1 step per half, where the read took 2.
  Lanes a = offsets([](uint64_t t) { return 4 * (t / 8); });
  checkSteps(g80(a, 4, ~0u, true), 2, 0);
  // s[3] = x: one word, one surviving write per half-warp.
  checkSteps(g80(offsets([](uint64_t) { return 12; }), 4, ~0u, true), 2, 0);
  // s[(tid % 2) * 16] = x: words 0 and 16, both in bank 0: 2 steps per half-warp.
  Lanes b = offsets([](uint64_t t) { return 4 * 16 * (t % 2); });
  checkSteps(g80(b, 4, ~0u, true), 4, 2);
  // The same pattern read: step 1 broadcasts word 0, bank 0 has no other slot; step 2
  // broadcasts word 16. Also 2 per half-warp.
  checkSteps(g80(b), 4, 2);
  // Strides are the same for reads and writes (all words distinct).
  checkSteps(g80(offsets([](uint64_t t) { return 4 * 2 * t; }), 4, ~0u, true), 4, 2);
}

TEST_CASE("cc1.x read: the broadcast word is the lowest pending thread's", "[runtime][banks]") {
  // After the CUDA 2.0 guide's Figure 5-8 (right): threads 4-7 read one word of bank 5, the
  // others their own banks. Thread 0's word (bank 0) is broadcast first; bank 5 serves one of
  // its four readers (thread 4); step 2 broadcasts bank 5's word for threads 5-7: 2-way.
  Lanes a = offsets([](uint64_t t) { return t >= 4 && t < 8 ? 4 * 5 : 4 * (t + 16); });
  // Threads 0-3: words 16..19 (banks 0..3); 8-15: words 24..31 (banks 8..15).
  SharedAccessCost c = g80(a, 4, 0xFFFFu);
  CHECK(c.steps == 2);
  CHECK(c.conflicts() == 1);
  // When thread 0 is one of bank 5's readers, its word is broadcast first: no conflict.
  Lanes b = a;
  b[0] = 4 * 5;
  CHECK(g80(b, 4, 0xFFFFu).steps == 1);
}

TEST_CASE("cc1.x bytes: char s[tid] conflicts, char s[4*tid] does not", "[runtime][banks]") {
  // The CUDA 2.0 guide, 5.1.2.5: shared[0..3] are in one bank. Half-warp 0 reads bytes 0..15,
  // words 0..3 with four readers each. Step 1: broadcast word 0 (threads 0-3), banks 1, 2, 3
  // serve threads 4, 8, 12. Step 2: word 1 (5-7), threads 9, 13. Step 3: word 2 (10, 11),
  // thread 14. Step 4: thread 15. 4 steps per half, 8 per warp, ideal 2.
  checkSteps(g80(offsets([](uint64_t t) { return t; }), 1), 8, 6);
  checkSteps(g80(offsets([](uint64_t t) { return 4 * t; }), 1), 2, 0);
  // Multicast shares a word among its byte readers: bytes 0..31 are words 0..7, one bank each.
  checkSteps(h100(offsets([](uint64_t t) { return t; }), 1), 1, 0);
  // Writes of different bytes of one word are different writes: 4 per bank, 4 steps per half.
  checkSteps(g80(offsets([](uint64_t t) { return t; }), 1, ~0u, true), 8, 6);
}

TEST_CASE("cc1.x 128-bit: four 32-bit requests per half-warp", "[runtime][banks]") {
  // float4 s[tid]: part j reads words 4t + j, stride 4: 4-way, 4 steps; 4 parts x 2 halves.
  SharedAccessCost c = g80(offsets([](uint64_t t) { return 16 * t; }), 16);
  CHECK(c.requests == 8);
  CHECK(c.idealSteps == 8);
  CHECK(c.steps == 32);
  CHECK(c.conflicts() == 24);
}

TEST_CASE("cc1.x partial masks: a half-warp without active lanes costs nothing",
          "[runtime][banks]") {
  Lanes a = offsets([](uint64_t t) { return 4 * t; });
  SharedAccessCost upper = g80(a, 4, 0xFFFF0000u);
  CHECK(upper.requests == 1);
  CHECK(upper.steps == 1);
  CHECK(upper.idealSteps == 1);
  // s[16*tid] with only threads 0, 1, 2 active: three words of bank 0, 3 steps, ideal 1.
  checkSteps(g80(offsets([](uint64_t t) { return 64 * t; }), 4, 0b111u), 3, 2);
  SharedAccessCost none = g80(a, 4, 0);
  CHECK(none.requests == 0);
  CHECK(none.steps == 0);
  CHECK(none.idealSteps == 0);
}

// --- cc2.0+ beyond the table -----------------------------------------------------------------

TEST_CASE("multicast 128-bit: 4 phases of 8 lanes", "[runtime][banks]") {
  // float4 s[tid]: phase p = lanes 8p..8p+7, words 32p..32p+31, one per bank: 1 step each.
  SharedAccessCost c = h100(offsets([](uint64_t t) { return 16 * t; }), 16);
  CHECK(c.steps == 4);
  CHECK(c.idealSteps == 4);
  CHECK(c.conflicts() == 0);
  // float4 s[2*tid]: lanes 0..7 read words 8t..8t+3: banks 0-3, 8-11, 16-19, 24-27 twice
  // each (t and t+4): 2 steps per phase.
  checkSteps(h100(offsets([](uint64_t t) { return 32 * t; }), 16), 8, 4);
  // Only phase 3 active: ideal 1.
  checkSteps(h100(offsets([](uint64_t t) { return 16 * t; }), 16, 0xFF000000u), 1, 0);
}

TEST_CASE("multicast 64-bit: strided and same-address", "[runtime][banks]") {
  // double d[2*tid]: a phase's 16 lanes read words 4t, 4t+1: lanes t and t+8 share banks.
  checkSteps(h100(offsets([](uint64_t t) { return 16 * t; }), 8), 4, 2);
  // d[0] for all: one entry, one step (measured: tests/gpu/realcode/wide_shared.cu); a store
  // of d[0] by every lane is still 2 phases of 16 lanes.
  checkSteps(h100(offsets([](uint64_t) { return 0; }), 8), 1, 0);
  checkSteps(h100(offsets([](uint64_t) { return 0; }), 8, ~0u, true), 2, 0);
  // d[tid / 2]: pairs of lanes share an entry, 16 entries of 8 bytes: one step.
  checkSteps(h100(offsets([](uint64_t t) { return 8 * (t / 2); }), 8), 1, 0);
  // d[tid % 8]: no lane reads its predecessor's address, 32 entries: two steps.
  checkSteps(h100(offsets([](uint64_t t) { return 8 * (t % 8); }), 8), 2, 0);
}

TEST_CASE("multicast 128-bit loads: entries per half-warp", "[runtime][banks]") {
  // float4 f[0] for all: one entry in each half-warp: 2 steps.
  checkSteps(h100(offsets([](uint64_t) { return 0; }), 16), 2, 0);
  // f[tid % 8]: 16 entries a half-warp, 8 a step: 4 steps.
  checkSteps(h100(offsets([](uint64_t t) { return 16 * (t % 8); }), 16), 4, 0);
  // f[tid / 4]: 4 entries a half-warp: 2 steps.
  checkSteps(h100(offsets([](uint64_t t) { return 16 * (t / 4); }), 16), 2, 0);
}

TEST_CASE("multicast sub-word accesses", "[runtime][banks]") {
  // short s[tid]: 64 bytes, words 0..15: 1 step.
  checkSteps(h100(offsets([](uint64_t t) { return 2 * t; }), 2), 1, 0);
  // char s[32*tid]: word 8t -> banks 0, 8, 16, 24 with 8 distinct words each.
  checkSteps(h100(offsets([](uint64_t t) { return 32 * t; }), 1), 8, 7);
  // Lanes reading different bytes of one word share it, for writes as well.
  checkSteps(h100(offsets([](uint64_t t) { return t % 4; }), 1, ~0u, true), 1, 0);
}

TEST_CASE("multicast partial masks", "[runtime][banks]") {
  Lanes a = offsets([](uint64_t t) { return 4 * 32 * t; });
  checkSteps(h100(a, 4, 0b1111u), 4, 3);
  checkSteps(h100(a, 4, 1u << 31), 1, 0);
  CHECK(h100(a, 4, 0).requests == 0);
}

TEST_CASE("shared fast paths agree with the rules read literally", "[runtime][banks]") {
  // Every constant word stride -40..96 of 4-, 8- and 16-byte accesses, full mask (the fast
  // paths), and the same with one lane off (the general path), for both rules, reads and
  // writes, with the real bank counts and with bank counts unequal to the lanes per request.
  for (int64_t k = -40; k <= 96; ++k)
    for (uint64_t start : {uint64_t{1} << 20, (uint64_t{1} << 20) + 4 * 7})
      for (uint32_t bytes : {4u, 8u, 16u}) {
        Lanes a = offsets([&](uint64_t t) { return start + 4 * (k * static_cast<int64_t>(t)); });
        for (uint32_t mask : {~0u, ~0u ^ (1u << 9)})
          for (bool w : {false, true})
            for (auto rule : {SharedBankRule::HalfWarp, SharedBankRule::WarpMulticast})
              for (uint32_t banks : {8u, 16u, 24u, 32u, 64u}) {
                SharedAccessCost got = sharedAccessCost(rule, banks, a.data(), mask, bytes, w);
                SharedAccessCost want = reference(rule, banks, a, mask, bytes, w);
                INFO("k=" << k << " start=" << start << " bytes=" << bytes << " mask=" << mask
                          << " write=" << w << " banks=" << banks);
                REQUIRE(got.steps == want.steps);
                REQUIRE(got.idealSteps == want.idealSteps);
                REQUIRE(got.requests == want.requests);
              }
      }
}

TEST_CASE("shared general path agrees with the rules on pseudo-random accesses",
          "[runtime][banks]") {
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  for (int trial = 0; trial < 3000; ++trial) {
    uint32_t bytes = 1u << (next() % 5);
    // Small spans make repeated words and banks likely; large ones spread the words over more
    // rows of a bank than a 64-bit row mask holds.
    uint64_t span = 8 + next() % (trial % 4 == 3 ? 32768 : 512);
    Lanes a{};
    for (uint64_t &o : a)
      o = (next() % span) / bytes * bytes;
    uint32_t mask = trial % 3 == 0 ? ~0u : static_cast<uint32_t>(next());
    bool w = next() % 2;
    for (auto [rule, banks] :
         {std::pair{SharedBankRule::HalfWarp, 16u}, std::pair{SharedBankRule::WarpMulticast, 32u},
          std::pair{SharedBankRule::WarpMulticast, 64u},
          std::pair{SharedBankRule::WarpMulticast, 24u}}) {
      SharedAccessCost got = sharedAccessCost(rule, banks, a.data(), mask, bytes, w);
      SharedAccessCost want = reference(rule, banks, a, mask, bytes, w);
      INFO("trial " << trial << " bytes " << bytes << " mask " << mask << " write " << w);
      REQUIRE(got.steps == want.steps);
      REQUIRE(got.idealSteps == want.idealSteps);
      REQUIRE(got.requests == want.requests);
    }
  }
}
