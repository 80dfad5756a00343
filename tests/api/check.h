/* What the C API tests share: CHECK, which reports a failed condition and goes on (main returns
 * non-zero if any failed), and sinks for kern_options.out/err: `collect` keeps what kern writes
 * in `errors`, `quiet` drops it. Compiled as C. */
#ifndef KERN_TESTS_API_CHECK_H
#define KERN_TESTS_API_CHECK_H

#include <stdio.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                     \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

static char errors[65536];
static size_t errorsLength = 0;

static inline void clearErrors(void) {
  errorsLength = 0;
  errors[0] = 0;
}

static inline void collect(void *user, const char *text, size_t size) {
  (void)user;
  if (errorsLength + size < sizeof errors) {
    memcpy(errors + errorsLength, text, size);
    errorsLength += size;
    errors[errorsLength] = 0;
  }
}

static inline void quiet(void *user, const char *text, size_t size) {
  (void)user;
  (void)text;
  (void)size;
}

#endif
