// The SASS instructions each IR operation becomes, by class (see instruction_mix.h).
#include "ir/instruction_mix.h"

#include "ir/analysis.h"

#include <functional>
#include <set>
#include <vector>

namespace kern::ir {

namespace {

bool isIntLike(Type t) { return t.isInt() || t.isPtr(); }

/// A local variable's own storage at a constant offset (`&$me`, `&$me + 8`): a struct or a
/// small array that the GPU's compiler keeps in registers, so that reading or writing it there
/// is no instruction (an access at a varying index is local memory: LDL, STL).
bool registerAddress(const Expr *a) {
  while (a->kind == ExprKind::PtrAdd && a->ops[1]->kind == ExprKind::Const)
    a = a->ops[0];
  return a->kind == ExprKind::LocalAddr;
}

/// The class of an arithmetic operation on values of type `t`.
InstrClass arithmetic(Type t) {
  if (t.isFloat())
    return t.bits() > 32 ? InstrClass::Fp64 : InstrClass::Fp32;
  return InstrClass::Integer;
}

/// The class of a math or warp intrinsic: what its SASS mostly is.
InstrClass intrinsicClass(const Expr *e) {
  switch (intrinsicKind(e->intrinsic)) {
  case IntrinsicKind::Runtime:
    return InstrClass::Control;
  case IntrinsicKind::Warp:
    switch (e->intrinsic) {
    case IntrinsicId::AtomicAdd:
    case IntrinsicId::AtomicSub:
    case IntrinsicId::AtomicExch:
    case IntrinsicId::AtomicMin:
    case IntrinsicId::AtomicMax:
    case IntrinsicId::AtomicInc:
    case IntrinsicId::AtomicDec:
    case IntrinsicId::AtomicCAS:
    case IntrinsicId::AtomicAnd:
    case IntrinsicId::AtomicOr:
    case IntrinsicId::AtomicXor:
    case IntrinsicId::ThreadFence:
    case IntrinsicId::ThreadFenceBlock:
      return InstrClass::Memory; // ATOM, RED, ATOMS, MEMBAR
    case IntrinsicId::Ballot:
    case IntrinsicId::Any:
    case IntrinsicId::All:
    case IntrinsicId::ActiveMask:
    case IntrinsicId::ShflIdx:
    case IntrinsicId::ShflUp:
    case IntrinsicId::ShflDown:
    case IntrinsicId::ShflXor:
    case IntrinsicId::MatchAny:
    case IntrinsicId::Clock:
      return InstrClass::Other; // VOTE, SHFL, MATCH, CS2R
    default:
      return InstrClass::Control; // WARPSYNC, BAR.RED, the calls behind faults and malloc
    }
  case IntrinsicKind::Math:
    break;
  }
  switch (e->intrinsic) {
  // One instruction of the operands' arithmetic: FADD |x|, FMNMX, FFMA, LOP3 of the sign.
  case IntrinsicId::FabsF:
  case IntrinsicId::FminF:
  case IntrinsicId::FmaxF:
  case IntrinsicId::FmaF:
  case IntrinsicId::CopysignF:
  case IntrinsicId::SaturateF:
  case IntrinsicId::FdimF:
  case IntrinsicId::Fabs:
  case IntrinsicId::Fmin:
  case IntrinsicId::Fmax:
  case IntrinsicId::Fma:
  case IntrinsicId::Copysign:
  case IntrinsicId::Fdim:
    return arithmetic(e->type);
  // FRND: rounding to an integral value is a conversion.
  case IntrinsicId::FloorF:
  case IntrinsicId::CeilF:
  case IntrinsicId::RoundF:
  case IntrinsicId::TruncF:
  case IntrinsicId::RintF:
  case IntrinsicId::NearbyintF:
  case IntrinsicId::Floor:
  case IntrinsicId::Ceil:
  case IntrinsicId::Round:
  case IntrinsicId::Trunc:
  case IntrinsicId::Rint:
  case IntrinsicId::Nearbyint:
    return InstrClass::Conversion;
  default:
    break;
  }
  const bool floatIn = !e->ops.empty() && e->ops[0]->type.isFloat();
  if (e->type.isFloat() != floatIn && !e->ops.empty())
    return InstrClass::Conversion; // __float2int, I64ToF32, ilogbf, lrintf...
  if (!e->type.isFloat())
    return InstrClass::Integer; // popc, clz, brev, __mulhi, abs...
  if (e->type.bits() > 32)
    return InstrClass::Fp64; // double functions are sequences of DFMA
  if (e->intrinsic == IntrinsicId::F64ToF32)
    return InstrClass::Conversion;
  return InstrClass::Special; // MUFU: rsqrtf, __expf, sinf's core...
}

/// The class of one operation `e` (not its operands).
InstrClass classOf(const Expr *e) {
  switch (e->kind) {
  case ExprKind::Unary:
    if (e->unaryOp == UnaryOp::Bitcast)
      return InstrClass::Other;
    return e->unaryOp == UnaryOp::Neg ? arithmetic(e->type) : InstrClass::Integer;
  case ExprKind::Binary:
    return arithmetic(e->ops[0]->type); // a compare is its operands' class
  case ExprKind::Cast:
    return e->type.isFloat() || e->ops[0]->type.isFloat() ? InstrClass::Conversion
                                                          : InstrClass::Integer;
  case ExprKind::Select:
    return e->type.isFloat() && e->type.bits() <= 32 ? InstrClass::Fp32 : InstrClass::Integer;
  case ExprKind::Load:
    return InstrClass::Memory;
  case ExprKind::Call:
    return InstrClass::Control;
  case ExprKind::Intrinsic:
    return intrinsicClass(e);
  case ExprKind::PtrAdd:
    return InstrClass::Integer;
  default:
    return InstrClass::Other;
  }
}

} // namespace

unsigned InstrMix::total() const {
  unsigned t = 0;
  for (unsigned k : n)
    t += k;
  return t;
}

InstrMix &InstrMix::operator+=(const InstrMix &o) {
  for (size_t i = 0; i < kInstrClasses; ++i)
    n[i] += o.n[i];
  adu += o.adu;
  return *this;
}

namespace {
InstrMix mixOf(const Expr *e);
} // namespace

InstrMix operationMix(const Expr *e) {
  // A stride added to the previous copy's address: IADD3 and IMAD.X.
  if (e && e->strided)
    return InstrMix(InstrClass::Integer, 2);
  // Hoisted before its loop: a value already in a register (hoistedMix counts it).
  if (e && e->hoisted)
    return {};
  return mixOf(e);
}

InstrMix hoistedMix(const Stmt &loop) {
  InstrMix m;
  for (const Expr *e : loop.hoisted)
    m += mixOf(e);
  return m;
}

namespace {

InstrMix mixOf(const Expr *e) {
  if (!e)
    return {};
  switch (e->kind) {
  case ExprKind::Const: // values that are already in a register or an immediate
  case ExprKind::VarRef:
  case ExprKind::BuiltinVar:
  case ExprKind::StringConst:
  case ExprKind::GlobalAddr:
  case ExprKind::SharedAddr:
  case ExprKind::LocalAddr:
  case ExprKind::ParamAddr:
  case ExprKind::FunctionAddr:
    return {};
  default:
    if (knownValue(e))
      return {};
    break;
  }
  // What the GPU's instructions absorb (docs/counters.md, "Instructions"): a conversion between
  // integer widths or to and from pointers is a register reinterpretation or part of the
  // wide multiply-add that forms an address; p + x * size is one IMAD.WIDE or LEA, p + constant
  // an immediate offset; a multiply feeding an add is one IMAD or FFMA.
  switch (e->kind) {
  case ExprKind::Cast:
    if (isIntLike(e->type) && isIntLike(e->ops[0]->type))
      return operationMix(e->ops[0]);
    break;
  case ExprKind::Load:
    if (e->space == AddrSpace::Local && registerAddress(e->ops[0]))
      return {};
    break;
  case ExprKind::PtrAdd: {
    const Expr *off = e->ops[1];
    if (knownValue(off))
      return operationMix(e->ops[0]);
    // (A hoisted offset is a register: nothing to look into.)
    while (!off->hoisted && off->kind == ExprKind::Cast && isIntLike(off->type) &&
           isIntLike(off->ops[0]->type))
      off = off->ops[0];
    if (!off->hoisted && off->kind == ExprKind::Binary && off->binaryOp == BinaryOp::Mul) {
      const Expr *a = off->ops[0], *b = off->ops[1];
      if (b->kind == ExprKind::Const)
        off = a;
      else if (a->kind == ExprKind::Const)
        off = b;
    }
    return InstrMix(InstrClass::Integer, 1) + operationMix(e->ops[0]) + operationMix(off);
  }
  case ExprKind::Binary:
    if (e->binaryOp == BinaryOp::Div || e->binaryOp == BinaryOp::Rem) {
      // A division's sequence: by a power of two a shift or a mask, by another constant a
      // multiply-high and shifts, by a variable some 16 instructions (a conversion to float,
      // the reciprocal, one back, multiplies and corrections); a float division's reciprocal,
      // refinement and range check, 8.
      InstrMix m = operationMix(e->ops[0]) + operationMix(e->ops[1]);
      const Expr *d = e->ops[1];
      if (e->type.isFloat()) {
        if (knownValue(d)) {
          m.add(arithmetic(e->type));
        } else {
          m.add(InstrClass::Special);
          m.add(arithmetic(e->type), 7);
        }
      } else if (knownValue(d)) {
        m.add(InstrClass::Integer, d->kind == ExprKind::Const && d->intValue > 0 &&
                                           (d->intValue & (d->intValue - 1)) == 0
                                       ? 1
                                       : 3);
      } else if (e->type.bits() > 32) {
        m.add(InstrClass::Integer, 40);
      } else {
        m.add(InstrClass::Conversion, 2);
        m.add(InstrClass::Special);
        m.add(InstrClass::Integer, 13);
      }
      return m;
    }
    if (e->binaryOp == BinaryOp::Add || e->binaryOp == BinaryOp::Sub)
      for (int i = 0; i < 2; ++i) {
        const Expr *m = e->ops[i];
        if (!m->hoisted && m->kind == ExprKind::Binary && m->binaryOp == BinaryOp::Mul &&
            m->type == e->type && (e->type.isInt() || e->type.isFloat()))
          return InstrMix(arithmetic(e->type), 1) + operationMix(m->ops[0]) +
                 operationMix(m->ops[1]) + operationMix(e->ops[1 - i]);
      }
    break;
  case ExprKind::Intrinsic:
    if (e->intrinsic == IntrinsicId::SqrtF || e->intrinsic == IntrinsicId::Sqrt) {
      // MUFU.RSQ, the refinement, the range check.
      InstrMix m = operationMix(e->ops[0]);
      m.add(InstrClass::Special);
      m.add(arithmetic(e->type), 5);
      return m;
    }
    break;
  default:
    break;
  }
  InstrMix m(classOf(e), 1);
  for (auto *o : e->ops)
    m += operationMix(o);
  return m;
}

} // namespace

unsigned countOperations(const Expr *e) { return operationMix(e).total(); }

/// Arithmetic on constants alone (`-0.01f`, `1 << 4`, `k * 64` in a copy of a fully unrolled
/// loop over k): the compiler folds it into an immediate.
bool knownValue(const Expr *e) {
  switch (e->kind) {
  case ExprKind::Const:
    return true;
  case ExprKind::VarRef:
    return e->knownConstant;
  case ExprKind::Unary:
  case ExprKind::Binary:
  case ExprKind::Cast:
  case ExprKind::Select:
    for (const Expr *o : e->ops)
      if (!knownValue(o))
        return false;
    return true;
  default:
    return false;
  }
}

InstrMix ifMix(const Stmt &s) {
  InstrMix m = operationMix(s.cond);
  if (s.isBranch &&
      s.gpuBranch) // the compare, the branch, and where lanes may split BSSY and BSYNC
    m.add(InstrClass::Control, s.cond && !s.cond->uniform && !s.endsKernel ? 3 : 1);
  else if (!s.predicated && !s.shortCircuit) // a predicated exit
    m.add(InstrClass::Control);
  // A predicated if: the compare; the sides issue under its predicate.
  return m;
}

unsigned ifInstructions(const Stmt &s) { return ifMix(s).total(); }

InstrMix statementMix(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Assign:
  case StmtKind::Eval:
    return operationMix(s.value);
  case StmtKind::Store:
    if (s.space == AddrSpace::Local && registerAddress(s.addr))
      return operationMix(s.value);
    return InstrMix(InstrClass::Memory, 1) + operationMix(s.addr) + operationMix(s.value);
  case StmtKind::Return:
    return InstrMix(InstrClass::Control, 1) + operationMix(s.value);
  case StmtKind::Printf: // a call of vprintf
  case StmtKind::Barrier:
    return InstrMix(InstrClass::Control, 1);
  default:
    return {};
  }
}

