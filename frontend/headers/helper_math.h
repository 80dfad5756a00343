// helper_math.h as kern provides it, for host and device code: the scalar functions of the
// header of this name in CUDA's samples, and the arithmetic of the vector types (float2/3/4,
// int2/3/4, uint2/3/4): + - * / and their compound assignments, component-wise and with a
// scalar on either side, unary minus, dot, and for float vectors length, normalize, lerp, clamp,
// and cross of float3s. Not here yet: the vector overloads of fminf, fmaxf, floorf, fabs...
// (kern's built-in functions of those names take scalars).
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

// The component-wise arithmetic of vector type V (of N components, element type S).
#define KERN_VEC_OPS2(V, S)                                                                        \
  inline __host__ __device__ V operator+(V a, V b) { return make_##V(a.x + b.x, a.y + b.y); }      \
  inline __host__ __device__ V operator-(V a, V b) { return make_##V(a.x - b.x, a.y - b.y); }      \
  inline __host__ __device__ V operator*(V a, V b) { return make_##V(a.x * b.x, a.y * b.y); }      \
  inline __host__ __device__ V operator/(V a, V b) { return make_##V(a.x / b.x, a.y / b.y); }      \
  inline __host__ __device__ V operator*(V a, S s) { return make_##V(a.x * s, a.y * s); }          \
  inline __host__ __device__ V operator*(S s, V a) { return make_##V(s * a.x, s * a.y); }          \
  inline __host__ __device__ V operator/(V a, S s) { return make_##V(a.x / s, a.y / s); }          \
  inline __host__ __device__ V operator+(V a, S s) { return make_##V(a.x + s, a.y + s); }          \
  inline __host__ __device__ V operator-(V a, S s) { return make_##V(a.x - s, a.y - s); }          \
  inline __host__ __device__ S dot(V a, V b) { return a.x * b.x + a.y * b.y; }
#define KERN_VEC_OPS3(V, S)                                                                        \
  inline __host__ __device__ V operator+(V a, V b) {                                               \
    return make_##V(a.x + b.x, a.y + b.y, a.z + b.z);                                              \
  }                                                                                                \
  inline __host__ __device__ V operator-(V a, V b) {                                               \
    return make_##V(a.x - b.x, a.y - b.y, a.z - b.z);                                              \
  }                                                                                                \
  inline __host__ __device__ V operator*(V a, V b) {                                               \
    return make_##V(a.x * b.x, a.y * b.y, a.z * b.z);                                              \
  }                                                                                                \
  inline __host__ __device__ V operator/(V a, V b) {                                               \
    return make_##V(a.x / b.x, a.y / b.y, a.z / b.z);                                              \
  }                                                                                                \
  inline __host__ __device__ V operator*(V a, S s) { return make_##V(a.x * s, a.y * s, a.z * s); } \
  inline __host__ __device__ V operator*(S s, V a) { return make_##V(s * a.x, s * a.y, s * a.z); } \
  inline __host__ __device__ V operator/(V a, S s) { return make_##V(a.x / s, a.y / s, a.z / s); } \
  inline __host__ __device__ V operator+(V a, S s) { return make_##V(a.x + s, a.y + s, a.z + s); } \
  inline __host__ __device__ V operator-(V a, S s) { return make_##V(a.x - s, a.y - s, a.z - s); } \
  inline __host__ __device__ S dot(V a, V b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
#define KERN_VEC_OPS4(V, S)                                                                        \
  inline __host__ __device__ V operator+(V a, V b) {                                               \
    return make_##V(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);                                   \
  }                                                                                                \
  inline __host__ __device__ V operator-(V a, V b) {                                               \
    return make_##V(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);                                   \
  }                                                                                                \
  inline __host__ __device__ V operator*(V a, V b) {                                               \
    return make_##V(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w);                                   \
  }                                                                                                \
  inline __host__ __device__ V operator/(V a, V b) {                                               \
    return make_##V(a.x / b.x, a.y / b.y, a.z / b.z, a.w / b.w);                                   \
  }                                                                                                \
  inline __host__ __device__ V operator*(V a, S s) {                                               \
    return make_##V(a.x * s, a.y * s, a.z * s, a.w * s);                                           \
  }                                                                                                \
  inline __host__ __device__ V operator*(S s, V a) {                                               \
    return make_##V(s * a.x, s * a.y, s * a.z, s * a.w);                                           \
  }                                                                                                \
  inline __host__ __device__ V operator/(V a, S s) {                                               \
    return make_##V(a.x / s, a.y / s, a.z / s, a.w / s);                                           \
  }                                                                                                \
  inline __host__ __device__ V operator+(V a, S s) {                                               \
    return make_##V(a.x + s, a.y + s, a.z + s, a.w + s);                                           \
  }                                                                                                \
  inline __host__ __device__ V operator-(V a, S s) {                                               \
    return make_##V(a.x - s, a.y - s, a.z - s, a.w - s);                                           \
  }                                                                                                \
  inline __host__ __device__ S dot(V a, V b) {                                                     \
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;                                          \
  }
// The compound assignments, in terms of the operators above.
#define KERN_VEC_ASSIGN(V, S)                                                                      \
  inline __host__ __device__ void operator+=(V &a, V b) { a = a + b; }                             \
  inline __host__ __device__ void operator-=(V &a, V b) { a = a - b; }                             \
  inline __host__ __device__ void operator*=(V &a, V b) { a = a * b; }                             \
  inline __host__ __device__ void operator/=(V &a, V b) { a = a / b; }                             \
  inline __host__ __device__ void operator+=(V &a, S s) { a = a + s; }                             \
  inline __host__ __device__ void operator-=(V &a, S s) { a = a - s; }                             \
  inline __host__ __device__ void operator*=(V &a, S s) { a = a * s; }                             \
  inline __host__ __device__ void operator/=(V &a, S s) { a = a / s; }

KERN_VEC_OPS2(float2, float)
KERN_VEC_OPS3(float3, float)
KERN_VEC_OPS4(float4, float)
KERN_VEC_OPS2(int2, int)
KERN_VEC_OPS3(int3, int)
KERN_VEC_OPS4(int4, int)
KERN_VEC_OPS2(uint2, uint)
KERN_VEC_OPS3(uint3, uint)
KERN_VEC_OPS4(uint4, uint)
KERN_VEC_ASSIGN(float2, float)
KERN_VEC_ASSIGN(float3, float)
KERN_VEC_ASSIGN(float4, float)
KERN_VEC_ASSIGN(int2, int)
KERN_VEC_ASSIGN(int3, int)
KERN_VEC_ASSIGN(int4, int)
KERN_VEC_ASSIGN(uint2, uint)
KERN_VEC_ASSIGN(uint3, uint)
KERN_VEC_ASSIGN(uint4, uint)

#undef KERN_VEC_OPS2
#undef KERN_VEC_OPS3
#undef KERN_VEC_OPS4
#undef KERN_VEC_ASSIGN

inline __host__ __device__ float2 operator-(float2 a) { return make_float2(-a.x, -a.y); }
inline __host__ __device__ float3 operator-(float3 a) { return make_float3(-a.x, -a.y, -a.z); }
inline __host__ __device__ float4 operator-(float4 a) {
  return make_float4(-a.x, -a.y, -a.z, -a.w);
}
inline __host__ __device__ int2 operator-(int2 a) { return make_int2(-a.x, -a.y); }
inline __host__ __device__ int3 operator-(int3 a) { return make_int3(-a.x, -a.y, -a.z); }
inline __host__ __device__ int4 operator-(int4 a) { return make_int4(-a.x, -a.y, -a.z, -a.w); }

inline __host__ __device__ float length(float2 v) { return sqrtf(dot(v, v)); }
inline __host__ __device__ float length(float3 v) { return sqrtf(dot(v, v)); }
inline __host__ __device__ float length(float4 v) { return sqrtf(dot(v, v)); }
inline __host__ __device__ float2 normalize(float2 v) { return v * rsqrtf(dot(v, v)); }
inline __host__ __device__ float3 normalize(float3 v) { return v * rsqrtf(dot(v, v)); }
inline __host__ __device__ float4 normalize(float4 v) { return v * rsqrtf(dot(v, v)); }
inline __host__ __device__ float3 cross(float3 a, float3 b) {
  return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
inline __host__ __device__ float2 lerp(float2 a, float2 b, float t) { return a + t * (b - a); }
inline __host__ __device__ float3 lerp(float3 a, float3 b, float t) { return a + t * (b - a); }
inline __host__ __device__ float4 lerp(float4 a, float4 b, float t) { return a + t * (b - a); }
inline __host__ __device__ float2 clamp(float2 v, float a, float b) {
  return make_float2(clamp(v.x, a, b), clamp(v.y, a, b));
}
inline __host__ __device__ float3 clamp(float3 v, float a, float b) {
  return make_float3(clamp(v.x, a, b), clamp(v.y, a, b), clamp(v.z, a, b));
}
inline __host__ __device__ float4 clamp(float4 v, float a, float b) {
  return make_float4(clamp(v.x, a, b), clamp(v.y, a, b), clamp(v.z, a, b), clamp(v.w, a, b));
}

#endif // KERN_HELPER_MATH_H
