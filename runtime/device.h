// Device profiles: which GPU generation's rules kern follows (limits, allocation granularities,
// bank and coalescing rules, the host link), the built-in table and user-defined JSON profiles.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kern::runtime {

/// How a warp's shared-memory access is split into requests (HARDWARE-MODEL.md, "Shared
/// memory banks").
enum class BankRule {
  HalfWarp,      ///< cc1.x: 16 banks, each half-warp its own request, one broadcast word per step
  WarpMulticast, ///< cc2.0 and later: 32 banks, one request per warp, any number of readers per
                 ///< word
};

/// Which global-memory coalescing rule applies (HARDWARE-MODEL.md, "Global memory coalescing").
enum class GlobalRule {
  Cc10,    ///< cc1.0/1.1: a half-warp coalesces only when thread k reads word k of one segment
  Cc12,    ///< cc1.2/1.3: a half-warp is served segment by segment, segments shrink to 64/32 B
  Cc2x,    ///< cc2.x: loads count 128 B L1 lines, stores 32 B segments
  Sectors, ///< cc3.0 and later: a warp request moves the distinct 32 B sectors it touches
};

/// To whom the SM hands out registers (CUDA C Programming Guide 4.0, section 4.2 "Hardware
/// Multithreading": cc1.x allocates per block, cc2.x and later per warp).
enum class RegisterAllocation {
  PerBlock, ///< registers of a whole block, rounded up to registerAllocationUnit
  PerWarp,  ///< registers of one warp, rounded up to registerAllocationUnit, times the warps
};

/// One GPU as kern models it. Every field is data: the built-in values live in
/// runtime/profiles.def with their sources, users give their own in JSON (docs/devices.md,
/// where the JSON field names are these member names).
struct DeviceProfile {
  // Identity.
  std::string name;          ///< profile id, as on the command line: "h100"
  std::string marketingName; ///< "NVIDIA H100 SXM5 80 GB"
  int ccMajor = 0;           ///< compute capability, major
  int ccMinor = 0;           ///< compute capability, minor

  // Execution resources.
  int smCount = 0;               ///< streaming multiprocessors
  int warpSize = 0;              ///< lanes per warp; kern supports 32 only
  int maxThreadsPerBlock = 0;    ///< threads of one block
  int maxThreadsPerSM = 0;       ///< resident threads per SM (max warps/SM x warpSize)
  int maxBlocksPerSM = 0;        ///< resident blocks per SM
  int registersPerSM = 0;        ///< 32-bit registers per SM
  int registersPerBlock = 0;     ///< 32-bit registers one block may hold
  int maxRegistersPerThread = 0; ///< what the compiler may give one thread

  // Allocation granularities of the occupancy calculation (docs/devices.md, "Occupancy").
  RegisterAllocation registerAllocation = RegisterAllocation::PerWarp;
  int registerAllocationUnit = 0; ///< registers are handed out in multiples of this
  /// PerBlock: a block's warps are rounded up to a multiple of this before its registers are
  /// counted (G_W of the CUDA 4.0 guide). PerWarp: the register file is split into this many
  /// sub-partitions, so the warps that registers allow on an SM are rounded down to a multiple
  /// of it, and a block's warps are rounded up to it in the per-block check (cuda_occupancy.h).
  int warpAllocationGranularity = 0;

  // Shared memory, in bytes.
  uint64_t sharedPerSM = 0;           ///< per SM, at the largest carveout
  uint64_t sharedPerBlockDefault = 0; ///< per block without the opt-in attribute
  uint64_t sharedPerBlockOptIn = 0;  ///< per block with cudaFuncAttributeMaxDynamicSharedMemorySize
  uint64_t sharedAllocationUnit = 0; ///< a block's shared memory is rounded up to this
  uint64_t sharedReservedPerBlock = 0; ///< taken by the system from every block (cc8.0+: 1 KB)
  int sharedBanks = 0;                 ///< 16 or 32
  BankRule bankRule = BankRule::WarpMulticast;

  // Global memory.
  GlobalRule globalRule = GlobalRule::Sectors;

  // Launch limits.
  int maxGridX = 0, maxGridY = 0, maxGridZ = 0;
  int maxBlockX = 0, maxBlockY = 0, maxBlockZ = 0;
  uint64_t maxKernelParamBytes = 0; ///< bytes of kernel parameters
  /// A thread's local memory: its local variables (and stack) may take this much; a kernel whose
  /// local variables take more does not launch (cudaErrorLaunchOutOfResources).
  uint64_t localBytesPerThread = 0;
  uint64_t constantMemoryBytes = 0; ///< __constant__ memory

  // Clocks and memory (informational; memoryClockKHz and memoryBusWidthBits: 0 if unknown).
  int clockRateKHz = 0; ///< SM clock, as cudaDeviceProp::clockRate reports it
  uint64_t memoryBytes = 0;
  int memoryClockKHz = 0;
  int memoryBusWidthBits = 0;

  // Host link: a copy of B bytes takes transferLatencyUs + B / (pcieBandwidth x efficiency).
  int pcieGeneration = 0;
  int pcieLanes = 0;
  double pcieBandwidth = 0;     ///< bytes/s each way, after line encoding, before protocol overhead
  double transferLatencyUs = 0; ///< fixed cost of one cudaMemcpy, microseconds
  double pinnedEfficiency = 0;  ///< share of pcieBandwidth a pinned copy achieves, (0, 1]
  double pageableEfficiency = 0; ///< same for pageable memory (staged through a pinned buffer)
  /// Pageable host-to-device copies past this many bytes run slower: each byte beyond it costs
  /// 1 / (pcieBandwidth x pageableBeyondKneeEfficiency) more (the driver's staging no longer
  /// keeps up). 0: no knee.
  double pageableKneeBytes = 0;
  double pageableBeyondKneeEfficiency = 0; ///< (0, 1] where pageableKneeBytes is set

