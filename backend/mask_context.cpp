// Mask arithmetic for structured control flow in warp functions (see mask_context.h).
#include "backend/mask_context.h"

#include "backend/codegen_common.h"

#include <llvm/IR/Constants.h>

#include <cassert>

namespace kern::backend {

using llvm::Value;

MaskContext::MaskContext(llvm::IRBuilder<> &b, Value *entryMask) : b_(b) {
  auto *maskTy = entryMask->getType();
  current_ = entryAlloca(b_, maskTy, "exec.mask");
  returned_ = entryAlloca(b_, maskTy, "returned.lanes");
  b_.CreateStore(entryMask, current_);
  b_.CreateStore(noLanes(), returned_);
}

Value *MaskContext::noLanes() { return llvm::Constant::getNullValue(current_->getAllocatedType()); }

Value *MaskContext::currentMask() {
  return b_.CreateLoad(current_->getAllocatedType(), current_, "mask");
}

void MaskContext::setMask(Value *m) { b_.CreateStore(m, current_); }

Value *MaskContext::returnedMask() {
  return b_.CreateLoad(returned_->getAllocatedType(), returned_, "returned");
}

Value *MaskContext::any(Value *mask, const llvm::Twine &name) {
  // <32 x i1> -> i32 puts lane i in bit i; one compare instead of a horizontal reduction.
  Value *bits = b_.CreateBitCast(mask, b_.getIntNTy(kWarpSize));
  return b_.CreateICmpNE(bits, b_.getIntN(kWarpSize, 0), name);
}

llvm::BasicBlock *MaskContext::newBlock(const llvm::Twine &name) {
  return llvm::BasicBlock::Create(b_.getContext(), name, b_.GetInsertBlock()->getParent());
}

MaskContext::LoopScope *MaskContext::innermostMaskedLoop() {
  for (auto it = loops_.rbegin(); it != loops_.rend(); ++it)
    if (!it->uniform)
      return &*it;
  return nullptr;
}

Value *MaskContext::leftLanes() {
  Value *left = returnedMask();
  if (LoopScope *l = innermostMaskedLoop()) {
    auto *ty = current_->getAllocatedType();
    left = b_.CreateOr(left, b_.CreateLoad(ty, l->breakLanes, "break.lanes"));
    left = b_.CreateOr(left, b_.CreateLoad(ty, l->continueLanes, "continue.lanes"), "left.lanes");
  }
  return left;
}

// ---- if ------------------------------------------------------------------------------------

void MaskContext::startIf(Value *cond, bool hasElse, const BranchHook &hook,
                          const SkipHook &thenSkipped, const SkipHook &elseSkipped) {
  Value *m = currentMask();
  Value *t = b_.CreateAnd(m, cond, "if.then.mask");
  Value *e = b_.CreateAnd(m, b_.CreateNot(cond), "if.else.mask");
  if (hook)
    hook(m, t);
  auto *thenBB = newBlock("if.then");
  auto *elseTest = hasElse ? newBlock("if.else.test") : nullptr;
  auto *end = newBlock("if.end");
  // A side no lane takes is skipped, uniform or not: exactly one side runs when all active
  // lanes agree, both (one after the other) when they diverge.
  b_.CreateCondBr(any(t, "if.then.any"), thenBB,
                  skipped(thenSkipped, hasElse ? elseTest : end, "if.then.skipped"));
  b_.SetInsertPoint(thenBB);
  setMask(t);
  ifs_.push_back({m, e, elseTest, end, false, elseSkipped});
}

void MaskContext::startUniformIf(Value *cond, bool hasElse, const BranchHook &hook,
                                 const SkipHook &thenSkipped, const SkipHook &elseSkipped) {
  Value *m = currentMask();
  if (hook) // the same numbers as startIf's: all of the mask taken, or none of it
    hook(m, b_.CreateSelect(cond, m, noLanes(), "if.then.mask"));
  auto *thenBB = newBlock("if.then");
  auto *elseBB = hasElse ? newBlock("if.else") : nullptr;
  auto *end = newBlock("if.end");
  // The mask is never empty where code runs (empty regions are skipped), so a true condition
  // means the then side has lanes, exactly as any(t) would say.
  b_.CreateCondBr(cond, thenBB, skipped(thenSkipped, hasElse ? elseBB : end, "if.then.skipped"));
  b_.SetInsertPoint(thenBB);
  ifs_.push_back({m, nullptr, elseBB, end, true, elseSkipped});
}

llvm::BasicBlock *MaskContext::skipped(const SkipHook &hook, llvm::BasicBlock *next,
                                       const char *name) {
  if (!hook)
    return next;
  llvm::BasicBlock *here = b_.GetInsertBlock();
  auto *bb = newBlock(name);
  b_.SetInsertPoint(bb);
  hook();
  b_.CreateBr(next);
  b_.SetInsertPoint(here);
  return bb;
}

void MaskContext::startElse() {
  auto &s = ifs_.back();
  if (s.uniform) {
    // The then side ran, so the else side is skipped.
    if (s.elseSkipped)
      s.elseSkipped();
    b_.CreateBr(s.end);
    b_.SetInsertPoint(s.elseTest);
    setMask(s.outer);
    return;
  }
  b_.CreateBr(s.elseTest);
  b_.SetInsertPoint(s.elseTest);
  auto *elseBB = newBlock("if.else");
  // The else lanes never ran the then side, so none of them can have returned or broken there.
  b_.CreateCondBr(any(s.elseMask, "if.else.any"), elseBB,
                  skipped(s.elseSkipped, s.end, "if.else.skipped"));
  b_.SetInsertPoint(elseBB);
  setMask(s.elseMask);
}

void MaskContext::endIf(bool lanesMayLeave) {
  IfScope s = ifs_.back();
  ifs_.pop_back();
  b_.CreateBr(s.end);
  b_.SetInsertPoint(s.end);
  if (!lanesMayLeave) {
    // The outer mask never holds lanes that left before the if, and none left inside.
    setMask(s.outer);
    return;
  }
  // Reconverge: lanes that returned, broke or continued inside either side stay off.
  setMask(b_.CreateAnd(s.outer, b_.CreateNot(leftLanes()), "if.end.mask"));
}

// ---- loops ---------------------------------------------------------------------------------

void MaskContext::startLoop(bool uniform) {
  if (uniform) {
    // No break or continue lanes to keep: a plain loop around the mask of its entry.
    LoopScope l{};
    l.uniform = true;
    l.entry = currentMask();
    l.header = newBlock("uloop.header");
    l.step = newBlock("uloop.step");
    l.exit = newBlock("uloop.exit");
    b_.CreateBr(l.header);
    b_.SetInsertPoint(l.header);
    loops_.push_back(l);
    return;
  }
  auto *ty = current_->getAllocatedType();
  LoopScope l;
  l.uniform = false;
  l.entry = currentMask();
  l.breakLanes = entryAlloca(b_, ty, "break.lanes.addr");
  l.continueLanes = entryAlloca(b_, ty, "continue.lanes.addr");
  b_.CreateStore(noLanes(), l.breakLanes);
  b_.CreateStore(noLanes(), l.continueLanes);
  l.header = newBlock("loop.header");
  l.step = newBlock("loop.step");
  l.exit = newBlock("loop.exit");
  b_.CreateBr(l.header);
  b_.SetInsertPoint(l.header);
  Value *gone = b_.CreateOr(b_.CreateLoad(ty, l.breakLanes, "break.lanes"), returnedMask());
  Value *m = b_.CreateAnd(l.entry, b_.CreateNot(gone), "loop.mask");
  setMask(m);
  auto *body = newBlock("loop.body");
  b_.CreateCondBr(any(m, "loop.any"), body, l.exit);
  b_.SetInsertPoint(body);
  loops_.push_back(l);
}

void MaskContext::loopTest(Value *cond, const BranchHook &hook) {
  auto &l = loops_.back();
  if (l.uniform) {
    // Every lane that evaluated the condition goes the same way: a plain branch.
    if (hook) {
      Value *m = currentMask();
      hook(m, b_.CreateSelect(cond, m, noLanes(), "loop.taken"));
    }
    auto *cont = newBlock("uloop.cond.true");
    b_.CreateCondBr(cond, cont, l.exit);
    b_.SetInsertPoint(cont);
    return;
  }
  auto *ty = current_->getAllocatedType();
  Value *m = currentMask();
  Value *stay = b_.CreateAnd(m, cond, "loop.cond.mask");
  if (hook)
    hook(m, stay);
  // Lanes whose condition failed are done with the loop: exactly like break.
  Value *leave = b_.CreateAnd(m, b_.CreateNot(cond));
  b_.CreateStore(b_.CreateOr(b_.CreateLoad(ty, l.breakLanes), leave, "break.lanes"), l.breakLanes);
  setMask(stay);
  auto *cont = newBlock("loop.cond.true");
  b_.CreateCondBr(any(stay, "loop.cond.any"), cont, l.exit);
  b_.SetInsertPoint(cont);
}

void MaskContext::startStep() {
  auto &l = loops_.back();
  auto *ty = current_->getAllocatedType();
  b_.CreateBr(l.step);
  b_.SetInsertPoint(l.step);
  if (l.uniform)
    return; // no lane continued, none left
  // Continued lanes rejoin here; broken and returned lanes do not.
  Value *gone = b_.CreateOr(b_.CreateLoad(ty, l.breakLanes, "break.lanes"), returnedMask());
  Value *m = b_.CreateAnd(l.entry, b_.CreateNot(gone), "loop.step.mask");
  setMask(m);
  b_.CreateStore(noLanes(), l.continueLanes);
  auto *stepBody = newBlock("loop.step.body");
  b_.CreateCondBr(any(m, "loop.step.any"), stepBody, l.exit);
  b_.SetInsertPoint(stepBody);
}

void MaskContext::endLoop(const std::function<void()> &backEdge) {
  LoopScope l = loops_.back();
  if (backEdge)
    backEdge();
  b_.CreateBr(l.header);
  b_.SetInsertPoint(l.exit);
  loops_.pop_back();
  if (l.uniform) {
    // No lane left, so the lanes after the loop are those before it.
    setMask(l.entry);
    return;
  }
  // Broken lanes rejoin after the loop; returned lanes stay off.
  setMask(b_.CreateAnd(l.entry, b_.CreateNot(returnedMask()), "loop.exit.mask"));
}

// ---- lane by lane ---------------------------------------------------------------------------

void MaskContext::forEachLane(Value *mask, const std::string &name,
                              const std::function<void(Value *lane)> &body) {
  Value *laneBits = b_.CreateBitCast(mask, b_.getInt32Ty(), name + ".lanes");
  auto *pre = b_.GetInsertBlock();
  auto *loop = newBlock(name + ".lane");
  auto *done = newBlock(name + ".done");
  b_.CreateCondBr(b_.CreateICmpNE(laneBits, b_.getInt32(0)), loop, done);
  b_.SetInsertPoint(loop);
  auto *rem = b_.CreatePHI(b_.getInt32Ty(), 2, "lanes.left");
  rem->addIncoming(laneBits, pre);
  // The lowest lane left, then that lane's bit cleared.
  Value *lane = b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, rem, b_.getTrue(), nullptr, "lane");
  body(lane);
  Value *next = b_.CreateAnd(rem, b_.CreateSub(rem, b_.getInt32(1)), "lanes.next");
  rem->addIncoming(next, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpNE(next, b_.getInt32(0)), loop, done);
  b_.SetInsertPoint(done);
}

