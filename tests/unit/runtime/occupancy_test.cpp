// Unit tests of the occupancy calculator and the wave assignment: cases worked by hand from the
// profile rules (docs/devices.md, "Occupancy"), the launches that cannot run, and the reports.
#include "runtime/occupancy.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <iterator>
#include <string>

using namespace kern::runtime;

namespace {

const DeviceProfile &profile(const char *name) {
  const DeviceProfile *p = findProfile(name);
  REQUIRE(p != nullptr);
  return *p;
}

constexpr int kNone = kNoLimit; // a limit that does not apply (no registers, no shared memory)

struct Case {
  const char *profile;
  int threads, registers;
  uint64_t shared;
  // Hand-computed: the four limits (warps, registers, shared memory, blocks), what a block is
  // allocated, and the result.
  int byWarps, byRegisters, byShared, byBlocks;
  int registersPerBlock;
  uint64_t sharedAllocated;
  int blocksPerSM, activeWarps;
  double occupancyPercent;
  OccupancyLimit limit;
};

// Notation: W = warps per block = ceil(threads / 32). Per-block register allocation (cc1.x):
// R = ceil(ceil(W, 2) x 32 x regs, unit), limit = floor(regs/SM / R). Per-warp allocation:
// r = ceil(regs x 32, unit), limit = floor(floor(regs/SM / G / r) x G / W) with G the
// sub-partitions. Shared: S = ceil(bytes + reserved, unit), limit = floor(shared/SM / S).
const Case kCases[] = {
    // g80, 256 threads, 10 regs (the seed): W = 8; warps 24/8 = 3;
    // R = ceil(8 x 32 x 10 = 2560, 256) = 2560, 8192/2560 = 3.2 -> 3; blocks 8.
    // min = 3 blocks = 768 threads, 24/24 warps = 100%; warps and registers tie -> warps.
    {"g80", 256, 10, 0, 3, 3, kNone, 8, 2560, 0, 3, 24, 100.0, OccupancyLimit::Warps},
    // gt200, 512 threads, 16 regs (the seed): W = 16; warps 32/16 = 2;
    // R = 16 x 32 x 16 = 8192 (a multiple of 512), 16384/8192 = 2 -> 2 blocks = 1024 threads,
    // 32/32 = 100%, warps (tied with registers).
    {"gt200", 512, 16, 0, 2, 2, kNone, 8, 8192, 0, 2, 32, 100.0, OccupancyLimit::Warps},
    // g80, 96 threads, 16 regs: W = 3, rounded to 4 for registers (G_W = 2);
    // R = 4 x 32 x 16 = 2048, 8192/2048 = 4 (5 without the warp rounding); warps 24/3 = 8.
    // -> 4 blocks, 12/24 = 50%, registers.
    {"g80", 96, 16, 0, 8, 4, kNone, 8, 2048, 0, 4, 12, 50.0, OccupancyLimit::Registers},
    // gt200, 128 threads, 25 regs: W = 4; R = ceil(4 x 32 x 25 = 3200, 512) = 3584;
    // 16384/3584 = 4.57 -> 4 (5 without the 512 unit); warps 32/4 = 8.
    // -> 4 blocks, 16/32 = 50%, registers.
    {"gt200", 128, 25, 0, 8, 4, kNone, 8, 3584, 0, 4, 16, 50.0, OccupancyLimit::Registers},
    // g80, 128 threads, 8 regs, 5000 B shared: S = ceil(5000, 512) = 5120, 16384/5120 = 3.2 -> 3;
    // warps 24/4 = 6; R = 4 x 32 x 8 = 1024, 8192/1024 = 8. -> 3 blocks, 12/24 = 50%, shared.
    {"g80", 128, 8, 5000, 6, 8, 3, 8, 1024, 5120, 3, 12, 50.0, OccupancyLimit::SharedMemory},
    // gt200, 64 threads, 16 regs: W = 2; warps 32/2 = 16; R = 2 x 32 x 16 = 1024, 16384/1024 =
    // 16; blocks 8. -> 8 blocks, 16/32 = 50%, blocks.
    {"gt200", 64, 16, 0, 16, 16, kNone, 8, 1024, 0, 8, 16, 50.0, OccupancyLimit::Blocks},
    // fermi, 416 threads, 26 regs: W = 13; r = 26 x 32 = 832 (a multiple of 64);
    // per-block check 832 x ceil(13, 2) = 11648 <= 32768; warps by registers
    // floor(32768/2 / 832) = 19 per sub-partition x 2 = 38, 38/13 = 2 (39/13 = 3 without the
    // sub-partitions); warps 48/13 = 3. -> 2 blocks, 26/48 = 54.2%, registers.
    {"fermi", 416, 26, 0, 3, 2, kNone, 8, 10816, 0, 2, 26, 100.0 * 26 / 48,
     OccupancyLimit::Registers},
    // fermi, 256 threads, 63 regs: r = ceil(63 x 32 = 2016, 64) = 2048; floor(16384/2048) = 8
    // x 2 = 16 warps, 16/8 = 2; warps 48/8 = 6. -> 2 blocks, 16/48 = 33.3%, registers.
    {"fermi", 256, 63, 0, 6, 2, kNone, 8, 16384, 0, 2, 16, 100.0 * 16 / 48,
     OccupancyLimit::Registers},
    // fermi, 256 threads, 16 regs, 12388 B: S = ceil(12388, 128) = 12416, 49152/12416 = 3.96
    // -> 3; r = 512, floor(16384/512) = 32 x 2 = 64 warps, 64/8 = 8; warps 6.
    // -> 3 blocks, 24/48 = 50%, shared.
    {"fermi", 256, 16, 12388, 6, 8, 3, 8, 4096, 12416, 3, 24, 50.0, OccupancyLimit::SharedMemory},
    // v100, 32 threads, 32 regs: W = 1; warps 64; r = 1024, floor(65536/4 / 1024) = 16 x 4 = 64;
    // blocks 32. -> 32 blocks, 32/64 = 50%, blocks.
    {"v100", 32, 32, 0, 64, 64, kNone, 32, 1024, 0, 32, 32, 50.0, OccupancyLimit::Blocks},
    // v100, 256 threads, 32 regs, 64 KB (opted in): S = 65536, 98304/65536 = 1; warps 8;
    // registers 64/8 = 8. -> 1 block, 8/64 = 12.5%, shared.
    {"v100", 256, 32, 65536, 8, 8, 1, 32, 8192, 65536, 1, 8, 12.5, OccupancyLimit::SharedMemory},
    // a100, 256 threads, 32 regs, 32 KB: S = 32768 + 1024 reserved = 33792 (a multiple of 128),
    // 167936/33792 = 4.97 -> 4 (5 without the reservation); warps 8, registers 8.
    // -> 4 blocks, 32/64 = 50%, shared.
    {"a100", 256, 32, 32768, 8, 8, 4, 32, 8192, 33792, 4, 32, 50.0, OccupancyLimit::SharedMemory},
    // h100, 128 threads, 32 regs, 32 KB: S = 33792, 233472/33792 = 6.9 -> 6 (7 without the
    // reservation); warps 64/4 = 16; registers 64/4 = 16. -> 6 blocks, 24/64 = 37.5%, shared.
    {"h100", 128, 32, 32768, 16, 16, 6, 32, 4096, 33792, 6, 24, 37.5, OccupancyLimit::SharedMemory},
    // h100, 256 threads, 33 regs: r = ceil(33 x 32 = 1056, 256) = 1280; floor(16384/1280) = 12
    // x 4 = 48 warps, 48/8 = 6 (7 without the granularity); S = 0 + 1024 reserved = 1024,
    // 233472/1024 = 228; warps 8. -> 6 blocks, 48/64 = 75%, registers.
    {"h100", 256, 33, 0, 8, 6, 228, 32, 10240, 1024, 6, 48, 75.0, OccupancyLimit::Registers},
    // h100, 256 threads, 128 regs: r = 4096; per-block check 4096 x 8 = 32768 <= 65536;
    // floor(16384/4096) = 4 x 4 = 16 warps, 16/8 = 2. -> 2 blocks, 16/64 = 25%, registers.
    {"h100", 256, 128, 0, 8, 2, 228, 32, 32768, 1024, 2, 16, 25.0, OccupancyLimit::Registers},
    // h100, 1024 threads, 64 regs: r = 2048; 2048 x 32 = 65536 fits exactly; 8 x 4 = 32 warps,
    // 32/32 = 1; warps 64/32 = 2. -> 1 block, 32/64 = 50%, registers.
    {"h100", 1024, 64, 0, 2, 1, 228, 32, 65536, 1024, 1, 32, 50.0, OccupancyLimit::Registers},
    // h100, 100 threads, 16 regs: W = ceil(100/32) = 4 (the last warp has 4 lanes but takes a
    // whole slot); warps 64/4 = 16; r = 512, 32 x 4 = 128 warps, 128/4 = 32.
    // -> 16 blocks, 64/64 = 100%, warps.
    {"h100", 100, 16, 0, 16, 32, 228, 32, 2048, 1024, 16, 64, 100.0, OccupancyLimit::Warps},
    // a100, 64 threads, no registers, no shared memory: registers do not limit; S = 1024
    // reserved, 167936/1024 = 164; warps 64/2 = 32; blocks 32. -> 32 blocks, 64/64 = 100%,
    // warps (tied with blocks).
    {"a100", 64, 0, 0, 32, kNone, 164, 32, 0, 1024, 32, 64, 100.0, OccupancyLimit::Warps},
};

} // namespace

