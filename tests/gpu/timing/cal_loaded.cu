// Calibration: DRAM's latency under load. A copy of 256 MiB whose warps each have one 128-byte
// load in flight (the store of the loaded value comes before the next load, which may read what
// it wrote), by a grid that loops over the array with 8, 16, 32 and 64 resident warps per SM:
// DRAM from lightly loaded to saturated. The time against the warps in flight gives the latency
// at each load (docs/timing.md, step 6).
//   cal_loaded [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

__global__ void fill(float *a, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) a[i] = (float)(i % 1024);
}

__global__ void copy_in_flight(const float *in, float *out, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = in[i];
}

int main(int argc, char **argv) {
    const int nsm = timing_setup(argc, argv);

    const size_t n = (size_t)1 << 26; // 2^26 floats = 256 MiB each way
    float *a, *b;
    CHECK(cudaMalloc(&a, n * sizeof(float)));
    CHECK(cudaMalloc(&b, n * sizeof(float)));
    fill<<<(unsigned)((n + 255) / 256), 256>>>(a, n);
    CHECK(cudaGetLastError());

    const int warps[] = {8, 16, 32, 64};
    for (int w : warps) {
        char name[64];
        snprintf(name, sizeof name, "loaded_copy_%dwarps_per_sm", w);
        TIME(name, copy_in_flight<<<nsm * w / 8, 256>>>(a, b, n));
    }

    float probe[3];
    size_t at[3] = {0, 777777, n - 1};
    int ok = 1;
    for (int k = 0; k < 3; ++k) {
        CHECK(cudaMemcpy(&probe[k], b + at[k], sizeof(float), cudaMemcpyDeviceToHost));
        if (probe[k] != (float)(at[k] % 1024)) ok = 0;
    }
    printf("loaded_copy: %s\n", ok ? "ok" : "WRONG");
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    return 0;
}
