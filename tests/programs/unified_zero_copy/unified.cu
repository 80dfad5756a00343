// Unified memory and zero-copy memory: a managed array is initialised on the host, prefetched
// to the GPU, updated by kernels and read back by the host with no explicit copy; a mapped
// (zero-copy) pinned buffer receives per-block results that the host reads after a sync.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

__global__ void stepKernel(int *values, int n, int step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    values[i] = values[i] * 2 + step;
}

// Each block writes its maximum into host-mapped memory.
__global__ void blockMax(const int *values, int n, int *mappedOut) {
  __shared__ int best[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  best[threadIdx.x] = (i < n) ? values[i] : -2147483647;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && best[threadIdx.x + s] > best[threadIdx.x])
      best[threadIdx.x] = best[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    mappedOut[blockIdx.x] = best[0];
}

int main(int argc, char **argv) {
  int dev = 0;
  checkCudaErrors(cudaSetDeviceFlags(cudaDeviceMapHost));
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
  if (!prop.managedMemory || !prop.canMapHostMemory) {
    printf("managed or mapped memory not supported: waived\n");
    return EXIT_WAIVED;
  }

  const int n = 5000;
  const int threads = 128;
  const int blocks = (n + threads - 1) / threads;
  int *values;
  checkCudaErrors(cudaMallocManaged(&values, n * sizeof(int), cudaMemAttachGlobal));
  for (int i = 0; i < n; ++i)
    values[i] = i % 100 - 50;

#if CUDART_VERSION >= 13000
  cudaMemLocation location;
  location.type = cudaMemLocationTypeDevice;
  location.id = dev;
  checkCudaErrors(cudaMemPrefetchAsync(values, n * sizeof(int), location, 0, 0));
#else
  checkCudaErrors(cudaMemPrefetchAsync(values, n * sizeof(int), dev, 0));
#endif

  for (int step = 1; step <= 3; ++step) {
    stepKernel<<<blocks, threads>>>(values, n, step);
    getLastCudaError("stepKernel failed");
  }
  checkCudaErrors(cudaDeviceSynchronize());

  // The host reads the managed array directly.
  int errors = 0;
  long long sum = 0;
  for (int i = 0; i < n; ++i) {
    int v = i % 100 - 50;
    for (int step = 1; step <= 3; ++step)
      v = v * 2 + step;
    if (values[i] != v)
      errors++;
    sum += values[i];
  }
  printf("managed: values[0] = %d, values[%d] = %d, sum = %lld\n", values[0], n - 1, values[n - 1],
         sum);

  // Zero-copy: the kernel writes straight into pinned host memory.
  int *h_max = NULL, *d_max = NULL;
  checkCudaErrors(cudaHostAlloc((void **)&h_max, blocks * sizeof(int), cudaHostAllocMapped));
  checkCudaErrors(cudaHostGetDevicePointer((void **)&d_max, h_max, 0));
  blockMax<<<blocks, threads>>>(values, n, d_max);
  getLastCudaError("blockMax failed");
  checkCudaErrors(cudaDeviceSynchronize());
  int overall = h_max[0];
  for (int b = 0; b < blocks; ++b) {
    int want = -2147483647;
    for (int i = b * threads; i < n && i < (b + 1) * threads; ++i)
      if (values[i] > want)
        want = values[i];
    if (h_max[b] != want)
      errors++;
    if (h_max[b] > overall)
      overall = h_max[b];
  }
  printf("zero-copy: %d block maxima, overall %d, last block %d\n", blocks, overall,
         h_max[blocks - 1]);
  printf("%s\n", errors == 0 ? "PASSED" : "FAILED");

  checkCudaErrors(cudaFreeHost(h_max));
  checkCudaErrors(cudaFree(values));
  return errors == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
