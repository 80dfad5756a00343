// Host memory beyond malloc: aligned blocks (posix_memalign, aligned_alloc and <malloc.h>'s
// memalign), malloc_usable_size, and anonymous memory mappings (<sys/mman.h>'s mmap, munmap).
// Every block is one of the checked heap's (HostMemory), so the range checks of the C library
// functions and cudaHostRegister know it as they know malloc's; free() refuses a mapping.
#include "runtime/runtime.h"

#include <sys/mman.h>

#include <cerrno>

namespace kern::runtime {

namespace {

bool isPowerOfTwo(uint64_t v) { return v && !(v & (v - 1)); }

} // namespace

void *Runtime::hostAlignedAlloc(uint64_t alignment, uint64_t size) {
  // As glibc's memalign: an alignment that is not a power of two is rounded up to one.
  uint64_t align = 1;
  while (align < alignment && align < (uint64_t(1) << 62))
    align <<= 1;
  if (align < alignment) {
    lib_.err = EINVAL;
    return nullptr;
  }
  void *p = host_.allocate(size, align);
  if (!p)
    lib_.err = ENOMEM;
  return p;
}

bool Runtime::hostUsableSize(const void *p, uint64_t &size) {
  size = 0;
  if (!p)
    return true;
  const uint64_t addr = addressOf(p);
  const Allocation *a = host_.find(addr);
  if (a && a->base == addr && !host_.isPinned(addr) && !host_.isMapped(addr)) {
    // The bytes kern's checks let the program use: exactly what it asked for (glibc's figure
    // rounds up to its chunk size, bytes that kern counts as past the end of the block).
    size = a->size;
    return true;
  }
  reportHostError("malloc_usable_size: " + hexAddress(addr) + " was not returned by malloc");
  return false;
}

void *Runtime::hostMmap(uint64_t length, int32_t prot, int32_t flags, int32_t fd) {
  // A fixed address would let a program place memory where kern keeps its own: refused.
  constexpr int32_t kFixed = MAP_FIXED | MAP_FIXED_NOREPLACE;
  const int32_t type = flags & MAP_TYPE;
  if (length == 0 || (flags & kFixed) ||
      (type != MAP_PRIVATE && type != MAP_SHARED && type != MAP_SHARED_VALIDATE) ||
      (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))) {
    lib_.err = EINVAL;
    return nullptr;
  }
  if (!(flags & MAP_ANONYMOUS)) {
    // kern maps no files: a descriptor that is open gets ENODEV ("the file system does not
    // support memory mapping"), another EBADF.
    lib_.err = lib_.isOpenFd(fd) ? ENODEV : EBADF;
    return nullptr;
  }
  // Host memory is never executed (a function pointer is an index into the program's table),
  // so PROT_EXEC adds nothing. A shared anonymous mapping is private here: there is no child
  // process to share it with.
  void *p = host_.map(length, prot & (PROT_READ | PROT_WRITE));
  if (!p)
    lib_.err = ENOMEM;
  return p;
}

int32_t Runtime::hostMunmap(void *addr, uint64_t length) {
  const uint64_t a = addressOf(addr);
  if (length == 0 || a % HostMemory::pageSize() != 0) {
    lib_.err = EINVAL;
    return -1;
  }
  // Only the program's own mappings are unmapped; pages of none are left alone, as munmap
  // allows.
  host_.unmap(a, length);
  return 0;
}

} // namespace kern::runtime

// ---- called from host code -----------------------------------------------------------------

using kern::runtime::Runtime;

int32_t kern_rt_posix_memalign(KernHostCtx *ctx, void **p, uint64_t alignment, uint64_t size) {
  if (!ctx->rt->checkHostRange("posix_memalign", "result pointer", p, sizeof *p))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  // POSIX: the alignment is a power of two and a multiple of sizeof(void *); the error is the
  // result, errno is left alone.
  if (!kern::runtime::isPowerOfTwo(alignment) || alignment % sizeof(void *) != 0)
    return EINVAL;
  const int32_t saved = ctx->rt->hostLibrary().err;
  void *q = ctx->rt->hostAlignedAlloc(alignment, size);
  ctx->rt->hostLibrary().err = saved;
  if (!q)
    return ENOMEM;
  *p = q;
  return 0;
}

void *kern_rt_aligned_alloc(KernHostCtx *ctx, uint64_t alignment, uint64_t size) {
  return ctx->rt->hostAlignedAlloc(alignment, size);
}

uint64_t kern_rt___kern_malloc_usable_size(KernHostCtx *ctx, void *p) {
  uint64_t size = 0;
  if (!ctx->rt->hostUsableSize(p, size))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return size;
}

void *kern_rt___kern_mmap(KernHostCtx *ctx, void *, uint64_t length, int32_t prot, int32_t flags,
                          int32_t fd, int64_t) {
  // The address is a hint that may be ignored; an anonymous mapping has no offset.
  void *p = ctx->rt->hostMmap(length, prot, flags, fd);
  return p ? p : MAP_FAILED;
}

int32_t kern_rt___kern_munmap(KernHostCtx *ctx, void *addr, uint64_t length) {
  return ctx->rt->hostMunmap(addr, length);
}
