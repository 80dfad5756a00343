// The occupancy calculator and the wave assignment of blocks to SMs (HARDWARE-MODEL.md,
// "Occupancy and scheduling"). The rules follow NVIDIA's calculator, cuda_occupancy.h, and the
// allocation formulas of the CUDA C Programming Guide 4.0, section 4.2; docs/devices.md works
// them through.
#include "runtime/occupancy.h"

#include <algorithm>
#include <cstdio>

namespace kern::runtime {

namespace {

int64_t ceilDiv(int64_t x, int64_t y) { return (x + y - 1) / y; }
int64_t roundUp(int64_t x, int64_t unit) { return ceilDiv(x, unit) * unit; }

/// Rounds up without wrapping: a request near 2^64 bytes stays huge instead of becoming small.
uint64_t roundUpSaturating(uint64_t x, uint64_t unit) {
  uint64_t max = std::numeric_limits<uint64_t>::max();
  if (x > max - (unit - 1))
    return max;
  return (x + unit - 1) / unit * unit;
}

int clampToInt(uint64_t value) { return value > uint64_t(kNoLimit) ? kNoLimit : int(value); }

/// Registers of one block and how many blocks the register file holds.
struct RegisterUse {
  int64_t raw = 0;       ///< registers per thread x threads
  int64_t allocated = 0; ///< what the block is charged, after the granularities
  int64_t checked = 0;   ///< what the per-block check compares against registersPerBlock
  int limit = 0;
};

RegisterUse registerUse(const DeviceProfile &p, int threads, int warps, int regs) {
  RegisterUse use;
  use.raw = int64_t(regs) * threads;
  if (regs > p.maxRegistersPerThread)
    return use; // limit 0: the compiler could not have produced this kernel for the device
  const int64_t granularity = p.warpAllocationGranularity;
  if (p.registerAllocation == RegisterAllocation::PerBlock) {
    // cc1.x (CUDA 4.0 guide, 4.2): R_block = ceil(ceil(W_block, G_W) x 32 x R_k, G_T). A block
    // of 3 warps is charged for 4.
    use.allocated =
        roundUp(roundUp(warps, granularity) * p.warpSize * regs, p.registerAllocationUnit);
    use.checked = use.allocated;
    if (use.allocated > p.registersPerBlock)
      return use;
    use.limit = use.allocated == 0 ? kNoLimit : int(p.registersPerSM / use.allocated);
    return use;
  }
  // cc2.x and later (cuda_occupancy.h, cudaOccMaxBlocksPerSMRegsLimit): each warp is charged
  // ceil(R_k x 32, unit). The register file is split into sub-partitions (2 on Fermi, 4 from
  // Kepler on) and a warp lives in one, so the warps that fit are counted per sub-partition.
  const int64_t perWarp = roundUp(int64_t(regs) * p.warpSize, p.registerAllocationUnit);
  use.allocated = perWarp * warps;
  // The hardware's per-block check assumes the block's warps spread over every sub-partition,
  // so it rounds the warp count up to a multiple of the sub-partitions.
  use.checked = std::max(use.allocated, perWarp * roundUp(warps, granularity));
  if (use.checked > p.registersPerBlock)
    return use;
  if (perWarp == 0) {
    use.limit = kNoLimit;
    return use;
  }
  const int64_t warpsPerSubPartition = (p.registersPerSM / granularity) / perWarp;
  use.limit = int(warpsPerSubPartition * granularity / warps);
  return use;
}

/// Shared memory of one block, and how many blocks the SM's shared memory holds.
struct SharedUse {
  uint64_t allocated = 0;
  uint64_t allowed = 0; ///< the per-block limit the user sees, without the reservation
  int limit = 0;
};

SharedUse sharedUse(const DeviceProfile &p, uint64_t bytes, bool optIn) {
  SharedUse use;
  // cc8.0+: the driver reserves sharedReservedPerBlock bytes of every block for system use;
  // cuda_occupancy.h adds them to the block's request before rounding, and to the per-block
  // limit, so that the user may still ask for the whole sharedPerBlockOptIn.
  uint64_t total = bytes > std::numeric_limits<uint64_t>::max() - p.sharedReservedPerBlock
                       ? std::numeric_limits<uint64_t>::max()
                       : bytes + p.sharedReservedPerBlock;
  use.allocated = roundUpSaturating(total, p.sharedAllocationUnit);
  use.allowed = optIn ? p.sharedPerBlockOptIn : p.sharedPerBlockDefault;
  if (use.allocated > use.allowed + p.sharedReservedPerBlock)
    return use;
  // kern models the largest shared-memory carveout: the driver picks the carveout a launch needs,
  // and a kernel that sets no preference gets the maximum (cudaOccSMemPreferenceVoltaPlus).
  use.limit = use.allocated == 0 ? kNoLimit : clampToInt(p.sharedPerSM / use.allocated);
  return use;
}

std::string registerError(const DeviceProfile &p, const OccupancyInput &in,
                          const RegisterUse &use) {
  if (in.registersPerThread > p.maxRegistersPerThread)
    return "too many resources requested for launch: " + std::to_string(in.registersPerThread) +
           " registers per thread, the device allows " + std::to_string(p.maxRegistersPerThread);
  std::string message =
      "too many resources requested for launch: " + std::to_string(in.registersPerThread) +
      " registers per thread x " + std::to_string(in.threadsPerBlock) +
      " threads = " + std::to_string(use.raw) + " registers";
  if (use.checked != use.raw)
    message += " (" + std::to_string(use.checked) + " as allocated)";
  if (p.registersPerBlock == p.registersPerSM)
    message += ", the SM has " + std::to_string(p.registersPerSM);
  else
    message += ", a block may use " + std::to_string(p.registersPerBlock);
  return message;
}

std::string sharedError(const DeviceProfile &p, const OccupancyInput &in) {
  std::string message =
      "too much shared memory requested for launch: " + std::to_string(in.sharedPerBlock) +
      " bytes per block, the device allows ";
  if (!in.sharedOptIn && in.sharedPerBlock <= p.sharedPerBlockOptIn)
    return message + std::to_string(p.sharedPerBlockDefault) + " without opt-in (" +
           std::to_string(p.sharedPerBlockOptIn) +
           " with cudaFuncAttributeMaxDynamicSharedMemorySize)";
  return message + std::to_string(in.sharedOptIn ? p.sharedPerBlockOptIn : p.sharedPerBlockDefault);
}

/// The limit that stops even one block, in the order a launch is checked.
OccupancyLimit failedLimit(const OccupancyResult &r) {
  if (r.limitByWarps == 0)
    return OccupancyLimit::Warps;
  if (r.limitByRegisters == 0)
    return OccupancyLimit::Registers;
  if (r.limitBySharedMemory == 0)
    return OccupancyLimit::SharedMemory;
  return OccupancyLimit::Blocks;
}

std::string formatLimit(int limit) { return limit == kNoLimit ? "-" : std::to_string(limit); }

std::string format(const char *fmt, auto... args) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, fmt, args...);
  return buffer;
}

} // namespace

