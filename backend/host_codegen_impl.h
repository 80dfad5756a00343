// The host code generator's class, shared by its files: host_codegen.cpp (statements,
// expressions, calls) and host_frames.cpp (local objects in the host arena, access checks).
#pragma once

#include "backend/codegen_common.h"

#include <map>
#include <string>
#include <vector>

namespace kern::backend {

using llvm::BasicBlock;
using llvm::Type;
using llvm::Value;

class HostCodegen {
public:
  HostCodegen(ModuleContext &mc, const ir::Function &f, llvm::Function *fn)
      : mc_(mc), f_(f), fn_(fn), c_(mc.llvm), b_(mc.llvm) {}
  void emit();

private:
  BasicBlock *newBlock(const llvm::Twine &name) { return BasicBlock::Create(c_, name, fn_); }
  llvm::Function *runtime(RuntimeFunction f) { return mc_.runtimeFunction(f); }
  /// Continues in a fresh block after a jump (statements after return/break are unreachable).
  void deadBlock() { b_.SetInsertPoint(newBlock("unreachable")); }
  void hostFault(Value *cond, uint32_t kind, ir::SiteId site, Value *addr);
  /// `addr` as a pointer, after checking that host code may access `bytes` bytes there
  /// (`addrExpr` computed it: its root object, if known, bounds the access).
  Value *checkedAddress(Value *addr, const ir::Expr *addrExpr, uint64_t bytes, bool store,
                        ir::SiteId site);
  /// The local slot or host global `e` (an address) is computed from, with its size; false
  /// when it is not known.
  bool rootObject(const ir::Expr *e, Value *&base, uint64_t &size, std::string &name);
  /// The variable `e` (an address) adds an offset to (`p[i]`, `p + i + j`), or null: reading
  /// it again has no effect.
  static const ir::Expr *pointerVariable(const ir::Expr *e);
  /// Reads the arena's figures from the context and takes the frame of the local objects
  /// (host_frames.cpp); emitFrameExit gives the frame back.
  void emitFrameEntry();
  void emitFrameExit();
  /// setjmp and longjmp (host_frames.cpp; the contexts live in runtime/host_jumps.cpp).
  Value *emitSetjmp(const ir::Expr &e);
  void emitLongjmp(const ir::Expr &e);
  Value *frameAddress();
  /// Sets the shadow of [base, base + bytes) (an arena address, granule-aligned) to `value`.
  void emitShadowFill(Value *base, Value *bytes, Value *value);
  /// A frame of `bytes` (a multiple of 16) below the stack's top: its base, after checking
  /// that it fits (KERN_FAULT_HOST_STACK at `site` if not).
  Value *takeStack(Value *bytes, uint64_t align, ir::SiteId site);
  Value *headField(unsigned index, const llvm::Twine &name);
  /// Alias scopes: the program's loads and stores never touch the shadow map, so the optimiser
  /// may keep shadow entries and program values in registers across each other.
  void markProgramAccess(llvm::Instruction *i);
  void markShadowAccess(llvm::Instruction *i);
  llvm::MDNode *shadowScope(); // the list holding the shadow's scope
  llvm::MDNode *shadowScope_ = nullptr;
  Value *emitCond(const ir::Expr *e);

  void emitBlock(const ir::Block *blk);
  void emitStmt(const ir::Stmt &s);
  void emitLoop(const ir::Stmt &s);
  void emitPrintf(const ir::Stmt &s);
  /// Names `site` (0: none) as the line of the runtime calls that follow (kern_rt_api_site).
  void apiSite(ir::SiteId site);
  void emitLaunch(const ir::Stmt &s);
  void emitAlloca(const ir::Stmt &s);
  Value *emitExpr(const ir::Expr &e);
  Value *emitRuntimeCall(const ir::Expr &e);
  Value *emitIndirectCall(const ir::Expr &e);
  /// The machine address of the function that function pointer `v` designates, after
  /// checking that it is one (not null, in the table) of signature `signature`.
  Value *resolveFunctionPointer(Value *v, const std::string &signature, ir::SiteId site);
  /// The machine address (an i64) of the function that `v` designates for a runtime function
  /// that takes a host function of the program, after the same checks; null stays 0 when
  /// `nullable` (the runtime reports it as CUDA does).
  Value *routineAddress(Value *v, const std::string &signature, bool nullable, ir::SiteId site);

  ModuleContext &mc_;
  const ir::Function &f_;
  llvm::Function *fn_;
  llvm::AllocaInst *steps_ = nullptr; // back-edges left before the next kern_rt_host_poll
  llvm::LLVMContext &c_;
  Builder b_;
  Value *ctx_ = nullptr;
  Value *arenaLo_ = nullptr, *arenaBytes_ = nullptr, *shadow_ = nullptr;
  Value *sp0_ = nullptr;     // the stack's top at entry (null: the function takes no frame)
  bool callsSetjmp_ = false; // its contexts die as it returns (kern_rt_setjmp_leave)
  std::map<const ir::Var *, llvm::AllocaInst *> vars_;
  std::map<const ir::LocalSlot *, Value *> slots_; // addresses (i64) in the frame
  llvm::AllocaInst *retval_ = nullptr;
  BasicBlock *exit_ = nullptr;
  struct LoopTargets {
    BasicBlock *breakTo, *continueTo;
  };
  std::vector<LoopTargets> loops_;
};

} // namespace kern::backend
