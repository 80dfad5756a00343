// The JIT's allow-list of runtime functions: one line per kern_rt_* function of backend/abi.h.
#include "runtime/symbols.h"

#include "runtime/runtime.h"

namespace kern::runtime {

backend::SymbolList runtimeSymbols() {
#define KERN_RT_SYMBOL(name)                                                                       \
  { #name, reinterpret_cast < void *>(&name) }
  return {
      // warp functions
      KERN_RT_SYMBOL(kern_rt_fault),
      KERN_RT_SYMBOL(kern_rt_poll),
      KERN_RT_SYMBOL(kern_rt_kprintf),
      KERN_RT_SYMBOL(kern_rt_barrier),
      KERN_RT_SYMBOL(kern_rt_barrier_reduce),
      KERN_RT_SYMBOL(kern_rt_barrier_arrive),
      KERN_RT_SYMBOL(kern_rt_barrier_result),
      KERN_RT_SYMBOL(kern_rt_coro_frame),
      KERN_RT_SYMBOL(kern_rt_count_access),
      KERN_RT_SYMBOL(kern_rt_count_branch),
      KERN_RT_SYMBOL(kern_rt_count_instr),
      KERN_RT_SYMBOL(kern_rt_count_instr_totals),
      KERN_RT_SYMBOL(kern_rt_check_access),
      KERN_RT_SYMBOL(kern_rt_assert),
      // both sides
      KERN_RT_SYMBOL(kern_rt_global_addr),
      // host code
      KERN_RT_SYMBOL(kern_rt_host_fault),
      KERN_RT_SYMBOL(kern_rt_printf),
      KERN_RT_SYMBOL(kern_rt_fprintf),
      KERN_RT_SYMBOL(kern_rt_snprintf),
      KERN_RT_SYMBOL(kern_rt_launch),
      KERN_RT_SYMBOL(kern_rt_global_lo),
      KERN_RT_SYMBOL(kern_rt_global_hi),
      KERN_RT_SYMBOL(kern_rt_malloc),
      KERN_RT_SYMBOL(kern_rt_calloc),
      KERN_RT_SYMBOL(kern_rt_realloc),
      KERN_RT_SYMBOL(kern_rt_free),
      KERN_RT_SYMBOL(kern_rt_memset),
      KERN_RT_SYMBOL(kern_rt_memcpy),
      KERN_RT_SYMBOL(kern_rt_memcmp),
      KERN_RT_SYMBOL(kern_rt_strlen),
      KERN_RT_SYMBOL(kern_rt_strcmp),
      KERN_RT_SYMBOL(kern_rt_strncmp),
      KERN_RT_SYMBOL(kern_rt_strcpy),
      KERN_RT_SYMBOL(kern_rt_atoi),
      KERN_RT_SYMBOL(kern_rt_atof),
      KERN_RT_SYMBOL(kern_rt_strtol),
      KERN_RT_SYMBOL(kern_rt_rand),
      KERN_RT_SYMBOL(kern_rt_srand),
      KERN_RT_SYMBOL(kern_rt_exit),
      KERN_RT_SYMBOL(kern_rt_puts),
      KERN_RT_SYMBOL(kern_rt_putchar),
      KERN_RT_SYMBOL(kern_rt_cudaMalloc),
      KERN_RT_SYMBOL(kern_rt_cudaFree),
      KERN_RT_SYMBOL(kern_rt_cudaMemcpy),
      KERN_RT_SYMBOL(kern_rt_cudaMemset),
      KERN_RT_SYMBOL(kern_rt_cudaDeviceSynchronize),
      KERN_RT_SYMBOL(kern_rt_cudaProfilerStart),
      KERN_RT_SYMBOL(kern_rt_cudaProfilerStop),
      KERN_RT_SYMBOL(kern_rt_cudaThreadSynchronize),
      KERN_RT_SYMBOL(kern_rt_cudaGetLastError),
      KERN_RT_SYMBOL(kern_rt_cudaPeekAtLastError),
      KERN_RT_SYMBOL(kern_rt_cudaGetErrorString),
      KERN_RT_SYMBOL(kern_rt_cudaGetErrorName),
      KERN_RT_SYMBOL(kern_rt_cudaGetDeviceCount),
      KERN_RT_SYMBOL(kern_rt_cudaGetDevice),
      KERN_RT_SYMBOL(kern_rt_cudaSetDevice),
      KERN_RT_SYMBOL(kern_rt_cudaDeviceReset),
      KERN_RT_SYMBOL(kern_rt_host_assert),
      KERN_RT_SYMBOL(kern_rt_cudaMallocHost),
      KERN_RT_SYMBOL(kern_rt_cudaHostAlloc),
      KERN_RT_SYMBOL(kern_rt_cudaFreeHost),
      KERN_RT_SYMBOL(kern_rt_cudaMemcpyAsync),
      KERN_RT_SYMBOL(kern_rt_cudaMemsetAsync),
      KERN_RT_SYMBOL(kern_rt_cudaStreamCreate),
      KERN_RT_SYMBOL(kern_rt_cudaStreamDestroy),
      KERN_RT_SYMBOL(kern_rt_cudaStreamSynchronize),
      KERN_RT_SYMBOL(kern_rt_cudaEventCreate),
      KERN_RT_SYMBOL(kern_rt_cudaEventRecord),
      KERN_RT_SYMBOL(kern_rt_cudaEventSynchronize),
      KERN_RT_SYMBOL(kern_rt_cudaEventQuery),
      KERN_RT_SYMBOL(kern_rt_cudaEventElapsedTime),
      KERN_RT_SYMBOL(kern_rt_cudaEventDestroy),
      KERN_RT_SYMBOL(kern_rt_cudaGetDeviceProperties),
      KERN_RT_SYMBOL(kern_rt_cudaMemcpyToSymbol),
      KERN_RT_SYMBOL(kern_rt_cudaMemcpyFromSymbol),
      KERN_RT_SYMBOL(kern_rt_cudaGetSymbolAddress),
      KERN_RT_SYMBOL(kern_rt_cudaGetSymbolSize),
      KERN_RT_SYMBOL(kern_rt_cudaFuncGetAttributes),
      KERN_RT_SYMBOL(kern_rt_cudaOccupancyMaxActiveBlocksPerMultiprocessor),
  };
#undef KERN_RT_SYMBOL
}

} // namespace kern::runtime
