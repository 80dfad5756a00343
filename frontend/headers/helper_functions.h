// helper_functions.h as kern provides it: as in CUDA's samples, it includes the string, timer
// and image helpers (helper_image.h: the PGM/PPM readers and writers, sdkReadFile,
// sdkWriteFile, compareData, compareDataAsFloatThreshold, sdkCompareL2fe...).
#ifndef KERN_HELPER_FUNCTIONS_H
#define KERN_HELPER_FUNCTIONS_H

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __cplusplus
// C++'s strings, file and string streams, which the samples' copy brings in (through
// helper_string.h and exception.h) and programs then name without including them.
#include <fstream>
#include <sstream>
#include <string>
#endif

#include "helper_image.h"
#include "helper_string.h"
#include "helper_timer.h"

#endif // KERN_HELPER_FUNCTIONS_H
