// Textures, primitives and the rasterizer of kern's headless OpenGL (included at the end of
// <GL/gl.h>; the state and the matrices are in <GL/kern_gl_raster.h>, which says what is and
// is not modelled).
#ifndef KERN_GL_DRAW_H
#define KERN_GL_DRAW_H

// ---- textures (GL_TEXTURE_2D, level 0) ----

static inline struct __kern_gl_texture *__kern_gl_tex(GLuint name) {
  if (name == 0 || name >= KERN_GL_MAX_TEXTURES || !__kern_glr()->textures[name].named)
    return NULL;
  return &__kern_glr()->textures[name];
}

static inline void glGenTextures(GLsizei n, GLuint *names) {
  struct __kern_gl_raster *r = __kern_glr();
  if (n < 0) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  for (GLsizei i = 0; i < n; i++) {
    GLuint name = 1;
    while (name < KERN_GL_MAX_TEXTURES && r->textures[name].named)
      name++;
    if (name == KERN_GL_MAX_TEXTURES) {
      __kern_gl_set_error(GL_OUT_OF_MEMORY);
      return;
    }
    struct __kern_gl_texture *t = &r->textures[name];
    memset(t, 0, sizeof *t);
    t->named = 1;
    t->minFilter = GL_NEAREST_MIPMAP_LINEAR; // OpenGL's initial values
    t->magFilter = GL_LINEAR;
    t->wrapS = t->wrapT = GL_REPEAT;
    names[i] = name;
  }
}

static inline void glDeleteTextures(GLsizei n, const GLuint *names) {
  struct __kern_gl_raster *r = __kern_glr();
  for (GLsizei i = 0; i < n; i++) {
    struct __kern_gl_texture *t = __kern_gl_tex(names[i]);
    if (t == NULL)
      continue;
    free(t->texels);
    memset(t, 0, sizeof *t);
    if (r->boundTexture == names[i])
      r->boundTexture = 0;
  }
}

static inline void glBindTexture(GLenum target, GLuint name) {
  if (target != GL_TEXTURE_2D) {
    __kern_gl_set_error(GL_INVALID_ENUM);
    return;
  }
  if (name != 0 && __kern_gl_tex(name) == NULL) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  __kern_glr()->boundTexture = name;
}

static inline GLboolean glIsTexture(GLuint name) { return __kern_gl_tex(name) != NULL; }

// The texture bound to GL_TEXTURE_2D, or NULL (with GL_INVALID_OPERATION for texture 0).
static inline struct __kern_gl_texture *__kern_gl_bound_texture(GLenum target) {
  if (target != GL_TEXTURE_2D) {
    __kern_gl_set_error(GL_INVALID_ENUM);
    return NULL;
  }
  struct __kern_gl_texture *t = __kern_gl_tex(__kern_glr()->boundTexture);
  if (t == NULL)
    __kern_gl_set_error(GL_INVALID_OPERATION);
  return t;
}

static inline void glTexParameteri(GLenum target, GLenum pname, GLint param) {
  struct __kern_gl_texture *t = __kern_gl_bound_texture(target);
  if (t == NULL)
    return;
  switch (pname) {
  case GL_TEXTURE_MIN_FILTER:
    t->minFilter = (GLenum)param;
    break;
  case GL_TEXTURE_MAG_FILTER:
    t->magFilter = (GLenum)param;
    break;
  case GL_TEXTURE_WRAP_S:
    t->wrapS = (GLenum)param;
    break;
  case GL_TEXTURE_WRAP_T:
    t->wrapT = (GLenum)param;
    break;
  }
}
static inline void glTexParameterf(GLenum target, GLenum pname, GLfloat param) {
  glTexParameteri(target, pname, (GLint)param);
}
static inline void glTexEnvi(GLenum target, GLenum pname, GLint param) {
  if (target == GL_TEXTURE_ENV && pname == GL_TEXTURE_ENV_MODE)
    __kern_glr()->texEnv = (GLenum)param;
}
static inline void glTexEnvf(GLenum target, GLenum pname, GLfloat param) {
  glTexEnvi(target, pname, (GLint)param);
}
// One texture unit is modelled: the others are accepted and never sampled.
static inline void glActiveTexture(GLenum unit) {}
static inline void glClientActiveTexture(GLenum unit) {}

