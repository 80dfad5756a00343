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
  /// Instructions the access takes: 1, except a shared atomic that the compiler makes a loop
  /// (sharedAtomicCost, AtomicForm::FloatAdd).
  uint64_t instructions = 1;
  uint64_t conflicts() const { return steps - idealSteps; }
};

/// Banks the rules can handle; real hardware has 16 (cc1.x) or 32.
constexpr uint32_t kMaxSharedBanks = 64;

/// The cost of one warp-level shared access. `byteOffsets` holds 32 lanes' byte offsets within
/// shared memory (all 32 entries may be loaded; only those of lanes set in `activeMask` count);
/// `accessBytes` is 1, 2, 4, 8 or 16; `banks` is 1 to kMaxSharedBanks. Returns all zeros for an
/// empty mask.
SharedAccessCost sharedAccessCost(SharedBankRule rule, uint32_t banks, const uint64_t *byteOffsets,
                                  uint32_t activeMask, uint32_t accessBytes, bool isWrite);

/// sharedAccessCost by the rules' general procedure alone, without the fast paths for common
/// address patterns: the reference the fast paths are tested against.
SharedAccessCost sharedAccessCostGeneral(SharedBankRule rule, uint32_t banks,
                                         const uint64_t *byteOffsets, uint32_t activeMask,
                                         uint32_t accessBytes, bool isWrite);

/// One warp-level shared access lane by lane, by the rule of sharedAccessCostGeneral: which bank
/// each lane's word lies in and which step (wavefront) serves it, for the lane maps of `kern
/// explain` and the HTML report. Inactive lanes have bank and round 255.
struct SharedLaneMap {
  SharedAccessCost cost; ///< what sharedAccessCostGeneral gives
  uint8_t bank[32];      ///< the bank of the lane's first word
  /// The step, 0 to cost.steps - 1 over the whole access, that serves the lane's last word (a
  /// wide access's last part); on HalfWarp the first half-warp's steps come first.
  uint8_t round[32];
  /// For each step, the lanes it serves a word to (a wide access's lane is served in several).
  uint32_t serves[128];
};
SharedLaneMap sharedLaneMap(SharedBankRule rule, uint32_t banks, const uint64_t *byteOffsets,
                            uint32_t activeMask, uint32_t accessBytes, bool isWrite);

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

/// One warp-level global access lane by lane, by the rule of globalAccessCost: the transactions
/// it takes (cc1.x segments, cc2.x lines or segments, sectors later) and which one serves each
/// lane (the first, for a lane whose bytes span two).
struct GlobalLaneMap {
  GlobalAccessCost cost;   ///< what globalAccessCost gives
  uint8_t transaction[32]; ///< per lane, an index into the transactions; 255 if inactive
  uint32_t transactionCount = 0;
  uint64_t transactionStart[64]; ///< each transaction's first byte
  uint32_t transactionBytes[64]; ///< and its size
  void add(uint64_t start, uint32_t bytes) {
    transactionStart[transactionCount] = start;
    transactionBytes[transactionCount++] = bytes;
  }
};
GlobalLaneMap globalLaneMap(GlobalCoalescingRule rule, const uint64_t *addresses,
                            uint32_t activeMask, uint32_t accessBytes, bool isWrite);

/// The cost of one warp-level global access of `accessBytes` (1, 2, 4, 8 or 16) at 32 lanes'
/// `addresses` (only lanes set in `activeMask` are read). `isWrite` matters on cc2.x only,
/// where stores bypass L1; atomics count as writes.
GlobalAccessCost globalAccessCost(GlobalCoalescingRule rule, const uint64_t *addresses,
                                  uint32_t activeMask, uint32_t accessBytes, bool isWrite);

/// What kind of atomic an access is, where the rules of atomics differ by it (backend/abi.h,
/// KERN_ACCESS_ATOMIC_*).
enum class AtomicForm : uint8_t {
  Plain,       ///< any read-modify-write whose rule is not one of those below
  Increment,   ///< atomicAdd(p, 1) whose result is unused (shared: ATOMS.POPC.INC)
  CompareSwap, ///< atomicCAS
  FloatAdd,    ///< a floating-point atomicAdd
};

/// The form kern_rt_count_access's flags name.
AtomicForm atomicFormOf(uint32_t flags);

/// The bytes that decide which L2 unit serves an atomic (docs/timing.md, "Atomics").
constexpr uint64_t kAtomicChunkBytes = 512;

/// Passes of one warp-level global atomic on one 512-byte chunk of memory.
struct AtomicChunkPasses {
  uint64_t chunk = 0; ///< address / kAtomicChunkBytes
  uint32_t passes = 0;
};

