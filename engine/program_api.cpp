// Program's embedding calls (include/kern/kern.hpp): kernel signatures, device buffers, launches
// by name with arguments checked against the signature, and the launches' counters.
#include "engine/engine_impl.h"
#include "runtime/errors.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kern {

namespace {

// cudaMemcpyKind values (the runtime takes CUDA's numbering).
constexpr int32_t kHostToDevice = 1;
constexpr int32_t kDeviceToHost = 2;

Result failure(Status status, std::string message) {
  Result r;
  r.status = status;
  r.diagnostics = std::move(message);
  if (!r.diagnostics.empty() && r.diagnostics.back() != '\n')
    r.diagnostics += '\n';
  return r;
}

/// "argument 2 ('a', float)": how a mismatch names the parameter.
std::string describeParam(size_t i, const ParamInfo &p) {
  return "argument " + std::to_string(i + 1) + " ('" + p.name + "', " + p.type + ")";
}

const char *argKindName(Arg::Kind k) {
  switch (k) {
  case Arg::Kind::Buffer:
    return "a Buffer";
  case Arg::Kind::Null:
    return "a null pointer";
  case Arg::Kind::Int:
  case Arg::Kind::UInt:
    return "an integer";
  case Arg::Kind::Float:
    return "a float";
  case Arg::Kind::Double:
    return "a double";
  case Arg::Kind::Bytes:
    return "raw bytes";
  }
  return "a value";
}

/// Whether integer `a` fits a parameter of `size` bytes and the given signedness.
bool intFits(const Arg &a, uint32_t size, bool isSigned) {
  const unsigned bits = size * 8;
  if (a.kind() == Arg::Kind::Int) {
    const int64_t v = a.intValue();
    if (bits >= 64)
      return isSigned || v >= 0;
    if (isSigned)
      return v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1));
    // An unsigned parameter also takes a negative int of its width (C's conversion, and what
    // `-1u`-style flags need), but nothing wider.
    return v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << bits);
  }
  const uint64_t v = a.uintValue();
  if (bits >= 64)
    return true;
  return v < (uint64_t(1) << (isSigned ? bits - 1 : bits));
}

} // namespace

Arg Arg::bytes(const void *data, size_t size) {
  Arg a(Kind::Bytes);
  const auto *p = static_cast<const uint8_t *>(data);
  a.bytes_.assign(p, p + size);
  return a;
}

std::vector<KernelSignature> Program::kernels() const { return impl_->signatures; }

const KernelSignature *Program::kernel(std::string_view name) const {
  for (const KernelSignature &k : impl_->signatures)
    if (k.name == name)
      return &k;
  return nullptr;
}

/// The virtual device of the embedding calls, created on first use; false (with `error`) if
/// the program cannot run.
static bool ensureDevice(Program::Impl &p, std::string &error) {
  if (p.device)
    return true;
  if (p.sandbox) {
    error = "a sandboxed program (Options::sandbox) can only be run (Program::run)";
    return false;
  }
  if (!p.module) {
    error = "the program did not compile";
    return false;
  }
  if (!p.compileNative()) {
    error = "internal error: " + p.nativeError;
    return false;
  }
  const Options &o = *p.options;
  runtime::Runtime::Options ro = runtimeOptions(o);
  ro.stop = p.stop;
  ro.captureAll = countersOn(o); // for reportHtml's lane maps
  if (!checkLaunchFilter(o, error) || !resolveDevice(o, ro.device, error))
    return false;
  // The runtime's messages are both returned with the call's result and passed on.
  Program::Impl *impl = &p;
  ro.err = [impl](std::string_view text) {
    impl->captured += text;
    writeErr(*impl->options, text);
  };
  if (countersOn(o))
    ro.onLaunchEnd = [impl](size_t i) {
      if (impl->launchTables.size() <= i)
        impl->launchTables.resize(i + 1);
      // A launch that was not profiled has no table (launchTable() gives "").
      if (impl->device->launches()[i].profiled)
        impl->launchTables[i] = runtime::launchStatsTable(impl->report, i);
    };
  p.device = std::make_unique<runtime::Runtime>(std::move(ro));
  p.report = {};
  p.report.rt = p.device.get();
  p.report.program = p.module->sourceName;
  if (p.sources.fileCount() > 0)
    p.report.source = p.sources.fileText(0);
  backend::ProgramImage image = p.image();
  p.report.sites = runtime::siteTable(image);
  p.device->setProgram(std::move(image));
  p.buffers.clear();
  p.launchTables.clear();
  return true;
}

