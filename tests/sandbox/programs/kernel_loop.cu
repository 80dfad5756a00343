// A kernel that never ends.
#include <cstdio>

__global__ void forever(volatile int *flag) {
  while (*flag == 0) {
  }
}

int main() {
  int *d = nullptr;
  cudaMalloc(&d, sizeof(int));
  cudaMemset(d, 0, sizeof(int));
  forever<<<1, 32>>>(d);
  cudaDeviceSynchronize();
  printf("never\n");
  return 0;
}
