#!/usr/bin/env python3
"""C++ programs and their C versions (tests/samples/<name>_c.kern) print the same thing and
give the same counters: every `total` line of --counters-text. The instruction counts
(`total inst.*`) are compared for the pairs whose C++ and C do the same operations: small
member functions and operators are inlined (ir/inline.cpp) and the temporaries they pass
values through count nothing (docs/counters.md). In the other pairs the C++ does more
(cooperative groups compute a thread's rank from all three indices; float4 objects copied
whole are read member by member); their instruction counts are printed, not compared.
Usage: equivalent.py KERN ROOT"""
import subprocess
import sys

KERN, ROOT = sys.argv[1], sys.argv[2]
# (name, C++ program, compare instruction counts)
PAIRS = [("reduce_template", "samples/reduce_template.kern", False),
         ("julia", "samples/julia.kern", True),
         ("nbody", "samples/nbody.kern", False),
         ("inline_complex", "tests/samples/inline_complex.kern", True)]
failures = []


def run(path, instructions):
    # Without fused multiply-adds, so that the two compute bit for bit the same (how nvcc fuses
    # depends on the shape of the code, which differs between the two).
    r = subprocess.run([KERN, "run", path, "--fmad=false", "--counters-text", "/dev/stderr"],
                       capture_output=True, text=True, timeout=300)
    totals = [l for l in r.stderr.splitlines()
              if l.startswith("total ") and (instructions or not l.startswith("total inst."))]
    inst = [l for l in r.stderr.splitlines() if l.startswith("total inst.warp")]
    return r.returncode, r.stdout, totals, inst


for name, program, instructions in PAIRS:
    cxx = run(f"{ROOT}/{program}", instructions)
    c = run(f"{ROOT}/tests/samples/{name}_c.kern", instructions)
    if not instructions and cxx[3] and c[3]:
        print(f"{name}: C++ {cxx[3][0].split()[-1]}, C {c[3][0].split()[-1]} warp instructions")
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
