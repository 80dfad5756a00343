// helper_image.h as kern provides it: the image and data-file helpers of the header of this name
// in CUDA's samples (same names, arguments, results and messages), written in the C++ that kern
// compiles. Images are binary PGM (P5, one channel) and PPM (P6, three channels) files of 8-bit
// samples; a loaded image converts to float as v / 255 and an integer type as v, a saved one
// back as (unsigned char)(v * 255) and (unsigned char)v. Files are opened where the program may
// open files (`kern run` without --no-files).
#ifndef KERN_HELPER_IMAGE_H
#define KERN_HELPER_IMAGE_H

#include <assert.h>
#include <math.h>
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

#ifndef __MIN_EPSILON_ERROR
#define __MIN_EPSILON_ERROR 1e-3f
#endif

// Reads a binary PGM or PPM image: its header ("P5" or "P6", then the width, height and
// maximum value, on one line or several, between comment lines starting with '#') and its
// width * height * channels bytes. A null *data gets a new malloc'd block and *w and *h the
// image's size; a given block must be of the image's size.
inline bool __loadPPM(const char *file, unsigned char **data, unsigned int *w, unsigned int *h,
                      unsigned int *channels) {
  FILE *fp = fopen(file, "rb");
  if (fp == NULL) {
    fprintf(stderr, "__LoadPPM() : Failed to open file: %s\n", file);
    return false;
  }
  char header[64];
  if (fgets(header, sizeof header, fp) == NULL) {
    fprintf(stderr, "__LoadPPM() : reading PGM header returned NULL\n");
    fclose(fp);
    return false;
  }
  if (strncmp(header, "P5", 2) == 0) {
    *channels = 1;
  } else if (strncmp(header, "P6", 2) == 0) {
    *channels = 3;
  } else {
    fprintf(stderr, "__LoadPPM() : File is not a PPM or PGM image\n");
    *channels = 0;
    fclose(fp);
    return false;
  }
  unsigned int width = 0, height = 0, maxval = 0;
  int fields = 0;
  while (fields < 3) {
    if (fgets(header, sizeof header, fp) == NULL) {
      fprintf(stderr, "__LoadPPM() : reading PGM header returned NULL\n");
      fclose(fp);
      return false;
    }
    if (header[0] == '#')
      continue;
    int n = 0;
    if (fields == 0)
      n = sscanf(header, "%u %u %u", &width, &height, &maxval);
    else if (fields == 1)
      n = sscanf(header, "%u %u", &height, &maxval);
    else
      n = sscanf(header, "%u", &maxval);
    fields += n > 0 ? n : 0;
  }
  size_t size = (size_t)width * height * *channels;
  if (*data != NULL) {
    if (*w != width || *h != height) {
      fprintf(stderr, "__LoadPPM() : Invalid image dimensions.\n");
      fclose(fp);
      return false;
    }
  } else {
    *data = (unsigned char *)malloc(size);
    *w = width;
    *h = height;
  }
  if (fread(*data, 1, size, fp) == 0)
    fprintf(stderr, "__LoadPPM() read data returned error.\n");
  fclose(fp);
  return true;
}

// Writes a binary PGM (1 channel) or PPM (3 channels) image of w * h * channels bytes, with
// the header "P5\nW\nH\n255\n" ("P6" for PPM).
inline bool __savePPM(const char *file, unsigned char *data, unsigned int w, unsigned int h,
                      unsigned int channels) {
  assert(NULL != data);
  assert(w > 0);
  assert(h > 0);
  if (channels != 1 && channels != 3) {
    fprintf(stderr, "__savePPM() : Invalid number of channels.\n");
    return false;
  }
  FILE *fp = fopen(file, "wb");
  if (fp == NULL) {
    fprintf(stderr, "__savePPM() : Opening file failed.\n");
    return false;
  }
  size_t size = (size_t)w * h * channels;
  bool ok = fprintf(fp, "%s\n%u\n%u\n%d\n", channels == 1 ? "P5" : "P6", w, h, 0xff) > 0 &&
            fwrite(data, 1, size, fp) == size;
  if (fclose(fp) != 0)
    ok = false;
  if (!ok)
    fprintf(stderr, "__savePPM() : Writing data failed.\n");
  return ok;
}

// A byte of an image as a T: v / 255 for a floating-point T, v for an integer one.
template <class T> inline T kernImageFromByte(unsigned char v) {
  if ((T)0.5 == (T)0)
    return (T)v;
  return (T)((float)v / 255.0f);
}

// A T as a byte of an image: (unsigned char)(v * 255) for a floating-point T, (unsigned char)v
// for an integer one (keeping the low 8 bits, as an x86-64 host does).
template <class T> inline unsigned char kernImageToByte(T v) {
  if ((T)0.5 == (T)0)
    return (unsigned char)v;
  return (unsigned char)(int)((float)v * 255.0f);
}

