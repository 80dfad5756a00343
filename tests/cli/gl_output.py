#!/usr/bin/env python3
"""kern's headless GLUT: KERN_GL_FRAMES sets how many frames glutMainLoop runs, KERN_GL_OUTPUT
saves the last frame shown as a PNG (decoded here: size, rows top first, RGB), and a program
that draws with no window is stopped with a message.
Usage: gl_output.py KERN"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

KERN = sys.argv[1]
tmp = tempfile.mkdtemp()
failures = []

PROG = os.path.join(tmp, "frames.cu")
with open(PROG, "w") as f:
    f.write(r'''#include <GL/glut.h>
#include <stdio.h>
static int frame = 0;
__global__ void fill(uchar4 *p, int w, int h, int frame) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w)
    p[y * w + x] = make_uchar4(x * 20, y * 30, frame, 128);
}
static void display(void) {
  uchar4 *d, h[5 * 3];
  cudaMalloc(&d, sizeof h);
  fill<<<3, 32>>>(d, 5, 3, frame);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  glDrawPixels(5, 3, GL_RGBA, GL_UNSIGNED_BYTE, h);
  printf("frame %d\n", frame);
}
static void idle(void) {
  frame++;
  glutPostRedisplay();
}
int main(int argc, char **argv) {
  glutInit(&argc, argv);
  glutInitWindowSize(5, 3);
  glutCreateWindow("frames");
  glutDisplayFunc(display);
  glutIdleFunc(idle);
  glutMainLoop();
  return 1;
}
''')


def run(env_extra, path=PROG):
    env = dict(os.environ)
    env.pop("KERN_GL_FRAMES", None)
    env.pop("KERN_GL_OUTPUT", None)
    env.update(env_extra)
    return subprocess.run([KERN, "run", path], capture_output=True, text=True, env=env,
                          timeout=60)


def check(what, cond, detail=""):
    if not cond:
        failures.append(what + (": " + detail if detail else ""))


def png_pixels(path):
    data = open(path, "rb").read()
    check("PNG signature", data[:8] == b"\x89PNG\r\n\x1a\n")
    at, idat, ihdr = 8, b"", None
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        crc = struct.unpack(">I", data[at + 8 + n:at + 12 + n])[0]
        check("CRC of " + kind.decode(), zlib.crc32(kind + body) == crc)
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + n
    width, height, depth, color = ihdr[0], ihdr[1], ihdr[2], ihdr[3]
    raw = zlib.decompress(idat)
    rows = []
    for y in range(height):
        line = raw[y * (width * 3 + 1):(y + 1) * (width * 3 + 1)]
        check("filter byte", line[0] == 0)
        rows.append([tuple(line[1 + 3 * x:4 + 3 * x]) for x in range(width)])
    return (width, height, depth, color), rows


# Default: the window is shown, one frame runs (idle, then display): two frames shown.
r = run({})
check("default exit code", r.returncode == 0, r.stderr)
check("default frames", r.stdout == "frame 0\nframe 1\n", r.stdout)
check("default note", 'window "frames" (5x3) shown 2 times with no display' in r.stderr, r.stderr)

# Four frames, the last saved.
png = os.path.join(tmp, "out.png")
r = run({"KERN_GL_FRAMES": "4", "KERN_GL_OUTPUT": png})
check("4 frames", r.stdout == "".join("frame %d\n" % i for i in range(5)), r.stdout)
check("saved note", 'frame 5 saved to ' + png in r.stderr, r.stderr)
head, rows = png_pixels(png)
check("PNG header", head == (5, 3, 8, 2), str(head))
# The PNG's first row is the window's top row: OpenGL's row 2.
expect = [[(x * 20, y * 30, 4) for x in range(5)] for y in (2, 1, 0)]
check("PNG pixels", rows == expect, str(rows))

# KERN_GL_FRAMES=0: only the window's first showing.
r = run({"KERN_GL_FRAMES": "0"})
check("0 frames", r.stdout == "frame 0\n", r.stdout)

# Unwritable output: said, and the program still ends as it would.
r = run({"KERN_GL_OUTPUT": os.path.join(tmp, "no", "such", "dir.png")})
check("unwritable exit", r.returncode == 0)
check("unwritable note", "cannot write" in r.stderr, r.stderr)

# Drawing before glutCreateWindow: no context.
NOCTX = os.path.join(tmp, "noctx.cu")
with open(NOCTX, "w") as f:
    f.write('#include <GL/gl.h>\nint main() { glClear(GL_COLOR_BUFFER_BIT); return 0; }\n')
r = run({}, NOCTX)
check("no context exit", r.returncode == 1, str(r.returncode))
check("no context message", "glClear: no current OpenGL context" in r.stderr, r.stderr)

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
