// The modelled clock of a program's streams (docs/timing.md, "Streams"): when each copy and
// kernel runs on the modelled GPU, as CUDA orders them. kern runs every call to completion
// before it returns; only the modelled times overlap.
#pragma once

#include <map>

namespace kern::runtime {

/// What a piece of device work occupies: the SMs, or the copy engine of one direction (an H100
/// has one each way, so a copy in and a copy out overlap each other and a kernel).
enum class DeviceEngine { Compute, CopyIn, CopyOut };
constexpr int kDeviceEngines = 3;

/// When work runs on the modelled clock. Work on one stream runs in issue order; work on
/// different streams overlaps when it uses different engines; the legacy default stream
/// (null) waits for the work of blocking streams before it, and their work after it waits for
/// it (not so a cudaStreamNonBlocking stream's); the host issues work at its own time, which
/// moves only when it waits.
class StreamClock {
public:
  /// Work of `seconds` on `stream` using `engine`; the host waits for it to finish when
  /// `hostWaits` (a synchronous copy). Returns when it starts.
  double run(const void *stream, DeviceEngine engine, double seconds, bool hostWaits);
  /// When work issued now on `stream` would find everything before it done: what an event
  /// recorded there now completes at.
  double ready(const void *stream) const;
  /// The end of all work issued so far (cudaDeviceSynchronize waits for it).
  double deviceEnd() const;
  /// The host waits until `t` (cudaStreamSynchronize, cudaEventSynchronize...).
  void hostWaits(double t);
  /// `stream`'s later work waits until `t` (cudaStreamWaitEvent).
  void streamWaits(const void *stream, double t);
  /// Where the host is on the modelled clock.
  double host() const { return host_; }
  /// `stream` was created with cudaStreamNonBlocking: it neither waits for the legacy default
  /// stream nor is waited for by it.
  void setNonBlocking(const void *stream) { nonBlocking_[stream] = true; }

private:
  double &endOf(const void *stream) { return stream ? streams_[stream] : legacy_; }
  bool blocking(const void *stream) const {
    auto it = nonBlocking_.find(stream);
    return it == nonBlocking_.end() || !it->second;
  }

  double host_ = 0;
  double legacy_ = 0; ///< the end of the legacy default stream's work
  std::map<const void *, double> streams_;
  std::map<const void *, bool> nonBlocking_;
  double engines_[kDeviceEngines] = {0, 0, 0};
};

} // namespace kern::runtime
