// Unit tests of the modelled clock of streams (runtime/stream_clock.h): docs/timing.md,
// "Streams", worked example.
#include "runtime/stream_clock.h"

#include <catch2/catch.hpp>

using namespace kern::runtime;

TEST_CASE("streams: copies and kernels of different streams overlap on their engines",
          "[runtime][streams]") {
  StreamClock c;
  int a = 0, b = 0; // two streams (any distinct addresses)
  // Stream a: a 1 ms copy in, then a 2 ms kernel; stream b: a 1 ms copy in, a 2 ms kernel.
  CHECK(c.run(&a, DeviceEngine::CopyIn, 1e-3, false) == 0);
  CHECK(c.run(&a, DeviceEngine::Compute, 2e-3, false) == Approx(1e-3));
  // b's copy waits for the copy engine (a's copy), not for a's kernel.
  CHECK(c.run(&b, DeviceEngine::CopyIn, 1e-3, false) == Approx(1e-3));
  // b's kernel waits for its copy (2 ms) and for the SMs (a's kernel ends at 3 ms).
  CHECK(c.run(&b, DeviceEngine::Compute, 2e-3, false) == Approx(3e-3));
  // Copies out overlap the other stream's kernel.
  CHECK(c.run(&a, DeviceEngine::CopyOut, 1e-3, false) == Approx(3e-3));
  CHECK(c.ready(&a) == Approx(4e-3));
  CHECK(c.host() == 0); // nothing made the host wait
  // The legacy default stream waits for everything before it.
  CHECK(c.ready(nullptr) == Approx(5e-3));
  CHECK(c.run(nullptr, DeviceEngine::CopyOut, 1e-3, true) == Approx(5e-3));
  CHECK(c.host() == Approx(6e-3));
  // ...and stream work after it waits for it.
  CHECK(c.run(&a, DeviceEngine::CopyIn, 1e-3, false) == Approx(6e-3));
  CHECK(c.deviceEnd() == Approx(7e-3));
}

TEST_CASE("streams: the host's waits and a stream's wait for an event", "[runtime][streams]") {
  StreamClock c;
  int a = 0, b = 0;
  c.run(&a, DeviceEngine::Compute, 5e-3, false);
  const double event = c.ready(&a); // recorded on a after its kernel
  CHECK(event == Approx(5e-3));
  // b waits for the event before its copy, although the copy engine is free.
  c.streamWaits(&b, event);
  CHECK(c.run(&b, DeviceEngine::CopyIn, 1e-3, false) == Approx(5e-3));
  // Work issued after the host waited starts no earlier than the host.
  c.hostWaits(10e-3);
  CHECK(c.run(&a, DeviceEngine::Compute, 1e-3, false) == Approx(10e-3));
}

TEST_CASE("streams: a non-blocking stream and the legacy default stream do not wait for each "
          "other",
          "[runtime][streams]") {
  StreamClock c;
  int a = 0;
  c.setNonBlocking(&a);
  c.run(&a, DeviceEngine::CopyIn, 4e-3, false);
  // The default stream's kernel does not wait for a's copy...
  CHECK(c.run(nullptr, DeviceEngine::Compute, 1e-3, false) == 0);
  // ...nor a's kernel for the default stream's (only for the SMs, and its own copy).
  CHECK(c.run(&a, DeviceEngine::Compute, 1e-3, false) == Approx(4e-3));
  CHECK(c.ready(nullptr) == Approx(1e-3));
}
