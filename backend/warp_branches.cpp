// Branch and instruction counting in compiled warp code: each branch the GPU would execute
// (ir/branch_model.cpp decides which tests those are), loops counted by their shape, and the
// warp and thread instruction totals.
#include "backend/warp_codegen_impl.h"
#include "ir/analysis_structure.h"

namespace kern::backend::warp {

BranchHook WarpCodegen::branchHook(ir::SiteId site, bool source, bool sass) {
  if (!mc_.options.counters || (!source && !sass))
    return {};
  const uint32_t kinds =
      (source ? uint32_t(KERN_BRANCH_SOURCE) : 0u) | (sass ? uint32_t(KERN_BRANCH_SASS) : 0u);
  if (blockLevel_) // a block-uniform branch: every warp's lanes go one way
    return [this, site, kinds](Value *, Value *) {
      if (kinds & KERN_BRANCH_SOURCE)
        addSiteCounter(site, offsetof(KernSiteCounters, branchesExecuted), wb_.warps64);
      if (kinds & KERN_BRANCH_SASS)
        addSiteCounter(site, offsetof(KernSiteCounters, sassBranches), wb_.warps64);
    };
  return [this, site, kinds](Value *m, Value *taken) {
    // A branch whose active lanes do not split (kern_branch_splits) only adds to branches
    // executed (a branch with no active lane adds nothing): counted here without a test. One
    // that splits adds to divergent ones too: counted here in a warp after the site's sample
    // (which the runtime keeps: the first warp by key to split there, and its splits in a
    // loop), by the runtime otherwise, whose counters apply the same rule.
    Value *mb = bits(m, "branch.mask");
    Value *tb = bits(taken, "branch.taken");
    Value *splits = emitBranchSplits(b_, mb, tb);
    auto count = [&](Value *executed, Value *divergent) {
      if (kinds & KERN_BRANCH_SOURCE) {
        addSiteCounter(site, offsetof(KernSiteCounters, branchesExecuted), executed);
        if (divergent)
          addSiteCounter(site, offsetof(KernSiteCounters, branchesDivergent), divergent);
      }
      if (kinds & KERN_BRANCH_SASS) {
        addSiteCounter(site, offsetof(KernSiteCounters, sassBranches), executed);
        if (divergent)
          addSiteCounter(site, offsetof(KernSiteCounters, sassBranchesDivergent), divergent);
      }
    };
    Value *whole = b_.CreateAnd(b_.CreateICmpNE(mb, b_.getInt32(0)), b_.CreateNot(splits));
    count(b_.CreateZExt(whole, b_.getInt64Ty(), "branch.whole"), nullptr);
    auto *splitBB = newBlock("branch.split");
    auto *keyBB = newBlock("branch.sample.key");
    auto *addBB = newBlock("branch.count");
    auto *callBB = newBlock("branch.count.call");
    auto *doneBB = newBlock("branch.counted");
    b_.CreateCondBr(splits, splitBB, doneBB);
    b_.SetInsertPoint(splitBB);
    b_.CreateCondBr(b_.CreateICmpNE(counterView_, llvm::ConstantPointerNull::get(b_.getPtrTy())),
                    keyBB, callBB);
    b_.SetInsertPoint(keyBB);
    Value *sampleKey = b_.CreateLoad(
        b_.getInt64Ty(), b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), viewSampleKeys_, site),
        "sample.key");
    b_.CreateCondBr(b_.CreateICmpUGT(warpKey_, sampleKey, "after.sample"), addBB, callBB);
    b_.SetInsertPoint(addBB);
    count(b_.getInt64(1), b_.getInt64(1));
    b_.CreateBr(doneBB);
    b_.SetInsertPoint(callBB);
    b_.CreateCall(runtime(RuntimeFunction::kern_rt_count_branch),
                  {ctx_, b_.getInt32(site), mb, tb, b_.getInt32(kinds)});
    b_.CreateBr(doneBB);
    b_.SetInsertPoint(doneBB);
  };
}

