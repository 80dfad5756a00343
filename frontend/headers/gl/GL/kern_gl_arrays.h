// Vertex arrays, state queries, and the calls kern's headless OpenGL answers as a driver without
// the ability would: shaders and framebuffer objects (included by <GL/kern_gl_draw.h>).
#ifndef KERN_GL_ARRAYS_H
#define KERN_GL_ARRAYS_H

// ---- vertex arrays (from host memory, or from the GL_ARRAY_BUFFER bound at the *Pointer call)
// ----

static inline void glEnableClientState(GLenum array) {
  struct __kern_gl_raster *r = __kern_glr();
  if (array == GL_VERTEX_ARRAY)
    r->vertexArray = 1;
  else if (array == GL_COLOR_ARRAY)
    r->colorArray = 1;
  else if (array == GL_TEXTURE_COORD_ARRAY)
    r->texCoordArray = 1;
}
static inline void glDisableClientState(GLenum array) {
  struct __kern_gl_raster *r = __kern_glr();
  if (array == GL_VERTEX_ARRAY)
    r->vertexArray = 0;
  else if (array == GL_COLOR_ARRAY)
    r->colorArray = 0;
  else if (array == GL_TEXTURE_COORD_ARRAY)
    r->texCoordArray = 0;
}

static inline int __kern_gl_type_bytes(GLenum type) {
  switch (type) {
  case GL_FLOAT:
  case GL_INT:
  case GL_UNSIGNED_INT:
    return 4;
  case GL_DOUBLE:
    return 8;
  case GL_SHORT:
  case GL_UNSIGNED_SHORT:
    return 2;
  case GL_BYTE:
  case GL_UNSIGNED_BYTE:
    return 1;
  }
  return 0;
}

static inline void glVertexPointer(GLint size, GLenum type, GLsizei stride, const void *p) {
  struct __kern_gl_raster *r = __kern_glr();
  if (size < 2 || size > 4 || stride < 0 || __kern_gl_type_bytes(type) == 0) {
    __kern_gl_set_error(size < 2 || size > 4 || stride < 0 ? GL_INVALID_VALUE : GL_INVALID_ENUM);
    return;
  }
  r->vertexSize = size;
  r->vertexType = type;
  r->vertexStride = stride;
  r->vertexPointer = p;
  r->vertexBuffer = __kern_gl()->arrayBuffer;
}
static inline void glColorPointer(GLint size, GLenum type, GLsizei stride, const void *p) {
  struct __kern_gl_raster *r = __kern_glr();
  if (size < 3 || size > 4 || stride < 0 || __kern_gl_type_bytes(type) == 0) {
    __kern_gl_set_error(size < 3 || size > 4 || stride < 0 ? GL_INVALID_VALUE : GL_INVALID_ENUM);
    return;
  }
  r->colorSize = size;
  r->colorType = type;
  r->colorStride = stride;
  r->colorPointer = p;
  r->colorBuffer = __kern_gl()->arrayBuffer;
}
static inline void glTexCoordPointer(GLint size, GLenum type, GLsizei stride, const void *p) {
  struct __kern_gl_raster *r = __kern_glr();
  if (size < 1 || size > 4 || stride < 0 || __kern_gl_type_bytes(type) == 0) {
    __kern_gl_set_error(size < 1 || size > 4 || stride < 0 ? GL_INVALID_VALUE : GL_INVALID_ENUM);
    return;
  }
  r->texCoordSize = size;
  r->texCoordType = type;
  r->texCoordStride = stride;
  r->texCoordPointer = p;
  r->texCoordBuffer = __kern_gl()->arrayBuffer;
}

