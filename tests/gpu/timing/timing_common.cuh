// What every program of tests/gpu/timing/ shares: CHECK for runtime calls, timing_setup (the
// start of main), and TIME, which runs a launch `reps` times between two events (after two
// warm-ups when reps > 1) inside a profiler range and prints its mean time as "name: X.XXX us".
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));  \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static int reps = 20;
static cudaEvent_t ev_start, ev_stop;

// What every program's main does first: REPS from argv[1] (1: profile mode), the two events
// TIME uses. Returns the device's SM count.
static int timing_setup(int argc, char **argv) {
    if (argc > 1) reps = atoi(argv[1]) > 0 ? atoi(argv[1]) : 1;
    CHECK(cudaEventCreate(&ev_start));
    CHECK(cudaEventCreate(&ev_stop));
    int nsm = 0;
    CHECK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
    return nsm;
}

// Times the launch: warm-up launches, then `reps` launches between two events; prints the mean
// per launch. Only the timed launches lie inside a profiler range.
#define TIME(name, ...)                                                                    \
    do {                                                                                   \
        for (int w_ = 0; w_ < (reps > 1 ? 2 : 0); ++w_) { __VA_ARGS__; }                   \
        CHECK(cudaGetLastError());                                                         \
        CHECK(cudaDeviceSynchronize());                                                    \
        CHECK(cudaProfilerStart());                                                        \
        CHECK(cudaEventRecord(ev_start));                                                  \
        for (int r_ = 0; r_ < reps; ++r_) { __VA_ARGS__; }                                 \
        CHECK(cudaEventRecord(ev_stop));                                                   \
        CHECK(cudaEventSynchronize(ev_stop));                                              \
        CHECK(cudaProfilerStop());                                                         \
        CHECK(cudaGetLastError());                                                         \
        float ms_ = 0;                                                                     \
        CHECK(cudaEventElapsedTime(&ms_, ev_start, ev_stop));                              \
        printf("%s: %.3f us\n", name, ms_ * 1000.0f / reps);                              \
    } while (0)
