// The counter hooks that compiled code calls (kern_rt_count_access / _branch / _instr) and the
// per-worker counter sets behind them, merged into per-launch and per-program counters.
#include "runtime/counter_hooks.h"

#include "backend/abi.h"
#include "runtime/bank_rows.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace kern::runtime {

CounterConfig counterConfigFor(const DeviceProfile &profile) {
  CounterConfig c;
  c.sharedRule = profile.bankRule == BankRule::HalfWarp ? SharedBankRule::HalfWarp
                                                        : SharedBankRule::WarpMulticast;
  c.sharedBanks = profile.sharedBanks > 0 ? static_cast<uint32_t>(profile.sharedBanks) : 32;
  switch (profile.globalRule) {
  case GlobalRule::Cc10:
    c.globalRule = GlobalCoalescingRule::Cc10;
    break;
  case GlobalRule::Cc12:
    c.globalRule = GlobalCoalescingRule::Cc12;
    break;
  case GlobalRule::Cc2x:
    c.globalRule = GlobalCoalescingRule::Cc2x;
    break;
  case GlobalRule::Sectors:
    c.globalRule = GlobalCoalescingRule::Sectors;
    break;
  }
  // The constant cache of cc1.x serves half-warps (CUDA C Programming Guide 3.2, 5.3.2.4).
  c.constantHalfWarp = profile.ccMajor == 1;
  // nvcc has no shared floating-point atomic add instruction to use from cc5.0 on, and emits
  // a compare-and-swap loop (measured on sm_90: docs/atomics.md).
  c.sharedFloatAtomicLoop = profile.ccMajor >= 5;
  // REDUX (cc8.0 on) lets nvcc sum a warp's adds to one address (measured on sm_90).
  c.warpAggregatedAtomics = profile.ccMajor >= 8;
  return c;
}

// Compiled code addresses SiteCounters as backend/abi.h's KernSiteCounters: both are declared
// from backend/counter_fields.def, so the record is the same; a guard against a member added to
// one of them outside the table.
static_assert(sizeof(SiteCounters) == sizeof(KernSiteCounters) &&
                  sizeof(SharedOpCounters) == sizeof(KernSharedOpCounters) &&
                  sizeof(GlobalOpCounters) == sizeof(KernGlobalOpCounters),
              "SiteCounters must have KernSiteCounters' layout");
static_assert(uint32_t(MemoryOpKind::Load) == KERN_ACCESS_LOAD &&
              uint32_t(MemoryOpKind::Store) == KERN_ACCESS_STORE &&
              uint32_t(MemoryOpKind::Atomic) == KERN_ACCESS_ATOMIC);
static_assert(offsetof(WorkerCounters, view) == 0);

WorkerCounters::WorkerCounters(const CounterConfig &config, size_t sites) : set(config, sites) {
  reset(sites);
}

void WorkerCounters::reset(size_t sites) {
  set.clear();
  std::fill(std::begin(totals), std::end(totals), uint64_t{0});
  set.reserveSites(sites);
  for (AccessSample &s : samples)
    s = AccessSample{};
  sampleKeys.assign(std::max(samples.size(), sites), UINT64_MAX);
  // A memo outlives its launch: what it replays depends only on the access's shape. But the
  // launch's samples start afresh, so each memo is stale (a sample key no warp reaches) until
  // the site's first warp of this launch reaches recordMemo, which sets the site's sample and
  // re-keys its memos (rekeyMemos). A new program (forgetMemos) clears the tags: a memo with
  // tag 0 is never read. Only the memos filled are touched: a module's (32 slots x operations
  // x sites) are far more than a launch fills, and a loop of small launches would spend its
  // time clearing them.
  size_t kept = 0;
  for (uint32_t index : memosSet)
    if (index < memos.size()) {
      KernAccessMemo &m = memos[index];
      m.sampleKey = UINT64_MAX;
      // A site op batches only in the launch that gave its memos up (MemoCalls::givenUp).
      if (forgetMemos || m.tag == KERN_MEMO_BATCH)
        m.tag = 0;
      if (m.tag != 0)
        memosSet[kept++] = index;
    }
  memosSet.resize(kept);
  if (forgetMemos)
    memoCalls.clear();
  forgetMemos = false;
  ++launchStamp;
  memos.resize(KERN_MEMO_SLOTS * KERN_ACCESS_OPS * set.siteCount());
  if (atomicChunksUsed)
    std::fill(atomicChunks.begin(), atomicChunks.end(), 0u);
  atomicChunksUsed = false;
  captures.clear();
  l1Sampling = false;
  l1Blocks = l1Requested = l1Misses = l1Concurrent = 0;
  l2Blocks.clear();
  syncView();
}

