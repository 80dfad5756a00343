// Ground truth for the cost of global atomics in kern's timing model (not part of ctest): the
// whole GPU adds to words with k lanes of a warp on each word (k = 1..32, the words of a warp
// packed in its sectors or a sector each), with the result unused (RED) or used (ATOM), and
// random bins over 256..1M words. Each launch is timed with cudaEvents (timing_common.cuh).
//   atomic_rates [REPS]
#include "../timing/timing_common.cuh"

// Lane l of warp w adds to word w * 32 + (l / k) * spread: 32 / k words a warp, k lanes each.
template <bool USED>
__global__ void k_per_word(unsigned *words, int iters, int k, int spread, unsigned *out) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, w = t / 32, l = t % 32;
    unsigned *mine = &words[(w * 32 + l / k) * spread];
    unsigned acc = 0;
    for (int i = 0; i < iters; ++i) {
        if (USED) acc += atomicAdd(mine, l + 1);
        else atomicAdd(mine, l + 1);
    }
    if (USED) out[t] = acc;
}

// Every thread adds to `iters` bins picked by a hash of its index: random bins over `bins` words.
__global__ void random_bins(unsigned *words, int iters, unsigned bins) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < iters; ++i) {
        x = x * 1664525u + 1013904223u;
        atomicAdd(&words[(x >> 8) % bins], 1u);
    }
}

int main(int argc, char **argv) {
    const int nsm = timing_setup(argc, argv);
    const int blocks = nsm * 4, threads = 256, iters = 64;
    const size_t nthreads = (size_t)blocks * threads;
    unsigned *words, *out;
    CHECK(cudaMalloc(&words, nthreads * 8 * sizeof(unsigned)));
    CHECK(cudaMalloc(&out, nthreads * sizeof(unsigned)));
    CHECK(cudaMemset(words, 0, nthreads * 8 * sizeof(unsigned)));
    printf("grid %d x %d, %d atomics a thread\n", blocks, threads, iters);
    char name[96];
    for (int spread = 1; spread <= 8; spread *= 8)
        for (int k = 1; k <= 32; k *= 2) {
            snprintf(name, sizeof name, "red_k%d_spread%d", k, spread);
            TIME(name, (k_per_word<false><<<blocks, threads>>>(words, iters, k, spread, out)));
            snprintf(name, sizeof name, "atom_k%d_spread%d", k, spread);
            TIME(name, (k_per_word<true><<<blocks, threads>>>(words, iters, k, spread, out)));
        }
    for (unsigned bins = 1; bins <= (1u << 20); bins *= 4) {
        snprintf(name, sizeof name, "random_bins_%u", bins);
        TIME(name, (random_bins<<<blocks, threads>>>(words, bins <= 4096 ? 16 : iters, bins)));
    }
    return 0;
}
