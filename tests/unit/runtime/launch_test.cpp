// Unit tests of the Runtime's launch path on every profile (the 4 KB parameter limit, launch
// records with occupancy and waves, block placement), transfers on the modelled clock, events,
// streams, pinned memory and cudaGetDeviceProperties, with hand-written warp functions.
#include "runtime/errors.h"
#include "runtime/runtime.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <vector>

using namespace kern::runtime;

namespace {

std::atomic<int> gWarpsRun{0};

void countWarps(KernWarpCtx *) { gWarpsRun.fetch_add(1); }

/// A Runtime on `profile` whose messages go to `err`, with one kernel taking `paramBytes`.
struct Fixture {
  std::string out, err;
  Runtime rt;
  explicit Fixture(const char *profile, uint32_t paramBytes = 8, int regs = 0, unsigned workers = 1)
      : rt(makeOptions(profile, regs, workers)) {
    KernelInfo k;
    k.name = "k";
    k.fn = &countWarps;
    k.paramBytes = paramBytes;
    kern::backend::ProgramImage image;
    image.kernels = {k};
    rt.setProgram(std::move(image));
  }
  RuntimeOptions makeOptions(const char *profile, int regs, unsigned workers) {
    RuntimeOptions o;
    o.device = *findProfile(profile);
    o.registersPerThread = regs;
    o.workers = workers;
    o.deviceMemoryBytes = 1 << 30;
    o.out = [this](std::string_view s) { out += s; };
    o.err = [this](std::string_view s) { err += s; };
    return o;
  }
  int32_t launch(uint32_t gx, uint32_t bx, uint32_t paramBytes = 8, uint64_t shared = 0) {
    std::vector<uint8_t> params(paramBytes, 0);
    const uint32_t grid[3] = {gx, 1, 1}, block[3] = {bx, 1, 1};
    rt.launch(0, grid, block, shared, nullptr, params.data(), paramBytes, 0);
    return rt.cudaGetLastError();
  }
};

} // namespace

TEST_CASE("kernel parameter limit of every profile", "[runtime][launch]") {
  for (const DeviceProfile &p : builtinProfiles()) {
    const uint32_t limit = static_cast<uint32_t>(p.maxKernelParamBytes);
    INFO(p.name);
    {
      Fixture f(p.name.c_str(), limit);
      CHECK(f.launch(1, 32, limit) == cudaSuccess);
    }
    Fixture f(p.name.c_str(), limit + 4);
    CHECK(f.launch(1, 32, limit + 4) == cudaErrorInvalidValue);
    CHECK(f.err.find("launch of 'k': " + std::to_string(limit + 4) +
                     " bytes of kernel parameters exceed the limit of " + std::to_string(limit) +
                     " on " + p.name) != std::string::npos);
  }
}

TEST_CASE("per-thread local memory limit of every profile", "[runtime][launch]") {
  // A kernel whose local variables take a thread's whole local memory launches; 4 bytes more do
  // not (cudaErrorLaunchOutOfResources). Worked example: a `float a[65536]` (256 KiB a thread)
  // runs on an H100 (512 KiB a thread) and is refused on a G80 (16 KiB).
  for (const DeviceProfile &p : builtinProfiles()) {
    INFO(p.name);
    for (const uint64_t bytes : {p.localBytesPerThread, p.localBytesPerThread + 4}) {
      Fixture f(p.name.c_str());
      kern::backend::ProgramImage image;
      KernelInfo k;
      k.name = "k";
      k.fn = &countWarps;
      k.paramBytes = 8;
      k.localBytesPerThread = bytes;
      image.kernels = {k};
      f.rt.setProgram(std::move(image));
      if (bytes == p.localBytesPerThread) {
        CHECK(f.launch(1, 32) == cudaSuccess);
        continue;
      }
      CHECK(f.launch(1, 32) == cudaErrorLaunchOutOfResources);
      CHECK(f.err.find("launch of 'k': its local variables take " + std::to_string(bytes) +
                       " bytes per thread, more than the " +
                       std::to_string(p.localBytesPerThread / 1024) +
                       " KiB of local memory a thread has on " + p.name +
                       " (too many resources requested for launch)") != std::string::npos);
    }
  }
  CHECK(findProfile("h100")->localBytesPerThread == 512 * 1024);
  CHECK(findProfile("fermi")->localBytesPerThread == 512 * 1024);
  CHECK(findProfile("g80")->localBytesPerThread == 16 * 1024);
  CHECK(findProfile("h100")->localBytesPerThread >= 65536 * sizeof(float));
  CHECK(findProfile("g80")->localBytesPerThread < 65536 * sizeof(float));
}

