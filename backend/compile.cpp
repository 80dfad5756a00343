// compile(): the backend's entry point. A program is split into compile units (partition.h):
// its host functions, and its kernels with the device functions they call. Each unit becomes an
// LLVM module of its own, in an LLVM context of its own, and is generated, verified, optimised
// and compiled to an object file on one of several threads; the general access functions that
// the kernels' modules call are defined once, in one more module, when every kernel's module has
// said which it needs. The objects are then handed to the JIT in unit order and linked. What
// each module becomes depends on the program and the options only, never on the number of
// threads or on which thread compiled it.
#include "backend/codegen_common.h"
#include "backend/host_codegen.h"
#include "backend/jit.h"
#include "backend/object_cache.h"
#include "backend/partition.h"
#include "backend/warp_codegen.h"

#include "ir/analysis_structure.h"

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>

namespace kern::backend {

namespace {

/// A failed lookup: ORC reports the cause (say, a symbol outside the allow-list) to the session
/// and returns only "failed to materialize"; give both.
std::string linkError(Jit &j, llvm::Error err) {
  std::string msg = "internal error: JIT link failed: " + llvm::toString(std::move(err));
  std::string cause = j.takeSessionErrors();
  if (!cause.empty())
    msg += ": " + cause;
  return msg;
}

/// One module to build: a compile unit, or (unit null) the general access functions.
struct Job {
  const CompileUnit *unit = nullptr;
  // Results.
  bool optimised = false; // false: the module was empty (no access functions)
  std::unique_ptr<llvm::MemoryBuffer> object;
  std::string ir; // its optimised IR, when asked for
  std::string error;
  ModuleTiming timing;
};

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

class Compilation {
public:
  /// `objects`: compile each module to an object file; else only optimise it (for its IR).
  Compilation(const ir::Module &m, const CompileOptions &o, const Jit &jit,
              const std::vector<CompileUnit> &units, bool objects)
      : ir_(m), options_(o), jit_(jit), objects_(objects) {
    for (const CompileUnit &u : units) {
      Job j;
      j.unit = &u;
      jobs_.push_back(std::move(j));
    }
    jobs_.emplace_back(); // the access functions
    // The largest units first, so that no thread is left with a large one at the end; the
    // access functions last, as they wait for every other module's code.
    for (size_t i = 0; i + 1 < jobs_.size(); ++i)
      order_.push_back(i);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](size_t a, size_t b) { return jobs_[a].unit->size > jobs_[b].unit->size; });
    order_.push_back(jobs_.size() - 1);
    for (const ir::Function *f : m.functions)
      if (f->kind != ir::FunctionKind::Host) {
        anyWarpFunction_ = f;
        break;
      }
  }

  void run(unsigned threads) {
    threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(jobs_.size())));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) {
      try {
        pool.emplace_back([this] { work(); });
      } catch (const std::system_error &) {
        break; // no more threads to be had: the others take the jobs
      }
    }
    work();
    for (std::thread &t : pool)
      t.join();
  }

  std::vector<Job> &jobs() { return jobs_; }

