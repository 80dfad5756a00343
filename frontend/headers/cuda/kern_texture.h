// CUDA's texture objects, CUDA arrays and 3-D copies, as kern provides them: included before a
// program that names them (cudaTextureObject_t, cudaArray, tex2D...), as cuda_runtime.h
// declares them for nvcc. A texture object is the device address of a descriptor that
// cudaCreateTextureObject writes to device memory; tex1Dfetch, tex1D, tex2D, tex3D,
// tex2DLayered and texCubemap read it and the texels in device memory, with CUDA's addressing
// (wrap, clamp, mirror, border), point or linear filtering (linear weights in 1.8 fixed point,
// as the hardware's) and read modes (element type, or normalized float for 8- and 16-bit
// integers). The texels are read as global memory: kern's counters see them as global loads.
// Surface objects (cudaCreateSurfaceObject, surf2Dwrite, surf2Dread...) store and load the
// elements of arrays made with cudaArraySurfaceLoadStore.
#pragma once

enum cudaChannelFormatKind {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
  cudaChannelFormatKindNone = 3
};
struct cudaChannelFormatDesc {
  int x, y, z, w;
  enum cudaChannelFormatKind f;
};
enum cudaResourceType {
  cudaResourceTypeArray = 0,
  cudaResourceTypeMipmappedArray = 1,
  cudaResourceTypeLinear = 2,
  cudaResourceTypePitch2D = 3
};
enum cudaTextureAddressMode {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };

#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap 0x04
#define cudaArrayTextureGather 0x08
#define cudaCubemapFaceCount 6

// A CUDA array: its texels in device memory, rows of `width` elements without padding.
struct cudaArray {
  void *data;
  struct cudaChannelFormatDesc desc;
  size_t width, height, depth; // depth: layers (layered) or 6 faces (cubemap), else 1
  unsigned int flags;
};
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;

struct cudaExtent {
  size_t width, height, depth;
};
struct cudaPos {
  size_t x, y, z;
};
struct cudaPitchedPtr {
  void *ptr;
  size_t pitch, xsize, ysize;
};
static inline __host__ __device__ struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) {
  struct cudaExtent e = {w, h, d};
  return e;
}
static inline __host__ __device__ struct cudaPos make_cudaPos(size_t x, size_t y, size_t z) {
  struct cudaPos p = {x, y, z};
  return p;
}
static inline __host__ __device__ struct cudaPitchedPtr
make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz) {
  struct cudaPitchedPtr s = {d, p, xsz, ysz};
  return s;
}

// CUDA's union of the resource kinds, kept as one struct of all of them.
struct cudaResourceDesc {
  enum cudaResourceType resType;
  struct {
    struct {
      cudaArray_t array;
    } array;
    struct {
      void *mipmap;
    } mipmap;
    struct {
      void *devPtr;
      struct cudaChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void *devPtr;
      struct cudaChannelFormatDesc desc;
      size_t width, height, pitchInBytes;
    } pitch2D;
  } res;
};
struct cudaTextureDesc {
  enum cudaTextureAddressMode addressMode[3];
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};
struct cudaResourceViewDesc {
  int unused;
};
typedef unsigned long long cudaTextureObject_t;

// What a texture object points to (in device memory).
struct __kern_texture {
  const char *data;
  size_t width, height, depth, pitch, layerBytes; // depth: 1 for 1-D and 2-D
  int channels, channelBytes, kind;               // kind: a cudaChannelFormatKind
  int dims, layered, cubemap;
  int address[3], filter, readMode, normalized;
  float border[4];
};