void WorkerCounters::flushTotals() {
  set.recordInstructionTotals(totals, totals[KERN_TOTAL_THREAD_INSTRUCTIONS],
                              totals[KERN_TOTAL_IDLE_ACCESSES], totals[KERN_TOTAL_ADU_READS]);
  std::fill(std::begin(totals), std::end(totals), uint64_t{0});
}

void WorkerCounters::syncView() {
  view.totals = totals;
  view.sites = reinterpret_cast<uint8_t *>(set.siteData());
  view.memos = memos.data();
  view.sampleKeys = sampleKeys.data();
  view.sampleLoads = l1Sampling ? 1 : 0;
  view.batch = batch.get();
}

void WorkerCounters::beginBlock(uint64_t linear, const uint32_t grid[3]) {
  if (!std::equal(grid, grid + 3, roleGrid)) {
    std::copy(grid, grid + 3, roleGrid);
    roleBlocks.clear();
    const uint64_t blocks = uint64_t(grid[0]) * grid[1] * grid[2];
    const uint64_t row = grid[0], plane = row * grid[1];
    for (uint32_t q = 0; q < 4; ++q)
      for (uint64_t back : {uint64_t(0), uint64_t(1), row, plane}) {
        const uint64_t s = sampleBlock(q, grid);
        if (back > s || s >= blocks)
          continue;
        const uint64_t b = s - back;
        const uint32_t roles = (l1SampleBlock(b, grid) ? 1u : 0u) | l2SampleRoles(b, grid);
        if (roles != 0 && std::none_of(roleBlocks.begin(), roleBlocks.end(),
                                       [&](auto &r) { return r.first == b; }))
          roleBlocks.push_back({b, roles});
      }
  }
  uint32_t roles = 0;
  for (const auto &[b, r] : roleBlocks)
    if (b == linear)
      roles = r;
  l1Counting = (roles & 1u) != 0;
  l2Roles = roles & ~1u;
  l1Sampling = roles != 0;
  if (!l1Sampling)
    return; // the view is already the plain one (endBlock); every block passes here
  l1Sectors.clear();
  l1WarpLoads.clear();
  syncView();
}

namespace {

/// The operation a counted access is costed as: the GPU counts shared reductions as atomics
/// (ATOMS either way).
MemoryOpKind accessKind(uint32_t flags) {
  const bool shared = (flags & KERN_ACCESS_SPACE_MASK) == KERN_ACCESS_SHARED;
  const uint32_t op = flags & KERN_ACCESS_OP_MASK;
  return static_cast<MemoryOpKind>(
      shared && op == KERN_ACCESS_REDUCTION ? uint32_t{KERN_ACCESS_ATOMIC} : op);
}

/// The lanes whose accesses the rules cost: a warp-aggregated add is one lane's atomic (the
/// lowest active lane's, as the elected one).
uint32_t costedLanes(const CounterConfig &config, uint32_t flags, uint32_t mask) {
  return (flags & KERN_ACCESS_ATOMIC_WARP) && config.warpAggregatedAtomics ? mask & -mask : mask;
}

} // namespace

void WorkerCounters::flushBatch() {
  const uint64_t n = view.batchCount;
  view.batchCount = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const KernBatchedAccess &d = batch[i];
    set.recordShared(d.site, d.offsets, costedLanes(set.config(), d.flags, d.mask), d.size,
                     accessKind(d.flags), atomicFormOf(d.flags));
    const uint64_t sampleBefore = d.site < samples.size() ? samples[d.site].key : UINT64_MAX;
    sample(d.site, d.key, d.offsets, d.mask, d.size, 0);
    if (samples[d.site].key != sampleBefore)
      rekeyMemos(d.site);
  }
  syncView();
}