private:
  void work() {
    for (;;) {
      size_t n = next_.fetch_add(1);
      if (n >= order_.size())
        return;
      build(jobs_[order_[n]]);
    }
  }

  /// Generates, verifies, optimises and compiles the module of `job`.
  void build(Job &job) {
    auto t = std::chrono::steady_clock::now();
    auto context = std::make_unique<llvm::LLVMContext>();
    auto module = std::make_unique<llvm::Module>(
        ir_.sourceName.empty() ? std::string("kern") : ir_.sourceName, *context);
    module->setDataLayout(jit_.dataLayout());
    module->setTargetTriple(jit_.triple().str());
    ModuleContext mc(*context, *module, ir_, options_);
    mc.externalAccessFunctions = true;
    if (job.unit) {
      generate(mc, *job.unit);
      // This module's code is there; once every module's is, the access functions' module
      // knows what to define.
      std::lock_guard<std::mutex> lock(mutex_);
      accessKinds_.insert(mc.accessKinds.begin(), mc.accessKinds.end());
      ++generated_;
      if (generated_ + 1 == jobs_.size())
        allGenerated_.notify_all();
    } else {
      std::unique_lock<std::mutex> lock(mutex_);
      allGenerated_.wait(lock, [&] { return generated_ + 1 == jobs_.size(); });
      mc.accessKinds = accessKinds_;
      lock.unlock();
      t = std::chrono::steady_clock::now(); // not the wait for the other modules
      if (mc.accessKinds.empty() || !anyWarpFunction_)
        return;
      defineAccessFunctions(mc, *anyWarpFunction_);
    }
    if (!mc.error.empty()) {
      job.error = mc.error;
      return;
    }
    std::string problems;
    llvm::raw_string_ostream os(problems);
    if (llvm::verifyModule(*module, &os)) {
      job.error = "internal error: generated LLVM IR is invalid: " + problems;
      return;
    }
    job.timing.generateMs = msSince(t);
    // Warp functions are vectorised by construction: LLVM's vectorisers find nothing to do in
    // the kernels of bench/ (the same code without them) and at most pair two scalar loads
    // elsewhere. Host code and the access functions' lane loops keep them.
    const bool vectorise = !job.unit || job.unit->host;
    // A module made before comes from the cache: its bitcode (the whole module, written
    // faster than its text), the optimisation level and the vectorisers decide its object
    // (the target is this process's CPU, the same for all).
    std::string key;
    if (options_.cache && objects_) {
      llvm::raw_string_ostream keyOut(key);
      keyOut << "-O" << jit_.optLevel() << (vectorise ? " vectorised\n" : "\n");
      llvm::WriteBitcodeToFile(*module, keyOut);
      keyOut.flush();
      std::string object;
      if (options_.cache->find(key, object, options_.keepIR ? &job.ir : nullptr)) {
        job.timing.cached = true;
        job.optimised = true;
        job.object = llvm::MemoryBuffer::getMemBufferCopy(object, module->getName());
        return;
      }
    }
    llvm::orc::JITTargetMachineBuilder jtmb = jit_.targetMachineBuilder();
    auto tm = jtmb.createTargetMachine();
    if (!tm) {
      job.error = "internal error: " + llvm::toString(tm.takeError());
      return;
    }
    t = std::chrono::steady_clock::now();
    optimiseModule(*module, **tm, jit_.optLevel(), vectorise);
    job.timing.optimiseMs = msSince(t);
    job.optimised = true;
    if (options_.keepIR || !objects_) {
      llvm::raw_string_ostream irOut(job.ir);
      module->print(irOut, nullptr);
    }
    if (!objects_)
      return;
    t = std::chrono::steady_clock::now();
    auto object = compileObject(*module, **tm);
    job.timing.codeMs = msSince(t);
    if (!object) {
      job.error = "internal error: " + llvm::toString(object.takeError());
      return;
    }
    job.object = std::move(*object);
    if (!key.empty())
      options_.cache->insert(key, job.object->getBuffer().str(), job.ir);
  }

  /// The LLVM functions of `unit`: declared first, as calls may go forwards and device
  /// functions may recurse; every function they call is in the unit.
  void generate(ModuleContext &mc, const CompileUnit &unit) {
    for (const ir::Function *f : unit.functions) {
      if (f->kind == ir::FunctionKind::Host)
        declareHostFunction(mc, *f);
      else
        declareWarpFunction(mc, *f);
    }
    for (const ir::Function *f : unit.functions) {
      if (f->kind == ir::FunctionKind::Host)
        emitHostFunction(mc, *f);
      else
        emitWarpFunction(mc, *f);
    }
  }

  const ir::Module &ir_;
  const CompileOptions &options_;
  const Jit &jit_;
  const bool objects_;
  std::vector<Job> jobs_;
  std::vector<size_t> order_; // the order in which the jobs are taken
  std::atomic<size_t> next_{0};
  const ir::Function *anyWarpFunction_ = nullptr;
  std::mutex mutex_;
  std::condition_variable allGenerated_;
  size_t generated_ = 0;
  std::map<std::string, ModuleContext::AccessKind> accessKinds_;
};

/// A compile that keeps its modules packs no kernels together (partition.h).
uint64_t unitSize(const CompileOptions &o) { return o.cache ? 0 : kUnitSize; }

unsigned threadCount(const CompileOptions &o) {
  return o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
}

class JitProgram : public CompiledProgram {
public:
  JitProgram(const ir::Module &m, const CompileOptions &o) : module_(m), options_(o) {}

  std::unique_ptr<Jit> jit;
  std::vector<WarpFunction> kernels;
  MainFunction mainFn = nullptr;
  std::vector<bool> wholeBlock;
  std::vector<WarpFunction> blockKernels;
  /// The optimised IR of each module in unit order (the access functions' module last), when
  /// CompileOptions::keepIR asked for it at compile time, or once llvmIR() has regenerated it.
  mutable std::vector<std::string> moduleIRs;
  mutable bool haveIR = false;

