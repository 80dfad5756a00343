// The ORC JIT wrapper: the host target, LLVM's optimisation pipeline, compilation to object
// files, and the allow-list of symbols compiled code may reference.
#include "backend/jit.h"

#include "backend/math_library.h"

#include <csetjmp>

#include <llvm/AsmParser/Parser.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/IRTransformLayer.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <type_traits>

#include <unistd.h>

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

/// With KERN_PERF_MAP set, every function the JIT links is listed in /tmp/perf-PID.map, the
/// file `perf report` reads to name code it found in no file; when KERN_PERF_MAP names a
/// directory, each function's machine code is also written there as NAME.bin (for
/// `objdump -D -b binary -m i386:x86-64 --adjust-vma=ADDR`). For profiling kern itself.
class PerfMapPlugin : public llvm::orc::ObjectLinkingLayer::Plugin {
public:
  explicit PerfMapPlugin(std::string dir) : dir_(std::move(dir)) {}

  void modifyPassConfig(llvm::orc::MaterializationResponsibility &, llvm::jitlink::LinkGraph &,
                        llvm::jitlink::PassConfiguration &config) override {
    config.PostFixupPasses.push_back([this](llvm::jitlink::LinkGraph &g) {
      std::lock_guard<std::mutex> lock(mutex_);
      std::string map = "/tmp/perf-" + std::to_string(getpid()) + ".map";
      FILE *out = std::fopen(map.c_str(), "a");
      if (!out)
        return llvm::Error::success();
      for (auto *sym : g.defined_symbols()) {
        if (!sym->isCallable() || !sym->hasName() || sym->getSize() == 0)
          continue;
        std::string name = sym->getName().str();
        std::fprintf(out, "%llx %llx %s\n", (unsigned long long)sym->getAddress().getValue(),
                     (unsigned long long)sym->getSize(), name.c_str());
        if (dir_.empty())
          continue;
        auto bytes = sym->getBlock().getContent().slice(sym->getOffset(), sym->getSize());
        if (FILE *bin = std::fopen((dir_ + "/" + name + ".bin").c_str(), "wb")) {
          std::fwrite(bytes.data(), 1, bytes.size(), bin);
          std::fclose(bin);
        }
      }
      std::fclose(out);
      return llvm::Error::success();
    });
  }
  llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility &) override {
    return llvm::Error::success();
  }
  llvm::Error notifyRemovingResources(llvm::orc::JITDylib &, llvm::orc::ResourceKey) override {
    return llvm::Error::success();
  }
  void notifyTransferringResources(llvm::orc::JITDylib &, llvm::orc::ResourceKey,
                                   llvm::orc::ResourceKey) override {}

private:
  std::string dir_;
  std::mutex mutex_;
};

} // namespace

// ---- Jit -----------------------------------------------------------------------------------

llvm::Expected<std::unique_ptr<Jit>> Jit::create(int optLevel) {
  initialiseNativeTarget();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost(); // host CPU and its features
  if (!jtmb)
    return jtmb.takeError();
  jtmb->setCodeGenOptLevel(codeGenLevel(optLevel));
  // What LLJIT sets for JITLink on x86-64 ELF, set here so that the target machines that compile
  // modules on other threads (compileObject) produce the same code as its own would.
  if (!jtmb->getCodeModel())
    jtmb->setCodeModel(llvm::CodeModel::Small);
  jtmb->setRelocationModel(llvm::Reloc::PIC_);
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
  if (const char *perf = std::getenv("KERN_PERF_MAP"); perf && *perf) {
    if (auto *layer =
            llvm::dyn_cast<llvm::orc::ObjectLinkingLayer>(&jit->lljit_->getObjLinkingLayer())) {
      std::string dir = std::strcmp(perf, "1") == 0 ? "" : perf;
      layer->addPlugin(std::make_unique<PerfMapPlugin>(std::move(dir)));
    }
  }
  Jit *self = jit.get();
  jit->lljit_->getExecutionSession().setErrorReporter([self](llvm::Error err) {
    if (!self->sessionErrors_.empty())
      self->sessionErrors_ += "; ";
    self->sessionErrors_ += llvm::toString(std::move(err));
  });
  jit->lljit_->getIRTransformLayer().setTransform(
      [self](llvm::orc::ThreadSafeModule tsm, llvm::orc::MaterializationResponsibility &)
          -> llvm::Expected<llvm::orc::ThreadSafeModule> {
        tsm.withModuleDo([self](llvm::Module &m) {
          optimiseModule(m, *self->tm_, self->optLevel_, true);
          self->optimisedIR_.clear();
          llvm::raw_string_ostream os(self->optimisedIR_);
          m.print(os, nullptr);
        });
        return tsm;
      });
  return jit;
}

void optimiseModule(llvm::Module &m, llvm::TargetMachine &tm, int optLevel, bool vectorise) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = vectorise;
  tuning.SLPVectorization = vectorise && optLevel >= 2; // as clang sets it
  llvm::PassBuilder pb(&tm, tuning); // the target's cost model decides what to vectorise
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  static const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1, llvm::OptimizationLevel::O2,
      llvm::OptimizationLevel::O3};
  optLevel = std::clamp(optLevel, 0, 3);
  llvm::ModulePassManager mpm = optLevel == 0
                                    ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                    : pb.buildPerModuleDefaultPipeline(levels[optLevel]);
  mpm.run(m, mam);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> compileObject(llvm::Module &m,
                                                                  llvm::TargetMachine &tm) {
  return llvm::orc::SimpleCompiler(tm)(m);
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

llvm::Error Jit::addObject(std::unique_ptr<llvm::MemoryBuffer> object) {
  return lljit_->addObjectFile(std::move(object));
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

} // namespace kern::backend
