// Kernels whose barriers all stand in block-uniform control (ir::planBlockLevel), in fast mode:
// one function runs the whole block. The statements that reach a barrier, and the assignments
// of the uniform variables their conditions read, run once for the block (a loop around a
// barrier is one loop, its condition tested once per iteration); the statements between two
// barriers run for each warp in turn, in a loop over the warps, as PoCL's work-group loops run
// work-items. A barrier itself is then nothing: every warp has run up to it when the loop over
// the warps ends, and with no return in the kernel every live lane of every warp is there.
//
// Next to the region form (warp_regions.cpp), where each warp's turn finds where it waits, runs
// to its next barrier and notes it there, a warp's turn here is only its own statements: a tree
// reduction's warp with no lane under `tid < s` tests that and goes on.
//
// The variables a warp keeps from one run of statements to another (used by two runs, or by a
// run inside a block-level loop) live in its part of a per-block frame, loaded at the start of
// its turn and stored at the end; the others are registers of one turn. A fault or a stop in a
// warp's turn ends the block there, as the fibers end it: no later warp runs.
//
// This is the kernel's block form, `@name.block`, beside its usual form (fibers or regions),
// which the runtime uses for blocks of one warp (which run as one turn, their values in registers
// from barrier to barrier) and where counters are counted (the runtime then counts each warp's
// arrival at a barrier). Compiled with checks (checked mode), a barrier tells the race detector
// that the accesses after it are ordered after those before it (kern_rt_block_barrier).
#include "backend/warp_codegen_impl.h"
#include "ir/analysis.h"
#include "ir/analysis_structure.h"

#include <cstdlib>
#include <string_view>

namespace kern::backend::warp {

namespace {

void varsOf(const ir::Expr *e, std::set<const ir::Var *> &used) {
  if (!e)
    return;
  if (e->kind == ir::ExprKind::VarRef && e->var)
    used.insert(e->var);
  for (const ir::Expr *o : e->ops)
    varsOf(o, used);
}

/// The variables statement `s` reads or assigns (`used`), and those it assigns.
void varsOf(const ir::Stmt &s, std::set<const ir::Var *> &used,
            std::set<const ir::Var *> *assigned = nullptr) {
  for (const ir::Expr *e : {s.value, s.addr, s.cond, s.format})
    varsOf(e, used);
  for (const ir::Expr *e : s.args)
    varsOf(e, used);
  if (s.var) {
    used.insert(s.var);
    if (assigned)
      assigned->insert(s.var);
  }
  for (const ir::Block *c : {s.thenBody, s.elseBody, s.preCond, s.body, s.step})
    if (c)
      for (const ir::Stmt *t : c->stmts)
        varsOf(*t, used, assigned);
}

/// The runs of per-warp statements of a block-level sequence, as emitBlockSequence cuts them:
/// for each variable, how many runs use it, and whether one of them repeats (it is inside a
/// block-level loop).
struct RunUse {
  std::map<const ir::Var *, int> runs;
  std::set<const ir::Var *> repeated;

