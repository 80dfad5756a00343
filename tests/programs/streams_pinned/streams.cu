// Overlapping copies and kernels in non-blocking streams: the data is split in chunks, each
// chunk is copied in (pinned memory, cudaMemcpyAsync), transformed and copied out in its own
// stream; events order a final kernel after every chunk, and the program checks the result.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define NSTREAMS 4

__global__ void polynomial(int *data, int n, int offset) {
  int i = offset + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < offset + n) {
    int x = data[i];
    data[i] = (3 * x + 5) * x - 7;
  }
}

__global__ void sumAll(const int *data, int n, long long *total) {
  __shared__ long long partial[256];
  long long s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += data[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *total = partial[0];
}

int main(int argc, char **argv) {
  const int n = 1 << 16;
  const int chunk = n / NSTREAMS;
  size_t bytes = n * sizeof(int);

  int *h_in, *h_out;
  checkCudaErrors(cudaMallocHost((void **)&h_in, bytes));
  checkCudaErrors(cudaHostAlloc((void **)&h_out, bytes, cudaHostAllocDefault));
  for (int i = 0; i < n; ++i)
    h_in[i] = (i % 201) - 100;

  int *d_data;
  long long *d_total;
  checkCudaErrors(cudaMalloc(&d_data, bytes));
  checkCudaErrors(cudaMalloc(&d_total, sizeof(long long)));

  cudaStream_t streams[NSTREAMS];
  cudaEvent_t done[NSTREAMS];
  for (int s = 0; s < NSTREAMS; ++s) {
    checkCudaErrors(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    checkCudaErrors(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
  }
  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));

  checkCudaErrors(cudaEventRecord(start, 0));
  for (int s = 0; s < NSTREAMS; ++s) {
    int offset = s * chunk;
    checkCudaErrors(cudaMemcpyAsync(d_data + offset, h_in + offset, chunk * sizeof(int),
                                    cudaMemcpyHostToDevice, streams[s]));
    polynomial<<<(chunk + 255) / 256, 256, 0, streams[s]>>>(d_data, chunk, offset);
    getLastCudaError("polynomial failed");
    checkCudaErrors(cudaMemcpyAsync(h_out + offset, d_data + offset, chunk * sizeof(int),
                                    cudaMemcpyDeviceToHost, streams[s]));
    checkCudaErrors(cudaEventRecord(done[s], streams[s]));
  }
  // The last stream waits for all the others before it sums everything.
  for (int s = 0; s < NSTREAMS - 1; ++s)
    checkCudaErrors(cudaStreamWaitEvent(streams[NSTREAMS - 1], done[s], 0));
  sumAll<<<1, 256, 0, streams[NSTREAMS - 1]>>>(d_data, n, d_total);
  getLastCudaError("sumAll failed");
  long long *h_total;
  checkCudaErrors(cudaMallocHost((void **)&h_total, sizeof(long long)));
  checkCudaErrors(cudaMemcpyAsync(h_total, d_total, sizeof(long long), cudaMemcpyDeviceToHost,
                                  streams[NSTREAMS - 1]));
  checkCudaErrors(cudaEventRecord(stop, 0));
  for (int s = 0; s < NSTREAMS; ++s)
    checkCudaErrors(cudaStreamSynchronize(streams[s]));
  checkCudaErrors(cudaEventSynchronize(stop));
  float ms = 0.0f;
  checkCudaErrors(cudaEventElapsedTime(&ms, start, stop)); // measured, never printed

  int errors = 0;
  long long expected = 0;
  for (int i = 0; i < n; ++i) {
    int x = h_in[i];
    int y = (3 * x + 5) * x - 7;
    if (h_out[i] != y)
      errors++;
    expected += y;
  }
  printf("%d streams, %d elements each\n", NSTREAMS, chunk);
  printf("out[0] = %d, out[%d] = %d\n", h_out[0], n - 1, h_out[n - 1]);
  printf("device total %lld, host total %lld\n", *h_total, expected);
  printf("timing recorded: %s\n", ms >= 0.0f ? "yes" : "no");
  printf("%s\n", errors == 0 && *h_total == expected ? "PASSED" : "FAILED");

  for (int s = 0; s < NSTREAMS; ++s) {
    checkCudaErrors(cudaStreamDestroy(streams[s]));
    checkCudaErrors(cudaEventDestroy(done[s]));
  }
  checkCudaErrors(cudaEventDestroy(start));
  checkCudaErrors(cudaEventDestroy(stop));
  checkCudaErrors(cudaFreeHost(h_in));
  checkCudaErrors(cudaFreeHost(h_out));
  checkCudaErrors(cudaFreeHost(h_total));
  checkCudaErrors(cudaFree(d_data));
  checkCudaErrors(cudaFree(d_total));
  return errors == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
