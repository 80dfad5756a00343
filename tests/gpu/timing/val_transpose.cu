// Validation: matrix transpose of n x n floats, n = 2048 (input and output fit in the L2) and
// 8192, with 32 x 8 threads a 32 x 32 tile: naive (coalesced reads, writes a column apart),
// through a shared tile (32-way bank conflicts on the column reads) and through a shared tile
// padded by one word. Checked exactly.
//   val_transpose [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_naive(float *odata, const float *idata, int n) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        odata[x * n + (y + j)] = idata[(y + j) * n + x];
}

__global__ void transpose_tiled(float *odata, const float *idata, int n) {
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        odata[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_padded(float *odata, const float *idata, int n) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        odata[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

static void check(const char *name, const float *hin, const float *dout, int n) {
    float *hout = (float *)malloc((size_t)n * n * sizeof(float));
    CHECK(cudaMemcpy(hout, dout, (size_t)n * n * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t r0 = 0; r0 < (size_t)n; r0 += 32)
        for (size_t c0 = 0; c0 < (size_t)n; c0 += 32)
            for (size_t r = r0; r < r0 + 32; ++r)
                for (size_t c = c0; c < c0 + 32; ++c)
                    if (hout[c * n + r] != hin[r * n + c]) ++bad;
    printf("%s: %s\n", name, bad == 0 ? "ok" : "WRONG");
    free(hout);
}

int main(int argc, char **argv) {
    timing_setup(argc, argv);
    const int sizes[2] = {2048, 8192};
    for (int si = 0; si < 2; ++si) {
        int n = sizes[si];
        size_t bytes = (size_t)n * n * sizeof(float);
        float *hin = (float *)malloc(bytes);
        for (size_t i = 0; i < (size_t)n * n; ++i) hin[i] = (float)(i % 65521);
        float *in, *out;
        CHECK(cudaMalloc(&in, bytes));
        CHECK(cudaMalloc(&out, bytes));
        CHECK(cudaMemcpy(in, hin, bytes, cudaMemcpyHostToDevice));
        dim3 grid(n / TILE_DIM, n / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);
        char name[64];
        snprintf(name, sizeof name, "transpose_naive_%d", n);
        CHECK(cudaMemset(out, 0xff, bytes));
        TIME(name, transpose_naive<<<grid, block>>>(out, in, n));
        check(name, hin, out, n);
        snprintf(name, sizeof name, "transpose_tiled_%d", n);
        CHECK(cudaMemset(out, 0xff, bytes));
        TIME(name, transpose_tiled<<<grid, block>>>(out, in, n));
        check(name, hin, out, n);
        snprintf(name, sizeof name, "transpose_padded_%d", n);
        CHECK(cudaMemset(out, 0xff, bytes));
        TIME(name, transpose_padded<<<grid, block>>>(out, in, n));
        check(name, hin, out, n);
        CHECK(cudaFree(in));
        CHECK(cudaFree(out));
        free(hin);
    }
    return 0;
}
