// The `kern` command: run, check and inspect .kern programs. A thin client of include/kern.
#include "kern/kern.hpp"
#include "tools/kern/repl.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <set>
#include <signal.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr int kExitUsage = static_cast<int>(kern::Status::UsageError);

const char *kUsage = R"(usage: kern [<command> [options] FILE]

commands:
  (none), repl                      the interactive prompt (kern repl --help)
  run FILE... [options] [-- ARGS...]  compile and run the program's main (ARGS reach argv)
  check FILE...                     compile only; print diagnostics
  emit --ir|--llvm|--asm [-k K] FILE  print Kern IR, optimised LLVM IR or native assembly
  emit --module FILE -o OUT         write a module image for cuModuleLoad (as nvcc -fatbin)
  annotate FILE [options]           run with counters; print the source with each line's
                                    counters beside it (the program's output goes to stderr)
  devices [--json]                  list the built-in device profiles
  occupancy [options]               the occupancy calculator for one block configuration
  --help, -h                        this help; kern <command> --help: that command's
  --version                         print the version

FILE may be '-' to read the program from standard input. A program of several source
files (.cu .cpp .c .kern) is given as all of them: each is compiled on its own and they
are linked, as nvcc -rdc=true links them (static names stay in their file).

exit codes: 0 ok, 1 compile error, 2 usage error, 3 runtime fault or failed launch,
130 stopped by Ctrl-C; otherwise the program's own exit code.
)";

const char *kRunOptions = R"(options:
  --workers N      worker threads that run blocks and compile (default: one per hardware thread)
  --timeout S      stop a kernel that runs longer than S seconds, and host code that runs
                   longer than S seconds outside kernels (default: no limit)
  --device NAME    the GPU to model: g80, gt200, fermi, v100, a100, h100 (default h100)
  --device-file F  the GPU to model, from a JSON profile (docs/devices.md)
  --regs N         registers per thread of every kernel (default: kern's estimate from the kernel's variables)
  -O0..-O3         JIT optimisation level (default -O2)
  -I DIR           also search DIR for #include "x" (after the file's own directory) and
                   #include <x> (for headers that are not kern's own)
  -D NAME[=VALUE]  define the macro NAME (as VALUE, or 1) before the first line
  --fmad=BOOL      true (the default, as nvcc's): device code may fuse a multiply and an
                   add into one fma, rounded once; false: each is rounded
  --mode MODE      fast (the default of kern run and of the API): nothing counted or
                   checked; profile: count what a GPU would suffer and print a short
                   summary at the end (stderr); checked: see --checked. (The REPL's
                   default is profile; :mode there switches.)
  --stats          count, and print a table after each launch, a summary and advice (stderr)
  --counters       count, and print a short summary at the end (stderr); = --mode profile
  --report F       count, and write every counter as JSON to F ('-': stderr)
  --counters-text F  count, and write the counters as stable text to F ('-': stderr)
  --metrics LIST   count, and list each profiled launch's metrics at the end (stderr), as
                   ncu --metrics does: Nsight Compute names (l1tex__t_sectors_pipe_lsu_mem_
                   global_op_ld.sum, ...) or kern's keys (global.load.sectors), comma-separated
  --csv            count, and list them (all, or those of --metrics) as CSV, as ncu --csv
  --trace F        write a Chrome trace-event file (Perfetto, chrome://tracing) to F
  --checked        also report shared-memory data races between barriers and reads of
                   never-written global memory, as errors (exit code 3); slower
  --no-files       the program may not open or remove files, read stdin or the environment
                   (fopen returns NULL with errno EACCES; by default it may, as a native one)

sandbox: run an untrusted program in a child process confined by the kernel (docs/sandbox.md):
  --sandbox        compile and run in a child process under seccomp (no network, no new
                   processes, no ptrace...) and Landlock: the program reads only its own
                   directory, the -I directories and --allow-read ones, writes only in
                   --output-dir, and sees no environment; other paths fail with EACCES
  --allow-read DIR the program may also read beneath DIR (repeatable)
  --output-dir DIR the one directory where it may create, write and remove files
  --memory-limit SIZE   its address-space limit (512M, 2G...): malloc beyond it returns
                   NULL with a note; a run that fails for it exits with 5
  --time-limit S   its CPU-time limit in seconds (compilation and every thread count);
                   over it the run is stopped and exits with 6 (--timeout is the wall clock)
  A forbidden system call or a crash of the child is reported and exits with 4; the
  caller is never harmed. Each of these options needs --sandbox.
  Without these, nothing is counted (the fast mode) and nothing extra is printed.

which launches are profiled (as Nsight Compute's options; each one implies --mode profile
and is a usage error with --mode fast; by default every launch of a counting run is):
  -k, --kernel-name NAME   only launches of kernel NAME (exact); regex:PATTERN for the
                   kernels in whose name the regular expression PATTERN matches
  --launch-skip N  let the first N launches that match the name go unprofiled (default 0)
  --launch-count N profile at most N launches after those (default: no limit)
  --profile-from-start on|off   off: profile nothing until the program calls
                   cudaProfilerStart() (default on); cudaProfilerStop() pauses either way
  Launches that are not profiled run the fast kernel, count nothing and get no --stats
  table; the summary, the advice and the counters cover the profiled launches only.
)";

const char *kExitCodes = R"(
exit codes: 0 ok, 1 compile error, 2 usage error, 3 runtime fault or failed launch,
with --sandbox 4 forbidden system call or crash, 5 memory limit, 6 time limit;
130 stopped by Ctrl-C; otherwise the program's own exit code. FILE may be '-' to read standard input.
)";

