// <sys/resource.h> as kern provides it: getrusage, with the program's processor time (C's
// clock(): user and system time together, reported as user time) and every other field 0 (kern
// does not measure page faults, context switches or the resident set of a program); and the
// resource limits, which kern reports as unlimited (RLIM_INFINITY) and lets a program lower
// (setrlimit keeps them; kern itself does not enforce them). See docs/headers.md.
#ifndef KERN_SYS_RESOURCE_H
#define KERN_SYS_RESOURCE_H

#include <errno.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define RUSAGE_SELF 0
#define RUSAGE_CHILDREN (-1)
#define RUSAGE_THREAD 1
#define RLIMIT_CPU 0
#define RLIMIT_FSIZE 1
#define RLIMIT_DATA 2
#define RLIMIT_STACK 3
#define RLIMIT_CORE 4
#define RLIMIT_NOFILE 7
#define RLIMIT_AS 9
#define RLIM_NLIMITS 16
#define RLIM_INFINITY (~0UL)

typedef unsigned long rlim_t;

struct rusage {
  struct timeval ru_utime;
  struct timeval ru_stime;
  long ru_maxrss, ru_ixrss, ru_idrss, ru_isrss, ru_minflt, ru_majflt, ru_nswap, ru_inblock,
      ru_oublock, ru_msgsnd, ru_msgrcv, ru_nsignals, ru_nvcsw, ru_nivcsw;
};

struct rlimit {
  rlim_t rlim_cur;
  rlim_t rlim_max;
};

static inline int getrusage(int who, struct rusage *usage) {
  if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN && who != RUSAGE_THREAD) {
    errno = EINVAL;
    return -1;
  }
  memset(usage, 0, sizeof *usage);
  if (who != RUSAGE_CHILDREN) { // a kern program has no child processes
    long long t = (long long)clock();
    usage->ru_utime.tv_sec = (long)(t / CLOCKS_PER_SEC);
    usage->ru_utime.tv_usec = (long)(t % CLOCKS_PER_SEC * 1000000 / CLOCKS_PER_SEC);
  }
  return 0;
}

static struct rlimit __kern_rlimits[RLIM_NLIMITS];
static int __kern_rlimits_set[RLIM_NLIMITS];

static inline int getrlimit(int resource, struct rlimit *limit) {
  if (resource < 0 || resource >= RLIM_NLIMITS) {
    errno = EINVAL;
    return -1;
  }
  if (__kern_rlimits_set[resource]) {
    *limit = __kern_rlimits[resource];
  } else {
    limit->rlim_cur = RLIM_INFINITY;
    limit->rlim_max = RLIM_INFINITY;
  }
  return 0;
}

static inline int setrlimit(int resource, const struct rlimit *limit) {
  if (resource < 0 || resource >= RLIM_NLIMITS || limit->rlim_cur > limit->rlim_max) {
    errno = EINVAL;
    return -1;
  }
  struct rlimit old;
  getrlimit(resource, &old);
  if (limit->rlim_max > old.rlim_max) { // only a privileged process may raise the hard limit
    errno = EPERM;
    return -1;
  }
  __kern_rlimits[resource] = *limit;
  __kern_rlimits_set[resource] = 1;
  return 0;
}

#endif // KERN_SYS_RESOURCE_H