// Copies width x height pixels of (format, type) into the texture at (x0, y0).
static inline void __kern_gl_tex_store(struct __kern_gl_texture *t, int x0, int y0, GLsizei width,
                                       GLsizei height, GLenum format, GLenum type,
                                       const void *pixels, const char *fn) {
  struct __kern_gl_context *g = __kern_gl();
  if (format == GL_RGBA_INTEGER_EXT)
    format = GL_RGBA;
  int pixel = __kern_gl_pixel_bytes(format, type);
  if (pixel == 0) {
    fprintf(stderr, "kern: %s: format 0x%x with type 0x%x is not supported\n", fn, format, type);
    __kern_gl_set_error(GL_INVALID_ENUM);
    return;
  }
  if (pixels == NULL && g->unpackBuffer == 0)
    return; // no data: the texels stay as they are (zero for a new image)
  size_t row = __kern_gl_row_bytes(width, pixel, g->unpackAlignment);
  size_t bytes = height > 0 ? row * (height - 1) + width * pixel : 0;
  unsigned char *staged;
  const unsigned char *src = __kern_gl_pixel_source(g->unpackBuffer, pixels, bytes, &staged);
  if (src == NULL)
    return;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      __kern_gl_unpack(src + y * row + (size_t)x * pixel, format, type,
                       t->texels + 4 * ((size_t)(y0 + y) * t->width + x0 + x));
  __kern_gl_pixel_done(g->unpackBuffer, pixels, bytes, staged, 0);
}

static inline void glTexImage2D(GLenum target, GLint level, GLint internalFormat, GLsizei width,
                                GLsizei height, GLint border, GLenum format, GLenum type,
                                const void *pixels) {
  struct __kern_gl_texture *t = __kern_gl_bound_texture(target);
  if (t == NULL)
    return;
  if (width < 0 || height < 0 || level < 0 || border != 0) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  if (level > 0)
    return; // mipmap levels are not modelled: only level 0 is sampled
  free(t->texels);
  t->texels = (unsigned char *)calloc((size_t)width * height + 1, 4);
  t->width = width;
  t->height = height;
  __kern_gl_tex_store(t, 0, 0, width, height, format, type, pixels, "glTexImage2D");
}

static inline void glTexSubImage2D(GLenum target, GLint level, GLint x, GLint y, GLsizei width,
                                   GLsizei height, GLenum format, GLenum type, const void *pixels) {
  struct __kern_gl_texture *t = __kern_gl_bound_texture(target);
  if (t == NULL)
    return;
  if (level > 0)
    return;
  if (x < 0 || y < 0 || width < 0 || height < 0 || x + width > t->width || y + height > t->height) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  __kern_gl_tex_store(t, x, y, width, height, format, type, pixels, "glTexSubImage2D");
}

static inline float __kern_gl_wrap(float c, int size, GLenum wrap, int *i0, int *i1) {
  float u = c * size - 0.5f;
  if (wrap == GL_REPEAT)
    u = (c - floorf(c)) * size - 0.5f;
  float f = floorf(u);
  *i0 = (int)f;
  *i1 = *i0 + 1;
  if (wrap == GL_REPEAT) {
    *i0 = ((*i0 % size) + size) % size;
    *i1 = ((*i1 % size) + size) % size;
  } else {
    *i0 = *i0 < 0 ? 0 : (*i0 >= size ? size - 1 : *i0);
    *i1 = *i1 < 0 ? 0 : (*i1 >= size ? size - 1 : *i1);
  }
  return u - f;
}

