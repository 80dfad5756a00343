// `kern explain FILE:LINE`: the lane maps of one source line. For each memory access on the line,
// a warp's 32 lanes drawn against the device's rules (lane -> bank and the step that serves it;
// lane -> the transaction that serves it), for the first warp that ran it and for the worst;
// for each branch, which way each lane of a warp that split went.
#include "runtime/report.h"

#include "runtime/counter_hooks.h"
#include "runtime/counter_rules.h"

#include <algorithm>
#include <cstdio>

namespace kern::runtime {

namespace {

/// "1 branch", "2 branches".
std::string n(uint64_t v, const std::string &one, const std::string &many) {
  return u(v) + " " + (v == 1 ? one : many);
}

constexpr int kLanes = 32;
constexpr const char *kIndent = "    ";

/// One row of 32 cells, `width` characters each, under a label of 10.
std::string laneRow(const std::string &label, const std::string (&cells)[kLanes], int width = 3) {
  char head[16];
  std::snprintf(head, sizeof head, "%-10s", label.c_str());
  std::string out = std::string(kIndent) + head;
  for (int l = 0; l < kLanes; ++l) {
    char cell[32];
    std::snprintf(cell, sizeof cell, "%*s", width, cells[l].c_str());
    out += cell;
  }
  while (out.back() == ' ')
    out.pop_back();
  return out + "\n";
}

std::string laneNumbers(int width = 3) {
  std::string cells[kLanes];
  for (int l = 0; l < kLanes; ++l)
    cells[l] = u(l);
  return laneRow("lane", cells, width);
}

/// The lowest address (offset) of the active lanes.
uint64_t lowest(const LaneCapture &c) {
  uint64_t low = UINT64_MAX;
  for (int l = 0; l < kLanes; ++l)
    if ((c.mask >> l) & 1)
      low = std::min(low, c.addrs[l]);
  return low;
}

/// The width of a map's columns: its widest number ((address - low) / unit) and a space, at
/// least 3.
int columnWidth(const LaneCapture &c, uint64_t low, uint64_t unit) {
  size_t widest = 2;
  for (int l = 0; l < kLanes; ++l)
    if ((c.mask >> l) & 1)
      widest = std::max(widest, u((c.addrs[l] - low) / unit).size());
  return static_cast<int>(widest) + 1;
}

/// "launch 2 (transpose), block (1,0,0), warp 3".
bool isShared(const LaneCapture &c) {
  return (c.flags & KERN_ACCESS_SPACE_MASK) == KERN_ACCESS_SHARED;
}
uint32_t opOf(const LaneCapture &c) { return c.flags & KERN_ACCESS_OP_MASK; }

/// The shared lane map: banks, then a row per step marking the lanes it serves.
std::string sharedMap(const CounterConfig &config, const LaneCapture &c) {
  const bool atomic = opOf(c) >= KERN_ACCESS_ATOMIC;
  const SharedLaneMap m = sharedLaneMap(config.sharedRule, config.sharedBanks, c.addrs, c.mask,
                                        c.size, opOf(c) != KERN_ACCESS_LOAD);
  const uint64_t low = lowest(c) / 4 * 4;
  const int width = columnWidth(c, low, 4);
  std::string out = laneNumbers(width);
  std::string cells[kLanes];
  for (int l = 0; l < kLanes; ++l)
    cells[l] = (c.mask >> l) & 1 ? u((c.addrs[l] - low) / 4) : ".";
  out += laneRow("word", cells, width);
  for (int l = 0; l < kLanes; ++l)
    cells[l] = (c.mask >> l) & 1 ? u(m.bank[l]) : ".";
  out += laneRow("bank", cells, width);
  const std::string note =
      std::string(kIndent) + "(words from byte " + u(low) + " of the block's shared memory)\n";
  if (atomic) // the rules of atomics are their own (docs/atomics.md): no step per lane drawn
    return out + note;
  for (uint64_t step = 0; step < m.cost.steps; ++step) {
    for (int l = 0; l < kLanes; ++l)
      cells[l] = (m.serves[step] >> l) & 1 ? "#" : "";
    out += laneRow("step " + u(step + 1), cells, width);
  }
  return out + note;
}

/// The global lane map: the transaction that serves each lane, then the transactions.
std::string globalMap(const CounterConfig &config, const LaneCapture &c) {
  const GlobalLaneMap m =
      globalLaneMap(config.globalRule, c.addrs, c.mask, c.size, opOf(c) != KERN_ACCESS_LOAD);
  std::string cells[kLanes];
  const uint64_t low = lowest(c);
  const int width = columnWidth(c, low, 1);
  std::string out = laneNumbers(width);
  for (int l = 0; l < kLanes; ++l)
    cells[l] = (c.mask >> l) & 1 ? u(c.addrs[l] - low) : ".";
  out += laneRow("byte", cells, width);
  for (int l = 0; l < kLanes; ++l)
    cells[l] = (c.mask >> l) & 1 ? u(m.transaction[l] + 1u) : ".";
  out += laneRow("moved by", cells, width);
  char hex[32];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(low));
  std::string list = std::string(kIndent) + "bytes from 0x" + hex + "; " + u(m.transactionCount) +
                     (m.transactionCount == 1 ? " transaction:" : " transactions:");
  for (uint32_t t = 0; t < m.transactionCount; ++t) {
    const int64_t at = static_cast<int64_t>(m.transactionStart[t] - low);
    std::string item =
        " " + u(t + 1) + ": " + u(m.transactionBytes[t]) + " B at " +
        (at < 0 ? "-" + u(static_cast<uint64_t>(-at)) : u(static_cast<uint64_t>(at))) +
        (t + 1 < m.transactionCount ? "," : "");
    if (list.size() - list.rfind('\n') + item.size() > 100 && list.back() == ',')
      list += "\n" + std::string(kIndent) + " ";
    list += item;
  }
  return out + list + "\n";
}

/// What the rules charged one warp, in the device's words.
std::string warpCost(const DeviceProfile &dev, const LaneCapture &c) {
  const std::string unit = isShared(c) ? (dev.ccMajor == 1 ? "step" : "wavefront")
                           : opOf(c) >= KERN_ACCESS_ATOMIC         ? "pass"
                           : dev.globalRule == GlobalRule::Sectors ? "sector"
                                                                   : "transaction";
  return u(c.cost) + " " + unit + (c.cost == 1 ? "" : unit == "pass" ? "es" : "s");
}

/// The site's counters over the run, one line.
std::string siteTotals(const DeviceProfile &dev, const SiteCounters &s, const LaneCapture &c) {
  const auto op = static_cast<MemoryOpKind>(std::min<uint32_t>(opOf(c), kMemoryOpKinds - 1));
  if (isShared(c)) {
    const SharedOpCounters &sh = s.sharedOf(op);
    return n(sh.instructions, "instruction", "instructions") + ", " +
           (dev.ccMajor == 1 ? n(sh.steps, "step", "steps")
                             : n(sh.steps, "wavefront", "wavefronts")) +
           " (" + u(sh.idealSteps) + " ideal), " +
           n(sh.conflicts(), "bank conflict", "bank conflicts");
  }
  const GlobalOpCounters &g = s.globalOf(op);
  return n(g.instructions, "instruction", "instructions") + ", " +
         n(g.requests, "request", "requests") + (dev.ccMajor == 1 ? " (half-warps), " : ", ") +
         (dev.globalRule == GlobalRule::Sectors
              ? n(g.transactions, "sector", "sectors")
              : n(g.transactions, "transaction", "transactions")) +
         ", " + u(g.bytesRequested) + " B used of " + u(g.bytesMoved) + " B moved (" +
         formatNumber("%.1f %%", globalEfficiency(g)) + ")";
}

const char *opName(uint32_t op) {
  switch (op) {
  case KERN_ACCESS_LOAD:
    return "load";
  case KERN_ACCESS_STORE:
    return "store";
  case KERN_ACCESS_ATOMIC:
    return "atomic";
  default:
    return "reduction";
  }
}

/// `totalsLabel`: what the site's totals cover (the run, or the launch explained).
std::string accessSite(const ReportInput &in, const SiteInfo &site, const SiteCounters &totals,
                       const char *totalsLabel, const SiteCapture &c) {
  const Runtime &rt = *in.rt;
  const DeviceProfile &dev = rt.device();
  const CounterConfig config = counterConfigFor(dev);
  const LaneCapture &first = c.first;
  std::string out = site.file + ":" + u(site.line) + ":" + u(site.col) + ": " +
                    (isShared(first) ? "shared " : "global ") + opName(opOf(first)) + ", " +
                    u(first.size) + " B per lane\n";
  out += std::string(totalsLabel) + ": " + siteTotals(dev, totals, first) + "\n";
  auto map = [&](const LaneCapture &w) {
    return isShared(w) ? sharedMap(config, w) : globalMap(config, w);
  };
  out += "  first warp: " + warpName(rt, first.key, first.launch) + ": " + warpCost(dev, first) +
         "\n" + map(first);
  const LaneCapture &worst = c.worst;
  if (worst.cost == first.cost)
    out += "  no warp costs more than the first\n";
  else
    out += "  worst warp: " + warpName(rt, worst.key, worst.launch) + ": " + warpCost(dev, worst) +
           "\n" + map(worst);
  if (isShared(first) && dev.bankRule == BankRule::HalfWarp)
    out += "  (cc " + u(dev.ccMajor) + "." + u(dev.ccMinor) +
           ": lanes 0-15 and 16-31 are separate requests, 16 banks)\n";
  return out;
}

std::string branchSite(const ReportInput &in, const SiteInfo &site, const SiteCounters &totals,
                       const char *totalsLabel, const AccessSample &sample) {
  std::string out = site.file + ":" + u(site.line) + ":" + u(site.col) + ": branch (" + site.what +
                    ")\n" + std::string(totalsLabel) + ": " +
                    n(totals.branchesExecuted, "branch", "branches") + ", " +
                    u(totals.branchesDivergent) + " divergent\n";
  if (sample.key == UINT64_MAX)
    return out + "  no warp split here: each warp's active lanes all went one way\n";
  std::string cells[kLanes], rows;
  // Each time the warp split here (a loop's iterations), the first kBranchSplitsKept of them.
  for (uint32_t r = 0; sample.splits > 1 && r < std::min(sample.splits, kBranchSplitsKept); ++r) {
    for (int l = 0; l < kLanes; ++l)
      cells[l] = !((sample.splitMask[r] >> l) & 1) ? "."
                 : (sample.splitTaken[r] >> l) & 1 ? "T"
                                                   : "F";
    rows += laneRow("split " + u(r + 1), cells);
  }
  if (sample.splits > kBranchSplitsKept)
    rows += std::string(kIndent) + "(the warp split here " + u(sample.splits) +
            " times; the first " + u(kBranchSplitsKept) + " are drawn)\n";
  for (int l = 0; l < kLanes; ++l)
    cells[l] = !((sample.mask >> l) & 1) ? "." : (sample.taken >> l) & 1 ? "T" : "F";
  if (!rows.empty())
    return out + "  first warp that split: " + warpName(*in.rt, sample.key, sample.launch) +
           ", each time it split here:\n" + laneNumbers() + rows;
  return out + "  first warp that split: " + warpName(*in.rt, sample.key, sample.launch) + ": " +
         u(std::popcount(sample.taken & sample.mask)) + " lanes true, " +
         u(std::popcount(sample.mask & ~sample.taken)) + " false\n" + laneNumbers() +
         laneRow("condition", cells);
}

} // namespace

