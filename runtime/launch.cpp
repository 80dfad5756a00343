// Kernel launches: the launch filter, validation of the execution configuration, occupancy
// and register fitting, the run on the scheduler, and faults, timeouts and checked-mode
// findings mapped back to source lines.
#include "runtime/runtime.h"

#include "runtime/errors.h"

#include <algorithm>
#include <cstring>
#include <regex>

namespace kern::runtime {

bool checkLaunchFilter(const LaunchFilter &filter, std::string &error) {
  const std::string &name = filter.kernelName;
  if (name.rfind(kRegexPrefix, 0) != 0)
    return true;
  const std::string pattern = name.substr(kRegexPrefix.size());
  if (pattern.empty()) {
    error = "the kernel name filter 'regex:' has no pattern";
    return false;
  }
  try {
    std::regex re(pattern);
  } catch (const std::regex_error &e) {
    error = "the kernel name filter '" + name + "' is not a valid regular expression (" + e.what() +
            ")";
    return false;
  }
  return true;
}

Runtime::~Runtime() = default;

// ---- launches -------------------------------------------------------------------------------

int Runtime::kernelRegisters(const KernelInfo &k, std::string *source) const {
  if (options_.registersPerThread > 0) {
    if (source)
      *source = "--regs";
    return options_.registersPerThread;
  }
  if (source)
    *source = k.registersEstimated ? "estimate" : "kernel";
  return k.registers;
}

bool Runtime::selectForProfile(const KernelInfo &k, uint64_t index) {
  if (!options_.counters || !profilerActive_)
    return false;
  const LaunchFilter &f = options_.filter;
  if (kernelMatches_ && !kernelMatches_(k.name))
    return false;
  if (f.predicate && !f.predicate(k.name, index))
    return false;
  // Nsight Compute's --launch-skip and --launch-count count launches that passed the filters.
  const uint64_t passed = filterPassed_++;
  if (passed < f.launchSkip)
    return false;
  return f.launchCount == 0 || passed - f.launchSkip < f.launchCount;
}

const KernelInfo *Runtime::countingKernel(uint32_t kernel) {
  if (!image_.countingKernels)
    return &image_.kernels[kernel]; // the kernels were compiled as the run counts
  if (!countingFetched_) {
    countingFetched_ = true;
    std::vector<backend::WarpFunction> fns;
    std::string error;
    if (!image_.countingKernels(fns, error) || fns.size() != image_.kernels.size()) {
      reportHostError("internal error: the kernels with counters are not available" +
                      (error.empty() ? std::string() : ": " + error));
    } else {
      countingKernels_ = image_.kernels;
      for (size_t i = 0; i < fns.size(); ++i)
        countingKernels_[i].fn = fns[i];
    }
  }
  return kernel < countingKernels_.size() && countingKernels_[kernel].fn ? &countingKernels_[kernel]
                                                                         : nullptr;
}

namespace {
/// "256 KiB" where the bytes are whole KiB (as a programmer sizes local arrays), else "16388
/// bytes".
std::string sizeText(uint64_t n) {
  return n >= 1024 && n % 1024 == 0 ? std::to_string(n / 1024) + " KiB" : byteCount(n);
}

/// What the timing model reads of a counted launch.
TimingInput timingInput(const LaunchRecord &rec, const LaunchCounters &counters,
                        const std::vector<backend::SiteImage> &sites, uint64_t footprint) {
  const SiteCounters &c = counters.total;
  TimingInput in;
  in.blocks = uint64_t(rec.grid[0]) * rec.grid[1] * rec.grid[2];
  in.warpsPerBlock = (rec.block[0] * rec.block[1] * rec.block[2] + 31) / 32;
  in.blocksPerSM = uint32_t(rec.occupancy.blocksPerSM);
  in.warpInstructions = c.warpInstructions;
  in.fp64Instructions = c.instrFp64;
  in.xuInstructions = c.instrSpecial + c.instrConversion;
  const auto load = static_cast<size_t>(MemoryOpKind::Load),
             atomic = static_cast<size_t>(MemoryOpKind::Atomic),
             reduction = static_cast<size_t>(MemoryOpKind::Reduction);
  // A load waits its site's share (loads issued together wait once); an atomic whose result
  // is used waits whole.
  for (size_t site = 0; site < counters.sites.size(); ++site) {
    const SiteCounters &sc = counters.sites[site];
    const double share = site < sites.size() ? sites[site].waitSixteenths / 16.0 : 1.0;
    in.globalWaits +=
        double(sc.global[load].instructions) * share + double(sc.global[atomic].instructions);
    in.globalLoads += sc.global[load].instructions + sc.global[atomic].instructions;
    in.sharedWaits +=
        double(sc.shared[load].instructions) * share + double(sc.shared[atomic].instructions);
  }
  for (size_t k = 0; k < kMemoryOpKinds; ++k) {
    in.globalBytes += c.global[k].bytesMoved;
    in.sharedWavefronts += c.shared[k].steps;
  }
  in.footprintBytes = footprint;
  in.barriers = c.barriersExecuted;
  // The ADU: the barriers, every warp's EXIT, and the reads the instruction estimate gives it.
  in.aduInstructions = c.barriersExecuted + in.blocks * in.warpsPerBlock + c.aduReads;
  in.touchesMemory = c.instrMemory > 0;
  // Global atomics only (shared ones are shared wavefronts): the lanes of the atomic
  // accesses in the share that were global.
  const double globalAtomics =
      double(c.global[atomic].instructions + c.global[reduction].instructions);
  in.atomicLaneOps =
      globalAtomics > 0 && c.atomicsExecuted > 0
          ? uint64_t(double(c.atomicThreadOps) * globalAtomics / double(c.atomicsExecuted))
          : 0;
  in.atomicUnits = c.atomicUnits;
  const double returned = double(c.global[atomic].sectors),
               all = returned + double(c.global[reduction].sectors);
  in.atomicReturnShare = all > 0 ? returned / all : 0.0;
  in.atomicHotPasses = counters.atomicHotPasses;
  in.loadSectors = c.global[load].sectors + c.global[atomic].sectors;
  in.loadLines = c.global[load].lines128 + c.global[atomic].lines128;
  in.l1SampledBlocks = counters.l1SampledBlocks;
  in.l1SampledSectors = counters.l1SampledSectors;
  in.l1SampledMisses = counters.l1SampledMisses;
  in.l1SampledConcurrent = counters.l1SampledConcurrent;
  in.l2NeighbourTouches = counters.l2NeighbourTouches;
  in.l2NeighbourSampled = counters.l2NeighbourSampled;
  in.gridRowBlocks = rec.grid[0];
  in.cachedLoadSectors = c.global[load].sectors;
  const auto store = static_cast<size_t>(MemoryOpKind::Store);
  in.storeSectors = c.global[store].sectors;
  in.globalLines = c.global[load].lines128 + c.global[store].lines128;
  in.idleAccesses = c.idleAccesses;
  in.storeBytesRequested = c.global[store].bytesRequested;
  in.sharedBytesPerBlock = rec.occupancy.sharedPerBlockAllocated;
  return in;
}
} // namespace

uint64_t Runtime::launchFootprint(const uint8_t *params, uint32_t paramBytes) const {
  // Every 8-byte word of the arguments that points into a device allocation (pointers inside
  // structs passed by value too): the allocations the kernel can reach through its arguments.
  std::vector<const Allocation *> seen;
  uint64_t bytes = 0;
  for (uint32_t off = 0; off + 8 <= paramBytes; off += 8) {
    uint64_t v;
    std::memcpy(&v, params + off, 8);
    const Allocation *a = device_.find(v);
    if (a && std::find(seen.begin(), seen.end(), a) == seen.end()) {
      seen.push_back(a);
      bytes += a->size;
    }
  }
  return bytes;
}

void Runtime::launch(uint32_t kernel, const uint32_t grid[3], const uint32_t block[3],
                     uint64_t sharedBytes, void *stream, const uint8_t *params, uint32_t paramBytes,
                     uint32_t site) {
  if (stickyError_) {
    ++stickyReturns_; // the context is unusable after a fault: the launch does nothing
    return;
  }
  const DeviceProfile &dev = options_.device;
  const std::string loc = location(site);
  // A rejected launch is an error value that the program may check and survive, as on a
  // GPU, not a fault: it is reported as a warning, and faulted() stays false.
  const std::string prefix = loc.empty() ? "kern: warning: " : loc + ": warning: ";
  if (kernel >= image_.kernels.size() || !image_.kernels[kernel].fn) {
    recordError(cudaErrorInvalidDeviceFunction, prefix + "launch of kernel number " +
                                                    std::to_string(kernel) +
                                                    ", which the program does not have");
    return;
  }
  const KernelInfo &k = image_.kernels[kernel];
  const std::string head = prefix + "launch of '" + k.name + "': ";

  LaunchRecord rec;
  rec.kernel = k.name;
  rec.site = site;
  std::copy(grid, grid + 3, rec.grid);
  std::copy(block, block + 3, rec.block);
  // The dynamic region starts 16-byte aligned after the static variables (as the code reads it).
  rec.sharedBytes =
      sharedBytes ? (k.staticSharedBytes + 15) / 16 * 16 + sharedBytes : k.staticSharedBytes;
  rec.startSeconds = clock_.ready(stream);
  rec.registersPerThread = kernelRegisters(k, &rec.registersSource);
  // Every launch, failed or not, is on the timeline: a failed one is recorded with its error.
  auto fail = [&](int32_t code, const std::string &message) {
    rec.error = code;
    timeline_.push_back({TimelineEvent::Kind::Launch, launches_.size()});
    launches_.push_back(rec);
    recordError(code, head + message);
  };

  // An invalid handle is checked first: CUDA rejects it before looking at the configuration.
  if (stream && !findHandle(stream, Handle::Kind::Stream)) {
    fail(cudaErrorInvalidResourceHandle,
         "stream " + hexAddress(addressOf(stream)) +
             " is not a stream (it was not returned by cudaStreamCreate, or was destroyed)");
    return;
  }
  // A kernel that uses what the device's generation lacks has no image for it: nvcc refuses to
  // build it for that architecture, and a binary built for newer ones does not launch there.
  const int cc = dev.ccMajor * 10 + dev.ccMinor;
  if (cc < k.minComputeCapability) {
    auto ccText = [](int v) { return std::to_string(v / 10) + "." + std::to_string(v % 10); };
    fail(cudaErrorNoKernelImageForDevice,
         "the kernel uses " + k.minComputeCapabilityWhy + ", which needs compute capability " +
             ccText(k.minComputeCapability) + "; " + dev.name + " has " + ccText(cc));
    return;
  }
  // CUDA 13's runtime answers every invalid configuration (a dimension of 0 or over its limit,
  // too many threads, too much shared memory) with cudaErrorInvalidValue, as measured on an
  // H100; older runtimes said cudaErrorInvalidConfiguration (and cudaErrorLaunchOutOfResources
  // for shared memory).
  static const char *const kAxis[] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d) {
    if (grid[d] == 0 || block[d] == 0) {
      fail(cudaErrorInvalidValue,
           std::string(grid[d] == 0 ? "grid" : "block") + " dimension " + kAxis[d] + " is 0");
      return;
    }
  }
  // The total first: for <<<1, 2048>>> it is the number the programmer thinks of.
  const uint64_t threads = uint64_t(block[0]) * block[1] * block[2];
  if (threads > uint64_t(dev.maxThreadsPerBlock)) {
    fail(cudaErrorInvalidValue, std::to_string(threads) +
                                    " threads per block exceeds the limit of " +
                                    std::to_string(dev.maxThreadsPerBlock) + " on " + dev.name);
    return;
  }
  const int maxBlock[3] = {dev.maxBlockX, dev.maxBlockY, dev.maxBlockZ};
  for (int d = 0; d < 3; ++d) {
    if (block[d] > uint32_t(maxBlock[d])) {
      fail(cudaErrorInvalidValue, "block dimension " + std::string(kAxis[d]) + " of " +
                                      std::to_string(block[d]) + " exceeds the limit of " +
                                      std::to_string(maxBlock[d]) + " on " + dev.name);
      return;
    }
  }
  const int maxGrid[3] = {dev.maxGridX, dev.maxGridY, dev.maxGridZ};
  for (int d = 0; d < 3; ++d) {
    if (grid[d] > uint32_t(maxGrid[d])) {
      fail(cudaErrorInvalidValue, "grid dimension " + std::string(kAxis[d]) + " of " +
                                      std::to_string(grid[d]) + " exceeds the limit of " +
                                      std::to_string(maxGrid[d]) + " on " + dev.name);
      return;
    }
  }
  // __launch_bounds__ promises the compiler a block size; a larger block cannot run the code
  // compiled under that promise (CUDA: "too many resources requested for launch").
  if (k.launchBoundsMaxThreads > 0 && threads > uint64_t(k.launchBoundsMaxThreads)) {
    fail(cudaErrorLaunchOutOfResources,
         std::to_string(threads) + " threads per block exceeds the kernel's __launch_bounds__ of " +
             std::to_string(k.launchBoundsMaxThreads));
    return;
  }
  // A thread's local memory (docs/runtime-api.md, "Local memory and the stack"): a kernel whose
  // local variables, with those of the deepest path of calls it makes, take more than the
  // device gives a thread does not launch. Example: a `float a[65536]` (256 KiB a thread) runs
  // on an H100 (512 KiB), and on a G80 (16 KiB) is "too many resources requested for launch".
  if (k.localBytesPerThread > dev.localBytesPerThread) {
    fail(cudaErrorLaunchOutOfResources,
         "its local variables take " + sizeText(k.localBytesPerThread) +
             " per thread, more than the " + sizeText(dev.localBytesPerThread) +
             " of local memory a thread has on " + dev.name +
             " (too many resources requested for launch)");
    return;
  }
  // Only the default per-block limit: raising it takes cudaFuncSetAttribute, which kern does
  // not have, so the opt-in sizes of cc7.0+ are never available to a launch.
  const uint64_t shared = rec.sharedBytes;
  if (sharedBytes > dev.sharedPerBlockDefault || shared > dev.sharedPerBlockDefault) {
    fail(cudaErrorInvalidValue, std::to_string(shared) + " bytes of shared memory per block (" +
                                    std::to_string(k.staticSharedBytes) + " static + " +
                                    std::to_string(sharedBytes) + " dynamic) exceed the limit of " +
                                    std::to_string(dev.sharedPerBlockDefault) + " on " + dev.name);
    return;
  }
  if (paramBytes != k.paramBytes || (paramBytes && !params)) {
    fail(cudaErrorInvalidValue, "internal error: " + std::to_string(paramBytes) +
                                    " bytes of parameters passed, the kernel takes " +
                                    std::to_string(k.paramBytes));
    return;
  }
  if (paramBytes > dev.maxKernelParamBytes) {
    fail(cudaErrorInvalidValue, std::to_string(paramBytes) +
                                    " bytes of kernel parameters exceed the limit of " +
                                    std::to_string(dev.maxKernelParamBytes) + " on " + dev.name);
    return;
  }
  // Occupancy: how many blocks an SM holds. None means the registers do not fit (threads and
  // shared memory were checked above).
  OccupancyInput in;
  in.threadsPerBlock = static_cast<int>(threads);
  in.registersPerThread = rec.registersPerThread;
  in.sharedPerBlock = shared;
  in.sharedOptIn = false;
  rec.occupancy = computeOccupancy(dev, in);
  if (rec.occupancy.blocksPerSM == 0 && rec.registersSource == "estimate") {
    // An estimate is not the compiler's word: ptxas, told the block size, would spill rather
    // than produce a kernel that cannot launch. Lower the estimate until one block fits.
    for (int r = std::min(rec.registersPerThread, dev.maxRegistersPerThread); r > 0; --r) {
      in.registersPerThread = r;
      OccupancyResult o = computeOccupancy(dev, in);
      if (o.blocksPerSM > 0) {
        rec.occupancy = o;
        rec.registersPerThread = r;
        rec.registersSource = "estimate, lowered to fit";
        break;
      }
    }
  }
  if (rec.occupancy.blocksPerSM == 0) {
    fail(rec.occupancy.limitByWarps == 0 ? cudaErrorInvalidValue : cudaErrorLaunchOutOfResources,
         rec.occupancy.error + " on " + dev.name);
    return;
  }
  const uint64_t blocks = uint64_t(grid[0]) * grid[1] * grid[2];
  rec.waves = computeWaves(dev, blocks, rec.occupancy.blocksPerSM);

