// What kern tells the user about a run: the per-launch table of --stats, the short summary, the
// JSON report (docs/report-schema.md), the stable counter text of the tests, the annotated
// source, the Chrome trace and the advisor's findings. Pure functions of a finished run.
#pragma once

#include "runtime/counters.h"
#include "runtime/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kern::runtime {

/// One source site as the reports name it.
struct SiteInfo {
  std::string file; ///< the file's name as the user gave it
  uint32_t fileId = 0;
  uint32_t line = 0;
  uint32_t col = 0;
  std::string kind; ///< "load", "store", "atomic", "branch", "loop", "barrier"...
  std::string what; ///< SiteImage::what: "load f32 global", "if"...
};

/// Everything the reports read: the finished run and how to name its sites.
struct ReportInput {
  const Runtime *rt = nullptr;
  std::string program;         ///< the main file's name
  uint32_t mainFileId = 0;     ///< SiteInfo::fileId of the main file
  std::string source;          ///< the main file's text (for annotate and the advisor)
  std::vector<SiteInfo> sites; ///< by site id
};

/// The site table of a program image.
std::vector<SiteInfo> siteTable(const backend::ProgramImage &image);

/// The Nsight-Compute-like table printed after a launch by --stats.
std::string launchStatsTable(const ReportInput &in, size_t launch);
/// One or two lines per kernel and one for the transfers: printed at the end of a run with
/// counters.
std::string programSummary(const ReportInput &in);
/// The JSON report, docs/report-schema.md.
std::string reportJson(const ReportInput &in);
/// The stable, line-oriented counter text of the file tests (docs/report-schema.md,
/// "Counter text"): "line L KEY VALUE" per source line of the main file, "total KEY VALUE"
/// for the program, zero counters left out.
std::string countersText(const ReportInput &in);
/// The source with each line's counters beside it, worst lines marked (annotate.cpp).
std::string annotateSource(const ReportInput &in);
/// One line's (or site's) counters in a few words, in the device's terms: "ld 4.0 sect/req,
/// shared ld 2.0 wavefronts/inst (1.0 conflicts/inst), branch 1/8 divergent" (annotate.cpp).
std::string lineCountersText(const SiteCounters &c, const DeviceProfile &dev);
/// The self-contained HTML report of a run (html_report.cpp): the annotated source with each
/// line's share of the modelled time and, per line, its sites' lane maps (the run must have
/// captured them: RuntimeOptions::captureAll); the launches with their occupancy graphs; the
/// timeline; the advisor's findings linked to their lines; the device. With `launches`, only
/// those launches (their counters, time and findings: the REPL's last input), else the run.
std::string htmlReport(const ReportInput &in, const std::vector<size_t> &launches = {});
/// One page of several devices' HTML reports (`kern compare --html`): the comparison table, and a
/// switcher that shows one device's report at a time. `pages` holds (device, its htmlReport).
std::string htmlComparison(const std::string &program, const std::string &table,
                           const std::vector<std::pair<std::string, std::string>> &pages);
/// The lane maps of the access and branch sites on `line` of the main file (explain.cpp): per
/// access its first and worst warp drawn against the device's rules (the run must have captured
/// them: RuntimeOptions::explainLine), per branch the lanes of the first warp that split. Empty
/// when nothing on the line ran in a kernel. With `launch`, the sites' counters are that launch's
/// (the REPL's :explain, which captures launch by launch), else the run's.
inline constexpr size_t kAllLaunches = SIZE_MAX;
std::string explainLine(const ReportInput &in, uint32_t line, size_t launch = kAllLaunches);

/// Each site's modelled time (seconds) over the profiled launches among `launches` (indices into
/// Runtime::launches()): each launch's time beyond its fixed overhead, shared among its sites by
/// how much of what bounds it they used (timing.h, siteBoundUse). `total` gets the launches'
/// whole modelled time, overheads included.
std::vector<double> siteSeconds(const Runtime &rt, const std::vector<size_t> &launches,
                                double &total);
/// A Chrome trace-event file: transfers, launches, blocks on virtual SMs by wave (trace.cpp).
std::string traceJson(const ReportInput &in);
/// The advisor's findings, one line each, "FILE:LINE: advice: ..." (advisor.cpp).
std::vector<std::string> advise(const ReportInput &in);
/// The findings on launch `launch` alone (its configuration and its sites' counters): what the
/// REPL's `:stats` shows after the launch's table.
std::vector<std::string> adviseLaunch(const ReportInput &in, size_t launch);

// Shared by the report files.

/// Transfers summed by direction, over the whole program or one launch gap.
struct TransferTotals {
  uint64_t count[2] = {0, 0}; ///< by TransferDirection
  uint64_t bytes[2] = {0, 0};
  double seconds[2] = {0, 0};
  uint64_t pageableCount = 0;
};
TransferTotals transferTotals(const Runtime &rt);
/// The transfers between two launches: gaps[0] before the first launch, gaps[i] between launch
/// i-1 and launch i, gaps[launches] after the last one.
std::vector<TransferTotals> transferGaps(const Runtime &rt);
/// Modelled kernel time of the program (0 until kernels have a timing model).
double kernelSeconds(const Runtime &rt);
/// "1.50 MiB", "512 B".
std::string formatBytes(uint64_t bytes);
/// "12.3 us", "4.20 ms".
std::string formatSeconds(double seconds);
/// A warp by its key (kern_warp_key) in launch `launch`: "launch 2 (transpose), block (1,0,0),
/// warp 3", as the lane maps name their first and worst warps.
std::string warpName(const Runtime &rt, uint64_t key, uint64_t launch);
/// One number through a printf format ("%.2f"), for the reports' text.
std::string formatNumber(const char *format, double v);
/// A count as text (the reports' short name for std::to_string).
inline std::string u(uint64_t v) { return std::to_string(v); }

} // namespace kern::runtime

namespace kern::runtime {

/// What a run asked to be reported (kern::Options' report fields).
struct ReportRequest {
  bool stats = false;     ///< the per-launch tables (printed by onLaunchEnd), summary, advisor
  bool summary = false;   ///< the short summary at the end
  bool annotate = false;  ///< annotated source into `annotated`, advisor to `err`
  std::string reportPath; ///< JSON; "-" to `err`
  std::string tracePath;  ///< Chrome trace
  std::string countersTextPath; ///< counter text; "-" to `err`
  std::string htmlPath;         ///< the HTML report; "-" to `err`
  /// The metrics of each profiled launch under Nsight Compute's names (ncu_metrics.h), to
  /// `err`: these (Nsight names or kern keys; empty: all) when `metrics` is set, as CSV when
  /// `csv` is.
  std::vector<std::string> metrics;
  bool listMetrics = false;
  bool csv = false;
  /// Writes a report to a file (a path other than "-"); false if it could not. If empty, the
  /// file is written here (a sandboxed run's child sends it to its parent instead).
  std::function<bool(const std::string &path, const std::string &text)> writeFile;
};

/// Writes what `req` asks for at the end of a run. A file that cannot be written is reported on
/// `err` and makes it return false.
bool finishReports(const ReportInput &in, const ReportRequest &req,
                   const std::function<void(std::string_view)> &err, std::string &annotated);

} // namespace kern::runtime
