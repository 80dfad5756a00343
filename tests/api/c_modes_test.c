/* Modes and the per-launch filter of the C API (kern_options.mode, kernel_name, launch_skip,
 * launch_count, profile_from_start, launch_filter). Compiled as C. */
#include <kern/kern.h>

#include <stdio.h>
#include <string.h>

#include "check.h"

static const char *source = "__global__ void fill(int *out, int v) { out[threadIdx.x] = v; }\n"
                            "__global__ void bump(int *out) {\n"
                            "  if (threadIdx.x % 2) atomicAdd(&out[0], 1);\n"
                            "}\n";

/* The filter callback: records its calls, profiles odd launch indices. */
struct calls {
  int count;
  char names[8][16];
  uint64_t indices[8];
};

static int oddLaunches(void *user, const char *kernel, uint64_t index) {
  struct calls *c = (struct calls *)user;
  if (c->count < 8) {
    strncpy(c->names[c->count], kernel, sizeof c->names[0] - 1);
    c->indices[c->count] = index;
  }
  ++c->count;
  return (int)(index % 2);
}

/* Launches fill, bump, fill, bump and writes which were counted ('0'/'1') to `pattern`;
 * `bumpCounters` gets the warp instructions and atomics of each bump launch. */
static void launchAll(const kern_options *options, char pattern[5], uint64_t bumpCounters[2][2]) {
  kern_engine *engine = NULL;
  kern_program *program = NULL;
  kern_buffer *buf = NULL;
  kern_launch_stats stats;
  kern_dim3 one = {1, 1, 1}, block = {64, 1, 1};
  kern_arg args[2];
  int i;
  memset(pattern, '?', 4);
  pattern[4] = 0;
  if (kern_engine_create(options, &engine) != KERN_OK) {
    CHECK(!"kern_engine_create failed");
    return;
  }
  CHECK(kern_compile(engine, source, "c_modes.kern", &program) == KERN_OK);
  CHECK(kern_buffer_create(program, 256, &buf) == KERN_OK);
  args[0] = kern_arg_buffer(buf);
  args[1] = kern_arg_int(3);
  for (i = 0; i < 4; ++i) {
    const char *kernel = i % 2 ? "bump" : "fill";
    CHECK(kern_launch(program, kernel, one, block, args, i % 2 ? 1 : 2, 0) == KERN_OK);
    CHECK(kern_last_launch_stats(program, &stats) == KERN_OK);
    pattern[i] = stats.counted ? '1' : '0';
    if (!stats.counted)
      CHECK(stats.warp_instructions == 0 && stats.atomics == 0);
    if (i % 2 && bumpCounters) {
      bumpCounters[i / 2][0] = stats.warp_instructions;
      bumpCounters[i / 2][1] = stats.atomics;
    }
  }
  CHECK(strstr(kern_report_json(program), "\"profiled\":") != NULL);
  kern_buffer_destroy(buf);
  kern_program_destroy(program);
  kern_engine_destroy(engine);
}

