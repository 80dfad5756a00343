// <setjmp.h> as kern provides it. A jmp_buf holds the number and generation of a context that
// the runtime keeps (runtime/host_jumps.cpp), never registers the program could overwrite:
// setjmp fills one and returns 0; longjmp(env, v) returns from that setjmp again with v (1 if v
// is 0), provided the function that called setjmp is still running on this thread, and faults
// with a message that says why otherwise. Locals of the function that called setjmp keep the
// values they have in memory; as in C, a non-volatile local changed after setjmp may not.
// sigsetjmp/siglongjmp are the same (kern's signal masks are not modelled). Host code only.
// See docs/headers.md.
#ifndef KERN_SETJMP_H
#define KERN_SETJMP_H

typedef struct __kern_jmp_buf_tag {
  unsigned long long __kern_context[2];
} jmp_buf[1];
typedef jmp_buf sigjmp_buf;

#define setjmp(env) __kern_setjmp(env)
#define _setjmp(env) __kern_setjmp(env)
#define sigsetjmp(env, savemask) __kern_setjmp(env)
#define longjmp(env, value) __kern_longjmp(env, value)
#define _longjmp(env, value) __kern_longjmp(env, value)
#define siglongjmp(env, value) __kern_longjmp(env, value)

#endif
