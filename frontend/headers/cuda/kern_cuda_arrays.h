// The CUDA arrays, 2-D copies and texture objects of kern's <cuda.h>, over kern_texture.h's
// (C++, as that header is): included by <cuda.h> in C++.
#pragma once
// ---- CUDA arrays, 2-D copies and texture objects (kern_texture.h's, which are C++) ----
// The channel format of `n` channels of `format`; false for a format kern has no texels of.
inline bool __kern_cu_channel_desc(cudaChannelFormatDesc *d, CUarray_format format,
                                   unsigned int n) {
  int bits = 0;
  cudaChannelFormatKind kind = cudaChannelFormatKindNone;
  switch (format) {
  case CU_AD_FORMAT_UNSIGNED_INT8:
    bits = 8, kind = cudaChannelFormatKindUnsigned;
    break;
  case CU_AD_FORMAT_UNSIGNED_INT16:
    bits = 16, kind = cudaChannelFormatKindUnsigned;
    break;
  case CU_AD_FORMAT_UNSIGNED_INT32:
    bits = 32, kind = cudaChannelFormatKindUnsigned;
    break;
  case CU_AD_FORMAT_SIGNED_INT8:
    bits = 8, kind = cudaChannelFormatKindSigned;
    break;
  case CU_AD_FORMAT_SIGNED_INT16:
    bits = 16, kind = cudaChannelFormatKindSigned;
    break;
  case CU_AD_FORMAT_SIGNED_INT32:
    bits = 32, kind = cudaChannelFormatKindSigned;
    break;
  case CU_AD_FORMAT_HALF:
    bits = 16, kind = cudaChannelFormatKindFloat;
    break;
  case CU_AD_FORMAT_FLOAT:
    bits = 32, kind = cudaChannelFormatKindFloat;
    break;
  default:
    return false;
  }
  if (n != 1 && n != 2 && n != 4)
    return false;
  *d = cudaCreateChannelDesc(bits, n >= 2 ? bits : 0, n == 4 ? bits : 0, n == 4 ? bits : 0, kind);
  return true;
}
inline CUresult cuArrayCreate(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray) {
  __KERN_CU_NEED_INIT
  if (!pHandle || !pAllocateArray || pAllocateArray->Width == 0)
    return CUDA_ERROR_INVALID_VALUE;
  cudaChannelFormatDesc d;
  if (!__kern_cu_channel_desc(&d, pAllocateArray->Format, pAllocateArray->NumChannels))
    return CUDA_ERROR_INVALID_VALUE;
  cudaArray_t a = 0;
  cudaError_t e = cudaMallocArray(&a, &d, pAllocateArray->Width, pAllocateArray->Height);
  if (e != cudaSuccess)
    return __kern_cu_result(e);
  *pHandle = a;
  return CUDA_SUCCESS;
}
inline CUresult cuArrayDestroy(CUarray hArray) {
  __KERN_CU_NEED_INIT
  if (!hArray)
    return CUDA_ERROR_INVALID_HANDLE;
  return __kern_cu_result(cudaFreeArray(hArray));
}
inline CUresult cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray) {
  __KERN_CU_NEED_INIT
  if (!pArrayDescriptor)
    return CUDA_ERROR_INVALID_VALUE;
  if (!hArray)
    return CUDA_ERROR_INVALID_HANDLE;
  const cudaChannelFormatDesc &d = hArray->desc;
  int channels = (d.x > 0) + (d.y > 0) + (d.z > 0) + (d.w > 0);
  CUarray_format f = CU_AD_FORMAT_FLOAT;
  if (d.f == cudaChannelFormatKindFloat)
    f = d.x == 16 ? CU_AD_FORMAT_HALF : CU_AD_FORMAT_FLOAT;
  else if (d.f == cudaChannelFormatKindUnsigned)
    f = d.x == 8 ? CU_AD_FORMAT_UNSIGNED_INT8
                 : (d.x == 16 ? CU_AD_FORMAT_UNSIGNED_INT16 : CU_AD_FORMAT_UNSIGNED_INT32);
  else
    f = d.x == 8 ? CU_AD_FORMAT_SIGNED_INT8
                 : (d.x == 16 ? CU_AD_FORMAT_SIGNED_INT16 : CU_AD_FORMAT_SIGNED_INT32);
  pArrayDescriptor->Width = hArray->width;
  pArrayDescriptor->Height = hArray->height;
  pArrayDescriptor->Format = f;
  pArrayDescriptor->NumChannels = (unsigned int)channels;
  return CUDA_SUCCESS;
}
// Where a 2-D copy starts on one side, and its pitch: host or device memory as given, a CUDA
// array's rows (kern keeps them unpadded).
inline CUresult __kern_cu_copy_side(CUmemorytype type, const void *host, CUdeviceptr device,
                                    CUarray array, size_t pitch, size_t x, size_t y,
                                    const char **at, size_t *rowPitch) {
  switch (type) {
  case CU_MEMORYTYPE_HOST:
    *at = (const char *)host + y * pitch + x;
    *rowPitch = pitch;
    return CUDA_SUCCESS;
  case CU_MEMORYTYPE_DEVICE:
  case CU_MEMORYTYPE_UNIFIED:
    *at = (const char *)__KERN_CU_PTR(device) + y * pitch + x;
    *rowPitch = pitch;
    return CUDA_SUCCESS;
  case CU_MEMORYTYPE_ARRAY: {
    if (!array)
      return CUDA_ERROR_INVALID_VALUE;
    size_t row = array->width * __kern_texel_bytes(&array->desc);
    *at = (const char *)array->data + y * row + x;
    *rowPitch = row;
    return CUDA_SUCCESS;
  }
  }
  return CUDA_ERROR_INVALID_VALUE;
}
inline CUresult __kern_cu_memcpy2d(const CUDA_MEMCPY2D *p, bool async, CUstream stream) {
  __KERN_CU_NEED_INIT
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  const char *src = 0, *dst = 0;
  size_t spitch = 0, dpitch = 0;
  CUresult r = __kern_cu_copy_side(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray,
                                   p->srcPitch, p->srcXInBytes, p->srcY, &src, &spitch);
  if (r != CUDA_SUCCESS)
    return r;
  r = __kern_cu_copy_side(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstPitch,
                          p->dstXInBytes, p->dstY, &dst, &dpitch);
  if (r != CUDA_SUCCESS)
    return r;
  bool srcHost = p->srcMemoryType == CU_MEMORYTYPE_HOST;
  bool dstHost = p->dstMemoryType == CU_MEMORYTYPE_HOST;
  cudaMemcpyKind kind = srcHost ? (dstHost ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice)
                                : (dstHost ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice);
  if (p->srcMemoryType == CU_MEMORYTYPE_UNIFIED || p->dstMemoryType == CU_MEMORYTYPE_UNIFIED)
    kind = cudaMemcpyDefault;
  if (async)
    return __kern_cu_result(cudaMemcpy2DAsync((void *)dst, dpitch, src, spitch, p->WidthInBytes,
                                              p->Height, kind, stream));
  return __kern_cu_result(
      cudaMemcpy2D((void *)dst, dpitch, src, spitch, p->WidthInBytes, p->Height, kind));
}
inline CUresult cuMemcpy2D(const CUDA_MEMCPY2D *pCopy) {
  return __kern_cu_memcpy2d(pCopy, false, 0);
}
inline CUresult cuMemcpy2DUnaligned(const CUDA_MEMCPY2D *pCopy) {
  return __kern_cu_memcpy2d(pCopy, false, 0);
}
inline CUresult cuMemcpy2DAsync(const CUDA_MEMCPY2D *pCopy, CUstream hStream) {
  return __kern_cu_memcpy2d(pCopy, true, hStream);
}
inline CUresult cuMemcpyHtoA(CUarray dstArray, size_t dstOffset, const void *srcHost,
                             size_t ByteCount) {
  __KERN_CU_NEED_INIT
  if (!dstArray)
    return CUDA_ERROR_INVALID_HANDLE;
  return __kern_cu_result(
      cudaMemcpy((char *)dstArray->data + dstOffset, srcHost, ByteCount, cudaMemcpyHostToDevice));
}
inline CUresult cuMemcpyAtoH(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount) {
  __KERN_CU_NEED_INIT
  if (!srcArray)
    return CUDA_ERROR_INVALID_HANDLE;
  return __kern_cu_result(cudaMemcpy(dstHost, (const char *)srcArray->data + srcOffset, ByteCount,
                                     cudaMemcpyDeviceToHost));
}
// A texture object over an array, linear or pitched memory. Integer texels of 8 and 16 bits
// read as normalized floats unless CU_TRSF_READ_AS_INTEGER is set, as CUDA's driver reads them.
inline CUresult cuTexObjectCreate(CUtexObject *pTexObject, const CUDA_RESOURCE_DESC *pResDesc,
                                  const CUDA_TEXTURE_DESC *pTexDesc,
                                  const CUDA_RESOURCE_VIEW_DESC *pResViewDesc) {
  __KERN_CU_NEED_INIT
  if (!pTexObject || !pResDesc || !pTexDesc)
    return CUDA_ERROR_INVALID_VALUE;
  if (pResViewDesc)
    return CUDA_ERROR_NOT_SUPPORTED; // resource views: not in kern
  cudaResourceDesc res;
  memset(&res, 0, sizeof res);
  int bits = 32;
  bool isFloat = true;
  switch (pResDesc->resType) {
  case CU_RESOURCE_TYPE_ARRAY:
    if (!pResDesc->res.array.hArray)
      return CUDA_ERROR_INVALID_HANDLE;
    res.resType = cudaResourceTypeArray;
    res.res.array.array = pResDesc->res.array.hArray;
    bits = res.res.array.array->desc.x;
    isFloat = res.res.array.array->desc.f == cudaChannelFormatKindFloat;
    break;
  case CU_RESOURCE_TYPE_LINEAR:
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = __KERN_CU_PTR(pResDesc->res.linear.devPtr);
    res.res.linear.sizeInBytes = pResDesc->res.linear.sizeInBytes;
    if (!__kern_cu_channel_desc(&res.res.linear.desc, pResDesc->res.linear.format,
                                pResDesc->res.linear.numChannels))
      return CUDA_ERROR_INVALID_VALUE;
    bits = res.res.linear.desc.x;
    isFloat = res.res.linear.desc.f == cudaChannelFormatKindFloat;
    break;
  case CU_RESOURCE_TYPE_PITCH2D:
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = __KERN_CU_PTR(pResDesc->res.pitch2D.devPtr);
    res.res.pitch2D.width = pResDesc->res.pitch2D.width;
    res.res.pitch2D.height = pResDesc->res.pitch2D.height;
    res.res.pitch2D.pitchInBytes = pResDesc->res.pitch2D.pitchInBytes;
    if (!__kern_cu_channel_desc(&res.res.pitch2D.desc, pResDesc->res.pitch2D.format,
                                pResDesc->res.pitch2D.numChannels))
      return CUDA_ERROR_INVALID_VALUE;
    bits = res.res.pitch2D.desc.x;
    isFloat = res.res.pitch2D.desc.f == cudaChannelFormatKindFloat;
    break;
  default:
    return CUDA_ERROR_NOT_SUPPORTED; // mipmapped arrays: not in kern
  }
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  for (int i = 0; i < 3; i++)
    td.addressMode[i] = (cudaTextureAddressMode)pTexDesc->addressMode[i];
  td.filterMode = (cudaTextureFilterMode)pTexDesc->filterMode;
  td.readMode = (!isFloat && bits < 32 && !(pTexDesc->flags & CU_TRSF_READ_AS_INTEGER))
                    ? cudaReadModeNormalizedFloat
                    : cudaReadModeElementType;
  td.normalizedCoords = (pTexDesc->flags & CU_TRSF_NORMALIZED_COORDINATES) ? 1 : 0;
  td.sRGB = (pTexDesc->flags & CU_TRSF_SRGB) ? 1 : 0;
  for (int i = 0; i < 4; i++)
    td.borderColor[i] = pTexDesc->borderColor[i];
  td.maxAnisotropy = pTexDesc->maxAnisotropy;
  cudaTextureObject_t t = 0;
  cudaError_t e = cudaCreateTextureObject(&t, &res, &td, 0);
  if (e != cudaSuccess)
    return __kern_cu_result(e);
  *pTexObject = t;
  return CUDA_SUCCESS;
}
inline CUresult cuTexObjectDestroy(CUtexObject texObject) {
  __KERN_CU_NEED_INIT
  return __kern_cu_result(cudaDestroyTextureObject(texObject));
}
