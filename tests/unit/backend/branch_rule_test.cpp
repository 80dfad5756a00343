// The divergence rule compiled code emits (backend emitBranchSplits) against its one statement,
// abi.h's kern_branch_splits: the emitted IR is JIT-compiled and run for many mask/taken pairs.
#include "backend/abi.h"
#include "backend/checks.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <random>
#include <string>

using namespace kern;

TEST_CASE("compiled code's divergence test is the hardware model's rule", "[backend]") {
  std::string error;
  std::unique_ptr<backend::EmittedBranchRule> rule = backend::compileEmittedBranchRule(error);
  if (!rule)
    FAIL(error);

  // Every pair of 4-lane sets, the edge cases, then random pairs.
  auto agree = [&](uint32_t mask, uint32_t taken) {
    return rule->splits(mask, taken) == kern_branch_splits(mask, taken);
  };
  for (uint32_t mask = 0; mask < 16; ++mask)
    for (uint32_t taken = 0; taken < 16; ++taken)
      CHECK(agree(mask, taken));
  for (uint32_t mask : {0u, 1u, 0x80000000u, 0xFFFFu, 0xFFFF0000u, ~0u})
    for (uint32_t taken : {0u, 1u, 0x80000000u, 0xFFFFu, 0xFFFF0000u, ~0u})
      CHECK(agree(mask, taken));
  std::mt19937 random(12345);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t mask = random(), taken = random();
    if (!agree(mask, taken))
      FAIL("mask " << mask << " taken " << taken);
    // Branches that do not split: taken by every active lane or by none.
    if (!agree(mask, taken | mask) || !agree(mask, taken & ~mask))
      FAIL("one-way branch, mask " << mask << " taken " << taken);
  }
}
