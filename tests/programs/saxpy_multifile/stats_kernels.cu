// A second kernel file: counts positive results and reads the other file's device counter.
#include <helper_cuda.h>

#include "saxpy.cuh"

__global__ void countPositive(const float *y, int n, int *count) {
  __shared__ int blockCount;
  if (threadIdx.x == 0)
    blockCount = 0;
  __syncthreads();
  for (int i = gridStrideStart(); i < n; i += blockDim.x * gridDim.x) {
    if (y[i] > 0.0f)
      atomicAdd(&blockCount, 1);
  }
  __syncthreads();
  if (threadIdx.x == 0)
    atomicAdd(count, blockCount);
}

void launchCountPositive(const float *d_y, int n, int *d_count) {
  countPositive<<<8, SAXPY_BLOCK>>>(d_y, n, d_count);
  getLastCudaError("countPositive kernel failed");
  g_launches++;
}

unsigned int readElementsTouched(void) {
  unsigned int touched = 0;
  checkCudaErrors(cudaMemcpyFromSymbol(&touched, d_elementsTouched, sizeof(touched)));
  return touched;
}