void WorkerCounters::endBlock() {
  if (view.batchCount != 0)
    flushBatch();
  if (!l1Sampling)
    return;
  if (l1Counting)
    ++l1Blocks;
  if (l2Roles != 0) {
    std::vector<uint64_t> sectors;
    sectors.reserve(l1Sectors.size());
    for (const auto &[sector, warp] : l1Sectors)
      sectors.push_back(sector);
    l2Blocks.push_back({l2Roles, std::move(sectors)});
  }
  l1Sampling = l1Counting = false;
  l2Roles = 0;
  syncView();
}

void WorkerCounters::recordMemo(uint32_t site, uint32_t flags, const uint64_t *addrs, uint32_t mask,
                                uint32_t size, uint64_t key, uint64_t sharedBase) {
  const bool shared = (flags & KERN_ACCESS_SPACE_MASK) == KERN_ACCESS_SHARED;
  const MemoryOpKind kind = accessKind(flags);
  const auto op = static_cast<uint32_t>(kind);
  const size_t fields = shared ? KERN_SITE_SHARED_FIELDS : KERN_SITE_GLOBAL_FIELDS;
  const uint32_t lanes = costedLanes(set.config(), flags, mask);
  if (!shared && isAtomic(kind)) {
    // Global atomics take the call every time: the chunks they land in are absolute addresses,
    // which a memo of the shape cannot replay.
    GlobalAtomicCost cost;
    set.recordGlobal(site, addrs, lanes, size, kind, &cost);
    if (atomicChunks.empty())
      atomicChunks.assign(kAtomicChunkBuckets, 0u);
    atomicChunksUsed = true;
    for (uint32_t i = 0; i < cost.chunkCount; ++i)
      atomicChunks[atomicChunkBucket(cost.chunks[i].chunk)] += cost.chunks[i].passes;
    sample(site, key, addrs, mask, size, sharedBase);
    if (capturing && site < capturing->size() && (*capturing)[site])
      capture(site, key, addrs, mask, size, flags, sharedBase, cost.passes);
    syncView();
    return;
  }
  // A site op whose warps missed at least 15 times in 16 over 256 calls of this launch (its
  // `instructions` count hits and misses alike) keeps no more memos: its calls only count (no
  // snapshots of the counters around the rule, no memo), unless its site is captured.
  const size_t siteOp = KERN_ACCESS_OPS * size_t{site} + op;
  if (memoCalls.size() <= siteOp)
    memoCalls.resize(std::max(siteOp + 1, memos.size() / KERN_MEMO_SLOTS));
  MemoCalls &calls = memoCalls[siteOp];
  if (calls.launch != launchStamp) {
    calls.launch = launchStamp;
    calls.calls = 0;
    calls.givenUp = false;
  }
  const bool captured = capturing && site < capturing->size() && (*capturing)[site];
  // The rule's counts, and the sample; true where this warp became the site's sample.
  auto record = [&] {
    if (shared) {
      // The bank of a word depends on its offset within the block's shared memory, which is
      // 256-byte aligned, so offsets give the same banks as the GPU's shared addresses.
      uint64_t offsets[KERN_WARP_SIZE];
      wordOffsets(addrs, sharedBase, offsets);
      set.recordShared(site, offsets, lanes, size, kind, atomicFormOf(flags));
    } else {
      set.recordGlobal(site, addrs, mask, size, kind);
      if (l1Sampling && kind == MemoryOpKind::Load)
        sampleL1(addrs, mask, size, static_cast<uint32_t>(key & 0xffff));
    }
    const uint64_t sampleBefore = site < samples.size() ? samples[site].key : UINT64_MAX;
    sample(site, key, addrs, mask, size, sharedBase);
    syncView();
    return samples[site].key != sampleBefore;
  };
  if (calls.givenUp && !captured) {
    if (!shared) {
      if (record())
        rekeyMemos(site);
      return;
    }
    KernBatchedAccess &d = batch[view.batchCount++];
    wordOffsets(addrs, sharedBase, d.offsets);
    d.key = key;
    d.site = site;
    d.mask = mask;
    d.size = size;
    d.flags = flags;
    if (view.batchCount == KERN_BATCH_ACCESSES)
      flushBatch();
    return;
  }
  uint64_t before[KERN_SITE_GLOBAL_FIELDS + 2] = {};
  uint64_t after[KERN_SITE_GLOBAL_FIELDS + 2] = {};
  auto snapshot = [&](uint64_t *into) {
    const SiteCounters &c = set.site(site);
    if (shared)
      std::memcpy(into, &c.sharedOf(kind), fields * sizeof(uint64_t));
    else
      std::memcpy(into, &c.globalOf(kind), fields * sizeof(uint64_t));
    into[fields] = c.atomicsExecuted;
    into[fields + 1] = c.atomicThreadOps;
  };
  snapshot(before);
  const bool resampled = record();
  snapshot(after);
  if (resampled && !captured)
    rekeyMemos(site);
  // Field 2 is steps (shared) or transactions (global): what makes a warp the worst.
  if (captured)
    capture(site, key, addrs, mask, size, flags, sharedBase, after[2] - before[2]);
  if (++calls.calls >= 256 && uint64_t{calls.calls} * 16 >= after[0] * 15) {
    calls.givenUp = true;
    if (shared && !captured)
      batchSiteOp(siteOp);
    return;
  }
  const size_t index =
      KERN_MEMO_SLOTS * siteOp + kern_access_memo_slot(addrs[0], size, flags, mask);
  if (index >= memos.size())
    return;
  KernAccessMemo &m = memos[index];
  if (m.tag == 0)
    memosSet.push_back(static_cast<uint32_t>(index));
  calls.filled |= 1u << (index % KERN_MEMO_SLOTS);
  // Contiguous over all 32 lanes, active or not (as compiled code tests it); the mask is
  // compared on its own.
  bool contiguous = true;
  for (int l = 0; l < KERN_WARP_SIZE; ++l) {
    m.pattern[l] = static_cast<int64_t>(addrs[l] - addrs[0]);
    contiguous = contiguous && addrs[l] == addrs[0] + uint64_t(l) * size;
  }
  m.tag = kern_access_memo_tag(addrs[0], size, flags, contiguous);
  m.mask = mask;
  m.sampleKey = samples[site].key;
  // A captured site's worst warp is the lowest key among those of the highest cost: a warp with
  // a lower key than the worst so far that meets this memo (whose cost is the worst's) comes
  // here too, so the choice is the same for any number of workers.
  if (captured && captures[site].worst.cost == after[2] - before[2])
    m.sampleKey = std::max(m.sampleKey, captures[site].worst.key);
  std::memset(m.delta, 0, sizeof m.delta);
  for (size_t i = 0; i < fields; ++i)
    m.delta[i] = after[i] - before[i];
  m.delta[KERN_SITE_GLOBAL_FIELDS] = after[fields] - before[fields];
  m.delta[KERN_SITE_GLOBAL_FIELDS + 1] = after[fields + 1] - before[fields + 1];
}

