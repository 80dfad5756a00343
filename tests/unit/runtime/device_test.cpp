// Unit tests of the device profiles: the built-in values, validation, user profiles in JSON and
// their error messages, the summary line, and the PCIe transfer model's fit.
#include "runtime/device.h"

#include <catch2/catch.hpp>

#include <string>

using namespace kern::runtime;

namespace {

const DeviceProfile &profile(const char *name) {
  const DeviceProfile *p = findProfile(name);
  REQUIRE(p != nullptr);
  return *p;
}

/// Parses `json`, expecting failure, and returns the error message.
std::string parseError(const std::string &json) {
  DeviceProfile out;
  std::string error;
  CHECK_FALSE(parseProfileJson(json, out, error));
  return error;
}

/// A profile on top of h100 with one more field: `"name": "x", <extra>`.
std::string h100With(const std::string &extra) {
  return R"({"base": "h100", "name": "x", )" + extra + "}";
}

// A complete profile without "base": an H100 PCIe card (114 SMs, 1755 MHz boost, PCIe 5.0).
const char *kH100Pcie = R"({
  "name": "h100-pcie",
  "marketingName": "NVIDIA H100 PCIe 80 GB",
  "ccMajor": 9, "ccMinor": 0,
  "smCount": 114,
  "warpSize": 32,
  "maxThreadsPerBlock": 1024, "maxThreadsPerSM": 2048, "maxBlocksPerSM": 32,
  "registersPerSM": 65536, "registersPerBlock": 65536, "maxRegistersPerThread": 255,
  "registerAllocation": "PerWarp", "registerAllocationUnit": 256, "warpAllocationGranularity": 4,
  "sharedPerSM": 233472, "sharedPerBlockDefault": 49152, "sharedPerBlockOptIn": 232448,
  "sharedAllocationUnit": 128, "sharedReservedPerBlock": 1024,
  "sharedBanks": 32, "bankRule": "WarpMulticast", "globalRule": "Sectors",
  "maxGridX": 2147483647, "maxGridY": 65535, "maxGridZ": 65535,
  "maxBlockX": 1024, "maxBlockY": 1024, "maxBlockZ": 64,
  "maxKernelParamBytes": 32764, "localBytesPerThread": 524288, "constantMemoryBytes": 65536,
  "clockRateKHz": 1755000, "memoryBytes": 85899345920,
  "memoryClockKHz": 1593000, "memoryBusWidthBits": 5120,
  "pcieGeneration": 5, "pcieLanes": 16, "pcieBandwidth": 63e9,
  "transferLatencyUs": 10, "pinnedEfficiency": 0.87, "pageableEfficiency": 0.22,
  "pageableKneeBytes": 16777216, "pageableBeyondKneeEfficiency": 0.183,
  "issueRate": 4, "fp64PerCycle": 2, "xuPerCycle": 0.5, "aduPerCycle": 0.5,
  "dependentIssueCycles": 4, "sharedWavefrontsPerCycle": 1,
  "sharedLatencyCycles": 29, "l2LatencyCycles": 282, "dramLatencyCycles": 605,
  "l1LatencyCycles": 40, "l1Bytes": 262144,
  "l2Bytes": 52428800, "l2Bandwidth": 11.0e12, "l2PartialSectorsPerCycle": 40.4,
  "dramEfficiency": 0.88, "atomicsPerCycle": 272,
  "atomicUnitsPerCycle": 48.7, "atomicChunkPassesPerCycle": 0.69, "atomicReturnCost": 1.28,
  "barrierCycles": 13, "barrierCyclesPerWarp": 2, "dramAccessBytes": 64, "launchOverheadUs": 1.5
})";

} // namespace

TEST_CASE("device: the built-in profiles, in order", "[runtime][device]") {
  const auto &profiles = builtinProfiles();
  REQUIRE(profiles.size() == 6);
  const char *names[] = {"g80", "gt200", "fermi", "v100", "a100", "h100"};
  for (size_t i = 0; i < 6; ++i)
    CHECK(profiles[i].name == names[i]);
  CHECK(findProfile("h200") == nullptr);
  CHECK(findProfile("") == nullptr);
  CHECK(findProfile(kDefaultProfileName) == &profiles[5]);
}

