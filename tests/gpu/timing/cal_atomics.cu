// Calibration: atomic throughput. Shared memory: every thread of a block adds to one word, or
// each to its own word. Global memory: every thread of the grid adds to one word, each warp to a
// word of its own, or each thread to its own word. Values differ per lane (1..4), and no result
// is used (reductions, as a histogram does).
//   cal_atomics [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

__global__ void shared_atomic_same(int iters, unsigned *out) {
    __shared__ unsigned s[256];
    s[threadIdx.x] = 0;
    __syncthreads();
    unsigned v = (threadIdx.x & 3) + 1;
    for (int i = 0; i < iters; ++i) atomicAdd(&s[0], v);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(&out[0], s[0]);
}

__global__ void shared_atomic_distinct(int iters, unsigned *out) {
    __shared__ unsigned s[256];
    s[threadIdx.x] = 0;
    __syncthreads();
    unsigned v = (threadIdx.x & 3) + 1;
    for (int i = 0; i < iters; ++i) atomicAdd(&s[threadIdx.x], v);
    __syncthreads();
    atomicAdd(&out[1], s[threadIdx.x]);
}

__global__ void global_atomic_same(int iters, unsigned *word) {
    unsigned v = (threadIdx.x & 3) + 1;
    for (int i = 0; i < iters; ++i) atomicAdd(word, v);
}

__global__ void global_atomic_per_warp(int iters, unsigned *words) {
    unsigned v = (threadIdx.x & 3) + 1;
    unsigned *mine = &words[(blockIdx.x * blockDim.x + threadIdx.x) / 32];
    for (int i = 0; i < iters; ++i) atomicAdd(mine, v);
}

__global__ void global_atomic_distinct(int iters, unsigned *words) {
    unsigned v = (threadIdx.x & 3) + 1;
    unsigned *mine = &words[blockIdx.x * blockDim.x + threadIdx.x];
    for (int i = 0; i < iters; ++i) atomicAdd(mine, v);
}

static unsigned long long total(const unsigned *d, size_t n) {
    unsigned *h = (unsigned *)malloc(n * sizeof(unsigned));
    CHECK(cudaMemcpy(h, d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    unsigned long long s = 0;
    for (size_t i = 0; i < n; ++i) s += h[i];
    free(h);
    return s;
}

static unsigned *words;
static size_t nwords;

// Runs the launch once more on zeroed words and prints the total against what it must be.
#define RESULT(name, want, ...)                                                             \
    do {                                                                                   \
        CHECK(cudaMemset(words, 0, nwords * sizeof(unsigned)));                            \
        __VA_ARGS__;                                                                       \
        CHECK(cudaGetLastError());                                                         \
        unsigned long long got_ = total(words, nwords);                                    \
        printf("%s total: %llu (%s)\n", name, got_, got_ == (want) ? "ok" : "WRONG");      \
    } while (0)

int main(int argc, char **argv) {
    const int nsm = timing_setup(argc, argv);
    const int blocks = nsm * 4, threads = 256;
    nwords = (size_t)blocks * threads;
    CHECK(cudaMalloc(&words, nwords * sizeof(unsigned)));
    CHECK(cudaMemset(words, 0, nwords * sizeof(unsigned)));
    // Each block's values sum to 64 * (1+2+3+4) = 640 a round.
    const unsigned long long per_round = 640ull * blocks;

    TIME("shared_atomic_same_x256", shared_atomic_same<<<blocks, threads>>>(256, words));
    RESULT("shared_atomic_same", per_round * 256, shared_atomic_same<<<blocks, threads>>>(256, words));
    TIME("shared_atomic_distinct_x1024", shared_atomic_distinct<<<blocks, threads>>>(1024, words));
    RESULT("shared_atomic_distinct", per_round * 1024,
           shared_atomic_distinct<<<blocks, threads>>>(1024, words));
    TIME("global_atomic_same_x4", global_atomic_same<<<blocks, threads>>>(4, words));
    RESULT("global_atomic_same", per_round * 4, global_atomic_same<<<blocks, threads>>>(4, words));
    TIME("global_atomic_per_warp_x64", global_atomic_per_warp<<<blocks, threads>>>(64, words));
    RESULT("global_atomic_per_warp", per_round * 64,
           global_atomic_per_warp<<<blocks, threads>>>(64, words));
    TIME("global_atomic_distinct_x64", global_atomic_distinct<<<blocks, threads>>>(64, words));
    RESULT("global_atomic_distinct", per_round * 64,
           global_atomic_distinct<<<blocks, threads>>>(64, words));
    CHECK(cudaFree(words));
    return 0;
}