TEST_CASE("occupancy: cases worked by hand", "[runtime][occupancy]") {
  for (const Case &c : kCases) {
    INFO(c.profile << ", " << c.threads << " threads, " << c.registers << " registers, " << c.shared
                   << " bytes of shared memory");
    const DeviceProfile &p = profile(c.profile);
    OccupancyResult r = computeOccupancy(p, {c.threads, c.registers, c.shared});
    CHECK(r.error == "");
    CHECK(r.limitByWarps == c.byWarps);
    CHECK(r.limitByRegisters == c.byRegisters);
    CHECK(r.limitBySharedMemory == c.byShared);
    CHECK(r.limitByBlocks == c.byBlocks);
    CHECK(r.registersPerBlock == c.registersPerBlock);
    CHECK(r.sharedPerBlockAllocated == c.sharedAllocated);
    CHECK(r.blocksPerSM == c.blocksPerSM);
    CHECK(r.activeWarps == c.activeWarps);
    CHECK(r.maxWarps == p.maxWarpsPerSM());
    CHECK(r.occupancy * 100 == Approx(c.occupancyPercent));
    CHECK(occupancyLimitName(r.limit) == std::string(occupancyLimitName(c.limit)));
  }
  CHECK(std::size(kCases) >= 12);
}

TEST_CASE("occupancy: the seed cases, in threads", "[runtime][occupancy]") {
  // G80: 3 blocks of 256 threads = 768 threads, the SM's maximum.
  OccupancyResult g80 = computeOccupancy(profile("g80"), {256, 10, 0});
  CHECK(g80.blocksPerSM * 256 == 768);
  CHECK(g80.occupancy == 1.0);
  CHECK(isLimitedBy(g80, OccupancyLimit::Warps));
  CHECK(isLimitedBy(g80, OccupancyLimit::Registers));
  CHECK_FALSE(isLimitedBy(g80, OccupancyLimit::Blocks));
  // GT200: 2 blocks of 512 threads = 1024 threads.
  OccupancyResult gt200 = computeOccupancy(profile("gt200"), {512, 16, 0});
  CHECK(gt200.blocksPerSM * 512 == 1024);
  CHECK(gt200.occupancy == 1.0);
}