void WarpCodegen::loadCounterView(Value *ctx) {
  Value *here = ctx_;
  ctx_ = ctx;
  counterView_ = loadCtx(kCtxCounters, b_.getPtrTy(), "counter.view");
  ctx_ = here;
  Value *none = llvm::ConstantPointerNull::get(b_.getPtrTy());
  BasicBlock *from = b_.GetInsertBlock();
  auto *loadBB = newBlock("counter.view.load");
  auto *readyBB = newBlock("counter.view.ready");
  b_.CreateCondBr(b_.CreateICmpNE(counterView_, none), loadBB, readyBB);
  b_.SetInsertPoint(loadBB);
  struct Field {
    Value **value;
    unsigned offset;
    const char *name;
    Type *type;
  };
  Type *ptr = b_.getPtrTy(), *i64 = b_.getInt64Ty();
  const Field fields[] = {{&viewSites_, kViewSites, "site.table", ptr},
                          {&viewMemos_, kViewMemos, "memos", ptr},
                          {&viewSampleLoads_, kViewSampleLoads, "sample.loads", i64},
                          {&viewTotals_, kViewTotals, "instr.totals", ptr},
                          {&viewSampleKeys_, kViewSampleKeys, "sample.keys", ptr},
                          {&viewBatch_, kViewBatch, "batch", ptr}};
  std::vector<Value *> loaded;
  for (const Field &f : fields)
    loaded.push_back(b_.CreateLoad(
        f.type, b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), counterView_, f.offset), f.name));
  b_.CreateBr(readyBB);
  b_.SetInsertPoint(readyBB);
  for (size_t i = 0; i < loaded.size(); ++i) {
    auto *phi = b_.CreatePHI(fields[i].type, 2, fields[i].name);
    phi->addIncoming(llvm::Constant::getNullValue(fields[i].type), from);
    phi->addIncoming(loaded[i], loadBB);
    *fields[i].value = phi;
  }
}

void WarpCodegen::incrementSiteCounter(ir::SiteId site, size_t field) {
  addSiteCounter(site, field, b_.getInt64(1));
}

void WarpCodegen::addSiteCounter(ir::SiteId site, size_t field, Value *n) {
  addSiteCounterAt(b_.getInt32(site), field, n);
}

void WarpCodegen::addSiteCounterAt(Value *site, size_t offset, Value *n) {
  Type *i64 = b_.getInt64Ty();
  if (auto *constant = llvm::dyn_cast<llvm::ConstantInt>(site); constant && tallying_) {
    llvm::AllocaInst *tally =
        siteTally(constant->getZExtValue() * sizeof(KernSiteCounters) + offset);
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64, tally), n), tally);
    return;
  }
  Value *at =
      b_.CreateAdd(b_.CreateMul(b_.CreateZExt(site, i64), b_.getInt64(sizeof(KernSiteCounters))),
                   b_.getInt64(offset));
  Value *p = b_.CreateGEP(b_.getInt8Ty(), viewSites_, at, "site.counter");
  b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64, p), n), p);
}

llvm::AllocaInst *WarpCodegen::siteTally(uint64_t offset) {
  auto [it, fresh] = tallies_.try_emplace(offset, nullptr);
  if (fresh) {
    it->second = entryAlloca(b_, b_.getInt64Ty(), "tally");
    // 0 once per call (per block, in regions), where the slot is made.
    (new llvm::StoreInst(b_.getInt64(0), it->second, false, llvm::Align(8)))
        ->insertAfter(it->second);
    if (regions_)
      blockSlots_.insert(it->second);
  }
  return it->second;
}

void WarpCodegen::flushTallies() {
  if (tallies_.empty())
    return;
  Type *i64 = b_.getInt64Ty();
  auto *addBB = newBlock("tally.flush");
  auto *doneBB = newBlock("tally.flushed");
  b_.CreateCondBr(b_.CreateICmpNE(counterView_, llvm::ConstantPointerNull::get(b_.getPtrTy())),
                  addBB, doneBB);
  b_.SetInsertPoint(addBB);
  for (const auto &[offset, tally] : tallies_) {
    Value *p = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), viewSites_, offset);
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64, p), b_.CreateLoad(i64, tally)), p);
  }
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(doneBB);
}

void WarpCodegen::startInstructions() {
  for (size_t k = 0; k < ir::kInstrClasses; ++k) {
    instrClass_[k] = entryAlloca(b_, b_.getInt64Ty(), "instr.class");
    b_.CreateStore(b_.getInt64(0), instrClass_[k]);
  }
  instrThread_ = entryAlloca(b_, b_.getInt64Ty(), "instr.thread");
  b_.CreateStore(b_.getInt64(0), instrThread_);
  idleAccesses_ = entryAlloca(b_, b_.getInt64Ty(), "idle.accesses");
  b_.CreateStore(b_.getInt64(0), idleAccesses_);
  aduReads_ = entryAlloca(b_, b_.getInt64Ty(), "adu.reads");
  b_.CreateStore(b_.getInt64(0), aduReads_);
  if (regions_) {
    blockSlots_.insert(instrClass_.begin(), instrClass_.end());
    blockSlots_.insert({instrThread_, idleAccesses_, aduReads_});
  }
}

