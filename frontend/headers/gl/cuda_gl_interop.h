// <cuda_gl_interop.h> as kern provides it: CUDA's graphics interoperability with the buffer
// objects of kern's headless OpenGL (<GL/gl.h>). Registering a buffer gives a resource; mapping
// it gives kernels the buffer's own memory (cudaGraphicsResourceGetMappedPointer), so what a
// kernel writes there is what glDrawPixels shows, with no copy. Only buffers can be registered
// (not textures or renderbuffers). See docs/headers.md.
#ifndef KERN_CUDA_GL_INTEROP_H
#define KERN_CUDA_GL_INTEROP_H

#include <GL/gl.h>

enum cudaGraphicsRegisterFlags {
  cudaGraphicsRegisterFlagsNone = 0,
  cudaGraphicsRegisterFlagsReadOnly = 1,
  cudaGraphicsRegisterFlagsWriteDiscard = 2,
  cudaGraphicsRegisterFlagsSurfaceLoadStore = 4,
  cudaGraphicsRegisterFlagsTextureGather = 8
};
enum cudaGraphicsMapFlags {
  cudaGraphicsMapFlagsNone = 0,
  cudaGraphicsMapFlagsReadOnly = 1,
  cudaGraphicsMapFlagsWriteDiscard = 2
};
enum cudaGLDeviceList {
  cudaGLDeviceListAll = 1,
  cudaGLDeviceListCurrentFrame = 2,
  cudaGLDeviceListNextFrame = 3
};

struct cudaGraphicsResource {
  GLuint buffer;
  unsigned int flags;
  int mapped;
};
typedef struct cudaGraphicsResource *cudaGraphicsResource_t;

static inline cudaError_t cudaGLSetGLDevice(int device) {
  int count = 0;
  cudaGetDeviceCount(&count);
  if (device < 0 || device >= count)
    return cudaErrorInvalidDevice;
  return cudaSetDevice(device);
}

static inline cudaError_t cudaGLGetDevices(unsigned int *count, int *devices,
                                           unsigned int cudaDeviceCount,
                                           enum cudaGLDeviceList deviceList) {
  *count = 1;
  if (cudaDeviceCount > 0)
    devices[0] = 0;
  return cudaSuccess;
}

static inline cudaError_t cudaGraphicsGLRegisterBuffer(struct cudaGraphicsResource **resource,
                                                       GLuint buffer, unsigned int flags) {
  struct __kern_gl_context *g = __kern_gl();
  if (resource == NULL || flags > 2)
    return cudaErrorInvalidValue;
  if (buffer == 0 || buffer >= KERN_GL_MAX_BUFFERS || !g->buffers[buffer].named ||
      g->buffers[buffer].data == NULL)
    return cudaErrorInvalidValue;
  struct cudaGraphicsResource *r =
      (struct cudaGraphicsResource *)malloc(sizeof(struct cudaGraphicsResource));
  r->buffer = buffer;
  r->flags = flags;
  r->mapped = 0;
  *resource = r;
  return cudaSuccess;
}

static inline cudaError_t cudaGraphicsUnregisterResource(struct cudaGraphicsResource *resource) {
  if (resource == NULL)
    return cudaErrorInvalidResourceHandle;
  free(resource);
  return cudaSuccess;
}

static inline cudaError_t cudaGraphicsResourceSetMapFlags(struct cudaGraphicsResource *resource,
                                                          unsigned int flags) {
  if (resource == NULL)
    return cudaErrorInvalidResourceHandle;
  if (flags > 2)
    return cudaErrorInvalidValue;
  resource->flags = flags;
  return cudaSuccess;
}

static inline cudaError_t cudaGraphicsMapResources(int count,
                                                   struct cudaGraphicsResource **resources,
                                                   cudaStream_t stream = 0) {
  if (count < 0 || (count > 0 && resources == NULL))
    return cudaErrorInvalidValue;
  for (int i = 0; i < count; i++) {
    if (resources[i] == NULL)
      return cudaErrorInvalidResourceHandle;
    if (resources[i]->mapped)
      return cudaErrorAlreadyMapped;
  }
  // OpenGL's work before the map is done when the stream reaches it.
  cudaStreamSynchronize(stream);
  for (int i = 0; i < count; i++)
    resources[i]->mapped = 1;
  return cudaSuccess;
}

static inline cudaError_t cudaGraphicsUnmapResources(int count,
                                                     struct cudaGraphicsResource **resources,
                                                     cudaStream_t stream = 0) {
  if (count < 0 || (count > 0 && resources == NULL))
    return cudaErrorInvalidValue;
  for (int i = 0; i < count; i++) {
    if (resources[i] == NULL)
      return cudaErrorInvalidResourceHandle;
    if (!resources[i]->mapped)
      return cudaErrorNotMapped;
  }
  // OpenGL uses the buffer only after the stream's work before the unmap.
  cudaStreamSynchronize(stream);
  for (int i = 0; i < count; i++)
    resources[i]->mapped = 0;
  return cudaSuccess;
}

static inline cudaError_t
cudaGraphicsResourceGetMappedPointer(void **devPtr, size_t *size,
                                     struct cudaGraphicsResource *resource) {
  if (resource == NULL)
    return cudaErrorInvalidResourceHandle;
  if (!resource->mapped)
    return cudaErrorNotMapped;
  struct __kern_gl_buffer *b = &__kern_gl()->buffers[resource->buffer];
  *devPtr = b->data;
  if (size != NULL)
    *size = b->size;
  return cudaSuccess;
}

#endif // KERN_CUDA_GL_INTEROP_H