/// A size with an optional binary suffix: 512M, 2G, 65536, 1.5G. False if it is not one.
bool parseSize(const std::string &text, uint64_t &out) {
  char *end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (!end || end == text.c_str() || !(v > 0))
    return false;
  std::string unit = end;
  for (const char *tail : {"iB", "B"})
    if (unit.size() > std::strlen(tail) &&
        unit.compare(unit.size() - std::strlen(tail), std::string::npos, tail) == 0)
      unit.resize(unit.size() - std::strlen(tail));
  static const std::pair<const char *, double> units[] = {
      {"", 1}, {"K", 1024.0}, {"M", 1048576.0}, {"G", 1073741824.0}, {"T", 1099511627776.0}};
  for (const auto &[name, scale] : units)
    if (unit == name || (unit.size() == 1 && std::tolower(unit[0]) == std::tolower(name[0]))) {
      if (v * scale < 1 << 20 || v * scale > 1e18)
        return false;
      out = static_cast<uint64_t>(v * scale);
      return true;
    }
  return false;
}

/// The help of one command: its usage line, its options, the exit codes.
std::string commandHelp(const std::string &cmd) {
  if (cmd == "run")
    return std::string("usage: kern run FILE... [options] [-- ARGS...]\n\n"
                       "Compiles the source FILEs as one program and runs its main; ARGS reach "
                       "main's argv.\n\n") +
           kRunOptions + kExitCodes;
  if (cmd == "annotate")
    return std::string("usage: kern annotate FILE [options]\n\n"
                       "Runs FILE with counters and prints its source with each line's "
                       "counters\nbeside it; the program's own output goes to stderr.\n\n") +
           kRunOptions + kExitCodes;
  if (cmd == "check")
    return std::string(
               "usage: kern check [-I DIR] [-D NAME[=VALUE]] FILE...\n\nCompiles the FILEs and "
               "prints its diagnostics; "
               "runs nothing.\n") +
           kExitCodes;
  if (cmd == "emit")
    return std::string("usage: kern emit --ir|--llvm|--asm|--module [-k KERNEL] [-O0..-O3] "
                       "[--fmad=BOOL]\n                 [-I DIR] [-D NAME[=VALUE]] [--mode MODE] "
                       "[-o OUT] FILE\n\n"
                       "  --ir    Kern IR (per-thread, structured)\n"
                       "  --llvm  LLVM IR after optimisation (warp functions)\n"
                       "  --asm   native assembly\n"
                       "  --module  a module image that the driver API's cuModuleLoad and\n"
                       "          cuModuleLoadData load, where a CUDA build loads the .cubin,\n"
                       "          .fatbin or .ptx that nvcc made (FILE's source, its -I and -D)\n"
                       "  -k, --kernel-name KERNEL  only that kernel's (or function's) part\n"
                       "  -o OUT  write to OUT instead of standard output\n"
                       "  --mode fast|profile|checked   the code of that mode (default fast)\n") +
           kExitCodes;
  if (cmd == "devices")
    return "usage: kern devices [--json]\n\nLists the built-in device profiles; --json prints "
           "them as a JSON array,\neach in the format of a --device-file (docs/devices.md).\n";
  if (cmd == "occupancy")
    return R"(usage: kern occupancy --threads T [options]

options:
  --device NAME, --device-file F   the GPU (default h100)
  --threads T      threads per block (required)
  --regs R         registers per thread (default 32)
  --smem S         bytes of shared memory per block, static + dynamic (default 0)
)";
  if (cmd == "repl")
    return R"(usage: kern [repl] [--device NAME] [--workers N] [--timeout S]
                  [--mode fast|profile|checked] [-I DIR]... [-D NAME[=VALUE]]... [-f FILE]
                  [--keep-going]

