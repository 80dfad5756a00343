// What warp and host code generation share: the LLVM types of Kern IR types, the per-module
// state (function tables, string constants, runtime declarations), and the expression
// semantics (casts, arithmetic, comparisons, math intrinsics) written once so that they work on
// scalars (host code) and on <32 x T> vectors (warp code) alike.
#pragma once

#include "backend/backend.h"
#include "backend/runtime_functions.h"
#include "ir/block_level.h"
#include "ir/ir.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kern::backend {

constexpr unsigned kWarpSize = KERN_WARP_SIZE;
using Builder = llvm::IRBuilder<>;

/// Addresses below this are "null" for the fault checks: a small offset from a null pointer
/// (a struct member of a null pointer) is still a null dereference.
constexpr uint64_t kNullPageSize = 4096;

/// Device function call depth beyond which a call faults with KERN_FAULT_RECURSION. Real GPUs
/// bound recursion by the per-thread stack (1 KB default on sm_20+); a fixed depth keeps the
/// limit independent of frame sizes and of the host's stack.
constexpr uint32_t kMaxCallDepth = 1000;

/// Loop back-edges of host code between two polls of the time limit (kern_rt_host_poll).
constexpr int32_t kHostPollInterval = 1 << 16;

/// What a device function's frame takes beyond its local slots (ir::warpFrameBytes): its
/// variables as <32 x T> registers spilled, and the calls it makes into the runtime.
constexpr uint64_t kFrameSlackBytes = 64 << 10;

/// The symbol of a kernel's block form: its name followed by this.
inline constexpr const char *kBlockFormSuffix = ".block";

/// The plan of kernel `f`'s block form, where its statements that reach a barrier run once per
/// block (ir::planBlockLevel), or one not `eligible` when it gets none: a block form is made in
/// fast and checked mode (not where counters are compiled in), for a program that reads no clock.
ir::BlockLevelPlan blockFormPlan(const ir::Module &m, const ir::Function &f,
                                 const CompileOptions &o);

/// Per-module code generation state shared by warp_codegen and host_codegen.
struct ModuleContext {
  llvm::LLVMContext &llvm;
  llvm::Module &module;
  const ir::Module &ir;
  const CompileOptions &options;
  /// Kernels (`@name`) and device functions (`@name.warp`).
  std::map<const ir::Function *, llvm::Function *> warpFunctions;
  /// Host functions (`@name.host`).
  std::map<const ir::Function *, llvm::Function *> hostFunctions;
  /// Kernels compiled to run a whole block per call (ir::runsBlockInRegions).
  std::set<const ir::Function *> regionKernels;
  /// The kernels that also have a block form (blockFormPlan; warp_blocks.cpp), `@name.block`:
  /// their plans and functions.
  std::map<const ir::Function *, ir::BlockLevelPlan> blockLevelKernels;
  std::map<const ir::Function *, llvm::Function *> blockForms;
  /// The host function table (ir::Module::hostFunctionTable): entry v is the function a
  /// function pointer of value v calls (entry 0, the null pointer, is none), and the number of
  /// its signature (hostSignatures), which a call through a pointer checks.
  llvm::GlobalVariable *hostFunctionTable = nullptr;
  llvm::GlobalVariable *hostFunctionSignatures = nullptr;
  std::map<std::string, uint32_t> hostSignatures;
  /// The functions that perform the general path of warp memory accesses, one per kind of
  /// access (warp_general.cpp), by name.
  std::map<std::string, llvm::Function *> accessFunctions;
  /// A kind of access, as the function of its general path is named after it.
  struct AccessKind {
    uint32_t op = 0; // KERN_ACCESS_LOAD or KERN_ACCESS_STORE
    ir::Type type;
    ir::AddrSpace space = ir::AddrSpace::Generic;
  };
  /// When a program is compiled as several modules (compile.cpp), the general access functions
  /// are all defined in a module of their own: the modules of kernels then only declare the ones
  /// they call (external), and list their kinds here for that module to define.
  bool externalAccessFunctions = false;
  std::map<std::string, AccessKind> accessKinds;
  /// The first internal error met while generating code (empty: none).
  std::string error;

  /// Some kernel or device function of the program keeps its frame in the warp's local memory
  /// (ir::frameInLocalMemory): a generic address may then point there as well as into the
  /// stack, and the address checks look at both windows.
  bool localMemory = false;

  ModuleContext(llvm::LLVMContext &c, llvm::Module &m, const ir::Module &irm,
                const CompileOptions &o);

  /// Records an internal error (a Kern IR construct the backend cannot handle); code generation
  /// goes on quietly and compile() reports the first one.
  void fail(const std::string &message);
  /// Declares (once) an external function the JIT resolves from its allow-list.
  llvm::Function *externalFunction(const std::string &name, llvm::FunctionType *type);
  /// Declares (once) the runtime function `f` with the type its row gives.
  llvm::Function *runtimeFunction(RuntimeFunction f);
  /// A private constant holding `text` and its NUL, shared between uses; its address.
  llvm::Constant *stringConstant(const std::string &text);
  /// The index of `kernel` in Module::kernels() order.
  uint32_t kernelIndex(const ir::Function *kernel) const;

private:
  std::map<std::string, llvm::GlobalVariable *> strings_;
};

// ---- types ---------------------------------------------------------------------------------

