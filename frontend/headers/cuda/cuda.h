// <cuda.h> as kern provides it: CUDA's driver API over kern's runtime API and its run-time
// modules (runtime/api_modules.cpp). The types, constants and numeric values are CUDA 13.0's;
// every function is written here on kern's runtime API built-ins (cudaMalloc, cudaMemcpy...)
// and on the module built-ins (__kern_module_load, __kern_launch_function...), and maps the
// cudaError_t it gets to the CUresult CUDA gives. A module image is kern's: nvrtcGetPTX /
// nvrtcGetCUBIN hand one out and `kern emit --module` writes one to a file (real PTX, cubins and
// fatbins are CUDA_ERROR_INVALID_IMAGE). Contexts are kept here: a current-context stack, one
// primary context a device; a call that needs a context and finds none current uses the
// device's primary context, as it is after a runtime API call. This header reaches kern's
// runtime, so it is for kern alone (nvcc compiles programs against CUDA's own <cuda.h>).
#ifndef __cuda_cuda_h__
#define __cuda_cuda_h__

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#ifdef __cplusplus
#include "kern_texture.h"
#endif

#define CUDA_VERSION 13000
#define CUDAAPI
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 0

// The functions are inline (one function across the files of a program, so that their state
// is one); C has no shared inline, and there each file keeps its own state.
#ifdef __cplusplus
#define __KERN_CU inline
#else
#define __KERN_CU static inline
#endif

