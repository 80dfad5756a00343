// The drawing half of kern's headless OpenGL (included by <GL/gl.h>): the fixed-function
// pipeline of OpenGL 1.x as CUDA samples use it to show a result. Vertices from glBegin/glEnd
// or from vertex arrays (host memory or the bound GL_ARRAY_BUFFER) are transformed by the
// projection and modelview matrices and the viewport, and points, lines, triangles, quads and
// polygons are rasterized into the window's framebuffer at pixel centres, with their colour
// interpolated and, with GL_TEXTURE_2D enabled, a 2D texture sampled (nearest or linear,
// clamp or repeat, GL_REPLACE or GL_MODULATE) and blended by glBlendFunc when GL_BLEND is on.
// Of ARB fragment programs, the texture pass-through (`TEX result.color, fragment.texcoord,
// texture[0], 2D;`) that CUDA's samples use to show an image runs. What is not modelled: depth
// testing, lighting and materials (accepted; vertices keep their colour), mipmaps, other
// fragment programs and GLSL shaders: glProgramStringARB and glCompileShader fail with a log
// that says kern's OpenGL cannot compile them, as a driver without that ability would. See
// docs/headers.md.
#ifndef KERN_GL_RASTER_H
#define KERN_GL_RASTER_H

#define GL_POINTS 0x0000
#define GL_LINES 0x0001
#define GL_LINE_LOOP 0x0002
#define GL_LINE_STRIP 0x0003
#define GL_TRIANGLES 0x0004
#define GL_TRIANGLE_STRIP 0x0005
#define GL_TRIANGLE_FAN 0x0006
#define GL_QUADS 0x0007
#define GL_QUAD_STRIP 0x0008
#define GL_POLYGON 0x0009
#define GL_STACK_OVERFLOW 0x0503
#define GL_STACK_UNDERFLOW 0x0504
#define GL_SHORT 0x1402
#define GL_UNSIGNED_SHORT 0x1403
#define GL_INT 0x1404
#define GL_UNSIGNED_INT 0x1405
#define GL_DOUBLE 0x140A
#define GL_ZERO 0
#define GL_ONE 1
#define GL_SRC_COLOR 0x0300
#define GL_ONE_MINUS_SRC_COLOR 0x0301
#define GL_SRC_ALPHA 0x0302
#define GL_ONE_MINUS_SRC_ALPHA 0x0303
#define GL_DST_ALPHA 0x0304
#define GL_ONE_MINUS_DST_ALPHA 0x0305
#define GL_DST_COLOR 0x0306
#define GL_ONE_MINUS_DST_COLOR 0x0307
#define GL_FRONT 0x0404
#define GL_BACK 0x0405
#define GL_FRONT_AND_BACK 0x0408
#define GL_POINT 0x1B00
#define GL_LINE 0x1B01
#define GL_FILL 0x1B02
#define GL_CULL_FACE 0x0B44
#define GL_POINT_SMOOTH 0x0B10
#define GL_LINE_SMOOTH 0x0B20
#define GL_COLOR_MATERIAL 0x0B57
#define GL_NORMALIZE 0x0BA1
#define GL_ALPHA_TEST 0x0BC0
#define GL_VIEWPORT 0x0BA2
#define GL_MODELVIEW_MATRIX 0x0BA6
#define GL_PROJECTION_MATRIX 0x0BA7
#define GL_MAX_TEXTURE_SIZE 0x0D33
#define GL_POINT_SIZE 0x0B11
#define GL_LIGHT0 0x4000
#define GL_LIGHT1 0x4001
#define GL_AMBIENT 0x1200
#define GL_DIFFUSE 0x1201
#define GL_SPECULAR 0x1202
#define GL_POSITION 0x1203
#define GL_EMISSION 0x1600
#define GL_SHININESS 0x1601
#define GL_AMBIENT_AND_DIFFUSE 0x1602
#define GL_SMOOTH 0x1D01
#define GL_FLAT 0x1D00
#define GL_TEXTURE_ENV 0x2300
#define GL_TEXTURE_ENV_MODE 0x2200
#define GL_MODULATE 0x2100
#define GL_DECAL 0x2101
#define GL_REPLACE 0x1E01
#define GL_NEAREST 0x2600
#define GL_LINEAR 0x2601
#define GL_NEAREST_MIPMAP_NEAREST 0x2700
#define GL_LINEAR_MIPMAP_NEAREST 0x2701
#define GL_NEAREST_MIPMAP_LINEAR 0x2702
#define GL_LINEAR_MIPMAP_LINEAR 0x2703
#define GL_TEXTURE_MAG_FILTER 0x2800
#define GL_TEXTURE_MIN_FILTER 0x2801
#define GL_TEXTURE_WRAP_S 0x2802
#define GL_TEXTURE_WRAP_T 0x2803
// Mipmaps are not kept (level 0 is sampled): asking for them is accepted.
#define GL_GENERATE_MIPMAP 0x8191
#define GL_GENERATE_MIPMAP_SGIS 0x8191
#define GL_CLAMP 0x2900
#define GL_REPEAT 0x2901
#define GL_CLAMP_TO_EDGE 0x812F
#define GL_TEXTURE_BINDING_2D 0x8069
#define GL_RGB8 0x8051
#define GL_RGBA8 0x8058
#define GL_LUMINANCE8 0x8040
#define GL_RGBA32F_ARB 0x8814
#define GL_RGB32F_ARB 0x8815
#define GL_RGBA16F_ARB 0x881A
#define GL_RGB16F_ARB 0x881B
#define GL_RGBA8UI_EXT 0x8D7C
#define GL_RGBA_INTEGER_EXT 0x8D99
#define GL_TEXTURE0 0x84C0
#define GL_TEXTURE1 0x84C1
#define GL_TEXTURE2 0x84C2
#define GL_TEXTURE3 0x84C3
#define GL_VERTEX_ARRAY 0x8074
#define GL_NORMAL_ARRAY 0x8075
#define GL_COLOR_ARRAY 0x8076
#define GL_TEXTURE_COORD_ARRAY 0x8078
#define GL_CLAMP_VERTEX_COLOR_ARB 0x891A
#define GL_CLAMP_FRAGMENT_COLOR_ARB 0x891B
#define GL_CLAMP_READ_COLOR_ARB 0x891C
#define GL_POINT_SPRITE_ARB 0x8861
#define GL_COORD_REPLACE_ARB 0x8862
#define GL_VERTEX_PROGRAM_POINT_SIZE 0x8642
#define GL_VERTEX_PROGRAM_POINT_SIZE_NV 0x8642
#define GL_FRAGMENT_SHADER 0x8B30
#define GL_VERTEX_SHADER 0x8B31
#define GL_COMPILE_STATUS 0x8B81
#define GL_LINK_STATUS 0x8B82
#define GL_INFO_LOG_LENGTH 0x8B84
#define GL_FRAGMENT_PROGRAM_ARB 0x8804
#define GL_VERTEX_PROGRAM_ARB 0x8620
#define GL_PROGRAM_FORMAT_ASCII_ARB 0x8875
#define GL_PROGRAM_ERROR_POSITION_ARB 0x864B
#define GL_PROGRAM_ERROR_STRING_ARB 0x8874
#define GL_FRAMEBUFFER_EXT 0x8D40
#define GL_RENDERBUFFER_EXT 0x8D41
#define GL_COLOR_ATTACHMENT0_EXT 0x8CE0
#define GL_COLOR_ATTACHMENT1_EXT 0x8CE1
#define GL_COLOR_ATTACHMENT2_EXT 0x8CE2
#define GL_COLOR_ATTACHMENT3_EXT 0x8CE3
#define GL_DEPTH_ATTACHMENT_EXT 0x8D00
#define GL_FRAMEBUFFER_COMPLETE_EXT 0x8CD5
#define GL_FRAMEBUFFER_UNSUPPORTED_EXT 0x8CDD
#define GL_DEPTH_COMPONENT 0x1902
#define GL_DEPTH_COMPONENT24 0x81A6

