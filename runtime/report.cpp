// The text and JSON reports of a run with counters: the --stats table after each launch, the
// short summary, the JSON report of docs/report-schema.md and the counter text of the tests.
#include "runtime/report.h"

#include "runtime/json.h"
#include "runtime/ncu_metrics.h"

#include <cmath>
#include <cstdio>
#include <map>

namespace kern::runtime {

namespace {

const char *const kOpNames[kMemoryOpKinds] = {"load", "store", "atomic", "reduction"};
const char *const kOpShort[kMemoryOpKinds] = {"ld", "st", "atom", "red"};

const char *siteKindName(backend::SiteKind k) {
  switch (k) {
  case backend::SiteKind::Load:
    return "load";
  case backend::SiteKind::Store:
    return "store";
  case backend::SiteKind::Atomic:
    return "atomic";
  case backend::SiteKind::Branch:
    return "branch";
  case backend::SiteKind::Loop:
    return "loop";
  case backend::SiteKind::Barrier:
    return "barrier";
  case backend::SiteKind::Call:
    return "call";
  case backend::SiteKind::Printf:
    return "printf";
  case backend::SiteKind::Launch:
    return "launch";
  case backend::SiteKind::Other:
    break;
  }
  return "other";
}

const char *directionName(int d) { return d == 0 ? "HtoD" : "DtoH"; }

} // namespace

// ---- helpers ------------------------------------------------------------------------------------

std::string formatBytes(uint64_t bytes) {
  if (bytes >= (1ull << 30))
    return formatNumber("%.2f GiB", double(bytes) / double(1ull << 30));
  if (bytes >= (1ull << 20))
    return formatNumber("%.2f MiB", double(bytes) / double(1ull << 20));
  if (bytes >= (1ull << 10))
    return formatNumber("%.2f KiB", double(bytes) / double(1ull << 10));
  return u(bytes) + " B";
}

std::string warpName(const Runtime &rt, uint64_t key, uint64_t launch) {
  const uint64_t linear = key >> 16, warp = key & 0xFFFF;
  std::string out = "launch " + u(launch);
  if (launch < rt.launches().size()) {
    const LaunchRecord &l = rt.launches()[launch];
    const uint64_t x = linear % l.grid[0], y = linear / l.grid[0] % l.grid[1],
                   z = linear / (uint64_t{l.grid[0]} * l.grid[1]);
    out += " (" + l.kernel + "), block (" + u(x) + "," + u(y) + "," + u(z) + ")";
  }
  return out + ", warp " + u(warp);
}

std::string formatNumber(const char *format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string formatSeconds(double s) {
  if (s >= 1)
    return formatNumber("%.3f s", s);
  if (s >= 1e-3)
    return formatNumber("%.3f ms", s * 1e3);
  return formatNumber("%.2f us", s * 1e6);
}

std::vector<SiteInfo> siteTable(const backend::ProgramImage &image) {
  std::vector<SiteInfo> out(image.sites.size());
  for (size_t i = 0; i < image.sites.size(); ++i) {
    const backend::SiteImage &s = image.sites[i];
    out[i].fileId = s.file;
    out[i].file = image.fileName(s.file);
    out[i].line = s.line;
    out[i].col = s.col;
    out[i].kind = siteKindName(s.kind);
    out[i].what = s.what;
  }
  return out;
}

TransferTotals transferTotals(const Runtime &rt) {
  TransferTotals t;
  for (const TransferRecord &r : rt.transfers()) {
    const int d = r.direction == TransferDirection::HostToDevice ? 0 : 1;
    ++t.count[d];
    t.bytes[d] += r.bytes;
    t.seconds[d] += r.seconds;
    t.pageableCount += !r.pinned;
  }
  return t;
}

std::vector<TransferTotals> transferGaps(const Runtime &rt) {
  std::vector<TransferTotals> gaps(rt.launches().size() + 1);
  size_t gap = 0;
  for (const TimelineEvent &e : rt.timeline()) {
    if (e.kind == TimelineEvent::Kind::Launch) {
      gap = e.index + 1;
      continue;
    }
    const TransferRecord &r = rt.transfers()[e.index];
    const int d = r.direction == TransferDirection::HostToDevice ? 0 : 1;
    TransferTotals &t = gaps[std::min(gap, gaps.size() - 1)];
    ++t.count[d];
    t.bytes[d] += r.bytes;
    t.seconds[d] += r.seconds;
    t.pageableCount += !r.pinned;
  }
  return gaps;
}

double kernelSeconds(const Runtime &rt) {
  double s = 0;
  for (const LaunchRecord &l : rt.launches())
    s += l.modelledSeconds;
  return s;
}

// ---- --stats ------------------------------------------------------------------------------------

namespace {

std::string dim3(const uint32_t d[3]) {
  if (d[1] == 1 && d[2] == 1)
    return u(d[0]);
  return "(" + u(d[0]) + "," + u(d[1]) + "," + u(d[2]) + ")";
}

void row(std::string &out, const std::string &name, const std::string &text) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "  %-22s", name.c_str());
  out += buf + text + "\n";
}

/// A global row in the generation's words: cc1.x's profiler counted coalesced transactions per
/// half-warp request (gld_coherent / gld_incoherent, gst_*), Fermi's transactions and 128 B
/// lines or 32 B segments, Nsight Compute (cc3.0 on) sectors per request.
std::string globalLine(const GlobalOpCounters &g, GlobalRule rule) {
  std::string s = "inst " + u(g.instructions) + "  requests " + u(g.requests);
  const double perRequest = g.requests ? double(g.transactions) / double(g.requests) : 0;
  if (rule == GlobalRule::Cc10 || rule == GlobalRule::Cc12)
    return s + " (half-warps)  transactions " + u(g.transactions) + " (" +
           formatNumber("%.2f", perRequest) + "/half-warp, " + u(g.bytesMoved) +
           " B)  efficiency " + formatNumber("%.1f %%", globalEfficiency(g));
  if (rule != GlobalRule::Sectors)
    s +=
        "  transactions " + u(g.transactions) + " (" +
        formatNumber("%.2f", g.instructions ? double(g.transactions) / double(g.instructions) : 0) +
        "/inst)";
  s += "  sectors " + u(g.sectors) + " (" + formatNumber("%.2f", sectorsPerRequest(g)) + "/req)";
  s += "  efficiency " + formatNumber("%.1f %%", globalEfficiency(g));
  return s;
}

/// A shared row: cc1.x serves each half-warp in steps, and its profiler counts the extra ones
/// as warp_serialize; from Fermi on, Nsight's wavefronts and bank conflicts.
std::string sharedLine(const SharedOpCounters &s, bool halfWarp) {
  if (halfWarp)
    return "inst " + u(s.instructions) + "  requests " + u(s.requests) + " (half-warps)  steps " +
           u(s.steps) + " (" +
           formatNumber("%.2f", s.requests ? double(s.steps) / double(s.requests) : 0) +
           "/half-warp)  serialized " + u(s.conflicts()) + " (warp_serialize)";
  return "inst " + u(s.instructions) + "  requests " + u(s.requests) + "  wavefronts " +
         u(s.steps) + " (" + formatNumber("%.2f", sharedStepsPerInstruction(s)) +
         "/inst)  conflicts " + u(s.conflicts());
}

} // namespace

