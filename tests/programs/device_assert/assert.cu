// Device-side assert as a debugging aid: a first pass over valid data passes every assertion;
// then a few corrupted entries make some threads' assertions fail. The failure surfaces at the
// next synchronisation as cudaErrorAssert, which the program reports before exiting with its
// own code (the context is unusable after a device assert).
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#define N 1024
#define EXIT_ASSERT_CAUGHT 4

// Normalises histogram counts to per-mille; every count must be non-negative.
__global__ void normalise(const int *counts, int *perMille, int total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    assert(counts[i] >= 0);
    perMille[i] = counts[i] * 1000 / total;
  }
}

static int runPass(const int *h_counts, int *d_counts, int *d_out, int *h_out, int total) {
  cudaMemcpy(d_counts, h_counts, N * sizeof(int), cudaMemcpyHostToDevice);
  normalise<<<N / 256, 256>>>(d_counts, d_out, total, N);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    printf("kernel failed: %s\n", cudaGetErrorName(err));
    return 0;
  }
  cudaMemcpy(h_out, d_out, N * sizeof(int), cudaMemcpyDeviceToHost);
  return 1;
}

int main(void) {
  int *h_counts = (int *)malloc(N * sizeof(int));
  int *h_out = (int *)malloc(N * sizeof(int));
  int total = 0;
  for (int i = 0; i < N; ++i) {
    h_counts[i] = (i * 37) % 101;
    total += h_counts[i];
  }
  int *d_counts, *d_out;
  cudaMalloc(&d_counts, N * sizeof(int));
  cudaMalloc(&d_out, N * sizeof(int));

  if (!runPass(h_counts, d_counts, d_out, h_out, total))
    return EXIT_FAILURE;
  long long sum = 0;
  for (int i = 0; i < N; ++i)
    sum += h_out[i];
  printf("pass 1: sum of per-mille values %lld\n", sum);

  // Corrupt three entries, in two different blocks.
  h_counts[5] = -1;
  h_counts[300] = -7;
  h_counts[301] = -2;
  printf("pass 2: %d corrupted counts\n", 3);
  fflush(stdout);
  if (!runPass(h_counts, d_counts, d_out, h_out, total)) {
    printf("device assertion caught, exiting with %d\n", EXIT_ASSERT_CAUGHT);
    return EXIT_ASSERT_CAUGHT;
  }
  printf("no assertion fired\n");
  return EXIT_SUCCESS;
}