#define KERN_GL_MAX_TEXTURES 64
#define KERN_GL_STACK 32
#define KERN_GL_MAX_VERTICES 65536

struct __kern_gl_texture {
  unsigned char *texels; // RGBA, row 0 first (t = 0)
  int width, height;
  int named;
  GLenum minFilter, magFilter, wrapS, wrapT;
};

struct __kern_gl_vertex {
  float pos[4];   // clip coordinates
  float color[4]; // 0..1
  float tex[2];
};

struct __kern_gl_raster {
  int ready;
  float stack[2][KERN_GL_STACK][16]; // [0] modelview, [1] projection; column-major
  int depth[2];
  int mode; // the matrix glMatrixMode chose: 0 or 1
  int viewport[4];
  int viewportSet;
  int texture2d, blend;
  GLenum blendSrc, blendDst, texEnv;
  GLuint boundTexture;
  struct __kern_gl_texture textures[KERN_GL_MAX_TEXTURES];
  float color[4];
  float texCoord[2];
  float pointSize;
  float rasterPos[2];
  // glBegin ... glEnd
  GLenum primitive; // 0xFFFF outside glBegin
  struct __kern_gl_vertex *vertices;
  int count;
  // vertex arrays
  int vertexArray, colorArray, texCoordArray;
  GLint vertexSize, colorSize, texCoordSize;
  GLenum vertexType, colorType, texCoordType;
  GLsizei vertexStride, colorStride, texCoordStride;
  const void *vertexPointer, *colorPointer, *texCoordPointer;
  GLuint vertexBuffer, colorBuffer, texCoordBuffer; // the GL_ARRAY_BUFFER bound at *Pointer
  int warnedShaders, warnedFramebuffers, warnedLists;
  // ARB fragment programs: the one kern runs is the texture pass-through (kern_gl_arrays.h)
  int fragmentProgram;             // GL_FRAGMENT_PROGRAM_ARB enabled
  GLuint boundProgram;             // bound to GL_FRAGMENT_PROGRAM_ARB
  unsigned char programValid[256]; // by name: its string was the pass-through
  GLint programErrorPosition;      // -1, or where the last glProgramStringARB failed
};

