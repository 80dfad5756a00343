/* kern's C API: compile .kern source, allocate device buffers, launch kernels, read counters.
 *
 * Everything hangs off a kern_engine; there is no global state. Every fallible call returns a
 * kern_status; kern_last_error(engine) then says what went wrong. Strings returned by the API
 * belong to it and stay valid until the next call on the same engine (or its program). No C++
 * exception or longjmp crosses this header. */
#ifndef KERN_H
#define KERN_H

#include "kern/version.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Result codes; the same numbers as kern::Status and the `kern` command's exit codes. */
typedef enum kern_status {
  KERN_OK = 0,
  KERN_COMPILE_ERROR = 1, /* the program has errors: kern_last_error has the diagnostics */
  KERN_USAGE_ERROR = 2,   /* the API was used wrongly (bad argument, unknown kernel...) */
  KERN_RUNTIME_ERROR = 3, /* a failed launch, a kernel fault, a failed copy */
  /* A sandboxed run (kern_options.sandbox) that the sandbox stopped (docs/sandbox.md): */
  KERN_SANDBOX_VIOLATION = 4, /* a forbidden system call, or its process crashed */
  KERN_MEMORY_LIMIT = 5,      /* over sandbox_memory_limit */
  KERN_TIME_LIMIT = 6,        /* over sandbox_cpu_seconds (or timeout_seconds) */
  KERN_INTERRUPTED = 130      /* stopped by kern_interrupt (the CLI: Ctrl-C) */
} kern_status;

typedef struct kern_engine kern_engine;   /* options and the last error */
typedef struct kern_program kern_program; /* a compiled program and its virtual device */
typedef struct kern_buffer kern_buffer;   /* device memory of one program */

/* A text sink: printf output of kernels, runtime messages, diagnostics. `text` is not
 * NUL-terminated; `user` is kern_options.user. */
typedef void (*kern_write_fn)(void *user, const char *text, size_t size);

/* How a run treats its kernels (kern::Mode). */
typedef enum kern_mode {
  KERN_MODE_FAST = 0,    /* nothing counted or checked (the default) */
  KERN_MODE_PROFILE = 1, /* count what a GPU would suffer; the same as counters = 1 */
  KERN_MODE_CHECKED = 2  /* report shared-memory races and reads of never-written memory */
} kern_mode;

/* Decides whether a launch is profiled (kern::Options::launchFilter): called with the
 * kernel's name (NUL-terminated, valid during the call) and the launch's index; nonzero:
 * profile it. `user` is kern_options.launch_filter_user. */
typedef int (*kern_launch_filter_fn)(void *user, const char *kernel, uint64_t launch_index);

