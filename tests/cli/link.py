#!/usr/bin/env python3
"""Programs of several source files: `kern run a.cu b.cu` compiles each file as its own
translation unit and links them (static names file-local, extern and prototypes across files,
inline functions from a shared header, one definition per name). Usage: link.py KERN [NVCC]
With NVCC, only checks that every valid program builds with nvcc -rdc=true (exit 77 if NVCC
is not there)."""
import os
import subprocess
import sys
import tempfile

KERN = sys.argv[1]
NVCC = sys.argv[2] if len(sys.argv) > 2 else None
tmp = tempfile.mkdtemp()
failures = []

COMMON = r'''#pragma once
#include <stdio.h>
#define N 256
__device__ inline float square(float x) { return x * x; }
inline int hostTwice(int x) { return 2 * x; }
const int kBlock = 128;             // const: one per file, as in C++
__global__ void scale(float *v, float s, int n);
extern int calls;
extern __device__ int launches;
float sum(const float *v, int n);
'''

KERNELS = r'''#include "common.cuh"
static __device__ float twice(float x) { return 2.0f * x; }
static int helper(void) { return 7; }
__device__ int launches = 0;
__global__ void scale(float *v, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) launches++;
    if (i < n) v[i] = twice(square(v[i])) * s;
}
int calls = 0;
int kernelsHelper(void) { return helper() + hostTwice(1); }
'''

MAIN = r'''#include "common.cuh"
static int helper(void) { return 1; }
int kernelsHelper(void);
float sum(const float *v, int n) {
    float t = 0;
    for (int i = 0; i < n; ++i) t += v[i];
    calls++;
    return t;
}
int main(int argc, char **argv) {
    float h[N], *d;
    for (int i = 0; i < N; ++i) h[i] = i % 4;
    cudaMalloc(&d, sizeof(h));
    cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
    scale<<<(N + kBlock - 1) / kBlock, kBlock>>>(d, 0.5f, N);
    scale<<<(N + kBlock - 1) / kBlock, kBlock>>>(d, 1.0f, N);
    cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
    int l = 0;
    cudaMemcpyFromSymbol(&l, launches, sizeof(int));
    float total = sum(h, N);
    printf("sum %.1f helpers %d %d calls %d launches %d twice %d argc %d\n", total, helper(),
           kernelsHelper(), calls, l, hostTwice(3), argc);
    cudaFree(d);
    return 0;
}
'''


def program(name, files):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    paths = []
    for fname, text in files.items():
        path = os.path.join(d, fname)
        with open(path, "w") as f:
            f.write(text)
        if not fname.endswith(".cuh"):
            paths.append(path)
    return paths


VALID = {
    "linked": program("linked", {"common.cuh": COMMON, "kernels.cu": KERNELS, "main.cu": MAIN}),
}

# extern variables and arrays of unknown size find their definition; statics of the same name
# in two files are two variables.
VALID["extern"] = program("extern", {
    "a.cu": "#include <stdio.h>\nextern int table[];\nextern int count;\nstatic int hits = 5;\n"
            "int bump(void);\nint main() { bump(); printf(\"%d %d %d\\n\", table[2], count, hits);"
            " return 0; }\n",
    "b.cu": "int table[4] = {1, 2, 3, 4};\nint count = 9;\nstatic int hits = 0;\n"
            "int bump(void) { return ++hits; }\n"})

# A C or C++ file without CUDA headers is the host compiler's, as nvcc compiles it: it may name
# its own types as CUDA names vector types (cuda-samples' bmploader.cpp declares its uchar4).
VALID["vector_names"] = program("vector_names", {
    "image.cu": "#include <stdio.h>\n"
                "extern \"C\" void loadImage(uchar4 **dst, int n);\n"
                "extern \"C\" float area(int w, int h);\n"
                "__global__ void brightness(const uchar4 *p, int *out) {\n"
                "    atomicAdd(out, p[threadIdx.x].x + p[threadIdx.x].y + p[threadIdx.x].z);\n}\n"
                "int main() {\n"
                "    uchar4 *h, *d;\n    int *o, r = 0;\n    loadImage(&h, 4);\n"
                "    cudaMalloc(&d, 4 * sizeof(uchar4));\n    cudaMalloc(&o, sizeof(int));\n"
                "    cudaMemset(o, 0, sizeof(int));\n"
                "    cudaMemcpy(d, h, 4 * sizeof(uchar4), cudaMemcpyHostToDevice);\n"
                "    brightness<<<1, 4>>>(d, o);\n"
                "    cudaMemcpy(&r, o, sizeof(int), cudaMemcpyDeviceToHost);\n"
                "    printf(\"sum %d alpha %d area %g\\n\", r, h[3].w, area(3, 4));\n"
                "    return 0;\n}\n",
    "loader.cpp": "#include <stdio.h>\n#include <stdlib.h>\n"
                  "typedef struct {\n    unsigned char x, y, z, w;\n} uchar4;\n"
                  "extern \"C\" void loadImage(uchar4 **dst, int n) {\n"
                  "    if (sizeof(uchar4) != 4) printf(\"bad size\\n\");\n"
                  "    *dst = (uchar4 *)malloc(n * sizeof(uchar4));\n"
                  "    for (int i = 0; i < n; ++i) {\n"
                  "        uchar4 p = {(unsigned char)i, (unsigned char)(2 * i),"
                  " (unsigned char)(3 * i), 255};\n"
                  "        (*dst)[i] = p;\n    }\n}\n",
    "shapes.c": "struct float2 { float x, y; };\ntypedef struct float2 float2;\n"
                "float area(int w, int h) { float2 s = {(float)w, (float)h}; return s.x * s.y; }\n"})

