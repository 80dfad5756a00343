// The barrier machinery of a worker (FiberPool: warp fibers and barrier phases) and the
// per-launch and per-block state it shares with the block scheduler. Internal to the runtime.
#pragma once

#include "runtime/asan.h"
#include "runtime/scheduler.h"

#include <boost/context/fiber.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <vector>

// Switching between warp fibers. On x86-64 System V kern switches stacks itself: Boost's
// jump_fcontext returns through an indirect jump, which leaves the return-stack predictor one
// entry off, so every return in the resumed fiber mispredicts; and it reloads the x87 control
// word on every switch. Here a switch ends in `ret`: warps suspend at the same call sites, so
// the predictor's entries from the warp that suspends are the right ones for the warp that
// resumes. kern never changes MXCSR or the x87 control word, so the fibers of a thread share them
// and a switch saves neither.
#if defined(__x86_64__) && defined(__linux__)
#define KERN_OWN_FIBER_SWITCH 1
extern "C" {
/// Saves the callee-saved general registers on the current stack, stores the stack pointer
/// in *save, and resumes the context whose stack pointer is `to`.
void kern_fiber_switch(void **save, void *to);
/// The first return address of a new fiber: calls r13(r12, rbx) and never returns.
void kern_fiber_start();
}
#else
#define KERN_OWN_FIBER_SWITCH 0
#endif

namespace kern::runtime {

namespace ctxlib = boost::context;

/// Fiber stacks, reused from block to block on one worker. Address space is cheap
/// (MAP_NORESERVE, pages are committed only when touched), and warp functions keep 32 lanes
/// of every local array on the stack, so the stacks are generous; a guard page below each one
/// turns an overflow into a crash at the overflow rather than silent corruption.
class StackPool {
public:
  static constexpr size_t kStackBytes = 1 << 20;
  static constexpr size_t kGuardBytes = 1 << 16;

