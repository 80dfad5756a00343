// <nvrtc.h> as kern provides it: NVRTC, CUDA's run-time compiler, over kern's run-time modules
// (runtime/api_modules.cpp). nvrtcCompileProgram compiles the program with kern's own compiler
// (the engine's module compiler, the same as for a program's files); nvrtcGetPTX and
// nvrtcGetCUBIN hand out kern's module image (a text: the program's name, options, headers and
// source), which cuModuleLoadData and cuModuleLoadDataEx of kern's <cuda.h> load. The names and
// values are NVRTC 13.0's. This header reaches kern's runtime, so it is for kern alone.
#ifndef __NVRTC_H__
#define __NVRTC_H__

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
#define __KERN_NVRTC inline
#else
#define __KERN_NVRTC static inline
#endif

typedef enum {
  NVRTC_SUCCESS = 0,
  NVRTC_ERROR_OUT_OF_MEMORY = 1,
  NVRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
  NVRTC_ERROR_INVALID_INPUT = 3,
  NVRTC_ERROR_INVALID_PROGRAM = 4,
  NVRTC_ERROR_INVALID_OPTION = 5,
  NVRTC_ERROR_COMPILATION = 6,
  NVRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7,
  NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION = 8,
  NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION = 9,
  NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID = 10,
  NVRTC_ERROR_INTERNAL_ERROR = 11,
  NVRTC_ERROR_TIME_FILE_WRITE_FAILED = 12,
  NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED = 13,
  NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED = 14,
  NVRTC_ERROR_PCH_CREATE = 15,
  NVRTC_ERROR_CANCELLED = 16,
  NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED = 17
} nvrtcResult;

// A program: its source and headers as given, then what compiling it made.
struct _nvrtcProgram {
  unsigned int magic; // __KERN_NVRTC_MAGIC while the program lives
  char *source;
  char *name;
  int numHeaders;
  char **headers;
  char **includeNames;
  int compiled; // 0 not yet, 1 compiled, 2 failed
  int cubin;    // compiled for a real GPU (sm_XX), so that there is a CUBIN
  char *image;  // the module image (malloc'd by the runtime)
  char *log;    // the compiler's log ("" before compiling)
  int numNames;
  char **names;   // name expressions as added
  char **lowered; // their lowered names
};
typedef struct _nvrtcProgram *nvrtcProgram;
#define __KERN_NVRTC_MAGIC 0x6e767274u

__KERN_NVRTC const char *nvrtcGetErrorString(nvrtcResult result) {
  switch (result) {
  case NVRTC_SUCCESS:
    return "NVRTC_SUCCESS";
  case NVRTC_ERROR_OUT_OF_MEMORY:
    return "NVRTC_ERROR_OUT_OF_MEMORY";
  case NVRTC_ERROR_PROGRAM_CREATION_FAILURE:
    return "NVRTC_ERROR_PROGRAM_CREATION_FAILURE";
  case NVRTC_ERROR_INVALID_INPUT:
    return "NVRTC_ERROR_INVALID_INPUT";
  case NVRTC_ERROR_INVALID_PROGRAM:
    return "NVRTC_ERROR_INVALID_PROGRAM";
  case NVRTC_ERROR_INVALID_OPTION:
    return "NVRTC_ERROR_INVALID_OPTION";
  case NVRTC_ERROR_COMPILATION:
    return "NVRTC_ERROR_COMPILATION";
  case NVRTC_ERROR_BUILTIN_OPERATION_FAILURE:
    return "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE";
  case NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION:
    return "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION";
  case NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION:
    return "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION";
  case NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID:
    return "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID";
  case NVRTC_ERROR_INTERNAL_ERROR:
    return "NVRTC_ERROR_INTERNAL_ERROR";
  case NVRTC_ERROR_TIME_FILE_WRITE_FAILED:
    return "NVRTC_ERROR_TIME_FILE_WRITE_FAILED";
  case NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED:
    return "NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED";
  case NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED:
    return "NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED";
  case NVRTC_ERROR_PCH_CREATE:
    return "NVRTC_ERROR_PCH_CREATE";
  case NVRTC_ERROR_CANCELLED:
    return "NVRTC_ERROR_CANCELLED";
  case NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED:
    return "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED";
  }
  return "NVRTC_ERROR unknown";
}