// Loads a PGM image into *data (a new block when it is null) as T values, setting *w and *h.
template <class T>
inline bool sdkLoadPGM(const char *file, T **data, unsigned int *w, unsigned int *h) {
  unsigned char *idata = NULL;
  unsigned int channels;
  if (!__loadPPM(file, &idata, w, h, &channels))
    return false;
  unsigned int size = *w * *h * channels;
  if (NULL == *data)
    *data = (T *)malloc(sizeof(T) * size);
  for (unsigned int i = 0; i < size; ++i)
    (*data)[i] = kernImageFromByte<T>(idata[i]);
  free(idata);
  return true;
}

// Loads a PPM image as four bytes a pixel (red, green, blue, 0) into a new block *data.
template <class T>
inline bool sdkLoadPPM4(const char *file, T **data, unsigned int *w, unsigned int *h) {
  unsigned char *idata = NULL;
  unsigned int channels;
  if (!__loadPPM(file, &idata, w, h, &channels)) {
    free(idata);
    return false;
  }
  unsigned int size = *w * *h;
  *data = (T *)malloc(sizeof(T) * size * 4);
  for (unsigned int i = 0; i < size; ++i) {
    for (int c = 0; c < 3; ++c)
      (*data)[4 * i + c] = kernImageFromByte<T>(idata[3 * i + c]);
    (*data)[4 * i + 3] = (T)0;
  }
  free(idata);
  return true;
}

// Saves w * h T values as a PGM image.
template <class T>
inline bool sdkSavePGM(const char *file, T *data, unsigned int w, unsigned int h) {
  unsigned int size = w * h;
  unsigned char *idata = (unsigned char *)malloc(size);
  for (unsigned int i = 0; i < size; ++i)
    idata[i] = kernImageToByte<T>(data[i]);
  bool result = __savePPM(file, idata, w, h, 1);
  free(idata);
  return result;
}

// Saves an image of four bytes a pixel as a PPM image (the fourth byte dropped).
inline bool sdkSavePPM4ub(const char *file, unsigned char *data, unsigned int w, unsigned int h) {
  unsigned int size = w * h;
  unsigned char *ndata = (unsigned char *)malloc(size * 3);
  for (unsigned int i = 0; i < size; ++i)
    for (int c = 0; c < 3; ++c)
      ndata[3 * i + c] = data[4 * i + c];
  bool result = __savePPM(file, ndata, w, h, 3);
  free(ndata);
  return result;
}

// Loads a PGM or PPM image as bytes, as stored.
inline bool sdkLoadPPMub(const char *file, unsigned char **data, unsigned int *w, unsigned int *h) {
  unsigned int channels;
  return __loadPPM(file, data, w, h, &channels);
}

// Loads a PPM image as four bytes a pixel (red, green, blue, 0) into a new block *data.
inline bool sdkLoadPPM4ub(const char *file, unsigned char **data, unsigned int *w,
                          unsigned int *h) {
  return sdkLoadPPM4<unsigned char>(file, data, w, h);
}

// Reads the numbers of a text file (read as floats, separated by white space) into *data (a
// new block, and *len their count, when it is null; a given block must hold *len of them). As
// in the samples, a file must end with white space after its last number, which is otherwise
// dropped.
template <class T>
inline bool sdkReadFile(const char *filename, T **data, unsigned int *len, bool verbose) {
  assert(NULL != filename);
  assert(NULL != len);
  FILE *fh = fopen(filename, "r");
  if (fh == NULL) {
    printf("Unable to open input file: %s\n", filename);
    return false;
  }
  unsigned int count = 0, capacity = 256;
  T *values = (T *)malloc(sizeof(T) * capacity);
  float token = 0;
  while (!feof(fh)) {
    if (fscanf(fh, "%f", &token) == 0)
      break; // not a number: nothing more can be read
    if (count == capacity) {
      capacity *= 2;
      values = (T *)realloc(values, sizeof(T) * capacity);
    }
    values[count++] = (T)token;
  }
  if (count > 0)
    count--; // the last value is read twice (once at the end of the file)
  fclose(fh);
  if (NULL != *data) {
    if (*len != count) {
      fprintf(stderr,
              "sdkReadFile() : Initialized memory given but size  mismatch with signal read "
              "(data read / data init = %u / %u)\n",
              count, *len);
      free(values);
      return false;
    }
  } else {
    *data = (T *)malloc(sizeof(T) * (count > 0 ? count : 1));
    *len = count;
  }
  memcpy(*data, values, sizeof(T) * count);
  free(values);
  return true;
}

