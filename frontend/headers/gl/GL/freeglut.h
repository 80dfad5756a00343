// <GL/freeglut.h> as kern provides it: <GL/glut.h>, whose GLUT has freeglut's additions
// (glutLeaveMainLoop, glutCloseFunc, glutSetOption). See docs/headers.md.
#ifndef KERN_FREEGLUT_H
#define KERN_FREEGLUT_H
#include <GL/glut.h>
#endif // KERN_FREEGLUT_H
