// Checked mode's paths that judge a warp's lanes together (a run of consecutive global
// elements, whole words of shared memory) against the lanes one by one: the same random
// accesses, barriers and blocks through both must give the same findings and leave the same
// race-detector cells and initialisation shadow.
#include "backend/abi.h"
#include "runtime/checked.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace kern::runtime;

namespace {

constexpr uint32_t kSharedBytes = 1024;
constexpr uint32_t kRegionBytes = 256; // 64 words: lanes often meet on one
constexpr uint32_t kGlobalBytes = 4096;
constexpr uint32_t kWarps = 4;

struct Generator {
  std::mt19937_64 rng{20261130};

  uint64_t below(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); }

  uint32_t mask() {
    switch (below(5)) {
    case 0:
    case 1:
      return ~0u;
    case 2: { // one run of lanes (tid < s, a block narrower than a warp)
      const uint32_t first = static_cast<uint32_t>(below(32));
      const uint32_t n = 1 + static_cast<uint32_t>(below(32 - first));
      return (n == 32 ? ~0u : (1u << n) - 1) << first;
    }
    case 3:
      return 1u << below(32);
    default:
      return static_cast<uint32_t>(rng()) | 1u;
    }
  }

  /// Byte offsets in a region of `bytes`: consecutive elements (`consecutive` set), a constant
  /// stride, words picked from a few (so lanes meet), anything (unaligned, split words), or a
  /// 16-wide block's two rows on one tile row or on one element each.
  std::array<uint64_t, 32> offsets(uint32_t size, uint32_t bytes, bool &consecutive) {
    std::array<uint64_t, 32> o{};
    const uint32_t elements = bytes / size;
    const uint64_t shape = below(6);
    consecutive = shape == 0;
    switch (shape) {
    case 0: { // consecutive elements from a base
      const uint64_t base = below(elements - 31);
      for (uint32_t l = 0; l < 32; ++l)
        o[l] = (base + l) * size;
      break;
    }
    case 1: { // a stride of 1 to 4 elements (diagonals, columns)
      const uint64_t stride = 1 + below(4), base = below(elements - 31 * stride);
      for (uint32_t l = 0; l < 32; ++l)
        o[l] = (base + l * stride) * size;
      break;
    }
    case 2: { // a few elements (histogram bins, broadcasts)
      const uint64_t pool = 1 + below(6), base = below(elements - 8);
      for (uint32_t l = 0; l < 32; ++l)
        o[l] = (base + below(pool)) * size;
      break;
    }
    case 3: // anywhere, any alignment
      for (uint32_t l = 0; l < 32; ++l)
        o[l] = below(bytes - size + 1);
      break;
    case 4: { // both half-warps on one run of 16 elements (a tile's row, read by two rows)
      const uint64_t base = below(elements - 15);
      for (uint32_t l = 0; l < 32; ++l)
        o[l] = (base + l % 16) * size;
      break;
    }
    default: { // each half-warp on one element (a tile's row broadcast), or both on one
      const uint64_t a = below(elements), b = below(2) ? a : below(elements);
      for (uint32_t l = 0; l < 32; ++l)
        o[l] = (l < 16 ? a : b) * size;
      break;
    }
    }
    return o;
  }
};

/// One side of the comparison: a checker, its worker, a block's shared memory and global buffer.
struct Side {
  std::vector<uint8_t> global = std::vector<uint8_t>(kGlobalBytes);
  alignas(256) uint8_t shared[kSharedBytes] = {};
  Checker checker{reinterpret_cast<uint64_t>(global.data()), kGlobalBytes};
  CheckedWorker *worker = nullptr;
  KernWarpCtx ctx[kWarps];

  void beginBlock(uint64_t linear) {
    worker = checker.beginLaunch(1)[0];
    const uint32_t idx[3] = {static_cast<uint32_t>(linear), 0, 0};
    const uint32_t dim[3] = {32 * kWarps, 1, 1};
    checkedBlockBegin(worker, linear, idx, dim, kSharedBytes);
    for (uint32_t w = 0; w < kWarps; ++w) {
      std::memset(&ctx[w], 0, sizeof ctx[w]);
      ctx[w].shared = shared;
      ctx[w].sharedSize = kSharedBytes;
      ctx[w].globalLo = reinterpret_cast<uint64_t>(global.data());
      ctx[w].globalHi = ctx[w].globalLo + kGlobalBytes;
      ctx[w].warpId = w;
      for (uint32_t l = 0; l < 32; ++l)
        ctx[w].threadIdx[0][l] = 32 * w + l;
    }
  }
};

bool sameRace(const RaceRecord &a, const RaceRecord &b) {
  return a.blockLinear == b.blockLinear && a.kind == b.kind &&
         a.sameInstruction == b.sameInstruction && a.firstSite == b.firstSite &&
         a.secondSite == b.secondSite && a.firstWarp == b.firstWarp && a.firstLane == b.firstLane &&
         a.secondWarp == b.secondWarp && a.secondLane == b.secondLane &&
         a.firstAtomic == b.firstAtomic && a.secondAtomic == b.secondAtomic && a.offset == b.offset;
}

/// Global addresses are compared as offsets in each side's buffer (`aLo`, `bLo`).
bool sameUninit(const UninitRecord &a, const UninitRecord &b, uint64_t aLo, uint64_t bLo) {
  if (a.blockLinear == UINT64_MAX || b.blockLinear == UINT64_MAX)
    return a.blockLinear == b.blockLinear;
  if (a.shared || b.shared)
    aLo = bLo = 0;
  return a.blockLinear == b.blockLinear && a.thread[0] == b.thread[0] && a.site == b.site &&
         a.addr - aLo == b.addr - bLo && a.size == b.size &&
         a.unwritten - aLo == b.unwritten - bLo && a.atomic == b.atomic && a.shared == b.shared;
}

