// Global-memory coalescing rules: every worked example of HARDWARE-MODEL.md ("Global memory
// coalescing") under cc1.0, cc1.2 and sectors, cc2.x, misaligned and partial accesses, the
// constant-cache rule, and a brute-force cross-check of sector and line counting.
#include "runtime/counter_rules.h"

#include <catch2/catch.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <set>

using namespace kern::runtime;

namespace {

using Lanes = std::array<uint64_t, 32>;

/// cudaMalloc'd float in[]: 256-byte aligned.
constexpr uint64_t kBase = 0x1000000;

/// The 32 lanes' addresses of warp `warp` of block `block`, blockDim.x = 256:
/// i = blockIdx.x * 256 + threadIdx.x, address = kBase + byteOffset(i).
Lanes warpAddresses(const std::function<uint64_t(uint64_t)> &byteOffset, uint64_t block = 0,
                    uint64_t warp = 0) {
  Lanes a{};
  for (uint64_t lane = 0; lane < 32; ++lane)
    a[lane] = kBase + byteOffset(block * 256 + warp * 32 + lane);
  return a;
}

GlobalAccessCost cost(GlobalCoalescingRule rule, const Lanes &a, uint32_t bytes = 4,
                      uint32_t mask = ~0u, bool write = false) {
  return globalAccessCost(rule, a.data(), mask, bytes, write);
}

/// The warps a worked example is checked on: the rules must give the same answer for each.
const std::array<std::pair<uint64_t, uint64_t>, 3> kWarps{{{0, 0}, {0, 5}, {3, 7}}};

struct Expected {
  uint32_t g80Transactions;
  uint64_t g80Bytes;
  uint32_t gt200Transactions;
  uint64_t gt200Bytes;
  uint32_t h100Sectors;
};

void checkExample(const std::function<uint64_t(uint64_t)> &byteOffset, uint32_t bytes,
                  uint32_t mask, const Expected &e) {
  for (auto [block, warp] : kWarps) {
    INFO("block " << block << " warp " << warp);
    Lanes a = warpAddresses(byteOffset, block, warp);
    GlobalAccessCost g80 = cost(GlobalCoalescingRule::Cc10, a, bytes, mask);
    CHECK(g80.transactions == e.g80Transactions);
    CHECK(g80.bytesMoved == e.g80Bytes);
    CHECK(g80.requests == 2);
    GlobalAccessCost gt200 = cost(GlobalCoalescingRule::Cc12, a, bytes, mask);
    CHECK(gt200.transactions == e.gt200Transactions);
    CHECK(gt200.bytesMoved == e.gt200Bytes);
    GlobalAccessCost h100 = cost(GlobalCoalescingRule::Sectors, a, bytes, mask);
    CHECK(h100.requests == 1);
    CHECK(h100.sectors == e.h100Sectors);
    CHECK(h100.transactions == e.h100Sectors);
    CHECK(h100.bytesMoved == 32ull * e.h100Sectors);
    CHECK(h100.bytesRequested == uint64_t{bytes} * static_cast<uint32_t>(std::popcount(mask)));
  }
}

} // namespace

// --- The worked examples: float in[], all lanes active unless said --------------------------

TEST_CASE("global in[i]: 2 (2 x 64 B) / 2 (2 x 64 B) / 4 sectors", "[runtime][coalescing]") {
  // cc1.0: each half-warp's thread k reads word k of a 64 B segment aligned to 64 B: one 64 B
  // transaction per half. cc1.2: half 0 lies in the lower half of a 128 B segment -> 64 B
  // (both of its 32 B halves are used); half 1 the upper half -> 64 B. Sectors: 128
  // contiguous bytes from a 128-aligned address are 4 sectors.
  checkExample([](uint64_t i) { return 4 * i; }, 4, ~0u, {2, 128, 2, 128, 4});
}

