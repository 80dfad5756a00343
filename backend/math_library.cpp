// kern's own CUDA Math API functions (math_library.h). Single precision ones compute in double
// and round once, which makes them correctly rounded in all but rare double-rounding cases;
// the double precision ones are within the error bounds of CUDA's documentation. This file is
// compiled with -frounding-math so that arithmetic is not moved across the rounding mode
// changes of the directed-rounding functions.
#include "backend/math_library.h"

#include <cfenv>
#include <cmath>

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390; // erf'(0)
constexpr double kSqrt2 = 1.41421356237309504880;

// sin(pi x) with the argument reduced exactly: x = n/2 + t, |t| <= 1/4.
double sinpiImpl(double x) {
  if (!std::isfinite(x))
    return x - x;                    // NaN for NaN and infinities
  double r = std::remainder(x, 2.0); // exact, in [-1, 1]
  double n = std::rint(2.0 * r);
  double t = r - 0.5 * n;
  int q = static_cast<int>(n) & 3;
  double s = q == 0   ? std::sin(kPi * t)
             : q == 1 ? std::cos(kPi * t)
             : q == 2 ? -std::sin(kPi * t)
                      : -std::cos(kPi * t);
  if (s == 0)
    return std::copysign(0.0, x); // sinpi(+-0) = +-0, sinpi(n) has the sign of n
  return s;
}

double cospiImpl(double x) {
  if (!std::isfinite(x))
    return x - x;
  double r = std::remainder(std::fabs(x), 2.0);
  double n = std::rint(2.0 * r);
  double t = r - 0.5 * n;
  int q = static_cast<int>(n) & 3;
  double c = q == 0   ? std::cos(kPi * t)
             : q == 1 ? -std::sin(kPi * t)
             : q == 2 ? -std::cos(kPi * t)
                      : std::sin(kPi * t);
  return c + 0.0; // cospi(n + 1/2) = +0
}

// The inverse of erf on |y| <= 1/2, by Newton's method from the series' first terms.
double erfinvSmall(double y) {
  double x = 0.886226925452758014 * y * (1 + 0.261799387799149436 * y * y);
  for (int i = 0; i < 8; ++i) {
    double dx = (std::erf(x) - y) / (kTwoOverSqrtPi * std::exp(-x * x));
    x -= dx;
    if (std::fabs(dx) <= 1e-17 * std::fabs(x))
      break;
  }
  return x;
}

// log(erfc(x)) for x > 0, without underflow: erfc's asymptotic series where erfc is tiny.
double logErfc(double x) {
  if (x < 20)
    return std::log(std::erfc(x));
  double u = 1 / (2 * x * x), term = 1, sum = 1;
  for (int k = 1; k < 8; ++k) {
    term *= -(2 * k - 1) * u;
    sum += term;
  }
  return -x * x - std::log(x * 1.77245385090551602730) + std::log(sum);
}

// The inverse of erfc on 0 < z <= 1/2 (x >= 0.4769), by Newton's method on log(erfc(x)).
double erfcinvSmall(double z) {
  double lz = std::log(z);
  double x = std::sqrt(-lz);
  x = x - (std::log(x) + 0.5723649429247001) / (2 * x); // log(sqrt(pi)); asymptotic guess
  if (!(x > 0.4))
    x = 0.5;
  for (int i = 0; i < 60; ++i) {
    double le = logErfc(x);
    double slope = -kTwoOverSqrtPi * std::exp(-x * x - le); // d/dx log(erfc(x))
    double dx = (le - lz) / slope;
    x -= dx;
    if (std::fabs(dx) <= 1e-17 * std::fabs(x))
      break;
  }
  return x;
}

double erfinvImpl(double y) {
  if (std::isnan(y) || std::fabs(y) > 1)
    return NAN;
  if (std::fabs(y) == 1)
    return std::copysign(INFINITY, y);
  if (std::fabs(y) <= 0.5)
    return erfinvSmall(y);
  return std::copysign(erfcinvSmall(1 - std::fabs(y)), y); // 1 - |y| is exact here
}

double erfcinvImpl(double z) {
  if (std::isnan(z) || z < 0 || z > 2)
    return NAN;
  if (z == 0)
    return INFINITY;
  if (z == 2)
    return -INFINITY;
  if (z > 1)
    return -erfcinvImpl(2 - z); // exact
  if (z >= 0.5)
    return erfinvSmall(1 - z); // exact
  return erfcinvSmall(z);
}

// sqrt of a sum of squares, scaled by the largest magnitude so that it cannot overflow.
double normImpl(const double *v, int n) {
  double m = 0;
  bool nan = false;
  for (int i = 0; i < n; ++i) {
    if (std::isinf(v[i]))
      return INFINITY;
    nan |= std::isnan(v[i]);
    m = std::fmax(m, std::fabs(v[i]));
  }
  if (nan)
    return NAN;
  if (m == 0)
    return 0;
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += (v[i] / m) * (v[i] / m);
  return m * std::sqrt(s);
}

int fenvMode(int mode) {
  switch (mode) {
  case kKernTowardZero:
    return FE_TOWARDZERO;
  case kKernDown:
    return FE_DOWNWARD;
  case kKernUp:
    return FE_UPWARD;
  default:
    return FE_TONEAREST;
  }
}

/// Runs `f` with the rounding mode set to `mode`, then restores the caller's mode.
template <typename F> auto rounded(int mode, F f) {
  int old = std::fegetround();
  std::fesetround(fenvMode(mode));
  volatile auto r = f();
  std::fesetround(old);
  return r;
}

