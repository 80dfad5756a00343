/* CPU reference routines, written in C (reference.c) and called from the CUDA files. */
#ifndef REFERENCE_H
#define REFERENCE_H

#ifdef __cplusplus
extern "C" {
#endif

void fillVector(int *v, int n, unsigned int seed);
long long dotReference(const int *a, const int *b, int n);
extern int referenceCalls;

#ifdef __cplusplus
}
#endif

#endif