  void sequence(const ir::Block *b, const ir::BlockLevelPlan &plan, bool inLoop) {
    if (!b)
      return;
    std::set<const ir::Var *> run;
    auto flush = [&] {
      for (const ir::Var *v : run) {
        ++runs[v];
        if (inLoop)
          repeated.insert(v);
      }
      run.clear();
    };
    for (const ir::Stmt *s : b->stmts) {
      if (!ir::runsOncePerBlock(*s, plan)) {
        varsOf(*s, run);
        continue;
      }
      flush();
      if (s->kind == ir::StmtKind::Block)
        sequence(ir::nestedBlock(*s), plan, inLoop);
      sequence(s->thenBody, plan, inLoop);
      sequence(s->elseBody, plan, inLoop);
      if (s->kind == ir::StmtKind::Loop)
        sequence(s->body, plan, true);
    }
    flush();
  }
};

/// Sets a flag for a scope, as it was after.
class LevelScope {
public:
  LevelScope(bool &flag, bool value) : flag_(flag), old_(flag) { flag_ = value; }
  ~LevelScope() { flag_ = old_; }
  LevelScope(const LevelScope &) = delete;
  LevelScope &operator=(const LevelScope &) = delete;

private:
  bool &flag_;
  bool old_;
};

} // namespace

void WarpCodegen::emitWholeBlock(const ir::BlockLevelPlan &plan) {
  allowContraction();
  Type *i32 = b_.getInt32Ty(), *i64 = b_.getInt64Ty();
  auto *entry = BasicBlock::Create(c_, "entry", fn_);
  b_.SetInsertPoint(entry);
  ctx_ = fn_->getArg(0);
  wb_.plan = &plan;
  wb_.ctx0 = ctx_;
  exit_ = BasicBlock::Create(c_, "block.end");

  wb_.warps = blockWarps();

  emitLocalFrame(true);
  loadAddressWindows();
  shortLoops_ = ir::shortLoops(f_, 64);
  tiled_ = ir::usesThreadRows(f_);
  reads_ = ir::kernelReads(f_);
  if (mc_.options.counters) {
    // Counted for the whole block, as warp_regions.cpp counts a region kernel's; what runs
    // once for the block counts for each of its warps (blockLevel_).
    tallying_ = true;
    startInstructions();
    loadCounterView(ctx_);
    wb_.blockKey = emitWarpKey();
    wb_.warps64 = b_.CreateZExt(wb_.warps, i64, "block.warps");
    Value *threads = b_.getInt64(1);
    for (unsigned d = 0; d < 3; ++d)
      threads =
          b_.CreateMul(threads, b_.CreateZExt(loadCtx(kCtxBlockDim + 4 * d, i32, "bdim"), i64));
    wb_.threads = threads;
  }

  // Variables: the block's own (plan.blockVars) and those of one run are slots of the function;
  // those a warp keeps from run to run are loaded from its part of the frame at each turn.
  wb_.readFirst = ir::readBeforeAssigned(f_.body, {f_.params.begin(), f_.params.end()});
  emitVarSlots(true, fn_->arg_end(), &wb_.readFirst);
  RunUse use;
  use.sequence(f_.body, plan, false);
  const llvm::DataLayout &dl = mc_.module.getDataLayout();
  uint64_t offset = 0;
  for (const ir::Var *v : f_.vars) {
    auto it = use.runs.find(v);
    if (it == use.runs.end() || plan.blockVars.count(v) || v->isParam ||
        (it->second < 2 && !use.repeated.count(v)))
      continue;
    Type *t = vars_[v]->getAllocatedType();
    const uint64_t size = dl.getTypeAllocSize(t), align = size >= 64 ? 64 : 16;
    offset = (offset + align - 1) / align * align;
    wb_.kept[v] = offset;
    offset += size;
  }
  wb_.frameStride = (offset + 63) / 64 * 64;
  if (wb_.frameStride) {
    runtime(RuntimeFunction::kern_rt_region_frame)->addRetAttr(llvm::Attribute::NoAlias);
    Value *bytes = b_.CreateMul(b_.CreateZExt(wb_.warps, i64), b_.getInt64(wb_.frameStride));
    wb_.frame = b_.CreateCall(runtime(RuntimeFunction::kern_rt_region_frame),
                              {ctx_, bytes, b_.getInt64(64)}, "frame");
    // Each warp's kept variables that may be read before they are assigned start at 0.
    bool zeroes = false;
    for (auto &[v, off] : wb_.kept)
      zeroes = zeroes || wb_.readFirst.count(v);
    if (zeroes)
      forEachWarp("frame.init", [&](Value *w) {
        Value *part = b_.CreateInBoundsGEP(
            b_.getInt8Ty(), wb_.frame,
            b_.CreateMul(b_.CreateZExt(w, i64), b_.getInt64(wb_.frameStride)), "init.part");
        for (auto &[v, off] : wb_.kept)
          if (wb_.readFirst.count(v)) {
            Type *t = vars_[v]->getAllocatedType();
            b_.CreateStore(llvm::Constant::getNullValue(t),
                           b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), part, off));
          }
      });
  }
  // Block-level code evaluates only block-uniform expressions; a mask is still at hand.
  mask_ = std::make_unique<MaskContext>(
      b_, b_.CreateBitCast(loadCtx(kCtxLiveMask, i32, "live"), maskTy(), "live.mask"));

  {
    LevelScope level(blockLevel_, true);
    countInstr(reads_.entry); // the stack pointer's load
    emitBlockSequence(f_.body);
    countInstr({ir::InstrClass::Control, 1}); // EXIT
  }
  b_.CreateBr(exit_);
  exit_->insertInto(fn_);
  b_.SetInsertPoint(exit_);
  reportInstructions(); // the block's counts, on every way out
  flushTallies();
  b_.CreateRetVoid();
}

void WarpCodegen::emitBlockSequence(const ir::Block *b) {
  if (!b)
    return;
  std::vector<const ir::Stmt *> run;
  for (const ir::Stmt *s : b->stmts) {
    if (!ir::runsOncePerBlock(*s, *wb_.plan)) {
      run.push_back(s);
      continue;
    }
    emitWarpRun(run);
    run.clear();
    emitOncePerBlock(*s);
  }
  emitWarpRun(run);
}

