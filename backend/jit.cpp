// The ORC JIT wrapper, and compile(): the backend's entry point, which builds one LLVM module
// for a Kern IR module (warp functions, host functions, kern_main), verifies and JITs it.
#include "backend/jit.h"

#include "backend/codegen_common.h"
#include "backend/host_codegen.h"
#include "backend/math_library.h"
#include "backend/warp_codegen.h"

#include <llvm/AsmParser/Parser.h>
#include <llvm/ExecutionEngine/Orc/IRTransformLayer.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <cmath>
#include <cstring>
#include <mutex>
#include <set>
#include <type_traits>

// libgcc's helpers for llvm.powi; declared here because no header does.
extern "C" float __powisf2(float, int);
extern "C" double __powidf2(double, int);

namespace kern::backend {

namespace {

void initialiseNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

/// The C library half of the allow-list (runtime_symbols.def), with addresses from this
/// process. The casts pick the C overload where <cmath> adds C++ ones.
const SymbolList &libcSymbols() {
  static const SymbolList symbols = {
#define KERN_LIBC_SYMBOL(name, type)                                                               \
  {#name, reinterpret_cast<void *>(static_cast<std::add_pointer_t<type>>(&::name))},
#include "backend/runtime_symbols.def"
#undef KERN_LIBC_SYMBOL
#define KERN_MATH_LIBRARY(id, name, type)                                                          \
  {#name, reinterpret_cast<void *>(static_cast<std::add_pointer_t<type>>(&::name))},
#include "backend/math_library.def"
#undef KERN_MATH_LIBRARY
  };
  return symbols;
}

llvm::CodeGenOptLevel codeGenLevel(int optLevel) {
  if (optLevel <= 0)
    return llvm::CodeGenOptLevel::None;
  if (optLevel == 1)
    return llvm::CodeGenOptLevel::Less;
  if (optLevel == 2)
    return llvm::CodeGenOptLevel::Default;
  return llvm::CodeGenOptLevel::Aggressive;
}

} // namespace

// ---- Jit -----------------------------------------------------------------------------------

llvm::Expected<std::unique_ptr<Jit>> Jit::create(int optLevel) {
  initialiseNativeTarget();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost(); // host CPU and its features
  if (!jtmb)
    return jtmb.takeError();
  jtmb->setCodeGenOptLevel(codeGenLevel(optLevel));
  std::unique_ptr<Jit> jit(new Jit());
  jit->optLevel_ = std::clamp(optLevel, 0, 3);
  jit->jtmb_ = std::make_unique<llvm::orc::JITTargetMachineBuilder>(*jtmb);
  auto tm = jtmb->createTargetMachine();
  if (!tm)
    return tm.takeError();
  jit->tm_ = std::move(*tm);
  auto lljit = llvm::orc::LLJITBuilder()
                   .setJITTargetMachineBuilder(std::move(*jtmb))
                   // The allow-list: no generator that would search the whole process...
                   .setLinkProcessSymbolsByDefault(false)
                   // ...and no platform runtime (static initialisers): programs have none.
                   .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                   .create();
  if (!lljit)
    return lljit.takeError();
  jit->lljit_ = std::move(*lljit);
  Jit *self = jit.get();
  jit->lljit_->getExecutionSession().setErrorReporter([self](llvm::Error err) {
    if (!self->sessionErrors_.empty())
      self->sessionErrors_ += "; ";
    self->sessionErrors_ += llvm::toString(std::move(err));
  });
  jit->lljit_->getIRTransformLayer().setTransform(
      [self](llvm::orc::ThreadSafeModule tsm, llvm::orc::MaterializationResponsibility &)
          -> llvm::Expected<llvm::orc::ThreadSafeModule> {
        llvm::Error err = tsm.withModuleDo([self](llvm::Module &m) { return self->optimise(m); });
        if (err)
          return err;
        return tsm;
      });
  return jit;
}

llvm::Error Jit::optimise(llvm::Module &m) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm_.get()); // the target's cost model decides what to vectorise
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  static const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1, llvm::OptimizationLevel::O2,
      llvm::OptimizationLevel::O3};
  llvm::ModulePassManager mpm = optLevel_ == 0
                                    ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                    : pb.buildPerModuleDefaultPipeline(levels[optLevel_]);
  mpm.run(m, mam);
  optimisedIR_.clear();
  llvm::raw_string_ostream os(optimisedIR_);
  m.print(os, nullptr);
  return llvm::Error::success();
}

llvm::Error Jit::defineSymbols(const SymbolList &runtime) {
  auto &es = lljit_->getExecutionSession();
  llvm::orc::SymbolMap map;
  std::set<std::string> seen;
  auto add = [&](const std::string &name, void *addr) {
    if (!seen.insert(name).second)
      return; // the runtime's definition wins over the C library's
    map[lljit_->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(addr),
                                          llvm::JITSymbolFlags::Exported |
                                              llvm::JITSymbolFlags::Callable};
  };
  for (auto &[name, addr] : runtime)
    add(name, addr);
  for (auto &[name, addr] : libcSymbols())
    add(name, addr);
  (void)es;
  return lljit_->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(map)));
}

