// <GL/glext.h> as kern provides it: the buffer-object entry points of <GL/gl.h> under their
// OpenGL 1.5 and ARB names, as function-pointer types (PFNGL...PROC) for programs that fetch
// them with glXGetProcAddress, and as functions when GL_GLEXT_PROTOTYPES is defined. See
// docs/headers.md.
#ifndef KERN_GLEXT_H
#define KERN_GLEXT_H

#ifndef KERN_GL_H
#include <GL/gl.h>
#endif

#define GL_ARRAY_BUFFER_ARB GL_ARRAY_BUFFER
#define GL_ELEMENT_ARRAY_BUFFER_ARB GL_ELEMENT_ARRAY_BUFFER
#define GL_PIXEL_PACK_BUFFER_ARB GL_PIXEL_PACK_BUFFER
#define GL_PIXEL_UNPACK_BUFFER_ARB GL_PIXEL_UNPACK_BUFFER
#define GL_STREAM_DRAW_ARB GL_STREAM_DRAW
#define GL_STATIC_DRAW_ARB GL_STATIC_DRAW
#define GL_DYNAMIC_DRAW_ARB GL_DYNAMIC_DRAW
#define GL_DYNAMIC_COPY_ARB GL_DYNAMIC_COPY
#define GL_READ_ONLY_ARB GL_READ_ONLY
#define GL_WRITE_ONLY_ARB GL_WRITE_ONLY
#define GL_READ_WRITE_ARB GL_READ_WRITE
typedef GLintptr GLintptrARB;
typedef GLsizeiptr GLsizeiptrARB;

typedef void (*PFNGLGENBUFFERSPROC)(GLsizei n, GLuint *buffers);
typedef void (*PFNGLDELETEBUFFERSPROC)(GLsizei n, const GLuint *buffers);
typedef void (*PFNGLBINDBUFFERPROC)(GLenum target, GLuint buffer);
typedef GLboolean (*PFNGLISBUFFERPROC)(GLuint buffer);
typedef void (*PFNGLBUFFERDATAPROC)(GLenum target, GLsizeiptr size, const void *data, GLenum usage);
typedef void (*PFNGLBUFFERSUBDATAPROC)(GLenum target, GLintptr offset, GLsizeiptr size,
                                       const void *data);
typedef void *(*PFNGLMAPBUFFERPROC)(GLenum target, GLenum access);
typedef GLboolean (*PFNGLUNMAPBUFFERPROC)(GLenum target);
typedef void (*PFNGLGETBUFFERPARAMETERIVPROC)(GLenum target, GLenum pname, GLint *params);
typedef PFNGLGENBUFFERSPROC PFNGLGENBUFFERSARBPROC;
typedef PFNGLDELETEBUFFERSPROC PFNGLDELETEBUFFERSARBPROC;
typedef PFNGLBINDBUFFERPROC PFNGLBINDBUFFERARBPROC;
typedef PFNGLISBUFFERPROC PFNGLISBUFFERARBPROC;
typedef PFNGLBUFFERDATAPROC PFNGLBUFFERDATAARBPROC;
typedef PFNGLBUFFERSUBDATAPROC PFNGLBUFFERSUBDATAARBPROC;
typedef PFNGLMAPBUFFERPROC PFNGLMAPBUFFERARBPROC;
typedef PFNGLUNMAPBUFFERPROC PFNGLUNMAPBUFFERARBPROC;

#ifdef GL_GLEXT_PROTOTYPES
#include <GL/kern_glext_prototypes.h>
#endif

#endif // KERN_GLEXT_H
