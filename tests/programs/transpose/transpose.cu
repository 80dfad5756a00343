// Matrix transpose: a naive kernel, a shared-memory tile, and a tile padded by one column so
// the column reads hit distinct banks. TILE_DIM x BLOCK_ROWS threads move a TILE_DIM^2 tile.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeNaive(float *odata, const float *idata, int width, int height) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height)
      odata[x * height + (y + j)] = idata[(y + j) * width + x];
}

__global__ void transposeCoalesced(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height)
      tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width)
      odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transposeNoBankConflicts(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height)
      tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width)
      odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

static int check(const float *gold, const float *result, int count, const char *name) {
  int bad = 0;
  for (int i = 0; i < count; ++i)
    if (gold[i] != result[i])
      bad++;
  printf("%-28s %s\n", name, bad == 0 ? "PASSED" : "FAILED");
  return bad;
}

int main(void) {
  // Not multiples of the tile: the edge tiles are partial.
  const int width = 200, height = 136;
  const int count = width * height;
  size_t bytes = count * sizeof(float);
  float *h_idata = (float *)malloc(bytes);
  float *h_odata = (float *)malloc(bytes);
  float *gold = (float *)malloc(bytes);
  for (int i = 0; i < count; ++i)
    h_idata[i] = (float)i;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      gold[x * height + y] = h_idata[y * width + x];

  float *d_idata, *d_odata;
  checkCudaErrors(cudaMalloc(&d_idata, bytes));
  checkCudaErrors(cudaMalloc(&d_odata, bytes));
  checkCudaErrors(cudaMemcpy(d_idata, h_idata, bytes, cudaMemcpyHostToDevice));

  dim3 grid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM);
  dim3 threads(TILE_DIM, BLOCK_ROWS);
  printf("Matrix size: %dx%d, tile %dx%d, block %dx%d, grid %dx%d\n", width, height, TILE_DIM,
         TILE_DIM, TILE_DIM, BLOCK_ROWS, grid.x, grid.y);

  int bad = 0;
  checkCudaErrors(cudaMemset(d_odata, 0, bytes));
  transposeNaive<<<grid, threads>>>(d_odata, d_idata, width, height);
  getLastCudaError("transposeNaive failed");
  checkCudaErrors(cudaMemcpy(h_odata, d_odata, bytes, cudaMemcpyDeviceToHost));
  bad += check(gold, h_odata, count, "naive transpose");

  checkCudaErrors(cudaMemset(d_odata, 0, bytes));
  transposeCoalesced<<<grid, threads>>>(d_odata, d_idata, width, height);
  getLastCudaError("transposeCoalesced failed");
  checkCudaErrors(cudaMemcpy(h_odata, d_odata, bytes, cudaMemcpyDeviceToHost));
  bad += check(gold, h_odata, count, "coalesced transpose");

  checkCudaErrors(cudaMemset(d_odata, 0, bytes));
  transposeNoBankConflicts<<<grid, threads>>>(d_odata, d_idata, width, height);
  getLastCudaError("transposeNoBankConflicts failed");
  checkCudaErrors(cudaMemcpy(h_odata, d_odata, bytes, cudaMemcpyDeviceToHost));
  bad += check(gold, h_odata, count, "no-bank-conflict transpose");

  printf("out[1] = %.0f, out[%d] = %.0f\n", h_odata[1], count - 2, h_odata[count - 2]);
  printf("%s\n", bad == 0 ? "Test passed" : "Test failed");
  checkCudaErrors(cudaFree(d_idata));
  checkCudaErrors(cudaFree(d_odata));
  free(h_idata);
  free(h_odata);
  free(gold);
  return bad == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