TEST_CASE("device: every built-in profile is valid and reads back from its JSON",
          "[runtime][device]") {
  for (const DeviceProfile &p : builtinProfiles()) {
    INFO(p.name);
    std::string error;
    CHECK(validateProfile(p, error));
    CHECK(error == "");
    DeviceProfile back;
    CHECK(parseProfileJson(profileToJson(p), back, error));
    CHECK(error == "");
    CHECK(back == p);
  }
}

TEST_CASE("device: key numbers of each profile", "[runtime][device]") {
  // HARDWARE-MODEL.md's table and the paragraph below it.
  struct Expected {
    const char *name;
    int ccMajor, ccMinor, sms, maxThreadsPerBlock, maxThreadsPerSM, maxWarps, maxBlocks, registers,
        maxRegsPerThread;
    uint64_t sharedPerSM, sharedDefault, sharedOptIn;
    int banks;
    BankRule bankRule;
    GlobalRule globalRule;
    RegisterAllocation allocation;
    int regUnit, warpGranularity;
    uint64_t sharedUnit, reserved;
    int gridX, gridZ, blockX;
    uint64_t paramBytes;
    int pcieGeneration;
    double pcieBandwidth;
  };
  const Expected expected[] = {
      {"g80",
       1,
       0,
       16,
       512,
       768,
       24,
       8,
       8192,
       124,
       16384,
       16384,
       16384,
       16,
       BankRule::HalfWarp,
       GlobalRule::Cc10,
       RegisterAllocation::PerBlock,
       256,
       2,
       512,
       0,
       65535,
       1,
       512,
       256,
       1,
       4e9},
      {"gt200",
       1,
       3,
       30,
       512,
       1024,
       32,
       8,
       16384,
       124,
       16384,
       16384,
       16384,
       16,
       BankRule::HalfWarp,
       GlobalRule::Cc12,
       RegisterAllocation::PerBlock,
       512,
       2,
       512,
       0,
       65535,
       1,
       512,
       256,
       2,
       8e9},
      {"fermi",
       2,
       0,
       14,
       1024,
       1536,
       48,
       8,
       32768,
       63,
       49152,
       49152,
       49152,
       32,
       BankRule::WarpMulticast,
       GlobalRule::Cc2x,
       RegisterAllocation::PerWarp,
       64,
       2,
       128,
       0,
       65535,
       65535,
       1024,
       4096,
       2,
       8e9},
      {"v100",
       7,
       0,
       80,
       1024,
       2048,
       64,
       32,
       65536,
       255,
       98304,
       49152,
       98304,
       32,
       BankRule::WarpMulticast,
       GlobalRule::Sectors,
       RegisterAllocation::PerWarp,
       256,
       4,
       256,
       0,
       2147483647,
       65535,
       1024,
       32764,
       3,
       15.75e9},
      {"a100",
       8,
       0,
       108,
       1024,
       2048,
       64,
       32,
       65536,
       255,
       167936,
       49152,
       166912,
       32,
       BankRule::WarpMulticast,
       GlobalRule::Sectors,
       RegisterAllocation::PerWarp,
       256,
       4,
       128,
       1024,
       2147483647,
       65535,
       1024,
       32764,
       4,
       31.5e9},
      {"h100",
       9,
       0,
       132,
       1024,
       2048,
       64,
       32,
       65536,
       255,
       233472,
       49152,
       232448,
       32,
       BankRule::WarpMulticast,
       GlobalRule::Sectors,
       RegisterAllocation::PerWarp,
       256,
       4,
       128,
       1024,
       2147483647,
       65535,
       1024,
       32764,
       5,
       63e9},
  };
  for (const Expected &e : expected) {
    INFO(e.name);
    const DeviceProfile &p = profile(e.name);
    CHECK(p.ccMajor == e.ccMajor);
    CHECK(p.ccMinor == e.ccMinor);
    CHECK(p.smCount == e.sms);
    CHECK(p.warpSize == 32);
    CHECK(p.maxThreadsPerBlock == e.maxThreadsPerBlock);
    CHECK(p.maxThreadsPerSM == e.maxThreadsPerSM);
    CHECK(p.maxWarpsPerSM() == e.maxWarps);
    CHECK(p.maxBlocksPerSM == e.maxBlocks);
    CHECK(p.registersPerSM == e.registers);
    CHECK(p.registersPerBlock == e.registers);
    CHECK(p.maxRegistersPerThread == e.maxRegsPerThread);
    CHECK(p.sharedPerSM == e.sharedPerSM);
    CHECK(p.sharedPerBlockDefault == e.sharedDefault);
    CHECK(p.sharedPerBlockOptIn == e.sharedOptIn);
    CHECK(p.sharedBanks == e.banks);
    CHECK(p.bankRule == e.bankRule);
    CHECK(p.globalRule == e.globalRule);
    CHECK(p.registerAllocation == e.allocation);
    CHECK(p.registerAllocationUnit == e.regUnit);
    CHECK(p.warpAllocationGranularity == e.warpGranularity);
    CHECK(p.sharedAllocationUnit == e.sharedUnit);
    CHECK(p.sharedReservedPerBlock == e.reserved);
    CHECK(p.maxGridX == e.gridX);
    CHECK(p.maxGridY == 65535);
    CHECK(p.maxGridZ == e.gridZ);
    CHECK(p.maxBlockX == e.blockX);
    CHECK(p.maxBlockY == e.blockX);
    CHECK(p.maxBlockZ == 64);
    CHECK(p.maxKernelParamBytes == e.paramBytes);
    CHECK(p.localBytesPerThread == (p.ccMajor == 1 ? 16384u : 524288u));
    CHECK(p.constantMemoryBytes == 65536);
    CHECK(p.pcieGeneration == e.pcieGeneration);
    CHECK(p.pcieLanes == 16);
    CHECK(p.pcieBandwidth == e.pcieBandwidth);
  }
  CHECK(profile("h100").memoryBytes == 80ull << 30);
  CHECK(profile("h100").clockRateKHz == 1980000);
  CHECK(profile("g80").memoryBytes == 768ull << 20);
  CHECK(profile("g80").marketingName == "NVIDIA GeForce 8800 GTX");
}