/// "68.73 us, bound by DRAM bandwidth (DRAM 97%, L2 18%, latency 80%, issue 9%)": the limiters
/// that take a tenth of the time or more, longest first.
std::string timeLine(const LaunchTime &t) {
  std::string out = formatSeconds(t.seconds) + ", bound by " + boundName(t.bound, t.pipe);
  std::vector<std::pair<double, TimeLimiter>> shares;
  for (size_t l = 0; l < kTimeLimiters; ++l)
    if (t.share(TimeLimiter(l)) >= 0.1)
      shares.push_back({t.share(TimeLimiter(l)), TimeLimiter(l)});
  std::stable_sort(shares.begin(), shares.end(),
                   [](const auto &a, const auto &b) { return a.first > b.first; });
  std::string parts;
  for (const auto &[share, l] : shares)
    parts += (parts.empty() ? "" : ", ") +
             std::string(l == TimeLimiter::Issue ? issuePipeKey(t.pipe) : timeLimiterKey(l)) + " " +
             formatNumber("%.0f%%", 100 * share);
  if (!parts.empty())
    out += " (" + parts + ")";
  if (t.warpsToHideLatency > 0)
    out += "; " + formatNumber("%.0f", t.warpsPerSM) + " warps/SM in flight, about " +
           formatNumber("%.0f", t.warpsToHideLatency) + " would hide the latency";
  return out;
}