static inline __host__ cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                                   cudaChannelFormatKind f) {
  cudaChannelFormatDesc d = {x, y, z, w, f};
  return d;
}
template <class T> struct __kern_channel {
  static_assert(sizeof(T) == 0, "cudaCreateChannelDesc<T>: kern has no channel format for T");
  static const int n = 0, bits = 0, kind = 3;
};
template <> struct __kern_channel<float> { static const int n = 1, bits = 32, kind = 2; };
template <> struct __kern_channel<float2> { static const int n = 2, bits = 32, kind = 2; };
template <> struct __kern_channel<float4> { static const int n = 4, bits = 32, kind = 2; };
template <> struct __kern_channel<int> { static const int n = 1, bits = 32, kind = 0; };
template <> struct __kern_channel<unsigned int> { static const int n = 1, bits = 32, kind = 1; };
template <> struct __kern_channel<int2> { static const int n = 2, bits = 32, kind = 0; };
template <> struct __kern_channel<int4> { static const int n = 4, bits = 32, kind = 0; };
template <> struct __kern_channel<uint2> { static const int n = 2, bits = 32, kind = 1; };
template <> struct __kern_channel<uint4> { static const int n = 4, bits = 32, kind = 1; };
template <> struct __kern_channel<char> { static const int n = 1, bits = 8, kind = 0; };
template <> struct __kern_channel<signed char> { static const int n = 1, bits = 8, kind = 0; };
template <> struct __kern_channel<unsigned char> { static const int n = 1, bits = 8, kind = 1; };
template <> struct __kern_channel<uchar2> { static const int n = 2, bits = 8, kind = 1; };
template <> struct __kern_channel<uchar4> { static const int n = 4, bits = 8, kind = 1; };
template <> struct __kern_channel<char4> { static const int n = 4, bits = 8, kind = 0; };
template <> struct __kern_channel<short> { static const int n = 1, bits = 16, kind = 0; };
template <> struct __kern_channel<unsigned short> { static const int n = 1, bits = 16, kind = 1; };
template <> struct __kern_channel<ushort4> { static const int n = 4, bits = 16, kind = 1; };
template <> struct __kern_channel<float1> { static const int n = 1, bits = 32, kind = 2; };
template <> struct __kern_channel<int1> { static const int n = 1, bits = 32, kind = 0; };
template <> struct __kern_channel<uint1> { static const int n = 1, bits = 32, kind = 1; };
template <> struct __kern_channel<char1> { static const int n = 1, bits = 8, kind = 0; };
template <> struct __kern_channel<char2> { static const int n = 2, bits = 8, kind = 0; };
template <> struct __kern_channel<uchar1> { static const int n = 1, bits = 8, kind = 1; };
template <> struct __kern_channel<short1> { static const int n = 1, bits = 16, kind = 0; };
template <> struct __kern_channel<short2> { static const int n = 2, bits = 16, kind = 0; };
template <> struct __kern_channel<short4> { static const int n = 4, bits = 16, kind = 0; };
template <> struct __kern_channel<ushort1> { static const int n = 1, bits = 16, kind = 1; };
template <> struct __kern_channel<ushort2> { static const int n = 2, bits = 16, kind = 1; };
template <class T> __host__ cudaChannelFormatDesc cudaCreateChannelDesc() {
  int b = __kern_channel<T>::bits, n = __kern_channel<T>::n;
  return cudaCreateChannelDesc(b, n > 1 ? b : 0, n > 2 ? b : 0, n > 3 ? b : 0,
                               (cudaChannelFormatKind)__kern_channel<T>::kind);
}

static inline __host__ size_t __kern_texel_bytes(const cudaChannelFormatDesc *d) {
  return (size_t)(d->x + d->y + d->z + d->w) / 8;
}
static inline __host__ int __kern_channels(const cudaChannelFormatDesc *d) {
  return (d->x > 0) + (d->y > 0) + (d->z > 0) + (d->w > 0);
}

