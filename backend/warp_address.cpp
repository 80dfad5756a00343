// The address of a warp memory access, in the form its fast paths want: a uniform base plus
// 32-bit indices times a constant (a[i], s[i][j]) where the expression has that shape, so that
// the contiguous and gathered shapes are recognised and taken on 32-bit lanes; the 64-bit
// address vector only where a path needs every lane's address.
#include "backend/warp_codegen_impl.h"

#include <numeric>

namespace kern::backend::warp {

namespace {

/// mul(cast.i64(i), scale) or cast.i64(i), i a 32-bit integer: i and scale.
std::optional<std::pair<const ir::Expr *, uint64_t>> indexTerm(const ir::Expr &offset) {
  const ir::Expr *e = &offset;
  uint64_t scale = 1;
  if (e->kind == ir::ExprKind::Binary && e->binaryOp == ir::BinaryOp::Mul &&
      e->ops[1]->kind == ir::ExprKind::Const && e->ops[1]->intValue > 0) {
    scale = static_cast<uint64_t>(e->ops[1]->intValue);
    e = e->ops[0];
  }
  if (e->kind == ir::ExprKind::Cast && e->type.bits() == 64 && e->ops[0]->type.isInt() &&
      e->ops[0]->type.bits() == 32)
    return std::make_pair(e->ops[0], scale);
  return std::nullopt;
}

} // namespace

void WarpCodegen::emitAddress(MemoryAccess &a, const ir::Expr &addr) {
  // A chain of ptradds down to a uniform pointer, each adding a uniform offset or a term
  // ext(i) x scale with i a varying 32-bit integer: a[i], s[i][j], p[i].field and their kin.
  struct Part {
    const ir::Expr *offset; // a uniform i64 offset, or the term's index
    uint64_t scale;         // 0 for a uniform offset
  };
  std::vector<Part> parts; // outermost first
  const ir::Expr *at = &addr;
  while (!at->uniform && at->kind == ir::ExprKind::PtrAdd) {
    const ir::Expr *offset = at->ops[1];
    if (offset->uniform) {
      parts.push_back({offset, 0});
    } else if (auto term = indexTerm(*offset)) {
      parts.push_back({term->first, term->second});
    } else {
      break;
    }
    at = at->ops[0];
  }
  if (!at->uniform || addr.uniform || parts.empty()) {
    a.addrs = emitVec(addr);
    return;
  }
  // Evaluated in the expression's order: the pointer, then the offsets from the innermost.
  Type *i64 = b_.getInt64Ty();
  Value *base = emitExpr(*at);
  if (base->getType()->isPointerTy())
    base = b_.CreatePtrToInt(base, i64, "addr.base");
  else if (base->getType()->isVectorTy() && base->getType()->getScalarType()->isPointerTy())
    base = b_.CreatePtrToInt(base, warpVector(i64), "addr.base");
  std::vector<MemoryAccess::Term> terms;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    Value *v = emitExpr(*it->offset);
    if (it->scale == 0) {
      if (base->getType()->isVectorTy() || v->getType()->isVectorTy())
        base = b_.CreateAdd(vec(base), vec(v), "addr.base");
      else
        base = b_.CreateAdd(base, v, "addr.base");
    } else {
      terms.push_back({vec(v), it->offset->type.isSigned, it->scale});
    }
  }
  auto wholeVector = [&] { // every lane's 64-bit address, from the parts
    Value *addrs = vec(base);
    for (auto &t : terms)
      addrs = b_.CreateAdd(addrs, addressVectorOf(nullptr, t.index, t.isSigned, t.scale), "addrs");
    return addrs;
  };
  if (base->getType()->isVectorTy() || terms.empty()) {
    a.addrs = wholeVector(); // not the shapes the analysis promised
    return;
  }
  a.affineBase = base;
  if (terms.size() == 1) {
    a.affineIndex = terms[0].index;
    a.affineSigned = terms[0].isSigned;
    a.affineScale = terms[0].scale;
    return;
  }
  // Several terms: their sum in units of the scales' greatest common divisor, in 32 bits, which
  // is exact where no term's part exceeds 2^30 / terms (their sum then fits a signed 32-bit
  // integer); lanes beyond that take the 64-bit address (affineExact).
  uint64_t unit = 0;
  for (auto &t : terms)
    unit = std::gcd(unit, t.scale);
  Value *index = nullptr, *exact = nullptr;
  const uint64_t budget = (uint64_t(1) << 30) / terms.size();
  for (auto &t : terms) {
    uint64_t coefficient = t.scale / unit, bound = budget / coefficient;
    if (bound == 0) { // a term so large that 32 bits say nothing
      a.affineBase = nullptr;
      a.addrs = wholeVector();
      return;
    }
    Value *part = b_.CreateMul(t.index, splat(b_.getInt32(uint32_t(coefficient))), "index.part");
    index = index ? b_.CreateAdd(index, part, "index.sum") : part;
    Value *small =
        t.isSigned ? b_.CreateICmpULE(b_.CreateAdd(t.index, splat(b_.getInt32(uint32_t(bound)))),
                                      splat(b_.getInt32(uint32_t(2 * bound))))
                   : b_.CreateICmpULE(t.index, splat(b_.getInt32(uint32_t(bound))));
    exact = exact ? b_.CreateAnd(exact, small) : small;
  }
  a.affineIndex = index;
  a.affineSigned = true;
  a.affineScale = unit;
  a.affineExact = exact;
  a.terms = std::move(terms);
}

