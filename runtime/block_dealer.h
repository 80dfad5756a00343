// How a launch's blocks are handed out to the workers that run them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace kern::runtime {

/// Hands out the blocks of one launch. Each worker owns a contiguous share of them (worker w
/// the w-th of `workers` equal shares) and takes chunks from the front of it, in increasing
/// order; a worker whose share is used up takes the back half of what is left of another's
/// and makes it its own. So a worker that the host slows down does not hold the launch up,
/// and yet from one launch to the next block b mostly stays on the same worker: a kernel
/// launched again and again over the same data (a stencil's iterations, a wavefront's
/// diagonals) finds what its blocks wrote last time in its own core's cache: a line that another
/// core wrote last comes from that core's cache, many times slower than from its own (W8, two
/// workers: 0.050 ms a launch dealt in guided chunks from one counter, 0.045 ms so).
///
/// Blocks below the lowest faulting block all run: every share is taken in increasing order by
/// one worker at a time, and a worker stops only at a block above the fault.
///
/// Thread-safe: take() is called by every worker at once; deal() between launches.
class BlockDealer {
public:
  /// Splits `blocks` blocks into `workers` shares.
  void deal(uint64_t blocks, unsigned workers);
  /// The next blocks for `worker` in [first, first + count): from its own share, or stolen
  /// from another's; false when there are none left.
  bool take(unsigned worker, uint64_t &first, uint64_t &count);

  /// The most blocks one take() gives from a worker's own share (each take is a locked
  /// update, which waits for the worker's stores to drain: few of them for a big share).
  static constexpr uint64_t kMaxChunk = 64;

private:
  /// A share: the front (low 32 bits) and the end (high 32 bits) of the units it has left.
  /// A unit is one block, or, for grids of 2^32 blocks or more, a run of them. Values are
  /// never reused within a launch (each unit is handed out once), so a compare-and-swap that
  /// read a share before another worker changed it cannot succeed on a stale value.
  struct alignas(64) Share {
    std::atomic<uint64_t> range{0};
  };
  static uint64_t pack(uint64_t front, uint64_t end) { return front | end << 32; }
  /// Blocks of units [front, front + units).
  void blocksOf(uint64_t front, uint64_t units, uint64_t &first, uint64_t &count) const;

  std::unique_ptr<Share[]> shares_;
  unsigned capacity_ = 0, workers_ = 0;
  uint64_t blocks_ = 0, unit_ = 1;
};

} // namespace kern::runtime
