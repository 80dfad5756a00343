// The worker pool and the execution of a launch: blocks handed out in linear order to workers,
// each block's warps run one after another on its worker, or, for kernels with barriers, each
// warp on a fiber of its worker so that a warp reaching __syncthreads() can wait for the others.
#include "runtime/scheduler.h"

#include "runtime/counter_hooks.h"

#include "runtime/checked.h"
#include "runtime/printf_format.h"

#include <boost/context/fiber.hpp>

#include <sys/mman.h>

// AddressSanitizer keeps one shadow stack per context: every switch between fiber stacks is
// announced to it (start before, finish after), or it takes the other stack's frames for a
// stack overflow or use-after-scope and reports false positives.
#if defined(__SANITIZE_ADDRESS__)
#define KERN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KERN_ASAN 1
#endif
#endif
#ifndef KERN_ASAN
#define KERN_ASAN 0
#endif
#if KERN_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

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
#else
#define KERN_OWN_FIBER_SWITCH 0
#endif

namespace kern::runtime {

namespace ctxlib = boost::context;

namespace {

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
  ~StackPool() {
    for (void *p : free_) {
#if KERN_ASAN
      // Leave no poisoned shadow behind for whatever is mapped here next.
      ASAN_UNPOISON_MEMORY_REGION(static_cast<char *>(p) + kGuardBytes, kStackBytes);
#endif
      munmap(p, kStackBytes + kGuardBytes);
    }
  }
  ctxlib::stack_context allocate() {
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

} // namespace

struct BlockState;

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
    for (;;) {
#if KERN_OWN_FIBER_SWITCH
      if (quit) [[unlikely]]
        switchTo(self, kMain); // never resumed
#else
      if (quit)
        return;
#endif
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
  uint32_t pick(uint32_t candidate);
  bool endPhase();
};

/// Per-block state; KernWarpCtx::block points here.
struct BlockState {
  LaunchState *launch = nullptr;
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
  FiberPool *phases = nullptr; // coroutine kernels: the barrier phases of this block (no fibers)
  WorkerState *worker = nullptr;
  void *counters = nullptr;         // the worker's counters (KernWarpCtx::counters)
  CheckedWorker *checked = nullptr; // the worker's (checked mode)
};

/// One worker's reusable resources and its share of the launch's results.
struct WorkerState {
  FiberPool fibers;
  /// Coroutine kernels: the phase bookkeeping of the running block, and one frame per warp
  /// (reused from block to block: compiled code never frees them).
  FiberPool phases;
  std::vector<std::unique_ptr<uint8_t[]>> coroFrames;
  std::vector<uint64_t> coroFrameBytes;
  uint8_t *shared = nullptr;
  uint64_t sharedCapacity = 0;
  std::vector<std::pair<uint64_t, std::string>> outputs;
  std::vector<FaultRecord> faults;
  std::vector<uint64_t> interrupted; // blocks stopped mid-way by a timeout
  /// Blocks this worker ran to the end in the current launch (summed after it: a shared
  /// atomic counter bounces its cache line between workers on every block).
  uint64_t finishedBlocks = 0;
  void *counters = nullptr;         // this launch's counters for this worker, or null
  CheckedWorker *checked = nullptr; // this launch's for this worker, or null
  /// Warp contexts of the current launch, one per warp of a block, filled once per launch:
  /// threadIdx and the live mask do not depend on the block, and a kernel reading a context
  /// that was just written stalls (masked vector loads do not forward from the store buffer).
  std::vector<KernWarpCtx> warpContexts;
  uint64_t warpContextsLaunch = 0;