  // The parameters get their own aligned buffer: compiled code may load them with aligned
  // vector loads, and the pointer must never be null (see KernHostCtx::tag).
  std::vector<uint64_t> paramBuffer((paramBytes + 7) / 8 + 2, 0);
  if (paramBytes)
    std::memcpy(paramBuffer.data(), params, paramBytes);

  // Per-launch selection: a profiled launch runs the kernel with the counter hooks, any other
  // the fast one (with counters().launch(i) left empty).
  const KernelInfo *run = &k;
  rec.profiled = selectForProfile(k, launches_.size());
  if (rec.profiled) {
    // The variant with hooks may be compiled now: nothing of the host program may unwind it.
    HostSignalPause pause;
    run = countingKernel(kernel);
    if (!run) {
      rec.profiled = false;
      run = &k;
    }
  }

  LaunchConfig cfg;
  cfg.kernel = run;
  std::copy(grid, grid + 3, cfg.grid);
  std::copy(block, block + 3, cfg.block);
  cfg.sharedBytes = shared;
  cfg.params = reinterpret_cast<const uint8_t *>(paramBuffer.data());
  cfg.globalLo = device_.lo();
  cfg.globalHi = device_.hi();
  cfg.shadow = device_.shadow();
  cfg.timeoutSeconds = options_.timeoutSeconds;
  cfg.stop = options_.stop.get();
  cfg.globalAddrs = &globalAddrs_;
  {
    const uint32_t warpsPerBlock = (block[0] * block[1] * block[2] + 31) / 32;
    const uint64_t blocks = uint64_t(grid[0]) * grid[1] * grid[2];
    const ClockFigures f = clockFigures(
        dev, residentWarpsPerSM(dev, blocks, warpsPerBlock, uint32_t(rec.occupancy.blocksPerSM)),
        warpsPerBlock);
    cfg.clock16[0] = f.instruction16;
    cfg.clock16[1] = f.global16;
    cfg.clock16[2] = f.shared16;
    cfg.clock16[3] = f.barrier16;
  }
  if (image_.usesDeviceHeap) {
    if (!heap_.reserved()) {     // CUDA fixes the heap's size when the first kernel runs
      auto it = limits_.find(2); // cudaLimitMallocHeapSize
      const uint64_t bytes = it == limits_.end() ? 8ull << 20 : std::max<uint64_t>(it->second, 16);
      if (uint64_t base = device_.allocate(bytes))
        heap_.reserve(base, bytes);
    }
    cfg.heap = heap_.reserved() ? &heap_ : nullptr;
  }
  // The warps' local memory: what the kernel's frames there take on its deepest path of calls,
  // or, when a function it calls is recursive, the device's whole local memory per thread (a
  // recursion deeper than that faults at the call that does not fit).
  if (run->localRegionBytes > 0)
    cfg.localBytesPerWarp = std::max(
        run->localRegionBytes, run->localRecursive ? KERN_WARP_SIZE * dev.localBytesPerThread : 0);
  bool reserved = scheduler_.reserveLocalMemory(cfg);
  if (!reserved && cfg.localBytesPerWarp > run->localRegionBytes) {
    // Under an address-space limit (the sandbox's, ulimit -v): what the frames on the deepest
    // path take, so that a recursion faults earlier rather than the launch not running at all.
    cfg.localBytesPerWarp = run->localRegionBytes;
    reserved = scheduler_.reserveLocalMemory(cfg);
  }
  if (!reserved) {
    fail(cudaErrorLaunchOutOfResources,
         "kern could not reserve the address space of its warps' local memory (" +
             byteCount(cfg.localBytesPerWarp) + " a warp)");
    return;
  }
  if (rec.profiled)
    cfg.workerCounters = counters_.beginLaunch(dev, image_.sites.size(), scheduler_.workers());
  if (checker_)
    cfg.workerChecked = checker_->beginLaunch(scheduler_.workers());
  // Kernels run partly on this thread (worker 0): the host code's signal guard must not
  // unwind out of the middle of a launch while other workers still run it.
  LaunchResult result;
  uint64_t footprint = 0;
  {
    HostSignalPause pause;
    managedBeforeLaunch(cfg.params, paramBytes);
    footprint = rec.profiled ? launchFootprint(cfg.params, paramBytes) : 0;
    const auto launchStart = std::chrono::steady_clock::now();
    result = scheduler_.launch(cfg);
    // Host code's time limit counts the time outside kernels (hostWithinTime).
    rec.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - launchStart).count();
    launchWallSeconds_ += rec.wallSeconds;
    managedAfterLaunch();
  }
  if (rec.profiled && result.faulted) {
    // Blocks above the faulting one ran, or ran partly, as the timing of the workers had it:
    // the launch's counters would differ from run to run, so none are kept.
    counters_.dropLaunch();
    rec.profiled = false;
  } else if (rec.profiled) {
    counters_.endLaunch(launches_.size());
    ++profiledLaunches_;
  }
  if (rec.profiled) {
    // The timing model reads the launch's counters (a launch that was not counted has no
    // modelled time: docs/timing.md).
    rec.time = modelLaunchTime(
        dev, timingInput(rec, counters_.launch(launches_.size()), image_.sites, footprint));
    rec.modelledSeconds = rec.time.seconds;
  }
  // Launches do not make the host wait: the next work of other streams may overlap them.
  rec.startSeconds = clock_.run(stream, DeviceEngine::Compute, rec.modelledSeconds, false);
  rec.faulted = result.faulted;
  timeline_.push_back({TimelineEvent::Kind::Launch, launches_.size()});
  launches_.push_back(rec);
  // Kernel printf output appears at the end of the launch, the synchronisation point on a GPU.
  if (!result.output.empty())
    options_.out(result.output);
  if (checker_)
    reportChecked(checker_->endLaunch(), k, result);
  if (options_.onLaunchEnd)
    options_.onLaunchEnd(launches_.size() - 1);
  if (!result.asserts.empty()) {
    // A failed assert() is the program's own check, reported as the GPU reports it; the
    // program sees cudaErrorAssert and decides what happens (its exit code stands).
    std::string text;
    for (const FaultRecord &f : result.asserts)
      text += (text.empty() ? "" : "\n") + describeAssert(f, k);
    launches_.back().error = cudaErrorAssert;
    recordError(cudaErrorAssert, text);
  }
  if (!result.faulted)
    return;
  faulted_ = true;
  if (result.fault.kind == KERN_FAULT_INTERRUPTED) {
    // Not the kernel's fault: the device stays usable (no sticky error), and the program ends
    // (kern_rt_launch unwinds host code; runMain returns kInterruptedExitCode).
    interrupted_ = true;
    launches_.back().error = cudaErrorLaunchFailure;
    lastErrorMessage_ = describeTimeout(result, k, blocks);
    options_.err(lastErrorMessage_ + "\n");
    return;
  }
  int32_t code;
  switch (result.fault.kind) {
  case KERN_FAULT_GLOBAL_OOB:
  case KERN_FAULT_SHARED_OOB:
  case KERN_FAULT_HOST_PTR:
  case KERN_FAULT_DEVICE_PTR:
  case KERN_FAULT_NULL:
  case KERN_FAULT_CONST_OOB:
  case KERN_FAULT_LOCAL_OOB:
    code = cudaErrorIllegalAddress;
    break;
  case KERN_FAULT_MISALIGNED:
    code = cudaErrorMisalignedAddress;
    break;
  case KERN_FAULT_TIMEOUT:
    code = cudaErrorLaunchTimeout;
    break;
  case KERN_FAULT_ASSERT:
    code = cudaErrorAssert;
    break;
  default:
    code = cudaErrorLaunchFailure;
    break;
  }
  launches_.back().error = code;
  recordError(code, result.fault.kind == KERN_FAULT_TIMEOUT
                        ? describeTimeout(result, k, blocks)
                        : describeFault(result.fault, k, shared));
}