void WorkerCounters::batchSiteOp(size_t siteOp) {
  // Compiled code that misses a memo and finds this tag in its slot writes the access into the
  // batch; every slot has it, whatever memo it held (a memo only replays what the rules give).
  for (size_t i = KERN_MEMO_SLOTS * siteOp; i < KERN_MEMO_SLOTS * (siteOp + 1) && i < memos.size();
       ++i) {
    if (memos[i].tag == 0)
      memosSet.push_back(static_cast<uint32_t>(i));
    memos[i].tag = KERN_MEMO_BATCH;
  }
}

void WorkerCounters::noteSampleKey(uint32_t site, uint64_t key) {
  if (site >= sampleKeys.size())
    sampleKeys.resize(site + 1, UINT64_MAX); // the caller syncs the view
  sampleKeys[site] = key;
}

void WorkerCounters::rekeyMemos(uint32_t site) {
  // Every warp with a key from the site's sample on may replay a memo of the site: none of them
  // would become its sample. (A captured site's memos keep their own keys: the worst warp's.)
  for (size_t siteOp = KERN_ACCESS_OPS * size_t{site};
       siteOp < std::min(memoCalls.size(), KERN_ACCESS_OPS * (size_t{site} + 1)); ++siteOp)
    for (uint32_t slots = memoCalls[siteOp].filled; slots != 0; slots &= slots - 1) {
      const size_t i = KERN_MEMO_SLOTS * siteOp + std::countr_zero(slots);
      if (i < memos.size() && memos[i].tag != 0)
        memos[i].sampleKey = samples[site].key;
    }
}