std::string launchStatsTable(const ReportInput &in, size_t i) {
  const Runtime &rt = *in.rt;
  const LaunchRecord &l = rt.launches()[i];
  const DeviceProfile &dev = rt.device();
  const SiteCounters &c = rt.counters().launch(i).total;
  std::string out = "== launch " + u(i) + ": " + l.kernel + "<<<" + dim3(l.grid) + ", " +
                    dim3(l.block) + ">>> on " + dev.name + " (cc " + u(dev.ccMajor) + "." +
                    u(dev.ccMinor) + ")\n";
  row(out, "modelled time", timeLine(l.time));
  row(out, "shared memory", u(l.sharedBytes) + " B/block");
  row(out, "registers", u(l.registersPerThread) + "/thread (" + l.registersSource + ")");
  if (l.occupancy.blocksPerSM > 0) {
    row(out, "occupancy",
        formatNumber("%.1f %%", 100 * l.occupancy.occupancy) + "  (" + u(l.occupancy.activeWarps) +
            " of " + u(l.occupancy.maxWarps) + " warps/SM, " + u(l.occupancy.blocksPerSM) +
            " blocks/SM; limit: " + occupancyLimitName(l.occupancy.limit) + ")");
    row(out, "waves",
        u(l.waves.waves) + "  (" + u(l.waves.blocks) + " blocks on " + u(l.waves.sms) + " SMs x " +
            u(l.waves.blocksPerSM) + "; last wave " +
            formatNumber("%.0f %%", 100 * l.waves.lastWaveFullness) + " full)");
  }
  for (uint32_t k = 0; k < kMemoryOpKinds; ++k)
    if (c.global[k].instructions)
      row(out, std::string("global ") + kOpNames[k] + "s", globalLine(c.global[k], dev.globalRule));
  for (uint32_t k = 0; k < kMemoryOpKinds; ++k)
    if (c.shared[k].instructions)
      row(out, std::string("shared ") + kOpNames[k] + "s",
          sharedLine(c.shared[k], dev.bankRule == BankRule::HalfWarp));
  if (c.idleAccesses)
    row(out, "predicated off",
        u(c.idleAccesses) + " memory instructions issued with no lane on (an L1/shared pipe "
                            "wavefront each)");
  if (c.constantRequests)
    row(out, "constant",
        "requests " + u(c.constantRequests) + "  serialization " + u(c.constantSerialization));
  row(out, "branches",
      u(c.branchesExecuted) + "  divergent " + u(c.branchesDivergent) + "  efficiency " +
          formatNumber("%.1f %%", branchEfficiency(c)) + "  (GPU code: " + u(c.sassBranches) +
          ", divergent " + u(c.sassBranchesDivergent) + ")");
  row(out, "warp execution eff.",
      formatNumber("%.1f %%", warpExecutionEfficiency(c)) + "  (" + u(c.threadInstructions) +
          " thread / " + u(c.warpInstructions) + " warp instructions)");
  row(out, "barriers", u(c.barriersExecuted));
  row(out, "atomics", u(c.atomicsExecuted) + " warp-level, " + u(c.atomicThreadOps) + " thread");
  return out;
}

