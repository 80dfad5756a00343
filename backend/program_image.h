// The program image: everything the runtime needs of a compiled program — its kernels with their
// entry points and launch metadata, the source sites that counters and messages name, the
// global variables with their initialisers, and the host main. The engine builds it from the
// IR and the JIT's code; the runtime reads it and nothing else of the compiler (no AST, no IR).
//
// Plain C++ types only, beside backend/abi.h (the calling contract of compiled code).
#pragma once

#include "backend/abi.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace kern::backend {

/// Signature of a compiled kernel: one call runs one warp of one block.
using WarpFunction = void (*)(KernWarpCtx *ctx);
/// Signature of the compiled host `main`: argc/argv are passed whether or not main takes them.
using MainFunction = int32_t (*)(KernHostCtx *ctx, int32_t argc, char **argv);

/// A runtime symbol the JIT may resolve: name and address. The JIT resolves these, the C math
/// library functions that LLVM lowers intrinsics to, and nothing else in the process.
using SymbolList = std::vector<std::pair<std::string, void *>>;

/// A compiled kernel, as the runtime sees it.
struct KernelImage {
  std::string name;
  /// The kernel as CUDA's device-side messages name it: "void check(const int *)".
  std::string signature;
  /// The warp function that runs a launch of this kernel (compiled as the run asked: with or
  /// without the counter hooks, checked or not).
  WarpFunction fn = nullptr;
  uint32_t paramBytes = 0;
  uint64_t staticSharedBytes = 0;
  bool usesBarriers = false;
  /// Compiled to run a whole block per call (ir::runsBlockInRegions), its warps one after
  /// another between barriers, with no fiber.
  bool wholeBlock = false;
  /// The kernel's block form, or null (CompiledProgram::blockKernel): the runtime runs a block
  /// of several warps with it, one call for the block, while nothing is counted, or always
  /// where it counts itself (blockFnCounts: compiled with the counters).
  WarpFunction blockFn = nullptr;
  bool blockFnCounts = false;
  /// Uses what an atomic on global memory returns (ir::usesGlobalAtomicResults): its blocks run
  /// one after another in order, on one worker, so that which block gets which value, and all
  /// the program computes from it, is the same with any number of workers.
  bool orderedBlocks = false;
  /// Registers per thread, for occupancy and the launch's register check. An estimate: the
  /// backend does not allocate registers the way ptxas does (the engine fills in the IR's
  /// estimate; Options::registersPerThread overrides it).
  int registers = 32;
  /// False when `registers` is a real count rather than an estimate. An estimated count never
  /// makes a launch fail: like ptxas under a block-size bound, it is lowered until one block
  /// fits, and the launch record says so.
  bool registersEstimated = true;
  /// __launch_bounds__'s maxThreadsPerBlock; 0 when the kernel has none.
  int launchBoundsMaxThreads = 0;
  /// The lowest compute capability (major * 10 + minor) that runs the kernel, and the feature
  /// that requires it ("global-memory atomics (atomicAdd)"); 10 and empty when any does.
  int minComputeCapability = 10;
  std::string minComputeCapabilityWhy;
  /// The bytes of one thread's local variables, the kernel's and those of the deepest path of
  /// calls (ir::localMemoryNeed): the launch checks them against the device's local memory per
  /// thread, as a GPU refuses a launch whose local memory it cannot provide.
  uint64_t localBytesPerThread = 0;
  /// The bytes of warp local memory (KernWarpCtx::localSp) the frames that live there take on
  /// the deepest path of calls, for one warp; 0 when no function the kernel may call keeps its
  /// frame there (then the runtime gives its warps none).
  uint64_t localRegionBytes = 0;
  /// Some device function it may call is recursive: its warps get the device's whole local
  /// memory per thread, and a recursion too deep for it faults.
  bool localRecursive = false;
  /// Each parameter's offset in the packed buffer and its size: how cudaLaunchKernel and
  /// cuLaunchKernel pack the arguments they are handed as `void **`.
  std::vector<std::pair<uint32_t, uint32_t>> params;
  /// The name a C++ compiler gives the kernel's symbol (`_Z9vectorAddPKfS0_Pfi`), which a
  /// driver-API program may pass to cuModuleGetFunction; empty for an `extern "C"` kernel or
  /// one whose parameter types the engine does not mangle.
  std::string mangledName;
  /// A kernel of a module loaded while the program runs, when the run compiles its kernels fast
  /// and profiles some launches: the variant with the counter hooks (the program's own come
  /// from ProgramImage::countingKernels).
  WarpFunction countingFn = nullptr;
};

