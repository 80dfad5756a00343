// drvapi_error_string.h as kern provides it: getCudaDrvErrorString, the name of a CUresult
// ("CUDA_ERROR_INVALID_VALUE"), as the header of this name in CUDA's samples gives it.
#ifndef KERN_DRVAPI_ERROR_STRING_H
#define KERN_DRVAPI_ERROR_STRING_H

#include <cuda.h>

inline const char *getCudaDrvErrorString(CUresult error_id) {
  const char *name = NULL;
  if (cuGetErrorName(error_id, &name) != CUDA_SUCCESS || !name)
    return "CUDA_ERROR not found!";
  return name;
}

#endif // KERN_DRVAPI_ERROR_STRING_H
