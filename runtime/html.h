// The pieces of the HTML report (html_report.cpp): inline SVG drawings of a warp's lanes against
// the GPU's rules (html_lanes.cpp) and of the occupancy calculator's graphs and the launch
// timeline (html_charts.cpp). Each returns markup for a self-contained page: no network, no
// external script or font.
#pragma once

#include "runtime/counter_hooks.h"
#include "runtime/report.h"

#include <string>

namespace kern::runtime {

/// `text` with &, <, >, " and ' escaped for HTML.
std::string htmlEscape(const std::string &text);

/// A captured warp's access drawn lane by lane (an <svg class="lanemap">): shared memory as
/// lanes -> banks with one row per step (wavefront) marking the lanes it serves, so an n-way
/// conflict shows n rows; global memory as lanes -> the transactions (segments, lines or
/// sectors) that move them, each with its used and wasted bytes.
std::string laneMapSvg(const DeviceProfile &dev, const LaneCapture &warp);

/// The lanes of a warp that split at a branch: which side each took (an <svg class="branchmap">).
std::string branchMapSvg(const AccessSample &sample);

/// The three graphs of the CUDA Occupancy Calculator for a launch: occupancy against threads per
/// block, registers per thread and shared memory per block, each with the launch's point marked.
std::string occupancyChartsSvg(const DeviceProfile &dev, const LaunchRecord &launch);

/// The launches and transfers on their tracks (host to device, device to host, kernels), at
/// their modelled start and duration.
std::string timelineSvg(const Runtime &rt);

} // namespace kern::runtime
