#include "runtime/block_dealer.h"

#include <algorithm>

namespace kern::runtime {

void BlockDealer::deal(uint64_t blocks, unsigned workers) {
  workers = std::max(workers, 1u);
  if (workers > capacity_) {
    shares_ = std::make_unique<Share[]>(workers);
    capacity_ = workers;
  }
  workers_ = workers;
  blocks_ = blocks;
  constexpr uint64_t kMaxUnits = (uint64_t(1) << 32) - 1;
  unit_ = std::max<uint64_t>(1, (blocks + kMaxUnits - 1) / kMaxUnits);
  const uint64_t units = (blocks + unit_ - 1) / unit_;
  for (unsigned w = 0; w < workers; ++w)
    shares_[w].range.store(pack(units * w / workers, units * (w + 1) / workers),
                           std::memory_order_relaxed);
}

void BlockDealer::blocksOf(uint64_t front, uint64_t units, uint64_t &first, uint64_t &count) const {
  first = front * unit_;
  count = std::min(units * unit_, blocks_ - first);
}

bool BlockDealer::take(unsigned worker, uint64_t &first, uint64_t &count) {
  std::atomic<uint64_t> &own = shares_[worker].range;
  for (;;) {
    uint64_t v = own.load(std::memory_order_relaxed);
    for (;;) {
      const uint64_t front = v & 0xffffffffu, end = v >> 32;
      if (front >= end)
        break;
      // One worker takes its whole share; several take a half of what is left at a time, so
      // that a worker that finishes early still finds something to take.
      const uint64_t n =
          workers_ == 1 ? end - front : std::clamp<uint64_t>((end - front) / 2, 1, kMaxChunk);
      if (own.compare_exchange_weak(v, pack(front + n, end), std::memory_order_relaxed)) {
        blocksOf(front, n, first, count);
        return true;
      }
    }
    // The own share is used up (only this worker makes it non-empty again): the back half of
    // another's, looking at the next worker's first.
    bool stole = false;
    for (unsigned i = 1; i < workers_ && !stole; ++i) {
      std::atomic<uint64_t> &other = shares_[(worker + i) % workers_].range;
      uint64_t o = other.load(std::memory_order_relaxed);
      for (;;) {
        const uint64_t front = o & 0xffffffffu, end = o >> 32;
        if (front >= end)
          break;
        const uint64_t n = (end - front + 1) / 2;
        if (other.compare_exchange_weak(o, pack(front, end - n), std::memory_order_relaxed)) {
          own.store(pack(end - n, end), std::memory_order_relaxed);
          stole = true;
          break;
        }
      }
    }
    if (!stole)
      return false;
  }
}

} // namespace kern::runtime
