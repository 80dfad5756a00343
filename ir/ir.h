// Kern IR: per-thread, typed, structured. Expressions are trees; control flow is kept as
// regions (if / loop / break / continue / return), so the backend can turn it into mask
// arithmetic without a CFG linearisation. Every memory operation, branch, barrier and atomic
// carries a SiteId, the unit by which counters are reported.
#pragma once

#include "frontend/source.h"
#include "frontend/types.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace kern::ir {

using frontend::AddrSpace;
using frontend::SourceLoc;

// ---------------------------------------------------------------------------------------------
// Types: scalars only. Aggregates are lowered to byte addresses and scalar loads/stores.
// ---------------------------------------------------------------------------------------------

/// B128 is 16 raw bytes: only loaded and stored, for copies of 16-byte aligned structs
/// (float4, int4, __align__(16) structs), which nvcc emits as one 128-bit access.
enum class TypeKind : uint8_t { Void, Bool, I8, I16, I32, I64, F32, F64, Ptr, B128 };

struct Type {
  TypeKind kind = TypeKind::Void;
  bool isSigned = false;                // integers only
  AddrSpace space = AddrSpace::Generic; // Ptr only: where it points, if known

  static Type voidTy() { return {TypeKind::Void}; }
  static Type boolTy() { return {TypeKind::Bool}; }
  static Type i8(bool s = true) { return {TypeKind::I8, s}; }
  static Type i16(bool s = true) { return {TypeKind::I16, s}; }
  static Type i32(bool s = true) { return {TypeKind::I32, s}; }
  static Type i64(bool s = true) { return {TypeKind::I64, s}; }
  static Type f32() { return {TypeKind::F32}; }
  static Type f64() { return {TypeKind::F64}; }
  static Type ptr(AddrSpace sp) { return {TypeKind::Ptr, false, sp}; }
  static Type b128() { return {TypeKind::B128}; }

  bool isVoid() const { return kind == TypeKind::Void; }
  bool isBool() const { return kind == TypeKind::Bool; }
  bool isInt() const { return kind >= TypeKind::I8 && kind <= TypeKind::I64; }
  bool isFloat() const { return kind == TypeKind::F32 || kind == TypeKind::F64; }
  bool isPtr() const { return kind == TypeKind::Ptr; }
  /// Width in bits (Bool = 1, Ptr = 64).
  unsigned bits() const;
  /// Size in memory in bytes (Bool = 1).
  unsigned bytes() const { return isBool() ? 1 : bits() / 8; }
  bool operator==(const Type &o) const {
    return kind == o.kind && isSigned == o.isSigned && (kind != TypeKind::Ptr || space == o.space);
  }
  bool operator!=(const Type &o) const { return !(*this == o); }
  std::string str() const; // "i32", "u64", "f32", "ptr.global", "bool"
};

// ---------------------------------------------------------------------------------------------
// Sites
// ---------------------------------------------------------------------------------------------

using SiteId = uint32_t;

enum class AtomicScope : uint8_t { Device, Block, System };

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

struct Site {
  SiteId id = 0;
  SiteKind kind = SiteKind::Other;
  SourceLoc loc;
  std::string what; // short description, e.g. "load f32 global", "if", "for"
  /// A load's share of a wait in its warp's latency chain, in sixteenths: 16 where the warp
  /// waits for it alone, 0 where it is in flight with an earlier one (ir/load_waves.h).
  uint8_t waitSixteenths = 16;
};

// ---------------------------------------------------------------------------------------------
// Entities
// ---------------------------------------------------------------------------------------------

struct Function;
struct Block;

/// A mutable per-thread variable (C local or parameter). Each C declaration gets its own Var;
/// scoping was resolved by sema. Aggregates (arrays, structs) are never Vars: they live in
/// memory (LocalVar slots) and are reached by address.
struct Var {
  uint32_t id = 0;
  std::string name;
  Type type;
  bool isParam = false;
  /// Kernel parameters only: nonzero for a struct passed by value; the Var then holds the
  /// address of its `aggregateBytes` bytes in the parameter buffer instead of a value.
  uint32_t aggregateBytes = 0;
  // Filled by analysis: the value is the same in every lane of a warp at every point.
  bool uniform = false;
};

