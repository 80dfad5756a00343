// The advisor (HARDWARE-MODEL.md, last section): one line per finding, with the source line and
// the fix, from the launch records, the counters, the address samples and the transfers.
#include "runtime/report.h"

#include <cstdio>
#include <regex>
#include <set>
#include <sstream>

namespace kern::runtime {

namespace {

std::string fmt(const char *f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string sourceLine(const std::string &source, uint32_t line) {
  std::istringstream in(source);
  std::string l;
  for (uint32_t i = 1; std::getline(in, l); ++i)
    if (i == line)
      return l;
  return "";
}

bool dependsOnThreadIndex(const std::string &line, const std::vector<std::string> &names) {
  for (const std::string &n : names) {
    const std::regex word("\\b" + n + "\\b");
    if (std::regex_search(line, word))
      return true;
  }
  return false;
}

bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// The first launch site of each kernel, for the launch-level findings.
std::string launchWhere(const ReportInput &in, const LaunchRecord &l) {
  if (l.site > 0 && l.site < in.sites.size())
    return in.sites[l.site].file + ":" + std::to_string(in.sites[l.site].line);
  return in.program;
}

} // namespace

namespace {

/// The findings on the launches `launches` (indices into Runtime::launches()) and the sites'
/// counters `sites`; the transfers' too when `transfers`.
std::vector<std::string> findings(const ReportInput &in, const std::vector<size_t> &launches,
                                  const std::vector<SiteCounters> &sites, bool transfers) {
  const Runtime &rt = *in.rt;
  const DeviceProfile &dev = rt.device();
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string &where, const std::string &text) {
    if (seen.insert(where + text).second)
      out.push_back(where + ": advice: " + text);
  };

  // Launch configuration.
  for (size_t index : launches) {
    const LaunchRecord &l = rt.launches()[index];
    // The advisor covers the profiled launches only (as the counters do).
    if (l.occupancy.blocksPerSM == 0 || !l.profiled)
      continue;
    const std::string where = launchWhere(in, l);
    const uint64_t threads = uint64_t(l.block[0]) * l.block[1] * l.block[2];
    const std::string k = "kernel '" + l.kernel + "': ";
    if (threads % 32)
      add(where, k + "block of " + std::to_string(threads) +
                     " threads is not a multiple of 32: " + std::to_string(32 - threads % 32) +
                     " lanes of its last warp idle; use a multiple of 32");
    if (l.waves.blocks < uint64_t(dev.smCount))
      add(where, k + "grid of " + std::to_string(l.waves.blocks) + " blocks leaves " +
                     std::to_string(dev.smCount - l.waves.blocks) + " of " +
                     std::to_string(dev.smCount) +
                     " SMs idle; use more, smaller blocks (at least one per SM)");
    else if (l.waves.waves > 0 && l.waves.blocksInLastWave < l.waves.blocks &&
             l.waves.lastWaveFullness < 1.0)
      add(where, k + std::to_string(l.waves.blocks) + " blocks make " +
                     std::to_string(l.waves.waves) + " waves of " +
                     std::to_string(uint64_t(l.waves.sms) * l.waves.blocksPerSM) + " on " +
                     dev.name + "; the last (tail) wave is " +
                     fmt("%.0f%%", 100 * l.waves.lastWaveFullness) +
                     " full: size the grid as a multiple of SMs x blocks per SM");
    if (l.occupancy.occupancy < 0.999)
      add(where, k + "occupancy " + fmt("%.0f%%", 100 * l.occupancy.occupancy) + " (" +
                     std::to_string(l.occupancy.blocksPerSM) + " blocks/SM), bound by " +
                     occupancyLimitName(l.occupancy.limit) + " per SM");
  }

  // Names assigned from threadIdx ("int tid = threadIdx.x;"): a condition using one of them is
  // a thread-index expression too.
  std::vector<std::string> tidNames = {"threadIdx"};
  {
    static const std::regex assign(R"(([A-Za-z_]\w*)\s*=[^=;][^;]*threadIdx)");
    for (std::sregex_iterator it(in.source.begin(), in.source.end(), assign), end; it != end; ++it)
      tidNames.push_back((*it)[1]);
  }
  // Sites.
  const std::vector<AccessSample> &samples = rt.counters().samples();
  for (size_t i = 0; i < sites.size() && i < in.sites.size(); ++i) {
    const SiteCounters &c = sites[i];
    const SiteInfo &s = in.sites[i];
    const std::string where = s.file + ":" + std::to_string(s.line);
    const AccessSample *sm =
        i < samples.size() && samples[i].key != UINT64_MAX ? &samples[i] : nullptr;
    const SharedOpCounters sh = c.sharedTotal();
    if (sh.conflicts()) {
      std::string text =
          fmt("shared access with %.1f", double(sh.conflicts()) / double(sh.instructions)) +
          " bank conflicts per instruction (" + fmt("%.1f", sharedStepsPerInstruction(sh)) +
          " wavefronts)";
      if (sm && sm->affine && sm->strideBytes != 0 && sm->strideBytes % 4 == 0) {
        const int64_t words = sm->strideBytes / 4;
        text += ", word stride " + std::to_string(words);
        if (words % 2 == 0)
          text += ": pad the array so the stride is odd (e.g. [" + std::to_string(words) +
                  "] -> [" + std::to_string(words + 1) + "] per row)";
      } else if (sm && sm->affine && sm->strideBytes == 0) {
        text += ", every lane at one word";
      } else {
        text += ": make consecutive threads use consecutive words, or pad rows to an odd stride";
      }
      add(where, text);
    }
    const GlobalOpCounters g = c.globalTotal();
    if (g.instructions && globalEfficiency(g) < 50.0) {
      std::string text = "global access at " + fmt("%.0f%%", globalEfficiency(g)) +
                         " efficiency (" + fmt("%.1f", sectorsPerRequest(g)) + " sectors/request)";
      if (sm && sm->affine && sm->size) {
        const int64_t stride = sm->strideBytes;
        if (stride == int64_t(sm->size) && sm->firstOffset % 32)
          text += ": misaligned by " + std::to_string(sm->firstOffset % 32) +
                  " B; align the data (cudaMalloc gives 256 B) or use __align__";
        else if (stride > int64_t(sm->size) && !isPowerOfTwo(stride))
          text += ": stride " + std::to_string(stride) + " B with " + std::to_string(sm->size) +
                  " B accesses looks like an array of structs; use a struct of arrays, or "
                  "__align__(16) structs copied whole";
        else if (stride > int64_t(sm->size))
          text += ": stride " + std::to_string(stride) + " B between threads; stage through " +
                  "shared memory so that consecutive threads read consecutive words";
        else if (stride == 0)
          text += ": every lane reads one address; load it once (uniform) or from constant memory";
      } else {
        text += ": irregular addresses; stage through shared memory or reorder the data";
      }
      add(where, text);
    }
    if (c.branchesDivergent) {
      const std::string src = sourceLine(in.source, s.line);
      const bool threadIndex = s.fileId == in.mainFileId && dependsOnThreadIndex(src, tidNames);
      std::string text = std::to_string(c.branchesDivergent) + " of " +
                         std::to_string(c.branchesExecuted) + " branches divergent";
      if (threadIndex)
        text += " on a thread-index expression: branch on whole warps (e.g. threadIdx.x / 32) "
                "so that all 32 lanes of a warp go the same way";
      else
        text += ": lanes of one warp take different paths; group work so that warps agree";
      add(where, text);
    }
  }

  // Transfers.
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
      pinned += transferSeconds(dev, r.bytes, true);
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
