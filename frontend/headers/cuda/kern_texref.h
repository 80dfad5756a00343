// CUDA's texture references, as CUDA 11 had them (CUDA 12 removed them): `texture<T, dim,
// readMode> tex;` at file scope, cudaBindTexture, cudaBindTexture2D, cudaBindTextureToArray and
// cudaUnbindTexture on the host, tex1Dfetch(tex, i), tex1D, tex2D, tex3D, tex1DLayered and
// tex2DLayered in kernels. kern_texture.h includes this file.
//
// A reference is a host object (the fields the host sets: normalized, filterMode, addressMode,
// channelDesc...) with a device twin that kern's compiler makes: kernels name the twin, whose
// `__kern_desc` is a texture object's descriptor. Binding writes that descriptor, so a fetch
// through a reference reads what a texture object's fetch reads (the same counters), and the
// reference costs no load of a handle. An unbound reference's descriptor is zeros: its fetches
// return zeros.
#pragma once

#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaTextureTypeCubemapLayered 0xFC

struct textureReference {
  // kern's: the descriptor (used on the device twin only; first, so that its address is the
  // twin's), where the twin's descriptor is and the texture's read mode (the compiler sets
  // both in the host object).
  __kern_texture __kern_desc;
  __kern_texture *__kern_device;
  int __kern_readMode;
  int normalized;
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3];
  struct cudaChannelFormatDesc channelDesc;
  int sRGB;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int __cudaReserved[14];
};

template <class T, int dim = 1, int mode = cudaReadModeElementType>
struct texture : public textureReference {
  char __kern_mode[mode + 1]; // its size tells the compiler the read mode (__kern_readMode)
};

// ---- host: binding ----

// CUDA 11's limits (an H100's): 2-D pitches aligned to texturePitchAlignment, 2^28 texels of
// linear memory, 131072 x 65000 of pitched memory. Base addresses: CUDA promises that any
// pointer cudaMalloc returns binds at offset 0; kern's cudaMalloc aligns to 256 bytes, so
// that is the alignment a base needs here (textureAlignment says 512).
#define __KERN_TEXTURE_ALIGNMENT 256
#define __KERN_TEXTURE_PITCH_ALIGNMENT 32
#define __KERN_TEXTURE_1D_LINEAR (1ul << 28)
#define __KERN_TEXTURE_2D_LINEAR_WIDTH 131072ul
#define __KERN_TEXTURE_2D_LINEAR_HEIGHT 65000ul

static inline __host__ cudaError_t __kern_texref_write(const textureReference *tex,
                                                       const cudaResourceDesc *res, int readMode) {
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  for (int i = 0; i < 3; i++)
    td.addressMode[i] = tex->addressMode[i];
  td.filterMode = tex->filterMode;
  td.readMode = (cudaTextureReadMode)readMode;
  td.normalizedCoords = tex->normalized;
  td.sRGB = tex->sRGB;
  td.maxAnisotropy = tex->maxAnisotropy;
  __kern_texture t;
  cudaError_t e = __kern_describe(&t, res, &td);
  if (e != cudaSuccess)
    return e;
  ((textureReference *)tex)->__kern_readMode = readMode;
  return cudaMemcpy(tex->__kern_device, &t, sizeof t, cudaMemcpyHostToDevice);
}

// A base address the texture hardware can take: devPtr rounded down to textureAlignment, the
// difference in *offset (in bytes). Without offset, devPtr must be aligned.
static inline __host__ cudaError_t __kern_texref_base(size_t *offset, const void *devPtr,
                                                      const char **base) {
  size_t off = (size_t)devPtr % __KERN_TEXTURE_ALIGNMENT;
  if (off != 0 && !offset)
    return cudaErrorInvalidValue;
  if (offset)
    *offset = off;
  *base = (const char *)devPtr - off;
  return cudaSuccess;
}