typedef struct kern_options {
  /* sizeof(kern_options) as the caller was compiled: kern_options_init sets it. Fields past
   * `size` (a program built against an older kern.h) keep their defaults; 0 or a size larger
   * than this library knows is KERN_USAGE_ERROR. */
  size_t size;
  unsigned workers;          /* worker threads; 0: one per hardware thread (default 0) */
  int counters;              /* nonzero: count what a GPU would suffer (default 0) */
  const char *device;        /* built-in profile name; NULL or "": h100 (default NULL) */
  int opt_level;             /* JIT optimisation 0-3 (default 2) */
  double timeout_seconds;    /* stop a kernel that runs longer; 0: no limit (default 0) */
  kern_write_fn out;         /* kernels' printf output; NULL: the process's stdout (default NULL) */
  kern_write_fn err;         /* runtime messages; NULL: the process's stderr (default NULL) */
  kern_write_fn diagnostics; /* compile diagnostics as they happen; NULL: none (default NULL) */
  void *user;                /* passed to out, err and diagnostics (default NULL) */
  kern_mode mode;            /* the run-wide mode (default KERN_MODE_FAST) */
  /* Which launches are profiled when the run counts (kern::Options, "which launches are
   * profiled"); setting any of these turns counting on. A launch that is not profiled runs
   * the fast kernel and counts nothing (kern_launch_stats.counted is 0). */
  const char *kernel_name; /* only this kernel (exact), or "regex:PATTERN"; NULL or "": all
                              (default NULL; copied by kern_engine_create) */
  uint64_t launch_skip;    /* let this many matching launches go unprofiled first (default 0) */
  uint64_t launch_count;   /* profile at most this many; 0: no limit (default 0) */
  int profile_from_start;  /* 0: nothing is profiled until cudaProfilerStart() (default 1) */
  kern_launch_filter_fn launch_filter; /* NULL: every launch passes (default NULL) */
  void *launch_filter_user;            /* passed to launch_filter (default NULL) */
  int no_fmad; /* nonzero: device code rounds a multiply and an add separately, as nvcc's
                  --fmad=false; 0: they may fuse into one fma, as nvcc does (default 0) */
  /* A compiler's -I (kern::Options::includePaths): include_path_count directories searched, in
   * order, for `#include "x"` after the including file's own and for `#include <x>` that is
   * not one of kern's headers (default NULL, 0; the strings are copied by kern_engine_create). */
  const char *const *include_paths;
  size_t include_path_count;
  /* A compiler's -D (kern::Options::defines): define_count macros defined before the first
   * line of every program, each "NAME" (defined as 1) or "NAME=VALUE" (default NULL, 0;
   * copied by kern_engine_create). */
  const char *const *defines;
  size_t define_count;
  int allow_files; /* nonzero: host code may open and remove files, read stdin and getenv, as
                      a native program would (kern::Options::allowFiles); 0: fopen fails with
                      EACCES (default 0) */
  /* The sandbox (kern::SandboxOptions, docs/sandbox.md): nonzero `sandbox` compiles and runs
   * each program in a child process confined by the kernel; a crash there, a forbidden system
   * call or a limit is reported (KERN_SANDBOX_VIOLATION, KERN_MEMORY_LIMIT, KERN_TIME_LIMIT)
   * and the calling process goes on. A sandboxed program offers kern_program_run only
   * (default 0). The strings are copied by kern_engine_create. */
  int sandbox;
  const char *const *sandbox_allow_read; /* directories it may read (default NULL, 0) */
  size_t sandbox_allow_read_count;
  const char *sandbox_output_dir; /* where it may write; NULL or "": nowhere (default NULL) */
  uint64_t sandbox_memory_limit;  /* address-space limit in bytes; 0: none (default 0) */
  double sandbox_cpu_seconds;     /* CPU-time limit; 0: none (default 0) */
  /* Reports of kern_program_run, as kern::Options (docs/report-schema.md); the strings are
   * copied by kern_engine_create. Each but trace_path turns counting on. */
  int stats;                      /* counter table per launch and a summary, on err (default 0) */
  const char *report_path;        /* the JSON report; "-": on err; NULL or "": none */
  const char *trace_path;         /* a Chrome trace-event file; NULL or "": none */
  const char *counters_text_path; /* every counter as stable text; "-": on err; NULL: none */
  int annotate;                   /* the annotated source (kern_program_annotated) (default 0) */
  const char *device_file;        /* a JSON device profile instead of `device`; NULL: none */
  int registers_per_thread;       /* for occupancy and launch checks; 0: kern's estimate */
  const char *html_path; /* the HTML report (kern::Options::htmlPath); "-": on err; NULL: none */
  unsigned explain_line; /* kern_program_explanation's line of the first file; 0: none */
} kern_options;

/* Nonzero if this kern can run sandboxed programs (built with seccomp, and the system lets a
 * process install a filter); 0 otherwise. */
int kern_sandbox_available(void);

/* Fills `options` with the defaults above. */
void kern_options_init(kern_options *options);

/* Creates an engine; `options` may be NULL for the defaults. On failure *engine is NULL:
 * KERN_USAGE_ERROR for an unknown device, a bad mode, an invalid "regex:" kernel_name, a
 * null string among include_paths, defines or sandbox_allow_read (or a null array with a
 * nonzero count), or a sandbox where none is available (kern_sandbox_available). */
kern_status kern_engine_create(const kern_options *options, kern_engine **engine);
/* Destroys an engine. Its programs must be destroyed first. NULL is ignored. */
void kern_engine_destroy(kern_engine *engine);
/* The message of the last failed call on `engine` or its programs ("" if none). */
const char *kern_last_error(const kern_engine *engine);
/* Stops the program that kern_program_run or kern_launch of this engine is running, within
 * milliseconds, wherever it is (a kernel, host code, a sleep): that call returns
 * KERN_INTERRUPTED after reporting where it stopped. If none is running, the next one stops at
 * its start; one call stops one run. Callable from any thread and from a signal handler (it
 * only sets a flag). NULL is ignored. */
void kern_interrupt(kern_engine *engine);

/* Compiles `source` (`name` is the file name in diagnostics; NULL: "<input>"). On a compile
 * error returns KERN_COMPILE_ERROR, sets *program to NULL and kern_last_error to the
 * diagnostics. */
kern_status kern_compile(kern_engine *engine, const char *source, const char *name,
                         kern_program **program);
/* Reads and compiles `count` source files as one program: each is its own translation unit, and
 * they are linked (static names stay in their file, extern declarations and prototypes find
 * their definition in another file, one main). Errors as kern_compile. */
kern_status kern_compile_files(kern_engine *engine, const char *const *paths, size_t count,
                               kern_program **program);
/* Reads and compiles one source file (its directory is searched for its includes first). A
 * file that cannot be read is KERN_COMPILE_ERROR, kern_last_error saying why. */
kern_status kern_compile_file(kern_engine *engine, const char *path, kern_program **program);
/* Destroys a program. Destroy its buffers first. NULL is ignored. */
void kern_program_destroy(kern_program *program);
/* Runs the program's main with argv[1..argc-1] = args; its exit code goes to *exit_code. */
kern_status kern_program_run(kern_program *program, int argc, const char *const *args,
                             int *exit_code);
