// Modules compiled and loaded while the program runs, and launches with their arguments in an
// array: the runtime's side of kern's <nvrtc.h> and of the driver API's modules in <cuda.h>
// (nvrtcCompileProgram, cuModuleLoad*, cuModuleGetFunction, cuModuleGetGlobal, cuLaunchKernel),
// and cudaLaunchKernel / cudaLaunchCooperativeKernel of the runtime API.
//
// A module image is kern's "PTX": a text that names the module and holds its source, the
// options it was compiled with and its in-memory headers. nvrtcGetPTX and nvrtcGetCUBIN hand it
// out, `kern emit --module` writes it to a file, and cuModuleLoad* take it back. The engine
// compiles it (backend::ModuleCompiler); its kernels, sites and globals join the program
// image's tables, numbered after the program's own.
#include "runtime/modules.h"

#include "runtime/errors.h"
#include "runtime/memory.h"
#include "runtime/runtime.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace kern::runtime {

namespace {

constexpr const char *kImageMagic = "// kern module image 1\n";
// Handles: a tag in the high half, an index in the low one. Never a host address, so a
// program that dereferences one faults, and one that passes garbage is told so.
constexpr uint64_t kModuleTag = 0x6b6d6f6400000000ull;   // "kmod"
constexpr uint64_t kFunctionTag = 0x6b66756e00000000ull; // "kfun"

// CUresult values the module functions return (CUDA's driver API).
constexpr int32_t CUDA_SUCCESS = 0;
constexpr int32_t CUDA_ERROR_INVALID_VALUE = 1;
constexpr int32_t CUDA_ERROR_INVALID_IMAGE = 200;
constexpr int32_t CUDA_ERROR_INVALID_PTX = 218;
constexpr int32_t CUDA_ERROR_FILE_NOT_FOUND = 301;
constexpr int32_t CUDA_ERROR_INVALID_HANDLE = 400;
constexpr int32_t CUDA_ERROR_NOT_FOUND = 500;

void appendPart(std::string &out, const char *part, const std::string &bytes) {
  out += "// ";
  out += part;
  out += " " + std::to_string(bytes.size()) + "\n";
  out += bytes;
  out += "\n";
}

/// The device's name for a kernel that cuModuleGetFunction may be given: its own name (an
/// extern "C" kernel, a template instance such as `reduce<256>`) or its C++ symbol name.
bool namesKernel(const backend::KernelImage &k, const std::string &name) {
  return k.name == name || (!k.mangledName.empty() && k.mangledName == name);
}

} // namespace

std::string moduleImageText(const backend::ModuleRequest &r) {
  std::string out = kImageMagic;
  out += "// A CUDA C++ module for kern: load it with cuModuleLoad or cuModuleLoadData.\n";
  appendPart(out, "name", r.name);
  for (const std::string &o : r.options)
    appendPart(out, "option", o);
  for (const auto &[name, text] : r.headers) {
    appendPart(out, "header-name", name);
    appendPart(out, "header-text", text);
  }
  appendPart(out, "source", r.source);
  return out;
}

bool parseModuleImage(const std::string &text, backend::ModuleRequest &out) {
  if (text.compare(0, std::strlen(kImageMagic), kImageMagic) != 0)
    return false;
  out = {};
  size_t at = text.find('\n', std::strlen(kImageMagic)); // past the line that describes it
  if (at == std::string::npos)
    return false;
  ++at;
  bool sawSource = false;
  std::string headerName;
  while (at < text.size()) {
    const size_t eol = text.find('\n', at);
    if (eol == std::string::npos || text.compare(at, 3, "// ") != 0)
      return false;
    const std::string line = text.substr(at + 3, eol - at - 3);
    const size_t space = line.rfind(' ');
    if (space == std::string::npos)
      return false;
    const std::string part = line.substr(0, space);
    char *end = nullptr;
    const unsigned long long bytes = std::strtoull(line.c_str() + space + 1, &end, 10);
    if (!end || *end || eol + 1 + bytes + 1 > text.size() || text[eol + 1 + bytes] != '\n')
      return false;
    std::string value = text.substr(eol + 1, bytes);
    at = eol + 1 + bytes + 1;
    if (part == "name")
      out.name = std::move(value);
    else if (part == "option")
      out.options.push_back(std::move(value));
    else if (part == "header-name")
      headerName = std::move(value);
    else if (part == "header-text")
      out.headers.push_back({headerName, std::move(value)});
    else if (part == "source") {
      out.source = std::move(value);
      sawSource = true;
    } else
      return false;
  }
  return sawSource;
}

