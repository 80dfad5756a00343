// Stream-ordered allocation (cudaMallocAsync, cudaFreeAsync) and memory pools (cudaMemPool_t).
// Every allocation is ordinary device memory of the device arena, so kernels see it exactly as
// they see cudaMalloc's (bounds, use after free); the pool only keeps the books that CUDA's
// pool attributes report, as an H100 reports them: the bytes its allocations use, and the
// device memory it reserves for them in 32 MiB units, which it keeps across frees until the
// host has seen a free complete and a synchronisation (above the release threshold) or
// cudaMemPoolTrimTo gives them back. Stream order needs nothing more: every call runs its work
// before it returns, so an allocation is ready, and a free done, when the call returns.
#include "runtime/errors.h"
#include "runtime/runtime.h"

#include <algorithm>

namespace kern::runtime {

namespace {

constexpr uint64_t kUnit = Runtime::MemPool::kUnitBytes;
/// Where allocations start in a pool's range: cudaMalloc's alignment.
constexpr uint64_t kPoolAlignment = DeviceMemory::kAlignment;

// cudaMemPoolAttr
enum : int32_t {
  kReuseFollowEventDependencies = 1,
  kReuseAllowOpportunistic = 2,
  kReuseAllowInternalDependencies = 3,
  kReleaseThreshold = 4,
  kReservedMemCurrent = 5,
  kReservedMemHigh = 6,
  kUsedMemCurrent = 7,
  kUsedMemHigh = 8,
};
// cudaMemAllocationType, cudaMemLocationType, cudaMemAllocationHandleType
constexpr int32_t kAllocPinned = 1, kAllocManaged = 2;
constexpr int32_t kLocDevice = 1, kLocHost = 2, kLocHostNuma = 3;
constexpr int32_t kHandlePosixFileDescriptor = 1;

const char *const kNotAPool = " is not a memory pool (it was not returned by "
                              "cudaDeviceGetDefaultMemPool or cudaMemPoolCreate, or was destroyed)";

} // namespace

Runtime::MemPool *Runtime::findPool(const void *p) const {
  for (const auto &pool : pools_)
    if (pool.get() == p && pool->live)
      return pool.get();
  return nullptr;
}

Runtime::MemPool &Runtime::defaultPool() {
  if (pools_.empty() || !pools_.front()->isDefault) {
    pools_.insert(pools_.begin(), std::make_unique<MemPool>());
    pools_.front()->isDefault = true;
  }
  return *pools_.front();
}

uint64_t Runtime::deviceBytesCommitted() const {
  uint64_t bytes = device_.deviceBytesInUse();
  for (const auto &[base, a] : poolAllocations_)
    if (const Allocation *live = device_.find(base))
      bytes -= live->size; // counted in its pool's reserved bytes instead
  for (const auto &pool : pools_)
    bytes += pool->reserved();
  return bytes;
}

void Runtime::pinUnits(MemPool &pool, uint64_t offset, uint64_t bytes, int delta) {
  for (uint64_t u = offset / kUnit; u <= (offset + bytes - 1) / kUnit; ++u)
    pool.units[u] += delta;
}

void Runtime::trimPool(MemPool &pool, uint64_t keep) {
  // cudaMemPoolTrimTo keeps at least `keep` bytes: a unit goes only if that many stay.
  for (auto it = pool.units.end(); it != pool.units.begin();) {
    --it;
    if (it->second == 0 && pool.reserved() - kUnit >= keep)
      it = pool.units.erase(it);
  }
}

void Runtime::synchronizePools(const void *stream, uint64_t upTo, bool all) {
  for (size_t i = 0; i < pendingFrees_.size();) {
    PendingFree &f = pendingFrees_[i];
    if (all || (f.stream == stream && f.seq <= upTo)) {
      pinUnits(*f.block.pool, f.block.offset, f.block.bytes, -1);
      pendingFrees_.erase(pendingFrees_.begin() + static_cast<long>(i));
    } else
      ++i;
  }
  for (const auto &pool : pools_)
    releaseEmptyUnits(*pool);
}

void Runtime::releaseEmptyUnits(MemPool &pool) {
  // Above the release threshold, empty units go back until the pool holds no more than it
  // (measured: with a threshold of 40 MiB, 96 MiB of empty units drop to 32). A destroyed pool
  // keeps nothing.
  const uint64_t threshold = pool.live ? pool.releaseThreshold : 0;
  for (auto it = pool.units.end(); it != pool.units.begin() && pool.reserved() > threshold;) {
    --it;
    if (it->second == 0)
      it = pool.units.erase(it);
  }
}

void Runtime::releasePoolAllocation(uint64_t base, bool async, const void *stream) {
  auto it = poolAllocations_.find(base);
  const PoolAllocation a = it->second;
  poolAllocations_.erase(it);
  device_.release(base);
  a.pool->blocks.erase(a.offset); // the space is free for the next allocation at once
  a.pool->used -= a.bytes;
  if (async) {
    pendingFrees_.push_back(PendingFree{a, stream, ++freeSeq_});
    return;
  }
  // cudaFree gives the units back at once (measured; CUDA 13's driver then leaves the pool's
  // used bytes as they were, which kern does not copy).
  pinUnits(*a.pool, a.offset, a.bytes, -1);
  releaseEmptyUnits(*a.pool);
}

// ---- allocation ----------------------------------------------------------------------------

int32_t Runtime::poolsSupported(const char *function) {
  const DeviceProfile &dev = options_.device;
  if (dev.ccMajor >= 6)
    return cudaSuccess;
  // cudaDevAttrMemoryPoolsSupported is 0 before Pascal.
  return recordError(cudaErrorNotSupported,
                     std::string("kern: ") + function +
                         ": memory pools need compute capability 6.0 or later; " + dev.name +
                         " is " + std::to_string(dev.ccMajor) + "." + std::to_string(dev.ccMinor));
}

int32_t Runtime::cudaMallocAsync(void **p, uint64_t size, void *stream) {
  if (stickyError_)
    return seenSticky();
  if (int32_t e = poolsSupported("cudaMallocAsync"))
    return e;
  // The current pool of the stream's device.
  return poolAllocate(p, size, currentPool_ ? *currentPool_ : defaultPool(), stream,
                      "cudaMallocAsync");
}

int32_t Runtime::cudaMallocFromPoolAsync(void **p, uint64_t size, void *pool, void *stream) {
  if (stickyError_)
    return seenSticky();
  if (int32_t e = poolsSupported("cudaMallocFromPoolAsync"))
    return e;
  MemPool *mp = findPool(pool);
  if (!mp)
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaMallocFromPoolAsync: " + hexAddress(addressOf(pool)) + kNotAPool);
  return poolAllocate(p, size, *mp, stream, "cudaMallocFromPoolAsync");
}

int32_t Runtime::poolAllocate(void **p, uint64_t size, MemPool &pool, void *stream,
                              const char *function) {
  const std::string fn = std::string("kern: ") + function + ": ";
  if (!p || device_.contains(addressOf(p)))
    return recordError(cudaErrorInvalidValue, fn + "the pointer argument is not a valid host "
                                                   "pointer");
  if (int32_t e = checkStream(function, stream))
    return e;
  if (size == 0) { // as cudaMalloc: a null pointer and success
    *p = nullptr;
    return cudaSuccess;
  }
  // First fit in the pool's range: the lowest gap between its live allocations.
  uint64_t at = 0;
  for (const auto &[off, len] : pool.blocks) {
    if (off >= at + size)
      break;
    at = roundUp(off + len, kPoolAlignment);
  }
  uint64_t grow = 0; // bytes of units to reserve
  for (uint64_t u = at / kUnit; u <= (at + size - 1) / kUnit; ++u)
    grow += pool.units.count(u) ? 0 : kUnit;
  const uint64_t capacity = device_.deviceHi() - device_.lo();
  const bool overLimit = pool.limit && pool.reserved() + grow > pool.limit;
  const uint64_t base =
      overLimit || deviceBytesCommitted() + grow > capacity ? 0 : device_.allocate(size);
  if (!base) {
    *p = nullptr;
    return recordError(
        cudaErrorMemoryAllocation,
        fn + "out of memory: cannot allocate " + byteCount(size) +
            (overLimit
                 ? " (the pool's maxSize, in whole 32 MiB units, is " + byteCount(pool.limit) + ")"
                 : " (" + byteCount(deviceBytesCommitted()) + " of the device's " +
                       byteCount(capacity) + " are in use or reserved)"));
  }
  pool.blocks[at] = size;
  pinUnits(pool, at, size, +1);
  pool.reservedHigh = std::max(pool.reservedHigh, pool.reserved());
  pool.used += size;
  pool.usedHigh = std::max(pool.usedHigh, pool.used);
  poolAllocations_[base] = PoolAllocation{&pool, at, size};
  *p = reinterpret_cast<void *>(base);
  if (checker_) // like cudaMalloc's, the memory holds garbage until written
    checker_->init().clear(base, size);
  return cudaSuccess;
}

int32_t Runtime::cudaFreeAsync(void *p, void *stream) {
  if (stickyError_)
    return seenSticky();
  if (int32_t e = poolsSupported("cudaFreeAsync"))
    return e;
  if (int32_t e = checkStream("cudaFreeAsync", stream))
    return e;
  // The free is ordered after the stream's earlier work, which is done: the memory goes now,
  // though its pool keeps the units until the host synchronises with the stream.
  if (poolAllocations_.count(addressOf(p))) {
    releasePoolAllocation(addressOf(p), true, stream);
    return cudaSuccess;
  }
  // As in CUDA, memory of cudaMalloc may be freed so too.
  return cudaFree(p, "cudaFreeAsync");
}

// ---- pools ---------------------------------------------------------------------------------

int32_t Runtime::cudaDeviceGetMemPool(void **pool, int32_t device, bool defaultOne) {
  const char *function = defaultOne ? "cudaDeviceGetDefaultMemPool" : "cudaDeviceGetMemPool";
  if (stickyError_)
    return seenSticky();
  if (!pool)
    return recordError(cudaErrorInvalidValue,
                       std::string("kern: ") + function + ": null pointer argument");
  if (device != 0)
    return recordError(cudaErrorInvalidDevice,
                       std::string("kern: ") + function + ": there is no device " +
                           std::to_string(device) + " (kern models one device, device 0)");
  if (int32_t e = poolsSupported(function))
    return e;
  *pool = defaultOne || !currentPool_ ? &defaultPool() : currentPool_;
  return cudaSuccess;
}

int32_t Runtime::cudaDeviceSetMemPool(int32_t device, void *pool) {
  if (stickyError_)
    return seenSticky();
  if (device != 0)
    return recordError(cudaErrorInvalidDevice, "kern: cudaDeviceSetMemPool: there is no device " +
                                                   std::to_string(device) +
                                                   " (kern models one device, device 0)");
  if (int32_t e = poolsSupported("cudaDeviceSetMemPool"))
    return e;
  MemPool *mp = findPool(pool);
  if (!mp)
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaDeviceSetMemPool: " + hexAddress(addressOf(pool)) + kNotAPool);
  currentPool_ = mp->isDefault ? nullptr : mp;
  return cudaSuccess;
}

int32_t Runtime::cudaMemPoolSetAttribute(void *pool, int32_t attr, void *value) {
  if (stickyError_)
    return seenSticky();
  const std::string fn = "kern: cudaMemPoolSetAttribute: ";
  MemPool *mp = findPool(pool);
  if (!mp)
    return recordError(cudaErrorInvalidValue, fn + hexAddress(addressOf(pool)) + kNotAPool);
  if (!value || device_.contains(addressOf(value)))
    return recordError(cudaErrorInvalidValue, fn + "the value is not a valid host pointer");
  switch (attr) {
  case kReuseFollowEventDependencies:
  case kReuseAllowOpportunistic:
  case kReuseAllowInternalDependencies: // an int each; kern's allocations never wait to reuse
    mp->reuse[attr - 1] = *static_cast<const int32_t *>(value);
    return cudaSuccess;
  case kReleaseThreshold:
    mp->releaseThreshold = *static_cast<const uint64_t *>(value);
    return cudaSuccess;
  case kReservedMemHigh:
  case kUsedMemHigh: {
    if (*static_cast<const uint64_t *>(value) != 0)
      return recordError(cudaErrorInvalidValue,
                         fn + "a high watermark can only be reset, with the value 0");
    // The watermark starts again from the pool's current figure.
    if (attr == kReservedMemHigh)
      mp->reservedHigh = mp->reserved();
    else
      mp->usedHigh = mp->used;
    return cudaSuccess;
  }
  case kReservedMemCurrent:
  case kUsedMemCurrent:
    return recordError(cudaErrorInvalidValue,
                       fn + "attribute " + std::to_string(attr) + " can be read, not set");
  default:
    return recordError(cudaErrorInvalidValue,
                       fn + std::to_string(attr) + " is not a cudaMemPoolAttr");
  }
}

int32_t Runtime::cudaMemPoolGetAttribute(void *pool, int32_t attr, void *value) {
  if (stickyError_)
    return seenSticky();
  const std::string fn = "kern: cudaMemPoolGetAttribute: ";
  MemPool *mp = findPool(pool);
  if (!mp)
    return recordError(cudaErrorInvalidValue, fn + hexAddress(addressOf(pool)) + kNotAPool);
  if (!value || device_.contains(addressOf(value)))
    return recordError(cudaErrorInvalidValue, fn + "the value is not a valid host pointer");
  uint64_t v = 0;
  switch (attr) {
  case kReuseFollowEventDependencies:
  case kReuseAllowOpportunistic:
  case kReuseAllowInternalDependencies:
    *static_cast<int32_t *>(value) = mp->reuse[attr - 1];
    return cudaSuccess;
  case kReleaseThreshold:
    v = mp->releaseThreshold;
    break;
  case kReservedMemCurrent:
    v = mp->reserved();
    break;
  case kReservedMemHigh:
    v = mp->reservedHigh;
    break;
  case kUsedMemCurrent:
    v = mp->used;
    break;
  case kUsedMemHigh:
    v = mp->usedHigh;
    break;
  default:
    return recordError(cudaErrorInvalidValue,
                       fn + std::to_string(attr) + " is not a cudaMemPoolAttr");
  }
  *static_cast<uint64_t *>(value) = v;
  return cudaSuccess;
}

int32_t Runtime::cudaMemPoolTrimTo(void *pool, uint64_t minBytesToKeep) {
  if (stickyError_)
    return seenSticky();
  MemPool *mp = findPool(pool);
  if (!mp)
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaMemPoolTrimTo: " + hexAddress(addressOf(pool)) + kNotAPool);
  trimPool(*mp, minBytesToKeep);
  return cudaSuccess;
}

namespace {

constexpr int32_t kAccessNone = 0, kAccessRead = 1, kAccessReadWrite = 3; // cudaMemAccessFlags

} // namespace

int32_t Runtime::cudaMemPoolSetAccess(void *pool, const KernMemAccessDesc *descs, uint64_t count) {
  if (stickyError_)
    return seenSticky();
  const std::string fn = "kern: cudaMemPoolSetAccess: ";
  if (!findPool(pool))
    return recordError(cudaErrorInvalidValue, fn + hexAddress(addressOf(pool)) + kNotAPool);
  if (count > 0 && !descs)
    return recordError(cudaErrorInvalidValue, fn + "null descriptor array");
  // What a GPU returns for each (tests/lang/runtime/memory_pool_access.kern).
  for (uint64_t i = 0; i < count; ++i) {
    const KernMemAccessDesc &d = descs[i];
    if (d.location.type == kLocHost || d.location.type == kLocHostNuma)
      return recordError(cudaErrorNotSupported,
                         fn + "the host's access to a pool of device memory cannot be set");
    if (d.location.type != kLocDevice)
      return recordError(cudaErrorInvalidValue, fn + "location type " +
                                                    std::to_string(d.location.type) +
                                                    " is not cudaMemLocationTypeDevice");
    if (d.flags != kAccessNone && d.flags != kAccessRead && d.flags != kAccessReadWrite)
      return recordError(cudaErrorInvalidValue,
                         fn + std::to_string(d.flags) + " is not a cudaMemAccessFlags value");
    if (d.location.id != 0)
      return recordError(cudaErrorInvalidDevice,
                         fn + "no device " + std::to_string(d.location.id) +
                             " (the virtual GPU is device 0, the pool's own)");
    if (d.flags == kAccessRead)
      return recordError(cudaErrorNotSupported,
                         fn + "read-only access (cudaMemAccessFlagsProtRead) is not supported");
    if (d.flags == kAccessNone)
      return recordError(cudaErrorInvalidDevice,
                         fn + "a pool's own device cannot lose its access to it");
  }
  return cudaSuccess;
}

int32_t Runtime::cudaMemPoolGetAccess(int32_t *flags, void *pool, const KernMemLocation *location) {
  if (stickyError_)
    return seenSticky();
  const std::string fn = "kern: cudaMemPoolGetAccess: ";
  if (!flags || !location)
    return recordError(cudaErrorInvalidValue, fn + "null pointer argument");
  if (!findPool(pool))
    return recordError(cudaErrorInvalidValue, fn + hexAddress(addressOf(pool)) + kNotAPool);
  if (location->type == kLocHost || location->type == kLocHostNuma) {
    *flags = kAccessNone; // a pool of device memory: the host has no access
    return cudaSuccess;
  }
  if (location->type != kLocDevice || location->id != 0)
    return recordError(cudaErrorInvalidValue,
                       fn + (location->type != kLocDevice
                                 ? "location type " + std::to_string(location->type) +
                                       " is not a device or the host"
                                 : "no device " + std::to_string(location->id)));
  *flags = kAccessReadWrite;
  return cudaSuccess;
}

int32_t Runtime::cudaMemPoolCreate(void **pool, const KernMemPoolProps *props) {
  if (stickyError_)
    return seenSticky();
  const std::string fn = "kern: cudaMemPoolCreate: ";
  if (!pool || !props)
    return recordError(cudaErrorInvalidValue, fn + "null pointer argument");
  if (int32_t e = poolsSupported("cudaMemPoolCreate"))
    return e;
  if (props->allocType == kAllocManaged)
    return recordError(cudaErrorNotSupported,
                       fn + "pools of managed memory (cudaMemAllocationTypeManaged) are not "
                            "supported: kern's pools hold device memory");
  if (props->allocType != kAllocPinned)
    return recordError(cudaErrorInvalidValue, fn + "allocType " + std::to_string(props->allocType) +
                                                  " is not cudaMemAllocationTypePinned");
  const KernMemLocation &loc = props->location;
  if (loc.type == kLocHost || loc.type == kLocHostNuma)
    return recordError(cudaErrorNotSupported,
                       fn + "pools of host memory are not supported: kern's pools hold device "
                            "memory (location type cudaMemLocationTypeDevice)");
  if (loc.type != kLocDevice)
    return recordError(cudaErrorInvalidValue, fn + "location type " + std::to_string(loc.type) +
                                                  " is not cudaMemLocationTypeDevice");
  if (loc.id != 0)
    return recordError(cudaErrorInvalidValue, fn + "there is no device " + std::to_string(loc.id) +
                                                  " (kern models one device, device 0)");
  // A file descriptor is accepted, as on Linux (kern has no call that would export one); the
  // Windows and fabric handles are not.
  if (props->handleTypes & ~kHandlePosixFileDescriptor)
    return recordError(cudaErrorNotSupported,
                       fn + "handleTypes " + std::to_string(props->handleTypes) +
                           ": only cudaMemHandleTypeNone and "
                           "cudaMemHandleTypePosixFileDescriptor are supported");
  pools_.push_back(std::make_unique<MemPool>());
  // Measured: the limit is the maxSize rounded up to whole units (a 4 MiB pool holds 32 MiB).
  pools_.back()->limit = roundUp(props->maxSize, kUnit);
  *pool = pools_.back().get();
  return cudaSuccess;
}

int32_t Runtime::cudaMemPoolDestroy(void *pool) {
  if (stickyError_)
    return seenSticky();
  MemPool *mp = findPool(pool);
  if (!mp)
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaMemPoolDestroy: " + hexAddress(addressOf(pool)) + kNotAPool);
  if (mp->isDefault)
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaMemPoolDestroy: the device's default memory pool cannot be "
                       "destroyed");
  // Its allocations stay valid; it gives its memory back as they are freed.
  mp->live = false;
  if (currentPool_ == mp)
    currentPool_ = nullptr;
  trimPool(*mp, 0);
  return cudaSuccess;
}

} // namespace kern::runtime

