#!/usr/bin/env python3
"""Runs one program of the corpus (tests/programs/<name>/) with kern, or builds it with nvcc.

  run.py KERN DIR                 kern run <units> -- <args> in DIR; stdout must equal
                                  DIR/expected.txt and the exit code DIR/expected_exit.txt (0)
  run.py --nvcc NVCC HEADERS DIR  nvcc -rdc=true -I HEADERS <units>: it must build (exit 77 when
                                  NVCC is missing)
  run.py --units DIR              print the translation units, one a line

The translation units are listed in DIR/units.txt, or else are every .cu/.cpp/.c file of DIR
that no other file of DIR #includes. Program arguments are DIR/args.txt (one line, split on
spaces)."""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

SOURCES = (".cu", ".cpp", ".c")
HEADERS = (".cuh", ".h", ".hpp")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def read(path, default=None):
    if not os.path.exists(path):
        return default
    with open(path) as f:
        return f.read()


def units(d):
    listed = read(os.path.join(d, "units.txt"))
    if listed is not None:
        return listed.split()
    names = sorted(os.listdir(d))
    included = set()
    for n in names:
        if n.endswith(SOURCES + HEADERS):
            included.update(os.path.basename(i) for i in INCLUDE.findall(read(os.path.join(d, n))))
    return [n for n in names if n.endswith(SOURCES) and n not in included]


def args(d):
    return read(os.path.join(d, "args.txt"), "").split()


def run_kern(kern, d):
    us = units(d)
    if not us:
        print("no translation units in", d)
        return 1
    cmd = [os.path.abspath(kern), "run"] + us + ["--"] + args(d)
    try:
        p = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=280)
    except subprocess.TimeoutExpired:
        print("timed out:", " ".join(cmd))
        return 1
    expected = read(os.path.join(d, "expected.txt"))
    want_rc = int(read(os.path.join(d, "expected_exit.txt"), "0").strip())
    ok = True
    if expected is None:
        print("missing expected.txt")
        ok = False
    elif p.stdout != expected:
        print("stdout differs (- expected, + kern):")
        sys.stdout.writelines(difflib.unified_diff(expected.splitlines(True),
                                                   p.stdout.splitlines(True), "expected.txt",
                                                   "stdout"))
        print()
        ok = False
    if p.returncode != want_rc:
        print("exit code %d, expected %d" % (p.returncode, want_rc))
        ok = False
    if not ok:
        print("command (in %s): %s" % (d, " ".join(cmd)))
        print("stderr:\n" + p.stderr)
        return 1
    return 0


def run_nvcc(nvcc, headers, d):
    if not nvcc or nvcc.endswith("NOTFOUND") or not shutil.which(nvcc):
        print("nvcc not found: skipped")
        return 77
    out = tempfile.mkdtemp()
    try:
        cmd = [nvcc, "-rdc=true", "-I", headers, "-o", os.path.join(out, "program")] + units(d)
        p = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            print("command (in %s): %s" % (d, " ".join(cmd)))
            print(p.stdout + p.stderr)
            return 1
        return 0
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main(argv):
    if len(argv) == 3 and argv[1] == "--units":
        print("\n".join(units(argv[2])))
        return 0
    if len(argv) == 5 and argv[1] == "--nvcc":
        return run_nvcc(argv[2], argv[3], os.path.abspath(argv[4]))
    if len(argv) == 3:
        return run_kern(argv[1], os.path.abspath(argv[2]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