void Program::resetDevice() {
  impl_->device.reset();
  impl_->buffers.clear();
  impl_->launchTables.clear();
}

BufferResult Program::allocate(uint64_t bytes) {
  BufferResult r;
  std::string error;
  if (!ensureDevice(*impl_, error)) {
    static_cast<Result &>(r) = failure(Status::UsageError, "kern: " + error);
    return r;
  }
  if (bytes == 0) {
    static_cast<Result &>(r) = failure(Status::UsageError, "kern: allocate: size 0");
    return r;
  }
  impl_->captured.clear();
  void *p = nullptr;
  if (impl_->device->cudaMalloc(&p, bytes) != 0 || !p ||
      impl_->device->cudaMemset(p, 0, bytes) != 0) {
    // On a device that faulted every call fails with the fault's error, as on a GPU.
    const int32_t sticky = impl_->device->stickyError();
    const std::string why = sticky != 0
                                ? "kern: allocate: the device faulted earlier (" +
                                      std::string(runtime::errorName(sticky)) +
                                      "); every call fails until resetDevice()"
                                : "kern: allocate of " + std::to_string(bytes) + " bytes failed";
    static_cast<Result &>(r) =
        failure(Status::RuntimeError, impl_->captured.empty() ? why : impl_->captured);
    return r;
  }
  const uint64_t handle = impl_->nextHandle++;
  impl_->buffers[handle] = {reinterpret_cast<uint64_t>(p), bytes};
  r.buffer.handle_ = handle;
  r.buffer.size_ = bytes;
  return r;
}

/// The device address of `b` + `offset` if [offset, offset + bytes) lies inside it.
static Result bufferRange(Program::Impl &p, const Buffer &b, uint64_t bytes, uint64_t offset,
                          const char *function, uint64_t &addr) {
  auto it = p.buffers.find(b.handle());
  if (!p.device || it == p.buffers.end())
    return failure(Status::UsageError, std::string("kern: ") + function +
                                           ": the buffer is not live (never allocated, released, "
                                           "or lost by resetDevice)");
  const uint64_t size = it->second.second;
  if (offset > size || bytes > size - offset)
    return failure(Status::UsageError, std::string("kern: ") + function + ": " +
                                           std::to_string(bytes) + " bytes at offset " +
                                           std::to_string(offset) + " do not fit in the " +
                                           std::to_string(size) + "-byte buffer");
  addr = it->second.first + offset;
  return {};
}

Result Program::write(const Buffer &buffer, const void *data, uint64_t bytes, uint64_t offset) {
  uint64_t addr = 0;
  Result r = bufferRange(*impl_, buffer, bytes, offset, "write", addr);
  if (!r.ok() || bytes == 0)
    return r;
  if (!data)
    return failure(Status::UsageError, "kern: write: the host pointer is null");
  impl_->captured.clear();
  if (impl_->device->cudaMemcpy(reinterpret_cast<void *>(addr), data, bytes, kHostToDevice) != 0)
    return failure(Status::RuntimeError, impl_->captured);
  return r;
}

Result Program::read(const Buffer &buffer, void *data, uint64_t bytes, uint64_t offset) {
  uint64_t addr = 0;
  Result r = bufferRange(*impl_, buffer, bytes, offset, "read", addr);
  if (!r.ok() || bytes == 0)
    return r;
  if (!data)
    return failure(Status::UsageError, "kern: read: the host pointer is null");
  impl_->captured.clear();
  if (impl_->device->cudaMemcpy(data, reinterpret_cast<void *>(addr), bytes, kDeviceToHost) != 0)
    return failure(Status::RuntimeError, impl_->captured);
  return r;
}

Result Program::release(Buffer &buffer) {
  auto it = impl_->buffers.find(buffer.handle());
  if (it == impl_->buffers.end() || !impl_->device) {
    buffer = Buffer();
    return {};
  }
  impl_->captured.clear();
  const int32_t code = impl_->device->cudaFree(reinterpret_cast<void *>(it->second.first));
  impl_->buffers.erase(it);
  buffer = Buffer();
  if (code != 0)
    return failure(Status::RuntimeError, impl_->captured);
  return {};
}

