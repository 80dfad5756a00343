// The backend's interface to the layers above: compile a Kern IR module to native code with
// LLVM ORC and hand back entry points. No LLVM type appears here.
#pragma once

#include "backend/abi.h"
#include "backend/program_image.h"
#include "ir/ir.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kern::backend {

/// Object files of the modules compiled before (object_cache.h): a compile that makes a
/// module again links its object instead of optimising and compiling it.
class ObjectCache;
/// A cache that holds up to `maxBytes` of module texts, objects and their IR.
std::shared_ptr<ObjectCache> newObjectCache(size_t maxBytes);

/// How long one module of a compile took, stage by stage (CompileOptions::timings).
struct ModuleTiming {
  std::vector<std::string> kernels; ///< the kernels it holds, in module order
  bool host = false;                ///< host functions (no kernels)
  bool accessFunctions = false;     ///< the general access functions shared by the others
  bool cached = false; ///< its object came from the cache: generated, neither optimised nor coded
  double generateMs = 0, optimiseMs = 0, codeMs = 0;
};

/// A compile's time: its modules (in unit order) and the linking of their objects.
struct CompileTimings {
  std::vector<ModuleTiming> modules;
  double linkMs = 0;
  double wallMs = 0; ///< the whole compile, its modules on `threads` threads
  unsigned threads = 1;
};

struct CompileOptions {
  /// Emit calls to the counter hooks (kern_rt_count_*) at every memory operation and branch.
  /// If false, compiled code counts nothing (fast mode).
  bool counters = false;
  /// Emit calls to kern_rt_check_access at every global, shared and generic memory operation
  /// (checked mode: shared-memory races, reads of never-written global memory).
  bool checked = false;
  /// LLVM optimisation level, 0-3. If unset, 2.
  int optLevel = 2;
  /// Loop back-edges between two kern_rt_poll calls (runaway-kernel checks). If unset, 1<<16.
  int64_t pollInterval = 1 << 16;
  /// Device code contracts a multiply and an add into a fused multiply-add, as nvcc does by
  /// default (its --fmad=true); false rounds each operation (--fmad=false). Host code never
  /// contracts, as the host compiler does not for a CPU without the option.
  bool fmad = true;
  /// Threads that compile the program's modules at once (compile.cpp); 0: one per hardware
  /// thread. The code produced is the same whatever their number.
  unsigned threads = 0;
  /// Keep the optimised LLVM IR for CompiledProgram::llvmIR() and assembly(); without it they
  /// generate and optimise the program again when first asked (the same IR, at a cost).
  bool keepIR = false;
  /// Where modules compiled before are found and new ones kept (null: none). The code is the
  /// same with or without it.
  std::shared_ptr<ObjectCache> cache;
  /// If set, compile() records here how long each module and stage took.
  CompileTimings *timings = nullptr;
};

class CompiledProgram {
public:
  virtual ~CompiledProgram() = default;
  /// The warp function of the i-th kernel, in ir::Module::kernels() order.
  virtual WarpFunction kernel(size_t index) const = 0;
  /// Whether that kernel runs a whole block per call, given warp 0's context with the others
  /// after it, instead of one warp per call that waits in kern_rt_barrier (see
  /// ir::runsBlockInRegions).
  virtual bool kernelRunsWholeBlock(size_t index) const = 0;
  /// That kernel's block form (backend/warp_blocks.cpp), or null: it runs a whole block per
  /// call with the statements that reach a barrier once per block, given warp 0's context with
  /// the others after it, for blocks of more than one warp while nothing is counted, or while
  /// anything is, if it counts itself (countsItself).
  virtual WarpFunction blockKernel(size_t index) const = 0;
  /// Whether the code was compiled with the counter hooks (CompileOptions::counters).
  virtual bool countsItself() const = 0;
  /// The program's main, or null if it has none.
  virtual MainFunction main() const = 0;
  /// The LLVM IR of the program after optimisation (`kern emit --llvm`): its modules one after
  /// another (compile.cpp).
  virtual std::string llvmIR() const = 0;
  /// The native assembly (`kern emit --asm`).
  virtual std::string assembly() const = 0;
};

/// Compiles `module`, which must outlive the program returned (its llvmIR() and assembly() may
/// read it). On failure returns null and sets `error` (an internal error: the module
/// was verified, so this is kern's bug, reported as such).
std::unique_ptr<CompiledProgram> compile(const ir::Module &module, const CompileOptions &options,
                                         const SymbolList &runtimeSymbols, std::string &error);

} // namespace kern::backend