// ---- break, continue, return ---------------------------------------------------------------

void MaskContext::breakLanes() {
  auto &l = loops_.back();
  assert(!l.uniform && "break in a loop judged uniform");
  auto *ty = current_->getAllocatedType();
  b_.CreateStore(b_.CreateOr(b_.CreateLoad(ty, l.breakLanes), currentMask(), "break.lanes"),
                 l.breakLanes);
  setMask(noLanes());
}

void MaskContext::continueLanes() {
  auto &l = loops_.back();
  assert(!l.uniform && "continue in a loop judged uniform");
  auto *ty = current_->getAllocatedType();
  b_.CreateStore(b_.CreateOr(b_.CreateLoad(ty, l.continueLanes), currentMask(), "continue.lanes"),
                 l.continueLanes);
  setMask(noLanes());
}

bool MaskContext::atEntryMask() const {
  if (returnedAny_)
    return false;
  for (const IfScope &s : ifs_)
    if (!s.uniform)
      return false;
  for (const LoopScope &l : loops_)
    if (!l.uniform)
      return false;
  return true;
}

void MaskContext::returnLanes() {
  returnedAny_ = true;
  b_.CreateStore(b_.CreateOr(returnedMask(), currentMask(), "returned.lanes"), returned_);
  setMask(noLanes());
}

} // namespace kern::backend