bool sameCells(const std::vector<SharedCell> &a, const std::vector<SharedCell> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof a[0]) == 0;
}

bool sameCells(const SharedWords &a, const SharedWords &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const SharedCell x = a.get(i), y = b.get(i);
    if (std::memcmp(&x, &y, sizeof x) != 0)
      return false;
  }
  return true;
}

} // namespace

TEST_CASE("checked mode: a warp's lanes judged together find what they find one by one",
          "[checked]") {
  Generator g;
  Side together, lanes;
  uint32_t races = 0, uninits = 0, accesses = 0;
  for (uint64_t block = 0; block < 3000; ++block) {
    together.beginBlock(block);
    lanes.beginBlock(block);
    // Some blocks start by writing all of shared memory, so that their reads are not all
    // reads of never-written memory; in some, each warp keeps to its own region of shared
    // memory, so that they run long without a race.
    const bool prefill = g.below(3) != 0, ownRegions = g.below(3) != 0;
    const uint32_t steps = 4 + static_cast<uint32_t>(g.below(40));
    const uint32_t fills = prefill ? kSharedBytes / 128 : 0; // whole warps storing words
    for (uint32_t step = 0; step < fills + steps; ++step) {
      if ((step >= fills && g.below(4) == 0) || (prefill && step == fills)) {
        checkedBarrier(together.worker);
        checkedBarrier(lanes.worker);
        continue;
      }
      const uint32_t warp = static_cast<uint32_t>(g.below(kWarps));
      const bool fill = step < fills;
      const uint32_t sizes[] = {4, 4, 4, 1, 2, 8};
      const uint32_t size = fill ? 4 : sizes[g.below(6)];
      const uint32_t space =
          fill ? KERN_ACCESS_SHARED : (g.below(3) ? KERN_ACCESS_SHARED : KERN_ACCESS_GLOBAL);
      const uint32_t op = fill ? KERN_ACCESS_STORE : static_cast<uint32_t>(g.below(3));
      const bool generic = space == KERN_ACCESS_GLOBAL && g.below(4) == 0;
      uint32_t mask = fill ? ~0u : g.mask();
      std::array<uint64_t, 64> buf{};
      bool consecutive = false;
      const auto offs =
          g.offsets(size, space == KERN_ACCESS_SHARED ? kRegionBytes : kGlobalBytes, consecutive);
      const uint64_t region = kRegionBytes * (ownRegions ? warp : g.below(kWarps));
      for (uint32_t l = 0; l < 32; ++l) {
        // A generic access: odd lanes in shared memory, the others in global memory.
        const bool inShared = space == KERN_ACCESS_SHARED || (generic && (l & 1));
        buf[l] = fill       ? 128 * step + 4 * l
                 : inShared ? region + offs[l] % (kRegionBytes - size + 1)
                            : offs[l] % (kGlobalBytes - size + 1);
        buf[32 + l] = g.below(3); // values: lanes storing one word often agree
      }
      uint32_t flags = op | space;
      if (op == KERN_ACCESS_STORE && space == KERN_ACCESS_SHARED && g.below(2))
        flags |= KERN_ACCESS_VALUES;
      // What compiled code says of its contiguous accesses (every lane, active or not).
      if ((fill || consecutive) && !generic && g.below(2))
        flags |= KERN_ACCESS_CONTIGUOUS;
      if (fill)
        mask = ~0u;
      for (Side *s : {&together, &lanes}) {
        std::array<uint64_t, 64> addrs = buf;
        for (uint32_t l = 0; l < 32; ++l) {
          const bool inShared = space == KERN_ACCESS_SHARED || (generic && (l & 1));
          addrs[l] += inShared ? reinterpret_cast<uint64_t>(s->shared) : s->ctx[0].globalLo;
        }
        checkAccess(s->worker, &s->ctx[warp], 1 + step, addrs.data(), mask, size,
                    generic ? (flags & ~12u) : flags, s == &lanes);
      }
      ++accesses;
      INFO("block " << block << ", step " << step);
      REQUIRE(sameRace(together.worker->race, lanes.worker->race));
      REQUIRE(sameUninit(together.worker->uninit, lanes.worker->uninit, together.ctx[0].globalLo,
                         lanes.ctx[0].globalLo));
      REQUIRE(together.worker->stamp == lanes.worker->stamp);
    }
    races += together.worker->race.blockLinear != UINT64_MAX;
    uninits += together.worker->uninit.blockLinear != UINT64_MAX;
    INFO("block " << block);
    REQUIRE(sameCells(together.worker->words, lanes.worker->words));
    REQUIRE(sameCells(together.worker->bytes, lanes.worker->bytes));
    REQUIRE(together.worker->split == lanes.worker->split);
    together.checker.endLaunch();
    lanes.checker.endLaunch();
  }
  // Both kinds of findings, and blocks without them, were exercised.
  CHECK(races > 300);
  CHECK(races < 2700);
  CHECK(uninits > 300);
  CHECK(accesses > 30000);
  // The initialisation shadows agree byte for byte.
  for (uint32_t i = 0; i < kGlobalBytes; ++i) {
    const uint64_t a = together.ctx[0].globalLo + i, b = lanes.ctx[0].globalLo + i;
    INFO("global byte " << i);
    REQUIRE(*together.checker.init().at(a) == *lanes.checker.init().at(b));
  }
}