/// The type a value of `t` has in a register: i1 for bool, iN, float, double, and i64 for
/// pointers (every pointer is a plain 64-bit host address; see abi.h).
llvm::Type *registerType(llvm::LLVMContext &c, ir::Type t);
/// The type a value of `t` has in memory: as registerType, but bool is a byte.
llvm::Type *memoryType(llvm::LLVMContext &c, ir::Type t);
/// <32 x t>.
llvm::FixedVectorType *warpVector(llvm::Type *t);
/// `scalar` with the shape of `like`: itself if `like` is a scalar, else a vector of as many.
llvm::Type *sameShape(llvm::Type *scalar, llvm::Type *like);

/// Register value -> memory value (bool: zext to i8) and back (byte != 0).
/// The value a shared-memory atomic `op` with operand `v` leaves where `old` was (shared
/// atomics of a block need no lock: one worker thread runs the block); null for an operation
/// CUDA has no atomic for.
llvm::Value *sharedAtomicResult(Builder &b, llvm::AtomicRMWInst::BinOp op, llvm::Value *old,
                                llvm::Value *v);
llvm::Value *toMemory(Builder &b, llvm::Value *v, ir::Type t);
llvm::Value *fromMemory(Builder &b, llvm::Value *v, ir::Type t);

/// Masked loads, stores, gathers and scatters of a warp vector (<32 x t>, a lane a element).
/// A 128-bit element moves as its two 64-bit halves (<64 x i64>, each lane's mask bit and
/// address used twice): LLVM scalarises a masked intrinsic on <32 x i128> into a chain of 32
/// blocks whose phis each carry the whole vector in 64 general registers, which x86's domain
/// reassignment then takes seconds over. The halves keep the lane order, so where lanes overlap
/// the highest one still lands.
llvm::Value *warpMaskedLoad(Builder &b, llvm::Type *vecTy, llvm::Value *ptr, llvm::Align align,
                            llvm::Value *mask, const llvm::Twine &name = "");
void warpMaskedStore(Builder &b, llvm::Value *v, llvm::Value *ptr, llvm::Align align,
                     llvm::Value *mask);
llvm::Value *warpMaskedGather(Builder &b, llvm::Type *vecTy, llvm::Value *ptrs, llvm::Align align,
                              llvm::Value *mask, const llvm::Twine &name = "");
void warpMaskedScatter(Builder &b, llvm::Value *v, llvm::Value *ptrs, llvm::Align align,
                       llvm::Value *mask);

/// The constant value of a Const expression, with the shape of `shape` (scalar or vector type).
llvm::Constant *constantValue(const ir::Expr &e, llvm::Type *shape);
/// Zero of `t`'s register type, shaped like `shape`.
llvm::Constant *zeroValue(ir::Type t, llvm::Type *shape);

// ---- expression semantics (scalar or vector operands) -------------------------------------

/// C conversion of `v` from `from` to `to`.
llvm::Value *emitCast(Builder &b, llvm::Value *v, ir::Type from, ir::Type to);
/// `op v`, v of type `t` (LogNot yields Bool).
llvm::Value *emitUnary(Builder &b, ir::UnaryOp op, llvm::Value *v, ir::Type t);
/// `a op b` with operands of type `t`. Div/Rem never trap: lanes whose divisor is zero, or
/// INT_MIN / -1 (x86's idiv traps on both; a GPU returns INT_MIN and 0), divide by 1 instead.
/// Callers report division by zero before calling this.
/// `gpuShifts`: shifts by the width or more clamp as PTX's do (device code), instead of the
/// amount being masked as x86 does (host code).
llvm::Value *emitBinary(Builder &b, ir::BinaryOp op, llvm::Value *a, llvm::Value *c, ir::Type t,
                        bool gpuShifts = false);
/// i1 (or <32 x i1>): the divisor `d` of type `t` is zero.
llvm::Value *isZero(Builder &b, llvm::Value *d, ir::Type t);
/// A Math intrinsic on `args` (types `argTypes`) with result type `result`.
llvm::Value *emitMath(ModuleContext &mc, Builder &b, ir::IntrinsicId id,
                      const std::vector<llvm::Value *> &args, const std::vector<ir::Type> &argTypes,
                      ir::Type result);

/// One printf argument after C's default argument promotions, as the 64 bits the runtime's
/// printf reads (abi.h): ints sign/zero-extended, float -> double, pointers as addresses.
llvm::Value *promoteVarArg(Builder &b, llvm::Value *scalar, ir::Type t);

/// The hardware model's divergence rule (abi.h kern_branch_splits) in IR: i1, true when some
/// lane of the i32 lane set `mask` is in `taken` and some is not. tests/unit/backend runs it
/// against kern_branch_splits, so that the two cannot drift apart.
llvm::Value *emitBranchSplits(Builder &b, llvm::Value *mask, llvm::Value *taken);

/// Allocates `t` in the entry block of the current function (where mem2reg/SROA find it).
llvm::AllocaInst *entryAlloca(Builder &b, llvm::Type *t, const llvm::Twine &name,
                              uint64_t align = 0);

/// Adds the attributes every generated function gets (unwind tables: host faults unwind
/// through compiled frames; see kern_rt_host_fault).
void setCommonAttributes(llvm::Function *f);

} // namespace kern::backend
