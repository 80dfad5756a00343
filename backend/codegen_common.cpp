// Expression semantics shared by warp and host code generation; every helper here works on a
// scalar or on a <32 x T> vector, so the two sides cannot drift apart.
#include "backend/codegen_common.h"

#include "ir/analysis.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

namespace kern::backend {

using llvm::Type;
using llvm::Value;

ModuleContext::ModuleContext(llvm::LLVMContext &c, llvm::Module &m, const ir::Module &irm,
                             const CompileOptions &o)
    : llvm(c), module(m), ir(irm), options(o) {
  for (const ir::Function *f : irm.functions)
    if (f->kind != ir::FunctionKind::Host && ir::frameInLocalMemory(*f))
      localMemory = true;
}

void ModuleContext::fail(const std::string &message) {
  if (error.empty())
    error = message;
}

llvm::Function *ModuleContext::externalFunction(const std::string &name, llvm::FunctionType *type) {
  if (auto *f = module.getFunction(name))
    return f;
  return llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module);
}

llvm::Function *ModuleContext::runtimeFunction(RuntimeFunction f) {
  const RuntimeFunctionInfo &info = runtimeFunctionInfo(f);
  if (auto *fn = module.getFunction(info.name))
    return fn;
  auto *fn =
      llvm::Function::Create(info.type(llvm), llvm::Function::ExternalLinkage, info.name, module);
  if (!info.returns)
    fn->setDoesNotReturn();
  return fn;
}

llvm::Constant *ModuleContext::stringConstant(const std::string &text) {
  auto it = strings_.find(text);
  if (it != strings_.end())
    return it->second;
  auto *init = llvm::ConstantDataArray::getString(llvm, text, /*AddNull=*/true);
  auto *g = new llvm::GlobalVariable(module, init->getType(), /*isConstant=*/true,
                                     llvm::GlobalValue::PrivateLinkage, init, ".str");
  g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  g->setAlignment(llvm::Align(1));
  strings_[text] = g;
  return g;
}

uint32_t ModuleContext::kernelIndex(const ir::Function *kernel) const {
  uint32_t i = 0;
  for (auto *f : ir.functions) {
    if (f == kernel)
      return i;
    if (f->kind == ir::FunctionKind::Kernel)
      ++i;
  }
  return UINT32_MAX;
}

// ---- types ---------------------------------------------------------------------------------

Type *registerType(llvm::LLVMContext &c, ir::Type t) {
  switch (t.kind) {
  case ir::TypeKind::Void:
    return Type::getVoidTy(c);
  case ir::TypeKind::Bool:
    return Type::getInt1Ty(c);
  case ir::TypeKind::I8:
    return Type::getInt8Ty(c);
  case ir::TypeKind::I16:
    return Type::getInt16Ty(c);
  case ir::TypeKind::I32:
    return Type::getInt32Ty(c);
  case ir::TypeKind::I64:
  case ir::TypeKind::Ptr:
    return Type::getInt64Ty(c);
  case ir::TypeKind::F32:
    return Type::getFloatTy(c);
  case ir::TypeKind::F64:
    return Type::getDoubleTy(c);
  case ir::TypeKind::B128:
    return Type::getInt128Ty(c);
  }
  return Type::getVoidTy(c);
}

Type *memoryType(llvm::LLVMContext &c, ir::Type t) {
  return t.isBool() ? Type::getInt8Ty(c) : registerType(c, t);
}

llvm::FixedVectorType *warpVector(Type *t) { return llvm::FixedVectorType::get(t, kWarpSize); }

Type *sameShape(Type *scalar, Type *like) {
  if (auto *v = llvm::dyn_cast<llvm::FixedVectorType>(like))
    return llvm::FixedVectorType::get(scalar, v->getNumElements());
  return scalar;
}

Value *toMemory(Builder &b, Value *v, ir::Type t) {
  if (!t.isBool())
    return v;
  return b.CreateZExt(v, sameShape(b.getInt8Ty(), v->getType()));
}

Value *fromMemory(Builder &b, Value *v, ir::Type t) {
  if (!t.isBool())
    return v;
  // Any nonzero byte reads as true, as C's _Bool conversion does.
  return b.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()), "tobool");
}