// Reads block block_num (block_size bytes) of a binary file into a new block data[block_num];
// *len is the number of T values read.
template <class T>
inline bool sdkReadFileBlocks(const char *filename, T **data, unsigned int *len,
                              unsigned int block_num, unsigned int block_size, bool verbose) {
  assert(NULL != filename);
  assert(NULL != len);
  FILE *fh = fopen(filename, "rb");
  if (fh == NULL) {
    if (verbose)
      fprintf(stderr, "sdkReadFile() : Opening file failed.\n");
    return false;
  }
  data[block_num] = (T *)malloc(block_size);
  fseek(fh, (long)block_num * block_size, SEEK_SET);
  *len = (unsigned int)fread(data[block_num], sizeof(T), block_size / sizeof(T), fh);
  fclose(fh);
  return true;
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
  if (ok)
    ok = fprintf(fh, "\n") > 0;
  if (fclose(fh) != 0)
    ok = false;
  if (!ok && verbose)
    fprintf(stderr, "sdkWriteFile() : Writing file failed.\n");
  return ok;
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
  float maxError = MAX((float)epsilon, __MIN_EPSILON_ERROR);
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

// Writes `bytes` bytes of data to a binary file.
inline void sdkDumpBin(void *data, unsigned int bytes, const char *filename) {
  printf("sdkDumpBin: <%s>\n", filename);
  FILE *fp = fopen(filename, "wb");
  if (fp == NULL)
    return;
  fwrite(data, bytes, 1, fp);
  fflush(fp);
  fclose(fp);
}

// Compares nelements unsigned ints of a binary file with those of a reference file found with
// sdkFindFilePath (compareData), printing what it compares and "  OK" or the errors.
inline bool sdkCompareBin2BinUint(const char *src_file, const char *ref_file,
                                  unsigned int nelements, const float epsilon,
                                  const float threshold, char *exec_path) {
  unsigned int errors = 0;
  FILE *src_fp = fopen(src_file, "rb");
  if (src_fp == NULL) {
    printf("compareBin2Bin <unsigned int> unable to open src_file: %s\n", src_file);
    errors++;
  }
  char *ref_path = sdkFindFilePath(ref_file, exec_path);
  if (ref_path == NULL) {
    printf("compareBin2Bin <unsigned int>  unable to find <%s> in <%s>\n", ref_file, exec_path);
    printf(">>> Check info.xml and [project//data] folder <%s> <<<\n", ref_file);
    printf("Aborting comparison!\n");
    printf("  FAILED\n");
    errors++;
  } else {
    FILE *ref_fp = fopen(ref_path, "rb");
    if (ref_fp == NULL) {
      printf("compareBin2Bin <unsigned int> unable to open ref_file: %s\n", ref_path);
      errors++;
    }
    if (src_fp && ref_fp) {
      unsigned int *src = (unsigned int *)calloc(nelements, sizeof(unsigned int));
      unsigned int *ref = (unsigned int *)calloc(nelements, sizeof(unsigned int));
      // Read as the samples read it: sizeof(unsigned int) items of nelements bytes each.
      size_t fsize = fread(src, nelements, sizeof(unsigned int), src_fp);
      fsize = fread(ref, nelements, sizeof(unsigned int), ref_fp);
      printf("> compareBin2Bin <unsigned int> nelements=%d, epsilon=%4.2f, threshold=%4.2f\n",
             nelements, epsilon, threshold);
      printf("   src_file <%s>, size=%d bytes\n", src_file, (int)fsize);
      printf("   ref_file <%s>, size=%d bytes\n", ref_path, (int)fsize);
      if (!compareData<unsigned int, float>(ref, src, nelements, epsilon, threshold))
        errors++;
      free(src);
      free(ref);
    }
    if (ref_fp)
      fclose(ref_fp);
    free(ref_path);
  }
  if (src_fp)
    fclose(src_fp);
  if (errors == 0)
    printf("  OK\n");
  else
    printf("  FAILURE: %d errors...\n", errors);
  return errors == 0;
}

// Compares nelements floats of a binary file with those of a reference file found with
// sdkFindFilePath (compareDataAsFloatThreshold), printing what it compares and "  OK" or the
// errors.
inline bool sdkCompareBin2BinFloat(const char *src_file, const char *ref_file,
                                   unsigned int nelements, const float epsilon,
                                   const float threshold, char *exec_path) {
  unsigned int errors = 0;
  FILE *src_fp = fopen(src_file, "rb");
  if (src_fp == NULL) {
    printf("compareBin2Bin <float> unable to open src_file: %s\n", src_file);
    errors = 1;
  }
  char *ref_path = sdkFindFilePath(ref_file, exec_path);
  if (ref_path == NULL) {
    printf("compareBin2Bin <float> unable to find <%s> in <%s>\n", ref_file, exec_path);
    printf(">>> Check info.xml and [project//data] folder <%s> <<<\n", exec_path);
    printf("Aborting comparison!\n");
    printf("  FAILED\n");
    errors++;
  } else {
    FILE *ref_fp = fopen(ref_path, "rb");
    if (ref_fp == NULL) {
      printf("compareBin2Bin <float> unable to open ref_file: %s\n", ref_path);
      errors = 1;
    }
    if (src_fp && ref_fp) {
      float *src = (float *)calloc(nelements, sizeof(float));
      float *ref = (float *)calloc(nelements, sizeof(float));
      printf("> compareBin2Bin <float> nelements=%d, epsilon=%4.2f, threshold=%4.2f\n", nelements,
             epsilon, threshold);
      size_t fsize = fread(src, sizeof(float), nelements, src_fp);
      printf("   src_file <%s>, size=%d bytes\n", src_file, (int)(fsize * sizeof(float)));
      fsize = fread(ref, sizeof(float), nelements, ref_fp);
      printf("   ref_file <%s>, size=%d bytes\n", ref_path, (int)(fsize * sizeof(float)));
      if (!compareDataAsFloatThreshold<float, float>(ref, src, nelements, epsilon, threshold))
        errors++;
      free(src);
      free(ref);
    }
    if (ref_fp)
      fclose(ref_fp);
    free(ref_path);
  }
  if (src_fp)
    fclose(src_fp);
  if (errors == 0)
    printf("  OK\n");
  else
    printf("  FAILURE: %d errors...\n", errors);
  return errors == 0;
}

// The comparison of two images of sdkComparePPM (ppm) and sdkComparePGM.
inline bool kernCompareImages(const char *src_file, const char *ref_file, const float epsilon,
                              const float threshold, bool verboseErrors, bool ppm) {
  const char *kind = ppm ? "PPMvsPPM" : "PGMvsPGM";
  if (src_file == NULL || ref_file == NULL) {
    if (verboseErrors)
      fprintf(stderr, "%s: src_file or ref_file is NULL.  Aborting comparison\n", kind);
    return false;
  }
  if (verboseErrors) {
    fprintf(stderr, "> Compare (a)rendered:  <%s>\n", src_file);
    fprintf(stderr, ">         (b)reference: <%s>\n", ref_file);
  }
  unsigned char *src = NULL, *ref = NULL;
  unsigned int ref_width = 0, ref_height = 0, src_width = 0, src_height = 0;
  bool loaded = ppm ? sdkLoadPPM4ub(ref_file, &ref, &ref_width, &ref_height)
                    : sdkLoadPPMub(ref_file, &ref, &ref_width, &ref_height);
  if (!loaded) {
    if (verboseErrors)
      fprintf(stderr, "%s: unable to load ref image file: %s\n", kind, ref_file);
    return false;
  }
  loaded = ppm ? sdkLoadPPM4ub(src_file, &src, &src_width, &src_height)
               : sdkLoadPPMub(src_file, &src, &src_width, &src_height);
  if (!loaded) {
    fprintf(stderr, "%s: unable to load src image file: %s\n", kind, src_file);
    free(ref);
    return false;
  }
  unsigned int errors = 0;
  if (src_height != ref_height || src_width != ref_width) {
    if (verboseErrors)
      fprintf(stderr, "%s: source and ref size mismatch (%u,%u)vs(%u,%u)\n", kind, src_width,
              src_height, ref_width, ref_height);
    errors = 1;
  } else {
    if (verboseErrors)
      fprintf(stderr, "%s: comparing images size (%u,%u) epsilon(%g), threshold(%g%%)\n", kind,
              src_width, src_height, epsilon, threshold * 100);
    if (!compareData(ref, src, src_width * src_height * (ppm ? 4 : 1), epsilon, threshold))
      errors = 1;
  }
  if (verboseErrors) {
    if (errors == 0)
      fprintf(stderr, "    OK\n\n");
    else
      fprintf(stderr, "    FAILURE!  %u errors...\n\n", errors);
  }
  free(src);
  free(ref);
  return errors == 0;
}

// Compares two PPM images byte by byte (compareData with epsilon and threshold); the
// comparison is described on stderr when verboseErrors is set.
inline bool sdkComparePPM(const char *src_file, const char *ref_file, const float epsilon,
                          const float threshold, bool verboseErrors) {
  return kernCompareImages(src_file, ref_file, epsilon, threshold, verboseErrors, true);
}

// Compares two PGM images byte by byte, as sdkComparePPM does.
inline bool sdkComparePGM(const char *src_file, const char *ref_file, const float epsilon,
                          const float threshold, bool verboseErrors) {
  return kernCompareImages(src_file, ref_file, epsilon, threshold, verboseErrors, false);
}

#endif // KERN_HELPER_IMAGE_H
