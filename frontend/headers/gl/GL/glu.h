// <GL/glu.h> as kern provides it: the matrix helpers of GLU over kern's headless OpenGL, and
// gluErrorString.
#ifndef KERN_GLU_H
#define KERN_GLU_H

#include <GL/gl.h>

static inline void gluOrtho2D(GLdouble l, GLdouble r, GLdouble b, GLdouble t) {
  glOrtho(l, r, b, t, -1.0, 1.0);
}

static inline void gluPerspective(GLdouble fovy, GLdouble aspect, GLdouble zNear, GLdouble zFar) {
  double f = 1.0 / tan(fovy * 3.14159265358979323846 / 360.0);
  float m[16] = {0};
  m[0] = (float)(f / aspect);
  m[5] = (float)f;
  m[10] = (float)((zFar + zNear) / (zNear - zFar));
  m[11] = -1.0f;
  m[14] = (float)(2.0 * zFar * zNear / (zNear - zFar));
  glMultMatrixf(m);
}

static inline void gluLookAt(GLdouble ex, GLdouble ey, GLdouble ez, GLdouble cx, GLdouble cy,
                             GLdouble cz, GLdouble ux, GLdouble uy, GLdouble uz) {
  double f[3] = {cx - ex, cy - ey, cz - ez};
  double fl = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
  for (int i = 0; i < 3; i++)
    f[i] /= fl;
  double s[3] = {f[1] * uz - f[2] * uy, f[2] * ux - f[0] * uz, f[0] * uy - f[1] * ux};
  double sl = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  for (int i = 0; i < 3; i++)
    s[i] /= sl;
  double u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
  float m[16] = {(float)s[0],
                 (float)u[0],
                 (float)-f[0],
                 0,
                 (float)s[1],
                 (float)u[1],
                 (float)-f[1],
                 0,
                 (float)s[2],
                 (float)u[2],
                 (float)-f[2],
                 0,
                 0,
                 0,
                 0,
                 1};
  glMultMatrixf(m);
  glTranslated(-ex, -ey, -ez);
}

static inline const GLubyte *gluErrorString(GLenum error) {
  switch (error) {
  case GL_NO_ERROR:
    return (const GLubyte *)"no error";
  case GL_INVALID_ENUM:
    return (const GLubyte *)"invalid enumerant";
  case GL_INVALID_VALUE:
    return (const GLubyte *)"invalid value";
  case GL_INVALID_OPERATION:
    return (const GLubyte *)"invalid operation";
  case GL_STACK_OVERFLOW:
    return (const GLubyte *)"stack overflow";
  case GL_STACK_UNDERFLOW:
    return (const GLubyte *)"stack underflow";
  case GL_OUT_OF_MEMORY:
    return (const GLubyte *)"out of memory";
  }
  return (const GLubyte *)0;
}

#endif // KERN_GLU_H