  StackPool() = default;
  StackPool(const StackPool &) = delete;
  ~StackPool();
  ctxlib::stack_context allocate();
  void deallocate(ctxlib::stack_context &sc) {
    free_.push_back(static_cast<char *>(sc.sp) - kStackBytes - kGuardBytes);
  }

private:
  std::vector<void *> free_;
};

/// The StackAllocator that boost::context copies into each fiber: a handle on the pool (and,
/// if `record` is set, the list where each stack it hands out is noted).
struct PooledStack {
  StackPool *pool;
  std::vector<ctxlib::stack_context> *record = nullptr;
  ctxlib::stack_context allocate() {
    ctxlib::stack_context sc = pool->allocate();
    if (record)
      record->push_back(sc);
    return sc;
  }
  void deallocate(ctxlib::stack_context &sc) { pool->deallocate(sc); }
};

using ThreadIdxTable = std::array<std::array<uint32_t, KERN_WARP_SIZE>, 3>;

/// What all blocks of one launch share (read-only while blocks run, except the atomics).
struct LaunchState {
  /// Distinguishes launches (a LaunchState may reuse the previous one's address).
  uint64_t serial = nextSerial();
  static uint64_t nextSerial() {
    static std::atomic<uint64_t> n{0};
    return ++n;
  }
  const LaunchConfig *cfg = nullptr;
  uint32_t warpsPerBlock = 0;
  std::vector<ThreadIdxTable> threadIdx; // per warp of a block
  std::vector<uint32_t> liveMask;        // per warp of a block
  uint32_t blockThreads = 0;             // threads of a block
  /// Lowest linear index of a block that faulted: blocks above it stop early, blocks below
  /// it run to completion, so the reported fault is the same for any number of workers.
  std::atomic<uint64_t> minFaultBlock{UINT64_MAX};
  /// Set on a timeout: every block stops.
  std::atomic<bool> stopAll{false};
  std::chrono::steady_clock::time_point start;
};

/// A warp of a block with barriers, between its start and its end.
struct WarpSlot {
  bool started = false;
  /// The next and previous warp, in index order, that has not finished: a barrier phase visits
  /// exactly these, so finished warps cost nothing in later phases. kListEnd ends the list.
  uint32_t next = 0, prev = 0;
};

struct FiberPool;

/// Per-block state; KernWarpCtx::block points here.
struct BlockState {
  LaunchState *launch = nullptr;
  /// The modelled clock at which its warps met at their barriers, two slots used in turn
  /// (KernWarpCtx::blockClock).
  uint64_t clock[2] = {0, 0};
  uint64_t linear = 0;
  uint32_t blockIdx[3] = {0, 0, 0};
  std::string out; // kernel printf
  bool hasFault = false;
  FaultRecord fault;
  /// The block is abandoned (a lower block faulted, or a timeout): warps return as soon as
  /// they ask the runtime anything. Not a fault of this block.
  bool stopping = false;
  /// A warp function of the block was entered: after a timeout, the block was running.
  bool started = false;
  FiberPool *fibers = nullptr; // kernels with barriers: the worker's fibers, running this block
  FiberPool *phases = nullptr; // whole-block kernels: the barrier phases of this block (no fibers)
  WorkerState *worker = nullptr;
  void *counters = nullptr;         // the worker's counters (KernWarpCtx::counters)
  CheckedWorker *checked = nullptr; // the worker's (checked mode)
};

/// Records a fault of block `b` (its first one stands) and lowers the launch's lowest faulting
/// block; sets ctx->fault so that the warp function returns.
void recordFault(BlockState *b, KernWarpCtx *ctx, uint32_t site, uint32_t kind, uint32_t lane,
                 uint64_t addr, std::string message = {});

/// Whether the block must stop because of another block (a lower one faulted, or a timeout).
inline bool mustStop(BlockState *b) {
  if (b->stopping)
    return true;
  if (b->launch->stopAll.load(std::memory_order_relaxed) ||
      b->launch->minFaultBlock.load(std::memory_order_relaxed) < b->linear)
    b->stopping = true;
  return b->stopping;
}

/// The barrier machinery of one worker, reused from block to block and launch to launch: one
/// fiber per warp index, each running warp w of block after block, and the state of the
/// current block's barrier phase.
///
/// A phase runs every unfinished warp once, in index order, each until it reaches a barrier or
/// returns; a warp that suspends switches straight to the next warp of the phase (one context
/// switch per warp per barrier), and the warp that ends the phase judges it: it releases the
/// barrier, reports a misuse, or ends the block by switching back to the worker's own context.
/// The order in which warps run, and so every result and every fault, is the same as if a
/// scheduler loop resumed the warps one by one.
/// The stack kept free below a warp's stack limit (KernWarpCtx::stackLimit): room for the
/// runtime's report of a stack overflow.
constexpr uint64_t kStackMarginBytes = 128 << 10;

/// The stack limit for warps run on this thread's own stack from here (not a fiber's): its
/// bottom plus the margin when the thread's stack is known and holds this frame, else 1 MiB
/// below this frame (a stack kern did not make, such as a program thread's fiber).
uint64_t threadStackLimit();

struct FiberPool {
  static constexpr uint32_t kListEnd = UINT32_MAX;
  /// Index of the worker's own context (the one that runs the block) in switchTo.
  static constexpr uint32_t kMain = UINT32_MAX;

  StackPool stacks;
  std::thread::id owner; // the thread the fibers were created on
  bool quit = false;     // set when the pool is released: each fiber leaves its loop

#if KERN_OWN_FIBER_SWITCH
  /// The saved stack pointer of each warp fiber and of the worker's own context, while they
  /// are suspended.
  std::vector<void *> sps;
  std::vector<ctxlib::stack_context> stackOf;
  void *mainSp = nullptr;

  ~FiberPool() { release(); }

  /// Forgets every fiber. A suspended fiber sits in its loop between two warps, where its
  /// stack holds nothing that needs destroying, so its stack simply goes back to the pool.
  void release() {
    for (ctxlib::stack_context &sc : stackOf)
      stacks.deallocate(sc);
    stackOf.clear();
    sps.clear();
  }

  /// Leaves context `self` for context `target` (a warp fiber, or kMain) and returns when some
  /// context switches back to `self`.
  void switchTo(uint32_t self, uint32_t target) {
#if KERN_ASAN
    void *fakeStack = nullptr;
    asanLeave(self, target, &fakeStack);
#endif
    kern_fiber_switch(self == kMain ? &mainSp : &sps[self], target == kMain ? mainSp : sps[target]);
#if KERN_ASAN
    asanArrive(fakeStack);
#endif
  }