static inline __host__ cudaError_t cudaMalloc3DArray(cudaArray_t *array,
                                                     const cudaChannelFormatDesc *desc,
                                                     cudaExtent extent, unsigned int flags = 0) {
  if (!array || !desc || extent.width == 0)
    return cudaErrorInvalidValue;
  cudaArray *a = (cudaArray *)malloc(sizeof(cudaArray));
  a->desc = *desc;
  a->width = extent.width;
  a->height = extent.height ? extent.height : 1;
  a->depth = extent.depth ? extent.depth : 1;
  a->flags = flags;
  a->data = 0;
  cudaError_t e = cudaMalloc(&a->data, a->width * a->height * a->depth * __kern_texel_bytes(desc));
  if (e != cudaSuccess) {
    free(a);
    return e;
  }
  *array = a;
  return cudaSuccess;
}
static inline __host__ cudaError_t cudaMallocArray(cudaArray_t *array,
                                                   const cudaChannelFormatDesc *desc, size_t width,
                                                   size_t height = 0, unsigned int flags = 0) {
  return cudaMalloc3DArray(array, desc, make_cudaExtent(width, height, 0), flags);
}
static inline __host__ cudaError_t cudaFreeArray(cudaArray_t array) {
  if (!array)
    return cudaSuccess;
  cudaError_t e = cudaFree(array->data);
  free(array);
  return e;
}
static inline __host__ cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *extent,
                                                    unsigned int *flags, cudaArray_t array) {
  if (desc)
    *desc = array->desc;
  if (extent)
    *extent = make_cudaExtent(array->width, array->height, array->depth);
  if (flags)
    *flags = array->flags;
  return cudaSuccess;
}
static inline __host__ cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset,
                                                       size_t hOffset, const void *src,
                                                       size_t spitch, size_t width, size_t height,
                                                       cudaMemcpyKind kind) {
  size_t row = dst->width * __kern_texel_bytes(&dst->desc);
  return cudaMemcpy2D((char *)dst->data + hOffset * row + wOffset, row, src, spitch, width, height,
                      kind);
}
static inline __host__ cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset,
                                                     size_t hOffset, const void *src, size_t count,
                                                     cudaMemcpyKind kind) {
  size_t row = dst->width * __kern_texel_bytes(&dst->desc);
  return cudaMemcpy((char *)dst->data + hOffset * row + wOffset, src, count, kind);
}
static inline __host__ cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch,
                                                         cudaArray_const_t src, size_t wOffset,
                                                         size_t hOffset, size_t width,
                                                         size_t height, cudaMemcpyKind kind) {
  size_t row = src->width * __kern_texel_bytes(&src->desc);
  return cudaMemcpy2D(dst, dpitch, (const char *)src->data + hOffset * row + wOffset, row, width,
                      height, kind);
}

struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  struct cudaPos srcPos;
  struct cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  struct cudaPos dstPos;
  struct cudaPitchedPtr dstPtr;
  struct cudaExtent extent;
  enum cudaMemcpyKind kind;
};
// Each row of the extent, from the source (array or pitched pointer) to the destination.
static inline __host__ cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) {
  size_t eb = 1; // bytes per element of the extent: arrays count in elements
  if (p->dstArray)
    eb = __kern_texel_bytes(&p->dstArray->desc);
  else if (p->srcArray)
    eb = __kern_texel_bytes(&p->srcArray->desc);
  size_t rowBytes = p->extent.width * eb;
  size_t h = p->extent.height ? p->extent.height : 1, d = p->extent.depth ? p->extent.depth : 1;
  for (size_t z = 0; z < d; z++)
    for (size_t y = 0; y < h; y++) {
      const char *s;
      char *t;
      if (p->srcArray) {
        const cudaArray *a = p->srcArray;
        s = (const char *)a->data +
            (((p->srcPos.z + z) * a->height + p->srcPos.y + y) * a->width + p->srcPos.x) * eb;
      } else {
        s = (const char *)p->srcPtr.ptr +
            ((p->srcPos.z + z) * p->srcPtr.ysize + p->srcPos.y + y) * p->srcPtr.pitch + p->srcPos.x;
      }
      if (p->dstArray) {
        const cudaArray *a = p->dstArray;
        t = (char *)a->data +
            (((p->dstPos.z + z) * a->height + p->dstPos.y + y) * a->width + p->dstPos.x) * eb;
      } else {
        t = (char *)p->dstPtr.ptr +
            ((p->dstPos.z + z) * p->dstPtr.ysize + p->dstPos.y + y) * p->dstPtr.pitch + p->dstPos.x;
      }
      cudaError_t e = cudaMemcpy(t, s, rowBytes, p->kind);
      if (e != cudaSuccess)
        return e;
    }
  return cudaSuccess;
}