/// Converts a runtime launch record into the public struct.
static LaunchStats toStats(const runtime::Runtime &rt, size_t i) {
  const runtime::LaunchRecord &rec = rt.launches()[i];
  LaunchStats s;
  s.kernel = rec.kernel;
  s.grid = Dim3(rec.grid[0], rec.grid[1], rec.grid[2]);
  s.block = Dim3(rec.block[0], rec.block[1], rec.block[2]);
  s.sharedBytes = rec.sharedBytes;
  s.registersPerThread = rec.registersPerThread;
  s.blocksPerSM = rec.occupancy.blocksPerSM;
  s.occupancy = rec.occupancy.occupancy;
  s.errorCode = rec.error;
  s.faulted = rec.faulted;
  if (rec.profiled) {
    const runtime::SiteCounters &c = rt.counters().launch(i).total;
    using runtime::MemoryOpKind;
    s.counted = true;
    Counters &k = s.counters;
    k.warpInstructions = c.warpInstructions;
    k.threadInstructions = c.threadInstructions;
    k.branches = c.branchesExecuted;
    k.divergentBranches = c.branchesDivergent;
    k.globalLoadRequests = c.globalOf(MemoryOpKind::Load).requests;
    k.globalLoadTransactions = c.globalOf(MemoryOpKind::Load).transactions;
    k.globalStoreRequests = c.globalOf(MemoryOpKind::Store).requests;
    k.globalStoreTransactions = c.globalOf(MemoryOpKind::Store).transactions;
    const runtime::GlobalOpCounters g = c.globalTotal();
    k.globalBytesRequested = g.bytesRequested;
    k.globalBytesMoved = g.bytesMoved;
    const runtime::SharedOpCounters sh = c.sharedTotal();
    k.sharedRequests = sh.requests;
    k.sharedBankConflicts = sh.conflicts();
    k.constantRequests = c.constantRequests;
    k.barriers = c.barriersExecuted;
    k.atomics = c.atomicsExecuted;
    k.warpExecutionEfficiency = c.warpInstructions ? runtime::warpExecutionEfficiency(c) : 0;
    k.branchEfficiency = runtime::branchEfficiency(c);
  }
  return s;
}

