// The advisor (HARDWARE-MODEL.md, last section; docs/advice.md): one line per finding that says
// what, where, why and the fix, in the chosen GPU generation's words, read from the launch
// records, the counters, the address and branch samples and the transfers, never from the
// source text; the findings ranked by what they cost.
#include "runtime/report.h"

#include "runtime/counter_hooks.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <set>

namespace kern::runtime {

namespace {

bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// The first launch site of each kernel, for the launch-level findings.
std::string launchWhere(const ReportInput &in, const LaunchRecord &l) {
  if (l.site > 0 && l.site < in.sites.size())
    return in.sites[l.site].file + ":" + std::to_string(in.sites[l.site].line);
  return in.program;
}

/// One finding, ranked by its cost (docs/advice.md, "Ranking"): until kern models time, what
/// an access or branch wastes in memory work, bytes moved beyond the ideal / 32 (a 32-byte
/// sector each), bank-conflict wavefronts, one pass per divergent branch. A launch's
/// configuration wastes none of that: it leaves hardware idle, whose price is time, so those
/// findings come after every costed one, ranked by the share of the hardware left idle.
struct Finding {
  double cost = 0;
  double idle = 0; ///< a launch-level finding: the share of lanes, SMs or slots left idle
  std::string where;
  std::string text;
  /// The share of the launches' modelled time the waste costs, 0 to 1 (0: not known).
  double time = 0;
};

/// Puts the time a site's waste costs on the finding just made: `share` of the site's modelled
/// time (`siteShare`, of the launches' whole time), said in the text when 1 % or more.
void costsTime(std::vector<Finding> &out, double siteShare, double share) {
  Finding &f = out.back();
  f.time = std::clamp(siteShare * share, 0.0, 1.0);
  if (f.time >= 0.01)
    f.text += " (about " + formatNumber("%.0f%%", 100 * f.time) + " of the modelled time)";
}

/// The words of one GPU generation: cc1.x's profiler (computeprof) speaks of half-warps,
/// coalesced transactions and warp_serialize; Fermi's of 128-byte lines and 32-byte segments;
/// Nsight Compute (cc3.0 on) of sectors and wavefronts.
struct Vocabulary {
  bool halfWarp = false; ///< cc1.x
  bool lines = false;    ///< cc2.x loads: 128-byte L1 lines
};

const char *verbOf(MemoryOpKind k) {
  switch (k) {
  case MemoryOpKind::Load:
    return "read";
  case MemoryOpKind::Store:
    return "write";
  case MemoryOpKind::Atomic:
  case MemoryOpKind::Reduction:
    break;
  }
  return "update";
}

const char *nounOf(MemoryOpKind k) {
  switch (k) {
  case MemoryOpKind::Load:
    return "reads";
  case MemoryOpKind::Store:
    return "writes";
  case MemoryOpKind::Atomic:
  case MemoryOpKind::Reduction:
    break;
  }
  return "atomics";
}

/// Global access findings: what the access moves beyond the best access to the same bytes,
/// when that is at least as much as the best access would move (it moves twice the ideal or
/// more), with the pattern of the site's sampled warp as the reason and its fix.
void globalFindings(const SiteCounters &c, const AccessSample *sm, const Vocabulary &v,
                    const DeviceProfile &dev, const std::string &where, double siteShare,
                    std::vector<Finding> &out) {
  for (uint32_t k = 0; k < kMemoryOpKinds; ++k) {
    const auto kind = static_cast<MemoryOpKind>(k);
    const GlobalOpCounters &g = c.global[k];
    const uint64_t wasted = globalWastedBytes(g);
    if (!g.requests || wasted == 0 || 2 * g.bytesIdeal > g.bytesMoved)
      continue;
    const double req = double(g.requests);
    const std::string verb = verbOf(kind);
    std::string text = std::string("global ") + nounOf(kind) + " ";
    if (v.halfWarp)
      text += "are not coalesced: " + formatNumber("%.1f", double(g.transactions) / req) +
              " transactions (" + formatNumber("%.0f", double(g.bytesMoved) / req) +
              " B) per half-warp where " + formatNumber("%.0f", double(g.bytesIdeal) / req) +
              " B would do";
    else if (v.lines && kind == MemoryOpKind::Load)
      text += "move " + formatNumber("%.1f", double(g.lines128) / req) +
              " 128 B lines per request where " +
              formatNumber("%.1f", double(g.bytesIdeal) / 128.0 / req) + " would do";
    else if (isAtomic(kind) && !v.lines) // a sector's passes (docs/atomics.md)
      text += "take " + formatNumber("%.1f", double(g.sectors) / req) +
              " sector passes per request where " +
              formatNumber("%.1f", double(g.bytesIdeal) / 32.0 / req) + " would do";
    else
      text += "move " + formatNumber("%.1f", double(g.sectors) / req) +
              (v.lines ? " 32 B segments" : " sectors") + " per request where " +
              formatNumber("%.1f", double(g.bytesIdeal) / 32.0 / req) + " would do";
    if (!isAtomic(kind) || v.halfWarp || v.lines)
      text += " (" + formatNumber("%.0f%%", globalEfficiency(g)) + " of the bytes moved are used)";
    if (sm && sm->affine && sm->size && sm->activeLanes > 1) {
      const int64_t stride = sm->strideBytes;
      const int64_t size = sm->size;
      if (stride == 0 && kind == MemoryOpKind::Load)
        text += ": every lane of a " + std::string(v.halfWarp ? "half-warp" : "warp") +
                " reads the same word, which " + dev.name +
                " serves thread by thread; read it once per block into shared memory, or "
                "put it in constant memory";
      else if (stride == 0)
        text += ": every lane " + std::string(kind == MemoryOpKind::Store ? "writes" : "updates") +
                " the same address; let one lane do it, or combine the values first (a warp "
                "reduction)";
      else if (stride == size && sm->firstOffset % 32)
        text += ": consecutive lanes " + verb + " consecutive words from " +
                u(sm->firstOffset % 32) +
                " B past a 32 B boundary; align the data (cudaMalloc gives 256 B) or use "
                "__align__";
      else if (stride > size && !isPowerOfTwo(stride))
        text += ": lanes " + verb + " " + u(size) + " B every " + u(stride) +
                " B, an array of structs; use a struct of arrays, or __align__(16) structs "
                "copied whole";
      else if (stride > size)
        text += ": lanes " + verb + " " + u(size) + " B every " + u(stride) +
                " B; stage through shared memory so that consecutive lanes " + verb +
                " consecutive words";
      else if (v.halfWarp && size < 4)
        text += ": cc1.0 coalesces only 4-, 8- and 16-byte words; " + verb +
                " 4 bytes (or more) per lane";
    } else if (isAtomic(kind) && !v.halfWarp && !v.lines && sm && sm->size &&
               double(c.atomicThreadOps) * sm->size >= 2.0 * double(g.bytesRequested)) {
      // Lanes of a warp on one address: the L2 serves them one after another.
      text +=
          ": " +
          formatNumber("%.1f", double(c.atomicThreadOps) * sm->size / double(g.bytesRequested)) +
          " lanes of a warp update each address, and lanes on one address are served one "
          "after another; combine their values first (a warp reduction, or "
          "__match_any_sync groups), or give each block its own copy in shared memory";
    } else if (!sm || sm->activeLanes > 1) {
      text += ": irregular addresses; reorder the data, or stage it through shared memory, so "
              "that the lanes of a warp " +
              verb + " neighbouring words";
    }
    out.push_back({double(wasted) / 32.0, 0, where, text});
    costsTime(out, siteShare, double(wasted) / double(c.globalTotal().bytesMoved));
  }
}

/// A site where one lane of each warp does the work, when it moves at least half the launch's
/// global bytes: then the other 31 lanes idle through the kernel's main traffic. A store by
/// one lane that moves little (`if (tid == 0) out[blockIdx.x] = s[0]`) is no finding: it wastes
/// nothing (one sector is the least any access moves).
void singleLaneFinding(const SiteCounters &c, const AccessSample *sm, double launchBytes,
                       const std::string &where, double siteShare, std::vector<Finding> &out) {
  if (!sm || sm->activeLanes != 1 || launchBytes <= 0)
    return;
  const GlobalOpCounters g = c.globalTotal();
  if (2 * double(g.bytesMoved) < launchBytes)
    return;
  out.push_back({double(g.bytesMoved) / 32.0 * 31.0 / 32.0, 0, where,
                 "one lane of each warp does this access, and it moves " +
                     formatNumber("%.0f%%", 100.0 * double(g.bytesMoved) / launchBytes) +
                     " of the kernel's global bytes: spread the work over the warp's 32 lanes "
                     "so that they access neighbouring words together"});
  costsTime(out, siteShare, 31.0 / 32.0);
}

void sharedFinding(const SiteCounters &c, const AccessSample *sm, const Vocabulary &v,
                   const std::string &where, double siteShare, std::vector<Finding> &out) {
  for (uint32_t k = 0; k < kMemoryOpKinds; ++k) {
    const auto kind = static_cast<MemoryOpKind>(k);
    const SharedOpCounters &s = c.shared[k];
    if (!s.conflicts())
      continue;
    const double ways = double(s.steps) / double(s.idealSteps);
    std::string text = std::string("shared ") + nounOf(kind) + " have " +
                       formatNumber("%.1f", ways) + "-way bank conflicts: ";
    if (v.halfWarp)
      text += "each half-warp is served in " +
              formatNumber("%.1f", double(s.steps) / double(s.requests)) +
              " steps instead of 1 (warp_serialize " + u(s.conflicts()) + ")";
    else
      text += formatNumber("%.1f", sharedStepsPerInstruction(s)) +
              " wavefronts per instruction where " +
              formatNumber("%.1f", double(s.idealSteps) / double(s.instructions)) + " would do (" +
              u(s.conflicts()) + " conflicts)";
    if (sm && sm->activeLanes < 2) {
      // The sampled warp had one lane active: its addresses say nothing of the pattern.
      text += "; make consecutive lanes use consecutive words, or pad rows to an odd stride";
    } else if (sm && sm->affine && sm->strideBytes != 0 && sm->strideBytes % 4 == 0) {
      const int64_t words = sm->strideBytes / 4;
      text += "; lanes are " + std::to_string(words) + " words apart";
      if (words % 2 == 0)
        text += ": pad the array so the stride is odd (e.g. [" + std::to_string(words) + "] -> [" +
                std::to_string(words + 1) + "] per row)";
    } else if (sm && sm->affine && sm->strideBytes == 0) {
      text += "; every lane " + std::string(verbOf(kind)) + "s one word" +
              (v.halfWarp && kind == MemoryOpKind::Load
                   ? ", and cc1.x broadcasts only one word per step"
                   : "");
    } else {
      text += "; make consecutive lanes use consecutive words, or pad rows to an odd stride";
    }
    out.push_back({double(s.conflicts()), 0, where, text});
    costsTime(out, siteShare, double(s.conflicts()) / double(c.sharedTotal().steps));
  }
}

/// A divergent branch, named by how the sampled warp split: at one lane (a bound on the lane
/// index: only the warp that straddles it diverges), alternately (the condition depends on the
/// lane index modulo a small number), or otherwise (by data).
void branchFinding(const SiteCounters &c, const AccessSample *sm, const std::string &where,
                   std::vector<Finding> &out) {
  if (!c.branchesDivergent)
    return;
  std::string text = u(c.branchesDivergent) + " of " + u(c.branchesExecuted) +
                     " branches divergent (lanes of a warp take both paths, one after the other)";
  if (sm && sm->mask) {
    const uint32_t mask = sm->mask, taken = sm->taken & mask, notTaken = mask & ~taken;
    auto lowest = [](uint32_t m) { return static_cast<uint32_t>(std::countr_zero(m)); };
    auto highest = [](uint32_t m) { return 31u - static_cast<uint32_t>(std::countl_zero(m)); };
    // Every lane that goes one way lies below every lane that goes the other.
    const bool bound = taken && notTaken &&
                       (highest(taken) < lowest(notTaken) || highest(notTaken) < lowest(taken));
    // The lanes' choices repeat every 2, 4, 8 or 16 lanes across a full warp.
    bool periodic = false;
    for (int p = 2; p <= 16 && !periodic && mask == ~0u; p *= 2)
      periodic = std::rotr(taken, p) == taken;
    if (std::popcount(taken) == 1 || std::popcount(notTaken) == 1)
      text += ": in the first warp that split, one lane went its own way, as under "
              "if (threadIdx.x == 0); the other lanes wait while it works, which matters only "
              "when that work is long";
    else if (bound)
      text += ": in the first warp that split, lanes below " +
              u(std::max(lowest(taken), lowest(notTaken))) +
              " went one way and the others the other, as a bound on the thread index (tid < n) "
              "splits the one warp that straddles it; where the bound is yours to choose, make it "
              "a multiple of 32";
    else if (periodic)
      text += ": alternate lanes go different ways, as when the condition depends on the "
              "thread index modulo a small number; branch on whole warps (e.g. (threadIdx.x / "
              "32) % 2) so that all 32 lanes of a warp go the same way";
    else
      text += ": the lanes split irregularly, by their data; group the work so that the lanes "
              "of a warp agree (sort or bin the data)";
  }
  out.push_back({double(c.branchesDivergent), 0, where, text});
}

/// The findings on the launches `launches` (indices into Runtime::launches()) and the sites'
/// counters `sites`; the transfers' too when `transfers`.
std::vector<std::string> findings(const ReportInput &in, const std::vector<size_t> &launches,
                                  const std::vector<SiteCounters> &sites, bool transfers) {
  const Runtime &rt = *in.rt;
  const DeviceProfile &dev = rt.device();
  Vocabulary v;
  v.halfWarp = dev.ccMajor == 1;
  v.lines = dev.globalRule == GlobalRule::Cc2x;
  std::vector<Finding> found;

  // Launch configuration: the share of the hardware a launch leaves idle.
  for (size_t index : launches) {
    const LaunchRecord &l = rt.launches()[index];
    // The advisor covers the profiled launches only (as the counters do).
    if (l.occupancy.blocksPerSM == 0 || !l.profiled)
      continue;
    const std::string where = launchWhere(in, l);
    const uint64_t threads = uint64_t(l.block[0]) * l.block[1] * l.block[2];
    const uint64_t warps = (threads + 31) / 32;
    const std::string k = "kernel '" + l.kernel + "': ";
    if (threads % 32)
      found.push_back({0, double(32 - threads % 32) / double(32 * warps), where,
                       k + "block of " + u(threads) +
                           " threads is not a multiple of 32: " + u(32 - threads % 32) +
                           " lanes of its last warp idle; use a multiple of 32"});
    if (l.waves.blocks < uint64_t(dev.smCount))
      found.push_back({0, double(dev.smCount - l.waves.blocks) / double(dev.smCount), where,
                       k + "grid of " + u(l.waves.blocks) + " blocks leaves " +
                           u(dev.smCount - l.waves.blocks) + " of " + u(dev.smCount) +
                           " SMs idle; use more, smaller blocks (at least one per SM)"});
    else if (l.waves.waves > 0 && l.waves.blocksInLastWave < l.waves.blocks &&
             l.waves.lastWaveFullness < 1.0) {
      const double slots = double(l.waves.sms) * l.waves.blocksPerSM;
      found.push_back({0, (1.0 - l.waves.lastWaveFullness) / double(l.waves.waves), where,
                       k + u(l.waves.blocks) + " blocks make " + u(l.waves.waves) + " waves of " +
                           formatNumber("%.0f", slots) + " on " + dev.name +
                           "; the last (tail) wave is " +
                           formatNumber("%.0f%%", 100 * l.waves.lastWaveFullness) +
                           " full: size the grid as a multiple of SMs x blocks per SM"});
    }
    // The timing model says the launch waits on latency: too few warps in flight per SM.
    if (l.time.bound == TimeLimiter::Latency && l.time.warpsToHideLatency > l.time.warpsPerSM)
      found.push_back({0, 1.0 - l.time.warpsPerSM / l.time.warpsToHideLatency, where,
                       k + "its modelled time (" + formatSeconds(l.time.seconds) +
                           ") is bound by latency: " + formatNumber("%.0f", l.time.warpsPerSM) +
                           " warps per SM in flight, about " +
                           formatNumber("%.0f", l.time.warpsToHideLatency) +
                           " would hide it; give each SM more warps (more blocks, or more "
                           "threads per block) or each thread more independent work"});
    // Occupancy below 100 % wastes nothing by itself (it hides latency: the finding above says
    // when that matters): listed after every finding with a cost.
    if (l.occupancy.occupancy < 0.999)
      found.push_back({0, 0, where,
                       k + "occupancy " + formatNumber("%.0f%%", 100 * l.occupancy.occupancy) +
                           " (" + u(l.occupancy.blocksPerSM) + " blocks/SM), bound by " +
                           occupancyLimitName(l.occupancy.limit) + " per SM"});
  }

  // Sites.
  double globalBytes = 0;
  for (const SiteCounters &c : sites)
    for (const GlobalOpCounters &g : c.global)
      globalBytes += double(g.bytesMoved);
  const std::vector<AccessSample> &samples = rt.counters().samples();
  double total = 0;
  const std::vector<double> seconds = siteSeconds(rt, launches, total);
  for (size_t i = 0; i < sites.size() && i < in.sites.size(); ++i) {
    const SiteCounters &c = sites[i];
    const SiteInfo &s = in.sites[i];
    const std::string where = s.file + ":" + std::to_string(s.line);
    const AccessSample *sm =
        i < samples.size() && samples[i].key != UINT64_MAX ? &samples[i] : nullptr;
    const double share = total > 0 && i < seconds.size() ? seconds[i] / total : 0.0;
    sharedFinding(c, sm, v, where, share, found);
    globalFindings(c, sm, v, dev, where, share, found);
    singleLaneFinding(c, sm, globalBytes, where, share, found);
    branchFinding(c, sm, where, found);
  }

  // The costliest in modelled time first (to the percent), then by what they waste, then the
  // launches that leave the most hardware idle; ties in the order found (launches, then sites
  // by id).
  std::stable_sort(found.begin(), found.end(), [](const Finding &a, const Finding &b) {
    const double ta = std::round(100 * a.time), tb = std::round(100 * b.time);
    if (ta != tb)
      return ta > tb;
    return a.cost != b.cost ? a.cost > b.cost : a.idle > b.idle;
  });
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string &where, const std::string &text) {
    if (seen.insert(where + text).second)
      out.push_back(where + ": advice: " + text);
  };
  for (const Finding &f : found)
    add(f.where, f.text);