// The descriptor of a texture over `res` read as `td` says (cudaCreateTextureObject's, and a
// texture reference's when it is bound).
static inline __host__ cudaError_t __kern_describe(__kern_texture *tp, const cudaResourceDesc *res,
                                                   const cudaTextureDesc *td) {
  __kern_texture t;
  memset(&t, 0, sizeof t);
  cudaChannelFormatDesc desc;
  t.depth = 1;
  t.dims = 1;
  if (res->resType == cudaResourceTypeArray) {
    const cudaArray *a = res->res.array.array;
    if (!a)
      return cudaErrorInvalidResourceHandle;
    desc = a->desc;
    t.data = (const char *)a->data;
    t.width = a->width;
    t.height = a->height;
    t.depth = a->depth;
    t.layered = (a->flags & cudaArrayLayered) != 0;
    t.cubemap = (a->flags & cudaArrayCubemap) != 0;
    t.dims = a->depth > 1 && !t.layered && !t.cubemap ? 3 : a->height > 1 || t.layered ? 2 : 1;
    t.pitch = a->width * __kern_texel_bytes(&desc);
  } else if (res->resType == cudaResourceTypeLinear) {
    desc = res->res.linear.desc;
    t.data = (const char *)res->res.linear.devPtr;
    t.width = res->res.linear.sizeInBytes / __kern_texel_bytes(&desc);
    t.height = 1;
    t.pitch = res->res.linear.sizeInBytes;
  } else if (res->resType == cudaResourceTypePitch2D) {
    desc = res->res.pitch2D.desc;
    t.data = (const char *)res->res.pitch2D.devPtr;
    t.width = res->res.pitch2D.width;
    t.height = res->res.pitch2D.height;
    t.pitch = res->res.pitch2D.pitchInBytes;
    t.dims = 2;
  } else {
    return cudaErrorInvalidValue; // mipmapped arrays
  }
  t.layerBytes = t.pitch * t.height;
  t.channels = __kern_channels(&desc);
  t.channelBytes = desc.x / 8;
  t.kind = desc.f;
  // Wrap and mirror need normalized coordinates; without them they clamp, as CUDA does.
  for (int i = 0; i < 3; i++)
    t.address[i] = td->normalizedCoords || td->addressMode[i] == cudaAddressModeBorder
                       ? td->addressMode[i]
                       : cudaAddressModeClamp;
  t.filter = td->filterMode;
  t.readMode = td->readMode;
  t.normalized = td->normalizedCoords != 0;
  for (int i = 0; i < 4; i++)
    t.border[i] = td->borderColor[i];
  *tp = t;
  return cudaSuccess;
}
static inline __host__ cudaError_t cudaCreateTextureObject(cudaTextureObject_t *tex,
                                                           const cudaResourceDesc *res,
                                                           const cudaTextureDesc *td,
                                                           const cudaResourceViewDesc *view) {
  if (!tex || !res || !td)
    return cudaErrorInvalidValue;
  __kern_texture t;
  cudaError_t e = __kern_describe(&t, res, td);
  if (e != cudaSuccess)
    return e;
  void *d = 0;
  e = cudaMalloc(&d, sizeof t);
  if (e != cudaSuccess)
    return e;
  cudaMemcpy(d, &t, sizeof t, cudaMemcpyHostToDevice);
  *tex = (cudaTextureObject_t)d;
  return cudaSuccess;
}
static inline __host__ cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex) {
  return cudaFree((void *)tex);
}

// ---- device side: fetching ----

