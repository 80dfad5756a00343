// Calibration: FP32 FMA latency and throughput. Every thread does 65536 FMAs, either as one
// dependent chain or as 8 independent chains, with 1, 4, 16 and 64 warps on each SM (grid of one
// block per SM of 32, 128 and 512 threads; four blocks of 512 per SM). clock64 around the loop
// of thread 0 gives cycles per FMA of one warp.
//   cal_fma [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

__global__ void __launch_bounds__(512, 4) fma_dep(int n, float b, float c, float *out,
                                                  long long *cycles) {
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    float a = threadIdx.x * 1e-3f;
    long long t0 = clock64();
#pragma unroll 16
    for (int i = 0; i < n; ++i) a = fmaf(a, b, c);
    long long t1 = clock64();
    out[gid] = a;
    if (gid == 0) cycles[0] = t1 - t0;
}

__global__ void __launch_bounds__(512, 4) fma_ilp8(int n, float b, float c, float *out,
                                                   long long *cycles) {
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    float a0 = threadIdx.x * 1e-3f, a1 = a0 + 1.0f, a2 = a0 + 2.0f, a3 = a0 + 3.0f;
    float a4 = a0 + 4.0f, a5 = a0 + 5.0f, a6 = a0 + 6.0f, a7 = a0 + 7.0f;
    long long t0 = clock64();
#pragma unroll 2
    for (int i = 0; i < n; i += 8) {
        a0 = fmaf(a0, b, c);
        a1 = fmaf(a1, b, c);
        a2 = fmaf(a2, b, c);
        a3 = fmaf(a3, b, c);
        a4 = fmaf(a4, b, c);
        a5 = fmaf(a5, b, c);
        a6 = fmaf(a6, b, c);
        a7 = fmaf(a7, b, c);
    }
    long long t1 = clock64();
    out[gid] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
    if (gid == 0) cycles[0] = t1 - t0;
}

int main(int argc, char **argv) {
    const int nsm = timing_setup(argc, argv);
    const int n = 65536;
    float *out;
    long long *cycles;
    CHECK(cudaMalloc(&out, (size_t)nsm * 2048 * sizeof(float)));
    CHECK(cudaMalloc(&cycles, sizeof(long long)));

    const int warps[4] = {1, 4, 16, 64};
    for (int ilp = 0; ilp < 2; ++ilp) {
        for (int w = 0; w < 4; ++w) {
            int threads = warps[w] * 32 > 512 ? 512 : warps[w] * 32;
            int blocks = nsm * (warps[w] * 32 / threads);
            char name[64];
            snprintf(name, sizeof name, "fma_%s_%dwarps_per_sm", ilp ? "ilp8" : "dep", warps[w]);
            if (ilp)
                TIME(name, fma_ilp8<<<blocks, threads>>>(n, 0.999f, 0.001f, out, cycles));
            else
                TIME(name, fma_dep<<<blocks, threads>>>(n, 0.999f, 0.001f, out, cycles));
            long long c = 0;
            float first = 0;
            CHECK(cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(&first, out, sizeof first, cudaMemcpyDeviceToHost));
            printf("%s: %.3f cycles per FMA of warp 0 (out[0] = %.6f)\n", name, (double)c / n, first);
        }
    }
    CHECK(cudaFree(out));
    CHECK(cudaFree(cycles));
    return 0;
}