const char *occupancyLimitName(OccupancyLimit limit) {
  switch (limit) {
  case OccupancyLimit::Warps:
    return "warps";
  case OccupancyLimit::Blocks:
    return "blocks";
  case OccupancyLimit::Registers:
    return "registers";
  case OccupancyLimit::SharedMemory:
    return "shared memory";
  case OccupancyLimit::None:
    return "none";
  }
  return "none";
}

bool isLimitedBy(const OccupancyResult &r, OccupancyLimit limit) {
  if (r.blocksPerSM == 0)
    return limit == OccupancyLimit::None;
  switch (limit) {
  case OccupancyLimit::Warps:
    return r.limitByWarps == r.blocksPerSM;
  case OccupancyLimit::Blocks:
    return r.limitByBlocks == r.blocksPerSM;
  case OccupancyLimit::Registers:
    return r.limitByRegisters == r.blocksPerSM;
  case OccupancyLimit::SharedMemory:
    return r.limitBySharedMemory == r.blocksPerSM;
  case OccupancyLimit::None:
    return false;
  }
  return false;
}

OccupancyResult computeOccupancy(const DeviceProfile &p, const OccupancyInput &in) {
  OccupancyResult r;
  r.maxWarps = p.maxWarpsPerSM();
  r.limitByBlocks = p.maxBlocksPerSM;
  if (in.threadsPerBlock <= 0 || in.registersPerThread < 0) {
    r.error = in.threadsPerBlock <= 0
                  ? "invalid block size: " + std::to_string(in.threadsPerBlock) + " threads"
                  : "invalid register count: " + std::to_string(in.registersPerThread);
    return r;
  }
  r.warpsPerBlock = int(ceilDiv(in.threadsPerBlock, p.warpSize));

  // Warp slots. A block's last warp counts whole even when some of its lanes do not exist.
  r.limitByWarps = in.threadsPerBlock > p.maxThreadsPerBlock ? 0 : r.maxWarps / r.warpsPerBlock;

  RegisterUse regs = registerUse(p, in.threadsPerBlock, r.warpsPerBlock, in.registersPerThread);
  r.limitByRegisters = regs.limit;
  r.registersPerBlock = int(std::min<int64_t>(regs.allocated, kNoLimit));

  SharedUse shared = sharedUse(p, in.sharedPerBlock, in.sharedOptIn);
  r.limitBySharedMemory = shared.limit;
  r.sharedPerBlockAllocated = shared.allocated;

  r.blocksPerSM =
      std::min({r.limitByWarps, r.limitByRegisters, r.limitBySharedMemory, r.limitByBlocks});
  if (r.blocksPerSM == 0) {
    r.limit = OccupancyLimit::None;
    switch (failedLimit(r)) {
    case OccupancyLimit::Warps:
      r.error = "too many threads per block: " + std::to_string(in.threadsPerBlock) +
                ", the device allows " + std::to_string(p.maxThreadsPerBlock);
      break;
    case OccupancyLimit::Registers:
      r.error = registerError(p, in, regs);
      break;
    default:
      r.error = sharedError(p, in);
      break;
    }
    return r;
  }
  // Ties: the calculator sets a flag for every limit equal to the result; kern names the first
  // in the calculator's order (warps, registers, shared memory, blocks), so a block that fills
  // the warp slots reads "limited by warps" even when registers run out at the same count.
  if (r.blocksPerSM == r.limitByWarps)
    r.limit = OccupancyLimit::Warps;
  else if (r.blocksPerSM == r.limitByRegisters)
    r.limit = OccupancyLimit::Registers;
  else if (r.blocksPerSM == r.limitBySharedMemory)
    r.limit = OccupancyLimit::SharedMemory;
  else
    r.limit = OccupancyLimit::Blocks;
  r.activeWarps = r.blocksPerSM * r.warpsPerBlock;
  r.occupancy = r.maxWarps > 0 ? double(r.activeWarps) / r.maxWarps : 0;
  return r;
}