TEST_CASE("launch records carry occupancy and waves", "[runtime][launch]") {
  // H100, 256 threads at the estimate of 32 registers: 8 warps x 32 x 32 = 8192 registers per
  // block, 8 blocks per SM by registers and by warps (64 warps / 8); 132 SMs x 8 = 1056 blocks a
  // wave. 2000 blocks: 2 waves, the last holding 944 blocks (89.4%).
  Fixture f("h100");
  gWarpsRun = 0;
  REQUIRE(f.launch(2000, 256) == cudaSuccess);
  CHECK(gWarpsRun == 2000 * 8);
  REQUIRE(f.rt.launches().size() == 1);
  const LaunchRecord &r = f.rt.launches()[0];
  CHECK(r.kernel == "k");
  CHECK(r.registersPerThread == 32);
  CHECK(r.registersSource == "estimate");
  CHECK(r.occupancy.blocksPerSM == 8);
  CHECK(r.waves.waves == 2);
  CHECK(r.waves.blocksInLastWave == 944);
  CHECK(r.waves.lastWaveFullness == Approx(944.0 / 1056.0));
  CHECK(r.modelledSeconds == 0);
  CHECK(r.error == cudaSuccess);
  REQUIRE(f.rt.timeline().size() == 1);
  CHECK(f.rt.timeline()[0].kind == TimelineEvent::Kind::Launch);
}

TEST_CASE("an estimated register count is lowered until a block fits", "[runtime][launch]") {
  // G80, 512 threads: 32 registers would need 16384 of the SM's 8192; 16 fit exactly.
  Fixture f("g80");
  REQUIRE(f.launch(1, 512) == cudaSuccess);
  CHECK(f.rt.launches()[0].registersPerThread == 16);
  CHECK(f.rt.launches()[0].registersSource == "estimate, lowered to fit");
  // The same launch with --regs 32 fails: the user's number is not an estimate.
  Fixture g("g80", 8, 32);
  CHECK(g.launch(1, 512) == cudaErrorLaunchOutOfResources);
  CHECK(g.err.find("32 registers per thread x 512 threads = 16384 registers, the SM has 8192 "
                   "on g80") != std::string::npos);
  CHECK(g.rt.launches()[0].error == cudaErrorLaunchOutOfResources);
}

TEST_CASE("blocks are placed on SMs wave by wave", "[runtime][launch]") {
  // 4 SMs x 2 blocks per SM: a wave of 8; blocks 0,1 on SM 0, 2,3 on SM 1 ..., 8 starts wave 1.
  CHECK(placeBlock(0, 4, 2).sm == 0);
  CHECK(placeBlock(1, 4, 2).sm == 0);
  CHECK(placeBlock(1, 4, 2).slot == 1);
  CHECK(placeBlock(2, 4, 2).sm == 1);
  CHECK(placeBlock(7, 4, 2).sm == 3);
  CHECK(placeBlock(8, 4, 2).wave == 1);
  CHECK(placeBlock(8, 4, 2).sm == 0);
  CHECK(placeBlock(13, 4, 2).sm == 2);
}

