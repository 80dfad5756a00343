// <GL/glut.h> as kern provides it: GLUT with one window and no display. glutCreateWindow makes
// the framebuffer of <GL/gl.h>; glutMainLoop shows the window as a display would (the reshape
// callback, then the display callback), then runs KERN_GL_FRAMES frames (1 if unset): a frame
// calls the idle callback and the timers that are due, and the display callback when
// glutPostRedisplay asked for it. Then the user closes the window: the keyboard callback gets
// the Escape key (27), as a user would press it, then the close callback runs and the program
// exits with 0. KERN_GL_OUTPUT=image.png saves the last frame shown as a PNG file; without it,
// one line on stderr says what was shown. See docs/headers.md.
#ifndef KERN_GLUT_H
#define KERN_GLUT_H

#include <GL/gl.h>
#include <GL/glu.h>
#include <sys/time.h>

#define GLUT_RGB 0
#define GLUT_RGBA 0
#define GLUT_INDEX 1
#define GLUT_SINGLE 0
#define GLUT_DOUBLE 2
#define GLUT_ACCUM 4
#define GLUT_ALPHA 8
#define GLUT_DEPTH 16
#define GLUT_STENCIL 32
#define GLUT_MULTISAMPLE 128
#define GLUT_LEFT_BUTTON 0
#define GLUT_MIDDLE_BUTTON 1
#define GLUT_RIGHT_BUTTON 2
#define GLUT_DOWN 0
#define GLUT_UP 1
#define GLUT_KEY_F1 1
#define GLUT_KEY_F2 2
#define GLUT_KEY_F3 3
#define GLUT_KEY_F4 4
#define GLUT_KEY_F5 5
#define GLUT_KEY_F6 6
#define GLUT_KEY_F7 7
#define GLUT_KEY_F8 8
#define GLUT_KEY_F9 9
#define GLUT_KEY_F10 10
#define GLUT_KEY_F11 11
#define GLUT_KEY_F12 12
#define GLUT_KEY_LEFT 100
#define GLUT_KEY_UP 101
#define GLUT_KEY_RIGHT 102
#define GLUT_KEY_DOWN 103
#define GLUT_KEY_PAGE_UP 104
#define GLUT_KEY_PAGE_DOWN 105
#define GLUT_KEY_HOME 106
#define GLUT_KEY_END 107
#define GLUT_KEY_INSERT 108
#define GLUT_ACTIVE_SHIFT 1
#define GLUT_ACTIVE_CTRL 2
#define GLUT_ACTIVE_ALT 4
#define GLUT_WINDOW_X 100
#define GLUT_WINDOW_Y 101
#define GLUT_WINDOW_WIDTH 102
#define GLUT_WINDOW_HEIGHT 103
#define GLUT_SCREEN_WIDTH 200
#define GLUT_SCREEN_HEIGHT 201
#define GLUT_INIT_WINDOW_WIDTH 502
#define GLUT_INIT_WINDOW_HEIGHT 503
#define GLUT_INIT_DISPLAY_MODE 504
#define GLUT_ELAPSED_TIME 700
// Bitmap fonts. The window has no glyphs: glutBitmapCharacter moves the raster position by the
// character's width, as GLUT does, and draws nothing (docs/headers.md).
#define GLUT_BITMAP_9_BY_15 ((void *)0x0002)
#define GLUT_BITMAP_8_BY_13 ((void *)0x0003)
#define GLUT_BITMAP_TIMES_ROMAN_10 ((void *)0x0004)
#define GLUT_BITMAP_TIMES_ROMAN_24 ((void *)0x0005)
#define GLUT_BITMAP_HELVETICA_10 ((void *)0x0006)
#define GLUT_BITMAP_HELVETICA_12 ((void *)0x0007)
#define GLUT_BITMAP_HELVETICA_18 ((void *)0x0008)
#define GLUT_ACTION_EXIT 0
#define GLUT_ACTION_GLUTMAINLOOP_RETURNS 1
#define GLUT_ACTION_CONTINUE_EXECUTION 2
#define GLUT_ACTION_ON_WINDOW_CLOSE 0x01F9

#define KERN_GLUT_MAX_TIMERS 64

struct __kern_glut_timer {
  void (*func)(int);
  int value;
};