  // Timing (runtime/timing.h, docs/timing.md): the figures the kernel time model reads.
  double issueRate = 0; ///< warp instructions an SM issues per cycle
  /// Warp instructions an SM's FP64 units, and its XU (special functions and conversions),
  /// complete per cycle (0: at issueRate, like the rest).
  double fp64PerCycle = 0, xuPerCycle = 0;
  /// Warp instructions an SM's ADU completes per cycle: the barriers, each warp's EXIT and its
  /// loads from the constant bank (0: not modelled).
  double aduPerCycle = 0;
  int dependentIssueCycles = 0;        ///< cycles between dependent instructions of one warp
  double sharedWavefrontsPerCycle = 0; ///< shared-memory wavefronts an SM serves per cycle
  int sharedLatencyCycles = 0;         ///< a shared-memory load, issue to use
  int l2LatencyCycles = 0;             ///< a global load that hits in L2
  /// A global load that hits in the SM's L1; 0: global loads are not cached there (cc1.x).
  int l1LatencyCycles = 0;
  uint64_t l1Bytes = 0; ///< the SM's L1 and shared memory together (shared takes its part first)
  int dramLatencyCycles = 0; ///< a global load that goes to DRAM
  uint64_t l2Bytes = 0;      ///< L2 cache for global memory; 0: none (cc1.x)
  double l2Bandwidth = 0;    ///< bytes/s the L2 serves, all SMs together
  /// Sectors that stores fill only in part, which the L2 takes one at a time: how many per
  /// clock, all SMs together; 0: such stores cost their bytes only.
  double l2PartialSectorsPerCycle = 0;
  /// Share of the DRAM's peak (memoryClockKHz x 2 x memoryBusWidthBits / 8) a streaming kernel
  /// reaches.
  double dramEfficiency = 0;
  double atomicsPerCycle = 0; ///< global atomic lane operations the GPU completes per cycle
  /// The L2's atomic work (GlobalAtomicCost::units) the GPU completes per cycle.
  double atomicUnitsPerCycle = 0;
  /// Atomic passes one 512-byte chunk of memory takes per cycle (same-address serialisation).
  double atomicChunkPassesPerCycle = 0;
  double atomicReturnCost = 0;  ///< an atomic whose result is used, against a reduction (>= 1)
  int barrierCycles = 0;        ///< what one __syncthreads() adds to each warp's time...
  int barrierCyclesPerWarp = 0; ///< ...plus this much for each warp of the block
  /// DRAM reads whole blocks of this many bytes (32: a sector; 64: a sector and its neighbour).
  int dramAccessBytes = 0;
  double launchOverheadUs = 0; ///< a launch's fixed cost (an empty kernel's duration)

  int maxWarpsPerSM() const { return warpSize > 0 ? maxThreadsPerSM / warpSize : 0; }
  bool operator==(const DeviceProfile &) const = default;
};

/// The profile used when the user names none.
inline constexpr std::string_view kDefaultProfileName = "h100";

/// g80, gt200, fermi, v100, a100, h100, in that order (runtime/profiles.def).
const std::vector<DeviceProfile> &builtinProfiles();

/// The built-in profile with this name, or null.
const DeviceProfile *findProfile(std::string_view name);

/// Checks every field (positive, powers of two where the hardware needs them, warp size 32,
/// maxThreadsPerBlock <= maxThreadsPerSM and the like). On failure returns false and sets
/// `error` to a message naming the field and the bad value.
bool validateProfile(const DeviceProfile &profile, std::string &error);

/// Parses a user-defined profile from JSON text: one flat object whose field names are the
/// members of DeviceProfile (enums as their enumerator names, "bankRule": "HalfWarp"), plus an
/// optional "base": "h100" to start from a built-in profile and override some fields. Without
/// "base" every field must be given; "name" is always required. The result is validated; on
/// any error returns false, leaves `out` unchanged and sets `error` (JSON syntax errors carry
/// "line L, column C: ").
bool parseProfileJson(std::string_view json, DeviceProfile &out, std::string &error);

/// The profile as a JSON object that parseProfileJson reads back unchanged (without "base"):
/// one field per line, in the order of the struct.
std::string profileToJson(const DeviceProfile &profile);

/// The profiles as a JSON array, each object as profileToJson writes it (`kern devices --json`).
std::string profilesToJson(const std::vector<DeviceProfile> &profiles);

/// One line for `kern devices`: id, marketing name, compute capability and the main limits.
std::string profileSummary(const DeviceProfile &profile);

/// The modelled time of one host <-> device copy of `bytes` (HARDWARE-MODEL.md, "Host <->
/// device transfers"): latency + bytes / (bandwidth x pinned or pageable efficiency), plus, for
/// a pageable host-to-device copy, the bytes past the profile's knee at their slower rate
/// (docs/devices.md).
double transferSeconds(const DeviceProfile &profile, uint64_t bytes, bool pinned,
                       bool hostToDevice);

const char *bankRuleName(BankRule rule);
const char *globalRuleName(GlobalRule rule);
const char *registerAllocationName(RegisterAllocation allocation);

} // namespace kern::runtime
