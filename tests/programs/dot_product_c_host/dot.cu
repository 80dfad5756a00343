// Dot product of two integer vectors: grid-stride partial sums, warp shuffles, one shared slot
// per warp, one atomic per block.
#include <helper_cuda.h>

#include "dot.cuh"

// The same name as a helper in reference.c: each is private to its file.
static int step(int blocks) { return blocks * DOT_THREADS; }

__global__ void dotKernel(const int *a, const int *b, int n, unsigned long long *result) {
  __shared__ long long warpSums[DOT_THREADS / 32];
  long long sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += (long long)a[i] * b[i];
  sum = warpSum(sum);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0)
    warpSums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = (lane < blockDim.x / 32) ? warpSums[lane] : 0;
    sum = warpSum(sum);
    if (lane == 0)
      atomicAdd(result, (unsigned long long)sum);
  }
}

long long dotOnDevice(const int *d_a, const int *d_b, int n, int blocks) {
  unsigned long long *d_result, h_result = 0;
  checkCudaErrors(cudaMalloc(&d_result, sizeof(unsigned long long)));
  checkCudaErrors(cudaMemset(d_result, 0, sizeof(unsigned long long)));
  dotKernel<<<blocks, DOT_THREADS>>>(d_a, d_b, n, d_result);
  getLastCudaError("dotKernel failed");
  checkCudaErrors(cudaMemcpy(&h_result, d_result, sizeof(h_result), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d_result));
  if (step(blocks) < n)
    printf("(grid-stride: %d threads for %d elements)\n", step(blocks), n);
  return (long long)h_result;
}
