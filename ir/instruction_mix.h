// The SASS instructions each IR operation becomes, by class: what one evaluation adds to the
// warp instruction counters (docs/counters.md, "Instructions" and "Instruction classes").
#pragma once

#include "ir/ir.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>

namespace kern::ir {

/// The classes of the GPU's instructions that kern estimates. The order is the counters'
/// (backend/counter_fields.def, instrInteger...) and the report's (runtime instrClassKey).
enum class InstrClass : uint8_t {
  Integer,    ///< integer and address arithmetic, integer compares (IMAD, IADD3, ISETP, LOP3...)
  Fp32,       ///< single-precision arithmetic and compares (FADD, FMUL, FFMA, FSETP...)
  Fp64,       ///< double-precision arithmetic and compares (DADD, DMUL, DFMA, DSETP)
  Special,    ///< the special-function unit (MUFU: reciprocal, square root, exp2, sin...)
  Conversion, ///< between integer and floating point, or float widths (I2F, F2I, F2F, FRND)
  Memory,     ///< loads, stores and atomics of every space (LDG, STS, ATOM, RED...)
  Control,    ///< branches, EXIT, reconvergence (BSSY, BSYNC), barriers, calls
  Other,      ///< moves and reads of special registers and parameters (MOV, S2R, LDC), shuffles
};
constexpr size_t kInstrClasses = 8;

/// Estimated SASS instructions, by class.
struct InstrMix {
  std::array<unsigned, kInstrClasses> n{};
  /// Of them, those the ADU executes besides barriers and EXIT: loads from the constant bank
  /// into a lane's register and the reads at the kernel's start (kernelReads).
  unsigned adu = 0;

  InstrMix() = default;
  InstrMix(InstrClass c, unsigned k) { add(c, k); }
  void add(InstrClass c, unsigned k = 1) { n[static_cast<size_t>(c)] += k; }
  unsigned operator[](InstrClass c) const { return n[static_cast<size_t>(c)]; }
  unsigned total() const;
  InstrMix &operator+=(const InstrMix &o);
  friend InstrMix operator+(InstrMix a, const InstrMix &b) { return a += b; }
  bool operator==(const InstrMix &o) const = default;
};

/// The IR operations of `e` (itself and its operands, recursively) as SASS instructions by
/// class: what one evaluation adds to the warp instruction counters. Leaves count nothing: a
/// variable, a constant, a builtin such as threadIdx.x, an address known at compile time are
/// values already in a register or immediates. Empty for no expression.
InstrMix operationMix(const Expr *e);
/// operationMix(e).total().
unsigned countOperations(const Expr *e);
/// Whether `e` is arithmetic on values the compiler knows alone (`-0.01f`, `1 << 4`, `k * 64`
/// in a copy of a fully unrolled loop over k: Expr::knownConstant), which it folds into an
/// immediate.
bool knownValue(const Expr *e);
/// What a loop computes before it starts: the operations of its hoisted expressions
/// (Stmt::hoisted, ir/hoist.h), each counted as if it were not hoisted.
InstrMix hoistedMix(const Stmt &loop);
/// What a loop adds to step the pointers of its moving addresses (Stmt::pointerSteps,
/// Stmt::strideAdds).
inline InstrMix pointerStepMix(const Stmt &loop) {
  return InstrMix(InstrClass::Integer, loop.pointerSteps);
}
inline InstrMix strideAddMix(const Stmt &loop) {
  return InstrMix(InstrClass::Integer, loop.strideAdds);
}

/// What an `if` adds to the instruction counters besides its sides: its condition's
/// operations, and the branch (with BSSY and BSYNC where lanes may split) or the predicated
/// exit; a predicated if adds only its compare.
InstrMix ifMix(const Stmt &s);
unsigned ifInstructions(const Stmt &s);

/// What a statement other than an if or a loop adds by itself (its nested blocks aside): an
/// assignment its value's operations (naming a value is no instruction: `x = y` is a register
/// move that the GPU's compiler removes by renaming, so neither it nor the temporaries C++ code
/// passes through count), a store 1 and its address's and value's, a return 1 and its value's,
/// an evaluation its value's, a barrier or printf 1. A load or store of a local variable's own
/// storage at a constant offset (a struct's member, a small array's element) is a register's
/// use: no instruction of its own.
InstrMix statementMix(const Stmt &s);
/// An assignment's: its value's operations.
unsigned countAssignment(const Stmt &s);

/// The reads of special registers and parameters that a kernel's code issues (class Other: S2R,
/// LDC), and of them the ADU's (InstrMix::adu; docs/timing.md, "The ADU").
struct KernelReads {
  /// At the start: the stack pointer's load; for the ADU also the reads nvcc's code of a
  /// kernel that uses shared memory (its window) or a y or z index makes there.
  InstrMix entry;
  /// Before a statement's own instructions: one where each special register, parameter or
  /// launch dimension is first read, a loop's before the loop. The ADU's are the loads from
  /// the constant bank into a lane's register (LDC), which nvcc makes for a pointer parameter
  /// indexed by a 32-bit value, a 32-bit parameter that per-lane arithmetic reads, and
  /// blockDim.x where blockIdx.x is read only to multiply it; the rest it reads into uniform
  /// registers (ULDC).
  std::map<const Stmt *, InstrMix> at;
};
KernelReads kernelReads(const Function &kernel);

} // namespace kern::ir
