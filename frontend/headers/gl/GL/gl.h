// <GL/gl.h> as kern provides it: a headless OpenGL of the calls that CUDA programs use to show
// an image. The window is a framebuffer in host memory (RGBA, 8 bits a channel, row 0 at the
// bottom as in OpenGL) that <GL/glut.h> creates; glClear fills it, glDrawPixels writes pixels
// from host memory or from the bound pixel-unpack buffer, and glReadPixels reads it back.
// Buffer objects (glGenBuffers, glBindBuffer, glBufferData...) hold their bytes in managed
// memory that host code reads in place, so cudaGraphicsGLRegisterBuffer (<cuda_gl_interop.h>)
// gives kernels the buffer itself: kernels' writes to it are counted as the GPU would count
// them, and showing it makes no transfer (on profiles without managed memory, before cc3.0,
// the buffer is device memory and a pixel call that reaches it copies it, a transfer). Points,
// lines and polygons (glBegin/glEnd, vertex arrays) with 2D textures are drawn by a small
// fixed-function rasterizer (<GL/kern_gl_raster.h> says what it models). The state belongs to
// the translation unit that includes this header. See docs/headers.md.
#ifndef KERN_GL_H
#define KERN_GL_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned int GLenum;
typedef unsigned char GLboolean;
typedef unsigned int GLbitfield;
typedef signed char GLbyte;
typedef short GLshort;
typedef int GLint;
typedef unsigned char GLubyte;
typedef unsigned short GLushort;
typedef unsigned int GLuint;
typedef int GLsizei;
typedef float GLfloat;
typedef float GLclampf;
typedef double GLdouble;
typedef double GLclampd;
typedef char GLchar;
typedef long GLintptr;
typedef long GLsizeiptr;
#define GLvoid void

#define GL_FALSE 0
#define GL_TRUE 1
#define GL_NO_ERROR 0
#define GL_INVALID_ENUM 0x0500
#define GL_INVALID_VALUE 0x0501
#define GL_INVALID_OPERATION 0x0502
#define GL_OUT_OF_MEMORY 0x0505
#define GL_DEPTH_BUFFER_BIT 0x00000100
#define GL_STENCIL_BUFFER_BIT 0x00000400
#define GL_COLOR_BUFFER_BIT 0x00004000
#define GL_BYTE 0x1400
#define GL_UNSIGNED_BYTE 0x1401
#define GL_FLOAT 0x1406
#define GL_RED 0x1903
#define GL_GREEN 0x1904
#define GL_BLUE 0x1905
#define GL_ALPHA 0x1906
#define GL_RGB 0x1907
#define GL_RGBA 0x1908
#define GL_LUMINANCE 0x1909
#define GL_BGR 0x80E0
#define GL_BGRA 0x80E1
#define GL_UNPACK_ALIGNMENT 0x0CF5
#define GL_PACK_ALIGNMENT 0x0D05
#define GL_DEPTH_TEST 0x0B71
#define GL_LIGHTING 0x0B50
#define GL_BLEND 0x0BE2
#define GL_TEXTURE_2D 0x0DE1
#define GL_MODELVIEW 0x1700
#define GL_PROJECTION 0x1701
#define GL_VENDOR 0x1F00
#define GL_RENDERER 0x1F01
#define GL_VERSION 0x1F02
#define GL_EXTENSIONS 0x1F03
#define GL_ARRAY_BUFFER 0x8892
#define GL_ELEMENT_ARRAY_BUFFER 0x8893
#define GL_PIXEL_PACK_BUFFER 0x88EB
#define GL_PIXEL_UNPACK_BUFFER 0x88EC
#define GL_STREAM_DRAW 0x88E0
#define GL_STREAM_READ 0x88E1
#define GL_STREAM_COPY 0x88E2
#define GL_STATIC_DRAW 0x88E4
#define GL_STATIC_READ 0x88E5
#define GL_STATIC_COPY 0x88E6
#define GL_DYNAMIC_DRAW 0x88E8
#define GL_DYNAMIC_READ 0x88E9
#define GL_DYNAMIC_COPY 0x88EA
#define GL_READ_ONLY 0x88B8
#define GL_WRITE_ONLY 0x88B9
#define GL_READ_WRITE 0x88BA
#define GL_BUFFER_SIZE 0x8764