  ~WorkerState() { std::free(shared); }
  uint8_t *sharedMemory(uint64_t bytes) {
    // Always a valid, 256-aligned pointer, even for 0 bytes.
    const uint64_t need = std::max<uint64_t>((bytes + 255) / 256 * 256, 256);
    if (need > sharedCapacity) {
      std::free(shared);
      shared = static_cast<uint8_t *>(std::aligned_alloc(256, need));
      if (!shared)
        throw std::bad_alloc();
      sharedCapacity = need;
    }
    // CUDA leaves shared memory uninitialised; zeroing it keeps results reproducible.
    std::memset(shared, 0, bytes);
    return shared;
  }
};

namespace {

BlockState *blockOf(KernWarpCtx *ctx) { return static_cast<BlockState *>(ctx->block); }

void recordFault(BlockState *b, KernWarpCtx *ctx, uint32_t site, uint32_t kind, uint32_t lane,
                 uint64_t addr, std::string message = {}) {
  ctx->fault = 1;
  if (b->hasFault)
    return; // the first fault of a block is the one that a sequential run meets first
  b->hasFault = true;
  FaultRecord &f = b->fault;
  f.blockLinear = b->linear;
  std::copy(b->blockIdx, b->blockIdx + 3, f.blockIdx);
  f.warpId = ctx->warpId;
  f.lane = lane < KERN_WARP_SIZE ? lane : 0;
  for (int d = 0; d < 3; ++d)
    f.thread[d] = ctx->threadIdx[d][f.lane];
  f.site = site;
  f.kind = kind;
  f.addr = addr;
  f.message = std::move(message);
  std::atomic<uint64_t> &min = b->launch->minFaultBlock;
  uint64_t cur = min.load(std::memory_order_relaxed);
  while (b->linear < cur && !min.compare_exchange_weak(cur, b->linear))
    ;
}

/// Whether the block must stop because of another block (a lower one faulted, or a timeout).
bool mustStop(BlockState *b) {
  if (b->stopping)
    return true;
  if (b->launch->stopAll.load(std::memory_order_relaxed) ||
      b->launch->minFaultBlock.load(std::memory_order_relaxed) < b->linear)
    b->stopping = true;
  return b->stopping;
}

void fillContext(KernWarpCtx &ctx, const LaunchState &L, BlockState &b, uint8_t *shared,
                 uint32_t warp) {
  const LaunchConfig &cfg = *L.cfg;
  std::memset(&ctx, 0, sizeof ctx);
  ctx.params = cfg.params;
  ctx.shared = shared;
  ctx.sharedSize = cfg.sharedBytes;
  ctx.globalLo = cfg.globalLo;
  ctx.globalHi = cfg.globalHi;
  ctx.shadow = cfg.shadow;
  for (int d = 0; d < 3; ++d) {
    ctx.gridDim[d] = cfg.grid[d];
    ctx.blockDim[d] = cfg.block[d];
    ctx.blockIdx[d] = b.blockIdx[d];
    std::memcpy(ctx.threadIdx[d], L.threadIdx[warp][d].data(), sizeof ctx.threadIdx[d]);
  }
  ctx.warpId = warp;
  ctx.liveMask = L.liveMask[warp];
  ctx.fault = 0;
  ctx.steps = kPollInterval;
  ctx.block = &b;
  ctx.counters = b.counters;
  ctx.callDepth = 0;
}

std::string threadRange(uint32_t warp) {
  return "threads " + std::to_string(warp * KERN_WARP_SIZE) + ".." +
         std::to_string(warp * KERN_WARP_SIZE + KERN_WARP_SIZE - 1);
}

} // namespace

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

/// The warp to run next in this phase, from `w` on in index order: a warp not started yet
/// starts only while the block has no fault and need not stop (else it is finished without
/// running: nothing to unwind). kListEnd: the phase is over.
uint32_t FiberPool::pick(uint32_t w) {
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
    result = op == 0   ? static_cast<int32_t>(count)
             : op == 1 ? count == threads
             : op == 2 ? count != 0
                       : 0;
    if (b.checked) // accesses after the barrier are ordered after those before it
      checkedBarrier(b.checked);
  }
  arrived = 0;
  mismatch = kListEnd;
  count = 0;
  return true;
}

namespace {

/// The warp contexts of block `b`, one per warp. They are filled once per launch; per block
/// only the block's fields change (a full refill per warp costs as much as a small kernel's
/// warp, and a kernel reading a context that was just written stalls: masked vector loads do
/// not forward from the store buffer).
/// (bx, by, bz) is b.blockIdx handed over in registers, one by one: the block state was just
/// written by 32-bit stores, and reading two of them back as one 64-bit word (as the compiler
/// likes to, for an array or a struct too) cannot be forwarded from the store buffer: a stall
/// at every block.
KernWarpCtx *blockContexts(WorkerState &W, LaunchState &L, BlockState &b, uint8_t *shared,
                           uint32_t bx, uint32_t by, uint32_t bz) {
  if (W.warpContextsLaunch != L.serial) {
    W.warpContexts.resize(L.warpsPerBlock);
    for (uint32_t w = 0; w < L.warpsPerBlock; ++w)
      fillContext(W.warpContexts[w], L, b, shared, w);
    W.warpContextsLaunch = L.serial;
  }
  for (uint32_t w = 0; w < L.warpsPerBlock; ++w) {
    KernWarpCtx &ctx = W.warpContexts[w];
    ctx.shared = shared;
    ctx.blockIdx[0] = bx;
    ctx.blockIdx[1] = by;
    ctx.blockIdx[2] = bz;
    ctx.block = &b;
    ctx.counters = b.counters;
    ctx.coro = nullptr;
    ctx.finished = 0;
    ctx.fault = 0;
    ctx.steps = kPollInterval;
    ctx.callDepth = 0;
  }
  return W.warpContexts.data();
}

/// Runs a block of a kernel with barriers on the worker's fibers, phase by phase (FiberPool);
/// returns when every warp of the block has returned or was abandoned.
void runBlockWithFibers(WorkerState &W, LaunchState &L, BlockState &b, uint8_t *shared, uint32_t bx,
                        uint32_t by, uint32_t bz) {
  FiberPool &P = W.fibers;
  P.ensure(L.warpsPerBlock);
  P.startBlock(b, L.cfg->kernel->fn, blockContexts(W, L, b, shared, bx, by, bz), L.warpsPerBlock,
               L.blockThreads);
  b.fibers = &P;
  P.advance(FiberPool::kMain, P.head);
  b.fibers = nullptr;
}

/// Runs a block of a coroutine kernel: each phase calls (the first time) or resumes every
/// unfinished warp in index order until it returns or suspends at a barrier; the phase is then
/// judged as FiberPool::endPhase judges it. The order of everything is the fibers' order.
void runBlockSuspending(WorkerState &W, LaunchState &L, BlockState &b, uint8_t *shared, uint32_t bx,
                        uint32_t by, uint32_t bz) {
  FiberPool &P = W.phases;
  P.startBlock(b, L.cfg->kernel->fn, blockContexts(W, L, b, shared, bx, by, bz), L.warpsPerBlock,
               L.blockThreads);
  b.phases = &P;
  b.worker = &W;
  for (;;) {
    for (uint32_t w = P.pick(P.head); w != FiberPool::kListEnd;) {
      KernWarpCtx &ctx = P.contexts[w];
      if (ctx.coro == nullptr) // the first call runs to the first barrier or to the end
        P.fn(&ctx);
      else // a switch-lowered coroutine's frame starts with its resume function
        (*static_cast<void (**)(void *)>(ctx.coro))(ctx.coro);
      const uint32_t next = P.slots[w].next;
      if (ctx.finished)
        P.finish(w);
      w = P.pick(next);
    }
    if (!P.endPhase())
      break;
    // Released, or let go after a fault or a stop: waiting warps see ctx->fault and return.
    if (b.hasFault || b.stopping)
      for (uint32_t w = P.head; w != FiberPool::kListEnd; w = P.slots[w].next)
        P.contexts[w].fault = 1;
  }
  b.phases = nullptr;
}

void runBlock(WorkerState &W, LaunchState &L, uint64_t linear) {
  const LaunchConfig &cfg = *L.cfg;
  BlockState b;
  b.launch = &L;
  b.linear = linear;
  b.counters = W.counters;
  uint32_t bx, by = 0, bz = 0;
  if (cfg.grid[1] == 1 && cfg.grid[2] == 1) {
    // A 1-D grid (the common case): no division, whose latency every warp of the block would
    // wait for when it reads its context.
    bx = static_cast<uint32_t>(linear);
  } else if (linear <= UINT32_MAX) {
    const uint32_t l = static_cast<uint32_t>(linear), xy = l / cfg.grid[0];
    bx = l - xy * cfg.grid[0];
    by = xy % cfg.grid[1];
    bz = xy / cfg.grid[1];
  } else {
    bx = static_cast<uint32_t>(linear % cfg.grid[0]);
    by = static_cast<uint32_t>(linear / cfg.grid[0] % cfg.grid[1]);
    bz = static_cast<uint32_t>(linear / (uint64_t(cfg.grid[0]) * cfg.grid[1]));
  }
  b.blockIdx[0] = bx;
  b.blockIdx[1] = by;
  b.blockIdx[2] = bz;
  uint8_t *shared = W.sharedMemory(cfg.sharedBytes);
  b.checked = W.checked;
  if (b.checked)
    checkedBlockBegin(b.checked, linear, b.blockIdx, cfg.block, cfg.sharedBytes);
  if (cfg.kernel->suspends) {
    runBlockSuspending(W, L, b, shared, bx, by, bz);
  } else if (cfg.kernel->usesBarriers && L.warpsPerBlock > 1) {
    runBlockWithFibers(W, L, b, shared, bx, by, bz);
  } else {
    // No barrier (or a single warp, which a barrier never has to wait for): the warps run to
    // completion one after another, on the worker's own stack.
    KernWarpCtx *contexts = blockContexts(W, L, b, shared, bx, by, bz);
    for (uint32_t w = 0; w < L.warpsPerBlock; ++w) {
      if (b.hasFault || mustStop(&b))
        break;
      b.started = true;
      cfg.kernel->fn(&contexts[w]);
    }
  }
  if (L.stopAll.load(std::memory_order_relaxed) && b.started &&
      (b.stopping || (b.hasFault && b.fault.kind == KERN_FAULT_TIMEOUT)))
    W.interrupted.push_back(linear);
  else if (!b.hasFault && !b.stopping)
    ++W.finishedBlocks;
  if (!b.out.empty())
    W.outputs.emplace_back(linear, std::move(b.out));
  if (b.hasFault)
    W.faults.push_back(std::move(b.fault));
}

} // namespace

// ---- warp-side entry points -----------------------------------------------------------------

void warpFault(KernWarpCtx *ctx, uint32_t site, uint32_t kind, uint32_t lane, uint64_t addr) {
  // A shared address is reported as its offset in the block's shared memory: the absolute
  // address depends on the worker that ran the block.
  if (kind == KERN_FAULT_SHARED_OOB)
    addr -= reinterpret_cast<uint64_t>(ctx->shared);
  recordFault(blockOf(ctx), ctx, site, kind, lane, addr);
}

void warpAssert(KernWarpCtx *ctx, uint32_t site, uint32_t lane, const char *message) {
  recordFault(blockOf(ctx), ctx, site, KERN_FAULT_ASSERT, lane, 0,
              std::string("assertion failed: ") + (message ? message : ""));
}

int32_t warpPoll(KernWarpCtx *ctx, uint32_t site) {
  BlockState *b = blockOf(ctx);
  if (b->hasFault || mustStop(b)) {
    ctx->fault = 1;
    return 1;
  }
  LaunchState &L = *b->launch;
  if (L.cfg->timeoutSeconds > 0) {
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - L.start;
    if (elapsed.count() > L.cfg->timeoutSeconds) {
      recordFault(b, ctx, site, KERN_FAULT_TIMEOUT, 0, 0);
      L.stopAll.store(true);
      return 1;
    }
  }
  ctx->steps = kPollInterval;
  return 0;
}

void warpPrintf(KernWarpCtx *ctx, uint32_t lane, const char *fmt, int32_t nargs,
                const uint64_t *args) {
  // Each block formats into its own buffer; the buffers are joined in block order after the
  // launch, so the output is the same for any number of workers.
  formatPrintf(blockOf(ctx)->out, fmt, nargs, args);
}

/// Whether every live lane of the warp reached the barrier; if not, records the fault.
bool wholeWarpArrives(BlockState *b, KernWarpCtx *ctx, uint32_t site, uint32_t activeMask) {
  if (activeMask == ctx->liveMask)
    return true;
  const uint32_t missing = ctx->liveMask & ~activeMask;
  char masks[64];
  std::snprintf(masks, sizeof masks, "active lanes 0x%08x of 0x%08x", activeMask, ctx->liveMask);
  recordFault(b, ctx, site, KERN_FAULT_BARRIER, static_cast<uint32_t>(std::countr_zero(missing)), 0,
              "__syncthreads() in divergent code: only part of warp " +
                  std::to_string(ctx->warpId) + " reaches it (" + masks + ")");
  return false;
}

int32_t warpBarrier(KernWarpCtx *ctx, uint32_t site, uint32_t activeMask, uint32_t predMask,
                    int32_t op) {
  BlockState *b = blockOf(ctx);
  if (ctx->fault || b->hasFault || mustStop(b)) {
    ctx->fault = 1;
    return 0;
  }
  if (!wholeWarpArrives(b, ctx, site, activeMask))
    return 0;
  const auto combine = [&](uint32_t count, uint32_t threads) -> int32_t {
    return op == 0 ? static_cast<int32_t>(count) : op == 1 ? count == threads : count != 0;
  };
  if (!b->fibers && b->launch->warpsPerBlock > 1) {
    // The kernel was compiled as barrier-free (Function::usesBarriers) yet reached one.
    recordFault(b, ctx, site, KERN_FAULT_BARRIER, 0, 0,
                "internal error: __syncthreads() in a kernel compiled without barriers");
    return 0;
  }
  if (!b->fibers) // a block of one warp: everyone is already here
    return op < 0 ? 0
                  : combine(static_cast<uint32_t>(std::popcount(predMask & activeMask)),
                            static_cast<uint32_t>(std::popcount(ctx->liveMask)));
  FiberPool &P = *b->fibers;
  const uint32_t w = ctx->warpId;
  P.arrive(w, site, op, predMask & activeMask);
  P.advance(w, P.slots[w].next);
  // Resumed: either every warp arrived, or the block is being abandoned.
  if (b->hasFault || b->stopping) {
    ctx->fault = 1;
    return 0;
  }
  return P.result;
}

int32_t warpArrive(KernWarpCtx *ctx, uint32_t site, uint32_t activeMask, uint32_t predMask,
                   int32_t op) {
  BlockState *b = blockOf(ctx);
  // A fault or a stop elsewhere is seen when the phase ends (FiberPool::endPhase): the waiting
  // warps are then let go with ctx->fault set, so an arrival need not ask.
  if (!wholeWarpArrives(b, ctx, site, activeMask)) [[unlikely]] {
    ctx->fault = 1;
    return 1;
  }
  b->phases->arrive(ctx->warpId, site, op, predMask & activeMask);
  return 0;
}

int32_t warpBarrierResult(KernWarpCtx *ctx) {
  const BlockState *b = blockOf(ctx);
  return b->phases ? b->phases->result : 0;
}

void *warpCoroFrame(KernWarpCtx *ctx, uint64_t size, uint64_t align) {
  WorkerState &W = *blockOf(ctx)->worker;
  const uint32_t w = ctx->warpId;
  if (W.coroFrames.size() <= w) {
    W.coroFrames.resize(w + 1);
    W.coroFrameBytes.resize(w + 1, 0);
  }
  const uint64_t a = std::max<uint64_t>(align, 16);
  if (W.coroFrameBytes[w] < size + a) {
    W.coroFrames[w] = std::make_unique<uint8_t[]>(size + a);
    W.coroFrameBytes[w] = size + a;
  }
  const auto p = reinterpret_cast<uintptr_t>(W.coroFrames[w].get());
  return reinterpret_cast<void *>((p + a - 1) / a * a);
}

} // namespace kern::runtime