template <typename T> T roundedOp(int op, int mode, T a, T b, T c) {
  return rounded(mode, [&]() -> T {
    volatile T x = a, y = b, z = c;
    switch (op) {
    case kKernAdd:
      return x + y;
    case kKernSub:
      return x - y;
    case kKernMul:
      return x * y;
    case kKernDiv:
      return x / y;
    case kKernRcp:
      return T(1) / x;
    case kKernSqrt:
      return std::sqrt(static_cast<T>(x));
    default:
      return std::fma(static_cast<T>(x), static_cast<T>(y), static_cast<T>(z));
    }
  });
}

} // namespace

extern "C" {

float kern_lgammaf(float x) {
  int sign;
  return lgammaf_r(x, &sign); // lgammaf itself writes the global signgam
}
double kern_lgamma(double x) {
  int sign;
  return lgamma_r(x, &sign);
}
float kern_sinpif(float x) { return static_cast<float>(sinpiImpl(x)); }
double kern_sinpi(double x) { return sinpiImpl(x); }
float kern_cospif(float x) { return static_cast<float>(cospiImpl(x)); }
double kern_cospi(double x) { return cospiImpl(x); }
float kern_rcbrtf(float x) { return static_cast<float>(1 / std::cbrt(static_cast<double>(x))); }
double kern_rcbrt(double x) { return 1 / std::cbrt(x); }
float kern_rhypotf(float x, float y) {
  return static_cast<float>(1 / std::hypot(static_cast<double>(x), static_cast<double>(y)));
}
double kern_rhypot(double x, double y) { return 1 / std::hypot(x, y); }
float kern_norm3df(float a, float b, float c) {
  double v[] = {a, b, c};
  return static_cast<float>(normImpl(v, 3));
}
double kern_norm3d(double a, double b, double c) {
  double v[] = {a, b, c};
  return normImpl(v, 3);
}
float kern_rnorm3df(float a, float b, float c) {
  double v[] = {a, b, c};
  return static_cast<float>(1 / normImpl(v, 3));
}
double kern_rnorm3d(double a, double b, double c) {
  double v[] = {a, b, c};
  return 1 / normImpl(v, 3);
}
float kern_norm4df(float a, float b, float c, float d) {
  double v[] = {a, b, c, d};
  return static_cast<float>(normImpl(v, 4));
}
double kern_norm4d(double a, double b, double c, double d) {
  double v[] = {a, b, c, d};
  return normImpl(v, 4);
}
float kern_rnorm4df(float a, float b, float c, float d) {
  double v[] = {a, b, c, d};
  return static_cast<float>(1 / normImpl(v, 4));
}
double kern_rnorm4d(double a, double b, double c, double d) {
  double v[] = {a, b, c, d};
  return 1 / normImpl(v, 4);
}
float kern_normcdff(float x) {
  return static_cast<float>(0.5 * std::erfc(-static_cast<double>(x) / kSqrt2));
}
double kern_normcdf(double x) { return 0.5 * std::erfc(-x / kSqrt2); }
float kern_normcdfinvf(float p) { return static_cast<float>(kern_normcdfinv(p)); }
double kern_normcdfinv(double p) { return -kSqrt2 * erfcinvImpl(2 * p); } // -0 at 0.5, as CUDA
float kern_erfinvf(float y) { return static_cast<float>(erfinvImpl(y)); }
double kern_erfinv(double y) { return erfinvImpl(y); }
float kern_erfcinvf(float z) { return static_cast<float>(erfcinvImpl(z)); }
double kern_erfcinv(double z) { return erfcinvImpl(z); }
float kern_frexpf(float x) {
  int e;
  return std::frexp(x, &e);
}
double kern_frexp(double x) {
  int e;
  return std::frexp(x, &e);
}
int kern_frexpf_exp(float x) {
  int e = 0;
  std::frexp(x, &e);
  return e;
}
int kern_frexp_exp(double x) {
  int e = 0;
  std::frexp(x, &e);
  return e;
}
int kern_remquof_quo(float x, float y) {
  int q = 0;
  std::remquo(x, y, &q);
  return q;
}
int kern_remquo_quo(double x, double y) {
  int q = 0;
  std::remquo(x, y, &q);
  return q;
}
float kern_modff(float x) {
  float i;
  return std::modf(x, &i);
}
double kern_modf(double x) {
  double i;
  return std::modf(x, &i);
}
float kern_rounded_f32(int op, int mode, float a, float b, float c) {
  return roundedOp<float>(op, mode, a, b, c);
}
double kern_rounded_f64(int op, int mode, double a, double b, double c) {
  return roundedOp<double>(op, mode, a, b, c);
}
float kern_i64_to_f32(int mode, long long v) {
  return rounded(mode, [&] {
    volatile auto x = v;
    return static_cast<float>(x);
  });
}
float kern_u64_to_f32(int mode, unsigned long long v) {
  return rounded(mode, [&] {
    volatile auto x = v;
    return static_cast<float>(x);
  });
}
float kern_f64_to_f32(int mode, double v) {
  return rounded(mode, [&] {
    volatile auto x = v;
    return static_cast<float>(x);
  });
}
double kern_i64_to_f64(int mode, long long v) {
  return rounded(mode, [&] {
    volatile auto x = v;
    return static_cast<double>(x);
  });
}
double kern_u64_to_f64(int mode, unsigned long long v) {
  return rounded(mode, [&] {
    volatile auto x = v;
    return static_cast<double>(x);
  });
}

} // extern "C"