TEST_CASE("device: a complete profile in JSON", "[runtime][device]") {
  DeviceProfile p;
  std::string error;
  REQUIRE(parseProfileJson(kH100Pcie, p, error));
  CHECK(error == "");
  CHECK(p.name == "h100-pcie");
  CHECK(p.marketingName == "NVIDIA H100 PCIe 80 GB");
  CHECK(p.smCount == 114);
  CHECK(p.clockRateKHz == 1755000);
  CHECK(p.memoryBytes == 85899345920ull);
  CHECK(p.pcieBandwidth == 63e9);
  CHECK(p.registerAllocation == RegisterAllocation::PerWarp);
  // Everything else is an h100.
  DeviceProfile h100 = profile("h100");
  h100.name = p.name;
  h100.marketingName = p.marketingName;
  h100.smCount = p.smCount;
  h100.clockRateKHz = p.clockRateKHz;
  h100.memoryClockKHz = p.memoryClockKHz;
  CHECK(p == h100);
}

TEST_CASE("device: a built-in base with overrides", "[runtime][device]") {
  DeviceProfile p;
  std::string error;
  REQUIRE(parseProfileJson(R"({"base": "gt200", "name": "tesla-c1060",
      "marketingName": "NVIDIA Tesla C1060", "memoryBytes": 4294967296,
      "clockRateKHz": 1296000, "pcieGeneration": 2})",
                           p, error));
  CHECK(p.name == "tesla-c1060");
  CHECK(p.marketingName == "NVIDIA Tesla C1060");
  CHECK(p.memoryBytes == 4ull << 30);
  CHECK(p.smCount == 30);
  CHECK(p.registerAllocationUnit == 512);
  CHECK(p.bankRule == BankRule::HalfWarp);
  // Escapes in strings, and whitespace of every kind.
  REQUIRE(parseProfileJson("{\r\n\t\"base\" : \"h100\", \"name\": \"q\", \"marketingName\": "
                           "\"A \\\"quoted\\\" caf\\u00e9 \\ud83d\\ude80\"}",
                           p, error));
  CHECK(p.marketingName == "A \"quoted\" caf\xc3\xa9 \xf0\x9f\x9a\x80");
}

