// Bitonic sort of key/value pairs: each block sorts SHARED_SIZE_LIMIT elements in shared
// memory, then global merge steps and shared-memory merges finish the sort. The array length
// is a power of two; the direction comes from the command line (-dir=0 descending, 1 ascending).
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define SHARED_SIZE_LIMIT 1024U

__device__ inline void compareExchange(unsigned int *keyA, unsigned int *valA, unsigned int *keyB,
                                       unsigned int *valB, unsigned int dir) {
  unsigned int t;
  if ((*keyA > *keyB) == dir) {
    t = *keyA;
    *keyA = *keyB;
    *keyB = t;
    t = *valA;
    *valA = *valB;
    *valB = t;
  }
}

__global__ void bitonicSortShared(unsigned int *d_DstKey, unsigned int *d_DstVal,
                                  const unsigned int *d_SrcKey, const unsigned int *d_SrcVal,
                                  unsigned int dir) {
  __shared__ unsigned int s_key[SHARED_SIZE_LIMIT];
  __shared__ unsigned int s_val[SHARED_SIZE_LIMIT];
  unsigned int base = blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  s_key[threadIdx.x] = d_SrcKey[base];
  s_val[threadIdx.x] = d_SrcVal[base];
  s_key[threadIdx.x + SHARED_SIZE_LIMIT / 2] = d_SrcKey[base + SHARED_SIZE_LIMIT / 2];
  s_val[threadIdx.x + SHARED_SIZE_LIMIT / 2] = d_SrcVal[base + SHARED_SIZE_LIMIT / 2];

  for (unsigned int size = 2; size < SHARED_SIZE_LIMIT; size <<= 1) {
    // Alternate directions so that pairs of blocks form bitonic sequences for the merge.
    unsigned int ddd = (blockIdx.x & 1) ^ ((threadIdx.x & (size / 2)) != 0);
    for (unsigned int stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      unsigned int pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      compareExchange(&s_key[pos], &s_val[pos], &s_key[pos + stride], &s_val[pos + stride], ddd);
    }
  }
  unsigned int ddd = blockIdx.x & 1;
  for (unsigned int stride = SHARED_SIZE_LIMIT / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    unsigned int pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    compareExchange(&s_key[pos], &s_val[pos], &s_key[pos + stride], &s_val[pos + stride], ddd);
  }
  __syncthreads();
  d_DstKey[base] = s_key[threadIdx.x];
  d_DstVal[base] = s_val[threadIdx.x];
  d_DstKey[base + SHARED_SIZE_LIMIT / 2] = s_key[threadIdx.x + SHARED_SIZE_LIMIT / 2];
  d_DstVal[base + SHARED_SIZE_LIMIT / 2] = s_val[threadIdx.x + SHARED_SIZE_LIMIT / 2];
}

// One global merge step for strides too large for shared memory.
__global__ void bitonicMergeGlobal(unsigned int *key, unsigned int *val, unsigned int arrayLength,
                                   unsigned int size, unsigned int stride, unsigned int dir) {
  unsigned int global_comparatorI = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int comparatorI = global_comparatorI & (arrayLength / 2 - 1);
  unsigned int ddd = dir ^ ((comparatorI & (size / 2)) != 0);
  unsigned int pos = 2 * global_comparatorI - (global_comparatorI & (stride - 1));
  unsigned int keyA = key[pos], valA = val[pos];
  unsigned int keyB = key[pos + stride], valB = val[pos + stride];
  compareExchange(&keyA, &valA, &keyB, &valB, ddd);
  key[pos] = keyA;
  val[pos] = valA;
  key[pos + stride] = keyB;
  val[pos + stride] = valB;
}

// The merge steps with stride < SHARED_SIZE_LIMIT, in shared memory.
__global__ void bitonicMergeShared(unsigned int *key, unsigned int *val, unsigned int arrayLength,
                                   unsigned int size, unsigned int dir) {
  __shared__ unsigned int s_key[SHARED_SIZE_LIMIT];
  __shared__ unsigned int s_val[SHARED_SIZE_LIMIT];
  unsigned int base = blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  s_key[threadIdx.x] = key[base];
  s_val[threadIdx.x] = val[base];
  s_key[threadIdx.x + SHARED_SIZE_LIMIT / 2] = key[base + SHARED_SIZE_LIMIT / 2];
  s_val[threadIdx.x + SHARED_SIZE_LIMIT / 2] = val[base + SHARED_SIZE_LIMIT / 2];

  unsigned int comparatorI = (blockIdx.x * blockDim.x + threadIdx.x) & ((arrayLength / 2) - 1);
  unsigned int ddd = dir ^ ((comparatorI & (size / 2)) != 0);
  for (unsigned int stride = SHARED_SIZE_LIMIT / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    unsigned int pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    compareExchange(&s_key[pos], &s_val[pos], &s_key[pos + stride], &s_val[pos + stride], ddd);
  }
  __syncthreads();
  key[base] = s_key[threadIdx.x];
  val[base] = s_val[threadIdx.x];
  key[base + SHARED_SIZE_LIMIT / 2] = s_key[threadIdx.x + SHARED_SIZE_LIMIT / 2];
  val[base + SHARED_SIZE_LIMIT / 2] = s_val[threadIdx.x + SHARED_SIZE_LIMIT / 2];
}

