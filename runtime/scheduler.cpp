// The worker pool and the execution of a launch: blocks handed out in linear order to workers,
// each block's warps run one after another on its worker, or, for kernels with barriers, on
// the worker's fibers or, for kernels that run a whole block per call, by one call
// (runtime/fiber.h); the warp-side entry points.
#include "runtime/scheduler.h"

#include "runtime/fiber.h"

#include "runtime/counter_hooks.h"

#include "runtime/checked.h"
#include "runtime/local_memory.h"
#include "runtime/memory.h"
#include "runtime/printf_format.h"

#include <algorithm>
#include <bit>
#include <cstdlib>

namespace kern::runtime {

/// One worker's reusable resources and its share of the launch's results.
struct WorkerState {
  FiberPool fibers;
  /// Kernels that run a whole block per call: the phase bookkeeping of the running block, and
  /// the frame where its warps keep what they need across barriers (reused from block to
  /// block: compiled code never frees it).
  FiberPool phases;
  std::unique_ptr<uint8_t[]> regionFrame;
  uint64_t regionFrameBytes = 0;
  uint8_t *shared = nullptr;
  uint64_t sharedCapacity = 0;
  std::vector<std::pair<uint64_t, std::string>> outputs;
  std::vector<FaultRecord> faults;
  std::vector<uint64_t> interrupted; // blocks stopped mid-way by a timeout
  /// Blocks this worker ran to the end in the current launch (summed after it: a shared
  /// atomic counter bounces its cache line between workers on every block).
  uint64_t finishedBlocks = 0;
  uint64_t stackLimit = 0;          // for warps run on this worker's own stack (fiber.h)
  void *counters = nullptr;         // this launch's counters for this worker, or null
  CheckedWorker *checked = nullptr; // this launch's for this worker, or null
  /// Warp contexts of the current launch, one per warp of a block, filled once per launch:
  /// threadIdx and the live mask do not depend on the block, and a kernel reading a context
  /// that was just written stalls (masked vector loads do not forward from the store buffer).
  std::vector<KernWarpCtx> warpContexts;
  uint64_t warpContextsLaunch = 0;
  /// This launch's local memory: one region, or one per warp of a block (reserveLocalMemory).
  LocalMemory local;

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

void recordFault(BlockState *b, KernWarpCtx *ctx, uint32_t site, uint32_t kind, uint32_t lane,
                 uint64_t addr, std::string message) {
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
  if (kind == KERN_FAULT_ASSERT)
    return; // stops this block only: every block reports its own (LaunchResult::asserts)
  std::atomic<uint64_t> &min = b->launch->minFaultBlock;
  uint64_t cur = min.load(std::memory_order_relaxed);
  while (b->linear < cur && !min.compare_exchange_weak(cur, b->linear))
    ;
}

namespace {

/// Why the launch must stop now: KERN_FAULT_TIMEOUT past its time limit, KERN_FAULT_INTERRUPTED
/// when a stop was asked for from outside; 0 to go on.
uint32_t stopKind(const LaunchState &L) {
  const LaunchConfig &cfg = *L.cfg;
  if (cfg.stop && cfg.stop->requested())
    return KERN_FAULT_INTERRUPTED;
  if (cfg.timeoutSeconds > 0 &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - L.start).count() >
          cfg.timeoutSeconds)
    return KERN_FAULT_TIMEOUT;
  return 0;
}

BlockState *blockOf(KernWarpCtx *ctx) { return static_cast<BlockState *>(ctx->block); }

void fillContext(KernWarpCtx &ctx, const LaunchState &L, BlockState &b, uint8_t *shared,
                 uint32_t warp) {
  const LaunchConfig &cfg = *L.cfg;
  std::memset(&ctx, 0, sizeof ctx);
  ctx.params = cfg.params;
  ctx.shared = shared;
  ctx.sharedSize = cfg.sharedBytes;
  ctx.dynamicSharedOffset = (cfg.kernel->staticSharedBytes + 15) / 16 * 16;
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
  ctx.clockInstr16 = cfg.clock16[0];
  ctx.clockGlobal16 = cfg.clock16[1];
  ctx.clockShared16 = cfg.clock16[2];
  ctx.clockBarrier16 = cfg.clock16[3];
  ctx.blockClock = b.clock;
}

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
  b.clock[0] = b.clock[1] = 0; // every block's clock starts at 0
  for (uint32_t w = 0; w < L.warpsPerBlock; ++w) {
    KernWarpCtx &ctx = W.warpContexts[w];
    ctx.shared = shared;
    ctx.blockClock = b.clock;
    ctx.blockIdx[0] = bx;
    ctx.blockIdx[1] = by;
    ctx.blockIdx[2] = bz;
    ctx.block = &b;
    ctx.counters = b.counters;
    ctx.finished = 0;
    ctx.fault = 0;
    ctx.steps = kPollInterval;
    ctx.callDepth = 0;
    ctx.stackLimit = W.stackLimit; // a warp fiber sets its own
    ctx.barrierInline = L.warpsPerBlock > 1 ? 1 : W.checked ? 0 : 2;
    ctx.blockSerial = b.linear + 1; // a new block for the loads' prefetches (never 0, as at first)
  }
  if (const uint32_t regions = W.local.count()) {
    // Every warp starts with its region empty: one region for warps that run one after
    // another, one each for warps that may be suspended at once.
    for (uint32_t w = 0; w < L.warpsPerBlock; ++w) {
      KernWarpCtx &ctx = W.warpContexts[w];
      const uint32_t r = regions == 1 ? 0 : w;
      ctx.localLimit = W.local.lo(r);
      ctx.localSp = ctx.localTop = W.local.top(r);
    }
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

/// Runs a block of a kernel that runs a whole block per call: one call does it all, phase by
/// phase, and asks kern_rt_region_start whether each warp may start and kern_rt_region_phase
/// to judge each phase, as FiberPool::pickSlow and FiberPool::endPhase judge them. The order
/// of everything is the fibers' order.
void runBlockWhole(WorkerState &W, LaunchState &L, BlockState &b, uint8_t *shared, uint32_t bx,
                   uint32_t by, uint32_t bz) {
  FiberPool &P = W.phases;
  KernWarpCtx *contexts = blockContexts(W, L, b, shared, bx, by, bz);
  P.startBlock(b, L.cfg->kernel->fn, contexts, L.warpsPerBlock, L.blockThreads);
  b.phases = &P;
  b.worker = &W;
  P.fn(contexts);
  b.phases = nullptr;
}

/// A kernel's block form (KernelImage::blockFn): one call runs the block, the statements that
/// reach a barrier once for it, those between barriers for each warp in turn; a fault or a stop
/// ends it where it happens.
void runBlockOnce(WorkerState &W, LaunchState &L, BlockState &b, uint8_t *shared, uint32_t bx,
                  uint32_t by, uint32_t bz) {
  KernWarpCtx *contexts = blockContexts(W, L, b, shared, bx, by, bz);
  if (mustStop(&b)) // as the fibers' first warp would not start (FiberPool::pickSlow)
    return;
  b.worker = &W;
  b.started = true;
  L.cfg->kernel->blockFn(contexts);
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
  auto *counters = static_cast<WorkerCounters *>(b.counters);
  if (counters) // the L1 sample follows some blocks' global loads (docs/timing.md, "L1")
    counters->beginBlock(linear, cfg.grid);
  b.checked = W.checked;
  if (b.checked)
    checkedBlockBegin(b.checked, linear, b.blockIdx, cfg.block, cfg.sharedBytes);
  // The time limit and a stop asked for from outside are checked in loops (warpPoll) and
  // here, before each block: a grid of many loop-free blocks stops too.
  if (const uint32_t stop = stopKind(L)) {
    KernWarpCtx *contexts = blockContexts(W, L, b, shared, bx, by, bz);
    b.started = true;
    recordFault(&b, &contexts[0], 0, stop, 0, 0);
    L.stopAll.store(true);
  } else if (cfg.kernel->blockFn && L.warpsPerBlock > 1 &&
             (!b.counters || cfg.kernel->blockFnCounts)) {
    runBlockOnce(W, L, b, shared, bx, by, bz);
  } else if (cfg.kernel->wholeBlock) {
    runBlockWhole(W, L, b, shared, bx, by, bz);
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
  if (counters)
    counters->endBlock();
  if (L.stopAll.load(std::memory_order_relaxed) && b.started &&
      (b.stopping || (b.hasFault && (b.fault.kind == KERN_FAULT_TIMEOUT ||
                                     b.fault.kind == KERN_FAULT_INTERRUPTED))))
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

DeviceHeap *heapOf(KernWarpCtx *ctx) { return blockOf(ctx)->launch->cfg->heap; }

void warpFault(KernWarpCtx *ctx, uint32_t site, uint32_t kind, uint32_t lane, uint64_t addr) {
  // A shared address is reported as its offset in the block's shared memory: the absolute
  // address depends on the worker that ran the block.
  if (kind == KERN_FAULT_SHARED_OOB)
    addr -= reinterpret_cast<uint64_t>(ctx->shared);
  recordFault(blockOf(ctx), ctx, site, kind, lane, addr);
}

void warpAssert(KernWarpCtx *ctx, uint32_t site, uint32_t lanes, const char *message) {
  BlockState *b = blockOf(ctx);
  const bool first = !b->hasFault;
  recordFault(b, ctx, site, KERN_FAULT_ASSERT, static_cast<uint32_t>(std::countr_zero(lanes)), 0,
              std::string("assertion failed: ") + (message ? message : ""));
  if (!first)
    return;
  for (uint32_t l = 0; l < KERN_WARP_SIZE; ++l)
    if (lanes >> l & 1)
      b->fault.assertThreads.push_back(
          {ctx->threadIdx[0][l], ctx->threadIdx[1][l], ctx->threadIdx[2][l]});
}

int32_t warpPoll(KernWarpCtx *ctx, uint32_t site) {
  BlockState *b = blockOf(ctx);
  if (b->hasFault || mustStop(b)) {
    ctx->fault = 1;
    return 1;
  }
  LaunchState &L = *b->launch;
  if (const uint32_t stop = stopKind(L)) {
    recordFault(b, ctx, site, stop, 0, 0);
    L.stopAll.store(true);
    return 1;
  }
  ctx->steps = kPollInterval;
  return 0;
}

void warpPrintf(KernWarpCtx *ctx, uint32_t lane, const char *fmt, int32_t nargs,
                const uint64_t *args) {
  // Each block formats into its own buffer; the buffers are joined in block order after the
  // launch, so the output is the same for any number of workers.
  // A %s argument is read only within a live allocation of device memory (string literals
  // of device code are objects there too): any other pointer prints as a bad one, and the
  // host's memory is never read.
  FormatOptions options;
  options.readString = [ctx](uint64_t addr, size_t limit, std::string &out) {
    if (addr < ctx->globalLo || addr >= ctx->globalHi)
      return false;
    const uint64_t end = ctx->shadow[(addr - ctx->globalLo) / DeviceMemory::kShadowGranule];
    if (addr >= end)
      return false;
    const char *s = reinterpret_cast<const char *>(addr);
    out.assign(s, strnlen(s, std::min<uint64_t>(limit, end - addr)));
    return true;
  };
  formatPrintf(blockOf(ctx)->out, fmt, nargs, args, options);
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
  FiberPool &P = *b->phases;
  if (P.slots.size() == 1) {
    // A block of one warp: everyone is here, so the barrier is released at once, as
    // FiberPool::endPhase releases it (or, after a stop, lets the warp go).
    if (b->hasFault || mustStop(b)) {
      ctx->fault = 1;
      return 1;
    }
    const uint32_t count = static_cast<uint32_t>(std::popcount(predMask & activeMask));
    P.result = P.combined(op, count);
    if (b->checked)
      checkedBarrier(b->checked);
    return 2;
  }
  // Noted where the warp waits; the phase loop (runBlockSuspending) counts it in.
  ctx->waitSite = site;
  ctx->waitOp = op;
  ctx->waitPred = predMask & activeMask;
  return 0;
}

int32_t warpBarrierResult(KernWarpCtx *ctx) {
  const BlockState *b = blockOf(ctx);
  return b->phases ? b->phases->result : 0;
}

void *regionFrame(KernWarpCtx *ctx, uint64_t size, uint64_t align) {
  WorkerState &W = *blockOf(ctx)->worker;
  const uint64_t a = std::max<uint64_t>(align, 16);
  if (W.regionFrameBytes < size + a) {
    W.regionFrame = std::make_unique<uint8_t[]>(size + a);
    W.regionFrameBytes = size + a;
  }
  const auto p = reinterpret_cast<uintptr_t>(W.regionFrame.get());
  return reinterpret_cast<void *>((p + a - 1) / a * a);
}

int32_t regionStart(KernWarpCtx *ctx) {
  BlockState *b = blockOf(ctx);
  if (!b->hasFault && !mustStop(b)) {
    b->phases->slots[ctx->warpId].started = true;
    b->started = true;
    return 1;
  }
  ctx->finished = 1; // finished without running: the phase's end takes it off the list
  return 0;
}

int32_t regionRelease(KernWarpCtx *ctx0, uint32_t count) {
  BlockState &b = *blockOf(ctx0);
  if (b.hasFault || mustStop(&b))
    return regionPhase(ctx0);
  // As FiberPool::endPhase releases it.
  FiberPool &P = *b.phases;
  P.result = P.combined(ctx0->waitOp, count); // every warp waits at ctx0's barrier
  if (b.checked) // accesses after the barrier are ordered after those before it
    checkedBarrier(b.checked);
  return 1;
}

int32_t regionPhase(KernWarpCtx *ctx0) {
  BlockState &b = *blockOf(ctx0);
  FiberPool &P = *b.phases;
  // Every unfinished warp has had its turn, in index order: as runBlockWithFibers would have
  // seen them, one by one.
  for (uint32_t w = P.head; w != FiberPool::kListEnd;) {
    const uint32_t next = P.slots[w].next;
    const KernWarpCtx &ctx = P.contexts[w];
    if (ctx.finished)
      P.finish(w);
    else
      P.arrive(w, ctx.waitSite, ctx.waitOp, ctx.waitPred);
    w = next;
  }
  if (!P.endPhase())
    return 0;
  // Released, or let go after a fault or a stop: waiting warps see ctx->fault and return.
  if (b.hasFault || b.stopping)
    for (uint32_t w = P.head; w != FiberPool::kListEnd; w = P.slots[w].next)
      P.contexts[w].fault = 1;
  return 1;
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

void *kern_rt_region_frame(KernWarpCtx *ctx, uint64_t size, uint64_t align) {
  return kern::runtime::regionFrame(ctx, size, align);
}

int32_t kern_rt_region_start(KernWarpCtx *ctx) { return kern::runtime::regionStart(ctx); }

int32_t kern_rt_region_phase(KernWarpCtx *ctx) { return kern::runtime::regionPhase(ctx); }

int32_t kern_rt_region_release(KernWarpCtx *ctx, uint32_t count) {
  return kern::runtime::regionRelease(ctx, count);
}

void kern_rt_block_barrier(KernWarpCtx *ctx) {
  if (kern::runtime::CheckedWorker *c = kern::runtime::checkedStateOf(ctx))
    kern::runtime::checkedBarrier(c);
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

namespace {

/// Waits up to kSpinMicros for `ready` by looking again and again, before a thread that waits
/// for a launch (or for the end of one) sleeps: launches often come microseconds apart (a loop
/// of small launches), and waking a sleeping thread takes longer than many a launch. For the
/// first half of that time it only pauses between looks (a yield is a system call, which in a
/// virtual machine can take longer than the wait); then it yields between looks, so that where
/// threads outnumber cores (other programs, more workers than cores) the looking costs them
/// little. False if it did not come in that time.
template <typename Ready> bool spinFor(Ready ready) {
  constexpr auto kSpinMicros = std::chrono::microseconds(50);
  constexpr unsigned kPauses = 64; // looks between readings of the clock
  const auto start = std::chrono::steady_clock::now();
  const auto yieldFrom = start + kSpinMicros / 2, until = start + kSpinMicros;
  bool yielding = false;
  for (unsigned i = 1;; ++i) {
    if (ready())
      return true;
    if (yielding) {
      std::this_thread::yield();
    } else {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    if (i % kPauses != 0 && !yielding)
      continue;
    const auto now = std::chrono::steady_clock::now();
    if (now > until)
      return false;
    yielding = now > yieldFrom;
  }
}

} // namespace

void Scheduler::threadMain(unsigned index) {
  uint64_t seen = 0;
  for (;;) {
    spinFor([&] { return generation_.load(std::memory_order_acquire) != seen; });
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
  spinFor([&] { return pending_.load(std::memory_order_acquire) == 0; });
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
}

bool Scheduler::reserveLocalMemory(const LaunchConfig &cfg) {
  if (cfg.localBytesPerWarp == 0)
    return true;
  const uint64_t threads = uint64_t(cfg.block[0]) * cfg.block[1] * cfg.block[2];
  const auto warps = static_cast<uint32_t>((threads + KERN_WARP_SIZE - 1) / KERN_WARP_SIZE);
  // As runBlock chooses: fibers and whole-block kernels keep every warp of a block alive at once.
  const bool together =
      cfg.kernel->wholeBlock || cfg.kernel->blockFn || (cfg.kernel->usesBarriers && warps > 1);
  for (auto &s : states_)
    if (!s->local.reserve(together ? warps : 1, cfg.localBytesPerWarp)) {
      for (auto &t : states_)
        t->local.release();
      return false;
    }
  return true;
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
      } else if (cfg.block[1] == 1 && cfg.block[2] == 1) {
        // Lanes that do not exist are never active. In a one-dimensional block they go on
        // counting (threadIdx.x = t), so an access indexed by threadIdx.x still reads as one
        // run of consecutive elements and takes the contiguous path, not the general one.
        L.threadIdx[w][0][lane] = static_cast<uint32_t>(t);
        L.threadIdx[w][1][lane] = L.threadIdx[w][2][lane] = 0;
      } else {
        // Never active, but never garbage either.
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
  // A kernel whose blocks take values from global atomics runs its blocks in order on this
  // worker: the values each block gets must not depend on the workers' timing.
  const bool alone = blocks == 1 || cfg.kernel->orderedBlocks;
  // Every block below a faulting one runs to completion, whichever worker took it; each block
  // above it stops at its next question to the runtime (BlockDealer).
  dealer_.deal(blocks, alone ? 1 : workers_);
  const std::function<void(unsigned)> job = [&](unsigned worker) {
    WorkerState &W = *states_[worker];
    W.stackLimit = threadStackLimit();
    W.counters = cfg.workerCounters ? cfg.workerCounters[worker] : nullptr;
    W.checked = cfg.workerChecked ? cfg.workerChecked[worker] : nullptr;
    uint64_t first = 0, count = 0;
    while (dealer_.take(worker, first, count)) {
      for (uint64_t b = first; b < first + count; ++b) {
        if (b > L.minFaultBlock.load(std::memory_order_relaxed) ||
            L.stopAll.load(std::memory_order_relaxed))
          return;
        runBlock(W, L, b);
      }
    }
  };
  if (alone)
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
      if (f.kind == KERN_FAULT_ASSERT) {
        if (f.blockLinear <= faultBlock)
          result.asserts.push_back(std::move(f));
      } else if (f.blockLinear == faultBlock) {
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
    s->local.release();
  }
  std::sort(result.runningBlocks.begin(), result.runningBlocks.end());
  std::sort(
      result.asserts.begin(), result.asserts.end(),
      [](const FaultRecord &a, const FaultRecord &b) { return a.blockLinear < b.blockLinear; });
  std::sort(outputs.begin(), outputs.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
  for (auto &o : outputs)
    result.output += o.second;
  return result;
}

} // namespace kern::runtime