// ---- results: CUDA's CUresult, each with its value ----
#define __KERN_CU_RESULTS(X)                                                                       \
  X(CUDA_SUCCESS, 0)                                                                               \
  X(CUDA_ERROR_INVALID_VALUE, 1)                                                                   \
  X(CUDA_ERROR_OUT_OF_MEMORY, 2)                                                                   \
  X(CUDA_ERROR_NOT_INITIALIZED, 3)                                                                 \
  X(CUDA_ERROR_DEINITIALIZED, 4)                                                                   \
  X(CUDA_ERROR_PROFILER_DISABLED, 5)                                                               \
  X(CUDA_ERROR_PROFILER_NOT_INITIALIZED, 6)                                                        \
  X(CUDA_ERROR_PROFILER_ALREADY_STARTED, 7)                                                        \
  X(CUDA_ERROR_PROFILER_ALREADY_STOPPED, 8)                                                        \
  X(CUDA_ERROR_STUB_LIBRARY, 34)                                                                   \
  X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, 36)                                                     \
  X(CUDA_ERROR_DEVICE_UNAVAILABLE, 46)                                                             \
  X(CUDA_ERROR_NO_DEVICE, 100)                                                                     \
  X(CUDA_ERROR_INVALID_DEVICE, 101)                                                                \
  X(CUDA_ERROR_DEVICE_NOT_LICENSED, 102)                                                           \
  X(CUDA_ERROR_INVALID_IMAGE, 200)                                                                 \
  X(CUDA_ERROR_INVALID_CONTEXT, 201)                                                               \
  X(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, 202)                                                       \
  X(CUDA_ERROR_MAP_FAILED, 205)                                                                    \
  X(CUDA_ERROR_UNMAP_FAILED, 206)                                                                  \
  X(CUDA_ERROR_ARRAY_IS_MAPPED, 207)                                                               \
  X(CUDA_ERROR_ALREADY_MAPPED, 208)                                                                \
  X(CUDA_ERROR_NO_BINARY_FOR_GPU, 209)                                                             \
  X(CUDA_ERROR_ALREADY_ACQUIRED, 210)                                                              \
  X(CUDA_ERROR_NOT_MAPPED, 211)                                                                    \
  X(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, 212)                                                           \
  X(CUDA_ERROR_NOT_MAPPED_AS_POINTER, 213)                                                         \
  X(CUDA_ERROR_ECC_UNCORRECTABLE, 214)                                                             \
  X(CUDA_ERROR_UNSUPPORTED_LIMIT, 215)                                                             \
  X(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, 216)                                                        \
  X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, 217)                                                       \
  X(CUDA_ERROR_INVALID_PTX, 218)                                                                   \
  X(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, 219)                                                      \
  X(CUDA_ERROR_NVLINK_UNCORRECTABLE, 220)                                                          \
  X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, 221)                                                        \
  X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222)                                                       \
  X(CUDA_ERROR_JIT_COMPILATION_DISABLED, 223)                                                      \
  X(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, 224)                                                     \
  X(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, 225)                                                      \
  X(CUDA_ERROR_CONTAINED, 226)                                                                     \
  X(CUDA_ERROR_INVALID_SOURCE, 300)                                                                \
  X(CUDA_ERROR_FILE_NOT_FOUND, 301)                                                                \
  X(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, 302)                                                \
  X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, 303)                                                     \
  X(CUDA_ERROR_OPERATING_SYSTEM, 304)                                                              \
  X(CUDA_ERROR_INVALID_HANDLE, 400)                                                                \
  X(CUDA_ERROR_ILLEGAL_STATE, 401)                                                                 \
  X(CUDA_ERROR_LOSSY_QUERY, 402)                                                                   \
  X(CUDA_ERROR_NOT_FOUND, 500)                                                                     \
  X(CUDA_ERROR_NOT_READY, 600)                                                                     \
  X(CUDA_ERROR_ILLEGAL_ADDRESS, 700)                                                               \
  X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 701)                                                       \
  X(CUDA_ERROR_LAUNCH_TIMEOUT, 702)                                                                \
  X(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, 703)                                                 \
  X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, 704)                                                   \
  X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, 705)                                                       \
  X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, 708)                                                        \
  X(CUDA_ERROR_CONTEXT_IS_DESTROYED, 709)                                                          \
  X(CUDA_ERROR_ASSERT, 710)                                                                        \
  X(CUDA_ERROR_TOO_MANY_PEERS, 711)                                                                \
  X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 712)                                                \
  X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, 713)                                                    \
  X(CUDA_ERROR_HARDWARE_STACK_ERROR, 714)                                                          \
  X(CUDA_ERROR_ILLEGAL_INSTRUCTION, 715)                                                           \
  X(CUDA_ERROR_MISALIGNED_ADDRESS, 716)                                                            \
  X(CUDA_ERROR_INVALID_ADDRESS_SPACE, 717)                                                         \
  X(CUDA_ERROR_INVALID_PC, 718)                                                                    \
  X(CUDA_ERROR_LAUNCH_FAILED, 719)                                                                 \
  X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, 720)                                                  \
  X(CUDA_ERROR_TENSOR_MEMORY_LEAK, 721)                                                            \
  X(CUDA_ERROR_NOT_PERMITTED, 800)                                                                 \
  X(CUDA_ERROR_NOT_SUPPORTED, 801)                                                                 \
  X(CUDA_ERROR_SYSTEM_NOT_READY, 802)                                                              \
  X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803)                                                        \
  X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804)                                                \
  X(CUDA_ERROR_MPS_CONNECTION_FAILED, 805)                                                         \
  X(CUDA_ERROR_MPS_RPC_FAILURE, 806)                                                               \
  X(CUDA_ERROR_MPS_SERVER_NOT_READY, 807)                                                          \
  X(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, 808)                                                       \
  X(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, 809)                                                   \
  X(CUDA_ERROR_MPS_CLIENT_TERMINATED, 810)                                                         \
  X(CUDA_ERROR_CDP_NOT_SUPPORTED, 811)                                                             \
  X(CUDA_ERROR_CDP_VERSION_MISMATCH, 812)                                                          \
  X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, 900)                                                    \
  X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, 901)                                                    \
  X(CUDA_ERROR_STREAM_CAPTURE_MERGE, 902)                                                          \
  X(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, 903)                                                      \
  X(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, 904)                                                       \
  X(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, 905)                                                      \
  X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, 906)                                                       \
  X(CUDA_ERROR_CAPTURED_EVENT, 907)                                                                \
  X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, 908)                                                   \
  X(CUDA_ERROR_TIMEOUT, 909)                                                                       \
  X(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, 910)                                                     \
  X(CUDA_ERROR_EXTERNAL_DEVICE, 911)                                                               \
  X(CUDA_ERROR_INVALID_CLUSTER_SIZE, 912)                                                          \
  X(CUDA_ERROR_FUNCTION_NOT_LOADED, 913)                                                           \
  X(CUDA_ERROR_INVALID_RESOURCE_TYPE, 914)                                                         \
  X(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, 915)                                                \
  X(CUDA_ERROR_KEY_ROTATION, 916)                                                                  \
  X(CUDA_ERROR_UNKNOWN, 999)