// Channel c of texel (x, y, z) as float (normalized if the read mode asks), or -1 as the
// index of a texel outside the texture (border).
static inline __device__ float __kern_texel(const __kern_texture *t, long x, long y, long z,
                                            int c) {
  if (x < 0 || y < 0 || z < 0 || x >= (long)t->width || y >= (long)t->height || z >= (long)t->depth)
    return t->border[c];
  if (c >= t->channels)
    return c == 3 ? 1.0f : 0.0f;
  const char *p =
      t->data + z * t->layerBytes + y * t->pitch + (x * t->channels + c) * t->channelBytes;
  bool norm = t->readMode == cudaReadModeNormalizedFloat;
  if (t->kind == cudaChannelFormatKindFloat)
    return *(const float *)p;
  if (t->channelBytes == 1) {
    if (t->kind == cudaChannelFormatKindSigned) {
      float v = *(const signed char *)p;
      return norm ? fmaxf(v / 127.0f, -1.0f) : v;
    }
    float v = *(const unsigned char *)p;
    return norm ? v / 255.0f : v;
  }
  if (t->channelBytes == 2) {
    if (t->kind == cudaChannelFormatKindSigned) {
      float v = *(const short *)p;
      return norm ? fmaxf(v / 32767.0f, -1.0f) : v;
    }
    float v = *(const unsigned short *)p;
    return norm ? v / 65535.0f : v;
  }
  if (t->kind == cudaChannelFormatKindSigned)
    return (float)*(const int *)p;
  return (float)*(const unsigned int *)p;
}
// Channel c of texel (x, y, z) as its integer value (element-type reads of integer textures).
static inline __device__ int __kern_texel_int(const __kern_texture *t, long x, long y, long z,
                                              int c) {
  if (x < 0 || y < 0 || z < 0 || x >= (long)t->width || y >= (long)t->height ||
      z >= (long)t->depth || c >= t->channels)
    return 0;
  const char *p =
      t->data + z * t->layerBytes + y * t->pitch + (x * t->channels + c) * t->channelBytes;
  bool s = t->kind == cudaChannelFormatKindSigned;
  if (t->channelBytes == 1)
    return s ? *(const signed char *)p : *(const unsigned char *)p;
  if (t->channelBytes == 2)
    return s ? *(const short *)p : *(const unsigned short *)p;
  return *(const int *)p;
}
// A coordinate's texel index under an address mode (n texels); -1 is outside (border).
static inline __device__ long __kern_address(long i, long n, int mode) {
  if (i >= 0 && i < n)
    return i;
  if (n <= 0)
    return -1; // an unbound texture reference: no texels
  if (mode == cudaAddressModeWrap) {
    long r = i % n;
    return r < 0 ? r + n : r;
  }
  if (mode == cudaAddressModeMirror) {
    long period = 2 * n, r = i % period;
    if (r < 0)
      r += period;
    return r < n ? r : period - 1 - r;
  }
  if (mode == cudaAddressModeBorder)
    return -1;
  return i < 0 ? 0 : n - 1; // clamp
}
// Wrap and mirror act on normalized coordinates (the hardware repeats the texture).
static inline __device__ float __kern_unnormalize(const __kern_texture *t, float u, long n,
                                                  int axis) {
  if (!t->normalized)
    return u;
  return u * (float)n;
}
static inline __device__ float __kern_fetch(const __kern_texture *t, float x, float y, float z,
                                            long layer, int c) {
  long n[3] = {(long)t->width, (long)t->height, (long)t->depth};
  float u[3] = {__kern_unnormalize(t, x, n[0], 0), __kern_unnormalize(t, y, n[1], 1),
                __kern_unnormalize(t, z, n[2], 2)};
  int dims = t->dims;
  if (t->filter == cudaFilterModePoint ||
      t->readMode == cudaReadModeElementType && t->kind != cudaChannelFormatKindFloat) {
    long i[3] = {0, 0, 0};
    for (int k = 0; k < dims; k++)
      i[k] = __kern_address((long)floorf(u[k]), n[k], t->address[k]);
    if (t->layered)
      i[2] = layer;
    return __kern_texel(t, i[0], i[1], i[2], c);
  }
  // Linear: the weights of the two nearest texels in each dimension, in 1.8 fixed point.
  long lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  float a[3] = {0, 0, 0};
  for (int k = 0; k < dims; k++) {
    float b = u[k] - 0.5f, f = floorf(b);
    a[k] = rintf((b - f) * 256.0f) / 256.0f;
    lo[k] = __kern_address((long)f, n[k], t->address[k]);
    hi[k] = __kern_address((long)f + 1, n[k], t->address[k]);
  }
  if (t->layered) {
    lo[2] = hi[2] = layer;
    a[2] = 0;
  }
  float r = 0;
  for (int corner = 0; corner < 8; corner++) {
    float w = 1;
    long i[3];
    bool skip = false;
    for (int k = 0; k < 3; k++) {
      bool up = (corner >> k) & 1;
      if (k >= dims && !(t->layered && k == 2)) {
        if (up)
          skip = true;
        i[k] = 0;
        continue;
      }
      if (t->layered && k == 2) {
        if (up)
          skip = true;
        i[k] = layer;
        continue;
      }
      i[k] = up ? hi[k] : lo[k];
      w *= up ? a[k] : 1.0f - a[k];
    }
    if (skip || w == 0)
      continue;
    r += w * __kern_texel(t, i[0], i[1], i[2], c);
  }
  return r;
}

