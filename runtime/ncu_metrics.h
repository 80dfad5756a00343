// kern's counters under Nsight Compute's metric names (docs/report-schema.md has the table):
// the JSON report carries them beside kern's own, and `kern run --metrics LIST` / `--csv` list
// them per launch as `ncu --metrics LIST [--csv]` does. One table, in ncu_metrics.cpp.
#pragma once

#include "runtime/counters.h"
#include "runtime/report.h"

#include <string>
#include <vector>

namespace kern::runtime {

/// One metric of a launch: its Nsight Compute name and unit, kern's own key for it (a path in
/// the report's `counters`, e.g. "global.load.sectors"), and its value.
struct NcuMetric {
  std::string name;
  std::string unit;
  std::string key;
  double value = 0;
};

/// The name in `known` nearest to `word`: at most a third of it (at least 1, at most 3
/// letters) different, or else the only one that `word` (3 letters or more) begins; "" if none.
std::string nearestName(const std::string &word, const std::vector<std::string> &known);

/// Every metric that has an Nsight Compute equivalent, computed from `c` and the modelled
/// duration `seconds` (runtime/timing.h; gpu__time_duration.sum), in a fixed order.
std::vector<NcuMetric> ncuMetrics(const SiteCounters &c, double seconds);

/// Whether every name in `wanted` is a metric's Nsight Compute name or kern key; `error` names
/// the first that is not, with the nearest one.
bool checkMetricNames(const std::vector<std::string> &wanted, std::string &error);

/// The metrics of every profiled launch, as `ncu --metrics` prints them (`csv`: as `ncu --csv`
/// does, one row per launch and metric). `wanted` selects them (empty: all).
std::string metricsListing(const ReportInput &in, const std::vector<std::string> &wanted, bool csv);

} // namespace kern::runtime
