// <GL/glx.h> as kern provides it: glXGetProcAddress, which gives the buffer-object functions of
// <GL/gl.h> by name (as OpenGL 1.5 or ARB names) and NULL for any other. See docs/headers.md.
#ifndef KERN_GLX_H
#define KERN_GLX_H

#include <GL/gl.h>

typedef void (*__GLXextFuncPtr)(void);

static inline __GLXextFuncPtr glXGetProcAddress(const GLubyte *procName) {
  const char *name = (const char *)procName;
  size_t n = strlen(name);
  // The ARB names are the core names with "ARB" appended.
  if (n > 3 && strcmp(name + n - 3, "ARB") == 0)
    n -= 3;
  if (strncmp(name, "glGenBuffers", n) == 0 && n == 12)
    return (__GLXextFuncPtr)__kern_glGenBuffers;
  if (strncmp(name, "glDeleteBuffers", n) == 0 && n == 15)
    return (__GLXextFuncPtr)__kern_glDeleteBuffers;
  if (strncmp(name, "glBindBuffer", n) == 0 && n == 12)
    return (__GLXextFuncPtr)__kern_glBindBuffer;
  if (strncmp(name, "glIsBuffer", n) == 0 && n == 10)
    return (__GLXextFuncPtr)__kern_glIsBuffer;
  if (strncmp(name, "glBufferData", n) == 0 && n == 12)
    return (__GLXextFuncPtr)__kern_glBufferData;
  if (strncmp(name, "glBufferSubData", n) == 0 && n == 15)
    return (__GLXextFuncPtr)__kern_glBufferSubData;
  if (strncmp(name, "glMapBuffer", n) == 0 && n == 11)
    return (__GLXextFuncPtr)__kern_glMapBuffer;
  if (strncmp(name, "glUnmapBuffer", n) == 0 && n == 13)
    return (__GLXextFuncPtr)__kern_glUnmapBuffer;
  return NULL;
}

static inline __GLXextFuncPtr glXGetProcAddressARB(const GLubyte *procName) {
  return glXGetProcAddress(procName);
}

#endif // KERN_GLX_H