std::string Runtime::describeAssert(const FaultRecord &f, const KernelInfo &k) const {
  // CUDA's device-side message, one line per failing thread: "FILE:LINE: SIGNATURE: block:
  // [x,y,z], thread: [x,y,z] Assertion `COND` failed."
  std::string loc = location(f.site);
  if (const size_t col = loc.rfind(':');
      col != std::string::npos && loc.rfind(':', col - 1) != std::string::npos)
    loc.erase(col); // file:line, without the column
  std::string cond = f.message;
  const std::string prefix = "assertion failed: ";
  if (cond.rfind(prefix, 0) == 0)
    cond.erase(0, prefix.size());
  const std::string head = (loc.empty() ? std::string() : loc + ": ") +
                           (k.signature.empty() ? k.name : k.signature) + ": block: [" +
                           std::to_string(f.blockIdx[0]) + "," + std::to_string(f.blockIdx[1]) +
                           "," + std::to_string(f.blockIdx[2]) + "], thread: [";
  std::vector<std::array<uint32_t, 3>> threads = f.assertThreads;
  if (threads.empty())
    threads.push_back({f.thread[0], f.thread[1], f.thread[2]});
  std::string text;
  for (const auto &t : threads) {
    if (!text.empty())
      text += "\n";
    text += head + std::to_string(t[0]) + "," + std::to_string(t[1]) + "," + std::to_string(t[2]) +
            "] Assertion `" + cond + "` failed.";
  }
  return text;
}