extern "C" {

int32_t kern_rt_barrier_arrive(KernWarpCtx *ctx, uint32_t site, uint32_t activeMask,
                               uint32_t predMask, int32_t op) {
  if (ctx->counters)
    kern::runtime::countBarrier(ctx, site);
  return kern::runtime::warpArrive(ctx, site, activeMask, predMask, op > 2 ? 0 : op);
}

int32_t kern_rt_barrier_result(KernWarpCtx *ctx) { return kern::runtime::warpBarrierResult(ctx); }

void *kern_rt_coro_frame(KernWarpCtx *ctx, uint64_t size, uint64_t align) {
  return kern::runtime::warpCoroFrame(ctx, size, align);
}

} // extern "C"

namespace kern::runtime {

uint64_t warpGlobalAddr(KernWarpCtx *ctx, uint32_t globalId) {
  const std::vector<uint64_t> *addrs = blockOf(ctx)->launch->cfg->globalAddrs;
  return addrs && globalId < addrs->size() ? (*addrs)[globalId] : 0;
}

CheckedWorker *checkedStateOf(KernWarpCtx *ctx) { return blockOf(ctx)->checked; }

BlockPlacement placeBlock(uint64_t linear, int sms, int blocksPerSM) {
  BlockPlacement p;
  if (sms <= 0 || blocksPerSM <= 0)
    return p;
  const uint64_t perWave = uint64_t(sms) * uint64_t(blocksPerSM);
  p.wave = linear / perWave;
  p.sm = static_cast<int>(linear % perWave / uint64_t(blocksPerSM));
  p.slot = static_cast<int>(linear % uint64_t(blocksPerSM));
  return p;
}

// ---- Scheduler ------------------------------------------------------------------------------

Scheduler::Scheduler(unsigned workers) : workers_(workers ? workers : 1) {
  for (unsigned i = 0; i < workers_; ++i)
    states_.push_back(std::make_unique<WorkerState>());
}

Scheduler::~Scheduler() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  for (std::thread &t : threads_)
    t.join();
}