static inline int __kern_gl_nearest(float c, int size, GLenum wrap) {
  if (wrap == GL_REPEAT)
    c = c - floorf(c);
  int i = (int)floorf(c * size);
  return i < 0 ? 0 : (i >= size ? size - 1 : i);
}

// Samples the bound texture at (s, t); `minify` picks the minification filter.
static inline void __kern_gl_sample(const struct __kern_gl_texture *t, float s, float tc,
                                    int minify, float *out) {
  GLenum filter = minify ? t->minFilter : t->magFilter;
  if (filter == GL_NEAREST_MIPMAP_NEAREST || filter == GL_NEAREST_MIPMAP_LINEAR)
    filter = GL_NEAREST;
  if (filter == GL_LINEAR_MIPMAP_NEAREST || filter == GL_LINEAR_MIPMAP_LINEAR)
    filter = GL_LINEAR;
  if (filter == GL_NEAREST) {
    int x = __kern_gl_nearest(s, t->width, t->wrapS),
        y = __kern_gl_nearest(tc, t->height, t->wrapT);
    const unsigned char *p = t->texels + 4 * ((size_t)y * t->width + x);
    for (int k = 0; k < 4; k++)
      out[k] = p[k] / 255.0f;
    return;
  }
  int x0, x1, y0, y1;
  float a = __kern_gl_wrap(s, t->width, t->wrapS, &x0, &x1);
  float b = __kern_gl_wrap(tc, t->height, t->wrapT, &y0, &y1);
  const unsigned char *p00 = t->texels + 4 * ((size_t)y0 * t->width + x0);
  const unsigned char *p10 = t->texels + 4 * ((size_t)y0 * t->width + x1);
  const unsigned char *p01 = t->texels + 4 * ((size_t)y1 * t->width + x0);
  const unsigned char *p11 = t->texels + 4 * ((size_t)y1 * t->width + x1);
  for (int k = 0; k < 4; k++)
    out[k] = ((1 - a) * (1 - b) * p00[k] + a * (1 - b) * p10[k] + (1 - a) * b * p01[k] +
              a * b * p11[k]) /
             255.0f;
}

// The texture that fragments sample, or NULL: texturing off, no texture, or an incomplete one
// (a mipmap minification filter without mipmaps makes a texture incomplete, and OpenGL then
// draws as if texturing were off).
static inline const struct __kern_gl_texture *__kern_gl_active_texture(void) {
  struct __kern_gl_raster *r = __kern_glr();
  if (!r->texture2d && !r->fragmentProgram)
    return NULL;
  const struct __kern_gl_texture *t = __kern_gl_tex(r->boundTexture);
  if (t == NULL || t->texels == NULL || t->width == 0 || t->height == 0)
    return NULL;
  if (t->minFilter != GL_NEAREST && t->minFilter != GL_LINEAR)
    return NULL;
  return t;
}

// ---- fragments ----

static inline float __kern_gl_factor(GLenum f, const float *src, const float *dst, int k) {
  switch (f) {
  case GL_ZERO:
    return 0.0f;
  case GL_ONE:
    return 1.0f;
  case GL_SRC_COLOR:
    return src[k];
  case GL_ONE_MINUS_SRC_COLOR:
    return 1.0f - src[k];
  case GL_SRC_ALPHA:
    return src[3];
  case GL_ONE_MINUS_SRC_ALPHA:
    return 1.0f - src[3];
  case GL_DST_ALPHA:
    return dst[3];
  case GL_ONE_MINUS_DST_ALPHA:
    return 1.0f - dst[3];
  case GL_DST_COLOR:
    return dst[k];
  case GL_ONE_MINUS_DST_COLOR:
    return 1.0f - dst[k];
  }
  return 1.0f;
}

