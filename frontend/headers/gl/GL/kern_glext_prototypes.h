// The buffer-object functions of <GL/glext.h> as functions (GL_GLEXT_PROTOTYPES); also
// included by helper_gl.h, which gives a program these functions as cuda-samples' does.
#ifndef KERN_GLEXT_PROTOTYPES_H
#define KERN_GLEXT_PROTOTYPES_H

static inline void glGenBuffers(GLsizei n, GLuint *buffers) { __kern_glGenBuffers(n, buffers); }
static inline void glDeleteBuffers(GLsizei n, const GLuint *buffers) {
  __kern_glDeleteBuffers(n, buffers);
}
static inline void glBindBuffer(GLenum target, GLuint buffer) {
  __kern_glBindBuffer(target, buffer);
}
static inline GLboolean glIsBuffer(GLuint buffer) { return __kern_glIsBuffer(buffer); }
static inline void glBufferData(GLenum target, GLsizeiptr size, const void *data, GLenum usage) {
  __kern_glBufferData(target, size, data, usage);
}
static inline void glBufferSubData(GLenum target, GLintptr offset, GLsizeiptr size,
                                   const void *data) {
  __kern_glBufferSubData(target, offset, size, data);
}
static inline void *glMapBuffer(GLenum target, GLenum access) {
  return __kern_glMapBuffer(target, access);
}
static inline GLboolean glUnmapBuffer(GLenum target) { return __kern_glUnmapBuffer(target); }
static inline void glGenBuffersARB(GLsizei n, GLuint *buffers) { __kern_glGenBuffers(n, buffers); }
static inline void glDeleteBuffersARB(GLsizei n, const GLuint *buffers) {
  __kern_glDeleteBuffers(n, buffers);
}
static inline void glBindBufferARB(GLenum target, GLuint buffer) {
  __kern_glBindBuffer(target, buffer);
}
static inline void glBufferDataARB(GLenum target, GLsizeiptr size, const void *data, GLenum usage) {
  __kern_glBufferData(target, size, data, usage);
}
static inline void glGetBufferParameteriv(GLenum target, GLenum pname, GLint *params) {
  __kern_glGetBufferParameteriv(target, pname, params);
}
static inline void glGetBufferParameterivARB(GLenum target, GLenum pname, GLint *params) {
  __kern_glGetBufferParameteriv(target, pname, params);
}

#endif // KERN_GLEXT_PROTOTYPES_H
