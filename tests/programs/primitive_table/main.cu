// Reads a table that another file defines (declared `extern const Primitive primitives[];`),
// weighs its entries on the device, and reports CUDA errors by throwing: the helper throws a
// std::runtime_error that main catches, as C++ programs built around CUDA do.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "table.h"

__global__ void weigh(const unsigned int *keys, unsigned int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = keys[i] * keys[i] + 1;
}

void check(cudaError_t status, const char *what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

unsigned int weighTable() {
  unsigned int *keys = new unsigned int[primitiveCount];
  for (int i = 0; i < primitiveCount; ++i)
    keys[i] = primitives[i].degree * 16 + primitives[i].m[primitives[i].degree - 1];
  unsigned int *dKeys, *dOut;
  size_t bytes = primitiveCount * sizeof(unsigned int);
  check(cudaMalloc(&dKeys, bytes), "cudaMalloc keys");
  check(cudaMalloc(&dOut, bytes), "cudaMalloc weights");
  check(cudaMemcpy(dKeys, keys, bytes, cudaMemcpyHostToDevice), "copy in");
  weigh<<<1, 32>>>(dKeys, dOut, primitiveCount);
  check(cudaGetLastError(), "launch");
  check(cudaMemcpy(keys, dOut, bytes, cudaMemcpyDeviceToHost), "copy out");
  unsigned int sum = 0;
  for (int i = 0; i < primitiveCount; ++i)
    sum += keys[i];
  check(cudaFree(dKeys), "cudaFree");
  check(cudaFree(dOut), "cudaFree");
  delete[] keys;
  return sum;
}

int main() {
  printf("%d primitives, the last of degree %u\n", primitiveCount,
         primitives[primitiveCount - 1].degree);
  try {
    unsigned int sum = weighTable();
    printf("sum of weights %u\n", sum);
    void *huge = 0;
    check(cudaMalloc(&huge, (size_t)1 << 60), "cudaMalloc huge");
    printf("not reached\n");
  } catch (const std::exception &e) {
    printf("caught: %s\n", e.what());
  }
  cudaGetLastError(); // the failed allocation's error is not sticky
  printf("PASSED\n");
  return 0;
}
