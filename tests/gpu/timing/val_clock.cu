// Validation: what clock64() differences inside kernels read, against kern's modelled clock.
// Each kernel reads the SM clock before and after a piece of work and writes the difference;
// the program prints the mean over the blocks (or the single warp). Not timed with events.
//   val_clock
#include "timing_common.cuh"

// A block minimum of 2 x blockDim values by halving, with a barrier per step.
__global__ void block_min(const float *in, float *out, long long *cycles) {
    extern __shared__ float buf[];
    const int t = threadIdx.x;
    long long start = clock64();
    buf[t] = in[t];
    buf[t + blockDim.x] = in[t + blockDim.x];
    for (int half = blockDim.x; half > 0; half >>= 1) {
        __syncthreads();
        if (t < half && buf[t + half] < buf[t]) buf[t] = buf[t + half];
    }
    __syncthreads();
    if (t == 0) {
        out[blockIdx.x] = buf[0];
        cycles[blockIdx.x] = clock64() - start;
    }
}

// One warp: `n` dependent FMAs.
__global__ void fma_chain(float *out, int n, long long *cycles) {
    float x = threadIdx.x;
    long long start = clock64();
    for (int i = 0; i < n; ++i) x = x * 0.999f + 0.5f;
    long long end = clock64();
    out[threadIdx.x] = x;
    if (threadIdx.x == 0) cycles[0] = end - start;
}

// One warp: `hops` dependent loads through a ring of `words` ints in global memory.
__global__ void global_chase(const int *ring, int hops, int *out, long long *cycles) {
    int p = threadIdx.x;
    long long start = clock64();
    for (int i = 0; i < hops; ++i) p = ring[p];
    long long end = clock64();
    out[threadIdx.x] = p;
    if (threadIdx.x == 0) cycles[0] = end - start;
}

// One warp: `hops` dependent loads through a ring in shared memory.
__global__ void shared_chase(const int *ring, int hops, int *out, long long *cycles) {
    __shared__ int s[1024];
    for (int i = threadIdx.x; i < 1024; i += 32) s[i] = ring[i];
    __syncwarp();
    int p = threadIdx.x;
    long long start = clock64();
    for (int i = 0; i < hops; ++i) p = s[p];
    long long end = clock64();
    out[threadIdx.x] = p;
    if (threadIdx.x == 0) cycles[0] = end - start;
}

static double mean(const long long *d, int n) {
    long long *h = (long long *)malloc(n * sizeof(long long));
    CHECK(cudaMemcpy(h, d, n * sizeof(long long), cudaMemcpyDeviceToHost));
    double s = 0;
    for (int i = 0; i < n; ++i) s += (double)h[i];
    free(h);
    return s / n;
}

int main() {
    const int blocks = 64, threads = 256;
    float *in, *out;
    int *ring, *iout;
    long long *cycles;
    CHECK(cudaMalloc(&in, 2 * threads * sizeof(float)));
    CHECK(cudaMalloc(&out, 1024 * sizeof(float)));
    CHECK(cudaMalloc(&cycles, blocks * sizeof(long long)));
    CHECK(cudaMalloc(&iout, 32 * sizeof(int)));
    float hin[2 * threads];
    for (int i = 0; i < 2 * threads; ++i) hin[i] = (float)((i * 37) % 101);
    CHECK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
    // The ring: word i points 64 words on (4 sectors per lane step), over 1024 words.
    int hring[1024];
    for (int i = 0; i < 1024; ++i) hring[i] = (i + 64) % 1024;
    CHECK(cudaMalloc(&ring, sizeof hring));
    CHECK(cudaMemcpy(ring, hring, sizeof hring, cudaMemcpyHostToDevice));

    block_min<<<blocks, threads, 2 * threads * sizeof(float)>>>(in, out, cycles);
    CHECK(cudaGetLastError());
    printf("block_min_64x256: %.1f cycles\n", mean(cycles, blocks));
    for (int n = 1000; n <= 10000; n *= 10) {
        fma_chain<<<1, 32>>>(out, n, cycles);
        CHECK(cudaGetLastError());
        printf("fma_chain_%d: %.1f cycles\n", n, mean(cycles, 1));
    }
    global_chase<<<1, 32>>>(ring, 1000, iout, cycles);
    CHECK(cudaGetLastError());
    printf("global_chase_1000: %.1f cycles\n", mean(cycles, 1));
    shared_chase<<<1, 32>>>(ring, 1000, iout, cycles);
    CHECK(cudaGetLastError());
    printf("shared_chase_1000: %.1f cycles\n", mean(cycles, 1));
    return 0;
}
