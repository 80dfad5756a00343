// <inttypes.h> as kern provides it: <stdint.h>'s types (built in), intmax_t and uintmax_t, the
// printf and scanf conversion macros of x86-64 Linux (int64_t is long: PRId64 is "ld"), and
// imaxabs. See docs/headers.md.
#ifndef KERN_INTTYPES_H
#define KERN_INTTYPES_H

#include <stdint.h>

typedef long intmax_t;
typedef unsigned long uintmax_t;

#define PRId8 "d"
#define PRId16 "d"
#define PRId32 "d"
#define PRId64 "ld"
#define PRIi8 "i"
#define PRIi16 "i"
#define PRIi32 "i"
#define PRIi64 "li"
#define PRIu8 "u"
#define PRIu16 "u"
#define PRIu32 "u"
#define PRIu64 "lu"
#define PRIo8 "o"
#define PRIo16 "o"
#define PRIo32 "o"
#define PRIo64 "lo"
#define PRIx8 "x"
#define PRIx16 "x"
#define PRIx32 "x"
#define PRIx64 "lx"
#define PRIX8 "X"
#define PRIX16 "X"
#define PRIX32 "X"
#define PRIX64 "lX"
#define PRIdMAX "ld"
#define PRIuMAX "lu"
#define PRIxMAX "lx"
#define PRIdPTR "ld"
#define PRIuPTR "lu"
#define PRIxPTR "lx"
#define SCNd8 "hhd"
#define SCNd16 "hd"
#define SCNd32 "d"
#define SCNd64 "ld"
#define SCNu8 "hhu"
#define SCNu16 "hu"
#define SCNu32 "u"
#define SCNu64 "lu"
#define SCNx32 "x"
#define SCNx64 "lx"

static inline intmax_t imaxabs(intmax_t n) { return n < 0 ? -n : n; }

#endif // KERN_INTTYPES_H