// Writes one fragment at window pixel (x, y) with colour `color` and texture coordinates `tex`.
static inline void __kern_gl_fragment(int x, int y, const float *color, const float *tex,
                                      const struct __kern_gl_texture *t, int minify,
                                      const int *vp) {
  struct __kern_gl_context *g = __kern_gl();
  struct __kern_gl_raster *r = __kern_glr();
  if (x < 0 || y < 0 || x >= g->width || y >= g->height || x < vp[0] || y < vp[1] ||
      x >= vp[0] + vp[2] || y >= vp[1] + vp[3])
    return;
  float c[4];
  memcpy(c, color, sizeof c);
  // The pass-through fragment program: the texel, or (0, 0, 0, 1) from an incomplete texture.
  GLenum env = r->fragmentProgram ? GL_REPLACE : r->texEnv;
  if (t == NULL && r->fragmentProgram) {
    c[0] = c[1] = c[2] = 0.0f;
    c[3] = 1.0f;
  }
  if (t != NULL) {
    float s[4];
    __kern_gl_sample(t, tex[0], tex[1], minify, s);
    for (int k = 0; k < 4; k++) {
      if (env == GL_REPLACE)
        c[k] = s[k];
      else if (env == GL_DECAL)
        c[k] = k < 3 ? c[k] * (1 - s[3]) + s[k] * s[3] : c[k];
      else
        c[k] *= s[k];
    }
  }
  unsigned char *p = g->frame + 4 * ((size_t)y * g->width + x);
  for (int k = 0; k < 4; k++)
    c[k] = c[k] < 0.0f ? 0.0f : (c[k] > 1.0f ? 1.0f : c[k]);
  if (r->blend) {
    float d[4], out[4];
    for (int k = 0; k < 4; k++)
      d[k] = p[k] / 255.0f;
    for (int k = 0; k < 4; k++) {
      out[k] = c[k] * __kern_gl_factor(r->blendSrc, c, d, k) +
               d[k] * __kern_gl_factor(r->blendDst, c, d, k);
      out[k] = out[k] > 1.0f ? 1.0f : out[k];
    }
    memcpy(c, out, sizeof c);
  }
  for (int k = 0; k < 4; k++)
    p[k] = (unsigned char)(c[k] * 255.0f + 0.5f);
}

// Window coordinates of a vertex; 0 when it is behind the eye (w <= 0), which kern does not clip.
static inline int __kern_gl_to_window(const struct __kern_gl_vertex *v, const int *vp, float *w) {
  if (v->pos[3] <= 0.0f)
    return 0;
  w[0] = vp[0] + (v->pos[0] / v->pos[3] + 1.0f) * 0.5f * vp[2];
  w[1] = vp[1] + (v->pos[1] / v->pos[3] + 1.0f) * 0.5f * vp[3];
  w[2] = 1.0f / v->pos[3];
  return 1;
}

static inline int __kern_gl_top_left(float ax, float ay, float bx, float by) {
  return (ay == by && bx < ax) || by < ay;
}