static inline __host__ cudaError_t cudaBindTexture(size_t *offset, const textureReference *tex,
                                                   const void *devPtr,
                                                   const cudaChannelFormatDesc *desc,
                                                   size_t size = 0xffffffffu) {
  if (!tex || !desc || !devPtr)
    return cudaErrorInvalidValue;
  size_t texel = __kern_texel_bytes(desc);
  if (texel == 0)
    return cudaErrorInvalidValue;
  const char *base;
  cudaError_t e = __kern_texref_base(offset, devPtr, &base);
  if (e != cudaSuccess)
    return e;
  size_t bytes = size + ((const char *)devPtr - base);
  if (size != 0xffffffffu && bytes / texel > __KERN_TEXTURE_1D_LINEAR)
    return cudaErrorInvalidValue;
  if (size == 0xffffffffu && bytes / texel > __KERN_TEXTURE_1D_LINEAR)
    bytes = __KERN_TEXTURE_1D_LINEAR * texel;
  cudaResourceDesc res;
  memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = (void *)base;
  res.res.linear.desc = *desc;
  res.res.linear.sizeInBytes = bytes;
  return __kern_texref_write(tex, &res, tex->__kern_readMode);
}
template <class T, int dim, int mode>
__host__ cudaError_t cudaBindTexture(size_t *offset, const texture<T, dim, mode> &tex,
                                     const void *devPtr, const cudaChannelFormatDesc &desc,
                                     size_t size = 0xffffffffu) {
  ((textureReference *)&tex)->__kern_readMode = mode;
  return cudaBindTexture(offset, (const textureReference *)&tex, devPtr, &desc, size);
}
// The channel format the reference's type gives, unless the host set channelDesc.
template <class T, int dim, int mode>
__host__ cudaChannelFormatDesc __kern_texref_desc(const texture<T, dim, mode> &tex) {
  const cudaChannelFormatDesc &d = tex.channelDesc;
  if (d.x == 0 && d.y == 0 && d.z == 0 && d.w == 0)
    return cudaCreateChannelDesc<T>();
  return d;
}
template <class T, int dim, int mode>
__host__ cudaError_t cudaBindTexture(size_t *offset, const texture<T, dim, mode> &tex,
                                     const void *devPtr, size_t size = 0xffffffffu) {
  cudaChannelFormatDesc desc = __kern_texref_desc(tex);
  return cudaBindTexture(offset, tex, devPtr, desc, size);
}

static inline __host__ cudaError_t cudaBindTexture2D(size_t *offset, const textureReference *tex,
                                                     const void *devPtr,
                                                     const cudaChannelFormatDesc *desc,
                                                     size_t width, size_t height, size_t pitch) {
  if (!tex || !desc || !devPtr)
    return cudaErrorInvalidValue;
  size_t texel = __kern_texel_bytes(desc);
  if (texel == 0)
    return cudaErrorInvalidValue;
  if (width == 0 || height == 0 || width > __KERN_TEXTURE_2D_LINEAR_WIDTH ||
      height > __KERN_TEXTURE_2D_LINEAR_HEIGHT || pitch % __KERN_TEXTURE_PITCH_ALIGNMENT != 0 ||
      width * texel > pitch)
    return cudaErrorInvalidValue;
  const char *base;
  cudaError_t e = __kern_texref_base(offset, devPtr, &base);
  if (e != cudaSuccess)
    return e;
  cudaResourceDesc res;
  memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypePitch2D;
  res.res.pitch2D.devPtr = (void *)base;
  res.res.pitch2D.desc = *desc;
  // The texels before devPtr (its offset) are part of each row, as the hardware sees them.
  res.res.pitch2D.width = width + ((const char *)devPtr - base) / texel;
  res.res.pitch2D.height = height;
  res.res.pitch2D.pitchInBytes = pitch;
  return __kern_texref_write(tex, &res, tex->__kern_readMode);
}
template <class T, int dim, int mode>
__host__ cudaError_t cudaBindTexture2D(size_t *offset, const texture<T, dim, mode> &tex,
                                       const void *devPtr, const cudaChannelFormatDesc &desc,
                                       size_t width, size_t height, size_t pitch) {
  ((textureReference *)&tex)->__kern_readMode = mode;
  return cudaBindTexture2D(offset, (const textureReference *)&tex, devPtr, &desc, width, height,
                           pitch);
}
template <class T, int dim, int mode>
__host__ cudaError_t cudaBindTexture2D(size_t *offset, const texture<T, dim, mode> &tex,
                                       const void *devPtr, size_t width, size_t height,
                                       size_t pitch) {
  cudaChannelFormatDesc desc = __kern_texref_desc(tex);
  return cudaBindTexture2D(offset, tex, devPtr, desc, width, height, pitch);
}

static inline __host__ cudaError_t cudaBindTextureToArray(const textureReference *tex,
                                                          cudaArray_const_t array,
                                                          const cudaChannelFormatDesc *desc) {
  if (!tex || !desc)
    return cudaErrorInvalidValue;
  if (!array)
    return cudaErrorInvalidResourceHandle;
  cudaResourceDesc res;
  memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeArray;
  res.res.array.array = (cudaArray_t)array;
  return __kern_texref_write(tex, &res, tex->__kern_readMode);
}
template <class T, int dim, int mode>
__host__ cudaError_t cudaBindTextureToArray(const texture<T, dim, mode> &tex,
                                            cudaArray_const_t array,
                                            const cudaChannelFormatDesc &desc) {
  ((textureReference *)&tex)->__kern_readMode = mode;
  return cudaBindTextureToArray((const textureReference *)&tex, array, &desc);
}
template <class T, int dim, int mode>
__host__ cudaError_t cudaBindTextureToArray(const texture<T, dim, mode> &tex,
                                            cudaArray_const_t array) {
  if (!array)
    return cudaErrorInvalidResourceHandle;
  ((textureReference *)&tex)->__kern_readMode = mode;
  return cudaBindTextureToArray((const textureReference *)&tex, array, &array->desc);
}

