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
        b = subprocess.run([CC, "-std=gnu89", "-w", "-o", exe] + srcs, capture_output=True,
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