TEST_CASE("transfers advance the modelled clock and events read it", "[runtime][transfers]") {
  Fixture f("gt200");
  const uint64_t n = 8000000;
  void *d = nullptr, *pinned = nullptr;
  REQUIRE(f.rt.cudaMalloc(&d, n) == cudaSuccess);
  REQUIRE(f.rt.cudaMallocHost(&pinned, n) == cudaSuccess);
  std::vector<uint8_t> pageable(n);
  void *start = nullptr, *stop = nullptr, *stream = nullptr;
  REQUIRE(f.rt.cudaEventCreate(&start) == cudaSuccess);
  REQUIRE(f.rt.cudaEventCreate(&stop) == cudaSuccess);
  REQUIRE(f.rt.cudaStreamCreate(&stream) == cudaSuccess);
  REQUIRE(f.rt.cudaEventRecord(start, nullptr) == cudaSuccess);
  REQUIRE(f.rt.cudaMemcpy(d, pinned, n, 1) == cudaSuccess);
  REQUIRE(f.launch(4, 32) == cudaSuccess);
  REQUIRE(f.rt.cudaMemcpyAsync(pageable.data(), d, n, 2, stream) == cudaSuccess);
  // Device to device: no transfer, but the SMs' time (a launch's fixed cost, 5 us on gt200,
  // and 32 bytes at DRAM's rate), after the stream's copy (the legacy stream waits for it).
  REQUIRE(f.rt.cudaMemcpy(d, d, 16, 3) == cudaSuccess);
  REQUIRE(f.rt.cudaEventRecord(stop, stream) == cudaSuccess);
  float ms = 0;
  REQUIRE(f.rt.cudaEventElapsedTime(&ms, start, stop) == cudaSuccess);
  // 10 us + 8e6 / (8e9 x 0.7) pinned, 10 us + 8e6 / (8e9 x 0.4) pageable, then the copy.
  CHECK(ms == Approx(1.438571 + 2.51 + 0.005).epsilon(1e-5));
  REQUIRE(f.rt.transfers().size() == 2);
  CHECK(f.rt.transfers()[0].pinned);
  CHECK(f.rt.transfers()[0].direction == TransferDirection::HostToDevice);
  CHECK(!f.rt.transfers()[1].pinned);
  CHECK(f.rt.transfers()[1].api == "cudaMemcpyAsync");
  CHECK(f.rt.transfers()[1].startSeconds == Approx(0.001438571).epsilon(1e-5));
  // One timeline: transfer, launch, transfer.
  REQUIRE(f.rt.timeline().size() == 3);
  CHECK(f.rt.timeline()[0].kind == TimelineEvent::Kind::Transfer);
  CHECK(f.rt.timeline()[1].kind == TimelineEvent::Kind::Launch);
  CHECK(f.rt.timeline()[2].kind == TimelineEvent::Kind::Transfer);
  CHECK(f.rt.modelledClock() == Approx(0.001438571 + 0.00251 + 0.000005).epsilon(1e-5));

  REQUIRE(f.rt.cudaStreamDestroy(stream) == cudaSuccess);
  CHECK(f.rt.cudaStreamDestroy(stream) == cudaErrorInvalidResourceHandle);
  CHECK(f.rt.cudaEventRecord(start, stream) == cudaErrorInvalidResourceHandle);
  CHECK(f.rt.cudaFreeHost(pinned) == cudaSuccess);
  CHECK(f.rt.cudaFreeHost(pageable.data()) == cudaErrorInvalidValue);
}

TEST_CASE("cudaGetDeviceProperties follows the profile", "[runtime][device]") {
  for (const DeviceProfile &p : builtinProfiles()) {
    INFO(p.name);
    Fixture f(p.name.c_str());
    KernDeviceProp prop;
    REQUIRE(f.rt.cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
    CHECK(std::string(prop.name) == p.marketingName + " (kern model)");
    CHECK(prop.major == p.ccMajor);
    CHECK(prop.minor == p.ccMinor);
    CHECK(prop.multiProcessorCount == p.smCount);
    CHECK(prop.maxGridSize[2] == p.maxGridZ);
    CHECK(prop.sharedMemPerBlock == p.sharedPerBlockDefault);
    CHECK(prop.unifiedAddressing == (p.ccMajor >= 2 ? 1 : 0));
    CHECK(prop.managedMemory == (p.ccMajor >= 3 ? 1 : 0));
    CHECK(f.rt.cudaGetDeviceProperties(&prop, 1) == cudaErrorInvalidDevice);
  }
  Fixture h("h100"), a("a100"), v("v100"), fermi("fermi");
  KernDeviceProp prop;
  h.rt.cudaGetDeviceProperties(&prop, 0);
  CHECK(prop.l2CacheSize == 50 << 20);
  a.rt.cudaGetDeviceProperties(&prop, 0);
  CHECK(prop.l2CacheSize == 40 << 20);
  v.rt.cudaGetDeviceProperties(&prop, 0);
  CHECK(prop.l2CacheSize == 6 << 20);
  fermi.rt.cudaGetDeviceProperties(&prop, 0);
  CHECK(prop.l2CacheSize == 768 << 10);
}

TEST_CASE("the launch's stream must be valid", "[runtime][streams]") {
  Fixture f("h100");
  int notAStream = 0;
  const uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  uint64_t param = 0;
  f.rt.launch(0, grid, block, 0, &notAStream, reinterpret_cast<uint8_t *>(&param), 8, 0);
  CHECK(f.rt.cudaGetLastError() == cudaErrorInvalidResourceHandle);
  CHECK(f.rt.launches().back().error == cudaErrorInvalidResourceHandle);
}
