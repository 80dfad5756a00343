// The modelled clock of streams (stream_clock.h).
#include "runtime/stream_clock.h"

#include <algorithm>

namespace kern::runtime {

double StreamClock::ready(const void *stream) const {
  if (!stream) { // the legacy stream waits for the work of every blocking stream
    double t = std::max(host_, legacy_);
    for (const auto &[s, end] : streams_)
      if (blocking(s))
        t = std::max(t, end);
    return t;
  }
  double t = blocking(stream) ? std::max(host_, legacy_) : host_;
  auto it = streams_.find(stream);
  return it == streams_.end() ? t : std::max(t, it->second);
}

double StreamClock::run(const void *stream, DeviceEngine engine, double seconds, bool hostWaits) {
  double &free = engines_[static_cast<int>(engine)];
  const double start = std::max(ready(stream), free);
  const double end = start + seconds;
  free = end;
  endOf(stream) = end;
  if (hostWaits)
    host_ = std::max(host_, end);
  return start;
}

double StreamClock::deviceEnd() const {
  double t = std::max(host_, legacy_);
  for (const auto &[stream, end] : streams_)
    t = std::max(t, end);
  for (double e : engines_)
    t = std::max(t, e);
  return t;
}

void StreamClock::hostWaits(double t) { host_ = std::max(host_, t); }

void StreamClock::streamWaits(const void *stream, double t) {
  double &end = endOf(stream);
  end = std::max(end, t);
}

} // namespace kern::runtime
