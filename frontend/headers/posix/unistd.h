// <unistd.h> as kern provides it: getopt's globals (getopt itself is built in, as is
// <getopt.h>), the standard file descriptors, and read, write, close and lseek on the file
// descriptors of <fcntl.h>'s open. The functions reach kern's runtime (__kern_read...), where
// 0, 1 and 2 are the program's stdin, stdout and stderr (what it writes to 1 and 2 goes out in
// order with printf) and the others files it opened where it may use files. See
// docs/headers.md.
#ifndef KERN_UNISTD_H
#define KERN_UNISTD_H

#include <stddef.h>

// getopt's globals live in the runtime: each names its location (runtime/host_getopt.cpp).
#define optarg (*__kern_optarg_location())
#define optind (*__kern_optind_location())
#define opterr (*__kern_opterr_location())
#define optopt (*__kern_optopt_location())

#define STDIN_FILENO 0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2

#include <kern_unistd_io.h>

#endif
