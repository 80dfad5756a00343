// Host side of the SAXPY program: data, launches through the kernel files' launchers, check.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#include "saxpy.cuh"

// Not the one in saxpy_kernels.cu: static names belong to their file.
static const char *describe(void) { return "host driver"; }

int main(int argc, char **argv) {
  const int n = 10000;
  const float a = 2.0f;
  size_t bytes = n * sizeof(float);
  float *x = (float *)malloc(bytes);
  float *y = (float *)malloc(bytes);
  float *ref = (float *)malloc(bytes);
  for (int i = 0; i < n; ++i) {
    x[i] = (float)(i % 37) - 18.0f;
    y[i] = (float)(i % 11);
    ref[i] = y[i];
  }

  float *d_x, *d_y;
  int *d_count;
  checkCudaErrors(cudaMalloc(&d_x, bytes));
  checkCudaErrors(cudaMalloc(&d_y, bytes));
  checkCudaErrors(cudaMalloc(&d_count, sizeof(int)));
  checkCudaErrors(cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(d_count, 0, sizeof(int)));

  // Two passes with different grids: y = a*x + (a*x + y).
  launchSaxpy(a, d_x, d_y, n, (n + SAXPY_BLOCK - 1) / SAXPY_BLOCK);
  launchSaxpy(a, d_x, d_y, n, 16);
  launchCountPositive(d_y, n, d_count);
  checkCudaErrors(cudaDeviceSynchronize());

  int positive = 0;
  checkCudaErrors(cudaMemcpy(y, d_y, bytes, cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(&positive, d_count, sizeof(int), cudaMemcpyDeviceToHost));

  int errors = 0, refPositive = 0;
  long long sum = 0;
  for (int i = 0; i < n; ++i) {
    ref[i] = a * x[i] + ref[i];
    ref[i] = a * x[i] + ref[i];
    if (ref[i] != y[i])
      errors++;
    if (ref[i] > 0.0f)
      refPositive++;
    sum += (long long)y[i];
  }
  printf("%s: %d launches, %u elements touched\n", describe(), g_launches, readElementsTouched());
  printf("sum(y) = %lld, positive = %d (reference %d)\n", sum, positive, refPositive);
  printf("%s\n", (errors == 0 && positive == refPositive) ? "PASSED" : "FAILED");

  checkCudaErrors(cudaFree(d_x));
  checkCudaErrors(cudaFree(d_y));
  checkCudaErrors(cudaFree(d_count));
  free(x);
  free(y);
  free(ref);
  return errors == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
