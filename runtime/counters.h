// What a launch counts, per source site and in total: shared and global memory cost, constant
// serialisation, branches and divergence, instructions, barriers and atomics; one lock-free
// CounterSet per worker thread, merged when the launch ends.
#pragma once

#include "runtime/counter_rules.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kern::runtime {

/// A source site (the numbering of ProgramImage::sites; 0 is "no site").
using CounterSiteId = uint32_t;

/// What a memory instruction does. A Reduction is an atomic whose result is unused (the GPU's
/// RED, where an atomic whose result is used is an ATOM).
enum class MemoryOpKind : uint8_t { Load, Store, Atomic, Reduction };
constexpr uint32_t kMemoryOpKinds = 4;
static_assert(kMemoryOpKinds == KERN_ACCESS_OPS);
/// Atomic or Reduction.
constexpr bool isAtomic(MemoryOpKind k) {
  return k == MemoryOpKind::Atomic || k == MemoryOpKind::Reduction;
}

/// Shared-memory cost of the instructions of one kind at one site.
/// The fields, with what each counts, are the rows of backend/counter_fields.def.
struct SharedOpCounters {
#define KERN_SHARED_OP_FIELD(name, what) uint64_t name = 0;
#include "backend/counter_fields.def"
  uint64_t conflicts() const { return steps - idealSteps; }

  SharedOpCounters &operator+=(const SharedOpCounters &o);
  bool operator==(const SharedOpCounters &) const = default;
};

/// Global-memory cost of the instructions of one kind at one site.
struct GlobalOpCounters {
#define KERN_GLOBAL_OP_FIELD(name, what) uint64_t name = 0;
#include "backend/counter_fields.def"

  GlobalOpCounters &operator+=(const GlobalOpCounters &o);
  bool operator==(const GlobalOpCounters &) const = default;
};

/// The classes of warp instructions (ir::InstrClass, in its order; docs/counters.md,
/// "Instruction classes"): SiteCounters::instrInteger... hold them.
constexpr size_t kInstrClasses = KERN_INSTR_CLASSES;

/// Everything counted at one site (or, summed, for a whole launch).
struct SiteCounters {
  SharedOpCounters shared[kMemoryOpKinds]; ///< indexed by MemoryOpKind
  GlobalOpCounters global[kMemoryOpKinds]; ///< indexed by MemoryOpKind
#define KERN_SITE_FIELD(name, what) uint64_t name = 0;
#include "backend/counter_fields.def"

  const SharedOpCounters &sharedOf(MemoryOpKind k) const {
    return shared[static_cast<uint32_t>(k)];
  }
  const GlobalOpCounters &globalOf(MemoryOpKind k) const {
    return global[static_cast<uint32_t>(k)];
  }
  /// The three kinds summed.
  SharedOpCounters sharedTotal() const;
  GlobalOpCounters globalTotal() const;

  SiteCounters &operator+=(const SiteCounters &o);
  bool operator==(const SiteCounters &) const = default;
};

/// Class `k`'s warp instructions (k < kInstrClasses).
uint64_t &instrClass(SiteCounters &c, size_t k);
uint64_t instrClass(const SiteCounters &c, size_t k);
/// "integer", "fp32", "fp64", "special", "conversion", "memory", "control", "other".
const char *instrClassKey(size_t k);

/// The counters of one launch: per site (indexed by site id) and their sum.
struct LaunchCounters {
  SiteCounters total;
  std::vector<SiteCounters> sites;
  /// The most global-atomic passes (GlobalAtomicCost::passes) that one 512-byte chunk of memory
  /// received in the launch: what the L2 serialises (docs/timing.md, "Atomics"). Chunks are
  /// told apart by a hash into kAtomicChunkBuckets buckets, so chunks that share a bucket add
  /// up; a program's total is the largest of its launches'.
  uint64_t atomicHotPasses = 0;
  /// The L1 sample (docs/timing.md, "L1"): in the sampled blocks (l1SampleBlock), the sectors
  /// their global loads asked for, and of those the first touches of each sector in the block,
  /// which miss in the L1 (the rest hit, if the block's data fits there).
  uint64_t l1SampledBlocks = 0, l1SampledSectors = 0, l1SampledMisses = 0;
  /// Of the hits, those on a sector another warp of the block touched first: the warps of a
  /// block run together, so such a hit waits for that warp's miss.
  uint64_t l1SampledConcurrent = 0;
  /// The L2's near re-reads (docs/timing.md, step 4): of the first touches of the sampled
  /// blocks after the first (l2NeighbourSampled), those that the blocks just before them in x,
  /// y or z touched too (l2NeighbourTouches): data another block read a row of blocks ago.
  uint64_t l2NeighbourTouches = 0, l2NeighbourSampled = 0;
  bool operator==(const LaunchCounters &) const = default;
};

