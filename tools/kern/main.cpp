// The `kern` command: run, check and inspect .kern programs. A thin client of include/kern;
// tools/kern/cli.cpp reads the command line.
#include "kern/kern.hpp"
#include "tools/kern/cli.h"
#include "tools/kern/repl.h"

#include <cstdio>
#include <iostream>
#include <iterator>
#include <signal.h>
#include <string>
#include <vector>

namespace {

constexpr int kExitUsage = static_cast<int>(kern::Status::UsageError);

int occupancyCommand(const Invocation &inv) {
  std::string out, error;
  const bool ok =
      kern::occupancyCalculator(inv.options, inv.threads, inv.regs, inv.smem, out, error);
  if (!ok && out.empty())
    return usageError(error, "occupancy");
  std::fputs(out.c_str(), stdout);
  if (!ok) { // the report (with the table of block sizes that do fit), then the error
    std::fflush(stdout);
    std::fprintf(stderr, "kern: error: %s\n", error.c_str());
    return kExitUsage;
  }
  return 0;
}

std::unique_ptr<kern::Program> load(kern::Engine &engine, const std::vector<std::string> &files) {
  if (files.size() == 1 && files[0] == "-") {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    return engine.compile(std::move(text), "<stdin>");
  }
  return engine.compileFiles(files);
}

/// kern compare, and kern run --device A,B: the program once per device; its output once if
/// every device printed the same, else each device's under a heading; then the table. Exits
/// with the first device's exit code that is not 0 (a device whose run failed: its status).
int compareCommand(const Invocation &inv) {
  kern::Comparison c = kern::compareDevices(inv.options, inv.files, inv.devices, inv.programArgs);
  if (!c.ok())
    return usageError(c.diagnostics, inv.command);
  bool same = true;
  for (const kern::DeviceRun &r : c.runs)
    same &= r.output == c.runs[0].output && r.errors == c.runs[0].errors &&
            r.diagnostics == c.runs[0].diagnostics;
  for (const kern::DeviceRun &r : c.runs) {
    if (!same) {
      std::fflush(stderr);
      std::printf("== %s ==\n", r.device.c_str());
    }
    std::fflush(stdout);
    std::fputs(r.diagnostics.c_str(), stderr);
    std::fputs(r.output.c_str(), stdout);
    std::fflush(stdout);
    std::fputs(r.errors.c_str(), stderr);
    if (same)
      break;
  }
  std::fflush(stdout);
  std::fputs(c.table.c_str(), stderr);
  for (const kern::DeviceRun &r : c.runs) {
    const kern::RunResult &result = r.result;
    if (result.status == kern::Status::Ok && result.exitCode != 0)
      return result.exitCode;
    if (result.status != kern::Status::Ok)
      return result.status == kern::Status::RuntimeError && result.exitCode != 0
                 ? result.exitCode
                 : static_cast<int>(result.status);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Invocation inv;
  if (const int done = parseCommandLine(argc, argv, inv); done != kRunCommand)
    return done;
  const std::string &cmd = inv.command;
  if (cmd == "repl")
    return runRepl(inv.options, inv.replMode, inv.script);
  if (cmd == "devices") {
    std::fputs((inv.json ? kern::deviceListJson() : kern::deviceList()).c_str(), stdout);
    return 0;
  }
  if (cmd == "occupancy")
    return occupancyCommand(inv);
  if (!inv.devices.empty())
    return compareCommand(inv);
  if (std::string why; inv.options.sandbox.enabled && !kern::sandboxAvailable(why)) {
    std::fprintf(stderr, "kern: %s\n", why.c_str());
    return kExitUsage;
  }

  kern::Options &opts = inv.options;
  const bool annotate = cmd == "annotate" || cmd == "explain";
  const std::string &emitKind = inv.emitKind, &emitKernel = inv.emitKernel, &emitOut = inv.emitOut;
  if (annotate) {
    opts.annotate = cmd == "annotate"; // explain: its lane maps (Options::explainLine)
    // stdout carries the annotated source, so the program's own output goes to stderr.
    opts.out = [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stderr); };
  }
  kern::Engine engine(opts);
  auto program = load(engine, inv.files);
  if (!program->diagnostics().empty())
    std::fputs(program->diagnostics().c_str(), stderr);
  if (!program->ok())
    return static_cast<int>(kern::Status::CompileError);
  if (cmd == "check") {
    if (inv.resourceUsage)
      for (const kern::KernelSignature &k : program->kernels())
        std::printf("kern: kernel %s: %d registers (estimated), %llu bytes shared, %llu bytes "
                    "stack frame\n",
                    k.name.c_str(), k.registers, static_cast<unsigned long long>(k.sharedBytes),
                    static_cast<unsigned long long>(k.localBytes));
    return 0;
  }
  if (cmd == "emit") {
    if (!emitKernel.empty() && program->irOf(emitKernel).empty()) {
      std::fprintf(stderr, "kern: error: the program has no kernel or function '%s'\n",
                   emitKernel.c_str());
      return kExitUsage;
    }
    std::string text = emitKind == "module" ? program->moduleImage()
                       : !emitKernel.empty()
                           ? (emitKind == "ir"     ? program->irOf(emitKernel)
                              : emitKind == "llvm" ? program->llvmIROf(emitKernel)
                                                   : program->assemblyOf(emitKernel))
                       : emitKind == "ir"   ? program->ir()
                       : emitKind == "llvm" ? program->llvmIR()
                                            : program->assembly();
    if (emitOut.empty()) {
      std::fputs(text.c_str(), stdout);
      return 0;
    }
    FILE *out = std::fopen(emitOut.c_str(), "wb");
    if (!out || std::fwrite(text.data(), 1, text.size(), out) != text.size() ||
        std::fclose(out) != 0) {
      std::fprintf(stderr, "kern: error: cannot write '%s'\n", emitOut.c_str());
      return 2;
    }
    return 0;
  }
  std::fflush(stdout);
  // Ctrl-C while the program runs stops it where it is (a kernel, host code, a sleep), and
  // kern reports where before exiting with 130; a second Ctrl-C ends kern at once.
  static kern::Engine *running = nullptr;
  running = &engine;
  struct sigaction onInterrupt = {};
  onInterrupt.sa_handler = [](int) { running->interrupt(); };
  onInterrupt.sa_flags = SA_RESETHAND; // no SA_RESTART: a blocked read of stdin returns
  sigemptyset(&onInterrupt.sa_mask);
  sigaction(SIGINT, &onInterrupt, nullptr);
  kern::RunResult r = program->run(inv.programArgs);
  signal(SIGINT, SIG_DFL);
  if (cmd == "annotate")
    std::fputs(program->annotatedSource().c_str(), stdout);
  if (cmd == "explain") {
    std::fputs(program->explanation().c_str(), stdout);
    if (program->explanation().empty() && r.status == kern::Status::Ok)
      std::fprintf(stderr,
                   "kern: %s:%u: nothing on this line ran in a kernel (no memory access or "
                   "branch of device code was executed there)\n",
                   inv.files[0].c_str(), opts.explainLine);
  }
  std::fflush(stdout);
  if (r.status == kern::Status::Ok)
    return r.exitCode;
  if (r.status == kern::Status::RuntimeError && r.exitCode != 0)
    return r.exitCode; // the program noticed the failure and chose its own code
  return static_cast<int>(r.status);
}
