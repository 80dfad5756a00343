// The virtual memory management of kern's <cuda.h> (cuMemAddressReserve, cuMemCreate,
// cuMemMap, cuMemSetAccess, cuMemUnmap, cuMemRelease, cuMemAddressFree): included by it, after
// its types and functions.
//
// kern models it over ordinary device memory: a reserved range is one device allocation that
// holds the bytes of whatever is mapped into it, and a physical allocation (cuMemCreate) is a
// record of its size and device that a mapping ties to a place in a reservation. So a program
// that reserves, maps, sets access, computes, unmaps and frees (CUDA's vectorAddMMAP) runs as
// on a GPU. What differs: a physical allocation has no bytes of its own, so mapping one that is
// already mapped elsewhere (an alias) is refused with CUDA_ERROR_NOT_SUPPORTED and a note on
// stderr, and a range keeps its bytes across unmapping and mapping another allocation; an
// access to a reserved range that nothing is mapped into does not fault.
#pragma once

#include <stdio.h>

typedef unsigned long long CUmemGenericAllocationHandle;
typedef enum CUmemAllocationType_enum {
  CU_MEM_ALLOCATION_TYPE_INVALID = 0x0,
  CU_MEM_ALLOCATION_TYPE_PINNED = 0x1,
  CU_MEM_ALLOCATION_TYPE_MANAGED = 0x2,
  CU_MEM_ALLOCATION_TYPE_MAX = 0x7FFFFFFF
} CUmemAllocationType;
typedef enum CUmemLocationType_enum {
  CU_MEM_LOCATION_TYPE_INVALID = 0x0,
  CU_MEM_LOCATION_TYPE_DEVICE = 0x1,
  CU_MEM_LOCATION_TYPE_HOST = 0x2,
  CU_MEM_LOCATION_TYPE_HOST_NUMA = 0x3,
  CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT = 0x4,
  CU_MEM_LOCATION_TYPE_MAX = 0x7FFFFFFF
} CUmemLocationType;
#define CU_MEM_LOCATION_TYPE_NONE CU_MEM_LOCATION_TYPE_INVALID
typedef enum CUmemAccess_flags_enum {
  CU_MEM_ACCESS_FLAGS_PROT_NONE = 0x0,
  CU_MEM_ACCESS_FLAGS_PROT_READ = 0x1,
  CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 0x3,
  CU_MEM_ACCESS_FLAGS_PROT_MAX = 0x7FFFFFFF
} CUmemAccess_flags;
typedef enum CUmemAllocationGranularity_flags_enum {
  CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0x0,
  CU_MEM_ALLOC_GRANULARITY_RECOMMENDED = 0x1
} CUmemAllocationGranularity_flags;
typedef enum CUmemAllocationHandleType_enum {
  CU_MEM_HANDLE_TYPE_NONE = 0x0,
  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 0x1,
  CU_MEM_HANDLE_TYPE_WIN32 = 0x2,
  CU_MEM_HANDLE_TYPE_WIN32_KMT = 0x4,
  CU_MEM_HANDLE_TYPE_FABRIC = 0x8,
  CU_MEM_HANDLE_TYPE_MAX = 0x7FFFFFFF
} CUmemAllocationHandleType;
typedef struct CUmemLocation_st {
  CUmemLocationType type;
  int id;
} CUmemLocation;
typedef struct CUmemAllocationProp_st {
  CUmemAllocationType type;
  CUmemAllocationHandleType requestedHandleTypes;
  CUmemLocation location;
  void *win32HandleMetaData;
  struct {
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
  } allocFlags;
} CUmemAllocationProp;
typedef struct CUmemAccessDesc_st {
  CUmemLocation location;
  CUmemAccess_flags flags;
} CUmemAccessDesc;

// The granularity of reservations and physical allocations: 2 MiB, as on CUDA's GPUs.
#define __KERN_CU_VMM_GRANULE ((size_t)2 << 20)
#define __KERN_CU_VMM_MAX 256

