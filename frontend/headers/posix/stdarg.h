// <stdarg.h> as kern provides it. A variadic host function receives the arguments that match
// its `...` packed by its caller: each in an 8-byte slot, after C's default promotions (char
// and short to int, float to double; integers extended to 64 bits), and it knows them by two
// hidden parameters, `__kern_va_args` and `__kern_va_end`, the first and past-the-end slots.
// A va_list walks them; va_arg reads the slot as the type named, as the x86-64 ABI lays out
// such an argument. Reading past the last argument is an out-of-bounds read of the caller's
// slots (a fault), not garbage. The v-forms of printf and scanf read a va_list's remaining
// arguments. Variadic functions are host functions: CUDA device code has no va_list here.
// See docs/headers.md.
#ifndef KERN_STDARG_H
#define KERN_STDARG_H

#include <stdio.h>

typedef struct __kern_va_list {
  unsigned long long *__next;
  unsigned long long *__end;
} __kern_va_list;
typedef __kern_va_list va_list;
typedef __kern_va_list __gnuc_va_list;

static __host__ __device__ void *__kern_va_next(va_list *ap, unsigned long size) {
  unsigned long long *p = ap->__next;
  ap->__next = p + (size + 7) / 8;
  return p;
}

#define va_start(ap, last) ((void)((ap).__next = __kern_va_args, (ap).__end = __kern_va_end))
#define va_arg(ap, T) (*(T *)__kern_va_next(&(ap), sizeof(T)))
#define va_end(ap) ((void)(ap))
#define va_copy(dst, src) ((void)((dst) = (src)))
#define __va_copy(dst, src) ((void)((dst) = (src)))

static int vfprintf(FILE *stream, const char *format, va_list ap) {
  return __kern_vfprintf(stream, format, ap.__next, ap.__end);
}
static int vprintf(const char *format, va_list ap) {
  return __kern_vfprintf(stdout, format, ap.__next, ap.__end);
}
static int vsnprintf(char *s, size_t n, const char *format, va_list ap) {
  return __kern_vsnprintf(s, n, format, ap.__next, ap.__end);
}
static int vsprintf(char *s, const char *format, va_list ap) {
  return __kern_vsnprintf(s, (size_t)-1, format, ap.__next, ap.__end);
}
static int vfscanf(FILE *stream, const char *format, va_list ap) {
  return __kern_vscanf(stream, NULL, format, ap.__next, ap.__end);
}
static int vscanf(const char *format, va_list ap) {
  return __kern_vscanf(stdin, NULL, format, ap.__next, ap.__end);
}
static int vsscanf(const char *s, const char *format, va_list ap) {
  return __kern_vscanf(NULL, s, format, ap.__next, ap.__end);
}

#endif
