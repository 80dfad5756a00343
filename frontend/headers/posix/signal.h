// <signal.h> as kern provides it. A program's handlers are recorded and called by raise(); no
// signal reaches a program from outside (kern stops a program itself: Ctrl-C, time limits), and
// faults that would raise SIGSEGV or SIGFPE natively are kern's errors. The numbers are Linux's.
// A signal without a handler ends the program as its default action would: exit status
// 128 + the signal, or nothing for those ignored by default (SIGCHLD, SIGURG, SIGWINCH).
// See docs/headers.md.
#ifndef KERN_SIGNAL_H
#define KERN_SIGNAL_H

#include <stdio.h>
#include <stdlib.h>

typedef void (*sighandler_t)(int);
typedef void (*__sighandler_t)(int);
typedef int sig_atomic_t;

// kern's function pointers are small numbers: SIG_IGN is not glibc's 1, which one may be.
#define SIG_DFL ((sighandler_t)0)
#define SIG_IGN ((sighandler_t)-2)
#define SIG_ERR ((sighandler_t)-1)

#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGURG 23
#define SIGWINCH 28
#define NSIG 65

static sighandler_t __kern_signal_handlers[NSIG];

static sighandler_t signal(int sig, sighandler_t handler) {
  if (sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP)
    return SIG_ERR;
  sighandler_t old = __kern_signal_handlers[sig];
  __kern_signal_handlers[sig] = handler;
  return old;
}

static int raise(int sig) {
  if (sig <= 0 || sig >= NSIG)
    return -1;
  sighandler_t h = __kern_signal_handlers[sig];
  if (h == SIG_IGN)
    return 0;
  if (h != SIG_DFL) { // it stays set, as glibc's signal() keeps it (BSD semantics)
    h(sig);
    return 0;
  }
  if (sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT)
    return 0;
  if (sig == SIGABRT)
    abort();
  fflush(stdout);
  exit(128 + sig);
  return 0;
}

#endif
