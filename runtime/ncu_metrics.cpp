// The Nsight Compute names of kern's counters (ncu_metrics.h), and the listings made of them.
#include "runtime/ncu_metrics.h"

#include "runtime/runtime.h"

#include <algorithm>
#include <cstdio>

namespace kern::runtime {

std::vector<NcuMetric> ncuMetrics(const SiteCounters &c, double seconds) {
  std::vector<NcuMetric> m;
  auto add = [&](std::string name, std::string unit, std::string key, double value) {
    m.push_back({std::move(name), std::move(unit), std::move(key), value});
  };
  add("gpu__time_duration.sum", "nsecond", "time.nanoseconds", seconds * 1e9);
  add("smsp__inst_executed.sum", "inst", "instructions.warp", double(c.warpInstructions));
  add("smsp__thread_inst_executed.sum", "inst", "instructions.thread",
      double(c.threadInstructions));
  add("smsp__thread_inst_executed_per_inst_executed.ratio", "", "instructions.threadsPerWarp",
      c.warpInstructions ? double(c.threadInstructions) / double(c.warpInstructions) : 0);
  static const char *const kOp[kMemoryOpKinds] = {"ld", "st", "atom", "red"};
  static const char *const kKind[kMemoryOpKinds] = {"load", "store", "atomic", "reduction"};
  for (uint32_t k = 0; k < kMemoryOpKinds; ++k) {
    const GlobalOpCounters &g = c.global[k];
    const std::string op = kOp[k], key = std::string("global.") + kKind[k] + ".";
    add("smsp__sass_inst_executed_op_global_" + op + ".sum", "inst", key + "instructions",
        double(g.instructions));
    add("l1tex__t_requests_pipe_lsu_mem_global_op_" + op + ".sum", "", key + "requests",
        double(g.requests));
    add("l1tex__t_sectors_pipe_lsu_mem_global_op_" + op + ".sum", "sector", key + "sectors",
        double(g.sectors));
    add("smsp__sass_data_bytes_mem_global_op_" + op + ".sum", "byte", key + "bytesRequested",
        double(g.bytesRequested));
    add("l1tex__t_bytes_pipe_lsu_mem_global_op_" + op + ".sum", "byte", key + "bytesMoved",
        double(g.bytesMoved));
    add("smsp__sass_average_data_bytes_per_sector_mem_global_op_" + op + ".pct", "%",
        key + "efficiency", globalEfficiency(g));
  }
  // Shared reductions are counted as atomics (ATOMS either way), so there is no shared "red".
  for (uint32_t k = 0; k < kMemoryOpKinds; ++k) {
    if (k == static_cast<uint32_t>(MemoryOpKind::Reduction))
      continue;
    const SharedOpCounters &s = c.shared[k];
    const std::string op = kOp[k], key = std::string("shared.") + kKind[k] + ".";
    add("smsp__sass_inst_executed_op_shared_" + op + ".sum", "inst", key + "instructions",
        double(s.instructions));
    add("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum", "", key + "wavefronts",
        double(s.steps));
    add("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + op + ".sum", "",
        key + "bankConflicts", double(s.conflicts()));
  }
  // The GPU code's branches (ir/branch_model.cpp), not the source's.
  add("smsp__sass_inst_executed_op_branch.sum", "inst", "branches.sassExecuted",
      double(c.sassBranches));
  add("smsp__sass_branch_targets_threads_divergent.sum", "", "branches.sassDivergent",
      double(c.sassBranchesDivergent));
  add("smsp__sass_average_branch_targets_threads_uniform.pct", "%", "branches.sassExecuted",
      c.sassBranches
          ? 100.0 * double(c.sassBranches - c.sassBranchesDivergent) / double(c.sassBranches)
          : 100.0);
  add("smsp__inst_executed_op_barrier.sum", "inst", "barriers", double(c.barriersExecuted));
  return m;
}

namespace {

/// The number of one-character edits that turn `a` into `b`.
size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

bool selected(const NcuMetric &m, const std::vector<std::string> &wanted) {
  return wanted.empty() || std::find_if(wanted.begin(), wanted.end(), [&](const std::string &w) {
                             return w == m.name || w == m.key;
                           }) != wanted.end();
}

std::string number(double v) {
  char buf[48];
  if (v == static_cast<double>(static_cast<int64_t>(v)) && v < 1e15 && v > -1e15)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string csvField(const std::string &s) {
  std::string out = "\"";
  for (char ch : s)
    out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string dims(const uint32_t d[3]) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
         ")";
}

} // namespace

std::string nearestName(const std::string &word, const std::vector<std::string> &known) {
  std::string best;
  size_t bestDistance = std::clamp<size_t>(word.size() / 3, 1, 3) + 1;
  std::vector<std::string> extending;
  for (const std::string &k : known) {
    if (word.size() >= 3 && k.rfind(word, 0) == 0)
      extending.push_back(k);
    if (const size_t d = editDistance(word, k); d < bestDistance) {
      bestDistance = d;
      best = k;
    }
  }
  if (best.empty() && extending.size() == 1)
    best = extending[0];
  return best;
}

bool checkMetricNames(const std::vector<std::string> &wanted, std::string &error) {
  std::vector<std::string> names;
  for (const NcuMetric &m : ncuMetrics(SiteCounters{}, 0)) {
    names.push_back(m.name);
    names.push_back(m.key);
  }
  for (const std::string &w : wanted) {
    if (std::find(names.begin(), names.end(), w) == names.end()) {
      const std::string nearest = nearestName(w, names);
      error = "unknown metric '" + w + "'" +
              (nearest.empty() ? std::string(" (docs/report-schema.md lists them)")
                               : "; did you mean '" + nearest + "'?");
      return false;
    }
  }
  return true;
}

std::string metricsListing(const ReportInput &in, const std::vector<std::string> &wanted,
                           bool csv) {
  const Runtime &rt = *in.rt;
  const DeviceProfile &d = rt.device();
  const std::string cc = std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor);
  std::string out;
  if (csv)
    out = "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
          "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  for (size_t i = 0; i < rt.launches().size() && i < rt.counters().launchCount(); ++i) {
    const LaunchRecord &l = rt.launches()[i];
    if (!l.profiled)
      continue;
    const std::vector<NcuMetric> metrics =
        ncuMetrics(rt.counters().launch(i).total, l.modelledSeconds);
    if (!csv) {
      out += "  " + l.kernel + " (" + std::to_string(l.grid[0]) + ", " + std::to_string(l.grid[1]) +
             ", " + std::to_string(l.grid[2]) + ")x(" + std::to_string(l.block[0]) + ", " +
             std::to_string(l.block[1]) + ", " + std::to_string(l.block[2]) + "), launch " +
             std::to_string(i) + ", " + d.name + " (cc " + cc + ")\n";
      size_t width = 0;
      for (const NcuMetric &m : metrics)
        if (selected(m, wanted))
          width = std::max(width, m.name.size());
      for (const NcuMetric &m : metrics)
        if (selected(m, wanted))
          out +=
              "    " + m.name + std::string(width - m.name.size() + 2, ' ') +
              (m.unit.empty() ? std::string(8, ' ')
                              : m.unit + std::string(8 - std::min<size_t>(m.unit.size(), 7), ' ')) +
              number(m.value) + "\n";
      continue;
    }
    for (const NcuMetric &m : metrics)
      if (selected(m, wanted))
        out += csvField(std::to_string(i)) + "," + csvField(l.kernel) + "," +
               csvField(dims(l.block)) + "," + csvField(dims(l.grid)) + "," + csvField(d.name) +
               "," + csvField(cc) + "," + csvField(m.name) + "," + csvField(m.unit) + "," +
               csvField(number(m.value)) + "\n";
  }
  return out;
}

} // namespace kern::runtime
