// The device heap (runtime/device_heap.h) and the functions warp code calls for malloc and
// free in device code.
#include "runtime/device_heap.h"

#include "backend/abi.h"
#include "runtime/scheduler.h"

namespace kern::runtime {

void DeviceHeap::reserve(uint64_t base, uint64_t size) {
  std::lock_guard<std::mutex> lock(mutex_);
  base_ = base;
  size_ = size;
  free_.clear();
  used_.clear();
  free_[base] = size;
}

uint64_t DeviceHeap::allocate(uint64_t size) {
  const uint64_t bytes = size == 0 ? 16 : (size + 15) / 16 * 16;
  if (bytes < size) // overflow
    return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < bytes)
      continue;
    const uint64_t addr = it->first, left = it->second - bytes;
    free_.erase(it);
    if (left)
      free_[addr + bytes] = left;
    used_[addr] = bytes;
    return addr;
  }
  return 0;
}

bool DeviceHeap::release(uint64_t addr) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = used_.find(addr);
  if (it == used_.end())
    return false;
  uint64_t start = addr, bytes = it->second;
  used_.erase(it);
  auto next = free_.find(start + bytes);
  if (next != free_.end()) { // join the free block after it
    bytes += next->second;
    free_.erase(next);
  }
  auto prev = free_.lower_bound(start);
  if (prev != free_.begin()) { // and the one before it
    --prev;
    if (prev->first + prev->second == start) {
      start = prev->first;
      bytes += prev->second;
      free_.erase(prev);
    }
  }
  free_[start] = bytes;
  return true;
}

} // namespace kern::runtime

extern "C" {

uint64_t kern_rt_device_malloc(KernWarpCtx *ctx, uint64_t size) {
  kern::runtime::DeviceHeap *heap = kern::runtime::heapOf(ctx);
  return heap ? heap->allocate(size) : 0;
}

void kern_rt_device_free(KernWarpCtx *ctx, uint32_t site, uint32_t lane, uint64_t addr) {
  if (addr == 0)
    return; // free(nullptr) does nothing
  kern::runtime::DeviceHeap *heap = kern::runtime::heapOf(ctx);
  if (!heap || !heap->release(addr))
    kern::runtime::warpFault(ctx, site, KERN_FAULT_BAD_FREE, lane, addr);
}

} // extern "C"