Value *WarpCodegen::affineAddressOf(const MemoryAccess &a, Value *index, const llvm::Twine &name) {
  Type *i64 = b_.getInt64Ty();
  Value *wide = a.affineSigned ? b_.CreateSExt(index, i64) : b_.CreateZExt(index, i64);
  return b_.CreateAdd(a.affineBase, b_.CreateMul(wide, b_.getInt64(a.affineScale)), name);
}

Value *WarpCodegen::affineAddresses(const MemoryAccess &a) {
  return addressVectorOf(a.affineBase, a.affineIndex, a.affineSigned, a.affineScale);
}

Value *WarpCodegen::exactLanes(const MemoryAccess &a, Value *m) {
  if (!a.affineExact)
    return b_.getTrue();
  return b_.CreateUnaryIntrinsic(llvm::Intrinsic::vector_reduce_and,
                                 b_.CreateOr(a.affineExact, b_.CreateNot(m)), nullptr,
                                 "index.exact");
}

Value *WarpCodegen::addressVectorOf(Value *base, Value *index, bool isSigned, uint64_t scale) {
  Type *i64v = warpVector(b_.getInt64Ty());
  Value *ext = isSigned ? b_.CreateSExt(index, i64v, "index.wide")
                        : b_.CreateZExt(index, i64v, "index.wide");
  Value *offset = b_.CreateMul(ext, splat(b_.getInt64(scale)));
  return base ? b_.CreateAdd(vec(base), offset, "addrs") : offset;
}

Value *WarpCodegen::addressVector(const MemoryAccess &a) {
  if (a.addrs)
    return a.addrs;
  // Built where it is needed (the general path, the hooks): the freeze keeps the optimiser
  // from merging it with the vectors of other accesses of the same index and hoisting the
  // result into the fast path, which never needs it.
  if (a.terms.empty())
    return addressVectorOf(a.affineBase, b_.CreateFreeze(a.affineIndex, "index.here"),
                           a.affineSigned, a.affineScale);
  Value *addrs = vec(a.affineBase);
  for (auto &t : a.terms)
    addrs = b_.CreateAdd(
        addrs,
        addressVectorOf(nullptr, b_.CreateFreeze(t.index, "index.here"), t.isSigned, t.scale),
        "addrs");
  return addrs;
}

} // namespace kern::backend::warp