TEST_CASE("occupancy: launches that cannot run name the limit", "[runtime][occupancy]") {
  SECTION("registers: 65 x 1024 on h100") {
    // r = ceil(65 x 32 = 2080, 256) = 2304; 2304 x 32 warps = 73728 > 65536.
    OccupancyResult r = computeOccupancy(profile("h100"), {1024, 65, 0});
    CHECK(r.blocksPerSM == 0);
    CHECK(r.limit == OccupancyLimit::None);
    CHECK(r.limitByRegisters == 0);
    CHECK(r.limitByWarps == 2);
    CHECK(r.activeWarps == 0);
    CHECK(r.occupancy == 0);
    CHECK(r.error == "too many resources requested for launch: 65 registers per thread x 1024 "
                     "threads = 66560 registers (73728 as allocated), the SM has 65536");
  }
  SECTION("registers: the per-block check rounds warps up to the sub-partitions") {
    // h100, 800 threads = 25 warps, 80 regs: r = 2560; 25 x 2560 = 64000 fits, but the hardware
    // check charges ceil(25, 4) = 28 warps: 28 x 2560 = 71680 > 65536.
    OccupancyResult r = computeOccupancy(profile("h100"), {800, 80, 0});
    CHECK(r.blocksPerSM == 0);
    CHECK(r.registersPerBlock == 64000);
    CHECK(r.error == "too many resources requested for launch: 80 registers per thread x 800 "
                     "threads = 64000 registers (71680 as allocated), the SM has 65536");
  }
  SECTION("registers: per-block allocation on g80") {
    // 8 x 32 x 40 = 10240 registers > 8192.
    OccupancyResult r = computeOccupancy(profile("g80"), {256, 40, 0});
    CHECK(r.blocksPerSM == 0);
    CHECK(r.error == "too many resources requested for launch: 40 registers per thread x 256 "
                     "threads = 10240 registers, the SM has 8192");
  }
  SECTION("registers per thread over the device's maximum") {
    CHECK(computeOccupancy(profile("h100"), {256, 300, 0}).error ==
          "too many resources requested for launch: 300 registers per thread, the device allows "
          "255");
    CHECK(computeOccupancy(profile("fermi"), {32, 64, 0}).error ==
          "too many resources requested for launch: 64 registers per thread, the device allows 63");
  }
  SECTION("threads per block") {
    OccupancyResult r = computeOccupancy(profile("h100"), {2048, 16, 0});
    CHECK(r.limitByWarps == 0);
    CHECK(r.error == "too many threads per block: 2048, the device allows 1024");
    CHECK(computeOccupancy(profile("g80"), {768, 8, 0}).error ==
          "too many threads per block: 768, the device allows 512");
  }
  SECTION("shared memory over the default 48 KB without opt-in") {
    OccupancyResult r = computeOccupancy(profile("v100"), {256, 32, 65536, false});
    CHECK(r.limitBySharedMemory == 0);
    CHECK(r.error == "too much shared memory requested for launch: 65536 bytes per block, the "
                     "device allows 49152 without opt-in (98304 with "
                     "cudaFuncAttributeMaxDynamicSharedMemorySize)");
  }
  SECTION("shared memory over the opt-in maximum") {
    // h100: 227 KB = 232448 B is the most a block may ask for: with the 1 KB reservation it
    // fills the SM's 228 KB exactly; one byte more rounds to 233600 > 233472.
    OccupancyResult fits = computeOccupancy(profile("h100"), {256, 32, 232448});
    CHECK(fits.blocksPerSM == 1);
    CHECK(fits.sharedPerBlockAllocated == 233472);
    OccupancyResult r = computeOccupancy(profile("h100"), {256, 32, 232449});
    CHECK(r.blocksPerSM == 0);
    CHECK(r.error == "too much shared memory requested for launch: 232449 bytes per block, the "
                     "device allows 232448");
    // g80: 16385 B rounds to 16896 > 16384.
    CHECK(computeOccupancy(profile("g80"), {64, 8, 16385}).error ==
          "too much shared memory requested for launch: 16385 bytes per block, the device allows "
          "16384");
  }
  SECTION("an empty block") {
    OccupancyResult r = computeOccupancy(profile("h100"), {0, 16, 0});
    CHECK(r.blocksPerSM == 0);
    CHECK(r.error == "invalid block size: 0 threads");
  }
}

