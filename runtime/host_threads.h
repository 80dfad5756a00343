// The threads of a program's host code (<pthread.h>) as cooperative fibers of the one host
// thread. Internal to the runtime.
//
// kern runs host code on one thread, and keeps it deterministic with program threads too: each
// pthread_create makes a fiber, which first runs at the next switch point, and the scheduler
// switches only where a thread blocks: pthread_join of a thread that is still running,
// pthread_mutex_lock of a held mutex, pthread_cond_wait, sched_yield/pthread_yield, and the end
// of a thread. Then the next runnable thread in round-robin order of thread number (main is
// thread 1) runs until it blocks in turn. Every fiber runs from the main thread's blocking
// call (the fibers switch back to it, and it picks the next one), so when every thread is
// blocked the main thread sees it and reports a deadlock. The program's main returning ends
// the program, as in C: threads still running are abandoned.
#pragma once

#include <boost/context/detail/fcontext.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct KernHostCtx;

namespace kern::runtime {

class Runtime;

class HostThreads {
public:
  explicit HostThreads(Runtime &rt) : rt_(rt) {
    threads_.push_back(std::make_unique<Thread>()); // the main thread, number 1
  }
  ~HostThreads();
  HostThreads(const HostThreads &) = delete;
  HostThreads &operator=(const HostThreads &) = delete;

  /// A compiled host function `void *f(void *)`: its machine form takes the host context first.
  using Routine = void *(*)(KernHostCtx *, void *);

  int32_t create(KernHostCtx *ctx, uint64_t *out, Routine fn, void *arg);
  int32_t join(KernHostCtx *ctx, uint64_t id, void **result);
  int32_t detach(uint64_t id);
  /// Deferred cancellation: the thread ends (its result PTHREAD_CANCELED) at its next
  /// cancellation point, pthread_join or pthread_cond_wait, or before it starts.
  int32_t cancel(uint64_t id);
  [[noreturn]] void exit(KernHostCtx *ctx, void *result);
  uint64_t self() const { return current_ + 1; }
  int32_t yield(KernHostCtx *ctx);
  int32_t mutexLock(KernHostCtx *ctx, int32_t *owner);
  int32_t mutexTrylock(int32_t *owner);
  int32_t mutexUnlock(int32_t *owner);
  int32_t condWait(KernHostCtx *ctx, const void *cond, int32_t *owner);
  int32_t condSignal(const void *cond, bool all);

private:
  enum class Wait { None, Join, Mutex, Cond, Yield };
  struct Thread {
    bool started = false, done = false, joined = false, detached = false;
    bool cancelRequested = false;
    void *result = nullptr;
    Wait wait = Wait::None;
    uint64_t joinTarget = 0;
    int32_t *mutex = nullptr;
    const void *cond = nullptr;
    bool signaled = false;
    uint64_t waitOrder = 0; // pthread_cond_signal wakes the longest waiting thread
    boost::context::detail::fcontext_t fctx = nullptr;
    void *stack = nullptr;
    uint64_t arenaStack = 0, arenaSp = 0; // its stack in the host arena (local objects)
    Routine fn = nullptr;
    void *arg = nullptr;
    KernHostCtx *ctx = nullptr;
  };

  /// The current thread waits as its Thread says; returns once it may go on.
  void block(KernHostCtx *ctx);
  bool runnable(const Thread &t) const;
  void resume(size_t i);
  void toMain();
  [[noreturn]] void deadlock(KernHostCtx *ctx);
  std::string describe(size_t i) const;
  static void entry(boost::context::detail::transfer_t t);

  Runtime &rt_;
  std::vector<std::unique_ptr<Thread>> threads_; // [n] is thread number n + 1
  size_t current_ = 0;
  size_t lastRun_ = 0;
  uint64_t waitCounter_ = 0;
  boost::context::detail::fcontext_t mainCtx_ = nullptr;
  // The main thread's stack, for AddressSanitizer (learnt on each switch from it).
  const void *asanMainBottom_ = nullptr;
  size_t asanMainSize_ = 0;
};

} // namespace kern::runtime