/// A per-thread block of memory in the local address space (a local array or struct, or a
/// scalar whose address is taken). The backend gives each lane its own copy.
struct LocalSlot {
  uint32_t id = 0;
  std::string name;
  uint64_t size = 0;
  uint64_t align = 1;
  /// Filled by analysis (markDirectSlots): the slot's address is never a value, only the base
  /// of the loads and stores of the function itself, each naturally aligned where its offset is
  /// a constant. The backend may then lay the 32 lanes' copies out as it likes.
  bool direct = false;
};

/// A file-scope variable: `__device__` (global space), `__constant__` (constant space) or a
/// host global (host space), with its initial bytes.
/// A pointer inside a global's initial bytes that holds another global's address
/// (`const char *s = "x";`, `int *p = &n;`): the address is known only once storage exists, so
/// the runtime writes it at `offset` when it allocates the globals.
struct GlobalReloc {
  uint64_t offset = 0;
  uint32_t target = 0; // GlobalVar::id
  int64_t addend = 0;  // bytes past the target's start
};

struct GlobalVar {
  uint32_t id = 0;
  std::string name;
  AddrSpace space = AddrSpace::Global;
  uint64_t size = 0;
  uint64_t align = 1;
  std::vector<uint8_t> init; // empty = zero-initialised
  std::vector<GlobalReloc> relocs;
};

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

enum class ExprKind : uint8_t {
  Const,        // intValue or floatValue, of `type`
  VarRef,       // var
  BuiltinVar,   // builtinVar
  Unary,        // unaryOp, ops[0]
  Binary,       // binaryOp, ops[0], ops[1] (same type; comparisons yield Bool)
  Cast,         // ops[0] converted to `type` (C conversion semantics)
  Select,       // ops[0] (Bool) ? ops[1] : ops[2]; both arms evaluated, no side effects
  Load,         // *(type*)ops[0] in `space`; site
  Call,         // callee(args = ops); device or host function, same side as the caller.
                // Host code only: callee null is a call through a function pointer, ops[0]
                // (a Ptr holding a Module::hostFunctionTable number), args = ops[1..]
  Intrinsic,    // intrinsic(args = ops): math, warp functions, runtime API calls
  StringConst,  // address of a NUL-terminated constant string (text)
  GlobalAddr,   // address of global (a GlobalVar)
  SharedAddr,   // address of byte intValue of the block's shared memory
  LocalAddr,    // address of local slot (a LocalSlot) of this thread
  ParamAddr,    // kernels: address of byte intValue of the packed parameter buffer (uniform)
  PtrAdd,       // ops[0] (Ptr) + ops[1] (I64 byte offset, signed) -> Ptr of `type`
  FunctionAddr, // host code: the address of host function `callee` (qsort's comparator), for
                // the runtime to call as `ret callee(KernHostCtx *, args...)`
};

/// Bitcast: the operand's bits as `type` (same width; __int_as_float and friends).
enum class UnaryOp : uint8_t { Neg, BitNot, LogNot, Bitcast };

enum class BinaryOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Rem, // Div/Rem: signed or unsigned by operand type; integer division by
       // zero is a reported fault, never a trap
  Shl,
  Shr, // Shr: arithmetic for signed operands
  And,
  Or,
  Xor, // bitwise (also on Bool)
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne, // result Bool; ordered comparisons for floats (C semantics)
  Min,
  Max, // used by intrinsics lowering; signed/unsigned/float by type
};

enum class BuiltinVar : uint8_t {
  ThreadIdxX,
  ThreadIdxY,
  ThreadIdxZ,
  BlockIdxX,
  BlockIdxY,
  BlockIdxZ,
  BlockDimX,
  BlockDimY,
  BlockDimZ,
  GridDimX,
  GridDimY,
  GridDimZ,
  WarpSize,
  LaneId,
};

enum class IntrinsicId : uint16_t {
#define KERN_INTRINSIC(Id, spelling, kind) Id,
#include "ir/intrinsics.def"
#undef KERN_INTRINSIC
};

/// How an intrinsic is implemented (see intrinsics.def).
enum class IntrinsicKind : uint8_t {
  Math,    // pure function of its arguments, per lane (libm or an LLVM intrinsic)
  Warp,    // needs the whole warp: ballot, shuffle, vote (kernel side only)
  Runtime, // a call into the runtime: `kern_rt_<spelling>(ctx, args...)` (host side)
};

const char *intrinsicName(IntrinsicId id);
IntrinsicKind intrinsicKind(IntrinsicId id);

