// helper_cuda_drvapi.h as kern provides it: the driver API's error check and device selection
// of the header of this name in CUDA's samples (same names, arguments, results and messages),
// written for kern. It includes <cuda.h> itself. With helper_cuda.h as well, checkCudaErrors
// takes both cudaError_t and CUresult (kernCheckCudaResult is overloaded).
#ifndef KERN_HELPER_CUDA_DRVAPI_H
#define KERN_HELPER_CUDA_DRVAPI_H

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sstream>
#include <string>

#include "helper_string.h"

#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#ifndef EXIT_WAIVED
#define EXIT_WAIVED 2
#endif

#ifndef KERN_HELPER_FTOI
#define KERN_HELPER_FTOI
// A float rounded to the nearest int, halves away from zero.
inline int ftoi(float value) { return value >= 0 ? (int)(value + 0.5) : (int)(value - 0.5); }
#endif

// What checkCudaErrors does with a driver API result: nothing for CUDA_SUCCESS; otherwise the
// samples' message on stderr and exit(EXIT_FAILURE). (With helper_cuda.h included first, its
// checkCudaErrors stays, as with the samples' headers.)
inline void __checkCudaErrors(CUresult err, const char *file, const int line) {
  if (err != CUDA_SUCCESS) {
    const char *text = NULL;
    cuGetErrorString(err, &text);
    fprintf(stderr, "checkCudaErrors() Driver API error = %04d \"%s\" from file <%s>, line %i.\n",
            (int)err, text ? text : "unknown error", file, line);
    exit(EXIT_FAILURE);
  }
}
#ifndef checkCudaErrors
#define checkCudaErrors(err) __checkCudaErrors(err, __FILE__, __LINE__)
#endif

// An attribute of a device, or the program stops.
template <class T>
inline void getCudaAttribute(T *attribute, CUdevice_attribute device_attribute, int device) {
  checkCudaErrors(cuDeviceGetAttribute(attribute, device_attribute, device));
}