__KERN_NVRTC nvrtcResult nvrtcVersion(int *major, int *minor) {
  if (!major || !minor)
    return NVRTC_ERROR_INVALID_INPUT;
  *major = 13;
  *minor = 0;
  return NVRTC_SUCCESS;
}
// The architectures NVRTC 13.0 compiles for (--gpu-architecture=sm_XX): kern accepts each and
// runs the kernels on its modelled device.
__KERN_NVRTC nvrtcResult nvrtcGetNumSupportedArchs(int *numArchs) {
  if (!numArchs)
    return NVRTC_ERROR_INVALID_INPUT;
  *numArchs = 12;
  return NVRTC_SUCCESS;
}
__KERN_NVRTC nvrtcResult nvrtcGetSupportedArchs(int *supportedArchs) {
  static const int archs[12] = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
  if (!supportedArchs)
    return NVRTC_ERROR_INVALID_INPUT;
  for (int i = 0; i < 12; i++)
    supportedArchs[i] = archs[i];
  return NVRTC_SUCCESS;
}

__KERN_NVRTC char *__kern_nvrtc_copy(const char *s) {
  size_t n = strlen(s) + 1;
  char *c = (char *)malloc(n);
  if (c)
    memcpy(c, s, n);
  return c;
}
__KERN_NVRTC int __kern_nvrtc_valid(nvrtcProgram prog) {
  return prog != 0 && prog->magic == __KERN_NVRTC_MAGIC;
}

__KERN_NVRTC nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name,
                                            int numHeaders, const char *const *headers,
                                            const char *const *includeNames) {
  if (!prog || !src || numHeaders < 0 || (numHeaders > 0 && (!headers || !includeNames)))
    return NVRTC_ERROR_INVALID_INPUT;
  struct _nvrtcProgram *p = (struct _nvrtcProgram *)calloc(1, sizeof(struct _nvrtcProgram));
  if (!p)
    return NVRTC_ERROR_OUT_OF_MEMORY;
  p->magic = __KERN_NVRTC_MAGIC;
  p->source = __kern_nvrtc_copy(src);
  p->name = __kern_nvrtc_copy(name ? name : "default_program");
  p->numHeaders = numHeaders;
  if (numHeaders > 0) {
    p->headers = (char **)malloc(sizeof(char *) * (size_t)numHeaders);
    p->includeNames = (char **)malloc(sizeof(char *) * (size_t)numHeaders);
    for (int i = 0; i < numHeaders; i++) {
      if (!headers[i] || !includeNames[i]) {
        p->numHeaders = i;
        return NVRTC_ERROR_INVALID_INPUT;
      }
      p->headers[i] = __kern_nvrtc_copy(headers[i]);
      p->includeNames[i] = __kern_nvrtc_copy(includeNames[i]);
    }
  }
  p->log = __kern_nvrtc_copy("");
  *prog = p;
  return NVRTC_SUCCESS;
}

__KERN_NVRTC nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog) {
  if (!prog || !__kern_nvrtc_valid(*prog))
    return NVRTC_ERROR_INVALID_PROGRAM;
  nvrtcProgram p = *prog;
  free(p->source);
  free(p->name);
  for (int i = 0; i < p->numHeaders; i++) {
    free(p->headers[i]);
    free(p->includeNames[i]);
  }
  if (p->headers) {
    free(p->headers);
    free(p->includeNames);
  }
  for (int i = 0; i < p->numNames; i++) {
    free(p->names[i]);
    free(p->lowered[i]);
  }
  if (p->names) {
    free(p->names);
    free(p->lowered);
  }
  if (p->image)
    free(p->image);
  free(p->log);
  p->magic = 0;
  free(p);
  *prog = 0;
  return NVRTC_SUCCESS;
}

