// The functions of kern's <cuda.h> (the driver API): included by it, after its types.
#pragma once

// ---- the driver's state: initialised or not, the context stack, the primary contexts ----
#define __KERN_CU_MAX_DEVICES 16
#define __KERN_CU_MAX_STACK 64
struct __kern_cu_state {
  int initialised;
  int depth;
  CUcontext stack[__KERN_CU_MAX_STACK];
  struct CUctx_st primary[__KERN_CU_MAX_DEVICES];
  int primaryRefs[__KERN_CU_MAX_DEVICES];
};
__KERN_CU struct __kern_cu_state *__kern_cu(void) {
  static struct __kern_cu_state state;
  return &state;
}

// cudaError_t -> CUresult: the values from 100 up are the same in both APIs, and so are the
// few below with a driver meaning; the runtime's other argument errors are the driver's
// CUDA_ERROR_INVALID_VALUE.
__KERN_CU CUresult __kern_cu_result(cudaError_t e) {
  int v = (int)e;
  if (v == 0 || v == 1 || v == 2 || v == 3 || v == 4 || v == 5 || v == 6 || v == 7 || v == 8 ||
      v == 34 || v == 36 || v == 46)
    return (CUresult)v;
  if (v == 98) // cudaErrorInvalidDeviceFunction
    return CUDA_ERROR_INVALID_HANDLE;
  if (v == 35) // cudaErrorInsufficientDriver
    return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
  if (v >= 100)
    return (CUresult)v;
  return CUDA_ERROR_INVALID_VALUE;
}

__KERN_CU int __kern_cu_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess)
    return 0;
  return n;
}
__KERN_CU int __kern_cu_valid_context(CUcontext c) {
  return c != 0 && c->magic == __KERN_CU_CTX_MAGIC;
}
// The current context: the top of the stack, or the primary context of the runtime's device.
__KERN_CU CUcontext __kern_cu_current(void) {
  struct __kern_cu_state *s = __kern_cu();
  if (s->depth > 0)
    return s->stack[s->depth - 1];
  int dev = 0;
  cudaGetDevice(&dev);
  if (dev < 0 || dev >= __KERN_CU_MAX_DEVICES)
    dev = 0;
  CUcontext p = &s->primary[dev];
  p->magic = __KERN_CU_CTX_MAGIC;
  p->device = dev;
  p->primary = 1;
  return p;
}
// Makes `c` the context the runtime API uses too (its device).
__KERN_CU void __kern_cu_enter(CUcontext c) {
  if (c)
    cudaSetDevice(c->device);
}

// Initialised by cuInit, or by the runtime API, which initialises the driver when it makes
// the device's context (the first cudaMalloc, cudaFree, cudaSetDevice...), as CUDA's does.
#define __KERN_CU_NEED_INIT                                                                        \
  if (!__kern_cu()->initialised && !__kern_cu_runtime_context())                                   \
    return CUDA_ERROR_NOT_INITIALIZED;

// ---- errors ----
__KERN_CU CUresult cuGetErrorName(CUresult error, const char **pStr) {
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
#define __KERN_CU_NAME_CASE(name, value)                                                           \
  case name:                                                                                       \
    *pStr = #name;                                                                                 \
    return CUDA_SUCCESS;
    __KERN_CU_RESULTS(__KERN_CU_NAME_CASE)
#undef __KERN_CU_NAME_CASE
  default:
    break;
  }
  *pStr = 0;
  return CUDA_ERROR_INVALID_VALUE;
}
// The description of a CUresult: the runtime API's of the same value, which CUDA gives both.
__KERN_CU CUresult cuGetErrorString(CUresult error, const char **pStr) {
  const char *name = 0;
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
  if (cuGetErrorName(error, &name) != CUDA_SUCCESS) {
    *pStr = 0;
    return CUDA_ERROR_INVALID_VALUE;
  }
  *pStr = cudaGetErrorString((cudaError_t)error);
  return CUDA_SUCCESS;
}

