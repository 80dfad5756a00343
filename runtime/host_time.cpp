// The host C library's clocks: gettimeofday (sys/time.h), clock_gettime, time and clock
// (time.h). Host code reads the host's real clocks, as a native program does; kernels' clock()
// is the virtual SM's cycle counter (warp side).
#include "runtime/runtime.h"

#include "runtime/errors.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

using kern::runtime::Runtime;

namespace {

// struct timeval and struct timespec as host code lays them out (two int64 fields).
struct TwoLongs {
  int64_t seconds;
  int64_t fraction;
};

void realtime(int64_t &seconds, int64_t &nanoseconds) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
  seconds = ns / 1000000000;
  nanoseconds = ns % 1000000000;
}

} // namespace

extern "C" {

int32_t kern_rt_gettimeofday(KernHostCtx *ctx, void *tv, void *tz) {
  if ((tv && !ctx->rt->checkHostRange("gettimeofday", "timeval", tv, sizeof(TwoLongs))) ||
      (tz && !ctx->rt->checkHostRange("gettimeofday", "timezone", tz, 2 * sizeof(int32_t))))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  if (tv) {
    TwoLongs t;
    int64_t ns;
    realtime(t.seconds, ns);
    t.fraction = ns / 1000;
    std::memcpy(tv, &t, sizeof t);
  }
  if (tz) // the obsolete struct timezone: UTC, no daylight saving time (as glibc reports it)
    std::memset(tz, 0, 2 * sizeof(int32_t));
  return 0;
}

int32_t kern_rt_clock_gettime(KernHostCtx *ctx, int32_t clock, void *ts) {
  if (!ctx->rt->checkHostRange("clock_gettime", "timespec", ts, sizeof(TwoLongs)))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  TwoLongs t;
  if (clock == 0) { // CLOCK_REALTIME
    realtime(t.seconds, t.fraction);
  } else if (clock == 1) { // CLOCK_MONOTONIC
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
    t.seconds = ns / 1000000000;
    t.fraction = ns % 1000000000;
  } else {
    ctx->rt->hostLibrary().err = EINVAL; // kern knows CLOCK_REALTIME and CLOCK_MONOTONIC
    return -1;
  }
  std::memcpy(ts, &t, sizeof t);
  return 0;
}

int64_t kern_rt_time(KernHostCtx *ctx, int64_t *t) {
  if (t && !ctx->rt->checkHostRange("time", "result", t, sizeof *t))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  int64_t seconds, ns;
  realtime(seconds, ns);
  if (t)
    *t = seconds;
  return seconds;
}

uint32_t kern_rt_sleep(KernHostCtx *ctx, uint32_t seconds) {
  if (!ctx->rt->hostSleep(ctx, uint64_t(seconds) * 1000000000))
    Runtime::unwind(ctx, ctx->rt->stopExitCode());
  return 0; // the whole time slept: no signal interrupts a kern program's sleep
}

int32_t kern_rt_usleep(KernHostCtx *ctx, uint32_t microseconds) {
  if (!ctx->rt->hostSleep(ctx, uint64_t(microseconds) * 1000))
    Runtime::unwind(ctx, ctx->rt->stopExitCode());
  return 0;
}

int32_t kern_rt_nanosleep(KernHostCtx *ctx, const void *req, void *rem) {
  if (!ctx->rt->checkHostRange("nanosleep", "requested time", req, sizeof(TwoLongs)) ||
      (rem && !ctx->rt->checkHostRange("nanosleep", "remaining time", rem, sizeof(TwoLongs))))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  TwoLongs t;
  std::memcpy(&t, req, sizeof t);
  if (t.seconds < 0 || t.fraction < 0 || t.fraction > 999999999) {
    ctx->rt->hostLibrary().err = EINVAL;
    return -1;
  }
  constexpr int64_t kForever = int64_t(1) << 32; // seconds: past any time limit
  const uint64_t ns = uint64_t(std::min(t.seconds, kForever)) * 1000000000 + uint64_t(t.fraction);
  if (!ctx->rt->hostSleep(ctx, ns))
    Runtime::unwind(ctx, ctx->rt->stopExitCode());
  return 0; // the whole time slept: `rem` is left as it was, as a native nanosleep leaves it
}

int64_t kern_rt_host_clock(KernHostCtx *) {
  // The process's processor time (CLOCKS_PER_SEC is 1000000 on Linux, as kern defines it).
  return static_cast<int64_t>(std::clock());
}

} // extern "C"
