// The runtime side of counting: one CounterSet per worker for each launch, merged into the
// launch's counters when it ends, plus a sample of each access site's address pattern (its lane
// stride and alignment) for the advisor.
#pragma once

#include "backend/abi.h"
#include "runtime/counters.h"
#include "runtime/device.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kern::runtime {

/// The shape of one warp's address vector at an access site, from one warp that executed it:
/// what the advisor needs to name a pattern ("stride 12 B", "misaligned by 4 B", "one lane").
/// At a branch site, the lanes of one warp that split there (the advisor names the split: a
/// bound on the lane index, alternate lanes, or data).
struct AccessSample {
  /// Orders samples: the warp with the lowest (block linear index, warp index) wins, so the
  /// kept sample is the same for any number of workers. UINT64_MAX: no sample yet.
  uint64_t key = UINT64_MAX;
  uint64_t launch = 0; ///< the launch it came from (set when the program keeps it)
  uint32_t size = 0;   ///< bytes per lane
  uint32_t activeLanes = 0;
  uint32_t mask = 0;        ///< the active lanes
  uint32_t taken = 0;       ///< a branch: the active lanes whose condition held
  bool affine = false;      ///< every active lane's address is base + lane x stride
  int64_t strideBytes = 0;  ///< between consecutive lanes, when affine
  uint64_t firstOffset = 0; ///< the lowest lane's address (shared: its byte offset)
  /// A branch: each time the sample's warp split here, in order (a loop's condition splits at
  /// each iteration where some lanes leave), the first kBranchSplitsKept of them; `splits`
  /// counts them all.
  uint32_t splits = 0;
  uint32_t splitMask[8] = {};
  uint32_t splitTaken[8] = {};
};
inline constexpr uint32_t kBranchSplitsKept = 8;

/// One warp's whole access at a site: what the lane maps draw (`kern explain`, the HTML report).
/// Kept only for the sites being captured (CounterCollector::captureSites). A memo of such a
/// site sends a warp to the runtime when its key is below the site's sample (the first warp)
/// or, for the pattern of the worst warp so far, below the worst's key: the first and the worst
/// warp are then the same for any number of workers.
struct LaneCapture {
  /// The warp (kern_warp_key): the lowest wins among equals. UINT64_MAX: none yet.
  uint64_t key = UINT64_MAX;
  uint64_t launch = 0; ///< the launch's index (set when the launch's captures are merged)
  uint32_t mask = 0;   ///< the active lanes
  uint32_t size = 0;   ///< bytes per lane
  uint32_t flags = 0;  ///< KERN_ACCESS_* (space, operation, atomic form)
  /// What the rules charged the warp: wavefronts (shared), transactions (global), passes (a
  /// global atomic). The worst warp has the most.
  uint64_t cost = 0;
  uint64_t addrs[32] = {}; ///< shared: byte offsets in the block's shared memory
};

/// A site's first warp (the lowest key of the first launch that ran the site) and its worst (the
/// highest cost; among equals the earliest launch, then the lowest key).
struct SiteCapture {
  LaneCapture first, worst;
};