struct Expr {
  ExprKind kind;
  Type type;
  int64_t intValue = 0; // Const (integers, Bool), SharedAddr byte offset
  /// SharedAddr in a __device__ function: relative to the launch's dynamic shared memory,
  /// whose start the runtime gives (KernWarpCtx::dynamicSharedOffset).
  bool dynamicShared = false;
  double floatValue = 0;
  UnaryOp unaryOp = UnaryOp::Neg;
  BinaryOp binaryOp = BinaryOp::Add;
  BuiltinVar builtinVar = BuiltinVar::ThreadIdxX;
  IntrinsicId intrinsic{};
  Var *var = nullptr;
  Function *callee = nullptr;
  GlobalVar *global = nullptr;
  LocalSlot *slot = nullptr; // LocalAddr; Load: the local slot its address points into, if known
  std::string text;          // StringConst
  AddrSpace space = AddrSpace::Generic; // Load
  SiteId site = 0;                      // Load, Call
  /// Atomic intrinsics: the scope the source named (atomicAdd_block, atomicAdd_system). The
  /// operation is the same at every scope on kern's one GPU; only the capability differs.
  AtomicScope atomicScope = AtomicScope::Device;
  std::vector<Expr *> ops;
  bool uniform = false; // filled by analysis
  /// Computed elsewhere (ir/hoist.h): loop-invariant arithmetic that nvcc computes before the
  /// loop (the loop's Stmt::hoisted counts it once), or an address that an earlier one's
  /// register serves with an immediate offset: no instruction where it stands.
  bool hoisted = false;
  /// VarRef: a value the GPU's compiler knows here, a constant in every path that reaches it
  /// (a fully unrolled loop's counter in each copy of its body, a variable assigned a
  /// constant; ir/branch_model.cpp): arithmetic on it folds into immediates.
  bool knownConstant = false;
  /// An address in a fully unrolled loop that moves from copy to copy by a multiple of a
  /// variable (`p + (y + i) * w`): nvcc adds a stride register to the previous copy's, a 64-bit
  /// add where it stands (the loop's Stmt::hoisted counts the rest once; ir/hoist.h).
  bool strided = false;
  explicit Expr(ExprKind k, Type t) : kind(k), type(t) {}
};

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

/// How the GPU's compiled code branches for a loop: which of its tests are branch instructions
/// (ir/branch_model.cpp decides; runtime/counter_rules.h loopBranches counts them, its
/// LoopShapeCode numbered as this).
enum class LoopShape : uint8_t {
  EveryTest, // every test of the condition is a branch: the entry test and one per iteration
  SkipEntry, // the entry test is a predicated exit (the loop ends the kernel): one per iteration
  Unrolled,  // fully unrolled (a constant trip count): no branch
  Partial4,  // a constant trip count, unrolled by 4 with the exit test where the count ends
  Runtime4,  // a counted loop unrolled by 4 with a remainder loop (LLVM's runtime unrolling)
  Runtime16, // the same, its 4-wide body unrolled by 4 again (ptxas, for small bodies)
  Endless,   // the condition is constant true: no test; the loop's branches are its breaks'
};

enum class StmtKind : uint8_t {
  Block,    // stmts, in order
  Assign,   // var = value
  Store,    // *(value.type*)addr = value in `space`; site
  If,       // if (cond) thenBody else elseBody (elseBody may be null); site
  Loop,     // see below
  Break,    // leave the innermost Loop
  Continue, // go to the innermost Loop's step
  Return,   // value may be null
  Eval,     // evaluate value for its side effects (a Call or Intrinsic)
  Printf,   // printf(text, args...): site. printfStream 0: sprintf/snprintf into the host
            // buffer `addr` of `value` bytes (u64; UINT64_MAX for sprintf); the count goes to
            // `var` when it is set. printfStream 3: fprintf to the FILE handle `value`.
            // printfStream 4: the scanf family: reads from the FILE handle `value`, or from
            // the string `addr` when `value` is 0, into the pointers `args`; the count (or
            // EOF) goes to `var`
  Launch,   // kernel<<<grid, block, sharedBytes, stream>>>(args): host only; site
  Barrier,  // __syncthreads(): kernel only; site
  // Variable-length arrays (host only): stack memory whose size is known at run time.
  Alloca,       // var = the address of value (a u64 constant) * args[0] * args[1] ... bytes of
                // new stack memory, 16-byte aligned; each of args (the run-time bounds, i64)
                // must be positive and the size must fit the stack, or the program faults; site
  StackSave,    // var = the current top of the stack (before a scope's first Alloca)
  StackRestore, // gives back every Alloca made since the StackSave that produced value: at
                // the end of the scope, and on each break or continue that leaves it
};