// ---- the state: the window's framebuffer and the buffer objects ----

#define KERN_GL_MAX_BUFFERS 256

struct __kern_gl_buffer {
  void *data; // managed memory (device memory before cc3.0), or NULL before glBufferData
  size_t size;
  int named;  // glGenBuffers gave this name and glDeleteBuffers has not taken it back
  int mapped; // mapped by glMapBuffer
  int device; // data is cudaMalloc'd (profiles without managed memory)
};

struct __kern_gl_context {
  int width, height;    // of the window; 0 before glutCreateWindow
  unsigned char *frame; // width * height RGBA pixels, row 0 at the bottom
  float clear[4];
  GLenum error;
  GLuint unpackBuffer, packBuffer, arrayBuffer;
  GLint unpackAlignment, packAlignment;
  struct __kern_gl_buffer buffers[KERN_GL_MAX_BUFFERS]; // indexed by name; name 0 is none
  int warned;
};

static struct __kern_gl_context __kern_gl_state;

static inline struct __kern_gl_context *__kern_gl(void) {
  struct __kern_gl_context *g = &__kern_gl_state;
  if (g->unpackAlignment == 0) {
    g->unpackAlignment = 4;
    g->packAlignment = 4;
  }
  return g;
}

static inline void __kern_gl_set_error(GLenum e) {
  struct __kern_gl_context *g = __kern_gl();
  if (g->error == GL_NO_ERROR)
    g->error = e;
}

// Called when a call reaches the framebuffer: a program that draws before glutCreateWindow has
// no current context, which OpenGL leaves undefined; kern says so and stops.
static inline struct __kern_gl_context *__kern_gl_window(const char *fn) {
  struct __kern_gl_context *g = __kern_gl();
  if (g->frame == NULL) {
    fprintf(stderr,
            "kern: %s: no current OpenGL context (create a window with glutCreateWindow "
            "first)\n",
            fn);
    exit(1);
  }
  return g;
}

static inline GLenum glGetError(void) {
  struct __kern_gl_context *g = __kern_gl();
  GLenum e = g->error;
  g->error = GL_NO_ERROR;
  return e;
}

static inline const char *__kern_gl_program_error(void);

static inline const GLubyte *glGetString(GLenum name) {
  switch (name) {
  case GL_VENDOR:
    return (const GLubyte *)"kern";
  case GL_RENDERER:
    return (const GLubyte *)"kern headless framebuffer";
  case GL_VERSION:
    return (const GLubyte *)"2.1 kern";
  case GL_EXTENSIONS:
    return (const GLubyte *)"GL_ARB_pixel_buffer_object GL_ARB_vertex_buffer_object "
                            "GL_ARB_fragment_program";
  case 0x8874: // GL_PROGRAM_ERROR_STRING_ARB
    return (const GLubyte *)__kern_gl_program_error();
  }
  __kern_gl_set_error(GL_INVALID_ENUM);
  return NULL;
}

#include <GL/kern_gl_raster.h>

static inline void glClearColor(GLclampf r, GLclampf g, GLclampf b, GLclampf a) {
  struct __kern_gl_context *c = __kern_gl();
  GLclampf v[4] = {r, g, b, a};
  for (int i = 0; i < 4; i++)
    c->clear[i] = v[i] < 0.0f ? 0.0f : (v[i] > 1.0f ? 1.0f : v[i]);
}

static inline void glClear(GLbitfield mask) {
  struct __kern_gl_context *g = __kern_gl_window("glClear");
  if (!(mask & GL_COLOR_BUFFER_BIT))
    return;
  unsigned char px[4];
  for (int i = 0; i < 4; i++)
    px[i] = (unsigned char)(g->clear[i] * 255.0f + 0.5f);
  size_t n = (size_t)g->width * g->height;
  for (size_t i = 0; i < n; i++)
    memcpy(g->frame + 4 * i, px, 4);
}