/// What one warp-level global atomic (or reduction) costs on the Sectors rule.
struct GlobalAtomicCost {
  /// The lanes on distinct addresses of a 32-byte sector are served in one pass, and lanes on
  /// one address one after another, so a sector takes as many passes as the most lanes on one
  /// of its addresses. The sum over the sectors is what Nsight Compute counts as the
  /// instruction's sectors (l1tex__t_sectors_pipe_lsu_mem_global_op_atom / _red): 32 lanes on
  /// one word take 32 passes, 32 lanes on the 8 words of one sector 4 (docs/atomics.md).
  uint32_t passes = 0;
  /// The L2's work for them (the timing model's atomics limiter): a pass that serves one lane
  /// is 1, a pass that serves several lanes 2 (fitted on an H200: docs/timing.md, "Atomics").
  uint32_t units = 0;
  /// The passes split by chunk, one entry per chunk the active lanes touch: the timing model
  /// charges the most passes any one chunk receives in a launch.
  uint32_t chunkCount = 0;
  AtomicChunkPasses chunks[32];
};

/// The cost of one warp-level global atomic at 32 lanes' `addresses` (only lanes set in
/// `activeMask` are read; lanes' accesses are aligned and at most 16 bytes, so each lies in one
/// sector).
GlobalAtomicCost globalAtomicCost(const uint64_t *addresses, uint32_t activeMask);

/// The cost of one warp-level shared-memory atomic. On cc1.x (HalfWarp) atomics cost what
/// writes cost. From cc2.0 on (WarpMulticast), measured on an H200 (docs/atomics.md):
/// - Plain: the lanes of one bank are served one a wavefront, whether their words differ or
///   not (no multicast): the steps are the most lanes any bank has;
/// - Increment: lanes on one word are served together (ATOMS.POPC.INC), so the steps are the
///   most distinct words any bank has, as for a load;
/// - CompareSwap: twice Plain's wavefronts, with Plain's conflicts;
/// - FloatAdd when `floatLoop` (the compiler's compare-and-swap loop): Plain's steps are the
///   loop's trips, each an instruction of 2 wavefronts, with no bank conflict counted.
SharedAccessCost sharedAtomicCost(SharedBankRule rule, uint32_t banks, const uint64_t *byteOffsets,
                                  uint32_t activeMask, uint32_t accessBytes, AtomicForm form,
                                  bool floatLoop);

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

/// The loop shapes of ir::LoopShape, as compiled code passes them (kern_rt_count_loop).
enum class LoopShapeCode : uint32_t {
  EveryTest = 0,
  SkipEntry = 1,
  Unrolled = 2,
  Partial4 = 3,
  Runtime4 = 4,
  Runtime16 = 5,
  Endless = 6,
};

/// The branch instructions one execution of a loop issues on the GPU when nvcc has given it
/// `shape` and its body runs `trips` times (docs/counters.md, "Branches as the GPU executes
/// them"; measured in the SASS of tests/gpu/realcode):
///  - EveryTest: the entry test and one back-edge per iteration, trips + 1;
///  - SkipEntry: one back-edge per iteration, trips;
///  - Unrolled: none; Endless (a constant true condition): none, its breaks branch;
///  - Partial4 (a constant trip count unrolled by 4): one exit test per 4 iterations, and where
///    4 does not divide the count the exit test sits inside the 4-wide body, so a jump back
///    follows each group but the last: trips / 4, else 2 ceil(trips / 4) - 1 (nwDiagonal's 31
///    steps: 15);
///  - Runtime4 (LLVM's runtime unrolling by 4): the entry test; then whether 4 or more remain;
///    one back-edge per 4 iterations; the test of the remainder and one back-edge per
///    remainder iteration: 1 + 1 + trips / 4 + 1 + trips % 4 (nbodyForces' 128: 35);
///  - Runtime16 (ptxas unrolls the 4-wide body by 4 again): the main part M = trips - trips % 4
///    takes 2 tests, one back-edge per 16, 2 tests for the 8-wide and 4-wide rests and a
///    back-edge for a 4-wide one (matmulNaive's 256: 23).
/// With fewer than 4 trips both runtime shapes take 3 + trips (entry, the test that skips the
/// main loop, the remainder's test, its back-edges); with none, 1.
constexpr uint64_t loopBranches(LoopShapeCode shape, uint64_t trips) {
  switch (shape) {
  case LoopShapeCode::EveryTest:
    return trips + 1;
  case LoopShapeCode::SkipEntry:
    return trips;
  case LoopShapeCode::Unrolled:
  case LoopShapeCode::Endless:
    return 0;
  case LoopShapeCode::Partial4:
    return trips % 4 == 0 ? trips / 4 : 2 * ((trips + 3) / 4) - 1;
  case LoopShapeCode::Runtime4:
  case LoopShapeCode::Runtime16: {
    if (trips == 0)
      return 1;
    if (trips < 4)
      return 3 + trips;
    const uint64_t main = trips - trips % 4;
    const uint64_t body =
        shape == LoopShapeCode::Runtime4 ? main / 4 : 2 + main / 16 + 2 + (main % 16) % 8 / 4;
    return 2 + body + 1 + trips % 4;
  }
  }
  return trips + 1;
}

/// The divergence verdict of one executed branch.
struct BranchCost {
  bool divergent = false;
};

constexpr BranchCost branchCost(uint32_t mask, uint32_t taken) {
  return BranchCost{isDivergent(mask, taken)};
}

} // namespace kern::runtime
