// helper_math.h as kern provides it: the scalar functions of the header of this name in CUDA's
// samples, for host and device code. The rest of that header (the operators on float2/3/4 and
// the other vector types, and the vector overloads of dot, length, normalize, lerp, clamp...)
// needs C++ operator and function overloading, which kern does not support yet.
#ifndef KERN_HELPER_MATH_H
#define KERN_HELPER_MATH_H

#include <cuda_runtime.h>
#include <math.h>

typedef unsigned int uint;
typedef unsigned short ushort;

#ifndef EXIT_WAIVED
#define EXIT_WAIVED 2
#endif

// a + t * (b - a): a at t = 0, b at t = 1.
inline __host__ __device__ float lerp(float a, float b, float t) { return a + t * (b - a); }

// f limited to [a, b].
inline __host__ __device__ float clamp(float f, float a, float b) { return fmaxf(a, fminf(f, b)); }

// The fractional part of v: v - floor(v), in [0, 1).
inline __host__ __device__ float fracf(float v) { return v - floorf(v); }

// 0 below a, 1 above b, and the smooth Hermite curve 3t^2 - 2t^3 between.
inline __host__ __device__ float smoothstep(float a, float b, float x) {
  float t = clamp((x - a) / (b - a), 0.0f, 1.0f);
  return t * t * (3.0f - 2.0f * t);
}

#endif // KERN_HELPER_MATH_H
