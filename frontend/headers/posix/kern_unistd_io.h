// read, write, close, ftruncate and lseek of <unistd.h>, which kern's <unistd.h> includes and
// its C++ library's headers too (kern_std_base.h): GCC's libstdc++ reached <unistd.h> through
// its thread support until GCC 4.7, and programs of that time call read after including only
// <fstream>. See docs/headers.md.
#ifndef KERN_UNISTD_IO_H
#define KERN_UNISTD_IO_H

#include <stddef.h>

#ifndef KERN_OFF_T
#define KERN_OFF_T
typedef long off_t; // x86-64 Linux: 64 bits
#endif

static inline ssize_t read(int fd, void *buf, size_t count) { return __kern_read(fd, buf, count); }
static inline ssize_t write(int fd, const void *buf, size_t count) {
  return __kern_write(fd, buf, count);
}
static inline int close(int fd) { return __kern_close(fd); }
static inline int ftruncate(int fd, off_t length) { return __kern_ftruncate(fd, length); }
static inline off_t lseek(int fd, off_t offset, int whence) {
  return __kern_lseek(fd, offset, whence);
}

#endif