std::string programSummary(const ReportInput &in) {
  const Runtime &rt = *in.rt;
  std::string out;
  // By kernel, in order of first launch.
  std::vector<std::string> order;
  struct Kernel {
    uint64_t launches = 0;
    SiteCounters counters;
    double seconds = 0, longest = 0;
    TimeLimiter bound = TimeLimiter::Launch; ///< the bound of its longest launch
    IssuePipe pipe = IssuePipe::Issue;       ///< and its pipe
  };
  std::map<std::string, Kernel> byKernel;
  for (size_t i = 0; i < rt.launches().size(); ++i) {
    const LaunchRecord &l = rt.launches()[i];
    if (!l.profiled) // the summary covers the profiled launches only
      continue;
    auto [it, fresh] = byKernel.try_emplace(l.kernel);
    if (fresh)
      order.push_back(l.kernel);
    Kernel &k = it->second;
    ++k.launches;
    k.counters += rt.counters().launch(i).total;
    k.seconds += l.modelledSeconds;
    if (l.modelledSeconds >= k.longest) {
      k.longest = l.modelledSeconds;
      k.bound = l.time.bound;
      k.pipe = l.time.pipe;
    }
  }
  out += "kern: counters on " + rt.device().name;
  if (rt.profiledLaunches() != rt.launches().size()) {
    size_t faulted = 0;
    for (const auto &l : rt.launches())
      faulted += l.faulted;
    out += " (" + u(rt.profiledLaunches()) + " of " + u(rt.launches().size()) +
           " launches profiled" + (faulted ? "; a launch that faulted keeps no counters" : "") +
           ")";
  }
  out += ":\n";
  for (const std::string &k : order) {
    const Kernel &kernel = byKernel[k];
    const uint64_t n = kernel.launches;
    const SiteCounters &c = kernel.counters;
    std::string line = "  " + k + " (" + u(n) + (n == 1 ? " launch" : " launches") +
                       "): " + formatSeconds(kernel.seconds) + " modelled (" +
                       boundName(kernel.bound, kernel.pipe) + "),";
    const GlobalOpCounters &ld = c.global[0], &st = c.global[1];
    // cc1.x in its profiler's words: transactions and steps per half-warp, warp_serialize.
    const bool halfWarp = rt.device().ccMajor == 1;
    auto global = [&](const char *name, const GlobalOpCounters &g) {
      return std::string(name) +
             (halfWarp ? formatNumber("%.2f", double(g.transactions) / double(g.requests)) +
                             " trans/half-warp "
                       : formatNumber("%.2f", sectorsPerRequest(g)) + " sect/req ") +
             formatNumber("%.0f%%", globalEfficiency(g)) + ",";
    };
    if (ld.requests)
      line += global(" global ld ", ld);
    if (st.requests)
      line += global(" st ", st);
    const SharedOpCounters sh = c.sharedTotal();
    if (sh.instructions && halfWarp)
      line += " shared " + formatNumber("%.2f", double(sh.steps) / double(sh.requests)) +
              " steps/half-warp (" + u(sh.conflicts()) + " serialized),";
    else if (sh.instructions)
      line += " shared " + formatNumber("%.2f", sharedStepsPerInstruction(sh)) +
              " wavefronts/inst (" + u(sh.conflicts()) + " conflicts),";
    line += " branches " + u(c.branchesDivergent) + "/" + u(c.branchesExecuted) +
            " divergent, warp eff " + formatNumber("%.1f%%", warpExecutionEfficiency(c));
    out += line + "\n";
  }
  const TransferTotals t = transferTotals(rt);
  if (t.count[0] + t.count[1]) {
    out += "  transfers: HtoD " + u(t.count[0]) + " x " + formatBytes(t.bytes[0]) + " " +
           formatSeconds(t.seconds[0]) + ", DtoH " + u(t.count[1]) + " x " +
           formatBytes(t.bytes[1]) + " " + formatSeconds(t.seconds[1]);
    const double k = kernelSeconds(rt);
    out += ", transfer/kernel time " +
           (k > 0 ? formatNumber("%.2f", (t.seconds[0] + t.seconds[1]) / k)
                  : std::string("n/a (no kernel was timed)")) +
           "\n";
  }
  return out;
}