std::string Jit::takeSessionErrors() {
  std::string out;
  out.swap(sessionErrors_);
  return out;
}

llvm::Error Jit::addModule(llvm::orc::ThreadSafeModule module) {
  return lljit_->addIRModule(std::move(module));
}

llvm::Expected<void *> Jit::lookup(llvm::StringRef name) {
  auto addr = lljit_->lookup(name);
  if (!addr)
    return addr.takeError();
  return addr->toPtr<void *>();
}

llvm::Expected<std::string> Jit::assemble(const std::string &ir) const {
  llvm::LLVMContext ctx;
  llvm::SMDiagnostic diag;
  auto m = llvm::parseAssemblyString(ir, diag, ctx);
  if (!m) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    diag.print("kern", os);
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  }
  auto tm = jtmb_->createTargetMachine();
  if (!tm)
    return tm.takeError();
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  if ((*tm)->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the target cannot emit assembly");
  pm.run(*m);
  return std::string(text.str());
}

// ---- compile() -----------------------------------------------------------------------------

namespace {

class JitProgram : public CompiledProgram {
public:
  std::unique_ptr<Jit> jit;
  std::vector<WarpFunction> kernels;
  MainFunction mainFn = nullptr;

  std::vector<bool> suspends;
  bool kernelSuspends(size_t index) const override {
    return index < suspends.size() && suspends[index];
  }
  WarpFunction kernel(size_t index) const override {
    return index < kernels.size() ? kernels[index] : nullptr;
  }
  MainFunction main() const override { return mainFn; }
  std::string llvmIR() const override { return jit->optimisedIR(); }
  std::string assembly() const override {
    auto text = jit->assemble(jit->optimisedIR());
    if (!text)
      return "; error: " + llvm::toString(text.takeError()) + "\n";
    return *text;
  }
};

/// A failed lookup: ORC reports the cause (say, a symbol outside the allow-list) to the session
/// and returns only "failed to materialize"; give both.
std::string linkError(Jit &j, llvm::Error err) {
  std::string msg = "internal error: JIT link failed: " + llvm::toString(std::move(err));
  std::string cause = j.takeSessionErrors();
  if (!cause.empty())
    msg += ": " + cause;
  return msg;
}

} // namespace

std::unique_ptr<CompiledProgram> compile(const ir::Module &module, const CompileOptions &options,
                                         const SymbolList &runtimeSymbols, std::string &error) {
  auto jit = Jit::create(options.optLevel);
  if (!jit) {
    error = "internal error: cannot create the JIT: " + llvm::toString(jit.takeError());
    return nullptr;
  }
  auto context = std::make_unique<llvm::LLVMContext>();
  auto llvmModule = std::make_unique<llvm::Module>(
      module.sourceName.empty() ? std::string("kern") : module.sourceName, *context);
  llvmModule->setDataLayout((*jit)->dataLayout());
  llvmModule->setTargetTriple((*jit)->triple().str());

  ModuleContext mc(*context, *llvmModule, module, options);
  // Declare everything first: calls may go forwards, and device functions may recurse.
  for (auto *f : module.functions) {
    if (f->kind == ir::FunctionKind::Host)
      declareHostFunction(mc, *f);
    else
      declareWarpFunction(mc, *f);
  }
  const ir::Function *mainFn = nullptr;
  for (auto *f : module.functions) {
    if (f->kind == ir::FunctionKind::Host) {
      emitHostFunction(mc, *f);
      if (f->isMain)
        mainFn = f;
    } else {
      emitWarpFunction(mc, *f);
    }
  }
  if (!mc.error.empty()) {
    error = mc.error;
    return nullptr;
  }
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*llvmModule, &os)) {
    error = "internal error: generated LLVM IR is invalid: " + problems;
    return nullptr;
  }

  auto program = std::make_unique<JitProgram>();
  program->jit = std::move(*jit);
  Jit &j = *program->jit;
  if (auto err = j.defineSymbols(runtimeSymbols)) {
    error = "internal error: " + llvm::toString(std::move(err));
    return nullptr;
  }
  if (auto err =
          j.addModule(llvm::orc::ThreadSafeModule(std::move(llvmModule), std::move(context)))) {
    error = "internal error: " + llvm::toString(std::move(err));
    return nullptr;
  }
  // Looking up the first symbol optimises and compiles the whole module; a reference outside
  // the allow-list fails here.
  for (auto *k : module.kernels()) {
    auto addr = j.lookup(k->name);
    if (!addr) {
      error = linkError(j, addr.takeError());
      return nullptr;
    }
    program->kernels.push_back(reinterpret_cast<WarpFunction>(*addr));
    program->suspends.push_back(mc.coroutines.count(k) != 0);
  }
  if (mainFn) {
    auto addr = j.lookup(kMainSymbol);
    if (!addr) {
      error = linkError(j, addr.takeError());
      return nullptr;
    }
    program->mainFn = reinterpret_cast<MainFunction>(*addr);
  }
  return program;
}

} // namespace kern::backend
