// <sys/stat.h> as kern provides it: struct stat (laid out as on x86-64 Linux), stat, fstat,
// mkdir, the file-type bits and tests (S_IFREG, S_ISDIR...) and the permission bits. stat and
// mkdir reach the file system only where the program may use files (kern run without
// --no-files): otherwise they fail with errno EACCES. fstat of 0, 1 or 2 describes a character
// device, as a terminal is. See docs/headers.md.
#ifndef KERN_SYS_STAT_H
#define KERN_SYS_STAT_H

#include <time.h>

#ifndef KERN_MODE_T
#define KERN_MODE_T
typedef unsigned int mode_t;
#endif
#ifndef KERN_OFF_T
#define KERN_OFF_T
typedef long off_t; // x86-64 Linux: 64 bits
#endif
typedef unsigned long dev_t;
typedef unsigned long ino_t;
typedef unsigned long nlink_t;
typedef unsigned int uid_t;
typedef unsigned int gid_t;
typedef long blksize_t;
typedef long blkcnt_t;

struct stat {
  dev_t st_dev;
  ino_t st_ino;
  nlink_t st_nlink;
  mode_t st_mode;
  uid_t st_uid;
  gid_t st_gid;
  int __pad0;
  dev_t st_rdev;
  off_t st_size;
  blksize_t st_blksize;
  blkcnt_t st_blocks;
  struct timespec st_atim;
  struct timespec st_mtim;
  struct timespec st_ctim;
  long __reserved[3];
};
#define st_atime st_atim.tv_sec
#define st_mtime st_mtim.tv_sec
#define st_ctime st_ctim.tv_sec

#define S_IFMT 0170000
#define S_IFSOCK 0140000
#define S_IFLNK 0120000
#define S_IFREG 0100000
#define S_IFBLK 0060000
#define S_IFDIR 0040000
#define S_IFCHR 0020000
#define S_IFIFO 0010000
#define S_ISUID 04000
#define S_ISGID 02000
#define S_ISVTX 01000
#define S_ISREG(m) (((m)&S_IFMT) == S_IFREG)
#define S_ISDIR(m) (((m)&S_IFMT) == S_IFDIR)
#define S_ISCHR(m) (((m)&S_IFMT) == S_IFCHR)
#define S_ISBLK(m) (((m)&S_IFMT) == S_IFBLK)
#define S_ISFIFO(m) (((m)&S_IFMT) == S_IFIFO)
#define S_ISLNK(m) (((m)&S_IFMT) == S_IFLNK)
#define S_ISSOCK(m) (((m)&S_IFMT) == S_IFSOCK)

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

static inline int stat(const char *path, struct stat *buf) { return __kern_stat(path, buf); }
static inline int fstat(int fd, struct stat *buf) { return __kern_fstat(fd, buf); }
static inline int mkdir(const char *path, mode_t mode) { return __kern_mkdir(path, mode); }

#endif // KERN_SYS_STAT_H