  static void entry(FiberPool *pool, uint64_t self) {
#if KERN_ASAN
    pool->asanArrive(nullptr);
#endif
    pool->loop(static_cast<uint32_t>(self));
  }

  /// At least `n` warp fibers, created on this thread (fibers stay on the thread that made
  /// them: code on their stacks may have cached the address of thread-local data).
  void ensure(uint32_t n) {
    if (owner != std::this_thread::get_id()) {
      release();
      owner = std::this_thread::get_id();
    }
    while (sps.size() < n) {
      // The frame kern_fiber_switch pops on the first switch to the fiber: a spare slot,
      // r15..rbx, rbp, then the return address, kern_fiber_start, which calls r13(r12, rbx) on
      // a 16-byte aligned stack.
      ctxlib::stack_context sc = stacks.allocate();
      auto *frame = reinterpret_cast<uint64_t *>(static_cast<char *>(sc.sp) - 80);
      std::memset(frame, 0, 80);
      frame[3] = reinterpret_cast<uint64_t>(&FiberPool::entry); // r13
      frame[4] = reinterpret_cast<uint64_t>(this);              // r12
      frame[5] = sps.size();                                    // rbx
      frame[7] = reinterpret_cast<uint64_t>(&kern_fiber_start);
      sps.push_back(frame);
      stackOf.push_back(sc);
    }
  }
#else
  /// The suspended continuation of each warp fiber (empty while it runs); destroyed before
  /// `stacks` (declared before it) so that the stacks go back to a pool that still exists.
  std::vector<ctxlib::fiber> fibers;
  ctxlib::fiber main;                         // the worker's own context, while a fiber runs
  uint32_t from = kMain;                      // the context that switched to the one now resuming
#if KERN_ASAN
  std::vector<ctxlib::stack_context> stackOf; // each fiber's stack, for AddressSanitizer
#endif

  ~FiberPool() { release(); }

  /// Lets every fiber's loop return (each one's stack then holds nothing of ours).
  void release() {
    quit = true;
    for (uint32_t i = 0; i < fibers.size(); ++i)
      if (fibers[i])
        switchTo(kMain, i);
    fibers.clear();
#if KERN_ASAN
    stackOf.clear();
#endif
    quit = false;
  }

  /// Leaves context `self` for context `target` (a warp fiber, or kMain) and returns when some
  /// context switches back to `self`; that one's continuation is kept under its own index.
  void switchTo(uint32_t self, uint32_t target) {
    ctxlib::fiber &to = target == kMain ? main : fibers[target];
    from = self;
#if KERN_ASAN
    void *fakeStack = nullptr;
    asanLeave(self, target, &fakeStack);
    ctxlib::fiber back = std::move(to).resume();
    asanArrive(fakeStack);
    park(std::move(back));
#else
    park(std::move(to).resume());
#endif
  }
  void park(ctxlib::fiber &&back) { (from == kMain ? main : fibers[from]) = std::move(back); }

  /// At least `n` warp fibers, created on this thread (fibers stay on the thread that made
  /// them: code on their stacks may have cached the address of thread-local data).
  void ensure(uint32_t n) {
    if (owner != std::this_thread::get_id()) {
      release();
      owner = std::this_thread::get_id();
    }
    while (fibers.size() < n) {
      const uint32_t self = static_cast<uint32_t>(fibers.size());
#if KERN_ASAN
      PooledStack alloc{&stacks, &stackOf};
#else
      PooledStack alloc{&stacks};
#endif
      fibers.emplace_back(std::allocator_arg, alloc, [this, self](ctxlib::fiber &&caller) {
#if KERN_ASAN
        asanArrive(nullptr);
#endif
        park(std::move(caller));
        loop(self);
        from = self;
#if KERN_ASAN
        asanLeave(self, kMain, nullptr); // this fiber's stack is never resumed
#endif
        return std::move(main);
      });
    }
  }
#endif

#if KERN_ASAN
  // AddressSanitizer's view of the switches: the stack of the worker's own context is learnt
  // when it switches to a fiber (it always does before any fiber switches back to it).
  const void *mainBottom = nullptr;
  size_t mainSize = 0;
  uint32_t switcher = kMain; // the context that announced the switch now completing

