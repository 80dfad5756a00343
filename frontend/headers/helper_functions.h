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
// What the samples' copy includes and programs then use without including it themselves:
// <algorithm>, streams, strings and vectors (streamOrderedAllocationP2P calls std::for_each
// with only <iostream>, <map>, <set> and <utility> of its own).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>
#endif

#include "helper_image.h"
#include "helper_string.h"
#include "helper_timer.h"

#endif // KERN_HELPER_FUNCTIONS_H
