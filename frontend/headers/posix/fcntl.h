// <fcntl.h> as kern provides it: open() and creat() with glibc's O_* flags (x86-64 Linux values)
// and the permission bits of <sys/stat.h> that glibc's <fcntl.h> also gives. The file is opened
// by kern's runtime where the program may use files, as fopen's are (kern run without
// --no-files): otherwise open fails with errno EACCES. read, write, close and lseek are
// <unistd.h>'s. See docs/headers.md.
#ifndef KERN_FCNTL_H
#define KERN_FCNTL_H

#define O_ACCMODE 0003
#define O_RDONLY 00
#define O_WRONLY 01
#define O_RDWR 02
#define O_CREAT 0100
#define O_EXCL 0200
#define O_NOCTTY 0400
#define O_TRUNC 01000
#define O_APPEND 02000
#define O_NONBLOCK 04000
#define O_NDELAY O_NONBLOCK
#define O_DSYNC 010000
#define O_SYNC 04010000
#define O_DIRECTORY 0200000
#define O_NOFOLLOW 0400000
#define O_CLOEXEC 02000000

#ifndef KERN_STAT_MODE_BITS
#define KERN_STAT_MODE_BITS
#define S_IRWXU 0700
#define S_IRUSR 0400
#define S_IWUSR 0200
#define S_IXUSR 0100
#define S_IRWXG 070
#define S_IRGRP 040
#define S_IWGRP 020
#define S_IXGRP 010
#define S_IRWXO 07
#define S_IROTH 04
#define S_IWOTH 02
#define S_IXOTH 01
#endif

#ifndef KERN_MODE_T
#define KERN_MODE_T
typedef unsigned int mode_t;
#endif
#ifndef KERN_OFF_T
#define KERN_OFF_T
typedef long off_t; // x86-64 Linux: 64 bits
#endif

// C's open is variadic: the mode is read only with O_CREAT (so a program may pass anything
// there, when it does not create). In C++ open(path, flags) and open(path, flags, mode) are two
// overloads (a function of that name, so a member `open`, as std::ifstream's, is untouched). In
// C they are told apart by a macro that counts the arguments, so `open` is called, not named
// (`&open` is no function).
#ifdef __cplusplus
static inline int open(const char *path, int flags) { return __kern_open(path, flags, 0u); }
template <class Mode> static inline int open(const char *path, int flags, Mode mode) {
  return __kern_open(path, flags, (mode_t)(unsigned long)mode); // any value, as C's `...`
}
#else
#define __KERN_OPEN_2(path, flags) __kern_open((path), (flags), 0u)
#define __KERN_OPEN_3(path, flags, mode) __kern_open((path), (flags), (mode_t)(unsigned long)(mode))
#define __KERN_OPEN_PICK(path, flags, mode, which, ...) which
#define open(...) __KERN_OPEN_PICK(__VA_ARGS__, __KERN_OPEN_3, __KERN_OPEN_2, )(__VA_ARGS__)
#endif

static inline int creat(const char *path, mode_t mode) {
  return __kern_open(path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

#endif