// The result type T of a fetch, built from its channels.
template <class T> struct __kern_texture_result {
  static_assert(sizeof(T) == 0, "texture fetch: kern does not return this type from a texture");
};
template <> struct __kern_texture_result<float> {
  static __device__ float make(const __kern_texture *t, float x, float y, float z, long l) {
    return __kern_fetch(t, x, y, z, l, 0);
  }
};
template <> struct __kern_texture_result<float2> {
  static __device__ float2 make(const __kern_texture *t, float x, float y, float z, long l) {
    return make_float2(__kern_fetch(t, x, y, z, l, 0), __kern_fetch(t, x, y, z, l, 1));
  }
};
template <> struct __kern_texture_result<float4> {
  static __device__ float4 make(const __kern_texture *t, float x, float y, float z, long l) {
    return make_float4(__kern_fetch(t, x, y, z, l, 0), __kern_fetch(t, x, y, z, l, 1),
                       __kern_fetch(t, x, y, z, l, 2), __kern_fetch(t, x, y, z, l, 3));
  }
};
// Integer results: element-type reads of integer textures, at the nearest texel.
static inline __device__ int __kern_fetch_int(const __kern_texture *t, float x, float y, float z,
                                              long layer, int c) {
  long n[3] = {(long)t->width, (long)t->height, (long)t->depth};
  float u[3] = {__kern_unnormalize(t, x, n[0], 0), __kern_unnormalize(t, y, n[1], 1),
                __kern_unnormalize(t, z, n[2], 2)};
  long i[3] = {0, 0, 0};
  for (int k = 0; k < t->dims; k++)
    i[k] = __kern_address((long)floorf(u[k]), n[k], t->address[k]);
  if (t->layered)
    i[2] = layer;
  return __kern_texel_int(t, i[0], i[1], i[2], c);
}
// Each integer type and vector of them that CUDA's fetches return (char, short, int and their
// unsigned types; 1, 2 and 4 channels), and float1.
#define __KERN_TEXTURE_INT_RESULT(T)                                                               \
  template <> struct __kern_texture_result<T> {                                                    \
    static __device__ T make(const __kern_texture *t, float x, float y, float z, long l) {         \
      return (T)__kern_fetch_int(t, x, y, z, l, 0);                                                \
    }                                                                                              \
  };
#define __KERN_TEXTURE_INT_RESULT1(V, T)                                                           \
  template <> struct __kern_texture_result<V> {                                                    \
    static __device__ V make(const __kern_texture *t, float x, float y, float z, long l) {         \
      V r;                                                                                         \
      r.x = (T)__kern_fetch_int(t, x, y, z, l, 0);                                                 \
      return r;                                                                                    \
    }                                                                                              \
  };
#define __KERN_TEXTURE_INT_RESULT2(V, T)                                                           \
  template <> struct __kern_texture_result<V> {                                                    \
    static __device__ V make(const __kern_texture *t, float x, float y, float z, long l) {         \
      V r;                                                                                         \
      r.x = (T)__kern_fetch_int(t, x, y, z, l, 0);                                                 \
      r.y = (T)__kern_fetch_int(t, x, y, z, l, 1);                                                 \
      return r;                                                                                    \
    }                                                                                              \
  };
#define __KERN_TEXTURE_INT_RESULT4(V, T)                                                           \
  template <> struct __kern_texture_result<V> {                                                    \
    static __device__ V make(const __kern_texture *t, float x, float y, float z, long l) {         \
      V r;                                                                                         \
      r.x = (T)__kern_fetch_int(t, x, y, z, l, 0);                                                 \
      r.y = (T)__kern_fetch_int(t, x, y, z, l, 1);                                                 \
      r.z = (T)__kern_fetch_int(t, x, y, z, l, 2);                                                 \
      r.w = (T)__kern_fetch_int(t, x, y, z, l, 3);                                                 \
      return r;                                                                                    \
    }                                                                                              \
  };
__KERN_TEXTURE_INT_RESULT(char)
__KERN_TEXTURE_INT_RESULT(signed char)
__KERN_TEXTURE_INT_RESULT(unsigned char)
__KERN_TEXTURE_INT_RESULT(short)
__KERN_TEXTURE_INT_RESULT(unsigned short)
__KERN_TEXTURE_INT_RESULT(int)
__KERN_TEXTURE_INT_RESULT(unsigned int)
__KERN_TEXTURE_INT_RESULT1(char1, signed char)
__KERN_TEXTURE_INT_RESULT1(uchar1, unsigned char)
__KERN_TEXTURE_INT_RESULT1(short1, short)
__KERN_TEXTURE_INT_RESULT1(ushort1, unsigned short)
__KERN_TEXTURE_INT_RESULT1(int1, int)
__KERN_TEXTURE_INT_RESULT1(uint1, unsigned int)
__KERN_TEXTURE_INT_RESULT2(char2, signed char)
__KERN_TEXTURE_INT_RESULT2(uchar2, unsigned char)
__KERN_TEXTURE_INT_RESULT2(short2, short)
__KERN_TEXTURE_INT_RESULT2(ushort2, unsigned short)
__KERN_TEXTURE_INT_RESULT2(int2, int)
__KERN_TEXTURE_INT_RESULT2(uint2, unsigned int)
__KERN_TEXTURE_INT_RESULT4(char4, signed char)
__KERN_TEXTURE_INT_RESULT4(uchar4, unsigned char)
__KERN_TEXTURE_INT_RESULT4(short4, short)
__KERN_TEXTURE_INT_RESULT4(ushort4, unsigned short)
__KERN_TEXTURE_INT_RESULT4(int4, int)
__KERN_TEXTURE_INT_RESULT4(uint4, unsigned int)
#undef __KERN_TEXTURE_INT_RESULT
#undef __KERN_TEXTURE_INT_RESULT1
#undef __KERN_TEXTURE_INT_RESULT2
#undef __KERN_TEXTURE_INT_RESULT4
template <> struct __kern_texture_result<float1> {
  static __device__ float1 make(const __kern_texture *t, float x, float y, float z, long l) {
    return make_float1(__kern_fetch(t, x, y, z, l, 0));
  }
};