// CUDA cores per multiprocessor of compute capability major.minor. An unknown one gets the
// count of the newest known architecture, with a note on stdout.
inline int _ConvertSMVer2CoresDRV(int major, int minor) {
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

// Initialises the driver and picks device `-device=N`: its ordinal, or a negative number when
// there is no such device (with the samples' message).
inline int gpuDeviceInitDRV(int ARGC, const char **ARGV) {
  int deviceCount = 0;
  checkCudaErrors(cuInit(0));
  checkCudaErrors(cuDeviceGetCount(&deviceCount));
  if (deviceCount == 0) {
    fprintf(stderr, "cudaDeviceInit error: no devices supporting CUDA\n");
    exit(EXIT_FAILURE);
  }
  int dev = getCmdLineArgumentInt(ARGC, ARGV, "device=");
  if (dev < 0)
    dev = 0;
  if (dev > deviceCount - 1) {
    fprintf(stderr, "\n");
    fprintf(stderr, ">> %d CUDA capable GPU device(s) detected. <<\n", deviceCount);
    fprintf(stderr, ">> cudaDeviceInit (-device=%d) is not a valid GPU device. <<\n", dev);
    fprintf(stderr, "\n");
    return -dev;
  }
  CUdevice cuDevice;
  checkCudaErrors(cuDeviceGet(&cuDevice, dev));
  char name[100];
  checkCudaErrors(cuDeviceGetName(name, 100, cuDevice));
  int computeMode = 0;
  getCudaAttribute<int>(&computeMode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev);
  if (computeMode == CU_COMPUTEMODE_PROHIBITED) {
    fprintf(stderr, "Error: device is running in <CU_COMPUTEMODE_PROHIBITED>, no threads can use "
                    "this CUDA Device.\n");
    return -1;
  }
  if (!checkCmdLineFlag(ARGC, ARGV, "quiet"))
    printf("gpuDeviceInitDRV() Using CUDA Device [%d]: %s\n", dev, name);
  return dev;
}

// The device with the most multiprocessors x cores per multiprocessor x clock rate (it
// initialises the driver first).
inline int gpuGetMaxGflopsDeviceIdDRV() {
  int deviceCount = 0;
  cuInit(0);
  checkCudaErrors(cuDeviceGetCount(&deviceCount));
  if (deviceCount == 0) {
    fprintf(stderr, "gpuGetMaxGflopsDeviceIdDRV error: no devices supporting CUDA\n");
    exit(EXIT_FAILURE);
  }
  int best = 0, prohibited = 0;
  unsigned long long bestPerf = 0;
  for (int dev = 0; dev < deviceCount; dev++) {
    int sms = 0, clockRate = 0, major = 0, minor = 0, computeMode = 0;
    checkCudaErrors(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    checkCudaErrors(cuDeviceGetAttribute(&clockRate, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev));
    checkCudaErrors(
        cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    checkCudaErrors(
        cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    getCudaAttribute<int>(&computeMode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev);
    if (computeMode == CU_COMPUTEMODE_PROHIBITED) {
      prohibited++;
      continue;
    }
    int cores = major == 9999 && minor == 9999 ? 1 : _ConvertSMVer2CoresDRV(major, minor);
    unsigned long long perf = (unsigned long long)sms * cores * clockRate;
    if (perf > bestPerf) {
      bestPerf = perf;
      best = dev;
    }
  }
  if (prohibited == deviceCount) {
    fprintf(stderr, "gpuGetMaxGflopsDeviceIdDRV error: all devices have compute mode "
                    "prohibited.\n");
    exit(EXIT_FAILURE);
  }
  return best;
}

// The device that `-device=N` names, else the fastest one, with a line on stdout.
inline CUdevice findCudaDeviceDRV(int argc, const char **argv) {
  CUdevice cuDevice;
  int devID = 0;
  if (checkCmdLineFlag(argc, argv, "device")) {
    devID = gpuDeviceInitDRV(argc, argv);
    if (devID < 0) {
      printf("exiting...\n");
      exit(EXIT_SUCCESS);
    }
  } else {
    char name[100];
    devID = gpuGetMaxGflopsDeviceIdDRV();
    checkCudaErrors(cuDeviceGet(&cuDevice, devID));
    cuDeviceGetName(name, 100, cuDevice);
    printf("> Using CUDA Device [%d]: %s\n", devID, name);
  }
  cuDeviceGet(&cuDevice, devID);
  return cuDevice;
}

// The first integrated GPU (kern models a discrete one: the program stops with the samples'
// message when there is none).
inline CUdevice findIntegratedGPUDrv() {
  int deviceCount = 0;
  cuInit(0);
  checkCudaErrors(cuDeviceGetCount(&deviceCount));
  if (deviceCount == 0) {
    fprintf(stderr, "CUDA error: no devices supporting CUDA.\n");
    exit(EXIT_FAILURE);
  }
  for (int dev = 0; dev < deviceCount; dev++) {
    int integrated = 0, computeMode = -1;
    checkCudaErrors(cuDeviceGetAttribute(&integrated, CU_DEVICE_ATTRIBUTE_INTEGRATED, dev));
    checkCudaErrors(cuDeviceGetAttribute(&computeMode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev));
    if (integrated && computeMode != CU_COMPUTEMODE_PROHIBITED) {
      int major = 0, minor = 0;
      char name[256];
      checkCudaErrors(
          cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
      checkCudaErrors(
          cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
      checkCudaErrors(cuDeviceGetName(name, 256, dev));
      printf("GPU Device %d: \"%s\" with compute capability %d.%d\n\n", dev, name, major, minor);
      return dev;
    }
  }
  fprintf(stderr, "CUDA error: No Integrated CUDA capable GPU found.\n");
  exit(EXIT_FAILURE);
  return -1;
}

// Whether device devID has compute capability major_version.minor_version or later; says which
// on stdout.
inline bool checkCudaCapabilitiesDRV(int major_version, int minor_version, int devID) {
  CUdevice cuDevice;
  char name[256];
  int major = 0, minor = 0;
  checkCudaErrors(cuDeviceGet(&cuDevice, devID));
  checkCudaErrors(cuDeviceGetName(name, 100, cuDevice));
  checkCudaErrors(
      cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cuDevice));
  checkCudaErrors(
      cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cuDevice));
  if (major > major_version || (major == major_version && minor >= minor_version)) {
    printf("> Device %d: <%16s >, Compute SM %d.%d detected\n", devID, name, major, minor);
    return true;
  }
  printf("No GPU device was found that can support CUDA compute capability %d.%d.\n", major_version,
         minor_version);
  return false;
}

// Finds a module file (sdkFindFilePath: beside the program, in data/...) and, when its name
// says fatbin, reads it into ostrm; false with a note on stdout when it is not found.
inline bool findFatbinPath(const char *module_file, std::string &module_path, char **argv,
                           std::ostringstream &ostrm) {
  char *found = sdkFindFilePath(module_file, argv[0]);
  if (!found) {
    printf("> findModulePath file not found: <%s> \n", module_file);
    return false;
  }
  module_path = found;
  if (module_path.empty()) {
    printf("> findModulePath could not find file: <%s> \n", module_file);
    return false;
  }
  printf("> findModulePath found file at <%s>\n", module_path.c_str());
  if (module_path.rfind("fatbin") != std::string::npos) {
    FILE *in = fopen(module_path.c_str(), "rb");
    if (in) {
      char chunk[4096];
      size_t got;
      while ((got = fread(chunk, 1, sizeof chunk, in)) > 0)
        ostrm << std::string(chunk, got);
      fclose(in);
    }
  }
  return true;
}

#endif // KERN_HELPER_CUDA_DRVAPI_H
