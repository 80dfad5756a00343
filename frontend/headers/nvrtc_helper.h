// nvrtc_helper.h as kern provides it: the NVRTC helpers of CUDA's samples (same names,
// arguments, results and messages), written for kern. compileFileToCUBIN compiles a .cu file
// with NVRTC for the device's architecture; loadCUBIN makes a context and loads the result.
#ifndef KERN_NVRTC_HELPER_H
#define KERN_NVRTC_HELPER_H 1

#include <cuda.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper_cuda_drvapi.h"

// Stops the program with the samples' message when an NVRTC call fails.
#define NVRTC_SAFE_CALL(Name, x)                                                                   \
  do {                                                                                             \
    nvrtcResult kernNvrtcResult = (x);                                                             \
    if (kernNvrtcResult != NVRTC_SUCCESS) {                                                        \
      fprintf(stderr, "\nerror: %s failed with error %s", Name,                                    \
              nvrtcGetErrorString(kernNvrtcResult));                                               \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

// Reads `filename`, compiles it with NVRTC for the chosen device's compute capability
// (--gpu-architecture=sm_XY) and returns the code (malloc'd) and its size. The compiler's log
// goes to stderr when it says anything; a failed compile stops the program. The samples add
// the folder of their copy of cooperative_groups.h when requiresCGheaders is set: kern's module
// compiler has its own <cooperative_groups.h>, so nothing is added.
inline void compileFileToCUBIN(char *filename, int argc, char **argv, char **cubinResult,
                               size_t *cubinResultSize, int requiresCGheaders) {
  (void)requiresCGheaders;
  if (!filename) {
    fprintf(stderr, "\nerror: filename is empty for compileFileToCUBIN()!\n");
    exit(1);
  }
  FILE *in = fopen(filename, "rb");
  if (!in) {
    fprintf(stderr, "\nerror: unable to open %s for reading!\n", filename);
    exit(1);
  }
  fseek(in, 0, SEEK_END);
  long size = ftell(in);
  fseek(in, 0, SEEK_SET);
  char *source = (char *)malloc((size_t)size + 1);
  size_t got = fread(source, 1, (size_t)size, in);
  fclose(in);
  source[got] = 0;

  int major = 0, minor = 0;
  CUdevice cuDevice = findCudaDeviceDRV(argc, (const char **)argv);
  checkCudaErrors(
      cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cuDevice));
  checkCudaErrors(
      cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cuDevice));
  char arch[64];
  snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
  const char *options[1] = {arch};

  nvrtcProgram prog;
  NVRTC_SAFE_CALL("nvrtcCreateProgram", nvrtcCreateProgram(&prog, source, filename, 0, NULL, NULL));
  nvrtcResult res = nvrtcCompileProgram(prog, 1, options);

  size_t logSize = 0;
  NVRTC_SAFE_CALL("nvrtcGetProgramLogSize", nvrtcGetProgramLogSize(prog, &logSize));
  char *log = (char *)malloc(logSize + 1);
  NVRTC_SAFE_CALL("nvrtcGetProgramLog", nvrtcGetProgramLog(prog, log));
  log[logSize] = 0;
  if (strlen(log) >= 2) {
    fprintf(stderr, "\n compilation log ---\n");
    fprintf(stderr, "%s", log);
    fprintf(stderr, "\n end log ---\n");
  }
  free(log);
  NVRTC_SAFE_CALL("nvrtcCompileProgram", res);

  size_t codeSize = 0;
  NVRTC_SAFE_CALL("nvrtcGetCUBINSize", nvrtcGetCUBINSize(prog, &codeSize));
  char *code = (char *)malloc(codeSize);
  NVRTC_SAFE_CALL("nvrtcGetCUBIN", nvrtcGetCUBIN(prog, code));
  NVRTC_SAFE_CALL("nvrtcDestroyProgram", nvrtcDestroyProgram(&prog));
  free(source);
  *cubinResult = code;
  *cubinResultSize = codeSize;
}

// Picks the device, makes a context on it and loads `cubin` (which it frees) as a module.
inline CUmodule loadCUBIN(char *cubin, int argc, char **argv) {
  CUmodule module;
  CUcontext context;
  int major = 0, minor = 0;
  char deviceName[256];
  CUctxCreateParams ctxCreateParams;
  memset(&ctxCreateParams, 0, sizeof ctxCreateParams);
  CUdevice cuDevice = findCudaDeviceDRV(argc, (const char **)argv);
  checkCudaErrors(
      cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cuDevice));
  checkCudaErrors(
      cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cuDevice));
  checkCudaErrors(cuDeviceGetName(deviceName, 256, cuDevice));
  printf("> GPU Device has SM %d.%d compute capability\n", major, minor);
  checkCudaErrors(cuInit(0));
  checkCudaErrors(cuCtxCreate(&context, &ctxCreateParams, 0, cuDevice));
  checkCudaErrors(cuModuleLoadData(&module, cubin));
  free(cubin);
  return module;
}

#endif // KERN_NVRTC_HELPER_H
