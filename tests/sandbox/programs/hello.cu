// Output on both streams, a kernel, the environment and an exit code of its own.
#include <cstdio>
#include <cstdlib>

__global__ void twice(int *a) { a[threadIdx.x] = 2 * threadIdx.x; }

int main() {
  int *d = nullptr;
  cudaMalloc(&d, 32 * sizeof(int));
  twice<<<1, 32>>>(d);
  int h[32];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("one: h[5] = %d\n", h[5]);
  fflush(stdout);
  fprintf(stderr, "two: on stderr\n");
  printf("three: HOME is %s\n", getenv("HOME") ? "set" : "not set");
  return 7;
}