// ---- JSON ---------------------------------------------------------------------------------------

namespace {

/// Warp instructions by class (docs/counters.md, "Instruction classes").
Json classesJson(const SiteCounters &c) {
  Json o = Json::object();
  for (size_t k = 0; k < kInstrClasses; ++k)
    o[instrClassKey(k)] = instrClass(c, k);
  return o;
}

Json countersJson(const SiteCounters &c) {
  Json global = Json::object(), shared = Json::object();
  for (uint32_t k = 0; k < kMemoryOpKinds; ++k) {
    const GlobalOpCounters &g = c.global[k];
    global[kOpNames[k]] = {{"instructions", g.instructions},
                           {"requests", g.requests},
                           {"transactions", g.transactions},
                           {"sectors", g.sectors},
                           {"lines128", g.lines128},
                           {"bytesRequested", g.bytesRequested},
                           {"bytesMoved", g.bytesMoved},
                           {"sectorsPerRequest", jsonNumber(sectorsPerRequest(g))},
                           {"efficiency", jsonNumber(globalEfficiency(g))}};
  }
  for (uint32_t k = 0; k < kMemoryOpKinds; ++k) {
    if (k == static_cast<uint32_t>(MemoryOpKind::Reduction))
      continue; // counted as atomics, as the GPU counts them
    const SharedOpCounters &s = c.shared[k];
    shared[kOpNames[k]] = {{"instructions", s.instructions},
                           {"requests", s.requests},
                           {"wavefronts", s.steps},
                           {"idealWavefronts", s.idealSteps},
                           {"bankConflicts", s.conflicts()},
                           {"wavefrontsPerInstruction", jsonNumber(sharedStepsPerInstruction(s))}};
  }
  return {
      {"global", std::move(global)},
      {"shared", std::move(shared)},
      {"constant", {{"requests", c.constantRequests}, {"serialization", c.constantSerialization}}},
      {"branches",
       {{"executed", c.branchesExecuted},
        {"divergent", c.branchesDivergent},
        {"efficiency", jsonNumber(branchEfficiency(c))},
        {"divergentPercent", jsonNumber(divergentBranchPercent(c))},
        {"sassExecuted", c.sassBranches},
        {"sassDivergent", c.sassBranchesDivergent}}},
      {"instructions",
       {{"warp", c.warpInstructions},
        {"thread", c.threadInstructions},
        {"warpExecutionEfficiency", jsonNumber(warpExecutionEfficiency(c))},
        {"classes", classesJson(c)}}},
      {"barriers", c.barriersExecuted},
      {"atomics", {{"warp", c.atomicsExecuted}, {"thread", c.atomicThreadOps}}}};
}

/// The counters under Nsight Compute's metric names.
Json ncuJson(const SiteCounters &c, double seconds) {
  Json o = Json::object();
  for (const NcuMetric &m : ncuMetrics(c, seconds))
    o[m.name] = jsonNumber(m.value);
  return o;
}

bool anyCounted(const SiteCounters &c) { return !(c == SiteCounters{}); }

Json sitesJson(const std::vector<SiteCounters> &sites) {
  Json o = Json::array();
  for (size_t i = 0; i < sites.size(); ++i)
    if (anyCounted(sites[i]))
      o.push_back({{"site", i}, {"counters", countersJson(sites[i])}});
  return o;
}

Json transferTotalsJson(const TransferTotals &t) {
  Json o = Json::object();
  for (int d = 0; d < 2; ++d)
    o[directionName(d)] = {
        {"count", t.count[d]}, {"bytes", t.bytes[d]}, {"seconds", jsonNumber(t.seconds[d])}};
  o["pageableCount"] = t.pageableCount;
  return o;
}

Json deviceJson(const DeviceProfile &d) {
  return {{"name", d.name},
          {"cc", u(d.ccMajor) + "." + u(d.ccMinor)},
          {"sms", d.smCount},
          {"sharedBanks", d.sharedBanks},
          {"bankRule", bankRuleName(d.bankRule)},
          {"globalRule", globalRuleName(d.globalRule)},
          {"pcieGeneration", d.pcieGeneration},
          {"pcieLanes", d.pcieLanes},
          {"pcieBandwidth", jsonNumber(d.pcieBandwidth)},
          {"transferLatencyUs", jsonNumber(d.transferLatencyUs)},
          {"pinnedEfficiency", jsonNumber(d.pinnedEfficiency)},
          {"pageableEfficiency", jsonNumber(d.pageableEfficiency)},
          {"pageableKneeBytes", jsonNumber(d.pageableKneeBytes)},
          {"pageableBeyondKneeEfficiency", jsonNumber(d.pageableBeyondKneeEfficiency)}};
}

/// The timing model's answer for a launch (runtime/timing.h).
Json timeJson(const LaunchTime &t) {
  Json limiters = Json::object();
  for (size_t l = 0; l < kTimeLimiters; ++l)
    limiters[timeLimiterKey(TimeLimiter(l))] = jsonNumber(t.limiterSeconds[l]);
  return {{"seconds", jsonNumber(t.seconds)},
          {"bound", timeLimiterKey(t.bound)},
          {"pipe", issuePipeKey(t.pipe)},
          {"limiters", std::move(limiters)},
          {"dramBytes", jsonNumber(t.dramBytes)},
          {"aduInstructions", jsonNumber(t.aduInstructions)},
          {"l1HitRate", jsonNumber(100 * t.l1HitShare)},
          {"warpsPerSM", jsonNumber(t.warpsPerSM)},
          {"warpsToHideLatency", jsonNumber(t.warpsToHideLatency)}};
}

Json launchJson(const LaunchRecord &l, const LaunchCounters &lc, size_t index) {
  return {{"index", index},
          {"kernel", l.kernel},
          {"grid", {l.grid[0], l.grid[1], l.grid[2]}},
          {"block", {l.block[0], l.block[1], l.block[2]}},
          {"sharedBytes", l.sharedBytes},
          {"registersPerThread", l.registersPerThread},
          {"registersSource", l.registersSource},
          {"error", l.error},
          {"faulted", l.faulted},
          {"profiled", l.profiled},
          {"startSeconds", jsonNumber(l.startSeconds)},
          {"modelledSeconds", jsonNumber(l.modelledSeconds)},
          {"occupancy",
           {{"blocksPerSM", l.occupancy.blocksPerSM},
            {"activeWarps", l.occupancy.activeWarps},
            {"maxWarps", l.occupancy.maxWarps},
            {"occupancy", jsonNumber(l.occupancy.occupancy)},
            {"limit", occupancyLimitName(l.occupancy.limit)}}},
          {"waves",
           {{"blocks", l.waves.blocks},
            {"sms", l.waves.sms},
            {"blocksPerSM", l.waves.blocksPerSM},
            {"waves", l.waves.waves},
            {"blocksInLastWave", l.waves.blocksInLastWave},
            {"lastWaveFullness", jsonNumber(l.waves.lastWaveFullness)}}},
          {"totals", countersJson(lc.total)},
          {"time", timeJson(l.time)},
          {"ncu", ncuJson(lc.total, l.modelledSeconds)},
          {"sites", sitesJson(lc.sites)}};
}

} // namespace

