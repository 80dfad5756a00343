// helper_string.h as kern provides it: the command-line helpers of the header of this name in
// CUDA's samples (same names, arguments and results), written in the C that kern compiles.
// An argument matches a name with any number of leading '-': "-n", "--n", "-n=5", "--n=5".
// Not here: sdkFindFilePath (it needs a file system), the STRCASECMP family of macros.
#ifndef KERN_HELPER_STRING_H
#define KERN_HELPER_STRING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EXIT_WAIVED
#define EXIT_WAIVED 2
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

#endif // KERN_HELPER_STRING_H