Waves computeWaves(const DeviceProfile &p, uint64_t totalBlocks, int blocksPerSM) {
  Waves w;
  w.blocks = totalBlocks;
  w.blocksPerSM = blocksPerSM;
  w.sms = p.smCount;
  if (totalBlocks == 0 || blocksPerSM <= 0 || p.smCount <= 0)
    return w;
  const uint64_t perWave = uint64_t(p.smCount) * uint64_t(blocksPerSM);
  w.waves = (totalBlocks + perWave - 1) / perWave;
  w.blocksInLastWave = totalBlocks - (w.waves - 1) * perWave;
  w.lastWaveFullness = double(w.blocksInLastWave) / double(perWave);
  return w;
}

std::string occupancyTable(const DeviceProfile &p, int registersPerThread,
                           uint64_t sharedPerBlock) {
  std::string out = format("occupancy on %s (%s) at %d registers/thread, %llu bytes of shared "
                           "memory/block\n",
                           p.name.c_str(), p.marketingName.c_str(), registersPerThread,
                           (unsigned long long)sharedPerBlock);
  out += "threads  warps  blocks/SM  active warps  occupancy  limited by\n";
  for (int threads = 32; threads <= p.maxThreadsPerBlock; threads += 32) {
    OccupancyResult r = computeOccupancy(p, {threads, registersPerThread, sharedPerBlock});
    std::string limit = r.limit == OccupancyLimit::None
                            ? std::string(occupancyLimitName(failedLimit(r))) + " (does not fit)"
                            : occupancyLimitName(r.limit);
    out += format("%7d  %5d  %9d  %6d of %3d  %8.1f%%  %s\n", threads, r.warpsPerBlock,
                  r.blocksPerSM, r.activeWarps, r.maxWarps, 100.0 * r.occupancy, limit.c_str());
  }
  return out;
}

