// Calibration: stores that fill only part of each sector. Each launch writes one float per
// thread at a stride of `stride` floats across a 32 MiB region (which fits the L2): stride 1
// fills whole sectors (8 lanes a sector), 2 writes 16 B of each sector, 4 writes 8 B, 8 writes
// 4 B of every sector, 16 and 32 4 B of every second or fourth sector. The L2 takes a sector
// that a store fills in part as a write of its own, at a rate of its own (docs/timing.md).
//   cal_stores [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

__global__ void store_stride(float *out, int stride, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[(size_t)i * stride] = 1.0f;
}

int main(int argc, char **argv) {
    timing_setup(argc, argv);
    const size_t region = (size_t)32 << 20;
    float *out;
    CHECK(cudaMalloc(&out, region));
    CHECK(cudaMemset(out, 0, region));
    const int strides[6] = {1, 2, 4, 8, 16, 32};
    for (int k = 0; k < 6; ++k) {
        const int s = strides[k];
        const int n = (int)(region / sizeof(float) / s);
        char name[64];
        snprintf(name, sizeof name, "store_stride_%d_32MiB", s);
        TIME(name, store_stride<<<(n + 255) / 256, 256>>>(out, s, n));
    }
    float check = 0.0f;
    CHECK(cudaMemcpy(&check, out, sizeof check, cudaMemcpyDeviceToHost));
    printf("cal_stores: first word %.1f\n", check);
    CHECK(cudaFree(out));
    return 0;
}
