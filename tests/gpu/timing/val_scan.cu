// Validation: work-efficient (Blelloch) exclusive scan of 1024-int blocks in shared memory, 512
// threads a block, over 2^24 ints (each block scans its own 1024 and writes its total; no
// second level): the plain version (bank conflicts grow with the tree's stride) and the one
// whose indices are padded by one word every 32 (index + index/32).
//   val_scan [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

#define N_BLOCK 1024
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

__global__ void scan_blelloch(const int *in, int *out, int *sums) {
    __shared__ int temp[N_BLOCK];
    int tid = threadIdx.x;
    const int *bin = in + (size_t)blockIdx.x * N_BLOCK;
    int *bout = out + (size_t)blockIdx.x * N_BLOCK;
    temp[2 * tid] = bin[2 * tid];
    temp[2 * tid + 1] = bin[2 * tid + 1];
    int offset = 1;
    for (int d = N_BLOCK >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (tid == 0) {
        sums[blockIdx.x] = temp[N_BLOCK - 1];
        temp[N_BLOCK - 1] = 0;
    }
    for (int d = 1; d < N_BLOCK; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            int t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();
    bout[2 * tid] = temp[2 * tid];
    bout[2 * tid + 1] = temp[2 * tid + 1];
}

__global__ void scan_blelloch_padded(const int *in, int *out, int *sums) {
    __shared__ int temp[N_BLOCK + N_BLOCK / 32];
    int tid = threadIdx.x;
    const int *bin = in + (size_t)blockIdx.x * N_BLOCK;
    int *bout = out + (size_t)blockIdx.x * N_BLOCK;
    int ai = tid, bi = tid + N_BLOCK / 2;
    int bank_offset_a = CONFLICT_FREE_OFFSET(ai), bank_offset_b = CONFLICT_FREE_OFFSET(bi);
    temp[ai + bank_offset_a] = bin[ai];
    temp[bi + bank_offset_b] = bin[bi];
    int offset = 1;
    for (int d = N_BLOCK >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int a = offset * (2 * tid + 1) - 1;
            int b = offset * (2 * tid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            temp[b] += temp[a];
        }
        offset *= 2;
    }
    if (tid == 0) {
        int last = N_BLOCK - 1 + CONFLICT_FREE_OFFSET(N_BLOCK - 1);
        sums[blockIdx.x] = temp[last];
        temp[last] = 0;
    }
    for (int d = 1; d < N_BLOCK; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            int a = offset * (2 * tid + 1) - 1;
            int b = offset * (2 * tid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            int t = temp[a];
            temp[a] = temp[b];
            temp[b] += t;
        }
    }
    __syncthreads();
    bout[ai] = temp[ai + bank_offset_a];
    bout[bi] = temp[bi + bank_offset_b];
}

static void check(const char *name, const int *h, const int *dout, const int *dsums, int n) {
    int blocks = n / N_BLOCK;
    int *r = (int *)malloc(n * sizeof(int)), *s = (int *)malloc(blocks * sizeof(int));
    CHECK(cudaMemcpy(r, dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(s, dsums, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    long long total = 0;
    for (int b = 0; b < blocks; ++b) {
        int run = 0;
        for (int k = 0; k < N_BLOCK; ++k) {
            int i = b * N_BLOCK + k;
            bad += r[i] != run;
            run += h[i];
        }
        bad += s[b] != run;
        total += s[b];
    }
    printf("%s: total %lld (%s)\n", name, total, bad ? "WRONG" : "ok");
    free(r);
    free(s);
}

int main(int argc, char **argv) {
    timing_setup(argc, argv);
    const int n = 1 << 24, blocks = n / N_BLOCK;
    int *h = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; ++i) h[i] = (int)(((unsigned)i * 2654435761u) >> 29);
    int *in, *out, *sums;
    CHECK(cudaMalloc(&in, n * sizeof(int)));
    CHECK(cudaMalloc(&out, n * sizeof(int)));
    CHECK(cudaMalloc(&sums, blocks * sizeof(int)));
    CHECK(cudaMemcpy(in, h, n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out, 0xff, n * sizeof(int)));
    TIME("scan_blelloch_2^24", scan_blelloch<<<blocks, N_BLOCK / 2>>>(in, out, sums));
    check("scan_blelloch", h, out, sums, n);
    CHECK(cudaMemset(out, 0xff, n * sizeof(int)));
    TIME("scan_blelloch_padded_2^24", scan_blelloch_padded<<<blocks, N_BLOCK / 2>>>(in, out, sums));
    check("scan_blelloch_padded", h, out, sums, n);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(sums));
    free(h);
    return 0;
}