# C linkage carries no types: extern "C" functions link by name, as a C linker links them, when
# their results and parameters are passed alike (cuda-samples' simpleAtomicIntrinsics declares
# `bool computeGold` and defines `int computeGold`). The caller converts as it declared: the
# int 2 read as bool is true, 1 (a native build leaves 2 in the bool, which C++ leaves
# undefined, and prints "2 12 ...").
VALID["c_linkage"] = program("c_linkage", {
    "main.cu": "#include <stdio.h>\n"
               "extern \"C\" bool computeGold(int *data, const unsigned int len);\n"
               "extern \"C\" { unsigned char lowByte(int v); }\n"
               "extern \"C\" int twice(char c);\n"
               "extern \"C\" int counter;\n"
               "int main() {\n    int d[3] = {4, 5, 6};\n"
               "    bool ok = computeGold(d, 3);\n"
               "    printf(\"%d %d %d %d %d\\n\", ok, computeGold(d, 3) + 10, lowByte(258),"
               " twice(300), counter);\n"
               "    return 0;\n}\n",
    "gold.cpp": "extern \"C\" int computeGold(int *data, const int len);\n"
                "int counter = 0;\n"
                "int computeGold(int *data, const int len) { counter++; return data[len - 1] - 4; }\n"
                "extern \"C\" int lowByte(int v) { return v; }\n",
    "twice.c": "int twice(int c) { return 2 * c; }\n"})

# C++ functions of one name with other parameters in two files are two functions (cuda-samples'
# histogram has an addByte in each of two files); an extern "C" constant declared in a shared
# header and defined in one file is read by the others; member functions defined in a class in a
# shared header are inline (one per file, the same).
VALID["cxx_names"] = program("cxx_names", {
    "shared.cuh": "#pragma once\n#include <stdio.h>\n#include <cuda_runtime.h>\n"
                  "extern \"C\" const unsigned kLimit;\n"
                  "struct Counter {\n    int n;\n"
                  "    __host__ __device__ void add(int v) { n += v; }\n};\n"
                  "int runA(void);\nint runB(void);\n",
    "a.cu": "#include \"shared.cuh\"\n"
            "extern \"C\" const unsigned kLimit;\n"
            "extern \"C\" const unsigned kLimit = 4 * 2;\n"
            "inline __device__ void addByte(unsigned *h, unsigned v) { atomicAdd(h + v, 1); }\n"
            "__global__ void ka(unsigned *h) { addByte(h, threadIdx.x % 2); }\n"
            "int runA(void) {\n    unsigned *d, r[2];\n    cudaMalloc(&d, sizeof r);\n"
            "    cudaMemset(d, 0, sizeof r);\n    ka<<<1, 6>>>(d);\n"
            "    cudaMemcpy(r, d, sizeof r, cudaMemcpyDeviceToHost);\n"
            "    Counter c = {0};\n    c.add((int)r[1]);\n    return c.n;\n}\n",
    "b.cu": "#include \"shared.cuh\"\n"
            "inline __device__ void addByte(unsigned *h, unsigned v, unsigned tag) {"
            " atomicAdd(h + v, tag); }\n"
            "__global__ void kb(unsigned *h) { addByte(h, 0, threadIdx.x); }\n"
            "int runB(void) {\n    unsigned *d, r = 0;\n    cudaMalloc(&d, sizeof r);\n"
            "    cudaMemset(d, 0, sizeof r);\n    kb<<<1, 4>>>(d);\n"
            "    cudaMemcpy(&r, d, sizeof r, cudaMemcpyDeviceToHost);\n"
            "    Counter c = {1};\n    c.add((int)r);\n    return c.n;\n}\n",
    "main.cpp": "#include \"shared.cuh\"\n"
                "static unsigned umin(unsigned a, unsigned b) { return a < b ? b : a; }\n"
                "int main() { printf(\"%d %d %u %u\\n\", runA(), runB(), kLimit, umin(1, 2));"
                " return 0; }\n"})