std::string Runtime::describeTimeout(const LaunchResult &r, const KernelInfo &k,
                                     uint64_t blocks) const {
  const std::string loc = location(r.fault.site);
  const uint32_t *grid = launches_.back().grid; // this launch, recorded just before
  auto blockName = [&](uint64_t linear) {
    return "(" + std::to_string(linear % grid[0]) + "," +
           std::to_string(linear / grid[0] % grid[1]) + "," +
           std::to_string(linear / (uint64_t(grid[0]) * grid[1])) + ")";
  };
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f", options_.timeoutSeconds);
  std::string text =
      (loc.empty() ? "kern: error: " : loc + ": error: ") +
      (r.fault.kind == KERN_FAULT_INTERRUPTED ? "interrupted: kernel '" + k.name + "' was stopped: "
                                              : "kernel '" + k.name + "' stopped after " + secs +
                                                    " s (" + options_.timeoutSetting + "): ");
  const std::vector<uint64_t> &running = r.runningBlocks;
  constexpr size_t kShown = 8;
  text += running.size() == 1 ? "block " : "blocks ";
  for (size_t i = 0; i < running.size() && i < kShown; ++i)
    text += (i ? ", " : "") + blockName(running[i]);
  if (running.size() > kShown)
    text += " and " + std::to_string(running.size() - kShown) + " more";
  if (running.empty())
    text += blockName(r.fault.blockLinear);
  text += running.size() > 1 ? " were still running" : " was still running";
  const uint64_t notStarted =
      blocks - std::min<uint64_t>(blocks, r.finishedBlocks + std::max<size_t>(running.size(), 1));
  text += " (" + std::to_string(r.finishedBlocks) + " of " + std::to_string(blocks) +
          " blocks finished, " + std::to_string(notStarted) + " not started)";
  return text;
}