// ---- initialisation, version, devices ----
__KERN_CU CUresult cuInit(unsigned int flags) {
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (__kern_cu_device_count() == 0)
    return CUDA_ERROR_NO_DEVICE;
  __kern_cu()->initialised = 1;
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuDriverGetVersion(int *driverVersion) {
  if (!driverVersion)
    return CUDA_ERROR_INVALID_VALUE;
  *driverVersion = CUDA_VERSION;
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuDeviceGetCount(int *count) {
  __KERN_CU_NEED_INIT
  if (!count)
    return CUDA_ERROR_INVALID_VALUE;
  *count = __kern_cu_device_count();
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  __KERN_CU_NEED_INIT
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  if (ordinal < 0 || ordinal >= __kern_cu_device_count())
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}
#define __KERN_CU_NEED_DEVICE(dev)                                                                 \
  if ((dev) < 0 || (dev) >= __kern_cu_device_count())                                              \
    return CUDA_ERROR_INVALID_DEVICE;

__KERN_CU CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  __KERN_CU_NEED_INIT
  if (!name || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  __KERN_CU_NEED_DEVICE(dev)
  struct cudaDeviceProp prop;
  cudaError_t e = cudaGetDeviceProperties(&prop, dev);
  if (e != cudaSuccess)
    return __kern_cu_result(e);
  strncpy(name, prop.name, (size_t)len - 1);
  name[len - 1] = 0;
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  __KERN_CU_NEED_INIT
  if (!pi)
    return CUDA_ERROR_INVALID_VALUE;
  __KERN_CU_NEED_DEVICE(dev)
  return __kern_cu_result(cudaDeviceGetAttribute(pi, (enum cudaDeviceAttr)attrib, dev));
}
__KERN_CU CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
  __KERN_CU_NEED_INIT
  if (!major || !minor)
    return CUDA_ERROR_INVALID_VALUE;
  __KERN_CU_NEED_DEVICE(dev)
  CUresult r = cuDeviceGetAttribute(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  if (r != CUDA_SUCCESS)
    return r;
  return cuDeviceGetAttribute(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
}
__KERN_CU CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev) {
  __KERN_CU_NEED_INIT
  if (!bytes)
    return CUDA_ERROR_INVALID_VALUE;
  __KERN_CU_NEED_DEVICE(dev)
  struct cudaDeviceProp prop;
  cudaError_t e = cudaGetDeviceProperties(&prop, dev);
  if (e != cudaSuccess)
    return __kern_cu_result(e);
  *bytes = prop.totalGlobalMem;
  return CUDA_SUCCESS;
}
// kern's devices have no UUID of their own: the bytes are the ordinal's, the rest zero.
__KERN_CU CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) {
  __KERN_CU_NEED_INIT
  if (!uuid)
    return CUDA_ERROR_INVALID_VALUE;
  __KERN_CU_NEED_DEVICE(dev)
  memset(uuid->bytes, 0, sizeof(uuid->bytes));
  uuid->bytes[0] = (char)(dev + 1);
  return CUDA_SUCCESS;
}
// One GPU, or GPUs without peer access: never.
__KERN_CU CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev) {
  __KERN_CU_NEED_INIT
  if (!canAccessPeer)
    return CUDA_ERROR_INVALID_VALUE;
  __KERN_CU_NEED_DEVICE(dev)
  __KERN_CU_NEED_DEVICE(peerDev)
  *canAccessPeer = 0;
  return CUDA_SUCCESS;
}