struct __kern_glut_context {
  int initWidth, initHeight;
  unsigned int displayMode;
  int window; // 1 once glutCreateWindow made the window
  char title[256];
  int redisplay, leave, closeAction, framesShown;
  int pendingWidth, pendingHeight; // glutReshapeWindow's size, taken at the next frame
  struct timeval start;
  void (*display)(void);
  void (*reshape)(int, int);
  void (*keyboard)(unsigned char, int, int);
  void (*keyboardUp)(unsigned char, int, int);
  void (*special)(int, int, int);
  void (*mouse)(int, int, int, int);
  void (*motion)(int, int);
  void (*passiveMotion)(int, int);
  void (*idle)(void);
  void (*close)(void);
  struct __kern_glut_timer timers[KERN_GLUT_MAX_TIMERS];
  int timerCount;
};

static struct __kern_glut_context __kern_glut_state = {300, 300};

static inline void glutInit(int *argc, char **argv) {
  gettimeofday(&__kern_glut_state.start, NULL);
}
static inline void glutInitDisplayMode(unsigned int mode) { __kern_glut_state.displayMode = mode; }
static inline void glutInitWindowSize(int width, int height) {
  __kern_glut_state.initWidth = width;
  __kern_glut_state.initHeight = height;
}
static inline void glutInitWindowPosition(int x, int y) {}

static inline int glutCreateWindow(const char *title) {
  struct __kern_glut_context *s = &__kern_glut_state;
  struct __kern_gl_context *g = __kern_gl();
  if (s->window != 0) {
    fprintf(stderr, "kern: glutCreateWindow: kern's GLUT has one window, and \"%s\" is open\n",
            s->title);
    exit(1);
  }
  if (s->initWidth <= 0 || s->initHeight <= 0) {
    fprintf(stderr, "kern: glutCreateWindow: the window size %dx%d is not positive\n", s->initWidth,
            s->initHeight);
    exit(1);
  }
  g->width = s->initWidth;
  g->height = s->initHeight;
  g->frame = (unsigned char *)calloc((size_t)g->width * g->height, 4);
  strncpy(s->title, title, sizeof s->title - 1);
  s->window = 1;
  return 1;
}

static inline void glutSetWindowTitle(const char *title) {
  strncpy(__kern_glut_state.title, title, sizeof __kern_glut_state.title - 1);
}
static inline int glutGetWindow(void) { return __kern_glut_state.window; }
static inline void glutDisplayFunc(void (*func)(void)) { __kern_glut_state.display = func; }
static inline void glutReshapeFunc(void (*func)(int, int)) { __kern_glut_state.reshape = func; }
static inline void glutKeyboardFunc(void (*func)(unsigned char, int, int)) {
  __kern_glut_state.keyboard = func;
}
static inline void glutKeyboardUpFunc(void (*func)(unsigned char, int, int)) {
  __kern_glut_state.keyboardUp = func;
}
static inline void glutSpecialFunc(void (*func)(int, int, int)) {
  __kern_glut_state.special = func;
}
static inline void glutMouseFunc(void (*func)(int, int, int, int)) {
  __kern_glut_state.mouse = func;
}
static inline void glutMotionFunc(void (*func)(int, int)) { __kern_glut_state.motion = func; }
static inline void glutPassiveMotionFunc(void (*func)(int, int)) {
  __kern_glut_state.passiveMotion = func;
}
static inline void glutIdleFunc(void (*func)(void)) { __kern_glut_state.idle = func; }
static inline void glutCloseFunc(void (*func)(void)) { __kern_glut_state.close = func; }
static inline void glutWMCloseFunc(void (*func)(void)) { __kern_glut_state.close = func; }

static inline void glutTimerFunc(unsigned int msecs, void (*func)(int), int value) {
  struct __kern_glut_context *s = &__kern_glut_state;
  if (s->timerCount == KERN_GLUT_MAX_TIMERS) {
    fprintf(stderr, "kern: glutTimerFunc: more than %d timers are pending\n", KERN_GLUT_MAX_TIMERS);
    exit(1);
  }
  s->timers[s->timerCount].func = func;
  s->timers[s->timerCount].value = value;
  s->timerCount++;
}

