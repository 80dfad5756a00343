// helper_cuda.h as kern provides it: the error checks and device selection of the header of this
// name in CUDA's samples (same names, arguments, results and messages), written in the C that
// kern compiles. The samples' `check` is a template; here checkCudaErrors calls
// kernCheckCudaResult, for cudaError_t results (the runtime API's).
#ifndef KERN_HELPER_CUDA_H
#define KERN_HELPER_CUDA_H

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper_string.h"

#ifndef EXIT_WAIVED
#define EXIT_WAIVED 2
#endif

#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif

// The name of a runtime API error code: "cudaErrorInvalidValue".
static inline const char *_cudaGetErrorEnum(cudaError_t error) { return cudaGetErrorName(error); }

// What checkCudaErrors does with a call's result: nothing for cudaSuccess; otherwise the message
// of CUDA's samples on stderr and exit(EXIT_FAILURE).
inline void kernCheckCudaResult(cudaError_t result, const char *func, const char *file, int line) {
  if (result != cudaSuccess) {
    fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\" \n", file, line, (int)result,
            _cudaGetErrorEnum(result), func);
    exit(EXIT_FAILURE);
  }
}

#if defined(__cuda_cuda_h__) && !defined(__KERN__)
// With <cuda.h> included first, checkCudaErrors also takes the driver API's CUresult, as the
// samples' template does. (kern compiles enumerations as int, so there a CUresult is checked
// as the cudaError_t of the same value: the value is the same, the name the runtime API's.)
static inline const char *_cudaGetErrorEnum(CUresult error) {
  const char *name = NULL;
  cuGetErrorName(error, &name);
  return name ? name : "<unknown>";
}
inline void kernCheckCudaResult(CUresult result, const char *func, const char *file, int line) {
  if (result != CUDA_SUCCESS) {
    fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\" \n", file, line, (int)result,
            _cudaGetErrorEnum(result), func);
    exit(EXIT_FAILURE);
  }
}
#endif

#undef checkCudaErrors
#define checkCudaErrors(val) kernCheckCudaResult((val), #val, __FILE__, __LINE__)

// Stops the program (getLastCudaError) or only reports (printLastCudaError) when
// cudaGetLastError() has an error.
inline void __getLastCudaError(const char *errorMessage, const char *file, const int line) {
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    fprintf(stderr, "%s(%i) : getLastCudaError() CUDA error : %s : (%d) %s.\n", file, line,
            errorMessage, (int)err, cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
}

inline void __printLastCudaError(const char *errorMessage, const char *file, const int line) {
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    fprintf(stderr, "%s(%i) : getLastCudaError() CUDA error : %s : (%d) %s.\n", file, line,
            errorMessage, (int)err, cudaGetErrorString(err));
}

#define getLastCudaError(msg) __getLastCudaError(msg, __FILE__, __LINE__)
#define printLastCudaError(msg) __printLastCudaError(msg, __FILE__, __LINE__)

#ifndef KERN_HELPER_FTOI
#define KERN_HELPER_FTOI
// A float rounded to the nearest int, halves away from zero.
inline int ftoi(float value) { return value >= 0 ? (int)(value + 0.5) : (int)(value - 0.5); }
#endif

// CUDA cores per multiprocessor of compute capability major.minor. An unknown one gets the
// count of the newest known architecture, with a note on stdout.
inline int _ConvertSMVer2Cores(int major, int minor) {
  switch ((major << 4) + minor) {
  case 0x30:
  case 0x32:
  case 0x35:
  case 0x37:
    return 192;
  case 0x50:
  case 0x52:
  case 0x53:
    return 128;
  case 0x60:
    return 64;
  case 0x61:
  case 0x62:
    return 128;
  case 0x70:
  case 0x72:
  case 0x75:
  case 0x80:
    return 64;
  case 0x86:
  case 0x87:
  case 0x89:
  case 0x90:
  case 0xa0:
  case 0xa1:
  case 0xa3:
  case 0xb0:
  case 0xc0:
  case 0xc1:
    return 128;
  }
  printf("MapSMtoCores for SM %d.%d is undefined.  Default to use %d Cores/SM\n", major, minor,
         128);
  return 128;
}

// The architecture's name for compute capability major.minor ("Hopper"). An unknown one gets
// the newest known name, with a note on stdout.
inline const char *_ConvertSMVer2ArchName(int major, int minor) {
  switch ((major << 4) + minor) {
  case 0x30:
  case 0x32:
  case 0x35:
  case 0x37:
    return "Kepler";
  case 0x50:
  case 0x52:
  case 0x53:
    return "Maxwell";
  case 0x60:
  case 0x61:
  case 0x62:
    return "Pascal";
  case 0x70:
    return "Volta";
  case 0x72:
    return "Xavier";
  case 0x75:
    return "Turing";
  case 0x80:
  case 0x86:
  case 0x87:
    return "Ampere";
  case 0x89:
    return "Ada";
  case 0x90:
    return "Hopper";
  case 0xa0:
  case 0xa1:
  case 0xa3:
  case 0xb0:
  case 0xc0:
  case 0xc1:
    return "Blackwell";
  }
  printf("MapSMtoArchName for SM %d.%d is undefined.  Default to use %s\n", major, minor,
         "Blackwell");
  return "Blackwell";
}

// The compute capability of device dev.
static inline void kernDeviceCapability(int dev, int *major, int *minor) {
  checkCudaErrors(cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, dev));
  checkCudaErrors(cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, dev));
}

