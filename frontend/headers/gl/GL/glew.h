// <GL/glew.h> as kern provides it: GLEW over kern's headless OpenGL (<GL/gl.h>), whose
// buffer-object functions it declares as functions (GL_GLEXT_PROTOTYPES). glewInit succeeds;
// glewIsSupported and glewGetExtension answer for what kern's OpenGL has: OpenGL 1.1 to 1.5
// (buffer objects) and the ARB pixel- and vertex-buffer-object extensions. See docs/headers.md.
#ifndef KERN_GLEW_H
#define KERN_GLEW_H

#ifdef KERN_GL_H
#error "gl.h included before glew.h"
#endif
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>

#define GLEW_OK 0
#define GLEW_NO_ERROR 0
#define GLEW_ERROR_NO_GL_VERSION 1
#define GLEW_VERSION 1
#define GLEW_VERSION_MAJOR 2
#define GLEW_VERSION_MINOR 3
#define GLEW_VERSION_MICRO 4
#define GLEW_VERSION_1_1 1
#define GLEW_VERSION_1_2 1
#define GLEW_VERSION_1_3 1
#define GLEW_VERSION_1_4 1
#define GLEW_VERSION_1_5 1
#define GLEW_VERSION_2_0 0
#define GLEW_ARB_pixel_buffer_object 1
#define GLEW_ARB_vertex_buffer_object 1

static GLboolean glewExperimental = GL_FALSE;

static inline GLenum glewInit(void) { return GLEW_OK; }

static inline const GLubyte *glewGetErrorString(GLenum error) {
  switch (error) {
  case GLEW_OK:
    return (const GLubyte *)"No error";
  case GLEW_ERROR_NO_GL_VERSION:
    return (const GLubyte *)"Missing GL version";
  }
  return (const GLubyte *)"Unknown error";
}

static inline const GLubyte *glewGetString(GLenum name) {
  return name == GLEW_VERSION ? (const GLubyte *)"2.2.0" : (const GLubyte *)0;
}

static inline GLboolean __kern_glew_has(const char *name, size_t n) {
  static const char *const supported[] = {"GL_VERSION_1_1",
                                          "GL_VERSION_1_2",
                                          "GL_VERSION_1_3",
                                          "GL_VERSION_1_4",
                                          "GL_VERSION_1_5",
                                          "GL_ARB_pixel_buffer_object",
                                          "GL_ARB_vertex_buffer_object",
                                          "GL_EXT_pixel_buffer_object"};
  for (size_t i = 0; i < sizeof supported / sizeof supported[0]; i++)
    if (strlen(supported[i]) == n && strncmp(supported[i], name, n) == 0)
      return GL_TRUE;
  return GL_FALSE;
}

static inline GLboolean glewGetExtension(const char *name) {
  return __kern_glew_has(name, strlen(name));
}

// Every name in the space-separated list.
static inline GLboolean glewIsSupported(const char *names) {
  const char *p = names;
  while (*p) {
    while (*p == ' ')
      p++;
    const char *start = p;
    while (*p && *p != ' ')
      p++;
    if (p > start && !__kern_glew_has(start, (size_t)(p - start)))
      return GL_FALSE;
  }
  return GL_TRUE;
}
#define glewIsExtensionSupported glewIsSupported

#endif // KERN_GLEW_H
