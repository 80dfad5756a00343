// The C API (include/kern/kern.h): opaque handles over kern::Engine, kern::Program and
// kern::Buffer. Each call turns a kern::Result into a status and keeps its message for
// kern_last_error.
#include "kern/kern.h"
#include "kern/kern.hpp"

#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

struct kern_engine {
  kern_options copts;
  std::unique_ptr<kern::Engine> engine;
  std::string lastError;
};

struct kern_program {
  kern_engine *engine = nullptr;
  std::unique_ptr<kern::Program> program;
  std::vector<kern::KernelSignature> kernels; // stable storage for returned strings
  std::string json;
  bool hasLaunch = false;
  kern_launch_stats last{};
};

struct kern_buffer {
  kern_program *program = nullptr;
  kern::Buffer buffer;
};

namespace {

kern_status fail(kern_engine *e, kern_status s, std::string message) {
  if (e) {
    while (!message.empty() && message.back() == '\n')
      message.pop_back();
    e->lastError = std::move(message);
  }
  return s;
}

kern_status take(kern_engine *e, const kern::Result &r) {
  if (r.ok()) {
    if (e)
      e->lastError.clear();
    return KERN_OK;
  }
  return fail(e, static_cast<kern_status>(r.status), r.diagnostics);
}

std::function<void(std::string_view)> sink(kern_write_fn fn, void *user) {
  if (!fn)
    return {};
  return [fn, user](std::string_view s) { fn(user, s.data(), s.size()); };
}

const kern::KernelSignature *findKernel(kern_program *p, const char *name) {
  if (!p || !name)
    return nullptr;
  for (const kern::KernelSignature &k : p->kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

} // namespace

extern "C" {

void kern_options_init(kern_options *o) {
  if (!o)
    return;
  *o = kern_options{};
  o->size = sizeof(kern_options);
  o->opt_level = 2;
  o->mode = KERN_MODE_FAST;
  o->profile_from_start = 1;
}

kern_status kern_engine_create(const kern_options *options, kern_engine **engine) {
  if (!engine)
    return KERN_USAGE_ERROR;
  *engine = nullptr;
  auto *e = new (std::nothrow) kern_engine();
  if (!e)
    return KERN_RUNTIME_ERROR;
  kern_options_init(&e->copts);
  if (options) {
    if (options->size == 0 || options->size > sizeof(kern_options)) {
      delete e; // not from kern_options_init: its fields cannot be told apart
      return KERN_USAGE_ERROR;
    }
    std::memcpy(&e->copts, options, options->size); // the rest keeps its defaults
    e->copts.size = sizeof(kern_options);
  }
  kern::Options o;
  o.workers = e->copts.workers;
  o.counters = e->copts.counters != 0;
  o.device = e->copts.device ? e->copts.device : "";
  o.optLevel = e->copts.opt_level;
  o.fmad = e->copts.no_fmad == 0;
  o.allowFiles = e->copts.allow_files != 0;
  o.timeoutSeconds = e->copts.timeout_seconds;
  o.out = sink(e->copts.out, e->copts.user);
  o.err = sink(e->copts.err, e->copts.user);
  o.diagnostics = sink(e->copts.diagnostics, e->copts.user);
  // A C caller may store any int in the enum; read as a kern_mode, one out of its range is
  // undefined in C++, so its bits are read as the underlying integer.
  std::underlying_type_t<kern_mode> mode;
  std::memcpy(&mode, &e->copts.mode, sizeof mode);
  switch (mode) {
  case KERN_MODE_FAST:
    o.mode = kern::Mode::Fast;
    break;
  case KERN_MODE_PROFILE:
    o.mode = kern::Mode::Profile;
    break;
  case KERN_MODE_CHECKED:
    o.mode = kern::Mode::Checked;
    break;
  default:
    delete e;
    return KERN_USAGE_ERROR;
  }
  o.kernelName = e->copts.kernel_name ? e->copts.kernel_name : "";
  e->copts.kernel_name = nullptr; // copied: the caller's string need not outlive the call
  o.launchSkip = e->copts.launch_skip;
  o.launchCount = e->copts.launch_count;
  o.profileFromStart = e->copts.profile_from_start != 0;
  if (kern_launch_filter_fn fn = e->copts.launch_filter) {
    void *user = e->copts.launch_filter_user;
    o.launchFilter = [fn, user](std::string_view kernel, uint64_t index) {
      const std::string name(kernel); // NUL-terminated for C
      return fn(user, name.c_str(), index) != 0;
    };
  }
  // -I and -D: copied, so the caller's arrays need not outlive the call.
  auto copyStrings = [](const char *const *items, size_t count, std::vector<std::string> &to) {
    if (count > 0 && !items)
      return false;
    for (size_t i = 0; i < count; ++i) {
      if (!items[i])
        return false;
      to.emplace_back(items[i]);
    }
    return true;
  };
  if (!copyStrings(e->copts.include_paths, e->copts.include_path_count, o.includePaths) ||
      !copyStrings(e->copts.defines, e->copts.define_count, o.defines) ||
      !copyStrings(e->copts.sandbox_allow_read, e->copts.sandbox_allow_read_count,
                   o.sandbox.allowRead)) {
    delete e;
    return KERN_USAGE_ERROR;
  }
  auto text = [](const char *&s) { // copied: the caller's string need not outlive the call
    std::string t = s ? s : "";
    s = nullptr;
    return t;
  };
  o.stats = e->copts.stats != 0;
  o.reportPath = text(e->copts.report_path);
  o.tracePath = text(e->copts.trace_path);
  o.countersTextPath = text(e->copts.counters_text_path);
  o.htmlPath = text(e->copts.html_path);
  o.explainLine = e->copts.explain_line;
  o.annotate = e->copts.annotate != 0;
  o.deviceFile = text(e->copts.device_file);
  o.registersPerThread = e->copts.registers_per_thread;
  o.sandbox.enabled = e->copts.sandbox != 0;
  o.sandbox.outputDir = e->copts.sandbox_output_dir ? e->copts.sandbox_output_dir : "";
  o.sandbox.memoryLimitBytes = e->copts.sandbox_memory_limit;
  o.sandbox.cpuSeconds = e->copts.sandbox_cpu_seconds;
  e->copts.sandbox_allow_read = nullptr;
  e->copts.sandbox_allow_read_count = 0;
  e->copts.sandbox_output_dir = nullptr;
  e->copts.include_paths = nullptr;
  e->copts.include_path_count = 0;
  e->copts.defines = nullptr;
  e->copts.define_count = 0;
  std::string error;
  if (!kern::checkDevice(o, error) || !kern::checkLaunchFilter(o, error) ||
      (o.sandbox.enabled && !kern::sandboxAvailable(error))) {
    delete e;
    return KERN_USAGE_ERROR;
  }
  e->engine = std::make_unique<kern::Engine>(std::move(o));
  *engine = e;
  return KERN_OK;
}

void kern_engine_destroy(kern_engine *engine) { delete engine; }

const char *kern_last_error(const kern_engine *engine) {
  return engine ? engine->lastError.c_str() : "no engine";
}

kern_status kern_compile(kern_engine *engine, const char *source, const char *name,
                         kern_program **program) {
  if (!engine || !source || !program)
    return fail(engine, KERN_USAGE_ERROR, "kern_compile: null argument");
  *program = nullptr;
  auto p = std::make_unique<kern_program>();
  p->engine = engine;
  p->program = engine->engine->compile(source, name ? name : "<input>");
  if (!p->program->ok())
    return fail(engine, KERN_COMPILE_ERROR, p->program->diagnostics());
  p->kernels = p->program->kernels();
  engine->lastError.clear();
  *program = p.release();
  return KERN_OK;
}

kern_status kern_compile_files(kern_engine *engine, const char *const *paths, size_t count,
                               kern_program **program) {
  if (!engine || !program || (!paths && count > 0))
    return fail(engine, KERN_USAGE_ERROR, "kern_compile_files: null argument");
  *program = nullptr;
  if (count == 0)
    return fail(engine, KERN_USAGE_ERROR, "kern_compile_files: no files");
  std::vector<std::string> files;
  for (size_t i = 0; i < count; ++i) {
    if (!paths[i])
      return fail(engine, KERN_USAGE_ERROR, "kern_compile_files: null file name");
    files.emplace_back(paths[i]);
  }
  auto p = std::make_unique<kern_program>();
  p->engine = engine;
  p->program = engine->engine->compileFiles(files);
  if (!p->program->ok())
    return fail(engine, KERN_COMPILE_ERROR, p->program->diagnostics());
  p->kernels = p->program->kernels();
  engine->lastError.clear();
  *program = p.release();
  return KERN_OK;
}

kern_status kern_compile_file(kern_engine *engine, const char *path, kern_program **program) {
  if (!path)
    return fail(engine, KERN_USAGE_ERROR, "kern_compile_file: null file name");
  const char *paths[] = {path};
  return kern_compile_files(engine, paths, 1, program);
}

void kern_program_destroy(kern_program *program) { delete program; }

const char *kern_program_annotated(const kern_program *program) {
  return program ? program->program->annotatedSource().c_str() : "";
}

const char *kern_program_explanation(const kern_program *program) {
  return program ? program->program->explanation().c_str() : "";
}

void kern_interrupt(kern_engine *engine) {
  if (engine && engine->engine)
    engine->engine->interrupt();
}

kern_status kern_program_run(kern_program *program, int argc, const char *const *args,
                             int *exit_code) {
  if (!program)
    return KERN_USAGE_ERROR;
  std::vector<std::string> a;
  for (int i = 1; i < argc && args; ++i)
    a.push_back(args[i] ? args[i] : "");
  kern::RunResult r = program->program->run(a);
  if (exit_code)
    *exit_code = r.exitCode;
  if (r.status != kern::Status::Ok)
    return fail(program->engine, static_cast<kern_status>(r.status),
                "the program failed (exit code " + std::to_string(r.exitCode) + ")");
  return KERN_OK;
}

int kern_sandbox_available(void) {
  std::string why;
  return kern::sandboxAvailable(why) ? 1 : 0;
}

size_t kern_kernel_count(const kern_program *program) {
  return program ? program->kernels.size() : 0;
}

const char *kern_kernel_name(const kern_program *program, size_t index) {
  return program && index < program->kernels.size() ? program->kernels[index].name.c_str()
                                                    : nullptr;
}

kern_status kern_kernel_param_count(kern_program *program, const char *kernel, size_t *count) {
  const kern::KernelSignature *k = findKernel(program, kernel);
  if (!k || !count)
    return fail(program ? program->engine : nullptr, KERN_USAGE_ERROR,
                std::string("no kernel '") + (kernel ? kernel : "(null)") + "'");
  *count = k->params.size();
  return KERN_OK;
}

kern_status kern_kernel_param(kern_program *program, const char *kernel, size_t index,
                              kern_param_info *info) {
  const kern::KernelSignature *k = findKernel(program, kernel);
  if (!k || !info || index >= k->params.size())
    return fail(program ? program->engine : nullptr, KERN_USAGE_ERROR,
                std::string("no parameter ") + std::to_string(index) + " of kernel '" +
                    (kernel ? kernel : "(null)") + "'");
  const kern::ParamInfo &p = k->params[index];
  info->name = p.name.c_str();
  info->type = p.type.c_str();
  info->kind = static_cast<kern_param_kind>(p.kind);
  info->size = p.size;
  info->is_signed = p.isSigned;
  return KERN_OK;
}

kern_status kern_buffer_create(kern_program *program, uint64_t size, kern_buffer **buffer) {
  if (!program || !buffer)
    return fail(program ? program->engine : nullptr, KERN_USAGE_ERROR,
                "kern_buffer_create: null argument");
  *buffer = nullptr;
  kern::BufferResult r = program->program->allocate(size);
  if (!r.ok())
    return take(program->engine, r);
  auto *b = new (std::nothrow) kern_buffer();
  if (!b)
    return fail(program->engine, KERN_RUNTIME_ERROR, "out of host memory");
  b->program = program;
  b->buffer = r.buffer;
  *buffer = b;
  return KERN_OK;
}

void kern_buffer_destroy(kern_buffer *buffer) {
  if (!buffer)
    return;
  buffer->program->program->release(buffer->buffer);
  delete buffer;
}

uint64_t kern_buffer_size(const kern_buffer *buffer) { return buffer ? buffer->buffer.size() : 0; }

kern_status kern_buffer_write(kern_buffer *buffer, uint64_t offset, const void *data,
                              uint64_t size) {
  if (!buffer)
    return KERN_USAGE_ERROR;
  return take(buffer->program->engine,
              buffer->program->program->write(buffer->buffer, data, size, offset));
}

kern_status kern_buffer_read(kern_buffer *buffer, uint64_t offset, void *data, uint64_t size) {
  if (!buffer)
    return KERN_USAGE_ERROR;
  return take(buffer->program->engine,
              buffer->program->program->read(buffer->buffer, data, size, offset));
}

kern_arg kern_arg_buffer(kern_buffer *buffer) {
  kern_arg a{};
  a.kind = buffer ? KERN_ARG_BUFFER : KERN_ARG_NULL;
  a.buffer = buffer;
  return a;
}
kern_arg kern_arg_null(void) {
  kern_arg a{};
  a.kind = KERN_ARG_NULL;
  return a;
}
kern_arg kern_arg_int(int64_t value) {
  kern_arg a{};
  a.kind = KERN_ARG_INT;
  a.i = value;
  return a;
}
kern_arg kern_arg_uint(uint64_t value) {
  kern_arg a{};
  a.kind = KERN_ARG_UINT;
  a.u = value;
  return a;
}
kern_arg kern_arg_float(float value) {
  kern_arg a{};
  a.kind = KERN_ARG_FLOAT;
  a.d = value;
  return a;
}
kern_arg kern_arg_double(double value) {
  kern_arg a{};
  a.kind = KERN_ARG_DOUBLE;
  a.d = value;
  return a;
}
kern_arg kern_arg_bytes(const void *data, size_t size) {
  kern_arg a{};
  a.kind = KERN_ARG_BYTES;
  a.bytes = data;
  a.size = size;
  return a;
}

kern_status kern_launch(kern_program *program, const char *kernel, kern_dim3 grid, kern_dim3 block,
                        const kern_arg *args, size_t arg_count, uint64_t dynamic_shared_bytes) {
  if (!program || !kernel || (arg_count && !args))
    return fail(program ? program->engine : nullptr, KERN_USAGE_ERROR,
                "kern_launch: null argument");
  std::vector<kern::Arg> a;
  for (size_t i = 0; i < arg_count; ++i) {
    const kern_arg &x = args[i];
    switch (x.kind) {
    case KERN_ARG_BUFFER:
      if (!x.buffer || x.buffer->program != program)
        return fail(program->engine, KERN_USAGE_ERROR,
                    "kern_launch: argument " + std::to_string(i + 1) +
                        " is a buffer of another program");
      a.emplace_back(x.buffer->buffer);
      break;
    case KERN_ARG_NULL:
      a.push_back(kern::Arg::null());
      break;
    case KERN_ARG_INT:
      a.emplace_back(static_cast<int64_t>(x.i));
      break;
    case KERN_ARG_UINT:
      a.emplace_back(static_cast<uint64_t>(x.u));
      break;
    case KERN_ARG_FLOAT:
      a.emplace_back(static_cast<float>(x.d));
      break;
    case KERN_ARG_DOUBLE:
      a.emplace_back(x.d);
      break;
    case KERN_ARG_BYTES:
      a.push_back(kern::Arg::bytes(x.bytes, x.size));
      break;
    default:
      return fail(program->engine, KERN_USAGE_ERROR,
                  "kern_launch: argument " + std::to_string(i + 1) + " has no valid kind");
    }
  }
  kern::LaunchResult r =
      program->program->launch(kernel, kern::Dim3(grid.x, grid.y, grid.z),
                               kern::Dim3(block.x, block.y, block.z), a, dynamic_shared_bytes);
  if (r.status != kern::Status::UsageError) {
    const kern::LaunchStats &s = r.stats;
    kern_launch_stats &c = program->last;
    c = kern_launch_stats{};
    c.error_code = s.errorCode;
    c.faulted = s.faulted;
    c.counted = s.counted;
    c.occupancy = s.occupancy;
    c.warp_instructions = s.counters.warpInstructions;
    c.thread_instructions = s.counters.threadInstructions;
    c.branches = s.counters.branches;
    c.divergent_branches = s.counters.divergentBranches;
    c.global_load_requests = s.counters.globalLoadRequests;
    c.global_load_transactions = s.counters.globalLoadTransactions;
    c.global_store_requests = s.counters.globalStoreRequests;
    c.global_store_transactions = s.counters.globalStoreTransactions;
    c.shared_requests = s.counters.sharedRequests;
    c.shared_bank_conflicts = s.counters.sharedBankConflicts;
    c.atomics = s.counters.atomics;
    c.barriers = s.counters.barriers;
    c.warp_execution_efficiency = s.counters.warpExecutionEfficiency;
    c.branch_efficiency = s.counters.branchEfficiency;
    program->hasLaunch = true;
  }
  return take(program->engine, r);
}

void kern_program_reset_device(kern_program *program) {
  if (program)
    program->program->resetDevice();
}

kern_status kern_profiler_start(kern_program *program) {
  if (!program)
    return KERN_USAGE_ERROR;
  return take(program->engine, program->program->profilerStart());
}

kern_status kern_profiler_stop(kern_program *program) {
  if (!program)
    return KERN_USAGE_ERROR;
  return take(program->engine, program->program->profilerStop());
}

kern_status kern_last_launch_stats(kern_program *program, kern_launch_stats *stats) {
  if (!program || !stats || !program->hasLaunch)
    return fail(program ? program->engine : nullptr, KERN_USAGE_ERROR, "no launch yet");
  *stats = program->last;
  return KERN_OK;
}

const char *kern_report_json(kern_program *program) {
  if (!program)
    return "";
  program->json = program->program->reportJson();
  return program->json.c_str();
}

} // extern "C"
