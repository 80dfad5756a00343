// helper_timer.h as kern provides it: the stopwatch of the header of this name in CUDA's samples
// (same functions, arguments and results), measuring the host's real time with gettimeofday.
// The samples' StopWatchInterface is a class; here it is a struct that the sdk*Timer functions
// work on, so `StopWatchInterface *t = NULL; sdkCreateTimer(&t); sdkStartTimer(&t);` works as
// there. Times are in milliseconds.
#ifndef KERN_HELPER_TIMER_H
#define KERN_HELPER_TIMER_H

#include <stdlib.h>
#include <sys/time.h>

#ifndef EXIT_WAIVED
#define EXIT_WAIVED 2
#endif

typedef struct StopWatchInterface {
  struct timeval startTime; // when the running session started
  float diffTime;           // the last finished session, ms
  float totalTime;          // all finished sessions since the last reset, ms
  int running;              // a session is under way
  int sessions;             // finished sessions since the last reset
} StopWatchInterface;

// Milliseconds since timer->startTime.
static inline float kernTimerElapsed(const StopWatchInterface *timer) {
  struct timeval now;
  gettimeofday(&now, NULL);
  return (float)(1000.0 * (double)(now.tv_sec - timer->startTime.tv_sec) +
                 0.001 * (double)(now.tv_usec - timer->startTime.tv_usec));
}

// A new stopped timer at zero in *timer_interface; false if there is no memory for one.
inline bool sdkCreateTimer(StopWatchInterface **timer_interface) {
  StopWatchInterface *timer = (StopWatchInterface *)malloc(sizeof(StopWatchInterface));
  *timer_interface = timer;
  if (timer == NULL)
    return false;
  timer->startTime.tv_sec = 0;
  timer->startTime.tv_usec = 0;
  timer->diffTime = 0;
  timer->totalTime = 0;
  timer->running = 0;
  timer->sessions = 0;
  return true;
}

// Frees *timer_interface (if any) and sets it to null.
inline bool sdkDeleteTimer(StopWatchInterface **timer_interface) {
  if (*timer_interface != NULL) {
    free(*timer_interface);
    *timer_interface = NULL;
  }
  return true;
}

// Starts a session.
inline bool sdkStartTimer(StopWatchInterface **timer_interface) {
  StopWatchInterface *timer = *timer_interface;
  if (timer != NULL) {
    gettimeofday(&timer->startTime, NULL);
    timer->running = 1;
  }
  return true;
}

// Ends the running session and adds its time to the total.
inline bool sdkStopTimer(StopWatchInterface **timer_interface) {
  StopWatchInterface *timer = *timer_interface;
  if (timer != NULL) {
    timer->diffTime = kernTimerElapsed(timer);
    timer->totalTime += timer->diffTime;
    timer->running = 0;
    timer->sessions++;
  }
  return true;
}

// Back to zero time and sessions; a running session goes on from now.
inline bool sdkResetTimer(StopWatchInterface **timer_interface) {
  StopWatchInterface *timer = *timer_interface;
  if (timer != NULL) {
    timer->diffTime = 0;
    timer->totalTime = 0;
    timer->sessions = 0;
    if (timer->running)
      gettimeofday(&timer->startTime, NULL);
  }
  return true;
}

// The mean time of the sessions finished since the last reset (0 before the first).
inline float sdkGetAverageTimerValue(StopWatchInterface **timer_interface) {
  StopWatchInterface *timer = *timer_interface;
  if (timer == NULL || timer->sessions == 0)
    return 0.0f;
  return timer->totalTime / timer->sessions;
}

// The time of the finished sessions since the last reset, plus that of the running one.
inline float sdkGetTimerValue(StopWatchInterface **timer_interface) {
  StopWatchInterface *timer = *timer_interface;
  if (timer == NULL)
    return 0.0f;
  float t = timer->totalTime;
  if (timer->running)
    t += kernTimerElapsed(timer);
  return t;
}

#endif // KERN_HELPER_TIMER_H