void WarpCodegen::emitOncePerBlock(const ir::Stmt &s) {
  using ir::StmtKind;
  ctx_ = wb_.ctx0;
  // Counted as each warp counts it in the usual form (emitStmt, emitLoop): blockLevel_ makes
  // every count one for each warp of the block.
  LevelScope level(blockLevel_, true);
  if (auto it = reads_.at.find(&s); it != reads_.at.end())
    countInstr(it->second);
  switch (s.kind) {
  case StmtKind::Barrier: // every warp is here (see the top of this file)
    countInstr(ir::statementMix(s));
    if (mc_.options.counters)
      addSiteCounter(s.site, offsetof(KernSiteCounters, barriersExecuted), wb_.warps64);
    if (mc_.options.checked)
      b_.CreateCall(runtime(RuntimeFunction::kern_rt_block_barrier), {ctx_});
    return;
  case StmtKind::Block:
    emitBlockSequence(ir::nestedBlock(s));
    return;
  case StmtKind::Assign: {
    countInstr(ir::statementMix(s));
    Value *v = emitExpr(*s.value);
    if (v->getType()->isVectorTy() || !scalarVar(s.var)) {
      mc_.fail("internal error: block-level assignment of a varying value in " + f_.name);
      return;
    }
    b_.CreateStore(v, vars_[s.var]);
    return;
  }
  case StmtKind::If: {
    countInstr(ir::ifMix(s));
    Value *c = emitCond(s.cond);
    if (c->getType()->isVectorTy()) {
      mc_.fail("internal error: block-level condition emitted as a vector in " + f_.name);
      return;
    }
    if (BranchHook hook = branchHook(s.site, s.isBranch, s.isBranch && s.gpuBranch))
      hook(cur(), cur()); // (every warp's lanes go one way: the lanes are not looked at)
    auto *thenBB = newBlock("block.then");
    auto *elseBB = newBlock("block.else");
    auto *joinBB = newBlock("block.join");
    b_.CreateCondBr(c, thenBB, elseBB);
    b_.SetInsertPoint(thenBB);
    emitBlockSequence(s.thenBody);
    if (s.elseBody && s.isBranch && s.gpuBranch && !s.noJump && !s.elseBody->stmts.empty())
      countJump(s.site); // the then side ends by jumping over the else side
    b_.CreateBr(joinBB);
    b_.SetInsertPoint(elseBB);
    emitBlockSequence(s.elseBody);
    b_.CreateBr(joinBB);
    b_.SetInsertPoint(joinBB);
    return;
  }
  case StmtKind::Loop: {
    // repeat { preCond; if (testFirst && !cond) break; body; step; if (!testFirst && !cond)
    // break; }, as emitLoop, with one condition for the whole block, and its counts.
    auto *headBB = newBlock("block.loop");
    auto *bodyBB = newBlock("block.loop.body");
    auto *exitBB = newBlock("block.loop.exit");
    const LoopIssue issue = startLoopIssue(s);
    auto test = [&](BasicBlock *then) {
      ctx_ = wb_.ctx0;
      Value *c = emitCond(s.cond);
      if (c->getType()->isVectorTy()) {
        mc_.fail("internal error: block-level loop condition emitted as a vector in " + f_.name);
        c = b_.getFalse();
      }
      countLoopTest(s, issue);
      if (BranchHook hook = loopHook(s, issue.tests))
        hook(cur(), cur());
      b_.CreateCondBr(c, then, exitBB);
    };
    countInstr(ir::hoistedMix(s));
    b_.CreateBr(headBB);
    b_.SetInsertPoint(headBB);
    emitBlockSequence(s.preCond);
    if (s.testFirst)
      test(bodyBB);
    else
      b_.CreateBr(bodyBB);
    b_.SetInsertPoint(bodyBB);
    ++rolledLoops_; // its accesses run often: inline gathers pay (emitGatherAccess)
    emitBlockSequence(s.body);
    uncounted_ += issue.unrolled || issue.every > 1;
    emitBlockSequence(s.step);
    uncounted_ -= issue.unrolled || issue.every > 1;
    --rolledLoops_;
    ctx_ = wb_.ctx0;
    countLoopStep(s, issue);
    emitBackEdge(s.site, !shortLoops_.count(&s)); // a stop ends the block (exit_)
    if (s.testFirst) {
      b_.CreateBr(headBB);
    } else {
      auto *againBB = newBlock("block.loop.again");
      test(againBB);
      b_.SetInsertPoint(againBB);
      b_.CreateBr(headBB);
    }
    b_.SetInsertPoint(exitBB);
    countLoopEnd(s, issue.tests);
    return;
  }
  default:
    mc_.fail("internal error: statement of the wrong kind at block level in " + f_.name);
    return;
  }
}

