// Pitched 2D memory (cudaMallocPitch, cudaMemcpy2D, cudaMemset2D) and the occupancy helper
// cudaOccupancyMaxPotentialBlockSize.
#include "runtime/errors.h"
#include "runtime/runtime.h"

#include <algorithm>
#include <cstring>

namespace kern::runtime {

namespace {

/// cudaMallocPitch's row alignment: the device's textureAlignment (cudaDeviceProp), 512 bytes
/// on every device since cc2.0 and 256 on cc1.x, which is what cudaMallocPitch is seen to pad
/// rows to on real GPUs.
uint64_t pitchAlignment(const DeviceProfile &p) { return p.ccMajor >= 2 ? 512 : 256; }

/// cudaDeviceProp::memPitch: the largest pitch a copy accepts.
constexpr uint64_t kMaxPitch = INT32_MAX;

const char *const kKindNames[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice",
                                  "cudaMemcpyDeviceToHost", "cudaMemcpyDeviceToDevice",
                                  "cudaMemcpyDefault"};

} // namespace

int32_t Runtime::cudaMallocPitch(void **p, uint64_t *pitch, uint64_t width, uint64_t height) {
  contextMade_ = true;
  if (stickyError_)
    return seenSticky();
  const std::string fn = "kern: cudaMallocPitch: ";
  if (!p || !pitch || device_.contains(addressOf(p)))
    return recordError(cudaErrorInvalidValue, fn + "null or invalid pointer argument");
  if (width > kMaxPitch)
    return recordError(cudaErrorInvalidValue, fn + "a row of " + byteCount(width) +
                                                  " is wider than the largest pitch (" +
                                                  std::to_string(kMaxPitch) + " bytes)");
  const uint64_t align = pitchAlignment(options_.device);
  const uint64_t rowPitch = (width + align - 1) / align * align;
  if (height && rowPitch > UINT64_MAX / height)
    return recordError(cudaErrorMemoryAllocation, fn + "the size overflows");
  void *q = nullptr;
  if (int32_t e = cudaMalloc(&q, rowPitch * height))
    return e;
  *p = q;
  *pitch = rowPitch;
  return cudaSuccess;
}

int32_t Runtime::cudaMemcpy2D(void *dst, uint64_t dpitch, const void *src, uint64_t spitch,
                              uint64_t width, uint64_t height, int32_t kind, const char *api) {
  if (stickyError_)
    return seenSticky();
  const std::string fn = std::string("kern: ") + api + ": ";
  if (kind < 0 || kind > 4)
    return recordError(cudaErrorInvalidMemcpyDirection,
                       fn + std::to_string(kind) + " is not a cudaMemcpyKind");
  if (dpitch > kMaxPitch || spitch > kMaxPitch)
    return recordError(cudaErrorInvalidPitchValue,
                       fn + "a pitch above " + std::to_string(kMaxPitch) + " bytes");
  if (width > dpitch || width > spitch)
    return recordError(cudaErrorInvalidPitchValue,
                       fn + "the width (" + byteCount(width) + ") is larger than the " +
                           (width > dpitch ? "destination pitch (" + byteCount(dpitch) + ")"
                                           : "source pitch (" + byteCount(spitch) + ")"));
  if (width == 0 || height == 0)
    return cudaSuccess;
  const uint64_t d = addressOf(dst), s = addressOf(src);
  bool dstDevice = kind == 1 || kind == 3, srcDevice = kind == 2 || kind == 3;
  if (kind == 4) {
    dstDevice = device_.contains(d);
    srcDevice = device_.contains(s);
  }
  // Every row lies in the extent [p, p + pitch * (height - 1) + width).
  const uint64_t dExtent = dpitch * (height - 1) + width, sExtent = spitch * (height - 1) + width;
  const std::string kindName = kKindNames[kind];
  std::string message;
  auto checkHost = [&](const char *what, uint64_t addr, uint64_t n) {
    const std::string head = "kern: " + kindName + ": the " + what + " ";
    if (addr < kNullPage)
      message = head + "is a null pointer";
    else if (device_.contains(addr))
      message = head + describeDevicePointer(addr) + " is a device pointer";
    else if (const Allocation *a = host_.find(addr); a && n > a->end() - addr)
      message = head + "rows " + hexRange(addr, n) + " run " + byteCount(addr + n - a->end()) +
                " past the end of a " + std::to_string(a->size) +
                "-byte block allocated by malloc at " + hexAddress(a->base);
    else
      return true;
    return false;
  };
  const bool ok =
      (dstDevice ? checkDeviceRange(kindName.c_str(), "destination", d, dExtent, message)
                 : checkHost("destination", d, dExtent)) &&
      (srcDevice ? checkDeviceRange(kindName.c_str(), "source", s, sExtent, message)
                 : checkHost("source", s, sExtent));
  if (!ok)
    return recordError(cudaErrorInvalidValue, std::move(message));
  HostAlias *dstAlias = aliases_.empty() ? nullptr : findAliasByDevice(d);
  HostAlias *srcAlias = aliases_.empty() ? nullptr : findAliasByDevice(s);
  if (srcAlias)
    syncAlias(*srcAlias, true);
  if (dstAlias)
    syncAlias(*dstAlias, true);
  for (uint64_t r = 0; r < height; ++r) {
    std::memmove(reinterpret_cast<void *>(d + r * dpitch),
                 reinterpret_cast<const void *>(s + r * spitch), width);
    if (checker_ && dstDevice) {
      if (srcDevice)
        checker_->init().copy(d + r * dpitch, s + r * spitch, width);
      else
        checker_->init().mark(d + r * dpitch, width);
    }
  }
  if (dstAlias)
    syncAlias(*dstAlias, false);
  // One transfer of the bytes the rows hold (the padding between rows does not cross the bus).
  if (dstDevice != srcDevice)
    recordTransfer(api,
                   dstDevice ? TransferDirection::HostToDevice : TransferDirection::DeviceToHost,
                   width * height, dstDevice ? s : d);
  return cudaSuccess;
}

int32_t Runtime::cudaMemcpy2DAsync(void *dst, uint64_t dpitch, const void *src, uint64_t spitch,
                                   uint64_t width, uint64_t height, int32_t kind, void *stream) {
  if (stickyError_)
    return seenSticky();
  if (int32_t e = checkStream("cudaMemcpy2DAsync", stream))
    return e;
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind, "cudaMemcpy2DAsync");
}