namespace {

/// A <32 x i128> warp vector moves as <64 x i64>; anything else as itself.
bool splitWide(Type *vecTy) { return vecTy->getScalarType()->isIntegerTy(128); }

Type *halvesType(Builder &b) { return llvm::FixedVectorType::get(b.getInt64Ty(), 2 * kWarpSize); }

/// Each lane's entry twice, as the two halves of its element.
Value *twice(Builder &b, Value *v, const llvm::Twine &name) {
  llvm::SmallVector<int, 2 * kWarpSize> idx;
  for (int l = 0; l < static_cast<int>(kWarpSize); ++l) {
    idx.push_back(l);
    idx.push_back(l);
  }
  return b.CreateShuffleVector(v, idx, name);
}

/// Each lane's address and that address + 8.
Value *halfPointers(Builder &b, Value *ptrs) {
  llvm::SmallVector<llvm::Constant *, 2 * kWarpSize> offsets;
  for (unsigned i = 0; i < 2 * kWarpSize; ++i)
    offsets.push_back(b.getInt64(i % 2 == 0 ? 0 : 8));
  return b.CreateGEP(b.getInt8Ty(), twice(b, ptrs, "ptrs.twice"),
                     llvm::ConstantVector::get(offsets), "ptrs.halves");
}

llvm::Align halfAlign(llvm::Align a) { return std::min(a, llvm::Align(8)); }

} // namespace

Value *warpMaskedLoad(Builder &b, Type *vecTy, Value *ptr, llvm::Align align, Value *mask,
                      const llvm::Twine &name) {
  if (!splitWide(vecTy))
    return b.CreateMaskedLoad(vecTy, ptr, align, mask, llvm::Constant::getNullValue(vecTy), name);
  Type *ht = halvesType(b);
  Value *v = b.CreateMaskedLoad(ht, ptr, align, twice(b, mask, "mask.twice"),
                                llvm::Constant::getNullValue(ht));
  return b.CreateBitCast(v, vecTy, name);
}

void warpMaskedStore(Builder &b, Value *v, Value *ptr, llvm::Align align, Value *mask) {
  if (!splitWide(v->getType())) {
    b.CreateMaskedStore(v, ptr, align, mask);
    return;
  }
  b.CreateMaskedStore(b.CreateBitCast(v, halvesType(b)), ptr, align, twice(b, mask, "mask.twice"));
}

Value *warpMaskedGather(Builder &b, Type *vecTy, Value *ptrs, llvm::Align align, Value *mask,
                        const llvm::Twine &name) {
  if (!splitWide(vecTy))
    return b.CreateMaskedGather(vecTy, ptrs, align, mask, llvm::Constant::getNullValue(vecTy),
                                name);
  Type *ht = halvesType(b);
  Value *v = b.CreateMaskedGather(ht, halfPointers(b, ptrs), halfAlign(align),
                                  twice(b, mask, "mask.twice"), llvm::Constant::getNullValue(ht));
  return b.CreateBitCast(v, vecTy, name);
}

void warpMaskedScatter(Builder &b, Value *v, Value *ptrs, llvm::Align align, Value *mask) {
  if (!splitWide(v->getType())) {
    b.CreateMaskedScatter(v, ptrs, align, mask);
    return;
  }
  b.CreateMaskedScatter(b.CreateBitCast(v, halvesType(b)), halfPointers(b, ptrs), halfAlign(align),
                        twice(b, mask, "mask.twice"));
}

static llvm::Constant *shaped(llvm::Constant *c, Type *shape) {
  if (auto *v = llvm::dyn_cast<llvm::FixedVectorType>(shape))
    return llvm::ConstantVector::getSplat(v->getElementCount(), c);
  return c;
}

llvm::Constant *constantValue(const ir::Expr &e, Type *shape) {
  Type *t = registerType(shape->getContext(), e.type);
  llvm::Constant *c;
  if (e.type.isFloat())
    c = llvm::ConstantFP::get(t, e.floatValue);
  else if (e.type.isBool())
    c = llvm::ConstantInt::get(t, e.intValue != 0);
  else
    c = llvm::ConstantInt::get(t, static_cast<uint64_t>(e.intValue), /*isSigned=*/true);
  return shaped(c, shape);
}

