// The same program on several GPUs side by side (`kern run --device g80,h100 ...`, `kern
// compare`): each run is boiled down to a digest of what it counted, per kernel, and the digests
// are set out as one table with a column per device.
#pragma once

#include "runtime/counters.h"
#include "runtime/occupancy.h"
#include "runtime/report.h"
#include "runtime/timing.h"

#include <string>
#include <vector>

namespace kern::runtime {

/// One kernel of one run: its launches summed.
struct KernelDigest {
  std::string name;
  uint64_t launches = 0; ///< launches of the kernel, run or not
  uint64_t profiled = 0; ///< of those, the ones that ran with counters
  uint64_t failed = 0;   ///< of those, the ones that did not run (launch error) or faulted
  std::string
      firstError; ///< the first failure's cudaError_t name, e.g. cudaErrorLaunchOutOfResources
  SiteCounters counters;                   ///< summed over the profiled launches
  double seconds = 0;                      ///< modelled, summed over the profiled launches
  double longest = 0;                      ///< the longest profiled launch's modelled time
  TimeLimiter bound = TimeLimiter::Launch; ///< the bound of the longest profiled launch
  IssuePipe pipe = IssuePipe::Issue;       ///< and its pipe
  OccupancyResult occupancy;               ///< of the first launch that ran
};

/// What one run on one device showed.
struct RunDigest {
  std::string device; ///< the profile's name
  int ccMajor = 0, ccMinor = 0;
  std::vector<KernelDigest> kernels; ///< in the order of their first launch
  TransferTotals transfers;
  double kernelSeconds = 0; ///< modelled, all profiled launches
};

/// The digest of a finished run.
RunDigest digestRun(const ReportInput &in);

/// One column of the comparison: a device and how its run ended.
struct DeviceColumn {
  std::string device; ///< the name the user gave
  /// How the run ended, in a few words: "exit 0", "exit 1", "compile error", "fault",
  /// "usage error"...
  std::string outcome;
  bool ran = false; ///< the program ran (digest is filled)
  RunDigest digest;
};

/// The side-by-side table: per kernel, its launches, modelled time and bound, occupancy and its
/// limit, global transactions (by each device's rule) and efficiency, shared wavefronts and
/// conflicts, divergent branches and warp execution efficiency; then the transfers, the total
/// modelled kernel time and each run's outcome. A kernel one device never launched shows "-".
std::string comparisonTable(const std::string &program, const std::vector<DeviceColumn> &columns);

} // namespace kern::runtime