template <class T> __device__ T tex1Dfetch(cudaTextureObject_t tex, int i) {
  const __kern_texture *t = (const __kern_texture *)tex;
  // Integer addressing: no filtering, no normalized coordinates (out of range: zero).
  __kern_texture copy = *t;
  copy.normalized = 0;
  copy.filter = cudaFilterModePoint;
  copy.address[0] = cudaAddressModeBorder;
  return __kern_texture_result<T>::make(&copy, (float)i + 0.5f, 0.5f, 0.5f, 0);
}
template <class T> __device__ T tex1D(cudaTextureObject_t tex, float x) {
  return __kern_texture_result<T>::make((const __kern_texture *)tex, x, 0.5f, 0.5f, 0);
}
template <class T> __device__ T tex2D(cudaTextureObject_t tex, float x, float y) {
  return __kern_texture_result<T>::make((const __kern_texture *)tex, x, y, 0.5f, 0);
}
template <class T> __device__ T tex3D(cudaTextureObject_t tex, float x, float y, float z) {
  return __kern_texture_result<T>::make((const __kern_texture *)tex, x, y, z, 0);
}
template <class T> __device__ T tex1DLayered(cudaTextureObject_t tex, float x, int layer) {
  return __kern_texture_result<T>::make((const __kern_texture *)tex, x, 0.5f, 0.5f, layer);
}
template <class T> __device__ T tex2DLayered(cudaTextureObject_t tex, float x, float y, int layer) {
  return __kern_texture_result<T>::make((const __kern_texture *)tex, x, y, 0.5f, layer);
}
// A cubemap: the face is the direction's major axis, as CUDA's table gives it.
template <class T> __device__ T texCubemap(cudaTextureObject_t tex, float x, float y, float z) {
  const __kern_texture *t = (const __kern_texture *)tex;
  float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, s, u;
  int face;
  if (ax >= ay && ax >= az) {
    m = ax;
    face = x >= 0 ? 0 : 1;
    s = x >= 0 ? -z : z;
    u = -y;
  } else if (ay >= az) {
    m = ay;
    face = y >= 0 ? 2 : 3;
    s = x;
    u = y >= 0 ? z : -z;
  } else {
    m = az;
    face = z >= 0 ? 4 : 5;
    s = z >= 0 ? x : -x;
    u = -y;
  }
  float fs = (s / m + 1) * 0.5f, ft = (u / m + 1) * 0.5f;
  __kern_texture copy = *t;
  copy.layered = 1;
  copy.dims = 2;
  copy.normalized = 1;
  return __kern_texture_result<T>::make(&copy, fs, ft, 0.5f, face);
}

// ---- surface objects ----
// A surface object is a texture descriptor of a CUDA array (made with cudaArraySurfaceLoadStore);
// surf*write and surf*read store and load whole elements at a byte offset x (x is in bytes, as
// in CUDA), y and z in elements, with no filtering or conversion. Out of range, the boundary
// mode decides: trap (the default) stops the kernel with an assertion, clamp moves the access
// to the nearest element, zero drops a write and reads zero. Accesses are counted as global
// memory accesses.

typedef unsigned long long cudaSurfaceObject_t;
enum cudaSurfaceBoundaryMode {
  cudaBoundaryModeZero = 0,
  cudaBoundaryModeClamp = 1,
  cudaBoundaryModeTrap = 2
};

