#!/usr/bin/env python3
"""Under an address-space limit (`ulimit -v`) kern reserves as much of the device's memory as it
may, says so, and runs: a cudaMalloc and a launch work, and nothing crashes. Usage:
address_limit.py KERN (exit 77, skipped, under a sanitizer, which needs more address space
than any such limit allows)."""
import os
import resource
import subprocess
import sys
import tempfile

KERN = sys.argv[1]
PROGRAM = r'''#include <cstdio>
__global__ void k(int *p) { p[threadIdx.x] = 2 * threadIdx.x; }
int main() {
    int *p, h[32];
    size_t free = 0, total = 0;
    printf("%s\n", cudaGetErrorName(cudaMalloc(&p, sizeof h)));
    k<<<1, 32>>>(p);
    cudaMemcpy(h, p, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemGetInfo(&free, &total);
    printf("%d %d\n", h[31], total > 0 && total < (size_t)80 << 30);
    return 0;
}
'''
path = os.path.join(tempfile.mkdtemp(), "limited.cu")
with open(path, "w") as f:
    f.write(PROGRAM)


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))


p = subprocess.run([KERN, "run", path], capture_output=True, text=True, timeout=120,
                   preexec_fn=limit)
if "Sanitizer" in p.stderr:
    print("a sanitizer build: skipped")
    sys.exit(77)
problems = []
if p.returncode != 0:
    problems.append(f"exit {p.returncode}")
if p.stdout != "cudaSuccess\n62 1\n":
    problems.append(f"stdout {p.stdout!r}")
if "address space limit (`ulimit -v`) leaves room for" not in p.stderr:
    problems.append("no note of the smaller device")
for x in problems:
    print("FAIL:", x)
print(p.stderr[:2000])
sys.exit(1 if problems else 0)
