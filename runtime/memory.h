// Device memory of a kern program: one reserved virtual region that plays the GPU's global
// memory (cudaMalloc), with the table of its allocations and the shadow map kernels check.
// The host's memory is host_heap.h's.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kern::runtime {

/// A block of memory handed out: [base, base + size).
struct Allocation {
  uint64_t base = 0;
  uint64_t size = 0;
  uint64_t end() const { return base + size; }
};

/// The device's global memory. Addresses are deterministic: the same program gets the same
/// addresses on every run (a fixed reservation address where the OS allows it, first-fit
/// reuse of freed ranges), so fault messages and printed pointers are reproducible.
class DeviceMemory {
public:
  /// cudaMalloc's guarantee (CUDA programming guide: "aligned to at least 256 bytes").
  static constexpr uint64_t kAlignment = 256;
  /// Unused bytes after every allocation: an overrun by a few elements lands in the gap,
  /// outside every allocation, where it is detected instead of corrupting a neighbour.
  static constexpr uint64_t kGuard = 256;
  /// Where the reservation goes if that range is free: far from the host heap and stacks,
  /// so that a device address never looks like a host address.
  static constexpr uint64_t kHintAddress = 0x200000000000ull;

  /// The unit of the host-visible arena (see Arena::HostVisible): its allocations start on
  /// and fill whole units, so that a unit belongs to one allocation (managed memory migrates
  /// by units of this size, and host-side protection works on whole pages).
  static constexpr uint64_t kHostVisibleUnit = 64 * 1024;

  /// The region has two arenas. Device: cudaMalloc's memory, which only kernels may touch.
  /// HostVisible (after it): memory both the host and kernels may touch, cudaMallocManaged's
  /// and mapped pinned memory (cudaHostAllocMapped).
  enum class Arena { Device, HostVisible };

  /// Reserves `bytes` of device address space and as much again for the host-visible arena
  /// (MAP_NORESERVE: nothing is committed until touched). Where the process may not have that
  /// much address space, the largest half, quarter... that it may (deviceCapacity() says).
  explicit DeviceMemory(uint64_t bytes);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;

  /// False if the reservation failed (then every allocation fails).
  bool isValid() const { return lo_ != 0; }
  /// Returns the base of a new zero-filled allocation, or 0 if the device is out of memory.
  /// `size` must be nonzero.
  uint64_t allocate(uint64_t size, Arena arena = Arena::Device);
  /// Frees the allocation whose base is `base`; false if there is none.
  bool release(uint64_t base);
  /// Frees every allocation (cudaDeviceReset) except those in `keep`.
  void releaseAllExcept(const std::set<uint64_t> &keep);

  /// The live allocation containing `addr`, or null.
  const Allocation *find(uint64_t addr) const;
  /// The freed allocation (not reused since) that contained `addr`, or null.
  const Allocation *findFreed(uint64_t addr) const;
  /// Whether `addr` lies in the device arena (memory host code may not touch, live or not).
  bool contains(uint64_t addr) const { return addr >= lo_ && addr < mid_; }
  /// Whether `addr` lies in the host-visible arena (live or not).
  bool hostVisible(uint64_t addr) const { return addr >= mid_ && addr < hi_; }
  /// The whole region, both arenas: what kernels may address.
  uint64_t lo() const { return lo_; }
  uint64_t hi() const { return hi_; }
  /// The end of the device arena (the start of the host-visible one).
  uint64_t deviceHi() const { return mid_; }
  /// Bytes allocated in the device arena (cudaMemGetInfo).
  uint64_t deviceBytesInUse() const;
  /// The bytes the device arena holds (0 if nothing could be reserved).
  uint64_t deviceCapacity() const { return mid_ - lo_; }
  /// The shadow map compiled kernels check every global access against: one entry per
  /// kShadowGranule bytes of the region, holding the end address of the live allocation that
  /// covers the granule (0 if none). Allocations are 256-aligned, so an access of `s` bytes at
  /// `a` is inside one iff a + s <= shadow[(a - lo) / 256]; a warp whose lanes span [min, max]
  /// is inside one iff max + s <= shadow[(min - lo) / 256] (allocations are contiguous).
  const uint64_t *shadow() const { return shadow_; }
  static constexpr uint64_t kShadowGranule = 256;
  const std::map<uint64_t, Allocation> &live() const { return live_; }

  /// Where `addr` (an access of `size` bytes) lies relative to the allocations, for fault
  /// messages: "4 bytes past the end of a 4096-byte allocation at 0x200000000000". Empty if
  /// there is nothing useful to say.
  std::string describe(uint64_t addr, uint64_t size) const;

private:
  /// Reserves the two arenas of `bytes` each; false if the address space is not to be had.
  bool reserve(uint64_t bytes);
  struct ArenaState {
    uint64_t lo = 0, hi = 0;
    uint64_t top = 0;                        // everything above was never handed out
    std::map<uint64_t, uint64_t> freeRanges; // base -> length, below top, coalesced
  };
  ArenaState &arenaOf(uint64_t addr) { return addr < mid_ ? device_ : visible_; }
  uint64_t footprint(uint64_t base, uint64_t size) const;
  void addFreeRange(uint64_t base, uint64_t len);
  void clearRange(uint64_t base, uint64_t len);
  void markShadow(uint64_t base, uint64_t size, bool live);

  uint64_t lo_ = 0, mid_ = 0, hi_ = 0;
  ArenaState device_, visible_;
  uint64_t *shadow_ = nullptr; // (hi_ - lo_) / kShadowGranule entries, reserved like the region
  uint64_t shadowBytes_ = 0;
  std::map<uint64_t, Allocation> live_;  // by base
  std::map<uint64_t, Allocation> freed_; // freed and not reused, for use-after-free messages
};

/// "0x200000000000": how kern prints addresses in messages.
std::string hexAddress(uint64_t addr);
/// "[0x..., 0x...)": the half-open range [addr, addr + n) in messages.
std::string hexRange(uint64_t addr, uint64_t n);
/// "1 byte", "16 bytes".
std::string byteCount(uint64_t n);
/// A pointer as the address that messages and the memory maps use.
inline uint64_t addressOf(const void *p) { return reinterpret_cast<uint64_t>(p); }

/// `v` rounded up to a multiple of `a`.
uint64_t roundUp(uint64_t v, uint64_t a);
/// The system's page size.
uint64_t pageSize();

/// Addresses below this are "near null": a null struct pointer plus a field offset.
constexpr uint64_t kNullPage = 4096;

} // namespace kern::runtime
