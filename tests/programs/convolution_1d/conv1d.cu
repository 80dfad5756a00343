// 1D convolution with the mask in __constant__ memory and a tile plus halo staged in dynamic
// shared memory (extern __shared__, sized at launch). A checksum is accumulated in double with
// atomicAdd where the architecture has it (__CUDA_ARCH__ >= 600) and with a compare-and-swap
// loop before that. Inputs are small integers and the weights quarters: every sum is exact.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define MASK_RADIUS 4
#define MASK_WIDTH (2 * MASK_RADIUS + 1)

__constant__ float d_mask[MASK_WIDTH];

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
__device__ inline double addChecksum(double *address, double val) {
  return atomicAdd(address, val);
}
#else
__device__ inline double addChecksum(double *address, double val) {
  unsigned long long int *address_as_ull = (unsigned long long int *)address;
  unsigned long long int old = *address_as_ull, assumed;
  do {
    assumed = old;
    old = atomicCAS(address_as_ull, assumed,
                    __double_as_longlong(val + __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}
#endif

__global__ void convolve(const float *in, float *out, int n, double *checksum) {
  extern __shared__ float tile[]; // blockDim.x + 2 * MASK_RADIUS floats
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int lid = threadIdx.x + MASK_RADIUS;

  tile[lid] = (gid < n) ? in[gid] : 0.0f;
  if (threadIdx.x < MASK_RADIUS) {
    int left = gid - MASK_RADIUS;
    int right = gid + blockDim.x;
    tile[lid - MASK_RADIUS] = (left >= 0) ? in[left] : 0.0f;
    tile[lid + blockDim.x] = (right < n) ? in[right] : 0.0f;
  }
  __syncthreads();

  if (gid < n) {
    float sum = 0.0f;
#pragma unroll
    for (int k = -MASK_RADIUS; k <= MASK_RADIUS; ++k)
      sum += d_mask[k + MASK_RADIUS] * tile[lid + k];
    out[gid] = sum;
    addChecksum(checksum, (double)sum);
  }
}

int main(int argc, char **argv) {
  const int n = 10000;
  const int threads = 256;
  float h_mask[MASK_WIDTH];
  for (int k = 0; k < MASK_WIDTH; ++k)
    h_mask[k] = 0.25f * (float)(MASK_RADIUS + 1 - abs(k - MASK_RADIUS));
  checkCudaErrors(cudaMemcpyToSymbol(d_mask, h_mask, sizeof(h_mask)));

  float *h_in = (float *)malloc(n * sizeof(float));
  float *h_out = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i)
    h_in[i] = (float)((i * 29) % 23 - 11);

  float *d_in, *d_out;
  double *d_checksum;
  checkCudaErrors(cudaMalloc(&d_in, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_out, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_checksum, sizeof(double)));
  checkCudaErrors(cudaMemset(d_checksum, 0, sizeof(double)));
  checkCudaErrors(cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));

  size_t shmem = (threads + 2 * MASK_RADIUS) * sizeof(float);
  convolve<<<(n + threads - 1) / threads, threads, shmem>>>(d_in, d_out, n, d_checksum);
  getLastCudaError("convolve failed");

  double checksum = 0;
  checkCudaErrors(cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(&checksum, d_checksum, sizeof(double), cudaMemcpyDeviceToHost));

  int errors = 0;
  double cpuSum = 0;
  for (int i = 0; i < n; ++i) {
    float s = 0.0f;
    for (int k = -MASK_RADIUS; k <= MASK_RADIUS; ++k)
      if (i + k >= 0 && i + k < n)
        s += h_mask[k + MASK_RADIUS] * h_in[i + k];
    if (s != h_out[i])
      errors++;
    cpuSum += s;
  }
#if CUDART_VERSION >= 11000
  const char *api = "CUDA 11 or later";
#else
  const char *api = "CUDA before 11";
#endif
  printf("runtime: %s\n", api);
  printf("out[0] = %.2f, out[%d] = %.2f, out[%d] = %.2f\n", h_out[0], n / 2, h_out[n / 2], n - 1,
         h_out[n - 1]);
  printf("checksum %.2f (CPU %.2f)\n", checksum, cpuSum);
  printf("%s\n", errors == 0 && checksum == cpuSum ? "PASSED" : "FAILED");

  checkCudaErrors(cudaFree(d_in));
  checkCudaErrors(cudaFree(d_out));
  checkCudaErrors(cudaFree(d_checksum));
  free(h_in);
  free(h_out);
  return errors == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
