// The `kern` Python module's native part (_kern): kern::Engine and kern::Program over pybind11.
// The Python package (bindings/python/kern/__init__.py) wraps it: RunResult, Report (with
// _repr_html_ and to_pandas), DeviceArray.
#include "kern/kern.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace py = pybind11;

namespace {

/// A temporary file's path, removed when this goes.
struct TempFile {
  std::string path;
  explicit TempFile(const char *suffix) {
    std::string pattern = "/tmp/kern_python_XXXXXX";
    pattern += suffix;
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    const int fd = mkstemps(buf.data(), static_cast<int>(std::string(suffix).size()));
    if (fd >= 0) {
      close(fd);
      path = buf.data();
    }
  }
  ~TempFile() {
    if (!path.empty())
      std::remove(path.c_str());
  }
  std::string read() const {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

kern::Mode modeOf(const std::string &mode) {
  if (mode == "fast")
    return kern::Mode::Fast;
  if (mode == "checked")
    return kern::Mode::Checked;
  if (mode == "profile")
    return kern::Mode::Profile;
  throw py::value_error("mode must be 'fast', 'profile' or 'checked', not '" + mode + "'");
}

/// A compiled program with its engine; what the program prints is captured per call.
class PyProgram {
public:
  PyProgram(const std::vector<std::pair<std::string, std::string>> &files, kern::Options options)
      : options_(std::move(options)), json_(".json"), html_(".html") {
    // A counting run writes its reports to this program's temporary files, read after it.
    if (options_.mode != kern::Mode::Fast) {
      options_.reportPath = json_.path;
      options_.htmlPath = html_.path;
    }
    options_.out = [this](std::string_view s) { out_.append(s); };
    options_.err = [this](std::string_view s) { err_.append(s); };
    engine_ = std::make_unique<kern::Engine>(options_);
    std::vector<kern::SourceFile> sources;
    for (const auto &[name, text] : files)
      sources.push_back({name, text});
    program_ = engine_->compile(sources);
  }

  bool ok() const { return program_->ok(); }
  std::string diagnostics() const { return program_->diagnostics(); }

  /// Runs main: output, errors, exit code, status, and the JSON and HTML reports (when the
  /// engine counts).
  py::dict run(const std::vector<std::string> &args) {
    if (!ok())
      throw py::value_error("the program did not compile:\n" + diagnostics());
    const bool counting = options_.mode != kern::Mode::Fast;
    kern::RunResult r;
    out_.clear();
    err_.clear();
    {
      py::gil_scoped_release release;
      r = program_->run(args);
    }
    py::dict d;
    d["output"] = out_;
    d["errors"] = err_;
    d["exit_code"] = r.exitCode;
    d["status"] = statusName(r.status);
    d["faulted"] = r.faulted;
    d["report_json"] = counting ? json_.read() : std::string();
    d["report_html"] = counting ? html_.read() : std::string();
    return d;
  }

  py::list kernels() const {
    py::list out;
    for (const kern::KernelSignature &k : program_->kernels()) {
      py::list params;
      for (const kern::ParamInfo &p : k.params)
        params.append(py::make_tuple(p.name, p.type));
      out.append(py::make_tuple(k.name, params));
    }
    return out;
  }

  /// Device memory of the launch() device: a handle and its size.
  py::tuple allocate(uint64_t bytes) {
    kern::BufferResult b = program_->allocate(bytes);
    check(b);
    const uint64_t id = nextId_++;
    buffers_.emplace(id, b.buffer);
    return py::make_tuple(id, bytes);
  }
  void write(uint64_t id, py::buffer data) {
    py::buffer_info info = data.request();
    check(program_->write(buffer(id), info.ptr, static_cast<uint64_t>(info.size * info.itemsize)));
  }
  void read(uint64_t id, py::buffer data) {
    py::buffer_info info = data.request(true);
    check(program_->read(buffer(id), info.ptr, static_cast<uint64_t>(info.size * info.itemsize)));
  }
  void release(uint64_t id) {
    auto it = buffers_.find(id);
    if (it == buffers_.end())
      return;
    program_->release(it->second);
    buffers_.erase(it);
  }

  /// Launches `name`; `args` are ("buffer", id), ("int", v), ("float", v) or ("bytes", b),
  /// converted by the Python side against the kernel's signature.
  py::dict launch(const std::string &name, std::vector<uint32_t> grid, std::vector<uint32_t> block,
                  const py::list &args, uint64_t shared) {
    const kern::KernelSignature *k = program_->kernel(name);
    if (!k)
      throw py::value_error("the program has no kernel '" + name + "'");
    std::vector<kern::Arg> converted;
    for (size_t i = 0; i < args.size(); ++i) {
      const auto pair = args[i].cast<py::tuple>();
      const std::string kind = pair[0].cast<std::string>();
      const kern::ParamInfo *p = i < k->params.size() ? &k->params[i] : nullptr;
      if (kind == "buffer")
        converted.emplace_back(buffer(pair[1].cast<uint64_t>()));
      else if (kind == "null")
        converted.push_back(kern::Arg::null());
      else if (kind == "float" && p && p->kind == kern::ParamKind::Float && p->size == 4)
        converted.emplace_back(pair[1].cast<float>());
      else if (kind == "float")
        converted.emplace_back(pair[1].cast<double>());
      else if (kind == "int" && p && p->kind == kern::ParamKind::Int && !p->isSigned)
        converted.emplace_back(pair[1].cast<uint64_t>());
      else if (kind == "int")
        converted.emplace_back(pair[1].cast<int64_t>());
      else if (kind == "bytes") {
        const std::string b = pair[1].cast<std::string>();
        converted.push_back(kern::Arg::bytes(b.data(), b.size()));
      } else
        throw py::value_error("argument " + std::to_string(i + 1) + ": cannot pass a " + kind);
    }
    auto dim = [](const std::vector<uint32_t> &v) {
      return kern::Dim3{v.size() > 0 ? v[0] : 1, v.size() > 1 ? v[1] : 1, v.size() > 2 ? v[2] : 1};
    };
    kern::LaunchResult r;
    {
      py::gil_scoped_release release;
      r = program_->launch(name, dim(grid), dim(block), converted, shared);
    }
    check(r);
    const kern::LaunchStats &s = r.stats;
    py::dict d;
    d["kernel"] = s.kernel;
    d["grid"] = py::make_tuple(s.grid.x, s.grid.y, s.grid.z);
    d["block"] = py::make_tuple(s.block.x, s.block.y, s.block.z);
    d["shared_bytes"] = s.sharedBytes;
    d["registers_per_thread"] = s.registersPerThread;
    d["blocks_per_sm"] = s.blocksPerSM;
    d["occupancy"] = s.occupancy;
    d["counted"] = s.counted;
    const kern::Counters &c = s.counters;
    d["counters"] = py::dict(py::arg("warp_instructions") = c.warpInstructions,
                             py::arg("thread_instructions") = c.threadInstructions,
                             py::arg("branches") = c.branches,
                             py::arg("divergent_branches") = c.divergentBranches,
                             py::arg("global_load_requests") = c.globalLoadRequests,
                             py::arg("global_load_transactions") = c.globalLoadTransactions,
                             py::arg("global_store_requests") = c.globalStoreRequests,
                             py::arg("global_store_transactions") = c.globalStoreTransactions,
                             py::arg("shared_requests") = c.sharedRequests,
                             py::arg("shared_bank_conflicts") = c.sharedBankConflicts,
                             py::arg("barriers") = c.barriers, py::arg("atomics") = c.atomics,
                             py::arg("warp_execution_efficiency") = c.warpExecutionEfficiency,
                             py::arg("branch_efficiency") = c.branchEfficiency);
    return d;
  }

  /// A fresh launch() device after a fault (its device arrays are gone).
  void resetDevice() {
    program_->resetDevice();
    buffers_.clear();
  }
  std::string reportJson() const { return program_->reportJson(); }
  std::string reportHtml() const { return program_->reportHtml(); }
  std::string errors() const { return err_; }
  std::string output() const { return out_; }

private:
  kern::Options options_;
  TempFile json_, html_;
  std::unique_ptr<kern::Engine> engine_;
  std::unique_ptr<kern::Program> program_;
  std::string out_, err_;
  std::map<uint64_t, kern::Buffer> buffers_;
  uint64_t nextId_ = 1;

  static const char *statusName(kern::Status s) {
    switch (s) {
    case kern::Status::Ok:
      return "ok";
    case kern::Status::CompileError:
      return "compile error";
    case kern::Status::RuntimeError:
      return "runtime error";
    case kern::Status::UsageError:
      return "usage error";
    case kern::Status::Interrupted:
      return "interrupted";
    default:
      return "failed";
    }
  }
  const kern::Buffer &buffer(uint64_t id) const {
    auto it = buffers_.find(id);
    if (it == buffers_.end())
      throw py::value_error("that device array was released");
    return it->second;
  }
  static void check(const kern::Result &r) {
    if (!r.ok())
      throw std::runtime_error(r.diagnostics);
  }
};

std::unique_ptr<PyProgram>
compileProgram(const std::vector<std::pair<std::string, std::string>> &files,
               const std::string &device, const std::string &mode, unsigned workers,
               const std::vector<std::string> &includes, const std::vector<std::string> &defines,
               bool fmad, double timeout, bool allowFiles) {
  kern::Options o;
  o.device = device;
  o.mode = modeOf(mode);
  o.workers = workers;
  o.includePaths = includes;
  o.defines = defines;
  o.fmad = fmad;
  o.timeoutSeconds = timeout;
  o.allowFiles = allowFiles;
  if (std::string error; !kern::checkDevice(o, error))
    throw py::value_error(error);
  return std::make_unique<PyProgram>(files, o);
}

} // namespace

PYBIND11_MODULE(_kern, m) {
  m.doc() = "kern: CUDA kernels on the CPU, with what a real GPU would suffer counted";
  py::class_<PyProgram>(m, "Program")
      .def_property_readonly("ok", &PyProgram::ok)
      .def_property_readonly("diagnostics", &PyProgram::diagnostics)
      .def("run", &PyProgram::run, py::arg("args") = std::vector<std::string>{})
      .def("kernels", &PyProgram::kernels)
      .def("allocate", &PyProgram::allocate)
      .def("write", &PyProgram::write)
      .def("read", &PyProgram::read)
      .def("release", &PyProgram::release)
      .def("launch", &PyProgram::launch)
      .def("reset_device", &PyProgram::resetDevice)
      .def("report_json", &PyProgram::reportJson)
      .def("report_html", &PyProgram::reportHtml)
      .def("errors", &PyProgram::errors)
      .def("output", &PyProgram::output);
  m.def("compile", &compileProgram, py::arg("files"), py::arg("device"), py::arg("mode"),
        py::arg("workers"), py::arg("include_paths"), py::arg("defines"), py::arg("fmad"),
        py::arg("timeout"), py::arg("allow_files"));
  m.def("devices", []() { return kern::deviceList(); });
  m.def("version", []() { return std::string(KERN_VERSION_STRING); });
}
