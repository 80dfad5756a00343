// Program threads as cooperative fibers of the host thread (runtime/host_threads.h), and the
// <pthread.h> functions of compiled host code.
#include "runtime/host_threads.h"

#include "backend/abi.h"
#include "runtime/asan.h"
#include "runtime/runtime.h"

#include <sys/mman.h>

#include <cerrno>

namespace kern::runtime {

namespace ctxd = boost::context::detail;

namespace {
// A program thread's stack: as large as a default pthread stack (pages are committed only when
// touched), with a guard region below it.
constexpr size_t kThreadStackBytes = 8u << 20;
constexpr size_t kThreadGuardBytes = 64u << 10;
// What a cancelled thread's pthread_join reports: PTHREAD_CANCELED.
void *const kCanceled = reinterpret_cast<void *>(-1);

// Unmaps a thread's stack. Under AddressSanitizer its shadow is cleared first: frames left on
// it (a thread abandoned mid-call, or unwound from by exit()) keep their redzones poisoned,
// and a later stack mapped at the same place would inherit them.
void unmapStack(void *base) {
#if KERN_ASAN
  ASAN_UNPOISON_MEMORY_REGION(static_cast<char *>(base) + kThreadGuardBytes, kThreadStackBytes);
#endif
  munmap(base, kThreadStackBytes + kThreadGuardBytes);
}
} // namespace

HostThreads::~HostThreads() {
#if KERN_ASAN
  // exit() or a fault in a program thread unwinds straight to the main thread's stack, with no
  // switch announced: AddressSanitizer learns it now.
  if (current_ != 0) {
    __sanitizer_start_switch_fiber(nullptr, asanMainBottom_, asanMainSize_);
    __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
  }
#endif
  // Threads still running when the program ended are abandoned: nothing on their stacks has a
  // destructor to run (compiled host code has none), so the stacks are simply unmapped.
  for (auto &t : threads_) {
    if (t->stack)
      unmapStack(t->stack);
    if (t->arenaStack)
      rt_.hostHeap().releaseStack(t->arenaStack);
  }
}

void HostThreads::entry(ctxd::transfer_t t) {
  auto *self = static_cast<HostThreads *>(t.data);
#if KERN_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &self->asanMainBottom_, &self->asanMainSize_);
#endif
  self->mainCtx_ = t.fctx;
  Thread &th = *self->threads_[self->current_];
  void *r = th.cancelRequested ? kCanceled : th.fn(th.ctx, th.arg);
  th.result = r;
  th.done = true;
  self->toMain(); // never resumed
  __builtin_unreachable();
}

void HostThreads::toMain() {
#if KERN_ASAN
  // A finished thread's stack is never resumed: no fake stack to keep.
  void *fakeStack = nullptr;
  __sanitizer_start_switch_fiber(threads_[current_]->done ? nullptr : &fakeStack, asanMainBottom_,
                                 asanMainSize_);
#endif
  ctxd::transfer_t back = ctxd::jump_fcontext(mainCtx_, nullptr);
#if KERN_ASAN
  __sanitizer_finish_switch_fiber(fakeStack, &asanMainBottom_, &asanMainSize_);
#endif
  mainCtx_ = back.fctx;
}

void HostThreads::resume(size_t i) {
  Thread &t = *threads_[i];
  current_ = i;
  lastRun_ = i;
  t.wait = Wait::None;
  t.started = true;
  // The thread's local objects live on its own stack in the host arena: the context's stack
  // fields are the running thread's.
  const uint64_t mainLo = t.ctx->stackLo, mainSp = t.ctx->sp;
  t.ctx->stackLo = t.arenaStack;
  t.ctx->sp = t.arenaSp;
#if KERN_ASAN
  void *fakeStack = nullptr;
  __sanitizer_start_switch_fiber(&fakeStack, static_cast<char *>(t.stack) + kThreadGuardBytes,
                                 kThreadStackBytes);
#endif
  ctxd::transfer_t back = ctxd::jump_fcontext(t.fctx, this);
#if KERN_ASAN
  __sanitizer_finish_switch_fiber(fakeStack, nullptr, nullptr);
#endif
  t.fctx = back.fctx;
  t.arenaSp = t.ctx->sp;
  t.ctx->stackLo = mainLo;
  t.ctx->sp = mainSp;
  current_ = 0;
  if (t.done && t.stack) {
    unmapStack(t.stack);
    t.stack = nullptr;
    t.fctx = nullptr;
    rt_.hostHeap().releaseStack(t.arenaStack);
    t.arenaStack = 0;
  }
}

bool HostThreads::runnable(const Thread &t) const {
  if (t.done)
    return false;
  if (t.cancelRequested && (t.wait == Wait::Join || t.wait == Wait::Cond))
    return true; // it goes on to end at its cancellation point
  switch (t.wait) {
  case Wait::None:
  case Wait::Yield:
    return true;
  case Wait::Join:
    return threads_[t.joinTarget - 1]->done;
  case Wait::Mutex:
    return *t.mutex == 0;
  case Wait::Cond:
    return t.signaled;
  }
  return false;
}

void HostThreads::block(KernHostCtx *ctx) {
  if (current_ != 0) {
    const Wait w = threads_[current_]->wait;
    toMain(); // the main thread's loop below runs this thread again once it may go on
    if (threads_[current_]->cancelRequested && (w == Wait::Join || w == Wait::Cond))
      exit(ctx, kCanceled); // a cancellation point
    return;
  }
  Thread &main = *threads_[0];
  lastRun_ = 0;
  for (;;) {
    const size_t n = threads_.size();
    size_t pick = n;
    for (size_t k = 1; k <= n; ++k) {
      size_t i = (lastRun_ + k) % n;
      if (runnable(*threads_[i])) {
        pick = i;
        break;
      }
    }
    if (pick == n)
      deadlock(ctx);
    if (pick == 0) {
      main.wait = Wait::None;
      return;
    }
    resume(pick);
  }
}

std::string HostThreads::describe(size_t i) const {
  const Thread &t = *threads_[i];
  std::string s = i == 0 ? "thread 1 (main)" : "thread " + std::to_string(i + 1);
  switch (t.wait) {
  case Wait::Join:
    return s + " waits in pthread_join for thread " + std::to_string(t.joinTarget);
  case Wait::Mutex:
    return s + " waits in pthread_mutex_lock for a mutex held by thread " +
           std::to_string(*t.mutex);
  case Wait::Cond:
    return s + " waits in pthread_cond_wait";
  default:
    return s;
  }
}

void HostThreads::deadlock(KernHostCtx *ctx) {
  {
    std::string msg = "deadlock: every program thread is blocked (";
    bool first = true;
    for (size_t i = 0; i < threads_.size(); ++i) {
      if (threads_[i]->done)
        continue;
      msg += (first ? "" : "; ") + describe(i);
      first = false;
    }
    rt_.reportHostError(msg + ")");
  } // the message is freed here: the unwind below runs no destructors
  Runtime::unwind(ctx, kHostFaultExitCode);
}

int32_t HostThreads::create(KernHostCtx *ctx, uint64_t *out, Routine fn, void *arg) {
  void *base = mmap(nullptr, kThreadStackBytes + kThreadGuardBytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED)
    return EAGAIN;
  const uint64_t arenaStack = rt_.hostHeap().allocateStack(kThreadStackBytes);
  if (!arenaStack) {
    munmap(base, kThreadStackBytes + kThreadGuardBytes);
    return EAGAIN;
  }
  mprotect(base, kThreadGuardBytes, PROT_NONE);
  auto t = std::make_unique<Thread>();
  t->stack = base;
  t->arenaStack = arenaStack;
  t->arenaSp = arenaStack + kThreadStackBytes;
  t->fn = fn;
  t->arg = arg;
  t->ctx = ctx;
  char *top = static_cast<char *>(base) + kThreadGuardBytes + kThreadStackBytes;
  t->fctx = ctxd::make_fcontext(top, kThreadStackBytes, &HostThreads::entry);
  threads_.push_back(std::move(t));
  if (out)
    *out = threads_.size();
  return 0;
}

int32_t HostThreads::join(KernHostCtx *ctx, uint64_t id, void **result) {
  if (id == 0 || id > threads_.size())
    return ESRCH;
  if (id == self())
    return EDEADLK;
  Thread &target = *threads_[id - 1];
  if (target.joined || target.detached)
    return EINVAL;
  if (!target.done) {
    Thread &me = *threads_[current_];
    me.wait = Wait::Join;
    me.joinTarget = id;
    block(ctx);
  }
  target.joined = true;
  if (result)
    *result = target.result;
  return 0;
}

int32_t HostThreads::cancel(uint64_t id) {
  if (id == 0 || id > threads_.size())
    return ESRCH;
  if (id > 1) // the main thread is never cancelled here (it has no cancellation point)
    threads_[id - 1]->cancelRequested = !threads_[id - 1]->done;
  return 0;
}

int32_t HostThreads::detach(uint64_t id) {
  if (id == 0 || id > threads_.size())
    return ESRCH;
  threads_[id - 1]->detached = true;
  return 0;
}

void HostThreads::exit(KernHostCtx *ctx, void *result) {
  if (current_ == 0) {
    // pthread_exit in main: the process lives on until the other threads end.
    for (size_t i = 1; i < threads_.size(); ++i)
      if (!threads_[i]->done) {
        threads_[0]->wait = Wait::Join;
        threads_[0]->joinTarget = i + 1;
        block(ctx);
      }
    Runtime::unwind(ctx, 0);
  }
  Thread &me = *threads_[current_];
  me.result = result;
  me.done = true;
  toMain();
  __builtin_unreachable();
}

int32_t HostThreads::yield(KernHostCtx *ctx) {
  threads_[current_]->wait = Wait::Yield;
  block(ctx);
  return 0;
}

int32_t HostThreads::mutexLock(KernHostCtx *ctx, int32_t *owner) {
  if (*owner != 0) {
    Thread &me = *threads_[current_];
    me.wait = Wait::Mutex;
    me.mutex = owner;
    block(ctx);
  }
  *owner = static_cast<int32_t>(self());
  return 0;
}

int32_t HostThreads::mutexTrylock(int32_t *owner) {
  if (*owner != 0)
    return EBUSY;
  *owner = static_cast<int32_t>(self());
  return 0;
}

int32_t HostThreads::mutexUnlock(int32_t *owner) {
  if (*owner != static_cast<int32_t>(self()))
    return EPERM;
  *owner = 0;
  return 0;
}

int32_t HostThreads::condWait(KernHostCtx *ctx, const void *cond, int32_t *owner) {
  if (*owner != static_cast<int32_t>(self()))
    return EPERM;
  *owner = 0;
  Thread &me = *threads_[current_];
  me.wait = Wait::Cond;
  me.cond = cond;
  me.signaled = false;
  me.waitOrder = ++waitCounter_;
  block(ctx);
  me.cond = nullptr;
  return mutexLock(ctx, owner);
}

int32_t HostThreads::condSignal(const void *cond, bool all) {
  Thread *oldest = nullptr;
  for (auto &t : threads_) {
    if (t->done || t->wait != Wait::Cond || t->cond != cond || t->signaled)
      continue;
    if (all)
      t->signaled = true;
    else if (!oldest || t->waitOrder < oldest->waitOrder)
      oldest = t.get();
  }
  if (oldest)
    oldest->signaled = true;
  return 0;
}

} // namespace kern::runtime

