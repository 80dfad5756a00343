// `--trace FILE.json`: a Chrome trace-event file (Perfetto, chrome://tracing) of the modelled
// timeline: transfers on the host link, launches, and each launch's blocks on virtual SMs by
// wave.
#include "runtime/report.h"

#include "runtime/json.h"

#include <algorithm>

namespace kern::runtime {

namespace {

/// A launch that was not counted has no modelled time (docs/timing.md): each of its waves is
/// drawn with this nominal length (microseconds), and the event says so. Counted launches and
/// transfers take their modelled time.
constexpr double kNominalWaveUs = 10.0;
/// Waves drawn one by one per launch; the rest of a long grid is one event per SM.
constexpr uint64_t kMaxWavesDrawn = 64;

/// A complete event ("ph": "X"): `dur` microseconds from `ts`.
Json event(const std::string &name, const char *cat, int pid, int tid, double ts, double dur,
           Json args) {
  return {{"name", name},
          {"cat", cat},
          {"ph", "X"},
          {"pid", pid},
          {"tid", tid},
          {"ts", jsonNumber(ts)},
          {"dur", jsonNumber(dur)},
          {"args", std::move(args)}};
}

/// A metadata event: the name of a process or a thread.
Json meta(const char *what, int pid, int tid, const std::string &name) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

} // namespace

std::string traceJson(const ReportInput &in) {
  const Runtime &rt = *in.rt;
  constexpr int kLinkPid = 1, kKernelPid = 2, kSmPid = 3;
  Json ev = Json::array();
  ev.push_back(meta("process_name", kLinkPid, 0, "host link (" + rt.device().name + ")"));
  ev.push_back(meta("thread_name", kLinkPid, 1, "HtoD"));
  ev.push_back(meta("thread_name", kLinkPid, 2, "DtoH"));
  ev.push_back(meta("process_name", kKernelPid, 0, "kernels"));
  ev.push_back(meta("process_name", kSmPid, 0, "virtual SMs (waves of blocks)"));
  int smsUsed = 0;
  // Trace time in microseconds: each copy and launch at its start on the modelled clock, where
  // streams let them overlap; a launch that was not counted takes no modelled time, so the
  // nominal time drawn for it shifts everything after it.
  double shift = 0;
  for (const TimelineEvent &e : rt.timeline()) {
    if (e.kind == TimelineEvent::Kind::Transfer) {
      const TransferRecord &r = rt.transfers()[e.index];
      const double t = r.startSeconds * 1e6 + shift;
      const bool h2d = r.direction == TransferDirection::HostToDevice;
      ev.push_back(event(
          r.api + " " + formatBytes(r.bytes) + (r.pinned ? " pinned" : " pageable"), "transfer",
          kLinkPid, h2d ? 1 : 2, t, r.seconds * 1e6,
          {{"bytes", r.bytes}, {"pinned", r.pinned}, {"modelledSeconds", jsonNumber(r.seconds)}}));
      continue;
    }
    const LaunchRecord &l = rt.launches()[e.index];
    const double t = l.startSeconds * 1e6 + shift;
    const Waves &w = l.waves;
    const uint64_t drawn = std::min(w.waves, kMaxWavesDrawn);
    const bool timed = l.profiled && l.modelledSeconds > 0;
    // A wave's length: the modelled time shared evenly by the waves, or the nominal one.
    const double waveUs =
        timed && w.waves ? l.modelledSeconds * 1e6 / double(w.waves) : kNominalWaveUs;
    const double dur = timed ? l.modelledSeconds * 1e6 : double(w.waves) * kNominalWaveUs;
    ev.push_back(
        event(l.kernel, "launch", kKernelPid, 1, t, dur,
              {{"launch", e.index},
               {"blocks", w.blocks},
               {"waves", w.waves},
               {"error", l.error},
               {"modelledSeconds", jsonNumber(l.modelledSeconds)},
               {"bound", timed ? boundName(l.time.bound, l.time.pipe) : "not counted: nominal"}}));
    const uint64_t perWave = uint64_t(w.sms) * uint64_t(std::max(w.blocksPerSM, 1));
    for (uint64_t wave = 0; wave < drawn && perWave; ++wave) {
      const bool rest = wave + 1 == drawn && drawn < w.waves; // the waves not drawn singly
      const uint64_t first = wave * perWave;
      const uint64_t last = rest ? w.blocks : std::min(w.blocks, first + perWave);
      const double waveDur = rest ? double(w.waves - wave) * waveUs : waveUs;
      for (int sm = 0; sm < w.sms; ++sm) {
        const uint64_t b0 = first + uint64_t(sm) * uint64_t(w.blocksPerSM);
        if (b0 >= last)
          break;
        smsUsed = std::max(smsUsed, sm + 1);
        const uint64_t b1 = std::min(last, b0 + uint64_t(w.blocksPerSM)) - 1;
        const std::string name =
            l.kernel + (rest ? " waves " + std::to_string(wave) + "-" + std::to_string(w.waves - 1)
                             : " wave " + std::to_string(wave));
        ev.push_back(event(name, "wave", kSmPid, sm, t + double(wave) * waveUs, waveDur,
                           {{"firstBlock", b0}, {"blocksOnThisSM", b1 - b0 + 1}}));
      }
    }
    if (!timed)
      shift += dur;
  }
  for (int sm = 0; sm < smsUsed; ++sm)
    ev.push_back(meta("thread_name", kSmPid, sm, "SM " + std::to_string(sm)));
  const Json trace = {
      {"displayTimeUnit", "ns"},
      {"otherData",
       {{"program", in.program},
        {"device", rt.device().name},
        {"timeModel", "transfers take their modelled time (latency + bytes / (bandwidth x "
                      "efficiency)); counted launches their modelled time (docs/timing.md), "
                      "shared evenly by their waves; a launch that was not counted is drawn "
                      "with a nominal 10 us per wave"},
        {"nominalWaveMicroseconds", jsonNumber(kNominalWaveUs)}}},
      {"traceEvents", std::move(ev)}};
  return jsonLines(trace); // one event per line
}

} // namespace kern::runtime