unsigned countAssignment(const Stmt &s) { return countOperations(s.value); }

namespace {

const Expr *withoutCasts(const Expr *e) {
  while (e->kind == ExprKind::Cast)
    e = e->ops[0];
  return e;
}

/// What nvcc's code for cc9.0 loads into lanes' registers from the constant bank (the SASS of
/// tests/gpu/timing): `p[i]` with a 32-bit i is an IMAD.WIDE on p in a register pair (LDC.64),
/// a 32-bit parameter that per-lane arithmetic reads is in a register (LDC), and blockDim.x
/// multiplies blockIdx.x, which is uniform, in a lane's register unless blockIdx.x is wanted
/// there too (for other arithmetic, or in a kernel of rows, which reads its indices with S2R).
/// p plus 64-bit arithmetic, compares and arithmetic on uniform values read the parameter from
/// a uniform register (ULDC), which the ADU does not execute.
struct RegisterLoads {
  std::set<const Var *> params;
  bool blockDim = false;
  bool shared = false, rows = false; ///< uses shared memory; reads a y or z index
};

RegisterLoads registerLoads(const Function &kernel) {
  RegisterLoads r;
  std::set<const Var *> params(kernel.params.begin(), kernel.params.end());
  bool blockDim = false, blockIdxAlone = false;
  auto param = [&](const Expr *e) -> const Var * {
    e = withoutCasts(e);
    return e->kind == ExprKind::VarRef && params.count(e->var) ? e->var : nullptr;
  };
  auto is = [](const Expr *x, BuiltinVar v) {
    x = withoutCasts(x);
    return x->kind == ExprKind::BuiltinVar && x->builtinVar == v;
  };
  std::function<void(const Expr *)> expr = [&](const Expr *e) {
    if (!e)
      return;
    if (e->kind == ExprKind::Binary && e->binaryOp == BinaryOp::Mul &&
        ((is(e->ops[0], BuiltinVar::BlockIdxX) && is(e->ops[1], BuiltinVar::BlockDimX)) ||
         (is(e->ops[1], BuiltinVar::BlockIdxX) && is(e->ops[0], BuiltinVar::BlockDimX)))) {
      blockDim = true;
      return;
    }
    if (e->kind == ExprKind::BuiltinVar) {
      const BuiltinVar v = e->builtinVar;
      blockIdxAlone = blockIdxAlone || v == BuiltinVar::BlockIdxX;
      r.rows = r.rows || v == BuiltinVar::ThreadIdxY || v == BuiltinVar::ThreadIdxZ ||
               v == BuiltinVar::BlockIdxY || v == BuiltinVar::BlockIdxZ;
    }
    r.shared = r.shared || e->kind == ExprKind::SharedAddr;
    if (e->kind == ExprKind::PtrAdd && param(e->ops[0])) {
      const Expr *off = withoutCasts(e->ops[1]);
      if (off->kind == ExprKind::Binary && off->binaryOp == BinaryOp::Mul &&
          off->ops[1]->kind == ExprKind::Const)
        off = off->ops[0];
      if (off->kind == ExprKind::Cast && off->ops[0]->type.bits() <= 32)
        r.params.insert(param(e->ops[0]));
    }
    if (e->kind == ExprKind::Binary && e->binaryOp < BinaryOp::Lt && e->type.bits() <= 32)
      for (int i = 0; i < 2; ++i)
        if (const Var *p = param(e->ops[i]); p && !e->ops[1 - i]->uniform)
          r.params.insert(p);
    for (const Expr *o : e->ops)
      expr(o);
  };
  forEachExpr(kernel.body, expr);
  r.blockDim = blockDim && !blockIdxAlone && !r.rows;
  return r;
}

} // namespace

