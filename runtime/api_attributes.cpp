// The runtime API's device attributes (cudaDeviceGetAttribute), limits (cudaDeviceSetLimit),
// the L2 access policy of streams (cudaStreamSetAttribute) and peer access, which kern's one
// GPU never has.
#include "runtime/errors.h"
#include "runtime/runtime.h"

#include <algorithm>

namespace kern::runtime {

namespace {

int32_t clampInt(uint64_t v) { return v > INT32_MAX ? INT32_MAX : static_cast<int32_t>(v); }

/// cudaDeviceAttr -> its value on the device of `p` and kern's model; false for an attribute
/// kern does not model (textures and surfaces, NUMA, interop, RDMA...).
bool deviceAttribute(const KernDeviceProp &p, int32_t attr, int32_t &v) {
  switch (attr) { // cudaDeviceAttr's numbering, from the CUDA headers
  case 1:
    v = p.maxThreadsPerBlock;
    return true;
  case 2:
  case 3:
  case 4:
    v = p.maxThreadsDim[attr - 2];
    return true;
  case 5:
  case 6:
  case 7:
    v = p.maxGridSize[attr - 5];
    return true;
  case 8:
    v = clampInt(p.sharedMemPerBlock);
    return true;
  case 9:
    v = clampInt(p.totalConstMem);
    return true;
  case 10:
    v = p.warpSize;
    return true;
  case 11:
    v = clampInt(p.memPitch);
    return true;
  case 12:
    v = p.regsPerBlock;
    return true;
  case 13:
    v = p.clockRate;
    return true;
  case 14:
    v = clampInt(p.textureAlignment);
    return true;
  case 15:
    v = p.deviceOverlap;
    return true;
  case 16:
    v = p.multiProcessorCount;
    return true;
  case 17:
    v = p.kernelExecTimeoutEnabled;
    return true;
  case 18:
    v = p.integrated;
    return true;
  case 19:
    v = p.canMapHostMemory;
    return true;
  case 20:
    v = p.computeMode;
    return true;
  case 31:
    v = p.concurrentKernels;
    return true;
  case 32:
    v = p.ECCEnabled;
    return true;
  case 33:
    v = p.pciBusID;
    return true;
  case 34:
    v = p.pciDeviceID;
    return true;
  case 35:
    v = 0;
    return true; // TccDriver: a Windows driver model
  case 36:
    v = p.memoryClockRate;
    return true;
  case 37:
    v = p.memoryBusWidth;
    return true;
  case 38:
    v = p.l2CacheSize;
    return true;
  case 39:
    v = p.maxThreadsPerMultiProcessor;
    return true;
  case 40:
    v = p.asyncEngineCount;
    return true;
  case 41:
    v = p.unifiedAddressing;
    return true;
  case 50:
    v = 0;
    return true; // PciDomainId
  case 75:
    v = p.major;
    return true;
  case 76:
    v = p.minor;
    return true;
  case 78:
    v = 0;
    return true; // StreamPrioritiesSupported: kern's streams have none
  case 81:
    v = clampInt(p.sharedMemPerMultiprocessor);
    return true;
  case 82:
    v = p.regsPerMultiprocessor;
    return true;
  case 83:
    v = p.managedMemory;
    return true;
  case 84:
    v = p.isMultiGpuBoard;
    return true;
  case 85:
    v = 0;
    return true; // MultiGpuBoardGroupID
  case 88:
    v = p.pageableMemoryAccess;
    return true;
  case 89:
    v = p.concurrentManagedAccess;
    return true;
  case 95:
    v = p.major >= 6;
    return true; // CooperativeLaunch: cudaLaunchCooperativeKernel, from Pascal on
  case 97:
    v = clampInt(p.sharedMemPerBlockOptin);
    return true;
  case 99:
    v = 1;
    return true; // HostRegisterSupported: cudaHostRegister works
  case 100:      // PageableMemoryAccessUsesHostPageTables
  case 101:      // DirectManagedMemAccessFromHost
    v = 0;
    return true;
  case 102:
    v = p.major >= 6;
    return true; // VirtualMemoryManagementSupported: <cuda.h>'s cuMemCreate/cuMemMap
  case 106:
    v = p.maxBlocksPerMultiProcessor;
    return true;
  case 108:
    v = p.persistingL2CacheMaxSize;
    return true;
  case 109:
    v = p.accessPolicyMaxWindowSize;
    return true;
  case 115:
    v = p.major >= 6;
    return true; // MemoryPoolsSupported: cudaMallocAsync, from Pascal on
  case 120:
    v = 0;
    return true; // ClusterLaunch: kern has no thread block clusters
  case 125:
    v = 0;
    return true; // IpcEventSupport: kern runs one process
  case 133:
    v = 0;
    return true; // MpsEnabled
  default:
    return false;
  }
}

bool validLimit(int32_t limit) {
  return limit == 0 || limit == 1 || limit == 2 || limit == 6; // Stack, Printf, Heap, L2
}

/// What cudaDeviceGetLimit reports before any cudaDeviceSetLimit (CUDA's defaults).
uint64_t defaultLimit(int32_t limit) {
  switch (limit) {
  case 0:
    return 1024; // cudaLimitStackSize: bytes per thread
  case 1:
    return 1 << 20; // cudaLimitPrintfFifoSize
  case 2:
    return 8u << 20; // cudaLimitMallocHeapSize
  default:
    return 0; // cudaLimitPersistingL2CacheSize
  }
}

} // namespace

int32_t Runtime::cudaDeviceGetAttribute(int32_t *value, int32_t attr, int32_t device) {
  if (!value)
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaDeviceGetAttribute: null pointer argument");
  if (device != 0)
    return recordError(cudaErrorInvalidDevice, "kern: cudaDeviceGetAttribute: device " +
                                                   std::to_string(device) +
                                                   " does not exist (there is one GPU, 0)");
  KernDeviceProp p;
  if (int32_t e = cudaGetDeviceProperties(&p, 0))
    return e;
  if (!deviceAttribute(p, attr, *value))
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaDeviceGetAttribute: attribute " + std::to_string(attr) +
                           " is not one kern models (docs/runtime-api.md lists those it does)");
  return seenSticky();
}

