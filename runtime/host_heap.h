// The host memory of a kern program: one reserved region (the host arena) that holds every
// object host code may reach — malloc's and new's blocks, global variables, string literals,
// the stacks of its threads — with a shadow map that compiled host code checks every load and
// store against, as compiled kernels check theirs against the device's (memory.h).
#pragma once

#include "runtime/memory.h"

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kern::runtime {

/// The host arena. Objects start on kGranule boundaries and are followed by at least one
/// granule that belongs to nothing (a red zone), so the shadow entry of the granule an address
/// lies in says everything a check needs: the end address of the object that covers it, or 0.
/// An access of `n` bytes at `a` is inside one live object iff a + n <= shadow[(a - lo) / 16]
/// (an access that starts in a red zone or a freed block finds 0; one that runs past its
/// object's end finds that end). Addresses are deterministic, as the device's are.
class HostMemory {
public:
  static constexpr uint64_t kGranule = 16;
  /// The arena reserved when the process may have that much address space (MAP_NORESERVE:
  /// nothing is committed until touched); under `ulimit -v` a half, a quarter... of it.
  static constexpr uint64_t kArenaBytes = uint64_t(64) << 30;
  /// Where the arena goes if that range is free: far from the device region, and above the
  /// range AddressSanitizer keeps for its shadow (so addresses are the same in its builds).
  static constexpr uint64_t kHintAddress = 0x300000000000ull;

  HostMemory();
  ~HostMemory();
  HostMemory(const HostMemory &) = delete;
  HostMemory &operator=(const HostMemory &) = delete;

  /// malloc; null when the arena is full. `pinned`: a cudaMallocHost/cudaHostAlloc block
  /// (page-locked on a real system: transfers from it are faster, and only cudaFreeHost may
  /// free it).
  void *allocate(uint64_t size, uint64_t align = 16, bool pinned = false);
  enum class FreeResult { Ok, DoubleFree, NotAllocated };
  /// free; null is fine.
  FreeResult release(void *p);
  /// realloc of a tracked block (or null); `ok` false if `p` is not tracked (nothing done).
  void *reallocate(void *p, uint64_t size, bool &ok);

  /// The live block containing `addr`, or null (a stack object, a red zone, freed memory).
  const Allocation *find(uint64_t addr) const;
  /// The end of the room glibc's malloc gives the live block of malloc or new that holds
  /// `addr` (malloc_usable_size: the request plus malloc's 8-byte header rounded up to 16-byte
  /// chunks of at least 32 bytes, less the header), if `addr` lies before that end; 0 for
  /// anything else (no such block, a global, a pinned block, a mapping); `base` gets the
  /// block's start. A native program may run past its block's end into that room unnoticed;
  /// kern lets it, with a warning.
  uint64_t mallocRoomEnd(uint64_t addr, uint64_t *base = nullptr) const;
  /// Whether the live block starting at `base` was allocated pinned.
  bool isPinned(uint64_t base) const { return pinned_.count(base) != 0; }

  /// mmap of anonymous memory: whole pages, zero-filled, with protection `prot` (PROT_READ,
  /// PROT_WRITE), recorded as a block like malloc's. Null when the arena is full.
  void *map(uint64_t size, int prot);
  /// munmap of [addr, addr + size) (whole pages): the pages of this heap's mappings in it are
  /// given back (their addresses stay reserved, inaccessible), a mapping the range cuts keeps
  /// its other pages as blocks of their own; pages of no mapping are left alone.
  void unmap(uint64_t addr, uint64_t size);
  /// Whether the live block starting at `base` is a mapping (map), which free() may not take.
  bool isMapped(uint64_t base) const { return mapped_.count(base) != 0; }
  static uint64_t pageSize();

  /// A stack for a thread of host code: `bytes` of the arena whose shadow stays clear; compiled
  /// functions mark their frames' objects in it as they enter and clear them as they leave.
  /// Returns its lowest address (0 if the arena is full); the stack grows down from lo + bytes.
  uint64_t allocateStack(uint64_t bytes);
  /// Gives a stack back (its frames are gone: the shadow of the whole range is cleared).
  void releaseStack(uint64_t lo);

  /// Names the live block at `base` for messages: "global variable 'table'", "string literal".
  void setName(uint64_t base, std::string name);

  bool isValid() const { return lo_ != 0; }
  uint64_t lo() const { return lo_; }
  uint64_t bytes() const { return hi_ - lo_; }
  bool contains(uint64_t addr) const { return addr - lo_ < hi_ - lo_; }
  uint64_t *shadow() const { return shadow_; }
  /// Whether [addr, addr + n) lies inside one live object of the arena.
  bool inObject(uint64_t addr, uint64_t n) const {
    return contains(addr) && addr + n >= addr && addr + n <= shadow_[(addr - lo_) / kGranule];
  }
  /// Whether `addr` lies in one of the stacks (allocateStack).
  bool inStack(uint64_t addr) const;
  /// Where an access of `n` bytes at `addr` lies relative to the arena's objects, for fault
  /// messages: "4 bytes past the end of a 8-byte block allocated by malloc at 0x...",
  /// "inside a block that was freed", "in the stack, outside every live local object".
  std::string describe(uint64_t addr, uint64_t n) const;

private:
  struct FreeRange {
    uint64_t base, len;
  };
  bool reserve(uint64_t bytes);
  /// [base, base + len) of the arena for an object of `size` bytes (its red zone included);
  /// 0 if the arena is full.
  uint64_t take(uint64_t size, uint64_t align, uint64_t &len);
  void giveBack(uint64_t base, uint64_t len);
  void mark(uint64_t base, uint64_t size, uint64_t value);
  /// The bytes an object of `size` occupies with its red zone.
  static uint64_t footprint(uint64_t size) {
    return (size ? (size + kGranule - 1) / kGranule * kGranule : kGranule) + kGranule;
  }

  uint64_t lo_ = 0, hi_ = 0, top_ = 0;
  uint64_t *shadow_ = nullptr;
  uint64_t shadowBytes_ = 0;
  /// Small blocks: one queue of free ranges per footprint (in granules), reused first in first
  /// out so that a freed block is not handed out again at once (a use after free then finds a
  /// cleared shadow for longer).
  static constexpr uint64_t kSmallGranules = 256;
  std::vector<std::deque<uint64_t>> small_ = std::vector<std::deque<uint64_t>>(kSmallGranules + 1);
  std::map<uint64_t, uint64_t> freeRanges_; // large free ranges: base -> length, coalesced
  std::map<uint64_t, Allocation> live_;     // by base
  std::map<uint64_t, uint64_t> spans_;      // base -> footprint taken for the block
  std::map<uint64_t, std::string> names_;   // base -> name, for globals and literals
  std::map<uint64_t, uint64_t> stacks_;     // lo -> bytes
  std::set<uint64_t> mapped_;               // bases of live blocks of map()
  std::set<uint64_t> pinned_;               // bases of live pinned blocks
  std::map<uint64_t, uint64_t> freed_;      // freed base -> size, until the range is reused
};

} // namespace kern::runtime
