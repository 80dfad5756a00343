// The preprocessor's tables: the headers kern builds in, the macros they define, and the macros
// every program starts with.
#include "frontend/pp_tables.h"

namespace kern::frontend::pp_detail {

// Headers the language accepts and ignores (LANGUAGE.md): their declarations are built in.
const std::set<std::string> kSystemHeaders = {"stdio.h",
                                              "stdlib.h",
                                              "math.h",
                                              "string.h",
                                              "memory.h", // an old alias of string.h
                                              "cuda_runtime.h",
                                              "builtin_types.h",
                                              "assert.h",
                                              "stdint.h",
                                              "float.h",
                                              "limits.h",
                                              "time.h",
                                              "stdbool.h",
                                              "stddef.h",
                                              "cuda_runtime_api.h",
                                              "cuda_profiler_api.h",
                                              "device_launch_parameters.h",
                                              "cstdio",
                                              "cstdlib",
                                              "cmath",
                                              "cstring",
                                              "cassert",
                                              "cstdint",
                                              "cfloat",
                                              "climits",
                                              "ctime",
                                              "cstddef",
                                              "device_functions.h",
                                              "vector_types.h",
                                              "vector_functions.h",
                                              "sys/time.h",
                                              "getopt.h",
                                              "ctype.h",
                                              "strings.h",
                                              "cctype",
                                              "errno.h",
                                              "cerrno",
                                              "sys/types.h"};

const std::set<std::string> kCxxOnlyKeywords = {
    "nullptr",   "catch",       "constexpr",     "delete",       "new",
    "class",     "static_cast", "const_cast",    "dynamic_cast", "reinterpret_cast",
    "namespace", "operator",    "static_assert", "template",     "throw",
    "try",       "typename",    "using",         "alignas",      "alignof"};

const std::set<std::string> kCudaHeaders = {"cuda_runtime.h",
                                            "cuda.h",
                                            "cuda_runtime_api.h",
                                            "device_launch_parameters.h",
                                            "vector_types.h",
                                            "vector_functions.h",
                                            "cuda_fp16.h",
                                            "device_functions.h",
                                            "cuda_profiler_api.h",
                                            "helper_cuda.h",
                                            "helper_math.h",
                                            "math_constants.h",
                                            "cooperative_groups.h",
                                            "builtin_types.h",
                                            "nvrtc.h",
                                            "cudaProfiler.h",
                                            "helper_cuda_drvapi.h",
                                            "nvrtc_helper.h"};

// Headers of CUDA and of C++ that kern knows but whose contents are not supported yet: the
// include is accepted, and the first use of what they declare gets its own diagnostic
// ("cooperative groups are not supported", "templates are not supported yet").
const std::set<std::string> kDeferredHeaders = {"cooperative_groups/reduce.h",
                                                "memory",
                                                "random",
                                                "thread",
                                                "mutex",
                                                "atomic",
                                                "array",
                                                "tuple",
                                                "type_traits",
                                                "typeinfo",
                                                "thrust/device_vector.h"};

// Macros that a built-in header defines when it is included, and only then (nvcc includes
// cuda_runtime.h itself, so its macros are among the predefined ones below).
const std::map<std::string, std::vector<const char *>> kHeaderMacros = {
    // getopt's globals live in the runtime: each names its location (runtime/host_getopt.cpp).
    // (<unistd.h> is a text header, frontend/headers/posix/unistd.h.)
    {"getopt.h",
     {"optarg (*__kern_optarg_location())", "optind (*__kern_optind_location())",
      "opterr (*__kern_opterr_location())", "optopt (*__kern_optopt_location())", "no_argument 0",
      "required_argument 1", "optional_argument 2"}},
    // errno is the runtime's, as glibc's is per thread: a macro over its location.
    {"errno.h",
     {"errno (*__kern_errno_location())", "EPERM 1", "ENOENT 2", "EINTR 4", "EIO 5", "EBADF 9",
      "ENOMEM 12", "EACCES 13", "EEXIST 17", "ENOTDIR 20", "EISDIR 21", "EINVAL 22", "EMFILE 24",
      "ENOTTY 25", "ENOSPC 28", "ESPIPE 29", "EDOM 33", "ERANGE 34", "EOVERFLOW 75"}},
    {"cerrno",
     {"errno (*__kern_errno_location())", "EPERM 1", "ENOENT 2", "EINTR 4", "EIO 5", "EBADF 9",
      "ENOMEM 12", "EACCES 13", "EEXIST 17", "ENOTDIR 20", "EISDIR 21", "EINVAL 22", "EMFILE 24",
      "ENOTTY 25", "ENOSPC 28", "ESPIPE 29", "EDOM 33", "ERANGE 34", "EOVERFLOW 75"}},
};

// Constants a program may use without including the header that defines them.
const std::vector<const char *> kPredefined = {
    "__CUDACC__ 1",
    "__KERN__ 1",
    "__NVCC__ 1",
    // The CUDA release whose runtime API kern implements (13.0): what the CUDA headers and nvcc
    // define, so `#if CUDART_VERSION >= 4000` takes the branch it takes with nvcc.
    "CUDART_VERSION 13000",
    // The include guards of the CUDA headers that nvcc includes in every .cu file
    // (cuda_runtime.h and what it includes): programs test them (`#ifdef __DRIVER_TYPES_H__`
    // around a helper that needs cudaError_t).
    "__CUDA_RUNTIME_H__",
    "__CUDA_RUNTIME_API_H__",
    "__DRIVER_TYPES_H__",
    "__VECTOR_TYPES_H__",
    // A const kernel parameter whose address may be taken (CUDA 11.7): kern's parameters are
    // memory the kernel reads in place already, so the annotation has nothing to add.
    "__grid_constant__",
    // The platform kern runs and models the host of: x86-64 Linux, LP64, as GCC predefines it
    // in its strict modes (programs test these to pick their POSIX code: `#if
    // defined(__unix__)`); not `linux` or `unix`, which only its GNU modes define.
    "__linux__ 1",
    "__linux 1",
    "__unix__ 1",
    "__unix 1",
    "__gnu_linux__ 1",
    "__ELF__ 1",
    "__x86_64__ 1",
    "__x86_64 1",
    "__amd64__ 1",
    "__amd64 1",
    "__LP64__ 1",
    "_LP64 1",
    "__CHAR_BIT__ 8",
    "__SIZEOF_INT__ 4",
    "__SIZEOF_LONG__ 8",
    "__SIZEOF_LONG_LONG__ 8",
    "__SIZEOF_POINTER__ 8",
    "__SIZEOF_SIZE_T__ 8",
    "__ORDER_LITTLE_ENDIAN__ 1234",
    "__ORDER_BIG_ENDIAN__ 4321",
    "__BYTE_ORDER__ __ORDER_LITTLE_ENDIAN__",
    "__CUDACC_VER_MAJOR__ 13",
    "__CUDACC_VER_MINOR__ 0",
    "NULL 0",
    "EXIT_SUCCESS 0",
    "EXIT_FAILURE 1",
    "RAND_MAX 2147483647",
    "CHAR_BIT 8",
    "SCHAR_MIN (-128)",
    "SCHAR_MAX 127",
    "UCHAR_MAX 255",
    "CHAR_MIN (-128)",
    "CHAR_MAX 127",
    "SHRT_MIN (-32768)",
    "SHRT_MAX 32767",
    "USHRT_MAX 65535",
    "INT_MAX 2147483647",
    "INT_MIN (-2147483647 - 1)",
    "UINT_MAX 4294967295U",
    "LONG_MAX 9223372036854775807L",
    "LONG_MIN (-9223372036854775807L - 1)",
    "ULONG_MAX 18446744073709551615UL",
    "LLONG_MAX 9223372036854775807LL",
    "LLONG_MIN (-9223372036854775807LL - 1)",
    "ULLONG_MAX 18446744073709551615ULL",
    "INT8_MAX 127",
    "INT8_MIN (-128)",
    "UINT8_MAX 255",
    "INT16_MAX 32767",
    "INT16_MIN (-32768)",
    "UINT16_MAX 65535",
    "INT32_MAX 2147483647",
    "INT32_MIN (-2147483647 - 1)",
    "UINT32_MAX 4294967295U",
    "INT64_MAX 9223372036854775807LL",
    "INT64_MIN (-9223372036854775807LL - 1)",
    "UINT64_MAX 18446744073709551615ULL",
    "SIZE_MAX 18446744073709551615UL",
    "FLT_MAX 3.402823466e+38f",
    "FLT_MIN 1.175494351e-38f",
    "FLT_EPSILON 1.192092896e-07f",
    "DBL_MAX 1.7976931348623158e+308",
    "DBL_MIN 2.2250738585072014e-308",
    "DBL_EPSILON 2.2204460492503131e-16",
    // <math.h>'s special values are names sema knows (sema_expr.cpp); defined as macros too,
    // so that `#ifndef HUGE_VAL` sees them. HUGE is glibc's old name of HUGE_VAL.
    "HUGE_VAL HUGE_VAL",
    "HUGE_VALF HUGE_VALF",
    "INFINITY INFINITY",
    "NAN NAN",
    "HUGE HUGE_VAL",
    "M_E 2.71828182845904523536",
    "M_LOG2E 1.44269504088896340736",
    "M_LOG10E 0.434294481903251827651",
    "M_LN2 0.693147180559945309417",
    "M_LN10 2.30258509299404568402",
    "M_PI 3.14159265358979323846",
    "M_PI_2 1.57079632679489661923",
    "M_PI_4 0.785398163397448309616",
    "M_1_PI 0.318309886183790671538",
    "M_2_PI 0.636619772367581343076",
    "M_2_SQRTPI 1.12837916709551257390",
    "M_SQRT2 1.41421356237309504880",
    "M_SQRT1_2 0.707106781186547524401",
    // The host C library's constants (time.h, stdio.h), as glibc on x86-64 defines them.
    "CLOCKS_PER_SEC 1000000L",
    "CLOCK_REALTIME 0",
    "CLOCK_MONOTONIC 1",
    "EOF (-1)",
    "SEEK_SET 0",
    "SEEK_CUR 1",
    "SEEK_END 2",
    // The calling convention of stream callbacks and host functions (driver_types.h): nothing
    // on Linux.
    "CUDART_CB",
    // assert() keeps the text of its condition for the message, as <assert.h> does.
    "assert(e) __kern_assert((e), #e)",
};

} // namespace kern::frontend::pp_detail
