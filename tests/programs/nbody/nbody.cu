// All-pairs n-body simulation in single precision: bodies as float4 (w = mass), tiles of
// positions staged in shared memory, leapfrog integration. The CPU runs the same steps; the
// program prints the centre of mass and one body with few digits, and PASSED when every
// position agrees with the CPU to a relative 1e-3.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define NUM_BODIES 128
#define TILE 64
#define SOFTENING 0.01f
#define DT 0.005f
#define STEPS 2

__device__ float3 bodyBodyInteraction(float4 bi, float4 bj, float3 ai) {
  float3 r;
  r.x = bj.x - bi.x;
  r.y = bj.y - bi.y;
  r.z = bj.z - bi.z;
  float distSqr = r.x * r.x + r.y * r.y + r.z * r.z + SOFTENING;
  float dist = sqrtf(distSqr);
  float invDistCube = 1.0f / (distSqr * dist);
  float s = bj.w * invDistCube;
  ai.x += r.x * s;
  ai.y += r.y * s;
  ai.z += r.z * s;
  return ai;
}

__global__ void integrateBodies(float4 *newPos, float4 *vel, const float4 *oldPos, int n,
                                float dt) {
  __shared__ float4 shPos[TILE];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 myPos = oldPos[i];
  float3 acc = make_float3(0.0f, 0.0f, 0.0f);
  for (int tile = 0; tile < n / TILE; ++tile) {
    shPos[threadIdx.x] = oldPos[tile * TILE + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < TILE; ++j)
      acc = bodyBodyInteraction(myPos, shPos[j], acc);
    __syncthreads();
  }
  float4 v = vel[i];
  v.x += acc.x * dt;
  v.y += acc.y * dt;
  v.z += acc.z * dt;
  myPos.x += v.x * dt;
  myPos.y += v.y * dt;
  myPos.z += v.z * dt;
  newPos[i] = myPos;
  vel[i] = v;
}

static void integrateCPU(float4 *newPos, float4 *vel, const float4 *oldPos, int n, float dt) {
  for (int i = 0; i < n; ++i) {
    double ax = 0, ay = 0, az = 0;
    for (int j = 0; j < n; ++j) {
      double rx = oldPos[j].x - oldPos[i].x, ry = oldPos[j].y - oldPos[i].y,
             rz = oldPos[j].z - oldPos[i].z;
      double d2 = rx * rx + ry * ry + rz * rz + SOFTENING;
      double s = oldPos[j].w / (d2 * sqrt(d2));
      ax += rx * s;
      ay += ry * s;
      az += rz * s;
    }
    float4 v = vel[i];
    v.x += (float)ax * dt;
    v.y += (float)ay * dt;
    v.z += (float)az * dt;
    newPos[i] = oldPos[i];
    newPos[i].x += v.x * dt;
    newPos[i].y += v.y * dt;
    newPos[i].z += v.z * dt;
    vel[i] = v;
  }
}

int main(void) {
  int n = NUM_BODIES;
  size_t bytes = n * sizeof(float4);
  float4 *h_pos = (float4 *)malloc(bytes), *h_vel = (float4 *)malloc(bytes);
  float4 *c_pos = (float4 *)malloc(bytes), *c_vel = (float4 *)malloc(bytes);
  float4 *c_tmp = (float4 *)malloc(bytes), *result = (float4 *)malloc(bytes);
  // Bodies on a jittered lattice, a slow rotation about z.
  for (int i = 0; i < n; ++i) {
    float x = (float)(i % 8) - 3.5f, y = (float)((i / 8) % 8) - 3.5f, z = (float)(i / 64) - 3.5f;
    x += 0.125f * (float)((i * 7) % 5);
    y += 0.125f * (float)((i * 3) % 7);
    h_pos[i] = make_float4(x, y, z, 1.0f + 0.5f * (float)(i % 3));
    h_vel[i] = make_float4(-0.25f * y, 0.25f * x, 0.0f, 0.0f);
    c_pos[i] = h_pos[i];
    c_vel[i] = h_vel[i];
  }

  float4 *d_pos[2], *d_vel;
  checkCudaErrors(cudaMalloc(&d_pos[0], bytes));
  checkCudaErrors(cudaMalloc(&d_pos[1], bytes));
  checkCudaErrors(cudaMalloc(&d_vel, bytes));
  checkCudaErrors(cudaMemcpy(d_pos[0], h_pos, bytes, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_vel, h_vel, bytes, cudaMemcpyHostToDevice));

  for (int s = 0; s < STEPS; ++s) {
    integrateBodies<<<n / TILE, TILE>>>(d_pos[(s + 1) & 1], d_vel, d_pos[s & 1], n, DT);
    getLastCudaError("integrateBodies failed");
    integrateCPU(c_tmp, c_vel, c_pos, n, DT);
    float4 *t = c_pos;
    c_pos = c_tmp;
    c_tmp = t;
  }
  checkCudaErrors(cudaMemcpy(result, d_pos[STEPS & 1], bytes, cudaMemcpyDeviceToHost));

  int bad = 0;
  double mass = 0, cx = 0, cy = 0, cz = 0;
  for (int i = 0; i < n; ++i) {
    float dx = fabsf(result[i].x - c_pos[i].x), dy = fabsf(result[i].y - c_pos[i].y),
          dz = fabsf(result[i].z - c_pos[i].z);
    if (dx > 1e-3f * (1.0f + fabsf(c_pos[i].x)) || dy > 1e-3f * (1.0f + fabsf(c_pos[i].y)) ||
        dz > 1e-3f * (1.0f + fabsf(c_pos[i].z)))
      bad++;
    mass += result[i].w;
    cx += result[i].w * result[i].x;
    cy += result[i].w * result[i].y;
    cz += result[i].w * result[i].z;
  }
  printf("%d bodies, %d steps\n", n, STEPS);
  printf("total mass %.1f, centre of mass x %.3f, y %.3f\n", mass, cx / mass, cy / mass);
  printf("body 0 at (%.3f, %.3f, %.3f)\n", result[0].x, result[0].y, result[0].z);
  printf("%s\n", bad == 0 ? "PASSED" : "FAILED");

  checkCudaErrors(cudaFree(d_pos[0]));
  checkCudaErrors(cudaFree(d_pos[1]));
  checkCudaErrors(cudaFree(d_vel));
  free(h_pos);
  free(h_vel);
  free(c_pos);
  free(c_vel);
  free(c_tmp);
  free(result);
  return bad == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