__KERN_NVRTC nvrtcResult nvrtcAddNameExpression(nvrtcProgram prog,
                                                const char *const name_expression) {
  if (!__kern_nvrtc_valid(prog))
    return NVRTC_ERROR_INVALID_PROGRAM;
  if (!name_expression)
    return NVRTC_ERROR_INVALID_INPUT;
  if (prog->compiled)
    return NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
  char **names = (char **)realloc(prog->names, sizeof(char *) * (size_t)(prog->numNames + 1));
  char **lowered = (char **)realloc(prog->lowered, sizeof(char *) * (size_t)(prog->numNames + 1));
  if (!names || !lowered)
    return NVRTC_ERROR_OUT_OF_MEMORY;
  prog->names = names;
  prog->lowered = lowered;
  prog->names[prog->numNames] = __kern_nvrtc_copy(name_expression);
  prog->lowered[prog->numNames] = 0;
  prog->numNames++;
  return NVRTC_SUCCESS;
}

// A name expression's lowered name: the expression without `&` and outer blanks, which is the
// name under which kern's modules know a kernel (`fill<7>`, `ns::k`; cuModuleGetFunction takes
// it). NVRTC's is the C++ symbol name, which kern's modules accept as well. Not yet: NVRTC
// instantiates a template a name expression names; kern needs the instance in the source (an
// explicit instantiation, `template __global__ void fill<7>(int *);`, or a use).
__KERN_NVRTC char *__kern_nvrtc_lowered(const char *expression) {
  while (*expression == ' ' || *expression == '\t' || *expression == '&')
    expression++;
  // Written as kern names template instances: one space after each comma, none elsewhere
  // around punctuation, single spaces between words (`fill<3, unsigned int>`).
  size_t n = strlen(expression);
  char *l = (char *)malloc(2 * n + 1);
  size_t k = 0;
  int pendingSpace = 0;
  for (size_t i = 0; i < n; i++) {
    char c = expression[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      pendingSpace = 1;
      continue;
    }
    int word =
        (c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
    if (pendingSpace && k > 0 && word) {
      char p = l[k - 1];
      if (p == '_' || (p >= '0' && p <= '9') || (p >= 'a' && p <= 'z') || (p >= 'A' && p <= 'Z'))
        l[k++] = ' ';
    }
    pendingSpace = 0;
    l[k++] = c;
    if (c == ',')
      l[k++] = ' ';
  }
  l[k] = 0;
  return l;
}

// Compiles the program now. Options are NVRTC's: --gpu-architecture/-arch, -I/--include-path,
// -D/--define-macro, -std=, --fmad; the others are accepted and change nothing.
__KERN_NVRTC nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions,
                                             const char *const *options) {
  if (!__kern_nvrtc_valid(prog))
    return NVRTC_ERROR_INVALID_PROGRAM;
  if (numOptions < 0 || (numOptions > 0 && !options))
    return NVRTC_ERROR_INVALID_INPUT;
  for (int i = 0; i < numOptions; i++)
    if (!options[i])
      return NVRTC_ERROR_INVALID_OPTION;
  if (prog->image)
    free(prog->image);
  prog->image =
      (char *)__kern_rtc_image(prog->source, prog->name, prog->numHeaders, (void **)prog->headers,
                               (void **)prog->includeNames, numOptions, (void **)options);
  // A CUBIN is made for a real architecture only (-arch=sm_90); NVRTC's default, compute_75,
  // is a virtual one, for which the CUBIN is empty.
  prog->cubin = 0;
  for (int i = 0; i < numOptions; i++) {
    const char *o = options[i];
    const char *value = 0;
    if (strncmp(o, "--gpu-architecture=", 19) == 0)
      value = o + 19;
    else if (strncmp(o, "-arch=", 6) == 0)
      value = o + 6;
    else if ((strcmp(o, "--gpu-architecture") == 0 || strcmp(o, "-arch") == 0) &&
             i + 1 < numOptions)
      value = options[i + 1];
    if (value)
      prog->cubin = strncmp(value, "sm_", 3) == 0;
  }
  char *log = 0;
  int failed = __kern_rtc_compile(prog->image, (void **)&log);
  free(prog->log);
  prog->log = log ? log : __kern_nvrtc_copy("");
  prog->compiled = failed ? 2 : 1;
  for (int i = 0; i < prog->numNames; i++) {
    if (prog->lowered[i])
      free(prog->lowered[i]);
    prog->lowered[i] = __kern_nvrtc_lowered(prog->names[i]);
  }
  return failed ? NVRTC_ERROR_COMPILATION : NVRTC_SUCCESS;
}

