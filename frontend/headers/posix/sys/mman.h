// <sys/mman.h> as kern provides it: anonymous memory mappings. mmap(NULL, n, prot,
// MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) gives n bytes (whole pages) of zeroed, page-aligned host
// memory that the program uses as malloc's (cudaHostRegister takes it too), and munmap gives
// pages back. kern maps no files: mmap of a file descriptor fails with errno ENODEV (EBADF for
// a descriptor that is not open); MAP_FIXED is refused with EINVAL. mlock and munlock succeed
// (kern's memory is never paged out by the model). Constants as glibc's on x86-64 Linux. See
// docs/headers.md.
#ifndef KERN_SYS_MMAN_H
#define KERN_SYS_MMAN_H

#include <stddef.h>

#define PROT_NONE 0x0
#define PROT_READ 0x1
#define PROT_WRITE 0x2
#define PROT_EXEC 0x4

#define MAP_SHARED 0x01
#define MAP_PRIVATE 0x02
#define MAP_SHARED_VALIDATE 0x03
#define MAP_TYPE 0x0f
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_ANON MAP_ANONYMOUS
#define MAP_32BIT 0x40
#define MAP_GROWSDOWN 0x00100
#define MAP_DENYWRITE 0x00800
#define MAP_EXECUTABLE 0x01000
#define MAP_LOCKED 0x02000
#define MAP_NORESERVE 0x04000
#define MAP_POPULATE 0x08000
#define MAP_NONBLOCK 0x10000
#define MAP_STACK 0x20000
#define MAP_HUGETLB 0x40000
#define MAP_FIXED_NOREPLACE 0x100000

#define MAP_FAILED ((void *)-1)

#define MCL_CURRENT 1
#define MCL_FUTURE 2
#define MCL_ONFAULT 4

#ifndef KERN_OFF_T
#define KERN_OFF_T
typedef long off_t; // x86-64 Linux: 64 bits
#endif

static inline void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset) {
  return __kern_mmap(addr, length, prot, flags, fd, offset);
}
static inline int munmap(void *addr, size_t length) { return __kern_munmap(addr, length); }
static inline int mlock(const void *addr, size_t length) { return 0; }
static inline int munlock(const void *addr, size_t length) { return 0; }
static inline int mlockall(int flags) { return 0; }
static inline int munlockall(void) { return 0; }

#endif