// Makes device devID current; returns devID, or a negative number when there is no such device.
// (kern's devices are always in the default compute mode: none is prohibited.)
inline int gpuDeviceInit(int devID) {
  int deviceCount = 0;
  checkCudaErrors(cudaGetDeviceCount(&deviceCount));
  if (deviceCount == 0) {
    fprintf(stderr, "gpuDeviceInit() CUDA error: no devices supporting CUDA.\n");
    exit(EXIT_FAILURE);
  }
  if (devID < 0)
    devID = 0;
  if (devID > deviceCount - 1) {
    fprintf(stderr, "\n");
    fprintf(stderr, ">> %d CUDA capable GPU device(s) detected. <<\n", deviceCount);
    fprintf(stderr, ">> gpuDeviceInit (-device=%d) is not a valid GPU device. <<\n", devID);
    fprintf(stderr, "\n");
    return -devID;
  }
  int major = 0, minor = 0;
  kernDeviceCapability(devID, &major, &minor);
  if (major < 1) {
    fprintf(stderr, "gpuDeviceInit(): GPU device does not support CUDA.\n");
    exit(EXIT_FAILURE);
  }
  checkCudaErrors(cudaSetDevice(devID));
  printf("gpuDeviceInit() CUDA Device [%d]: \"%s\n", devID, _ConvertSMVer2ArchName(major, minor));
  return devID;
}

// The device with the most multiprocessors x cores per multiprocessor x clock rate.
inline int gpuGetMaxGflopsDeviceId() {
  int deviceCount = 0;
  checkCudaErrors(cudaGetDeviceCount(&deviceCount));
  if (deviceCount == 0) {
    fprintf(stderr, "gpuGetMaxGflopsDeviceId() CUDA error: no devices supporting CUDA.\n");
    exit(EXIT_FAILURE);
  }
  int best = 0;
  uint64_t bestPerf = 0;
  for (int dev = 0; dev < deviceCount; dev++) {
    int major = 0, minor = 0, multiProcessors = 0, clockRate = 0;
    kernDeviceCapability(dev, &major, &minor);
    int coresPerSM = major == 9999 && minor == 9999 ? 1 : _ConvertSMVer2Cores(major, minor);
    checkCudaErrors(cudaDeviceGetAttribute(&multiProcessors, cudaDevAttrMultiProcessorCount, dev));
    if (cudaDeviceGetAttribute(&clockRate, cudaDevAttrClockRate, dev) != cudaSuccess ||
        clockRate <= 0)
      clockRate = 1;
    uint64_t perf = (uint64_t)multiProcessors * coresPerSM * clockRate;
    if (perf > bestPerf) {
      bestPerf = perf;
      best = dev;
    }
  }
  return best;
}

// The device that `-device=N` names, else the fastest one; made current, with a line on stdout.
inline int findCudaDevice(int argc, const char **argv) {
  int devID = 0;
  if (checkCmdLineFlag(argc, argv, "device")) {
    devID = getCmdLineArgumentInt(argc, argv, "device=");
    if (devID < 0) {
      printf("Invalid command line parameter\n ");
      exit(EXIT_FAILURE);
    }
    devID = gpuDeviceInit(devID);
    if (devID < 0) {
      printf("exiting...\n");
      exit(EXIT_FAILURE);
    }
    return devID;
  }
  devID = gpuGetMaxGflopsDeviceId();
  checkCudaErrors(cudaSetDevice(devID));
  int major = 0, minor = 0;
  kernDeviceCapability(devID, &major, &minor);
  printf("GPU Device %d: \"%s\" with compute capability %d.%d\n\n", devID,
         _ConvertSMVer2ArchName(major, minor), major, minor);
  return devID;
}

// Whether the current device has compute capability major_version.minor_version or later; says
// which on stdout.
inline bool checkCudaCapabilities(int major_version, int minor_version) {
  int dev = 0, major = 0, minor = 0;
  checkCudaErrors(cudaGetDevice(&dev));
  kernDeviceCapability(dev, &major, &minor);
  if (major > major_version || (major == major_version && minor >= minor_version)) {
    printf("  Device %d: <%16s >, Compute SM %d.%d detected\n", dev,
           _ConvertSMVer2ArchName(major, minor), major, minor);
    return true;
  }
  printf("  No GPU device was found that can support CUDA compute capability %d.%d.\n",
         major_version, minor_version);
  return false;
}

#endif // KERN_HELPER_CUDA_H