/// What a source site is (the counters and the reports name sites by it).
enum class SiteKind : uint8_t {
  Load,
  Store,
  Atomic,
  Branch,
  Loop,
  Barrier,
  Call,
  Printf,
  Launch,
  Other
};

/// One source site: the unit that counters, faults and reports are attributed to.
struct SiteImage {
  uint32_t file = 0; ///< index into ProgramImage::files
  uint32_t line = 0; ///< 0: no location
  uint32_t col = 0;
  SiteKind kind = SiteKind::Other;
  std::string what; ///< short description: "load f32 global", "if", "for"...
  /// A load's share of a wait in its warp's latency chain, in sixteenths (ir::Site).
  uint8_t waitSixteenths = 16;
};

/// Where a global variable lives.
enum class GlobalSpace : uint8_t { Host, Device, Constant };

/// A file-scope variable: allocated and initialised by the runtime before main runs.
struct GlobalImage {
  /// The id compiled code passes to kern_rt_global_addr. Ids only grow as a REPL session adds
  /// definitions, so a variable keeps its storage from one image to the next.
  uint32_t id = 0;
  std::string name;
  GlobalSpace space = GlobalSpace::Device;
  uint64_t size = 0;
  uint64_t align = 1;
  std::vector<uint8_t> init; ///< the first bytes; the rest (all of it when empty) zero
  /// Pointers in the initial bytes to other globals: at `offset`, the address of global
  /// `target` (a GlobalImage::id) plus `addend`, written once the globals have storage.
  struct Reloc {
    uint64_t offset = 0;
    uint32_t target = 0;
    int64_t addend = 0;
  };
  std::vector<Reloc> relocs;
};

/// The kernels compiled with the counter hooks, by kernel index (the same order as
/// ProgramImage::kernels). Given to a run that compiled its kernels fast and profiles only some
/// launches: the runtime asks once, at the first launch it profiles. False with `error` set if
/// they cannot be had.
using CountingKernels = std::function<bool(std::vector<WarpFunction> &out, std::string &error)>;

/// A module that a running program compiles (NVRTC) or loads (the driver API's cuModuleLoad*):
/// its source text, the name it is known by (diagnostics name it), in-memory headers by include
/// name, and the compiler options it was given (nvrtcCompileProgram's: -I, -D, the
/// architecture...). Its sites, globals and files are numbered from the given firsts, after the
/// program's, so that the runtime holds them in the program's tables.
struct ModuleRequest {
  std::string source;
  std::string name;
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::string> options;
  uint32_t firstSite = 1;
  uint32_t firstGlobal = 0;
  uint32_t firstFile = 0;
};

/// A compiled module: its kernels, its sites (ids from ModuleRequest::firstSite; SiteImage::file
/// counts from firstFile), its files and its globals (ids from firstGlobal).
struct ModuleImage {
  std::vector<KernelImage> kernels;
  std::vector<SiteImage> sites;
  std::vector<std::string> files;
  std::vector<GlobalImage> globals;
  bool usesDeviceHeap = false;
};

/// Compiles a module for the running program (the engine provides it; the runtime never sees
/// the compiler). False with the diagnostics in `log` when the source does not compile; a
/// successful compile may leave warnings there. The code stays valid while the engine's run
/// lasts.
using ModuleCompiler =
    std::function<bool(const ModuleRequest &request, ModuleImage &out, std::string &log)>;

/// A compiled program, as the runtime receives it.
struct ProgramImage {
  std::vector<KernelImage> kernels;
  /// Device code calls malloc or new: the runtime reserves the device heap at the first launch.
  bool usesDeviceHeap = false;
  /// By site id; entry 0 is "no site".
  std::vector<SiteImage> sites;
  /// File names by SiteImage::file, as the user gave them; files[0] is the main file.
  std::vector<std::string> files;
  /// The main file's name: argv[0] of the program, and the file of sites without one.
  std::string name = "kern";
  std::vector<GlobalImage> globals;
  /// The program's main, or null when it has none.
  MainFunction main = nullptr;
  /// If set, `kernels` are the fast variant and this supplies the counting one (see
  /// CountingKernels); if empty, `kernels` run every launch as they are.
  CountingKernels countingKernels;

  /// "file:line:col" of `site`; "" for site 0, the program's name for an unknown site.
  std::string location(uint32_t site) const {
    if (site == 0)
      return "";
    if (site >= sites.size())
      return name;
    const SiteImage &s = sites[site];
    return fileName(s.file) + ":" + std::to_string(s.line) + ":" + std::to_string(s.col);
  }
  /// The name of file `file`, or the program's name for an unknown file.
  std::string fileName(uint32_t file) const { return file < files.size() ? files[file] : name; }
};

} // namespace kern::backend
