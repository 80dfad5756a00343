/* The sandbox through the C API (kern_options.sandbox, docs/sandbox.md): a sandboxed program's
 * output and exit code come back, and one that the sandbox stops (a CPU-time limit, a memory
 * limit) is reported with its status while this host process goes on. Usage:
 * kern_sandbox_c_api_test PROGRAMS (tests/sandbox/programs). Exits 77 (skipped) where the
 * sandbox is not available. */
#include "kern/kern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char captured[4096];
static size_t capturedSize;

static void collect(void *user, const char *text, size_t size) {
  (void)user;
  if (capturedSize + size < sizeof captured) {
    memcpy(captured + capturedSize, text, size);
    capturedSize += size;
    captured[capturedSize] = 0;
  }
}

static int failures;

static void expect(int ok, const char *what) {
  printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  if (!ok)
    ++failures;
}

/* Compiles PROGRAMS/name in the sandbox that `options` describe and runs it: its status. */
static kern_status runProgram(kern_options *options, const char *dir, const char *name,
                              int *exitCode) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  const char *paths[] = {path};
  kern_engine *engine = NULL;
  kern_program *program = NULL;
  kern_status s = kern_engine_create(options, &engine);
  if (s != KERN_OK)
    return s;
  s = kern_compile_files(engine, paths, 1, &program);
  if (s == KERN_OK) {
    s = kern_program_run(program, 0, NULL, exitCode);
    kern_program_destroy(program);
  }
  kern_engine_destroy(engine);
  return s;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  if (getenv("KERN_SANDBOX_SKIP")) {
    printf("skipped: a sanitizer build\n");
    return 77;
  }
  if (!kern_sandbox_available()) {
    printf("skipped: the sandbox is not available here\n");
    return 77;
  }
  const char *dir = argv[1];
  int exitCode = -1;

  kern_options options;
  kern_options_init(&options);
  options.sandbox = 1;
  options.out = collect;
  options.err = collect;
  kern_status s = runProgram(&options, dir, "hello.cu", &exitCode);
  expect(s == KERN_OK && exitCode == 7, "a sandboxed program's exit code comes back");
  expect(strstr(captured, "one: h[5] = 10\n") != NULL && strstr(captured, "two: on stderr\n"),
         "its output comes back through the callbacks");

  capturedSize = 0;
  options.sandbox_cpu_seconds = 1;
  s = runProgram(&options, dir, "spin.cu", &exitCode);
  expect(s == KERN_TIME_LIMIT, "a CPU loop over sandbox_cpu_seconds is KERN_TIME_LIMIT");
  expect(strstr(captured, "time limit exceeded") != NULL, "and the error says so");

  capturedSize = 0;
  options.sandbox_cpu_seconds = 0;
  options.sandbox_memory_limit = (uint64_t)512 << 20;
  s = runProgram(&options, dir, "alloc.cu", &exitCode);
  expect(s == KERN_MEMORY_LIMIT || strstr(captured, "Sanitizer") != NULL,
         "4 GiB under a 512 MiB sandbox_memory_limit is KERN_MEMORY_LIMIT");

  /* The host is still here, and a program compiled from text runs in a fresh sandbox. */
  capturedSize = 0;
  options.sandbox_memory_limit = 0;
  kern_engine *engine = NULL;
  kern_program *program = NULL;
  expect(kern_engine_create(&options, &engine) == KERN_OK, "the host goes on");
  s = kern_compile(engine, "#include <cstdio>\nint main() { printf(\"after\\n\"); return 3; }\n",
                   "after.cu", &program);
  expect(s == KERN_OK, "a sandboxed compile from text");
  if (s == KERN_OK) {
    s = kern_program_run(program, 0, NULL, &exitCode);
    expect(s == KERN_OK && exitCode == 3 && strstr(captured, "after\n") != NULL,
           "and its run after the others");
    kern_buffer *buffer = NULL;
    expect(kern_buffer_create(program, 16, &buffer) == KERN_USAGE_ERROR,
           "a sandboxed program has no buffers of the host's");
    kern_program_destroy(program);
  }
  kern_engine_destroy(engine);
  printf("%s\n", failures ? "FAILED" : "PASS");
  return failures ? 1 : 0;
}
