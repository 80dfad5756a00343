// A request to stop the running program, made from any thread or from a signal handler:
// Ctrl-C in the CLI and the REPL, kern_interrupt and Engine::interrupt in an embedding
// application. Internal to the runtime and the engine.
//
// The program notices the request where it would notice its time limit (docs/limits.md): at
// the poll points of kernels (loop back-edges, the start of each block) and of host code (loop
// back-edges, every call into the runtime or the C library, and within sleeps), so a running
// program stops within milliseconds wherever it is. Code between two poll points is
// straight-line or a bounded call chain, so no point of a program is further than that from a
// poll.
#pragma once

#include <atomic>

namespace kern::runtime {

class StopRequest {
public:
  /// Asks the running program to stop. Safe to call from any thread and from a signal handler
  /// (one lock-free atomic store).
  void request() noexcept { requested_.store(true, std::memory_order_relaxed); }
  bool requested() const noexcept { return requested_.load(std::memory_order_relaxed); }
  /// Forgets a request: done when a run ends, so that one request stops one run.
  void clear() noexcept { requested_.store(false, std::memory_order_relaxed); }

private:
  static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler stores it");
  std::atomic<bool> requested_{false};
};

} // namespace kern::runtime
