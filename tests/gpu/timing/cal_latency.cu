// Calibration: load-to-use latency. One warp follows a random cyclic chain (all lanes the same
// node, so one request a hop) in global memory too large for the L2 (64 MiB: pages within the
// TLB's reach; 1 GiB: with TLB misses), in 16 MiB that the block first brings into the L2, in
// 16 KiB that stays in the L1, and in shared memory. Nodes lie 128 bytes apart (one line each).
// Each chase prints its cycles per hop (clock64 around the timed hops). A launch resumes where
// the last one stopped, so that repeated launches walk nodes no launch has touched.
//   cal_latency [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

__global__ void init_scatter(unsigned *next, const unsigned *order, unsigned nodes, unsigned spacing) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nodes) next[(size_t)i * spacing] = order[i] * spacing;
}

__global__ void chase_global(const unsigned *next, int warm_hops, int hops, unsigned *state,
                             long long *cycles) {
    unsigned j = state[0];
    for (int h = 0; h < warm_hops; ++h) j = next[j];
    long long t0 = clock64();
    for (int h = 0; h < hops; ++h) j = next[j];
    long long t1 = clock64();
    if (threadIdx.x == 0) {
        state[0] = j;
        cycles[0] = t1 - t0;
    }
}

// All threads of the block first read every node once (into the L2 and this SM's L1, which holds
// about 1/64 of them), then warp 0 chases.
__global__ void chase_l2(const unsigned *next, unsigned words, int hops, unsigned *state,
                         long long *cycles) {
    unsigned touch = 0;
    for (unsigned i = threadIdx.x * 32; i < words; i += blockDim.x * 32) touch += next[i];
    __syncthreads();
    if (threadIdx.x >= 32) {
        if (touch == 0xffffffffu) state[1] = touch;
        return;
    }
    unsigned j = state[0];
    long long t0 = clock64();
    for (int h = 0; h < hops; ++h) j = next[j];
    long long t1 = clock64();
    if (threadIdx.x == 0) {
        state[0] = j;
        cycles[0] = t1 - t0;
    }
}

__global__ void chase_shared(const unsigned *chain, int n, int hops, unsigned *state,
                             long long *cycles) {
    __shared__ unsigned s[4096];
    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = chain[i];
    __syncthreads();
    if (threadIdx.x >= 32) return;
    unsigned j = state[0];
    long long t0 = clock64();
    for (int h = 0; h < hops; ++h) j = s[j];
    long long t1 = clock64();
    if (threadIdx.x == 0) {
        state[0] = j;
        cycles[0] = t1 - t0;
    }
}

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static unsigned next_random(unsigned bound) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng >> 33) % bound);
}

// A random single cycle over `nodes` nodes (Sattolo's algorithm): order[i] is the node after i.
static unsigned *random_cycle(unsigned nodes) {
    unsigned *perm = (unsigned *)malloc(nodes * sizeof(unsigned));
    unsigned *order = (unsigned *)malloc(nodes * sizeof(unsigned));
    for (unsigned i = 0; i < nodes; ++i) perm[i] = i;
    for (unsigned i = nodes - 1; i > 0; --i) {
        unsigned k = next_random(i);
        unsigned t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
    }
    for (unsigned i = 0; i < nodes; ++i) order[perm[i]] = perm[(i + 1) % nodes];
    free(perm);
    return order;
}

// Global chain of `bytes` with nodes 128 bytes apart.
static unsigned *make_chain(size_t bytes, unsigned *nodes_out) {
    const unsigned spacing = 32;
    unsigned nodes = (unsigned)(bytes / 4 / spacing);
    unsigned *order = random_cycle(nodes);
    unsigned *d_order, *next;
    CHECK(cudaMalloc(&next, bytes));
    CHECK(cudaMemset(next, 0, bytes));
    CHECK(cudaMalloc(&d_order, nodes * sizeof(unsigned)));
    CHECK(cudaMemcpy(d_order, order, nodes * sizeof(unsigned), cudaMemcpyHostToDevice));
    init_scatter<<<(nodes + 255) / 256, 256>>>(next, d_order, nodes, spacing);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d_order));
    free(order);
    *nodes_out = nodes;
    return next;
}

static unsigned *state;
static long long *cycles;

static void report(const char *name, int hops) {
    long long c = 0;
    CHECK(cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost));
    printf("%s: %.1f cycles per hop (last launch)\n", name, (double)c / hops);
}

int main(int argc, char **argv) {
    timing_setup(argc, argv);
    CHECK(cudaMalloc(&state, 2 * sizeof(unsigned)));
    CHECK(cudaMalloc(&cycles, sizeof(long long)));
    unsigned nodes;

    const int dram_hops = 10000;
    unsigned *small = make_chain((size_t)64 << 20, &nodes);
    CHECK(cudaMemset(state, 0, 2 * sizeof(unsigned)));
    TIME("chase_dram_64MiB_10000_hops", chase_global<<<1, 32>>>(small, 0, dram_hops, state, cycles));
    report("chase_dram_64MiB", dram_hops);
    CHECK(cudaFree(small));

    unsigned *big = make_chain((size_t)1 << 30, &nodes);
    CHECK(cudaMemset(state, 0, 2 * sizeof(unsigned)));
    TIME("chase_dram_1GiB_10000_hops", chase_global<<<1, 32>>>(big, 0, dram_hops, state, cycles));
    report("chase_dram_1GiB", dram_hops);
    CHECK(cudaFree(big));

    const size_t l2_bytes = (size_t)16 << 20;
    unsigned *mid = make_chain(l2_bytes, &nodes);
    CHECK(cudaMemset(state, 0, 2 * sizeof(unsigned)));
    TIME("chase_l2_16MiB_10000_hops",
         chase_l2<<<1, 1024>>>(mid, (unsigned)(l2_bytes / 4), 10000, state, cycles));
    report("chase_l2_16MiB", 10000);
    CHECK(cudaFree(mid));

    unsigned *tiny = make_chain(16 << 10, &nodes);
    CHECK(cudaMemset(state, 0, 2 * sizeof(unsigned)));
    TIME("chase_l1_16KiB_20000_hops", chase_global<<<1, 32>>>(tiny, (int)nodes, 20000, state, cycles));
    report("chase_l1_16KiB", 20000);
    CHECK(cudaFree(tiny));

    const unsigned shared_n = 4096;
    unsigned *order = random_cycle(shared_n);
    unsigned *chain;
    CHECK(cudaMalloc(&chain, shared_n * sizeof(unsigned)));
    CHECK(cudaMemcpy(chain, order, shared_n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(state, 0, 2 * sizeof(unsigned)));
    TIME("chase_shared_16KiB_20000_hops",
         chase_shared<<<1, 256>>>(chain, shared_n, 20000, state, cycles));
    report("chase_shared_16KiB", 20000);
    CHECK(cudaFree(chain));
    free(order);
    return 0;
}