std::string Runtime::lineCol(uint32_t site) const {
  const std::string loc = location(site);
  const size_t col = loc.rfind(':');
  const size_t line = col == std::string::npos || col == 0 ? col : loc.rfind(':', col - 1);
  return line == std::string::npos ? loc : loc.substr(line + 1);
}

void Runtime::reportChecked(const Checker::Findings &f, const KernelInfo &k,
                            const LaunchResult &r) {
  // Blocks above a faulting block stop early or never run, depending on timing: only findings
  // at or below it are the same for every number of workers.
  const uint64_t limit = r.faulted ? r.fault.blockLinear : UINT64_MAX;
  auto triple = [](const uint32_t v[3]) {
    return std::string("(") + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," +
           std::to_string(v[2]) + ")";
  };
  auto report = [&](uint32_t site, const std::string &what) {
    const std::string loc = location(site);
    faulted_ = true;
    lastErrorMessage_ = (loc.empty() ? "kern: error: " : loc + ": error: ") + what;
    options_.err(lastErrorMessage_ + "\n");
  };
  if (const RaceRecord &race = f.race;
      race.blockLinear <= limit && race.blockLinear != UINT64_MAX) {
    static const char *const kKinds[] = {"read-after-write", "write-after-read",
                                         "write-after-write"};
    const std::string head = std::string("shared-memory data race (") +
                             kKinds[static_cast<int>(race.kind)] + ") in kernel '" + k.name +
                             "', block " + triple(race.blockIdx) + ": ";
    const std::string offset = "shared offset " + std::to_string(race.offset);
    if (race.sameInstruction) {
      report(race.secondSite, head + "lanes " + std::to_string(race.firstLane) + " and " +
                                  std::to_string(race.secondLane) + " of warp " +
                                  std::to_string(race.secondWarp) + " (threads " +
                                  triple(race.firstThread) + " and " + triple(race.secondThread) +
                                  ") store different values to " + offset + " in one instruction");
    } else {
      auto verb = [](bool write, bool atomic, bool past) {
        return std::string(atomic  ? (past ? "atomically updated" : "atomically updates")
                           : write ? (past ? "stored to" : "stores to")
                                   : (past ? "loaded" : "loads"));
      };
      const bool secondWrite = race.kind != RaceKind::ReadAfterWrite;
      const bool firstWrite = race.kind != RaceKind::WriteAfterRead;
      report(race.secondSite, head + "thread " + triple(race.secondThread) + " (warp " +
                                  std::to_string(race.secondWarp) + ") " +
                                  verb(secondWrite, race.secondAtomic, false) + " " + offset +
                                  ", which thread " + triple(race.firstThread) + " (warp " +
                                  std::to_string(race.firstWarp) + ") " +
                                  verb(firstWrite, race.firstAtomic, true) + " at " +
                                  lineCol(race.firstSite) + " with no __syncthreads() in between");
    }
  }
  if (const UninitRecord &u = f.uninit;
      u.blockLinear <= limit && u.blockLinear != UINT64_MAX && u.shared) {
    report(u.site, std::string(u.atomic ? "atomic" : "load") +
                       " of never-written shared memory at offset " + std::to_string(u.unwritten) +
                       " of the block's shared memory (no thread of the block wrote it since the "
                       "block started; shared memory starts uninitialised) in kernel '" +
                       k.name + "', block " + triple(u.blockIdx) + ", thread " + triple(u.thread));
  } else if (u.blockLinear <= limit && u.blockLinear != UINT64_MAX) {
    std::string where = "nothing wrote it since cudaMalloc";
    if (const Allocation *a = device_.find(u.unwritten))
      where = "offset " + std::to_string(u.unwritten - a->base) + " of the " +
              std::to_string(a->size) + "-byte allocation at " + hexAddress(a->base) + "; " +
              "no cudaMemcpy, cudaMemset or kernel store wrote it since cudaMalloc";
    report(u.site, std::string(u.atomic ? "atomic" : "load") +
                       " of never-written global memory at " + hexAddress(u.unwritten) + " (" +
                       where + ") in kernel '" + k.name + "', block " + triple(u.blockIdx) +
                       ", thread " + triple(u.thread));
  }
}