int main(void) {
  kern_options options;
  kern_engine *engine = NULL;
  struct calls calls;
  char pattern[5];
  char name[16];
  uint64_t all[2][2] = {{0, 0}, {0, 0}}, some[2][2] = {{0, 0}, {0, 0}};

  kern_options_init(&options);
  CHECK(options.mode == KERN_MODE_FAST && options.kernel_name == NULL && options.launch_skip == 0 &&
        options.launch_count == 0 && options.profile_from_start == 1 &&
        options.launch_filter == NULL && options.launch_filter_user == NULL);
  options.err = quiet;
  options.workers = 2;

  /* Fast by default; profile mode counts every launch. */
  launchAll(&options, pattern, NULL);
  CHECK(strcmp(pattern, "0000") == 0);
  options.mode = KERN_MODE_PROFILE;
  launchAll(&options, pattern, all);
  CHECK(strcmp(pattern, "1111") == 0);
  CHECK(all[0][1] > 0 && all[1][0] > 0);
  options.mode = KERN_MODE_FAST;

  /* A kernel name (copied: the caller's buffer may change after kern_engine_create). */
  strcpy(name, "bump");
  options.kernel_name = name;
  launchAll(&options, pattern, some);
  CHECK(strcmp(pattern, "0101") == 0);
  CHECK(memcmp(all, some, sizeof all) == 0); /* the same counters as in an all-profiled run */
  options.kernel_name = "regex:^f";
  launchAll(&options, pattern, NULL);
  CHECK(strcmp(pattern, "1010") == 0);

  /* Skip and count. */
  options.kernel_name = NULL;
  options.launch_skip = 1;
  options.launch_count = 2;
  launchAll(&options, pattern, NULL);
  CHECK(strcmp(pattern, "0110") == 0);
  options.launch_skip = 0;
  options.launch_count = 0;

  /* The callback, with its user pointer. */
  memset(&calls, 0, sizeof calls);
  options.launch_filter = oddLaunches;
  options.launch_filter_user = &calls;
  launchAll(&options, pattern, NULL);
  CHECK(strcmp(pattern, "0101") == 0);
  CHECK(calls.count == 4 && strcmp(calls.names[0], "fill") == 0 &&
        strcmp(calls.names[3], "bump") == 0 && calls.indices[3] == 3);
  memset(&calls, 0, sizeof calls);
  options.kernel_name = "fill";
  launchAll(&options, pattern, NULL);
  CHECK(strcmp(pattern, "0000") == 0 && calls.count == 2); /* fill runs at 0 and 2: even */
  options.kernel_name = NULL;
  options.launch_filter = NULL;

  /* The profiler's range from the host: kern_profiler_start / kern_profiler_stop. */
  {
    kern_program *program = NULL;
    kern_buffer *buf = NULL;
    kern_launch_stats stats;
    kern_dim3 one = {1, 1, 1}, block = {32, 1, 1};
    kern_arg args[2];
    char got[4] = {0, 0, 0, 0};
    options.profile_from_start = 0;
    CHECK(kern_engine_create(&options, &engine) == KERN_OK);
    CHECK(kern_compile(engine, source, "range.kern", &program) == KERN_OK);
    CHECK(kern_buffer_create(program, 256, &buf) == KERN_OK);
    args[0] = kern_arg_buffer(buf);
    args[1] = kern_arg_int(1);
    CHECK(kern_launch(program, "fill", one, block, args, 2, 0) == KERN_OK);
    CHECK(kern_last_launch_stats(program, &stats) == KERN_OK);
    got[0] = stats.counted ? '1' : '0';
    CHECK(kern_profiler_start(program) == KERN_OK);
    CHECK(kern_launch(program, "fill", one, block, args, 2, 0) == KERN_OK);
    CHECK(kern_last_launch_stats(program, &stats) == KERN_OK);
    got[1] = stats.counted ? '1' : '0';
    CHECK(kern_profiler_stop(program) == KERN_OK);
    CHECK(kern_launch(program, "fill", one, block, args, 2, 0) == KERN_OK);
    CHECK(kern_last_launch_stats(program, &stats) == KERN_OK);
    got[2] = stats.counted ? '1' : '0';
    CHECK(strcmp(got, "010") == 0);
    CHECK(kern_profiler_start(NULL) == KERN_USAGE_ERROR);
    kern_buffer_destroy(buf);
    kern_program_destroy(program);
    kern_engine_destroy(engine);
    engine = NULL;
    options.profile_from_start = 1;
  }

  /* Usage errors: a bad mode, a bad pattern. */
  options.mode = (kern_mode)7;
  CHECK(kern_engine_create(&options, &engine) == KERN_USAGE_ERROR && engine == NULL);
  options.mode = KERN_MODE_PROFILE;
  options.kernel_name = "regex:(";
  CHECK(kern_engine_create(&options, &engine) == KERN_USAGE_ERROR && engine == NULL);
  options.kernel_name = NULL;
  options.mode = KERN_MODE_CHECKED;
  CHECK(kern_engine_create(&options, &engine) == KERN_OK && engine != NULL);
  kern_engine_destroy(engine);

  if (failures)
    fprintf(stderr, "%d check(s) failed\n", failures);
  else
    printf("c_modes_test: all checks passed\n");
  return failures ? 1 : 0;
}