static inline void glFlush(void) {}
static inline void glFinish(void) {}
static inline void glPixelStorei(GLenum pname, GLint param) {
  struct __kern_gl_context *g = __kern_gl();
  if (param != 1 && param != 2 && param != 4 && param != 8) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  if (pname == GL_UNPACK_ALIGNMENT)
    g->unpackAlignment = param;
  else if (pname == GL_PACK_ALIGNMENT)
    g->packAlignment = param;
  else
    __kern_gl_set_error(GL_INVALID_ENUM);
}

// Bytes of one pixel of (format, type), or 0 for a pair kern does not convert.
static inline int __kern_gl_pixel_bytes(GLenum format, GLenum type) {
  int channels = 0;
  switch (format) {
  case GL_RGBA:
  case GL_BGRA:
    channels = 4;
    break;
  case GL_RGB:
  case GL_BGR:
    channels = 3;
    break;
  case GL_LUMINANCE:
  case GL_RED:
  case GL_GREEN:
  case GL_BLUE:
  case GL_ALPHA:
    channels = 1;
    break;
  default:
    return 0;
  }
  if (type == GL_UNSIGNED_BYTE)
    return channels;
  if (type == GL_FLOAT)
    return 4 * channels;
  return 0;
}

static inline unsigned char __kern_gl_to_byte(const unsigned char *p, GLenum type, int i) {
  if (type == GL_UNSIGNED_BYTE)
    return p[i];
  float f;
  memcpy(&f, p + 4 * i, 4);
  f = f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
  return (unsigned char)(f * 255.0f + 0.5f);
}

// One pixel of the program's data as RGBA (the components a format lacks are 0, alpha 255).
static inline void __kern_gl_unpack(const unsigned char *p, GLenum format, GLenum type,
                                    unsigned char *rgba) {
  rgba[0] = rgba[1] = rgba[2] = 0;
  rgba[3] = 255;
  switch (format) {
  case GL_RGBA:
  case GL_RGB:
    for (int i = 0; i < (format == GL_RGBA ? 4 : 3); i++)
      rgba[i] = __kern_gl_to_byte(p, type, i);
    break;
  case GL_BGRA:
  case GL_BGR:
    rgba[2] = __kern_gl_to_byte(p, type, 0);
    rgba[1] = __kern_gl_to_byte(p, type, 1);
    rgba[0] = __kern_gl_to_byte(p, type, 2);
    if (format == GL_BGRA)
      rgba[3] = __kern_gl_to_byte(p, type, 3);
    break;
  case GL_LUMINANCE:
    rgba[0] = rgba[1] = rgba[2] = __kern_gl_to_byte(p, type, 0);
    break;
  case GL_RED:
    rgba[0] = __kern_gl_to_byte(p, type, 0);
    break;
  case GL_GREEN:
    rgba[1] = __kern_gl_to_byte(p, type, 0);
    break;
  case GL_BLUE:
    rgba[2] = __kern_gl_to_byte(p, type, 0);
    break;
  case GL_ALPHA:
    rgba[3] = __kern_gl_to_byte(p, type, 0);
    break;
  }
}

static inline void __kern_gl_pack(const unsigned char *rgba, GLenum format, GLenum type,
                                  unsigned char *p) {
  unsigned char v[4];
  int n = 0;
  switch (format) {
  case GL_RGBA:
    memcpy(v, rgba, 4);
    n = 4;
    break;
  case GL_RGB:
    memcpy(v, rgba, 3);
    n = 3;
    break;
  case GL_BGRA:
  case GL_BGR:
    v[0] = rgba[2];
    v[1] = rgba[1];
    v[2] = rgba[0];
    v[3] = rgba[3];
    n = format == GL_BGRA ? 4 : 3;
    break;
  case GL_LUMINANCE:
  case GL_RED:
    v[0] = rgba[0];
    n = 1;
    break;
  case GL_GREEN:
    v[0] = rgba[1];
    n = 1;
    break;
  case GL_BLUE:
    v[0] = rgba[2];
    n = 1;
    break;
  case GL_ALPHA:
    v[0] = rgba[3];
    n = 1;
    break;
  }
  for (int i = 0; i < n; i++) {
    if (type == GL_UNSIGNED_BYTE) {
      p[i] = v[i];
    } else {
      float f = v[i] / 255.0f;
      memcpy(p + 4 * i, &f, 4);
    }
  }
}