__KERN_NVRTC nvrtcResult __kern_nvrtc_code_size(nvrtcProgram prog, size_t *size) {
  if (!__kern_nvrtc_valid(prog))
    return NVRTC_ERROR_INVALID_PROGRAM;
  if (!size)
    return NVRTC_ERROR_INVALID_INPUT;
  if (prog->compiled != 1)
    return NVRTC_ERROR_INVALID_PROGRAM;
  *size = strlen(prog->image) + 1;
  return NVRTC_SUCCESS;
}
__KERN_NVRTC nvrtcResult __kern_nvrtc_code(nvrtcProgram prog, char *code) {
  if (!__kern_nvrtc_valid(prog))
    return NVRTC_ERROR_INVALID_PROGRAM;
  if (!code)
    return NVRTC_ERROR_INVALID_INPUT;
  if (prog->compiled != 1)
    return NVRTC_ERROR_INVALID_PROGRAM;
  memcpy(code, prog->image, strlen(prog->image) + 1);
  return NVRTC_SUCCESS;
}
// PTX and CUBIN are both kern's module image (the CUBIN only for a real architecture).
__KERN_NVRTC nvrtcResult nvrtcGetPTXSize(nvrtcProgram prog, size_t *ptxSizeRet) {
  return __kern_nvrtc_code_size(prog, ptxSizeRet);
}
__KERN_NVRTC nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *ptx) {
  return __kern_nvrtc_code(prog, ptx);
}
__KERN_NVRTC nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *cubinSizeRet) {
  nvrtcResult r = __kern_nvrtc_code_size(prog, cubinSizeRet);
  if (r == NVRTC_SUCCESS && !prog->cubin)
    *cubinSizeRet = 0;
  return r;
}
__KERN_NVRTC nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin) {
  if (__kern_nvrtc_valid(prog) && prog->compiled == 1 && !prog->cubin)
    return NVRTC_SUCCESS; // nothing to copy: compiled for a virtual architecture
  return __kern_nvrtc_code(prog, cubin);
}

__KERN_NVRTC nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *logSizeRet) {
  if (!__kern_nvrtc_valid(prog))
    return NVRTC_ERROR_INVALID_PROGRAM;
  if (!logSizeRet)
    return NVRTC_ERROR_INVALID_INPUT;
  *logSizeRet = strlen(prog->log) + 1;
  return NVRTC_SUCCESS;
}
__KERN_NVRTC nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char *log) {
  if (!__kern_nvrtc_valid(prog))
    return NVRTC_ERROR_INVALID_PROGRAM;
  if (!log)
    return NVRTC_ERROR_INVALID_INPUT;
  memcpy(log, prog->log, strlen(prog->log) + 1);
  return NVRTC_SUCCESS;
}

__KERN_NVRTC nvrtcResult nvrtcGetLoweredName(nvrtcProgram prog, const char *const name_expression,
                                             const char **lowered_name) {
  if (!__kern_nvrtc_valid(prog))
    return NVRTC_ERROR_INVALID_PROGRAM;
  if (!name_expression || !lowered_name)
    return NVRTC_ERROR_INVALID_INPUT;
  if (!prog->compiled)
    return NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION;
  for (int i = 0; i < prog->numNames; i++)
    if (strcmp(prog->names[i], name_expression) == 0 && prog->lowered[i]) {
      *lowered_name = prog->lowered[i];
      return NVRTC_SUCCESS;
    }
  return NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
}

#endif // __NVRTC_H__
