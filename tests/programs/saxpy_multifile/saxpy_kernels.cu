// The SAXPY kernel and its launcher.
#include <stdio.h>

#include <helper_cuda.h>

#include "saxpy.cuh"

int g_launches = 0;
__device__ unsigned int d_elementsTouched = 0;

// This file's own helper; main.cpp has another of the same name.
static const char *describe(void) { return "saxpy kernel"; }

__global__ void saxpy(float a, const float *__restrict__ x, float *__restrict__ y, int n) {
  unsigned int mine = 0;
  for (int i = gridStrideStart(); i < n; i += blockDim.x * gridDim.x) {
    y[i] = saxpyOp(a, x[i], y[i]);
    mine++;
  }
  atomicAdd(&d_elementsTouched, mine);
}

void launchSaxpy(float a, const float *d_x, float *d_y, int n, int blocks) {
  saxpy<<<blocks, SAXPY_BLOCK>>>(a, d_x, d_y, n);
  getLastCudaError(describe());
  g_launches++;
}