static struct __kern_gl_raster __kern_gl_raster_state;

static inline void __kern_gl_identity(float *m) {
  for (int i = 0; i < 16; i++)
    m[i] = (i % 5 == 0) ? 1.0f : 0.0f;
}

static inline struct __kern_gl_raster *__kern_glr(void) {
  struct __kern_gl_raster *r = &__kern_gl_raster_state;
  if (!r->ready) {
    r->ready = 1;
    __kern_gl_identity(r->stack[0][0]);
    __kern_gl_identity(r->stack[1][0]);
    r->color[0] = r->color[1] = r->color[2] = r->color[3] = 1.0f;
    r->blendSrc = GL_ONE;
    r->blendDst = GL_ZERO;
    r->texEnv = GL_MODULATE;
    r->pointSize = 1.0f;
    r->primitive = 0xFFFF;
    r->programErrorPosition = -1;
  }
  return r;
}

static inline float *__kern_gl_top(void) {
  struct __kern_gl_raster *r = __kern_glr();
  return r->stack[r->mode][r->depth[r->mode]];
}

// m = m * n (column-major, as OpenGL multiplies the current matrix on the right).
static inline void __kern_gl_mult(float *m, const float *n) {
  float out[16];
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 4; r++) {
      float s = 0.0f;
      for (int k = 0; k < 4; k++)
        s += m[k * 4 + r] * n[c * 4 + k];
      out[c * 4 + r] = s;
    }
  memcpy(m, out, sizeof out);
}