// Fills the triangle abc: pixels whose centres are inside (top-left rule on the edges), with
// perspective-correct colour and texture coordinates.
static inline void __kern_gl_triangle(const struct __kern_gl_vertex *a,
                                      const struct __kern_gl_vertex *b,
                                      const struct __kern_gl_vertex *c, const int *vp) {
  float A[3], B[3], C[3];
  if (!__kern_gl_to_window(a, vp, A) || !__kern_gl_to_window(b, vp, B) ||
      !__kern_gl_to_window(c, vp, C))
    return;
  float area = (B[0] - A[0]) * (C[1] - A[1]) - (B[1] - A[1]) * (C[0] - A[0]);
  if (area == 0.0f)
    return;
  if (area < 0.0f) { // make it counter-clockwise
    const struct __kern_gl_vertex *tv = b;
    b = c;
    c = tv;
    float tmp[3];
    memcpy(tmp, B, sizeof tmp);
    memcpy(B, C, sizeof tmp);
    memcpy(C, tmp, sizeof tmp);
    area = -area;
  }
  const struct __kern_gl_texture *t = __kern_gl_active_texture();
  int minify = 0;
  if (t != NULL) { // texels per pixel over the triangle picks the filter
    float ta = fabsf((b->tex[0] - a->tex[0]) * (c->tex[1] - a->tex[1]) -
                     (b->tex[1] - a->tex[1]) * (c->tex[0] - a->tex[0])) *
               t->width * t->height;
    minify = ta > area * 1.0001f;
  }
  int x0 = (int)floorf(fminf(A[0], fminf(B[0], C[0]))),
      x1 = (int)ceilf(fmaxf(A[0], fmaxf(B[0], C[0])));
  int y0 = (int)floorf(fminf(A[1], fminf(B[1], C[1]))),
      y1 = (int)ceilf(fmaxf(A[1], fmaxf(B[1], C[1])));
  x0 = x0 < vp[0] ? vp[0] : x0;
  y0 = y0 < vp[1] ? vp[1] : y0;
  x1 = x1 > vp[0] + vp[2] ? vp[0] + vp[2] : x1;
  y1 = y1 > vp[1] + vp[3] ? vp[1] + vp[3] : y1;
  int tlA = __kern_gl_top_left(B[0], B[1], C[0], C[1]);
  int tlB = __kern_gl_top_left(C[0], C[1], A[0], A[1]);
  int tlC = __kern_gl_top_left(A[0], A[1], B[0], B[1]);
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++) {
      float px = x + 0.5f, py = y + 0.5f;
      float wa = (C[0] - B[0]) * (py - B[1]) - (C[1] - B[1]) * (px - B[0]);
      float wb = (A[0] - C[0]) * (py - C[1]) - (A[1] - C[1]) * (px - C[0]);
      float wc = (B[0] - A[0]) * (py - A[1]) - (B[1] - A[1]) * (px - A[0]);
      if (wa < 0 || wb < 0 || wc < 0 || (wa == 0 && !tlA) || (wb == 0 && !tlB) || (wc == 0 && !tlC))
        continue;
      float la = wa / area * A[2], lb = wb / area * B[2], lc = wc / area * C[2];
      float sum = la + lb + lc;
      la /= sum;
      lb /= sum;
      lc /= sum;
      float col[4], tex[2];
      for (int k = 0; k < 4; k++)
        col[k] = la * a->color[k] + lb * b->color[k] + lc * c->color[k];
      for (int k = 0; k < 2; k++)
        tex[k] = la * a->tex[k] + lb * b->tex[k] + lc * c->tex[k];
      __kern_gl_fragment(x, y, col, tex, t, minify, vp);
    }
}

static inline void __kern_gl_point(const struct __kern_gl_vertex *v, const int *vp) {
  float W[3];
  if (!__kern_gl_to_window(v, vp, W))
    return;
  float size = __kern_glr()->pointSize;
  int n = (int)(size + 0.5f);
  n = n < 1 ? 1 : n;
  int x0 = (int)floorf(W[0] - n * 0.5f + 0.5f), y0 = (int)floorf(W[1] - n * 0.5f + 0.5f);
  const struct __kern_gl_texture *t = __kern_gl_active_texture();
  for (int y = y0; y < y0 + n; y++)
    for (int x = x0; x < x0 + n; x++)
      __kern_gl_fragment(x, y, v->color, v->tex, t, 0, vp);
}

static inline void __kern_gl_line(const struct __kern_gl_vertex *a,
                                  const struct __kern_gl_vertex *b, const int *vp) {
  float A[3], B[3];
  if (!__kern_gl_to_window(a, vp, A) || !__kern_gl_to_window(b, vp, B))
    return;
  float dx = B[0] - A[0], dy = B[1] - A[1];
  int steps = (int)ceilf(fmaxf(fabsf(dx), fabsf(dy)));
  const struct __kern_gl_texture *t = __kern_gl_active_texture();
  for (int i = 0; i < steps; i++) { // the last pixel belongs to the next segment
    float f = (float)i / steps;
    float col[4], tex[2];
    for (int k = 0; k < 4; k++)
      col[k] = a->color[k] + f * (b->color[k] - a->color[k]);
    for (int k = 0; k < 2; k++)
      tex[k] = a->tex[k] + f * (b->tex[k] - a->tex[k]);
    __kern_gl_fragment((int)floorf(A[0] + f * dx), (int)floorf(A[1] + f * dy), col, tex, t, 0, vp);
  }
}