/// Counters of one worker during one launch: the CounterSet and the access samples.
/// KernWarpCtx::counters points at it: `view` must stay its first member (compiled code reads
/// it to update the site table and the memos without a call).
struct WorkerCounters {
  explicit WorkerCounters(const CounterConfig &config, size_t sites);
  KernCounterView view{};
  CounterSet set;
  /// What compiled code adds a warp's instruction counts to (KernCounterView::totals), taken
  /// into `set` at the end of the launch (flushTotals).
  uint64_t totals[KERN_INSTR_TOTALS] = {};
  std::vector<AccessSample> samples; // by site id
  /// By site id: samples[site].key, for compiled code (KernCounterView::sampleKeys); at least
  /// as many as the sites.
  std::vector<uint64_t> sampleKeys;
  void noteSampleKey(uint32_t site, uint64_t key);
  std::vector<KernAccessMemo> memos; // by KERN_ACCESS_OPS x site id + operation
  std::vector<uint32_t> memosSet;    // the memos recordMemo filled (tag set)
  /// Set by a new program: the next reset clears the memos' tags, not only their sample keys.
  bool forgetMemos = false;
  /// By KERN_ACCESS_OPS x site id + operation: the calls of recordMemo in launch `launch` (an
  /// entry of an earlier launch counts as none), and the memo slots filled. A site whose warps
  /// nearly all miss its memos (data-dependent addresses) stops filling them: the fill is then pure
  /// cost.
  struct MemoCalls {
    uint32_t launch = 0, calls = 0;
    uint32_t filled = 0; // the slots filled (by bit), over launches
    /// This launch keeps no more memos of the site op (recordMemo): its calls only count.
    bool givenUp = false;
  };
  std::vector<MemoCalls> memoCalls;
  uint32_t launchStamp = 0;
  /// Shared accesses of site ops that keep no memos (KernCounterView::batch, where compiled
  /// code writes them too), costed a batch at a time (flushBatch; at the latest where the block
  /// ends): one after another, each access's bank rule runs beside the next one's in the CPU,
  /// where alone each would wait for its own. view.batchCount says how many wait.
  std::unique_ptr<KernBatchedAccess[]> batch{new KernBatchedAccess[KERN_BATCH_ACCESSES]};
  void flushBatch();
  /// Sets the tags of a site op's memo slots to KERN_MEMO_BATCH (recordMemo, where it gives
  /// the site op's memos up).
  void batchSiteOp(size_t siteOp);
  /// Passes of global atomics per chunk bucket (atomicChunkBucket); empty until the launch's
  /// first global atomic; atomicChunksUsed when this launch wrote to it.
  std::vector<uint32_t> atomicChunks;
  bool atomicChunksUsed = false;
  /// By site: whether its accesses are captured (CounterCollector::captureSites); captures holds
  /// what this worker captured in this launch.
  const std::vector<uint8_t> *capturing = nullptr;
  std::vector<SiteCapture> captures;
  /// The L1 sample: while a sampled block runs, every global load's sectors are noted
  /// (recordMemo, or kern_rt_sample_load where compiled code counted the load from its memo).
  bool l1Sampling = false;
  /// The sampled block's sectors so far, each with the warp that touched it first and that
  /// warp's count of sampled loads then; and each warp's count so far.
  struct FirstTouch {
    uint32_t warp, load;
  };
  std::unordered_map<uint64_t, FirstTouch> l1Sectors;
  std::vector<uint32_t> l1WarpLoads;
  uint64_t l1Blocks = 0, l1Requested = 0, l1Misses = 0, l1Concurrent = 0;
  /// The block's L2 roles (l2SampleRoles), and whether it is one of the L1 sample's blocks; a
  /// block that is only a neighbour is followed (l1Sampling) but adds nothing to the l1 counts.
  uint32_t l2Roles = 0;
  bool l1Counting = false;
  /// The sectors each block with an L2 role touched (its first touches), with its roles.
  struct RoleSectors {
    uint32_t roles;
    std::vector<uint64_t> sectors;
  };
  std::vector<RoleSectors> l2Blocks;
  /// The blocks of the grid `roleGrid` that have a role (bit 0: the L1 sample's; the rest as
  /// l2SampleRoles), found once per grid rather than per block.
  uint32_t roleGrid[3] = {0, 0, 0};
  std::vector<std::pair<uint64_t, uint32_t>> roleBlocks;
  /// Block `linear` of a grid of `grid` blocks starts (its warps then run on this worker) or
  /// ends.
  void beginBlock(uint64_t linear, const uint32_t grid[3]);
  void endBlock();
  /// Keeps a warp's access at a captured site as its first or worst.
  void capture(uint32_t site, uint64_t key, const uint64_t *addrs, uint32_t mask, uint32_t size,
               uint32_t flags, uint64_t base, uint64_t cost);
  void sample(uint32_t site, uint64_t key, const uint64_t *addrs, uint32_t mask, uint32_t size,
              uint64_t base);
  /// Notes a global load's sectors in the L1 sample (`warp`: the warp of the block that loads).
  void sampleL1(const uint64_t *addrs, uint32_t mask, uint32_t size, uint32_t warp);
  /// Keeps the lanes of a warp that split at branch `site`, as `sample` keeps an access's.
  void sampleBranch(uint32_t site, uint64_t key, uint32_t mask, uint32_t taken);
  /// Clears the counters, samples and memos for a new launch of a module with `sites` sites
  /// (the tables then hold every site compiled code may name).
  void reset(size_t sites);
  /// Points `view` at the current tables (after anything that may have grown them).
  void syncView();
  /// Adds `totals` to `set` and clears them.
  void flushTotals();
  /// Lets warps from the site's sample key on replay the site's memos (those of earlier
  /// launches included).
  void rekeyMemos(uint32_t site);
  /// Records a global or shared access through the rules, and remembers its shape and what
  /// the rules added in the memo of (site, operation) (backend/abi.h).
  void recordMemo(uint32_t site, uint32_t flags, const uint64_t *addrs, uint32_t mask,
                  uint32_t size, uint64_t key, uint64_t sharedBase);
};

