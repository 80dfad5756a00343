// <error.h> as kern provides it: glibc's error() and error_at_line(). Each flushes stdout, then
// writes to stderr "PROGRAM: MESSAGE", with ": strerror(errnum)" when errnum is not 0, and a
// newline (error_at_line: "PROGRAM:FILE:LINE: MESSAGE"); PROGRAM is argv[0]. A status that is
// not 0 ends the program with exit(status). error_message_count counts the messages,
// error_print_progname (if set) is called instead of printing PROGRAM, and error_one_per_line
// makes error_at_line skip a message for the line of the one before. They are macros (kern's
// functions cannot take C's variable arguments on to fprintf), statements that evaluate status
// and errnum first (so `errno` is the caller's) and the format's arguments once. The three
// variables belong to each file that includes the header. See docs/headers.md.
#ifndef KERN_ERROR_H
#define KERN_ERROR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned int error_message_count = 0;
static int error_one_per_line = 0;
static void (*error_print_progname)(void) = NULL;

static void __kern_error_begin(void) {
  fflush(stdout);
  if (error_print_progname)
    error_print_progname();
  else
    fprintf(stderr, "%s: ", __kern_program_name());
}

static void __kern_error_end(int status, int errnum) {
  if (errnum != 0)
    fprintf(stderr, ": %s", strerror(errnum));
  fputc('\n', stderr);
  ++error_message_count;
  if (status != 0)
    exit(status);
}

// error_at_line's file and line of the message before, for error_one_per_line.
static const char *__kern_error_old_file = NULL;
static unsigned int __kern_error_old_line = 0;

static int __kern_error_skip_line(const char *file, unsigned int line) {
  if (!error_one_per_line)
    return 0;
  if (__kern_error_old_line == line &&
      (__kern_error_old_file == file ||
       (__kern_error_old_file && file && strcmp(__kern_error_old_file, file) == 0)))
    return 1;
  __kern_error_old_file = file;
  __kern_error_old_line = line;
  return 0;
}

#define error(status, errnum, ...)                                                                 \
  do {                                                                                             \
    int __kern_error_status = (status), __kern_error_errnum = (errnum);                            \
    __kern_error_begin();                                                                          \
    fprintf(stderr, __VA_ARGS__);                                                                  \
    __kern_error_end(__kern_error_status, __kern_error_errnum);                                    \
  } while (0)

#define error_at_line(status, errnum, filename, linenum, ...)                                      \
  do {                                                                                             \
    int __kern_error_status = (status), __kern_error_errnum = (errnum);                            \
    const char *__kern_error_file = (filename);                                                    \
    unsigned int __kern_error_line = (linenum);                                                    \
    if (!__kern_error_skip_line(__kern_error_file, __kern_error_line)) {                           \
      fflush(stdout);                                                                              \
      if (error_print_progname)                                                                    \
        error_print_progname();                                                                    \
      else                                                                                         \
        fprintf(stderr, "%s:", __kern_program_name());                                             \
      if (__kern_error_file)                                                                       \
        fprintf(stderr, "%s:%u: ", __kern_error_file, __kern_error_line);                          \
      else                                                                                         \
        fputs(" ", stderr);                                                                        \
      fprintf(stderr, __VA_ARGS__);                                                                \
      __kern_error_end(__kern_error_status, __kern_error_errnum);                                  \
    }                                                                                              \
  } while (0)

#endif