TEST_CASE("occupancy: waves of blocks over the SMs", "[runtime][occupancy]") {
  SECTION("h100, 2 blocks per SM, 1000 blocks") {
    // One wave = 132 x 2 = 264 blocks; ceil(1000/264) = 4 waves; the last holds
    // 1000 - 3 x 264 = 208 blocks = 78.8% of a wave.
    Waves w = computeWaves(profile("h100"), 1000, 2);
    CHECK(w.blocks == 1000);
    CHECK(w.sms == 132);
    CHECK(w.blocksPerSM == 2);
    CHECK(w.waves == 4);
    CHECK(w.blocksInLastWave == 208);
    CHECK(w.lastWaveFullness == Approx(208.0 / 264.0));
    CHECK(w.lastWaveFullness == Approx(0.788).epsilon(0.001));
  }
  SECTION("exactly one full wave") {
    Waves w = computeWaves(profile("h100"), 264, 2);
    CHECK(w.waves == 1);
    CHECK(w.blocksInLastWave == 264);
    CHECK(w.lastWaveFullness == 1.0);
  }
  SECTION("g80, 3 blocks per SM, 100 blocks") {
    // One wave = 16 x 3 = 48; ceil(100/48) = 3 waves; the last holds 100 - 96 = 4 blocks.
    Waves w = computeWaves(profile("g80"), 100, 3);
    CHECK(w.waves == 3);
    CHECK(w.blocksInLastWave == 4);
    CHECK(w.lastWaveFullness == Approx(4.0 / 48.0));
  }
  SECTION("fewer blocks than SMs") {
    Waves w = computeWaves(profile("a100"), 50, 4);
    CHECK(w.waves == 1);
    CHECK(w.blocksInLastWave == 50);
    CHECK(w.lastWaveFullness == Approx(50.0 / 432.0));
  }
  SECTION("nothing to run") {
    CHECK(computeWaves(profile("h100"), 0, 2).waves == 0);
    Waves none = computeWaves(profile("h100"), 1000, 0);
    CHECK(none.waves == 0);
    CHECK(none.blocksInLastWave == 0);
    CHECK(none.lastWaveFullness == 0);
  }
}

