// Validation: vector add of 2^24 floats (one element a thread, blocks of 256), and SAXPY
// y = a*x + y in blocks of 1024 threads that each own 256K elements (256 per thread), launched
// with S, S+1, 2S and 2S+1 blocks on S SMs (132 on an H100 or H200): one block per SM, one SM
// with two, two blocks per SM (the most that fit), and one block more that runs after the first
// wave (the tail).
//   val_vecadd [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

__global__ void vec_add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void saxpy_chunk(int per_thread, float a, const float *x, float *y) {
    size_t base = (size_t)blockIdx.x * blockDim.x * per_thread;
    for (int k = 0; k < per_thread; ++k) {
        size_t i = base + (size_t)k * blockDim.x + threadIdx.x;
        y[i] = a * x[i] + y[i];
    }
}

int main(int argc, char **argv) {
    timing_setup(argc, argv);

    const int n = 1 << 24;
    float *ha = (float *)malloc(n * sizeof(float)), *hb = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i) {
        ha[i] = (float)(i % 1000);
        hb[i] = (float)(i % 77) * 0.5f;
    }
    float *a, *b, *c;
    CHECK(cudaMalloc(&a, n * sizeof(float)));
    CHECK(cudaMalloc(&b, n * sizeof(float)));
    CHECK(cudaMalloc(&c, n * sizeof(float)));
    CHECK(cudaMemcpy(a, ha, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(c, 0xff, n * sizeof(float)));
    TIME("vec_add_2^24", vec_add<<<n / 256, 256>>>(a, b, c, n));
    float *hc = (float *)malloc(n * sizeof(float));
    CHECK(cudaMemcpy(hc, c, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += hc[i] != ha[i] + hb[i];
    printf("vec_add: %s\n", bad ? "WRONG" : "ok");
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    free(ha);
    free(hb);
    free(hc);

    const int per_thread = 256, threads = 1024;
    const size_t per_block = (size_t)per_thread * threads;
    int nsm = 0;
    CHECK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
    const int grids[4] = {nsm, nsm + 1, 2 * nsm, 2 * nsm + 1};
    const size_t total = per_block * grids[3];
    float *hx = (float *)malloc(total * sizeof(float)), *hy = (float *)malloc(total * sizeof(float));
    for (size_t i = 0; i < total; ++i) {
        hx[i] = (float)(i % 16);
        hy[i] = (float)(i % 8);
    }
    float *x, *y;
    CHECK(cudaMalloc(&x, total * sizeof(float)));
    CHECK(cudaMalloc(&y, total * sizeof(float)));
    CHECK(cudaMemcpy(x, hx, total * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y, hy, total * sizeof(float), cudaMemcpyHostToDevice));
    for (int g = 0; g < 4; ++g) {
        char name[64];
        snprintf(name, sizeof name, "saxpy_%dx1024_256_per_thread", grids[g]);
        TIME(name, saxpy_chunk<<<grids[g], threads>>>(per_thread, 0.5f, x, y));
    }
    // Result: one launch of the largest grid on the initial y.
    CHECK(cudaMemcpy(y, hy, total * sizeof(float), cudaMemcpyHostToDevice));
    saxpy_chunk<<<grids[3], threads>>>(per_thread, 0.5f, x, y);
    CHECK(cudaGetLastError());
    float *hr = (float *)malloc(total * sizeof(float));
    CHECK(cudaMemcpy(hr, y, total * sizeof(float), cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (size_t i = 0; i < total; ++i) wrong += hr[i] != 0.5f * hx[i] + hy[i];
    printf("saxpy: %s\n", wrong ? "WRONG" : "ok");
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    free(hx);
    free(hy);
    free(hr);
    return 0;
}
