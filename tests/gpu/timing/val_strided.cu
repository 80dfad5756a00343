// Validation: strided copy out[i] = in[i * stride] of 2^24 floats, stride 1, 2, 4, 8 and 32
// (reads touch 1/stride of each 32-byte sector they fetch until stride 8, then one sector per
// element), blocks of 256.
//   val_strided [REPS]   REPS launches per timing after two warm-ups (1: one launch, no warm-up)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "timing_common.cuh"

__global__ void init_ramp(float *a, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) a[i] = (float)(i & 0xffff);
}

__global__ void strided_copy(const float *in, float *out, int stride, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(size_t)i * stride];
}

int main(int argc, char **argv) {
    timing_setup(argc, argv);
    const int n = 1 << 24;
    const size_t in_count = (size_t)n * 32;
    float *in, *out;
    CHECK(cudaMalloc(&in, in_count * sizeof(float)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    init_ramp<<<(unsigned)((in_count + 255) / 256), 256>>>(in, in_count);
    CHECK(cudaGetLastError());
    float *h = (float *)malloc(n * sizeof(float));
    const int strides[5] = {1, 2, 4, 8, 32};
    for (int s = 0; s < 5; ++s) {
        char name[64];
        snprintf(name, sizeof name, "strided_copy_%d_2^24", strides[s]);
        CHECK(cudaMemset(out, 0xff, n * sizeof(float)));
        TIME(name, strided_copy<<<n / 256, 256>>>(in, out, strides[s], n));
        CHECK(cudaMemcpy(h, out, n * sizeof(float), cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int i = 0; i < n; ++i) bad += h[i] != (float)(((size_t)i * strides[s]) & 0xffff);
        printf("%s: %s\n", name, bad ? "WRONG" : "ok");
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    free(h);
    return 0;
}