/// The L1 sample's block q (0 to 3) of a grid of `grid` blocks (LaunchCounters): the first,
/// and those at a quarter, half and three quarters of the grid, in the middle of their row
/// where the grid has several rows.
uint64_t sampleBlock(uint32_t q, const uint32_t grid[3]);
/// Whether block `linear` is one of them.
bool l1SampleBlock(uint64_t linear, const uint32_t grid[3]);

/// The L2 roles of block `linear` of a grid of `grid` blocks: bit q (1 to 3) when it is the L1
/// sample's block at q quarters of the grid, bit 4 + q when it is that block's neighbour
/// before it in x, y or z (the block with x, y or z one less, the others the same).
uint32_t l2SampleRoles(uint64_t linear, const uint32_t grid[3]);

/// The buckets that count the passes of global atomics per chunk of memory (LaunchCounters).
constexpr uint32_t kAtomicChunkBuckets = 1u << 16;
inline uint32_t atomicChunkBucket(uint64_t chunk) {
  return static_cast<uint32_t>((chunk * 0x9E3779B97F4A7C15ull) >> 48);
}

/// The rules the counters follow, taken from the device profile.
struct CounterConfig {
  SharedBankRule sharedRule = SharedBankRule::WarpMulticast;
  uint32_t sharedBanks = 32;
  GlobalCoalescingRule globalRule = GlobalCoalescingRule::Sectors;
  /// cc1.x: the constant cache serves each half-warp separately.
  bool constantHalfWarp = false;
  /// The compiler makes a shared floating-point atomicAdd a compare-and-swap loop
  /// (sharedAtomicCost).
  bool sharedFloatAtomicLoop = false;
  /// The compiler sums a warp's 32-bit integer atomicAdd at a warp-uniform address whose result
  /// is unused (REDUX) and has one lane add the sum: counted as a one-lane atomic.
  bool warpAggregatedAtomics = false;
  bool operator==(const CounterConfig &) const = default;
};

/// The counters one worker thread gathers. Each worker owns one, so recording takes no lock;
/// the launch merges them at the end. Every counter is a sum of unsigned integers, so the
/// merged result is the same whichever worker ran which block and in whatever order the sets
/// are merged.
class CounterSet {
public:
  /// `siteCount` is the number of site ids (ProgramImage::sites.size()); recording at a site id
  /// beyond it still works but grows the table (an allocation).
  explicit CounterSet(const CounterConfig &config = {}, size_t siteCount = 0);

  const CounterConfig &config() const { return config_; }

  /// One warp-level shared access: 32 lanes' byte offsets within shared memory. Atomics (of
  /// `form`) follow sharedAtomicCost; the GPU counts shared reductions as atomics, and so does
  /// this.
  void recordShared(CounterSiteId site, const uint64_t *offsets, uint32_t mask, uint32_t size,
                    MemoryOpKind kind, AtomicForm form = AtomicForm::Plain);
  /// One warp-level global access: 32 lanes' addresses. Atomics cost what writes cost, and on
  /// the Sectors rule their sectors are their passes (globalAtomicCost), which go to `atomicCost`
  /// when it is given.
  void recordGlobal(CounterSiteId site, const uint64_t *addresses, uint32_t mask, uint32_t size,
                    MemoryOpKind kind, GlobalAtomicCost *atomicCost = nullptr);
  /// One warp-level constant-memory read.
  void recordConstant(CounterSiteId site, const uint64_t *addresses, uint32_t mask);
  /// One warp-level branch: `mask` the active lanes, `taken` the lanes whose condition holds;
  /// `kinds` says which counters it is: KERN_BRANCH_SOURCE (a source-level branch, the
  /// hardware model's), KERN_BRANCH_SASS (a branch instruction of the GPU's code), or both.
  void recordBranch(CounterSiteId site, uint32_t mask, uint32_t taken,
                    uint32_t kinds = KERN_BRANCH_SOURCE | KERN_BRANCH_SASS) {
    if (mask == 0)
      return;
    SiteCounters &c = at(site);
    const bool divergent = isDivergent(mask, taken);
    if (kinds & KERN_BRANCH_SOURCE) {
      ++c.branchesExecuted;
      c.branchesDivergent += divergent;
    }
    if (kinds & KERN_BRANCH_SASS) {
      ++c.sassBranches;
      c.sassBranchesDivergent += divergent;
    }
  }
  /// `n` branch instructions of the GPU's code that no lane left (a loop's tests, by its shape).
  void recordUniformBranches(CounterSiteId site, uint64_t n) {
    if (n)
      at(site).sassBranches += n;
  }
  /// `n` executed operations with `activeLanes` lanes each, attributed to no site.
  void recordInstructions(uint64_t n, uint32_t activeLanes) {
    unattributed_.warpInstructions += n;
    unattributed_.threadInstructions += n * activeLanes;
  }
  /// Totals of warp instructions by class (kInstrClasses of them), of thread instructions, of
  /// memory instructions issued with no lane on and of the ADU's reads, attributed to no site.
  void recordInstructionTotals(const uint64_t *classes, uint64_t threadInstructions,
                               uint64_t idleAccesses, uint64_t aduReads) {
    for (size_t k = 0; k < kInstrClasses; ++k) {
      instrClass(unattributed_, k) += classes[k];
      unattributed_.warpInstructions += classes[k];
    }
    unattributed_.threadInstructions += threadInstructions;
    unattributed_.idleAccesses += idleAccesses;
    unattributed_.aduReads += aduReads;
  }
  /// `n` executed operations with `activeLanes` lanes each, at `site`.
  void recordInstructions(CounterSiteId site, uint64_t n, uint32_t activeLanes) {
    SiteCounters &c = at(site);
    c.warpInstructions += n;
    c.threadInstructions += n * activeLanes;
  }
  /// One warp reaching a barrier.
  void recordBarrier(CounterSiteId site) { ++at(site).barriersExecuted; }

