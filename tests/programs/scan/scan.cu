// Exclusive prefix sum (scan) of a large array: a work-efficient (up-sweep / down-sweep) scan of
// each block's chunk in dynamic shared memory, a scan of the block sums, and a uniform add.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

// Scans 2 * blockDim.x elements per block; writes the block's total to sums (if not NULL).
__global__ void prescan(unsigned int *out, const unsigned int *in, unsigned int *sums, int n) {
  extern __shared__ unsigned int temp[];
  int thid = threadIdx.x;
  int blockOffset = blockIdx.x * blockDim.x * 2;
  int m = blockDim.x * 2;

  int ai = thid, bi = thid + blockDim.x;
  int bankOffsetA = CONFLICT_FREE_OFFSET(ai);
  int bankOffsetB = CONFLICT_FREE_OFFSET(bi);
  temp[ai + bankOffsetA] = (blockOffset + ai < n) ? in[blockOffset + ai] : 0;
  temp[bi + bankOffsetB] = (blockOffset + bi < n) ? in[blockOffset + bi] : 0;

  int offset = 1;
  for (int d = m >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int a = offset * (2 * thid + 1) - 1;
      int b = offset * (2 * thid + 2) - 1;
      a += CONFLICT_FREE_OFFSET(a);
      b += CONFLICT_FREE_OFFSET(b);
      temp[b] += temp[a];
    }
    offset *= 2;
  }

  if (thid == 0) {
    int last = m - 1 + CONFLICT_FREE_OFFSET(m - 1);
    if (sums)
      sums[blockIdx.x] = temp[last];
    temp[last] = 0;
  }

  for (int d = 1; d < m; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int a = offset * (2 * thid + 1) - 1;
      int b = offset * (2 * thid + 2) - 1;
      a += CONFLICT_FREE_OFFSET(a);
      b += CONFLICT_FREE_OFFSET(b);
      unsigned int t = temp[a];
      temp[a] = temp[b];
      temp[b] += t;
    }
  }
  __syncthreads();

  if (blockOffset + ai < n)
    out[blockOffset + ai] = temp[ai + bankOffsetA];
  if (blockOffset + bi < n)
    out[blockOffset + bi] = temp[bi + bankOffsetB];
}

__global__ void uniformAdd(unsigned int *data, const unsigned int *incr, int n) {
  __shared__ unsigned int value;
  if (threadIdx.x == 0)
    value = incr[blockIdx.x];
  __syncthreads();
  int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  if (i < n)
    data[i] += value;
  if (i + blockDim.x < n)
    data[i + blockDim.x] += value;
}

static size_t sharedBytes(int threads) {
  int m = 2 * threads;
  return (m + CONFLICT_FREE_OFFSET(m - 1)) * sizeof(unsigned int);
}

int main(void) {
  const int n = 100000;
  const int threads = 128;
  const int perBlock = 2 * threads;
  int blocks = (n + perBlock - 1) / perBlock; // 391: one level of block sums fits one block
  if (blocks > 2 * 512) {
    printf("too many blocks\n");
    return EXIT_FAILURE;
  }

  unsigned int *h_in = (unsigned int *)malloc(n * sizeof(unsigned int));
  unsigned int *h_out = (unsigned int *)malloc(n * sizeof(unsigned int));
  for (int i = 0; i < n; ++i)
    h_in[i] = (i * 13 + 7) % 17;

  unsigned int *d_in, *d_out, *d_sums, *d_sumsScanned;
  checkCudaErrors(cudaMalloc(&d_in, n * sizeof(unsigned int)));
  checkCudaErrors(cudaMalloc(&d_out, n * sizeof(unsigned int)));
  checkCudaErrors(cudaMalloc(&d_sums, blocks * sizeof(unsigned int)));
  checkCudaErrors(cudaMalloc(&d_sumsScanned, blocks * sizeof(unsigned int)));
  checkCudaErrors(cudaMemcpy(d_in, h_in, n * sizeof(unsigned int), cudaMemcpyHostToDevice));

  prescan<<<blocks, threads, sharedBytes(threads)>>>(d_out, d_in, d_sums, n);
  getLastCudaError("prescan (level 0) failed");
  int sumThreads = 512;
  prescan<<<1, sumThreads, sharedBytes(sumThreads)>>>(d_sumsScanned, d_sums, NULL, blocks);
  getLastCudaError("prescan (block sums) failed");
  uniformAdd<<<blocks, threads>>>(d_out, d_sumsScanned, n);
  getLastCudaError("uniformAdd failed");
  checkCudaErrors(cudaMemcpy(h_out, d_out, n * sizeof(unsigned int), cudaMemcpyDeviceToHost));

  unsigned int running = 0;
  int errors = 0;
  for (int i = 0; i < n; ++i) {
    if (h_out[i] != running) {
      if (errors < 5)
        printf("mismatch at %d: %u != %u\n", i, h_out[i], running);
      errors++;
    }
    running += h_in[i];
  }
  printf("scan of %d elements in %d blocks\n", n, blocks);
  printf("out[1] = %u, out[%d] = %u, out[%d] = %u, total = %u\n", h_out[1], n / 2, h_out[n / 2],
         n - 1, h_out[n - 1], running);
  printf("%s\n", errors == 0 ? "PASSED" : "FAILED");

  checkCudaErrors(cudaFree(d_in));
  checkCudaErrors(cudaFree(d_out));
  checkCudaErrors(cudaFree(d_sums));
  checkCudaErrors(cudaFree(d_sumsScanned));
  free(h_in);
  free(h_out);
  return errors == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
