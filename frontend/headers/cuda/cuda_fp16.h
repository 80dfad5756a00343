// kern's <cuda_fp16.h>: IEEE half precision (binary16) as CUDA provides it, for host and device
// code, written in the C++ that kern compiles. A __half holds the 16 bits; each operation is
// computed in float (or double, for fma) and rounded to half to nearest even, which gives the
// correctly rounded half result (float's 24 bits are more than twice half's 11). Conversions
// follow IEEE 754: subnormals, infinities and NaN included.
#ifndef KERN_CUDA_FP16_H
#define KERN_CUDA_FP16_H

#include <string.h>

/// The bits of a float rounded to half precision, to nearest even.
__host__ __device__ inline unsigned short __kern_float_to_half_bits(float f) {
  unsigned int x;
  memcpy(&x, &f, 4);
  unsigned int sign = (x >> 16) & 0x8000u;
  unsigned int magnitude = x & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) // infinity or NaN (a quiet NaN)
    return (unsigned short)(sign | (magnitude > 0x7f800000u ? 0x7e00u : 0x7c00u));
  int e = (int)(magnitude >> 23);
  unsigned int m = magnitude & 0x7fffffu;
  if (e >= 113) { // a normal half, or too large (rounds up to infinity through the carry)
    if (e > 142)
      return (unsigned short)(sign | 0x7c00u);
    unsigned int base = ((unsigned int)(e - 112) << 10) | (m >> 13);
    unsigned int rest = m & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (base & 1u)))
      ++base;
    return (unsigned short)(sign | base);
  }
  // A subnormal half (or zero): the value in units of 2^-24.
  int shift = 126 - e;
  if (shift >= 32 || e == 0)
    return (unsigned short)sign;
  unsigned int full = m | 0x800000u;
  unsigned int base = full >> shift;
  unsigned int rest = full & ((1u << shift) - 1u), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (base & 1u)))
    ++base;
  return (unsigned short)(sign | base);
}