static inline void glMatrixMode(GLenum mode) {
  if (mode == GL_MODELVIEW)
    __kern_glr()->mode = 0;
  else if (mode == GL_PROJECTION)
    __kern_glr()->mode = 1;
  else
    __kern_gl_set_error(GL_INVALID_ENUM);
}
static inline void glLoadIdentity(void) { __kern_gl_identity(__kern_gl_top()); }
static inline void glLoadMatrixf(const GLfloat *m) {
  memcpy(__kern_gl_top(), m, 16 * sizeof(float));
}
static inline void glMultMatrixf(const GLfloat *m) { __kern_gl_mult(__kern_gl_top(), m); }
static inline void glPushMatrix(void) {
  struct __kern_gl_raster *r = __kern_glr();
  if (r->depth[r->mode] + 1 >= KERN_GL_STACK) {
    __kern_gl_set_error(GL_STACK_OVERFLOW);
    return;
  }
  memcpy(r->stack[r->mode][r->depth[r->mode] + 1], r->stack[r->mode][r->depth[r->mode]],
         16 * sizeof(float));
  r->depth[r->mode]++;
}
static inline void glPopMatrix(void) {
  struct __kern_gl_raster *r = __kern_glr();
  if (r->depth[r->mode] == 0) {
    __kern_gl_set_error(GL_STACK_UNDERFLOW);
    return;
  }
  r->depth[r->mode]--;
}
static inline void glOrtho(GLdouble l, GLdouble r, GLdouble b, GLdouble t, GLdouble n, GLdouble f) {
  if (l == r || b == t || n == f) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  float m[16] = {0};
  m[0] = (float)(2.0 / (r - l));
  m[5] = (float)(2.0 / (t - b));
  m[10] = (float)(-2.0 / (f - n));
  m[12] = (float)(-(r + l) / (r - l));
  m[13] = (float)(-(t + b) / (t - b));
  m[14] = (float)(-(f + n) / (f - n));
  m[15] = 1.0f;
  __kern_gl_mult(__kern_gl_top(), m);
}
static inline void glFrustum(GLdouble l, GLdouble r, GLdouble b, GLdouble t, GLdouble n,
                             GLdouble f) {
  if (n <= 0 || f <= 0 || l == r || b == t || n == f) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  float m[16] = {0};
  m[0] = (float)(2 * n / (r - l));
  m[5] = (float)(2 * n / (t - b));
  m[8] = (float)((r + l) / (r - l));
  m[9] = (float)((t + b) / (t - b));
  m[10] = (float)(-(f + n) / (f - n));
  m[11] = -1.0f;
  m[14] = (float)(-2 * f * n / (f - n));
  __kern_gl_mult(__kern_gl_top(), m);
}
static inline void glTranslatef(GLfloat x, GLfloat y, GLfloat z) {
  float m[16];
  __kern_gl_identity(m);
  m[12] = x;
  m[13] = y;
  m[14] = z;
  __kern_gl_mult(__kern_gl_top(), m);
}
static inline void glTranslated(GLdouble x, GLdouble y, GLdouble z) {
  glTranslatef((float)x, (float)y, (float)z);
}
static inline void glScalef(GLfloat x, GLfloat y, GLfloat z) {
  float m[16];
  __kern_gl_identity(m);
  m[0] = x;
  m[5] = y;
  m[10] = z;
  __kern_gl_mult(__kern_gl_top(), m);
}
static inline void glRotatef(GLfloat angle, GLfloat x, GLfloat y, GLfloat z) {
  float len = sqrtf(x * x + y * y + z * z);
  if (len == 0.0f)
    return;
  x /= len;
  y /= len;
  z /= len;
  float a = angle * 3.14159265358979f / 180.0f, c = cosf(a), s = sinf(a), k = 1.0f - c;
  float m[16] = {x * x * k + c,
                 y * x * k + z * s,
                 x * z * k - y * s,
                 0,
                 x * y * k - z * s,
                 y * y * k + c,
                 y * z * k + x * s,
                 0,
                 x * z * k + y * s,
                 y * z * k - x * s,
                 z * z * k + c,
                 0,
                 0,
                 0,
                 0,
                 1};
  __kern_gl_mult(__kern_gl_top(), m);
}

static inline void glViewport(GLint x, GLint y, GLsizei w, GLsizei h) {
  if (w < 0 || h < 0) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  struct __kern_gl_raster *r = __kern_glr();
  r->viewport[0] = x;
  r->viewport[1] = y;
  r->viewport[2] = w;
  r->viewport[3] = h;
  r->viewportSet = 1;
}