# C++17 inline variables defined in a shared header are one variable in every file.
VALID["inline_variables"] = program("inline_variables", {
    "state.cuh": "#pragma once\ninline int counter = 10;\ninline int table[3] = {1, 2, 3};\n"
               "void bump(void);\n",
    "a.cpp": "#include \"state.cuh\"\nvoid bump(void) { counter++; table[1] += 5; }\n",
    "main.cu": "#include <stdio.h>\n#include \"state.cuh\"\n"
               "int main() { bump(); bump(); printf(\"%d %d\\n\", counter, table[1]); return 0; }\n"})

# A file's __device__ function and another file's host function of one name and types are two
# functions (each side's code is its own); here the device one is declared for the host in a
# shared header first, as nvcc accepts with a warning.
VALID["sides"] = program("sides", {
    "addr.cuh": "#pragma once\nstruct Addr { unsigned x, y; };\nAddr toAddr(int id);\n",
    "tree.cpp": "#include \"addr.cuh\"\n"
                "inline Addr toAddr(int id) { Addr a; a.x = id & 15; a.y = id >> 4; return a; }\n"
                "int hostSide(int id) { Addr a = toAddr(id); return a.x + a.y; }\n",
    "main.cu": "#include <stdio.h>\n#include \"addr.cuh\"\n"
               "__device__ Addr toAddr(int id) { Addr a; a.x = id & 255; a.y = id >> 8; return a; }\n"
               "__global__ void k(int *o) { Addr a = toAddr(0x1234); *o = a.x + a.y; }\n"
               "int hostSide(int id);\n"
               "int main() { int *d, h; cudaMalloc(&d, 4); k<<<1, 1>>>(d);\n"
               "  cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost);\n"
               "  printf(\"%d %d\\n\", h, hostSide(0x1234)); return 0; }\n"})
# C++ functions that differ only in their result are one function to a C++ linker (the result
# is not in the mangled name): linked, with a warning.
VALID["result_only"] = program("result_only", {
    "out.cpp": "#include <stdio.h>\nvoid flush() { printf(\"flushed\\n\"); }\n",
    "main.cu": "int flush();\nint main() { flush(); return 0; }\n"})