void WarpCodegen::reportInstructions() {
  if (!instrThread_)
    return;
  static_assert(ir::kInstrClasses == KERN_INSTR_CLASSES);
  // Added to the worker's totals without a call (a warp that no one counts adds nothing).
  auto *addBB = newBlock("instr.report");
  auto *doneBB = newBlock("instr.reported");
  b_.CreateCondBr(b_.CreateICmpNE(counterView_, llvm::ConstantPointerNull::get(b_.getPtrTy())),
                  addBB, doneBB);
  b_.SetInsertPoint(addBB);
  Type *i64 = b_.getInt64Ty();
  Value *totals = viewTotals_;
  auto add = [&](uint32_t index, llvm::AllocaInst *count) {
    Value *slot = b_.CreateConstInBoundsGEP1_64(i64, totals, index);
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64, slot), b_.CreateLoad(i64, count)), slot);
  };
  for (uint32_t k = 0; k < ir::kInstrClasses; ++k)
    add(k, instrClass_[k]);
  add(KERN_TOTAL_THREAD_INSTRUCTIONS, instrThread_);
  add(KERN_TOTAL_IDLE_ACCESSES, idleAccesses_);
  add(KERN_TOTAL_ADU_READS, aduReads_);
  b_.CreateBr(doneBB);
  b_.SetInsertPoint(doneBB);
}

void WarpCodegen::countInstr(const ir::InstrMix &mix, bool clock) {
  if (uncounted_)
    return;
  const unsigned n = mix.total();
  if (clock)
    advanceClock(kCtxClockInstr, n);
  if (!mc_.options.counters || n == 0)
    return;
  Type *i64 = b_.getInt64Ty();
  // Each warp's: `n` for the warp, one for each active lane. Code a block form runs once for
  // the block: each of its warps', every lane of the block active (blockScale).
  auto warps = [&](uint64_t k) -> Value * {
    return blockLevel_ ? b_.CreateMul(wb_.warps64, b_.getInt64(k)) : b_.getInt64(k);
  };
  Value *lanes = blockLevel_
                     ? wb_.threads
                     : b_.CreateZExt(b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop,
                                                             bits(instrMask()), nullptr, "active"),
                                     i64);
  for (size_t k = 0; k < ir::kInstrClasses; ++k)
    if (mix.n[k])
      b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64, instrClass_[k]), warps(mix.n[k])),
                     instrClass_[k]);
  b_.CreateStore(
      b_.CreateAdd(b_.CreateLoad(i64, instrThread_), b_.CreateMul(lanes, b_.getInt64(n))),
      instrThread_);
  if (mix.adu)
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64, aduReads_), warps(mix.adu)), aduReads_);
}

Value *WarpCodegen::instrMask() { return predicated_ ? predicated_ : cur(); }

ir::InstrMix WarpCodegen::sideMix(const ir::Block *b) const {
  ir::InstrMix mix;
  if (!b)
    return mix;
  for (const ir::Stmt *s : b->stmts) {
    if (auto it = reads_.at.find(s); it != reads_.at.end())
      mix += it->second;
    switch (s->kind) {
    case ir::StmtKind::Block:
      mix += sideMix(ir::nestedBlock(*s));
      break;
    case ir::StmtKind::If:
      mix += ir::ifMix(*s) + sideMix(s->thenBody) + sideMix(s->elseBody);
      break;
    case ir::StmtKind::Loop: // a predicated side has none
      break;
    default:
      mix += ir::statementMix(*s);
    }
  }
  return mix;
}

void WarpCodegen::countSkippedSide(const ir::Block *side) {
  const ir::InstrMix mix = sideMix(side);
  countInstr(mix);
  const unsigned accesses = mix[ir::InstrClass::Memory];
  if (mc_.options.counters && !uncounted_ && idleAccesses_ && accesses > 0)
    b_.CreateStore(
        b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), idleAccesses_), b_.getInt64(accesses)),
        idleAccesses_);
}

BranchHook WarpCodegen::loopHook(const ir::Stmt &s, llvm::AllocaInst *tests) {
  if (!mc_.options.counters)
    return {};
  // Every test is a source-level branch; which are the GPU code's, the loop's shape says.
  switch (s.loopShape) {
  case ir::LoopShape::EveryTest:
    return branchHook(s.site, true, true);
  case ir::LoopShape::SkipEntry: {
    // The entry test is a predicated exit or known to pass: the tests after it are branches.
    BranchHook source = branchHook(s.site, true, false);
    BranchHook both = branchHook(s.site, true, true);
    return [this, source, both, tests](Value *m, Value *taken) {
      auto *first = newBlock("loop.branch.first");
      auto *later = newBlock("loop.branch");
      auto *done = newBlock("loop.branch.done");
      // countTest has counted this test already: the first is test 1.
      b_.CreateCondBr(b_.CreateICmpNE(b_.CreateLoad(b_.getInt64Ty(), tests), b_.getInt64(1)), later,
                      first);
      b_.SetInsertPoint(first);
      source(m, taken);
      b_.CreateBr(done);
      b_.SetInsertPoint(later);
      both(m, taken);
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
    };
  }
  default: // the GPU code's branches depend on the trip count: counted when the loop ends
    return branchHook(s.site, true, false);
  }
}