static inline void glutPostRedisplay(void) { __kern_glut_state.redisplay = 1; }
static inline void glutSwapBuffers(void) {}
static inline int glutGetModifiers(void) { return 0; }
static inline void glutReportErrors(void) {}
static inline void glutSetOption(GLenum what, int value) {
  if (what == GLUT_ACTION_ON_WINDOW_CLOSE)
    __kern_glut_state.closeAction = value;
}
// Menus: made and attached, but a headless window has no pointer to open them with.
static int __kern_glut_menus = 0;
static inline int glutCreateMenu(void (*func)(int)) { return ++__kern_glut_menus; }
static inline void glutAddMenuEntry(const char *label, int value) {}
static inline void glutAddSubMenu(const char *label, int submenu) {}
static inline void glutAttachMenu(int button) {}
static inline void glutDetachMenu(int button) {}
static inline void glutSetMenu(int menu) {}
static inline void glutDestroyMenu(int menu) {}

// The shapes, drawn with the current colour (lighting is not modelled).
static inline void glutWireCube(GLdouble size) {
  float h = (float)size * 0.5f;
  static const int e[12][2] = {{0, 1}, {1, 3}, {3, 2}, {2, 0}, {4, 5}, {5, 7},
                               {7, 6}, {6, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  glBegin(GL_LINES);
  for (int i = 0; i < 12; i++)
    for (int k = 0; k < 2; k++) {
      int c = e[i][k];
      glVertex3f(c & 1 ? h : -h, c & 2 ? h : -h, c & 4 ? h : -h);
    }
  glEnd();
}
static inline void glutSolidCube(GLdouble size) {
  float h = (float)size * 0.5f;
  static const int f[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1},
                              {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
  glBegin(GL_QUADS);
  for (int i = 0; i < 6; i++)
    for (int k = 0; k < 4; k++) {
      int c = f[i][k];
      glVertex3f(c & 1 ? h : -h, c & 2 ? h : -h, c & 4 ? h : -h);
    }
  glEnd();
}
static inline void __kern_glut_sphere(GLdouble radius, GLint slices, GLint stacks, GLenum mode) {
  const float pi = 3.14159265358979f;
  for (int j = 0; j < stacks; j++) {
    float t0 = pi * j / stacks - pi / 2, t1 = pi * (j + 1) / stacks - pi / 2;
    glBegin(mode);
    for (int i = 0; i <= slices; i++) {
      float p = 2 * pi * i / slices;
      glVertex3f((float)radius * cosf(t0) * cosf(p), (float)radius * cosf(t0) * sinf(p),
                 (float)radius * sinf(t0));
      glVertex3f((float)radius * cosf(t1) * cosf(p), (float)radius * cosf(t1) * sinf(p),
                 (float)radius * sinf(t1));
    }
    glEnd();
  }
}
static inline void glutSolidSphere(GLdouble radius, GLint slices, GLint stacks) {
  __kern_glut_sphere(radius, slices, stacks, GL_QUAD_STRIP);
}
static inline void glutWireSphere(GLdouble radius, GLint slices, GLint stacks) {
  __kern_glut_sphere(radius, slices, stacks, GL_LINE_STRIP);
}

// The width in pixels of character c of a bitmap font: a fixed font's cell; for the
// proportional ones, the width of an average character of the font (kern has not their
// per-glyph tables).
static inline int glutBitmapWidth(void *font, int c) {
  (void)c;
  switch ((int)(size_t)font) {
  case 0x0002:
    return 9;
  case 0x0003:
    return 8;
  case 0x0004:
    return 5;
  case 0x0005:
    return 11;
  case 0x0006:
    return 5;
  case 0x0007:
    return 6;
  case 0x0008:
    return 10;
  }
  return 0;
}
static inline void glutBitmapCharacter(void *font, int c) {
  __kern_glr()->rasterPos[0] += (float)glutBitmapWidth(font, c);
}
static inline int glutBitmapLength(void *font, const unsigned char *text) {
  int n = 0;
  for (; text != NULL && *text; ++text)
    n += glutBitmapWidth(font, *text);
  return n;
}

// A new size for the window (glutFullScreen: the screen's), taken at the next frame of
// glutMainLoop, which then calls the reshape callback and shows the window again.
static inline void glutReshapeWindow(int width, int height) {
  __kern_glut_state.pendingWidth = width;
  __kern_glut_state.pendingHeight = height;
}
static inline void glutFullScreen(void) { glutReshapeWindow(1920, 1080); }
static inline void glutPositionWindow(int x, int y) {
  (void)x;
  (void)y;
}
static inline void __kern_glut_resize(int notify) {
  struct __kern_glut_context *s = &__kern_glut_state;
  struct __kern_gl_context *g = __kern_gl();
  if (s->pendingWidth <= 0 || s->pendingHeight <= 0)
    return;
  if (s->pendingWidth != g->width || s->pendingHeight != g->height) {
    free(g->frame);
    g->width = s->pendingWidth;
    g->height = s->pendingHeight;
    g->frame = (unsigned char *)calloc((size_t)g->width * g->height, 4);
    if (notify && s->reshape != NULL)
      s->reshape(g->width, g->height);
    s->redisplay = 1;
  }
  s->pendingWidth = s->pendingHeight = 0;
}

static inline void glutLeaveMainLoop(void) { __kern_glut_state.leave = 1; }
static inline void glutDestroyWindow(int window) {
  if (window == __kern_glut_state.window)
    __kern_glut_state.leave = 1;
}

static inline int glutGet(GLenum what) {
  struct __kern_glut_context *s = &__kern_glut_state;
  struct timeval now;
  switch (what) {
  case GLUT_WINDOW_X:
  case GLUT_WINDOW_Y:
    return 0;
  case GLUT_WINDOW_WIDTH:
    return __kern_gl()->width;
  case GLUT_WINDOW_HEIGHT:
    return __kern_gl()->height;
  case GLUT_SCREEN_WIDTH:
    return 1920;
  case GLUT_SCREEN_HEIGHT:
    return 1080;
  case GLUT_INIT_WINDOW_WIDTH:
    return s->initWidth;
  case GLUT_INIT_WINDOW_HEIGHT:
    return s->initHeight;
  case GLUT_INIT_DISPLAY_MODE:
    return (int)s->displayMode;
  case GLUT_ELAPSED_TIME:
    gettimeofday(&now, NULL);
    return (int)((now.tv_sec - s->start.tv_sec) * 1000 + (now.tv_usec - s->start.tv_usec) / 1000);
  }
  return -1;
}

// ---- the window's last frame as a PNG file (stored, uncompressed deflate blocks) ----

static inline unsigned int __kern_png_crc(unsigned int crc, const unsigned char *p, size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    for (int k = 0; k < 8; k++)
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

static inline void __kern_png_u32(unsigned char *p, unsigned int v) {
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}

static inline int __kern_png_chunk(FILE *f, const char *type, const unsigned char *data, size_t n) {
  unsigned char head[8];
  __kern_png_u32(head, (unsigned int)n);
  memcpy(head + 4, type, 4);
  unsigned int crc = __kern_png_crc(0, head + 4, 4);
  crc = __kern_png_crc(crc, data, n);
  unsigned char tail[4];
  __kern_png_u32(tail, crc);
  return fwrite(head, 1, 8, f) == 8 && (n == 0 || fwrite(data, 1, n, f) == n) &&
         fwrite(tail, 1, 4, f) == 4;
}

// RGB, 8 bits a channel, top row first; alpha is dropped, as a window shows none.
static inline int __kern_gl_save_png(const char *path) {
  struct __kern_gl_context *g = __kern_gl();
  size_t row = (size_t)g->width * 3 + 1;
  size_t raw = row * g->height;
  size_t blocks = (raw + 65534) / 65535;
  size_t zsize = 2 + blocks * 5 + raw + 4;
  unsigned char *z = (unsigned char *)malloc(zsize);
  unsigned char *img = (unsigned char *)malloc(raw);
  if (z == NULL || img == NULL) {
    free(z);
    free(img);
    return 0;
  }
  for (int y = 0; y < g->height; y++) {
    unsigned char *out = img + y * row;
    const unsigned char *in = g->frame + 4 * (size_t)(g->height - 1 - y) * g->width;
    out[0] = 0; // filter: none
    for (int x = 0; x < g->width; x++)
      memcpy(out + 1 + 3 * x, in + 4 * x, 3);
  }
  size_t at = 0;
  z[at++] = 0x78;
  z[at++] = 0x01;
  unsigned int a = 1, b = 0;
  for (size_t done = 0; done < raw;) {
    size_t n = raw - done < 65535 ? raw - done : 65535;
    z[at++] = done + n == raw ? 1 : 0;
    z[at++] = (unsigned char)n;
    z[at++] = (unsigned char)(n >> 8);
    z[at++] = (unsigned char)~n;
    z[at++] = (unsigned char)(~n >> 8);
    memcpy(z + at, img + done, n);
    for (size_t i = 0; i < n; i++) {
      a = (a + img[done + i]) % 65521;
      b = (b + a) % 65521;
    }
    at += n;
    done += n;
  }
  __kern_png_u32(z + at, (b << 16) | a);
  at += 4;
  unsigned char ihdr[13];
  __kern_png_u32(ihdr, (unsigned int)g->width);
  __kern_png_u32(ihdr + 4, (unsigned int)g->height);
  ihdr[8] = 8; // bits a channel
  ihdr[9] = 2; // RGB
  ihdr[10] = ihdr[11] = ihdr[12] = 0;
  static const unsigned char signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
  FILE *f = fopen(path, "wb");
  int ok = f != NULL && fwrite(signature, 1, 8, f) == 8 && __kern_png_chunk(f, "IHDR", ihdr, 13) &&
           __kern_png_chunk(f, "IDAT", z, at) && __kern_png_chunk(f, "IEND", NULL, 0);
  if (f != NULL && fclose(f) != 0)
    ok = 0;
  free(z);
  free(img);
  return ok;
}

// ---- the main loop ----

static inline void __kern_glut_show(void) {
  struct __kern_glut_context *s = &__kern_glut_state;
  s->redisplay = 0;
  s->display();
  s->framesShown++;
}

static inline void glutMainLoop(void) {
  struct __kern_glut_context *s = &__kern_glut_state;
  struct __kern_gl_context *g = __kern_gl_window("glutMainLoop");
  if (s->display == NULL) {
    fprintf(stderr,
            "kern: glutMainLoop: no display callback registered for window %d "
            "(glutDisplayFunc)\n",
            s->window);
    exit(1);
  }
  const char *env = getenv("KERN_GL_FRAMES");
  int frames = env != NULL ? atoi(env) : 1;
  __kern_glut_resize(0); // a size asked for before the loop (glutFullScreen after the window)
  if (s->reshape != NULL)
    s->reshape(g->width, g->height);
  __kern_glut_show();
  for (int f = 0; f < frames && !s->leave; f++) {
    if (s->idle == NULL && s->timerCount == 0 && !s->redisplay)
      break; // nothing more happens until the user acts
    int due = s->timerCount;
    struct __kern_glut_timer timers[KERN_GLUT_MAX_TIMERS];
    memcpy(timers, s->timers, sizeof timers);
    s->timerCount = 0;
    for (int t = 0; t < due && !s->leave; t++)
      timers[t].func(timers[t].value);
    if (s->idle != NULL && !s->leave)
      s->idle();
    __kern_glut_resize(1);
    if (s->redisplay && !s->leave)
      __kern_glut_show();
  }
  const char *out = getenv("KERN_GL_OUTPUT");
  if (out != NULL && out[0] != 0) {
    if (__kern_gl_save_png(out))
      fprintf(stderr, "kern: window \"%s\" (%dx%d): frame %d saved to %s\n", s->title, g->width,
              g->height, s->framesShown, out);
    else
      fprintf(stderr, "kern: window \"%s\": cannot write %s\n", s->title, out);
  } else {
    fprintf(stderr,
            "kern: window \"%s\" (%dx%d) shown %d time%s with no display (KERN_GL_OUTPUT=file.png "
            "saves it)\n",
            s->title, g->width, g->height, s->framesShown, s->framesShown == 1 ? "" : "s");
  }
  if (s->leave && s->closeAction != GLUT_ACTION_EXIT)
    return;
  if (s->keyboard != NULL && !s->leave)
    s->keyboard(27, 0, 0);
  if (s->close != NULL)
    s->close();
  if (s->closeAction != GLUT_ACTION_EXIT)
    return;
  exit(0);
}

#endif // KERN_GLUT_H