void WorkerCounters::sampleL1(const uint64_t *addrs, uint32_t mask, uint32_t size, uint32_t warp) {
  // The instruction's distinct sectors (as the sectors counter counts them), each a request to
  // the L1 that misses unless the block touched the sector before.
  uint64_t mine[2 * KERN_WARP_SIZE];
  uint32_t n = 0;
  bool ascending = true; // lanes in address order (most loads): no sort needed
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint64_t a = addrs[std::countr_zero(m)];
    for (uint64_t s = a / 32; s <= (a + std::max(size, 1u) - 1) / 32 && n < 2 * KERN_WARP_SIZE;
         ++s) {
      if (n != 0 && s == mine[n - 1])
        continue;
      ascending = ascending && (n == 0 || s > mine[n - 1]);
      mine[n++] = s;
    }
  }
  if (!ascending) {
    std::sort(mine, mine + n);
    n = static_cast<uint32_t>(std::unique(mine, mine + n) - mine);
  }
  // Past kL1SampleSectors (2 MiB, far beyond any L1) a block's new sectors are misses that
  // are not remembered: the sample's memory stays bounded.
  constexpr size_t kL1SampleSectors = size_t(1) << 16;
  // A sector another warp of the block touched first, at about the same point of its code (at
  // most kConcurrentLoads sampled loads apart), is a hit on a miss that is still in flight: the
  // warps of a block run together on the GPU (docs/timing.md, step 6).
  constexpr uint32_t kConcurrentLoads = 4;
  if (l1WarpLoads.size() <= warp)
    l1WarpLoads.resize(warp + 1, 0);
  const uint32_t load = l1WarpLoads[warp]++;
  for (uint32_t i = 0; i < n; ++i) {
    l1Requested += l1Counting;
    if (auto seen = l1Sectors.find(mine[i]); seen != l1Sectors.end()) {
      const FirstTouch &f = seen->second;
      l1Concurrent += l1Counting && f.warp != warp &&
                      std::max(f.load, load) - std::min(f.load, load) <= kConcurrentLoads;
      continue;
    }
    l1Misses += l1Counting;
    if (l1Sectors.size() < kL1SampleSectors)
      l1Sectors.emplace(mine[i], FirstTouch{warp, load});
  }
}

void WorkerCounters::sample(uint32_t site, uint64_t key, const uint64_t *addrs, uint32_t mask,
                            uint32_t size, uint64_t base) {
  if (site >= samples.size())
    samples.resize(site + 1);
  AccessSample &s = samples[site];
  if (key >= s.key)
    return;
  s.key = key;
  noteSampleKey(site, key);
  s.size = size;
  s.activeLanes = static_cast<uint32_t>(std::popcount(mask));
  s.mask = mask;
  const int first = std::countr_zero(mask);
  s.firstOffset = addrs[first] - base;
  s.affine = true;
  s.strideBytes = 0;
  int prev = first;
  bool haveStride = false;
  for (uint32_t m = mask & (mask - 1); m; m &= m - 1) {
    const int lane = std::countr_zero(m);
    const int64_t d = static_cast<int64_t>(addrs[lane] - addrs[prev]);
    const int64_t gap = lane - prev;
    if (d % gap != 0) {
      s.affine = false;
      break;
    }
    const int64_t stride = d / gap;
    if (!haveStride) {
      s.strideBytes = stride;
      haveStride = true;
    } else if (stride != s.strideBytes) {
      s.affine = false;
      break;
    }
    prev = lane;
  }
  if (!s.affine)
    s.strideBytes = 0;
}

