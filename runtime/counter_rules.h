// The GPU memory and divergence rules behind kern's counters, as pure functions of one
// warp-level access: shared-memory bank conflicts, global-memory coalescing, constant-cache
// serialisation and branch divergence, each exactly as HARDWARE-MODEL.md states it.
#pragma once

#include "backend/abi.h"

#include <cstdint>

namespace kern::runtime {

/// How shared memory splits a warp's access among banks (HARDWARE-MODEL.md, "Shared memory
/// banks"). Kept apart from the device profile so that the rules stay testable on their own;
/// the profile's bank rule maps onto this one.
enum class SharedBankRule : uint8_t {
  /// cc1.x (16 banks): each half-warp is its own request; reads have one broadcast word per
  /// step, writes none; accesses wider than 32 bits are split into 32-bit requests.
  HalfWarp,
  /// cc2.0 and later (32 banks): one request per warp, any number of lanes may read one word;
  /// 64-bit accesses go in 2 phases of 16 lanes, 128-bit in 4 phases of 8 lanes.
  WarpMulticast,
};

/// How global memory turns a warp's access into transactions (HARDWARE-MODEL.md, "Global
/// memory coalescing").
enum class GlobalCoalescingRule : uint8_t {
  Cc10,    ///< g80: per half-warp, all-or-nothing coalescing into one aligned segment
  Cc12,    ///< gt200: per half-warp, segments taken from the lowest pending thread, shrunk
  Cc2x,    ///< fermi: per warp, loads in 128 B L1 lines, stores in 32 B L2 segments
  Sectors, ///< cc3.0 and later: per warp, the distinct 32 B sectors touched
};

/// The cost of one warp-level shared-memory access.
// 64-bit fields although the values are small: a 12-byte struct comes back packed in a
// register, which GCC assembles by storing two 32-bit halves and reloading them as one 64-bit
// word, a store-forwarding stall at every call.
struct SharedAccessCost {
  /// Requests the hardware issues: one per warp on WarpMulticast; on HalfWarp one per
  /// half-warp with an active lane and per 32-bit part of the access (a double is two).
  uint64_t requests = 0;
  /// Steps (Nsight Compute: wavefronts) the banks take to serve the access.
  uint64_t steps = 0;
  /// Steps a conflict-free access of the same width and mask takes: one per request on
  /// HalfWarp, one per phase with an active lane on WarpMulticast.
  uint64_t idealSteps = 0;
  uint64_t conflicts() const { return steps - idealSteps; }
};

/// Banks the rules can handle; real hardware has 16 (cc1.x) or 32.
constexpr uint32_t kMaxSharedBanks = 64;

/// The cost of one warp-level shared access. `byteOffsets` holds 32 lanes' byte offsets within
/// shared memory (only lanes set in `activeMask` are read); `accessBytes` is 1, 2, 4, 8 or 16;
/// `banks` is 1 to kMaxSharedBanks. Returns all zeros for an empty mask.
SharedAccessCost sharedAccessCost(SharedBankRule rule, uint32_t banks, const uint64_t *byteOffsets,
                                  uint32_t activeMask, uint32_t accessBytes, bool isWrite);

/// sharedAccessCost by the rules' general procedure alone, without the fast paths for common
/// address patterns: the reference the fast paths are tested against.
SharedAccessCost sharedAccessCostGeneral(SharedBankRule rule, uint32_t banks,
                                         const uint64_t *byteOffsets, uint32_t activeMask,
                                         uint32_t accessBytes, bool isWrite);

/// The cost of one warp-level global access.
struct GlobalAccessCost {
  /// Requests: one per half-warp with an active lane on cc1.x, one per warp afterwards.
  uint32_t requests = 0;
  /// Memory transactions by the profile's rule: cc1.x and cc2.x transactions, or sectors for
  /// the Sectors rule.
  uint32_t transactions = 0;
  /// Distinct 32-byte sectors the active lanes touch (computed under every rule).
  uint32_t sectors = 0;
  /// Distinct 128-byte lines the active lanes touch (computed under every rule).
  uint32_t lines128 = 0;
  /// The distinct bytes the active lanes access, per request (a byte that several lanes read
  /// counts once, as Nsight Compute's data bytes do): never more than bytesMoved.
  uint64_t bytesRequested = 0;
  /// Bytes the transactions move: their sizes on cc1.x, 128 B lines or 32 B segments on
  /// cc2.x, sectors x 32 on the Sectors rule.
  uint64_t bytesMoved = 0;
  /// Bytes the best access to the same bytes would move, per request: bytesRequested in whole
  /// 32 B sectors (cc1.2 segments, cc2.x stores), 128 B lines (cc2.x loads), or cc1.0's one
  /// coalesced transaction. bytesMoved - bytesIdeal is what the access wastes.
  uint64_t bytesIdeal = 0;
};

/// The cost of one warp-level global access of `accessBytes` (1, 2, 4, 8 or 16) at 32 lanes'
/// `addresses` (only lanes set in `activeMask` are read). `isWrite` matters on cc2.x only,
/// where stores bypass L1; atomics count as writes.
GlobalAccessCost globalAccessCost(GlobalCoalescingRule rule, const uint64_t *addresses,
                                  uint32_t activeMask, uint32_t accessBytes, bool isWrite);

/// The number of times the constant cache serialises one warp-level read: the number of
/// distinct addresses among the active lanes, counted per half-warp and summed when
/// `halfWarp` (cc1.x), per warp otherwise. CUDA Programming Guide 2.0, 5.1.2.3 ("the cost
/// scales linearly with the number of different addresses read by all threads"); CUDA C
/// Programming Guide 3.2, 5.3.2.4 (cc1.x splits a warp's request into its two half-warps; "a
/// request is then split into as many separate requests as there are different memory
/// addresses in the initial request").
uint32_t constantAccessSerialization(bool halfWarp, const uint64_t *addresses, uint32_t activeMask);

/// Whether a warp with active lanes `mask` splits at a branch whose condition holds for
/// `taken`: some active lane goes each way (HARDWARE-MODEL.md, "Divergence"). Lanes outside
/// `mask` (inactive, or beyond the end of a partial last warp) never count. The rule is stated
/// once, in backend/abi.h, where compiled code's inline branch counting sees it too.
constexpr bool isDivergent(uint32_t mask, uint32_t taken) {
  return kern_branch_splits(mask, taken);
}

/// The divergence verdict of one executed branch.
struct BranchCost {
  bool divergent = false;
};

constexpr BranchCost branchCost(uint32_t mask, uint32_t taken) {
  return BranchCost{isDivergent(mask, taken)};
}

} // namespace kern::runtime
