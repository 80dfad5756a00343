// Prints the device's properties that the timing model uses (no kernel launch).
#include <stdio.h>
#include <cuda_runtime.h>

int main(void) {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        printf("no device\n");
        return 1;
    }
    int clock_khz = 0, mem_clock_khz = 0, bus_bits = 0, runtime = 0, driver = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    printf("name: %s\n", p.name);
    printf("compute capability: %d.%d\n", p.major, p.minor);
    printf("runtime version: %d, driver version: %d\n", runtime, driver);
    printf("multiprocessors: %d\n", p.multiProcessorCount);
    printf("max SM clock: %d kHz\n", clock_khz);
    printf("memory clock: %d kHz, bus width: %d bits\n", mem_clock_khz, bus_bits);
    printf("global memory: %zu bytes\n", p.totalGlobalMem);
    printf("L2 cache: %d bytes (persisting max %d)\n", p.l2CacheSize, p.persistingL2CacheMaxSize);
    printf("shared memory per SM: %zu, per block: %zu, per block opt-in: %zu\n",
           p.sharedMemPerMultiprocessor, p.sharedMemPerBlock, p.sharedMemPerBlockOptin);
    printf("registers per SM: %d, per block: %d\n", p.regsPerMultiprocessor, p.regsPerBlock);
    printf("max threads per SM: %d, per block: %d, max blocks per SM: %d\n",
           p.maxThreadsPerMultiProcessor, p.maxThreadsPerBlock, p.maxBlocksPerMultiProcessor);
    printf("warp size: %d\n", p.warpSize);
    return 0;
}
