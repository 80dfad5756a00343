// Validation: on a 4096 x 4096 float grid, one Jacobi step of the 2D 5-point stencil (borders
// copied) and a 1D convolution of every row with a 17-tap filter in constant memory (indices
// clamped at the row's ends), blocks of 32 x 8, all loads from global memory. Checked against
// the host on sampled points.
//   val_stencil [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

#include <math.h>

#define RADIUS 8

__constant__ float c_filter[2 * RADIUS + 1];

__global__ void stencil5(const float *in, float *out, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        out[i] = in[i];
        return;
    }
    out[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}

__global__ void conv_rows(const float *in, float *out, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    const float *row = in + (size_t)y * nx;
    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        int xx = min(max(x + k, 0), nx - 1);
        sum += c_filter[k + RADIUS] * row[xx];
    }
    out[(size_t)y * nx + x] = sum;
}

int main(int argc, char **argv) {
    timing_setup(argc, argv);
    const int nx = 4096, ny = 4096;
    const size_t count = (size_t)nx * ny, bytes = count * sizeof(float);
    float *h = (float *)malloc(bytes), *r = (float *)malloc(bytes);
    for (size_t i = 0; i < count; ++i) h[i] = (float)((i * 37) % 101) * 0.01f;
    float filter[2 * RADIUS + 1];
    for (int k = 0; k <= 2 * RADIUS; ++k) filter[k] = (float)(RADIUS + 1 - abs(k - RADIUS)) / 81.0f;
    CHECK(cudaMemcpyToSymbol(c_filter, filter, sizeof filter));
    float *in, *out;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMemcpy(in, h, bytes, cudaMemcpyHostToDevice));
    dim3 block(32, 8), grid(nx / 32, ny / 8);

    CHECK(cudaMemset(out, 0xff, bytes));
    TIME("stencil5_4096x4096", stencil5<<<grid, block>>>(in, out, nx, ny));
    CHECK(cudaMemcpy(r, out, bytes, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int s = 0; s < 100000; ++s) {
        int x = (s * 7919) % nx, y = (int)(((size_t)s * 104729 + s / 3) % ny);
        size_t i = (size_t)y * nx + x;
        double want = (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
                          ? h[i]
                          : 0.5 * h[i] + 0.125 * ((double)h[i - 1] + h[i + 1] + h[i - nx] + h[i + nx]);
        worst = fmax(worst, fabs(r[i] - want));
    }
    printf("stencil5: %s\n", worst < 1e-5 ? "ok" : "WRONG");

    CHECK(cudaMemset(out, 0xff, bytes));
    TIME("conv_rows_r8_4096x4096", conv_rows<<<grid, block>>>(in, out, nx, ny));
    CHECK(cudaMemcpy(r, out, bytes, cudaMemcpyDeviceToHost));
    worst = 0;
    for (int s = 0; s < 100000; ++s) {
        int x = (s * 7919) % nx, y = (int)(((size_t)s * 104729 + s / 3) % ny);
        double want = 0;
        for (int k = -RADIUS; k <= RADIUS; ++k) {
            int xx = x + k < 0 ? 0 : (x + k > nx - 1 ? nx - 1 : x + k);
            want += (double)filter[k + RADIUS] * h[(size_t)y * nx + xx];
        }
        worst = fmax(worst, fabs(r[(size_t)y * nx + x] - want));
    }
    printf("conv_rows: %s\n", worst < 1e-5 ? "ok" : "WRONG");
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    free(h);
    free(r);
    return 0;
}
