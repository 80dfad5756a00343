// Calibration: throughput of the other arithmetic pipes at 64 warps per SM (four blocks of 512
// per SM), 8 independent chains per thread: FP64 FMA, __sinf and __expf (special-function unit),
// sqrtf (IEEE square root: reciprocal square root and a correction) and 32-bit integer
// multiply-add.
//   cal_units [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

#define CHAINS8(T, init)                                                                   \
    T a0 = (init), a1 = a0 + (T)1, a2 = a0 + (T)2, a3 = a0 + (T)3, a4 = a0 + (T)4,          \
      a5 = a0 + (T)5, a6 = a0 + (T)6, a7 = a0 + (T)7
#define STEP8(f)                                                                           \
    a0 = f(a0);                                                                            \
    a1 = f(a1);                                                                            \
    a2 = f(a2);                                                                            \
    a3 = f(a3);                                                                            \
    a4 = f(a4);                                                                            \
    a5 = f(a5);                                                                            \
    a6 = f(a6);                                                                            \
    a7 = f(a7)
#define SUM8 (((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)))

__global__ void __launch_bounds__(512, 4) fp64_fma(int n, double b, double c, double *out) {
    CHAINS8(double, threadIdx.x * 1e-3);
#define F(x) fma(x, b, c)
#pragma unroll 2
    for (int i = 0; i < n; i += 8) { STEP8(F); }
#undef F
    out[blockIdx.x * blockDim.x + threadIdx.x] = SUM8;
}

__global__ void __launch_bounds__(512, 4) sfu_sinf(int n, float b, float *out) {
    CHAINS8(float, threadIdx.x * 1e-3f);
#define F(x) __sinf(x) + b
#pragma unroll 2
    for (int i = 0; i < n; i += 8) { STEP8(F); }
#undef F
    out[blockIdx.x * blockDim.x + threadIdx.x] = SUM8;
}

__global__ void __launch_bounds__(512, 4) sfu_expf(int n, float b, float *out) {
    CHAINS8(float, threadIdx.x * 1e-3f);
#define F(x) __expf(-x) * b
#pragma unroll 2
    for (int i = 0; i < n; i += 8) { STEP8(F); }
#undef F
    out[blockIdx.x * blockDim.x + threadIdx.x] = SUM8;
}

__global__ void __launch_bounds__(512, 4) sqrt_f32(int n, float b, float *out) {
    CHAINS8(float, threadIdx.x * 1e-3f + 1.0f);
#define F(x) sqrtf(x + b)
#pragma unroll 2
    for (int i = 0; i < n; i += 8) { STEP8(F); }
#undef F
    out[blockIdx.x * blockDim.x + threadIdx.x] = SUM8;
}

__global__ void __launch_bounds__(512, 4) int_mad(int n, unsigned b, unsigned c, unsigned *out) {
    CHAINS8(unsigned, threadIdx.x);
#define F(x) x * b + c
#pragma unroll 2
    for (int i = 0; i < n; i += 8) { STEP8(F); }
#undef F
    out[blockIdx.x * blockDim.x + threadIdx.x] = SUM8;
}

int main(int argc, char **argv) {
    const int nsm = timing_setup(argc, argv);
    const int blocks = nsm * 4, threads = 512;
    const size_t count = (size_t)blocks * threads;
    double *d_out;
    float *f_out;
    unsigned *u_out;
    CHECK(cudaMalloc(&d_out, count * sizeof(double)));
    CHECK(cudaMalloc(&f_out, count * sizeof(float)));
    CHECK(cudaMalloc(&u_out, count * sizeof(unsigned)));
    double d0;
    float f0;
    unsigned u0;

    TIME("fp64_fma_8192", fp64_fma<<<blocks, threads>>>(8192, 0.999, 0.001, d_out));
    CHECK(cudaMemcpy(&d0, d_out, sizeof d0, cudaMemcpyDeviceToHost));
    printf("fp64_fma out[0] = %.6f\n", d0);
    TIME("sfu_sinf_2048", sfu_sinf<<<blocks, threads>>>(2048, 0.5f, f_out));
    CHECK(cudaMemcpy(&f0, f_out, sizeof f0, cudaMemcpyDeviceToHost));
    printf("sfu_sinf out[0] = %.4f\n", f0);
    TIME("sfu_expf_2048", sfu_expf<<<blocks, threads>>>(2048, 0.9f, f_out));
    CHECK(cudaMemcpy(&f0, f_out, sizeof f0, cudaMemcpyDeviceToHost));
    printf("sfu_expf out[0] = %.4f\n", f0);
    TIME("sqrt_f32_2048", sqrt_f32<<<blocks, threads>>>(2048, 2.0f, f_out));
    CHECK(cudaMemcpy(&f0, f_out, sizeof f0, cudaMemcpyDeviceToHost));
    printf("sqrt_f32 out[0] = %.4f\n", f0);
    TIME("int_mad_8192", int_mad<<<blocks, threads>>>(8192, 1664525u, 1013904223u, u_out));
    CHECK(cudaMemcpy(&u0, u_out, sizeof u0, cudaMemcpyDeviceToHost));
    printf("int_mad out[0] = %u\n", u0);
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(f_out));
    CHECK(cudaFree(u_out));
    return 0;
}
