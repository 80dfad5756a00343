// Calibration: DRAM bandwidth. A 1 GiB float4 copy (1 GiB read + 1 GiB written), a read-only
// sum of 1 GiB and a write-only fill of 1 GiB, each far larger than the L2.
//   cal_dram [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

__global__ void init_f4(float4 *a, size_t n4) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n4) {
        float b = (float)(i % 8) * 0.25f;
        a[i] = make_float4(b, b + 0.25f, b, 0.5f);
    }
}

__global__ void copy_f4(const float4 *__restrict__ in, float4 *__restrict__ out, size_t n4) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n4) out[i] = in[i];
}

__global__ void read_sum_f4(const float4 *__restrict__ in, size_t n4, double *sum) {
    __shared__ float warp_sums[32];
    float s = 0.0f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = in[i];
        s += (v.x + v.y) + (v.z + v.w);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
        if (threadIdx.x == 0) atomicAdd(sum, (double)s);
    }
}

__global__ void write_f4(float4 *__restrict__ out, size_t n4, float v) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n4) out[i] = make_float4(v, v + 1.0f, (float)(i & 1023), v);
}

int main(int argc, char **argv) {
    const int nsm = timing_setup(argc, argv);

    const size_t n4 = (size_t)1 << 26; // 2^26 float4 = 1 GiB
    float4 *a, *b;
    double *sum;
    CHECK(cudaMalloc(&a, n4 * sizeof(float4)));
    CHECK(cudaMalloc(&b, n4 * sizeof(float4)));
    CHECK(cudaMalloc(&sum, sizeof(double)));
    unsigned blocks = (unsigned)((n4 + 255) / 256);
    init_f4<<<blocks, 256>>>(a, n4);
    CHECK(cudaGetLastError());

    TIME("dram_copy_f4_1GiB", copy_f4<<<blocks, 256>>>(a, b, n4));
    TIME("dram_read_sum_f4_1GiB", read_sum_f4<<<nsm * 8, 256>>>(a, n4, sum));
    TIME("dram_write_f4_1GiB", write_f4<<<blocks, 256>>>(b, n4, 3.0f));

    // Results: the copy of a (checked on a sample), the sum of a (one more launch), the fill.
    CHECK(cudaMemset(sum, 0, sizeof(double)));
    read_sum_f4<<<nsm * 8, 256>>>(a, n4, sum);
    copy_f4<<<blocks, 256>>>(a, b, n4);
    CHECK(cudaGetLastError());
    double h_sum = 0;
    CHECK(cudaMemcpy(&h_sum, sum, sizeof(double), cudaMemcpyDeviceToHost));
    double want = 0;
    for (size_t i = 0; i < 8; ++i) want += 3.0 * (i * 0.25) + 0.25 + 0.5; // b + (b + 0.25) + b + 0.5
    want *= (double)(n4 / 8);
    float4 probe[4];
    size_t at[4] = {0, 12345, n4 / 2 + 7, n4 - 1};
    int copy_ok = 1;
    for (int k = 0; k < 4; ++k) {
        CHECK(cudaMemcpy(&probe[k], b + at[k], sizeof(float4), cudaMemcpyDeviceToHost));
        float e = (float)(at[k] % 8) * 0.25f;
        if (probe[k].x != e || probe[k].y != e + 0.25f || probe[k].w != 0.5f) copy_ok = 0;
    }
    printf("sum of 2^28 floats: %.1f (%s)\n", h_sum, h_sum == want ? "ok" : "WRONG");
    printf("copy: %s\n", copy_ok ? "ok" : "WRONG");
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(sum));
    return 0;
}
