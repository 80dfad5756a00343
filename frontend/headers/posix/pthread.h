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

#endif
