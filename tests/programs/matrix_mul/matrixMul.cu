// Tiled matrix multiplication C = A * B with shared memory, sizes from the command line
// (-wA=, -hA=, -wB=, as the samples take them) and an L2-norm check against the CPU.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>
#include <helper_functions.h>

#define BLOCK_SIZE 16

// Each block computes one BLOCK_SIZE x BLOCK_SIZE tile of C; the sizes are multiples of it.
__global__ void __launch_bounds__(BLOCK_SIZE *BLOCK_SIZE)
    matrixMulCUDA(float *C, const float *A, const float *B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;

  int aBegin = wA * BLOCK_SIZE * by;
  int aEnd = aBegin + wA - 1;
  int aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx;
  int bStep = BLOCK_SIZE * wB;

  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) {
      Csub += As[ty][k] * Bs[k][tx];
    }
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

static void matrixMulCPU(float *C, const float *A, const float *B, int hA, int wA, int wB) {
  for (int i = 0; i < hA; ++i)
    for (int j = 0; j < wB; ++j) {
      double sum = 0;
      for (int k = 0; k < wA; ++k)
        sum += (double)A[i * wA + k] * B[k * wB + j];
      C[i * wB + j] = (float)sum;
    }
}

// Small multiples of 1/4: every product and partial sum is exact in float.
static void fillMatrix(float *m, int size, int seed) {
  for (int i = 0; i < size; ++i)
    m[i] = (float)((i * seed + 3) % 9 - 4) * 0.25f;
}

int main(int argc, char **argv) {
  printf("[Matrix Multiply Using CUDA] - Starting...\n");
  if (checkCmdLineFlag(argc, (const char **)argv, "help") ||
      checkCmdLineFlag(argc, (const char **)argv, "?")) {
    printf("Usage -wA=WidthA -hA=HeightA (Height A) -wB=WidthB (Width B = Height A... )\n");
    exit(EXIT_SUCCESS);
  }
  int dev = findCudaDevice(argc, (const char **)argv);
  (void)dev;

  int wA = 5 * BLOCK_SIZE, hA = 5 * BLOCK_SIZE, wB = 5 * BLOCK_SIZE;
  if (checkCmdLineFlag(argc, (const char **)argv, "wA"))
    wA = getCmdLineArgumentInt(argc, (const char **)argv, "wA");
  if (checkCmdLineFlag(argc, (const char **)argv, "hA"))
    hA = getCmdLineArgumentInt(argc, (const char **)argv, "hA");
  if (checkCmdLineFlag(argc, (const char **)argv, "wB"))
    wB = getCmdLineArgumentInt(argc, (const char **)argv, "wB");
  if (wA % BLOCK_SIZE || hA % BLOCK_SIZE || wB % BLOCK_SIZE) {
    printf("Error: sizes must be multiples of %d\n", BLOCK_SIZE);
    exit(EXIT_FAILURE);
  }
  int hB = wA;
  printf("MatrixA(%d,%d), MatrixB(%d,%d)\n", wA, hA, wB, hB);

  unsigned int sizeA = wA * hA, sizeB = wB * hB, sizeC = wB * hA;
  float *h_A = (float *)malloc(sizeA * sizeof(float));
  float *h_B = (float *)malloc(sizeB * sizeof(float));
  float *h_C = (float *)malloc(sizeC * sizeof(float));
  float *reference = (float *)malloc(sizeC * sizeof(float));
  fillMatrix(h_A, sizeA, 5);
  fillMatrix(h_B, sizeB, 7);

  float *d_A, *d_B, *d_C;
  checkCudaErrors(cudaMalloc((void **)&d_A, sizeA * sizeof(float)));
  checkCudaErrors(cudaMalloc((void **)&d_B, sizeB * sizeof(float)));
  checkCudaErrors(cudaMalloc((void **)&d_C, sizeC * sizeof(float)));
  checkCudaErrors(cudaMemcpy(d_A, h_A, sizeA * sizeof(float), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_B, h_B, sizeB * sizeof(float), cudaMemcpyHostToDevice));

  dim3 threads(BLOCK_SIZE, BLOCK_SIZE);
  dim3 grid(wB / threads.x, hA / threads.y);
  printf("Computing result using CUDA Kernel...\n");
  int nIter = 3;
  for (int j = 0; j < nIter; j++) {
    matrixMulCUDA<<<grid, threads>>>(d_C, d_A, d_B, wA, wB);
  }
  getLastCudaError("matrixMulCUDA failed");
  checkCudaErrors(cudaDeviceSynchronize());
  printf("done\n");

  checkCudaErrors(cudaMemcpy(h_C, d_C, sizeC * sizeof(float), cudaMemcpyDeviceToHost));
  matrixMulCPU(reference, h_A, h_B, hA, wA, wB);

  printf("Checking computed result for correctness: ");
  bool correct = sdkCompareL2fe(reference, h_C, sizeC, 1.0e-6f);
  printf("%s\n", correct ? "Result = PASS" : "Result = FAIL");
  printf("C[0][0] = %.4f, C[%d][%d] = %.4f\n", h_C[0], hA - 1, wB - 1, h_C[sizeC - 1]);

  free(h_A);
  free(h_B);
  free(h_C);
  free(reference);
  checkCudaErrors(cudaFree(d_A));
  checkCudaErrors(cudaFree(d_B));
  checkCudaErrors(cudaFree(d_C));
  return correct ? EXIT_SUCCESS : EXIT_FAILURE;
}
