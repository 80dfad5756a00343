// The rules of atomics (counter_rules.h): how many passes a warp's global atomic takes, and
// what a shared atomic costs the banks, as measured on an H200 (docs/atomics.md).
#include "runtime/counter_rules.h"

#include <algorithm>
#include <array>
#include <bit>

namespace kern::runtime {

namespace {

constexpr uint32_t kWarpSize = 32;
constexpr uint64_t kWordBytes = 4;
constexpr uint64_t kSectorBytes = 32;

} // namespace

AtomicForm atomicFormOf(uint32_t flags) {
  if (flags & KERN_ACCESS_ATOMIC_INC1)
    return AtomicForm::Increment;
  if (flags & KERN_ACCESS_ATOMIC_CAS)
    return AtomicForm::CompareSwap;
  if (flags & KERN_ACCESS_ATOMIC_FLOAT)
    return AtomicForm::FloatAdd;
  return AtomicForm::Plain;
}

namespace {

/// Calls f(sector, most, units) for each sector the active lanes touch, in address order:
/// `most` is the most lanes on one of its addresses (its passes), `units` its L2 work.
template <typename F> void forEachAtomicSector(const uint64_t *addresses, uint32_t mask, F &&f) {
  // Sorted, the lanes on one address are a run, and the addresses of one sector a run of runs.
  std::array<uint64_t, kWarpSize> a;
  uint32_t n = 0;
  bool ascending = true; // (bins[threadIdx.x]: already in order)
  for (uint32_t m = mask; m != 0; m &= m - 1, ++n) {
    a[n] = addresses[std::countr_zero(m)];
    ascending = ascending && (n == 0 || a[n] >= a[n - 1]);
  }
  if (!ascending)
    std::sort(a.begin(), a.begin() + n);
  for (uint32_t i = 0; i < n;) {
    const uint64_t sector = a[i] / kSectorBytes;
    // lanesOf[j]: how many of the sector's addresses have more than j lanes (pass j's lanes).
    std::array<uint8_t, kWarpSize> lanesOf{};
    uint32_t most = 0;
    while (i < n && a[i] / kSectorBytes == sector) {
      uint32_t j = i;
      while (j < n && a[j] == a[i])
        ++j;
      for (uint32_t p = 0; p < j - i; ++p)
        ++lanesOf[p];
      most = std::max(most, j - i);
      i = j;
    }
    uint32_t units = 0;
    for (uint32_t p = 0; p < most; ++p)
      units += lanesOf[p] > 1 ? 2 : 1;
    f(sector, most, units);
  }
}

} // namespace

GlobalAtomicCost globalAtomicCost(const uint64_t *addresses, uint32_t activeMask) {
  GlobalAtomicCost cost;
  forEachAtomicSector(addresses, activeMask, [&](uint64_t sector, uint32_t passes, uint32_t units) {
    cost.passes += passes;
    cost.units += units;
    const uint64_t chunk = sector * kSectorBytes / kAtomicChunkBytes;
    if (cost.chunkCount == 0 || cost.chunks[cost.chunkCount - 1].chunk != chunk)
      cost.chunks[cost.chunkCount++] = AtomicChunkPasses{chunk, 0};
    cost.chunks[cost.chunkCount - 1].passes += passes;
  });
  return cost;
}

SharedAccessCost sharedAtomicCost(SharedBankRule rule, uint32_t banks, const uint64_t *off,
                                  uint32_t activeMask, uint32_t accessBytes, AtomicForm form,
                                  bool floatLoop) {
  if (activeMask == 0)
    return {};
  // cc1.x, and the increment that serves one word's lanes together: the rule of writes, where
  // lanes on one word count once.
  if (rule == SharedBankRule::HalfWarp || form == AtomicForm::Increment)
    return sharedAccessCost(rule, banks, off, activeMask, accessBytes, true);
  // Every lane's words, one a wavefront per bank: the busiest bank's lane count.
  std::array<uint32_t, kMaxSharedBanks> lanes{};
  const uint32_t words = accessBytes > kWordBytes ? accessBytes / kWordBytes : 1;
  uint32_t most = 0;
  for (uint32_t m = activeMask; m != 0; m &= m - 1) {
    const uint64_t first = off[std::countr_zero(m)] / kWordBytes;
    for (uint32_t j = 0; j < words; ++j)
      most = std::max(most, ++lanes[(first + j) % banks]);
  }
  const uint32_t phases = words; // a conflict-free access of `words` words a lane
  SharedAccessCost cost;
  cost.requests = 1;
  cost.steps = std::max(most, phases);
  cost.idealSteps = phases;
  if (form == AtomicForm::CompareSwap) {
    // Two wavefronts a pass; the conflicts are the passes beyond the first.
    cost.idealSteps = cost.steps + phases;
    cost.steps *= 2;
  } else if (form == AtomicForm::FloatAdd && floatLoop) {
    // The loop runs until every lane's swap has gone through: one trip per pass.
    cost.instructions = cost.requests = cost.steps;
    cost.steps *= 2;
    cost.idealSteps = cost.steps;
  }
  return cost;
}

} // namespace kern::runtime
