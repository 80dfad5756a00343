// 2D heat diffusion (Jacobi 5-point stencil) on a grid held in pitched device memory
// (cudaMallocPitch, cudaMemcpy2D). A hot top edge, cold elsewhere; a few steps, then the CPU
// runs the same steps and every cell must match. Quarters of small integers: the arithmetic is
// exact, so the sums print the same everywhere.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define NX 100
#define NY 70
#define STEPS 8
#define BX 16
#define BY 16

__global__ void jacobiStep(const float *in, size_t inPitch, float *out, size_t outPitch, int nx,
                           int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny)
    return;
  const float *row = (const float *)((const char *)in + y * inPitch);
  float *orow = (float *)((char *)out + y * outPitch);
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    orow[x] = row[x]; // fixed boundary
    return;
  }
  const float *up = (const float *)((const char *)in + (y - 1) * inPitch);
  const float *down = (const float *)((const char *)in + (y + 1) * inPitch);
  orow[x] = 0.25f * (up[x] + down[x] + row[x - 1] + row[x + 1]);
}

static void jacobiStepCPU(const float *in, float *out, int nx, int ny) {
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        out[y * nx + x] = in[y * nx + x];
      } else {
        out[y * nx + x] = 0.25f * (in[(y - 1) * nx + x] + in[(y + 1) * nx + x] +
                                   in[y * nx + x - 1] + in[y * nx + x + 1]);
      }
    }
}

int main(void) {
  size_t hostPitch = NX * sizeof(float);
  float *h_grid = (float *)calloc(NX * NY, sizeof(float));
  float *h_result = (float *)malloc(NX * NY * sizeof(float));
  float *h_tmp = (float *)malloc(NX * NY * sizeof(float));
  for (int x = 0; x < NX; ++x)
    h_grid[x] = 64.0f;
  for (int y = 0; y < NY; ++y)
    h_grid[y * NX] = 16.0f;

  float *d_a, *d_b;
  size_t pitchA, pitchB;
  checkCudaErrors(cudaMallocPitch((void **)&d_a, &pitchA, NX * sizeof(float), NY));
  checkCudaErrors(cudaMallocPitch((void **)&d_b, &pitchB, NX * sizeof(float), NY));
  printf("grid %dx%d, row %d bytes, pitch aligned: %s\n", NX, NY, (int)(NX * sizeof(float)),
         (pitchA >= NX * sizeof(float) && pitchA % 128 == 0) ? "yes" : "no");
  checkCudaErrors(
      cudaMemcpy2D(d_a, pitchA, h_grid, hostPitch, NX * sizeof(float), NY, cudaMemcpyHostToDevice));

  dim3 block(BX, BY);
  dim3 grid((NX + BX - 1) / BX, (NY + BY - 1) / BY);
  for (int s = 0; s < STEPS; ++s) {
    if (s % 2 == 0)
      jacobiStep<<<grid, block>>>(d_a, pitchA, d_b, pitchB, NX, NY);
    else
      jacobiStep<<<grid, block>>>(d_b, pitchB, d_a, pitchA, NX, NY);
    getLastCudaError("jacobiStep failed");
  }
  // STEPS is even: the result is back in d_a.
  checkCudaErrors(cudaMemcpy2D(h_result, hostPitch, d_a, pitchA, NX * sizeof(float), NY,
                               cudaMemcpyDeviceToHost));

  for (int s = 0; s < STEPS; ++s) {
    jacobiStepCPU(h_grid, h_tmp, NX, NY);
    float *t = h_grid;
    h_grid = h_tmp;
    h_tmp = t;
  }

  int errors = 0;
  double total = 0.0;
  for (int i = 0; i < NX * NY; ++i) {
    if (h_result[i] != h_grid[i])
      errors++;
    total += h_result[i];
  }
  printf("after %d steps: T(1,1) = %.6f, T(%d,1) = %.6f, T(%d,5) = %.6f\n", STEPS, h_result[NX + 1],
         NX / 2, h_result[NX + NX / 2], NX / 2, h_result[5 * NX + NX / 2]);
  printf("total heat = %.6f\n", total);
  printf("%s\n", errors == 0 ? "PASSED" : "FAILED");

  checkCudaErrors(cudaFree(d_a));
  checkCudaErrors(cudaFree(d_b));
  free(h_grid);
  free(h_result);
  free(h_tmp);
  return errors == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