llvm::Constant *zeroValue(ir::Type t, Type *shape) {
  return shaped(llvm::Constant::getNullValue(registerType(shape->getContext(), t)), shape);
}

// ---- casts ---------------------------------------------------------------------------------

Value *emitCast(Builder &b, Value *v, ir::Type from, ir::Type to) {
  auto &c = b.getContext();
  Type *dst = sameShape(registerType(c, to), v->getType());
  if (to.isVoid() || from.kind == to.kind)
    return v; // signedness and pointer spaces do not change the bits
  if (to.isBool()) {
    // C: any nonzero scalar converts to true; NaN != 0, so `une` (unordered or not equal).
    if (from.isFloat())
      return b.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()), "tobool");
    return b.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()), "tobool");
  }
  if (from.isBool()) {
    if (to.isFloat())
      return b.CreateUIToFP(v, dst, "conv");
    return b.CreateZExt(v, dst, "conv");
  }
  bool fromInt = from.isInt() || from.isPtr();
  bool toInt = to.isInt() || to.isPtr();
  if (fromInt && toInt) {
    // Pointers are unsigned addresses; an int widened to a pointer keeps its C value.
    bool isSigned = from.isInt() && from.isSigned;
    return b.CreateIntCast(v, dst, isSigned, "conv");
  }
  if (fromInt && to.isFloat())
    return from.isInt() && from.isSigned ? b.CreateSIToFP(v, dst, "conv")
                                         : b.CreateUIToFP(v, dst, "conv");
  if (from.isFloat() && toInt) {
    // fptosi/fptoui give poison out of range; the saturating forms match the GPU's cvt.rzi
    // (NaN -> 0, clamped to the destination range).
    bool isSigned = to.isInt() && to.isSigned;
    return b.CreateIntrinsic(isSigned ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
                             {dst, v->getType()}, {v}, nullptr, "conv");
  }
  if (from.isFloat() && to.isFloat())
    return b.CreateFPCast(v, dst, "conv");
  return v;
}

// ---- unary and binary ----------------------------------------------------------------------

Value *emitUnary(Builder &b, ir::UnaryOp op, Value *v, ir::Type t) {
  switch (op) {
  case ir::UnaryOp::Neg:
    return t.isFloat() ? b.CreateFNeg(v, "neg") : b.CreateNeg(v, "neg");
  case ir::UnaryOp::BitNot:
    return b.CreateNot(v, "not");
  case ir::UnaryOp::LogNot:
    if (t.isBool())
      return b.CreateNot(v, "lnot");
    if (t.isFloat())
      return b.CreateFCmpOEQ(v, llvm::Constant::getNullValue(v->getType()), "lnot");
    return b.CreateICmpEQ(v, llvm::Constant::getNullValue(v->getType()), "lnot");
  case ir::UnaryOp::Bitcast: // needs the result type: the callers emit it
    return v;
  }
  return v;
}

Value *isZero(Builder &b, Value *d, ir::Type t) {
  return b.CreateICmpEQ(d, llvm::Constant::getNullValue(d->getType()), "div.zero");
}

/// The divisor with every lane that would trap replaced by 1: zero divisors (reported as a
/// fault by the caller before the division runs) and, for signed types, INT_MIN / -1.
static Value *safeDivisor(Builder &b, Value *a, Value *d, ir::Type t) {
  Type *ty = d->getType();
  Value *one = llvm::ConstantInt::get(ty, 1);
  Value *bad = isZero(b, d, t);
  if (t.isSigned) {
    unsigned bits = ty->getScalarSizeInBits();
    Value *minInt = llvm::ConstantInt::get(ty, llvm::APInt::getSignedMinValue(bits));
    Value *minusOne = llvm::Constant::getAllOnesValue(ty);
    Value *ovf = b.CreateAnd(b.CreateICmpEQ(a, minInt), b.CreateICmpEQ(d, minusOne), "div.ovf");
    bad = b.CreateOr(bad, ovf);
  }
  return b.CreateSelect(bad, one, d, "div.safe");
}