void Runtime::setModuleCompiler(backend::ModuleCompiler compiler) {
  modules_->compiler = std::move(compiler);
}

void Runtime::resetModules() {
  backend::ModuleCompiler compiler = std::move(modules_->compiler);
  *modules_ = RuntimeModules{};
  modules_->compiler = std::move(compiler);
  modules_->nextSite = static_cast<uint32_t>(std::max<size_t>(image_.sites.size(), 1));
  for (const backend::GlobalImage &g : image_.globals)
    modules_->nextGlobal = std::max(modules_->nextGlobal, g.id + 1);
  modules_->nextFile = static_cast<uint32_t>(image_.files.size());
}

std::shared_ptr<RuntimeModules::Compiled> Runtime::compileModule(const std::string &image,
                                                                 bool forLoad) {
  auto it = modules_->compiled.find(image);
  if (it != modules_->compiled.end() && !(forLoad && it->second->loaded))
    return it->second;
  auto c = std::make_shared<RuntimeModules::Compiled>();
  backend::ModuleRequest request;
  if (!parseModuleImage(image, request)) {
    c->log = "not a module image of kern's";
    return c;
  }
  if (!modules_->compiler) {
    c->log = "this run cannot compile modules (no compiler was given to the runtime)";
    return c;
  }
  request.firstSite = modules_->nextSite;
  request.firstGlobal = modules_->nextGlobal;
  request.firstFile = modules_->nextFile;
  c->firstSite = request.firstSite;
  c->firstFile = request.firstFile;
  c->ok = modules_->compiler(request, c->image, c->log);
  if (c->ok) {
    modules_->nextSite += static_cast<uint32_t>(c->image.sites.size());
    for (const backend::GlobalImage &g : c->image.globals)
      modules_->nextGlobal = std::max(modules_->nextGlobal, g.id + 1);
    modules_->nextFile += static_cast<uint32_t>(c->image.files.size());
  }
  modules_->compiled[image] = c;
  return c;
}

