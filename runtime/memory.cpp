// Device memory: a reserved virtual region with a deterministic first-fit allocator and a
// table of live and freed allocations.
#include "runtime/memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kern::runtime {

namespace {

std::string plural(uint64_t n, const char *unit) {
  return std::to_string(n) + " " + unit + (n == 1 ? "" : "s");
}

} // namespace

uint64_t roundUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

uint64_t pageSize() {
  static const uint64_t size = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return size;
}

std::string hexRange(uint64_t addr, uint64_t n) {
  return std::string("[") + hexAddress(addr) + ", " + hexAddress(addr + n) + ")";
}

std::string byteCount(uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

std::string hexAddress(uint64_t addr) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(addr));
  return buf;
}

// ---- DeviceMemory ---------------------------------------------------------------------------

DeviceMemory::DeviceMemory(uint64_t bytes) {
  bytes = roundUp(bytes ? bytes : pageSize(), kHostVisibleUnit);
  // Under an address-space limit (ulimit -v) the whole device may not fit: a smaller one is
  // reserved (Runtime notes it), down to one unit, rather than none at all.
  while (!reserve(bytes) && bytes > kHostVisibleUnit)
    bytes = roundUp(bytes / 2, kHostVisibleUnit);
}

bool DeviceMemory::reserve(uint64_t bytes) {
  const uint64_t total = 2 * bytes; // the device arena, then the host-visible one
  const int prot = PROT_READ | PROT_WRITE;
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  // The fixed address makes device pointers identical from run to run; if something already
  // lives there (a second Runtime in the same process), any address will do.
  void *p =
      mmap(reinterpret_cast<void *>(kHintAddress), total, prot, flags | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED || reinterpret_cast<uint64_t>(p) != kHintAddress) {
    if (p != MAP_FAILED)
      munmap(p, total); // an old kernel that treated the flag as a hint
    p = mmap(nullptr, total + kHostVisibleUnit, prot, flags, -1, 0);
    if (p != MAP_FAILED) { // the host-visible arena must start on a unit
      const uint64_t a = reinterpret_cast<uint64_t>(p);
      const uint64_t aligned = roundUp(a, kHostVisibleUnit);
      if (aligned > a)
        munmap(p, aligned - a);
      munmap(reinterpret_cast<void *>(aligned + total), a + kHostVisibleUnit - aligned);
      p = reinterpret_cast<void *>(aligned);
    }
  }
  if (p == MAP_FAILED)
    return false;
  // The shadow map is reserved the same way: only the pages behind live allocations are
  // ever touched (8 bytes per 256 bytes of device memory).
  shadowBytes_ = roundUp(total / kShadowGranule * sizeof(uint64_t), pageSize());
  void *sh = mmap(nullptr, shadowBytes_, prot, flags, -1, 0);
  if (sh == MAP_FAILED) {
    munmap(p, total);
    shadowBytes_ = 0;
    return false;
  }
  shadow_ = static_cast<uint64_t *>(sh);
  // A GPU maps its memory in large pages; so does kern where the system lets a program ask
  // (transparent huge pages in "madvise" mode): a kernel walking rows of a 16 MiB matrix then
  // misses the TLB once per 2 MiB rather than once per row. Only a request: no error if not.
  madvise(p, total, MADV_HUGEPAGE);
  lo_ = reinterpret_cast<uint64_t>(p);
  mid_ = lo_ + bytes;
  hi_ = lo_ + total;
  device_ = ArenaState{lo_, mid_, lo_, {}};
  visible_ = ArenaState{mid_, hi_, mid_, {}};
  return true;
}

uint64_t DeviceMemory::deviceBytesInUse() const {
  uint64_t used = 0;
  for (const auto &[b, a] : live_)
    if (b < mid_)
      used += a.size;
  return used;
}

void DeviceMemory::markShadow(uint64_t base, uint64_t size, bool live) {
  uint64_t first = (base - lo_) / kShadowGranule;
  uint64_t count = (size + kShadowGranule - 1) / kShadowGranule;
  for (uint64_t i = 0; i < count; ++i)
    shadow_[first + i] = live ? base + size : 0;
}

DeviceMemory::~DeviceMemory() {
  if (lo_)
    munmap(reinterpret_cast<void *>(lo_), hi_ - lo_);
  if (shadow_)
    munmap(shadow_, shadowBytes_);
}

uint64_t DeviceMemory::footprint(uint64_t base, uint64_t size) const {
  if (base >= mid_) // whole units, the guard gap included
    return roundUp(size + kGuard, kHostVisibleUnit);
  return roundUp(size, kAlignment) + kGuard;
}