TEST_CASE("global if (i % 32 != 3) x = in[i]: 2 / 2 / 4", "[runtime][coalescing]") {
  // Lane 3 inactive. cc1.0 allows inactive threads in a coalesced access: still 64 B per
  // half. cc1.2: half 0 uses bytes 0-11 and 16-63, both 32 B halves: 64 B. Sectors: sector 0
  // is still touched by lanes 0-2 and 4-7.
  checkExample([](uint64_t i) { return 4 * i; }, 4, ~(1u << 3), {2, 128, 2, 128, 4});
}

TEST_CASE("global in[i+1]: 32 / 3 (128 + 64 + 32 B) / 5", "[runtime][coalescing]") {
  // cc1.0: thread k reads word k+1, not word k: 16 x 32 B per half. cc1.2: half 0 reads
  // bytes 4..67 of segment [0,128): both 64 B halves used, 128 B. Half 1: thread 16 at 68 ->
  // segment [0,128) serves threads 16-30 (bytes 68..127, upper half only: 64 B, both 32 B
  // halves of it used); thread 31 at 128 -> segment [128,256), bytes 128..131: 64 -> 32 B.
  // Sectors: bytes 4..131 span sectors 0..4.
  checkExample([](uint64_t i) { return 4 * (i + 1); }, 4, ~0u, {32, 32 * 32, 3, 224, 5});
}

TEST_CASE("global in[2*i]: 32 / 2 (2 x 128 B) / 8", "[runtime][coalescing]") {
  // cc1.0: thread k reads word 2k: uncoalesced. cc1.2: half 0 reads 16 words spread over
  // [0,128): 128 B; half 1 over [128,256): 128 B. Sectors: bytes 0..251, 8 sectors.
  checkExample([](uint64_t i) { return 4 * 2 * i; }, 4, ~0u, {32, 32 * 32, 2, 256, 8});
}

TEST_CASE("global in[32*i]: 32 / 32 (32 x 32 B) / 32", "[runtime][coalescing]") {
  // Every thread has its own 128 B segment, of which it uses 4 bytes: 128 -> 64 -> 32 B.
  checkExample([](uint64_t i) { return 4 * 32 * i; }, 4, ~0u, {32, 32 * 32, 32, 32 * 32, 32});
}

TEST_CASE("global 12-byte struct v[i].x: 32 / 4 (128 + 64 + 64 + 128 B) / 12",
          "[runtime][coalescing]") {
  // Addresses 12k (a 4-byte member access). cc1.0: uncoalesced. cc1.2, half 0 (12k, k<16):
  // segment [0,128) serves k=0..10 (bytes 0..123, both halves): 128 B; k=11..15 at 132..183
  // lie in the lower half of [128,256) and use both its 32 B halves: 64 B. Half 1: k=16..21
  // at 192..255 are the upper half of [128,256): 64 B; k=22..31 at 264..375 use both halves
  // of [256,384): 128 B. Sectors: bytes 0..375, every sector 0..11 touched (stride 12 < 32).
  checkExample([](uint64_t i) { return 12 * i; }, 4, ~0u, {32, 32 * 32, 4, 384, 12});
}

TEST_CASE("global float4 ((float4*)in)[i]: 4 (4 x 128 B) / 4 / 16", "[runtime][coalescing]") {
  // cc1.0: s = 16, thread k reads word k of a 256 B aligned segment: two 128 B per half.
  // cc1.2: 128 B segments for 16-byte words; each holds 8 threads' float4s, all used.
  // Sectors: 512 contiguous bytes.
  checkExample([](uint64_t i) { return 16 * i; }, 16, ~0u, {4, 512, 4, 512, 16});
}

// --- cc2.x -----------------------------------------------------------------------------------

