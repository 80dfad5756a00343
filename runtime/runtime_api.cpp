// The extern "C" runtime functions that compiled code calls (backend/abi.h): thin wrappers that
// forward to the Runtime (host side) or to the scheduler (warp side). A wrapper that may unwind
// to runMain holds no C++ object with a destructor when it does.
#include "runtime/counter_hooks.h"
#include "runtime/errors.h"
#include "runtime/printf_format.h"
#include "runtime/runtime.h"
#include "runtime/scheduler.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <strings.h>

using kern::runtime::Runtime;

namespace {

// snprintf's work, apart from the wrapper so that its strings are gone before an unwind.
bool formatInto(KernHostCtx *ctx, char *buf, uint64_t size, const char *fmt, int32_t nargs,
                const uint64_t *args, int32_t &result) {
  uint64_t len = 0;
  if (!ctx->rt->checkHostString(size == UINT64_MAX ? "sprintf" : "snprintf", "format", fmt, len))
    return false;
  std::string text;
  kern::runtime::formatPrintf(text, fmt, nargs, args, ctx->rt->hostFormatOptions());
  result = static_cast<int32_t>(text.size());
  if (size == 0)
    return true;
  const uint64_t n = std::min<uint64_t>(text.size(), size - 1);
  // sprintf (size UINT64_MAX) writes the whole text: the check below catches an overrun of a
  // malloc'd buffer, as a real sprintf would silently corrupt the heap.
  if (!ctx->rt->checkHostRange(size == UINT64_MAX ? "sprintf" : "snprintf", "destination", buf,
                               n + 1))
    return false;
  std::memcpy(buf, text.data(), n);
  buf[n] = '\0';
  return true;
}

} // namespace