void Scheduler::threadMain(unsigned index) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(unsigned)> *job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return quit_ || generation_ != seen; });
      if (quit_)
        return;
      seen = generation_;
      job = job_;
    }
    (*job)(index);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--pending_ == 0)
      done_.notify_one();
  }
}

void Scheduler::runOnAll(const std::function<void(unsigned)> &job) {
  if (workers_ == 1) {
    job(0);
    return;
  }
  if (threads_.empty())
    for (unsigned i = 1; i < workers_; ++i)
      threads_.emplace_back([this, i] { threadMain(i); });
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    pending_ = workers_ - 1;
    ++generation_;
  }
  wake_.notify_all();
  job(0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
}

LaunchResult Scheduler::launch(const LaunchConfig &cfg) {
  LaunchState L;
  L.cfg = &cfg;
  const uint64_t threads = uint64_t(cfg.block[0]) * cfg.block[1] * cfg.block[2];
  L.warpsPerBlock = static_cast<uint32_t>((threads + KERN_WARP_SIZE - 1) / KERN_WARP_SIZE);
  L.blockThreads = static_cast<uint32_t>(threads);
  L.threadIdx.resize(L.warpsPerBlock);
  L.liveMask.resize(L.warpsPerBlock);
  // Threads are numbered x + y*Dx + z*Dx*Dy; warp w holds threads 32w..32w+31.
  for (uint32_t w = 0; w < L.warpsPerBlock; ++w) {
    uint32_t mask = 0;
    for (uint32_t lane = 0; lane < KERN_WARP_SIZE; ++lane) {
      const uint64_t t = uint64_t(w) * KERN_WARP_SIZE + lane;
      if (t < threads) {
        mask |= 1u << lane;
        L.threadIdx[w][0][lane] = static_cast<uint32_t>(t % cfg.block[0]);
        L.threadIdx[w][1][lane] = static_cast<uint32_t>(t / cfg.block[0] % cfg.block[1]);
        L.threadIdx[w][2][lane] =
            static_cast<uint32_t>(t / (uint64_t(cfg.block[0]) * cfg.block[1]));
      } else {
        // Lanes that do not exist read as thread 0: never active, but never garbage either.
        L.threadIdx[w][0][lane] = L.threadIdx[w][1][lane] = L.threadIdx[w][2][lane] = 0;
      }
    }
    L.liveMask[w] = mask;
  }
  const uint64_t blocks = uint64_t(cfg.grid[0]) * cfg.grid[1] * cfg.grid[2];
  L.start = std::chrono::steady_clock::now();
  for (auto &s : states_) {
    s->outputs.clear();
    s->faults.clear();
    s->interrupted.clear();
    s->finishedBlocks = 0;
  }
  // Blocks are taken in increasing linear order, so every block below a faulting one has
  // been started (and runs to completion) whichever worker took it; each block above it stops
  // at its next question to the runtime.
  // Small chunks of consecutive blocks keep workers off the shared counter when blocks are
  // short, while leaving enough chunks for the load to balance.
  const uint64_t chunk = std::clamp<uint64_t>(blocks / (uint64_t(workers_) * 64), 1, 64);
  std::atomic<uint64_t> next{0};
  const std::function<void(unsigned)> job = [&](unsigned worker) {
    WorkerState &W = *states_[worker];
    W.counters = cfg.workerCounters ? cfg.workerCounters[worker] : nullptr;
    W.checked = cfg.workerChecked ? cfg.workerChecked[worker] : nullptr;
    for (;;) {
      const uint64_t first = next.fetch_add(chunk, std::memory_order_relaxed);
      for (uint64_t b = first; b < first + chunk; ++b) {
        if (b >= blocks || b > L.minFaultBlock.load(std::memory_order_relaxed) ||
            L.stopAll.load(std::memory_order_relaxed))
          return;
        runBlock(W, L, b);
      }
    }
  };
  if (blocks == 1)
    job(0);
  else
    runOnAll(job);

  LaunchResult result;
  const uint64_t faultBlock = L.minFaultBlock.load();
  std::vector<std::pair<uint64_t, std::string>> outputs;
  for (auto &s : states_) {
    for (auto &o : s->outputs)
      if (o.first <= faultBlock) // blocks above the fault ran or not, depending on timing
        outputs.push_back(std::move(o));
    for (FaultRecord &f : s->faults)
      if (f.blockLinear == faultBlock) {
        result.faulted = true;
        result.fault = std::move(f);
      }
    result.runningBlocks.insert(result.runningBlocks.end(), s->interrupted.begin(),
                                s->interrupted.end());
    result.finishedBlocks += s->finishedBlocks;
    s->outputs.clear();
    s->faults.clear();
    s->interrupted.clear();
    s->finishedBlocks = 0;
  }
  std::sort(result.runningBlocks.begin(), result.runningBlocks.end());
  std::sort(outputs.begin(), outputs.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
  for (auto &o : outputs)
    result.output += o.second;
  return result;
}

} // namespace kern::runtime
