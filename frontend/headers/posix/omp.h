// <omp.h> as kern provides it: the OpenMP runtime library of a serial implementation. kern
// runs host code on one thread and ignores `#pragma omp` lines (every pragma but `once` is
// ignored), so a parallel region is executed by a team of one thread, the initial one:
// omp_get_thread_num() is 0, omp_get_num_threads(), omp_get_max_threads(), omp_get_num_procs()
// and omp_get_thread_limit() are 1, omp_in_parallel() is 0. omp_set_num_threads and the other
// setters are accepted; those whose setting a query reports back (dynamic adjustment, nesting,
// the schedule, the active levels, the default device) keep it. omp_get_wtime() is seconds of
// the host's monotonic clock, omp_get_wtick() its resolution (1 ns). Locks are flags: setting
// a lock that is held would wait forever in a team of one thread. _OPENMP is not defined (kern
// does not compile OpenMP's parallel constructs). See docs/headers.md.
#ifndef KERN_OMP_H
#define KERN_OMP_H

#include <time.h>

typedef struct {
  int __kern_held;
} omp_lock_t;
typedef struct {
  int __kern_depth; // times the owner has set it
} omp_nest_lock_t;

typedef enum omp_sched_t {
  omp_sched_static = 1,
  omp_sched_dynamic = 2,
  omp_sched_guided = 3,
  omp_sched_auto = 4,
  omp_sched_monotonic = 0x80000000
} omp_sched_t;

typedef enum omp_proc_bind_t {
  omp_proc_bind_false = 0,
  omp_proc_bind_true = 1,
  omp_proc_bind_primary = 2,
  omp_proc_bind_master = 2,
  omp_proc_bind_close = 3,
  omp_proc_bind_spread = 4
} omp_proc_bind_t;

// The settings the queries report back (internal control variables).
static int __kern_omp_dynamic = 0;
static int __kern_omp_nested = 0;
static int __kern_omp_max_active_levels = 1;
static omp_sched_t __kern_omp_schedule = omp_sched_static;
static int __kern_omp_chunk = 0;
static int __kern_omp_default_device = 0;

// ---- threads and teams ----
static inline void omp_set_num_threads(int n) {}
static inline int omp_get_num_threads(void) { return 1; }
static inline int omp_get_max_threads(void) { return 1; }
static inline int omp_get_thread_num(void) { return 0; }
static inline int omp_get_num_procs(void) { return 1; }
static inline int omp_in_parallel(void) { return 0; }
static inline int omp_in_final(void) { return 0; }
static inline void omp_set_dynamic(int on) { __kern_omp_dynamic = on != 0; }
static inline int omp_get_dynamic(void) { return __kern_omp_dynamic; }
static inline void omp_set_nested(int on) { __kern_omp_nested = on != 0; }
static inline int omp_get_nested(void) { return __kern_omp_nested; }
static inline int omp_get_cancellation(void) { return 0; }
static inline void omp_set_schedule(omp_sched_t kind, int chunk) {
  __kern_omp_schedule = kind;
  __kern_omp_chunk = chunk;
}
static inline void omp_get_schedule(omp_sched_t *kind, int *chunk) {
  *kind = __kern_omp_schedule;
  *chunk = __kern_omp_chunk;
}
static inline int omp_get_thread_limit(void) { return 1; }
static inline void omp_set_max_active_levels(int levels) {
  if (levels >= 0)
    __kern_omp_max_active_levels = levels;
}
static inline int omp_get_max_active_levels(void) { return __kern_omp_max_active_levels; }
static inline int omp_get_supported_active_levels(void) { return 1; }
static inline int omp_get_level(void) { return 0; }
static inline int omp_get_active_level(void) { return 0; }
static inline int omp_get_ancestor_thread_num(int level) { return level == 0 ? 0 : -1; }
static inline int omp_get_team_size(int level) { return level == 0 ? 1 : -1; }
static inline omp_proc_bind_t omp_get_proc_bind(void) { return omp_proc_bind_false; }
static inline int omp_get_num_places(void) { return 0; }

// ---- devices and teams of the target constructs: the host is the only device ----
static inline void omp_set_default_device(int device) { __kern_omp_default_device = device; }
static inline int omp_get_default_device(void) { return __kern_omp_default_device; }
static inline int omp_get_num_devices(void) { return 0; }
static inline int omp_get_device_num(void) { return 0; }
static inline int omp_get_initial_device(void) { return 0; }
static inline int omp_is_initial_device(void) { return 1; }
static inline int omp_get_num_teams(void) { return 1; }
static inline int omp_get_team_num(void) { return 0; }

// ---- locks ----
static inline void omp_init_lock(omp_lock_t *lock) { lock->__kern_held = 0; }
static inline void omp_destroy_lock(omp_lock_t *lock) { lock->__kern_held = 0; }
static inline void omp_set_lock(omp_lock_t *lock) { lock->__kern_held = 1; }
static inline void omp_unset_lock(omp_lock_t *lock) { lock->__kern_held = 0; }
static inline int omp_test_lock(omp_lock_t *lock) {
  if (lock->__kern_held)
    return 0;
  lock->__kern_held = 1;
  return 1;
}
static inline void omp_init_nest_lock(omp_nest_lock_t *lock) { lock->__kern_depth = 0; }
static inline void omp_destroy_nest_lock(omp_nest_lock_t *lock) { lock->__kern_depth = 0; }
static inline void omp_set_nest_lock(omp_nest_lock_t *lock) { ++lock->__kern_depth; }
static inline void omp_unset_nest_lock(omp_nest_lock_t *lock) {
  if (lock->__kern_depth > 0)
    --lock->__kern_depth;
}
static inline int omp_test_nest_lock(omp_nest_lock_t *lock) { return ++lock->__kern_depth; }

// ---- timing ----
static inline double omp_get_wtime(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
static inline double omp_get_wtick(void) { return 1e-9; }

#endif
