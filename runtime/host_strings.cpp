// The host C library's string, conversion and character functions (string.h, stdlib.h,
// ctype.h, errno.h), qsort and bsearch. Every pointer argument is checked as host code's own
// accesses are (Runtime::checkHostRange, checkHostString): a bad one is a reported error.
#include "runtime/runtime.h"

#include "runtime/errors.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

using kern::runtime::Runtime;

namespace {

/// Ends the program after a reported error (no C++ object may be pending in the callers).
[[noreturn]] void fail(KernHostCtx *ctx) {
  Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
}

uint64_t stringArg(KernHostCtx *ctx, const char *function, const char *what, const char *s) {
  uint64_t len = 0;
  if (!ctx->rt->checkHostString(function, what, s, len))
    fail(ctx);
  return len;
}

void rangeArg(KernHostCtx *ctx, const char *function, const char *what, const void *p, uint64_t n) {
  if (!ctx->rt->checkHostRange(function, what, p, n))
    fail(ctx);
}

/// The length of `s` up to `n` characters (strncpy's, strncat's, strndup's source need not be
/// NUL-terminated within n); what is read is checked.
uint64_t boundedArg(KernHostCtx *ctx, const char *function, const char *what, const char *s,
                    uint64_t n) {
  if (n == 0)
    return 0;
  rangeArg(ctx, function, what, s, 1);
  const uint64_t len = strnlen(s, n);
  rangeArg(ctx, function, what, s, len < n ? len + 1 : len);
  return len;
}

/// strtod and friends: the end pointer is checked, errno is the program's.
template <typename F>
auto convert(KernHostCtx *ctx, const char *function, const char *s, char **end, F f) {
  stringArg(ctx, function, "string", s);
  if (end)
    rangeArg(ctx, function, "end pointer", end, sizeof *end);
  errno = 0;
  auto r = f();
  if (errno)
    ctx->rt->hostLibrary().err = errno;
  return r;
}

using Compare = int32_t (*)(KernHostCtx *, uint64_t, uint64_t);

// Stable merge sort of n elements of `size` bytes at `base`, with `tmp` room for n elements.
void mergeSort(KernHostCtx *ctx, char *base, uint64_t n, uint64_t size, char *tmp, Compare cmp) {
  if (n < 2)
    return;
  const uint64_t half = n / 2;
  mergeSort(ctx, base, half, size, tmp, cmp);
  mergeSort(ctx, base + half * size, n - half, size, tmp, cmp);
  uint64_t i = 0, j = half, k = 0;
  while (i < half && j < n) {
    const char *a = base + i * size, *b = base + j * size;
    if (cmp(ctx, reinterpret_cast<uint64_t>(a), reinterpret_cast<uint64_t>(b)) <= 0) {
      std::memcpy(tmp + k * size, a, size);
      ++i;
    } else {
      std::memcpy(tmp + k * size, b, size);
      ++j;
    }
    ++k;
  }
  std::memcpy(tmp + k * size, base + i * size, (half - i) * size);
  k += half - i;
  std::memcpy(tmp + k * size, base + j * size, (n - j) * size);
  std::memcpy(base, tmp, n * size);
}

int32_t ctype(int32_t c, int (*f)(int)) { return c >= -1 && c <= 255 ? f(c) : 0; }

} // namespace