#define __KERN_CU_ENUMERATOR(name, value) name = value,
typedef enum cudaError_enum { __KERN_CU_RESULTS(__KERN_CU_ENUMERATOR) } CUresult;
#undef __KERN_CU_ENUMERATOR

// ---- handles and basic types ----
typedef int CUdevice;
typedef int CUdevice_v1;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUdeviceptr_v2;
typedef unsigned long long CUtexObject;
typedef unsigned long long CUsurfObject;
// A context: kept by this header (cuCtxCreate, the primary contexts).
typedef struct CUctx_st {
  unsigned int magic; // __KERN_CU_CTX_MAGIC while the context lives
  int device;
  unsigned int flags;
  int primary;
} * CUcontext;
// Modules and functions are the runtime's handles (never host addresses).
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;
typedef struct CUmipmappedArray_st *CUmipmappedArray;
// Streams and events are the runtime API's, so that the two APIs mix as in CUDA.
typedef cudaStream_t CUstream;
typedef cudaEvent_t CUevent;
#ifdef __cplusplus
// A CUDA array is the runtime API's (kern_texture.h): cudaArray_t and CUarray convert by a cast.
typedef struct cudaArray *CUarray;
#else
typedef struct CUarray_st *CUarray;
#endif
typedef struct CUuuid_st {
  char bytes[16];
} CUuuid;
#define __KERN_CU_CTX_MAGIC 0x6b637478u

#define CU_STREAM_LEGACY ((CUstream)0x1)
#define CU_STREAM_PER_THREAD ((CUstream)0x2)

// ---- device attributes (the values of cudaDeviceAttr, which are CUDA's the same) ----
typedef enum CUdevice_attribute_enum {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MAX_PITCH = 11,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
  CU_DEVICE_ATTRIBUTE_REGISTERS_PER_BLOCK = 12,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT = 14,
  CU_DEVICE_ATTRIBUTE_GPU_OVERLAP = 15,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT = 17,
  CU_DEVICE_ATTRIBUTE_INTEGRATED = 18,
  CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
  CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH = 21,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH = 22,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT = 23,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH = 24,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT = 25,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH = 26,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH = 27,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT = 28,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS = 29,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_WIDTH = 27,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_HEIGHT = 28,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES = 29,
  CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT = 30,
  CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS = 31,
  CU_DEVICE_ATTRIBUTE_ECC_ENABLED = 32,
  CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
  CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
  CU_DEVICE_ATTRIBUTE_TCC_DRIVER = 35,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT = 40,
  CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH = 42,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS = 43,
  CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER = 44,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH = 45,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT = 46,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE = 47,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE = 48,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE = 49,
  CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
  CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT = 51,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH = 52,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH = 53,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS = 54,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH = 55,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH = 56,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT = 57,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH = 58,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT = 59,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH = 60,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH = 61,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS = 62,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH = 63,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT = 64,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS = 65,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH = 66,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH = 67,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS = 68,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH = 69,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH = 70,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT = 71,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH = 72,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH = 73,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT = 74,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH = 77,
  CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED = 78,
  CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED = 79,
  CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED = 80,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
  CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83,
  CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD = 84,
  CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID = 85,
  CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED = 86,
  CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO = 87,
  CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS = 88,
  CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 89,
  CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED = 90,
  CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 91,
  CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1 = 92,
  CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1 = 93,
  CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1 = 94,
  CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
  CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH = 96,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES = 98,
  CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED = 99,
  CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES = 100,
  CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST = 101,
  CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED = 102,
  CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102,
  CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103,
  CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED = 104,
  CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED = 105,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
  CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED = 107,
  CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE = 108,
  CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE = 109,
  CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED = 110,
  CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
  CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED = 112,
  CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED = 113,
  CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED = 114,
  CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115,
  CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = 116,
  CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS = 117,
  CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING = 118,
  CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES = 119,
  CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH = 120,
  CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED = 121,
  CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS = 122,
  CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR = 123,
  CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124,
  CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED = 125,
  CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT = 126,
  CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED = 127,
  CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED = 128,
  CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS = 129,
  CU_DEVICE_ATTRIBUTE_NUMA_CONFIG = 130,
  CU_DEVICE_ATTRIBUTE_NUMA_ID = 131,
  CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 132,
  CU_DEVICE_ATTRIBUTE_MPS_ENABLED = 133,
  CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID = 134,
  CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED = 135,
  CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK = 136,
  CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH = 137,
  CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED = 138,
  CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID = 139,
  CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID = 140,
  CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 141,
  CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED = 142,
  CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED = 143,
  CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED = 144,
  CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 145,
  CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED = 146,
  CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED = 147,
  CU_DEVICE_ATTRIBUTE_MAX,
} CUdevice_attribute;