// Draws `n` assembled vertices as primitives of `mode`.
static inline void __kern_gl_primitives(GLenum mode, const struct __kern_gl_vertex *v, int n) {
  struct __kern_gl_context *g = __kern_gl_window("drawing");
  (void)g;
  struct __kern_gl_raster *r = __kern_glr();
  if (r->fragmentProgram && (r->boundProgram >= 256 || !r->programValid[r->boundProgram])) {
    __kern_gl_set_error(GL_INVALID_OPERATION); // no valid program: nothing is drawn
    return;
  }
  int vp[4];
  __kern_gl_viewport(vp);
  switch (mode) {
  case GL_POINTS:
    for (int i = 0; i < n; i++)
      __kern_gl_point(&v[i], vp);
    break;
  case GL_LINES:
    for (int i = 0; i + 1 < n; i += 2)
      __kern_gl_line(&v[i], &v[i + 1], vp);
    break;
  case GL_LINE_STRIP:
  case GL_LINE_LOOP:
    for (int i = 0; i + 1 < n; i++)
      __kern_gl_line(&v[i], &v[i + 1], vp);
    if (mode == GL_LINE_LOOP && n > 2)
      __kern_gl_line(&v[n - 1], &v[0], vp);
    break;
  case GL_TRIANGLES:
    for (int i = 0; i + 2 < n; i += 3)
      __kern_gl_triangle(&v[i], &v[i + 1], &v[i + 2], vp);
    break;
  case GL_TRIANGLE_STRIP:
    for (int i = 0; i + 2 < n; i++)
      __kern_gl_triangle(&v[i], &v[i + 1], &v[i + 2], vp);
    break;
  case GL_TRIANGLE_FAN:
  case GL_POLYGON:
    for (int i = 1; i + 1 < n; i++)
      __kern_gl_triangle(&v[0], &v[i], &v[i + 1], vp);
    break;
  case GL_QUADS:
    for (int i = 0; i + 3 < n; i += 4) {
      __kern_gl_triangle(&v[i], &v[i + 1], &v[i + 2], vp);
      __kern_gl_triangle(&v[i], &v[i + 2], &v[i + 3], vp);
    }
    break;
  case GL_QUAD_STRIP:
    for (int i = 0; i + 3 < n; i += 2) {
      __kern_gl_triangle(&v[i], &v[i + 1], &v[i + 3], vp);
      __kern_gl_triangle(&v[i], &v[i + 3], &v[i + 2], vp);
    }
    break;
  default:
    __kern_gl_set_error(GL_INVALID_ENUM);
  }
}

// Object coordinates to clip coordinates: projection * modelview * (x, y, z, w).
static inline void __kern_gl_transform(const float *obj, float *clip) {
  struct __kern_gl_raster *r = __kern_glr();
  const float *m = r->stack[0][r->depth[0]], *p = r->stack[1][r->depth[1]];
  float eye[4];
  for (int i = 0; i < 4; i++)
    eye[i] = m[i] * obj[0] + m[4 + i] * obj[1] + m[8 + i] * obj[2] + m[12 + i] * obj[3];
  for (int i = 0; i < 4; i++)
    clip[i] = p[i] * eye[0] + p[4 + i] * eye[1] + p[8 + i] * eye[2] + p[12 + i] * eye[3];
}

// ---- glBegin / glEnd ----

