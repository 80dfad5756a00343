// Parallel sum reduction of integers, three ways: interleaved shared-memory tree, sequential
// addressing with warp shuffles for the last 32, and a grid-stride kernel sized by
// cudaOccupancyMaxPotentialBlockSize. Every result must equal the CPU sum.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define FULL_MASK 0xffffffff

// Version 1: shared memory tree with interleaved addressing.
__global__ void reduce0(const int *g_idata, int *g_odata, unsigned int n) {
  extern __shared__ int sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if ((tid % (2 * s)) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
}

__device__ __forceinline__ int warpReduceSum(int val) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    val += __shfl_down_sync(FULL_MASK, val, offset);
  return val;
}

// Version 2: each thread adds two elements while loading, sequential addressing down to one
// warp, then shuffles.
__global__ void reduce4(const int *g_idata, int *g_odata, unsigned int n) {
  extern __shared__ int sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  int mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockDim.x < n)
    mySum += g_idata[i + blockDim.x];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] = mySum = mySum + sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    if (blockDim.x >= 64)
      mySum += sdata[tid + 32];
    mySum = warpReduceSum(mySum);
  }
  if (tid == 0)
    g_odata[blockIdx.x] = mySum;
}

// Version 3: grid-stride accumulation, one shuffle reduction per warp, one atomic per warp.
__global__ void reduceAtomic(const int *in, unsigned long long *total, int n) {
  long long sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  int lo = (int)sum;
  lo = warpReduceSum(lo);
  if ((threadIdx.x & (warpSize - 1)) == 0)
    atomicAdd(total, (unsigned long long)(long long)lo);
}

static long long sumBlocks(const int *partial, int count) {
  long long s = 0;
  for (int i = 0; i < count; ++i)
    s += partial[i];
  return s;
}

int main(int argc, char **argv) {
  const int n = 1 << 18;
  const int threads = 256;
  int *h_in = (int *)malloc(n * sizeof(int));
  srand(2024);
  long long cpuSum = 0;
  for (int i = 0; i < n; ++i) {
    h_in[i] = (rand() & 0xff) - 100;
    cpuSum += h_in[i];
  }

  int *d_in, *d_out;
  unsigned long long *d_total;
  int blocks0 = (n + threads - 1) / threads;
  checkCudaErrors(cudaMalloc(&d_in, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_out, blocks0 * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_total, sizeof(unsigned long long)));
  checkCudaErrors(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
  int *h_out = (int *)malloc(blocks0 * sizeof(int));

  reduce0<<<blocks0, threads, threads * sizeof(int)>>>(d_in, d_out, n);
  getLastCudaError("reduce0 failed");
  checkCudaErrors(cudaMemcpy(h_out, d_out, blocks0 * sizeof(int), cudaMemcpyDeviceToHost));
  long long sum0 = sumBlocks(h_out, blocks0);

  int blocks4 = (n + threads * 2 - 1) / (threads * 2);
  reduce4<<<blocks4, threads, threads * sizeof(int)>>>(d_in, d_out, n);
  getLastCudaError("reduce4 failed");
  checkCudaErrors(cudaMemcpy(h_out, d_out, blocks4 * sizeof(int), cudaMemcpyDeviceToHost));
  long long sum4 = sumBlocks(h_out, blocks4);

  int minGridSize = 0, blockSize = 0;
  checkCudaErrors(cudaOccupancyMaxPotentialBlockSize(&minGridSize, &blockSize, reduceAtomic, 0, 0));
  int ok = blockSize > 0 && blockSize % 32 == 0 && minGridSize > 0;
  checkCudaErrors(cudaMemset(d_total, 0, sizeof(unsigned long long)));
  reduceAtomic<<<minGridSize, blockSize>>>(d_in, d_total, n);
  getLastCudaError("reduceAtomic failed");
  unsigned long long total = 0;
  checkCudaErrors(cudaMemcpy(&total, d_total, sizeof(total), cudaMemcpyDeviceToHost));
  long long sumA = (long long)total;

  printf("n = %d\n", n);
  printf("CPU sum        = %lld\n", cpuSum);
  printf("reduce0 sum    = %lld (%d blocks)\n", sum0, blocks0);
  printf("reduce4 sum    = %lld (%d blocks)\n", sum4, blocks4);
  printf("atomic sum     = %lld (occupancy-sized launch %s)\n", sumA, ok ? "ok" : "bad");
  int pass = ok && sum0 == cpuSum && sum4 == cpuSum && sumA == cpuSum;
  printf("%s\n", pass ? "PASSED" : "FAILED");

  checkCudaErrors(cudaFree(d_in));
  checkCudaErrors(cudaFree(d_out));
  checkCudaErrors(cudaFree(d_total));
  free(h_in);
  free(h_out);
  return pass ? EXIT_SUCCESS : EXIT_FAILURE;
}
