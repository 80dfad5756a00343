// Byte histogram with per-block sub-histograms in shared memory (shared atomics), merged into
// the global histogram with global atomics. Options parsed by hand from argv:
//   -n COUNT      number of input bytes
//   -bins B       number of bins (a divisor of 256, at most 256)
//   -v            print every non-empty bin
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define MAX_BINS 256

__global__ void histogramShared(const unsigned char *data, int n, unsigned int *hist, int bins) {
  __shared__ unsigned int local[MAX_BINS];
  for (int b = threadIdx.x; b < bins; b += blockDim.x)
    local[b] = 0;
  __syncthreads();

  int shift = 256 / bins;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(&local[data[i] / shift], 1u);
  }
  __syncthreads();

  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    if (local[b] > 0)
      atomicAdd(&hist[b], local[b]);
  }
}

static void usage(const char *prog) { printf("usage: %s [-n COUNT] [-bins B] [-v]\n", prog); }

int main(int argc, char **argv) {
  int n = 1 << 16;
  int bins = 256;
  int verbose = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
      n = atoi(argv[++i]);
    } else if (strcmp(argv[i], "-bins") == 0 && i + 1 < argc) {
      bins = atoi(argv[++i]);
    } else if (strcmp(argv[i], "-v") == 0) {
      verbose = 1;
    } else {
      usage(argv[0]);
      return EXIT_FAILURE;
    }
  }
  if (bins <= 0 || bins > MAX_BINS || 256 % bins != 0 || n <= 0) {
    usage(argv[0]);
    return EXIT_FAILURE;
  }
  printf("histogram of %d bytes into %d bins\n", n, bins);

  unsigned char *h_data = (unsigned char *)malloc(n);
  // A skewed distribution: a simple LCG, folded so low values are more frequent.
  unsigned int state = 12345u;
  for (int i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    unsigned int a = (state >> 24) & 0xff, b = (state >> 16) & 0xff;
    h_data[i] = (unsigned char)(a < b ? a : b);
  }

  unsigned char *d_data;
  unsigned int *d_hist;
  checkCudaErrors(cudaMalloc(&d_data, n));
  checkCudaErrors(cudaMalloc(&d_hist, bins * sizeof(unsigned int)));
  checkCudaErrors(cudaMemcpy(d_data, h_data, n, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(d_hist, 0, bins * sizeof(unsigned int)));

  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, 0));
  int blocks = prop.multiProcessorCount * 2;
  histogramShared<<<blocks, 256>>>(d_data, n, d_hist, bins);
  getLastCudaError("histogramShared failed");

  unsigned int *h_hist = (unsigned int *)malloc(bins * sizeof(unsigned int));
  unsigned int *ref = (unsigned int *)calloc(bins, sizeof(unsigned int));
  checkCudaErrors(cudaMemcpy(h_hist, d_hist, bins * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    ref[h_data[i] / (256 / bins)]++;

  int mismatches = 0;
  unsigned int total = 0, maxCount = 0;
  int maxBin = 0;
  for (int b = 0; b < bins; ++b) {
    if (h_hist[b] != ref[b])
      mismatches++;
    total += h_hist[b];
    if (h_hist[b] > maxCount) {
      maxCount = h_hist[b];
      maxBin = b;
    }
    if (verbose && h_hist[b] > 0)
      printf("  bin %3d: %u\n", b, h_hist[b]);
  }
  printf("total %u, fullest bin %d with %u, last bin %u\n", total, maxBin, maxCount,
         h_hist[bins - 1]);
  printf("%s\n", mismatches == 0 && total == (unsigned int)n ? "PASSED" : "FAILED");

  checkCudaErrors(cudaFree(d_data));
  checkCudaErrors(cudaFree(d_hist));
  free(h_data);
  free(h_hist);
  free(ref);
  return mismatches == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
