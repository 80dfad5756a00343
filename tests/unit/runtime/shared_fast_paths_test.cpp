// The fast paths of sharedAccessCost (constant strides, runs of lanes under a partial mask,
// half-warps of one word or of one run) against the rules' general procedure, on random
// accesses shaped like the patterns the fast paths take and on random ones that they must
// refuse.
#include "runtime/counter_rules.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <random>

using namespace kern::runtime;

namespace {

using Lanes = std::array<uint64_t, 32>;

/// A random access: mostly the shapes the fast paths recognise (an arithmetic progression over
/// the warp or over each half, a run of active lanes), with some noise so that near misses are
/// covered too.
struct Generator {
  std::mt19937_64 rng{20240611};

  uint64_t below(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); }

  uint32_t mask() {
    switch (below(5)) {
    case 0:
    case 1:
      return ~0u;
    case 2: { // one run of lanes (tid < s)
      const uint32_t first = static_cast<uint32_t>(below(32));
      const uint32_t n = 1 + static_cast<uint32_t>(below(32 - first));
      return (n == 32 ? ~0u : (1u << n) - 1) << first;
    }
    case 3: // one half-warp, or the other
      return below(2) ? 0xFFFFu : 0xFFFF0000u;
    default:
      return static_cast<uint32_t>(rng());
    }
  }

  /// Byte offsets of `size`-byte accesses: per half-warp, base + stride x lane, with strides
  /// in words or bytes, possibly negative, possibly the same in both halves.
  Lanes offsets(uint32_t size) {
    Lanes a{};
    const int64_t unit = below(4) ? 4 : size;
    const auto stride = [&]() -> int64_t {
      const int64_t pick[] = {0, 1, 2, 3, 4, 16, 17, 32, 33, -1, -2};
      return below(5) ? pick[below(std::size(pick))] * unit : static_cast<int64_t>(below(9)) - 4;
    };
    const int64_t s0 = stride();
    const int64_t s1 = below(2) ? s0 : stride();
    const uint64_t base0 = 4096 + below(1024) * (below(2) ? 4 : 1);
    const uint64_t base1 = below(3) == 0 ? base0 : 4096 + below(1024) * 4;
    const bool whole = below(3) == 0; // one progression over the warp
    for (int64_t l = 0; l < 32; ++l) {
      if (whole)
        a[l] = base0 + static_cast<uint64_t>(s0 * l);
      else
        a[l] = l < 16 ? base0 + static_cast<uint64_t>(s0 * l)
                      : base1 + static_cast<uint64_t>(s1 * (l - 16));
    }
    if (below(8) == 0) // a near miss: one lane off the pattern
      a[below(32)] += 4 * (1 + below(3));
    return a;
  }
};

void crossCheck(SharedBankRule rule) {
  Generator g;
  const uint32_t sizes[] = {1, 2, 4, 4, 4, 8, 16};
  const uint32_t bankCounts[] = {16, 32, 32, 24, 64, 7};
  for (int i = 0; i < 10000; ++i) {
    const uint32_t size = sizes[g.below(std::size(sizes))];
    const uint32_t banks = bankCounts[g.below(std::size(bankCounts))];
    const uint32_t mask = g.mask();
    const bool write = g.below(2) == 0;
    Lanes a = g.offsets(size);
    for (uint64_t &o : a) // aligned to the access size, as the hardware requires
      o -= o % size;
    const SharedAccessCost fast = sharedAccessCost(rule, banks, a.data(), mask, size, write);
    const SharedAccessCost general =
        sharedAccessCostGeneral(rule, banks, a.data(), mask, size, write);
    INFO("case " << i << " size " << size << " banks " << banks << " mask " << mask << " write "
                 << write << " lane0 " << a[0] << " lane1 " << a[1] << " lane16 " << a[16]
                 << " lane17 " << a[17]);
    REQUIRE(fast.requests == general.requests);
    REQUIRE(fast.steps == general.steps);
    REQUIRE(fast.idealSteps == general.idealSteps);
  }
}

} // namespace

TEST_CASE("shared fast paths agree with the general rule on 10,000 random cc1.x accesses",
          "[runtime][banks]") {
  crossCheck(SharedBankRule::HalfWarp);
}

TEST_CASE("shared fast paths agree with the general rule on 10,000 random multicast accesses",
          "[runtime][banks]") {
  crossCheck(SharedBankRule::WarpMulticast);
}
