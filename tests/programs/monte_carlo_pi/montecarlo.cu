// Monte Carlo estimate of pi: every thread draws points in the unit square with its own integer
// linear congruential generator and counts those inside the quarter circle, in integers only.
// The generator's parameters live in __constant__ memory (cudaMemcpyToSymbol); per-block counts
// are reduced in shared memory; the CPU draws the same points and must count the same.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define THREADS 128
#define BLOCKS 48
#define SAMPLES_PER_THREAD 200
#define COORD_BITS 15

typedef struct {
  unsigned int multiplier;
  unsigned int increment;
  unsigned int seedBase;
  unsigned int seedStride;
} LcgParams;

__constant__ LcgParams c_lcg;
__constant__ int c_samples;

__host__ __device__ inline unsigned int lcgNext(unsigned int state, unsigned int a,
                                                unsigned int c) {
  return a * state + c;
}

__global__ void countInside(unsigned int *blockCounts) {
  __shared__ unsigned int counts[THREADS];
  unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int state = c_lcg.seedBase + tid * c_lcg.seedStride;
  unsigned int inside = 0;
  for (int s = 0; s < c_samples; ++s) {
    state = lcgNext(state, c_lcg.multiplier, c_lcg.increment);
    unsigned int x = state >> (32 - COORD_BITS);
    state = lcgNext(state, c_lcg.multiplier, c_lcg.increment);
    unsigned int y = state >> (32 - COORD_BITS);
    if (x * x + y * y < (1u << (2 * COORD_BITS)))
      inside++;
  }
  counts[threadIdx.x] = inside;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride)
      counts[threadIdx.x] += counts[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    blockCounts[blockIdx.x] = counts[0];
}

int main(void) {
  LcgParams params;
  params.multiplier = 1664525u;
  params.increment = 1013904223u;
  params.seedBase = 20240601u;
  params.seedStride = 2654435761u;
  int samples = SAMPLES_PER_THREAD;
  checkCudaErrors(cudaMemcpyToSymbol(c_lcg, &params, sizeof(LcgParams)));
  checkCudaErrors(cudaMemcpyToSymbol(c_samples, &samples, sizeof(int)));

  unsigned int *d_counts;
  checkCudaErrors(cudaMalloc(&d_counts, BLOCKS * sizeof(unsigned int)));
  countInside<<<BLOCKS, THREADS>>>(d_counts);
  getLastCudaError("countInside failed");
  unsigned int h_counts[BLOCKS];
  checkCudaErrors(cudaMemcpy(h_counts, d_counts, sizeof(h_counts), cudaMemcpyDeviceToHost));

  unsigned long long gpuInside = 0;
  for (int b = 0; b < BLOCKS; ++b)
    gpuInside += h_counts[b];

  // The same draws on the CPU.
  unsigned long long cpuInside = 0;
  for (unsigned int tid = 0; tid < BLOCKS * THREADS; ++tid) {
    unsigned int state = params.seedBase + tid * params.seedStride;
    for (int s = 0; s < samples; ++s) {
      state = lcgNext(state, params.multiplier, params.increment);
      unsigned int x = state >> (32 - COORD_BITS);
      state = lcgNext(state, params.multiplier, params.increment);
      unsigned int y = state >> (32 - COORD_BITS);
      if (x * x + y * y < (1u << (2 * COORD_BITS)))
        cpuInside++;
    }
  }

  unsigned long long total = (unsigned long long)BLOCKS * THREADS * samples;
  printf("%llu samples, %llu inside (CPU %llu)\n", total, gpuInside, cpuInside);
  printf("pi ~= %.4f\n", 4.0 * (double)gpuInside / (double)total);
  printf("%s\n", gpuInside == cpuInside ? "PASSED" : "FAILED");
  checkCudaErrors(cudaFree(d_counts));
  return gpuInside == cpuInside ? EXIT_SUCCESS : EXIT_FAILURE;
}
