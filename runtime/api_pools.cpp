// Stream-ordered allocation (cudaMallocAsync, cudaFreeAsync) and memory pools (cudaMemPool_t).
// Every allocation is ordinary device memory of the device arena, so kernels see it exactly as
// they see cudaMalloc's (bounds, use after free); the pool only keeps the books that CUDA's
// pool attributes report: the bytes its allocations use, and the device memory it reserves for
// them in chunks, which it keeps across frees and gives back at synchronisations above its
// release threshold. Stream order needs nothing more: every call runs its work before it
// returns, so an allocation is ready, and a free done, when the call returns.
#include "runtime/errors.h"
#include "runtime/runtime.h"

#include <algorithm>

namespace kern::runtime {

namespace {

/// The unit a pool reserves device memory in: 2 MiB, the granularity of CUDA's virtual memory
/// management (cuMemGetAllocationGranularity's minimum on current GPUs), on which pools rest.
constexpr uint64_t kPoolGranularity = 2ull << 20;
/// A pool allocation's bytes, rounded up to the alignment cudaMalloc gives.
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
// cudaMemAllocationType, cudaMemLocationType
constexpr int32_t kAllocPinned = 1, kAllocManaged = 2;
constexpr int32_t kLocDevice = 1, kLocHost = 2, kLocHostNuma = 3;

uint64_t roundUp(uint64_t v, uint64_t unit) { return (v + unit - 1) / unit * unit; }

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
    bytes += pool->reserved;
  return bytes;
}

void Runtime::trimPool(MemPool &pool, uint64_t keep) {
  for (auto it = pool.chunks.end(); it != pool.chunks.begin();) {
    --it;
    if (!it->second.blocks.empty() || pool.reserved - it->second.size < keep)
      continue;
    pool.reserved -= it->second.size;
    it = pool.chunks.erase(it);
  }
}

void Runtime::releasePoolMemory() {
  for (const auto &pool : pools_)
    trimPool(*pool, pool->releaseThreshold);
}

void Runtime::releasePoolAllocation(uint64_t base) {
  auto it = poolAllocations_.find(base);
  const PoolAllocation a = it->second;
  poolAllocations_.erase(it);
  device_.release(base);
  a.pool->chunks[a.chunk].blocks.erase(a.offset);
  a.pool->used -= a.bytes;
  if (!a.pool->live) // a destroyed pool gives its memory back as its allocations go
    trimPool(*a.pool, 0);
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
    return stickyError_;
  if (int32_t e = poolsSupported("cudaMallocAsync"))
    return e;
  // The current pool of the stream's device.
  return poolAllocate(p, size, currentPool_ ? *currentPool_ : defaultPool(), stream,
                      "cudaMallocAsync");
}

int32_t Runtime::cudaMallocFromPoolAsync(void **p, uint64_t size, void *pool, void *stream) {
  if (stickyError_)
    return stickyError_;
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
  // First fit: the oldest chunk with a gap large enough, the lowest such gap in it.
  const uint64_t bytes = roundUp(size, kPoolAlignment);
  uint64_t chunk = 0, offset = 0;
  bool placed = false;
  for (auto &[id, c] : pool.chunks) {
    uint64_t at = 0;
    for (const auto &[off, len] : c.blocks) {
      if (off - at >= bytes)
        break;
      at = off + len;
    }
    if (at + bytes <= c.size) {
      chunk = id;
      offset = at;
      placed = true;
      break;
    }
  }
  const uint64_t grow = placed ? 0 : roundUp(bytes, kPoolGranularity);
  const uint64_t capacity = device_.deviceHi() - device_.lo();
  const bool overMax = pool.maxSize && pool.reserved + grow > pool.maxSize;
  const uint64_t base =
      overMax || deviceBytesCommitted() + grow > capacity ? 0 : device_.allocate(size);
  if (!base) {
    *p = nullptr;
    return recordError(cudaErrorMemoryAllocation,
                       fn + "out of memory: cannot allocate " + byteCount(size) +
                           (overMax
                                ? " (the pool's maxSize is " + byteCount(pool.maxSize) + ")"
                                : " (" + byteCount(deviceBytesCommitted()) + " of the device's " +
                                      byteCount(capacity) + " are in use or reserved)"));
  }
  if (!placed) {
    chunk = pool.nextChunk++;
    pool.chunks[chunk].size = grow;
    pool.reserved += grow;
    pool.reservedHigh = std::max(pool.reservedHigh, pool.reserved);
  }
  pool.chunks[chunk].blocks[offset] = bytes;
  pool.used += bytes;
  pool.usedHigh = std::max(pool.usedHigh, pool.used);
  poolAllocations_[base] = PoolAllocation{&pool, chunk, offset, bytes};
  *p = reinterpret_cast<void *>(base);
  if (checker_) // like cudaMalloc's, the memory holds garbage until written
    checker_->init().clear(base, size);
  return cudaSuccess;
}

int32_t Runtime::cudaFreeAsync(void *p, void *stream) {
  if (stickyError_)
    return stickyError_;
  if (int32_t e = poolsSupported("cudaFreeAsync"))
    return e;
  if (int32_t e = checkStream("cudaFreeAsync", stream))
    return e;
  // The free is ordered after the stream's earlier work, which is done: it happens now. As in
  // CUDA, memory of cudaMalloc may be freed so too.
  return cudaFree(p, "cudaFreeAsync");
}

// ---- pools ---------------------------------------------------------------------------------

int32_t Runtime::cudaDeviceGetMemPool(void **pool, int32_t device, bool defaultOne) {
  const char *function = defaultOne ? "cudaDeviceGetDefaultMemPool" : "cudaDeviceGetMemPool";
  if (stickyError_)
    return stickyError_;
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
    return stickyError_;
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
    return stickyError_;
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
      mp->reservedHigh = mp->reserved;
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
    return stickyError_;
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
    v = mp->reserved;
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
    return stickyError_;
  MemPool *mp = findPool(pool);
  if (!mp)
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaMemPoolTrimTo: " + hexAddress(addressOf(pool)) + kNotAPool);
  trimPool(*mp, minBytesToKeep);
  return cudaSuccess;
}

int32_t Runtime::cudaMemPoolCreate(void **pool, const KernMemPoolProps *props) {
  if (stickyError_)
    return stickyError_;
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
  if (props->handleTypes != 0)
    return recordError(cudaErrorNotSupported,
                       fn + "handleTypes must be cudaMemHandleTypeNone: a kern program is one "
                            "process, its pools cannot be shared with another");
  pools_.push_back(std::make_unique<MemPool>());
  pools_.back()->maxSize = props->maxSize;
  *pool = pools_.back().get();
  return cudaSuccess;
}

int32_t Runtime::cudaMemPoolDestroy(void *pool) {
  if (stickyError_)
    return stickyError_;
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
int32_t kern_rt_cudaMemPoolCreate(KernHostCtx *ctx, void **pool, const KernMemPoolProps *props) {
  return ctx->rt->cudaMemPoolCreate(pool, props);
}
int32_t kern_rt_cudaMemPoolDestroy(KernHostCtx *ctx, void *pool) {
  return ctx->rt->cudaMemPoolDestroy(pool);
}