// Unbinding zeros the descriptor: the reference's fetches return zeros again.
static inline __host__ cudaError_t cudaUnbindTexture(const textureReference *tex) {
  if (!tex)
    return cudaErrorInvalidValue;
  return cudaMemset(tex->__kern_device, 0, sizeof(__kern_texture));
}
template <class T, int dim, int mode>
__host__ cudaError_t cudaUnbindTexture(const texture<T, dim, mode> &tex) {
  return cudaUnbindTexture((const textureReference *)&tex);
}

// The reference a symbol names: in kern, the host object itself.
static inline __host__ cudaError_t cudaGetTextureReference(const textureReference **tex,
                                                           const void *symbol) {
  if (!tex || !symbol)
    return cudaErrorInvalidValue;
  *tex = (const textureReference *)symbol;
  return cudaSuccess;
}
static inline __host__ cudaError_t cudaGetTextureAlignmentOffset(size_t *offset,
                                                                 const textureReference *tex) {
  if (!offset || !tex)
    return cudaErrorInvalidValue;
  *offset = 0;
  return cudaSuccess;
}
static inline __host__ cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *desc,
                                                      cudaArray_const_t array) {
  if (!desc)
    return cudaErrorInvalidValue;
  if (!array)
    return cudaErrorInvalidResourceHandle;
  *desc = array->desc;
  return cudaSuccess;
}

// ---- device: fetching ----

// What a fetch returns: T (element type), or float, float2, float4 for a normalized-float read
// of 8- and 16-bit integers.
template <class T, int mode> struct __kern_texref_result { typedef T type; };
template <> struct __kern_texref_result<char, 1> { typedef float type; };
template <> struct __kern_texref_result<signed char, 1> { typedef float type; };
template <> struct __kern_texref_result<unsigned char, 1> { typedef float type; };
template <> struct __kern_texref_result<short, 1> { typedef float type; };
template <> struct __kern_texref_result<unsigned short, 1> { typedef float type; };
template <> struct __kern_texref_result<char1, 1> { typedef float1 type; };
template <> struct __kern_texref_result<uchar1, 1> { typedef float1 type; };
template <> struct __kern_texref_result<short1, 1> { typedef float1 type; };
template <> struct __kern_texref_result<ushort1, 1> { typedef float1 type; };
template <> struct __kern_texref_result<char2, 1> { typedef float2 type; };
template <> struct __kern_texref_result<uchar2, 1> { typedef float2 type; };
template <> struct __kern_texref_result<short2, 1> { typedef float2 type; };
template <> struct __kern_texref_result<ushort2, 1> { typedef float2 type; };
template <> struct __kern_texref_result<char4, 1> { typedef float4 type; };
template <> struct __kern_texref_result<uchar4, 1> { typedef float4 type; };
template <> struct __kern_texref_result<short4, 1> { typedef float4 type; };
template <> struct __kern_texref_result<ushort4, 1> { typedef float4 type; };

template <class T, int dim, int mode>
__device__ __kern_texref_result<T, mode>::type tex1Dfetch(const texture<T, dim, mode> &t, int i) {
  return tex1Dfetch<__kern_texref_result<T, mode>::type>((cudaTextureObject_t)&t.__kern_desc, i);
}
template <class T, int dim, int mode>
__device__ __kern_texref_result<T, mode>::type tex1D(const texture<T, dim, mode> &t, float x) {
  return tex1D<__kern_texref_result<T, mode>::type>((cudaTextureObject_t)&t.__kern_desc, x);
}
template <class T, int dim, int mode>
__device__ __kern_texref_result<T, mode>::type tex2D(const texture<T, dim, mode> &t, float x,
                                                     float y) {
  return tex2D<__kern_texref_result<T, mode>::type>((cudaTextureObject_t)&t.__kern_desc, x, y);
}
template <class T, int dim, int mode>
__device__ __kern_texref_result<T, mode>::type tex3D(const texture<T, dim, mode> &t, float x,
                                                     float y, float z) {
  return tex3D<__kern_texref_result<T, mode>::type>((cudaTextureObject_t)&t.__kern_desc, x, y, z);
}
template <class T, int dim, int mode>
__device__ __kern_texref_result<T, mode>::type tex1DLayered(const texture<T, dim, mode> &t, float x,
                                                            int layer) {
  return tex1DLayered<__kern_texref_result<T, mode>::type>((cudaTextureObject_t)&t.__kern_desc, x,
                                                           layer);
}
template <class T, int dim, int mode>
__device__ __kern_texref_result<T, mode>::type tex2DLayered(const texture<T, dim, mode> &t, float x,
                                                            float y, int layer) {
  return tex2DLayered<__kern_texref_result<T, mode>::type>((cudaTextureObject_t)&t.__kern_desc, x,
                                                           y, layer);
}