typedef enum CUcomputemode_enum {
  CU_COMPUTEMODE_DEFAULT = 0,
  CU_COMPUTEMODE_PROHIBITED = 2,
  CU_COMPUTEMODE_EXCLUSIVE_PROCESS = 3
} CUcomputemode;

typedef enum CUjit_option_enum {
  CU_JIT_MAX_REGISTERS = 0,
  CU_JIT_THREADS_PER_BLOCK = 1,
  CU_JIT_WALL_TIME = 2,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7,
  CU_JIT_TARGET_FROM_CUCONTEXT = 8,
  CU_JIT_TARGET = 9,
  CU_JIT_FALLBACK_STRATEGY = 10,
  CU_JIT_GENERATE_DEBUG_INFO = 11,
  CU_JIT_LOG_VERBOSE = 12,
  CU_JIT_GENERATE_LINE_INFO = 13,
  CU_JIT_CACHE_MODE = 14,
  CU_JIT_NEW_SM3X_OPT = 15,
  CU_JIT_FAST_COMPILE = 16,
  CU_JIT_GLOBAL_SYMBOL_NAMES = 17,
  CU_JIT_GLOBAL_SYMBOL_ADDRESSES = 18,
  CU_JIT_GLOBAL_SYMBOL_COUNT = 19,
  CU_JIT_LTO = 20,
  CU_JIT_FTZ = 21,
  CU_JIT_PREC_DIV = 22,
  CU_JIT_PREC_SQRT = 23,
  CU_JIT_FMA = 24,
  CU_JIT_REFERENCED_KERNEL_NAMES = 25,
  CU_JIT_REFERENCED_KERNEL_COUNT = 26,
  CU_JIT_REFERENCED_VARIABLE_NAMES = 27,
  CU_JIT_REFERENCED_VARIABLE_COUNT = 28,
  CU_JIT_OPTIMIZE_UNUSED_DEVICE_VARIABLES = 29,
  CU_JIT_POSITION_INDEPENDENT_CODE = 30,
  CU_JIT_MIN_CTA_PER_SM = 31,
  CU_JIT_MAX_THREADS_PER_BLOCK = 32,
  CU_JIT_OVERRIDE_DIRECTIVE_VALUES = 33,
  CU_JIT_SPLIT_COMPILE = 34,
  CU_JIT_NUM_OPTIONS
} CUjit_option;

typedef enum CUfunction_attribute_enum {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
  CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
  CU_FUNC_ATTRIBUTE_CACHE_MODE_CA = 7,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
  CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET = 10,
  CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11,
  CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT = 12,
  CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH = 13,
  CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
  CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 15,
  CU_FUNC_ATTRIBUTE_MAX
} CUfunction_attribute;

typedef enum CUfunc_cache_enum {
  CU_FUNC_CACHE_PREFER_NONE = 0x00,
  CU_FUNC_CACHE_PREFER_SHARED = 0x01,
  CU_FUNC_CACHE_PREFER_L1 = 0x02,
  CU_FUNC_CACHE_PREFER_EQUAL = 0x03
} CUfunc_cache;

typedef enum CUctx_flags_enum {
  CU_CTX_SCHED_AUTO = 0x00,
  CU_CTX_SCHED_SPIN = 0x01,
  CU_CTX_SCHED_YIELD = 0x02,
  CU_CTX_SCHED_BLOCKING_SYNC = 0x04,
  CU_CTX_BLOCKING_SYNC = 0x04,
  CU_CTX_SCHED_MASK = 0x07,
  CU_CTX_MAP_HOST = 0x08,
  CU_CTX_LMEM_RESIZE_TO_MAX = 0x10,
  CU_CTX_COREDUMP_ENABLE = 0x20,
  CU_CTX_USER_COREDUMP_ENABLE = 0x40,
  CU_CTX_SYNC_MEMOPS = 0x80,
  CU_CTX_FLAGS_MASK = 0xFF
} CUctx_flags;