struct __kern_cu_vmm_state {
  CUdeviceptr reserveBase[__KERN_CU_VMM_MAX]; // 0: a free slot
  size_t reserveSize[__KERN_CU_VMM_MAX];
  size_t handleSize[__KERN_CU_VMM_MAX]; // 0: a free slot; handle = slot + 1
  int handleDevice[__KERN_CU_VMM_MAX];
  int handleReleased[__KERN_CU_VMM_MAX];
  int handleMapped[__KERN_CU_VMM_MAX];
  CUdeviceptr mapBase[__KERN_CU_VMM_MAX]; // 0: a free slot
  size_t mapSize[__KERN_CU_VMM_MAX];
  int mapHandle[__KERN_CU_VMM_MAX];
};
__KERN_CU struct __kern_cu_vmm_state *__kern_cu_vmm(void) {
  static struct __kern_cu_vmm_state state;
  return &state;
}
__KERN_CU int __kern_cu_vmm_handle(CUmemGenericAllocationHandle h) {
  if (h == 0 || h > __KERN_CU_VMM_MAX || __kern_cu_vmm()->handleSize[h - 1] == 0)
    return -1;
  return (int)(h - 1);
}
// The reservation that holds [ptr, ptr + size), or -1.
__KERN_CU int __kern_cu_vmm_reservation(CUdeviceptr ptr, size_t size) {
  struct __kern_cu_vmm_state *s = __kern_cu_vmm();
  for (int i = 0; i < __KERN_CU_VMM_MAX; i++)
    if (s->reserveBase[i] && ptr >= s->reserveBase[i] &&
        ptr + size <= s->reserveBase[i] + s->reserveSize[i])
      return i;
  return -1;
}
__KERN_CU void __kern_cu_vmm_drop_handle(int h) {
  struct __kern_cu_vmm_state *s = __kern_cu_vmm();
  if (s->handleReleased[h] && !s->handleMapped[h])
    s->handleSize[h] = 0;
}