// ---- called from host code -----------------------------------------------------------------

using kern::runtime::HostThreads;

int32_t kern_rt_pthread_create(KernHostCtx *ctx, void *thread, const void *, void *fn, void *arg) {
  return ctx->rt->hostThreads().create(ctx, static_cast<uint64_t *>(thread),
                                       reinterpret_cast<HostThreads::Routine>(fn), arg);
}
int32_t kern_rt_pthread_join(KernHostCtx *ctx, uint64_t thread, void **result) {
  return ctx->rt->hostThreads().join(ctx, thread, result);
}
int32_t kern_rt_pthread_cancel(KernHostCtx *ctx, uint64_t thread) {
  return ctx->rt->hostThreads().cancel(thread);
}
int32_t kern_rt_pthread_detach(KernHostCtx *ctx, uint64_t thread) {
  return ctx->rt->hostThreads().detach(thread);
}
void kern_rt_pthread_exit(KernHostCtx *ctx, void *result) {
  ctx->rt->hostThreads().exit(ctx, result);
}
uint64_t kern_rt_pthread_self(KernHostCtx *ctx) { return ctx->rt->hostThreads().self(); }
int32_t kern_rt_pthread_equal(KernHostCtx *, uint64_t a, uint64_t b) { return a == b; }
int32_t kern_rt_pthread_attr_init(KernHostCtx *, void *) { return 0; }
int32_t kern_rt_pthread_attr_destroy(KernHostCtx *, void *) { return 0; }
int32_t kern_rt_pthread_mutex_init(KernHostCtx *, void *m, const void *) {
  static_cast<int32_t *>(m)[0] = 0;
  return 0;
}
int32_t kern_rt_pthread_mutex_destroy(KernHostCtx *, void *) { return 0; }
int32_t kern_rt_pthread_mutex_lock(KernHostCtx *ctx, void *m) {
  return ctx->rt->hostThreads().mutexLock(ctx, static_cast<int32_t *>(m));
}
int32_t kern_rt_pthread_mutex_trylock(KernHostCtx *ctx, void *m) {
  return ctx->rt->hostThreads().mutexTrylock(static_cast<int32_t *>(m));
}
int32_t kern_rt_pthread_mutex_unlock(KernHostCtx *ctx, void *m) {
  return ctx->rt->hostThreads().mutexUnlock(static_cast<int32_t *>(m));
}
int32_t kern_rt_pthread_cond_init(KernHostCtx *, void *, const void *) { return 0; }
int32_t kern_rt_pthread_cond_destroy(KernHostCtx *, void *) { return 0; }
int32_t kern_rt_pthread_cond_wait(KernHostCtx *ctx, void *c, void *m) {
  return ctx->rt->hostThreads().condWait(ctx, c, static_cast<int32_t *>(m));
}
int32_t kern_rt_pthread_cond_signal(KernHostCtx *ctx, void *c) {
  return ctx->rt->hostThreads().condSignal(c, false);
}
int32_t kern_rt_pthread_cond_broadcast(KernHostCtx *ctx, void *c) {
  return ctx->rt->hostThreads().condSignal(c, true);
}
int32_t kern_rt_sched_yield(KernHostCtx *ctx) { return ctx->rt->hostThreads().yield(ctx); }
int32_t kern_rt_pthread_yield(KernHostCtx *ctx) { return ctx->rt->hostThreads().yield(ctx); }