TEST_CASE("cc2.x: loads in 128 B lines, stores in 32 B segments", "[runtime][coalescing]") {
  auto fermi = [](const Lanes &a, uint32_t bytes, bool write) {
    return cost(GlobalCoalescingRule::Cc2x, a, bytes, ~0u, write);
  };
  Lanes in = warpAddresses([](uint64_t i) { return 4 * i; });
  CHECK(fermi(in, 4, false).transactions == 1);
  CHECK(fermi(in, 4, false).bytesMoved == 128);
  CHECK(fermi(in, 4, true).transactions == 4);
  CHECK(fermi(in, 4, true).bytesMoved == 128);
  CHECK(fermi(in, 4, false).requests == 1);
  // in[i+1]: bytes 4..131 are 2 lines (loads) or 5 segments (stores).
  Lanes shifted = warpAddresses([](uint64_t i) { return 4 * (i + 1); });
  CHECK(fermi(shifted, 4, false).transactions == 2);
  CHECK(fermi(shifted, 4, true).transactions == 5);
  // in[32*i]: 32 lines, 32 segments.
  Lanes strided = warpAddresses([](uint64_t i) { return 128 * i; });
  CHECK(fermi(strided, 4, false).transactions == 32);
  CHECK(fermi(strided, 4, false).bytesMoved == 32 * 128);
  CHECK(fermi(strided, 4, true).bytesMoved == 32 * 32);
  // v[i].x: bytes 0..375, 3 lines.
  CHECK(fermi(warpAddresses([](uint64_t i) { return 12 * i; }), 4, false).transactions == 3);
  // float4: 512 bytes, 4 lines.
  CHECK(fermi(warpAddresses([](uint64_t i) { return 16 * i; }), 16, false).transactions == 4);
}

// --- Beyond the table ------------------------------------------------------------------------

TEST_CASE("cc1.0 needs thread k at word k, cc1.2 does not", "[runtime][coalescing]") {
  // in[i ^ 1]: neighbours swapped within a 64 B segment. cc1.0: 16 transactions per half.
  // cc1.2: one segment per half, lower/upper half of [0,128): 64 B each.
  Lanes a = warpAddresses([](uint64_t i) { return 4 * (i ^ 1); });
  CHECK(cost(GlobalCoalescingRule::Cc10, a).transactions == 32);
  CHECK(cost(GlobalCoalescingRule::Cc12, a).transactions == 2);
  CHECK(cost(GlobalCoalescingRule::Cc12, a).bytesMoved == 128);
  CHECK(cost(GlobalCoalescingRule::Sectors, a).sectors == 4);
  // Reversed: in[31 - lane] reads the same 128 bytes, descending (the sorting path).
  Lanes r = warpAddresses([](uint64_t i) { return 4 * (31 - i % 32); });
  CHECK(cost(GlobalCoalescingRule::Cc10, r).transactions == 32);
  CHECK(cost(GlobalCoalescingRule::Cc12, r).transactions == 2);
  CHECK(cost(GlobalCoalescingRule::Sectors, r).sectors == 4);
  CHECK(cost(GlobalCoalescingRule::Sectors, r).lines128 == 1);
}

TEST_CASE("cc1.x with 8-, 2- and 1-byte words", "[runtime][coalescing]") {
  // double in[i]: cc1.0 one 128 B per half; cc1.2 segment [0,128) fully used, then
  // [128,256): 2 x 128 B. Sectors: 256 bytes = 8.
  Lanes d = warpAddresses([](uint64_t i) { return 8 * i; });
  CHECK(cost(GlobalCoalescingRule::Cc10, d, 8).transactions == 2);
  CHECK(cost(GlobalCoalescingRule::Cc10, d, 8).bytesMoved == 256);
  CHECK(cost(GlobalCoalescingRule::Cc12, d, 8).transactions == 2);
  CHECK(cost(GlobalCoalescingRule::Cc12, d, 8).bytesMoved == 256);
  CHECK(cost(GlobalCoalescingRule::Sectors, d, 8).sectors == 8);
  // short in[i]: cc1.0 never coalesces 2-byte words: 32 x 32 B. cc1.2: 64 B segments; half 0
  // uses bytes 0..31 (lower 32 B), half 1 bytes 32..63 (upper): 2 x 32 B.
  Lanes s = warpAddresses([](uint64_t i) { return 2 * i; });
  CHECK(cost(GlobalCoalescingRule::Cc10, s, 2).transactions == 32);
  CHECK(cost(GlobalCoalescingRule::Cc12, s, 2).transactions == 2);
  CHECK(cost(GlobalCoalescingRule::Cc12, s, 2).bytesMoved == 64);
  CHECK(cost(GlobalCoalescingRule::Sectors, s, 2).sectors == 2);
  // char in[i]: cc1.2 32 B segments, one per half-warp (both the same 32 bytes).
  Lanes c = warpAddresses([](uint64_t i) { return i; });
  CHECK(cost(GlobalCoalescingRule::Cc10, c, 1).transactions == 32);
  CHECK(cost(GlobalCoalescingRule::Cc12, c, 1).transactions == 2);
  CHECK(cost(GlobalCoalescingRule::Cc12, c, 1).bytesMoved == 64);
  CHECK(cost(GlobalCoalescingRule::Sectors, c, 1).sectors == 1);
  CHECK(cost(GlobalCoalescingRule::Sectors, c, 1).bytesRequested == 32);
}

