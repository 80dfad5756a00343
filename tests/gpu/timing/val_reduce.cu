// Validation: sum of 2^25 ints, first level of the reduction tree (each block writes its partial
// sum; the host adds the partials). Interleaved addressing (tid % (2*s), divergent warps),
// sequential addressing (tid < s), both with blocks of 256 and one element a thread; and a warp
// shuffle reduction with a grid-stride loop over int4 loads, 8 blocks of 256 per SM.
//   val_reduce [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

__global__ void reduce_interleaved(const int *in, int *out, unsigned n) {
    __shared__ int sdata[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_sequential(const int *in, int *out, unsigned n) {
    __shared__ int sdata[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_shuffle(const int4 *in, int *out, unsigned n4) {
    __shared__ int warp_sums[32];
    int sum = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        int4 v = in[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0;
        for (int offset = 16; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        if (lane == 0) out[blockIdx.x] = sum;
    }
}

static long long host_total(const int *d, unsigned count) {
    int *h = (int *)malloc(count * sizeof(int));
    CHECK(cudaMemcpy(h, d, count * sizeof(int), cudaMemcpyDeviceToHost));
    long long s = 0;
    for (unsigned i = 0; i < count; ++i) s += h[i];
    free(h);
    return s;
}

int main(int argc, char **argv) {
    const int nsm = timing_setup(argc, argv);
    const unsigned n = 1u << 25;
    int *h = (int *)malloc(n * sizeof(int));
    long long want = 0;
    for (unsigned i = 0; i < n; ++i) {
        h[i] = (int)((i * 2654435761u) >> 28) - 7;
        want += h[i];
    }
    int *in, *partial;
    const unsigned blocks = n / 256;
    CHECK(cudaMalloc(&in, n * sizeof(int)));
    CHECK(cudaMalloc(&partial, blocks * sizeof(int)));
    CHECK(cudaMemcpy(in, h, n * sizeof(int), cudaMemcpyHostToDevice));

    TIME("reduce_interleaved_2^25", reduce_interleaved<<<blocks, 256>>>(in, partial, n));
    long long got = host_total(partial, blocks);
    printf("reduce_interleaved: %lld (%s)\n", got, got == want ? "ok" : "WRONG");
    TIME("reduce_sequential_2^25", reduce_sequential<<<blocks, 256>>>(in, partial, n));
    got = host_total(partial, blocks);
    printf("reduce_sequential: %lld (%s)\n", got, got == want ? "ok" : "WRONG");
    TIME("reduce_shuffle_2^25", reduce_shuffle<<<nsm * 8, 256>>>((const int4 *)in, partial, n / 4));
    got = host_total(partial, nsm * 8);
    printf("reduce_shuffle: %lld (%s)\n", got, got == want ? "ok" : "WRONG");
    CHECK(cudaFree(in));
    CHECK(cudaFree(partial));
    free(h);
    return 0;
}