// The viewport: what glViewport set, else the whole window (OpenGL's initial viewport).
static inline void __kern_gl_viewport(int *v) {
  struct __kern_gl_raster *r = __kern_glr();
  if (r->viewportSet) {
    memcpy(v, r->viewport, 4 * sizeof(int));
  } else {
    v[0] = v[1] = 0;
    v[2] = __kern_gl()->width;
    v[3] = __kern_gl()->height;
  }
}

static inline void glEnable(GLenum cap) {
  if (cap == GL_FRAGMENT_PROGRAM_ARB)
    __kern_glr()->fragmentProgram = 1;
  else if (cap == GL_TEXTURE_2D)
    __kern_glr()->texture2d = 1;
  else if (cap == GL_BLEND)
    __kern_glr()->blend = 1;
}
static inline void glDisable(GLenum cap) {
  if (cap == GL_FRAGMENT_PROGRAM_ARB)
    __kern_glr()->fragmentProgram = 0;
  else if (cap == GL_TEXTURE_2D)
    __kern_glr()->texture2d = 0;
  else if (cap == GL_BLEND)
    __kern_glr()->blend = 0;
}
static inline GLboolean glIsEnabled(GLenum cap) {
  if (cap == GL_TEXTURE_2D)
    return (GLboolean)__kern_glr()->texture2d;
  if (cap == GL_BLEND)
    return (GLboolean)__kern_glr()->blend;
  return GL_FALSE;
}
static inline void glBlendFunc(GLenum src, GLenum dst) {
  __kern_glr()->blendSrc = src;
  __kern_glr()->blendDst = dst;
}
// Accepted; kern's OpenGL has no depth buffer, lighting or smooth shading model to change.
static inline void glDepthMask(GLboolean flag) {}
static inline void glDepthFunc(GLenum func) {}
static inline void glShadeModel(GLenum mode) {}
static inline void glPolygonMode(GLenum face, GLenum mode) {}
static inline void glCullFace(GLenum mode) {}
static inline void glHint(GLenum target, GLenum mode) {}
static inline void glLineWidth(GLfloat width) {}
static inline void glMaterialf(GLenum face, GLenum pname, GLfloat param) {}
static inline void glMaterialfv(GLenum face, GLenum pname, const GLfloat *params) {}
static inline void glLightf(GLenum light, GLenum pname, GLfloat param) {}
static inline void glLightfv(GLenum light, GLenum pname, const GLfloat *params) {}
static inline void glLightModelfv(GLenum pname, const GLfloat *params) {}
static inline void glNormal3f(GLfloat x, GLfloat y, GLfloat z) {}
static inline void glClampColorARB(GLenum target, GLenum clamp) {}
static inline void glPointSize(GLfloat size) {
  if (size <= 0.0f)
    __kern_gl_set_error(GL_INVALID_VALUE);
  else
    __kern_glr()->pointSize = size;
}

static inline void glColor4f(GLfloat r, GLfloat g, GLfloat b, GLfloat a) {
  float *c = __kern_glr()->color;
  c[0] = r;
  c[1] = g;
  c[2] = b;
  c[3] = a;
}
static inline void glColor3f(GLfloat r, GLfloat g, GLfloat b) { glColor4f(r, g, b, 1.0f); }
static inline void glColor3fv(const GLfloat *v) { glColor4f(v[0], v[1], v[2], 1.0f); }
static inline void glColor4fv(const GLfloat *v) { glColor4f(v[0], v[1], v[2], v[3]); }
static inline void glColor3ub(GLubyte r, GLubyte g, GLubyte b) {
  glColor4f(r / 255.0f, g / 255.0f, b / 255.0f, 1.0f);
}
static inline void glTexCoord2f(GLfloat s, GLfloat t) {
  __kern_glr()->texCoord[0] = s;
  __kern_glr()->texCoord[1] = t;
}

#endif // KERN_GL_RASTER_H
