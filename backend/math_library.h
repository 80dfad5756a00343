// The CUDA Math API functions that kern computes with its own C functions rather than the C
// library's (which lacks them, or whose interface differs): compiled code calls them once per
// lane, through the JIT's allow-list (math_library.def).
#pragma once

// Operations and rounding modes of kern_rounded_f32/f64 and of the conversions, as the IR
// lowering encodes them (CUDA's __fadd_rz, __fmul_ru, __int2float_rd, ...).
enum KernRoundedOp { kKernAdd, kKernSub, kKernMul, kKernDiv, kKernRcp, kKernSqrt, kKernFma };
enum KernRoundingMode { kKernNearest, kKernTowardZero, kKernDown, kKernUp };

extern "C" {
float kern_lgammaf(float x);
double kern_lgamma(double x);
float kern_sinpif(float x);
double kern_sinpi(double x);
float kern_cospif(float x);
double kern_cospi(double x);
float kern_rcbrtf(float x);
double kern_rcbrt(double x);
float kern_rhypotf(float x, float y);
double kern_rhypot(double x, double y);
float kern_norm3df(float a, float b, float c);
double kern_norm3d(double a, double b, double c);
float kern_rnorm3df(float a, float b, float c);
double kern_rnorm3d(double a, double b, double c);
float kern_norm4df(float a, float b, float c, float d);
double kern_norm4d(double a, double b, double c, double d);
float kern_rnorm4df(float a, float b, float c, float d);
double kern_rnorm4d(double a, double b, double c, double d);
float kern_normcdff(float x);
double kern_normcdf(double x);
float kern_normcdfinvf(float p);
double kern_normcdfinv(double p);
float kern_erfinvf(float y);
double kern_erfinv(double y);
float kern_erfcinvf(float z);
double kern_erfcinv(double z);
float kern_frexpf(float x);
double kern_frexp(double x);
int kern_frexpf_exp(float x);
int kern_frexp_exp(double x);
int kern_remquof_quo(float x, float y);
int kern_remquo_quo(double x, double y);
float kern_modff(float x);
double kern_modf(double x);
float kern_rounded_f32(int op, int mode, float a, float b, float c);
double kern_rounded_f64(int op, int mode, double a, double b, double c);
float kern_i64_to_f32(int mode, long long v);
float kern_u64_to_f32(int mode, unsigned long long v);
float kern_f64_to_f32(int mode, double v);
double kern_i64_to_f64(int mode, long long v);
double kern_u64_to_f64(int mode, unsigned long long v);
}