Value *emitBinary(Builder &b, ir::BinaryOp op, Value *x, Value *y, ir::Type t, bool gpuShifts) {
  using ir::BinaryOp;
  bool f = t.isFloat();
  bool s = t.isInt() && t.isSigned;
  switch (op) {
  case BinaryOp::Add:
    return f ? b.CreateFAdd(x, y, "add") : b.CreateAdd(x, y, "add");
  case BinaryOp::Sub:
    return f ? b.CreateFSub(x, y, "sub") : b.CreateSub(x, y, "sub");
  case BinaryOp::Mul:
    return f ? b.CreateFMul(x, y, "mul") : b.CreateMul(x, y, "mul");
  case BinaryOp::Div:
    if (f)
      return b.CreateFDiv(x, y, "div");
    y = safeDivisor(b, x, y, t);
    return s ? b.CreateSDiv(x, y, "div") : b.CreateUDiv(x, y, "div");
  case BinaryOp::Rem:
    if (f)
      return b.CreateFRem(x, y, "rem"); // frem is C's fmod
    y = safeDivisor(b, x, y, t);
    return s ? b.CreateSRem(x, y, "rem") : b.CreateURem(x, y, "rem");
  case BinaryOp::Shl:
  case BinaryOp::Shr: {
    // C leaves shifts by >= the width undefined and LLVM makes them poison. Host code masks the
    // amount to width-1 as x86 does. Device code does what the GPU does, as nvcc compiles `<<`
    // and `>>` to PTX's shl and shr, which clamp the amount to the width: `x << 32` is 0 and
    // `x >> 32` is 0 (or the sign for a signed x), which programs rely on (a bit packer's
    // `dw << 32 - bit` with bit 0).
    unsigned bits = x->getType()->getScalarSizeInBits();
    Value *width = llvm::ConstantInt::get(y->getType(), bits - 1);
    if (gpuShifts) {
      Value *wide = b.CreateICmpUGT(y, width, "shamt.wide"); // negative amounts too: unsigned
      Value *amount = b.CreateSelect(wide, width, y, "shamt");
      if (op == BinaryOp::Shl)
        return b.CreateSelect(wide, llvm::Constant::getNullValue(x->getType()),
                              b.CreateShl(x, amount), "shl");
      if (s) // by the width - 1: every bit is the sign, as a clamped shr.s gives
        return b.CreateAShr(x, amount, "shr");
      return b.CreateSelect(wide, llvm::Constant::getNullValue(x->getType()),
                            b.CreateLShr(x, amount), "shr");
    }
    Value *amount = b.CreateAnd(y, width, "shamt");
    if (op == BinaryOp::Shl)
      return b.CreateShl(x, amount, "shl");
    return s ? b.CreateAShr(x, amount, "shr") : b.CreateLShr(x, amount, "shr");
  }
  case BinaryOp::And:
    return b.CreateAnd(x, y, "and");
  case BinaryOp::Or:
    return b.CreateOr(x, y, "or");
  case BinaryOp::Xor:
    return b.CreateXor(x, y, "xor");
  case BinaryOp::Lt:
    return f   ? b.CreateFCmpOLT(x, y, "cmp")
           : s ? b.CreateICmpSLT(x, y, "cmp")
               : b.CreateICmpULT(x, y, "cmp");
  case BinaryOp::Le:
    return f   ? b.CreateFCmpOLE(x, y, "cmp")
           : s ? b.CreateICmpSLE(x, y, "cmp")
               : b.CreateICmpULE(x, y, "cmp");
  case BinaryOp::Gt:
    return f   ? b.CreateFCmpOGT(x, y, "cmp")
           : s ? b.CreateICmpSGT(x, y, "cmp")
               : b.CreateICmpUGT(x, y, "cmp");
  case BinaryOp::Ge:
    return f   ? b.CreateFCmpOGE(x, y, "cmp")
           : s ? b.CreateICmpSGE(x, y, "cmp")
               : b.CreateICmpUGE(x, y, "cmp");
  case BinaryOp::Eq:
    return f ? b.CreateFCmpOEQ(x, y, "cmp") : b.CreateICmpEQ(x, y, "cmp");
  case BinaryOp::Ne:
    // C's != is true when either side is NaN: unordered-or-not-equal.
    return f ? b.CreateFCmpUNE(x, y, "cmp") : b.CreateICmpNE(x, y, "cmp");
  case BinaryOp::Min:
    if (f)
      return b.CreateMinNum(x, y, "min");
    return b.CreateBinaryIntrinsic(s ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, x, y, nullptr,
                                   "min");
  case BinaryOp::Max:
    if (f)
      return b.CreateMaxNum(x, y, "max");
    return b.CreateBinaryIntrinsic(s ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, x, y, nullptr,
                                   "max");
  }
  return x;
}

