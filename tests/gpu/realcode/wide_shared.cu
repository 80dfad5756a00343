// Shared-memory loads of 64 and 128 bits under address patterns with repeated addresses, for
// the wavefront rule of wide accesses (measure with Nsight Compute; tests/gpu/realcode/README.md).
#include <stdio.h>

#define PATTERNS 10
// The element each lane reads: pattern p of lane l.
__device__ int element(int p, int l) {
    switch (p) {
    case 0: return 5;                  // every lane the same element
    case 1: return l;                  // consecutive
    case 2: return l / 2;              // pairs
    case 3: return l / 4;              // quads
    case 4: return l / 8;              // eights
    case 5: return l % 8;              // 8 elements, repeated 4 times
    case 6: return l % 16;             // 16 elements, repeated twice
    case 7: return (l % 2) * 16;       // two elements 256 bytes apart (float4)
    case 8: return 2 * l;              // stride 2
    default: return (l * 7) % 32;      // a permutation
    }
}

__global__ void load8(double *out, int p) {
    __shared__ double s[64];
    s[threadIdx.x] = threadIdx.x;
    s[threadIdx.x + 32] = threadIdx.x;
    __syncthreads();
    int e = element(p, threadIdx.x);
    out[threadIdx.x] = s[e];
}

__global__ void load16(float4 *out, int p) {
    __shared__ float4 s[64];
    s[threadIdx.x] = make_float4(threadIdx.x, 0, 0, 0);
    s[threadIdx.x + 32] = make_float4(threadIdx.x, 0, 0, 0);
    __syncthreads();
    int e = element(p, threadIdx.x);
    out[threadIdx.x] = s[e];
}

__global__ void store16(float4 *out, int p) {
    __shared__ float4 s[64];
    int e = element(p, threadIdx.x);
    s[e] = make_float4(threadIdx.x, 1, 2, 3);
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}

int main() {
    double *d8;
    float4 *d16;
    cudaMalloc(&d8, 64 * sizeof(double));
    cudaMalloc(&d16, 64 * sizeof(float4));
    for (int p = 0; p < PATTERNS; ++p) {
        load8<<<1, 32>>>(d8, p);
        load16<<<1, 32>>>(d16, p);
        store16<<<1, 32>>>(d16, p);
    }
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
