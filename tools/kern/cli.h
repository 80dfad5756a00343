// The kern command's options: each command's table of options (CLI11), which both parses its
// command line and writes its --help, and the checks that look at several options together.
#pragma once

#include "kern/kern.hpp"
#include "tools/kern/repl.h"

#include <cstdint>
#include <string>
#include <vector>

/// What the command line asks for.
struct Invocation {
  std::string command;            ///< run, compare, annotate, check, emit, devices, occupancy, repl
  kern::Options options;          ///< the engine's options (run, check, emit, repl...)
  std::vector<std::string> files; ///< the source files; "-" alone is standard input
  std::vector<std::string> programArgs; ///< after "--": the program's argv[1...]
  /// compare, or run --device A,B: the devices to run the program on, one after another.
  std::vector<std::string> devices;
  std::string emitKind;                      ///< emit: ir, llvm, asm or module
  std::string emitOut;                       ///< emit -o: the output file; empty: stdout
  std::string emitKernel;                    ///< emit -k: one kernel's or function's part
  bool json = false;                         ///< devices --json
  bool resourceUsage = false;                ///< check --resource-usage
  int threads = -1;                          ///< occupancy --threads
  int regs = 32;                             ///< occupancy --regs
  uint64_t smem = 0;                         ///< occupancy --smem
  kern::Mode replMode = kern::Mode::Profile; ///< repl --mode
  ReplScript script;                         ///< repl -f and --keep-going
};

/// parseCommandLine's result when the command is to run.
constexpr int kRunCommand = -1;

/// Reads the command line into `out`. Returns kRunCommand, or the exit code when there is
/// nothing more to do: 0 after --help or --version, 2 after a usage error (its message and
/// the command's usage are printed on stderr).
int parseCommandLine(int argc, char **argv, Invocation &out);

/// A usage error after parsing: the message, then the usage of command `cmd` (kern's own
/// when empty), on stderr. Returns 2.
int usageError(const std::string &message, const std::string &cmd = "");
