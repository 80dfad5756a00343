// The occupancy calculator (the CUDA Occupancy Calculator's rules with the profile's allocation
// granularities) and the assignment of a grid's blocks to SMs in waves.
#pragma once

#include "runtime/device.h"

#include <cstdint>
#include <limits>
#include <string>

namespace kern::runtime {

/// One kernel launch as the occupancy calculation sees it.
struct OccupancyInput {
  int threadsPerBlock = 0;
  int registersPerThread = 0;  ///< 0: the kernel holds no registers (no register limit)
  uint64_t sharedPerBlock = 0; ///< static + dynamic bytes, without the system's reservation
  /// True: the block may use sharedPerBlockOptIn bytes (the kernel set
  /// cudaFuncAttributeMaxDynamicSharedMemorySize). False: only sharedPerBlockDefault.
  bool sharedOptIn = true;
};

/// What bounds the number of resident blocks per SM.
enum class OccupancyLimit {
  Warps,        ///< the SM's warp slots (max threads per SM), or a block over the block limit
  Blocks,       ///< the SM's block slots
  Registers,    ///< the register file
  SharedMemory, ///< shared memory
  None,         ///< not even one block fits: the launch cannot run
};

/// A limit that does not apply (no registers, no shared memory): cuda_occupancy.h's INT_MAX.
inline constexpr int kNoLimit = std::numeric_limits<int>::max();

struct OccupancyResult {
  int blocksPerSM = 0;  ///< resident blocks per SM: the smallest of the four limits
  int activeWarps = 0;  ///< blocksPerSM x warpsPerBlock
  int maxWarps = 0;     ///< the SM's warp slots
  double occupancy = 0; ///< activeWarps / maxWarps, 0 to 1
  OccupancyLimit limit = OccupancyLimit::None; ///< the binding limit; ties go to the first of
                                               ///< warps, registers, shared memory, blocks
  int limitByWarps = 0;        ///< 0 when the block has more threads than maxThreadsPerBlock
  int limitByBlocks = 0;       ///< maxBlocksPerSM
  int limitByRegisters = 0;    ///< 0 when one block's registers do not fit; kNoLimit for none
  int limitBySharedMemory = 0; ///< 0 when one block's shared memory does not fit; kNoLimit for none
  int warpsPerBlock = 0;       ///< ceil(threadsPerBlock / warpSize)
  int registersPerBlock = 0;   ///< allocated, after the granularities
  uint64_t sharedPerBlockAllocated = 0; ///< allocated bytes, reservation and rounding included
  /// Non-empty when not even one block fits, naming the limit and both numbers, e.g. "too many
  /// resources requested for launch: 65 registers per thread x 1024 threads = 66560 registers
  /// (73728 as allocated), the SM has 65536". CUDA reports a block over maxThreadsPerBlock
  /// (limitByWarps == 0) as cudaErrorInvalidConfiguration and the other cases as
  /// cudaErrorLaunchOutOfResources.
  std::string error;
};

/// blocks per SM = min(max blocks/SM, floor(max warps/SM / warps per block),
/// floor(registers/SM / registers per block), floor(shared/SM / shared per block)), with the
/// profile's allocation granularities (docs/devices.md, "Occupancy").
OccupancyResult computeOccupancy(const DeviceProfile &profile, const OccupancyInput &input);

/// True when `limit` is one of the limits equal to blocksPerSM (there may be several).
bool isLimitedBy(const OccupancyResult &result, OccupancyLimit limit);

/// "warps", "blocks", "registers", "shared memory", "none".
const char *occupancyLimitName(OccupancyLimit limit);

/// How a grid's blocks fill the GPU: blocks go to SMs in linear order, wave by wave, one wave
/// being sms x blocksPerSM blocks.
struct Waves {
  uint64_t blocks = 0;
  int blocksPerSM = 0;
  int sms = 0;
  uint64_t waves = 0;            ///< ceil(blocks / (sms x blocksPerSM)); 0 for no blocks
  uint64_t blocksInLastWave = 0; ///< 1 to sms x blocksPerSM
  double lastWaveFullness = 0;   ///< blocksInLastWave / (sms x blocksPerSM)
};

/// All zero except `blocks`, `blocksPerSM` and `sms` when totalBlocks or blocksPerSM is 0.
Waves computeWaves(const DeviceProfile &profile, uint64_t totalBlocks, int blocksPerSM);

/// Occupancy against block size, 32 to maxThreadsPerBlock in steps of 32, at the given registers
/// per thread and shared bytes per block: the data of the CUDA Occupancy Calculator's graph.
std::string occupancyTable(const DeviceProfile &profile, int registersPerThread,
                           uint64_t sharedPerBlock);

/// The text of `kern occupancy`: the input, what each block allocates, the four limits and the
/// resulting occupancy with the binding limit named.
std::string occupancyReport(const DeviceProfile &profile, const OccupancyInput &input,
                            const OccupancyResult &result);

} // namespace kern::runtime
