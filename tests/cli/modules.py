#!/usr/bin/env python3
"""Module files: `kern emit --module FILE.cu -o OUT` writes the module image that a CUDA build
would make with nvcc -fatbin, and a driver-API program loads it with cuModuleLoad. The image
keeps the module's directory as an include path and the -D given to emit. Also: a missing file,
a file that is not a module image, a module that does not compile. Usage: modules.py KERN [NVCC]
With NVCC, only checks that the module builds with nvcc -fatbin and the host program with nvcc -c
(exit 77 if NVCC is not there)."""
import os
import subprocess
import sys
import tempfile

KERN = os.path.abspath(sys.argv[1])
NVCC = sys.argv[2] if len(sys.argv) > 2 else None
tmp = tempfile.mkdtemp()
failures = []

HEADER = r'''#pragma once
__device__ inline float twice(float x) { return 2.0f * x; }
'''

MODULE = r'''#include "twice.cuh"
#ifndef OFFSET
#define OFFSET 0
#endif
__device__ int calls;
__constant__ float bias = OFFSET;
extern "C" __global__ void scale(float *v, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) atomicAdd(&calls, 1);
    if (i < n) v[i] = twice(v[i]) * s + bias;
}
'''

HOST = r'''#include <cuda.h>
#include <stdio.h>
int main(int argc, char **argv) {
    CUdevice dev;
    CUcontext ctx;
    CUmodule module;
    CUfunction scale;
    cuInit(0);
    cuDeviceGet(&dev, 0);
    cuDevicePrimaryCtxRetain(&ctx, dev);
    cuCtxSetCurrent(ctx);
    CUresult r = cuModuleLoad(&module, argc > 1 ? argv[1] : "scale.fatbin");
    printf("load %d\n", (int)r);
    if (r != CUDA_SUCCESS)
        return 1;
    printf("function %d\n", (int)cuModuleGetFunction(&scale, module, "scale"));
    float h[4] = {1, 2, 3, 4};
    CUdeviceptr d;
    cuMemAlloc(&d, sizeof(h));
    cuMemcpyHtoD(d, h, sizeof(h));
    float s = 3;
    int n = 4;
    void *args[] = {&d, &s, &n};
    printf("launch %d\n", (int)cuLaunchKernel(scale, 1, 1, 1, 32, 1, 1, 0, 0, args, 0));
    cuMemcpyDtoH(h, d, sizeof(h));
    CUdeviceptr calls;
    size_t bytes;
    cuModuleGetGlobal(&calls, &bytes, module, "calls");
    int c = 0;
    cuMemcpyDtoH(&c, calls, sizeof(c));
    printf("%g %g %g %g calls %d (%d bytes)\n", h[0], h[1], h[2], h[3], c, (int)bytes);
    cuMemFree(d);
    cuModuleUnload(module);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
'''


def write(name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def run(args, cwd=tmp):
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check(what, got, want_code, out=(), err=()):
    code, stdout, stderr = got
    problems = []
    if code != want_code:
        problems.append(f"exit {code}, want {want_code}")
    for s in out:
        if s not in stdout:
            problems.append(f"stdout lacks {s!r}")
    for s in err:
        if s not in stderr:
            problems.append(f"stderr lacks {s!r}")
    if problems:
        failures.append(f"{what}: " + "; ".join(problems) + f"\n--- stdout\n{stdout}--- stderr\n"
                        f"{stderr}")


os.makedirs(os.path.join(tmp, "kernels"))
write("kernels/twice.cuh", HEADER)
module = write("kernels/scale.cu", MODULE)
host = write("host.cu", HOST)
broken = write("kernels/broken.cu", "extern \"C\" __global__ void k(int *p) {\n"
               "    p[0] = undeclared;\n}\n")

if NVCC:
    if not os.path.exists(NVCC):
        sys.exit(77)
    check("nvcc -fatbin", run([NVCC, "-fatbin", "-DOFFSET=0.5", module, "-o",
                               os.path.join(tmp, "scale.fatbin")]), 0)
    check("nvcc -c host", run([NVCC, "-c", host, "-o", os.path.join(tmp, "host.o")]), 0)
else:
    # The module's header is found through its own directory, recorded in the image, although
    # the image is written elsewhere and loaded from the host program's directory.
    check("emit --module", run([KERN, "emit", "--module", "-D", "OFFSET=0.5", module, "-o",
                                os.path.join(tmp, "scale.fatbin")]), 0)
    check("run", run([KERN, "run", host]), 0,
          out=["load 0\nfunction 0\nlaunch 0\n6.5 12.5 18.5 24.5 calls 1 (4 bytes)\n"])
    # Without -o the image goes to standard output.
    code, image, stderr = run([KERN, "emit", "--module", module])
    check("emit --module to stdout", (code, image, stderr), 0)
    write("stdout.fatbin", image)
    check("run stdout image", run([KERN, "run", host, "--", "stdout.fatbin"]), 0,
          out=["6 12 18 24 calls 1"])
    check("missing file", run([KERN, "run", host, "--", "missing.fatbin"]), 1, out=["load 301\n"])
    write("garbage.fatbin", "\x7fELF this is not a module image\n")
    check("not an image", run([KERN, "run", host, "--", "garbage.fatbin"]), 1, out=["load 200\n"])
    check("emit a broken module", run([KERN, "emit", "--module", broken, "-o",
                                       os.path.join(tmp, "broken.fatbin")]), 1,
          err=["broken.cu:2", "undeclared"])
    check("emit --module of two files", run([KERN, "emit", "--module", module, host]), 2,
          err=["emit --module takes one source file"])

if failures:
    print("\n\n".join(failures))
    sys.exit(1)
print("ok")