// ---- called from host code -----------------------------------------------------------------

int32_t kern_rt_cudaMallocAsync(KernHostCtx *ctx, void **p, uint64_t size, void *stream) {
  return ctx->rt->cudaMallocAsync(p, size, stream);
}
int32_t kern_rt_cudaFreeAsync(KernHostCtx *ctx, void *p, void *stream) {
  return ctx->rt->cudaFreeAsync(p, stream);
}
int32_t kern_rt_cudaMallocFromPoolAsync(KernHostCtx *ctx, void **p, uint64_t size, void *pool,
                                        void *stream) {
  return ctx->rt->cudaMallocFromPoolAsync(p, size, pool, stream);
}
int32_t kern_rt_cudaDeviceGetDefaultMemPool(KernHostCtx *ctx, void **pool, int32_t device) {
  return ctx->rt->cudaDeviceGetMemPool(pool, device, true);
}
int32_t kern_rt_cudaDeviceGetMemPool(KernHostCtx *ctx, void **pool, int32_t device) {
  return ctx->rt->cudaDeviceGetMemPool(pool, device, false);
}
int32_t kern_rt_cudaDeviceSetMemPool(KernHostCtx *ctx, int32_t device, void *pool) {
  return ctx->rt->cudaDeviceSetMemPool(device, pool);
}
int32_t kern_rt_cudaMemPoolSetAttribute(KernHostCtx *ctx, void *pool, int32_t attr, void *value) {
  return ctx->rt->cudaMemPoolSetAttribute(pool, attr, value);
}
int32_t kern_rt_cudaMemPoolGetAttribute(KernHostCtx *ctx, void *pool, int32_t attr, void *value) {
  return ctx->rt->cudaMemPoolGetAttribute(pool, attr, value);
}
int32_t kern_rt_cudaMemPoolTrimTo(KernHostCtx *ctx, void *pool, uint64_t minBytesToKeep) {
  return ctx->rt->cudaMemPoolTrimTo(pool, minBytesToKeep);
}

int32_t kern_rt_cudaMemPoolSetAccess(KernHostCtx *ctx, void *pool, const KernMemAccessDesc *descs,
                                     uint64_t count) {
  return ctx->rt->cudaMemPoolSetAccess(pool, descs, count);
}

int32_t kern_rt_cudaMemPoolGetAccess(KernHostCtx *ctx, int32_t *flags, void *pool,
                                     const KernMemLocation *location) {
  return ctx->rt->cudaMemPoolGetAccess(flags, pool, location);
}
int32_t kern_rt_cudaMemPoolCreate(KernHostCtx *ctx, void **pool, const KernMemPoolProps *props) {
  return ctx->rt->cudaMemPoolCreate(pool, props);
}
int32_t kern_rt_cudaMemPoolDestroy(KernHostCtx *ctx, void *pool) {
  return ctx->rt->cudaMemPoolDestroy(pool);
}