__KERN_CU CUresult cuMemGetAllocationGranularity(size_t *granularity,
                                                 const CUmemAllocationProp *prop,
                                                 CUmemAllocationGranularity_flags option) {
  __KERN_CU_NEED_INIT
  if (!granularity || !prop || (int)option < 0 || (int)option > 1)
    return CUDA_ERROR_INVALID_VALUE;
  if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
      prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return CUDA_ERROR_INVALID_VALUE;
  __KERN_CU_NEED_DEVICE(prop->location.id)
  *granularity = __KERN_CU_VMM_GRANULE;
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                       CUdeviceptr addr, unsigned long long flags) {
  __KERN_CU_NEED_INIT(void) addr; // a hint
  if (!ptr || size == 0 || size % __KERN_CU_VMM_GRANULE != 0 || flags != 0 ||
      (alignment & (alignment - 1)) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  struct __kern_cu_vmm_state *s = __kern_cu_vmm();
  for (int i = 0; i < __KERN_CU_VMM_MAX; i++)
    if (!s->reserveBase[i]) {
      void *p = 0;
      cudaError_t e = cudaMalloc(&p, size);
      if (e != cudaSuccess)
        return __kern_cu_result(e);
      s->reserveBase[i] = (CUdeviceptr)(size_t)p;
      s->reserveSize[i] = size;
      *ptr = s->reserveBase[i];
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_OUT_OF_MEMORY;
}
__KERN_CU CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
  __KERN_CU_NEED_INIT
  struct __kern_cu_vmm_state *s = __kern_cu_vmm();
  for (int i = 0; i < __KERN_CU_VMM_MAX; i++)
    if (s->reserveBase[i] && s->reserveBase[i] == ptr && s->reserveSize[i] == size) {
      for (int m = 0; m < __KERN_CU_VMM_MAX; m++)
        if (s->mapBase[m] && s->mapBase[m] >= ptr && s->mapBase[m] < ptr + size)
          return CUDA_ERROR_INVALID_VALUE; // still mapped
      s->reserveBase[i] = 0;
      return __kern_cu_result(cudaFree(__KERN_CU_PTR(ptr)));
    }
  return CUDA_ERROR_INVALID_VALUE;
}
__KERN_CU CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                               const CUmemAllocationProp *prop, unsigned long long flags) {
  __KERN_CU_NEED_INIT
  if (!handle || !prop || size == 0 || size % __KERN_CU_VMM_GRANULE != 0 || flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
      prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return CUDA_ERROR_INVALID_VALUE;
  __KERN_CU_NEED_DEVICE(prop->location.id)
  struct __kern_cu_vmm_state *s = __kern_cu_vmm();
  for (int i = 0; i < __KERN_CU_VMM_MAX; i++)
    if (s->handleSize[i] == 0) {
      s->handleSize[i] = size;
      s->handleDevice[i] = prop->location.id;
      s->handleReleased[i] = 0;
      s->handleMapped[i] = 0;
      *handle = (CUmemGenericAllocationHandle)(i + 1);
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_OUT_OF_MEMORY;
}
__KERN_CU CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  __KERN_CU_NEED_INIT
  int h = __kern_cu_vmm_handle(handle);
  if (h < 0 || __kern_cu_vmm()->handleReleased[h])
    return CUDA_ERROR_INVALID_VALUE;
  __kern_cu_vmm()->handleReleased[h] = 1;
  __kern_cu_vmm_drop_handle(h);
  return CUDA_SUCCESS;
}
__KERN_CU CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                            CUmemGenericAllocationHandle handle, unsigned long long flags) {
  __KERN_CU_NEED_INIT
  int h = __kern_cu_vmm_handle(handle);
  struct __kern_cu_vmm_state *s = __kern_cu_vmm();
  if (h < 0 || s->handleReleased[h] || flags != 0 || size == 0 ||
      size % __KERN_CU_VMM_GRANULE != 0 || offset % __KERN_CU_VMM_GRANULE != 0 ||
      offset + size > s->handleSize[h])
    return CUDA_ERROR_INVALID_VALUE;
  if (__kern_cu_vmm_reservation(ptr, size) < 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (offset != 0 || s->handleMapped[h]) {
    fprintf(stderr, "kern: cuMemMap: mapping part of a physical allocation, or one already "
                    "mapped, would alias memory, which kern's reservations do not model\n");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  int slot = -1;
  for (int m = 0; m < __KERN_CU_VMM_MAX; m++) {
    if (s->mapBase[m] && ptr < s->mapBase[m] + s->mapSize[m] && s->mapBase[m] < ptr + size)
      return CUDA_ERROR_INVALID_VALUE; // overlaps a mapping
    if (!s->mapBase[m] && slot < 0)
      slot = m;
  }
  if (slot < 0)
    return CUDA_ERROR_OUT_OF_MEMORY;
  s->mapBase[slot] = ptr;
  s->mapSize[slot] = size;
  s->mapHandle[slot] = h;
  s->handleMapped[h] = 1;
  return CUDA_SUCCESS;
}
// Unmaps every mapping in [ptr, ptr + size), which must hold whole mappings only.
__KERN_CU CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
  __KERN_CU_NEED_INIT
  struct __kern_cu_vmm_state *s = __kern_cu_vmm();
  int found = 0;
  for (int m = 0; m < __KERN_CU_VMM_MAX; m++)
    if (s->mapBase[m] && ptr < s->mapBase[m] + s->mapSize[m] && s->mapBase[m] < ptr + size) {
      if (s->mapBase[m] < ptr || s->mapBase[m] + s->mapSize[m] > ptr + size)
        return CUDA_ERROR_INVALID_VALUE;
      found = 1;
    }
  if (!found)
    return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceSynchronize();
  for (int m = 0; m < __KERN_CU_VMM_MAX; m++)
    if (s->mapBase[m] && s->mapBase[m] >= ptr && s->mapBase[m] < ptr + size) {
      int h = s->mapHandle[m];
      s->mapBase[m] = 0;
      s->handleMapped[h] = 0;
      __kern_cu_vmm_drop_handle(h);
    }
  return CUDA_SUCCESS;
}
// Access is granted to mapped ranges only (kern's devices all see device memory).
__KERN_CU CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                                  size_t count) {
  __KERN_CU_NEED_INIT
  if (!desc || count == 0)
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; i++) {
    if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE)
      return CUDA_ERROR_INVALID_VALUE;
    __KERN_CU_NEED_DEVICE(desc[i].location.id)
  }
  struct __kern_cu_vmm_state *s = __kern_cu_vmm();
  size_t covered = 0;
  for (int m = 0; m < __KERN_CU_VMM_MAX; m++)
    if (s->mapBase[m] && s->mapBase[m] >= ptr && s->mapBase[m] + s->mapSize[m] <= ptr + size)
      covered += s->mapSize[m];
  return covered == size ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
