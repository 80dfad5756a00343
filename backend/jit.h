// A small wrapper around LLVM ORC's LLJIT (after BuildingAJIT chapter 1): host CPU target,
// optimisation as an IR transform layer, and an allow-list of resolvable symbols instead of the
// whole process.
#pragma once

#include "backend/backend.h"

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Support/Error.h>

#include <memory>
#include <string>

namespace kern::backend {

class Jit {
public:
  /// A JIT for the host CPU (its features, as -march=native), optimising at `optLevel` (0-3).
  static llvm::Expected<std::unique_ptr<Jit>> create(int optLevel);

  const llvm::DataLayout &dataLayout() const { return lljit_->getDataLayout(); }
  const llvm::Triple &triple() const { return lljit_->getTargetTriple(); }

  /// Makes `runtime` (the kern_rt_* functions) and the C library functions of
  /// runtime_symbols.def resolvable; nothing else is.
  llvm::Error defineSymbols(const SymbolList &runtime);
  /// Adds a module; it is optimised and compiled when a symbol of it is first looked up.
  llvm::Error addModule(llvm::orc::ThreadSafeModule module);
  /// Adds an object file (compileObject); it is linked when a symbol of it is first looked up.
  llvm::Error addObject(std::unique_ptr<llvm::MemoryBuffer> object);
  /// The target the JIT links for (host CPU, code model and relocation model), to create the
  /// target machines that compile modules on other threads (one each: they are not shared).
  const llvm::orc::JITTargetMachineBuilder &targetMachineBuilder() const { return *jtmb_; }
  int optLevel() const { return optLevel_; }
  /// The address of `name`, compiling what is needed; an unresolved reference is an error.
  llvm::Expected<void *> lookup(llvm::StringRef name);

  /// The textual IR of the last module added by addModule, after optimisation.
  const std::string &optimisedIR() const { return optimisedIR_; }
  /// Native assembly for textual IR (a separate compile of the same module).
  llvm::Expected<std::string> assemble(const std::string &ir) const;
  /// Errors ORC reported asynchronously (e.g. the names of unresolved symbols) since the last
  /// call; ORC would otherwise print them to stderr.
  std::string takeSessionErrors();

private:
  Jit() = default;

  std::unique_ptr<llvm::orc::LLJIT> lljit_;
  std::unique_ptr<llvm::orc::JITTargetMachineBuilder> jtmb_;
  std::unique_ptr<llvm::TargetMachine> tm_; // for the optimiser's cost models
  int optLevel_ = 2;
  std::string optimisedIR_;
  std::string sessionErrors_;
};

/// Runs LLVM's optimisation pipeline of `optLevel` (0-3) on `m`, with `tm`'s cost models; with
/// `vectorise` false, without the loop and SLP vectorisers.
void optimiseModule(llvm::Module &m, llvm::TargetMachine &tm, int optLevel, bool vectorise);
/// The object file of `m`, compiled by `tm`.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> compileObject(llvm::Module &m,
                                                                  llvm::TargetMachine &tm);

} // namespace kern::backend