KernelReads kernelReads(const Function &kernel) {
  const RegisterLoads loads = registerLoads(kernel);
  KernelReads out;
  out.entry.add(InstrClass::Other); // the stack pointer's load
  // An empty kernel is its EXIT alone. The H200 counts one more for the ADU in kernels that use
  // shared memory (where S2UR reads the shared window) and one in kernels that read a y or z
  // index (cal_* and val_* of tests/gpu/timing: docs/timing.md).
  if (kernel.body && !kernel.body->stmts.empty())
    out.entry.adu = 1 + unsigned(loads.shared) + unsigned(loads.rows);
  // Each special register the kernel reads (threadIdx, blockIdx, the lane) is one S2R, each
  // parameter or launch dimension one load from the constant bank, before the first statement
  // that all its reads are in or after: where the paths of statements down to its reads part
  // (nvcc loads a value both sides of an if use before the if); a loop's before the loop.
  // A path: the statements from the kernel's body down to a read, each with its block.
  using Path = std::vector<std::pair<const Block *, const Stmt *>>;
  std::map<int, Path> specials; // by BuiltinVar
  std::map<const Var *, Path> params;
  for (const Var *v : kernel.params)
    params[v];
  std::set<const Var *> seen;
  Path path;
  auto meet = [&](Path &at, bool first) {
    if (first) {
      at = path;
      return;
    }
    size_t n = 0;
    while (n < at.size() && n < path.size() && at[n] == path[n])
      ++n;
    // Where the two part in one block, the earlier statement (this read comes later); where
    // they part into two blocks of one statement (an if's two sides), that statement.
    at.resize(n < at.size() && n < path.size() && at[n].first == path[n].first ? n + 1 : n);
  };
  std::function<void(const Expr *)> expr = [&](const Expr *e) {
    if (!e)
      return;
    if (e->kind == ExprKind::BuiltinVar) {
      auto [it, fresh] = specials.try_emplace(static_cast<int>(e->builtinVar));
      meet(it->second, fresh);
    }
    if (e->kind == ExprKind::VarRef)
      if (auto it = params.find(e->var); it != params.end())
        meet(it->second, seen.insert(e->var).second);
    for (const Expr *o : e->ops)
      expr(o);
  };
  std::function<void(const Block *, bool)> block = [&](const Block *b, bool hoisted) {
    if (!b)
      return;
    for (const Stmt *s : b->stmts) {
      if (!hoisted)
        path.push_back({b, s});
      for (const Expr *e : {s->value, s->addr, s->cond})
        expr(e);
      for (const Expr *e : s->args)
        expr(e);
      const bool inner = hoisted || s->kind == StmtKind::Loop;
      for (const Block *c : {s->thenBody, s->elseBody, s->preCond, s->body, s->step})
        block(c, inner);
      if (!hoisted)
        path.pop_back();
    }
  };
  block(kernel.body, false);
  for (const auto &[v, at] : specials)
    if (!at.empty()) {
      InstrMix &m = out.at[at.back().second];
      m.add(InstrClass::Other);
      m.adu += static_cast<BuiltinVar>(v) == BuiltinVar::BlockDimX && loads.blockDim;
    }
  for (const auto &[v, at] : params)
    if (!at.empty()) {
      InstrMix &m = out.at[at.back().second];
      m.add(InstrClass::Other);
      m.adu += unsigned(loads.params.count(v));
    }
  return out;
}

} // namespace kern::ir