int32_t Runtime::cudaMemset2D(void *p, uint64_t pitch, int32_t value, uint64_t width,
                              uint64_t height) {
  if (stickyError_)
    return seenSticky();
  if (width > pitch)
    return recordError(cudaErrorInvalidValue, "kern: cudaMemset2D: the width (" + byteCount(width) +
                                                  ") is larger than the pitch (" +
                                                  byteCount(pitch) + ")");
  if (width == 0 || height == 0)
    return cudaSuccess;
  const uint64_t a = addressOf(p);
  std::string message;
  if (!checkDeviceRange("cudaMemset2D", "destination", a, pitch * (height - 1) + width, message))
    return recordError(cudaErrorInvalidValue, std::move(message));
  HostAlias *alias = aliases_.empty() ? nullptr : findAliasByDevice(a);
  if (alias)
    syncAlias(*alias, true);
  for (uint64_t r = 0; r < height; ++r) {
    std::memset(reinterpret_cast<void *>(a + r * pitch), value, width);
    if (checker_)
      checker_->init().mark(a + r * pitch, width);
  }
  if (alias)
    syncAlias(*alias, false);
  return cudaSuccess;
}

// ---- occupancy ------------------------------------------------------------------------------

// What the CUDA header's template computes: every block size from the largest allowed down, in
// steps of the warp size, keeping the one with the most resident threads per SM (the largest
// such size on a tie, since it is met first); the minimum grid fills every SM with it.
int32_t Runtime::cudaOccupancyMaxPotentialBlockSize(int32_t *minGridSize, int32_t *blockSize,
                                                    uint32_t kernel, uint64_t dynamicShared,
                                                    int32_t blockSizeLimit) {
  if (stickyError_)
    return seenSticky();
  const std::string fn = "kern: cudaOccupancyMaxPotentialBlockSize: ";
  if (!minGridSize || !blockSize)
    return recordError(cudaErrorInvalidValue, fn + "null pointer argument");
  if (kernel >= image_.kernels.size() || !image_.kernels[kernel].fn)
    return recordError(unknownKernelError(kernel), fn + unknownKernel(kernel));
  const DeviceProfile &dev = options_.device;
  const KernelInfo &k = image_.kernels[kernel];
  int limit = dev.maxThreadsPerBlock;
  if (k.launchBoundsMaxThreads > 0)
    limit = std::min(limit, k.launchBoundsMaxThreads);
  if (blockSizeLimit > 0)
    limit = std::min(limit, static_cast<int>(blockSizeLimit));
  const int granularity = dev.warpSize;
  const int occupancyLimit = dev.maxThreadsPerSM;
  int bestBlock = 0, bestBlocks = 0, bestThreads = 0;
  const int alignedLimit = (limit + granularity - 1) / granularity * granularity;
  for (int aligned = alignedLimit; aligned > 0; aligned -= granularity) {
    const int tryBlock = std::min(limit, aligned);
    OccupancyInput in;
    in.threadsPerBlock = tryBlock;
    in.registersPerThread = kernelRegisters(k);
    in.sharedPerBlock = k.staticSharedBytes + dynamicShared;
    in.sharedOptIn = false;
    const int blocks = computeOccupancy(dev, in).blocksPerSM;
    if (blocks * tryBlock > bestThreads) {
      bestThreads = blocks * tryBlock;
      bestBlock = tryBlock;
      bestBlocks = blocks;
    }
    if (bestThreads == occupancyLimit)
      break;
  }
  *minGridSize = bestBlocks * dev.smCount;
  *blockSize = bestBlock;
  return cudaSuccess;
}

} // namespace kern::runtime