// ---- limits ---------------------------------------------------------------------------------

int32_t Runtime::cudaDeviceSetLimit(int32_t limit, uint64_t value) {
  if (stickyError_)
    return seenSticky();
  if (limit == 3 || limit == 4 || limit == 5)
    return recordError(cudaErrorUnsupportedLimit,
                       "kern: cudaDeviceSetLimit: limit " + std::to_string(limit) +
                           (limit == 5 ? " (cudaLimitMaxL2FetchGranularity) is not modelled"
                                       : " belongs to dynamic parallelism, which kern does "
                                         "not support"));
  if (!validLimit(limit))
    return recordError(cudaErrorInvalidValue, "kern: cudaDeviceSetLimit: " + std::to_string(limit) +
                                                  " is not a cudaLimit");
  if (limit == 6) { // cudaLimitPersistingL2CacheSize: cc8.0 on, at most the device's maximum
    KernDeviceProp p;
    if (int32_t e = cudaGetDeviceProperties(&p, 0))
      return e;
    if (p.persistingL2CacheMaxSize == 0)
      return recordError(cudaErrorUnsupportedLimit,
                         "kern: cudaDeviceSetLimit: cudaLimitPersistingL2CacheSize needs "
                         "compute capability 8.0; " +
                             options_.device.name + " has " + std::to_string(p.major) + "." +
                             std::to_string(p.minor));
    value = std::min<uint64_t>(value, static_cast<uint64_t>(p.persistingL2CacheMaxSize));
  }
  if (limit == 2) // the device heap is at least 4 MiB: a smaller size reads back as 4 MiB (H100)
    value = std::max<uint64_t>(value, 4u << 20);
  limits_[limit] = value;
  return cudaSuccess;
}

int32_t Runtime::cudaDeviceGetLimit(uint64_t *value, int32_t limit) {
  if (stickyError_)
    return seenSticky();
  if (!value)
    return recordError(cudaErrorInvalidValue, "kern: cudaDeviceGetLimit: null pointer argument");
  if (limit == 3 || limit == 4 || limit == 5)
    return recordError(cudaErrorUnsupportedLimit, "kern: cudaDeviceGetLimit: limit " +
                                                      std::to_string(limit) + " is not modelled");
  if (!validLimit(limit))
    return recordError(cudaErrorInvalidValue, "kern: cudaDeviceGetLimit: " + std::to_string(limit) +
                                                  " is not a cudaLimit");
  auto it = limits_.find(limit);
  *value = it == limits_.end() ? defaultLimit(limit) : it->second;
  return cudaSuccess;
}

// ---- stream attributes ----------------------------------------------------------------------

int32_t Runtime::cudaStreamSetAttribute(void *stream, int32_t attr,
                                        const KernStreamAttrValue *value) {
  const char *fn = "cudaStreamSetAttribute";
  if (stickyError_)
    return seenSticky();
  if (int32_t e = checkStream(fn, stream))
    return e;
  if (!value)
    return recordError(cudaErrorInvalidValue, "kern: cudaStreamSetAttribute: null value");
  KernStreamAttrValue &kept = streamAttrs_[stream];
  if (attr == 1) { // cudaStreamAttributeAccessPolicyWindow
    const KernAccessPolicyWindow &w = value->accessPolicyWindow;
    KernDeviceProp p;
    if (int32_t e = cudaGetDeviceProperties(&p, 0))
      return e;
    std::string bad;
    if (!(w.hitRatio >= 0.0f && w.hitRatio <= 1.0f))
      bad = "hitRatio " + std::to_string(w.hitRatio) + " is not within [0, 1]";
    else if (w.hitProp < 0 || w.hitProp > 2)
      bad = "hitProp " + std::to_string(w.hitProp) + " is not a cudaAccessProperty";
    else if (w.missProp != 0 && w.missProp != 1)
      bad = "missProp must be cudaAccessPropertyNormal or cudaAccessPropertyStreaming";
    else if (w.num_bytes > static_cast<uint64_t>(p.accessPolicyMaxWindowSize))
      bad = "num_bytes " + std::to_string(w.num_bytes) + " exceeds the device's " +
            std::to_string(p.accessPolicyMaxWindowSize) + "-byte accessPolicyMaxWindowSize";
    if (!bad.empty())
      return recordError(cudaErrorInvalidValue, std::string("kern: ") + fn + ": " + bad);
    kept.accessPolicyWindow = w;
    return cudaSuccess;
  }
  if (attr == 3) { // cudaStreamAttributeSynchronizationPolicy
    if (value->syncPolicy < 1 || value->syncPolicy > 4)
      return recordError(cudaErrorInvalidValue, std::string("kern: ") + fn + ": syncPolicy " +
                                                    std::to_string(value->syncPolicy) +
                                                    " is not a cudaSynchronizationPolicy");
    kept.syncPolicy = value->syncPolicy;
    return cudaSuccess;
  }
  return recordError(cudaErrorInvalidValue,
                     std::string("kern: ") + fn + ": attribute " + std::to_string(attr) +
                         " is not one kern models (the access policy window, 1, and the "
                         "synchronization policy, 3)");
}