  // Transfers: their cost is time, which kernels do not have yet; listed last.
  if (!transfers)
    return out;
  const double kernels = kernelSeconds(rt);
  const TransferTotals t = transferTotals(rt);
  if (kernels > 0 && t.seconds[0] + t.seconds[1] > kernels)
    add(in.program, "transfers take " + formatSeconds(t.seconds[0] + t.seconds[1]) +
                        ", more than the kernels they feed (" + formatSeconds(kernels) +
                        "): keep data on the device between launches");
  double pageable = 0, pinned = 0;
  uint64_t pageableBytes = 0;
  for (const TransferRecord &r : rt.transfers())
    if (!r.pinned) {
      pageable += r.seconds;
      pinned += transferSeconds(dev, r.bytes, true, r.direction == TransferDirection::HostToDevice);
      pageableBytes += r.bytes;
    }
  if (pageable > 0 && pageable - pinned > 0.1 * pageable && pageableBytes >= (1u << 20))
    add(in.program, std::to_string(t.pageableCount) + " pageable transfers (" +
                        formatBytes(pageableBytes) + ") take " + formatSeconds(pageable) +
                        "; from pinned memory (cudaMallocHost) they would take " +
                        formatSeconds(pinned));
  return out;
}

} // namespace

std::vector<std::string> advise(const ReportInput &in) {
  std::vector<size_t> all(in.rt->launches().size());
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  return findings(in, all, in.rt->counters().program().sites, true);
}

std::vector<std::string> adviseLaunch(const ReportInput &in, size_t launch) {
  if (launch >= in.rt->launches().size() || launch >= in.rt->counters().launchCount())
    return {};
  return findings(in, {launch}, in.rt->counters().launch(launch).sites, false);
}

} // namespace kern::runtime
