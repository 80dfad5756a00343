// math_constants.h as kern provides it: CUDA's CUDART_* constants, float (_F) and double,
// as literals of the nearest value of their type; infinities and NaNs from kern's INFINITY and
// NAN, which need no header. (Kept apart from the helper_*.h headers: the nvcc checks of the
// tests find those with -I, and use CUDA's own math_constants.h.)
#ifndef KERN_MATH_CONSTANTS_H
#define KERN_MATH_CONSTANTS_H

#define CUDART_INF_F INFINITY
#define CUDART_NAN_F NAN
#define CUDART_NEG_ZERO_F (-0.0f)
#define CUDART_INF ((double)INFINITY)
#define CUDART_NAN ((double)NAN)
#define CUDART_NEG_ZERO (-0.0)
#define CUDART_REMQUO_BITS_F 3U
#define CUDART_REMQUO_MASK_F (~((~0U) << CUDART_REMQUO_BITS_F))

#define CUDART_PI_F 3.14159274f              // pi
#define CUDART_PIO2_F 1.57079637f            // pi/2
#define CUDART_PIO4_F 0.785398185f           // pi/4
#define CUDART_3PIO4_F 2.3561945f            // 3pi/4
#define CUDART_2_OVER_PI_F 0.636619747f      // 2/pi
#define CUDART_SQRT_2_OVER_PI_F 0.797884583f // sqrt(2/pi)
#define CUDART_SQRT_HALF_F 0.707106769f      // sqrt(1/2)
#define CUDART_SQRT_TWO_F 1.41421354f        // sqrt(2)
#define CUDART_THIRD_F 0.333333343f          // 1/3
#define CUDART_L2E_F 1.44269502f             // log2(e)
#define CUDART_L2T_F 3.32192802f             // log2(10)
#define CUDART_LG2_F 0.30103001f             // log10(2)
#define CUDART_LGE_F 0.434294492f            // log10(e)
#define CUDART_LN2_F 0.693147182f            // ln(2)
#define CUDART_LNT_F 2.30258512f             // ln(10)
#define CUDART_LNPI_F 1.14472985f            // ln(pi)
#define CUDART_TWO_TO_M126_F 1.17549435e-38f // 2^-126
#define CUDART_TWO_TO_126_F 8.50705917e+37f  // 2^126
#define CUDART_TWO_TO_23_F 8388608.0f        // 2^23
#define CUDART_TWO_TO_24_F 16777216.0f       // 2^24
#define CUDART_TWO_TO_31_F 2.14748365e+09f   // 2^31
#define CUDART_TWO_TO_32_F 4.2949673e+09f    // 2^32
#define CUDART_MAX_NORMAL_F 3.40282347e+38f  // the largest float
#define CUDART_NORM_HUGE_F 3.40282347e+38f   // the largest float
#define CUDART_MIN_DENORM_F 1.40129846e-45f  // the smallest positive float
#define CUDART_TRIG_PLOSS_F 105615.0f
#define CUDART_ZERO_F 0.0f
#define CUDART_ONE_F 1.0f

#define CUDART_PI 3.1415926535897931                // pi
#define CUDART_PIO2 1.5707963267948966              // pi/2
#define CUDART_PIO4 0.78539816339744828             // pi/4
#define CUDART_3PIO4 2.3561944901923448             // 3pi/4
#define CUDART_2_OVER_PI 0.63661977236758138        // 2/pi
#define CUDART_SQRT_2PI 2.5066282746310007          // sqrt(2pi)
#define CUDART_SQRT_PIO2 1.2533141373155003         // sqrt(pi/2)
#define CUDART_SQRT_2OPI 0.79788456080286541        // sqrt(2/pi)
#define CUDART_SQRT_HALF 0.70710678118654757        // sqrt(1/2)
#define CUDART_SQRT_TWO 1.4142135623730951          // sqrt(2)
#define CUDART_THIRD 0.33333333333333331            // 1/3
#define CUDART_TWOTHIRD 0.66666666666666663         // 2/3
#define CUDART_L2E 1.4426950408889634               // log2(e)
#define CUDART_L2T 3.3219280948873622               // log2(10)
#define CUDART_LG2 0.3010299956639812               // log10(2)
#define CUDART_LGE 0.43429448190325182              // log10(e)
#define CUDART_LN2 0.69314718055994529              // ln(2)
#define CUDART_LNT 2.3025850929940459               // ln(10)
#define CUDART_LNPI 1.1447298858494002              // ln(pi)
#define CUDART_TWO_TO_M1022 2.2250738585072014e-308 // 2^-1022
#define CUDART_TWO_TO_M54 5.5511151231257827e-17    // 2^-54
#define CUDART_TWO_TO_23 8388608.0                  // 2^23
#define CUDART_TWO_TO_52 4503599627370496.0         // 2^52
#define CUDART_TWO_TO_53 9007199254740992.0         // 2^53
#define CUDART_TWO_TO_54 18014398509481984.0        // 2^54
#define CUDART_DBL2INT_CVT 6755399441055744.0       // 2^52 + 2^51
#define CUDART_TRIG_PLOSS 2147483648.0              // 2^31
#define CUDART_MIN_DENORM 4.9406564584124654e-324   // the smallest positive double
#define CUDART_ZERO 0.0
#define CUDART_ONE 1.0

#endif // KERN_MATH_CONSTANTS_H
