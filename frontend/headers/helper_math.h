// helper_math.h as kern provides it, for host and device code: the scalar functions of the
// header of this name in CUDA's samples, and the arithmetic of the vector types (float2/3/4,
// int2/3/4, uint2/3/4): + - * / and their compound assignments, component-wise and with a
// scalar on either side, unary minus, dot, and for float vectors length, normalize, lerp, clamp,
// cross and reflect of float3s, the make_ conversions between vectors and from scalars, and
// floorf, fracf, fabs, fminf, fmaxf and fmodf component by component.
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

// Vectors made from a scalar (every component), from a shorter vector and the components it
// lacks, from a longer one (its first components), and from another vector of other type.
inline __host__ __device__ float2 make_float2(float s) { return make_float2(s, s); }
inline __host__ __device__ float2 make_float2(float3 a) { return make_float2(a.x, a.y); }
inline __host__ __device__ float2 make_float2(int2 a) {
  return make_float2(float(a.x), float(a.y));
}
inline __host__ __device__ float2 make_float2(uint2 a) {
  return make_float2(float(a.x), float(a.y));
}
inline __host__ __device__ float3 make_float3(float s) { return make_float3(s, s, s); }
inline __host__ __device__ float3 make_float3(float2 a) { return make_float3(a.x, a.y, 0.0f); }
inline __host__ __device__ float3 make_float3(float2 a, float s) {
  return make_float3(a.x, a.y, s);
}
inline __host__ __device__ float3 make_float3(float4 a) { return make_float3(a.x, a.y, a.z); }
inline __host__ __device__ float3 make_float3(int3 a) {
  return make_float3(float(a.x), float(a.y), float(a.z));
}
inline __host__ __device__ float3 make_float3(uint3 a) {
  return make_float3(float(a.x), float(a.y), float(a.z));
}
inline __host__ __device__ float4 make_float4(float s) { return make_float4(s, s, s, s); }
inline __host__ __device__ float4 make_float4(float3 a) { return make_float4(a.x, a.y, a.z, 0.0f); }
inline __host__ __device__ float4 make_float4(float3 a, float w) {
  return make_float4(a.x, a.y, a.z, w);
}
inline __host__ __device__ float4 make_float4(int4 a) {
  return make_float4(float(a.x), float(a.y), float(a.z), float(a.w));
}
inline __host__ __device__ float4 make_float4(uint4 a) {
  return make_float4(float(a.x), float(a.y), float(a.z), float(a.w));
}
inline __host__ __device__ int2 make_int2(int s) { return make_int2(s, s); }
inline __host__ __device__ int2 make_int2(float2 a) { return make_int2(int(a.x), int(a.y)); }
inline __host__ __device__ int3 make_int3(int s) { return make_int3(s, s, s); }
inline __host__ __device__ int3 make_int3(float3 a) {
  return make_int3(int(a.x), int(a.y), int(a.z));
}
inline __host__ __device__ int4 make_int4(int s) { return make_int4(s, s, s, s); }
inline __host__ __device__ int4 make_int4(float4 a) {
  return make_int4(int(a.x), int(a.y), int(a.z), int(a.w));
}
inline __host__ __device__ uint2 make_uint2(uint s) { return make_uint2(s, s); }
inline __host__ __device__ uint3 make_uint3(uint s) { return make_uint3(s, s, s); }
inline __host__ __device__ uint4 make_uint4(uint s) { return make_uint4(s, s, s, s); }

// The library's one-argument and two-argument functions, component by component.
#define KERN_VEC_MAP(F)                                                                            \
  inline __host__ __device__ float2 F(float2 v) { return make_float2(F(v.x), F(v.y)); }            \
  inline __host__ __device__ float3 F(float3 v) { return make_float3(F(v.x), F(v.y), F(v.z)); }    \
  inline __host__ __device__ float4 F(float4 v) {                                                  \
    return make_float4(F(v.x), F(v.y), F(v.z), F(v.w));                                            \
  }
#define KERN_VEC_MAP2(F)                                                                           \
  inline __host__ __device__ float2 F(float2 a, float2 b) {                                        \
    return make_float2(F(a.x, b.x), F(a.y, b.y));                                                  \
  }                                                                                                \
  inline __host__ __device__ float3 F(float3 a, float3 b) {                                        \
    return make_float3(F(a.x, b.x), F(a.y, b.y), F(a.z, b.z));                                     \
  }                                                                                                \
  inline __host__ __device__ float4 F(float4 a, float4 b) {                                        \
    return make_float4(F(a.x, b.x), F(a.y, b.y), F(a.z, b.z), F(a.w, b.w));                        \
  }
KERN_VEC_MAP(floorf)
KERN_VEC_MAP(fracf)
KERN_VEC_MAP(fabs)
KERN_VEC_MAP2(fminf)
KERN_VEC_MAP2(fmaxf)
KERN_VEC_MAP2(fmodf)
#undef KERN_VEC_MAP
#undef KERN_VEC_MAP2

// The incident vector i reflected by the surface of normal n.
inline __host__ __device__ float3 reflect(float3 i, float3 n) { return i - 2.0f * n * dot(n, i); }

#endif // KERN_HELPER_MATH_H
