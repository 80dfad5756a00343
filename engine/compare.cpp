// compareDevices: one program compiled and run once per device, its output captured, and the
// runs' counters set side by side (runtime/compare.h).
#include "engine/engine_impl.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

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
  std::vector<std::pair<std::string, std::string>> pages; // device, its HTML report
  for (const std::string &device : devices) {
    DeviceRun run;
    run.device = device;
    Options o = options;
    o.device = device;
    o.counters = true;
    // Each device's HTML report goes to a temporary file, and into one page at the end.
    std::string htmlTemp;
    if (!options.htmlPath.empty()) {
      char name[] = "/tmp/kern_compare_XXXXXX";
      const int fd = mkstemp(name);
      if (fd >= 0) {
        close(fd);
        htmlTemp = name;
      }
      o.htmlPath = htmlTemp;
    }
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
    if (!htmlTemp.empty()) {
      std::ifstream in(htmlTemp, std::ios::binary);
      std::stringstream page;
      page << in.rdbuf();
      pages.push_back({device, page.str()});
      std::remove(htmlTemp.c_str());
    }
    columns.push_back(std::move(column));
    out.runs.push_back(std::move(run));
  }
  const std::string name = paths.empty() ? std::string("the program") : paths.front();
  out.table = runtime::comparisonTable(name, columns);
  if (!options.htmlPath.empty()) {
    const std::string page = runtime::htmlComparison(name, out.table, pages);
    if (options.htmlPath == "-") {
      writeErr(options, page);
    } else {
      std::ofstream file(options.htmlPath, std::ios::binary);
      file << page;
      if (!file) {
        out.status = Status::RuntimeError;
        out.diagnostics = "kern: cannot write '" + options.htmlPath + "'";
      }
    }
  }
  return out;
}

} // namespace kern
