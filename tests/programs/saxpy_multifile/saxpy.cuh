// Declarations shared by the SAXPY program's files: device helpers, the launchers the host file
// calls, and the counters the files share.
#ifndef SAXPY_CUH
#define SAXPY_CUH

#include <cuda_runtime.h>

#define SAXPY_BLOCK 128

// Grid-stride loop bounds, used by both kernels.
__host__ __device__ inline int gridStrideStart(void) {
#ifdef __CUDA_ARCH__
  return blockIdx.x * blockDim.x + threadIdx.x;
#else
  return 0;
#endif
}

__device__ inline float saxpyOp(float a, float x, float y) { return a * x + y; }

// Defined in saxpy_kernels.cu.
extern int g_launches;
extern __device__ unsigned int d_elementsTouched;

void launchSaxpy(float a, const float *d_x, float *d_y, int n, int blocks);
// Defined in stats_kernels.cu.
unsigned int readElementsTouched(void);
void launchCountPositive(const float *d_y, int n, int *d_count);

#endif
