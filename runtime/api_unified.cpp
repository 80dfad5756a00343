// Host memory that kernels reach: mapped pinned memory (cudaHostAllocMapped) lives in the
// host-visible arena of the device region, where host code and kernels touch the same bytes;
// registered host memory (cudaHostRegister) and pinned blocks whose device pointer is asked for
// get a device view that mirrors them around every launch. Also the memory queries.
#include "runtime/errors.h"
#include "runtime/runtime.h"

#include <sys/mman.h>

#include <cstring>

namespace kern::runtime {

namespace {

// cudaMemoryType
constexpr int32_t kMemoryTypeUnregistered = 0, kMemoryTypeHost = 1, kMemoryTypeDevice = 2,
                  kMemoryTypeManaged = 3;
// cudaHostRegister flags
constexpr uint32_t kRegisterIoMemory = 4, kRegisterAll = 15;

} // namespace

Runtime::HostVisibleBlock *Runtime::findHostVisible(uint64_t addr) {
  auto it = hostVisible_.upper_bound(addr);
  if (it == hostVisible_.begin())
    return nullptr;
  --it;
  return addr < it->second.base + it->second.size ? &it->second : nullptr;
}

Runtime::HostAlias *Runtime::findAlias(uint64_t hostAddr) {
  auto it = aliases_.upper_bound(hostAddr);
  if (it == aliases_.begin())
    return nullptr;
  --it;
  return hostAddr < it->second.host + it->second.size ? &it->second : nullptr;
}

Runtime::HostAlias *Runtime::findAliasByDevice(uint64_t deviceAddr) {
  for (auto &[h, a] : aliases_)
    if (deviceAddr >= a.device && deviceAddr < a.device + a.size)
      return &a;
  return nullptr;
}

uint64_t Runtime::makeAlias(uint64_t host, uint64_t size, bool registered) {
  const uint64_t dev = device_.allocate(size);
  if (!dev)
    return 0;
  HostAlias a;
  a.host = host;
  a.size = size;
  a.device = dev;
  a.registered = registered;
  if (const Allocation *h = host_.find(host))
    a.heapBase = h->base;
  aliases_[host] = a;
  if (checker_) // the host wrote it: every byte counts as written
    checker_->init().mark(dev, size);
  return dev;
}

void Runtime::dropAlias(uint64_t host) {
  auto it = aliases_.find(host);
  if (it == aliases_.end())
    return;
  device_.release(it->second.device);
  aliases_.erase(it);
}

void Runtime::syncAlias(HostAlias &a, bool toDevice) {
  // A heap block freed (or pages unmapped) while registered (a bug CUDA leaves undefined): its
  // bytes are no longer the program's, so the mirror stops.
  if (a.heapBase) {
    const Allocation *blk = host_.find(a.host);
    if (!blk || blk->base != a.heapBase || a.host + a.size > blk->end())
      return;
  }
  void *host = reinterpret_cast<void *>(a.host);
  void *dev = reinterpret_cast<void *>(a.device);
  if (toDevice)
    std::memcpy(dev, host, a.size);
  else
    std::memcpy(host, dev, a.size);
}

void Runtime::syncAliases(bool toDevice) {
  for (auto &[h, a] : aliases_)
    syncAlias(a, toDevice);
}

// ---- mapped and registered host memory ------------------------------------------------------

int32_t Runtime::cudaHostGetDevicePointer(void **device, void *host, uint32_t flags) {
  if (stickyError_)
    return seenSticky();
  const char *fn = "kern: cudaHostGetDevicePointer: ";
  if (!device || !host)
    return recordError(cudaErrorInvalidValue, std::string(fn) + "null pointer argument");
  if (flags != 0)
    return recordError(cudaErrorInvalidValue,
                       std::string(fn) + "flags must be 0, not " + std::to_string(flags));
  const uint64_t addr = addressOf(host);
  if (findHostVisible(addr)) { // mapped pinned or managed: one address on both sides
    *device = host;
    return cudaSuccess;
  }
  if (HostAlias *a = findAlias(addr)) {
    *device = reinterpret_cast<void *>(a->device + (addr - a->host));
    return cudaSuccess;
  }
  if (const Allocation *blk = host_.find(addr); blk && host_.isPinned(blk->base)) {
    // cudaMallocHost memory is mapped on every device with unified addressing; kern gives it
    // a device view the first time its device pointer is asked for.
    const uint64_t dev = makeAlias(blk->base, std::max<uint64_t>(blk->size, 1), false);
    if (!dev)
      return recordError(cudaErrorMemoryAllocation,
                         std::string(fn) + "out of device memory for the mapping");
    *device = reinterpret_cast<void *>(dev + (addr - blk->base));
    return cudaSuccess;
  }
  std::string why = device_.contains(addr) ? " is a device pointer"
                                           : " is not mapped host memory (allocate it with "
                                             "cudaHostAlloc(..., cudaHostAllocMapped) or "
                                             "register it with cudaHostRegister)";
  return recordError(cudaErrorInvalidValue, std::string(fn) + hexAddress(addr) + why);
}

int32_t Runtime::cudaHostRegister(void *p, uint64_t size, uint32_t flags) {
  if (stickyError_)
    return seenSticky();
  const std::string fn = "kern: cudaHostRegister: ";
  const uint64_t addr = addressOf(p);
  if (flags > kRegisterAll)
    return recordError(cudaErrorInvalidValue,
                       fn + std::to_string(flags) +
                           " is not a combination of cudaHostRegister flags");
  if (flags & kRegisterIoMemory)
    return recordError(cudaErrorInvalidValue,
                       fn + "cudaHostRegisterIoMemory: " + hexAddress(addr) + " is not I/O memory");
  if (addr < kNullPage || size == 0)
    return recordError(cudaErrorInvalidValue,
                       fn + (size == 0 ? "the size is 0" : "the pointer is null"));
  if (const HostVisibleBlock *b = findHostVisible(addr);
      b && b->kind == HostVisibleBlock::Kind::MappedPinned)
    return recordError(cudaErrorHostMemoryAlreadyRegistered,
                       fn + hexAddress(addr) + " is pinned memory from cudaMallocHost");
  if (device_.contains(addr) || device_.hostVisible(addr))
    return recordError(cudaErrorInvalidValue,
                       fn + hexAddress(addr) + " is memory CUDA allocated, not host memory");
  if (const Allocation *blk = host_.find(addr)) {
    if (host_.isPinned(blk->base))
      return recordError(cudaErrorHostMemoryAlreadyRegistered,
                         fn + hexAddress(addr) + " is pinned memory from cudaMallocHost");
    if (size > blk->end() - addr)
      return recordError(cudaErrorInvalidValue,
                         fn + "the range " + hexRange(addr, size) + " runs " +
                             byteCount(addr + size - blk->end()) + " past the end of a " +
                             std::to_string(blk->size) + "-byte block allocated by malloc at " +
                             hexAddress(blk->base));
  }
  auto next = aliases_.lower_bound(addr);
  if ((next != aliases_.end() && next->second.host < addr + size) || findAlias(addr))
    return recordError(cudaErrorHostMemoryAlreadyRegistered,
                       fn + "the range " + hexRange(addr, size) +
                           " overlaps host memory that is already registered");
  const uint64_t dev = makeAlias(addr, size, true);
  if (!dev)
    return recordError(cudaErrorMemoryAllocation,
                       fn + "out of device memory for the mapping of " + byteCount(size));
  std::memcpy(reinterpret_cast<void *>(dev), p, size);
  return cudaSuccess;
}

int32_t Runtime::cudaHostUnregister(void *p) {
  if (stickyError_)
    return seenSticky();
  const uint64_t addr = addressOf(p);
  auto it = aliases_.find(addr);
  if (it == aliases_.end() || !it->second.registered)
    return recordError(cudaErrorHostMemoryNotRegistered,
                       "kern: cudaHostUnregister: " + hexAddress(addr) +
                           " is not the start of a range registered with cudaHostRegister");
  dropAlias(addr);
  return cudaSuccess;
}

// ---- queries --------------------------------------------------------------------------------

int32_t Runtime::cudaMemGetInfo(uint64_t *free, uint64_t *total) {
  if (stickyError_)
    return seenSticky();
  if (!free || !total)
    return recordError(cudaErrorInvalidValue, "kern: cudaMemGetInfo: null pointer argument");
  *total = device_.deviceHi() - device_.lo();
  // Memory pools hold what they reserve, used or not.
  *free = *total - std::min(*total, deviceBytesCommitted());
  return cudaSuccess;
}

int32_t Runtime::cudaPointerGetAttributes(KernPointerAttributes *attr, const void *p) {
  if (stickyError_)
    return seenSticky();
  if (!attr)
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaPointerGetAttributes: null pointer argument");
  std::memset(attr, 0, sizeof *attr);
  const uint64_t addr = addressOf(p);
  void *self = const_cast<void *>(p);
  attr->device = 0;
  if (HostVisibleBlock *b = findHostVisible(addr)) {
    attr->type = b->kind == HostVisibleBlock::Kind::Managed ? kMemoryTypeManaged : kMemoryTypeHost;
    attr->devicePointer = self;
    attr->hostPointer = self;
    return cudaSuccess;
  }
  if (HostAlias *a = findAliasByDevice(addr)) {
    attr->type = kMemoryTypeHost;
    attr->devicePointer = self;
    attr->hostPointer = reinterpret_cast<void *>(a->host + (addr - a->device));
    return cudaSuccess;
  }
  if (device_.find(addr)) {
    attr->type = kMemoryTypeDevice;
    attr->devicePointer = self;
    return cudaSuccess;
  }
  const Allocation *blk = host_.find(addr);
  if (findAlias(addr) || (blk && host_.isPinned(blk->base))) {
    void *dev = nullptr;
    if (int32_t e = cudaHostGetDevicePointer(&dev, self, 0))
      return e;
    attr->type = kMemoryTypeHost;
    attr->devicePointer = dev;
    attr->hostPointer = self;
    return cudaSuccess;
  }
  // Memory CUDA knows nothing of (malloc, the stack, a stale device pointer): success, with
  // the type cudaMemoryTypeUnregistered (CUDA 11 and later).
  attr->type = kMemoryTypeUnregistered;
  attr->device = -2; // cudaInvalidDeviceId
  return cudaSuccess;
}

// ---- releasing ------------------------------------------------------------------------------

void Runtime::noteVisibleAccess(KernHostCtx *ctx, uint64_t addr) {
  const HostVisibleBlock *b = findHostVisible(addr);
  if (b && b->kind == HostVisibleBlock::Kind::MappedPinned) {
    ctx->visibleLo = b->base;
    ctx->visibleHi = b->base + b->size;
  }
}

void Runtime::releaseHostVisible(uint64_t base) {
  auto it = hostVisible_.find(base);
  if (it == hostVisible_.end())
    return;
  if (hostCtx_ && hostCtx_->visibleLo == base) // no longer accessible
    hostCtx_->visibleLo = hostCtx_->visibleHi = 0;
  const HostVisibleBlock &b = it->second;
  if (!b.units.empty()) // open again: the release clears the bytes
    mprotect(reinterpret_cast<void *>(b.base), b.units.size() * DeviceMemory::kHostVisibleUnit,
             PROT_READ | PROT_WRITE);
  device_.release(base);
  hostVisible_.erase(it);
}

void Runtime::releaseUnifiedState() {
  std::vector<uint64_t> bases;
  for (auto &[b, blk] : hostVisible_)
    bases.push_back(b);
  for (uint64_t b : bases)
    releaseHostVisible(b);
  std::vector<uint64_t> hosts;
  for (auto &[h, a] : aliases_)
    hosts.push_back(h);
  for (uint64_t h : hosts)
    dropAlias(h);
}

} // namespace kern::runtime
