#include "registry.h"
#include <cuda_runtime.h>

int main() {
  const int n = 1000;
  float *f;
  int *k;
  cudaMallocManaged(&f, n * sizeof(float));
  cudaMallocManaged(&k, n * sizeof(int));
  for (int i = 0; i < n; ++i) {
    f[i] = 0.5f * i;
    k[i] = i;
  }
  Registry<float>::scale = 0.5f; // this file's use and scale.cu's are one variable
  scaleFloats(f, n);
  scaleFloats(f, n);
  scaleInts(k, n);
  cudaDeviceSynchronize();
  bool ok = true;
  for (int i = 0; i < n; ++i)
    ok = ok && f[i] == 0.125f * i && k[i] == 3 * i;
  printf("%s launches %d, %s launches %d\n", Registry<float>::name, Registry<float>::launches,
         Registry<int>::name, Registry<int>::launches);
  printf("f[999] = %g, k[999] = %d\n", f[999], k[999]);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  cudaFree(f);
  cudaFree(k);
  return ok ? 0 : 1;
}