char *Runtime::rtcImage(const char *source, const char *name, int32_t numHeaders, void **headers,
                        void **includeNames, int32_t numOptions, void **options) {
  backend::ModuleRequest r;
  r.source = source ? source : "";
  r.name = name && *name ? name : "default_program";
  for (int32_t i = 0; i < numHeaders && headers; ++i) {
    const char *text = static_cast<const char *>(headers[i]);
    const char *include = includeNames ? static_cast<const char *>(includeNames[i]) : nullptr;
    if (text && include)
      r.headers.push_back({include, text});
  }
  for (int32_t i = 0; i < numOptions && options; ++i)
    if (const char *o = static_cast<const char *>(options[i]))
      r.options.push_back(o);
  const std::string text = moduleImageText(r);
  char *out = static_cast<char *>(hostMalloc(text.size() + 1));
  if (out)
    std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

int32_t Runtime::rtcCompile(const char *image, void **log) {
  std::shared_ptr<RuntimeModules::Compiled> c = compileModule(image ? image : "", false);
  if (log) {
    char *text = static_cast<char *>(hostMalloc(c->log.size() + 1));
    if (text)
      std::memcpy(text, c->log.c_str(), c->log.size() + 1);
    *log = text;
  }
  return c->ok ? 0 : 1;
}

void Runtime::warnAt(uint32_t site, const std::string &message) {
  const std::string loc = location(site);
  options_.err((loc.empty() ? "kern: warning: " : loc + ": warning: ") + message + "\n");
}

int32_t Runtime::moduleLoad(void **module, const char *imageOrPath, bool isFile, uint32_t site) {
  const char *api = isFile ? "cuModuleLoad" : "cuModuleLoadData";
  if (!module || !imageOrPath)
    return CUDA_ERROR_INVALID_VALUE;
  std::string text;
  if (isFile) {
    if (!allowFiles()) {
      warnAt(site, std::string(api) + ": this run may not read files ('" + imageOrPath + "')");
      return CUDA_ERROR_FILE_NOT_FOUND;
    }
    if (!sandboxAllows(api, imageOrPath, false))
      return CUDA_ERROR_FILE_NOT_FOUND;
    std::ifstream in(imageOrPath, std::ios::binary);
    if (!in) {
      warnAt(site, std::string(api) + ": cannot open '" + imageOrPath + "'");
      return CUDA_ERROR_FILE_NOT_FOUND;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  } else {
    text = imageOrPath;
  }
  backend::ModuleRequest request;
  if (!parseModuleImage(text, request)) {
    // What nvcc or NVRTC made (PTX, a cubin, a fatbin) is code for a real GPU: kern compiles
    // modules from their CUDA C++.
    const bool ptx =
        text.find(".version") != std::string::npos && text.find(".target") != std::string::npos;
    warnAt(site, std::string(api) + ": " +
                     (isFile ? "'" + std::string(imageOrPath) + "'" : "the image") +
                     (ptx ? " is PTX" : " is not a module image of kern's") +
                     ": kern loads modules compiled from CUDA C++ by its NVRTC "
                     "(nvrtcGetPTX, nvrtcGetCUBIN) or by `kern emit --module FILE.cu -o "
                     "FILE`");
    return ptx ? CUDA_ERROR_INVALID_PTX : CUDA_ERROR_INVALID_IMAGE;
  }
  std::shared_ptr<RuntimeModules::Compiled> c = compileModule(text, true);
  if (!c->ok) {
    warnAt(site, std::string(api) + ": module '" + request.name + "' does not compile:\n" + c->log);
    return CUDA_ERROR_INVALID_PTX;
  }
  c->loaded = true;
  const backend::ModuleImage &m = c->image;
  RuntimeModules::Loaded loaded;
  loaded.name = request.name;
  for (const backend::KernelImage &k : m.kernels) {
    loaded.kernels.push_back(static_cast<uint32_t>(image_.kernels.size()));
    image_.kernels.push_back(k);
    if (countingFetched_ && image_.countingKernels) {
      countingKernels_.resize(image_.kernels.size() - 1);
      countingKernels_.push_back(k);
      countingKernels_.back().fn = k.countingFn;
    }
  }
  // The module's sites and files have the ids it was compiled with, after the program's and
  // every earlier module's.
  if (image_.sites.size() < c->firstSite + m.sites.size())
    image_.sites.resize(c->firstSite + m.sites.size());
  std::copy(m.sites.begin(), m.sites.end(), image_.sites.begin() + c->firstSite);
  if (image_.files.size() < c->firstFile + m.files.size())
    image_.files.resize(c->firstFile + m.files.size());
  std::copy(m.files.begin(), m.files.end(), image_.files.begin() + c->firstFile);
  for (const backend::GlobalImage &g : m.globals) {
    loaded.globals.push_back(image_.globals.size());
    image_.globals.push_back(g);
  }
  image_.usesDeviceHeap = image_.usesDeviceHeap || m.usesDeviceHeap;
  allocateGlobals();
  modules_->loaded.push_back(std::move(loaded));
  *module = reinterpret_cast<void *>(kModuleTag + modules_->loaded.size() - 1);
  return CUDA_SUCCESS;
}

RuntimeModules::Loaded *Runtime::findModule(const void *module) {
  const uint64_t v = addressOf(module);
  if ((v & 0xffffffff00000000ull) != kModuleTag)
    return nullptr;
  const uint64_t index = v & 0xffffffffull;
  if (index >= modules_->loaded.size() || !modules_->loaded[index].live)
    return nullptr;
  return &modules_->loaded[index];
}

int32_t Runtime::moduleUnload(void *module) {
  RuntimeModules::Loaded *m = findModule(module);
  if (!m)
    return CUDA_ERROR_INVALID_HANDLE;
  m->live = false;
  // Its kernels can no longer be launched; its variables stay allocated (their addresses may
  // still be held), as a freed module's memory is simply no longer named.
  for (uint32_t k : m->kernels) {
    image_.kernels[k].fn = nullptr;
    if (k < countingKernels_.size())
      countingKernels_[k].fn = nullptr;
  }
  return CUDA_SUCCESS;
}

int32_t Runtime::moduleFunction(void **fn, void *module, const char *name) {
  if (!fn || !name)
    return CUDA_ERROR_INVALID_VALUE;
  RuntimeModules::Loaded *m = findModule(module);
  if (!m)
    return CUDA_ERROR_INVALID_HANDLE;
  for (uint32_t k : m->kernels)
    if (namesKernel(image_.kernels[k], name)) {
      *fn = reinterpret_cast<void *>(kFunctionTag + k);
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

int32_t Runtime::moduleGlobal(void **dptr, uint64_t *bytes, void *module, const char *name) {
  if (!name)
    return CUDA_ERROR_INVALID_VALUE;
  RuntimeModules::Loaded *m = findModule(module);
  if (!m)
    return CUDA_ERROR_INVALID_HANDLE;
  for (size_t index : m->globals) {
    const backend::GlobalImage &g = image_.globals[index];
    if (g.name != name || g.space == backend::GlobalSpace::Host)
      continue;
    if (dptr)
      *dptr = reinterpret_cast<void *>(globalAddress(g.id));
    if (bytes)
      *bytes = g.size;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_NOT_FOUND;
}

uint32_t Runtime::functionKernel(const void *fn) const {
  const uint64_t v = addressOf(fn);
  if ((v & 0xffffffff00000000ull) != kFunctionTag)
    return 0xffffffffu;
  return static_cast<uint32_t>(v & 0xffffffffull);
}

void *Runtime::kernelFunction(uint32_t kernel) {
  if (kernel >= image_.kernels.size() || !image_.kernels[kernel].fn)
    return nullptr;
  return reinterpret_cast<void *>(kFunctionTag + kernel);
}

int32_t Runtime::functionAttributes(KernFuncAttributes *attr, const void *fn) {
  return cudaFuncGetAttributes(attr, functionKernel(fn));
}

bool Runtime::launchWithArgs(const char *api, uint32_t kernel, const uint32_t grid[3],
                             const uint32_t block[3], uint64_t sharedBytes, void *stream,
                             void **args, void **extra, uint32_t site, int32_t &result) {
  const std::string loc = location(site);
  const std::string prefix =
      (loc.empty() ? std::string("kern: warning: ") : loc + ": warning: ") + api + ": ";
  if (kernel >= image_.kernels.size() || !image_.kernels[kernel].fn) {
    result = recordError(unknownKernelError(kernel), prefix + unknownKernel(kernel));
    return true;
  }
  const KernelInfo &k = image_.kernels[kernel];
  std::vector<uint8_t> buffer(k.paramBytes);
  if (extra) {
    // CU_LAUNCH_PARAM_BUFFER_POINTER (1) and CU_LAUNCH_PARAM_BUFFER_SIZE (2), each followed by
    // its value, up to CU_LAUNCH_PARAM_END (0).
    const void *from = nullptr;
    const uint64_t *size = nullptr;
    for (size_t i = 0;; i += 2) {
      if (!checkHostRange(api, "extra", extra + i, sizeof(void *)))
        return false;
      const uint64_t key = addressOf(extra[i]);
      if (key == 0)
        break;
      if (!checkHostRange(api, "extra", extra + i + 1, sizeof(void *)))
        return false;
      if (key == 1)
        from = extra[i + 1];
      else if (key == 2)
        size = static_cast<const uint64_t *>(extra[i + 1]);
      else {
        result = recordError(cudaErrorInvalidValue,
                             prefix + "unknown key " + std::to_string(key) + " in 'extra'");
        return true;
      }
    }
    if (args || !from || !size) {
      result = recordError(cudaErrorInvalidValue,
                           prefix + (args ? "both kernelParams and extra were given"
                                          : "'extra' needs CU_LAUNCH_PARAM_BUFFER_POINTER and "
                                            "CU_LAUNCH_PARAM_BUFFER_SIZE"));
      return true;
    }
    if (!checkHostRange(api, "extra's buffer size", size, sizeof *size))
      return false;
    if (*size != k.paramBytes) {
      result = recordError(cudaErrorInvalidValue, prefix + "the argument buffer holds " +
                                                      std::to_string(*size) + " bytes; '" + k.name +
                                                      "' takes " + std::to_string(k.paramBytes));
      return true;
    }
    if (k.paramBytes) {
      if (!checkHostRange(api, "extra's argument buffer", from, k.paramBytes))
        return false;
      std::memcpy(buffer.data(), from, k.paramBytes);
    }
  } else if (!k.params.empty()) {
    if (!args) {
      result = recordError(cudaErrorInvalidValue, prefix + "'" + k.name + "' takes " +
                                                      std::to_string(k.params.size()) +
                                                      " arguments and none were given");
      return true;
    }
    if (!checkHostRange(api, "kernel arguments", args, k.params.size() * sizeof(void *)))
      return false;
    for (size_t i = 0; i < k.params.size(); ++i) {
      const auto [offset, bytes] = k.params[i];
      const std::string what = "argument " + std::to_string(i + 1);
      if (!checkHostRange(api, what.c_str(), args[i], bytes))
        return false;
      std::memcpy(buffer.data() + offset, args[i], bytes);
    }
  }
  // The launch reports its own errors; what it sets is this call's result. A fault inside the
  // kernel shows at the next call that waits, as on a GPU, not here.
  const int32_t before = lastError_;
  lastError_ = 0;
  launch(kernel, grid, block, sharedBytes, stream, buffer.data(),
         static_cast<uint32_t>(buffer.size()), site);
  result = lastError_;
  if (result == 0 || isStickyError(result)) {
    if (result == 0)
      lastError_ = before;
    result = 0;
  }
  return true;
}

int32_t Runtime::cooperativeLimit(uint32_t kernel, const uint32_t grid[3], const uint32_t block[3],
                                  uint64_t sharedBytes) {
  if (kernel >= image_.kernels.size() || !image_.kernels[kernel].fn)
    return 0;
  const DeviceProfile &dev = options_.device;
  if (dev.ccMajor < 6)
    return cudaErrorNotSupported;
  const uint64_t threads = uint64_t(block[0]) * block[1] * block[2];
  const uint64_t blocks = uint64_t(grid[0]) * grid[1] * grid[2];
  int32_t perSm = 0;
  const int32_t savedError = lastError_;
  if (threads == 0 || threads > 0x7fffffffu ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, static_cast<int32_t>(threads),
                                                    sharedBytes) != 0) {
    lastError_ = savedError;
    return 0; // the launch reports what is wrong with the configuration
  }
  return blocks > uint64_t(perSm) * dev.smCount ? cudaErrorCooperativeLaunchTooLarge : 0;
}

int32_t Runtime::cooperativeLaunchError(int32_t error, uint32_t kernel, uint32_t site) {
  const std::string loc = location(site);
  const DeviceProfile &dev = options_.device;
  const std::string why =
      error == cudaErrorNotSupported
          ? dev.name + " (compute capability " + std::to_string(dev.ccMajor) + "." +
                std::to_string(dev.ccMinor) + ") has no cooperative launches (they need 6.0)"
          : "the grid of '" + image_.kernels[kernel].name + "' has more blocks than " + dev.name +
                " holds at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor x its " +
                std::to_string(dev.smCount) + " SMs)";
  return recordError(error, (loc.empty() ? std::string("kern: warning: ") : loc + ": warning: ") +
                                "cudaLaunchCooperativeKernel: " + why);
}

} // namespace kern::runtime

using kern::runtime::Runtime;

// ---- the compiled code's entry points -------------------------------------------------------

int32_t kern_rt_cudaLaunchKernel(KernHostCtx *ctx, uint32_t kernel, const uint32_t *grid,
                                 const uint32_t *block, void **args, uint64_t shared, void *stream,
                                 uint32_t site) {
  int32_t result = 0;
  if (!ctx->rt->launchWithArgs("cudaLaunchKernel", kernel, grid, block, shared, stream, args,
                               nullptr, site, result))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return result;
}

int32_t kern_rt_cudaLaunchCooperativeKernel(KernHostCtx *ctx, uint32_t kernel, const uint32_t *grid,
                                            const uint32_t *block, void **args, uint64_t shared,
                                            void *stream, uint32_t site) {
  if (int32_t e = ctx->rt->cooperativeLimit(kernel, grid, block, shared))
    return ctx->rt->cooperativeLaunchError(e, kernel, site);
  int32_t result = 0;
  if (!ctx->rt->launchWithArgs("cudaLaunchCooperativeKernel", kernel, grid, block, shared, stream,
                               args, nullptr, site, result))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return result;
}

char *kern_rt___kern_rtc_image(KernHostCtx *ctx, const char *source, const char *name,
                               int32_t numHeaders, void **headers, void **includeNames,
                               int32_t numOptions, void **options) {
  return ctx->rt->rtcImage(source, name, numHeaders, headers, includeNames, numOptions, options);
}

int32_t kern_rt___kern_rtc_compile(KernHostCtx *ctx, const char *image, void **log, uint32_t) {
  return ctx->rt->rtcCompile(image, log);
}

int32_t kern_rt___kern_module_load(KernHostCtx *ctx, void **module, const char *image,
                                   int32_t isFile, uint32_t site) {
  return ctx->rt->moduleLoad(module, image, isFile != 0, site);
}

int32_t kern_rt___kern_module_unload(KernHostCtx *ctx, void *module) {
  return ctx->rt->moduleUnload(module);
}

int32_t kern_rt___kern_module_function(KernHostCtx *ctx, void **fn, void *module,
                                       const char *name) {
  return ctx->rt->moduleFunction(fn, module, name);
}

int32_t kern_rt___kern_module_global(KernHostCtx *ctx, void **dptr, uint64_t *bytes, void *module,
                                     const char *name) {
  return ctx->rt->moduleGlobal(dptr, bytes, module, name);
}

int32_t kern_rt___kern_launch_function(KernHostCtx *ctx, const void *fn, uint32_t gx, uint32_t gy,
                                       uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz,
                                       uint32_t shared, void *stream, void **params, void **extra,
                                       uint32_t site) {
  const uint32_t grid[3] = {gx, gy, gz};
  const uint32_t block[3] = {bx, by, bz};
  int32_t result = 0;
  if (!ctx->rt->launchWithArgs("cuLaunchKernel", ctx->rt->functionKernel(fn), grid, block, shared,
                               stream, params, extra, site, result))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return result;
}

int32_t kern_rt___kern_function_attributes(KernHostCtx *ctx, KernFuncAttributes *attr,
                                           const void *fn) {
  return ctx->rt->functionAttributes(attr, fn);
}

void *kern_rt___kern_kernel_function(KernHostCtx *ctx, uint32_t kernel) {
  return ctx->rt->kernelFunction(kernel);
}
