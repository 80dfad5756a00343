// The worked examples of HARDWARE-MODEL.md as one kernel per access, so that Nsight Compute's
// per-kernel metrics isolate each access: valid CUDA and valid kern (tests/gpu/run_ncu.sh).
#include <stdio.h>

struct vec3 { float x, y, z; };
__global__ void sh_tid(int *out) {
    __shared__ int s[1024];
    int tid = threadIdx.x;
    s[tid] = tid; // nvcc removes a load of shared memory that nothing wrote
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[tid];
}
__global__ void sh_2tid(int *out) {
    __shared__ int s[1024];
    int tid = threadIdx.x;
    s[tid] = tid; // nvcc removes a load of shared memory that nothing wrote
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[2 * tid];
}
__global__ void sh_4tid(int *out) {
    __shared__ int s[1024];
    int tid = threadIdx.x;
    s[tid] = tid; // nvcc removes a load of shared memory that nothing wrote
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[4 * tid];
}
__global__ void sh_16tid(int *out) {
    __shared__ int s[1024];
    int tid = threadIdx.x;
    s[tid] = tid; // nvcc removes a load of shared memory that nothing wrote
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[16 * tid];
}
__global__ void sh_17tid(int *out) {
    __shared__ int s[1024];
    int tid = threadIdx.x;
    s[tid] = tid; // nvcc removes a load of shared memory that nothing wrote
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[17 * tid];
}
__global__ void sh_32tid(int *out) {
    __shared__ int s[1024];
    int tid = threadIdx.x;
    s[tid] = tid; // nvcc removes a load of shared memory that nothing wrote
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[32 * tid];
}
__global__ void sh_bcast(int *out) {
    __shared__ int s[1024];
    int tid = threadIdx.x;
    s[tid] = tid; // nvcc removes a load of shared memory that nothing wrote
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[3];
}
__global__ void sh_tid_div8(int *out) {
    __shared__ int s[1024];
    int tid = threadIdx.x;
    s[tid] = tid; // nvcc removes a load of shared memory that nothing wrote
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[tid / 8];
}
__global__ void sh_double(int *out) {
    __shared__ double d[32];
    int tid = threadIdx.x;
    d[tid] = tid;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = (int)d[tid];
}
__global__ void gl_i(const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}
__global__ void gl_i1(const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i + 1];
}
__global__ void gl_2i(const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[2 * i];
}
__global__ void gl_32i(const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[32 * i];
}
__global__ void gl_inactive(const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = 0.0f;
    if (i % 32 != 3) x = in[i];
    out[i] = x;
}

__global__ void gl_vec3(const vec3 *v, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = v[i].x;
}

__global__ void gl_float4(const float *in, float4 *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = ((const float4 *)in)[i];
}

int main() {
    const int n = 256;
    int *iout;
    float *in, *out;
    vec3 *v;
    float4 *out4;
    cudaMalloc(&iout, 8 * 32 * sizeof(int));
    cudaMalloc(&in, (32 * n + 64) * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    cudaMalloc(&v, n * sizeof(vec3));
    cudaMalloc(&out4, n * sizeof(float4));
    cudaMemset(in, 0, (32 * n + 64) * sizeof(float));
    cudaMemset(v, 0, n * sizeof(vec3));
    // Shared: 8 blocks of one warp each. Global: one block of 256 threads (8 warps).
    sh_tid<<<8, 32>>>(iout);
    sh_2tid<<<8, 32>>>(iout);
    sh_4tid<<<8, 32>>>(iout);
    sh_16tid<<<8, 32>>>(iout);
    sh_17tid<<<8, 32>>>(iout);
    sh_32tid<<<8, 32>>>(iout);
    sh_bcast<<<8, 32>>>(iout);
    sh_tid_div8<<<8, 32>>>(iout);
    sh_double<<<8, 32>>>(iout);
    gl_i<<<1, n>>>(in, out);
    gl_i1<<<1, n>>>(in, out);
    gl_2i<<<1, n>>>(in, out);
    gl_32i<<<1, n>>>(in, out);
    gl_inactive<<<1, n>>>(in, out);
    gl_vec3<<<1, n>>>(v, out);
    gl_float4<<<1, n>>>(in, out4);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