TEST_CASE("device: bad profiles and their messages", "[runtime][device]") {
  // Field values.
  CHECK(parseError(h100With(R"("smCount": 0)")) == "field 'smCount' must be positive, got 0");
  CHECK(parseError(h100With(R"("warpSize": 64)")) == "field 'warpSize' must be 32, got 64");
  CHECK(parseError(h100With(R"("sharedAllocationUnit": 100)")) ==
        "field 'sharedAllocationUnit' must be a power of two, got 100");
  CHECK(parseError(h100With(R"("maxThreadsPerBlock": 4096)")) ==
        "field 'maxThreadsPerBlock' (4096) must not exceed field 'maxThreadsPerSM' (2048)");
  CHECK(parseError(h100With(R"("maxThreadsPerBlock": 1000)")) ==
        "field 'maxThreadsPerBlock' must be a multiple of 32, got 1000");
  CHECK(parseError(h100With(R"("sharedPerBlockOptIn": 240000)")) ==
        "field 'sharedPerBlockOptIn' (240000) plus field 'sharedReservedPerBlock' (1024) must "
        "not exceed field 'sharedPerSM' (233472)");
  CHECK(parseError(h100With(R"("sharedBanks": 16)")) ==
        "field 'sharedBanks' must be 32 with bankRule WarpMulticast, got 16");
  CHECK(parseError(h100With(R"("pinnedEfficiency": 1.5)")) ==
        "field 'pinnedEfficiency' must be in (0, 1], got 1.5");
  CHECK(parseError(h100With(R"("pcieLanes": 3)")) ==
        "field 'pcieLanes' must be 1, 2, 4, 8, 16 or 32, got 3");
  CHECK(parseError(h100With(R"("smCount": -4)")) == "field 'smCount' must be positive, got -4");
  CHECK(parseError(h100With(R"("sharedPerSM": -1)")) ==
        "field 'sharedPerSM' must not be negative, got -1");
  CHECK(parseError(R"({"base": "h100", "name": "my gpu"})") ==
        "field 'name' must be letters, digits, '.', '-' or '_', got \"my gpu\"");
  // Field types.
  CHECK(parseError(h100With(R"("smCount": 1.5)")) == "field 'smCount' must be an integer, got 1.5");
  CHECK(parseError(h100With(R"("smCount": "many")")) ==
        "field 'smCount' must be an integer, got \"many\"");
  CHECK(parseError(h100With(R"("marketingName": true)")) ==
        "field 'marketingName' must be a string, got true");
  CHECK(parseError(h100With(R"("bankRule": "Quarter")")) ==
        "field 'bankRule' must be \"HalfWarp\" or \"WarpMulticast\", got \"Quarter\"");
  CHECK(parseError(h100With(R"("globalRule": 3)")) ==
        "field 'globalRule' must be \"Cc10\", \"Cc12\", \"Cc2x\" or \"Sectors\", got 3");
  CHECK(parseError(h100With(R"("maxGridX": 4294967296)")) ==
        "field 'maxGridX' is too large, got 4294967296");
  // Fields.
  CHECK(parseError(h100With(R"("smCounts": 4)")) ==
        "unknown field 'smCounts'; did you mean 'smCount'?");
  CHECK(parseError(h100With(R"("frobnication": 4)")) == "unknown field 'frobnication'");
  CHECK(parseError(h100With(R"("smCount": 4, "smCount": 5)")) == "duplicate field 'smCount'");
  CHECK(parseError(R"({"base": "h200", "name": "x"})") ==
        "unknown base profile 'h200' (built-in profiles: g80, gt200, fermi, v100, a100, h100)");
  CHECK(parseError(R"({"base": "h100", "smCount": 4})") == "missing field 'name'");
  CHECK(parseError(R"({"name": "x", "smCount": 4})") ==
        "missing field 'marketingName' (without \"base\", every field must be given)");
  // JSON syntax, with the line and column of the problem.
  CHECK(parseError("") == "line 1, column 1: expected '{' at the start of a device profile");
  CHECK(parseError(R"({"name": "x",})") == "line 1, column 14: expected a field name in quotes");
  CHECK(parseError("{\n  \"name\": \"x\"\n  \"smCount\": 4\n}") ==
        "line 3, column 3: expected ',' or '}' after a field");
  CHECK(parseError(R"({"name": "x"} trailing)") ==
        "line 1, column 15: unexpected text after the profile object");
  CHECK(parseError(R"({"name": "x)") == "line 1, column 12: invalid string: missing closing quote");
  CHECK(parseError(R"({"smCount": 01})") == "line 1, column 14: expected ',' or '}' after a field");
  CHECK(parseError(R"({"smCount": -})") ==
        "line 1, column 14: invalid number; expected digit after '-'");
  CHECK(parseError(R"({"smCount": nul})") ==
        "line 1, column 13: expected a value (a string, a number, true or false)");
  CHECK(parseError(R"({"smCount": })") ==
        "line 1, column 13: expected a value (a string, a number, true or false)");
  CHECK(parseError(R"({"smCount" 4})") == "line 1, column 12: expected ':' after the field name");
  CHECK(parseError(R"({'smCount': 4})") == "line 1, column 2: expected a field name in quotes");
  CHECK(parseError("{\"name\": \"x\ny\"}") ==
        "line 1, column 12: invalid string: control character U+000A (LF) must be escaped to "
        "\\u000A or \\n");
  CHECK(parseError(R"({"name": "\q"})") ==
        "line 1, column 12: invalid string: forbidden character after backslash");
  CHECK(parseError(R"({"name": "\ud83d"})") ==
        "line 1, column 17: invalid string: surrogate U+D800..U+DBFF must be followed by "
        "U+DC00..U+DFFF");
  CHECK(parseError("{\"name\": \"\xff\"}") ==
        "line 1, column 11: invalid string: ill-formed UTF-8 byte");
  CHECK(parseError("[1, 2]") == "line 1, column 1: expected '{' at the start of a device profile");
  CHECK(parseError("\n  \"h100\"") ==
        "line 2, column 3: expected '{' at the start of a device profile");
  CHECK(parseError(R"({"name": "x"}{})") ==
        "line 1, column 14: unexpected text after the profile object");
  // Values the syntax allows and a profile does not: nesting, null, numbers out of range.
  CHECK(parseError(R"({"name": ["x"]})") == "field 'name' must be a string, got an array");
  CHECK(parseError(h100With(R"("smCount": {"x": [1]})")) ==
        "field 'smCount' must be an integer, got an object");
  CHECK(parseError(R"({"base": {}, "name": "x"})") ==
        "field 'base' must be the name of a built-in profile, got an object");
  CHECK(parseError(R"({"smCount": null})") == "field 'smCount' must be an integer, got null");
  CHECK(parseError(h100With(R"("memoryBytes": 99999999999999999999)")) ==
        "field 'memoryBytes' is too large, got 99999999999999999999");
  CHECK(parseError(h100With(R"("memoryBytes": -99999999999999999999)")) ==
        "field 'memoryBytes' must not be negative, got -99999999999999999999");
  CHECK(parseError(h100With(R"("pcieBandwidth": 1e400)")) ==
        "field 'pcieBandwidth' is out of range, got 1e400");
  CHECK(parseError(h100With(R"("pcieBandwidth": "fast")")) ==
        "field 'pcieBandwidth' must be a number, got \"fast\"");
}

TEST_CASE("device: a failed parse leaves the profile unchanged", "[runtime][device]") {
  DeviceProfile p = profile("fermi");
  std::string error;
  CHECK_FALSE(parseProfileJson(h100With(R"("smCount": 0)"), p, error));
  CHECK(p == profile("fermi"));
}

TEST_CASE("device: validation of a profile built in code", "[runtime][device]") {
  DeviceProfile p = profile("v100");
  std::string error;
  p.registersPerBlock = 131072;
  CHECK_FALSE(validateProfile(p, error));
  CHECK(error == "field 'registersPerBlock' (131072) must not exceed field 'registersPerSM' "
                 "(65536)");
  p = profile("g80");
  p.sharedBanks = 32;
  CHECK_FALSE(validateProfile(p, error));
  CHECK(error == "field 'sharedBanks' must be 16 with bankRule HalfWarp, got 32");
  CHECK_FALSE(validateProfile(DeviceProfile{}, error));
  CHECK(error == "field 'name' must not be empty");
}

TEST_CASE("device: the summary line of kern devices", "[runtime][device]") {
  CHECK(profileSummary(profile("h100")) ==
        "h100   NVIDIA H100 SXM5 80 GB       cc 9.0, 132 SMs, 2048 threads/SM, 32 blocks/SM, "
        "65536 regs/SM, 228 KB shared/SM (227 KB/block), 80 GB, PCIe 5.0 x16");
  CHECK(profileSummary(profile("g80")) ==
        "g80    NVIDIA GeForce 8800 GTX      cc 1.0,  16 SMs,  768 threads/SM,  8 blocks/SM,  "
        "8192 regs/SM, 16 KB shared/SM (16 KB/block), 768 MB, PCIe 1.0 x16");
}

TEST_CASE("device: the h100 transfer model reproduces the measured host", "[runtime][device]") {
  // TARGETS.md, "Fidelity": pinned host->device about 35-37 GB/s at 1 MiB and 52-54 GB/s at
  // 16 MiB, a 4 KiB copy about 10 us; within 15%. Pageable: the H200 host of
  // tests/gpu/pcie/ (docs/devices.md), by size and direction.
  const DeviceProfile &h100 = profile("h100");
  auto gbPerSecond = [&](uint64_t bytes, bool pinned, bool toDevice = true) {
    return double(bytes) / transferSeconds(h100, bytes, pinned, toDevice) / 1e9;
  };
  CHECK(gbPerSecond(1 << 20, true) == Approx(36.0).epsilon(0.15));
  CHECK(gbPerSecond(1 << 20, true) > 35.0);
  CHECK(gbPerSecond(1 << 20, true) < 37.0);
  CHECK(gbPerSecond(16 << 20, true) == Approx(53.0).epsilon(0.15));
  CHECK(gbPerSecond(16 << 20, true) > 52.0);
  CHECK(gbPerSecond(16 << 20, true) < 54.0);
  CHECK(transferSeconds(h100, 4096, true, true) * 1e6 == Approx(10.0).epsilon(0.15));
  // The formula itself: 10 us + 1 MiB / (63 GB/s x 0.87); a pinned copy has no knee.
  CHECK(transferSeconds(h100, 1 << 20, true, true) == Approx(10e-6 + 1048576.0 / (63e9 * 0.87)));
  CHECK(transferSeconds(h100, 256 << 20, true, true) ==
        Approx(10e-6 + 268435456.0 / (63e9 * 0.87)));
  // Pageable, measured (GB/s): host->device 11.7 at 1 MiB, 13.1-13.7 at 16 MiB, 7.2-7.3 at
  // 64 MiB, 6.6-7.0 at 256 MiB; device->host 13.6 at 16 MiB, 13.2-14.6 at 256 MiB.
  CHECK(gbPerSecond(1 << 20, false) == Approx(11.7).epsilon(0.1));
  CHECK(gbPerSecond(16 << 20, false) == Approx(13.4).epsilon(0.1));
  CHECK(gbPerSecond(64 << 20, false) == Approx(7.3).epsilon(0.1));
  CHECK(gbPerSecond(256 << 20, false) == Approx(6.8).epsilon(0.1));
  CHECK(gbPerSecond(16 << 20, false, false) == Approx(13.6).epsilon(0.1));
  CHECK(gbPerSecond(256 << 20, false, false) == Approx(13.9).epsilon(0.1));
  // The worked example of docs/devices.md: 64 MiB pageable host->device is 10 us +
  // 67108864 / (63e9 x 0.22) + (67108864 - 16777216) / (63e9 x 0.183) = 9217.6 us.
  CHECK(transferSeconds(h100, 64 << 20, false, true) * 1e6 == Approx(9217.6).epsilon(1e-4));
  CHECK(transferSeconds(h100, 64 << 20, false, false) * 1e6 == Approx(4851.9).epsilon(1e-4));
}
