// helper_string.h as kern provides it: the command-line helpers of the header of this name in
// CUDA's samples (same names, arguments and results), written in the C that kern compiles,
// sdkFindFilePath, and the Linux forms of its portability macros (STRCASECMP, STRNCASECMP,
// STRCPY, FOPEN, FOPEN_FAIL, SSCANF, SPRINTF).
// An argument matches a name with any number of leading '-': "-n", "--n", "-n=5", "--n=5".
#ifndef KERN_HELPER_STRING_H
#define KERN_HELPER_STRING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __cplusplus
// The samples' header includes these, so code that includes helper_cuda.h may name
// std::string and std::ifstream without including them (nbody's bodysystem.h does).
#include <fstream>
#include <string>
#endif

#ifndef EXIT_WAIVED
#define EXIT_WAIVED 2
#endif

#ifndef STRCASECMP
#define STRCASECMP strcasecmp
#endif
#ifndef STRNCASECMP
#define STRNCASECMP strncasecmp
#endif
#ifndef STRCPY
#define STRCPY(sFilePath, nLength, sPath) strcpy(sFilePath, sPath)
#endif
#ifndef FOPEN
#define FOPEN(fHandle, filename, mode) (fHandle = fopen(filename, mode))
#endif
#ifndef FOPEN_FAIL
#define FOPEN_FAIL(result) (result == NULL)
#endif
#ifndef SSCANF
#define SSCANF sscanf
#endif
#ifndef SPRINTF
#define SPRINTF sprintf
#endif

