// Calibration: launch overhead and barrier cost. An empty kernel and a tiny one (one warp writes
// 32 floats) launched 1000 times back to back (the mean is the launch rate), one at a time with
// events around each launch, and one at a time waited for on the host (launch to return of
// cudaDeviceSynchronize); an empty grid of many blocks; and a loop of 10000 __syncthreads() in
// blocks of 32, 256 and 1024 threads, one block per SM, with clock64 giving cycles per barrier.
//   cal_launch [REPS]   REPS>1: 1000 launches per launch timing, REPS per barrier timing;
//                       1: one launch each, no warm-up
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

__global__ void empty_kernel() {}

__global__ void tiny_kernel(float *out) { out[threadIdx.x] = threadIdx.x * 2.0f; }

__global__ void sync_loop(int iters, long long *cycles) {
    long long t0 = clock64();
    for (int i = 0; i < iters; ++i) __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

static double host_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

int main(int argc, char **argv) {
    const int nsm = timing_setup(argc, argv);
    float *out;
    long long *cycles;
    CHECK(cudaMalloc(&out, 32 * sizeof(float)));
    CHECK(cudaMalloc(&cycles, nsm * sizeof(long long)));

    const int timed_reps = reps;
    reps = timed_reps > 1 ? 1000 : 1;
    TIME("launch_empty_1x32", empty_kernel<<<1, 32>>>());
    TIME("launch_tiny_1x32", tiny_kernel<<<1, 32>>>(out));
    char name[64];
    snprintf(name, sizeof name, "launch_empty_%dx1024", nsm * 64);
    TIME(name, empty_kernel<<<nsm * 64, 1024>>>());
    reps = timed_reps;

    if (reps > 1) {
        // One launch at a time: events around it, and the host's wait for it.
        float ev_total = 0;
        double host_total = 0;
        const int single = 200;
        for (int i = 0; i < single; ++i) {
            float ms = 0;
            double t0 = host_us();
            CHECK(cudaEventRecord(ev_start));
            empty_kernel<<<1, 32>>>();
            CHECK(cudaEventRecord(ev_stop));
            CHECK(cudaEventSynchronize(ev_stop));
            host_total += host_us() - t0;
            CHECK(cudaEventElapsedTime(&ms, ev_start, ev_stop));
            ev_total += ms;
        }
        printf("launch_empty_1x32 single, events around it: %.3f us\n", ev_total * 1000.0f / single);
        printf("launch_empty_1x32 single, host launch to synchronized: %.3f us\n",
               host_total / single);
    }

    const int iters = 10000;
    const int sizes[3] = {32, 256, 1024};
    for (int k = 0; k < 3; ++k) {
        snprintf(name, sizeof name, "syncthreads_%d_threads_x10000", sizes[k]);
        TIME(name, sync_loop<<<nsm, sizes[k]>>>(iters, cycles));
        long long c = 0;
        CHECK(cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost));
        printf("%s: %.2f cycles per barrier (block 0)\n", name, (double)c / iters);
    }
    float h[32];
    CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    printf("tiny_kernel out[31] = %.1f\n", h[31]);
    CHECK(cudaFree(out));
    CHECK(cudaFree(cycles));
    return 0;
}