// ---- math intrinsics -----------------------------------------------------------------------

/// Calls the C library function `name` on every lane (or once, for a scalar). Used where LLVM
/// has no intrinsic; libm is pure, so inactive lanes may be computed too.
static Value *callLibm(ModuleContext &mc, Builder &b, const std::string &name,
                       const std::vector<Value *> &args) {
  Type *shape = args[0]->getType();
  Type *elem = shape->getScalarType();
  std::vector<Type *> params(args.size(), elem);
  auto *fn = mc.externalFunction(name, llvm::FunctionType::get(elem, params, false));
  fn->setDoesNotThrow();
  fn->setWillReturn();
  auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(shape);
  if (!vt)
    return b.CreateCall(fn, args, name);
  Value *out = llvm::PoisonValue::get(vt);
  for (unsigned l = 0; l < vt->getNumElements(); ++l) {
    std::vector<Value *> lane;
    for (auto *a : args)
      lane.push_back(b.CreateExtractElement(a, l));
    out = b.CreateInsertElement(out, b.CreateCall(fn, lane, name), l);
  }
  return out;
}

static Value *unaryIntrinsic(Builder &b, llvm::Intrinsic::ID id, Value *v, const char *name) {
  return b.CreateUnaryIntrinsic(id, v, nullptr, name);
}

// The C function that computes a math intrinsic per lane (math_library.def), or null.
static const char *librarySymbol(ir::IntrinsicId id) {
  switch (id) {
#define KERN_MATH_LIBRARY(Id, name, type)                                                          \
  case ir::IntrinsicId::Id:                                                                        \
    return #name;
#include "backend/math_library.def"
#undef KERN_MATH_LIBRARY
  default:
    return nullptr;
  }
}

// Calls C function `name` once per lane; its parameter types are those of `args`' elements.
static Value *callLibrary(ModuleContext &mc, Builder &b, const char *name,
                          const std::vector<Value *> &args, Type *resultShape) {
  Type *elem = resultShape->getScalarType();
  std::vector<Type *> params;
  for (auto *a : args)
    params.push_back(a->getType()->getScalarType());
  auto *fn = mc.externalFunction(name, llvm::FunctionType::get(elem, params, false));
  fn->setDoesNotThrow();
  fn->setWillReturn();
  auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(resultShape);
  if (!vt)
    return b.CreateCall(fn, args);
  Value *out = llvm::PoisonValue::get(vt);
  for (unsigned l = 0; l < vt->getNumElements(); ++l) {
    std::vector<Value *> lane;
    for (auto *a : args)
      lane.push_back(a->getType()->isVectorTy() ? b.CreateExtractElement(a, l) : a);
    out = b.CreateInsertElement(out, b.CreateCall(fn, lane), l);
  }
  return out;
}

