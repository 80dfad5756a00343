// The host arena (host_heap.h): a deterministic allocator over one reserved region, with the
// shadow map compiled host code checks its loads and stores against.
#include "runtime/host_heap.h"

#include <sys/mman.h>
#include <sys/resource.h>

#include <cstring>

namespace kern::runtime {

namespace {

std::string plural(uint64_t n, const char *unit) {
  return std::to_string(n) + " " + unit + (n == 1 ? "" : "s");
}

/// Shadow ranges at least this long are cleared by giving their pages back.
constexpr uint64_t kLargeClear = uint64_t(1) << 16;

} // namespace

HostMemory::HostMemory() {
  uint64_t bytes = kArenaBytes;
  // Under an address-space limit the device region needs the most of it: the arena takes at most
  // a quarter (it shrinks by halves down to a few megabytes, as the device does).
  rlimit lim{};
  if (getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
    while (bytes > (uint64_t(64) << 20) && bytes > lim.rlim_cur / 4)
      bytes /= 2;
  while (!reserve(bytes) && bytes > (uint64_t(4) << 20))
    bytes /= 2;
}

bool HostMemory::reserve(uint64_t bytes) {
  const int prot = PROT_READ | PROT_WRITE;
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  void *p =
      mmap(reinterpret_cast<void *>(kHintAddress), bytes, prot, flags | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED || reinterpret_cast<uint64_t>(p) != kHintAddress) {
    if (p != MAP_FAILED)
      munmap(p, bytes);
    p = mmap(nullptr, bytes, prot, flags, -1, 0);
  }
  if (p == MAP_FAILED)
    return false;
  shadowBytes_ = roundUp(bytes / kGranule * sizeof(uint64_t), pageSize());
  void *sh = mmap(nullptr, shadowBytes_, prot, flags, -1, 0);
  if (sh == MAP_FAILED) {
    munmap(p, bytes);
    shadowBytes_ = 0;
    return false;
  }
  shadow_ = static_cast<uint64_t *>(sh);
  lo_ = reinterpret_cast<uint64_t>(p);
  hi_ = lo_ + bytes;
  // The first granules stay unused, so that no object starts at the arena's very start.
  top_ = lo_ + pageSize();
  return true;
}

HostMemory::~HostMemory() {
  if (lo_)
    munmap(reinterpret_cast<void *>(lo_), hi_ - lo_);
  if (shadow_)
    munmap(shadow_, shadowBytes_);
}

uint64_t HostMemory::pageSize() { return kern::runtime::pageSize(); }

void HostMemory::mark(uint64_t base, uint64_t size, uint64_t value) {
  uint64_t first = (base - lo_) / kGranule;
  uint64_t count = (size + kGranule - 1) / kGranule;
  if (value == 0 && count >= kLargeClear) {
    // The whole shadow pages in the range go back to the system (they read as zeros).
    const uint64_t perPage = pageSize() / sizeof(uint64_t);
    const uint64_t a = roundUp(first, perPage), b = (first + count) / perPage * perPage;
    if (b > a) {
      madvise(shadow_ + a, (b - a) * sizeof(uint64_t), MADV_DONTNEED);
      std::fill(shadow_ + first, shadow_ + a, 0);
      std::fill(shadow_ + b, shadow_ + first + count, 0);
      return;
    }
  }
  std::fill(shadow_ + first, shadow_ + first + count, value);
}

uint64_t HostMemory::take(uint64_t size, uint64_t align, uint64_t &len) {
  if (!lo_ || size > hi_ - lo_)
    return 0;
  const uint64_t fp = footprint(size);
  if (align <= kGranule && fp / kGranule <= kSmallGranules) {
    std::deque<uint64_t> &q = small_[fp / kGranule];
    len = fp;
    if (!q.empty()) {
      const uint64_t base = q.front();
      q.pop_front();
      return base;
    }
    if (fp > hi_ - top_)
      return 0;
    const uint64_t base = top_;
    top_ += fp;
    return base;
  }
  const uint64_t a = std::max(align, kGranule);
  // First fit among the large free ranges, then the untouched top.
  for (auto it = freeRanges_.begin(); it != freeRanges_.end(); ++it) {
    const uint64_t base = roundUp(it->first, a);
    if (base - it->first + fp > it->second)
      continue;
    const uint64_t start = it->first, rangeLen = it->second;
    freeRanges_.erase(it);
    if (base > start)
      giveBack(start, base - start);
    if (start + rangeLen > base + fp)
      giveBack(base + fp, start + rangeLen - base - fp);
    len = fp;
    return base;
  }
  const uint64_t base = roundUp(top_, a);
  if (base > hi_ || fp > hi_ - base)
    return 0;
  if (base > top_)
    giveBack(top_, base - top_);
  top_ = base + fp;
  len = fp;
  return base;
}

void HostMemory::giveBack(uint64_t base, uint64_t len) {
  if (len == 0)
    return;
  // Freed blocks hold data no one may read again: their whole pages go back to the system.
  if (len >= kLargeClear * kGranule) {
    const uint64_t a = roundUp(base, pageSize()), b = (base + len) / pageSize() * pageSize();
    if (b > a)
      madvise(reinterpret_cast<void *>(a), b - a, MADV_DONTNEED);
  }
  if (len % kGranule == 0 && len / kGranule <= kSmallGranules) {
    small_[len / kGranule].push_back(base);
    return;
  }
  auto next = freeRanges_.lower_bound(base);
  if (next != freeRanges_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == base) {
      base = prev->first;
      len += prev->second;
      freeRanges_.erase(prev);
    }
  }
  if (next != freeRanges_.end() && base + len == next->first) {
    len += next->second;
    freeRanges_.erase(next);
  }
  if (base + len == top_) {
    top_ = base;
    return;
  }
  freeRanges_[base] = len;
}

void *HostMemory::allocate(uint64_t size, uint64_t align, bool pinned) {
  uint64_t len = 0;
  const uint64_t base = take(size, align, len);
  if (!base)
    return nullptr;
  freed_.erase(freed_.lower_bound(base), freed_.lower_bound(base + len));
  live_[base] = Allocation{base, size};
  spans_[base] = len;
  mark(base, size, base + size);
  if (pinned)
    pinned_.insert(base);
  return reinterpret_cast<void *>(base);
}

HostMemory::FreeResult HostMemory::release(void *p) {
  if (!p)
    return FreeResult::Ok;
  const uint64_t base = reinterpret_cast<uint64_t>(p);
  auto it = live_.find(base);
  if (it == live_.end() || mapped_.count(base))
    return freed_.count(base) ? FreeResult::DoubleFree : FreeResult::NotAllocated;
  const uint64_t size = it->second.size;
  live_.erase(it);
  mark(base, size, 0);
  giveBack(base, spans_[base]);
  spans_.erase(base);
  pinned_.erase(base);
  names_.erase(base);
  freed_[base] = size;
  return FreeResult::Ok;
}

void *HostMemory::reallocate(void *p, uint64_t size, bool &ok) {
  ok = true;
  if (!p)
    return allocate(size);
  const uint64_t base = reinterpret_cast<uint64_t>(p);
  auto it = live_.find(base);
  if (it == live_.end() || mapped_.count(base)) {
    ok = false;
    return nullptr;
  }
  const uint64_t old = it->second.size;
  if (footprint(size) <= spans_[base]) { // it still fits where it is
    mark(base, old, 0);
    it->second.size = size;
    mark(base, size, base + size);
    return p;
  }
  const bool pinned = pinned_.count(base) != 0;
  void *q = allocate(size, kGranule, pinned);
  if (!q)
    return nullptr; // C semantics: the old block stays valid
  std::memcpy(q, p, std::min(old, size));
  release(p);
  return q;
}

const Allocation *HostMemory::find(uint64_t addr) const {
  auto it = live_.upper_bound(addr);
  if (it == live_.begin())
    return nullptr;
  --it;
  // A zero-sized block still owns its address (malloc(0) returned it).
  return addr < it->second.base + (it->second.size ? it->second.size : 1) ? &it->second : nullptr;
}

uint64_t HostMemory::mallocRoomEnd(uint64_t addr, uint64_t *base) const {
  auto it = live_.upper_bound(addr);
  if (it == live_.begin())
    return 0;
  --it;
  const uint64_t start = it->first, size = it->second.size;
  if (names_.count(start) || mapped_.count(start) || pinned_.count(start))
    return 0;
  const uint64_t chunk = std::max<uint64_t>(32, (size + 8 + 15) / 16 * 16);
  // Never past the block's own span (its red zone included): the next block starts there.
  const uint64_t end = start + std::min(chunk - 8, spans_.at(start));
  if (base)
    *base = start;
  return addr < end ? end : 0;
}

void *HostMemory::map(uint64_t size, int prot) {
  const uint64_t bytes = roundUp(size, pageSize());
  uint64_t len = 0;
  const uint64_t base = take(bytes, pageSize(), len);
  if (!base)
    return nullptr;
  void *p = reinterpret_cast<void *>(base);
  std::memset(p, 0, bytes); // the range may have held a freed block
  if (prot != (PROT_READ | PROT_WRITE))
    mprotect(p, bytes, prot);
  freed_.erase(freed_.lower_bound(base), freed_.lower_bound(base + len));
  // Every byte of the pages is the program's, as in a native mapping.
  live_[base] = Allocation{base, bytes};
  spans_[base] = len;
  mapped_.insert(base);
  mark(base, bytes, base + bytes);
  return p;
}

void HostMemory::unmap(uint64_t addr, uint64_t size) {
  const uint64_t end = addr + roundUp(size, pageSize());
  auto it = live_.upper_bound(addr);
  if (it != live_.begin())
    --it;
  while (it != live_.end() && it->first < end) {
    const Allocation a = it->second;
    if (!mapped_.count(a.base) || a.end() <= addr) {
      ++it;
      continue;
    }
    const uint64_t lo = std::max(a.base, addr), hi = std::min(a.end(), end);
    // The pages' memory goes back to the system, but their addresses are never handed out
    // again: a stale pointer into them finds a cleared shadow and faults.
    mark(lo, hi - lo, 0);
    mprotect(reinterpret_cast<void *>(lo), hi - lo, PROT_READ | PROT_WRITE);
    madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_DONTNEED);
    it = live_.erase(it);
    mapped_.erase(a.base);
    spans_.erase(a.base);
    if (a.base < lo) { // the pages before the range stay mapped
      live_[a.base] = Allocation{a.base, lo - a.base};
      spans_[a.base] = lo - a.base;
      mapped_.insert(a.base);
      mark(a.base, lo - a.base, lo);
    }
    if (hi < a.end()) { // and those after it
      it = live_.emplace(hi, Allocation{hi, a.end() - hi}).first;
      spans_[hi] = a.end() - hi;
      mapped_.insert(hi);
      mark(hi, a.end() - hi, a.end());
      ++it;
    }
  }
}

