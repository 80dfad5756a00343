// <pthread.h> as kern provides it. kern runs host code on one thread (docs/threads.md): each
// thread a program creates is a cooperative fiber of that thread, which runs only while the
// others are blocked (pthread_join, a held mutex, pthread_cond_wait, sched_yield, its end).
// The functions are built in; this header gives their types. The objects keep their state in
// their own fields, so PTHREAD_MUTEX_INITIALIZER and pthread_mutex_init agree.
#ifndef KERN_PTHREAD_H
#define KERN_PTHREAD_H

#include <sched.h>

typedef unsigned long pthread_t;
typedef struct {
  int __kern_unused;
} pthread_attr_t;
typedef struct {
  int __kern_owner; // the owning thread's number, 0 when unlocked
  int __kern_unused;
} pthread_mutex_t;
typedef struct {
  int __kern_unused;
} pthread_mutexattr_t;
typedef struct {
  int __kern_unused;
} pthread_cond_t;
typedef struct {
  int __kern_unused;
} pthread_condattr_t;

#define PTHREAD_MUTEX_INITIALIZER                                                                  \
  { 0, 0 }
#define PTHREAD_CANCELED ((void *)-1)
#define PTHREAD_COND_INITIALIZER                                                                   \
  { 0 }

// Barriers, made of a mutex and a condition: the count-th thread to arrive wakes the others
// (and is the one told PTHREAD_BARRIER_SERIAL_THREAD); a new round begins at once.
typedef struct {
  pthread_mutex_t __kern_lock;
  pthread_cond_t __kern_all_here;
  unsigned __kern_count;   // threads that make a round
  unsigned __kern_arrived; // in this round so far
  unsigned __kern_round;
} pthread_barrier_t;
typedef struct {
  int __kern_unused;
} pthread_barrierattr_t;

#define PTHREAD_BARRIER_SERIAL_THREAD (-1)

static inline int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr,
                                       unsigned count) {
  (void)attr;
  if (count == 0)
    return 22; // EINVAL
  pthread_mutex_init(&b->__kern_lock, 0);
  pthread_cond_init(&b->__kern_all_here, 0);
  b->__kern_count = count;
  b->__kern_arrived = 0;
  b->__kern_round = 0;
  return 0;
}

static inline int pthread_barrier_wait(pthread_barrier_t *b) {
  pthread_mutex_lock(&b->__kern_lock);
  unsigned round = b->__kern_round;
  if (++b->__kern_arrived == b->__kern_count) {
    b->__kern_arrived = 0;
    b->__kern_round = round + 1;
    pthread_cond_broadcast(&b->__kern_all_here);
    pthread_mutex_unlock(&b->__kern_lock);
    return PTHREAD_BARRIER_SERIAL_THREAD;
  }
  while (b->__kern_round == round)
    pthread_cond_wait(&b->__kern_all_here, &b->__kern_lock);
  pthread_mutex_unlock(&b->__kern_lock);
  return 0;
}

static inline int pthread_barrier_destroy(pthread_barrier_t *b) {
  if (b->__kern_arrived != 0)
    return 16; // EBUSY: threads are waiting
  pthread_cond_destroy(&b->__kern_all_here);
  pthread_mutex_destroy(&b->__kern_lock);
  return 0;
}

#endif