struct Stmt {
  StmtKind kind;
  SourceLoc loc;
  SiteId site = 0;
  Var *var = nullptr;                   // Assign, Alloca, StackSave
  Expr *addr = nullptr;                 // Store
  Expr *value = nullptr;                // Assign, Store, Return, Eval
  AddrSpace space = AddrSpace::Generic; // Store
  Expr *cond = nullptr;                 // If, Loop (null = always true)
  Block *thenBody = nullptr;            // If
  Block *elseBody = nullptr;            // If (may be null)
  /// If: false when the `if` only implements per-lane short-circuit evaluation (&&, ||, ?:
  /// whose arms load memory), which the hardware predicates instead of branching; such an if
  /// is not counted as a branch.
  bool isBranch = true;
  /// If: it implements &&, || or ?: (with isBranch true when an arm has side effects, a call
  /// included; ir/inline.cpp clears isBranch where the inlined arms have none left).
  bool shortCircuit = false;
  /// If: the GPU's code branches here (a branch instruction, not predicated instructions or a
  /// predicated exit; ir/branch_model.cpp). isBranch stays the source-level view.
  bool gpuBranch = true;
  /// If: the GPU's compiler turns it into predicated instructions (gpuBranch is then false):
  /// its instructions issue for every lane that reached it, those whose condition fails doing
  /// nothing (ir/branch_model.cpp).
  bool predicated = false;
  /// If with an else: no jump over the else side (the kernel ends in each side, or one side
  /// is short enough to issue predicated before the branch over the other).
  bool noJump = false;
  /// If: the kernel ends in it (its sides end in EXIT): no reconvergence point (BSSY, BSYNC).
  bool endsKernel = false;
  /// Loop: which tests of its condition are branch instructions on the GPU.
  LoopShape loopShape = LoopShape::EveryTest;
  /// Loop: the loop-invariant expressions inside it that it computes once, before it starts
  /// (ir/hoist.h).
  std::vector<Expr *> hoisted;
  /// Loop: the pointers nvcc steps for the addresses that move with its counter (ir/hoist.h):
  /// the instructions that step those moving by a constant, once per test of the loop's
  /// condition that issues (an address in an unrolled body takes the rest as an immediate
  /// offset), and those that add a variable stride, every iteration.
  uint8_t pointerSteps = 0, strideAdds = 0;
  // Loop: repeat { preCond; if (testFirst && !cond) break; body; [continue lands here] step;
  //                if (!testFirst && !cond) break; }
  // that is: for/while have testFirst = true; do-while has testFirst = false (cond after step).
  Block *preCond = nullptr; // statements evaluated before each test of cond (may be null)
  Block *body = nullptr;
  Block *step = nullptr; // may be null
  bool testFirst = true;
  std::vector<Expr *> args; // Printf args; Launch kernel arguments; Alloca bounds
  /// Launch: per argument, 0 when args[i] is the value itself, else args[i] is the address of
  /// a struct whose argBytes[i] bytes are copied into the parameter buffer.
  std::vector<uint32_t> argBytes;
  std::string text;       // Printf format (when `format` is null)
  Expr *format = nullptr; // Printf: a format computed at run time (host)
  int printfStream = 1;   // Printf: 1 stdout, 2 stderr (host fprintf)
  /// Printf (host): the arguments are a va_list's, args = {first, past-the-end} of its packed
  /// 8-byte slots (vprintf and its family, <stdarg.h>), which the runtime reads.
  bool vaList = false;
  Function *kernel = nullptr;                  // Launch
  Expr *grid[3] = {nullptr, nullptr, nullptr}; // Launch: U32 each
  Expr *blockDim[3] = {nullptr, nullptr, nullptr};
  Expr *sharedBytes = nullptr; // Launch: U64
  Expr *stream = nullptr;      // Launch: Ptr (may be a null constant)
  /// Store: the local slot the address points into, when the lowering knows it (the address
  /// is the slot's own address plus an offset); the backend then checks the access against
  /// that slot, so an index past a local array's end faults instead of reaching another
  /// variable or another thread's copy. (Load: Expr::slot, likewise.)
  LocalSlot *slot = nullptr;
  explicit Stmt(StmtKind k) : kind(k) {}
};