extern "C" {

double kern_rt_strtod(KernHostCtx *ctx, const char *s, char **end) {
  return convert(ctx, "strtod", s, end, [&] { return std::strtod(s, end); });
}

float kern_rt_strtof(KernHostCtx *ctx, const char *s, char **end) {
  return convert(ctx, "strtof", s, end, [&] { return std::strtof(s, end); });
}

uint64_t kern_rt_strtoul(KernHostCtx *ctx, const char *s, char **end, int32_t base) {
  return convert(ctx, "strtoul", s, end, [&] { return std::strtoul(s, end, base); });
}

int64_t kern_rt_strtoll(KernHostCtx *ctx, const char *s, char **end, int32_t base) {
  return convert(ctx, "strtoll", s, end, [&] { return std::strtoll(s, end, base); });
}

uint64_t kern_rt_strtoull(KernHostCtx *ctx, const char *s, char **end, int32_t base) {
  return convert(ctx, "strtoull", s, end, [&] { return std::strtoull(s, end, base); });
}

char *kern_rt_strcat(KernHostCtx *ctx, char *dst, const char *src) {
  const uint64_t d = stringArg(ctx, "strcat", "destination", dst);
  const uint64_t n = stringArg(ctx, "strcat", "source", src);
  rangeArg(ctx, "strcat", "destination", dst, d + n + 1);
  std::memmove(dst + d, src, n + 1);
  return dst;
}

char *kern_rt_strncat(KernHostCtx *ctx, char *dst, const char *src, uint64_t n) {
  const uint64_t d = stringArg(ctx, "strncat", "destination", dst);
  const uint64_t len = boundedArg(ctx, "strncat", "source", src, n);
  rangeArg(ctx, "strncat", "destination", dst, d + len + 1);
  std::memmove(dst + d, src, len);
  dst[d + len] = '\0';
  return dst;
}

char *kern_rt_strncpy(KernHostCtx *ctx, char *dst, const char *src, uint64_t n) {
  const uint64_t len = boundedArg(ctx, "strncpy", "source", src, n);
  rangeArg(ctx, "strncpy", "destination", dst, n);
  if (n == 0)
    return dst;
  std::memmove(dst, src, len);
  std::memset(dst + len, 0, n - len); // strncpy pads with NULs up to n
  return dst;
}

char *kern_rt_strchr(KernHostCtx *ctx, const char *s, int32_t c) {
  stringArg(ctx, "strchr", "string", s);
  return const_cast<char *>(std::strchr(s, c));
}

char *kern_rt_strrchr(KernHostCtx *ctx, const char *s, int32_t c) {
  stringArg(ctx, "strrchr", "string", s);
  return const_cast<char *>(std::strrchr(s, c));
}

char *kern_rt_strstr(KernHostCtx *ctx, const char *s, const char *needle) {
  stringArg(ctx, "strstr", "string", s);
  stringArg(ctx, "strstr", "substring", needle);
  return const_cast<char *>(std::strstr(s, needle));
}

char *kern_rt_strdup(KernHostCtx *ctx, const char *s) {
  const uint64_t len = stringArg(ctx, "strdup", "string", s);
  auto *p = static_cast<char *>(ctx->rt->hostMalloc(len + 1)); // free() takes it back
  if (!p) {
    ctx->rt->hostLibrary().err = ENOMEM;
    return nullptr;
  }
  std::memcpy(p, s, len + 1);
  return p;
}

char *kern_rt_strndup(KernHostCtx *ctx, const char *s, uint64_t n) {
  const uint64_t len = boundedArg(ctx, "strndup", "string", s, n);
  auto *p = static_cast<char *>(ctx->rt->hostMalloc(len + 1));
  if (!p) {
    ctx->rt->hostLibrary().err = ENOMEM;
    return nullptr;
  }
  std::memcpy(p, s, len);
  p[len] = '\0';
  return p;
}

void *kern_rt_memmove(KernHostCtx *ctx, void *dst, const void *src, uint64_t n) {
  rangeArg(ctx, "memmove", "destination", dst, n);
  rangeArg(ctx, "memmove", "source", src, n);
  return n ? std::memmove(dst, src, n) : dst;
}

uint64_t kern_rt_strspn(KernHostCtx *ctx, const char *s, const char *accept) {
  stringArg(ctx, "strspn", "string", s);
  stringArg(ctx, "strspn", "accepted characters", accept);
  return std::strspn(s, accept);
}

uint64_t kern_rt_strcspn(KernHostCtx *ctx, const char *s, const char *reject) {
  stringArg(ctx, "strcspn", "string", s);
  stringArg(ctx, "strcspn", "rejected characters", reject);
  return std::strcspn(s, reject);
}

char *kern_rt_strtok(KernHostCtx *ctx, char *s, const char *delim) {
  char *&next = ctx->rt->hostLibrary().strtokNext;
  stringArg(ctx, "strtok", "delimiters", delim);
  if (s)
    next = s;
  if (!next)
    return nullptr;
  // The saved position points into the program's string: it is checked again, as it may have
  // been freed or changed since the last call.
  stringArg(ctx, "strtok", "string", next);
  char *start = next + std::strspn(next, delim);
  if (*start == '\0') {
    next = nullptr;
    return nullptr;
  }
  char *end = start + std::strcspn(start, delim);
  if (*end == '\0') {
    next = nullptr;
  } else {
    *end = '\0';
    next = end + 1;
  }
  return start;
}

const char *kern_rt_strerror(KernHostCtx *ctx, int32_t err) {
  return ctx->rt->handOutString(std::strerror(err));
}

const char *kern_rt_getenv(KernHostCtx *ctx, const char *name) {
  stringArg(ctx, "getenv", "name", name);
  const auto &env = ctx->rt->hostLibrary().environment;
  if (auto it = env.find(name); it != env.end())
    return it->second ? ctx->rt->handOutString(it->second->c_str()) : nullptr;
  // The environment is the outside world, like files: a program sees it only where it may
  // open files (kern run without --no-files); an embedding application's programs see none.
  // A sandboxed program sees none either: the caller's environment may hold secrets.
  if (!ctx->rt->allowFiles() || ctx->rt->sandboxed())
    return nullptr;
  return ctx->rt->handOutString(std::getenv(name));
}

/// setenv's and unsetenv's name: not empty, no '=' (else EINVAL, as glibc).
static bool environmentName(KernHostCtx *ctx, const char *function, const char *name) {
  stringArg(ctx, function, "name", name);
  if (!*name || std::strchr(name, '=')) {
    ctx->rt->hostLibrary().err = EINVAL;
    return false;
  }
  return true;
}

int32_t kern_rt_setenv(KernHostCtx *ctx, const char *name, const char *value, int32_t overwrite) {
  if (!environmentName(ctx, "setenv", name))
    return -1;
  stringArg(ctx, "setenv", "value", value);
  if (!overwrite && kern_rt_getenv(ctx, name))
    return 0;
  ctx->rt->hostLibrary().environment[name] = std::string(value);
  return 0;
}

int32_t kern_rt_unsetenv(KernHostCtx *ctx, const char *name) {
  if (!environmentName(ctx, "unsetenv", name))
    return -1;
  ctx->rt->hostLibrary().environment[name] = std::nullopt;
  return 0;
}

int32_t kern_rt_isdigit(KernHostCtx *, int32_t c) { return ctype(c, ::isdigit); }
int32_t kern_rt_isspace(KernHostCtx *, int32_t c) { return ctype(c, ::isspace); }
int32_t kern_rt_isalpha(KernHostCtx *, int32_t c) { return ctype(c, ::isalpha); }
int32_t kern_rt_isalnum(KernHostCtx *, int32_t c) { return ctype(c, ::isalnum); }
int32_t kern_rt_isupper(KernHostCtx *, int32_t c) { return ctype(c, ::isupper); }
int32_t kern_rt_islower(KernHostCtx *, int32_t c) { return ctype(c, ::islower); }
int32_t kern_rt_isxdigit(KernHostCtx *, int32_t c) { return ctype(c, ::isxdigit); }
int32_t kern_rt_isprint(KernHostCtx *, int32_t c) { return ctype(c, ::isprint); }
int32_t kern_rt_ispunct(KernHostCtx *, int32_t c) { return ctype(c, ::ispunct); }
int32_t kern_rt_toupper(KernHostCtx *, int32_t c) { return c >= -1 && c <= 255 ? ::toupper(c) : c; }
int32_t kern_rt_tolower(KernHostCtx *, int32_t c) { return c >= -1 && c <= 255 ? ::tolower(c) : c; }
int32_t kern_rt_iscntrl(KernHostCtx *, int32_t c) { return ctype(c, ::iscntrl); }
int32_t kern_rt_isgraph(KernHostCtx *, int32_t c) { return ctype(c, ::isgraph); }
int32_t kern_rt_isblank(KernHostCtx *, int32_t c) { return ctype(c, ::isblank); }
// glibc's isascii and toascii take any int: its low 7 bits are the character.
int32_t kern_rt_isascii(KernHostCtx *, int32_t c) { return (c & ~0x7f) == 0; }
int32_t kern_rt_toascii(KernHostCtx *, int32_t c) { return c & 0x7f; }

int32_t *kern_rt___kern_errno_location(KernHostCtx *ctx) {
  int32_t *p = &ctx->rt->hostLibrary().err;
  return ctx->rt->handOut(p, sizeof *p, "variable errno", true);
}

void kern_rt_qsort(KernHostCtx *ctx, void *base, uint64_t n, uint64_t size, void *compare) {
  if (n == 0 || size == 0)
    return;
  if (n > UINT64_MAX / size) {
    ctx->rt->hostLibraryError("qsort: " + std::to_string(n) + " elements of " +
                              std::to_string(size) + " bytes overflow the address space");
    fail(ctx);
  }
  rangeArg(ctx, "qsort", "array", base, n * size);
  // The scratch buffer is kept in the library state, so that a comparator that faults (and
  // unwinds through here) leaves nothing behind.
  auto &lib = ctx->rt->hostLibrary();
  lib.scratch.resize(n * size);
  mergeSort(ctx, static_cast<char *>(base), n, size, lib.scratch.data(),
            reinterpret_cast<Compare>(compare));
}

void *kern_rt_bsearch(KernHostCtx *ctx, const void *key, const void *base, uint64_t n,
                      uint64_t size, void *compare) {
  if (n == 0 || size == 0)
    return nullptr;
  if (n > UINT64_MAX / size) {
    ctx->rt->hostLibraryError("bsearch: " + std::to_string(n) + " elements of " +
                              std::to_string(size) + " bytes overflow the address space");
    fail(ctx);
  }
  rangeArg(ctx, "bsearch", "array", base, n * size);
  auto cmp = reinterpret_cast<Compare>(compare);
  uint64_t lo = 0, hi = n;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    const char *p = static_cast<const char *>(base) + mid * size;
    const int32_t r = cmp(ctx, reinterpret_cast<uint64_t>(key), reinterpret_cast<uint64_t>(p));
    if (r == 0)
      return const_cast<char *>(p);
    if (r < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return nullptr;
}

} // extern "C"