Value *emitMath(ModuleContext &mc, Builder &b, ir::IntrinsicId id, const std::vector<Value *> &a,
                const std::vector<ir::Type> &argTypes, ir::Type result) {
  using ir::IntrinsicId;
  namespace I = llvm::Intrinsic;
  auto need = [&](size_t n) {
    if (a.size() >= n)
      return true;
    mc.fail(std::string("internal error: intrinsic ") + ir::intrinsicName(id) + " needs " +
            std::to_string(n) + " operands");
    return false;
  };
  Type *resTy = a.empty() ? nullptr : sameShape(registerType(mc.llvm, result), a[0]->getType());
  if (!need(1))
    return llvm::PoisonValue::get(registerType(mc.llvm, result));
  Value *x = a[0];
  switch (id) {
  // Functions LLVM has intrinsics for (vectorisable; the backend calls libm where the CPU has
  // no instruction, which is why those libm names are on the JIT allow-list).
  case IntrinsicId::SqrtF:
  case IntrinsicId::Sqrt:
    return unaryIntrinsic(b, I::sqrt, x, "sqrt");
  case IntrinsicId::RsqrtF:
  case IntrinsicId::Rsqrt:
    return b.CreateFDiv(llvm::ConstantFP::get(x->getType(), 1.0),
                        unaryIntrinsic(b, I::sqrt, x, "sqrt"), "rsqrt");
  case IntrinsicId::ExpF:
  case IntrinsicId::Exp:
  case IntrinsicId::FastExpF: // the fast forms are computed accurately: within their bounds
    return unaryIntrinsic(b, I::exp, x, "exp");
  case IntrinsicId::Exp2F:
  case IntrinsicId::Exp2:
    return unaryIntrinsic(b, I::exp2, x, "exp2");
  case IntrinsicId::LogF:
  case IntrinsicId::Log:
  case IntrinsicId::FastLogF:
    return unaryIntrinsic(b, I::log, x, "log");
  case IntrinsicId::Log2F:
  case IntrinsicId::Log2:
    return unaryIntrinsic(b, I::log2, x, "log2");
  case IntrinsicId::Log10F:
  case IntrinsicId::Log10:
    return unaryIntrinsic(b, I::log10, x, "log10");
  case IntrinsicId::SinF:
  case IntrinsicId::Sin:
  case IntrinsicId::FastSinF:
    return unaryIntrinsic(b, I::sin, x, "sin");
  case IntrinsicId::CosF:
  case IntrinsicId::Cos:
  case IntrinsicId::FastCosF:
    return unaryIntrinsic(b, I::cos, x, "cos");
  case IntrinsicId::FabsF:
  case IntrinsicId::Fabs:
    return unaryIntrinsic(b, I::fabs, x, "fabs");
  case IntrinsicId::FloorF:
  case IntrinsicId::Floor:
    return unaryIntrinsic(b, I::floor, x, "floor");
  case IntrinsicId::CeilF:
  case IntrinsicId::Ceil:
    return unaryIntrinsic(b, I::ceil, x, "ceil");
  case IntrinsicId::RoundF:
  case IntrinsicId::Round:
    return unaryIntrinsic(b, I::round, x, "round"); // halfway cases away from zero, as C
  case IntrinsicId::TruncF:
  case IntrinsicId::Trunc:
    return unaryIntrinsic(b, I::trunc, x, "trunc");
  case IntrinsicId::RintF:
  case IntrinsicId::Rint:
    return unaryIntrinsic(b, I::rint, x, "rint");
  case IntrinsicId::PowF:
  case IntrinsicId::Pow:
  case IntrinsicId::FastPowF:
    if (!need(2))
      break;
    return b.CreateBinaryIntrinsic(I::pow, x, a[1], nullptr, "pow");
  case IntrinsicId::FminF:
  case IntrinsicId::Fmin:
    if (!need(2))
      break;
    return b.CreateMinNum(x, a[1], "fmin"); // minnum ignores a NaN operand, as fminf does
  case IntrinsicId::FmaxF:
  case IntrinsicId::Fmax:
    if (!need(2))
      break;
    return b.CreateMaxNum(x, a[1], "fmax");
  case IntrinsicId::CopysignF:
  case IntrinsicId::Copysign:
    if (!need(2))
      break;
    return b.CreateCopySign(x, a[1], nullptr, "copysign");
  case IntrinsicId::FmodF:
  case IntrinsicId::Fmod:
    if (!need(2))
      break;
    return b.CreateFRem(x, a[1], "fmod");
  case IntrinsicId::FmaF:
  case IntrinsicId::Fma:
    if (!need(3))
      break;
    return b.CreateIntrinsic(I::fma, {x->getType()}, {x, a[1], a[2]}, nullptr, "fma");
  case IntrinsicId::FastDivF:
    if (!need(2))
      break;
    return b.CreateFDiv(x, a[1], "fdividef");
  case IntrinsicId::SaturateF: {
    // Clamp to [0, 1]; maxnum(NaN, 0) = 0, so NaN saturates to 0 as on the GPU.
    Value *lo = b.CreateMaxNum(x, llvm::ConstantFP::get(x->getType(), 0.0));
    return b.CreateMinNum(lo, llvm::ConstantFP::get(x->getType(), 1.0), "saturate");
  }
  // No LLVM intrinsic: call the C library per lane.
  case IntrinsicId::CbrtF:
  case IntrinsicId::Cbrt:
  case IntrinsicId::Exp10F:
  case IntrinsicId::Expm1F:
  case IntrinsicId::Expm1:
  case IntrinsicId::Log1pF:
  case IntrinsicId::Log1p:
  case IntrinsicId::TanF:
  case IntrinsicId::Tan:
  case IntrinsicId::AsinF:
  case IntrinsicId::Asin:
  case IntrinsicId::AcosF:
  case IntrinsicId::Acos:
  case IntrinsicId::AtanF:
  case IntrinsicId::Atan:
  case IntrinsicId::SinhF:
  case IntrinsicId::Sinh:
  case IntrinsicId::CoshF:
  case IntrinsicId::Cosh:
  case IntrinsicId::TanhF:
  case IntrinsicId::Tanh:
    return callLibm(mc, b, ir::intrinsicName(id), {x});
  case IntrinsicId::Atan2F:
  case IntrinsicId::Atan2:
  case IntrinsicId::HypotF:
  case IntrinsicId::Hypot:
    if (!need(2))
      break;
    return callLibm(mc, b, ir::intrinsicName(id), {x, a[1]});
  // Integer helpers (CUDA's integer intrinsics).
  case IntrinsicId::Popc:
  case IntrinsicId::Popcll:
    return b.CreateZExtOrTrunc(unaryIntrinsic(b, I::ctpop, x, "popc"), resTy);
  case IntrinsicId::Clz:
  case IntrinsicId::Clzll: // __clz(0) = 32: ctlz with is_zero_poison = false
    return b.CreateZExtOrTrunc(b.CreateBinaryIntrinsic(I::ctlz, x, b.getFalse(), nullptr, "clz"),
                               resTy);
  case IntrinsicId::Ffs:
  case IntrinsicId::Ffsll: { // 1 + index of the lowest set bit; __ffs(0) = 0
    Value *tz = b.CreateBinaryIntrinsic(I::cttz, x, b.getFalse(), nullptr, "cttz");
    Value *r = b.CreateAdd(tz, llvm::ConstantInt::get(x->getType(), 1));
    r = b.CreateSelect(isZero(b, x, argTypes[0]), llvm::Constant::getNullValue(x->getType()), r,
                       "ffs");
    return b.CreateZExtOrTrunc(r, resTy);
  }
  case IntrinsicId::Brev:
  case IntrinsicId::Brevll:
    return unaryIntrinsic(b, I::bitreverse, x, "brev");
  case IntrinsicId::Mul24:
  case IntrinsicId::Umul24: {
    if (!need(2))
      break;
    // Only the low 24 bits of each operand take part (sign-extended for __mul24); the result is
    // the low 32 bits of the product.
    bool s = id == IntrinsicId::Mul24;
    auto low24 = [&](Value *v) {
      Value *eight = llvm::ConstantInt::get(v->getType(), 8);
      return s ? b.CreateAShr(b.CreateShl(v, eight), eight)
               : b.CreateAnd(v, llvm::ConstantInt::get(v->getType(), 0xFFFFFF));
    };
    return b.CreateMul(low24(x), low24(a[1]), s ? "mul24" : "umul24");
  }
  case IntrinsicId::Mulhi:
  case IntrinsicId::Umulhi: {
    if (!need(2))
      break;
    bool s = id == IntrinsicId::Mulhi;
    Type *wide = sameShape(b.getInt64Ty(), x->getType());
    Value *p = b.CreateMul(b.CreateIntCast(x, wide, s), b.CreateIntCast(a[1], wide, s));
    return b.CreateTrunc(b.CreateLShr(p, llvm::ConstantInt::get(wide, 32)), x->getType(),
                         s ? "mulhi" : "umulhi");
  }
  case IntrinsicId::Abs: // abs(INT_MIN) = INT_MIN, as in two's complement hardware
    return b.CreateBinaryIntrinsic(I::abs, x, b.getFalse(), nullptr, "abs");
  case IntrinsicId::FpToIntSat: // CUDA's conversions saturate, and take NaN to 0
    return b.CreateIntrinsic(result.isSigned ? I::fptosi_sat : I::fptoui_sat, {resTy, x->getType()},
                             {x}, nullptr, "cvt.sat");
  default:
    if (const char *symbol = librarySymbol(id))
      return callLibrary(mc, b, symbol, a, resTy);
    mc.fail(std::string("internal error: ") + ir::intrinsicName(id) + " is not a math intrinsic");
    break;
  }
  return llvm::PoisonValue::get(resTy ? resTy : registerType(mc.llvm, result));
}

