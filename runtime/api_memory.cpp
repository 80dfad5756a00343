// The CUDA runtime API's device memory, copies and device state, with CUDA's error semantics:
// cudaMalloc/cudaFree, cudaMemcpy/cudaMemset, cudaGetLastError, cudaSetDevice...
#include "runtime/runtime.h"

#include "runtime/errors.h"

#include <algorithm>
#include <cstring>

namespace kern::runtime {
namespace {

const char *const kMemcpyKindNames[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice",
                                        "cudaMemcpyDeviceToHost", "cudaMemcpyDeviceToDevice",
                                        "cudaMemcpyDefault"};

} // namespace

// ---- device memory --------------------------------------------------------------------------

int32_t Runtime::cudaMalloc(void **p, uint64_t size) {
  contextMade_ = true;
  if (stickyError_)
    return seenSticky();
  if (!p || device_.contains(addressOf(p)))
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaMalloc: the pointer argument is not a valid host pointer");
  if (size == 0) { // CUDA: success, and a null pointer
    *p = nullptr;
    return cudaSuccess;
  }
  const uint64_t base = device_.allocate(size);
  if (!base) {
    uint64_t used = 0;
    for (const auto &[b, a] : device_.live())
      used += a.size;
    return recordError(cudaErrorMemoryAllocation,
                       "kern: cudaMalloc: out of memory: cannot allocate " + byteCount(size) +
                           " (" + byteCount(used) + " of the device's " +
                           byteCount(device_.deviceHi() - device_.lo()) + " are allocated)");
  }
  *p = reinterpret_cast<void *>(base);
  if (checker_) // CUDA's fresh allocations hold garbage: nothing in them counts as written
    checker_->init().clear(base, size);
  return cudaSuccess;
}

int32_t Runtime::cudaFree(void *p, const char *function) {
  contextMade_ = true;
  if (stickyError_)
    return seenSticky();
  const uint64_t addr = addressOf(p);
  if (!p)
    return cudaSuccess;
  const std::string head = std::string("kern: ") + function + ": " + hexAddress(addr);
  if (globalDeviceBases_.count(addr))
    return recordError(cudaErrorInvalidValue,
                       head + " is a __device__ variable, not an allocation");
  if (HostVisibleBlock *b = findHostVisible(addr); b && b->base == addr) {
    if (b->kind == HostVisibleBlock::Kind::MappedPinned)
      return recordError(
          cudaErrorInvalidValue,
          head + " was allocated by cudaMallocHost or cudaHostAlloc (use cudaFreeHost)");
    releaseHostVisible(addr);
    return cudaSuccess;
  }
  if (findAliasByDevice(addr))
    return recordError(cudaErrorInvalidValue,
                       head + " is the device pointer of mapped host memory, not an allocation");
  // Memory of cudaMallocAsync goes back to its pool (CUDA's cudaFree takes it too).
  if (poolAllocations_.count(addr)) {
    releasePoolAllocation(addr, false, nullptr);
    return cudaSuccess;
  }
  if (device_.release(addr))
    return cudaSuccess;
  std::string why;
  if (const Allocation *a = device_.find(addr))
    why = " is not the start of an allocation (it is at offset " + std::to_string(addr - a->base) +
          " of a " + std::to_string(a->size) + "-byte allocation at " + hexAddress(a->base) + ")";
  else if (const Allocation *f = device_.findFreed(addr); f && f->base == addr)
    why = " was already freed (double free)";
  else if (device_.contains(addr))
    why = " was not returned by cudaMalloc";
  else
    why = " is not a device pointer" + std::string(host_.find(addr) ? " (it was returned by "
                                                                      "malloc; use free)"
                                                                    : "");
  return recordError(cudaErrorInvalidValue, head + why);
}

bool Runtime::checkDeviceRange(const char *function, const char *what, uint64_t addr, uint64_t n,
                               std::string &message) const {
  const std::string head = std::string("kern: ") + function + ": the " + what + " ";
  const Allocation *a = device_.find(addr);
  if (!a) {
    if (addr < kNullPage)
      message = head + "is a null pointer";
    else if (!device_.contains(addr))
      message = head + hexAddress(addr) + " is not a device pointer";
    else
      message = head + describeDevicePointer(addr) + " is not inside a live allocation";
    return false;
  }
  if (n > a->end() - addr) {
    message = head + "range " + hexRange(addr, n) + " (" + byteCount(n) + ") runs " +
              byteCount(addr + n - a->end()) + " past the end of a " + std::to_string(a->size) +
              "-byte allocation at " + hexAddress(a->base);
    return false;
  }
  return true;
}

int32_t Runtime::cudaMemcpy(void *dst, const void *src, uint64_t n, int32_t kind) {
  return memcpyImpl("cudaMemcpy", dst, src, n, kind);
}

int32_t Runtime::memcpyImpl(const char *api, void *dst, const void *src, uint64_t n, int32_t kind,
                            void *stream, bool async) {
  if (stickyError_)
    return seenSticky();
  if (kind < 0 || kind > 4)
    return recordError(cudaErrorInvalidMemcpyDirection,
                       "kern: cudaMemcpy: " + std::to_string(kind) + " is not a cudaMemcpyKind");
  if (n == 0)
    return cudaSuccess;
  const uint64_t d = addressOf(dst), s = addressOf(src);
  bool dstDevice = kind == 1 || kind == 3, srcDevice = kind == 2 || kind == 3;
  if (kind == 4) { // cudaMemcpyDefault: unified addressing tells the direction
    dstDevice = device_.contains(d);
    srcDevice = device_.contains(s);
  }
  const std::string fn = kMemcpyKindNames[kind];
  std::string message;
  auto checkHost = [&](const char *what, uint64_t addr) {
    const std::string head = "kern: " + fn + ": the " + what + " ";
    if (addr < kNullPage) {
      message = head + "is a null pointer";
      return false;
    }
    if (device_.contains(addr)) {
      // What CUDA returns for a device pointer where a host pointer belongs.
      message = head + describeDevicePointer(addr) + " is a device pointer";
      return false;
    }
    if (const Allocation *a = host_.find(addr); a && n > a->end() - addr) {
      message = head + "range " + hexRange(addr, n) + " (" + byteCount(n) + ") runs " +
                byteCount(addr + n - a->end()) + " past the end of a " + std::to_string(a->size) +
                "-byte block allocated by malloc at " + hexAddress(a->base);
      return false;
    }
    return true;
  };
  const bool ok =
      (dstDevice ? checkDeviceRange(fn.c_str(), "destination", d, n, message)
                 : checkHost("destination", d)) &&
      (srcDevice ? checkDeviceRange(fn.c_str(), "source", s, n, message) : checkHost("source", s));
  if (!ok)
    return recordError(cudaErrorInvalidValue, std::move(message));
  // The device view of mapped host memory, on either side, mirrors the host for the copy.
  HostAlias *dstAlias = aliases_.empty() ? nullptr : findAliasByDevice(d);
  HostAlias *srcAlias = aliases_.empty() ? nullptr : findAliasByDevice(s);
  if (srcAlias)
    syncAlias(*srcAlias, true);
  if (dstAlias)
    syncAlias(*dstAlias, true);
  std::memmove(dst, src, n);
  if (dstAlias)
    syncAlias(*dstAlias, false);
  if (checker_ && dstDevice) {
    if (srcDevice) // unwritten bytes stay unwritten when copied
      checker_->init().copy(d, s, n);
    else
      checker_->init().mark(d, n);
  }
  if (dstDevice != srcDevice)
    recordTransfer(api,
                   dstDevice ? TransferDirection::HostToDevice : TransferDirection::DeviceToHost, n,
                   dstDevice ? s : d, stream, async);
  else if (dstDevice) // within the device: no transfer, but the copy takes the device's time;
    // the host does not wait for it (CUDA: "for transfers from device memory to device memory,
    // no host-side synchronization is performed")
    clock_.run(stream, DeviceEngine::Compute, deviceCopySeconds(options_.device, n), false);
  return cudaSuccess;
}

int32_t Runtime::cudaMemset(void *p, int32_t value, uint64_t n) {
  if (stickyError_)
    return seenSticky();
  if (n == 0)
    return cudaSuccess;
  std::string message;
  if (!checkDeviceRange("cudaMemset", "destination", addressOf(p), n, message))
    return recordError(cudaErrorInvalidValue, std::move(message));
  HostAlias *alias = aliases_.empty() ? nullptr : findAliasByDevice(addressOf(p));
  if (alias)
    syncAlias(*alias, true);
  managedDeviceWrite(addressOf(p), n, [&] { std::memset(p, value, n); });
  if (alias)
    syncAlias(*alias, false);
  if (checker_)
    checker_->init().mark(addressOf(p), n);
  return cudaSuccess;
}

// ---- device and error state -----------------------------------------------------------------

int32_t Runtime::cudaDeviceSynchronize() {
  // Launches run to completion before kern_rt_launch returns; only their faults remain.
  clock_.hostWaits(clock_.deviceEnd());
  synchronizePools(nullptr, 0, true);
  return seenSticky();
}

int32_t Runtime::cudaGetLastError() {
  if (stickyError_)
    return seenSticky(); // a sticky error is never reset, as on a GPU
  const int32_t e = lastError_;
  lastError_ = cudaSuccess;
  return e;
}

int32_t Runtime::cudaPeekAtLastError() { return stickyError_ ? stickyError_ : lastError_; }

int32_t Runtime::cudaGetDeviceCount(int32_t *count) {
  if (!count)
    return recordError(cudaErrorInvalidValue, "kern: cudaGetDeviceCount: null pointer argument");
  *count = 1;
  return seenSticky();
}

int32_t Runtime::cudaGetDevice(int32_t *dev) {
  if (!dev)
    return recordError(cudaErrorInvalidValue, "kern: cudaGetDevice: null pointer argument");
  *dev = 0;
  return seenSticky();
}

int32_t Runtime::cudaSetDevice(int32_t dev) {
  contextMade_ = true;
  if (dev != 0)
    return recordError(cudaErrorInvalidDevice, "kern: cudaSetDevice: there is no device " +
                                                   std::to_string(dev) +
                                                   " (kern models one device, device 0)");
  return seenSticky();
}

int32_t Runtime::cudaDeviceReset() {
  // A fresh context: every allocation is gone and errors, sticky ones included, are cleared.
  // Global variables stay (on a GPU the module would be loaded again).
  releaseUnifiedState();
  // CUDA's reset leaves cudaMallocAsync's allocations (and their pools) alone.
  std::set<uint64_t> keep = globalDeviceBases_;
  for (const auto &[base, a] : poolAllocations_)
    keep.insert(base);
  device_.releaseAllExcept(keep);
  lastError_ = cudaSuccess;
  stickyError_ = cudaSuccess;
  limits_.clear();
  return cudaSuccess;
}

} // namespace kern::runtime