int32_t Runtime::cudaStreamGetAttribute(void *stream, int32_t attr, KernStreamAttrValue *value) {
  const char *fn = "cudaStreamGetAttribute";
  if (stickyError_)
    return seenSticky();
  if (int32_t e = checkStream(fn, stream))
    return e;
  if (!value)
    return recordError(cudaErrorInvalidValue, "kern: cudaStreamGetAttribute: null value");
  KernStreamAttrValue kept{}; // a stream starts with an empty window
  if (auto it = streamAttrs_.find(stream); it != streamAttrs_.end())
    kept = it->second;
  if (kept.syncPolicy == 0)
    kept.syncPolicy = 1; // cudaSyncPolicyAuto
  if (attr == 1)
    value->accessPolicyWindow = kept.accessPolicyWindow;
  else if (attr == 3)
    value->syncPolicy = kept.syncPolicy;
  else
    return recordError(cudaErrorInvalidValue, std::string("kern: ") + fn + ": attribute " +
                                                  std::to_string(attr) + " is not one kern models");
  return cudaSuccess;
}

int32_t Runtime::cudaCtxResetPersistingL2Cache() {
  // The model keeps no persisting lines: there is nothing to reset.
  return seenSticky();
}

// ---- peer access: one GPU, so no device has a peer -------------------------------------------

int32_t Runtime::cudaDeviceCanAccessPeer(int32_t *canAccess, int32_t device, int32_t peer) {
  if (!canAccess)
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaDeviceCanAccessPeer: null pointer argument");
  for (int32_t d : {device, peer})
    if (d != 0)
      return recordError(cudaErrorInvalidDevice, "kern: cudaDeviceCanAccessPeer: device " +
                                                     std::to_string(d) +
                                                     " does not exist (there is one GPU, 0)");
  *canAccess = 0; // a device is not its own peer
  return seenSticky();
}

int32_t Runtime::cudaDeviceEnablePeerAccess(int32_t peer, uint32_t flags) {
  if (stickyError_)
    return seenSticky();
  if (flags != 0)
    return recordError(cudaErrorInvalidValue, "kern: cudaDeviceEnablePeerAccess: flags must be 0");
  // As CUDA answers on a machine with one GPU (measured on an H100).
  if (peer == 0)
    return recordError(cudaErrorPeerAccessUnsupported,
                       "kern: cudaDeviceEnablePeerAccess: device 0 is the current device, which "
                       "cannot be its own peer");
  return recordError(cudaErrorInvalidDevice, "kern: cudaDeviceEnablePeerAccess: device " +
                                                 std::to_string(peer) +
                                                 " does not exist (there is one GPU, 0)");
}

int32_t Runtime::cudaDeviceDisablePeerAccess(int32_t peer) {
  if (stickyError_)
    return seenSticky();
  if (peer == 0)
    return recordError(cudaErrorPeerAccessNotEnabled,
                       "kern: cudaDeviceDisablePeerAccess: peer access to device 0 was never "
                       "enabled (it is the current device)");
  return recordError(cudaErrorInvalidDevice, "kern: cudaDeviceDisablePeerAccess: device " +
                                                 std::to_string(peer) +
                                                 " does not exist (there is one GPU, 0)");
}

int32_t Runtime::cudaMemcpyPeer(void *dst, int32_t dstDevice, const void *src, int32_t srcDevice,
                                uint64_t n, void *stream, const char *function) {
  if (stickyError_)
    return seenSticky();
  for (int32_t d : {dstDevice, srcDevice})
    if (d != 0)
      return recordError(cudaErrorInvalidDevice, std::string("kern: ") + function + ": device " +
                                                     std::to_string(d) +
                                                     " does not exist (there is one GPU, 0)");
  if (int32_t e = checkStream(function, stream))
    return e;
  // Both ends on device 0: a copy within the device (on `stream` for the Async form).
  return memcpyImpl(function, dst, src, n, 3 /* cudaMemcpyDeviceToDevice */, stream,
                    std::string(function) == "cudaMemcpyPeerAsync");
}

} // namespace kern::runtime