void WorkerCounters::capture(uint32_t site, uint64_t key, const uint64_t *addrs, uint32_t mask,
                             uint32_t size, uint32_t flags, uint64_t base, uint64_t cost) {
  if (site >= captures.size())
    captures.resize(site + 1);
  SiteCapture &c = captures[site];
  auto keep = [&](LaneCapture &into) {
    into.key = key;
    into.mask = mask;
    into.size = size;
    into.flags = flags;
    into.cost = cost;
    for (int l = 0; l < KERN_WARP_SIZE; ++l)
      into.addrs[l] = addrs[l] - base;
  };
  // A warp that runs the site again (a loop) keeps its first visit as its own.
  if (key < c.first.key)
    keep(c.first);
  if (c.worst.key == UINT64_MAX || cost > c.worst.cost ||
      (cost == c.worst.cost && key < c.worst.key))
    keep(c.worst);
}

void WorkerCounters::sampleBranch(uint32_t site, uint64_t key, uint32_t mask, uint32_t taken) {
  if (site >= samples.size())
    samples.resize(site + 1);
  AccessSample &s = samples[site];
  if (key == s.key) { // the sample's warp splits here again (a loop): keep the visit
    if (s.splits < kBranchSplitsKept) {
      s.splitMask[s.splits] = mask;
      s.splitTaken[s.splits] = taken & mask;
    }
    ++s.splits;
    return;
  }
  if (key > s.key)
    return;
  s = AccessSample{};
  s.key = key;
  noteSampleKey(site, key);
  s.activeLanes = static_cast<uint32_t>(std::popcount(mask));
  s.mask = mask;
  s.taken = taken & mask;
  s.splitMask[0] = mask;
  s.splitTaken[0] = taken & mask;
  s.splits = 1;
}

void *const *CounterCollector::beginLaunch(const DeviceProfile &profile, size_t siteCount,
                                           unsigned workers) {
  const CounterConfig config = counterConfigFor(profile);
  if (config != config_ || workers_.size() < workers) {
    // A new rule set (or more workers): fresh sets. Otherwise the sets are cleared and reused,
    // so a launch allocates nothing.
    if (config != config_)
      workers_.clear();
    config_ = config;
    while (workers_.size() < workers)
      workers_.push_back(std::make_unique<WorkerCounters>(config_, siteCount));
  }
  pointers_.clear();
  for (auto &w : workers_) {
    w->reset(siteCount);
    w->capturing = capturing_.empty() ? nullptr : &capturing_;
    pointers_.push_back(w.get());
  }
  return pointers_.data();
}

namespace {

void addInto(LaunchCounters &into, const LaunchCounters &from) {
  into.total += from.total;
  into.atomicHotPasses = std::max(into.atomicHotPasses, from.atomicHotPasses);
  into.l1SampledBlocks += from.l1SampledBlocks;
  into.l1SampledSectors += from.l1SampledSectors;
  into.l1SampledMisses += from.l1SampledMisses;
  into.l1SampledConcurrent += from.l1SampledConcurrent;
  into.l2NeighbourTouches += from.l2NeighbourTouches;
  into.l2NeighbourSampled += from.l2NeighbourSampled;
  if (into.sites.size() < from.sites.size())
    into.sites.resize(from.sites.size());
  for (size_t i = 0; i < from.sites.size(); ++i)
    into.sites[i] += from.sites[i];
}

/// Merges one worker's captures of a site in launch `launchIndex` into `into`, which holds the
/// earlier launches' (or other workers').
void mergeCapture(SiteCapture &into, const SiteCapture &c, size_t launchIndex) {
  if (c.first.key == UINT64_MAX)
    return;
  const bool freshFirst = into.first.key == UINT64_MAX || into.first.launch == launchIndex;
  if (freshFirst && c.first.key < into.first.key) {
    into.first = c.first;
    into.first.launch = launchIndex;
  }
  const LaneCapture &worst = into.worst;
  const bool sameLaunch = worst.key != UINT64_MAX && worst.launch == launchIndex;
  if (worst.key == UINT64_MAX || c.worst.cost > worst.cost ||
      (sameLaunch && c.worst.cost == worst.cost && c.worst.key < worst.key)) {
    into.worst = c.worst;
    into.worst.launch = launchIndex;
  }
}

} // namespace