/// The float of a half's bits (exact).
__host__ __device__ inline float __kern_half_bits_to_float(unsigned short h) {
  unsigned int sign = ((unsigned int)h & 0x8000u) << 16;
  unsigned int e = ((unsigned int)h >> 10) & 0x1fu;
  unsigned int m = (unsigned int)h & 0x3ffu;
  unsigned int bits;
  if (e == 0x1fu) {
    bits = sign | 0x7f800000u | (m << 13);
  } else if (e == 0) {
    if (m == 0) {
      bits = sign;
    } else { // subnormal: normalise
      int k = -1;
      do {
        ++k;
        m <<= 1;
      } while (!(m & 0x400u));
      bits = sign | ((unsigned int)(112 - k) << 23) | ((m & 0x3ffu) << 13);
    }
  } else {
    bits = sign | ((e + 112u) << 23) | (m << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

struct __half_raw {
  unsigned short x;
};

struct __half {
  unsigned short __x;
  __host__ __device__ __half() {} // as CUDA's defaulted one: the bits are left as they are
  __host__ __device__ __half(float f) : __x(__kern_float_to_half_bits(f)) {}
  __host__ __device__ __half(double f) : __x(__kern_float_to_half_bits((float)f)) {}
  __host__ __device__ __half(int i) : __x(__kern_float_to_half_bits((float)i)) {}
  __host__ __device__ __half(__half_raw r) : __x(r.x) {}
  __host__ __device__ operator float() const { return __kern_half_bits_to_float(__x); }
  __host__ __device__ operator __half_raw() const {
    __half_raw r;
    r.x = __x;
    return r;
  }
};

typedef __half half;

struct __half2 {
  __half x, y;
  __host__ __device__ __half2() {}
  __host__ __device__ __half2(__half a, __half b) : x(a), y(b) {}
};

typedef __half2 half2;

__host__ __device__ inline __half __float2half(float f) { return __half(f); }
__host__ __device__ inline __half __float2half_rn(float f) { return __half(f); }
__host__ __device__ inline float __half2float(__half h) { return (float)h; }
__host__ __device__ inline __half __double2half(double d) { return __half((float)d); }
__host__ __device__ inline __half2 __float2half2_rn(float f) {
  return __half2(__half(f), __half(f));
}
__host__ __device__ inline __half2 __floats2half2_rn(float a, float b) {
  return __half2(__half(a), __half(b));
}
__host__ __device__ inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
__host__ __device__ inline __half2 __half2half2(__half a) { return __half2(a, a); }
__host__ __device__ inline float2 __half22float2(__half2 a) {
  return make_float2((float)a.x, (float)a.y);
}
__host__ __device__ inline __half2 __float22half2_rn(float2 f) {
  return __half2(__half(f.x), __half(f.y));
}
__host__ __device__ inline float __low2float(__half2 a) { return (float)a.x; }
__host__ __device__ inline float __high2float(__half2 a) { return (float)a.y; }
__host__ __device__ inline __half __low2half(__half2 a) { return a.x; }
__host__ __device__ inline __half __high2half(__half2 a) { return a.y; }
__host__ __device__ inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
__host__ __device__ inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
__host__ __device__ inline int __half2int_rn(__half h) { return (int)rintf((float)h); }
__host__ __device__ inline int __half2int_rz(__half h) { return (int)(float)h; }
__host__ __device__ inline __half __int2half_rn(int i) { return __half((float)i); }
__host__ __device__ inline unsigned short __half_as_ushort(__half h) { return h.__x; }
__host__ __device__ inline __half __ushort_as_half(unsigned short u) {
  __half_raw r;
  r.x = u;
  return __half(r);
}

// Arithmetic, one result rounded to half.
__host__ __device__ inline __half __hadd(__half a, __half b) { return __half((float)a + (float)b); }
__host__ __device__ inline __half __hsub(__half a, __half b) { return __half((float)a - (float)b); }
__host__ __device__ inline __half __hmul(__half a, __half b) { return __half((float)a * (float)b); }
__host__ __device__ inline __half __hdiv(__half a, __half b) { return __half((float)a / (float)b); }
__host__ __device__ inline __half __hneg(__half a) { return __ushort_as_half(a.__x ^ 0x8000u); }
__host__ __device__ inline __half __habs(__half a) { return __ushort_as_half(a.__x & 0x7fffu); }
__host__ __device__ inline __half __hfma(__half a, __half b, __half c) {
  return __half((float)((double)(float)a * (double)(float)b + (double)(float)c));
}
__host__ __device__ inline __half2 __hadd2(__half2 a, __half2 b) {
  return __half2(__hadd(a.x, b.x), __hadd(a.y, b.y));
}
__host__ __device__ inline __half2 __hsub2(__half2 a, __half2 b) {
  return __half2(__hsub(a.x, b.x), __hsub(a.y, b.y));
}
__host__ __device__ inline __half2 __hmul2(__half2 a, __half2 b) {
  return __half2(__hmul(a.x, b.x), __hmul(a.y, b.y));
}
__host__ __device__ inline __half2 __h2div(__half2 a, __half2 b) {
  return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y));
}
__host__ __device__ inline __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
__host__ __device__ inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
__host__ __device__ inline __half hsqrt(__half a) { return __half(sqrtf((float)a)); }

// Comparisons (false when either is NaN, except __hne's unordered form).
__host__ __device__ inline bool __heq(__half a, __half b) { return (float)a == (float)b; }
__host__ __device__ inline bool __hne(__half a, __half b) {
  return (float)a < (float)b || (float)a > (float)b;
}
__host__ __device__ inline bool __hlt(__half a, __half b) { return (float)a < (float)b; }
__host__ __device__ inline bool __hle(__half a, __half b) { return (float)a <= (float)b; }
__host__ __device__ inline bool __hgt(__half a, __half b) { return (float)a > (float)b; }
__host__ __device__ inline bool __hge(__half a, __half b) { return (float)a >= (float)b; }
__host__ __device__ inline bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
__host__ __device__ inline int __hisinf(__half a) {
  return (a.__x & 0x7fffu) == 0x7c00u ? ((a.__x & 0x8000u) ? -1 : 1) : 0;
}
__host__ __device__ inline __half __hmax(__half a, __half b) { return __hlt(a, b) ? b : a; }
__host__ __device__ inline __half __hmin(__half a, __half b) { return __hlt(b, a) ? b : a; }

// C++ operators, as cuda_fp16.hpp gives them.
__host__ __device__ inline __half operator+(__half a, __half b) { return __hadd(a, b); }
__host__ __device__ inline __half operator-(__half a, __half b) { return __hsub(a, b); }
__host__ __device__ inline __half operator*(__half a, __half b) { return __hmul(a, b); }
__host__ __device__ inline __half operator/(__half a, __half b) { return __hdiv(a, b); }
__host__ __device__ inline __half operator-(__half a) { return __hneg(a); }
__host__ __device__ inline __half &operator+=(__half &a, __half b) {
  a = __hadd(a, b);
  return a;
}
__host__ __device__ inline __half &operator-=(__half &a, __half b) {
  a = __hsub(a, b);
  return a;
}
__host__ __device__ inline __half &operator*=(__half &a, __half b) {
  a = __hmul(a, b);
  return a;
}
__host__ __device__ inline __half &operator/=(__half &a, __half b) {
  a = __hdiv(a, b);
  return a;
}
__host__ __device__ inline bool operator==(__half a, __half b) { return __heq(a, b); }
__host__ __device__ inline bool operator!=(__half a, __half b) { return __hne(a, b); }
__host__ __device__ inline bool operator<(__half a, __half b) { return __hlt(a, b); }
__host__ __device__ inline bool operator<=(__half a, __half b) { return __hle(a, b); }
__host__ __device__ inline bool operator>(__half a, __half b) { return __hgt(a, b); }
__host__ __device__ inline bool operator>=(__half a, __half b) { return __hge(a, b); }
__host__ __device__ inline __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
__host__ __device__ inline __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
__host__ __device__ inline __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
__host__ __device__ inline __half2 operator/(__half2 a, __half2 b) { return __h2div(a, b); }
__host__ __device__ inline __half2 operator-(__half2 a) { return __hneg2(a); }
__host__ __device__ inline __half2 &operator+=(__half2 &a, __half2 b) {
  a = __hadd2(a, b);
  return a;
}
__host__ __device__ inline __half2 &operator-=(__half2 &a, __half2 b) {
  a = __hsub2(a, b);
  return a;
}
__host__ __device__ inline __half2 &operator*=(__half2 &a, __half2 b) {
  a = __hmul2(a, b);
  return a;
}

#endif // KERN_CUDA_FP16_H