std::string Runtime::siteWhat(uint32_t site) const {
  if (site == 0 || site >= image_.sites.size())
    return "";
  return image_.sites[site].what;
}

std::string Runtime::describeFault(const FaultRecord &f, const KernelInfo &k,
                                   uint64_t sharedBytes) const {
  const std::string loc = location(f.site);
  std::string access = "access";
  if (f.site && f.site < image_.sites.size()) {
    switch (image_.sites[f.site].kind) {
    case backend::SiteKind::Load:
      access = "load";
      break;
    case backend::SiteKind::Store:
      access = "store";
      break;
    case backend::SiteKind::Atomic:
      access = "atomic";
      break;
    default:
      break;
    }
  }
  const std::string at = " at address " + hexAddress(f.addr);
  std::string what;
  switch (f.kind) {
  case KERN_FAULT_GLOBAL_OOB: {
    const std::string where = device_.describe(f.addr, 1);
    what = "out-of-bounds global " + access + at + (where.empty() ? "" : " (" + where + ")");
    break;
  }
  case KERN_FAULT_SHARED_OOB:
    // The scheduler turned the address into an offset from the block's shared memory: the
    // absolute address depends on the worker and means nothing to the user.
    what = "out-of-bounds shared " + access + " at offset " +
           std::to_string(static_cast<int64_t>(f.addr)) + " (the block has " +
           byteCount(sharedBytes) + " of shared memory)";
    break;
  case KERN_FAULT_HOST_PTR:
    if (f.addr < device_.lo() && device_.lo() - f.addr <= (uint64_t(1) << 40)) {
      // Just below the device arena: an index that ran before an allocation, not a host
      // pointer (the first allocations start right after the arena's start).
      what = "out-of-bounds global " + access + at + " (" + std::to_string(device_.lo() - f.addr) +
             " bytes before the start of device memory: a negative index?)";
      break;
    }
    if (f.addr >= device_.hi() && f.addr - device_.hi() < (uint64_t(1) << 44)) {
      // Beyond the end of the device's region, but nearer to it than any host memory kern
      // maps: an index far too large, not a host pointer.
      what = "out-of-bounds global " + access + at + " (" + byteCount(f.addr - device_.hi()) +
             " past the end of device memory: an index far too large?)";
      break;
    }
    what = "kernel " + access + " through host pointer " + hexAddress(f.addr) +
           " (kernels can only access device memory)";
    break;
  case KERN_FAULT_DEVICE_PTR:
    what = "device pointer fault" + at;
    break;
  case KERN_FAULT_NULL:
    what = "null pointer " + access + at;
    break;
  case KERN_FAULT_DIV_ZERO:
    what = "integer division by zero";
    break;
  case KERN_FAULT_MISALIGNED:
    what = "misaligned " + access + at;
    break;
  case KERN_FAULT_TIMEOUT: {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%g", options_.timeoutSeconds);
    what = std::string("kernel ran longer than the time limit of ") + secs + " seconds";
    break;
  }
  case KERN_FAULT_RECURSION:
    what = "device function calls nested too deeply (call depth limit exceeded)";
    break;
  case KERN_FAULT_SHFL_WIDTH:
    what = siteWhat(f.site) + " with width " + std::to_string(static_cast<int64_t>(f.addr)) +
           ": the width must be a power of two from 1 to 32";
    break;
  case KERN_FAULT_SYNC_MASK: {
    char mask[16];
    std::snprintf(mask, sizeof mask, "0x%08x", static_cast<uint32_t>(f.addr));
    what = siteWhat(f.site) + " with mask " + mask +
           ", which names lanes that do not execute the call (or not the calling lane): " +
           "undefined on a GPU, where it may hang";
    break;
  }
  case KERN_FAULT_STACK:
    what = "stack overflow: the call needs about " + byteCount(f.addr) +
           " of stack for the warp (the callee's local variables for 32 threads, and its " +
           "registers), and the warp's stack has no room left: a recursion too deep, or local " +
           "arrays too large, for kern's stack";
    break;
  case KERN_FAULT_LOCAL_MEMORY:
    what = "local memory overflow: the call needs " + sizeText(f.addr / KERN_WARP_SIZE) +
           " per thread for the callee's local variables, and the thread's local memory (" +
           sizeText(options_.device.localBytesPerThread) + " on " + options_.device.name +
           ") has no room left: a recursion too deep for it";
    break;
  case KERN_FAULT_BARRIER:
    what = f.message;
    break;
  case KERN_FAULT_ASSERT: {
    const std::string text = siteWhat(f.site);
    what = "assertion failed" + (text.empty() ? "" : ": " + text);
    break;
  }
  case KERN_FAULT_CONST_OOB:
    what = "out-of-bounds constant " + access + at;
    break;
  case KERN_FAULT_LOCAL_OOB: {
    // The address is on a worker's stack and means nothing to the user: name the variable.
    const std::string text = siteWhat(f.site);
    const size_t quote = text.find('\'');
    what = "out-of-bounds local " + access +
           (quote == std::string::npos ? std::string(" outside its local variable")
                                       : " outside local variable " + text.substr(quote));
    break;
  }
  case KERN_FAULT_NULL_FNPTR:
    what = "call through a null function pointer";
    break;
  case KERN_FAULT_DEVICE_FNPTR:
    what = "call through an invalid function pointer (value " + hexAddress(f.addr) +
           " is no __device__ function of the pointer's type)";
    break;
  case KERN_FAULT_BAD_FREE:
    what = "free of address " + hexAddress(f.addr) +
           " in device code, which is not a live block of the device heap (malloc or new in "
           "device code)";
    break;
  case KERN_FAULT_BAD_CAST: // the site says which cast: "dynamic_cast<D &>(B &)"
    what = "bad " + siteWhat(f.site) + ": the object (vtable pointer " + hexAddress(f.addr) +
           ") is not of the class (C++ would throw std::bad_cast; kern has no exceptions)";
    break;
  case KERN_FAULT_BAD_VPTR: // the site says which function: "virtual call of S::f"
    what = siteWhat(f.site) + " on an object whose vtable pointer (value " + hexAddress(f.addr) +
           ") is no device vtable of its class (an object not constructed on the device, "
           "freed, or not an object)";
    break;
  default:
    what = "fault of kind " + std::to_string(f.kind) + at;
    break;
  }
  if (!f.message.empty() && f.kind != KERN_FAULT_BARRIER)
    what = f.message;
  auto triple = [](const uint32_t v[3]) {
    return std::string("(") + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," +
           std::to_string(v[2]) + ")";
  };
  return (loc.empty() ? "kern: error: " : loc + ": error: ") + what + " in kernel '" + k.name +
         "', block " + triple(f.blockIdx) + ", thread " + triple(f.thread);
}

} // namespace kern::runtime
