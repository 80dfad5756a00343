// Validation: 256-bin histogram of 2^25 bytes, with a grid-stride loop over 8 blocks of 256 per
// SM: atomics on the global bins, or per-block bins in shared memory merged into the global ones
// at the end. Two inputs: random bytes (uniform over the bins) and one value repeated (every
// atomic on one bin).
//   val_histogram [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

#define BINS 256

__global__ void hist_global(const unsigned char *data, unsigned n, unsigned *hist) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&hist[data[i]], 1u);
}

__global__ void hist_shared(const unsigned char *data, unsigned n, unsigned *hist) {
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b]) atomicAdd(&hist[b], local[b]);
}

static void check(const char *name, const unsigned *dhist, const unsigned *want) {
    unsigned h[BINS];
    CHECK(cudaMemcpy(h, dhist, sizeof h, cudaMemcpyDeviceToHost));
    unsigned long long weighted = 0;
    int same = 1;
    for (int b = 0; b < BINS; ++b) {
        weighted += (unsigned long long)b * h[b];
        if (h[b] != want[b]) same = 0;
    }
    printf("%s: sum of bin*count %llu (%s)\n", name, weighted, same ? "ok" : "WRONG");
}

int main(int argc, char **argv) {
    const int nsm = timing_setup(argc, argv);
    const unsigned n = 1u << 25;
    unsigned char *h = (unsigned char *)malloc(n);
    unsigned char *data;
    unsigned *hist;
    CHECK(cudaMalloc(&data, n));
    CHECK(cudaMalloc(&hist, BINS * sizeof(unsigned)));
    const char *inputs[2] = {"random", "same"};
    for (int in = 0; in < 2; ++in) {
        unsigned want[BINS] = {0};
        unsigned state = 2463534242u;
        for (unsigned i = 0; i < n; ++i) {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            h[i] = in == 0 ? (unsigned char)(state >> 24) : 42;
            ++want[h[i]];
        }
        CHECK(cudaMemcpy(data, h, n, cudaMemcpyHostToDevice));
        char name[64];
        snprintf(name, sizeof name, "hist_global_%s_2^25", inputs[in]);
        TIME(name, hist_global<<<nsm * 8, 256>>>(data, n, hist));
        CHECK(cudaMemset(hist, 0, BINS * sizeof(unsigned)));
        hist_global<<<nsm * 8, 256>>>(data, n, hist);
        check(name, hist, want);
        snprintf(name, sizeof name, "hist_shared_%s_2^25", inputs[in]);
        TIME(name, hist_shared<<<nsm * 8, 256>>>(data, n, hist));
        CHECK(cudaMemset(hist, 0, BINS * sizeof(unsigned)));
        hist_shared<<<nsm * 8, 256>>>(data, n, hist);
        check(name, hist, want);
    }
    CHECK(cudaFree(data));
    CHECK(cudaFree(hist));
    free(h);
    return 0;
}