// The bytes a pixel call reads or writes: `pixels` itself, or an offset into the buffer bound
// (`bound`) when one is. A buffer in device memory (profiles without managed memory) is
// reached through a host copy: *staged is then that copy, which __kern_gl_pixel_done frees
// (after copying it back when the call wrote it).
static inline unsigned char *__kern_gl_pixel_source(GLuint bound, const void *pixels, size_t bytes,
                                                    unsigned char **staged) {
  struct __kern_gl_context *g = __kern_gl();
  *staged = NULL;
  if (bound == 0)
    return (unsigned char *)pixels;
  struct __kern_gl_buffer *b = &g->buffers[bound];
  size_t offset = (size_t)pixels;
  if (b->data == NULL || offset + bytes > b->size || b->mapped) {
    __kern_gl_set_error(GL_INVALID_OPERATION);
    return NULL;
  }
  if (!b->device)
    return (unsigned char *)b->data + offset;
  *staged = (unsigned char *)malloc(bytes > 0 ? bytes : 1);
  cudaMemcpy(*staged, (char *)b->data + offset, bytes, cudaMemcpyDeviceToHost);
  return *staged;
}

static inline void __kern_gl_pixel_done(GLuint bound, const void *pixels, size_t bytes,
                                        unsigned char *staged, int wrote) {
  if (staged == NULL)
    return;
  if (wrote)
    cudaMemcpy((char *)__kern_gl()->buffers[bound].data + (size_t)pixels, staged, bytes,
               cudaMemcpyHostToDevice);
  free(staged);
}

static inline size_t __kern_gl_row_bytes(GLsizei width, int pixel, GLint alignment) {
  size_t row = (size_t)width * pixel;
  return (row + alignment - 1) / alignment * alignment;
}

static inline void glDrawPixels(GLsizei width, GLsizei height, GLenum format, GLenum type,
                                const void *pixels) {
  struct __kern_gl_context *g = __kern_gl_window("glDrawPixels");
  if (width < 0 || height < 0) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  int pixel = __kern_gl_pixel_bytes(format, type);
  if (pixel == 0) {
    if (!g->warned)
      fprintf(stderr,
              "kern: glDrawPixels: format 0x%x with type 0x%x is not supported (GL_RGBA, "
              "GL_RGB, GL_BGRA, GL_BGR, GL_LUMINANCE and one-channel formats of "
              "GL_UNSIGNED_BYTE or GL_FLOAT are)\n",
              format, type);
    g->warned = 1;
    __kern_gl_set_error(GL_INVALID_ENUM);
    return;
  }
  size_t row = __kern_gl_row_bytes(width, pixel, g->unpackAlignment);
  size_t bytes = height > 0 ? row * (height - 1) + width * pixel : 0;
  unsigned char *staged;
  const unsigned char *src = __kern_gl_pixel_source(g->unpackBuffer, pixels, bytes, &staged);
  if (src == NULL)
    return;
  // The lower-left corner is the raster position (glRasterPos); pixels outside the window
  // are dropped.
  int x0 = (int)floorf(__kern_glr()->rasterPos[0]), y0 = (int)floorf(__kern_glr()->rasterPos[1]);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      int wx = x0 + x, wy = y0 + y;
      if (wx < 0 || wy < 0 || wx >= g->width || wy >= g->height)
        continue;
      __kern_gl_unpack(src + y * row + (size_t)x * pixel, format, type,
                       g->frame + 4 * ((size_t)wy * g->width + wx));
    }
  __kern_gl_pixel_done(g->unpackBuffer, pixels, bytes, staged, 0);
}

