/* -I and -D through the C API (kern_options.include_paths and defines), from C: a header found
 * in an include directory, macros defined before the first line, kern's own text headers, and
 * the errors. Compiled as C. */
#include <kern/kern.h>

#include <stdio.h>
#include <string.h>

#include "check.h"

static char captured[4096];
static size_t capturedSize = 0;

static void capture(void *user, const char *text, size_t size) {
  (void)user;
  if (capturedSize + size < sizeof captured) {
    memcpy(captured + capturedSize, text, size);
    capturedSize += size;
    captured[capturedSize] = 0;
  }
}

static const char *source = "#include \"api_header.h\"\n"
                            "#include <helper_cuda.h>\n"
                            "int main(void) {\n"
                            "  int n = 0;\n"
                            "  checkCudaErrors(cudaGetDeviceCount(&n));\n"
                            "  printf(\"value %d scale %d flag %d max %d\\n\", API_HEADER_VALUE,\n"
                            "         SCALE, FLAG, MAX(2, 7));\n"
                            "  return API_HEADER_VALUE * SCALE + FLAG;\n"
                            "}\n";

int main(void) {
  kern_options options;
  kern_engine *engine = NULL;
  kern_program *program = NULL;
  int code = 0;
  /* Arrays the engine copies: changed after kern_engine_create, they must not matter. */
  char dir[1024];
  char scale[16];
  const char *paths[1];
  const char *defines[2];
  const char *badDefines[2];

  snprintf(dir, sizeof dir, "%s", KERN_TEST_INCLUDE_DIR);
  snprintf(scale, sizeof scale, "SCALE=3");
  paths[0] = dir;
  defines[0] = scale;
  defines[1] = "FLAG";

  kern_options_init(&options);
  CHECK(options.include_paths == NULL && options.include_path_count == 0);
  CHECK(options.defines == NULL && options.define_count == 0);
  options.out = capture;
  options.include_paths = paths;
  options.include_path_count = 1;
  options.defines = defines;
  options.define_count = 2;
  CHECK(kern_engine_create(&options, &engine) == KERN_OK);
  dir[0] = 0;
  scale[0] = 0;
  if (engine) {
    CHECK(kern_compile(engine, source, "includes.cu", &program) == KERN_OK);
    if (program) {
      CHECK(kern_program_run(program, 0, NULL, &code) == KERN_OK);
      CHECK(code == 4 * 3 + 1);
      CHECK(strcmp(captured, "value 4 scale 3 flag 1 max 7\n") == 0);
      kern_program_destroy(program);
      program = NULL;
    }
    kern_engine_destroy(engine);
    engine = NULL;
  }

  /* Without the include directory the header is missing: a compile error that names it. */
  kern_options_init(&options);
  CHECK(kern_engine_create(&options, &engine) == KERN_OK);
  if (engine) {
    CHECK(kern_compile(engine, source, "includes.cu", &program) == KERN_COMPILE_ERROR);
    CHECK(program == NULL);
    CHECK(strstr(kern_last_error(engine),
                 "includes.cu:1:10: error: 'api_header.h' file not found") != NULL);
    kern_engine_destroy(engine);
    engine = NULL;
  }

  /* A null string, or a null array with a count: a usage error, and no engine. */
  badDefines[0] = "A=1";
  badDefines[1] = NULL;
  kern_options_init(&options);
  options.defines = badDefines;
  options.define_count = 2;
  CHECK(kern_engine_create(&options, &engine) == KERN_USAGE_ERROR);
  CHECK(engine == NULL);
  kern_options_init(&options);
  options.include_path_count = 1;
  CHECK(kern_engine_create(&options, &engine) == KERN_USAGE_ERROR);
  CHECK(engine == NULL);

  if (failures)
    fprintf(stderr, "%d check(s) failed\n", failures);
  else
    printf("c includes: ok\n");
  return failures ? 1 : 0;
}