// ---- contexts ----
__KERN_CU CUresult cuCtxCreate(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags,
                               CUdevice dev) {
  __KERN_CU_NEED_INIT
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (params && (params->numExecAffinityParams != 0 || params->cigParams != 0))
    return CUDA_ERROR_NOT_SUPPORTED;
  __KERN_CU_NEED_DEVICE(dev)
  struct __kern_cu_state *s = __kern_cu();
  if (s->depth >= __KERN_CU_MAX_STACK)
    return CUDA_ERROR_OUT_OF_MEMORY;
  CUcontext c = (CUcontext)malloc(sizeof(struct CUctx_st));
  if (!c)
    return CUDA_ERROR_OUT_OF_MEMORY;
  c->magic = __KERN_CU_CTX_MAGIC;
  c->device = dev;
  c->flags = flags;
  c->primary = 0;
  s->stack[s->depth++] = c;
  __kern_cu_enter(c);
  *pctx = c;
  return CUDA_SUCCESS;
}
// Destroys a context made by cuCtxCreate (its memory is not freed: kern's allocations belong
// to the device). The handle stays invalid afterwards.
__KERN_CU CUresult cuCtxDestroy(CUcontext ctx) {
  __KERN_CU_NEED_INIT
  if (!__kern_cu_valid_context(ctx) || ctx->primary)
    return CUDA_ERROR_INVALID_CONTEXT;
  cudaDeviceSynchronize();
  struct __kern_cu_state *s = __kern_cu();
  int j = 0;
  for (int i = 0; i < s->depth; i++)
    if (s->stack[i] != ctx)
      s->stack[j++] = s->stack[i];
  s->depth = j;
  ctx->magic = 0;
  if (s->depth > 0)
    __kern_cu_enter(s->stack[s->depth - 1]);
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuCtxPushCurrent(CUcontext ctx) {
  __KERN_CU_NEED_INIT
  if (!__kern_cu_valid_context(ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  struct __kern_cu_state *s = __kern_cu();
  if (s->depth >= __KERN_CU_MAX_STACK)
    return CUDA_ERROR_OUT_OF_MEMORY;
  s->stack[s->depth++] = ctx;
  __kern_cu_enter(ctx);
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuCtxPopCurrent(CUcontext *pctx) {
  __KERN_CU_NEED_INIT
  struct __kern_cu_state *s = __kern_cu();
  if (s->depth == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  CUcontext c = s->stack[--s->depth];
  if (pctx)
    *pctx = c;
  if (s->depth > 0)
    __kern_cu_enter(s->stack[s->depth - 1]);
  return CUDA_SUCCESS;
}
// With nothing pushed, the current context is the primary context of the runtime API's device,
// as it is in CUDA after a runtime API call (kern cannot tell whether one came first).
__KERN_CU CUresult cuCtxGetCurrent(CUcontext *pctx) {
  __KERN_CU_NEED_INIT
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  *pctx = __kern_cu_current();
  return CUDA_SUCCESS;
}
// Replaces the top of the stack (pushes onto an empty one); NULL pops it.
__KERN_CU CUresult cuCtxSetCurrent(CUcontext ctx) {
  __KERN_CU_NEED_INIT
  struct __kern_cu_state *s = __kern_cu();
  if (!ctx) {
    if (s->depth > 0)
      s->depth--;
    return CUDA_SUCCESS;
  }
  if (!__kern_cu_valid_context(ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  if (s->depth == 0)
    s->depth = 1;
  s->stack[s->depth - 1] = ctx;
  __kern_cu_enter(ctx);
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuCtxGetDevice(CUdevice *device) {
  __KERN_CU_NEED_INIT
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  *device = __kern_cu_current()->device;
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuCtxSynchronize(void) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaDeviceSynchronize());
}
__KERN_CU CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version) {
  __KERN_CU_NEED_INIT
  if (!version)
    return CUDA_ERROR_INVALID_VALUE;
  if (ctx && !__kern_cu_valid_context(ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  *version = 3020; // the context API's version since CUDA 3.2
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuCtxSetCacheConfig(CUfunc_cache config) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaDeviceSetCacheConfig((enum cudaFuncCache)config));
}
__KERN_CU CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  __KERN_CU_NEED_INIT
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  __KERN_CU_NEED_DEVICE(dev)
  if (dev >= __KERN_CU_MAX_DEVICES)
    return CUDA_ERROR_INVALID_DEVICE;
  struct __kern_cu_state *s = __kern_cu();
  CUcontext p = &s->primary[dev];
  p->magic = __KERN_CU_CTX_MAGIC;
  p->device = dev;
  p->primary = 1;
  s->primaryRefs[dev]++;
  *pctx = p;
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  __KERN_CU_NEED_INIT
  __KERN_CU_NEED_DEVICE(dev)
  if (dev >= __KERN_CU_MAX_DEVICES)
    return CUDA_ERROR_INVALID_DEVICE;
  struct __kern_cu_state *s = __kern_cu();
  if (s->primaryRefs[dev] <= 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  s->primaryRefs[dev]--;
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active) {
  __KERN_CU_NEED_INIT
  if (!flags || !active)
    return CUDA_ERROR_INVALID_VALUE;
  __KERN_CU_NEED_DEVICE(dev)
  *flags = 0;
  *active = dev < __KERN_CU_MAX_DEVICES && __kern_cu()->primaryRefs[dev] > 0;
  return CUDA_SUCCESS;
}

// ---- modules ----
// A module's image is kern's (nvrtcGetPTX/nvrtcGetCUBIN, `kern emit --module`); anything else
// (real PTX, a cubin or fatbin) is CUDA_ERROR_INVALID_IMAGE, with the runtime's note on stderr.
__KERN_CU CUresult cuModuleLoad(CUmodule *module, const char *fname) {
  __KERN_CU_NEED_INIT
  if (!module || !fname)
    return CUDA_ERROR_INVALID_VALUE;
  return (CUresult)__kern_module_load((void **)module, fname, 1);
}
__KERN_CU CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  __KERN_CU_NEED_INIT
  if (!module || !image)
    return CUDA_ERROR_INVALID_VALUE;
  return (CUresult)__kern_module_load((void **)module, image, 0);
}
// The JIT options: the log buffers receive the compiler's log (nothing when clean), the wall
// time is 0; the others are accepted and change nothing.
__KERN_CU CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                      CUjit_option *options, void **optionValues) {
  __KERN_CU_NEED_INIT
  if (!module || !image || (numOptions && (!options || !optionValues)))
    return CUDA_ERROR_INVALID_VALUE;
  CUresult r = (CUresult)__kern_module_load((void **)module, image, 0);
  char *log = 0;
  if (r == CUDA_ERROR_INVALID_PTX)
    __kern_rtc_compile(image, (void **)&log);
  for (unsigned int i = 0; i < numOptions; i++) {
    CUjit_option o = options[i];
    if (o == CU_JIT_WALL_TIME) {
      float zero = 0.0f;
      memcpy(&optionValues[i], &zero, sizeof zero);
    } else if (o == CU_JIT_INFO_LOG_BUFFER || o == CU_JIT_ERROR_LOG_BUFFER) {
      // the buffer's size is the option that follows it by name
      size_t size = 0;
      int sizeIndex = -1;
      for (unsigned int j = 0; j < numOptions; j++)
        if ((int)options[j] == (int)o + 1)
          sizeIndex = (int)j;
      if (sizeIndex >= 0)
        size = (size_t)optionValues[sizeIndex];
      char *buffer = (char *)optionValues[i];
      const char *text = (o == CU_JIT_ERROR_LOG_BUFFER && log) ? log : "";
      size_t n = strlen(text);
      if (buffer && size > 0) {
        if (n > size - 1)
          n = size - 1;
        memcpy(buffer, text, n);
        buffer[n] = 0;
      }
      if (sizeIndex >= 0)
        optionValues[sizeIndex] = (void *)(size_t)n;
    }
  }
  if (log)
    free(log);
  return r;
}
__KERN_CU CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin) {
  return cuModuleLoadData(module, fatCubin);
}
__KERN_CU CUresult cuModuleUnload(CUmodule hmod) {
  __KERN_CU_NEED_INIT
  return (CUresult)__kern_module_unload((void *)hmod);
}
__KERN_CU CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  __KERN_CU_NEED_INIT
  if (!hfunc || !name)
    return CUDA_ERROR_INVALID_VALUE;
  return (CUresult)__kern_module_function((void **)hfunc, (void *)hmod, name);
}
__KERN_CU CUresult cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                                     const char *name) {
  __KERN_CU_NEED_INIT
  if (!name)
    return CUDA_ERROR_INVALID_VALUE;
  void *p = 0;
  size_t size = 0;
  CUresult r = (CUresult)__kern_module_global(&p, &size, (void *)hmod, name);
  if (r != CUDA_SUCCESS)
    return r;
  if (dptr)
    *dptr = (CUdeviceptr)(size_t)p;
  if (bytes)
    *bytes = size;
  return CUDA_SUCCESS;
}

// ---- launches and functions ----
__KERN_CU CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                  unsigned int gridDimZ, unsigned int blockDimX,
                                  unsigned int blockDimY, unsigned int blockDimZ,
                                  unsigned int sharedMemBytes, CUstream hStream,
                                  void **kernelParams, void **extra) {
  __KERN_CU_NEED_INIT
  if (!f)
    return CUDA_ERROR_INVALID_HANDLE;
  return __kern_cu_result((cudaError_t)__kern_launch_function(
      (const void *)f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
      sharedMemBytes, (void *)hStream, kernelParams, extra));
}
// kern runs every block of a grid at once, so a cooperative launch is an ordinary one (the
// runtime checks the grid against the device as it does for cudaLaunchCooperativeKernel).
__KERN_CU CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX,
                                             unsigned int gridDimY, unsigned int gridDimZ,
                                             unsigned int blockDimX, unsigned int blockDimY,
                                             unsigned int blockDimZ, unsigned int sharedMemBytes,
                                             CUstream hStream, void **kernelParams) {
  return cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                        sharedMemBytes, hStream, kernelParams, 0);
}
__KERN_CU CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) {
  __KERN_CU_NEED_INIT
  if (!pi)
    return CUDA_ERROR_INVALID_VALUE;
  if (!hfunc)
    return CUDA_ERROR_INVALID_HANDLE;
  struct cudaFuncAttributes a;
  CUresult r = __kern_cu_result((cudaError_t)__kern_function_attributes(&a, (const void *)hfunc));
  if (r != CUDA_SUCCESS)
    return r;
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *pi = a.maxThreadsPerBlock;
    break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *pi = (int)a.sharedSizeBytes;
    break;
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    *pi = (int)a.constSizeBytes;
    break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
    *pi = (int)a.localSizeBytes;
    break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *pi = a.numRegs;
    break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    *pi = a.ptxVersion;
    break;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
    *pi = a.binaryVersion;
    break;
  case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
    *pi = a.cacheModeCA;
    break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *pi = a.maxDynamicSharedSizeBytes;
    break;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    *pi = a.preferredShmemCarveout;
    break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
  case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    *pi = 0;
    break;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) {
  __KERN_CU_NEED_INIT
  if (!hfunc)
    return CUDA_ERROR_INVALID_HANDLE;
  if ((int)config < 0 || (int)config > 3)
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS; // kern models one cache split
}
__KERN_CU CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  __KERN_CU_NEED_INIT
  if (!hfunc)
    return CUDA_ERROR_INVALID_HANDLE;
  if (attrib != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
      attrib != CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
    return CUDA_ERROR_INVALID_VALUE;
  if (value < 0)
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}
// The block size that keeps the most threads of a multiprocessor busy, as CUDA's occupancy
// calculator picks it: the largest such size, from the function's registers and shared memory
// and the device's limits; *minGridSize fills every multiprocessor at that occupancy.
__KERN_CU CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize,
                                                    CUfunction func,
                                                    CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                    size_t dynamicSMemSize, int blockSizeLimit) {
  __KERN_CU_NEED_INIT
  if (!minGridSize || !blockSize)
    return CUDA_ERROR_INVALID_VALUE;
  if (!func)
    return CUDA_ERROR_INVALID_HANDLE;
  struct cudaFuncAttributes a;
  CUresult r = __kern_cu_result((cudaError_t)__kern_function_attributes(&a, (const void *)func));
  if (r != CUDA_SUCCESS)
    return r;
  int dev = 0;
  cudaGetDevice(&dev);
  int sms = 1, threadsPerSM = 2048, regsPerSM = 65536, blocksPerSM = 32, smemPerSM = 0, warp = 32;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaDeviceGetAttribute(&threadsPerSM, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
  cudaDeviceGetAttribute(&regsPerSM, cudaDevAttrMaxRegistersPerMultiprocessor, dev);
  cudaDeviceGetAttribute(&blocksPerSM, cudaDevAttrMaxBlocksPerMultiprocessor, dev);
  cudaDeviceGetAttribute(&smemPerSM, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev);
  int limit = a.maxThreadsPerBlock;
  if (blockSizeLimit > 0 && blockSizeLimit < limit)
    limit = blockSizeLimit;
  int bestSize = 0, bestBlocks = 0, bestThreads = 0;
  for (int size = (limit + warp - 1) / warp * warp; size > 0; size -= warp) {
    int bs = size > limit ? limit : size;
    size_t smem = a.sharedSizeBytes +
                  (blockSizeToDynamicSMemSize ? blockSizeToDynamicSMemSize(bs) : dynamicSMemSize);
    int blocks = threadsPerSM / bs;
    if (blocks > blocksPerSM)
      blocks = blocksPerSM;
    if (a.numRegs > 0) {
      int warps = (bs + warp - 1) / warp;
      int regsPerBlock = warps * warp * a.numRegs;
      int byRegs = regsPerBlock > 0 ? regsPerSM / regsPerBlock : blocks;
      if (byRegs < blocks)
        blocks = byRegs;
    }
    if (smem > 0 && smemPerSM > 0) {
      int bySmem = (int)((size_t)smemPerSM / smem);
      if (bySmem < blocks)
        blocks = bySmem;
    }
    if (blocks * bs > bestThreads) {
      bestThreads = blocks * bs;
      bestSize = bs;
      bestBlocks = blocks;
    }
  }
  *blockSize = bestSize;
  *minGridSize = bestBlocks * sms;
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func,
                                                               int blockSize,
                                                               size_t dynamicSMemSize) {
  __KERN_CU_NEED_INIT
  if (!numBlocks || blockSize <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (!func)
    return CUDA_ERROR_INVALID_HANDLE;
  struct cudaFuncAttributes a;
  CUresult r = __kern_cu_result((cudaError_t)__kern_function_attributes(&a, (const void *)func));
  if (r != CUDA_SUCCESS)
    return r;
  if (blockSize > a.maxThreadsPerBlock) {
    *numBlocks = 0;
    return CUDA_SUCCESS;
  }
  int dev = 0;
  cudaGetDevice(&dev);
  int threadsPerSM = 2048, regsPerSM = 65536, blocksPerSM = 32, smemPerSM = 0, warp = 32;
  cudaDeviceGetAttribute(&threadsPerSM, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
  cudaDeviceGetAttribute(&regsPerSM, cudaDevAttrMaxRegistersPerMultiprocessor, dev);
  cudaDeviceGetAttribute(&blocksPerSM, cudaDevAttrMaxBlocksPerMultiprocessor, dev);
  cudaDeviceGetAttribute(&smemPerSM, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev);
  int blocks = threadsPerSM / blockSize;
  if (blocks > blocksPerSM)
    blocks = blocksPerSM;
  if (a.numRegs > 0) {
    int regsPerBlock = (blockSize + warp - 1) / warp * warp * a.numRegs;
    if (regsPerSM / regsPerBlock < blocks)
      blocks = regsPerSM / regsPerBlock;
  }
  size_t smem = a.sharedSizeBytes + dynamicSMemSize;
  if (smem > 0 && smemPerSM > 0 && (int)((size_t)smemPerSM / smem) < blocks)
    blocks = (int)((size_t)smemPerSM / smem);
  *numBlocks = blocks;
  return CUDA_SUCCESS;
}

// ---- memory ----
#define __KERN_CU_PTR(d) ((void *)(size_t)(d))
__KERN_CU CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) {
  __KERN_CU_NEED_INIT
  if (!dptr || bytesize == 0)
    return CUDA_ERROR_INVALID_VALUE;
  void *p = 0;
  cudaError_t e = cudaMalloc(&p, bytesize);
  if (e != cudaSuccess)
    return __kern_cu_result(e);
  *dptr = (CUdeviceptr)(size_t)p;
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuMemAllocPitch(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                   size_t Height, unsigned int ElementSizeBytes) {
  __KERN_CU_NEED_INIT
  if (!dptr || !pPitch || WidthInBytes == 0 || Height == 0 ||
      (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
    return CUDA_ERROR_INVALID_VALUE;
  void *p = 0;
  cudaError_t e = cudaMallocPitch(&p, pPitch, WidthInBytes, Height);
  if (e != cudaSuccess)
    return __kern_cu_result(e);
  *dptr = (CUdeviceptr)(size_t)p;
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuMemFree(CUdeviceptr dptr) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaFree(__KERN_CU_PTR(dptr)));
}
__KERN_CU CUresult cuMemAllocHost(void **pp, size_t bytesize) {
  __KERN_CU_NEED_INIT
  if (!pp || bytesize == 0)
    return CUDA_ERROR_INVALID_VALUE;
  return __kern_cu_result(cudaMallocHost(pp, bytesize));
}
__KERN_CU CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags) {
  __KERN_CU_NEED_INIT
  if (!pp || bytesize == 0)
    return CUDA_ERROR_INVALID_VALUE;
  return __kern_cu_result(cudaHostAlloc(pp, bytesize, Flags));
}
__KERN_CU CUresult cuMemFreeHost(void *p) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaFreeHost(p));
}
__KERN_CU CUresult cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags) {
  __KERN_CU_NEED_INIT
  if (!pdptr)
    return CUDA_ERROR_INVALID_VALUE;
  void *d = 0;
  cudaError_t e = cudaHostGetDevicePointer(&d, p, Flags);
  if (e != cudaSuccess)
    return __kern_cu_result(e);
  *pdptr = (CUdeviceptr)(size_t)d;
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaHostRegister(p, bytesize, Flags));
}
__KERN_CU CUresult cuMemHostUnregister(void *p) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaHostUnregister(p));
}
__KERN_CU CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags) {
  __KERN_CU_NEED_INIT
  if (!dptr || bytesize == 0 || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
    return CUDA_ERROR_INVALID_VALUE;
  void *p = 0;
  cudaError_t e = cudaMallocManaged(&p, bytesize, flags);
  if (e != cudaSuccess)
    return __kern_cu_result(e);
  *dptr = (CUdeviceptr)(size_t)p;
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuMemGetInfo(size_t *free, size_t *total) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaMemGetInfo(free, total));
}
__KERN_CU CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(
      cudaMemcpy(__KERN_CU_PTR(dst), __KERN_CU_PTR(src), ByteCount, cudaMemcpyDefault));
}
__KERN_CU CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(
      cudaMemcpy(__KERN_CU_PTR(dstDevice), srcHost, ByteCount, cudaMemcpyHostToDevice));
}
__KERN_CU CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(
      cudaMemcpy(dstHost, __KERN_CU_PTR(srcDevice), ByteCount, cudaMemcpyDeviceToHost));
}
__KERN_CU CUresult cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaMemcpy(__KERN_CU_PTR(dstDevice), __KERN_CU_PTR(srcDevice), ByteCount,
                                     cudaMemcpyDeviceToDevice));
}
__KERN_CU CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                                 CUstream hStream) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaMemcpyAsync(__KERN_CU_PTR(dst), __KERN_CU_PTR(src), ByteCount,
                                          cudaMemcpyDefault, hStream));
}
__KERN_CU CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                     CUstream hStream) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaMemcpyAsync(__KERN_CU_PTR(dstDevice), srcHost, ByteCount,
                                          cudaMemcpyHostToDevice, hStream));
}
__KERN_CU CUresult cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                     CUstream hStream) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaMemcpyAsync(dstHost, __KERN_CU_PTR(srcDevice), ByteCount,
                                          cudaMemcpyDeviceToHost, hStream));
}
__KERN_CU CUresult cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                     CUstream hStream) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaMemcpyAsync(__KERN_CU_PTR(dstDevice), __KERN_CU_PTR(srcDevice),
                                          ByteCount, cudaMemcpyDeviceToDevice, hStream));
}
__KERN_CU CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaMemset(__KERN_CU_PTR(dstDevice), uc, N));
}
__KERN_CU CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                   CUstream hStream) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaMemsetAsync(__KERN_CU_PTR(dstDevice), uc, N, hStream));
}
// 16- and 32-bit patterns: written from a host copy of the pattern (one transfer).
__KERN_CU CUresult __kern_cu_memset_wide(CUdeviceptr dst, unsigned int value, size_t N,
                                         unsigned int bytes) {
  if (N == 0)
    return CUDA_SUCCESS;
  if ((size_t)dst % bytes != 0)
    return CUDA_ERROR_INVALID_VALUE;
  void *h = malloc(N * bytes);
  if (!h)
    return CUDA_ERROR_OUT_OF_MEMORY;
  if (bytes == 2) {
    unsigned short *s = (unsigned short *)h;
    for (size_t i = 0; i < N; i++)
      s[i] = (unsigned short)value;
  } else {
    unsigned int *s = (unsigned int *)h;
    for (size_t i = 0; i < N; i++)
      s[i] = value;
  }
  cudaError_t e = cudaMemcpy(__KERN_CU_PTR(dst), h, N * bytes, cudaMemcpyHostToDevice);
  free(h);
  return __kern_cu_result(e);
}
__KERN_CU CUresult cuMemsetD16(CUdeviceptr dstDevice, unsigned short us, size_t N) {
  __KERN_CU_NEED_INIT
  return __kern_cu_memset_wide(dstDevice, us, N, 2);
}
__KERN_CU CUresult cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  __KERN_CU_NEED_INIT
  return __kern_cu_memset_wide(dstDevice, ui, N, 4);
}

