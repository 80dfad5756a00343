#!/usr/bin/env python3
"""The driver API and NVRTC from a C file (.c): kern's <cuda.h> and <nvrtc.h> compile as C, and
a C host compiles a kernel with NVRTC, loads and launches it. Usage: driver_c.py KERN [NVCC]
With NVCC, only checks that the file compiles as C against CUDA's own headers (nvcc -c on a .c
file; exit 77 if NVCC is not there)."""
import os
import subprocess
import sys
import tempfile

KERN = os.path.abspath(sys.argv[1])
NVCC = sys.argv[2] if len(sys.argv) > 2 else None
tmp = tempfile.mkdtemp()

SOURCE = r'''#include <cuda.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>

static const char *source =
    "extern \"C\" __global__ void axpy(float a, const float *x, float *y, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

int main(void) {
    nvrtcProgram prog;
    CUdevice dev;
    CUcontext ctx;
    CUmodule module;
    CUfunction axpy;
    float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
    CUdeviceptr dx, dy;
    float a = 2;
    int n = 4, i;
    void *args[4];
    size_t size;
    char *ptx;
    printf("before init %d\n", (int)cuDeviceGet(&dev, 0));
    printf("init %d\n", (int)cuInit(0));
    cuDeviceGet(&dev, 0);
    cuDevicePrimaryCtxRetain(&ctx, dev);
    cuCtxSetCurrent(ctx);
    nvrtcCreateProgram(&prog, source, "axpy.cu", 0, NULL, NULL);
    printf("compile %s\n", nvrtcGetErrorString(nvrtcCompileProgram(prog, 0, NULL)));
    nvrtcGetPTXSize(prog, &size);
    ptx = (char *)malloc(size);
    nvrtcGetPTX(prog, ptx);
    nvrtcDestroyProgram(&prog);
    printf("load %d\n", (int)cuModuleLoadData(&module, ptx));
    printf("function %d\n", (int)cuModuleGetFunction(&axpy, module, "axpy"));
    cuMemAlloc(&dx, sizeof(x));
    cuMemAlloc(&dy, sizeof(y));
    cuMemcpyHtoD(dx, x, sizeof(x));
    cuMemcpyHtoD(dy, y, sizeof(y));
    args[0] = &a; args[1] = &dx; args[2] = &dy; args[3] = &n;
    printf("launch %d\n", (int)cuLaunchKernel(axpy, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    cuMemcpyDtoH(y, dy, sizeof(y));
    for (i = 0; i < 4; i++)
        printf("%g ", y[i]);
    printf("\n");
    cuMemFree(dx);
    cuMemFree(dy);
    cuModuleUnload(module);
    cuDevicePrimaryCtxRelease(dev);
    free(ptx);
    return 0;
}
'''

EXPECTED = """before init 3
init 0
compile NVRTC_SUCCESS
load 0
function 0
launch 0
12 24 36 48 \n"""

path = os.path.join(tmp, "axpy_host.c")
with open(path, "w") as f:
    f.write(SOURCE)
if NVCC:
    if not os.path.exists(NVCC):
        sys.exit(77)
    cmd = [NVCC, "-c", path, "-o", os.path.join(tmp, "axpy_host.o")]
else:
    cmd = [KERN, "run", path]
p = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=120)
if p.returncode != 0 or (not NVCC and p.stdout != EXPECTED):
    print(f"{' '.join(cmd)}: exit {p.returncode}\n--- stdout\n{p.stdout}--- stderr\n{p.stderr}")
    sys.exit(1)
print("ok")
