// Host driver of the dot product: inputs and the reference from C code, the product on the GPU
// with grids of several sizes.
#include <stdio.h>
#include <stdlib.h>

#include <helper_cuda.h>

#include "dot.cuh"
#include "reference.h"

int main(int argc, char **argv) {
  const int n = 300000;
  int *a = (int *)malloc(n * sizeof(int));
  int *b = (int *)malloc(n * sizeof(int));
  fillVector(a, n, 17u);
  fillVector(b, n, 91u);

  int *d_a, *d_b;
  checkCudaErrors(cudaMalloc(&d_a, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_b, n * sizeof(int)));
  checkCudaErrors(cudaMemcpy(d_a, a, n * sizeof(int), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_b, b, n * sizeof(int), cudaMemcpyHostToDevice));

  long long expected = dotReference(a, b, n);
  int grids[3] = {1, 37, (n + DOT_THREADS - 1) / DOT_THREADS};
  int ok = 1;
  for (int g = 0; g < 3; ++g) {
    long long got = dotOnDevice(d_a, d_b, n, grids[g]);
    printf("grid %4d: dot = %lld\n", grids[g], got);
    if (got != expected)
      ok = 0;
  }
  printf("reference = %lld (%d call)\n", expected, referenceCalls);
  printf("%s\n", ok ? "PASSED" : "FAILED");

  checkCudaErrors(cudaFree(d_a));
  checkCudaErrors(cudaFree(d_b));
  free(a);
  free(b);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
