#!/usr/bin/env python3
"""C as older programs write it, in .c files: K&R definitions, implicit int, calls of functions
declared with `()` or not declared at all (C89's implicit declaration, also across files), C++
keywords used as names, `register`. Each program's output under kern is compared with what the
host's C compiler (gcc -std=gnu89) builds from the same files. Usage: c89.py KERN"""
import os
import shutil
import subprocess
import sys
import tempfile

KERN = sys.argv[1]
CC = shutil.which("gcc") or shutil.which("cc")
tmp = tempfile.mkdtemp()
failures = []

PROGRAMS = {
    "knr": {
        "main.c": r'''#include <stdio.h>
float squash(x)
float x;
{
  return 1.0 / (1.0 + x * x);
}
static count;
twice(a, b)
char *b;
{
  register int k = 2;
  return k * a + (b ? 1 : 0);
}
void show(n, name, scale) int n; char *name; double scale;
{
  printf("%s %d %g\n", name, n, scale * n);
}
main()
{
  int new = helper(3), class = 4;
  count = twice(4, "x");
  show(count, "count", 0.5f);
  printf("%g %d %d\n", squash(2.0), new, class);
  return 0;
}
int helper(int v) { return v + 1; }
''',
    },
    "loose_types": {
        "main.c": r'''#include <stdio.h>
#include <string.h>
#include <strings.h>
struct box { int v; };
int first(struct box *b) { return b->v; }
int main(void) {
  char text[16] = "ab\ncd";
  char *p = text;
  int n = 0, buf[4], copy[4];
  struct box b = {7};
  char *raw = (char *)&b;
  while (*p != 0 && p != '\n') /* a pointer compared with a character, as old C code does */
    p++, n++;
  bzero(buf, sizeof buf);
  buf[2] = 5;
  bcopy(buf, copy, sizeof buf);
  printf("%d %d %d %d\n", n, copy[2], copy[0], first(raw));
  return 0;
}
''',
    },
    "across_files": {
        "main.c": r'''#include <stdio.h>
double area();
int main(void) {
  printf("%g %d\n", area(2.0f, 3), combine(1, 2, 3));
  return 0;
}
''',
        "shapes.c": r'''double area(w, h)
float w;
int h;
{
  return w * h;
}
int combine(a, b, c) { return a * 100 + b * 10 + c; }
''',
    },
    # An old C library's ways (Meschach's, as Rodinia's leukocyte builds it): errors that
    # longjmp back to a setjmp of a caller, variadic functions with va_arg and vprintf, pointers
    # to functions declared without their parameters, functions declared inside functions,
    # signal handlers, qsort through a pointer, HUGE, isascii.
    "old_library": {
        "main.c": r'''#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <setjmp.h>
#include <signal.h>
#include <math.h>
#include <ctype.h>
#include <unistd.h>
#ifndef HUGE_VAL
#define HUGE_VAL HUGE
#endif
jmp_buf restart;
static int (*compare)();
static int err_count = 0;
int ev_err(file, num, fn) char *file; int num; char *fn;
{
  err_count++;
  printf("error %d in %s()\n", num, isascii(*fn) ? fn : "???");
  longjmp(restart, num);
  return 0;
}
double checked_sqrt(x) double x;
{
  if (x < 0)
    ev_err("main.c", 3, "checked_sqrt");
  return sqrt(x);
}
static int get_vars(int n, ...) {
  va_list ap;
  double **p;
  int k = 0;
  va_start(ap, n);
  while ((p = va_arg(ap, double **)) != NULL) {
    *p = (double *)malloc(n * sizeof(double));
    (*p)[0] = 10 - k++;
  }
  va_end(ap);
  return k;
}
static void report(const char *fmt, ...) {
  char line[80];
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  vsnprintf(line, sizeof line, fmt, ap);
  printf("[%s] ", line);
  vfprintf(stdout, fmt, again);
  va_end(again);
  va_end(ap);
}
static int by_value(const void *a, const void *b) {
  double d = *(const double *)a - *(const double *)b;
  return d < 0 ? -1 : d > 0;
}
static void nested(int depth) {
  char scratch[32];
  memset(scratch, depth, sizeof scratch);
  if (depth == 0)
    ev_err("main.c", 9, "nested");
  nested(depth - 1);
}
static int guarded(int depth) {
  jmp_buf save;
  int err;
  memcpy(save, restart, sizeof(jmp_buf));
  if ((err = setjmp(restart)) == 0) {
    nested(depth);
    memcpy(restart, save, sizeof(jmp_buf));
    return 0;
  }
  memcpy(restart, save, sizeof(jmp_buf));
  return err;
}
static volatile sig_atomic_t seen = 0;
static void on_signal(int sig) { seen = sig; }
int main() {
  double *a, *b, *c, v[4];
  double (*root)();
  int twice(), n, rc;
  volatile int tries = 0;
  n = get_vars(4, &a, &b, &c, NULL);
  printf("%d vars: %g %g %g\n", n, a[0], b[0], c[0]);
  root = checked_sqrt;
  if ((rc = setjmp(restart)) == 0) {
    printf("%g\n", root(16.0));
    tries++;
    root(-1.0);
    printf("not reached\n");
  } else {
    printf("caught %d after %d error(s), %d tries\n", rc, err_count, tries);
  }
  printf("guarded: %d\n", guarded(5));
  v[0] = 3; v[1] = -1; v[2] = 2.5; v[3] = 0;
  compare = by_value;
  qsort(v, 4, sizeof(double), compare);
  printf("%g %g %g %g\n", v[0], v[1], v[2], v[3]);
  if (signal(SIGUSR1, on_signal) != SIG_DFL)
    return 1;
  raise(SIGUSR1);
  printf("signal %d, twice %d, tiny %g, %d %d\n", (int)seen, twice(21), 10.0 / HUGE_VAL,
         toascii(200), isatty(fileno(stdout)));
  report("%s=%d %.1f %c %ld\n", "x", 5, 2.5f, 'z', 1234567890123L);
  free(a); free(b); free(c);
  return 0;
}
int twice(x) int x; { return 2 * x; }
''',
    },
}

for name, files in PROGRAMS.items():
    d = os.path.join(tmp, name)
    os.makedirs(d)
    for f, text in files.items():
        with open(os.path.join(d, f), "w") as out:
            out.write(text)
    srcs = [os.path.join(d, f) for f in files]
    k = subprocess.run([KERN, "run"] + srcs, capture_output=True, text=True, timeout=120)
    if k.returncode != 0:
        failures.append(f"{name}: kern exit {k.returncode}\n{k.stderr}")
        continue
    if CC:
        exe = os.path.join(d, "native")
        b = subprocess.run([CC, "-std=gnu89", "-w", "-o", exe] + srcs + ["-lm"], capture_output=True,
                           text=True)
        if b.returncode != 0:
            failures.append(f"{name}: {CC} failed\n{b.stderr}")
            continue
        n = subprocess.run([exe], capture_output=True, text=True)
        if n.stdout != k.stdout:
            failures.append(f"{name}: output differs\nkern:\n{k.stdout}native:\n{n.stdout}")
    if "implicit declaration of function" not in k.stderr and name == "knr":
        failures.append(f"{name}: no warning for the implicit declaration\n{k.stderr}")

for f in failures:
    print("FAIL", f)
print(f"{len(PROGRAMS) - len(failures)}/{len(PROGRAMS)} programs as the C compiler builds them")
sys.exit(1 if failures else 0)
