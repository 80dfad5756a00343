#!/usr/bin/env python3
"""The C++ samples and their C versions (tests/samples/<name>_c.kern) print the same thing and
give the same counters: every `total` line of --counters-text except the instruction counts,
which count kern's own operations (a C++ call of a small member function is one the GPU's
compiler inlines away). Usage: equivalent.py KERN ROOT"""
import subprocess
import sys

KERN, ROOT = sys.argv[1], sys.argv[2]
PAIRS = ["reduce_template", "julia", "nbody"]
failures = []


def run(path):
    # Without fused multiply-adds, so that the two compute bit for bit the same (how nvcc fuses
    # depends on the shape of the code, which differs between the two).
    r = subprocess.run([KERN, "run", path, "--fmad=false", "--counters-text", "/dev/stderr"],
                       capture_output=True, text=True, timeout=300)
    totals = [l for l in r.stderr.splitlines()
              if l.startswith("total ") and not l.startswith("total inst.")]
    return r.returncode, r.stdout, totals


for name in PAIRS:
    cxx = run(f"{ROOT}/samples/{name}.kern")
    c = run(f"{ROOT}/tests/samples/{name}_c.kern")
    if cxx[0] != 0 or c[0] != 0:
        failures.append(f"{name}: exit codes {cxx[0]} (C++) and {c[0]} (C)")
    if cxx[1] != c[1]:
        failures.append(f"{name}: output differs:\n{cxx[1]}---\n{c[1]}")
    if not cxx[2] or cxx[2] != c[2]:
        diff = [f"  C++ {a} | C {b}" for a, b in zip(cxx[2], c[2]) if a != b]
        failures.append(f"{name}: counters differ:\n" + "\n".join(diff or ["  (none counted)"]))

for f in failures:
    print("FAIL", f)
print(f"{len(PAIRS) - len(set(f.split(':')[0] for f in failures))}/{len(PAIRS)} pairs equal")
sys.exit(1 if failures else 0)