extern "C" {

// ---- called from warp functions ----------------------------------------------------------

void kern_rt_fault(KernWarpCtx *ctx, uint32_t site, uint32_t kind, uint32_t lane, uint64_t addr) {
  kern::runtime::warpFault(ctx, site, kind, lane, addr);
}

int32_t kern_rt_poll(KernWarpCtx *ctx, uint32_t site) { return kern::runtime::warpPoll(ctx, site); }

void kern_rt_kprintf(KernWarpCtx *ctx, uint32_t lane, const char *fmt, int32_t nargs,
                     const uint64_t *args) {
  kern::runtime::warpPrintf(ctx, lane, fmt, nargs, args);
}

void kern_rt_assert(KernWarpCtx *ctx, uint32_t site, uint32_t lanes, const char *message) {
  kern::runtime::warpAssert(ctx, site, lanes, message);
}

void kern_rt_barrier(KernWarpCtx *ctx, uint32_t site, uint32_t activeMask) {
  kern::runtime::countBarrier(ctx, site);
  kern::runtime::warpBarrier(ctx, site, activeMask, 0, -1);
}

int32_t kern_rt_barrier_reduce(KernWarpCtx *ctx, uint32_t site, uint32_t activeMask,
                               uint32_t predMask, uint32_t op) {
  kern::runtime::countBarrier(ctx, site);
  return kern::runtime::warpBarrier(ctx, site, activeMask, predMask,
                                    static_cast<int32_t>(op > 2 ? 0 : op));
}

// kern_rt_barrier_arrive, kern_rt_barrier_result and kern_rt_region_frame live in scheduler.cpp,
// next to the block runner that resumes the warps.

// The counter hooks (kern_rt_count_*) live in counter_hooks.cpp.

// ---- called from warp functions and host code ----------------------------------------------

uint64_t kern_rt_global_addr(void *ctx, uint32_t globalId) {
  if (*static_cast<const void *const *>(ctx) == &kern::runtime::kHostCtxTag)
    return static_cast<KernHostCtx *>(ctx)->rt->globalAddress(globalId);
  return kern::runtime::warpGlobalAddr(static_cast<KernWarpCtx *>(ctx), globalId);
}

// ---- called from host code -----------------------------------------------------------------

void kern_rt_host_fault(KernHostCtx *ctx, uint32_t site, uint32_t kind, uint64_t addr) {
  ctx->rt->hostFault(site, kind, addr);
  Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
}

void kern_rt_api_site(KernHostCtx *ctx, uint32_t site) {
  // Before each call: a poll point of host code (a loop of calls stops, whatever they do).
  if (site && !ctx->rt->hostMayGoOn(site, false))
    Runtime::unwind(ctx, ctx->rt->stopExitCode());
  ctx->rt->setApiSite(site);
}

void kern_rt_host_poll(KernHostCtx *ctx, uint32_t site) {
  if (!ctx->rt->hostMayGoOn(site, true))
    Runtime::unwind(ctx, ctx->rt->stopExitCode());
}

void kern_rt_host_assert(KernHostCtx *ctx, uint32_t site, const char *message) {
  ctx->rt->hostAssert(site, message);
  Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
}

int32_t kern_rt_printf(KernHostCtx *ctx, const char *fmt, int32_t nargs, const uint64_t *args) {
  uint64_t len = 0; // a format computed at run time must be a string of the program's
  if (!ctx->rt->checkHostString("printf", "format", fmt, len))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  std::string text;
  kern::runtime::formatPrintf(text, fmt, nargs, args, ctx->rt->hostFormatOptions());
  ctx->rt->write(1, text);
  return static_cast<int32_t>(text.size());
}

// kern_rt_fprintf lives in host_files.cpp, with the streams it may write to.

int32_t kern_rt_snprintf(KernHostCtx *ctx, char *buf, uint64_t size, const char *fmt, int32_t nargs,
                         const uint64_t *args) {
  int32_t result = 0;
  if (!formatInto(ctx, buf, size, fmt, nargs, args, result))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return result;
}

void kern_rt_launch(KernHostCtx *ctx, uint32_t kernel, uint32_t gx, uint32_t gy, uint32_t gz,
                    uint32_t bx, uint32_t by, uint32_t bz, uint64_t sharedBytes, void *stream,
                    const uint8_t *params, uint32_t paramBytes, uint32_t site) {
  // Every launch runs to completion before it returns, whatever its stream: one legal ordering
  // of any stream program. The stream must still be a valid one.
  const uint32_t grid[3] = {gx, gy, gz};
  const uint32_t block[3] = {bx, by, bz};
  ctx->rt->launch(kernel, grid, block, sharedBytes, stream, params, paramBytes, site);
  if (ctx->rt->interrupted()) // the launch was stopped from outside: so is the program
    Runtime::unwind(ctx, kern::runtime::kInterruptedExitCode);
}

uint64_t kern_rt_global_lo(KernHostCtx *ctx) { return ctx->rt->deviceMemory().lo(); }
// Host code may touch the host-visible arena (managed and mapped memory), not the device arena.
uint64_t kern_rt_global_hi(KernHostCtx *ctx) { return ctx->rt->deviceMemory().deviceHi(); }

void *kern_rt_malloc(KernHostCtx *ctx, uint64_t size) { return ctx->rt->hostMalloc(size); }

void *kern_rt_calloc(KernHostCtx *ctx, uint64_t n, uint64_t size) {
  return ctx->rt->hostCalloc(n, size);
}

void *kern_rt_realloc(KernHostCtx *ctx, void *p, uint64_t size) {
  void *result = nullptr;
  if (!ctx->rt->hostRealloc(p, size, result))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return result;
}

void *kern_rt___kern_new(KernHostCtx *ctx, uint64_t size, int32_t isArray) {
  void *p = ctx->rt->hostNew(size, isArray != 0);
  if (!p) { // C++ throws std::bad_alloc; with no exceptions, the program ends here
    ctx->rt->hostLibraryError(std::string(isArray ? "new[]" : "new") + ": cannot allocate " +
                              std::to_string(size) + " bytes (std::bad_alloc)");
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  }
  return p;
}

uint64_t kern_rt___kern_new_size(KernHostCtx *ctx, const void *p) {
  return ctx->rt->hostNewSize(p);
}

void kern_rt___kern_delete(KernHostCtx *ctx, void *p, int32_t isArray) {
  if (!ctx->rt->hostDelete(p, isArray))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
}

void kern_rt_free(KernHostCtx *ctx, void *p) {
  if (!ctx->rt->hostFree(p))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
}

void *kern_rt_memset(KernHostCtx *ctx, void *p, int32_t value, uint64_t n) {
  if (!ctx->rt->checkHostRange("memset", "destination", p, n))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return n ? std::memset(p, value, n) : p;
}

// <strings.h>'s BSD forms of memset and memmove.
void kern_rt_bzero(KernHostCtx *ctx, void *p, uint64_t n) {
  if (!ctx->rt->checkHostRange("bzero", "destination", p, n))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  if (n)
    std::memset(p, 0, n);
}

void kern_rt_bcopy(KernHostCtx *ctx, const void *src, void *dst, uint64_t n) {
  if (!ctx->rt->checkHostRange("bcopy", "destination", dst, n) ||
      !ctx->rt->checkHostRange("bcopy", "source", src, n))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  if (n)
    std::memmove(dst, src, n);
}

void *kern_rt_memcpy(KernHostCtx *ctx, void *dst, const void *src, uint64_t n) {
  if (!ctx->rt->checkHostRange("memcpy", "destination", dst, n) ||
      !ctx->rt->checkHostRange("memcpy", "source", src, n))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  // memmove: an overlapping memcpy is undefined in C; doing the obvious thing is kinder.
  return n ? std::memmove(dst, src, n) : dst;
}

int32_t kern_rt_memcmp(KernHostCtx *ctx, const void *a, const void *b, uint64_t n) {
  if (!ctx->rt->checkHostRange("memcmp", "first argument", a, n) ||
      !ctx->rt->checkHostRange("memcmp", "second argument", b, n))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return n ? std::memcmp(a, b, n) : 0;
}

uint64_t kern_rt_strlen(KernHostCtx *ctx, const char *s) {
  uint64_t len = 0;
  if (!ctx->rt->checkHostString("strlen", "string", s, len))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return len;
}

int32_t kern_rt_strcmp(KernHostCtx *ctx, const char *a, const char *b) {
  uint64_t la = 0, lb = 0;
  if (!ctx->rt->checkHostString("strcmp", "first string", a, la) ||
      !ctx->rt->checkHostString("strcmp", "second string", b, lb))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return std::strcmp(a, b);
}

int32_t kern_rt_strncmp(KernHostCtx *ctx, const char *a, const char *b, uint64_t n) {
  if (n && (!ctx->rt->checkHostRange("strncmp", "first string", a, 1) ||
            !ctx->rt->checkHostRange("strncmp", "second string", b, 1)))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return n ? std::strncmp(a, b, n) : 0;
}

// <strings.h>: comparisons that ignore case, as glibc's (letters compared as lower case).
int32_t kern_rt_strcasecmp(KernHostCtx *ctx, const char *a, const char *b) {
  uint64_t la = 0, lb = 0;
  if (!ctx->rt->checkHostString("strcasecmp", "first string", a, la) ||
      !ctx->rt->checkHostString("strcasecmp", "second string", b, lb))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return ::strcasecmp(a, b);
}

int32_t kern_rt_strncasecmp(KernHostCtx *ctx, const char *a, const char *b, uint64_t n) {
  if (n && (!ctx->rt->checkHostRange("strncasecmp", "first string", a, 1) ||
            !ctx->rt->checkHostRange("strncasecmp", "second string", b, 1)))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return n ? ::strncasecmp(a, b, n) : 0;
}

char *kern_rt_strcpy(KernHostCtx *ctx, char *dst, const char *src) {
  uint64_t len = 0;
  if (!ctx->rt->checkHostString("strcpy", "source", src, len) ||
      !ctx->rt->checkHostRange("strcpy", "destination", dst, len + 1))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return static_cast<char *>(std::memmove(dst, src, len + 1));
}

int32_t kern_rt_atoi(KernHostCtx *ctx, const char *s) {
  uint64_t len = 0;
  if (!ctx->rt->checkHostString("atoi", "string", s, len))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return std::atoi(s);
}

double kern_rt_atof(KernHostCtx *ctx, const char *s) {
  uint64_t len = 0;
  if (!ctx->rt->checkHostString("atof", "string", s, len))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return std::strtod(s, nullptr);
}

int64_t kern_rt_strtol(KernHostCtx *ctx, const char *s, char **end, int32_t base) {
  uint64_t len = 0;
  if (!ctx->rt->checkHostString("strtol", "string", s, len) ||
      (end && !ctx->rt->checkHostRange("strtol", "end pointer", end, sizeof *end)))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return std::strtol(s, end, base);
}

int32_t kern_rt_rand(KernHostCtx *ctx) { return ctx->rt->rand(); }
void kern_rt_srand(KernHostCtx *ctx, uint32_t seed) { ctx->rt->srand(seed); }
int64_t kern_rt_random(KernHostCtx *ctx) { return ctx->rt->rand(); }
void kern_rt_srandom(KernHostCtx *ctx, uint32_t seed) { ctx->rt->srand(seed); }
int64_t kern_rt_lrand48(KernHostCtx *ctx) {
  return static_cast<int64_t>(ctx->rt->rand48().next() >> 17);
}
int64_t kern_rt_mrand48(KernHostCtx *ctx) {
  return static_cast<int32_t>(static_cast<uint32_t>(ctx->rt->rand48().next() >> 16));
}
double kern_rt_drand48(KernHostCtx *ctx) {
  return static_cast<double>(ctx->rt->rand48().next()) / 281474976710656.0; // 2^48: exact
}
void kern_rt_srand48(KernHostCtx *ctx, int64_t seed) { ctx->rt->rand48().seed(seed); }

int32_t kern_rt_rand_r(KernHostCtx *ctx, uint32_t *seed) {
  if (!ctx->rt->checkHostRange("rand_r", "seed", seed, sizeof *seed))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return kern::runtime::glibcRandR(*seed);
}

void kern_rt_exit(KernHostCtx *ctx, int32_t code) { Runtime::unwind(ctx, code); }

void kern_rt_abort(KernHostCtx *ctx) {
  // A native program dies of SIGABRT, which a shell reports as 128 + 6.
  ctx->rt->hostProblem(ctx->rt->apiSite(), "the program called abort()");
  Runtime::unwind(ctx, 128 + SIGABRT);
}

int32_t kern_rt_puts(KernHostCtx *ctx, const char *s) {
  uint64_t len = 0;
  if (!ctx->rt->checkHostString("puts", "string", s, len))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  ctx->rt->write(1, std::string_view(s, len));
  ctx->rt->write(1, "\n");
  return static_cast<int32_t>(std::min<uint64_t>(len + 1, INT32_MAX)); // as glibc's puts
}

int32_t kern_rt_putchar(KernHostCtx *ctx, int32_t c) {
  const char ch = static_cast<char>(c);
  ctx->rt->write(1, std::string_view(&ch, 1));
  return static_cast<unsigned char>(ch);
}

int32_t kern_rt_cudaMalloc(KernHostCtx *ctx, void **p, uint64_t size) {
  return ctx->rt->cudaMalloc(p, size);
}
int32_t kern_rt_cudaFree(KernHostCtx *ctx, void *p) { return ctx->rt->cudaFree(p); }
int32_t kern_rt_cudaMemcpy(KernHostCtx *ctx, void *dst, const void *src, uint64_t n, int32_t kind) {
  return ctx->rt->cudaMemcpy(dst, src, n, kind);
}
int32_t kern_rt_cudaMemset(KernHostCtx *ctx, void *p, int32_t value, uint64_t n) {
  return ctx->rt->cudaMemset(p, value, n);
}
int32_t kern_rt_cudaDeviceSynchronize(KernHostCtx *ctx) { return ctx->rt->cudaDeviceSynchronize(); }
int32_t kern_rt_cudaThreadSynchronize(KernHostCtx *ctx) { return ctx->rt->cudaDeviceSynchronize(); }
int32_t kern_rt_cudaThreadExit(KernHostCtx *ctx) { return ctx->rt->cudaDeviceReset(); }
int32_t kern_rt___kern_cu_runtime_context(KernHostCtx *ctx) { return ctx->rt->contextMade(); }
int32_t kern_rt_cudaGetLastError(KernHostCtx *ctx) { return ctx->rt->cudaGetLastError(); }
int32_t kern_rt_cudaPeekAtLastError(KernHostCtx *ctx) { return ctx->rt->cudaPeekAtLastError(); }
const char *kern_rt_cudaGetErrorString(KernHostCtx *ctx, int32_t err) {
  return ctx->rt->handOutString(kern::runtime::errorString(err));
}
const char *kern_rt_cudaGetErrorName(KernHostCtx *ctx, int32_t err) {
  return ctx->rt->handOutString(kern::runtime::errorName(err));
}
int32_t kern_rt_cudaGetDeviceCount(KernHostCtx *ctx, int32_t *count) {
  return ctx->rt->cudaGetDeviceCount(count);
}
int32_t kern_rt_cudaGetDevice(KernHostCtx *ctx, int32_t *dev) {
  return ctx->rt->cudaGetDevice(dev);
}
int32_t kern_rt_cudaSetDevice(KernHostCtx *ctx, int32_t dev) { return ctx->rt->cudaSetDevice(dev); }
// The device that best matches *prop: kern models one GPU, so it is that one (the current).
int32_t kern_rt_cudaChooseDevice(KernHostCtx *ctx, int32_t *dev, const void *prop) {
  return prop ? ctx->rt->cudaGetDevice(dev) : kern::runtime::cudaErrorInvalidValue;
}
int32_t kern_rt_cudaDeviceReset(KernHostCtx *ctx) { return ctx->rt->cudaDeviceReset(); }

int32_t kern_rt_cudaMallocHost(KernHostCtx *ctx, void **p, uint64_t size) {
  return ctx->rt->cudaMallocHost(p, size);
}
int32_t kern_rt_cudaHostAlloc(KernHostCtx *ctx, void **p, uint64_t size, uint32_t flags) {
  return ctx->rt->cudaHostAlloc(p, size, flags);
}
int32_t kern_rt_cudaFreeHost(KernHostCtx *ctx, void *p) { return ctx->rt->cudaFreeHost(p); }
int32_t kern_rt_cudaMemcpyAsync(KernHostCtx *ctx, void *dst, const void *src, uint64_t n,
                                int32_t kind, void *stream) {
  return ctx->rt->cudaMemcpyAsync(dst, src, n, kind, stream);
}
int32_t kern_rt_cudaMemsetAsync(KernHostCtx *ctx, void *p, int32_t value, uint64_t n,
                                void *stream) {
  return ctx->rt->cudaMemsetAsync(p, value, n, stream);
}
int32_t kern_rt_cudaStreamCreate(KernHostCtx *ctx, void **stream) {
  return ctx->rt->cudaStreamCreate(stream);
}
int32_t kern_rt_cudaStreamDestroy(KernHostCtx *ctx, void *stream) {
  return ctx->rt->cudaStreamDestroy(stream);
}
int32_t kern_rt_cudaStreamSynchronize(KernHostCtx *ctx, void *stream) {
  return ctx->rt->cudaStreamSynchronize(stream);
}
int32_t kern_rt_cudaEventCreate(KernHostCtx *ctx, void **event) {
  return ctx->rt->cudaEventCreate(event);
}
int32_t kern_rt_cudaEventRecord(KernHostCtx *ctx, void *event, void *stream) {
  return ctx->rt->cudaEventRecord(event, stream);
}
int32_t kern_rt_cudaEventSynchronize(KernHostCtx *ctx, void *event) {
  return ctx->rt->cudaEventSynchronize(event);
}
int32_t kern_rt_cudaEventQuery(KernHostCtx *ctx, void *event) {
  return ctx->rt->cudaEventQuery(event);
}

int32_t kern_rt_cudaRuntimeGetVersion(KernHostCtx *ctx, int32_t *version) {
  return ctx->rt->cudaVersion("cudaRuntimeGetVersion", version);
}

int32_t kern_rt_cudaDriverGetVersion(KernHostCtx *ctx, int32_t *version) {
  return ctx->rt->cudaVersion("cudaDriverGetVersion", version);
}

int32_t kern_rt_cudaStreamCreateWithFlags(KernHostCtx *ctx, void **stream, uint32_t flags) {
  return ctx->rt->cudaStreamCreate(stream, flags, "cudaStreamCreateWithFlags");
}

int32_t kern_rt_cudaEventCreateWithFlags(KernHostCtx *ctx, void **event, uint32_t flags) {
  return ctx->rt->cudaEventCreate(event, flags, "cudaEventCreateWithFlags");
}

int32_t kern_rt_cudaStreamQuery(KernHostCtx *ctx, void *stream) {
  return ctx->rt->cudaStreamQuery(stream);
}

int32_t kern_rt_cudaStreamWaitEvent(KernHostCtx *ctx, void *stream, void *event, uint32_t flags) {
  return ctx->rt->cudaStreamWaitEvent(stream, event, flags);
}

// The host function may unwind (exit, a fault in it): nothing here has a destructor.
int32_t kern_rt_cudaStreamAddCallback(KernHostCtx *ctx, void *stream, void *fn, void *userData,
                                      uint32_t flags) {
  return ctx->rt->cudaStreamAddCallback(ctx, stream, reinterpret_cast<Runtime::StreamCallback>(fn),
                                        userData, flags);
}

int32_t kern_rt_cudaLaunchHostFunc(KernHostCtx *ctx, void *stream, void *fn, void *userData) {
  return ctx->rt->cudaLaunchHostFunc(ctx, stream, reinterpret_cast<Runtime::HostFn>(fn), userData);
}

int32_t kern_rt_cudaSetDeviceFlags(KernHostCtx *ctx, uint32_t flags) {
  return ctx->rt->cudaSetDeviceFlags(flags);
}

int32_t kern_rt_cudaGetDeviceFlags(KernHostCtx *ctx, uint32_t *flags) {
  return ctx->rt->cudaGetDeviceFlags(flags);
}

int32_t kern_rt_cudaDeviceSetLimit(KernHostCtx *ctx, int32_t limit, uint64_t value) {
  return ctx->rt->cudaDeviceSetLimit(limit, value);
}
int32_t kern_rt_cudaDeviceGetLimit(KernHostCtx *ctx, uint64_t *value, int32_t limit) {
  return ctx->rt->cudaDeviceGetLimit(value, limit);
}
int32_t kern_rt_cudaStreamSetAttribute(KernHostCtx *ctx, void *stream, int32_t attr,
                                       const KernStreamAttrValue *value) {
  return ctx->rt->cudaStreamSetAttribute(stream, attr, value);
}
int32_t kern_rt_cudaStreamGetAttribute(KernHostCtx *ctx, void *stream, int32_t attr,
                                       KernStreamAttrValue *value) {
  return ctx->rt->cudaStreamGetAttribute(stream, attr, value);
}
int32_t kern_rt_cudaCtxResetPersistingL2Cache(KernHostCtx *ctx) {
  return ctx->rt->cudaCtxResetPersistingL2Cache();
}
int32_t kern_rt_cudaDeviceCanAccessPeer(KernHostCtx *ctx, int32_t *canAccess, int32_t device,
                                        int32_t peer) {
  return ctx->rt->cudaDeviceCanAccessPeer(canAccess, device, peer);
}
int32_t kern_rt_cudaDeviceEnablePeerAccess(KernHostCtx *ctx, int32_t peer, uint32_t flags) {
  return ctx->rt->cudaDeviceEnablePeerAccess(peer, flags);
}
int32_t kern_rt_cudaDeviceDisablePeerAccess(KernHostCtx *ctx, int32_t peer) {
  return ctx->rt->cudaDeviceDisablePeerAccess(peer);
}
int32_t kern_rt_cudaMemcpyPeer(KernHostCtx *ctx, void *dst, int32_t dstDevice, const void *src,
                               int32_t srcDevice, uint64_t n) {
  return ctx->rt->cudaMemcpyPeer(dst, dstDevice, src, srcDevice, n, nullptr, "cudaMemcpyPeer");
}
int32_t kern_rt_cudaMemcpyPeerAsync(KernHostCtx *ctx, void *dst, int32_t dstDevice, const void *src,
                                    int32_t srcDevice, uint64_t n, void *stream) {
  return ctx->rt->cudaMemcpyPeer(dst, dstDevice, src, srcDevice, n, stream, "cudaMemcpyPeerAsync");
}
int32_t kern_rt_cudaDeviceGetAttribute(KernHostCtx *ctx, int32_t *value, int32_t attr,
                                       int32_t device) {
  return ctx->rt->cudaDeviceGetAttribute(value, attr, device);
}

int32_t kern_rt_cudaDeviceSetCacheConfig(KernHostCtx *ctx, int32_t config) {
  return ctx->rt->cudaCacheConfig("cudaDeviceSetCacheConfig", config);
}

int32_t kern_rt_cudaFuncSetCacheConfig(KernHostCtx *ctx, uint32_t kernel, int32_t config) {
  return ctx->rt->cudaFuncSetCacheConfig(kernel, config);
}
int32_t kern_rt_cudaEventElapsedTime(KernHostCtx *ctx, float *ms, void *start, void *end) {
  return ctx->rt->cudaEventElapsedTime(ms, start, end);
}
int32_t kern_rt_cudaEventDestroy(KernHostCtx *ctx, void *event) {
  return ctx->rt->cudaEventDestroy(event);
}
int32_t kern_rt_cudaGetDeviceProperties(KernHostCtx *ctx, KernDeviceProp *prop, int32_t device) {
  return ctx->rt->cudaGetDeviceProperties(prop, device);
}
int32_t kern_rt_cudaMemcpyToSymbol(KernHostCtx *ctx, void *symbol, const void *src, uint64_t n,
                                   uint64_t offset, int32_t kind) {
  return ctx->rt->cudaMemcpyToSymbol(symbol, src, n, offset, kind);
}
int32_t kern_rt_cudaMemcpyFromSymbol(KernHostCtx *ctx, void *dst, const void *symbol, uint64_t n,
                                     uint64_t offset, int32_t kind) {
  return ctx->rt->cudaMemcpyFromSymbol(dst, symbol, n, offset, kind);
}
int32_t kern_rt_cudaGetSymbolAddress(KernHostCtx *ctx, void **p, void *symbol) {
  return ctx->rt->cudaGetSymbolAddress(p, symbol);
}
int32_t kern_rt_cudaGetSymbolSize(KernHostCtx *ctx, uint64_t *size, void *symbol) {
  return ctx->rt->cudaGetSymbolSize(size, symbol);
}
int32_t kern_rt_cudaFuncGetAttributes(KernHostCtx *ctx, KernFuncAttributes *attr, uint32_t kernel) {
  return ctx->rt->cudaFuncGetAttributes(attr, kernel);
}
int32_t kern_rt_cudaOccupancyMaxActiveBlocksPerMultiprocessor(KernHostCtx *ctx, int32_t *n,
                                                              uint32_t kernel, int32_t blockSize,
                                                              uint64_t dynamicShared) {
  return ctx->rt->cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, kernel, blockSize,
                                                                dynamicShared);
}
int32_t kern_rt_cudaHostGetDevicePointer(KernHostCtx *ctx, void **device, void *host,
                                         uint32_t flags) {
  return ctx->rt->cudaHostGetDevicePointer(device, host, flags);
}
int32_t kern_rt_cudaHostRegister(KernHostCtx *ctx, void *p, uint64_t size, uint32_t flags) {
  return ctx->rt->cudaHostRegister(p, size, flags);
}
int32_t kern_rt_cudaHostUnregister(KernHostCtx *ctx, void *p) {
  return ctx->rt->cudaHostUnregister(p);
}
int32_t kern_rt_cudaMallocManaged(KernHostCtx *ctx, void **p, uint64_t size, uint32_t flags) {
  return ctx->rt->cudaMallocManaged(p, size, flags);
}
int32_t kern_rt_cudaMemPrefetchAsync(KernHostCtx *ctx, const void *p, uint64_t n,
                                     const KernMemLocation *location, uint32_t flags,
                                     void *stream) {
  return ctx->rt->cudaMemPrefetchAsync(p, n, location, flags, stream);
}
int32_t kern_rt_cudaMemAdvise(KernHostCtx *ctx, const void *p, uint64_t n, int32_t advice,
                              const KernMemLocation *location) {
  return ctx->rt->cudaMemAdvise(p, n, advice, location);
}
int32_t kern_rt_cudaStreamAttachMemAsync(KernHostCtx *ctx, void *stream, const void *p,
                                         uint64_t length, uint32_t flags) {
  return ctx->rt->cudaStreamAttachMemAsync(stream, p, length, flags);
}
// kern's streams have no priorities (cudaDevAttrStreamPrioritiesSupported 0): the range is
// [0, 0], as a device without them reports it, and a stream's priority is taken and not used.
int32_t kern_rt_cudaStreamCreateWithPriority(KernHostCtx *ctx, void **stream, uint32_t flags,
                                             int32_t) {
  return ctx->rt->cudaStreamCreate(stream, flags, "cudaStreamCreateWithPriority");
}
int32_t kern_rt_cudaDeviceGetStreamPriorityRange(KernHostCtx *, int32_t *least, int32_t *greatest) {
  if (least)
    *least = 0;
  if (greatest)
    *greatest = 0;
  return kern::runtime::cudaSuccess;
}
int32_t kern_rt_cudaMemGetInfo(KernHostCtx *ctx, uint64_t *free, uint64_t *total) {
  return ctx->rt->cudaMemGetInfo(free, total);
}
int32_t kern_rt_cudaPointerGetAttributes(KernHostCtx *ctx, KernPointerAttributes *attr,
                                         const void *p) {
  return ctx->rt->cudaPointerGetAttributes(attr, p);
}
int32_t kern_rt_cudaOccupancyMaxPotentialBlockSize(KernHostCtx *ctx, int32_t *minGridSize,
                                                   int32_t *blockSize, uint32_t kernel,
                                                   uint64_t dynamicShared, int32_t blockSizeLimit) {
  return ctx->rt->cudaOccupancyMaxPotentialBlockSize(minGridSize, blockSize, kernel, dynamicShared,
                                                     blockSizeLimit);
}
int32_t kern_rt_cudaMallocPitch(KernHostCtx *ctx, void **p, uint64_t *pitch, uint64_t width,
                                uint64_t height) {
  return ctx->rt->cudaMallocPitch(p, pitch, width, height);
}
int32_t kern_rt_cudaMemcpy2D(KernHostCtx *ctx, void *dst, uint64_t dpitch, const void *src,
                             uint64_t spitch, uint64_t width, uint64_t height, int32_t kind) {
  return ctx->rt->cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
int32_t kern_rt_cudaMemcpy2DAsync(KernHostCtx *ctx, void *dst, uint64_t dpitch, const void *src,
                                  uint64_t spitch, uint64_t width, uint64_t height, int32_t kind,
                                  void *stream) {
  return ctx->rt->cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream);
}
int32_t kern_rt_cudaMemset2D(KernHostCtx *ctx, void *p, uint64_t pitch, int32_t value,
                             uint64_t width, uint64_t height) {
  return ctx->rt->cudaMemset2D(p, pitch, value, width, height);
}

} // extern "C"
