// helper_gl.h as kern provides it, for the OpenGL samples of CUDA's samples: over kern's
// headless OpenGL (<GL/gl.h>), it gives the buffer-object functions as functions, and
// isGLVersionSupported, areGLExtensionsSupported, glErrorToString, sdkCheckErrorGL and
// SDK_CHECK_ERROR_GL. What the headless OpenGL draws and what it does not is in docs/headers.md.
#ifndef HELPER_GL_H
#define HELPER_GL_H

#include <GL/gl.h>
#include <GL/glx.h>
#include <GL/kern_glext_prototypes.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace __HelperGL {

// The version glGetString(GL_VERSION) reports ("major.minor ...") is at least reqMajor.reqMinor.
static inline int isGLVersionSupported(unsigned reqMajor, unsigned reqMinor) {
  const char *v = (const char *)glGetString(GL_VERSION);
  if (v == NULL)
    return 0;
  unsigned major = 0, minor = 0;
  while (*v >= '0' && *v <= '9')
    major = major * 10 + (unsigned)(*v++ - '0');
  if (*v == '.')
    v++;
  while (*v >= '0' && *v <= '9')
    minor = minor * 10 + (unsigned)(*v++ - '0');
  return major > reqMajor || (major == reqMajor && minor >= reqMinor);
}

// Every space-separated name of `extensions` is in glGetString(GL_EXTENSIONS).
static inline int areGLExtensionsSupported(const std::string &extensions) {
  const char *all = (const char *)glGetString(GL_EXTENSIONS);
  if (all == NULL)
    return 0;
  const char *p = extensions.c_str();
  while (*p != 0) {
    while (*p == ' ')
      p++;
    size_t n = 0;
    while (p[n] != 0 && p[n] != ' ')
      n++;
    if (n == 0)
      break;
    int found = 0;
    for (const char *q = all; *q != 0;) {
      while (*q == ' ')
        q++;
      size_t m = 0;
      while (q[m] != 0 && q[m] != ' ')
        m++;
      if (m == n && strncmp(p, q, n) == 0)
        found = 1;
      q += m;
    }
    if (!found)
      return 0;
    p += n;
  }
  return 1;
}

static inline const char *glErrorToString(GLenum err) {
  switch (err) {
  case GL_NO_ERROR:
    return "GL_NO_ERROR";
  case GL_INVALID_ENUM:
    return "GL_INVALID_ENUM";
  case GL_INVALID_VALUE:
    return "GL_INVALID_VALUE";
  case GL_INVALID_OPERATION:
    return "GL_INVALID_OPERATION";
  case GL_OUT_OF_MEMORY:
    return "GL_OUT_OF_MEMORY";
  case GL_STACK_UNDERFLOW:
    return "GL_STACK_UNDERFLOW";
  case GL_STACK_OVERFLOW:
    return "GL_STACK_OVERFLOW";
  }
  return "*UNKNOWN*";
}

// False, after saying where, when OpenGL has an error to report.
inline bool sdkCheckErrorGL(const char *file, const int line) {
  GLenum e = glGetError();
  if (e == GL_NO_ERROR)
    return true;
  fprintf(stderr, "GL Error in file '%s' in line %d :\n", file, line);
  fprintf(stderr, "%s\n", glErrorToString(e));
  return false;
}

#define SDK_CHECK_ERROR_GL()                                                                       \
  if (false == sdkCheckErrorGL(__FILE__, __LINE__)) {                                              \
    exit(EXIT_FAILURE);                                                                            \
  }

} // namespace __HelperGL

using namespace __HelperGL;

#endif // HELPER_GL_H