static inline void glReadPixels(GLint x0, GLint y0, GLsizei width, GLsizei height, GLenum format,
                                GLenum type, void *pixels) {
  struct __kern_gl_context *g = __kern_gl_window("glReadPixels");
  int pixel = __kern_gl_pixel_bytes(format, type);
  if (pixel == 0) {
    __kern_gl_set_error(GL_INVALID_ENUM);
    return;
  }
  if (width < 0 || height < 0) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  size_t row = __kern_gl_row_bytes(width, pixel, g->packAlignment);
  size_t bytes = height > 0 ? row * (height - 1) + width * pixel : 0;
  unsigned char *staged;
  // (The pixels outside the window keep what the destination held.)
  unsigned char *dst = __kern_gl_pixel_source(g->packBuffer, pixels, bytes, &staged);
  if (dst == NULL)
    return;
  // Pixels outside the window are left as they are, as OpenGL leaves them undefined.
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      int wx = x0 + x, wy = y0 + y;
      if (wx < 0 || wy < 0 || wx >= g->width || wy >= g->height)
        continue;
      __kern_gl_pack(g->frame + 4 * ((size_t)wy * g->width + wx), format, type,
                     dst + y * row + (size_t)x * pixel);
    }
  __kern_gl_pixel_done(g->packBuffer, pixels, bytes, staged, 1);
}

// ---- buffer objects (OpenGL 1.5; <GL/glext.h> declares them as the ARB extension names) ----

static inline GLuint *__kern_gl_binding(GLenum target) {
  struct __kern_gl_context *g = __kern_gl();
  switch (target) {
  case GL_PIXEL_UNPACK_BUFFER:
    return &g->unpackBuffer;
  case GL_PIXEL_PACK_BUFFER:
    return &g->packBuffer;
  case GL_ARRAY_BUFFER:
  case GL_ELEMENT_ARRAY_BUFFER:
    return &g->arrayBuffer;
  }
  __kern_gl_set_error(GL_INVALID_ENUM);
  return NULL;
}

static inline void __kern_glGenBuffers(GLsizei n, GLuint *names) {
  struct __kern_gl_context *g = __kern_gl();
  if (n < 0) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  for (GLsizei i = 0; i < n; i++) {
    GLuint name = 1;
    while (name < KERN_GL_MAX_BUFFERS && g->buffers[name].named)
      name++;
    if (name == KERN_GL_MAX_BUFFERS) {
      __kern_gl_set_error(GL_OUT_OF_MEMORY);
      return;
    }
    g->buffers[name].named = 1;
    names[i] = name;
  }
}

static inline void __kern_gl_release(struct __kern_gl_buffer *b) {
  if (b->data != NULL)
    cudaFree(b->data);
  b->data = NULL;
  b->size = 0;
  b->mapped = 0;
}

static inline void __kern_glDeleteBuffers(GLsizei n, const GLuint *names) {
  struct __kern_gl_context *g = __kern_gl();
  for (GLsizei i = 0; i < n; i++) {
    GLuint name = names[i];
    if (name == 0 || name >= KERN_GL_MAX_BUFFERS || !g->buffers[name].named)
      continue;
    __kern_gl_release(&g->buffers[name]);
    g->buffers[name].named = 0;
    GLuint *bound[3] = {&g->unpackBuffer, &g->packBuffer, &g->arrayBuffer};
    for (int k = 0; k < 3; k++)
      if (*bound[k] == name)
        *bound[k] = 0;
  }
}

static inline void __kern_glBindBuffer(GLenum target, GLuint name) {
  GLuint *binding = __kern_gl_binding(target);
  if (binding == NULL)
    return;
  if (name >= KERN_GL_MAX_BUFFERS || (name != 0 && !__kern_gl()->buffers[name].named)) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  *binding = name;
}

static inline void __kern_glGetBufferParameteriv(GLenum target, GLenum pname, GLint *params);

