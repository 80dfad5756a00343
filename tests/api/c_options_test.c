/* The versioned kern_options (its `size`), the report options it shares with kern::Options
 * (stats, report_path, trace_path, counters_text_path, annotate, device_file,
 * registers_per_thread, html_path, explain_line) and kern_compile_file. Compiled as C. */
#include <kern/kern.h>

#include "check.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source = "#include <cstdio>\n"
                            "__global__ void twice(int *p) { p[threadIdx.x] *= 2; }\n"
                            "int main() {\n"
                            "  int h[32], *d;\n"
                            "  for (int i = 0; i < 32; ++i) h[i] = i;\n"
                            "  cudaMalloc(&d, sizeof h);\n"
                            "  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);\n"
                            "  twice<<<1, 32>>>(d);\n"
                            "  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n"
                            "  return h[31];\n"
                            "}\n";

static long fileSize(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return -1;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fclose(f);
  return n;
}

int main(void) {
  kern_options options;
  kern_engine *engine = NULL;
  kern_program *program = NULL;
  int code = 0;

  /* size: set by kern_options_init; 0 or too large is refused. */
  kern_options_init(&options);
  CHECK(options.size == sizeof(kern_options));
  options.size = 0;
  CHECK(kern_engine_create(&options, &engine) == KERN_USAGE_ERROR && engine == NULL);
  options.size = sizeof(kern_options) + 8;
  CHECK(kern_engine_create(&options, &engine) == KERN_USAGE_ERROR && engine == NULL);

  /* A caller built against an older, shorter kern_options: the fields past its size keep their
   * defaults, whatever the bytes after its struct hold. */
  kern_options_init(&options);
  options.stats = 1;
  options.size = offsetof(kern_options, stats);
  options.err = collect;
  CHECK(kern_engine_create(&options, &engine) == KERN_OK);
  CHECK(kern_compile(engine, source, "old.cu", &program) == KERN_OK);
  clearErrors();
  CHECK(kern_program_run(program, 0, NULL, &code) == KERN_OK && code == 62);
  CHECK(strstr(errors, "launch 0") == NULL); /* stats stayed off */
  kern_program_destroy(program);
  kern_engine_destroy(engine);

  /* The report options. */
  const char *report = "kern_c_options_report.json";
  const char *trace = "kern_c_options_trace.json";
  const char *counters = "kern_c_options_counters.txt";
  const char *html = "kern_c_options_report.html";
  remove(html);
  remove(report);
  remove(trace);
  remove(counters);
  kern_options_init(&options);
  options.err = collect;
  options.out = quiet;
  options.stats = 1;
  options.report_path = report;
  options.trace_path = trace;
  options.counters_text_path = counters;
  options.annotate = 1;
  options.html_path = html;
  options.explain_line = 2;
  options.registers_per_thread = 40;
  options.device = "fermi";
  CHECK(kern_engine_create(&options, &engine) == KERN_OK);
  clearErrors();
  CHECK(kern_compile(engine, source, "reports.cu", &program) == KERN_OK);
  CHECK(kern_program_run(program, 0, NULL, &code) == KERN_OK && code == 62);
  CHECK(strstr(errors, "launch 0: twice<<<1, 32>>>") != NULL);
  CHECK(fileSize(report) > 0);
  CHECK(fileSize(trace) > 0);
  CHECK(fileSize(counters) > 0);
  CHECK(strstr(kern_program_annotated(program), "p[threadIdx.x] *= 2") != NULL);
  CHECK(fileSize(html) > 0);
  /* Line 2's load and store of p[threadIdx.x], drawn lane by lane on fermi. */
  CHECK(strstr(kern_program_explanation(program), "reports.cu:2:") != NULL);
  CHECK(strstr(kern_program_explanation(program), "moved by") != NULL);
  CHECK(strstr(errors, "40/thread") != NULL); /* registers_per_thread, in the stats table */
  kern_program_destroy(program);
  kern_engine_destroy(engine);
  remove(report);
  remove(trace);
  remove(counters);
  remove(html);

  /* device_file: a JSON profile; a missing one is refused when the engine is made. */
  kern_options_init(&options);
  options.device_file = "/nonexistent/kern_device.json";
  CHECK(kern_engine_create(&options, &engine) == KERN_USAGE_ERROR && engine == NULL);

  /* kern_compile_file. */
  const char *path = "kern_c_options_file.cu";
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs(source, f);
    fclose(f);
  }
  kern_options_init(&options);
  options.err = quiet;
  CHECK(kern_engine_create(&options, &engine) == KERN_OK);
  CHECK(kern_compile_file(engine, path, &program) == KERN_OK);
  CHECK(kern_program_run(program, 0, NULL, &code) == KERN_OK && code == 62);
  kern_program_destroy(program);
  remove(path);
  CHECK(kern_compile_file(engine, path, &program) == KERN_COMPILE_ERROR && program == NULL);
  CHECK(strstr(kern_last_error(engine), path) != NULL);
  CHECK(kern_compile_file(engine, NULL, &program) == KERN_USAGE_ERROR);
  kern_engine_destroy(engine);

  if (failures == 0)
    printf("c_options: ok\n");
  return failures ? 1 : 0;
}