// Component k of element i of an array; colours of integer types are normalised as OpenGL does.
static inline float __kern_gl_fetch(GLuint buffer, const void *pointer, GLenum type, GLint size,
                                    GLsizei stride, int i, int k, int normalize, int *ok) {
  int bytes = __kern_gl_type_bytes(type);
  size_t step = stride != 0 ? (size_t)stride : (size_t)bytes * size;
  size_t at = (size_t)i * step + (size_t)k * bytes;
  const unsigned char *p;
  unsigned char staged[8];
  if (buffer != 0) {
    struct __kern_gl_buffer *b = &__kern_gl()->buffers[buffer];
    at += (size_t)pointer;
    if (b->data == NULL || at + bytes > b->size || b->mapped) {
      *ok = 0;
      return 0.0f;
    }
    if (b->device) {
      cudaMemcpy(staged, (char *)b->data + at, bytes, cudaMemcpyDeviceToHost);
      p = staged;
    } else {
      p = (const unsigned char *)b->data + at;
    }
  } else {
    if (pointer == NULL) {
      *ok = 0;
      return 0.0f;
    }
    p = (const unsigned char *)pointer + at;
  }
  float f;
  double d;
  int iv;
  unsigned int u;
  short s;
  unsigned short us;
  switch (type) {
  case GL_FLOAT:
    memcpy(&f, p, 4);
    return f;
  case GL_DOUBLE:
    memcpy(&d, p, 8);
    return (float)d;
  case GL_INT:
    memcpy(&iv, p, 4);
    return normalize ? iv / 2147483647.0f : (float)iv;
  case GL_UNSIGNED_INT:
    memcpy(&u, p, 4);
    return normalize ? u / 4294967295.0f : (float)u;
  case GL_SHORT:
    memcpy(&s, p, 2);
    return normalize ? s / 32767.0f : (float)s;
  case GL_UNSIGNED_SHORT:
    memcpy(&us, p, 2);
    return normalize ? us / 65535.0f : (float)us;
  case GL_BYTE:
    return normalize ? *(const signed char *)p / 127.0f : (float)*(const signed char *)p;
  }
  return normalize ? *p / 255.0f : (float)*p;
}