static inline GLboolean __kern_glIsBuffer(GLuint name) {
  return name != 0 && name < KERN_GL_MAX_BUFFERS && __kern_gl()->buffers[name].named;
}

static inline struct __kern_gl_buffer *__kern_gl_bound(GLenum target) {
  GLuint *binding = __kern_gl_binding(target);
  if (binding == NULL)
    return NULL;
  if (*binding == 0) {
    __kern_gl_set_error(GL_INVALID_OPERATION);
    return NULL;
  }
  return &__kern_gl()->buffers[*binding];
}

static inline void __kern_glBufferData(GLenum target, GLsizeiptr size, const void *data,
                                       GLenum usage) {
  struct __kern_gl_buffer *b = __kern_gl_bound(target);
  if (b == NULL)
    return;
  if (size < 0) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  __kern_gl_release(b);
  if (size == 0)
    return;
  void *p = NULL;
  b->device = 0;
  if (cudaMallocManaged(&p, (size_t)size, 1) == cudaSuccess) {
    // Host code (glDrawPixels, glReadPixels) reads the buffer where a kernel left it.
    cudaMemLocation host;
    host.type = cudaMemLocationTypeHost;
    host.id = 0;
    cudaMemAdvise(p, (size_t)size, cudaMemAdviseSetAccessedBy, host);
    // The store is on the GPU, as OpenGL's would be: data, if any, is copied there.
    if (data != NULL)
      cudaMemcpy(p, data, (size_t)size, cudaMemcpyHostToDevice);
    else
      cudaMemset(p, 0, (size_t)size);
  } else {
    cudaGetLastError(); // this profile has no managed memory: the buffer is device memory
    if (cudaMalloc(&p, (size_t)size) != cudaSuccess) {
      cudaGetLastError();
      __kern_gl_set_error(GL_OUT_OF_MEMORY);
      return;
    }
    b->device = 1;
    if (data != NULL)
      cudaMemcpy(p, data, (size_t)size, cudaMemcpyHostToDevice);
    else
      cudaMemset(p, 0, (size_t)size);
  }
  b->data = p;
  b->size = (size_t)size;
}

static inline void __kern_glBufferSubData(GLenum target, GLintptr offset, GLsizeiptr size,
                                          const void *data) {
  struct __kern_gl_buffer *b = __kern_gl_bound(target);
  if (b == NULL)
    return;
  if (offset < 0 || size < 0 || (size_t)(offset + size) > b->size) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  if (b->device)
    cudaMemcpy((char *)b->data + offset, data, (size_t)size, cudaMemcpyHostToDevice);
  else
    memcpy((char *)b->data + offset, data, (size_t)size);
}

static inline void *__kern_glMapBuffer(GLenum target, GLenum access) {
  struct __kern_gl_buffer *b = __kern_gl_bound(target);
  if (b == NULL)
    return NULL;
  if (b->mapped || b->data == NULL || b->device) {
    __kern_gl_set_error(GL_INVALID_OPERATION);
    return NULL;
  }
  b->mapped = 1;
  return b->data;
}

static inline GLboolean __kern_glUnmapBuffer(GLenum target) {
  struct __kern_gl_buffer *b = __kern_gl_bound(target);
  if (b == NULL)
    return GL_FALSE;
  if (!b->mapped) {
    __kern_gl_set_error(GL_INVALID_OPERATION);
    return GL_FALSE;
  }
  b->mapped = 0;
  return GL_TRUE;
}

static inline void __kern_glGetBufferParameteriv(GLenum target, GLenum pname, GLint *params) {
  struct __kern_gl_buffer *b = __kern_gl_bound(target);
  if (b == NULL)
    return;
  if (pname == GL_BUFFER_SIZE)
    params[0] = (GLint)b->size;
  else
    __kern_gl_set_error(GL_INVALID_ENUM);
}

#include <GL/kern_gl_draw.h>

#if !defined(GL_GLEXT_LEGACY) && !defined(KERN_GLEXT_H)
#include <GL/glext.h>
#endif

#endif // KERN_GL_H
