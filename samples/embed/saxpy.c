/* A C host application that embeds kern through the C API: compiles a kernel from a string,
 * runs it on its own data and prints what the virtual GPU counted. */
#include <kern/kern.h>

#include <stdio.h>

static const char *source = "__global__ void saxpy(float *y, const float *x, float a, int n) {\n"
                            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                            "  if (i < n)\n"
                            "    y[i] = a * x[i] + y[i];\n"
                            "}\n";

int main(void) {
  enum { N = 1000 };
  static float x[N], y[N];
  kern_options options;
  kern_engine *engine = NULL;
  kern_program *program = NULL;
  kern_buffer *dx = NULL, *dy = NULL;
  kern_launch_stats stats;
  int i, status = 1;

  kern_options_init(&options);
  options.counters = 1;
  if (kern_engine_create(&options, &engine) != KERN_OK)
    return 2;
  if (kern_compile(engine, source, "saxpy.kern", &program) != KERN_OK) {
    fprintf(stderr, "%s\n", kern_last_error(engine));
    kern_engine_destroy(engine);
    return 1;
  }
  for (i = 0; i < N; ++i) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
  if (kern_buffer_create(program, sizeof x, &dx) == KERN_OK &&
      kern_buffer_create(program, sizeof y, &dy) == KERN_OK &&
      kern_buffer_write(dx, 0, x, sizeof x) == KERN_OK &&
      kern_buffer_write(dy, 0, y, sizeof y) == KERN_OK) {
    kern_arg args[4];
    kern_dim3 grid = {(N + 255) / 256, 1, 1}, block = {256, 1, 1};
    args[0] = kern_arg_buffer(dy);
    args[1] = kern_arg_buffer(dx);
    args[2] = kern_arg_float(2.0f);
    args[3] = kern_arg_int(N);
    if (kern_launch(program, "saxpy", grid, block, args, 4, 0) == KERN_OK &&
        kern_buffer_read(dy, 0, y, sizeof y) == KERN_OK &&
        kern_last_launch_stats(program, &stats) == KERN_OK) {
      printf("y[0] = %g, y[999] = %g\n", y[0], y[999]);
      printf("saxpy: %llu warp instructions, %llu global load requests in %llu transactions, "
             "occupancy %.0f%%\n",
             (unsigned long long)stats.warp_instructions,
             (unsigned long long)stats.global_load_requests,
             (unsigned long long)stats.global_load_transactions, stats.occupancy * 100);
      status = y[999] == 2.0f * 999 + 1 ? 0 : 1;
    } else {
      fprintf(stderr, "%s\n", kern_last_error(engine));
      status = 3;
    }
  }
  kern_buffer_destroy(dx);
  kern_buffer_destroy(dy);
  kern_program_destroy(program);
  kern_engine_destroy(engine);
  return status;
}