// ---- streams and events (the runtime API's) ----
__KERN_CU CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags) {
  __KERN_CU_NEED_INIT
  if (!phStream || Flags > 1)
    return CUDA_ERROR_INVALID_VALUE;
  return __kern_cu_result(cudaStreamCreateWithFlags(phStream, Flags));
}
__KERN_CU CUresult cuStreamDestroy(CUstream hStream) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaStreamDestroy(hStream));
}
__KERN_CU CUresult cuStreamSynchronize(CUstream hStream) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaStreamSynchronize(hStream));
}
__KERN_CU CUresult cuStreamQuery(CUstream hStream) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaStreamQuery(hStream));
}
__KERN_CU CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaStreamWaitEvent(hStream, hEvent, Flags));
}
__KERN_CU CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags) {
  __KERN_CU_NEED_INIT
  if (!phEvent)
    return CUDA_ERROR_INVALID_VALUE;
  return __kern_cu_result(cudaEventCreateWithFlags(phEvent, Flags));
}
__KERN_CU CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaEventRecord(hEvent, hStream));
}
__KERN_CU CUresult cuEventSynchronize(CUevent hEvent) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaEventSynchronize(hEvent));
}
__KERN_CU CUresult cuEventQuery(CUevent hEvent) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaEventQuery(hEvent));
}
__KERN_CU CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaEventElapsedTime(pMilliseconds, hStart, hEnd));
}
__KERN_CU CUresult cuEventDestroy(CUevent hEvent) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaEventDestroy(hEvent));
}

// ---- the profiler's range (cudaProfiler.h) ----
__KERN_CU CUresult cuProfilerStart(void) { return __kern_cu_result(cudaProfilerStart()); }
__KERN_CU CUresult cuProfilerStop(void) { return __kern_cu_result(cudaProfilerStop()); }
