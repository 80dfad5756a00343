// <sched.h> as kern provides it: sched_yield (built in) lets the other program threads run
// (see <pthread.h>).
#ifndef KERN_SCHED_H
#define KERN_SCHED_H
#endif
