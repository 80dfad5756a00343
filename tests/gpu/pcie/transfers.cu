// Pageable and pinned cudaMemcpy throughput by size and direction, as the PCIe model of
// docs/devices.md was fitted: median of repeats timed with events; then pageable copies from a
// freshly allocated buffer. Build and run on the GPU machine: nvcc -O2 -arch=sm_90 transfers.cu
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
int main() {
  const size_t maxBytes = size_t(256) << 20;
  char *dev; cudaMalloc(&dev, maxBytes);
  char *pageable = (char *)malloc(maxBytes); memset(pageable, 1, maxBytes);
  char *pinned; cudaMallocHost(&pinned, maxBytes); memset(pinned, 1, maxBytes);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  cudaMemcpy(dev, pageable, maxBytes, cudaMemcpyHostToDevice);
  printf("kind dir bytes us_median GBps\n");
  for (int pin = 0; pin < 2; ++pin)
    for (int dir = 0; dir < 2; ++dir)
      for (size_t bytes = 4096; bytes <= maxBytes; bytes *= 4) {
        char *host = pin ? pinned : pageable;
        int reps = bytes >= (size_t(64) << 20) ? 5 : 15;
        std::vector<float> ms;
        for (int r = 0; r < reps; ++r) {
          cudaEventRecord(a);
          if (dir == 0) cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
          else cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
          cudaEventRecord(b); cudaEventSynchronize(b);
          float t; cudaEventElapsedTime(&t, a, b); ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        float med = ms[ms.size() / 2];
        printf("%s %s %zu %.2f %.2f\n", pin ? "pinned" : "pageable", dir ? "D2H" : "H2D", bytes,
               med * 1e3, bytes / (med * 1e-3) / 1e9);
      }
  // First-touch pageable: a fresh malloc each time (the pages are new to the driver).
  for (int dir = 0; dir < 2; ++dir)
    for (size_t bytes = size_t(1) << 20; bytes <= maxBytes; bytes *= 4) {
      std::vector<float> ms;
      for (int r = 0; r < 3; ++r) {
        char *fresh = (char *)malloc(bytes); memset(fresh, 2, bytes);
        cudaEventRecord(a);
        if (dir == 0) cudaMemcpy(dev, fresh, bytes, cudaMemcpyHostToDevice);
        else cudaMemcpy(fresh, dev, bytes, cudaMemcpyDeviceToHost);
        cudaEventRecord(b); cudaEventSynchronize(b);
        float t; cudaEventElapsedTime(&t, a, b); ms.push_back(t);
        free(fresh);
      }
      std::sort(ms.begin(), ms.end());
      printf("fresh %s %zu %.2f %.2f\n", dir ? "D2H" : "H2D", bytes, ms[1] * 1e3, bytes / (ms[1] * 1e-3) / 1e9);
    }
  return 0;
}
