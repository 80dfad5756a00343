// Validation: divergence. 2^22 threads (blocks of 256) each run 4 chains of 256 FMAs, with
// different constants on the two sides of a branch: on threadIdx.x % 2 (both sides in every
// warp, so each warp runs both), or on (threadIdx.x / 32) % 2 (whole warps take one side).
//   val_divergent [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

__device__ float side_a(float x, int iters) {
    float a = x, b = x + 1.0f, c = x + 2.0f, d = x + 3.0f;
    for (int k = 0; k < iters; ++k) {
        a = fmaf(a, 1.0001f, 0.01f);
        b = fmaf(b, 1.0001f, 0.01f);
        c = fmaf(c, 1.0001f, 0.01f);
        d = fmaf(d, 1.0001f, 0.01f);
    }
    return (a + b) + (c + d);
}

__device__ float side_b(float x, int iters) {
    float a = x, b = x - 1.0f, c = x - 2.0f, d = x - 3.0f;
    for (int k = 0; k < iters; ++k) {
        a = fmaf(a, 0.9999f, -0.01f);
        b = fmaf(b, 0.9999f, -0.01f);
        c = fmaf(c, 0.9999f, -0.01f);
        d = fmaf(d, 0.9999f, -0.01f);
    }
    return (a + b) - (c + d);
}

__global__ void divergent_odd_even(const float *in, float *out, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i];
    if (threadIdx.x % 2 == 0)
        x = side_a(x, iters);
    else
        x = side_b(x, iters);
    out[i] = x;
}

__global__ void uniform_by_warp(const float *in, float *out, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i];
    if ((threadIdx.x / 32) % 2 == 0)
        x = side_a(x, iters);
    else
        x = side_b(x, iters);
    out[i] = x;
}

int main(int argc, char **argv) {
    timing_setup(argc, argv);
    const int n = 1 << 22, iters = 256;
    float *h = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i) h[i] = (float)(i % 100) * 0.01f;
    float *in, *out;
    CHECK(cudaMalloc(&in, n * sizeof(float)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    CHECK(cudaMemcpy(in, h, n * sizeof(float), cudaMemcpyHostToDevice));
    float first[2];
    TIME("divergent_odd_even_2^22", divergent_odd_even<<<n / 256, 256>>>(in, out, iters));
    CHECK(cudaMemcpy(first, out, sizeof first, cudaMemcpyDeviceToHost));
    printf("divergent_odd_even out[0..1] = %.4f %.4f\n", first[0], first[1]);
    TIME("uniform_by_warp_2^22", uniform_by_warp<<<n / 256, 256>>>(in, out, iters));
    CHECK(cudaMemcpy(first, out, sizeof first, cudaMemcpyDeviceToHost));
    printf("uniform_by_warp out[0..1] = %.4f %.4f\n", first[0], first[1]);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    free(h);
    return 0;
}
