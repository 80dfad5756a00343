// busiestBankOf32 (the AVX-512 path where the CPU has it) against its scalar twin and the
// multicast rule's general procedure, on histogram-like accesses: random words of a table,
// hot words, random masks, and spans past the procedure's window.
#include "runtime/bank_rows.h"
#include "runtime/counter_rules.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <random>

using namespace kern::runtime;

TEST_CASE("busiestBankOf32: a worked example", "[runtime][banks]") {
  std::array<uint64_t, 32> off{};
  // Lanes 0-3 on words 0, 32, 64 and 32 again (bank 0: three distinct words), the rest on
  // words 1-28 (one each); lanes 30 and 31 inactive but pointing at bank 0.
  off[0] = 0;
  off[1] = 32 * 4;
  off[2] = 64 * 4;
  off[3] = 32 * 4;
  for (int l = 4; l < 32; ++l)
    off[l] = uint64_t(l - 3) * 4;
  off[30] = off[31] = 96 * 4;
  const uint32_t mask = 0x3FFFFFFFu;
  CHECK(busiestBankOf32(off.data(), mask) == 3);
  CHECK(busiestBankOf32Scalar(off.data(), mask) == 3);
  CHECK(busiestBankOf32(off.data(), ~0u) == 4); // lanes 30 and 31: word 96, bank 0
  // Bytes of one word are that word: lanes 1 and 3 on bytes 2 and 1 of word 0 leave bank 0
  // two distinct words (0 and 64).
  off[1] = 2;
  off[3] = 1;
  CHECK(busiestBankOf32(off.data(), mask) == 2);
  CHECK(busiestBankOf32Scalar(off.data(), mask) == 2);
  // The window is rows 0-31 when the first active lane is in row 0 (15 below it are none): a
  // word in row 40 is past it, the caller's general procedure counts it.
  off[5] = 40 * 32 * 4;
  CHECK(busiestBankOf32(off.data(), mask) == UINT32_MAX);
  CHECK(busiestBankOf32Scalar(off.data(), mask) == UINT32_MAX);
  CHECK(busiestBankOf32(off.data(), 0) == 0);
}

TEST_CASE("busiestBankOf32 agrees with the general rule on 20,000 random histogram accesses",
          "[runtime][banks]") {
  INFO("vectorised: " << busiestBankOf32Vectorised());
  std::mt19937_64 rng(20261201);
  auto below = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  const uint32_t sizes[] = {1, 2, 4};
  int windowed = 0;
  for (int i = 0; i < 20000; ++i) {
    const uint32_t size = sizes[below(3)];
    const uint64_t tableWords = 1 + below(below(4) == 0 ? 4096 : 512);
    const uint64_t base = 4 * below(3000);
    const uint32_t mask = below(3) == 0 ? ~0u : static_cast<uint32_t>(rng()) | (1u << below(32));
    const uint64_t hot = below(tableWords);
    std::array<uint64_t, 32> off{};
    for (auto &o : off) {
      const uint64_t word = below(4) == 0 ? hot : below(tableWords);
      o = base + word * 4 + size * below(4 / size);
    }
    INFO("case " << i << " size " << size << " mask " << mask << " table " << tableWords);
    const uint32_t fast = busiestBankOf32(off.data(), mask);
    REQUIRE(fast == busiestBankOf32Scalar(off.data(), mask));
    const SharedAccessCost general =
        sharedAccessCostGeneral(SharedBankRule::WarpMulticast, 32, off.data(), mask, size, true);
    if (fast != UINT32_MAX) {
      ++windowed;
      REQUIRE(fast == general.steps);
    }
    const SharedAccessCost whole =
        sharedAccessCost(SharedBankRule::WarpMulticast, 32, off.data(), mask, size, below(2));
    REQUIRE(whole.steps == general.steps);
    REQUIRE(whole.requests == general.requests);
    REQUIRE(whole.idealSteps == general.idealSteps);
  }
  CHECK(windowed > 10000); // most cases take the procedure, the rest the general one
}