if NVCC:
    if not os.path.exists(NVCC):
        sys.exit(77)
    for name, paths in VALID.items():
        p = subprocess.run([NVCC, "-rdc=true", "-o", os.path.join(tmp, name + ".out")] + paths,
                           capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            failures.append(f"nvcc {name}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


def check(args, code, out=(), err=()):
    p = subprocess.run([KERN] + args, capture_output=True, text=True, timeout=60)
    what = "kern " + " ".join(os.path.basename(a) for a in args)
    if p.returncode != code:
        failures.append(f"{what}: exit {p.returncode}, expected {code}\n{p.stdout}{p.stderr}")
    for s in out:
        if s not in p.stdout:
            failures.append(f"{what}: stdout lacks {s!r}\n{p.stdout}")
    for s in err:
        if s not in p.stderr:
            failures.append(f"{what}: stderr lacks {s!r}\n{p.stderr}")


# i % 4 -> x*x (2 x^2 * 0.5) -> 2 x^4: (0 + 2 + 32 + 162) in each of 64 groups of four.
LINKED_OUT = "sum 12544.0 helpers 1 9 calls 1 launches 2 twice 6 argc 3"
check(["run"] + VALID["linked"] + ["--", "a", "b"], 0, out=[LINKED_OUT])
# The order of the files does not matter, nor does the mode.
check(["run", "--mode", "profile"] + VALID["linked"][::-1] + ["--", "a", "b"], 0,
      out=[LINKED_OUT])
check(["check"] + VALID["linked"], 0)

# A header is not a translation unit.
hdr = os.path.join(tmp, "linked", "common.cuh")
check(["run", hdr] + VALID["linked"], 2, err=["is a header: #include it from a source file"])
# A missing file.
check(["run", VALID["linked"][0], os.path.join(tmp, "nope.cu")], 1, err=["cannot open file"])

# One definition per external name.
twice = program("twice", {"a.cu": "int f(void) { return 1; }\nint main() { return f(); }\n",
                          "b.cu": "int f(void) { return 2; }\n"})
check(["run"] + twice, 1, err=["b.cu:1:5: error: multiple definition of 'f'",
                               "a.cu:1:5: note: first defined here"])
mains = program("mains", {"a.cu": "int main() { return 0; }\n",
                          "b.cu": "int main() { return 1; }\n"})
check(["run"] + mains, 1, err=["multiple definition of 'main'"])
globals_ = program("globals", {"a.cu": "int g = 1;\nint main() { return g; }\n",
                               "b.cu": "int g = 2;\n"})
check(["run"] + globals_, 1, err=["b.cu:1:5: error: multiple definition of 'g'"])
# Types and CUDA qualifiers must agree across files.
types = program("types", {"a.cu": "float f(int x);\nint main() { return (int)f(2); }\n",
                          "b.cu": "float f(float x) { return x; }\n"})
check(["run"] + types, 1, err=["conflicting types for 'f' across files"])
quals = program("quals", {
    "a.cu": "__device__ float f(float x);\n__global__ void k(float *p) { *p = f(*p); }\n"
            "int main() { return 0; }\n",
    "b.cu": "float f(float x) { return x; }\n"})
check(["run"] + quals, 1, err=["'f' is declared __device__ here but host in another file"])
kinds = program("kinds", {"a.cu": "extern int f;\nint main() { return f; }\n",
                          "b.cu": "int f(void) { return 2; }\n"})
check(["run"] + kinds, 1, err=["'f' is declared as a variable here and as a function in another file"])
# A prototype with no definition anywhere.
missing = program("missing", {"a.cu": "int f(void);\nint main() { return f(); }\n",
                              "b.cu": "int g(void) { return 2; }\n"})
check(["run"] + missing, 1, err=["'f' is declared but never defined"])
check(["run"] + VALID["extern"], 0, out=["3 9 5"])

check(["run"] + VALID["vector_names"], 0, out=["sum 36 alpha 255 area 12"])
# In a .cu file, or a C++ file that includes a CUDA header, uchar4 is CUDA's.
def redefined(name, first_line):
    return program(name, {
        "main.cu": "int main() { return 0; }\n",
        name: first_line + "typedef struct {\n    unsigned char x, y, z, w;\n} uchar4;\n"})
for name, first in (("cuda.cu", ""), ("runtime.cpp", "#include <cuda_runtime.h>\n")):
    line = 4 if first else 3
    check(["run"] + redefined(name, first), 1, err=[
        f"{name}:{line}:3: error: 'uchar4' is a CUDA built-in type here (a .cu file, or one that "
        "includes a CUDA header); only a C or C++ file without CUDA headers may declare it"])

check(["run"] + VALID["c_linkage"], 0, out=["1 11 2 88 1"])
check(["run"] + VALID["inline_variables"], 0, out=["12 12"])
# (its own umin, a host function of a C++ file, hides CUDA's: this one returns the larger)
check(["run"] + VALID["cxx_names"], 0, out=["3 7 8 2"])
# ...not when one of them is a C++ function (its types are part of it), nor when the types are
# not passed alike (float and int) or the parameters differ in number.
cxx = program("cxx_linkage", {
    "main.cu": "bool gold(int *p, unsigned n);\nint main() { int d[1] = {1}; return gold(d, 1); }\n",
    "gold.cpp": "int gold(int *p, int n) { return p[n - 1]; }\n"})
check(["run"] + cxx, 1, err=[
    "main.cu:1:6: error: conflicting types for 'gold' across files: 'bool (int *, unsigned int)' "
    "and 'int (int *, int)'", "gold.cpp:1:5: note: the other declaration",
    "main.cu:1:6: note: a C++ function's parameter and result types must be the same in every "
    "file; only functions declared extern \"C\" in both link by name alone, as in C"])
for decl in ("float gold(int *p, int n)", "int gold(int *p)"):
    unlike = program("unlike" + str(len(decl)), {
        "main.cu": "extern \"C\" " + decl + ";\nint main() { return 0; }\n",
        "gold.c": "int gold(int *p, int n) { return p[n - 1]; }\n"})
    check(["run"] + unlike, 1, err=["error: conflicting types for 'gold' across files"])

check(["run"] + VALID["sides"], 0, out=["70 295"],
      err=["warning: a __host__ function ('toAddr') redeclared with __device__"])
check(["run"] + VALID["result_only"], 0, out=["flushed"],
      err=["main.cu:1:5: warning: 'flush' is declared 'int ()' here but 'void ()' in another file"])

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
