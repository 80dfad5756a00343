// The runtime API about the device itself: cudaGetDeviceProperties from the profile, the
// __device__/__constant__ symbol functions, kernel attributes and the occupancy API, asserts,
// and the profiler's range (cuda_profiler_api.h).
#include "runtime/errors.h"
#include "runtime/runtime.h"

#include <algorithm>
#include <cstring>

namespace kern::runtime {

namespace {

/// What cudaDeviceProp reports that the profiles do not hold, for the built-in GPUs (deviceQuery
/// output of each board; L2 sizes from the architecture whitepapers). A user profile takes the
/// row of the built-in profile with the same compute capability major, else the last row.
struct BoardFacts {
  const char *profile;
  int l2CacheBytes;
  int asyncEngineCount; ///< copy engines that can overlap a kernel
  int eccEnabled;
};
constexpr BoardFacts kBoards[] = {
    {"g80", 0, 0, 0},            // no L2 for global memory; cc1.0 cannot overlap copies
    {"gt200", 0, 1, 0},          // one copy engine
    {"fermi", 768 * 1024, 2, 1}, // Tesla C2050: 768 KB L2, two copy engines, ECC on
    {"v100", 6 << 20, 7, 1},     // 6 MB L2
    {"a100", 40 << 20, 3, 1},    // 40 MB L2
    {"h100", 50 << 20, 3, 1},    // 50 MB L2
};

const BoardFacts &boardFacts(const DeviceProfile &p) {
  for (const BoardFacts &b : kBoards)
    if (p.name == b.profile)
      return b;
  for (const BoardFacts &b : kBoards)
    if (const DeviceProfile *q = findProfile(b.profile); q && q->ccMajor == p.ccMajor)
      return b;
  return kBoards[std::size(kBoards) - 1];
}

int32_t clampInt(uint64_t v) { return v > INT32_MAX ? INT32_MAX : static_cast<int32_t>(v); }

} // namespace

// ---- the device -----------------------------------------------------------------------------

int32_t Runtime::cudaGetDeviceProperties(KernDeviceProp *prop, int32_t device) {
  if (!prop)
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaGetDeviceProperties: null pointer argument");
  if (device != 0)
    return recordError(cudaErrorInvalidDevice, "kern: cudaGetDeviceProperties: there is no "
                                               "device " +
                                                   std::to_string(device) +
                                                   " (kern models one device, device 0)");
  const DeviceProfile &p = options_.device;
  const BoardFacts &facts = boardFacts(p);
  const bool cc11 = p.ccMajor > 1 || p.ccMinor >= 1, cc20 = p.ccMajor >= 2, cc30 = p.ccMajor >= 3;
  KernDeviceProp &d = *prop;
  std::memset(&d, 0, sizeof d);
  // "(kern model)": a program that prints the name shows that it ran on the model.
  std::snprintf(d.name, sizeof d.name, "%s (kern model)", p.marketingName.c_str());
  d.totalGlobalMem = device_.deviceHi() - device_.lo();
  d.sharedMemPerBlock = p.sharedPerBlockDefault;
  d.regsPerBlock = p.registersPerBlock;
  d.warpSize = p.warpSize;
  d.memPitch = INT32_MAX; // what every CUDA device reports
  d.maxThreadsPerBlock = p.maxThreadsPerBlock;
  d.maxThreadsDim[0] = p.maxBlockX;
  d.maxThreadsDim[1] = p.maxBlockY;
  d.maxThreadsDim[2] = p.maxBlockZ;
  d.maxGridSize[0] = p.maxGridX;
  d.maxGridSize[1] = p.maxGridY;
  d.maxGridSize[2] = p.maxGridZ;
  d.clockRate = p.clockRateKHz;
  d.totalConstMem = p.constantMemoryBytes;
  d.major = p.ccMajor;
  d.minor = p.ccMinor;
  d.textureAlignment = 512;
  d.deviceOverlap = cc11 ? 1 : 0; // copy/kernel overlap arrived with cc1.1
  d.multiProcessorCount = p.smCount;
  d.kernelExecTimeoutEnabled = options_.timeoutSeconds > 0 ? 1 : 0;
  d.integrated = 0;
  d.canMapHostMemory = cc11 ? 1 : 0;
  d.computeMode = 0; // cudaComputeModeDefault
  d.concurrentKernels = cc20 ? 1 : 0;
  d.ECCEnabled = facts.eccEnabled;
  d.pciBusID = 0;
  d.pciDeviceID = 0;
  d.pciDomainID = 0;
  d.asyncEngineCount = facts.asyncEngineCount;
  d.unifiedAddressing = cc20 ? 1 : 0;
  d.memoryClockRate = p.memoryClockKHz;
  d.memoryBusWidth = p.memoryBusWidthBits;
  d.l2CacheSize = facts.l2CacheBytes;
  d.maxThreadsPerMultiProcessor = p.maxThreadsPerSM;
  d.sharedMemPerMultiprocessor = p.sharedPerSM;
  d.regsPerMultiprocessor = p.registersPerSM;
  d.sharedMemPerBlockOptin = p.sharedPerBlockOptIn;
  d.maxBlocksPerMultiProcessor = p.maxBlocksPerSM;
  d.managedMemory = cc30 ? 1 : 0;
  d.isMultiGpuBoard = 0;
  // L2 persistence (cc8.0 on): three quarters of L2 may persist and a window may span
  // 134213632 bytes, as A100 and H100 report.
  const bool cc80 = p.ccMajor >= 8;
  d.persistingL2CacheMaxSize = cc80 ? facts.l2CacheBytes / 4 * 3 : 0;
  d.accessPolicyMaxWindowSize = cc80 ? 134213632 : 0;
  // Kernels reach host memory only when it is pinned, mapped or managed; managed memory may be
  // touched by the host while kernels run from cc6.0 (docs/runtime-api.md).
  d.pageableMemoryAccess = 0;
  d.concurrentManagedAccess = p.ccMajor >= 6 ? 1 : 0;
  return seenSticky();
}

// ---- symbols --------------------------------------------------------------------------------

const backend::GlobalImage *Runtime::findSymbol(uint64_t addr) const {
  auto it = symbols_.find(addr);
  return it == symbols_.end() ? nullptr : &image_.globals[it->second];
}

int32_t Runtime::checkSymbol(const char *function, uint64_t addr, uint64_t n, uint64_t offset,
                             const backend::GlobalImage *&var) {
  var = findSymbol(addr);
  if (!var) {
    std::string what = hexAddress(addr) + " is not a __device__ or __constant__ variable";
    if (const Allocation *a = device_.find(addr))
      what += " (it is inside a " + std::to_string(a->size) + "-byte allocation at " +
              hexAddress(a->base) + ")";
    return recordError(cudaErrorInvalidSymbol, std::string("kern: ") + function + ": " + what);
  }
  if (offset > var->size || n > var->size - offset)
    // CUDA answers a range outside the symbol with cudaErrorInvalidValue.
    return recordError(cudaErrorInvalidValue,
                       std::string("kern: ") + function + ": " + std::to_string(n) +
                           " bytes at offset " + std::to_string(offset) + " run past the end of '" +
                           var->name + "' (" + std::to_string(var->size) + " bytes)");
  return cudaSuccess;
}

int32_t Runtime::cudaMemcpyToSymbol(void *symbol, const void *src, uint64_t n, uint64_t offset,
                                    int32_t kind) {
  if (stickyError_)
    return seenSticky();
  const backend::GlobalImage *var = nullptr;
  if (int32_t e = checkSymbol("cudaMemcpyToSymbol", addressOf(symbol), n, offset, var))
    return e;
  if (kind != 1 && kind != 3 && kind != 4)
    return recordError(cudaErrorInvalidMemcpyDirection,
                       "kern: cudaMemcpyToSymbol: the direction must be cudaMemcpyHostToDevice, "
                       "cudaMemcpyDeviceToDevice or cudaMemcpyDefault");
  return memcpyImpl("cudaMemcpyToSymbol", static_cast<char *>(symbol) + offset, src, n,
                    kind == 4 ? 4 : kind);
}

int32_t Runtime::cudaMemcpyFromSymbol(void *dst, const void *symbol, uint64_t n, uint64_t offset,
                                      int32_t kind) {
  if (stickyError_)
    return seenSticky();
  const backend::GlobalImage *var = nullptr;
  if (int32_t e = checkSymbol("cudaMemcpyFromSymbol", addressOf(symbol), n, offset, var))
    return e;
  if (kind != 2 && kind != 3 && kind != 4)
    return recordError(cudaErrorInvalidMemcpyDirection,
                       "kern: cudaMemcpyFromSymbol: the direction must be "
                       "cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice or cudaMemcpyDefault");
  return memcpyImpl("cudaMemcpyFromSymbol", dst, static_cast<const char *>(symbol) + offset, n,
                    kind);
}

int32_t Runtime::cudaGetSymbolAddress(void **p, void *symbol) {
  if (stickyError_)
    return seenSticky();
  if (!p)
    return recordError(cudaErrorInvalidValue, "kern: cudaGetSymbolAddress: null pointer argument");
  const backend::GlobalImage *var = nullptr;
  if (int32_t e = checkSymbol("cudaGetSymbolAddress", addressOf(symbol), 0, 0, var))
    return e;
  *p = symbol;
  return cudaSuccess;
}

int32_t Runtime::cudaGetSymbolSize(uint64_t *size, void *symbol) {
  if (stickyError_)
    return seenSticky();
  if (!size)
    return recordError(cudaErrorInvalidValue, "kern: cudaGetSymbolSize: null pointer argument");
  const backend::GlobalImage *var = nullptr;
  if (int32_t e = checkSymbol("cudaGetSymbolSize", addressOf(symbol), 0, 0, var))
    return e;
  *size = var->size;
  return cudaSuccess;
}

// ---- kernels --------------------------------------------------------------------------------

int32_t Runtime::cudaVersion(const char *function, int32_t *version) {
  if (!version)
    return recordError(cudaErrorInvalidValue,
                       std::string("kern: ") + function + ": null pointer argument");
  *version = 13000; // CUDA 13.0, as CUDART_VERSION says
  return cudaSuccess;
}

int32_t Runtime::cudaSetDeviceFlags(uint32_t flags) {
  // One scheduling policy (auto, spin, yield, blocking sync), plus map-host and the local
  // memory resize: every host thread waits the same way here, so the flags are only kept.
  const uint32_t schedule = flags & 7;
  if (flags > 31 || (schedule != 0 && schedule != 1 && schedule != 2 && schedule != 4))
    return recordError(cudaErrorInvalidValue, "kern: cudaSetDeviceFlags: flags " +
                                                  std::to_string(flags) + " are not valid");
  deviceFlags_ = flags;
  return seenSticky();
}

int32_t Runtime::cudaGetDeviceFlags(uint32_t *flags) {
  if (!flags)
    return recordError(cudaErrorInvalidValue, "kern: cudaGetDeviceFlags: null pointer argument");
  // CUDA reports cudaDeviceMapHost as always set (every device since Fermi maps host memory).
  *flags = deviceFlags_ | 8;
  return seenSticky();
}

int32_t Runtime::cudaCacheConfig(const char *function, int32_t config) {
  if (config < 0 || config > 3) // cudaFuncCachePreferNone, Shared, L1, Equal
    return recordError(cudaErrorInvalidValue, std::string("kern: ") + function + ": " +
                                                  std::to_string(config) +
                                                  " is not a cudaFuncCache value");
  return seenSticky();
}

int32_t Runtime::unknownKernelError(uint32_t kernel) {
  // A pointer that names no function of the program: an H100 (CUDA 13) answers
  // cudaErrorInvalidResourceHandle, as the driver finds no function for it.
  return kernel == 0xffffffffu ? cudaErrorInvalidResourceHandle : cudaErrorInvalidDeviceFunction;
}

std::string Runtime::unknownKernel(uint32_t kernel) {
  if (kernel == 0xffffffffu)
    return "the pointer given for the kernel names no kernel";
  return "kernel number " + std::to_string(kernel) + " does not exist";
}

int32_t Runtime::cudaFuncSetCacheConfig(uint32_t kernel, int32_t config) {
  if (kernel >= image_.kernels.size() || !image_.kernels[kernel].fn)
    return recordError(unknownKernelError(kernel),
                       "kern: cudaFuncSetCacheConfig: " + unknownKernel(kernel));
  return cudaCacheConfig("cudaFuncSetCacheConfig", config);
}

int32_t Runtime::cudaFuncGetAttributes(KernFuncAttributes *attr, uint32_t kernel) {
  if (stickyError_)
    return seenSticky();
  if (!attr)
    return recordError(cudaErrorInvalidValue, "kern: cudaFuncGetAttributes: null pointer argument");
  if (kernel >= image_.kernels.size() || !image_.kernels[kernel].fn)
    return recordError(unknownKernelError(kernel),
                       "kern: cudaFuncGetAttributes: " + unknownKernel(kernel));
  const DeviceProfile &p = options_.device;
  const KernelInfo &k = image_.kernels[kernel];
  const int regs = kernelRegisters(k);
  std::memset(attr, 0, sizeof *attr);
  attr->sharedSizeBytes = k.staticSharedBytes;
  uint64_t constBytes = 0;
  for (const backend::GlobalImage &g : image_.globals)
    if (g.space == backend::GlobalSpace::Constant)
      constBytes += g.size;
  attr->constSizeBytes = constBytes;
  attr->localSizeBytes = 0;
  // The largest block the kernel can be launched with: the device's limit, lowered by
  // __launch_bounds__ and by what the registers allow (CUDA lowers it the same way).
  int maxThreads = p.maxThreadsPerBlock;
  if (k.launchBoundsMaxThreads > 0)
    maxThreads = std::min(maxThreads, k.launchBoundsMaxThreads);
  while (maxThreads > 0 &&
         computeOccupancy(p, {maxThreads, regs, k.staticSharedBytes, false}).blocksPerSM == 0)
    maxThreads -= maxThreads % p.warpSize ? maxThreads % p.warpSize : p.warpSize;
  attr->maxThreadsPerBlock = maxThreads;
  attr->numRegs = regs;
  attr->ptxVersion = p.ccMajor * 10 + p.ccMinor;
  attr->binaryVersion = p.ccMajor * 10 + p.ccMinor;
  attr->cacheModeCA = 0;
  attr->maxDynamicSharedSizeBytes =
      clampInt(p.sharedPerBlockDefault - std::min(p.sharedPerBlockDefault, k.staticSharedBytes));
  attr->preferredShmemCarveout = -1; // cudaSharedmemCarveoutDefault
  return cudaSuccess;
}

int32_t Runtime::cudaOccupancyMaxActiveBlocksPerMultiprocessor(int32_t *n, uint32_t kernel,
                                                               int32_t blockSize,
                                                               uint64_t dynamicShared) {
  if (stickyError_)
    return seenSticky();
  const char *fn = "kern: cudaOccupancyMaxActiveBlocksPerMultiprocessor: ";
  if (!n)
    return recordError(cudaErrorInvalidValue, std::string(fn) + "null pointer argument");
  if (kernel >= image_.kernels.size() || !image_.kernels[kernel].fn)
    return recordError(unknownKernelError(kernel), std::string(fn) + unknownKernel(kernel));
  if (blockSize <= 0)
    return recordError(cudaErrorInvalidValue, std::string(fn) + "block size " +
                                                  std::to_string(blockSize) + " is not positive");
  const KernelInfo &k = image_.kernels[kernel];
  OccupancyInput in;
  in.threadsPerBlock = blockSize;
  in.registersPerThread = kernelRegisters(k);
  in.sharedPerBlock = k.staticSharedBytes + dynamicShared;
  in.sharedOptIn = false;
  // A configuration that cannot launch has zero active blocks: the calculator's answer, not an
  // error.
  *n = computeOccupancy(options_.device, in).blocksPerSM;
  return cudaSuccess;
}

// ---- asserts --------------------------------------------------------------------------------

void Runtime::hostAssert(uint32_t site, const char *message) {
  const std::string loc = location(site);
  faulted_ = true;
  lastErrorMessage_ = (loc.empty() ? "kern: error: " : loc + ": error: ") +
                      "assertion failed: " + (message ? message : "") + " in host code";
  options_.err(lastErrorMessage_ + "\n");
}

// ---- the profiler's range (cuda_profiler_api.h) ---------------------------------------------

// As under Nsight Compute: the range only decides which launches are eligible for profiling
// (LaunchFilter); a run that does not count ignores it. Like the other calls, both report an
// earlier kernel fault.
int32_t Runtime::cudaProfilerStart() {
  profilerActive_ = true;
  return seenSticky();
}

int32_t Runtime::cudaProfilerStop() {
  profilerActive_ = false;
  return seenSticky();
}

} // namespace kern::runtime

// The host functions behind cudaProfilerStart/Stop; the host code generator calls
// kern_rt_<name>(ctx) for every Runtime intrinsic (ir/intrinsics.def).
extern "C" {
int32_t kern_rt_cudaProfilerStart(KernHostCtx *ctx) { return ctx->rt->cudaProfilerStart(); }
int32_t kern_rt_cudaProfilerStop(KernHostCtx *ctx) { return ctx->rt->cudaProfilerStop(); }
}
