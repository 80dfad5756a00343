// The HTML report's charts (html.h): the occupancy calculator's three graphs and the launch
// timeline, as inline SVG.
#include "runtime/html.h"
#include "runtime/occupancy.h"

#include <algorithm>
#include <cstdio>

namespace kern::runtime {

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// One graph: occupancy (0-100 %) against `xs`, with the launch's x marked.
std::string graph(const std::string &title, const std::string &unit, const std::vector<double> &xs,
                  const std::vector<double> &occupancy, double at, double atOccupancy) {
  constexpr double kW = 300, kH = 150, kL = 36, kB = 24, kT = 20;
  const double x0 = xs.front(), x1 = std::max(xs.back(), x0 + 1);
  auto px = [&](double x) { return kL + (x - x0) / (x1 - x0) * (kW - kL - 8); };
  auto py = [&](double o) { return kT + (1 - o) * (kH - kT - kB); };
  std::string out = "<svg class=\"occupancy\" width=\"" + num(kW) + "\" height=\"" + num(kH) +
                    "\" viewBox=\"0 0 " + num(kW) + " " + num(kH) +
                    "\" xmlns=\"http://www.w3.org/2000/svg\">";
  out += "<text x=\"4\" y=\"13\" class=\"label\">" + htmlEscape(title) + "</text>";
  for (double o : {0.0, 0.5, 1.0})
    out += "<line x1=\"" + num(kL) + "\" y1=\"" + num(py(o)) + "\" x2=\"" + num(kW - 8) +
           "\" y2=\"" + num(py(o)) + "\" class=\"grid\"/><text x=\"2\" y=\"" + num(py(o) + 4) +
           "\" class=\"num\">" + u(static_cast<uint64_t>(o * 100)) + "%</text>";
  std::string points;
  for (size_t i = 0; i < xs.size(); ++i)
    points += num(px(xs[i])) + "," + num(py(occupancy[i])) + " ";
  out += "<polyline points=\"" + points + "\" class=\"curve\"/>";
  out += "<circle cx=\"" + num(px(at)) + "\" cy=\"" + num(py(atOccupancy)) +
         "\" r=\"4\" class=\"point\"><title>this launch: " + num(at) + " " + htmlEscape(unit) +
         ", " + num(100 * atOccupancy) + "%</title></circle>";
  out += "<text x=\"" + num(kL) + "\" y=\"" + num(kH - 6) + "\" class=\"num\">" + num(x0) +
         "</text><text x=\"" + num(kW - 8) + "\" y=\"" + num(kH - 6) + "\" class=\"num end\">" +
         num(x1) + " " + htmlEscape(unit) + "</text>";
  return out + "</svg>";
}

} // namespace

std::string occupancyChartsSvg(const DeviceProfile &dev, const LaunchRecord &l) {
  OccupancyInput base;
  base.threadsPerBlock = static_cast<int>(l.block[0] * l.block[1] * l.block[2]);
  base.registersPerThread = l.registersPerThread;
  base.sharedPerBlock = l.sharedBytes;
  auto occ = [&](OccupancyInput in) { return computeOccupancy(dev, in).occupancy; };
  std::vector<double> xs, ys;
  for (int t = dev.warpSize; t <= dev.maxThreadsPerBlock; t += dev.warpSize) {
    OccupancyInput in = base;
    in.threadsPerBlock = t;
    xs.push_back(t);
    ys.push_back(occ(in));
  }
  std::string out = graph("threads per block", "threads", xs, ys, base.threadsPerBlock, occ(base));
  xs.clear();
  ys.clear();
  for (int r = 1; r <= dev.maxRegistersPerThread; ++r) {
    OccupancyInput in = base;
    in.registersPerThread = r;
    xs.push_back(r);
    ys.push_back(occ(in));
  }
  out += graph("registers per thread", "registers", xs, ys, base.registersPerThread, occ(base));
  xs.clear();
  ys.clear();
  const uint64_t most = dev.sharedPerBlockOptIn ? dev.sharedPerBlockOptIn : dev.sharedPerSM;
  for (int i = 0; i <= 64; ++i) {
    OccupancyInput in = base;
    in.sharedPerBlock = most * i / 64;
    xs.push_back(double(in.sharedPerBlock) / 1024);
    ys.push_back(occ(in));
  }
  return out + graph("shared memory per block", "KiB", xs, ys, double(base.sharedPerBlock) / 1024,
                     occ(base));
}

std::string timelineSvg(const Runtime &rt) {
  // Tracks: host to device, device to host, kernels; time on the modelled clock.
  struct Bar {
    int track;
    double start, seconds;
    std::string label, cls;
  };
  std::vector<Bar> bars;
  double end = 0;
  for (const TransferRecord &t : rt.transfers()) {
    const bool up = t.direction == TransferDirection::HostToDevice;
    bars.push_back({up ? 0 : 1, t.startSeconds, t.seconds,
                    t.api + " " + formatBytes(t.bytes) + " " + formatSeconds(t.seconds), "copy"});
    end = std::max(end, t.startSeconds + t.seconds);
  }
  for (size_t i = 0; i < rt.launches().size(); ++i) {
    const LaunchRecord &l = rt.launches()[i];
    bars.push_back({2, l.startSeconds, l.modelledSeconds,
                    "launch " + u(i) + " " + l.kernel +
                        (l.profiled ? " " + formatSeconds(l.modelledSeconds) : " (not counted)"),
                    l.error ? "kernel failed" : "kernel"});
    end = std::max(end, l.startSeconds + l.modelledSeconds);
  }
  constexpr double kW = 900, kLeft = 90, kRow = 26;
  const double scale = end > 0 ? (kW - kLeft - 10) / end : 0;
  std::string out = "<svg class=\"timeline\" width=\"" + num(kW) + "\" height=\"" +
                    num(3 * kRow + 24) + "\" viewBox=\"0 0 " + num(kW) + " " + num(3 * kRow + 24) +
                    "\" xmlns=\"http://www.w3.org/2000/svg\">";
  const char *const tracks[] = {"host to device", "device to host", "kernels"};
  for (int t = 0; t < 3; ++t)
    out +=
        "<text x=\"4\" y=\"" + num(t * kRow + 17) + "\" class=\"label\">" + tracks[t] + "</text>";
  for (const Bar &b : bars)
    out += "<rect x=\"" + num(kLeft + b.start * scale) + "\" y=\"" + num(b.track * kRow + 4) +
           "\" width=\"" + num(std::max(1.5, b.seconds * scale)) + "\" height=\"" + num(kRow - 8) +
           "\" class=\"" + b.cls + "\"><title>" + htmlEscape(b.label) + "</title></rect>";
  out += "<text x=\"" + num(kLeft) + "\" y=\"" + num(3 * kRow + 16) + "\" class=\"num\">0</text>";
  out += "<text x=\"" + num(kW - 10) + "\" y=\"" + num(3 * kRow + 16) + "\" class=\"num end\">" +
         htmlEscape(formatSeconds(end)) + "</text>";
  return out + "</svg>";
}

} // namespace kern::runtime
