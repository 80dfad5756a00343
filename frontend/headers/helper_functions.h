// helper_functions.h as kern provides it: as in CUDA's samples, it includes the string and timer
// helpers, and adds the comparisons of result arrays of helper_image.h (compareData and
// compareDataAsFloatThreshold, templates over the element and epsilon types as in the samples)
// and sdkWriteFile. Not here yet: the image (PGM/PPM) and other file readers of
// helper_image.h.
#ifndef KERN_HELPER_FUNCTIONS_H
#define KERN_HELPER_FUNCTIONS_H

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "helper_string.h"
#include "helper_timer.h"

#ifndef EXIT_WAIVED
#define EXIT_WAIVED 2
#endif

#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif

#ifndef __MIN_EPSILON_ERROR
#define __MIN_EPSILON_ERROR 1e-3f
#endif

// Whether the relative L2 error of data against reference, ||data - reference|| / ||reference||,
// is below epsilon. False when the reference is all zeros.
inline bool sdkCompareL2fe(const float *reference, const float *data, const unsigned int len,
                           const float epsilon) {
  assert(epsilon >= 0);
  float error = 0;
  float norm = 0;
  for (unsigned int i = 0; i < len; ++i) {
    float diff = reference[i] - data[i];
    error += diff * diff;
    norm += reference[i] * reference[i];
  }
  if (fabs(norm) < 1e-7)
    return false;
  return sqrtf(error) / sqrtf(norm) < epsilon;
}

// Counts the elements where data differs from reference by more than epsilon. With threshold 0,
// true when there are none; otherwise prints the share that differs (when some do) and is true
// while fewer than len * threshold differ.
template <class T, class S>
inline bool compareData(const T *reference, const T *data, const unsigned int len, const S epsilon,
                        const float threshold) {
  assert(epsilon >= 0);
  unsigned int errors = 0;
  for (unsigned int i = 0; i < len; ++i) {
    float diff = (float)reference[i] - (float)data[i];
    if (!(diff <= epsilon && diff >= -epsilon))
      errors++;
  }
  if (threshold == 0.0f)
    return errors == 0;
  if (errors)
    printf("%4.2f(%%) of bytes mismatched (count=%d)\n", (float)errors * 100 / (float)len, errors);
  return len * threshold > errors;
}

// As compareData, with a difference of __MIN_EPSILON_ERROR or more counted when epsilon is
// smaller; with threshold 0 it prints the number of differences (when there are some).
template <class T, class S>
inline bool compareDataAsFloatThreshold(const T *reference, const T *data, const unsigned int len,
                                        const S epsilon, const float threshold) {
  assert(epsilon >= 0);
  float maxError = MAX(epsilon, __MIN_EPSILON_ERROR);
  int errors = 0;
  for (unsigned int i = 0; i < len; ++i)
    if (!(fabs((float)reference[i] - (float)data[i]) < maxError))
      errors++;
  if (threshold == 0.0f) {
    if (errors)
      printf("total # of errors = %d\n", errors);
    return errors == 0;
  }
  if (errors)
    printf("%4.2f(%%) of bytes mismatched (count=%d)\n", (float)errors * 100 / (float)len, errors);
  return len * threshold > errors;
}

// Writes "# epsilon" and then the values, each followed by a space, to `filename` (replacing
// it, or appending to it), as the samples' form does; false if the file cannot be written.
template <class T, class S>
inline bool sdkWriteFile(const char *filename, const T *data, unsigned int len, const S epsilon,
                         bool verbose, bool append = false) {
  FILE *fh = fopen(filename, append ? "a" : "w");
  if (verbose)
    fprintf(stderr, "sdkWriteFile() : Open file %s for write/append.\n", filename);
  if (fh == NULL) {
    if (verbose)
      fprintf(stderr, "sdkWriteFile() : Opening file failed.\n");
    return false;
  }
  bool ok = fprintf(fh, "# %g\n", (double)epsilon) > 0;
  const bool integral = (T)0.5 == (T)0; // written as a stream writes it: integers as integers
  for (unsigned int i = 0; i < len && ok; ++i)
    ok = (integral ? fprintf(fh, "%lld ", (long long)data[i])
                   : fprintf(fh, "%g ", (double)data[i])) > 0;
  if (fclose(fh) != 0)
    ok = false;
  if (!ok && verbose)
    fprintf(stderr, "sdkWriteFile() : Writing file failed.\n");
  return ok;
}

#endif // KERN_HELPER_FUNCTIONS_H