/// The counter configuration a device profile implies: its bank rule and bank count, its
/// coalescing rule, and the constant cache's half-warp service on cc1.x.
CounterConfig counterConfigFor(const DeviceProfile &profile);

/// Everything counted in one program run. The runtime calls beginLaunch / endLaunch around
/// each launch that runs; launches that fail before running have empty counters.
class CounterCollector {
public:
  /// Prepares one WorkerCounters per worker (reused from launch to launch) and returns the
  /// array that LaunchConfig::workerCounters points KernWarpCtx::counters into.
  void *const *beginLaunch(const DeviceProfile &profile, size_t siteCount, unsigned workers);
  /// Merges the workers' counters (sums only: the same for any number of workers) into the
  /// counters of launch `launchIndex` and into the program's totals.
  void endLaunch(size_t launchIndex);
  /// Ends a launch whose counters are not kept (it faulted: which blocks above the faulting one
  /// ran, and how far, depends on timing, so its counters would differ from run to run).
  void dropLaunch();

  bool any() const { return launchesCounted_ > 0; }
  /// Counters of launch `i` (empty if it did not run with counters).
  const LaunchCounters &launch(size_t i) const;
  size_t launchCount() const { return launches_.size(); }
  /// Every launch's counters summed, per site and in total.
  const LaunchCounters &program() const { return program_; }
  /// The merged sample of each site (over the whole program).
  const std::vector<AccessSample> &samples() const { return samples_; }
  /// Capture the warps' accesses at the sites marked in `sites` (by site id) from the next
  /// launch on: captures() keeps each one's first and worst warp.
  void captureSites(std::vector<uint8_t> sites) { capturing_ = std::move(sites); }
  /// Forgets the sites' samples and captures (a new program image, whose site ids are its own).
  void clearSiteSamples() {
    samples_.clear();
    captures_.clear();
    for (auto &w : workers_)
      w->forgetMemos = true;
  }
  /// By site id: the captured warps over the whole program (empty for other sites).
  const std::vector<SiteCapture> &captures() const { return captures_; }
  /// The captures of the last launch that ended alone (the REPL's :explain, at its end).
  const std::vector<SiteCapture> &lastLaunchCaptures() const { return lastLaunchCaptures_; }

private:
  CounterConfig config_;
  std::vector<std::unique_ptr<WorkerCounters>> workers_;
  std::vector<void *> pointers_;
  std::vector<LaunchCounters> launches_;
  LaunchCounters program_;
  std::vector<AccessSample> samples_;
  std::vector<uint8_t> capturing_;
  std::vector<SiteCapture> captures_;
  std::vector<SiteCapture> lastLaunchCaptures_;
  size_t launchesCounted_ = 0;
};

} // namespace kern::runtime

struct KernWarpCtx;
namespace kern::runtime {
/// One warp reaching __syncthreads() at `site` (kern_rt_barrier calls it; no-op without
/// counters).
void countBarrier(KernWarpCtx *ctx, uint32_t site);
} // namespace kern::runtime
