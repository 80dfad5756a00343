// Calibration: on-chip bandwidths. L2: each block streams a 2 MiB window of an 8 MiB buffer that
// stays in the L2 (windows start at scattered offsets, so that an SM does not re-read lines its
// L1 may still hold). L1: each block re-reads its own 8 KiB of global memory. Shared memory:
// conflict-free 16-byte loads, then 4-byte loads with lane strides 1..32 (1- to 32-way bank
// conflicts).
//   cal_onchip [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

__global__ void init_f4(float4 *a, unsigned n4) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) a[i] = make_float4((float)(i & 7), 0.5f, 0.25f, (float)(i & 3));
}

__global__ void l2_read(const float4 *buf, unsigned mask, unsigned window, float *out) {
    unsigned start = (blockIdx.x * 2654435761u) & mask & ~255u;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (unsigned k = threadIdx.x; k < window; k += blockDim.x) {
        float4 v = buf[(start + k) & mask];
        acc.x += v.x;
        acc.y += v.y;
        acc.z += v.z;
        acc.w += v.w;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = (acc.x + acc.y) + (acc.z + acc.w);
}

// Each block owns 512 float4 (8 KiB) and reads them `sweeps` times, 2 loads per thread a sweep.
__global__ void l1_read(const float4 *buf, int sweeps, float *out) {
    const float4 *mine = buf + blockIdx.x * 512;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int r = 0; r < sweeps; ++r) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            float4 v = mine[(threadIdx.x + j * 256 + r * 32) & 511];
            acc.x += v.x;
            acc.y += v.y;
            acc.z += v.z;
            acc.w += v.w;
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = (acc.x + acc.y) + (acc.z + acc.w);
}

__global__ void shared_read_f4(int iters, float *out) {
    __shared__ float4 s[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x)
        s[i] = make_float4((float)(i & 7), 1.0f, 0.5f, (float)(i & 1));
    __syncthreads();
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll 8
    for (int k = 0; k < iters; ++k) {
        float4 v = s[(threadIdx.x + k * 32) & 1023];
        acc.x += v.x;
        acc.y += v.y;
        acc.z += v.z;
        acc.w += v.w;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = (acc.x + acc.y) + (acc.z + acc.w);
}

// Lane l of a warp reads word l*stride + k: banks (l*stride + k) % 32, so a stride of 2^j puts
// 2^j lanes in one bank.
__global__ void shared_stride(int stride, int iters, float *out) {
    __shared__ float s[8192];
    for (int i = threadIdx.x; i < 8192; i += blockDim.x) s[i] = (float)(i & 15);
    __syncthreads();
    int lane = threadIdx.x & 31;
    float acc = 0.0f;
#pragma unroll 8
    for (int k = 0; k < iters; ++k) acc += s[(lane * stride + k + (threadIdx.x >> 5)) & 8191];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

static double checksum(const float *d, size_t n) {
    float *h = (float *)malloc(n * sizeof(float));
    CHECK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    double s = 0;
    for (size_t i = 0; i < n; ++i) s += h[i];
    free(h);
    return s;
}

int main(int argc, char **argv) {
    const int nsm = timing_setup(argc, argv);
    const int blocks = nsm * 8, threads = 256;

    const unsigned l2_n4 = 1u << 19; // 8 MiB
    const unsigned window = 1u << 17; // 2 MiB a block
    float4 *l2buf, *l1buf;
    float *out;
    CHECK(cudaMalloc(&l2buf, l2_n4 * sizeof(float4)));
    CHECK(cudaMalloc(&l1buf, (size_t)blocks * 512 * sizeof(float4)));
    CHECK(cudaMalloc(&out, (size_t)blocks * threads * sizeof(float)));
    init_f4<<<l2_n4 / 256, 256>>>(l2buf, l2_n4);
    init_f4<<<blocks * 2, 256>>>(l1buf, blocks * 512);
    CHECK(cudaGetLastError());

    TIME("l2_read_8MiB_2MiB_per_block", l2_read<<<blocks, threads>>>(l2buf, l2_n4 - 1, window, out));
    printf("l2_read checksum: %.1f\n", checksum(out, (size_t)blocks * threads));
    TIME("l1_read_8KiB_per_block_x1000", l1_read<<<blocks, threads>>>(l1buf, 1000, out));
    printf("l1_read checksum: %.1f\n", checksum(out, (size_t)blocks * threads));
    TIME("shared_read_f4_x2048", shared_read_f4<<<blocks, threads>>>(2048, out));
    printf("shared_read_f4 checksum: %.1f\n", checksum(out, (size_t)blocks * threads));
    const int strides[6] = {1, 2, 4, 8, 16, 32};
    for (int i = 0; i < 6; ++i) {
        char name[64];
        snprintf(name, sizeof name, "shared_stride_%d_x2048", strides[i]);
        TIME(name, shared_stride<<<nsm * 4, threads>>>(strides[i], 2048, out));
        printf("%s checksum: %.1f\n", name, checksum(out, (size_t)nsm * 4 * threads));
    }
    CHECK(cudaFree(l2buf));
    CHECK(cudaFree(l1buf));
    CHECK(cudaFree(out));
    return 0;
}
