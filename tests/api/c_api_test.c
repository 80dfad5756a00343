/* The C API (include/kern/kern.h) from a C host: every call, the error paths included, with
 * the host carrying on after each error. Compiled as C. */
#include <kern/kern.h>

#include <stdio.h>
#include <string.h>

#include "check.h"

static char captured[4096];
static size_t capturedSize = 0;
static int diagnosticsCalls = 0;

static void capture(void *user, const char *text, size_t size) {
  (void)user;
  if (capturedSize + size < sizeof captured) {
    memcpy(captured + capturedSize, text, size);
    capturedSize += size;
    captured[capturedSize] = 0;
  }
}

static void onDiagnostics(void *user, const char *text, size_t size) {
  (void)text;
  (void)size;
  ++*(int *)user;
}

static const char *source = "__global__ void fill(int *out, int value, unsigned n) {\n"
                            "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                            "  if (i < n) out[i] = value + i;\n"
                            "  if (i == 0) printf(\"fill %d\\n\", value);\n"
                            "}\n"
                            "__global__ void oob(int *out) { out[threadIdx.x + 1000000] = 1; }\n"
                            "int main(int argc, char **argv) { return argc; }\n";

int main(void) {
  kern_options options;
  kern_engine *engine = NULL;
  kern_program *program = NULL, *bad = NULL;
  kern_buffer *buf = NULL, *other = NULL;
  kern_param_info info;
  kern_launch_stats stats;
  kern_arg args[3];
  kern_dim3 one = {1, 1, 1}, block = {32, 1, 1}, huge = {4096, 1, 1};
  int host[64];
  size_t count = 0;
  int code = 0;
  const char *runArgs[] = {"prog", "a", "b"};

  kern_options_init(&options);
  CHECK(options.opt_level == 2 && options.workers == 0);
  options.counters = 1;
  options.workers = 2;
  options.out = capture;
  options.diagnostics = onDiagnostics;
  options.user = &diagnosticsCalls;
  options.device = "rtx9090";
  CHECK(kern_engine_create(&options, &engine) == KERN_USAGE_ERROR && engine == NULL);
  options.device = "a100";
  CHECK(kern_engine_create(&options, &engine) == KERN_OK && engine != NULL);
  CHECK(strcmp(kern_last_error(engine), "") == 0);

  /* A bad source. */
  CHECK(kern_compile(engine, "__global__ void k( {", "bad.kern", &bad) == KERN_COMPILE_ERROR);
  CHECK(bad == NULL);
  CHECK(strstr(kern_last_error(engine), "bad.kern:1:") != NULL);
  CHECK(diagnosticsCalls == 1);
  CHECK(kern_compile(engine, NULL, NULL, &bad) == KERN_USAGE_ERROR);

  CHECK(kern_compile(engine, source, "c.kern", &program) == KERN_OK && program != NULL);
  CHECK(kern_kernel_count(program) == 2);
  CHECK(strcmp(kern_kernel_name(program, 0), "fill") == 0);
  CHECK(kern_kernel_name(program, 5) == NULL);
  CHECK(kern_kernel_param_count(program, "fill", &count) == KERN_OK && count == 3);
  CHECK(kern_kernel_param_count(program, "nope", &count) == KERN_USAGE_ERROR);
  CHECK(kern_kernel_param(program, "fill", 0, &info) == KERN_OK);
  CHECK(info.kind == KERN_PARAM_POINTER && strcmp(info.name, "out") == 0 && info.size == 8);
  CHECK(kern_kernel_param(program, "fill", 2, &info) == KERN_OK);
  CHECK(info.kind == KERN_PARAM_INT && !info.is_signed && strcmp(info.type, "unsigned int") == 0);
  CHECK(kern_kernel_param(program, "fill", 3, &info) == KERN_USAGE_ERROR);
  CHECK(kern_last_launch_stats(program, &stats) == KERN_USAGE_ERROR);

  /* Buffers. */
  CHECK(kern_buffer_create(program, sizeof host, &buf) == KERN_OK);
  CHECK(kern_buffer_size(buf) == sizeof host);
  CHECK(kern_buffer_read(buf, 0, host, sizeof host) == KERN_OK && host[3] == 0);
  CHECK(kern_buffer_write(buf, 8, host, sizeof host) == KERN_USAGE_ERROR);
  CHECK(strstr(kern_last_error(engine), "do not fit") != NULL);
  CHECK(kern_buffer_create(program, 0, &other) == KERN_USAGE_ERROR && other == NULL);

  /* A launch. */
  args[0] = kern_arg_buffer(buf);
  args[1] = kern_arg_int(10);
  args[2] = kern_arg_uint(64);
  block.x = 64;
  CHECK(kern_launch(program, "fill", one, block, args, 3, 0) == KERN_OK);
  CHECK(kern_buffer_read(buf, 0, host, sizeof host) == KERN_OK);
  CHECK(host[0] == 10 && host[63] == 73);
  CHECK(strstr(captured, "fill 10") != NULL);
  CHECK(kern_last_launch_stats(program, &stats) == KERN_OK);
  CHECK(stats.counted && stats.warp_instructions > 0 && stats.global_store_requests == 2);
  CHECK(stats.error_code == 0 && !stats.faulted && stats.occupancy > 0);
  CHECK(strstr(kern_report_json(program), "\"launches\"") != NULL);

  /* Wrong arguments. */
  args[1] = kern_arg_float(1.5f);
  CHECK(kern_launch(program, "fill", one, block, args, 3, 0) == KERN_USAGE_ERROR);
  CHECK(strstr(kern_last_error(engine), "'value'") != NULL);
  args[1] = kern_arg_int(10);
  CHECK(kern_launch(program, "fill", one, block, args, 2, 0) == KERN_USAGE_ERROR);
  CHECK(kern_launch(program, "nope", one, block, args, 3, 0) == KERN_USAGE_ERROR);
  args[0] = kern_arg_double(1.0);
  CHECK(kern_launch(program, "fill", one, block, args, 3, 0) == KERN_USAGE_ERROR);
  CHECK(strstr(kern_last_error(engine), "'out'") != NULL);
  args[0] = kern_arg_null();
  args[2] = kern_arg_uint(0);
  CHECK(kern_launch(program, "fill", one, block, args, 3, 0) == KERN_OK);
  args[0] = kern_arg_buffer(buf);
  args[2] = kern_arg_uint(64);

  /* A failing launch, then a fault; the host carries on. */
  CHECK(kern_launch(program, "fill", one, huge, args, 3, 0) == KERN_RUNTIME_ERROR);
  CHECK(strstr(kern_last_error(engine), "threads per block") != NULL);
  CHECK(kern_launch(program, "oob", one, block, args, 1, 0) == KERN_RUNTIME_ERROR);
  CHECK(kern_last_launch_stats(program, &stats) == KERN_OK && stats.faulted);
  CHECK(kern_launch(program, "fill", one, block, args, 3, 0) == KERN_RUNTIME_ERROR);
  kern_buffer_destroy(buf);
  kern_program_reset_device(program);
  CHECK(kern_buffer_create(program, sizeof host, &buf) == KERN_OK);
  args[0] = kern_arg_buffer(buf);
  CHECK(kern_launch(program, "fill", one, block, args, 3, 0) == KERN_OK);

  /* main. */
  CHECK(kern_program_run(program, 3, runArgs, &code) == KERN_OK && code == 3);

  /* Several source files, linked. */
  {
    const char *paths[2] = {"c_api_link_a.cu", "c_api_link_b.cu"};
    FILE *fa = fopen(paths[0], "w"), *fb = fopen(paths[1], "w");
    kern_program *linked = NULL;
    CHECK(fa != NULL && fb != NULL);
    if (fa && fb) {
      fputs("int value(void);\nint main() { return value(); }\n", fa);
      fputs("static int hidden(void) { return 4; }\nint value(void) { return hidden(); }\n", fb);
      fclose(fa);
      fclose(fb);
      CHECK(kern_compile_files(engine, paths, 2, &linked) == KERN_OK && linked != NULL);
      CHECK(kern_program_run(linked, 1, runArgs, &code) == KERN_OK && code == 4);
      kern_program_destroy(linked);
      CHECK(kern_compile_files(engine, paths, 1, &linked) == KERN_COMPILE_ERROR && linked == NULL);
      CHECK(strstr(kern_last_error(engine), "'value' is declared but never defined") != NULL);
      CHECK(kern_compile_files(engine, NULL, 2, &linked) == KERN_USAGE_ERROR);
      CHECK(kern_compile_files(engine, paths, 0, &linked) == KERN_USAGE_ERROR);
      remove(paths[0]);
      remove(paths[1]);
    }
  }

  kern_buffer_destroy(buf);
  kern_buffer_destroy(NULL);
  kern_program_destroy(program);
  kern_program_destroy(NULL);
  kern_engine_destroy(engine);
  kern_engine_destroy(NULL);
  if (failures)
    fprintf(stderr, "%d check(s) failed\n", failures);
  else
    printf("c_api_test: all checks passed\n");
  return failures ? 1 : 0;
}