uint64_t HostMemory::allocateStack(uint64_t bytes) {
  // A guard page on either side belongs to nothing: an overrun off either end of the stack
  // finds a cleared shadow there, never a neighbouring block.
  uint64_t len = 0;
  const uint64_t base = take(bytes + 2 * pageSize(), pageSize(), len);
  if (!base)
    return 0;
  stacks_[base] = len;
  return base + pageSize();
}

void HostMemory::releaseStack(uint64_t lo) {
  auto it = stacks_.find(lo - pageSize());
  if (it == stacks_.end())
    return;
  mark(it->first, it->second, 0);
  giveBack(it->first, it->second);
  stacks_.erase(it);
}

bool HostMemory::inStack(uint64_t addr) const {
  auto it = stacks_.upper_bound(addr);
  if (it == stacks_.begin())
    return false;
  --it;
  return addr - it->first < it->second;
}

void HostMemory::setName(uint64_t base, std::string name) { names_[base] = std::move(name); }

std::string HostMemory::describe(uint64_t addr, uint64_t n) const {
  auto nameOf = [&](const Allocation &a) {
    auto nm = names_.find(a.base);
    const std::string what = nm != names_.end()      ? nm->second
                             : mapped_.count(a.base) ? "mapping (mmap)"
                             : pinned_.count(a.base) ? "pinned block (cudaMallocHost)"
                                                     : "block allocated by malloc or new";
    return "the " + std::to_string(a.size) + "-byte " + what + " at " + hexAddress(a.base);
  };
  if (!contains(addr))
    return "";
  if (inStack(addr)) {
    const uint64_t end = shadow_[(addr - lo_) / kGranule];
    if (end > addr)
      return "running " + plural(addr + n - end, "byte") +
             " past the end of a local object of host code";
    return "in the stack of host code, outside every live local object";
  }
  auto above = live_.upper_bound(addr);
  const Allocation *below = above == live_.begin() ? nullptr : &std::prev(above)->second;
  if (below && addr < below->base + std::max<uint64_t>(below->size, 1))
    return "running " + plural(addr + n - below->end(), "byte") + " past the end of " +
           nameOf(*below);
  auto f = freed_.upper_bound(addr);
  if (f != freed_.begin()) {
    --f;
    if (addr < f->first + std::max<uint64_t>(f->second, 1) && (!below || below->base < f->first))
      return "inside the " + std::to_string(f->second) + "-byte block at " + hexAddress(f->first) +
             ", which was freed";
  }
  const uint64_t pastEnd = below ? addr - below->end() : UINT64_MAX;
  const uint64_t before = above != live_.end() ? above->first - addr : UINT64_MAX;
  if (below && pastEnd <= before)
    return (pastEnd == 0 ? std::string("just") : plural(pastEnd, "byte")) + " past the end of " +
           nameOf(*below);
  if (above != live_.end())
    return plural(before, "byte") + " before the start of " + nameOf(above->second);
  return "outside every object of the program";
}

} // namespace kern::runtime
