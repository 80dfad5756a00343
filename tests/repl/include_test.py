#!/usr/bin/env python3
"""-I and -D on `kern repl`, the :include-path command, and kern's text headers at the prompt.
Usage: include_test.py KERN"""
import os
import subprocess
import sys

KERN = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
DIR_A = os.path.join(HERE, "include_a")
DIR_B = os.path.join(HERE, "include_b")

SCRIPT = [
    '#include "repl_a.h"',
    "REPL_A_VALUE + SCALE",
    "FLAG",
    '#include "repl_b.h"',  # not found yet: only include_a is searched
    ":include-path",
    f":include-path {DIR_B}",
    '#include "repl_b.h"',
    "REPL_B_VALUE * 2",
    ":include-path",
    ":include-path /no/such/kern/dir",
    "#include <helper_cuda.h>",
    "MAX(3, 11)",
    "#include <math_constants.h>",
    "CUDART_PI_F > 3.14f && CUDART_PI_F < 3.15f",
]

# On stdout, in order; the errors go to stderr.
EXPECT = [
    "(int) 43",
    "(int) 1",
    DIR_A + "\n",
    "include path " + DIR_B,
    "(int) 14",
    DIR_A + "\n" + DIR_B + "\n",
    "(int) 11",
    "(bool) true",
]
EXPECT_ERR = [
    "'repl_b.h' file not found",
    "kern: '/no/such/kern/dir' is not a directory",
]

# --keep-going: the script's errors are part of the test; the exit code is the first one's.
p = subprocess.run([KERN, "repl", "--keep-going", "-I", DIR_A, "-DSCALE=3", "-D", "FLAG"],
                   input="\n".join(SCRIPT) + "\n:quit\n", capture_output=True, text=True,
                   timeout=60)
if p.returncode != 1:
    sys.stderr.write(f"FAIL: exit code {p.returncode}\n{p.stdout}{p.stderr}\n")
    sys.exit(1)
for stream, expected in ((p.stdout, EXPECT), (p.stderr, EXPECT_ERR)):
    at = 0
    for e in expected:
        found = stream.find(e, at)
        if found < 0:
            sys.stderr.write(f"FAIL: missing {e!r} (in order)\n--- stdout ---\n{p.stdout}"
                             f"\n--- stderr ---\n{p.stderr}\n")
            sys.exit(1)
        at = found + len(e)

# -I and -D need a value.
for args in (["-I"], ["-D"]):
    p = subprocess.run([KERN, "repl"] + args, input="", capture_output=True, text=True, timeout=30)
    if p.returncode == 0 or "needs a value" not in p.stderr:
        sys.stderr.write(f"FAIL: kern repl {args[0]} without a value: {p.returncode} {p.stderr}\n")
        sys.exit(1)
print("repl includes: ok")