TEST_CASE("global same address and partial masks", "[runtime][coalescing]") {
  // in[0] for all: cc1.0 uncoalesced (thread 1 is not at word 1); cc1.2 one segment per half
  // with 4 bytes used: 128 -> 64 -> 32 B. One sector, one line.
  Lanes same = warpAddresses([](uint64_t) { return 0; });
  CHECK(cost(GlobalCoalescingRule::Cc10, same).transactions == 32);
  CHECK(cost(GlobalCoalescingRule::Cc12, same).transactions == 2);
  CHECK(cost(GlobalCoalescingRule::Cc12, same).bytesMoved == 64);
  CHECK(cost(GlobalCoalescingRule::Sectors, same).sectors == 1);
  CHECK(cost(GlobalCoalescingRule::Sectors, same).lines128 == 1);
  // Only lane 5 of in[i]: word 5 of an aligned segment is still "coalesced" on cc1.0 (64 B);
  // cc1.2 shrinks to 32 B; one half-warp, one request.
  Lanes in = warpAddresses([](uint64_t i) { return 4 * i; });
  GlobalAccessCost g80 = cost(GlobalCoalescingRule::Cc10, in, 4, 1u << 5);
  CHECK(g80.requests == 1);
  CHECK(g80.transactions == 1);
  CHECK(g80.bytesMoved == 64);
  CHECK(cost(GlobalCoalescingRule::Cc12, in, 4, 1u << 5).bytesMoved == 32);
  // No active lane: nothing at all.
  GlobalAccessCost none = cost(GlobalCoalescingRule::Sectors, in, 4, 0);
  CHECK(none.requests == 0);
  CHECK(none.sectors == 0);
  CHECK(none.bytesRequested == 0);
  // Upper half-warp only, in[i+1]: cc1.2 as half 1 of the worked example (64 + 32 B).
  Lanes shifted = warpAddresses([](uint64_t i) { return 4 * (i + 1); });
  CHECK(cost(GlobalCoalescingRule::Cc12, shifted, 4, 0xFFFF0000u).transactions == 2);
  CHECK(cost(GlobalCoalescingRule::Cc12, shifted, 4, 0xFFFF0000u).bytesMoved == 96);
}

TEST_CASE("global misaligned wide accesses count every sector they touch",
          "[runtime][coalescing]") {
  // 16-byte accesses at 8 + 16k span bytes 8..519: sectors 0..16, lines 0..4.
  Lanes a = warpAddresses([](uint64_t i) { return 8 + 16 * i; });
  GlobalAccessCost c = cost(GlobalCoalescingRule::Sectors, a, 16);
  CHECK(c.sectors == 17);
  CHECK(c.lines128 == 5);
  CHECK(c.bytesRequested == 512);
}

