// The side-by-side table of one program run on several devices (compare.h).
#include "runtime/compare.h"

#include "runtime/errors.h"

#include <algorithm>
#include <cstdio>

namespace kern::runtime {

namespace {

/// The row "global ld transactions": the device's own transactions (half-warp segments on
/// cc1.x, L1 lines or segments on cc2.x, sectors later) and how many per request.
std::string transactions(const GlobalOpCounters &g) {
  if (g.requests == 0)
    return "0";
  return std::to_string(g.transactions) + " (" +
         formatNumber("%.2f", double(g.transactions) / double(g.requests)) + "/req)";
}

/// A table of labelled rows, a cell per device; "" cells print as "-".
class Table {
public:
  explicit Table(size_t columns) : columns_(columns) {}
  void heading(const std::string &text) { rows_.push_back({text, {}, true}); }
  void row(const std::string &label, std::vector<std::string> cells) {
    rows_.push_back({"  " + label, std::move(cells), false});
  }
  std::string render(const std::vector<std::string> &header) const {
    size_t labelWidth = 0;
    std::vector<size_t> width(columns_, 0);
    for (size_t c = 0; c < columns_; ++c)
      width[c] = header[c].size();
    for (const Row &r : rows_) {
      if (!r.heading)
        labelWidth = std::max(labelWidth, r.label.size());
      for (size_t c = 0; c < r.cells.size(); ++c)
        width[c] = std::max(width[c], r.cells[c].empty() ? 1 : r.cells[c].size());
    }
    auto line = [&](const std::string &label, const std::vector<std::string> &cells) {
      std::string out = label + std::string(labelWidth + 2 - label.size(), ' ');
      for (size_t c = 0; c < columns_; ++c) {
        const std::string cell = cells[c].empty() ? "-" : cells[c];
        out += cell;
        if (c + 1 < columns_)
          out += std::string(width[c] + 3 - cell.size(), ' ');
      }
      while (!out.empty() && out.back() == ' ')
        out.pop_back();
      return out + "\n";
    };
    std::string out = line("", header);
    for (const Row &r : rows_)
      out += r.heading ? r.label + "\n" : line(r.label, r.cells);
    return out;
  }

private:
  struct Row {
    std::string label;
    std::vector<std::string> cells;
    bool heading = false;
  };
  size_t columns_;
  std::vector<Row> rows_;
};

} // namespace

RunDigest digestRun(const ReportInput &in) {
  const Runtime &rt = *in.rt;
  RunDigest d;
  d.device = rt.device().name;
  d.ccMajor = rt.device().ccMajor;
  d.ccMinor = rt.device().ccMinor;
  for (size_t i = 0; i < rt.launches().size(); ++i) {
    const LaunchRecord &l = rt.launches()[i];
    auto it = std::find_if(d.kernels.begin(), d.kernels.end(),
                           [&](const KernelDigest &k) { return k.name == l.kernel; });
    if (it == d.kernels.end()) {
      d.kernels.push_back({});
      it = d.kernels.end() - 1;
      it->name = l.kernel;
    }
    KernelDigest &k = *it;
    ++k.launches;
    if (l.error != 0 || l.faulted) {
      if (k.failed++ == 0)
        k.firstError = errorName(l.error);
    }
    if (k.occupancy.blocksPerSM == 0 && l.occupancy.blocksPerSM > 0)
      k.occupancy = l.occupancy;
    if (!l.profiled)
      continue;
    ++k.profiled;
    k.counters += rt.counters().launch(i).total;
    k.seconds += l.modelledSeconds;
    if (l.modelledSeconds >= k.longest) {
      k.longest = l.modelledSeconds;
      k.bound = l.time.bound;
      k.pipe = l.time.pipe;
    }
  }
  d.transfers = transferTotals(rt);
  d.kernelSeconds = kernelSeconds(rt);
  return d;
}

std::string comparisonTable(const std::string &program, const std::vector<DeviceColumn> &columns) {
  const size_t n = columns.size();
  std::vector<std::string> header(n);
  for (size_t c = 0; c < n; ++c) {
    const DeviceColumn &col = columns[c];
    header[c] = col.device;
    if (col.ran)
      header[c] += " (cc " + std::to_string(col.digest.ccMajor) + "." +
                   std::to_string(col.digest.ccMinor) + ")";
  }
  // The kernels of every run, in the order of their first launch on the first device that has
  // them.
  std::vector<std::string> kernels;
  for (const DeviceColumn &col : columns)
    for (const KernelDigest &k : col.digest.kernels)
      if (std::find(kernels.begin(), kernels.end(), k.name) == kernels.end())
        kernels.push_back(k.name);

  Table table(n);
  // A row of `cell(kernel digest)` for the devices that launched the kernel; left out when
  // `shown` holds for none of them.
  auto kernelRow = [&](const std::string &name, const std::string &label, auto cell, auto shown) {
    std::vector<std::string> cells(n);
    bool any = false;
    for (size_t c = 0; c < n; ++c)
      for (const KernelDigest &k : columns[c].digest.kernels)
        if (k.name == name) {
          cells[c] = cell(k);
          any |= shown(k);
        }
    if (any)
      table.row(label, std::move(cells));
  };
  auto always = [](const KernelDigest &) { return true; };
  auto counted = [](const KernelDigest &k) { return k.profiled > 0; };
  for (const std::string &name : kernels) {
    table.heading(name);
    kernelRow(
        name, "launches",
        [](const KernelDigest &k) {
          std::string s = std::to_string(k.launches);
          if (k.failed)
            s += " (" + std::to_string(k.failed) + " failed: " + k.firstError + ")";
          return s;
        },
        always);
    auto ifCounted = [](auto f) {
      return [f](const KernelDigest &k) { return k.profiled ? f(k) : std::string(); };
    };
    kernelRow(name, "modelled time",
              ifCounted([](const KernelDigest &k) { return formatSeconds(k.seconds); }), counted);
    kernelRow(name, "bound by", ifCounted([](const KernelDigest &k) {
                return std::string(boundName(k.bound, k.pipe));
              }),
              counted);
    kernelRow(
        name, "occupancy",
        [](const KernelDigest &k) {
          if (k.occupancy.blocksPerSM == 0)
            return std::string();
          return formatNumber("%.1f %%", 100 * k.occupancy.occupancy) + " (" +
                 occupancyLimitName(k.occupancy.limit) + ")";
        },
        always);
    const char *const opNames[kMemoryOpKinds] = {"ld", "st", "atom", "red"};
    for (uint32_t op = 0; op < kMemoryOpKinds; ++op) {
      auto has = [op](const KernelDigest &k) { return k.counters.global[op].requests > 0; };
      kernelRow(
          name, std::string("global ") + opNames[op] + " transactions",
          ifCounted([op](const KernelDigest &k) { return transactions(k.counters.global[op]); }),
          has);
      kernelRow(name, std::string("global ") + opNames[op] + " efficiency",
                ifCounted([op](const KernelDigest &k) {
                  return formatNumber("%.1f %%", globalEfficiency(k.counters.global[op]));
                }),
                has);
    }
    kernelRow(name, "shared wavefronts", ifCounted([](const KernelDigest &k) {
                const SharedOpCounters sh = k.counters.sharedTotal();
                return std::to_string(sh.steps) + " (" +
                       formatNumber("%.2f", sharedStepsPerInstruction(sh)) + "/inst)";
              }),
              [](const KernelDigest &k) { return k.counters.sharedTotal().instructions > 0; });
    kernelRow(name, "shared bank conflicts", ifCounted([](const KernelDigest &k) {
                return std::to_string(k.counters.sharedTotal().conflicts());
              }),
              [](const KernelDigest &k) { return k.counters.sharedTotal().instructions > 0; });
    kernelRow(name, "divergent branches", ifCounted([](const KernelDigest &k) {
                return std::to_string(k.counters.branchesDivergent) + " of " +
                       std::to_string(k.counters.branchesExecuted);
              }),
              counted);
    kernelRow(name, "warp execution eff.", ifCounted([](const KernelDigest &k) {
                return formatNumber("%.1f %%", warpExecutionEfficiency(k.counters));
              }),
              counted);
  }

  table.heading("program");
  auto programRow = [&](const std::string &label, auto cell) {
    std::vector<std::string> cells(n);
    for (size_t c = 0; c < n; ++c)
      if (columns[c].ran)
        cells[c] = cell(columns[c].digest);
    table.row(label, std::move(cells));
  };
  bool anyTransfer = false;
  for (const DeviceColumn &col : columns)
    anyTransfer |= col.ran && col.digest.transfers.count[0] + col.digest.transfers.count[1] > 0;
  if (anyTransfer)
    programRow("transfer time", [](const RunDigest &d) {
      return formatSeconds(d.transfers.seconds[0] + d.transfers.seconds[1]);
    });
  programRow("modelled kernel time",
             [](const RunDigest &d) { return formatSeconds(d.kernelSeconds); });
  std::vector<std::string> outcomes(n);
  for (size_t c = 0; c < n; ++c)
    outcomes[c] = columns[c].outcome;
  table.row("outcome", outcomes);

  return "kern: " + program + " on " + std::to_string(n) + " devices\n" + table.render(header) +
         "(global transactions by each device's rule: per half-warp segments on cc 1.x, L1 lines "
         "and segments on cc 2.x, 32-byte sectors from cc 3.0)\n";
}

} // namespace kern::runtime