The interactive prompt: define kernels, declare host variables, allocate, copy, launch
with <<< >>>, and print expressions (an input without ';'). :help at the prompt lists
the meta-commands (:device, :mode, :stats, :annotate, :emit, :load, :include-path,
:reset, :quit). -I adds a directory that #include searches (as :include-path does), -D
defines a macro for every input.
The REPL profiles every launch by default (--mode profile); --mode fast, or :mode fast
at the prompt, stops counting for the following launches; --mode checked (:mode checked)
reports shared-memory races and reads of uninitialised memory.
History is kept in $KERN_HISTORY (default ~/.kern_history). Ctrl-C stops the input
that runs (the session goes on) or drops the line being typed.
Standard input that is not a terminal, or -f FILE, is read as a script, without prompts.
A script stops at its first error and kern exits with that error's code (1 compile
error, 3 runtime error); --keep-going runs every input and exits with the first error's
code at the end.
)";
  return kUsage;
}

/// A usage error: the message, then the usage of the command it concerns (its help's first
/// paragraph and where the rest is), or kern's own without a command. Exits with 2.
int usage(const std::string &msg, const std::string &cmd = "") {
  if (!msg.empty())
    std::fprintf(stderr, "kern: %s\n", msg.c_str());
  if (cmd.empty()) {
    std::fprintf(stderr, "%s", kUsage);
    return kExitUsage;
  }
  const std::string help = commandHelp(cmd);
  const size_t end = help.find("\n\n");
  std::fprintf(stderr, "%s\n(kern %s --help lists its options)\n", help.substr(0, end).c_str(),
               cmd.c_str());
  return kExitUsage;
}

/// The options each command takes (for suggestions).
std::vector<std::string> commandOptions(const std::string &cmd) {
  if (cmd == "run" || cmd == "annotate")
    return {"--workers",      "--timeout",
            "--device",       "--device-file",
            "--regs",         "--mode",
            "--stats",        "--counters",
            "--report",       "--counters-text",
            "--trace",        "--checked",
            "--no-files",     "--sandbox",
            "--allow-read",   "--output-dir",
            "--memory-limit", "--time-limit",
            "--kernel-name",  "--launch-skip",
            "--launch-count", "--profile-from-start",
            "--fmad=true",    "--fmad=false",
            "--help"};
  if (cmd == "emit")
    return {"--ir",          "--llvm",      "--asm",        "--module", "--mode",
            "--kernel-name", "--fmad=true", "--fmad=false", "--help"};
  if (cmd == "check")
    return {"--help"};
  if (cmd == "devices")
    return {"--json", "--help"};
  if (cmd == "occupancy")
    return {"--device", "--device-file", "--threads", "--regs", "--smem", "--help"};
  if (cmd == "repl")
    return {"--device", "--workers", "--timeout", "--mode", "--keep-going", "--help"};
  return {};
}