LaunchResult Program::launch(std::string_view name, Dim3 grid, Dim3 block,
                             const std::vector<Arg> &args, uint64_t dynamicSharedBytes) {
  LaunchResult r;
  auto fail = [&r](Status s, std::string message) -> LaunchResult & {
    static_cast<Result &>(r) = failure(s, std::move(message));
    return r;
  };
  std::string error;
  if (!ensureDevice(*impl_, error))
    return fail(Status::UsageError, "kern: " + error);
  const std::vector<ir::Function *> irKernels = impl_->module->kernels();
  size_t index = irKernels.size();
  for (size_t i = 0; i < irKernels.size(); ++i)
    if (irKernels[i]->name == name)
      index = i;
  if (index == irKernels.size()) {
    std::string known;
    for (const ir::Function *k : irKernels)
      known += (known.empty() ? "" : ", ") + k->name;
    return fail(Status::UsageError, "kern: launch: the program has no kernel '" +
                                        std::string(name) +
                                        "' (kernels: " + (known.empty() ? "none" : known) + ")");
  }
  const ir::Function &k = *irKernels[index];
  const KernelSignature &sig = impl_->signatures[index];
  if (args.size() != sig.params.size())
    return fail(Status::UsageError,
                "kern: launch of '" + sig.name + "': " + std::to_string(args.size()) + " argument" +
                    (args.size() == 1 ? "" : "s") + " given, the kernel takes " +
                    std::to_string(sig.params.size()));

  // Pack the parameter buffer as the compiled kernel reads it (CUDA's layout, ir paramOffsets).
  std::vector<uint8_t> params(std::max<uint32_t>(k.paramBytes, 1), 0);
  for (size_t i = 0; i < args.size(); ++i) {
    const ParamInfo &p = sig.params[i];
    const Arg &a = args[i];
    uint8_t *dst = params.data() + k.paramOffsets[i];
    auto mismatch = [&]() {
      return fail(Status::UsageError, "kern: launch of '" + sig.name + "': " + describeParam(i, p) +
                                          " cannot take " + argKindName(a.kind()));
    };
    switch (p.kind) {
    case ParamKind::Pointer: {
      uint64_t addr = 0;
      if (a.kind() == Arg::Kind::Buffer) {
        auto it = impl_->buffers.find(a.buffer().handle());
        if (it == impl_->buffers.end())
          return fail(Status::UsageError, "kern: launch of '" + sig.name +
                                              "': " + describeParam(i, p) +
                                              " is a buffer that is not live");
        addr = it->second.first;
      } else if (a.kind() != Arg::Kind::Null)
        return mismatch();
      std::memcpy(dst, &addr, 8);
      break;
    }
    case ParamKind::Int: {
      if (a.kind() != Arg::Kind::Int && a.kind() != Arg::Kind::UInt)
        return mismatch();
      if (!intFits(a, p.size, p.isSigned))
        return fail(Status::UsageError,
                    "kern: launch of '" + sig.name + "': " + describeParam(i, p) + ": the value " +
                        (a.kind() == Arg::Kind::Int ? std::to_string(a.intValue())
                                                    : std::to_string(a.uintValue())) +
                        " does not fit");
      const uint64_t bits =
          a.kind() == Arg::Kind::Int ? static_cast<uint64_t>(a.intValue()) : a.uintValue();
      std::memcpy(dst, &bits, p.size); // little-endian: the low bytes
      break;
    }
    case ParamKind::Float:
      if (p.size == 4) {
        if (a.kind() != Arg::Kind::Float)
          return mismatch(); // a double would silently lose precision
        const float f = static_cast<float>(a.floatValue());
        std::memcpy(dst, &f, 4);
      } else {
        if (a.kind() != Arg::Kind::Float && a.kind() != Arg::Kind::Double)
          return mismatch();
        const double d = a.floatValue();
        std::memcpy(dst, &d, 8);
      }
      break;
    case ParamKind::Struct:
      if (a.kind() != Arg::Kind::Bytes)
        return mismatch();
      if (a.byteValue().size() != p.size)
        return fail(Status::UsageError, "kern: launch of '" + sig.name +
                                            "': " + describeParam(i, p) + " takes " +
                                            std::to_string(p.size) + " bytes, " +
                                            std::to_string(a.byteValue().size()) + " given");
      std::memcpy(dst, a.byteValue().data(), p.size);
      break;
    }
  }

  runtime::Runtime &rt = *impl_->device;
  impl_->captured.clear();
  const size_t before = rt.launches().size();
  const uint32_t g[3] = {grid.x, grid.y, grid.z};
  const uint32_t b[3] = {block.x, block.y, block.z};
  rt.launch(static_cast<uint32_t>(index), g, b, dynamicSharedBytes, nullptr, params.data(),
            k.paramBytes, 0);
  std::fflush(stdout);
  if (rt.interrupted() || (impl_->stop && impl_->stop->requested())) {
    // Engine::interrupt: this launch stopped (or had finished); one interrupt stops one call.
    const bool stopped = rt.interrupted();
    rt.clearInterrupted();
    impl_->stop->clear();
    if (stopped)
      return fail(Status::Interrupted, impl_->captured);
  }
  if (rt.launches().size() == before) // the context is unusable after a fault
    return fail(Status::RuntimeError,
                impl_->captured.empty()
                    ? "kern: launch of '" + sig.name +
                          "': the device is unusable after an earlier fault (resetDevice())"
                    : impl_->captured);
  r.stats = toStats(rt, rt.launches().size() - 1);
  if (r.stats.errorCode != 0 || r.stats.faulted)
    static_cast<Result &>(r) = failure(Status::RuntimeError, impl_->captured);
  else
    r.diagnostics = impl_->captured; // warnings, if any
  return r;
}

std::vector<LaunchStats> Program::launches() const {
  std::vector<LaunchStats> out;
  if (impl_->device)
    for (size_t i = 0; i < impl_->device->launches().size(); ++i)
      out.push_back(toStats(*impl_->device, i));
  return out;
}

std::string Program::launchTable(size_t index) const {
  return index < impl_->launchTables.size() ? impl_->launchTables[index] : std::string();
}

/// The embedding side of cudaProfilerStart (`start`) and cudaProfilerStop.
static Result profilerRange(Program::Impl &p, bool start) {
  std::string error;
  if (!ensureDevice(p, error))
    return failure(Status::UsageError, "kern: " + error);
  if (start)
    p.device->cudaProfilerStart();
  else
    p.device->cudaProfilerStop();
  return {};
}

Result Program::profilerStart() { return profilerRange(*impl_, true); }

Result Program::profilerStop() { return profilerRange(*impl_, false); }

std::string Program::reportJson() const {
  if (!impl_->device)
    return "";
  return runtime::reportJson(impl_->report);
}

std::string Program::reportHtml() const {
  if (!impl_->device)
    return "";
  return runtime::htmlReport(impl_->report);
}

} // namespace kern
