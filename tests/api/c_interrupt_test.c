/* kern_interrupt from a second thread (issue: interrupts): it stops an endless kernel, an
 * endless host loop and a long sleep, in kern_program_run and in kern_launch, within
 * milliseconds; each call returns KERN_INTERRUPTED, and the engine then runs a good program.
 * A kern_interrupt with nothing running stops the next run at its start, and only that one.
 * Compiled as C. */
#include <kern/kern.h>

#include "check.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *endlessKernel = "#include <cstdio>\n"
                                   "__global__ void spin(int *p) { while (p[0] == 0) p[1]++; }\n"
                                   "int main() {\n"
                                   "  int *p; cudaMalloc(&p, 8); cudaMemset(p, 0, 8);\n"
                                   "  spin<<<8, 64>>>(p);\n"
                                   "  cudaDeviceSynchronize();\n"
                                   "  printf(\"not reached\\n\");\n"
                                   "  return 0;\n"
                                   "}\n";

static const char *endlessHost = "#include <cstdio>\n"
                                 "int main() {\n"
                                 "  volatile unsigned long x = 0;\n"
                                 "  while (x != 1) x += 2;\n"
                                 "  return 0;\n"
                                 "}\n";

static const char *longSleep = "#include <unistd.h>\n"
                               "int main() { sleep(1000); return 0; }\n";

static const char *good = "#include <cstdio>\n"
                          "__global__ void fill(int *p) { p[threadIdx.x] = threadIdx.x * 2; }\n"
                          "int main() {\n"
                          "  int *d, h[32]; cudaMalloc(&d, sizeof h);\n"
                          "  fill<<<1, 32>>>(d);\n"
                          "  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n"
                          "  return h[31];\n"
                          "}\n";

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

struct interrupter {
  kern_engine *engine;
  double delay;
};

static void *interruptLater(void *arg) {
  struct interrupter *i = (struct interrupter *)arg;
  usleep((useconds_t)(i->delay * 1e6));
  kern_interrupt(i->engine);
  return NULL;
}

/* Runs `source` while a second thread interrupts it after `delay` seconds; the run must
 * return KERN_INTERRUPTED within a second of the interrupt, its report naming `expected`. */
static void runInterrupted(kern_engine *engine, const char *source, const char *expected) {
  kern_program *program = NULL;
  CHECK(kern_compile(engine, source, "endless.cu", &program) == KERN_OK);
  if (!program)
    return;
  clearErrors();
  struct interrupter i = {engine, 0.3};
  pthread_t thread;
  pthread_create(&thread, NULL, interruptLater, &i);
  const double start = now();
  int exitCode = 0;
  const kern_status status = kern_program_run(program, 0, NULL, &exitCode);
  const double took = now() - start;
  pthread_join(thread, NULL);
  CHECK(status == KERN_INTERRUPTED);
  CHECK(exitCode == 130);
  /* Stopped by the interrupt, not by the end of what it runs (endless, or a 1000 s sleep): the
   * bound is loose, as a loaded machine may delay the interrupting thread. */
  CHECK(took < 20);
  CHECK(strstr(errors, expected) != NULL);
  if (!strstr(errors, expected))
    fprintf(stderr, "report was: %s\n", errors);
  kern_program_destroy(program);
}

int main(void) {
  kern_options options;
  kern_options_init(&options);
  options.err = collect;
  options.workers = 2;
  kern_engine *engine = NULL;
  CHECK(kern_engine_create(&options, &engine) == KERN_OK);
  if (!engine)
    return 1;

  runInterrupted(engine, endlessKernel, "endless.cu:2:32: error: interrupted: kernel 'spin'");
  runInterrupted(engine, endlessHost,
                 "endless.cu:4:3: error: interrupted: the program was stopped in host code, in "
                 "this loop");
  runInterrupted(engine, longSleep,
                 "endless.cu:2:14: error: interrupted: the program was stopped in host code, in "
                 "this call");

  /* After the interrupts, a good program runs to its end. */
  kern_program *program = NULL;
  CHECK(kern_compile(engine, good, "good.cu", &program) == KERN_OK);
  int exitCode = 0;
  CHECK(kern_program_run(program, 0, NULL, &exitCode) == KERN_OK);
  CHECK(exitCode == 62);

  /* An interrupt with nothing running stops the next run at its start, and only that one. */
  kern_interrupt(engine);
  CHECK(kern_program_run(program, 0, NULL, &exitCode) == KERN_INTERRUPTED);
  CHECK(kern_program_run(program, 0, NULL, &exitCode) == KERN_OK);
  CHECK(exitCode == 62);
  kern_program_destroy(program);

  /* kern_launch of an endless kernel on the program's own device. */
  CHECK(kern_compile(engine, "__global__ void spin(int *p) { while (p[0] == 0) p[1]++; }\n",
                     "launch.cu", &program) == KERN_OK);
  kern_buffer *buffer = NULL;
  CHECK(kern_buffer_create(program, 8, &buffer) == KERN_OK);
  kern_arg arg = kern_arg_buffer(buffer);
  struct interrupter i = {engine, 0.3};
  pthread_t thread;
  pthread_create(&thread, NULL, interruptLater, &i);
  const double start = now();
  const kern_dim3 grid = {4, 1, 1}, block = {32, 1, 1};
  CHECK(kern_launch(program, "spin", grid, block, &arg, 1, 0) == KERN_INTERRUPTED);
  CHECK(now() - start < 20);
  pthread_join(thread, NULL);
  /* The device is still usable: an interrupt is not the kernel's fault. */
  int zero[2] = {1, 0};
  CHECK(kern_buffer_write(buffer, 0, zero, sizeof zero) == KERN_OK);
  CHECK(kern_launch(program, "spin", grid, block, &arg, 1, 0) == KERN_OK);
  kern_buffer_destroy(buffer);
  kern_program_destroy(program);

  kern_engine_destroy(engine);

  /* A sandboxed program runs in a child process: kern_interrupt reaches it there. */
  if (kern_sandbox_available()) {
    options.sandbox = 1;
    CHECK(kern_engine_create(&options, &engine) == KERN_OK);
    if (engine) {
      runInterrupted(engine, endlessKernel, "endless.cu:2:32: error: interrupted: kernel 'spin'");
      runInterrupted(engine, endlessHost,
                     "endless.cu:4:3: error: interrupted: the program was stopped in host code");
      kern_engine_destroy(engine);
    }
  }
  if (failures == 0)
    printf("c_interrupt: ok\n");
  return failures ? 1 : 0;
}