static inline __host__ cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *surf,
                                                           const cudaResourceDesc *res) {
  if (!surf || !res || res->resType != cudaResourceTypeArray)
    return cudaErrorInvalidValue;
  const cudaArray *a = res->res.array.array;
  if (!a)
    return cudaErrorInvalidResourceHandle;
  // CUDA does not check cudaArraySurfaceLoadStore here (an H100 returns cudaSuccess).
  cudaResourceDesc r = *res;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  return cudaCreateTextureObject((cudaTextureObject_t *)surf, &r, &td, 0);
}
static inline __host__ cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surf) {
  return cudaFree((void *)surf);
}

// The address of the element at byte x, row y, slice z, or NULL where the mode says to skip.
static inline __device__ char *__kern_surface_at(cudaSurfaceObject_t surf, int x, int y, int z,
                                                 int bytes, enum cudaSurfaceBoundaryMode mode) {
  const __kern_texture *t = (const __kern_texture *)surf;
  long rowBytes = (long)t->width * t->channels * t->channelBytes;
  long h = t->dims >= 2 ? (long)t->height : 1, d = t->dims == 3 || t->layered ? (long)t->depth : 1;
  bool inside = x >= 0 && x + bytes <= rowBytes && y >= 0 && y < h && z >= 0 && z < d;
  if (!inside) {
    if (mode == cudaBoundaryModeZero)
      return 0;
    assert(mode == cudaBoundaryModeClamp && "surface access out of range (cudaBoundaryModeTrap)");
    long cx = x < 0 ? 0 : (x + bytes > rowBytes ? rowBytes - bytes : x);
    x = (int)cx;
    y = y < 0 ? 0 : (y >= h ? (int)h - 1 : y);
    z = z < 0 ? 0 : (z >= d ? (int)d - 1 : z);
  }
  return (char *)t->data + (size_t)z * t->layerBytes + (size_t)y * t->pitch + x;
}

template <class T>
__device__ void surf1Dwrite(T data, cudaSurfaceObject_t surf, int x,
                            enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  char *p = __kern_surface_at(surf, x, 0, 0, sizeof(T), mode);
  if (p)
    *(T *)p = data;
}
template <class T>
__device__ void surf2Dwrite(T data, cudaSurfaceObject_t surf, int x, int y,
                            enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  char *p = __kern_surface_at(surf, x, y, 0, sizeof(T), mode);
  if (p)
    *(T *)p = data;
}
template <class T>
__device__ void surf3Dwrite(T data, cudaSurfaceObject_t surf, int x, int y, int z,
                            enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  char *p = __kern_surface_at(surf, x, y, z, sizeof(T), mode);
  if (p)
    *(T *)p = data;
}
template <class T>
__device__ void surf2DLayeredwrite(T data, cudaSurfaceObject_t surf, int x, int y, int layer,
                                   enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  char *p = __kern_surface_at(surf, x, y, layer, sizeof(T), mode);
  if (p)
    *(T *)p = data;
}
template <class T>
__device__ T surf1Dread(cudaSurfaceObject_t surf, int x,
                        enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  T v = T();
  char *p = __kern_surface_at(surf, x, 0, 0, sizeof(T), mode);
  if (p)
    v = *(T *)p;
  return v;
}
template <class T>
__device__ T surf2Dread(cudaSurfaceObject_t surf, int x, int y,
                        enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  T v = T();
  char *p = __kern_surface_at(surf, x, y, 0, sizeof(T), mode);
  if (p)
    v = *(T *)p;
  return v;
}
template <class T>
__device__ T surf3Dread(cudaSurfaceObject_t surf, int x, int y, int z,
                        enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  T v = T();
  char *p = __kern_surface_at(surf, x, y, z, sizeof(T), mode);
  if (p)
    v = *(T *)p;
  return v;
}
template <class T>
__device__ T surf2DLayeredread(cudaSurfaceObject_t surf, int x, int y, int layer,
                               enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  T v = T();
  char *p = __kern_surface_at(surf, x, y, layer, sizeof(T), mode);
  if (p)
    v = *(T *)p;
  return v;
}
// The forms that store the element through a pointer.
template <class T>
__device__ void surf1Dread(T *out, cudaSurfaceObject_t surf, int x,
                           enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  *out = surf1Dread<T>(surf, x, mode);
}
template <class T>
__device__ void surf2Dread(T *out, cudaSurfaceObject_t surf, int x, int y,
                           enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  *out = surf2Dread<T>(surf, x, y, mode);
}
template <class T>
__device__ void surf3Dread(T *out, cudaSurfaceObject_t surf, int x, int y, int z,
                           enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  *out = surf3Dread<T>(surf, x, y, z, mode);
}

#include "kern_texref.h"