WarpCodegen::LoopIssue WarpCodegen::startLoopIssue(const ir::Stmt &s) {
  LoopIssue issue;
  // A fully unrolled loop (or one whose condition is constant true) has no test and no step
  // left on the GPU: neither issues. One unrolled by 4 (or 16) tests and steps once per 4.
  issue.unrolled = s.loopShape == ir::LoopShape::Unrolled || s.loopShape == ir::LoopShape::Endless;
  issue.every = s.loopShape == ir::LoopShape::Runtime16 ? 16
                : s.loopShape == ir::LoopShape::Runtime4 || s.loopShape == ir::LoopShape::Partial4
                    ? 4
                    : 1;
  // The tests are counted where the branch counters or the modelled clock (an unrolled loop's
  // test and step issue once per 4 tests) need them.
  if ((mc_.options.counters || clockModel()) && s.cond && s.loopShape != ir::LoopShape::EveryTest &&
      !issue.unrolled) {
    issue.tests = entryAlloca(b_, b_.getInt64Ty(), "loop.tests");
    b_.CreateStore(b_.getInt64(0), issue.tests);
  }
  return issue;
}

void WarpCodegen::countLoopTest(const ir::Stmt &s, const LoopIssue &issue) {
  countTest(issue.tests);
  if (!issue.unrolled)
    countEvery(issue.tests, issue.every,
               ir::InstrMix(ir::InstrClass::Control, 1) + ir::operationMix(s.cond));
}

void WarpCodegen::countLoopStep(const ir::Stmt &s, const LoopIssue &issue) {
  if (issue.every > 1 && s.step)
    for (const ir::Stmt *st : s.step->stmts)
      countEvery(issue.tests, issue.every,
                 st->kind == ir::StmtKind::Assign ? ir::statementMix(*st)
                                                  : ir::InstrMix(ir::InstrClass::Other, 1));
  // The pointers of the addresses that move with the loop (ir/hoist.h): those stepped by a
  // constant once per test that issues, those that add a variable stride every iteration.
  if (s.pointerSteps)
    countEvery(issue.tests, issue.every, ir::pointerStepMix(s));
  countInstr(ir::strideAddMix(s));
}

void WarpCodegen::countTest(llvm::AllocaInst *tests) {
  if (tests)
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), tests), b_.getInt64(1)), tests);
}

void WarpCodegen::countEvery(llvm::AllocaInst *tests, unsigned every, const ir::InstrMix &mix) {
  if (every <= 1 || !tests || uncounted_) {
    countInstr(mix);
    return;
  }
  const unsigned n = mix.total();
  // The modelled clock advances on every test: it has no latency for a chain of dependent
  // operations, which the unrolled body's instructions wait on, and the loop's own
  // instructions stand in for that wait (docs/timing.md, "clock() and clock64()").
  advanceClock(kCtxClockInstr, n);
  if (!mc_.options.counters)
    return;
  auto *count = newBlock("loop.instr");
  auto *done = newBlock("loop.instr.done");
  Value *k = b_.CreateLoad(b_.getInt64Ty(), tests);
  b_.CreateCondBr(b_.CreateICmpEQ(b_.CreateAnd(k, b_.getInt64(every - 1)), b_.getInt64(1)), count,
                  done);
  b_.SetInsertPoint(count);
  countInstr(mix, /*clock=*/false);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

void WarpCodegen::countLoopEnd(const ir::Stmt &s, llvm::AllocaInst *tests) {
  if (!tests || !mc_.options.counters || s.loopShape == ir::LoopShape::EveryTest ||
      s.loopShape == ir::LoopShape::SkipEntry)
    return;
  // The body ran once fewer than the condition was tested (the last test left the loop).
  Value *n = b_.CreateLoad(b_.getInt64Ty(), tests, "loop.tests");
  Value *trips = s.testFirst ? b_.CreateSub(n, b_.getInt64(1)) : n;
  b_.CreateCall(runtime(RuntimeFunction::kern_rt_count_loop),
                {ctx_, b_.getInt32(s.site), b_.getInt32(static_cast<uint32_t>(s.loopShape)), trips,
                 blockLevel_ ? wb_.warps : b_.getInt32(1)});
}

void WarpCodegen::countJump(ir::SiteId site) {
  if (!mc_.options.counters || !site)
    return;
  Value *m = cur();
  branchHook(site, false, true)(m, llvm::Constant::getNullValue(m->getType()));
}

} // namespace kern::backend::warp