// Assembles element i of the enabled arrays into *v; 0 when an array reaches outside its buffer.
static inline int __kern_gl_element(int i, struct __kern_gl_vertex *v) {
  struct __kern_gl_raster *r = __kern_glr();
  int ok = 1;
  float obj[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  for (int k = 0; k < r->vertexSize; k++)
    obj[k] = __kern_gl_fetch(r->vertexBuffer, r->vertexPointer, r->vertexType, r->vertexSize,
                             r->vertexStride, i, k, 0, &ok);
  __kern_gl_transform(obj, v->pos);
  memcpy(v->color, r->color, sizeof v->color);
  if (r->colorArray) {
    v->color[3] = 1.0f;
    for (int k = 0; k < r->colorSize; k++)
      v->color[k] = __kern_gl_fetch(r->colorBuffer, r->colorPointer, r->colorType, r->colorSize,
                                    r->colorStride, i, k, 1, &ok);
  }
  memcpy(v->tex, r->texCoord, sizeof v->tex);
  if (r->texCoordArray)
    for (int k = 0; k < r->texCoordSize && k < 2; k++)
      v->tex[k] = __kern_gl_fetch(r->texCoordBuffer, r->texCoordPointer, r->texCoordType,
                                  r->texCoordSize, r->texCoordStride, i, k, 0, &ok);
  return ok;
}

static inline void __kern_gl_draw_elements(GLenum mode, GLsizei count, const GLuint *indices,
                                           GLint first) {
  struct __kern_gl_raster *r = __kern_glr();
  if (count < 0) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  if (!r->vertexArray || count == 0)
    return; // without a vertex array nothing is drawn
  struct __kern_gl_vertex *v =
      (struct __kern_gl_vertex *)malloc((size_t)count * sizeof(struct __kern_gl_vertex));
  for (GLsizei i = 0; i < count; i++)
    if (!__kern_gl_element(indices != NULL ? (int)indices[i] : first + i, &v[i])) {
      __kern_gl_set_error(GL_INVALID_OPERATION);
      free(v);
      return;
    }
  __kern_gl_primitives(mode, v, count);
  free(v);
}

static inline void glDrawArrays(GLenum mode, GLint first, GLsizei count) {
  if (first < 0) {
    __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  __kern_gl_draw_elements(mode, count, NULL, first);
}

static inline void glDrawElements(GLenum mode, GLsizei count, GLenum type, const void *indices) {
  int bytes = __kern_gl_type_bytes(type);
  if (type != GL_UNSIGNED_BYTE && type != GL_UNSIGNED_SHORT && type != GL_UNSIGNED_INT) {
    __kern_gl_set_error(GL_INVALID_ENUM);
    return;
  }
  if (count <= 0) {
    if (count < 0)
      __kern_gl_set_error(GL_INVALID_VALUE);
    return;
  }
  GLuint *index = (GLuint *)malloc((size_t)count * sizeof(GLuint));
  for (GLsizei i = 0; i < count; i++) {
    int ok = 1;
    // (indices come from host memory; kern's OpenGL binds one array buffer for both targets)
    index[i] = (GLuint)__kern_gl_fetch(0, indices, type, 1, bytes, i, 0, 0, &ok);
  }
  __kern_gl_draw_elements(mode, count, index, 0);
  free(index);
}

// ---- queries ----

static inline void glGetFloatv(GLenum pname, GLfloat *params) {
  struct __kern_gl_raster *r = __kern_glr();
  switch (pname) {
  case GL_MODELVIEW_MATRIX:
    memcpy(params, r->stack[0][r->depth[0]], 16 * sizeof(float));
    return;
  case GL_PROJECTION_MATRIX:
    memcpy(params, r->stack[1][r->depth[1]], 16 * sizeof(float));
    return;
  case GL_POINT_SIZE:
    params[0] = r->pointSize;
    return;
  case GL_VIEWPORT: {
    int vp[4];
    __kern_gl_viewport(vp);
    for (int i = 0; i < 4; i++)
      params[i] = (float)vp[i];
    return;
  }
  }
  __kern_gl_set_error(GL_INVALID_ENUM);
}

static inline void glGetIntegerv(GLenum pname, GLint *params) {
  struct __kern_gl_raster *r = __kern_glr();
  switch (pname) {
  case GL_VIEWPORT:
    __kern_gl_viewport(params);
    return;
  case GL_MAX_TEXTURE_SIZE:
    params[0] = 8192;
    return;
  case GL_TEXTURE_BINDING_2D:
    params[0] = (GLint)r->boundTexture;
    return;
  case GL_PROGRAM_ERROR_POSITION_ARB:
    params[0] = r->programErrorPosition;
    return;
  }
  __kern_gl_set_error(GL_INVALID_ENUM);
}

// ---- shaders and programs: kern's OpenGL has no shader compiler ----

#define KERN_GL_NO_SHADERS "kern's headless OpenGL has no shader compiler"

static inline void __kern_gl_no_shaders(const char *fn) {
  struct __kern_gl_raster *r = __kern_glr();
  if (!r->warnedShaders)
    fprintf(stderr, "kern: %s: %s; the program's fixed-function drawing still works\n", fn,
            KERN_GL_NO_SHADERS);
  r->warnedShaders = 1;
}

static GLuint __kern_gl_next_object = 1;

static inline GLuint glCreateShader(GLenum type) {
  if (type != GL_VERTEX_SHADER && type != GL_FRAGMENT_SHADER) {
    __kern_gl_set_error(GL_INVALID_ENUM);
    return 0;
  }
  return __kern_gl_next_object++;
}
static inline GLuint glCreateProgram(void) { return __kern_gl_next_object++; }
static inline void glShaderSource(GLuint shader, GLsizei count, const GLchar *const *source,
                                  const GLint *length) {}
static inline void glCompileShader(GLuint shader) { __kern_gl_no_shaders("glCompileShader"); }
static inline void glAttachShader(GLuint program, GLuint shader) {}
static inline void glDetachShader(GLuint program, GLuint shader) {}
static inline void glLinkProgram(GLuint program) { __kern_gl_no_shaders("glLinkProgram"); }
static inline void glDeleteShader(GLuint shader) {}
static inline void glDeleteProgram(GLuint program) {}
static inline void glUseProgram(GLuint program) {
  if (program != 0)
    __kern_gl_set_error(GL_INVALID_OPERATION); // no program ever links
}
// COMPILE_STATUS and LINK_STATUS are GL_FALSE; the log says why.
static inline void __kern_gl_object_iv(GLenum pname, GLint *params) {
  if (pname == GL_COMPILE_STATUS || pname == GL_LINK_STATUS)
    params[0] = GL_FALSE;
  else if (pname == GL_INFO_LOG_LENGTH)
    params[0] = (GLint)strlen(KERN_GL_NO_SHADERS) + 1;
  else
    params[0] = 0;
}
static inline void glGetShaderiv(GLuint shader, GLenum pname, GLint *params) {
  __kern_gl_object_iv(pname, params);
}
static inline void glGetProgramiv(GLuint program, GLenum pname, GLint *params) {
  __kern_gl_object_iv(pname, params);
}
static inline void __kern_gl_object_log(GLsizei size, GLsizei *length, GLchar *log) {
  GLsizei n = 0;
  if (size > 0) {
    const char *m = KERN_GL_NO_SHADERS;
    while (m[n] != 0 && n + 1 < size) {
      log[n] = m[n];
      n++;
    }
    log[n] = 0;
  }
  if (length != NULL)
    *length = n;
}
static inline void glGetShaderInfoLog(GLuint shader, GLsizei size, GLsizei *length, GLchar *log) {
  __kern_gl_object_log(size, length, log);
}
static inline void glGetProgramInfoLog(GLuint program, GLsizei size, GLsizei *length, GLchar *log) {
  __kern_gl_object_log(size, length, log);
}
// Location -1, which glUniform* ignores, as OpenGL does.
static inline GLint glGetUniformLocation(GLuint program, const GLchar *name) { return -1; }
static inline GLint glGetAttribLocation(GLuint program, const GLchar *name) { return -1; }
static inline void glUniform1i(GLint location, GLint v0) {}
static inline void glUniform1f(GLint location, GLfloat v0) {}
static inline void glUniform2f(GLint location, GLfloat v0, GLfloat v1) {}
static inline void glUniform3f(GLint location, GLfloat v0, GLfloat v1, GLfloat v2) {}
static inline void glUniform4f(GLint location, GLfloat v0, GLfloat v1, GLfloat v2, GLfloat v3) {}
static inline void glUniform1fv(GLint location, GLsizei count, const GLfloat *v) {}
static inline void glUniform2fv(GLint location, GLsizei count, const GLfloat *v) {}
static inline void glUniform3fv(GLint location, GLsizei count, const GLfloat *v) {}
static inline void glUniform4fv(GLint location, GLsizei count, const GLfloat *v) {}
static inline void glUniformMatrix4fv(GLint location, GLsizei count, GLboolean transpose,
                                      const GLfloat *v) {}
static inline void glSecondaryColor3fv(const GLfloat *v) {}

// ARB assembly programs: the texture pass-through runs; any other program fails to load
// (GL_INVALID_OPERATION, error position 0, the error string saying why).
static inline void glGenProgramsARB(GLsizei n, GLuint *names) {
  for (GLsizei i = 0; i < n; i++)
    names[i] = __kern_gl_next_object++;
}
static inline void glBindProgramARB(GLenum target, GLuint program) {
  if (target == GL_FRAGMENT_PROGRAM_ARB)
    __kern_glr()->boundProgram = program;
}
static inline void glDeleteProgramsARB(GLsizei n, const GLuint *names) {
  for (GLsizei i = 0; i < n; i++)
    if (names[i] < 256)
      __kern_glr()->programValid[names[i]] = 0;
}

// The program text without white space is one of the pass-through's spellings.
static inline int __kern_gl_passthrough(const char *text, GLsizei len) {
  char flat[160];
  int n = 0;
  for (GLsizei i = 0; i < len && text[i] != 0; i++) {
    if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')
      continue;
    if (n + 1 >= (int)sizeof flat)
      return 0;
    flat[n++] = text[i];
  }
  flat[n] = 0;
  return strcmp(flat, "!!ARBfp1.0TEXresult.color,fragment.texcoord,texture[0],2D;END") == 0 ||
         strcmp(flat, "!!ARBfp1.0TEXresult.color,fragment.texcoord[0],texture[0],2D;END") == 0;
}

static inline void glProgramStringARB(GLenum target, GLenum format, GLsizei len,
                                      const void *string) {
  struct __kern_gl_raster *r = __kern_glr();
  GLuint p = r->boundProgram;
  if (target == GL_FRAGMENT_PROGRAM_ARB && p < 256 &&
      __kern_gl_passthrough((const char *)string, len)) {
    r->programValid[p] = 1;
    r->programErrorPosition = -1;
    return;
  }
  if (p < 256)
    r->programValid[p] = 0;
  if (!r->warnedShaders)
    fprintf(stderr,
            "kern: glProgramStringARB: kern's headless OpenGL runs one ARB program, the texture "
            "pass-through fragment program; this one is not loaded\n");
  r->warnedShaders = 1;
  r->programErrorPosition = 0;
  __kern_gl_set_error(GL_INVALID_OPERATION);
}

static inline const char *__kern_gl_program_error(void) {
  return __kern_glr()->programErrorPosition < 0
             ? ""
             : "kern's headless OpenGL runs only the texture pass-through fragment program";
}

static inline void glProgramParameteriEXT(GLuint program, GLenum pname, GLint value) {}
static inline void glBindFragDataLocationEXT(GLuint program, GLuint color, const GLchar *name) {}

// ---- framebuffer objects: none is ever complete (GL_FRAMEBUFFER_UNSUPPORTED_EXT) ----

static inline void glGenFramebuffersEXT(GLsizei n, GLuint *names) { glGenProgramsARB(n, names); }
static inline void glDeleteFramebuffersEXT(GLsizei n, const GLuint *names) {}
static inline void glBindFramebufferEXT(GLenum target, GLuint framebuffer) {
  if (framebuffer != 0 && !__kern_glr()->warnedFramebuffers)
    fprintf(stderr, "kern: glBindFramebufferEXT: kern's headless OpenGL draws only to the "
                    "window; framebuffer objects are never complete\n");
  if (framebuffer != 0)
    __kern_glr()->warnedFramebuffers = 1;
}
static inline GLenum glCheckFramebufferStatusEXT(GLenum target) {
  return GL_FRAMEBUFFER_UNSUPPORTED_EXT;
}
static inline void glFramebufferTexture1DEXT(GLenum target, GLenum attachment, GLenum textarget,
                                             GLuint texture, GLint level) {}
static inline void glFramebufferTexture2DEXT(GLenum target, GLenum attachment, GLenum textarget,
                                             GLuint texture, GLint level) {}
static inline void glFramebufferTexture3DEXT(GLenum target, GLenum attachment, GLenum textarget,
                                             GLuint texture, GLint level, GLint zoffset) {}
static inline void glGenRenderbuffersEXT(GLsizei n, GLuint *names) { glGenProgramsARB(n, names); }
static inline void glDeleteRenderbuffersEXT(GLsizei n, const GLuint *names) {}
static inline void glBindRenderbufferEXT(GLenum target, GLuint renderbuffer) {}
static inline void glRenderbufferStorageEXT(GLenum target, GLenum format, GLsizei w, GLsizei h) {}
static inline void glFramebufferRenderbufferEXT(GLenum target, GLenum attachment, GLenum rbtarget,
                                                GLuint renderbuffer) {}
static inline void glGetFramebufferAttachmentParameterivEXT(GLenum target, GLenum attachment,
                                                            GLenum pname, GLint *params) {
  params[0] = 0;
}
static inline void glGenerateMipmapEXT(GLenum target) {}
static inline void glClearColorIuiEXT(GLuint r, GLuint g, GLuint b, GLuint a) {}

#endif // KERN_GL_ARRAYS_H
