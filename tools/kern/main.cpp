// The `kern` command: run, check and inspect .kern programs. A thin client of include/kern.
#include "kern/kern.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr int kExitUsage = static_cast<int>(kern::Status::UsageError);

const char *kUsage = R"(usage: kern <command> [options] FILE

commands:
  run FILE [options] [-- ARGS...]   compile and run the program's main (ARGS reach argv)
  check FILE                        compile only; print diagnostics
  emit --ir|--llvm|--asm FILE       print Kern IR, optimised LLVM IR or native assembly
  --help, -h                        this help (also: kern <command> --help)
  --version                         print the version

run options:
  --workers N      worker threads that run blocks (default: one per hardware thread)
  --timeout S      stop a kernel that runs longer than S seconds (default: no limit)
  -O0..-O3         JIT optimisation level (default -O2)

FILE may be '-' to read the program from standard input.

exit codes: 0 ok, 1 compile error, 2 usage error, 3 runtime fault or failed launch,
otherwise the program's own exit code.
)";

int usage(const std::string &msg) {
  if (!msg.empty())
    std::fprintf(stderr, "kern: %s\n", msg.c_str());
  std::fprintf(stderr, "%s", kUsage);
  return kExitUsage;
}

bool parseNumber(const char *s, double &out) {
  char *end = nullptr;
  out = std::strtod(s, &end);
  return end && *end == 0 && end != s;
}

std::unique_ptr<kern::Program> load(kern::Engine &engine, const std::string &file) {
  if (file == "-") {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    return engine.compile(std::move(text), "<stdin>");
  }
  return engine.compileFile(file);
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty())
    return usage("no command given (the REPL is not available yet)");
  std::string cmd = args[0];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::printf("%s", kUsage);
    return 0;
  }
  if (cmd == "--version") {
    std::printf("kern %s\n", KERN_VERSION_STRING);
    return 0;
  }
  if (cmd != "run" && cmd != "check" && cmd != "emit")
    return usage("unknown command '" + cmd + "'");

  kern::Options opts;
  opts.color = isatty(STDERR_FILENO);
  std::string file, emitKind;
  std::vector<std::string> programArgs;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--") {
      programArgs.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (a == "--help" || a == "-h") {
      std::printf("%s", kUsage);
      return 0;
    }
    if (cmd == "emit" && (a == "--ir" || a == "--llvm" || a == "--asm")) {
      emitKind = a.substr(2);
      continue;
    }
    if (cmd == "run" && (a == "--workers" || a == "--timeout")) {
      if (i + 1 >= args.size())
        return usage(a + " needs a value");
      double v;
      if (!parseNumber(args[i + 1].c_str(), v) || v < 0)
        return usage("bad value '" + args[i + 1] + "' for " + a);
      if (a == "--workers") {
        if (v < 1 || v != static_cast<unsigned>(v))
          return usage("--workers needs a whole number >= 1");
        opts.workers = static_cast<unsigned>(v);
      } else
        opts.timeoutSeconds = v;
      ++i;
      continue;
    }
    if (a.size() == 3 && a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3') {
      opts.optLevel = a[2] - '0';
      continue;
    }
    if (a.size() > 1 && a[0] == '-')
      return usage("unknown option '" + a + "' for '" + cmd + "'");
    if (!file.empty())
      return usage("more than one input file ('" + file + "' and '" + a + "')");
    file = a;
  }
  if (file.empty())
    return usage("no input file");
  if (cmd == "emit" && emitKind.empty())
    return usage("emit needs one of --ir, --llvm, --asm");

  kern::Engine engine(opts);
  auto program = load(engine, file);
  if (!program->diagnostics().empty())
    std::fputs(program->diagnostics().c_str(), stderr);
  if (!program->ok())
    return static_cast<int>(kern::Status::CompileError);
  if (cmd == "check")
    return 0;
  if (cmd == "emit") {
    std::string text = emitKind == "ir"     ? program->ir()
                       : emitKind == "llvm" ? program->llvmIR()
                                            : program->assembly();
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  std::fflush(stdout);
  kern::RunResult r = program->run(programArgs);
  std::fflush(stdout);
  if (r.status == kern::Status::Ok)
    return r.exitCode;
  if (r.status == kern::Status::RuntimeError && r.exitCode != 0)
    return r.exitCode; // the program noticed the failure and chose its own code
  return static_cast<int>(r.status);
}