std::string reportJson(const ReportInput &in) {
  const Runtime &rt = *in.rt;
  Json sites = Json::array();
  for (size_t i = 1; i < in.sites.size(); ++i) {
    const SiteInfo &s = in.sites[i];
    sites.push_back({{"id", i},
                     {"file", s.file},
                     {"line", s.line},
                     {"col", s.col},
                     {"kind", s.kind},
                     {"what", s.what}});
  }
  Json launches = Json::array();
  for (size_t i = 0; i < rt.launches().size(); ++i)
    launches.push_back(launchJson(rt.launches()[i], rt.counters().launch(i), i));
  Json transfers = Json::array();
  for (size_t i = 0; i < rt.transfers().size(); ++i) {
    const TransferRecord &t = rt.transfers()[i];
    transfers.push_back(
        {{"index", i},
         {"api", t.api},
         {"direction", directionName(t.direction == TransferDirection::HostToDevice ? 0 : 1)},
         {"bytes", t.bytes},
         {"pinned", t.pinned},
         {"startSeconds", jsonNumber(t.startSeconds)},
         {"seconds", jsonNumber(t.seconds)}});
  }
  Json gaps = Json::array();
  const std::vector<TransferTotals> gapTotals = transferGaps(rt);
  for (size_t i = 0; i < gapTotals.size(); ++i)
    gaps.push_back({{"beforeLaunch", i < rt.launches().size() ? Json(i) : Json(nullptr)},
                    {"transfers", transferTotalsJson(gapTotals[i])}});
  const TransferTotals t = transferTotals(rt);
  const double k = kernelSeconds(rt);
  const Json report = {
      {"schema", "kern-report"},
      {"version", 1},
      {"device", deviceJson(rt.device())},
      {"timing",
       {{"kernelModel", "counted"},
        {"note", "a counted launch takes the timing model's time (docs/timing.md), one that was "
                 "not counted none; transfer times follow the device's link model"}}},
      {"sites", std::move(sites)},
      {"launches", std::move(launches)},
      {"transfers", std::move(transfers)},
      {"transferGaps", std::move(gaps)},
      {"program",
       {{"name", in.program},
        {"launches", rt.launches().size()},
        {"profiledLaunches", rt.profiledLaunches()},
        {"kernelSeconds", jsonNumber(k)},
        {"transfers", transferTotalsJson(t)},
        {"transferToKernelRatio",
         k > 0 ? jsonNumber((t.seconds[0] + t.seconds[1]) / k) : Json(nullptr)},
        {"totals", countersJson(rt.counters().program().total)},
        {"ncu", ncuJson(rt.counters().program().total, k)},
        {"sites", sitesJson(rt.counters().program().sites)}}}};
  return jsonLines(report);
}

