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
#include <signal.h>
#include <sys/types.h>

namespace kern::runtime {

class StopRequest {
public:
  /// Asks the running program to stop. Safe to call from any thread and from a signal handler
  /// (a lock-free atomic store, and kill() to a sandbox's child that runs the program).
  void request() noexcept {
    requested_.store(true, std::memory_order_relaxed);
    if (const pid_t child = child_.load(std::memory_order_relaxed); child > 0)
      kill(child, SIGINT); // the child's own handler asks its runtime to stop
  }
  bool requested() const noexcept { return requested_.load(std::memory_order_relaxed); }
  /// Forgets a request: done when a run ends, so that one request stops one run.
  void clear() noexcept { requested_.store(false, std::memory_order_relaxed); }
  /// The sandbox's child process that runs the program now (0: none): request() passes the
  /// stop on to it.
  void setChild(pid_t pid) noexcept { child_.store(pid, std::memory_order_relaxed); }

private:
  static_assert(std::atomic<pid_t>::is_always_lock_free, "a signal handler loads it");
  std::atomic<pid_t> child_{0};
  static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler stores it");
  std::atomic<bool> requested_{false};
};

} // namespace kern::runtime