Value *promoteVarArg(Builder &b, Value *v, ir::Type t) {
  Type *i64 = b.getInt64Ty();
  if (t.isBool())
    return b.CreateZExt(v, i64);
  if (t.isInt())
    return b.CreateIntCast(v, i64, t.isSigned);
  if (t.kind == ir::TypeKind::F32)
    return b.CreateBitCast(b.CreateFPExt(v, b.getDoubleTy()), i64);
  if (t.kind == ir::TypeKind::F64)
    return b.CreateBitCast(v, i64);
  return v; // pointers are i64 addresses already
}

llvm::Value *emitBranchSplits(Builder &b, llvm::Value *mask, llvm::Value *taken) {
  llvm::Value *none = b.getInt32(0);
  llvm::Value *someTaken = b.CreateICmpNE(b.CreateAnd(mask, taken), none, "branch.some.taken");
  llvm::Value *someNot =
      b.CreateICmpNE(b.CreateAnd(mask, b.CreateNot(taken)), none, "branch.some.not.taken");
  return b.CreateAnd(someTaken, someNot, "branch.splits");
}

llvm::AllocaInst *entryAlloca(Builder &b, Type *t, const llvm::Twine &name, uint64_t align) {
  llvm::Function *f = b.GetInsertBlock()->getParent();
  llvm::BasicBlock &entry = f->getEntryBlock();
  Builder eb(&entry, entry.getFirstInsertionPt());
  auto *a = eb.CreateAlloca(t, nullptr, name);
  if (align)
    a->setAlignment(llvm::Align(align));
  return a;
}