  bool kernelRunsWholeBlock(size_t index) const override {
    return index < wholeBlock.size() && wholeBlock[index];
  }
  WarpFunction kernel(size_t index) const override {
    return index < kernels.size() ? kernels[index] : nullptr;
  }
  WarpFunction blockKernel(size_t index) const override {
    return index < blockKernels.size() ? blockKernels[index] : nullptr;
  }
  bool countsItself() const override { return options_.counters; }
  MainFunction main() const override { return mainFn; }
  std::string llvmIR() const override {
    std::string all;
    for (const std::string &ir : modules())
      all += ir;
    return all;
  }
  std::string assembly() const override {
    std::string all;
    for (const std::string &ir : modules()) {
      auto text = jit->assemble(ir);
      if (!text)
        return "; error: " + llvm::toString(text.takeError()) + "\n";
      all += *text;
    }
    return all;
  }

private:
  /// The modules' IR, regenerated (generation and optimisation are deterministic, so it is
  /// the IR of the code that runs) if it was not kept.
  const std::vector<std::string> &modules() const {
    if (haveIR)
      return moduleIRs;
    const std::vector<CompileUnit> units = partitionModule(module_, unitSize(options_));
    Compilation c(module_, options_, *jit, units, /*objects=*/false);
    c.run(threadCount(options_));
    for (Job &job : c.jobs()) {
      if (!job.error.empty()) {
        moduleIRs = {"; " + job.error + "\n"};
        break;
      }
      if (job.optimised)
        moduleIRs.push_back(std::move(job.ir));
    }
    haveIR = true;
    return moduleIRs;
  }

  const ir::Module &module_;
  const CompileOptions options_;
};

} // namespace

std::unique_ptr<CompiledProgram> compile(const ir::Module &module, const CompileOptions &options,
                                         const SymbolList &runtimeSymbols, std::string &error) {
  auto jit = Jit::create(options.optLevel);
  if (!jit) {
    error = "internal error: cannot create the JIT: " + llvm::toString(jit.takeError());
    return nullptr;
  }
  auto program = std::make_unique<JitProgram>(module, options);
  program->jit = std::move(*jit);
  Jit &j = *program->jit;
  if (auto err = j.defineSymbols(runtimeSymbols)) {
    error = "internal error: " + llvm::toString(std::move(err));
    return nullptr;
  }

  const auto start = std::chrono::steady_clock::now();
  const std::vector<CompileUnit> units = partitionModule(module, unitSize(options));
  Compilation c(module, options, j, units, /*objects=*/true);
  c.run(threadCount(options));
  for (Job &job : c.jobs()) // the first error in unit order, whatever thread met it first
    if (!job.error.empty()) {
      error = job.error;
      return nullptr;
    }
  const auto linkStart = std::chrono::steady_clock::now();
  for (Job &job : c.jobs()) {
    if (options.timings && (job.object || job.unit)) {
      ModuleTiming t = job.timing;
      t.host = job.unit && job.unit->host;
      t.accessFunctions = !job.unit;
      if (job.unit)
        for (const ir::Function *f : job.unit->functions)
          if (f->kind == ir::FunctionKind::Kernel)
            t.kernels.push_back(f->name);
      options.timings->modules.push_back(std::move(t));
    }
    if (!job.object)
      continue;
    if (options.keepIR)
      program->moduleIRs.push_back(std::move(job.ir));
    if (auto err = j.addObject(std::move(job.object))) {
      error = "internal error: " + llvm::toString(std::move(err));
      return nullptr;
    }
  }

  program->haveIR = options.keepIR;

  // Looking up the kernels and main links the objects that define them and what those refer
  // to; a reference outside the allow-list fails here.
  const ir::Function *mainFn = nullptr;
  for (const ir::Function *f : module.functions)
    if (f->kind == ir::FunctionKind::Host && f->isMain)
      mainFn = f;
  for (auto *k : module.kernels()) {
    auto addr = j.lookup(k->name);
    if (!addr) {
      error = linkError(j, addr.takeError());
      return nullptr;
    }
    program->kernels.push_back(reinterpret_cast<WarpFunction>(*addr));
    program->wholeBlock.push_back(ir::runsBlockInRegions(*k));
    WarpFunction block = nullptr;
    if (blockFormPlan(module, *k, options).eligible) {
      auto blockAddr = j.lookup(k->name + kBlockFormSuffix);
      if (!blockAddr) {
        error = linkError(j, blockAddr.takeError());
        return nullptr;
      }
      block = reinterpret_cast<WarpFunction>(*blockAddr);
    }
    program->blockKernels.push_back(block);
  }
  if (mainFn) {
    auto addr = j.lookup(kMainSymbol);
    if (!addr) {
      error = linkError(j, addr.takeError());
      return nullptr;
    }
    program->mainFn = reinterpret_cast<MainFunction>(*addr);
  }
  if (options.timings) {
    options.timings->linkMs = msSince(linkStart);
    options.timings->wallMs = msSince(start);
    options.timings->threads = std::max(
        1u, std::min<unsigned>(threadCount(options), static_cast<unsigned>(c.jobs().size())));
  }
  return program;
}

} // namespace kern::backend