TEST_CASE("occupancy: the table against block size", "[runtime][occupancy]") {
  std::string table = occupancyTable(profile("fermi"), 26, 0);
  // 32 rows (32 to 1024 threads) plus the title and the column header.
  CHECK(std::count(table.begin(), table.end(), '\n') == 34);
  CHECK(table.find("    416     13          2      26 of  48      54.2%  registers\n") !=
        std::string::npos);
  CHECK(table.find("     32      1          8       8 of  48      16.7%  blocks\n") !=
        std::string::npos);
  // On h100 at 65 registers, the 1024-thread block does not fit.
  std::string h100 = occupancyTable(profile("h100"), 65, 0);
  CHECK(h100.find("   1024     32          0       0 of  64       0.0%  registers (does not "
                  "fit)\n") != std::string::npos);
}

TEST_CASE("occupancy: the report names the binding limit", "[runtime][occupancy]") {
  const DeviceProfile &h100 = profile("h100");
  OccupancyInput input{256, 33, 0};
  std::string report = occupancyReport(h100, input, computeOccupancy(h100, input));
  CHECK(report == "device h100 (NVIDIA H100 SXM5 80 GB), compute capability 9.0\n"
                  "block: 256 threads (8 warps), 33 registers/thread, 0 bytes of shared memory\n"
                  "allocated per block: 10240 registers (1280 per warp, in units of 256), 1024 "
                  "bytes of shared memory (in units of 128, 1024 reserved by the system)\n"
                  "blocks per SM allowed by:\n"
                  "  warps             8  (64 warps/SM / 8 warps per block)\n"
                  "  registers         6  (65536 registers/SM)\n"
                  "  shared memory   228  (233472 bytes/SM)\n"
                  "  blocks           32  (max blocks/SM)\n"
                  "=> 6 blocks per SM, 48 of 64 warps active: occupancy 75.0% (limited by "
                  "registers)\n");

  const DeviceProfile &g80 = profile("g80");
  std::string seed = occupancyReport(g80, {256, 10, 0}, computeOccupancy(g80, {256, 10, 0}));
  CHECK(seed.find("  shared memory     -  (16384 bytes/SM)\n") != std::string::npos);
  CHECK(seed.find("=> 3 blocks per SM, 24 of 24 warps active: occupancy 100.0% (limited by "
                  "warps, also registers)\n") != std::string::npos);

  std::string failed = occupancyReport(h100, {1024, 65, 0}, computeOccupancy(h100, {1024, 65, 0}));
  CHECK(failed.find("\nerror: too many resources requested for launch: 65 registers per thread "
                    "x 1024 threads") != std::string::npos);
}
