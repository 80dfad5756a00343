// The contract between JIT-compiled code and the runtime: the warp context that every warp
// function receives, the host context of host code, and every runtime function that compiled
// code may call (runtime_functions.def; with runtime_symbols.def's C library functions, the
// JIT resolves these names and nothing else).
//
// Plain C types only: the runtime includes this header too, and the backend mirrors the
// struct layouts in LLVM types (warp_codegen checks the offsets with static_asserts below).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

extern "C" {

/// Lanes of a warp. The model's warp size is always 32.
#define KERN_WARP_SIZE 32

/// Fault kinds reported by compiled code through kern_rt_fault / kern_rt_host_fault.
enum KernFaultKind : uint32_t {
  KERN_FAULT_NONE = 0,
  KERN_FAULT_GLOBAL_OOB = 1,    // global access outside every device allocation
  KERN_FAULT_SHARED_OOB = 2,    // shared access outside the block's shared memory
  KERN_FAULT_HOST_PTR = 3,      // kernel dereferences a host pointer
  KERN_FAULT_DEVICE_PTR = 4,    // host code dereferences a device pointer
  KERN_FAULT_NULL = 5,          // dereference of a null (or near-null) pointer
  KERN_FAULT_DIV_ZERO = 6,      // integer division or remainder by zero
  KERN_FAULT_MISALIGNED = 7,    // access not aligned to its size
  KERN_FAULT_TIMEOUT = 8,       // step or wall-clock limit exceeded
  KERN_FAULT_RECURSION = 9,     // device call depth limit exceeded
  KERN_FAULT_BARRIER = 10,      // __syncthreads under divergence / not reached by all
  KERN_FAULT_ASSERT = 11,       // assert() failed in a kernel
  KERN_FAULT_CONST_OOB = 12,    // constant access out of range
  KERN_FAULT_LOCAL_OOB = 13,    // local access out of range
  KERN_FAULT_NULL_FNPTR = 14,   // host code calls through a null function pointer
  KERN_FAULT_BAD_FNPTR = 15,    // ... through a value that is no function of the program
  KERN_FAULT_FNPTR_TYPE = 16,   // ... through a pointer whose type differs from the function's
  KERN_FAULT_VLA_BOUND = 17,    // host code: a variable-length array bound <= 0 (addr: the bound)
  KERN_FAULT_VLA_SIZE = 18,     // ... a variable-length array larger than a thread's stack
  KERN_FAULT_DEVICE_FNPTR = 19, // a call through a pointer that holds no function of its type
                                // that the code may call (addr: the pointer's value)
  KERN_FAULT_BAD_VPTR = 20,     // a virtual call on an object whose vtable pointer is no
                                // vtable of this side's classes (addr: the vtable pointer)
  KERN_FAULT_BAD_FREE = 21,     // device free/delete of what the device heap did not give
  KERN_FAULT_STACK = 22,        // a warp's local arrays and calls need more stack than it has
                                // (addr: the bytes its frame asked for)
  KERN_FAULT_SHFL_WIDTH = 23,   // a shuffle's width is not a power of two from 1 to 32 (addr)
  KERN_FAULT_SYNC_MASK = 24,    // checked mode: a _sync call's mask names lanes that do not
                                // execute it, or not the lane itself (addr: the mask)
  KERN_FAULT_HOST_STACK = 25,   // host code: a function's frame does not fit on its thread's
                                // stack (addr: the bytes the frame asked for)
  KERN_FAULT_LOCAL_MEMORY = 26, // a call's local arrays do not fit in what is left of the warp's
                                // local memory (addr: the bytes of the callee's frame, 32 lanes)
  KERN_FAULT_INTERRUPTED = 27,  // the launch was stopped from outside (Ctrl-C, kern_interrupt)
  KERN_FAULT_BAD_CAST = 28,     // a dynamic_cast to a reference of an object not of its class
                                // (C++ throws std::bad_cast; addr: the vtable pointer)
};

/// The stack of a program thread (runtime/host_threads.cpp) and of the main thread (Linux's
/// default `ulimit -s`): no variable-length array larger than this can be placed on it.
#define KERN_MAX_VLA_BYTES (8ull << 20)

/// What a warp function sees. Filled by the runtime before each call; the warp function
/// reads the launch geometry from it and writes only `fault` (through kern_rt_fault) and
/// `steps`.
#define KERN_PREFETCH_SLOTS 32u

struct KernWarpCtx {
  const uint8_t *params; // packed kernel parameters (Function::paramOffsets)
  uint8_t *shared;       // this block's shared memory (256-byte aligned)
  uint64_t sharedSize;   // bytes of shared memory (static + dynamic)
  uint64_t globalLo;     // device global memory: [globalLo, globalHi) holds every
  uint64_t globalHi;     //   allocation; an address outside it is not device memory
  uint32_t gridDim[3];
  uint32_t blockDim[3];
  uint32_t blockIdx[3];
  uint32_t warpId;   // warp index within the block
  uint32_t liveMask; // lanes that exist (the last warp of a block may be partial)
  uint32_t fault;    // nonzero once a fault was reported: the warp function returns
  int64_t steps;     // loop back-edges left before kern_rt_poll is consulted
  uint32_t threadIdx[3][KERN_WARP_SIZE]; // per lane: threadIdx.x, .y, .z
  void *block;                           // the runtime's per-block state (opaque to compiled code)
  void *counters;     // the runtime's counters for this worker (null: counters off)
  uint32_t callDepth; // device function call depth (recursion bound)
  /// Kernels that run a whole block per call (CompiledProgram::kernelRunsWholeBlock): 1 once
  /// the warp has returned for good, 0 while it waits at a barrier.
  uint32_t finished;
  /// Device memory's shadow map (DeviceMemory::shadow): per 256 bytes from globalLo, the end
  /// address of the allocation covering them (0 if none). A global access outside every
  /// allocation is a fault even when it lands between two allocations.
  const uint64_t *shadow;
  /// Where the launch's dynamic shared memory (`extern __shared__`) starts in the block's
  /// shared memory: after the kernel's static shared variables, 16-byte aligned. Device
  /// functions read it here, since they do not know which kernel called them.
  uint64_t dynamicSharedOffset;
  /// The lowest stack address the warp's code may reach: a kernel or device function whose
  /// frame would go below it faults (KERN_FAULT_STACK) before touching it. The runtime keeps a
  /// margin below it for the fault's own report.
  uint64_t stackLimit;
  /// The warp's local memory (runtime/local_memory.h), where the frames too large for the
  /// stack live (ir::frameInLocalMemory): [localLimit, localTop) is the warp's region, and
  /// frames are taken below localSp, which a function lowers at its entry and restores at its
  /// exit. A call whose callee's frame would go below localLimit faults
  /// (KERN_FAULT_LOCAL_MEMORY) before it is made. All zero when the kernel takes none.
  uint64_t localSp;
  uint64_t localLimit;
  uint64_t localTop;
  /// clock() and clock64() (programs that call them, ir::Module::readsClock): the warp's
  /// modelled SM clock advances, in 1/16 cycles, by clockInstr16 for each warp instruction,
  /// clockGlobal16 for each global load or atomic whose result is used, and clockShared16 for
  /// each shared one (runtime/timing.h, clockFigures); at a barrier the block's warps meet at
  /// the latest of their clocks (blockClock: two slots, used by barriers in turn), plus
  /// clockBarrier16.
  uint32_t clockInstr16;
  uint32_t clockGlobal16;
  uint32_t clockShared16;
  uint32_t clockBarrier16;
  uint64_t *blockClock;
  /// Kernels that run a whole block per call: where the warp waits at a barrier, written as it
  /// arrives: the site, the form (-1 for __syncthreads, else as
  /// kern_rt_barrier_reduce's op) and the lanes whose predicate is true.
  uint32_t waitSite;
  int32_t waitOp;
  uint32_t waitPred;
  /// Kernels that run a whole block per call: 1 where a warp whose every live lane reaches a
  /// barrier arrives by writing the three fields above (the block has several warps;
  /// code compiled with counters counts the arrival itself, code compiled without them does
  /// so only while `counters` is null); 2: the block is one warp and checked mode is off, so
  /// such a warp goes on at a plain __syncthreads() at once (same conditions); 0: every
  /// arrival calls kern_rt_barrier_arrive.
  uint32_t barrierInline;
  /// Global loads and stores outside the loops that stay loops (emitStridePrefetch): the block
  /// this context runs (its linear index + 1), and per site (its number modulo
  /// KERN_PREFETCH_SLOTS) where its lane 0 went first in the last block that ran it, and how far
  /// that moved from the block before. It goes on from block to block of a launch on one worker;
  /// what is here only chooses prefetches, never a value.
  uint64_t blockSerial;
  struct KernPrefetchSlot {
    uint64_t serial; // blockSerial of the block that set `first`
    uint64_t first;
    uint64_t stride;
  } prefetch[KERN_PREFETCH_SLOTS];
};

/// What host functions receive as their hidden first parameter. Compiled code reads only its
/// head (the runtime's KernHostCtx derives from it): where the host arena is, its shadow map,
/// and the stack of the thread of host code that runs (runtime/host_heap.h).
struct KernHostHead {
  const void *tag;        // the runtime's tag for a host context (see kern_rt_global_addr)
  uint64_t arenaLo;       // the host arena: [arenaLo, arenaLo + arenaBytes) holds every
  uint64_t arenaBytes;    //   object host code may reach
  const uint64_t *shadow; // per 16 bytes of the arena: the end of the object there, or 0
  uint64_t stackLo;       // the lowest address this thread's frames may use
  uint64_t sp;            // the top of the stack: frames are taken below it
  /// The mapped pinned block (outside the arena) the runtime last let host code access:
  /// [visibleLo, visibleHi), checked inline; emptied when such a block is freed.
  uint64_t visibleLo;
  uint64_t visibleHi;
};
struct KernHostCtx;

/// The granule of the host arena's shadow map.
#define KERN_HOST_GRANULE 16ull
/// A host access check (kern_rt_host_check) of a store rather than a load.
#define KERN_HOST_CHECK_STORE (1ull << 63)

enum KernAccessFlags : uint32_t {
  KERN_ACCESS_LOAD = 0,
  KERN_ACCESS_STORE = 1,
  KERN_ACCESS_ATOMIC = 2,
  KERN_ACCESS_REDUCTION = 3, // an atomic whose result is unused: RED on the GPU, not ATOM
  KERN_ACCESS_GLOBAL = 0,
  KERN_ACCESS_SHARED = 4,
  KERN_ACCESS_CONSTANT = 8,
  KERN_ACCESS_LOCAL = 12,
  KERN_ACCESS_VALUES = 16,     // kern_rt_check_access: the stored values follow the addresses
  KERN_ACCESS_OP_MASK = 3,     // the operation bits (load, store, atomic, reduction)
  KERN_ACCESS_SPACE_MASK = 12, // the address space bits (global, shared, constant, local)
  // What kind of atomic (kern_rt_count_access; the shared-memory rules of atomics differ):
  KERN_ACCESS_ATOMIC_INC1 = 32,   // atomicAdd(p, 1), result unused (shared: ATOMS.POPC.INC)
  KERN_ACCESS_ATOMIC_CAS = 64,    // atomicCAS
  KERN_ACCESS_ATOMIC_FLOAT = 128, // a floating-point add (shared: a compare-and-swap loop)
  KERN_ACCESS_ATOMIC_WARP = 256,  // a 32-bit integer add at an address the same in every
                                  // lane, its result unused (REDUX) or its value a constant
                                  // (VOTE, POPC): one lane adds for the warp
  KERN_ACCESS_ATOMIC_MASK = 480,
  // kern_rt_check_access: lane l's address is lane 0's plus l x size, for every lane (active or
  // not), as compiled code's contiguous accesses know without a test.
  KERN_ACCESS_CONTIGUOUS = 512,
};
/// The operation kinds KERN_ACCESS_OP_MASK names (the counters' KernSiteCounters arrays).
#define KERN_ACCESS_OPS 4

// ---- counting without a call ------------------------------------------------------------------
//
// What a warp-level access costs by any of the rules depends only on its lanes' offsets from
// lane 0's address, the active mask, and lane 0's position within an aligned window of
// kern_access_window(size) bytes: every coalescing rule works in aligned segments of at most
// 16 x size or 128 bytes, every bank rule within 128 bytes, and shared memory is 256-byte
// aligned, so moving a whole access by a multiple of the window changes nothing. The runtime
// costs each access it is called for by its rules in kern_rt_count_access and remembers the
// shape and the counters it added in a memo of the (site, operation); compiled code that meets
// the same shape again adds the remembered counters itself. The rules stay in the runtime; the
// memo only replays their results.

/// The counter record the runtime keeps per site (kern::runtime::SiteCounters, declared from the
/// same table, counter_fields.def), as compiled code addresses it: every offset and stride that
/// compiled code uses is an offsetof or a sizeof of these structs.
struct KernSharedOpCounters { // shared-memory cost of one operation kind (SharedOpCounters)
#define KERN_SHARED_OP_FIELD(name, what) uint64_t name;
#include "backend/counter_fields.def"
};
struct KernGlobalOpCounters { // global-memory cost of one operation kind (GlobalOpCounters)
#define KERN_GLOBAL_OP_FIELD(name, what) uint64_t name;
#include "backend/counter_fields.def"
};
struct KernSiteCounters {
  KernSharedOpCounters shared[KERN_ACCESS_OPS]; // by operation: KERN_ACCESS_LOAD, _STORE, ...
  KernGlobalOpCounters global[KERN_ACCESS_OPS];
#define KERN_SITE_FIELD(name, what) uint64_t name;
#include "backend/counter_fields.def"
};
/// The divergence rule of the hardware model (HARDWARE-MODEL.md, "Divergence"): a warp whose
/// active lanes are `mask` splits at a branch whose condition holds for the lanes `taken` when
/// some active lane goes each way. Lanes outside `mask` (inactive, or beyond the end of a
/// partial last warp) never count. The rule's one statement: the runtime's counters use it
/// (counter_rules.h isDivergent), and compiled code, which adds a branch that does not split
/// to the counters without a call, emits it in IR (backend emitBranchSplits, tested against
/// this function).
/// Which branch counters a branch adds to (kern_rt_count_branch): the source-level ones of the
/// hardware model, the GPU code's (ir/branch_model.cpp), or both.
enum KernBranchKinds : uint32_t { KERN_BRANCH_SOURCE = 1, KERN_BRANCH_SASS = 2 };
/// The instruction classes (ir::InstrClass; KernSiteCounters::instrInteger... in this order).
constexpr uint32_t KERN_INSTR_CLASSES = 8;

constexpr bool kern_branch_splits(uint32_t mask, uint32_t taken) {
  return (mask & taken) != 0 && (mask & ~taken) != 0;
}

/// Counters of one operation kind, as an array of u64 (the memo's delta is indexed so).
#define KERN_SITE_SHARED_FIELDS (sizeof(KernSharedOpCounters) / sizeof(uint64_t))
#define KERN_SITE_GLOBAL_FIELDS (sizeof(KernGlobalOpCounters) / sizeof(uint64_t))

/// A remembered cost. `tag` names the access (kern_access_memo_tag; 0: none), `mask` its
/// active lanes and `pattern` each lane's offset from lane 0's address (a contiguous access,
/// all 32 lanes at lane 0's address + l x size whether active or not, has KERN_MEMO_CONTIGUOUS
/// in its tag, so compiled code that knows its access is one need not compare the pattern).
/// `sampleKey` is the warp key (kern_warp_key) of the site's address sample: a warp with a lower
/// key must go to the runtime to become the sample. `delta` holds the operation's counters to add
/// (4 shared or 8 global fields) and then the two atomic counters (added for atomics only).
struct KernAccessMemo {
  uint64_t tag;
  uint64_t sampleKey;
  uint32_t mask;
  uint32_t pad_;
  uint64_t delta[KERN_SITE_GLOBAL_FIELDS + 2];
  int64_t pattern[KERN_WARP_SIZE];
};

/// The worker's instruction totals that compiled code adds a warp function's counts to at its
/// exit (KernCounterView::totals): warp instructions by class (KERN_INSTR_CLASSES of them),
/// then thread instructions, memory instructions issued with no lane on (a predicated side no
/// lane took) and the reads the ADU executes (ir::InstrMix::adu), attributed to no site.
constexpr uint32_t KERN_TOTAL_THREAD_INSTRUCTIONS = KERN_INSTR_CLASSES;
constexpr uint32_t KERN_TOTAL_IDLE_ACCESSES = KERN_INSTR_CLASSES + 1;
constexpr uint32_t KERN_TOTAL_ADU_READS = KERN_INSTR_CLASSES + 2;
constexpr uint32_t KERN_INSTR_TOTALS = KERN_INSTR_CLASSES + 3;

/// A shared access of a site op whose lanes' words follow no shape its memos could replay (a
/// histogram's bins): the runtime gives the memos of such a site op up (their slots' tags
/// become KERN_MEMO_BATCH), and compiled code that finds that tag writes the access into the
/// view's batch instead of calling kern_rt_count_access; the runtime costs a batch at a time,
/// when it is full (kern_rt_flush_batch) and where the block ends, by the same rules.
struct KernBatchedAccess {
  uint64_t offsets[KERN_WARP_SIZE]; // each lane's byte offset in the block's shared memory
  uint64_t key;                     // the warp's kern_warp_key
  uint32_t site, mask, size, flags; // as kern_rt_count_access takes them
};
#define KERN_BATCH_ACCESSES 32
/// The tag of every memo slot of a site op that batches: never an access's tag (bit 40 clear).
#define KERN_MEMO_BATCH (uint64_t(1) << 42)

/// What KernWarpCtx::counters points at (the start of the runtime's per-worker counters).
struct KernCounterView {
  uint8_t *sites; // site s's KernSiteCounters at sites + s * sizeof(KernSiteCounters)
  /// The memos of (site s, operation k) at memos[KERN_MEMO_SLOTS (KERN_ACCESS_OPS s + k)].
  KernAccessMemo *memos;
  /// Nonzero while a block sampled for the caches runs (docs/timing.md, "L1"), whose every
  /// global load the runtime follows: a global load that compiled code counts from its memo
  /// goes to kern_rt_sample_load too.
  uint64_t sampleLoads;
  uint64_t *totals; // KERN_INSTR_TOTALS of them
  /// By site: the key (kern_warp_key) of the site's sample in this launch, UINT64_MAX before
  /// one; a branch that splits in a warp of a higher key is counted without a call.
  uint64_t *sampleKeys;
  /// The batch of shared accesses waiting to be costed (KernBatchedAccess): batch[0] to
  /// batch[batchCount - 1]. The array stays where it is for the whole launch; the count is
  /// read and written in place (kern_rt_flush_batch and the runtime set it back to 0).
  KernBatchedAccess *batch;
  uint64_t batchCount;
};

/// Tag bit of a contiguous access (every lane, active or not, at lane 0's + l x size).
#define KERN_MEMO_CONTIGUOUS (uint64_t(1) << 41)
/// The aligned window whose offset decides an access's cost, given its lanes' pattern. Global
/// memory: the largest segment of any rule. Shared memory: banks are (address / 4) mod banks,
/// and moving every lane by one 4-byte word (or by one access of 8 or 16 bytes) only renames
/// the banks, which no bank rule can tell, so only the offset within a word (or access) counts.
inline uint64_t kern_access_window(uint32_t size, uint32_t flags) {
  if ((flags & KERN_ACCESS_SPACE_MASK) == KERN_ACCESS_SHARED)
    return size > 4u ? size : 4u;
  return size * 16u > 128u ? size * 16u : 128u;
}
/// Memo slots per (site, operation), chosen by the offset of lane 0 within the window in
/// 4-byte steps (a row of a matrix whose width is not a multiple of 32 elements starts at each
/// of 32 offsets in turn) and by the active lanes: a site whose lanes change from one execution
/// to the next, as `if (tid < s)` in a tree reduction (32, 16, 8... lanes) or the diagonals of a
/// wavefront's tile (lanes a..b), keeps a memo for each. The mask is spread by a multiplicative
/// hash whose top 5 bits differ for 1 to 16 low lanes (and 32), and for the 31 diagonals of a
/// 16x16 tile.
#define KERN_MEMO_SLOTS 32
#define KERN_MEMO_LANES_HASH 0xf853780du
inline uint32_t kern_access_memo_slot(uint64_t lane0, uint32_t size, uint32_t flags,
                                      uint32_t mask) {
  return static_cast<uint32_t>(((lane0 & (kern_access_window(size, flags) - 1)) >> 2) +
                               ((mask * KERN_MEMO_LANES_HASH) >> 27)) &
         (KERN_MEMO_SLOTS - 1);
}
/// The memo tag of an access whose lane 0 is at `lane0`, of `size`-byte lanes with `flags`.
inline uint64_t kern_access_memo_tag(uint64_t lane0, uint32_t size, uint32_t flags,
                                     bool contiguous) {
  return (lane0 & (kern_access_window(size, flags) - 1)) | (uint64_t(size) << 16) |
         (uint64_t(flags) << 24) | (uint64_t(1) << 40) | (contiguous ? KERN_MEMO_CONTIGUOUS : 0);
}
/// Orders warps for address samples: block linear index, then warp.
inline uint64_t kern_warp_key(const KernWarpCtx *ctx) {
  const uint64_t linear =
      ctx->blockIdx[0] +
      uint64_t(ctx->gridDim[0]) * (ctx->blockIdx[1] + uint64_t(ctx->gridDim[1]) * ctx->blockIdx[2]);
  return (linear << 16) | ctx->warpId;
}

// ---- types of the host runtime API ----------------------------------------------------------

/// cudaDeviceProp as kern programs see it (the front end declares a struct of this layout; the
/// fields are CUDA's, in CUDA's order, a subset of them). Filled from the device profile.
struct KernDeviceProp {
  char name[256];
  uint64_t totalGlobalMem;
  uint64_t sharedMemPerBlock;
  int32_t regsPerBlock;
  int32_t warpSize;
  uint64_t memPitch;
  int32_t maxThreadsPerBlock;
  int32_t maxThreadsDim[3];
  int32_t maxGridSize[3];
  int32_t clockRate; // kHz
  uint64_t totalConstMem;
  int32_t major;
  int32_t minor;
  uint64_t textureAlignment;
  int32_t deviceOverlap;
  int32_t multiProcessorCount;
  int32_t kernelExecTimeoutEnabled;
  int32_t integrated;
  int32_t canMapHostMemory;
  int32_t computeMode;
  int32_t concurrentKernels;
  int32_t ECCEnabled;
  int32_t pciBusID;
  int32_t pciDeviceID;
  int32_t pciDomainID;
  int32_t asyncEngineCount;
  int32_t unifiedAddressing;
  int32_t memoryClockRate; // kHz
  int32_t memoryBusWidth;  // bits
  int32_t l2CacheSize;
  int32_t maxThreadsPerMultiProcessor;
  uint64_t sharedMemPerMultiprocessor;
  int32_t regsPerMultiprocessor;
  uint64_t sharedMemPerBlockOptin;
  int32_t maxBlocksPerMultiProcessor;
  int32_t managedMemory;
  int32_t isMultiGpuBoard;
  int32_t persistingL2CacheMaxSize;
  int32_t accessPolicyMaxWindowSize;
  int32_t pageableMemoryAccess;
  int32_t concurrentManagedAccess;
};

/// cudaFuncAttributes, likewise.
struct KernFuncAttributes {
  uint64_t sharedSizeBytes;
  uint64_t constSizeBytes;
  uint64_t localSizeBytes;
  int32_t maxThreadsPerBlock;
  int32_t numRegs;
  int32_t ptxVersion;
  int32_t binaryVersion;
  int32_t cacheModeCA;
  int32_t maxDynamicSharedSizeBytes;
  int32_t preferredShmemCarveout;
};

/// cudaMemLocation (a managed-memory location: cudaMemPrefetchAsync, cudaMemAdvise).
struct KernMemLocation {
  int32_t type; // cudaMemLocationType
  int32_t id;
};

/// cudaAccessPolicyWindow and kern's cudaStreamAttrValue (a struct of the members of CUDA's
/// union that a stream takes), likewise.
struct KernAccessPolicyWindow {
  void *base_ptr;
  uint64_t num_bytes;
  float hitRatio;
  int32_t hitProp;  // cudaAccessProperty
  int32_t missProp; // cudaAccessProperty
};
struct KernStreamAttrValue {
  KernAccessPolicyWindow accessPolicyWindow;
  int32_t syncPolicy; // cudaSynchronizationPolicy
  int32_t priority;
};

/// cudaPointerAttributes, likewise.
struct KernPointerAttributes {
  int32_t type; // cudaMemoryType
  int32_t device;
  void *devicePointer;
  void *hostPointer;
  int64_t reserved[8];
};

/// cudaMemPoolProps (cudaMemPoolCreate), likewise: CUDA 13's 88 bytes.
/// cudaMemAccessDesc: which access a location has to a memory pool's memory.
struct KernMemAccessDesc {
  KernMemLocation location;
  int32_t flags; // cudaMemAccessFlags
};

struct KernMemPoolProps {
  int32_t allocType;   // cudaMemAllocationType
  int32_t handleTypes; // cudaMemAllocationHandleType
  KernMemLocation location;
  void *win32SecurityAttributes;
  uint64_t maxSize;
  uint16_t usage;
  uint8_t reserved[54];
};

// ---- the runtime functions (runtime_functions.def) --------------------------------------

#define KERN_RT_FUNCTION(name, type) std::type_identity_t<type> name;
#define KERN_RT_NORETURN(name, type) [[noreturn]] std::type_identity_t<type> name;
#include "backend/runtime_functions.def"

} // extern "C"

static_assert(sizeof(KernMemPoolProps) == 88);
static_assert(sizeof(KernMemAccessDesc) == 12);
static_assert(offsetof(KernWarpCtx, params) == 0);
static_assert(offsetof(KernWarpCtx, threadIdx) == 96);
static_assert(offsetof(KernWarpCtx, shadow) == 504);
static_assert(offsetof(KernWarpCtx, finished) == 500);
static_assert(offsetof(KernWarpCtx, dynamicSharedOffset) == 512);
static_assert(offsetof(KernWarpCtx, stackLimit) == 520);
static_assert(offsetof(KernWarpCtx, localTop) == 544);
static_assert(offsetof(KernWarpCtx, clockInstr16) == 552);
static_assert(offsetof(KernWarpCtx, blockClock) == 568);
static_assert(offsetof(KernWarpCtx, waitSite) == 576);
static_assert(offsetof(KernWarpCtx, blockSerial) == 592);
static_assert(offsetof(KernWarpCtx, prefetch) == 600);
static_assert(sizeof(KernWarpCtx) == 96 + 3 * 32 * 4 + 120 + 24 * KERN_PREFETCH_SLOTS);
