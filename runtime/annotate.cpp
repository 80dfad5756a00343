// `kern annotate`: the program's source with each line's counters beside it, like a profiler's
// source view, and the lines that cost the most marked.
#include "runtime/report.h"
#include "runtime/timing.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace kern::runtime {

namespace {

std::string fmt1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// What the line cost beyond an ideal GPU: bank conflicts, sectors moved beyond what the best
/// access to the same bytes would move, and divergent branches. Only used to rank lines.
double excessCost(const SiteCounters &c) {
  double s = 0;
  for (uint32_t k = 0; k < kMemoryOpKinds; ++k) {
    s += double(c.shared[k].conflicts());
    s += double(globalWastedBytes(c.global[k])) / 32.0;
  }
  return s + double(c.branchesDivergent);
}

} // namespace

std::string lineCountersText(const SiteCounters &c, const DeviceProfile &dev) {
  const bool sectorsRule = dev.globalRule == GlobalRule::Sectors;
  const bool halfWarp = dev.ccMajor == 1;
  static const char *const kOp[kMemoryOpKinds] = {"ld", "st", "atom", "red"};
  std::vector<std::string> parts;
  for (uint32_t k = 0; k < kMemoryOpKinds; ++k) {
    const GlobalOpCounters &g = c.global[k];
    if (!g.instructions)
      continue;
    if (sectorsRule)
      parts.push_back(std::string(kOp[k]) + " " + fmt1(sectorsPerRequest(g)) + " sect/req");
    else if (halfWarp) // cc1.x: transactions per half-warp request, as its profiler counted
      parts.push_back(std::string(kOp[k]) + " " +
                      fmt1(double(g.transactions) / double(g.requests)) + " trans/half-warp");
    else
      parts.push_back(std::string(kOp[k]) + " " +
                      fmt1(double(g.transactions) / double(g.instructions)) + " trans/warp");
    if (globalEfficiency(g) < 99.95)
      parts.back() += " (" + fmt1(globalEfficiency(g)) + "% eff)";
  }
  for (uint32_t k = 0; k < kMemoryOpKinds; ++k) {
    const SharedOpCounters &s = c.shared[k];
    if (!s.instructions)
      continue;
    std::string p = std::string("shared ") + kOp[k] + " ";
    if (halfWarp) // cc1.x: steps per half-warp, the extra ones its profiler's warp_serialize
      p += fmt1(double(s.steps) / double(s.requests)) + " steps/half-warp";
    else
      p += fmt1(sharedStepsPerInstruction(s)) + " wavefronts/inst";
    if (s.conflicts())
      p += " (" + fmt1(double(s.conflicts()) / double(s.instructions)) +
           (halfWarp ? " serialized/inst)" : " conflicts/inst)");
    parts.push_back(p);
  }
  if (c.constantRequests)
    parts.push_back("const " + fmt1(double(c.constantSerialization) / double(c.constantRequests)) +
                    " addr/req");
  if (c.branchesExecuted) {
    // The source's branches, and beside them what the GPU's code makes of them (docs/counters.md,
    // "Branches as the GPU executes them") where that differs.
    std::string p = "branch " + std::to_string(c.branchesDivergent) + "/" +
                    std::to_string(c.branchesExecuted) + " divergent";
    if (c.sassBranches == 0)
      p += " (GPU: predicated)";
    else if (c.sassBranches != c.branchesExecuted || c.sassBranchesDivergent != c.branchesDivergent)
      p += " (GPU: " + std::to_string(c.sassBranchesDivergent) + "/" +
           std::to_string(c.sassBranches) + ")";
    parts.push_back(p);
  } else if (c.sassBranches) {
    parts.push_back("GPU branch " + std::to_string(c.sassBranchesDivergent) + "/" +
                    std::to_string(c.sassBranches) + " divergent");
  }
  if (c.barriersExecuted)
    parts.push_back("barrier x" + std::to_string(c.barriersExecuted));
  std::string out;
  for (const std::string &p : parts)
    out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::vector<double> siteSeconds(const Runtime &rt, const std::vector<size_t> &launches,
                                double &total) {
  std::vector<double> seconds;
  total = 0;
  for (size_t i : launches) {
    const LaunchRecord &rec = rt.launches()[i];
    if (!rec.profiled)
      continue;
    total += rec.time.seconds;
    const std::vector<SiteCounters> &sites = rt.counters().launch(i).sites;
    std::vector<double> use(sites.size());
    double sum = 0;
    for (size_t s = 0; s < sites.size(); ++s) {
      use[s] = siteBoundUse(rt.device(), rec.time, sites[s]);
      sum += use[s];
    }
    if (seconds.size() < sites.size())
      seconds.resize(sites.size());
    const double body = rec.time.seconds - rec.time.limiter(TimeLimiter::Launch);
    for (size_t s = 0; s < sites.size() && sum > 0; ++s)
      seconds[s] += body * use[s] / sum;
  }
  return seconds;
}

std::string annotateSource(const ReportInput &in) {
  const Runtime &rt = *in.rt;
  std::map<uint32_t, SiteCounters> byLine;
  const std::vector<SiteCounters> &sites = rt.counters().program().sites;
  for (size_t i = 0; i < sites.size() && i < in.sites.size(); ++i)
    if (in.sites[i].fileId == in.mainFileId)
      byLine[in.sites[i].line] += sites[i];

  // The three costliest lines are marked.
  std::vector<std::pair<double, uint32_t>> ranked;
  for (const auto &[line, c] : byLine)
    if (double e = excessCost(c); e > 0)
      ranked.push_back({e, line});
  std::sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  });
  std::map<uint32_t, size_t> rank;
  for (size_t i = 0; i < ranked.size() && i < 3; ++i)
    rank[ranked[i].second] = i + 1;

  std::vector<std::string> lines;
  std::istringstream src(in.source);
  std::string l;
  size_t width = 0;
  while (std::getline(src, l)) {
    for (size_t p; (p = l.find('\t')) != std::string::npos;)
      l.replace(p, 1, "    ");
    lines.push_back(l);
    width = std::max(width, l.size());
  }
  width = std::min<size_t>(width, 64);

  size_t profiled = 0;
  for (const auto &launch : rt.launches())
    profiled += launch.profiled;
  const std::string over = profiled == rt.launches().size()
                               ? std::to_string(profiled) + " launch(es)"
                               : std::to_string(profiled) + " profiled launch(es) of " +
                                     std::to_string(rt.launches().size());
  double totalTime = 0;
  std::vector<size_t> all(rt.launches().size());
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  std::map<uint32_t, double> timeOf;
  const std::vector<double> seconds = siteSeconds(rt, all, totalTime);
  for (size_t s = 0; s < seconds.size() && s < in.sites.size(); ++s)
    if (seconds[s] > 0 && in.sites[s].fileId == in.mainFileId)
      timeOf[in.sites[s].line] += seconds[s];
  std::string out = "// " + in.program + " on " + rt.device().name + ": counters summed over " +
                    over + "; '<<<' marks the lines that cost the most (conflicts, wasted " +
                    "sectors, divergence); 'time' is the line's share of the kernels' modelled " +
                    "time (beyond each launch's fixed overhead), by what bounds each launch\n";
  for (size_t i = 0; i < lines.size(); ++i) {
    const uint32_t line = static_cast<uint32_t>(i + 1);
    char num[16];
    std::snprintf(num, sizeof num, "%5u | ", line);
    std::string text = num + lines[i];
    auto it = byLine.find(line);
    std::string note = it == byLine.end() ? "" : lineCountersText(it->second, rt.device());
    if (auto t = timeOf.find(line);
        t != timeOf.end() && totalTime > 0 && t->second >= 0.005 * totalTime)
      note += (note.empty() ? "time " : ", time ") + fmt1(100.0 * t->second / totalTime) + "%";
    if (!note.empty()) {
      if (lines[i].size() < width)
        text.append(width - lines[i].size(), ' ');
      text += "   " + note;
      if (auto r = rank.find(line); r != rank.end())
        text += r->second == 1 ? "  <<< worst" : "  <<< #" + std::to_string(r->second);
    }
    while (!text.empty() && text.back() == ' ')
      text.pop_back();
    out += text + "\n";
  }
  return out;
}

} // namespace kern::runtime