typedef enum CUstream_flags_enum {
  CU_STREAM_DEFAULT = 0x0,
  CU_STREAM_NON_BLOCKING = 0x1
} CUstream_flags;
typedef enum CUevent_flags_enum {
  CU_EVENT_DEFAULT = 0x0,
  CU_EVENT_BLOCKING_SYNC = 0x1,
  CU_EVENT_DISABLE_TIMING = 0x2,
  CU_EVENT_INTERPROCESS = 0x4
} CUevent_flags;
typedef enum CUmemAttach_flags_enum {
  CU_MEM_ATTACH_GLOBAL = 0x1,
  CU_MEM_ATTACH_HOST = 0x2,
  CU_MEM_ATTACH_SINGLE = 0x4
} CUmemAttach_flags;
#define CU_MEMHOSTALLOC_PORTABLE 0x01
#define CU_MEMHOSTALLOC_DEVICEMAP 0x02
#define CU_MEMHOSTALLOC_WRITECOMBINED 0x04
#define CU_MEMHOSTREGISTER_PORTABLE 0x01
#define CU_MEMHOSTREGISTER_DEVICEMAP 0x02

typedef enum CUmemorytype_enum {
  CU_MEMORYTYPE_HOST = 0x01,
  CU_MEMORYTYPE_DEVICE = 0x02,
  CU_MEMORYTYPE_ARRAY = 0x03,
  CU_MEMORYTYPE_UNIFIED = 0x04
} CUmemorytype;

typedef enum CUarray_format_enum {
  CU_AD_FORMAT_UNSIGNED_INT8 = 0x01,
  CU_AD_FORMAT_UNSIGNED_INT16 = 0x02,
  CU_AD_FORMAT_UNSIGNED_INT32 = 0x03,
  CU_AD_FORMAT_SIGNED_INT8 = 0x08,
  CU_AD_FORMAT_SIGNED_INT16 = 0x09,
  CU_AD_FORMAT_SIGNED_INT32 = 0x0a,
  CU_AD_FORMAT_HALF = 0x10,
  CU_AD_FORMAT_FLOAT = 0x20
} CUarray_format;

typedef enum CUaddress_mode_enum {
  CU_TR_ADDRESS_MODE_WRAP = 0,
  CU_TR_ADDRESS_MODE_CLAMP = 1,
  CU_TR_ADDRESS_MODE_MIRROR = 2,
  CU_TR_ADDRESS_MODE_BORDER = 3
} CUaddress_mode;
typedef enum CUfilter_mode_enum {
  CU_TR_FILTER_MODE_POINT = 0,
  CU_TR_FILTER_MODE_LINEAR = 1
} CUfilter_mode;
typedef enum CUresourcetype_enum {
  CU_RESOURCE_TYPE_ARRAY = 0x00,
  CU_RESOURCE_TYPE_MIPMAPPED_ARRAY = 0x01,
  CU_RESOURCE_TYPE_LINEAR = 0x02,
  CU_RESOURCE_TYPE_PITCH2D = 0x03
} CUresourcetype;
#define CU_TRSF_READ_AS_INTEGER 0x01
#define CU_TRSF_NORMALIZED_COORDINATES 0x02
#define CU_TRSF_SRGB 0x10
#define CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION 0x20
#define CU_TRSF_SEAMLESS_CUBEMAP 0x40

#define CU_LAUNCH_PARAM_END_AS_INT 0x00
#define CU_LAUNCH_PARAM_END ((void *)CU_LAUNCH_PARAM_END_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT 0x01
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT 0x02
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT)

typedef struct CUDA_ARRAY_DESCRIPTOR_st {
  size_t Width;
  size_t Height;
  CUarray_format Format;
  unsigned int NumChannels;
} CUDA_ARRAY_DESCRIPTOR;
typedef CUDA_ARRAY_DESCRIPTOR CUDA_ARRAY_DESCRIPTOR_v2;

typedef struct CUDA_MEMCPY2D_st {
  size_t srcXInBytes;
  size_t srcY;
  CUmemorytype srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  size_t srcPitch;
  size_t dstXInBytes;
  size_t dstY;
  CUmemorytype dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  size_t dstPitch;
  size_t WidthInBytes;
  size_t Height;
} CUDA_MEMCPY2D;
typedef CUDA_MEMCPY2D CUDA_MEMCPY2D_v2;

