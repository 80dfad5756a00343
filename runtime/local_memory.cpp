// The warps' local memory (runtime/local_memory.h): regions mapped without reserving swap, so
// that a kernel with a 256 KiB array per thread costs the pages it touches, not 8 MiB per warp.
#include "runtime/local_memory.h"

#include <sys/mman.h>
#include <unistd.h>

namespace kern::runtime {

bool LocalMemory::reserve(uint32_t count, uint64_t bytes) {
  release();
  if (count == 0 || bytes == 0)
    return true;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t stride = (bytes + page - 1) / page * page;
  if (stride > (uint64_t(1) << 40) / count)
    return false;
  void *p = mmap(nullptr, stride * count, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return false;
  base_ = reinterpret_cast<uint64_t>(p);
  stride_ = stride;
  mapped_ = stride * count;
  count_ = count;
  return true;
}

void LocalMemory::release() {
  if (mapped_)
    munmap(reinterpret_cast<void *>(base_), mapped_);
  base_ = stride_ = mapped_ = 0;
  count_ = 0;
}

} // namespace kern::runtime