// ---- counter text -------------------------------------------------------------------------------

namespace {

void counterLines(std::string &out, const std::string &prefix, const SiteCounters &c) {
  auto put = [&](const std::string &key, double v) {
    if (v != 0)
      out += prefix + " " + key + " " + jsonText(jsonNumber(v)) + "\n";
  };
  for (uint32_t k = 0; k < kMemoryOpKinds; ++k) {
    const GlobalOpCounters &g = c.global[k];
    const std::string p = std::string("global.") + kOpShort[k] + ".";
    put(p + "inst", double(g.instructions));
    put(p + "requests", double(g.requests));
    put(p + "transactions", double(g.transactions));
    put(p + "sectors", double(g.sectors));
    put(p + "lines", double(g.lines128));
    put(p + "bytes_requested", double(g.bytesRequested));
    put(p + "bytes_moved", double(g.bytesMoved));
    if (g.instructions) {
      put(p + "transactions_per_inst", double(g.transactions) / double(g.instructions));
      put(p + "sectors_per_req", sectorsPerRequest(g));
      put(p + "sectors_per_inst", double(g.sectors) / double(g.instructions));
    }
  }
  for (uint32_t k = 0; k < kMemoryOpKinds; ++k) {
    const SharedOpCounters &s = c.shared[k];
    const std::string p = std::string("shared.") + kOpShort[k] + ".";
    put(p + "inst", double(s.instructions));
    put(p + "requests", double(s.requests));
    put(p + "wavefronts", double(s.steps));
    put(p + "ideal", double(s.idealSteps));
    put(p + "conflicts", double(s.conflicts()));
    if (s.instructions) {
      put(p + "wavefronts_per_inst", sharedStepsPerInstruction(s));
      put(p + "conflicts_per_inst", double(s.conflicts()) / double(s.instructions));
    }
  }
  put("constant.requests", double(c.constantRequests));
  put("constant.serialization", double(c.constantSerialization));
  put("branches", double(c.branchesExecuted));
  put("branches.divergent", double(c.branchesDivergent));
  put("branches.sass", double(c.sassBranches));
  put("branches.sass.divergent", double(c.sassBranchesDivergent));
  put("inst.warp", double(c.warpInstructions));
  put("inst.thread", double(c.threadInstructions));
  for (size_t k = 0; k < kInstrClasses; ++k)
    put(std::string("inst.") + instrClassKey(k), double(instrClass(c, k)));
  put("barriers", double(c.barriersExecuted));
  put("atomics", double(c.atomicsExecuted));
  put("atomics.threads", double(c.atomicThreadOps));
}

} // namespace

