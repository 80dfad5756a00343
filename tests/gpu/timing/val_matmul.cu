// Validation: matrix product C = A * B of n x n floats, n = 512 and 1024: the naive kernel (one
// thread an element, A and B read from global memory) and the tiled one (16 x 16 tiles of A and
// B staged in shared memory). Checked against a double-precision product on sampled elements.
//   val_matmul [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

#include <math.h>

#define TILE 16

__global__ void matmul_naive(const float *A, const float *B, float *C, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; ++k) sum += A[row * n + k] * B[k * n + col];
        C[row * n + col] = sum;
    }
}

__global__ void matmul_tiled(const float *A, const float *B, float *C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = sum;
}

static unsigned lcg_state = 12345u;
static float rand_unit(void) {
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (float)(lcg_state >> 8) / 16777216.0f * 2.0f - 1.0f;
}

static void check(const char *name, const float *hA, const float *hB, const float *dC, int n) {
    float *hC = (float *)malloc((size_t)n * n * sizeof(float));
    CHECK(cudaMemcpy(hC, dC, (size_t)n * n * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int s = 0; s < 256; ++s) {
        int r = (s * 7919) % n, c = (s * 104729 + 13) % n;
        double want = 0, scale = 0;
        for (int k = 0; k < n; ++k) {
            want += (double)hA[r * n + k] * hB[k * n + c];
            scale += fabs((double)hA[r * n + k] * hB[k * n + c]);
        }
        double err = fabs(hC[r * n + c] - want) / scale;
        if (err > worst) worst = err;
    }
    printf("%s: %s\n", name, worst < 1e-4 ? "ok" : "WRONG");
    free(hC);
}

int main(int argc, char **argv) {
    timing_setup(argc, argv);
    const int sizes[2] = {512, 1024};
    for (int si = 0; si < 2; ++si) {
        int n = sizes[si];
        size_t bytes = (size_t)n * n * sizeof(float);
        float *hA = (float *)malloc(bytes), *hB = (float *)malloc(bytes);
        for (size_t i = 0; i < (size_t)n * n; ++i) hA[i] = rand_unit();
        for (size_t i = 0; i < (size_t)n * n; ++i) hB[i] = rand_unit();
        float *A, *B, *C;
        CHECK(cudaMalloc(&A, bytes));
        CHECK(cudaMalloc(&B, bytes));
        CHECK(cudaMalloc(&C, bytes));
        CHECK(cudaMemcpy(A, hA, bytes, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(B, hB, bytes, cudaMemcpyHostToDevice));
        dim3 block(TILE, TILE), grid(n / TILE, n / TILE);
        char name[64];
        snprintf(name, sizeof name, "matmul_naive_%d", n);
        CHECK(cudaMemset(C, 0xff, bytes));
        TIME(name, matmul_naive<<<grid, block>>>(A, B, C, n));
        check(name, hA, hB, C, n);
        snprintf(name, sizeof name, "matmul_tiled_%d", n);
        CHECK(cudaMemset(C, 0xff, bytes));
        TIME(name, matmul_tiled<<<grid, block>>>(A, B, C, n));
        check(name, hA, hB, C, n);
        CHECK(cudaFree(A));
        CHECK(cudaFree(B));
        CHECK(cudaFree(C));
        free(hA);
        free(hB);
    }
    return 0;
}
