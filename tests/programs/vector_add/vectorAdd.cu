// Vector addition C = A + B, the first program of every CUDA course: error checks from
// helper_cuda.h, device selection, and a CPU check of every element.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;

  if (i < numElements) {
    C[i] = A[i] + B[i] + 0.0f;
  }
}

int main(int argc, char **argv) {
  int devID = findCudaDevice(argc, (const char **)argv);
  printf("[Vector addition of %d elements] on device %d\n", 50000, devID);

  int numElements = 50000;
  size_t size = numElements * sizeof(float);

  float *h_A = (float *)malloc(size);
  float *h_B = (float *)malloc(size);
  float *h_C = (float *)malloc(size);
  if (h_A == NULL || h_B == NULL || h_C == NULL) {
    fprintf(stderr, "Failed to allocate host vectors!\n");
    exit(EXIT_FAILURE);
  }

  // Values in quarters: every sum is exact.
  for (int i = 0; i < numElements; ++i) {
    h_A[i] = (float)(i % 1000) * 0.25f;
    h_B[i] = (float)((i * 7) % 500) * 0.5f;
  }

  float *d_A = NULL, *d_B = NULL, *d_C = NULL;
  checkCudaErrors(cudaMalloc((void **)&d_A, size));
  checkCudaErrors(cudaMalloc((void **)&d_B, size));
  checkCudaErrors(cudaMalloc((void **)&d_C, size));

  printf("Copy input data from the host memory to the CUDA device\n");
  checkCudaErrors(cudaMemcpy(d_A, h_A, size, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_B, h_B, size, cudaMemcpyHostToDevice));

  int threadsPerBlock = 256;
  int blocksPerGrid = (numElements + threadsPerBlock - 1) / threadsPerBlock;
  printf("CUDA kernel launch with %d blocks of %d threads\n", blocksPerGrid, threadsPerBlock);
  vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, numElements);
  getLastCudaError("vectorAdd kernel failed");

  printf("Copy output data from the CUDA device to the host memory\n");
  checkCudaErrors(cudaMemcpy(h_C, d_C, size, cudaMemcpyDeviceToHost));

  double total = 0.0;
  for (int i = 0; i < numElements; ++i) {
    if (h_C[i] != h_A[i] + h_B[i]) {
      fprintf(stderr, "Result verification failed at element %d!\n", i);
      exit(EXIT_FAILURE);
    }
    total += h_C[i];
  }
  printf("Sum of C = %.2f\n", total);
  printf("Test PASSED\n");

  checkCudaErrors(cudaFree(d_A));
  checkCudaErrors(cudaFree(d_B));
  checkCudaErrors(cudaFree(d_C));
  free(h_A);
  free(h_B);
  free(h_C);
  printf("Done\n");
  return 0;
}
