// Modules compiled while a program runs: NVRTC's programs and the driver API's cuModuleLoad*.
// The runtime asks through backend::ModuleCompiler; each module goes through the same
// pipeline as a program (frontend -> IR -> backend), with the compiler options it was given,
// and its code lives as long as the run.
#include "engine/engine_impl.h"

#include "runtime/modules.h"

#include <cstdlib>
#include <filesystem>

namespace kern {

namespace {

/// The value of option `opt` if it is one of `names` ("-I", "--include-path"), written as
/// `-IDIR`, `--include-path=DIR` or as two arguments (`-I DIR`, advancing `i`).
bool optionValue(const std::vector<std::string> &opts, size_t &i,
                 std::initializer_list<const char *> names, std::string &value) {
  const std::string &opt = opts[i];
  for (const char *name : names) {
    const std::string n = name;
    if (opt == n) {
      if (i + 1 >= opts.size())
        return false;
      value = opts[++i];
      return true;
    }
    if (opt.compare(0, n.size(), n) != 0)
      continue;
    std::string rest = opt.substr(n.size());
    if (n.size() > 2 && (rest.empty() || rest[0] != '='))
      continue; // a long option takes its value after '='
    value = !rest.empty() && rest[0] == '=' ? rest.substr(1) : rest;
    return true;
  }
  return false;
}

/// Applies nvrtcCompileProgram's options to a module's options and pipeline. Returns false with
/// `log` set for one it cannot honour, as NVRTC answers NVRTC_ERROR_INVALID_OPTION.
bool applyOptions(const std::vector<std::string> &opts, Options &o, ir::PipelineOptions &po,
                  std::string &log) {
  for (size_t i = 0; i < opts.size(); ++i) {
    std::string v;
    if (optionValue(opts, i, {"-I", "--include-path"}, v)) {
      po.preprocess.includePaths.push_back(v);
    } else if (optionValue(opts, i, {"-D", "--define-macro"}, v)) {
      po.preprocess.defines.push_back(v);
    } else if (optionValue(opts, i, {"-U", "--undefine-macro"}, v)) {
      // No macro is defined for a module that it could take back.
    } else if (optionValue(opts, i, {"-arch", "--gpu-architecture"}, v)) {
      // sm_90, compute_90, sm_90a: __CUDA_ARCH__ of that architecture. kern runs the kernels
      // on the modelled device whatever the architecture named.
      const size_t us = v.find('_');
      const int cc = us == std::string::npos ? 0 : std::atoi(v.c_str() + us + 1);
      if (cc < 10) {
        log = "error: invalid value for --gpu-architecture (-arch): '" + v + "'\n";
        return false;
      }
      po.preprocess.cudaArch = cc * 10;
    } else if (optionValue(opts, i, {"-fmad", "--fmad"}, v)) {
      if (v != "true" && v != "false") {
        log = "error: invalid value for --fmad: '" + v + "'\n";
        return false;
      }
      o.fmad = v == "true";
    } else if (opts[i] == "--use_fast_math" || opts[i] == "-use_fast_math") {
      o.fmad = true;
    } else if (opts[i].empty() || opts[i][0] != '-') {
      log = "error: unrecognized option '" + opts[i] + "'\n";
      return false;
    }
    // Anything else (-std=, -rdc, -G, -lineinfo, --device-as-default-execution-space...) asks
    // for code generation that changes nothing kern computes.
  }
  return true;
}

} // namespace

backend::ModuleCompiler moduleCompiler(const Options &base, RunModules &store) {
  return [&base, &store](const backend::ModuleRequest &req, backend::ModuleImage &out,
                         std::string &log) {
    auto o = std::make_unique<Options>(base);
    o->diagnostics = nullptr; // the log carries them
    ir::PipelineOptions po;
    po.preprocess.includePaths = base.includePaths;
    po.preprocess.defines = base.defines;
    po.preprocess.cudaArch = cudaArchFor(base);
    po.preprocess.memoryHeaders = req.headers;
    // In a sandbox's child, a module's includes are confined as the program's are.
    po.preprocess.confineIncludes = base.sandbox.enabled;
    po.preprocess.includeRoots = base.sandbox.allowRead;
    po.firstSite = req.firstSite;
    po.firstGlobal = req.firstGlobal;
    if (!applyOptions(req.options, *o, po, log))
      return false;

    auto p = std::make_unique<Program::Impl>();
    p->options = o.get();
    p->diags = std::make_unique<frontend::DiagnosticEngine>(p->sources);
    const uint32_t file = p->sources.addFile(req.name, req.source);
    KernelTypes types;
    Program::Impl *raw = p.get();
    po.afterSema = [&types, raw](const frontend::TranslationUnit &tu) {
      collectKernelTypes(tu, types);
      collectMangledNames(tu, raw->mangledNames);
    };
    p->module = ir::buildModule(p->sources, file, *p->diags, po);
    log = p->diags->renderAll(false);
    if (!p->module)
      return false;
    buildSignatures(*p, types);
    if (!p->compileNative()) {
      log += "internal error: " + p->nativeError + "\n";
      return false;
    }
    const bool counting = selectsLaunches(*o) && p->compileCounting();
    if (selectsLaunches(*o) && !counting) {
      log += "internal error: " + p->countingError + "\n";
      return false;
    }

    out = {};
    out.usesDeviceHeap = p->module->usesDeviceHeap;
    for (uint32_t f = 0; f < p->sources.fileCount(); ++f)
      out.files.push_back(p->sources.fileName(f));
    for (size_t i = 0; i < p->module->kernels().size(); ++i) {
      out.kernels.push_back(kernelImage(*p, i, *p->native));
      if (counting)
        out.kernels.back().countingFn = p->countingNative->kernel(i);
    }
    for (size_t s = req.firstSite; s < p->module->sites.size(); ++s) {
      const ir::Site &site = p->module->sites[s];
      out.sites.push_back({site.loc.file + req.firstFile, site.loc.line, site.loc.col,
                           siteKind(site.kind), site.what, site.waitSixteenths});
    }
    for (const ir::GlobalVar *g : p->module->globals)
      out.globals.push_back(globalImage(*g));

    store.options.push_back(std::move(o));
    store.programs.push_back(std::move(p));
    return true;
  };
}

std::string Program::moduleImage() const {
  if (impl_->sources.fileCount() == 0)
    return "";
  backend::ModuleRequest r;
  r.name = impl_->sources.fileName(0);
  r.source = impl_->sources.fileText(0);
  // Its "x.h" includes are found where they were when it was written, from anywhere.
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::path(r.name).parent_path();
  const std::filesystem::path absolute = std::filesystem::absolute(dir.empty() ? "." : dir, ec);
  if (!ec)
    r.options.push_back("-I" + absolute.lexically_normal().string());
  for (const std::string &d : impl_->options->includePaths) {
    const std::filesystem::path p = std::filesystem::absolute(d, ec);
    r.options.push_back("-I" + (ec ? d : p.lexically_normal().string()));
  }
  for (const std::string &d : impl_->options->defines)
    r.options.push_back("-D" + d);
  if (!impl_->options->fmad)
    r.options.push_back("--fmad=false");
  return runtime::moduleImageText(r);
}

} // namespace kern
