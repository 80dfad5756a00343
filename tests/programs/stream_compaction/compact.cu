// Stream compaction with warp votes: each warp finds its kept elements with __ballot_sync,
// ranks them with __popc of the lower lanes' bits, reserves space with one atomicAdd, and
// writes them out. The order of warps' chunks is not fixed, so the output is checked as a
// multiset (occurrence counts per value) and summarised by count, sum and extremes.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define FULL_MASK 0xffffffffu

__device__ inline bool keep(int v) { return v % 3 != 0 && v > 0; }

__global__ void compact(const int *in, int n, int *out, int *outCount) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = (i < n) ? in[i] : 0;
  bool k = (i < n) && keep(v);
  unsigned int votes = __ballot_sync(FULL_MASK, k);
  int warpCount = __popc(votes);
  int base = 0;
  if (lane == 0 && warpCount > 0)
    base = atomicAdd(outCount, warpCount);
  base = __shfl_sync(FULL_MASK, base, 0);
  if (k) {
    unsigned int lower = votes & ((1u << lane) - 1u);
    out[base + __popc(lower)] = v;
  }
}

#define VALUE_RANGE 4096
int main(void) {
  const int n = 20000;
  int *h_in = (int *)malloc(n * sizeof(int));
  int *h_out = (int *)malloc(n * sizeof(int));
  int *ref = (int *)malloc(n * sizeof(int));
  unsigned int s = 99u;
  int refCount = 0;
  long long refSum = 0;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    h_in[i] = (int)(s >> 20) - 2048;
    if (h_in[i] % 3 != 0 && h_in[i] > 0) {
      ref[refCount++] = h_in[i];
      refSum += h_in[i];
    }
  }

  int *d_in, *d_out, *d_count;
  checkCudaErrors(cudaMalloc(&d_in, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_out, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_count, sizeof(int)));
  checkCudaErrors(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(d_count, 0, sizeof(int)));
  compact<<<(n + 255) / 256, 256>>>(d_in, n, d_out, d_count);
  getLastCudaError("compact failed");

  int count = 0;
  checkCudaErrors(cudaMemcpy(&count, d_count, sizeof(int), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(h_out, d_out, count * sizeof(int), cudaMemcpyDeviceToHost));
  int *occurrences = (int *)calloc(VALUE_RANGE, sizeof(int));
  for (int i = 0; i < refCount; ++i)
    occurrences[ref[i]]++;
  long long sum = 0;
  int same = count == refCount, smallest = VALUE_RANGE, largest = 0;
  for (int i = 0; i < count; ++i) {
    int v = h_out[i];
    sum += v;
    if (v <= 0 || v >= VALUE_RANGE || occurrences[v]-- == 0)
      same = 0;
    if (v < smallest)
      smallest = v;
    if (v > largest)
      largest = v;
  }
  printf("kept %d of %d (reference %d), sum %lld (reference %lld)\n", count, n, refCount, sum,
         refSum);
  printf("smallest %d, largest %d\n", smallest, largest);
  printf("%s\n", same ? "PASSED" : "FAILED");
  checkCudaErrors(cudaFree(d_in));
  checkCudaErrors(cudaFree(d_out));
  checkCudaErrors(cudaFree(d_count));
  free(h_in);
  free(h_out);
  free(ref);
  free(occurrences);
  return same ? EXIT_SUCCESS : EXIT_FAILURE;
}