std::string countersText(const ReportInput &in) {
  const Runtime &rt = *in.rt;
  std::string out;
  // Per line of the main file: every site on the line, every launch.
  std::map<uint32_t, SiteCounters> byLine;
  const std::vector<SiteCounters> &sites = rt.counters().program().sites;
  for (size_t i = 0; i < sites.size() && i < in.sites.size(); ++i)
    if (in.sites[i].fileId == in.mainFileId && anyCounted(sites[i]))
      byLine[in.sites[i].line] += sites[i];
  for (const auto &[line, c] : byLine)
    counterLines(out, "line " + u(line), c);
  counterLines(out, "total", rt.counters().program().total);
  out += "total launches " + u(rt.launches().size()) + "\n";
  out += "total launches.profiled " + u(rt.profiledLaunches()) + "\n";
  const TransferTotals t = transferTotals(rt);
  for (int d = 0; d < 2; ++d) {
    const std::string p = std::string("total transfers.") + (d == 0 ? "h2d" : "d2h") + ".";
    out += p + "count " + u(t.count[d]) + "\n";
    out += p + "bytes " + u(t.bytes[d]) + "\n";
    out += p + "seconds " + jsonText(jsonNumber(t.seconds[d])) + "\n";
  }
  out += "total transfers.pageable " + u(t.pageableCount) + "\n";
  return out;
}

} // namespace kern::runtime

#include <fstream>

namespace kern::runtime {

namespace {

bool writeOut(const std::string &path, const std::string &text,
              const std::function<void(std::string_view)> &err, const ReportRequest &req) {
  if (path == "-") {
    err(text);
    return true;
  }
  if (req.writeFile)
    return req.writeFile(path, text);
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (f.good())
    return true;
  err("kern: error: cannot write '" + path + "'\n");
  return false;
}

} // namespace

bool finishReports(const ReportInput &in, const ReportRequest &req,
                   const std::function<void(std::string_view)> &err, std::string &annotated) {
  bool ok = true;
  if (req.summary && in.rt->counters().any())
    err(programSummary(in));
  else if (req.summary && !in.rt->launches().empty())
    err(in.rt->launches().size() == 1
            ? std::string("kern: the launch was not profiled\n")
            : "kern: none of the " + u(in.rt->launches().size()) + " launches was profiled\n");
  if (req.stats || req.annotate)
    for (const std::string &line : advise(in))
      err(line + "\n");
  if (req.annotate)
    annotated = annotateSource(in);
  if (req.listMetrics || req.csv)
    err(metricsListing(in, req.metrics, req.csv));
  if (!req.reportPath.empty())
    ok &= writeOut(req.reportPath, reportJson(in), err, req);
  if (!req.countersTextPath.empty())
    ok &= writeOut(req.countersTextPath, countersText(in), err, req);
  if (!req.htmlPath.empty())
    ok &= writeOut(req.htmlPath, htmlReport(in), err, req);
  if (!req.tracePath.empty())
    ok &= writeOut(req.tracePath, traceJson(in), err, req);
  return ok;
}

} // namespace kern::runtime