void CounterCollector::dropLaunch() {
  for (auto &w : workers_)
    w->reset(w->set.siteCount());
}

void CounterCollector::endLaunch(size_t launchIndex) {
  if (workers_.empty())
    return;
  // Merging is a sum, so the order of the workers does not matter.
  CounterSet merged(config_, workers_.front()->set.siteCount());
  std::vector<AccessSample> samples;
  for (auto &w : workers_) {
    w->flushTotals();
    merged.merge(w->set);
    if (samples.size() < w->samples.size())
      samples.resize(w->samples.size());
    for (size_t i = 0; i < w->samples.size(); ++i)
      if (w->samples[i].key < samples[i].key)
        samples[i] = w->samples[i];
  }
  if (launches_.size() <= launchIndex)
    launches_.resize(launchIndex + 1);
  launches_[launchIndex] = merged.launchCounters();
  // The hottest chunk of the launch's global atomics: the buckets summed over the workers.
  std::vector<const uint32_t *> tables;
  for (auto &w : workers_)
    if (w->atomicChunksUsed)
      tables.push_back(w->atomicChunks.data());
  uint64_t hot = 0;
  for (uint32_t b = 0; !tables.empty() && b < kAtomicChunkBuckets; ++b) {
    uint64_t sum = 0;
    for (const uint32_t *t : tables)
      sum += t[b];
    hot = std::max(hot, sum);
  }
  launches_[launchIndex].atomicHotPasses = hot;
  for (auto &w : workers_) {
    launches_[launchIndex].l1SampledBlocks += w->l1Blocks;
    launches_[launchIndex].l1SampledSectors += w->l1Requested;
    launches_[launchIndex].l1SampledMisses += w->l1Misses;
    launches_[launchIndex].l1SampledConcurrent += w->l1Concurrent;
  }
  // The L2's near re-reads: each sampled block's first touches that its neighbours touched.
  // Sets of sectors, so the figures do not depend on which worker ran which block.
  for (uint32_t q = 1; q < 4; ++q) {
    std::unordered_set<uint64_t> before;
    for (auto &w : workers_)
      for (const WorkerCounters::RoleSectors &b : w->l2Blocks)
        if (b.roles & (16u << q))
          before.insert(b.sectors.begin(), b.sectors.end());
    for (auto &w : workers_)
      for (const WorkerCounters::RoleSectors &b : w->l2Blocks)
        if (b.roles & (1u << q)) {
          launches_[launchIndex].l2NeighbourSampled += b.sectors.size();
          for (uint64_t s : b.sectors)
            launches_[launchIndex].l2NeighbourTouches += before.count(s);
        }
  }
  addInto(program_, launches_[launchIndex]);
  // The program keeps the sample of the first launch that executed a site.
  if (samples_.size() < samples.size())
    samples_.resize(samples.size());
  for (size_t i = 0; i < samples.size(); ++i)
    if (samples_[i].key == UINT64_MAX && samples[i].key != UINT64_MAX) {
      samples_[i] = samples[i];
      samples_[i].launch = launchIndex;
    }
  // The captured warps: the launch's first is its lowest key, its worst the highest cost (then
  // the lowest key); the program keeps the first of the first launch and the worst of all.
  lastLaunchCaptures_.clear();
  for (auto &w : workers_) {
    if (captures_.size() < w->captures.size())
      captures_.resize(w->captures.size());
    if (lastLaunchCaptures_.size() < w->captures.size())
      lastLaunchCaptures_.resize(w->captures.size());
    for (size_t i = 0; i < w->captures.size(); ++i) {
      mergeCapture(captures_[i], w->captures[i], launchIndex);
      mergeCapture(lastLaunchCaptures_[i], w->captures[i], launchIndex);
    }
  }
  ++launchesCounted_;
}

