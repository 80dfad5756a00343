// Warp fibers and barrier phases (runtime/fiber.h): the stack switch, the stack pool, and the
// phase logic that releases a barrier, reports its misuse, or ends a block.
#include "runtime/fiber.h"

#include <pthread.h>

#include "runtime/checked.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>

#if KERN_OWN_FIBER_SWITCH
asm(R"(
  .text
  .p2align 4
  .globl kern_fiber_switch
  .hidden kern_fiber_switch
  .type kern_fiber_switch, @function
kern_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size kern_fiber_switch, .-kern_fiber_switch
  .p2align 4
  .globl kern_fiber_start
  .hidden kern_fiber_start
  .type kern_fiber_start, @function
kern_fiber_start:
  movq %r12, %rdi
  movq %rbx, %rsi
  callq *%r13
  ud2
  .size kern_fiber_start, .-kern_fiber_start
)");
#endif

namespace kern::runtime {
namespace {

std::string threadRange(uint32_t warp) {
  return "threads " + std::to_string(warp * KERN_WARP_SIZE) + ".." +
         std::to_string(warp * KERN_WARP_SIZE + KERN_WARP_SIZE - 1);
}

} // namespace

uint64_t threadStackLimit() {
  // The thread's stack bounds do not change; reading them may parse /proc (the main thread).
  thread_local uint64_t lo = 0, hi = 0;
  thread_local bool known = false;
  if (!known) {
    known = true;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void *addr = nullptr;
      size_t size = 0;
      if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        lo = reinterpret_cast<uint64_t>(addr);
        hi = lo + size;
      }
      pthread_attr_destroy(&attr);
    }
  }
  const char here = 0;
  const uint64_t sp = reinterpret_cast<uint64_t>(&here);
  if (sp > lo && sp <= hi && sp - lo > kStackMarginBytes)
    return lo + kStackMarginBytes;
  constexpr uint64_t kUnknownStackBytes = 1 << 20;
  return sp > kUnknownStackBytes ? sp - kUnknownStackBytes + kStackMarginBytes : sp;
}

StackPool::~StackPool() {
  for (void *p : free_) {
#if KERN_ASAN
    // Leave no poisoned shadow behind for whatever is mapped here next.
    ASAN_UNPOISON_MEMORY_REGION(static_cast<char *>(p) + kGuardBytes, kStackBytes);
#endif
    munmap(p, kStackBytes + kGuardBytes);
  }
}
ctxlib::stack_context StackPool::allocate() {
  void *base;
  if (!free_.empty()) {
    base = free_.back();
    free_.pop_back();
  } else {
    base = mmap(nullptr, kStackBytes + kGuardBytes, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
      throw std::bad_alloc();
    mprotect(base, kGuardBytes, PROT_NONE);
  }
#if KERN_ASAN
  // A reused stack may still carry the poisoned redzones of frames that were abandoned on it.
  ASAN_UNPOISON_MEMORY_REGION(static_cast<char *>(base) + kGuardBytes, kStackBytes);
#endif
  ctxlib::stack_context sc;
  sc.size = kStackBytes;
  sc.sp = static_cast<char *>(base) + kGuardBytes + kStackBytes;
  return sc;
}

void FiberPool::startBlock(BlockState &b, backend::WarpFunction f, KernWarpCtx *ctxs, uint32_t n,
                           uint32_t blockThreads) {
  block = &b;
  fn = f;
  contexts = ctxs;
  slots.resize(n);
  for (uint32_t w = 0; w < n; ++w)
    slots[w] = {false, w + 1 < n ? w + 1 : kListEnd, w > 0 ? w - 1 : kListEnd};
  head = 0;
  threads = blockThreads;
  arrived = 0;
  mismatch = kListEnd;
  count = 0;
  finished = 0;
  firstFinished = kListEnd;
}

void FiberPool::finish(uint32_t w) {
  WarpSlot &s = slots[w];
  (s.prev == kListEnd ? head : slots[s.prev].next) = s.next;
  if (s.next != kListEnd)
    slots[s.next].prev = s.prev;
  ++finished;
  firstFinished = std::min(firstFinished, w);
}

/// The warp to run next in this phase, from `w` (not started) on in index order: a warp not
/// started yet starts only while the block has no fault and need not stop (else it is finished
/// without running: nothing to unwind). kListEnd: the phase is over.
uint32_t FiberPool::pickSlow(uint32_t w) {
  while (w != kListEnd && !slots[w].started) {
    if (!block->hasFault && !mustStop(block)) {
      slots[w].started = true;
      block->started = true;
      return w;
    }
    const uint32_t after = slots[w].next;
    finish(w);
    w = after;
  }
  return w;
}

/// Context `self` (a warp that suspended or returned, or the worker starting the block) hands
/// over to the next warp of the phase, or ends the phase and hands over to its first warp, or
/// ends the block and hands over to the worker. Returns when `self` is resumed.
void FiberPool::advance(uint32_t self, uint32_t candidate) {
  uint32_t target = pick(candidate);
  if (target == kListEnd)
    target = endPhase() ? head : kMain;
  if (target != self)
    switchTo(self, target);
}

/// Judges a phase whose every unfinished warp has run: false when no warp waits (the block is
/// over); else the barrier is released, or a misuse reported, or (after a fault or a stop) the
/// waiting warps are let go so that they return through their own code rather than by an
/// exception through compiled frames; the next phase then runs every unfinished warp.
bool FiberPool::endPhase() {
  if (arrived == 0)
    return false;
  BlockState &b = *block;
  KernWarpCtx &first = contexts[firstArrived];
  if (b.hasFault || mustStop(&b)) {
    // the waiting warps return at their barrier with ctx->fault set
  } else if (finished) {
    // On a GPU this hangs or silently misbehaves (undefined behaviour); kern says so.
    recordFault(&b, &first, site, KERN_FAULT_BARRIER, 0, 0,
                "__syncthreads() is not reached by every thread of the block: warp " +
                    std::to_string(firstFinished) + " (" + threadRange(firstFinished) +
                    ") has returned while warp " + std::to_string(firstArrived) + " (" +
                    threadRange(firstArrived) + ") waits here");
  } else if (mismatch != kListEnd) {
    recordFault(&b, &first, site, KERN_FAULT_BARRIER, 0, 0,
                "warps of the block wait at different __syncthreads(): warp " +
                    std::to_string(firstArrived) + " waits here, warp " + std::to_string(mismatch) +
                    " elsewhere (a barrier in code that not every "
                    "thread of the block executes)");
  } else {
    // Every live warp is here: combine the predicates (for the _count/_and/_or forms).
    result = combined(op, count);
    if (b.checked) // accesses after the barrier are ordered after those before it
      checkedBarrier(b.checked);
  }
  arrived = 0;
  mismatch = kListEnd;
  count = 0;
  return true;
}

} // namespace kern::runtime