/// "unknown option 'X' for 'CMD'", with a suggestion.
int unknownOption(const std::string &option, const std::string &cmd) {
  const size_t eq = option.find('=');
  const std::string name =
      option.rfind("--", 0) == 0 && eq != std::string::npos && option.rfind("--fmad", 0) != 0
          ? option.substr(0, eq)
          : option;
  return usage("unknown option '" + option + "' for '" + cmd + "'" +
                   kern::didYouMean(name, commandOptions(cmd)),
               cmd);
}

bool parseNumber(const char *s, double &out) {
  char *end = nullptr;
  out = std::strtod(s, &end);
  return end && *end == 0 && end != s;
}

/// A whole number >= `min` for option `name`; false (with `error` set) otherwise.
bool parseWhole(const std::string &name, const std::string &text, double min, double &out,
                std::string &error) {
  if (!parseNumber(text.c_str(), out) || out < min || out != static_cast<double>(int64_t(out)) ||
      out > 1e15) {
    error =
        name + " needs a whole number >= " + std::to_string(int64_t(min)) + ", got '" + text + "'";
    return false;
  }
  return true;
}

int occupancyCommand(const std::vector<std::string> &args) {
  kern::Options opts;
  double threads = -1, regs = 32, smem = 0;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s", commandHelp("occupancy").c_str());
      return 0;
    }
    if (a != "--device" && a != "--device-file" && a != "--threads" && a != "--regs" &&
        a != "--smem")
      return unknownOption(a, "occupancy");
    if (i + 1 >= args.size())
      return usage(a + " needs a value", "occupancy");
    const std::string &v = args[++i];
    std::string error;
    if (a == "--device")
      opts.device = v;
    else if (a == "--device-file")
      opts.deviceFile = v;
    else if (!parseWhole(a, v, a == "--threads" ? 1 : 0,
                         a == "--threads" ? threads
                         : a == "--regs"  ? regs
                                          : smem,
                         error))
      return usage(error, "occupancy");
  }
  if (threads < 0)
    return usage("occupancy needs --threads", "occupancy");
  std::string out, error;
  const bool ok = kern::occupancyCalculator(opts, static_cast<int>(threads), static_cast<int>(regs),
                                            static_cast<uint64_t>(smem), out, error);
  if (!ok && out.empty())
    return usage(error);
  std::fputs(out.c_str(), stdout);
  if (!ok) { // the report (with the table of block sizes that do fit), then the error
    std::fflush(stdout);
    std::fprintf(stderr, "kern: error: %s\n", error.c_str());
    return kExitUsage;
  }
  return 0;
}

/// Sets opts.mode from `--mode` (empty if not given) and checks it against the options that
/// count (`counting`: the last of --stats, --counters, --report, --counters-text) and filter
/// launches (`filter`: the last of -k, --launch-skip...). Those imply profile mode; --mode
/// fast contradicts them, and --mode checked counts only with a counting option.
bool applyMode(kern::Options &opts, const std::string &mode, const std::string &counting,
               const std::string &filter, bool annotate, std::string &error) {
  if (mode == "fast") {
    const std::string clash = annotate            ? std::string("annotate")
                              : !counting.empty() ? counting
                              : !filter.empty()   ? filter
                              : opts.checked      ? std::string("--checked")
                                                  : std::string();
    if (!clash.empty()) {
      error = "--mode fast counts and checks nothing, so it cannot go with " +
              (clash == "annotate" ? std::string("'kern annotate'") : clash) +
              (filter == clash ? " (which selects launches to profile)" : "");
      return false;
    }
    opts.mode = kern::Mode::Fast;
  } else if (mode == "profile") {
    opts.mode = kern::Mode::Profile;
  } else if (mode == "checked") {
    if (!filter.empty() && counting.empty() && !annotate) {
      error = filter + " selects launches to profile, but --mode checked counts nothing (add " +
              "--counters or --stats to count as well)";
      return false;
    }
    opts.mode = kern::Mode::Checked;
  }
  return true;
}