static inline void glBegin(GLenum mode) {
  struct __kern_gl_raster *r = __kern_glr();
  if (r->primitive != 0xFFFF || mode > GL_POLYGON) {
    __kern_gl_set_error(mode > GL_POLYGON ? GL_INVALID_ENUM : GL_INVALID_OPERATION);
    return;
  }
  if (r->vertices == NULL)
    r->vertices =
        (struct __kern_gl_vertex *)malloc(KERN_GL_MAX_VERTICES * sizeof(struct __kern_gl_vertex));
  r->primitive = mode;
  r->count = 0;
}

static inline void glVertex4f(GLfloat x, GLfloat y, GLfloat z, GLfloat w) {
  struct __kern_gl_raster *r = __kern_glr();
  if (r->primitive == 0xFFFF || r->count == KERN_GL_MAX_VERTICES)
    return; // outside glBegin/glEnd a vertex is undefined; past the limit it is dropped
  struct __kern_gl_vertex *v = &r->vertices[r->count++];
  float obj[4] = {x, y, z, w};
  __kern_gl_transform(obj, v->pos);
  memcpy(v->color, r->color, sizeof v->color);
  memcpy(v->tex, r->texCoord, sizeof v->tex);
}
static inline void glVertex3f(GLfloat x, GLfloat y, GLfloat z) { glVertex4f(x, y, z, 1.0f); }
static inline void glVertex2f(GLfloat x, GLfloat y) { glVertex4f(x, y, 0.0f, 1.0f); }
static inline void glVertex2i(GLint x, GLint y) { glVertex4f((float)x, (float)y, 0.0f, 1.0f); }
static inline void glVertex3fv(const GLfloat *v) { glVertex4f(v[0], v[1], v[2], 1.0f); }
static inline void glVertex2fv(const GLfloat *v) { glVertex4f(v[0], v[1], 0.0f, 1.0f); }
static inline void glVertex3dv(const GLdouble *v) {
  glVertex4f((GLfloat)v[0], (GLfloat)v[1], (GLfloat)v[2], 1.0f);
}

static inline void glEnd(void) {
  struct __kern_gl_raster *r = __kern_glr();
  if (r->primitive == 0xFFFF) {
    __kern_gl_set_error(GL_INVALID_OPERATION);
    return;
  }
  GLenum mode = r->primitive;
  r->primitive = 0xFFFF;
  __kern_gl_primitives(mode, r->vertices, r->count);
}

// glRasterPos: where glDrawPixels puts its lower-left corner, in window coordinates.
static inline void glRasterPos4f(GLfloat x, GLfloat y, GLfloat z, GLfloat w) {
  struct __kern_gl_vertex v;
  float obj[4] = {x, y, z, w};
  __kern_gl_transform(obj, v.pos);
  int vp[4];
  __kern_gl_viewport(vp);
  float W[3];
  if (__kern_gl_to_window(&v, vp, W)) {
    __kern_glr()->rasterPos[0] = W[0];
    __kern_glr()->rasterPos[1] = W[1];
  }
}
static inline void glRasterPos2f(GLfloat x, GLfloat y) { glRasterPos4f(x, y, 0.0f, 1.0f); }
static inline void glRasterPos2i(GLint x, GLint y) {
  glRasterPos4f((float)x, (float)y, 0.0f, 1.0f);
}
static inline void glRasterPos3f(GLfloat x, GLfloat y, GLfloat z) { glRasterPos4f(x, y, z, 1.0f); }

// glRect: a filled rectangle in the plane z = 0, the polygon of its four corners.
static inline void glRectf(GLfloat x1, GLfloat y1, GLfloat x2, GLfloat y2) {
  glBegin(GL_POLYGON);
  glVertex2f(x1, y1);
  glVertex2f(x2, y1);
  glVertex2f(x2, y2);
  glVertex2f(x1, y2);
  glEnd();
}
static inline void glRecti(GLint x1, GLint y1, GLint x2, GLint y2) {
  glRectf((GLfloat)x1, (GLfloat)y1, (GLfloat)x2, (GLfloat)y2);
}

#include <GL/kern_gl_arrays.h>

#endif // KERN_GL_DRAW_H
