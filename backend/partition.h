// How compile() splits a program into LLVM modules that are optimised and compiled apart, on
// several threads at once: a pure function of the program, so that the code it produces never
// depends on the number of threads or on their timing. No LLVM type appears here.
#pragma once

#include "ir/ir.h"

#include <cstdint>
#include <vector>

namespace kern::backend {

/// The functions compiled together in one LLVM module.
struct CompileUnit {
  /// In module order within a group of kernels that call device functions in common. Host
  /// units hold host functions only, kernel units kernels and the device functions they call,
  /// directly or not.
  std::vector<const ir::Function *> functions;
  bool host = false;
  /// The number of IR statements and expressions of its functions: an estimate of its compile
  /// time, to start the largest units first.
  uint64_t size = 0;
};

/// Units of at least this size are not merged with others; smaller ones are packed together
/// up to about this size, so that the fixed cost of a module is paid for a few small kernels
/// at once. (A compile that keeps its modules for the next one, as the REPL's, packs none: a
/// new or changed kernel then recompiles its own unit only.)
constexpr uint64_t kUnitSize = 1500;

/// The units of `m`: first the host functions that main or a function pointer may reach, all in
/// one unit (host code inlines across functions freely, and the host side of a program is one
/// `main`; the others, as the host versions of `__host__ __device__` functions that only device
/// code calls, are dead code that LLVM would delete); then the kernels, each with
/// the device functions it reaches, where kernels that reach a device function in common share
/// a unit (so that no function is compiled twice and every call stays inside its module),
/// packed in module order into units of about `unitSize` (0: each group a unit of its own).
std::vector<CompileUnit> partitionModule(const ir::Module &m, uint64_t unitSize = kUnitSize);

/// The number of statements and expressions of `f`'s body.
uint64_t functionSize(const ir::Function &f);

} // namespace kern::backend