void setCommonAttributes(llvm::Function *f) { f->setUWTableKind(llvm::UWTableKind::Async); }

llvm::Value *sharedAtomicResult(Builder &b, llvm::AtomicRMWInst::BinOp op, llvm::Value *old,
                                llvm::Value *v) {
  using Op = llvm::AtomicRMWInst::BinOp;
  llvm::Value *zero = llvm::Constant::getNullValue(v->getType());
  switch (op) {
  case Op::Add:
    return b.CreateAdd(old, v);
  case Op::FAdd:
    return b.CreateFAdd(old, v);
  case Op::Sub:
    return b.CreateSub(old, v);
  case Op::FSub:
    return b.CreateFSub(old, v);
  case Op::Xchg:
    return v;
  case Op::And:
    return b.CreateAnd(old, v);
  case Op::Or:
    return b.CreateOr(old, v);
  case Op::Xor:
    return b.CreateXor(old, v);
  case Op::Min:
    return b.CreateSelect(b.CreateICmpSLT(v, old), v, old);
  case Op::Max:
    return b.CreateSelect(b.CreateICmpSGT(v, old), v, old);
  case Op::UMin:
    return b.CreateSelect(b.CreateICmpULT(v, old), v, old);
  case Op::UMax:
    return b.CreateSelect(b.CreateICmpUGT(v, old), v, old);
  case Op::FMin:
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, old, v);
  case Op::FMax:
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, old, v);
  case Op::UIncWrap: // CUDA atomicInc: (old >= val) ? 0 : old + 1
    return b.CreateSelect(b.CreateICmpUGE(old, v), zero,
                          b.CreateAdd(old, llvm::ConstantInt::get(v->getType(), 1)));
  case Op::UDecWrap: // CUDA atomicDec: (old == 0 || old > val) ? val : old - 1
    return b.CreateSelect(b.CreateOr(b.CreateICmpEQ(old, zero), b.CreateICmpUGT(old, v)), v,
                          b.CreateSub(old, llvm::ConstantInt::get(v->getType(), 1)));
  default:
    return nullptr;
  }
}

} // namespace kern::backend