typedef struct CUDA_RESOURCE_DESC_st {
  CUresourcetype resType;
  union {
    struct {
      CUarray hArray;
    } array;
    struct {
      CUmipmappedArray hMipmappedArray;
    } mipmap;
    struct {
      CUdeviceptr devPtr;
      CUarray_format format;
      unsigned int numChannels;
      size_t sizeInBytes;
    } linear;
    struct {
      CUdeviceptr devPtr;
      CUarray_format format;
      unsigned int numChannels;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
    struct {
      int reserved[32];
    } reserved;
  } res;
  unsigned int flags;
} CUDA_RESOURCE_DESC;
typedef CUDA_RESOURCE_DESC CUDA_RESOURCE_DESC_v1;

typedef struct CUDA_TEXTURE_DESC_st {
  CUaddress_mode addressMode[3];
  CUfilter_mode filterMode;
  unsigned int flags;
  unsigned int maxAnisotropy;
  CUfilter_mode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  float borderColor[4];
  int reserved[12];
} CUDA_TEXTURE_DESC;
typedef CUDA_TEXTURE_DESC CUDA_TEXTURE_DESC_v1;
typedef struct CUDA_RESOURCE_VIEW_DESC_st {
  int format;
  size_t width, height, depth;
  unsigned int firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer;
  unsigned int reserved[16];
} CUDA_RESOURCE_VIEW_DESC;

typedef struct CUexecAffinityParam_st {
  int type;
  int param;
} CUexecAffinityParam;
typedef struct CUctxCigParam_st {
  int sharedDataType;
  void *sharedData;
} CUctxCigParam;
// cuCtxCreate's parameters (CUDA 13): kern has no execution affinity or CIG, and takes none.
typedef struct CUctxCreateParams_st {
  CUexecAffinityParam *execAffinityParams;
  int numExecAffinityParams;
  CUctxCigParam *cigParams;
} CUctxCreateParams;

typedef size_t (*CUoccupancyB2DSize)(int blockSize);

// The names of the _v2... entry points, for programs that call them by those names.
#define cuDeviceTotalMem_v2 cuDeviceTotalMem
#define cuCtxCreate_v4 cuCtxCreate
#define cuCtxDestroy_v2 cuCtxDestroy
#define cuCtxPopCurrent_v2 cuCtxPopCurrent
#define cuCtxPushCurrent_v2 cuCtxPushCurrent
#define cuModuleGetGlobal_v2 cuModuleGetGlobal
#define cuMemGetInfo_v2 cuMemGetInfo
#define cuMemAlloc_v2 cuMemAlloc
#define cuMemAllocPitch_v2 cuMemAllocPitch
#define cuMemFree_v2 cuMemFree
#define cuMemAllocHost_v2 cuMemAllocHost
#define cuMemHostGetDevicePointer_v2 cuMemHostGetDevicePointer
#define cuMemcpyHtoD_v2 cuMemcpyHtoD
#define cuMemcpyDtoH_v2 cuMemcpyDtoH
#define cuMemcpyDtoD_v2 cuMemcpyDtoD
#define cuMemcpyHtoDAsync_v2 cuMemcpyHtoDAsync
#define cuMemcpyDtoHAsync_v2 cuMemcpyDtoHAsync
#define cuMemcpyDtoDAsync_v2 cuMemcpyDtoDAsync
#define cuMemcpy2D_v2 cuMemcpy2D
#define cuMemsetD8_v2 cuMemsetD8
#define cuMemsetD16_v2 cuMemsetD16
#define cuMemsetD32_v2 cuMemsetD32
#define cuArrayCreate_v2 cuArrayCreate
#define cuStreamDestroy_v2 cuStreamDestroy
#define cuEventDestroy_v2 cuEventDestroy
#define cuEventElapsedTime_v2 cuEventElapsedTime
#define cuDevicePrimaryCtxRelease_v2 cuDevicePrimaryCtxRelease
#define cuDeviceGetUuid_v2 cuDeviceGetUuid

#include "kern_cuda_driver.h"
#include "kern_cuda_vmm.h"
#ifdef __cplusplus
#include "kern_cuda_arrays.h"
#endif

#endif // __cuda_cuda_h__