  /// Adds `other` (gathered under the same config) into this set.
  void merge(const CounterSet &other);
  /// Zeroes every counter, keeping the table's size.
  void clear();
  /// Makes the table hold at least `sites` sites.
  void reserveSites(size_t sites) {
    if (sites > sites_.size())
      sites_.resize(sites);
  }

  size_t siteCount() const { return sites_.size(); }
  /// The per-site table (siteCount() entries) that compiled code updates in place; it moves
  /// only when a site beyond siteCount() is recorded.
  SiteCounters *siteData() { return sites_.data(); }
  /// The counters of one site (all zero for a site never recorded).
  const SiteCounters &site(CounterSiteId id) const;
  /// Counters of operations attributed to no site.
  const SiteCounters &unattributed() const { return unattributed_; }
  /// Every site plus the unattributed operations.
  SiteCounters total() const;
  /// The launch's counters: `sites` sized siteCount(), `total` their sum.
  LaunchCounters launchCounters() const;

private:
  SiteCounters &at(CounterSiteId site) {
    if (site >= sites_.size()) [[unlikely]]
      grow(site);
    return sites_[site];
  }
  void grow(CounterSiteId site);

  CounterConfig config_;
  std::vector<SiteCounters> sites_;
  SiteCounters unattributed_;
};

// ---------------------------------------------------------------------------------------------
// Derived figures (HARDWARE-MODEL.md, "Divergence" and "Global memory coalescing")
// ---------------------------------------------------------------------------------------------

/// 100 (branches - divergent) / branches; 100 when no branch ran (nothing diverged).
double branchEfficiency(const SiteCounters &c);
/// computeprof's "divergent branch" figure, 100 divergent / (divergent + branches); 0 when no
/// branch ran.
double divergentBranchPercent(const SiteCounters &c);
/// Active lanes per warp-level instruction (Nsight Compute's
/// smsp__thread_inst_executed_per_inst_executed.ratio); 0 when nothing ran.
double threadsPerWarpInstruction(const SiteCounters &c);
/// Warp execution efficiency in percent: 100 thread instr / (32 warp instr); 100 when nothing
/// ran.
double warpExecutionEfficiency(const SiteCounters &c);
/// Control-flow divergence in percent: 100 - warpExecutionEfficiency.
double controlFlowDivergence(const SiteCounters &c);
/// Global efficiency in percent: 100 bytes requested / bytes moved, 0 to 100 (bytes requested
/// counts each byte once, however many lanes read it); 100 when nothing moved.
double globalEfficiency(const GlobalOpCounters &g);
/// Bytes moved beyond what the best access to the same bytes would move (bytesMoved -
/// bytesIdeal): what an access pattern costs, in bytes (32 per wasted sector).
uint64_t globalWastedBytes(const GlobalOpCounters &g);
/// Sectors per request (Nsight Compute's sectors / requests); 0 without requests.
double sectorsPerRequest(const GlobalOpCounters &g);
/// Shared wavefronts per instruction; 0 without instructions.
double sharedStepsPerInstruction(const SharedOpCounters &s);

} // namespace kern::runtime