void WarpCodegen::forEachWarp(const llvm::Twine &name, const std::function<void(Value *)> &body) {
  BasicBlock *before = b_.GetInsertBlock();
  auto *headBB = newBlock(name);
  auto *doneBB = newBlock(name + ".done");
  b_.CreateBr(headBB);
  b_.SetInsertPoint(headBB);
  auto *w = b_.CreatePHI(b_.getInt32Ty(), 2, name);
  body(w);
  Value *next = b_.CreateAdd(w, b_.getInt32(1), name + ".next");
  b_.CreateCondBr(b_.CreateICmpULT(next, wb_.warps), headBB, doneBB);
  w->addIncoming(b_.getInt32(0), before);
  w->addIncoming(next, b_.GetInsertBlock());
  b_.SetInsertPoint(doneBB);
}

void WarpCodegen::emitWarpRun(const std::vector<const ir::Stmt *> &run) {
  if (run.empty())
    return;
  Type *i32 = b_.getInt32Ty(), *i64 = b_.getInt64Ty();
  std::set<const ir::Var *> used, assigned;
  for (const ir::Stmt *s : run)
    varsOf(*s, used, &assigned);
  forEachWarp("warp", [&](Value *w) {
    LevelScope level(blockLevel_, false); // each warp counts its own
    ctx_ = b_.CreateInBoundsGEP(
        b_.getInt8Ty(), wb_.ctx0,
        b_.CreateMul(b_.CreateZExt(w, i64), b_.getInt64(sizeof(KernWarpCtx))), "ctx");
    if (mc_.options.counters)
      warpKey_ = b_.CreateOr(wb_.blockKey, b_.CreateZExt(w, i64), "warp.key");
    Value *part = nullptr;
    if (wb_.frame)
      part = b_.CreateInBoundsGEP(b_.getInt8Ty(), wb_.frame,
                                  b_.CreateMul(b_.CreateZExt(w, i64), b_.getInt64(wb_.frameStride)),
                                  "warp.frame");
    // The warp's own values: what it kept, and 0 for what it may read before assigning.
    for (const ir::Var *v : used) {
      llvm::AllocaInst *slot = vars_[v];
      if (auto it = wb_.kept.find(v); it != wb_.kept.end()) {
        Value *field = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), part, it->second);
        b_.CreateStore(b_.CreateLoad(slot->getAllocatedType(), field, v->name + ".kept"), slot);
      } else if (!wb_.plan->blockVars.count(v) && !v->isParam && wb_.readFirst.count(v)) {
        b_.CreateStore(zeroValue(v->type, slot->getAllocatedType()), slot);
      }
    }
    auto blockMask = std::move(mask_);
    mask_ = std::make_unique<MaskContext>(
        b_, b_.CreateBitCast(loadCtx(kCtxLiveMask, i32, "live"), maskTy(), "live.mask"));
    for (const ir::Stmt *s : run)
      emitStmt(*s);
    for (const ir::Var *v : assigned)
      if (auto it = wb_.kept.find(v); it != wb_.kept.end()) {
        llvm::AllocaInst *slot = vars_[v];
        b_.CreateStore(b_.CreateLoad(slot->getAllocatedType(), slot, v->name),
                       b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), part, it->second));
      }
    mask_ = std::move(blockMask);
  });
  ctx_ = wb_.ctx0;
}

} // namespace kern::backend::warp

namespace kern::backend {

namespace {

/// Whether a statement of `b` that the block form runs once per block is a predicated if:
/// each warp counts a predicated side that no lane takes (countSkippedSide), which the block
/// form does not count for the block.
bool predicatedAtBlockLevel(const ir::Block *b, const ir::BlockLevelPlan &plan) {
  if (!b)
    return false;
  for (const ir::Stmt *s : b->stmts) {
    if (!ir::runsOncePerBlock(*s, plan))
      continue;
    if (s->kind == ir::StmtKind::If && s->predicated)
      return true;
    const ir::Block *inner[] = {s->kind == ir::StmtKind::Block ? ir::nestedBlock(*s) : nullptr,
                                s->thenBody,
                                s->elseBody,
                                s->kind == ir::StmtKind::Loop ? s->preCond : nullptr,
                                s->kind == ir::StmtKind::Loop ? s->body : nullptr,
                                s->kind == ir::StmtKind::Loop ? s->step : nullptr};
    for (const ir::Block *i : inner)
      if (predicatedAtBlockLevel(i, plan))
        return true;
  }
  return false;
}

} // namespace

ir::BlockLevelPlan blockFormPlan(const ir::Module &m, const ir::Function &f,
                                 const CompileOptions &o) {
  // A kernel that reads clock() keeps each warp's modelled clock, which the block form does
  // not.
  if (m.readsClock)
    return {};
  // KERN_BLOCK_FORM=0: none (tests/workers/identical.sh compares the counts of both forms).
  if (const char *env = std::getenv("KERN_BLOCK_FORM"); env && std::string_view(env) == "0")
    return {};
  ir::BlockLevelPlan plan = ir::planBlockLevel(f);
  if (plan.eligible && o.counters && predicatedAtBlockLevel(f.body, plan))
    return {};
  return plan;
}

} // namespace kern::backend
