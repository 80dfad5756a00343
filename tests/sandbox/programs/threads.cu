// Host threads (pthreads) and kernel blocks on kern's worker threads work in the sandbox.
#include <cstdio>
#include <pthread.h>

__global__ void fill(int *a) { a[blockIdx.x * blockDim.x + threadIdx.x] = 1; }

static int partial[4];

static void *work(void *arg) {
  const int i = *(int *)arg;
  partial[i] = (i + 1) * 10;
  return nullptr;
}

int main() {
  pthread_t t[4];
  int ids[4];
  for (int i = 0; i < 4; ++i) {
    ids[i] = i;
    pthread_create(&t[i], nullptr, work, &ids[i]);
  }
  int sum = 0;
  for (int i = 0; i < 4; ++i) {
    pthread_join(t[i], nullptr);
    sum += partial[i];
  }
  int *d = nullptr;
  cudaMalloc(&d, 1024 * sizeof(int));
  fill<<<8, 128>>>(d);
  int h[1024];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  int ones = 0;
  for (int i = 0; i < 1024; ++i)
    ones += h[i];
  printf("threads %d, blocks %d\n", sum, ones);
  return 0;
}