std::unique_ptr<kern::Program> load(kern::Engine &engine, const std::vector<std::string> &files) {
  if (files.size() == 1 && files[0] == "-") {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    return engine.compile(std::move(text), "<stdin>");
  }
  return engine.compileFiles(files);
}

/// A header named as a translation unit: it belongs in an #include.
bool isHeaderName(const std::string &file) {
  for (const char *ext : {".h", ".cuh", ".hpp", ".hh", ".hxx"}) {
    std::string e = ext;
    if (file.size() > e.size() && file.compare(file.size() - e.size(), e.size(), e) == 0)
      return true;
  }
  return false;
}

/// `kern` and `kern repl [--device D] [--workers N] [--timeout S] [--mode fast|profile|checked]
/// [-I DIR] [-D NAME[=VALUE]]`.
int replCommand(const std::vector<std::string> &args) {
  kern::Options opts;
  opts.color = isatty(STDERR_FILENO);
  opts.allowFiles = true; // as kern run: the REPL's programs may use files
  kern::Mode replMode = kern::Mode::Profile;
  ReplScript script;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s", commandHelp("repl").c_str());
      return 0;
    }
    if (a == "--keep-going") {
      script.keepGoing = true;
      continue;
    }
    if (a == "-f") {
      if (i + 1 >= args.size())
        return usage("-f needs a file", "repl");
      script.file = args[++i];
      continue;
    }
    if ((a.rfind("-I", 0) == 0 || a.rfind("-D", 0) == 0) && a.size() >= 2) {
      // -I DIR / -IDIR and -D NAME[=VALUE] / -DNAME[=VALUE], as for kern run.
      std::string v = a.substr(2);
      if (v.empty()) {
        if (i + 1 >= args.size())
          return usage(a + " needs a value", "repl");
        v = args[++i];
      }
      (a[1] == 'I' ? opts.includePaths : opts.defines).push_back(v);
      continue;
    }
    if (a != "--device" && a != "--workers" && a != "--timeout" && a != "--mode")
      return unknownOption(a, "repl");
    if (i + 1 >= args.size())
      return usage(a + " needs a value", "repl");
    const std::string &v = args[++i];
    double n;
    std::string error;
    if (a == "--mode") {
      if (v != "fast" && v != "profile" && v != "checked")
        return usage("--mode of the REPL is fast, profile or checked, got '" + v + "'", "repl");
      replMode = v == "fast"      ? kern::Mode::Fast
                 : v == "checked" ? kern::Mode::Checked
                                  : kern::Mode::Profile;
    } else if (a == "--device")
      opts.device = v;
    else if (a == "--workers" && parseWhole(a, v, 1, n, error))
      opts.workers = static_cast<unsigned>(n);
    else if (a == "--timeout" && parseNumber(v.c_str(), n) && n >= 0)
      opts.timeoutSeconds = n;
    else
      return usage(error.empty() ? "bad value '" + v + "' for " + a : error, "repl");
  }
  if (std::string error; !kern::checkDevice(opts, error))
    return usage(error, "repl");
  return runRepl(opts, replMode, script);
}