/* The last run's annotated source (kern_options.annotate), "" if none; valid until the next
 * run of `program`. */
const char *kern_program_annotated(const kern_program *program);
/* The last run's lane maps of kern_options.explain_line, "" if none; valid until the next run
 * of `program`. */
const char *kern_program_explanation(const kern_program *program);

/* What kind of value a kernel parameter takes. */
typedef enum kern_param_kind {
  KERN_PARAM_POINTER = 0, /* pass kern_arg_buffer or kern_arg_null */
  KERN_PARAM_INT = 1,
  KERN_PARAM_FLOAT = 2,
  KERN_PARAM_STRUCT = 3 /* pass kern_arg_bytes of exactly `size` bytes */
} kern_param_kind;

typedef struct kern_param_info {
  const char *name; /* valid while the program lives */
  const char *type; /* C spelling, e.g. "const float *" */
  kern_param_kind kind;
  uint32_t size;
  int is_signed;
} kern_param_info;

/* Number of kernels; the name of kernel `index`; NULL when out of range. */
size_t kern_kernel_count(const kern_program *program);
const char *kern_kernel_name(const kern_program *program, size_t index);
/* Number of parameters of kernel `kernel` in *count. */
kern_status kern_kernel_param_count(kern_program *program, const char *kernel, size_t *count);
kern_status kern_kernel_param(kern_program *program, const char *kernel, size_t index,
                              kern_param_info *info);

/* Device buffers (zeroed when allocated); copies are bounds-checked. */
kern_status kern_buffer_create(kern_program *program, uint64_t size, kern_buffer **buffer);
void kern_buffer_destroy(kern_buffer *buffer);
uint64_t kern_buffer_size(const kern_buffer *buffer);
kern_status kern_buffer_write(kern_buffer *buffer, uint64_t offset, const void *data,
                              uint64_t size);
kern_status kern_buffer_read(kern_buffer *buffer, uint64_t offset, void *data, uint64_t size);

/* One kernel argument; build it with the kern_arg_* functions. */
typedef enum kern_arg_kind {
  KERN_ARG_BUFFER,
  KERN_ARG_NULL,
  KERN_ARG_INT,
  KERN_ARG_UINT,
  KERN_ARG_FLOAT,
  KERN_ARG_DOUBLE,
  KERN_ARG_BYTES
} kern_arg_kind;

typedef struct kern_arg {
  kern_arg_kind kind;
  kern_buffer *buffer;
  int64_t i;
  uint64_t u;
  double d;
  const void *bytes;
  size_t size;
} kern_arg;

kern_arg kern_arg_buffer(kern_buffer *buffer);
kern_arg kern_arg_null(void);
kern_arg kern_arg_int(int64_t value);
kern_arg kern_arg_uint(uint64_t value);
kern_arg kern_arg_float(float value);
kern_arg kern_arg_double(double value);
kern_arg kern_arg_bytes(const void *data, size_t size);

typedef struct kern_dim3 {
  uint32_t x, y, z;
} kern_dim3;

/* Launches `kernel` and waits for it. Arguments are checked against the kernel's signature
 * (KERN_USAGE_ERROR naming the parameter); a rejected launch or a fault is KERN_RUNTIME_ERROR.
 * After a fault the program's device is unusable until kern_program_reset_device. */
kern_status kern_launch(kern_program *program, const char *kernel, kern_dim3 grid, kern_dim3 block,
                        const kern_arg *args, size_t arg_count, uint64_t dynamic_shared_bytes);
/* Discards the program's device; its buffers become invalid (destroy them still). */
void kern_program_reset_device(kern_program *program);
/* cudaProfilerStart / cudaProfilerStop for the launches of kern_launch: with
 * profile_from_start 0, launches are profiled only after kern_profiler_start; kern_profiler_stop
 * pauses profiling until the next start. */
kern_status kern_profiler_start(kern_program *program);
kern_status kern_profiler_stop(kern_program *program);

/* The last launch's figures (see kern::LaunchStats and kern::Counters). */
typedef struct kern_launch_stats {
  int error_code;
  int faulted;
  int counted; /* the launch was profiled (0 in fast mode or when the filter left it out) */
  double occupancy;
  uint64_t warp_instructions;
  uint64_t thread_instructions;
  uint64_t branches;
  uint64_t divergent_branches;
  uint64_t global_load_requests;
  uint64_t global_load_transactions;
  uint64_t global_store_requests;
  uint64_t global_store_transactions;
  uint64_t shared_requests;
  uint64_t shared_bank_conflicts;
  uint64_t atomics;
  uint64_t barriers;
  double warp_execution_efficiency;
  double branch_efficiency;
} kern_launch_stats;

/* The figures of the last launch; KERN_USAGE_ERROR if there was none. */
kern_status kern_last_launch_stats(kern_program *program, kern_launch_stats *stats);
/* The JSON report of the program's launches (docs/report-schema.md); "" before any. */
const char *kern_report_json(kern_program *program);

#ifdef __cplusplus
}
#endif

#endif /* KERN_H */