uint64_t DeviceMemory::allocate(uint64_t size, Arena arena) {
  ArenaState &st = arena == Arena::Device ? device_ : visible_;
  if (!isValid() || size == 0 || size > st.hi - st.lo)
    return 0;
  const uint64_t need = footprint(st.lo, size);
  uint64_t base = 0;
  // First fit in address order: deterministic, and it reuses freed memory as cudaMalloc does.
  for (auto it = st.freeRanges.begin(); it != st.freeRanges.end(); ++it) {
    if (it->second < need)
      continue;
    base = it->first;
    const uint64_t rest = it->second - need;
    st.freeRanges.erase(it);
    if (rest)
      st.freeRanges[base + need] = rest;
    break;
  }
  if (!base) {
    if (st.hi - st.top < need)
      return 0;
    base = st.top;
    st.top += need;
  }
  // The range is no longer "freed" memory: forget the old allocations that overlapped it.
  auto it = freed_.lower_bound(base);
  if (it != freed_.begin() && std::prev(it)->second.end() > base)
    --it;
  while (it != freed_.end() && it->first < base + need)
    it = freed_.erase(it);
  live_[base] = Allocation{base, size};
  markShadow(base, size, true);
  return base;
}

void DeviceMemory::clearRange(uint64_t base, uint64_t len) {
  // Freed memory is zeroed so that every allocation starts out zero-filled, whatever was
  // there before: results never depend on stale data. Whole pages go back to the OS.
  const uint64_t pageLo = roundUp(base, pageSize());
  const uint64_t pageHi = (base + len) / pageSize() * pageSize();
  if (pageLo < pageHi) {
    std::memset(reinterpret_cast<void *>(base), 0, pageLo - base);
    madvise(reinterpret_cast<void *>(pageLo), pageHi - pageLo, MADV_DONTNEED);
    std::memset(reinterpret_cast<void *>(pageHi), 0, base + len - pageHi);
  } else {
    std::memset(reinterpret_cast<void *>(base), 0, len);
  }
}

void DeviceMemory::addFreeRange(uint64_t base, uint64_t len) {
  ArenaState &st = arenaOf(base);
  auto next = st.freeRanges.lower_bound(base);
  if (next != st.freeRanges.end() && next->first == base + len) {
    len += next->second;
    next = st.freeRanges.erase(next);
  }
  if (next != st.freeRanges.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == base) {
      base = prev->first;
      len += prev->second;
      st.freeRanges.erase(prev);
    }
  }
  if (base + len == st.top) {
    st.top = base; // give the tail back, so a program that frees everything starts over
    return;
  }
  st.freeRanges[base] = len;
}

bool DeviceMemory::release(uint64_t base) {
  auto it = live_.find(base);
  if (it == live_.end())
    return false;
  const Allocation a = it->second;
  live_.erase(it);
  markShadow(a.base, a.size, false);
  clearRange(a.base, a.base >= mid_ ? footprint(a.base, a.size) : roundUp(a.size, kAlignment));
  freed_[a.base] = a;
  addFreeRange(a.base, footprint(a.base, a.size));
  return true;
}

void DeviceMemory::releaseAllExcept(const std::set<uint64_t> &keep) {
  std::vector<uint64_t> bases;
  for (const auto &[base, a] : live_)
    if (!keep.count(base))
      bases.push_back(base);
  for (uint64_t b : bases)
    release(b);
}

const Allocation *DeviceMemory::find(uint64_t addr) const {
  auto it = live_.upper_bound(addr);
  if (it == live_.begin())
    return nullptr;
  --it;
  return addr < it->second.end() ? &it->second : nullptr;
}

const Allocation *DeviceMemory::findFreed(uint64_t addr) const {
  auto it = freed_.upper_bound(addr);
  if (it == freed_.begin())
    return nullptr;
  --it;
  return addr < it->second.end() ? &it->second : nullptr;
}

std::string DeviceMemory::describe(uint64_t addr, uint64_t size) const {
  auto of = [](const Allocation &a) {
    return "a " + std::to_string(a.size) + "-byte allocation at " + hexAddress(a.base);
  };
  if (const Allocation *a = find(addr)) {
    if (addr + size > a->end())
      return "the " + plural(size, "byte") + " at offset " + std::to_string(addr - a->base) +
             " run past the end of " + of(*a);
    return "inside " + of(*a);
  }
  if (const Allocation *a = findFreed(addr))
    return "inside " + of(*a) + " that was already freed";
  // Just below the region is where a negative index into the first allocation lands; far
  // outside it, nearby allocations mean nothing.
  if (!contains(addr) && !(addr < lo_ && lo_ - addr <= kGuard * 256))
    return "";
  const Allocation *below = nullptr, *above = nullptr;
  auto it = live_.upper_bound(addr);
  if (it != live_.end())
    above = &it->second;
  if (it != live_.begin())
    below = &std::prev(it)->second;
  const uint64_t pastEnd = below ? addr - below->end() : UINT64_MAX;
  const uint64_t before = above ? above->base - addr : UINT64_MAX;
  if (below && pastEnd <= before)
    return pastEnd == 0 ? "just past the end of " + of(*below)
                        : plural(pastEnd, "byte") + " past the end of " + of(*below);
  if (above)
    return plural(before, "byte") + " before the start of " + of(*above);
  return "not inside any device allocation";
}

} // namespace kern::runtime