// ASCII lower case of c.
static inline char kernHelperLower(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

// strncasecmp: the first n characters of a and b compared without regard to case.
static inline int kernHelperStrncasecmp(const char *a, const char *b, int n) {
  for (int i = 0; i < n; i++) {
    char x = kernHelperLower(a[i]);
    char y = kernHelperLower(b[i]);
    if (x != y)
      return x < y ? -1 : 1;
    if (x == 0)
      return 0;
  }
  return 0;
}

// The index of the first character of `string` after its leading `delimiter`s; 0 when nothing
// or only one character would be left.
inline int stringRemoveDelimiter(char delimiter, const char *string) {
  int start = 0;
  while (string[start] == delimiter)
    start++;
  if (start >= (int)strlen(string) - 1)
    return 0;
  return start;
}

// Points *extension at what follows the last '.' of filename and returns its index; 0 (and a
// null *extension) when there is no '.' after the second character.
inline int getFileExtension(char *filename, char **extension) {
  for (int dot = (int)strlen(filename) - 1; dot >= 2; dot--) {
    if (filename[dot] == '.') {
      *extension = &filename[dot + 1];
      return dot + 1;
    }
  }
  *extension = NULL;
  return 0;
}

// Whether an argument is the flag `string_ref` (case-insensitive; a value after '=' allowed).
inline bool checkCmdLineFlag(const int argc, const char **argv, const char *string_ref) {
  bool found = false;
  int length = (int)strlen(string_ref);
  for (int i = 1; i < argc; i++) {
    const char *arg = &argv[i][stringRemoveDelimiter('-', argv[i])];
    int argLength = 0;
    while (arg[argLength] != 0 && arg[argLength] != '=')
      argLength++;
    if (argLength == length && kernHelperStrncasecmp(arg, string_ref, length) == 0)
      found = true;
  }
  return found;
}

// The text of the value of the last argument that starts with `string_ref`, or null: after
// "name=" or directly after "name".
static inline const char *kernHelperArgumentValue(const int argc, const char **argv,
                                                  const char *string_ref, bool *found) {
  const char *value = NULL;
  int length = (int)strlen(string_ref);
  *found = false;
  for (int i = 1; i < argc; i++) {
    const char *arg = &argv[i][stringRemoveDelimiter('-', argv[i])];
    if (kernHelperStrncasecmp(arg, string_ref, length) == 0) {
      *found = true;
      value = NULL;
      if ((int)strlen(arg) >= length + 1)
        value = &arg[length + (arg[length] == '=' ? 1 : 0)];
    }
  }
  return value;
}

// The integer value of argument `string_ref` ("-n=5" with string_ref "n"): 0 when absent or
// when it has no value.
inline int getCmdLineArgumentInt(const int argc, const char **argv, const char *string_ref) {
  bool found = false;
  const char *value = kernHelperArgumentValue(argc, argv, string_ref, &found);
  return found && value != NULL ? atoi(value) : 0;
}

// The float value of argument `string_ref`: 0 when absent or when it has no value.
inline float getCmdLineArgumentFloat(const int argc, const char **argv, const char *string_ref) {
  bool found = false;
  const char *value = kernHelperArgumentValue(argc, argv, string_ref, &found);
  return found && value != NULL ? (float)atof(value) : 0.0f;
}

// Points *string_retval at the text after "name=" of the last argument that starts with
// `string_ref` and returns true (at an empty text for a bare "-name"); false (and a null
// *string_retval) when there is none.
inline bool getCmdLineArgumentString(const int argc, const char **argv, const char *string_ref,
                                     char **string_retval) {
  bool found = false;
  int length = (int)strlen(string_ref);
  for (int i = 1; i < argc; i++) {
    char *arg = (char *)&argv[i][stringRemoveDelimiter('-', argv[i])];
    if (kernHelperStrncasecmp(arg, string_ref, length) == 0) {
      *string_retval = &arg[arg[length] != 0 ? length + 1 : length];
      found = true;
    }
  }
  if (!found)
    *string_retval = NULL;
  return found;
}

// Whether `dir` followed by `name` names a file that can be opened for reading; if so, the
// path in a new malloc'd string (*found).
static inline bool kernHelperTryPath(const char *dir, const char *exe, const char *sub,
                                     const char *name, char **found) {
  char path[4096];
  int n = snprintf(path, sizeof path, "%s%s%s%s", dir, exe, sub, name);
  if (n < 0 || n >= (int)sizeof path)
    return false;
  FILE *fp = fopen(path, "rb");
  if (fp == NULL)
    return false;
  fclose(fp);
  *found = (char *)malloc(strlen(path) + 1);
  strcpy(*found, path);
  return true;
}

// The path of a sample's companion file (input data, a reference result): the first of
// "./NAME", "./data/NAME", then, named after the executable (the last part of
// executable_path, when it is given), its folder in a checkout of CUDA's samples seen from
// two, three or four levels below the checkout (../../Samples/EXE/, each category's
// ../../Samples/CATEGORY/EXE/, and their data/ folders), ../../Common/data/ and the like, and
// last the executable's own folder and its data/. A new malloc'd string, or NULL (with a
// message on stdout) when none of these exists.
inline char *sdkFindFilePath(const char *filename, const char *executable_path) {
  static const char *ups[3] = {"../../../../", "../../../", "../../"};
  static const char *categories[7] = {
      "0_Introduction/",  "1_Utilities/",      "2_Concepts_and_Techniques/",
      "3_CUDA_Features/", "4_CUDA_Libraries/", "5_Domain_Specific/",
      "6_Performance/"};
  char *found = NULL;
  if (kernHelperTryPath("./", "", "", filename, &found) ||
      kernHelperTryPath("./data/", "", "", filename, &found))
    return found;
  const char *exe = NULL;
  if (executable_path != NULL) {
    const char *slash = strrchr(executable_path, '/');
    exe = slash != NULL ? slash + 1 : executable_path;
  }
  if (exe != NULL) {
    char dir[512];
    for (int data = 0; data < 2; data++)
      for (int u = 0; u < 3; u++) {
        snprintf(dir, sizeof dir, "%sSamples/", ups[u]);
        if (kernHelperTryPath(dir, exe, data ? "/data/" : "/", filename, &found))
          return found;
      }
    for (int data = 0; data < 2; data++)
      for (int c = 0; c < 7; c++)
        for (int u = 0; u < 3; u++) {
          snprintf(dir, sizeof dir, "%sSamples/%s", ups[u], categories[c]);
          if (kernHelperTryPath(dir, exe, data ? "/data/" : "/", filename, &found))
            return found;
        }
  }
  for (int u = 0; u < 3; u++) {
    char dir[64];
    snprintf(dir, sizeof dir, "%sCommon/data/", ups[u]);
    if (kernHelperTryPath(dir, "", "", filename, &found))
      return found;
  }
  if (exe != NULL && exe != executable_path) {
    char dir[2048];
    int n = (int)(exe - executable_path);
    if (n < (int)sizeof dir) {
      memcpy(dir, executable_path, n);
      dir[n] = 0;
      if (kernHelperTryPath(dir, "", "", filename, &found) ||
          kernHelperTryPath(dir, "", "data/", filename, &found))
        return found;
    }
  }
  printf("\nerror: sdkFindFilePath: file <%s> not found!\n", filename);
  return NULL;
}

#endif // KERN_HELPER_STRING_H