TEST_CASE("sector and line counting agrees with a set on pseudo-random accesses",
          "[runtime][coalescing]") {
  uint64_t state = 987654321;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  for (int trial = 0; trial < 3000; ++trial) {
    uint32_t bytes = 1u << (next() % 5);
    uint64_t span = 16 + next() % 4096;
    Lanes a{};
    bool ascending = trial % 4 == 0;
    for (uint32_t l = 0; l < 32; ++l)
      a[l] = kBase + (ascending ? l * (next() % 40) : (next() % span) / bytes * bytes);
    if (ascending)
      for (uint32_t l = 1; l < 32; ++l)
        a[l] = std::max(a[l], a[l - 1]);
    uint32_t mask = trial % 3 == 0 ? ~0u : static_cast<uint32_t>(next());
    std::set<uint64_t> sectors, lines, used;
    for (uint32_t l = 0; l < 32; ++l)
      if (mask >> l & 1)
        for (uint64_t b = a[l]; b < a[l] + bytes; ++b) {
          sectors.insert(b / 32);
          lines.insert(b / 128);
          used.insert(b);
        }
    for (GlobalCoalescingRule rule : {GlobalCoalescingRule::Cc10, GlobalCoalescingRule::Cc12,
                                      GlobalCoalescingRule::Cc2x, GlobalCoalescingRule::Sectors}) {
      GlobalAccessCost c = cost(rule, a, bytes, mask);
      INFO("trial " << trial);
      REQUIRE(c.sectors == sectors.size());
      REQUIRE(c.lines128 == lines.size());
      // Every efficiency lies in 0..100 and no access wastes less than nothing.
      REQUIRE(c.bytesRequested <= c.bytesMoved);
      REQUIRE(c.bytesIdeal <= c.bytesMoved);
      if (rule == GlobalCoalescingRule::Sectors || rule == GlobalCoalescingRule::Cc2x)
        REQUIRE(c.bytesRequested == used.size());
    }
  }
}

TEST_CASE("sector and line counting agrees with a set at every constant stride",
          "[runtime][coalescing]") {
  // The closed forms (same address, contiguous, a unit per lane) and the one-pass count, at
  // strides -64..300 bytes, from aligned and misaligned starts.
  for (int64_t stride = -64; stride <= 300; ++stride)
    for (uint64_t start :
         {uint64_t{0}, uint64_t{4}, uint64_t{16}, uint64_t{28}, uint64_t{100}, uint64_t{120}})
      for (uint32_t bytes : {1u, 2u, 4u, 8u, 16u}) {
        Lanes a{};
        for (uint32_t l = 0; l < 32; ++l)
          a[l] = kBase + 0x10000 + start + stride * static_cast<int64_t>(l);
        std::set<uint64_t> sectors, lines, used;
        for (uint32_t l = 0; l < 32; ++l)
          for (uint64_t b = a[l]; b < a[l] + bytes; ++b) {
            sectors.insert(b / 32);
            lines.insert(b / 128);
            used.insert(b);
          }
        GlobalAccessCost c = cost(GlobalCoalescingRule::Sectors, a, bytes);
        INFO("stride " << stride << " start " << start << " bytes " << bytes);
        REQUIRE(c.sectors == sectors.size());
        REQUIRE(c.lines128 == lines.size());
        REQUIRE(c.bytesRequested == used.size());
      }
}

