// The dot-product kernels' interface and the warp helpers they share.
#ifndef DOT_CUH
#define DOT_CUH

#include <cuda_runtime.h>

#define DOT_THREADS 256

__device__ inline long long warpSum(long long v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffff, v, offset);
  return v;
}

long long dotOnDevice(const int *d_a, const int *d_b, int n, int blocks);

#endif