std::string explainLine(const ReportInput &in, uint32_t line, size_t launch) {
  const Runtime &rt = *in.rt;
  const bool one = launch != kAllLaunches;
  // One launch: its own captures, taken when it ends (the REPL's :explain).
  const std::vector<SiteCapture> &captures =
      one ? rt.counters().lastLaunchCaptures() : rt.counters().captures();
  const std::vector<AccessSample> &samples = rt.counters().samples();
  const LaunchCounters &program = one ? rt.counters().launch(launch) : rt.counters().program();
  std::string out;
  std::vector<size_t> order;
  for (size_t i = 0; i < in.sites.size(); ++i)
    if (in.sites[i].fileId == in.mainFileId && in.sites[i].line == line)
      order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return in.sites[a].col < in.sites[b].col; });
  const char *totalsLabel = one ? "  in this launch" : "  over the run";
  for (size_t i : order) {
    const SiteInfo &site = in.sites[i];
    const SiteCounters totals = i < program.sites.size() ? program.sites[i] : SiteCounters{};
    if (i < captures.size() && captures[i].first.key != UINT64_MAX)
      out += accessSite(in, site, totals, totalsLabel, captures[i]);
    else if ((site.kind == "branch" || site.kind == "loop") && totals.branchesExecuted > 0)
      out += branchSite(in, site, totals, totalsLabel,
                        i < samples.size() ? samples[i] : AccessSample{});
    else
      continue;
    out += "\n";
  }
  if (out.empty())
    return "";
  return "kern: line " + u(line) + " of " + in.program + " on " + rt.device().name + " (cc " +
         u(rt.device().ccMajor) + "." + u(rt.device().ccMinor) + ")\n\n" + out;
}

} // namespace kern::runtime
