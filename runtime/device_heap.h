// The device heap: the memory that malloc/free and new/delete take in device code. CUDA
// reserves it (cudaLimitMallocHeapSize, 8 MiB by default) in global memory when the first
// kernel that may use it is launched; an allocation that does not fit returns null, and freeing
// what the heap did not give is an error. kern reserves it as one device allocation at the
// first launch of a program that calls malloc or new in device code, and hands out blocks
// first-fit (16-byte aligned, freed neighbours joined). The blocks a launch gets depend on the
// order in which lanes allocate: with one worker (and in lane order within a warp) that order
// is the same run after run; with several workers, blocks that allocate at once may receive
// each other's addresses (what they compute is the same unless it depends on the addresses).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

namespace kern::runtime {

class DeviceHeap {
public:
  bool reserved() const { return size_ != 0; }
  /// The heap is [base, base + size) of device memory.
  void reserve(uint64_t base, uint64_t size);
  /// The address of a new block of `size` bytes, or 0 when no free block is large enough.
  uint64_t allocate(uint64_t size);
  /// Frees the live block that starts at `addr`; false if there is none.
  bool release(uint64_t addr);

private:
  std::mutex mutex_;
  uint64_t base_ = 0, size_ = 0;
  std::map<uint64_t, uint64_t> free_; // address -> bytes
  std::map<uint64_t, uint64_t> used_; // address -> bytes
};

} // namespace kern::runtime
