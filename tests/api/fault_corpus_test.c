/* Every program of the fault corpus (tests/faults: kernel and host faults, escapes, deadlocks,
 * timeouts, stack overflows), compiled and run through the C API in one process, twice; then a
 * good program. The process must survive them all, the good program must run as if nothing
 * had happened, and the process's memory must stay flat from the first pass to the second.
 * Exit 0 on success. */
#include <kern/kern.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kMaxFiles = 512 };

static char output[4096];
static size_t outputLen;

static void keepOutput(void *user, const char *text, size_t size) {
  (void)user;
  if (outputLen + size < sizeof output) {
    memcpy(output + outputLen, text, size);
    outputLen += size;
    output[outputLen] = 0;
  }
}

static void discard(void *user, const char *text, size_t size) {
  (void)user;
  (void)text;
  (void)size;
}

static int compareNames(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Resident memory in KiB. */
static long residentKiB(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (!f)
    return 0;
  if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
    resident = 0;
  fclose(f);
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Whether the file's text contains `needle`. */
static int fileHas(const char *path, const char *needle) {
  FILE *f = fopen(path, "rb");
  static char text[1 << 16];
  size_t n;
  if (!f)
    return 0;
  n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  return strstr(text, needle) != NULL;
}

static int runOne(const char *path) {
  kern_options o;
  kern_engine *engine = NULL;
  kern_program *program = NULL;
  int code = 0;
  kern_options_init(&o);
  o.workers = 2;
  o.timeout_seconds = 1.0;
  o.out = discard;
  o.err = discard;
  o.mode = fileHas(path, "kern-args: --checked") ? KERN_MODE_CHECKED : KERN_MODE_FAST;
  if (kern_engine_create(&o, &engine) != KERN_OK)
    return 0;
  if (kern_compile_files(engine, &path, 1, &program) == KERN_OK) {
    kern_program_run(program, 0, NULL, &code);
    kern_program_destroy(program);
  }
  kern_engine_destroy(engine);
  return 1;
}

int main(void) {
  const char *dir = KERN_TEST_FAULTS_DIR;
  char *files[kMaxFiles];
  size_t count = 0, i;
  long afterFirst, afterSecond;
  int pass, code = -1;
  DIR *d = opendir(dir);
  struct dirent *e;
  kern_options o;
  kern_engine *engine = NULL;
  kern_program *program = NULL;
  const char *good = "#include <cstdio>\n"
                     "__global__ void add(int *a) { a[threadIdx.x] += threadIdx.x; }\n"
                     "int main() {\n"
                     "  int h[64], *d, s = 0;\n"
                     "  for (int i = 0; i < 64; ++i) h[i] = i;\n"
                     "  cudaMalloc(&d, sizeof h);\n"
                     "  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);\n"
                     "  add<<<1, 64>>>(d);\n"
                     "  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n"
                     "  for (int i = 0; i < 64; ++i) s += h[i];\n"
                     "  printf(\"sum %d\\n\", s);\n"
                     "  return 0;\n"
                     "}\n";

  if (!d) {
    fprintf(stderr, "cannot open %s\n", dir);
    return 1;
  }
  while ((e = readdir(d)) != NULL && count < kMaxFiles) {
    size_t n = strlen(e->d_name);
    if (n > 5 && strcmp(e->d_name + n - 5, ".kern") == 0) {
      files[count] = malloc(strlen(dir) + n + 2);
      sprintf(files[count], "%s/%s", dir, e->d_name);
      ++count;
    }
  }
  closedir(d);
  qsort(files, count, sizeof files[0], compareNames);
  if (count < 50) {
    fprintf(stderr, "only %zu programs in %s\n", count, dir);
    return 1;
  }

  afterFirst = 0;
  for (pass = 0; pass < 2; ++pass) {
    for (i = 0; i < count; ++i)
      if (!runOne(files[i])) {
        fprintf(stderr, "engine creation failed for %s\n", files[i]);
        return 1;
      }
    if (pass == 0)
      afterFirst = residentKiB();
  }
  afterSecond = residentKiB();

  kern_options_init(&o);
  o.out = keepOutput;
  if (kern_engine_create(&o, &engine) != KERN_OK ||
      kern_compile(engine, good, "good.kern", &program) != KERN_OK ||
      kern_program_run(program, 0, NULL, &code) != KERN_OK || code != 0 ||
      strcmp(output, "sum 4032\n") != 0) {
    fprintf(stderr, "the good program after the corpus failed (exit %d, output \"%s\")\n", code,
            output);
    return 1;
  }
  kern_program_destroy(program);
  kern_engine_destroy(engine);

  printf("%zu fault programs run twice; resident memory %ld KiB after the first pass, %ld KiB "
         "after the second\n",
         count, afterFirst, afterSecond);
  if (afterSecond - afterFirst > 64 * 1024) {
    fprintf(stderr, "memory grew by %ld KiB over the second pass\n", afterSecond - afterFirst);
    return 1;
  }
  for (i = 0; i < count; ++i)
    free(files[i]);
  return 0;
}
