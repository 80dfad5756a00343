// The warps' local memory: where the local frames too large for the stack that runs a warp live
// (ir::frameInLocalMemory, KernWarpCtx::localSp), as a GPU keeps a thread's local arrays in its
// local memory. One region per warp that may be alive at once on a worker: one for warps that
// run one after another, one per warp of the block for fibers and whole-block kernels. A region is
// address space reserved for the launch and committed by the kernel's own stores, page by page.
#pragma once

#include <cstdint>

namespace kern::runtime {

/// A worker's local-memory regions for one launch.
class LocalMemory {
public:
  LocalMemory() = default;
  LocalMemory(const LocalMemory &) = delete;
  LocalMemory &operator=(const LocalMemory &) = delete;
  ~LocalMemory() { release(); }

  /// Reserves `count` regions of at least `bytes` each (rounded up to whole pages); false when
  /// the address space cannot be had (then the worker holds none).
  bool reserve(uint32_t count, uint64_t bytes);
  /// Gives the address space back, and with it every page the kernel touched.
  void release();

  uint32_t count() const { return count_; }
  /// Region i is [lo(i), top(i)); frames are taken downwards from the top.
  uint64_t lo(uint32_t i) const { return base_ + uint64_t(i) * stride_; }
  uint64_t top(uint32_t i) const { return lo(i) + stride_; }

private:
  uint64_t base_ = 0;
  uint64_t stride_ = 0;
  uint64_t mapped_ = 0;
  uint32_t count_ = 0;
};

} // namespace kern::runtime