/// `--name=value` as `--name value` for the options that take a value (the GNU convention;
/// `--fmad=true` is nvcc's own spelling and stays whole). Arguments after `--` are the
/// program's and stay as they are.
std::vector<std::string> splitValues(std::vector<std::string> args) {
  static const std::set<std::string> valued = {
      "--device",       "--device-file",  "--workers",
      "--timeout",      "--mode",         "--kernel-name",
      "--launch-skip",  "--launch-count", "--profile-from-start",
      "--report",       "--trace",        "--counters-text",
      "--regs",         "--allow-read",   "--output-dir",
      "--memory-limit", "--time-limit",   "--threads",
      "--smem",         "--metrics"};
  std::vector<std::string> out;
  bool program = false;
  for (std::string &a : args) {
    program = program || a == "--";
    const size_t eq = a.find('=');
    if (!program && a.rfind("--", 0) == 0 && eq != std::string::npos &&
        valued.count(a.substr(0, eq))) {
      out.push_back(a.substr(0, eq));
      out.push_back(a.substr(eq + 1));
    } else {
      out.push_back(std::move(a));
    }
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args = splitValues({argv + 1, argv + argc});
  if (args.empty() || args[0] == "repl")
    return replCommand(args);
  std::string cmd = args[0];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::printf("%s", kUsage);
    return 0;
  }
  if (cmd == "--version") {
    std::printf("kern %s\n", KERN_VERSION_STRING);
    return 0;
  }
  if (cmd == "devices") {
    const bool help = args.size() > 1 && (args[1] == "--help" || args[1] == "-h");
    const bool json = args.size() > 1 && args[1] == "--json";
    if (args.size() > 2 || (args.size() > 1 && !help && !json))
      return args.size() > 2 ? usage("'devices' takes one option at most", "devices")
                             : unknownOption(args[1], "devices");
    std::fputs((help   ? commandHelp("devices")
                : json ? kern::deviceListJson()
                       : kern::deviceList())
                   .c_str(),
               stdout);
    return 0;
  }
  if (cmd == "occupancy")
    return occupancyCommand(args);
  const bool annotate = cmd == "annotate";
  if (annotate)
    cmd = "run"; // annotate is a run with counters whose stdout is the annotated source
  if (cmd != "run" && cmd != "check" && cmd != "emit")
    return usage("unknown command '" + cmd + "'" +
                 kern::didYouMean(cmd, {"run", "check", "emit", "annotate", "devices", "occupancy",
                                        "repl", "help"}));

  const std::string name = annotate ? "annotate" : cmd; // for usage messages
  kern::Options opts;
  opts.color = isatty(STDERR_FILENO);
  opts.allowFiles = true; // a program run from the command line may use files, as a native one
  std::string emitKind, emitOut, emitKernel;
  std::vector<std::string> files;
  // The last --mode, and the last option that counts or filters launches (for messages).
  std::string mode, counting, filter;
  std::vector<std::string> programArgs;
  std::string sandboxOption; // the last option that needs --sandbox
  bool noFiles = false;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--") {
      programArgs.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (a == "--help" || a == "-h") {
      std::printf("%s", commandHelp(annotate ? "annotate" : cmd).c_str());
      return 0;
    }
    if (cmd == "emit" && (a == "--ir" || a == "--llvm" || a == "--asm" || a == "--module")) {
      emitKind = a.substr(2);
      continue;
    }
    if (cmd == "emit" && (a == "-k" || a == "--kernel-name")) {
      if (i + 1 >= args.size() || args[i + 1].empty())
        return usage(a + " needs a kernel name", name);
      emitKernel = args[++i];
      continue;
    }
    if (cmd == "emit" && a == "-o") {
      if (i + 1 >= args.size())
        return usage(a + " needs a file name", name);
      emitOut = args[++i];
      continue;
    }
    if (cmd == "emit" && a == "--mode") {
      // The code of a mode: profile compiles the counter hooks in, checked the checks.
      if (i + 1 >= args.size())
        return usage(a + " needs a value", name);
      const std::string &v = args[++i];
      if (v != "fast" && v != "profile" && v != "checked")
        return usage("--mode needs fast, profile or checked, got '" + v + "'", name);
      opts.counters = v == "profile";
      opts.checked = v == "checked";
      continue;
    }
    if (cmd == "run" && (a == "--workers" || a == "--timeout")) {
      if (i + 1 >= args.size())
        return usage(a + " needs a value", name);
      double v;
      if (!parseNumber(args[i + 1].c_str(), v) || v < 0)
        return usage("bad value '" + args[i + 1] + "' for " + a, name);
      if (a == "--workers") {
        if (v < 1 || v != static_cast<unsigned>(v))
          return usage("--workers needs a whole number >= 1", name);
        opts.workers = static_cast<unsigned>(v);
      } else
        opts.timeoutSeconds = v;
      ++i;
      continue;
    }
    if (cmd == "run" && a == "--checked") {
      opts.checked = true;
      continue;
    }
    if (cmd == "run" && a == "--no-files") {
      opts.allowFiles = false;
      noFiles = true;
      continue;
    }
    if (cmd == "run" && a == "--sandbox") {
      opts.sandbox.enabled = true;
      continue;
    }
    if (cmd == "run" && (a == "--allow-read" || a == "--output-dir" || a == "--memory-limit" ||
                         a == "--time-limit")) {
      if (i + 1 >= args.size())
        return usage(a + " needs a value", name);
      const std::string &v = args[++i];
      sandboxOption = a;
      double seconds;
      if (a == "--allow-read" || a == "--output-dir") {
        std::error_code ec;
        if (!std::filesystem::is_directory(v, ec))
          return usage(a + " needs a directory, and '" + v + "' is not one", name);
        if (a == "--allow-read")
          opts.sandbox.allowRead.push_back(v);
        else
          opts.sandbox.outputDir = v;
      } else if (a == "--memory-limit") {
        if (!parseSize(v, opts.sandbox.memoryLimitBytes))
          return usage("--memory-limit needs a size of 1M or more (512M, 2G...), got '" + v + "'",
                       name);
      } else if (!parseNumber(v.c_str(), seconds) || seconds <= 0) {
        return usage("--time-limit needs a number of seconds > 0, got '" + v + "'", name);
      } else {
        opts.sandbox.cpuSeconds = seconds;
      }
      continue;
    }
    if (cmd == "run" && (a == "--metrics" || a == "--csv")) {
      if (a == "--csv") {
        opts.csv = true;
      } else {
        if (i + 1 >= args.size() || args[i + 1].empty())
          return usage("--metrics needs a list of metric names", name);
        const std::string &list = args[++i];
        for (size_t at = 0; at <= list.size();) {
          const size_t comma = std::min(list.find(',', at), list.size());
          if (comma > at)
            opts.metrics.push_back(list.substr(at, comma - at));
          at = comma + 1;
        }
        if (std::string error; !kern::checkMetrics(opts.metrics, error))
          return usage(error, name);
      }
      counting = a;
      continue;
    }
    if (cmd == "run" && (a == "--stats" || a == "--counters")) {
      (a == "--stats" ? opts.stats : opts.counters) = true;
      counting = a;
      continue;
    }
    if (cmd == "run" &&
        (a == "--mode" || a == "-k" || a == "--kernel-name" || a == "--launch-skip" ||
         a == "--launch-count" || a == "--profile-from-start")) {
      if (i + 1 >= args.size())
        return usage(a + " needs a value", name);
      const std::string &v = args[++i];
      if (a == "--mode") {
        if (v != "fast" && v != "profile" && v != "checked")
          return usage("--mode needs fast, profile or checked, got '" + v + "'", name);
        mode = v;
        continue;
      }
      filter = a;
      if (a == "-k" || a == "--kernel-name") {
        if (v.empty())
          return usage(a + " needs a kernel name", name);
        opts.kernelName = v;
      } else if (a == "--profile-from-start") {
        if (v != "on" && v != "off")
          return usage("--profile-from-start needs on or off, got '" + v + "'", name);
        opts.profileFromStart = v == "on";
      } else {
        double n;
        std::string error;
        if (!parseWhole(a, v, a == "--launch-count" ? 1 : 0, n, error))
          return usage(error, name);
        (a == "--launch-skip" ? opts.launchSkip : opts.launchCount) = static_cast<uint64_t>(n);
      }
      continue;
    }
    if (cmd == "run" && (a == "--report" || a == "--trace" || a == "--counters-text")) {
      if (i + 1 >= args.size())
        return usage(a + " needs a file name", name);
      (a == "--report"  ? opts.reportPath
       : a == "--trace" ? opts.tracePath
                        : opts.countersTextPath) = args[++i];
      if (a != "--trace")
        counting = a;
      continue;
    }
    if (cmd == "run" && (a == "--device" || a == "--device-file" || a == "--regs")) {
      if (i + 1 >= args.size())
        return usage(a + " needs a value", name);
      const std::string &v = args[++i];
      if (a == "--device")
        opts.device = v;
      else if (a == "--device-file")
        opts.deviceFile = v;
      else {
        double n;
        std::string error;
        if (!parseWhole(a, v, 1, n, error))
          return usage(error, name);
        opts.registersPerThread = static_cast<int>(n);
      }
      continue;
    }
    if (a.size() == 3 && a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3') {
      opts.optLevel = a[2] - '0';
      continue;
    }
    if ((a.rfind("-I", 0) == 0 || a.rfind("-D", 0) == 0) && a.size() >= 2) {
      // -I DIR / -IDIR and -D NAME[=VALUE] / -DNAME[=VALUE], as every compiler takes them.
      std::string v = a.substr(2);
      if (v.empty()) {
        if (i + 1 >= args.size())
          return usage(a + " needs a value", name);
        v = args[++i];
      }
      (a[1] == 'I' ? opts.includePaths : opts.defines).push_back(v);
      continue;
    }
    if (a == "--fmad=true" || a == "--fmad=false") { // nvcc's spelling
      opts.fmad = a == "--fmad=true";
      continue;
    }
    if (a.size() > 1 && a[0] == '-')
      return unknownOption(a, name);
    if (isHeaderName(a))
      return usage("'" + a + "' is a header: #include it from a source file", name);
    if (std::find(files.begin(), files.end(), a) != files.end())
      return usage("'" + a + "' is given twice", name);
    files.push_back(a);
  }
  if (files.empty())
    return usage("no input file", name);
  if (files.size() > 1 && std::find(files.begin(), files.end(), "-") != files.end())
    return usage("'-' (standard input) must be the only input file", name);
  if (cmd == "emit" && emitKind.empty())
    return usage("emit needs one of --ir, --llvm, --asm, --module", name);
  if (emitKind == "module" && !emitKernel.empty())
    return usage("emit --module writes the whole module; -k selects a kernel of --ir, --llvm or "
                 "--asm",
                 name);
  if (emitKind == "module" && files.size() != 1)
    return usage("emit --module takes one source file (the module's)", name);
  if (std::string error; !applyMode(opts, mode, counting, filter, annotate, error))
    return usage(error, name);
  if (!sandboxOption.empty() && !opts.sandbox.enabled)
    return usage(sandboxOption + " needs --sandbox", name);
  if (opts.sandbox.enabled && noFiles)
    return usage("--no-files and --sandbox: in the sandbox, its directories decide which files "
                 "the program may use",
                 name);
  if (std::string why; opts.sandbox.enabled && !kern::sandboxAvailable(why)) {
    std::fprintf(stderr, "kern: %s\n", why.c_str());
    return kExitUsage;
  }
  if (std::string error; !kern::checkLaunchFilter(opts, error) || !kern::checkDevice(opts, error))
    return usage(error, name);

  if (annotate) {
    opts.annotate = true;
    // stdout carries the annotated source, so the program's own output goes to stderr.
    opts.out = [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stderr); };
  }
  kern::Engine engine(opts);
  auto program = load(engine, files);
  if (!program->diagnostics().empty())
    std::fputs(program->diagnostics().c_str(), stderr);
  if (!program->ok())
    return static_cast<int>(kern::Status::CompileError);
  if (cmd == "check")
    return 0;
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
  kern::RunResult r = program->run(programArgs);
  signal(SIGINT, SIG_DFL);
  if (annotate)
    std::fputs(program->annotatedSource().c_str(), stdout);
  std::fflush(stdout);
  if (r.status == kern::Status::Ok)
    return r.exitCode;
  if (r.status == kern::Status::RuntimeError && r.exitCode != 0)
    return r.exitCode; // the program noticed the failure and chose its own code
  return static_cast<int>(r.status);
}