std::string occupancyReport(const DeviceProfile &p, const OccupancyInput &in,
                            const OccupancyResult &r) {
  std::string out = format("device %s (%s), compute capability %d.%d\n", p.name.c_str(),
                           p.marketingName.c_str(), p.ccMajor, p.ccMinor);
  out += format("block: %d threads (%d warps), %d registers/thread, %llu bytes of shared memory\n",
                in.threadsPerBlock, r.warpsPerBlock, in.registersPerThread,
                (unsigned long long)in.sharedPerBlock);
  if (!r.error.empty() && r.warpsPerBlock == 0)
    return out + "error: " + r.error + "\n";

  std::string registers = format("%d registers", r.registersPerBlock);
  if (p.registerAllocation == RegisterAllocation::PerWarp)
    registers += format(" (%d per warp, in units of %d)",
                        r.warpsPerBlock > 0 ? r.registersPerBlock / r.warpsPerBlock : 0,
                        p.registerAllocationUnit);
  else
    registers += format(" (in units of %d per block)", p.registerAllocationUnit);
  std::string shared = format("%llu bytes of shared memory (in units of %llu",
                              (unsigned long long)r.sharedPerBlockAllocated,
                              (unsigned long long)p.sharedAllocationUnit);
  if (p.sharedReservedPerBlock > 0)
    shared += format(", %llu reserved by the system", (unsigned long long)p.sharedReservedPerBlock);
  shared += ")";
  out += "allocated per block: " + registers + ", " + shared + "\n";

  out += "blocks per SM allowed by:\n";
  out += format("  warps          %4s  (%d warps/SM / %d warps per block)\n",
                formatLimit(r.limitByWarps).c_str(), r.maxWarps, r.warpsPerBlock);
  out += format("  registers      %4s  (%d registers/SM)\n",
                formatLimit(r.limitByRegisters).c_str(), p.registersPerSM);
  out += format("  shared memory  %4s  (%llu bytes/SM)\n",
                formatLimit(r.limitBySharedMemory).c_str(), (unsigned long long)p.sharedPerSM);
  out += format("  blocks         %4s  (max blocks/SM)\n", formatLimit(r.limitByBlocks).c_str());

  if (r.blocksPerSM == 0)
    return out + "error: " + r.error + "\n";
  std::string limit = occupancyLimitName(r.limit);
  // Name the other limits reached at the same count, as the calculator flags every one of them.
  for (OccupancyLimit other : {OccupancyLimit::Warps, OccupancyLimit::Registers,
                               OccupancyLimit::SharedMemory, OccupancyLimit::Blocks})
    if (other != r.limit && isLimitedBy(r, other))
      limit += std::string(", also ") + occupancyLimitName(other);
  out += format("=> %d blocks per SM, %d of %d warps active: occupancy %.1f%% (limited by %s)\n",
                r.blocksPerSM, r.activeWarps, r.maxWarps, 100.0 * r.occupancy, limit.c_str());
  return out;
}

} // namespace kern::runtime