struct Block {
  std::vector<Stmt *> stmts;
};

// ---------------------------------------------------------------------------------------------
// Functions and modules
// ---------------------------------------------------------------------------------------------

enum class FunctionKind : uint8_t { Kernel, Device, Host };

struct Function {
  std::string name;
  FunctionKind kind = FunctionKind::Host;
  SourceLoc loc;
  Type returnType;
  std::vector<Var *> params;
  std::vector<Var *> vars; // every Var of the function, params included
  std::vector<LocalSlot *> slots;
  Block *body = nullptr;
  // Kernels: byte offset of each parameter in the packed parameter buffer (CUDA's layout:
  // each at its natural alignment), and the buffer's size.
  std::vector<uint32_t> paramOffsets;
  uint32_t paramBytes = 0;
  uint64_t staticSharedBytes = 0; // kernels: __shared__ variables' total
  bool usesBarriers = false;      // kernels: reaches __syncthreads (directly or by a call)
  int launchBoundsMaxThreads = 0; // kernels: __launch_bounds__(n), 0 if none
  bool isMain = false;            // host: the program's main
  bool mainTakesArgs = false;     // main(int argc, char** argv)
};

/// One program: its functions, globals, sites and strings. Owns every node.
struct Module {
  std::vector<Function *> functions;
  std::vector<GlobalVar *> globals;
  std::vector<Site> sites;     // sites[id]; id 0 is "no site"
  bool usesDeviceHeap = false; // device code calls malloc/free or new/delete
  /// Host code reads the modelled clock (cudaEventElapsedTime): its kernels are counted, so that
  /// the timing model can give them a duration, whatever the mode (docs/timing.md).
  bool readsModelledTime = false;
  /// Device code calls clock() or clock64(): compiled code keeps each warp's modelled clock
  /// (KernWarpCtx::clockInstr16...).
  bool readsClock = false;
  std::string sourceName;
  /// The host functions whose address the program takes. A function pointer's value is
  /// 1 + its function's index here (0 is the null pointer): never a machine address, so a
  /// call through a null or garbage pointer is caught and reported instead of jumping.
  std::vector<Function *> hostFunctionTable;

  /// The first id of this module's globals. A module compiled while a program runs (NVRTC, the
  /// driver API's modules) numbers its globals and sites after the program's, so that the
  /// runtime can hold both in one table.
  uint32_t firstGlobalId = 0;

  Module() { sites.push_back(Site{}); }
  /// The id of the next global variable.
  uint32_t nextGlobalId() const { return firstGlobalId + static_cast<uint32_t>(globals.size()); }
  /// Makes the next site id `first`: the ids before it belong to another module.
  void startSitesAt(uint32_t first) {
    while (sites.size() < first)
      sites.push_back(Site{});
  }
  SiteId addSite(SiteKind kind, SourceLoc loc, std::string what) {
    Site s;
    s.id = static_cast<SiteId>(sites.size());
    s.kind = kind;
    s.loc = loc;
    s.what = std::move(what);
    sites.push_back(std::move(s));
    return sites.back().id;
  }
  Function *findFunction(const std::string &name) const {
    for (auto *f : functions)
      if (f->name == name)
        return f;
    return nullptr;
  }
  std::vector<Function *> kernels() const {
    std::vector<Function *> out;
    for (auto *f : functions)
      if (f->kind == FunctionKind::Kernel)
        out.push_back(f);
    return out;
  }

  template <typename T, typename... A> T *make(A &&...a) {
    auto p = std::make_shared<T>(std::forward<A>(a)...);
    T *raw = p.get();
    owned_.push_back(std::move(p));
    return raw;
  }

private:
  std::deque<std::shared_ptr<void>> owned_;
};

/// Prints the module as text (`kern emit --ir`).
std::string print(const Module &m);
std::string print(const Function &f, const Module &m);

/// Checks structural invariants (types of operands, breaks inside loops...). Returns an empty
/// string when the module is well formed, else a description of the first problem: an
/// internal error, never a user's.
std::string verify(const Module &m);

} // namespace kern::ir