const LaunchCounters &CounterCollector::launch(size_t i) const {
  static const LaunchCounters kNone{};
  return i < launches_.size() ? launches_[i] : kNone;
}

} // namespace kern::runtime

// ---- the hooks (backend/abi.h) ---------------------------------------------------------------

namespace {

using kern::runtime::MemoryOpKind;
using kern::runtime::WorkerCounters;

} // namespace

extern "C" {

void kern_rt_count_access(KernWarpCtx *ctx, uint32_t site, const uint64_t *addrs, uint32_t mask,
                          uint32_t size, uint32_t flags) {
  auto *w = static_cast<WorkerCounters *>(ctx->counters);
  if (!w || mask == 0)
    return;
  const uint64_t key = kern_warp_key(ctx);
  switch (flags & KERN_ACCESS_SPACE_MASK) {
  case KERN_ACCESS_SHARED:
    w->recordMemo(site, flags & (15u | KERN_ACCESS_ATOMIC_MASK), addrs, mask, size, key,
                  reinterpret_cast<uint64_t>(ctx->shared));
    return;
  case KERN_ACCESS_CONSTANT:
    w->set.recordConstant(site, addrs, mask);
    break;
  case KERN_ACCESS_LOCAL:
    // Local memory is private per thread and interleaved by the hardware so that the same
    // variable of consecutive threads is contiguous: it costs what a coalesced access costs
    // and is not what the counters are for. Counted as instructions only.
    break;
  default:
    w->recordMemo(site, flags & (15u | KERN_ACCESS_ATOMIC_MASK), addrs, mask, size, key, 0);
    return;
  }
  w->syncView();
}

void kern_rt_count_branch(KernWarpCtx *ctx, uint32_t site, uint32_t mask, uint32_t taken,
                          uint32_t kinds) {
  if (auto *w = static_cast<WorkerCounters *>(ctx->counters)) {
    w->set.recordBranch(site, mask, taken, kinds);
    // Compiled code counts a branch whose lanes all go one way itself; those that split come
    // here, and the first warp (by key) to split is the site's sample.
    if (kern::runtime::isDivergent(mask, taken))
      w->sampleBranch(site, kern_warp_key(ctx), mask, taken);
    w->syncView();
  }
}

void kern_rt_flush_batch(KernWarpCtx *ctx) {
  if (auto *w = static_cast<WorkerCounters *>(ctx->counters))
    w->flushBatch();
}

void kern_rt_sample_load(KernWarpCtx *ctx, const uint64_t *addrs, uint32_t mask, uint32_t size) {
  if (auto *w = static_cast<WorkerCounters *>(ctx->counters); w && w->l1Sampling)
    w->sampleL1(addrs, mask, size, static_cast<uint32_t>(kern_warp_key(ctx) & 0xffff));
}

void kern_rt_count_loop(KernWarpCtx *ctx, uint32_t site, uint32_t shape, uint64_t trips,
                        uint32_t warps) {
  if (auto *w = static_cast<WorkerCounters *>(ctx->counters)) {
    w->set.recordUniformBranches(
        site, warps * kern::runtime::loopBranches(static_cast<kern::runtime::LoopShapeCode>(shape),
                                                  trips));
    w->syncView();
  }
}

void kern_rt_count_instr(KernWarpCtx *ctx, uint32_t n, uint32_t activeLanes) {
  if (auto *w = static_cast<WorkerCounters *>(ctx->counters))
    w->set.recordInstructions(n, activeLanes);
}

} // extern "C"

namespace kern::runtime {

void countBarrier(KernWarpCtx *ctx, uint32_t site) {
  if (auto *w = static_cast<WorkerCounters *>(ctx->counters)) {
    w->set.recordBarrier(site);
    w->syncView();
  }
}

} // namespace kern::runtime