TEST_CASE("bytes requested count each byte once, and an access wastes what it moves beyond "
          "the best access to the same bytes",
          "[runtime][coalescing]") {
  // Measured with Nsight Compute on an H200 (64 blocks of 256 threads):
  // smsp__sass_data_bytes_mem_global_op_ld is 4 bytes per request for in[blockIdx.x] read by
  // every lane, 64 for in[i/2]; an atomicAdd of one counter by every lane is 4 bytes (op_red and
  // op_atom alike), and so is out[blockIdx.x] stored by lane 0 alone; their ..._per_sector.pct
  // is 12.5, 100, 12.5 and 12.5. Counting lanes x size instead gave 400 % for the first.
  Lanes same = warpAddresses([](uint64_t) { return 0; });
  GlobalAccessCost uniform = cost(GlobalCoalescingRule::Sectors, same);
  CHECK(uniform.bytesRequested == 4);
  CHECK(uniform.bytesMoved == 32);
  CHECK(uniform.bytesIdeal == 32); // one sector is the least any access moves
  GlobalAccessCost atomic = cost(GlobalCoalescingRule::Sectors, same, 4, ~0u, true);
  CHECK(atomic.bytesRequested == 4);
  Lanes pairs = warpAddresses([](uint64_t i) { return 4 * (i / 2); });
  GlobalAccessCost pair = cost(GlobalCoalescingRule::Sectors, pairs);
  CHECK(pair.bytesRequested == 64);
  CHECK(pair.bytesMoved == 64);
  Lanes in = warpAddresses([](uint64_t i) { return 4 * i; });
  GlobalAccessCost one = cost(GlobalCoalescingRule::Sectors, in, 4, 1u, true);
  CHECK(one.bytesRequested == 4);
  CHECK(one.bytesIdeal == one.bytesMoved); // a single lane's store wastes nothing
  // in[2*i]: 128 bytes used of 256 moved; the best access to 128 bytes moves 128.
  Lanes strided = warpAddresses([](uint64_t i) { return 8 * i; });
  GlobalAccessCost s2 = cost(GlobalCoalescingRule::Sectors, strided);
  CHECK(s2.bytesRequested == 128);
  CHECK(s2.bytesMoved - s2.bytesIdeal == 128);
  // cc1.x counts per half-warp. g80: in[0] by every thread does not coalesce (thread 1 is not
  // at word 1): 16 x 32 B per half, where one coalesced 64 B transaction would do.
  GlobalAccessCost g80 = cost(GlobalCoalescingRule::Cc10, same);
  CHECK(g80.bytesRequested == 8); // 4 bytes per half-warp request
  CHECK(g80.bytesMoved == 1024);
  CHECK(g80.bytesIdeal == 128);
  // gt200: one 32 B segment per half, the best there is.
  GlobalAccessCost gt200 = cost(GlobalCoalescingRule::Cc12, same);
  CHECK(gt200.bytesMoved == 64);
  CHECK(gt200.bytesIdeal == 64);
  // fermi: loads in 128 B lines, stores in 32 B segments.
  CHECK(cost(GlobalCoalescingRule::Cc2x, same).bytesIdeal == 128);
  CHECK(cost(GlobalCoalescingRule::Cc2x, same, 4, ~0u, true).bytesIdeal == 32);
}

// --- Constant memory -------------------------------------------------------------------------

TEST_CASE("constant cache serialises distinct addresses", "[runtime][constant]") {
  Lanes same{};
  same.fill(0x2000);
  CHECK(constantAccessSerialization(false, same.data(), ~0u) == 1);
  CHECK(constantAccessSerialization(true, same.data(), ~0u) == 2); // one per half-warp
  Lanes eighth{};
  for (uint32_t t = 0; t < 32; ++t)
    eighth[t] = 0x2000 + 4 * (t / 8);
  CHECK(constantAccessSerialization(false, eighth.data(), ~0u) == 4);
  CHECK(constantAccessSerialization(true, eighth.data(), ~0u) == 4); // 2 + 2
  Lanes tid{};
  for (uint32_t t = 0; t < 32; ++t)
    tid[t] = 0x2000 + 4 * ((t * 7) % 32); // every lane its own address, not in order
  CHECK(constantAccessSerialization(false, tid.data(), ~0u) == 32);
  CHECK(constantAccessSerialization(false, tid.data(), 0xF0u) == 4);
  CHECK(constantAccessSerialization(true, same.data(), 0xFFFFu) == 1);
  CHECK(constantAccessSerialization(false, tid.data(), 0) == 0);
  // Two addresses alternating (not in order): 2.
  Lanes alt{};
  for (uint32_t t = 0; t < 32; ++t)
    alt[t] = 0x2000 + 4 * (t % 2);
  CHECK(constantAccessSerialization(false, alt.data(), ~0u) == 2);
}