static void bitonicSort(unsigned int *d_DstKey, unsigned int *d_DstVal, unsigned int *d_SrcKey,
                        unsigned int *d_SrcVal, unsigned int arrayLength, unsigned int dir) {
  unsigned int blockCount = arrayLength / SHARED_SIZE_LIMIT;
  unsigned int threadCount = SHARED_SIZE_LIMIT / 2;
  bitonicSortShared<<<blockCount, threadCount>>>(d_DstKey, d_DstVal, d_SrcKey, d_SrcVal, dir);
  getLastCudaError("bitonicSortShared failed");
  for (unsigned int size = 2 * SHARED_SIZE_LIMIT; size <= arrayLength; size <<= 1)
    for (unsigned int stride = size / 2; stride > 0; stride >>= 1)
      if (stride >= SHARED_SIZE_LIMIT) {
        bitonicMergeGlobal<<<(arrayLength / 2) / 256, 256>>>(d_DstKey, d_DstVal, arrayLength, size,
                                                             stride, dir);
        getLastCudaError("bitonicMergeGlobal failed");
      } else {
        bitonicMergeShared<<<blockCount, threadCount>>>(d_DstKey, d_DstVal, arrayLength, size, dir);
        getLastCudaError("bitonicMergeShared failed");
        break;
      }
}

int main(int argc, char **argv) {
  unsigned int dir = 1;
  if (checkCmdLineFlag(argc, (const char **)argv, "dir"))
    dir = getCmdLineArgumentInt(argc, (const char **)argv, "dir") ? 1 : 0;
  const unsigned int N = 8192;
  unsigned int *h_key = (unsigned int *)malloc(N * sizeof(unsigned int));
  unsigned int *h_val = (unsigned int *)malloc(N * sizeof(unsigned int));
  unsigned int *h_outKey = (unsigned int *)malloc(N * sizeof(unsigned int));
  unsigned int *h_outVal = (unsigned int *)malloc(N * sizeof(unsigned int));
  srand(7);
  for (unsigned int i = 0; i < N; ++i) {
    h_key[i] = rand() % 100000;
    h_val[i] = i;
  }

  unsigned int *d_key, *d_val, *d_outKey, *d_outVal;
  checkCudaErrors(cudaMalloc(&d_key, N * sizeof(unsigned int)));
  checkCudaErrors(cudaMalloc(&d_val, N * sizeof(unsigned int)));
  checkCudaErrors(cudaMalloc(&d_outKey, N * sizeof(unsigned int)));
  checkCudaErrors(cudaMalloc(&d_outVal, N * sizeof(unsigned int)));
  checkCudaErrors(cudaMemcpy(d_key, h_key, N * sizeof(unsigned int), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_val, h_val, N * sizeof(unsigned int), cudaMemcpyHostToDevice));

  printf("Sorting %u keys, %s\n", N, dir ? "ascending" : "descending");
  bitonicSort(d_outKey, d_outVal, d_key, d_val, N, dir);
  checkCudaErrors(cudaDeviceSynchronize());
  checkCudaErrors(cudaMemcpy(h_outKey, d_outKey, N * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(h_outVal, d_outVal, N * sizeof(unsigned int), cudaMemcpyDeviceToHost));

  // Sorted in the right direction, and every value still carries its own key.
  int ordered = 1, paired = 1;
  unsigned int *seen = (unsigned int *)calloc(N, sizeof(unsigned int));
  for (unsigned int i = 0; i < N; ++i) {
    if (i > 0 && (dir ? h_outKey[i - 1] > h_outKey[i] : h_outKey[i - 1] < h_outKey[i]))
      ordered = 0;
    if (h_outVal[i] >= N || h_key[h_outVal[i]] != h_outKey[i] || seen[h_outVal[i]]++)
      paired = 0;
  }
  printf("first %u, middle %u, last %u\n", h_outKey[0], h_outKey[N / 2], h_outKey[N - 1]);
  printf("ordered: %s, key/value pairs intact: %s\n", ordered ? "yes" : "no",
         paired ? "yes" : "no");
  printf("%s\n", ordered && paired ? "PASSED" : "FAILED");

  checkCudaErrors(cudaFree(d_key));
  checkCudaErrors(cudaFree(d_val));
  checkCudaErrors(cudaFree(d_outKey));
  checkCudaErrors(cudaFree(d_outVal));
  free(h_key);
  free(h_val);
  free(h_outKey);
  free(h_outVal);
  free(seen);
  return ordered && paired ? EXIT_SUCCESS : EXIT_FAILURE;
}