  /// Announces the switch from `self` to `target`; `fakeStack` null: `self` never resumes.
  void asanLeave(uint32_t self, uint32_t target, void **fakeStack) {
    switcher = self;
    if (target == kMain)
      __sanitizer_start_switch_fiber(fakeStack, mainBottom, mainSize);
    else
      __sanitizer_start_switch_fiber(fakeStack,
                                     static_cast<char *>(stackOf[target].sp) - stackOf[target].size,
                                     stackOf[target].size);
  }
  /// Completes a switch on the stack that now runs.
  void asanArrive(void *fakeStack) {
    const void *bottom = nullptr;
    size_t size = 0;
    __sanitizer_finish_switch_fiber(fakeStack, &bottom, &size);
    if (switcher == kMain) {
      mainBottom = bottom;
      mainSize = size;
    }
  }
#endif

  /// A warp fiber's life: warp `self` of one block after another.
  void loop(uint32_t self) {
    // This fiber's stack: the loop runs near its top, and the warp's code may use the rest
    // down to a margin above the guard (KernWarpCtx::stackLimit).
    const char top = 0;
    const uint64_t limit =
        reinterpret_cast<uint64_t>(&top) - StackPool::kStackBytes + kStackMarginBytes;
    for (;;) {
#if KERN_OWN_FIBER_SWITCH
      if (quit) [[unlikely]]
        switchTo(self, kMain); // never resumed
#else
      if (quit)
        return;
#endif
      contexts[self].stackLimit = limit;
      fn(&contexts[self]);
      finish(self);
      advance(self, slots[self].next);
    }
  }

  // The current block.
  BlockState *block = nullptr;
  backend::WarpFunction fn = nullptr;
  KernWarpCtx *contexts = nullptr;
  std::vector<WarpSlot> slots;
  uint32_t head = kListEnd; // first unfinished warp
  uint32_t threads = 0;     // live threads of the block (for __syncthreads_and)

  // The current barrier phase.
  uint32_t arrived = 0;              // warps waiting at a barrier in this phase
  uint32_t firstArrived = 0;         // the lowest of them (they arrive in index order)
  uint32_t site = 0;                 // where the first one waits
  int32_t op = -1;                   // and with which form of __syncthreads
  uint32_t mismatch = kListEnd;      // the first warp waiting elsewhere
  uint32_t count = 0;                // predicate lanes set, summed over the arrived warps
  uint32_t finished = 0;             // warps of the block that have returned (or never started)
  uint32_t firstFinished = kListEnd; // the lowest of them
  int32_t result = 0;                // the released barrier's value, read by every warp

  FiberPool() = default;
  FiberPool(const FiberPool &) = delete;

  /// Prepares the phases of block `b`: `n` warps with these contexts, none started.
  void startBlock(BlockState &b, backend::WarpFunction f, KernWarpCtx *ctxs, uint32_t n,
                  uint32_t blockThreads);
  /// Warp `w` waits at the barrier at `site` (`op` as kern_rt_barrier_reduce, -1 for a plain
  /// one) with its predicate lanes `pred`.
  void arrive(uint32_t w, uint32_t site, int32_t op, uint32_t pred) {
    // Warps arrive in index order, so the first arrival is the lowest waiting warp, and the
    // first one that waits elsewhere is the lowest such warp.
    if (arrived++ == 0) {
      firstArrived = w;
      this->site = site;
      this->op = op;
    } else if (mismatch == kListEnd && (site != this->site || op != this->op)) {
      mismatch = w;
    }
    count += static_cast<uint32_t>(std::popcount(pred));
  }
  void finish(uint32_t w);
  void advance(uint32_t self, uint32_t candidate);
  /// The warp to run next in this phase, from `w` on in index order (see pickSlow).
  uint32_t pick(uint32_t w) { return w == kListEnd || slots[w].started ? w : pickSlow(w); }
  uint32_t pickSlow(uint32_t w);
  bool endPhase();
  /// The value of a released barrier whose waiting warps' predicates hold for `count` lanes:
  /// `op` 0 the count, 1 whether all of the block's threads, 2 whether any (the _count, _and,
  /// _or forms); 0 for a plain one.
  int32_t combined(int32_t op, uint32_t count) const {
    return op == 0   ? static_cast<int32_t>(count)
           : op == 1 ? count == threads
           : op == 2 ? count != 0
                     : 0;
  }
};

} // namespace kern::runtime
