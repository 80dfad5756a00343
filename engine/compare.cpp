// compareDevices: one program compiled and run once per device, its output captured, and the
// runs' counters set side by side (runtime/compare.h).
#include "engine/engine_impl.h"

namespace kern {

namespace {

/// Why `options` cannot be compared across devices, or "".
std::string comparisonClash(const Options &o) {
  if (o.sandbox.enabled)
    return "a sandboxed run takes one device";
  if (!o.deviceFile.empty())
    return "a device file names one device; compare built-in devices";
  if (!o.reportPath.empty())
    return "a JSON report describes one device's run";
  if (!o.htmlPath.empty())
    return "an HTML report describes one device's run";
  if (!o.tracePath.empty())
    return "a trace describes one device's run";
  if (!o.countersTextPath.empty())
    return "a counter text describes one device's run";
  if (!o.metrics.empty() || o.csv)
    return "a metrics listing describes one device's run";
  if (o.annotate)
    return "an annotated source describes one device's run";
  if (o.explainLine != 0)
    return "the lane maps of kern explain describe one device's run";
  return "";
}

/// How a run ended, in the table's words.
std::string outcomeOf(const RunResult &r) {
  switch (r.status) {
  case Status::Ok:
    return "exit " + std::to_string(r.exitCode);
  case Status::CompileError:
    return "compile error";
  case Status::RuntimeError:
    return r.faulted ? "fault (exit " + std::to_string(r.exitCode) + ")" : "runtime error";
  case Status::UsageError:
    return "usage error";
  case Status::Interrupted:
    return "interrupted";
  default:
    return "failed";
  }
}

} // namespace

Comparison compareDevices(const Options &options, const std::vector<std::string> &paths,
                          const std::vector<std::string> &devices,
                          const std::vector<std::string> &args) {
  Comparison out;
  std::string error = comparisonClash(options);
  if (error.empty() && devices.empty())
    error = "name at least one device";
  for (const std::string &d : devices) {
    if (!error.empty())
      break;
    Options one;
    one.device = d;
    checkDevice(one, error);
  }
  if (!error.empty()) {
    out.status = Status::UsageError;
    out.diagnostics = error;
    return out;
  }

  std::vector<runtime::DeviceColumn> columns;
  for (const std::string &device : devices) {
    DeviceRun run;
    run.device = device;
    Options o = options;
    o.device = device;
    o.counters = true;
    o.stats = false;
    o.timeKernels = false;
    o.out = [&run](std::string_view text) { run.output.append(text); };
    o.err = [&run](std::string_view text) { run.errors.append(text); };
    o.diagnostics = nullptr;
    Engine engine(o);
    std::unique_ptr<Program> program = engine.compileFiles(paths);
    run.diagnostics = program->diagnostics();
    runtime::DeviceColumn column;
    column.device = device;
    if (!program->ok()) {
      run.result.status = Status::CompileError;
      run.result.exitCode = 1;
    } else {
      program->impl_->quietSummary = true;
      run.result = program->run(args);
      if (program->impl_->digest) {
        column.ran = true;
        column.digest = *program->impl_->digest;
      }
    }
    column.outcome = outcomeOf(run.result);
    columns.push_back(std::move(column));
    out.runs.push_back(std::move(run));
  }
  const std::string name = paths.empty() ? std::string("the program") : paths.front();
  out.table = runtime::comparisonTable(name, columns);
  return out;
}

} // namespace kern
