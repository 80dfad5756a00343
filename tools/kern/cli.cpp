// The kern command's options (tools/kern/cli.h). Each command has one CLI11 table; it parses
// (--opt value, --opt=value, -Ovalue, repeated -I/-D, the last of a repeated option wins) and
// prints the command's --help, so the help lists exactly what is accepted. Messages and
// suggestions for mistakes are kern's own.
#include "tools/kern/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <unistd.h>

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
  explain FILE:LINE [options]       run with counters; draw the lanes of a warp at each
                                    access and branch of that line, against the GPU's rules
  compare FILE... [--device A,B...] run the program once per device (default: every
                                    built-in one) and print its counters side by side
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

const char *kRunExitCodes = R"(
exit codes: 0 ok, 1 compile error, 2 usage error, 3 runtime fault or failed launch,
with --sandbox 4 forbidden system call or crash, 5 memory limit, 6 time limit;
130 stopped by Ctrl-C; otherwise the program's own exit code. FILE may be '-' to read
standard input.
)";

const char *kCompileExitCodes = R"(
exit codes: 0 ok, 1 compile error, 2 usage error. FILE may be '-' to read standard input.
)";

const std::vector<std::string> kCommands = {"run",     "compare", "check",     "emit", "annotate",
                                            "explain", "devices", "occupancy", "repl", "help"};

// ---- the help ----------------------------------------------------------------------------

/// One command's help around its option table: the usage line, what the command does, the
/// paragraph under each group's heading, and the closing text (exit codes).
struct HelpText {
  std::string usage, about, footer;
  std::map<std::string, std::string> groupNotes;
};

/// Writes a command's help from its CLI11 table: options by group, in the order defined, each
/// as "-k, --kernel-name NAME" beside its description.
class HelpFormatter : public CLI::Formatter {
public:
  explicit HelpFormatter(HelpText text) : text_(std::move(text)) { column_width(21); }

  std::string make_help(const CLI::App *app, std::string, CLI::AppFormatMode mode) const override {
    std::string out = text_.usage + "\n";
    if (!text_.about.empty())
      out += "\n" + text_.about + "\n";
    const std::string groups = make_groups(app, mode);
    if (!groups.empty())
      out += "\n" + groups;
    return out + text_.footer;
  }

  std::string make_group(std::string group, bool positional,
                         std::vector<const CLI::Option *> opts) const override {
    std::string out = group + ":\n";
    if (auto note = text_.groupNotes.find(group); note != text_.groupNotes.end())
      out += note->second;
    for (const CLI::Option *opt : opts)
      out += make_option(opt, positional);
    return out;
  }

  std::string make_option_name(const CLI::Option *opt, bool) const override {
    std::string names;
    for (const std::string &s : opt->get_snames())
      names += (names.empty() ? "-" : ", -") + s;
    for (const std::string &l : opt->get_lnames())
      names += (names.empty() ? "--" : ", --") + l;
    return names;
  }

  std::string make_option_opts(const CLI::Option *opt) const override {
    const std::string &text = opt->get_option_text();
    return text.empty() || text[0] == '=' ? text : " " + text;
  }

private:
  HelpText text_;
};

// ---- values ------------------------------------------------------------------------------

/// Each validator returns "" or why the value is refused ("needs ..."); CLI11 puts the option's
/// name before it, and usage errors read "--workers needs a whole number >= 1, got '0'".
CLI::Validator wholeNumber(int64_t min, int64_t max) {
  return CLI::Validator(
      [min, max](std::string &v) -> std::string {
        char *end = nullptr;
        errno = 0;
        const long long n = std::strtoll(v.c_str(), &end, 10);
        if (v.empty() || std::isspace(static_cast<unsigned char>(v[0])) || *end || errno ||
            n < min || n > max)
          return "needs a whole number >= " + std::to_string(min) +
                 (max < INT32_MAX ? " and <= " + std::to_string(max) : "") + ", got '" + v + "'";
        return "";
      },
      "");
}

CLI::Validator seconds(bool positive) {
  return CLI::Validator(
      [positive](std::string &v) -> std::string {
        char *end = nullptr;
        const double s = std::strtod(v.c_str(), &end);
        if (v.empty() || *end || !(positive ? s > 0 : s >= 0) || s > 1e9)
          return std::string("needs a number of seconds ") + (positive ? "> 0" : ">= 0") +
                 ", got '" + v + "'";
        return "";
      },
      "");
}

CLI::Validator oneOf(std::vector<std::string> choices) {
  return CLI::Validator(
      [choices](std::string &v) -> std::string {
        if (std::find(choices.begin(), choices.end(), v) != choices.end())
          return "";
        std::string list;
        for (size_t i = 0; i < choices.size(); ++i)
          list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
        return "needs " + list + ", got '" + v + "'";
      },
      "");
}

CLI::Validator nonEmpty(const char *what) {
  return CLI::Validator(
      [what](std::string &v) { return v.empty() ? std::string("needs ") + what : ""; }, "");
}

CLI::Validator directory() {
  return CLI::Validator(
      [](std::string &v) -> std::string {
        std::error_code ec;
        return std::filesystem::is_directory(v, ec)
                   ? ""
                   : "needs a directory, and '" + v + "' is not one";
      },
      "");
}

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

// ---- the tables --------------------------------------------------------------------------

/// The values read as text and interpreted once all are known.
struct Raw {
  std::string mode;      ///< --mode
  std::string fmad;      ///< --fmad
  std::string metrics;   ///< --metrics
  std::string memory;    ///< --memory-limit
  std::string fromStart; ///< --profile-from-start
  std::string optLevel;  ///< -O
  std::set<std::string> emitKinds;
};

const char *kOptions = "options";
const char *kSandbox = "sandbox";
const char *kLaunches = "which launches are profiled";

/// An option given once per value (-I DIR -I DIR2), each value added to `values`.
CLI::Option *addRepeatable(CLI::App &app, const char *name, std::vector<std::string> &values,
                           const char *valueText, const std::string &description) {
  return app.add_option(name, values, description)
      ->option_text(valueText)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void addCompileOptions(CLI::App &app, Invocation &inv, Raw &raw) {
  kern::Options &o = inv.options;
  app.add_option("-O", raw.optLevel, "JIT optimisation level: -O0, -O1, -O2 (the default), -O3")
      ->option_text("N")
      ->check(oneOf({"0", "1", "2", "3"}))
      ->group(kOptions);
  addRepeatable(app, "-I", o.includePaths, "DIR",
                "also search DIR for #include \"x\" (after the file's own directory)\n"
                "and #include <x> (for headers that are not kern's own)")
      ->group(kOptions);
  addRepeatable(app, "-D", o.defines, "NAME[=VALUE]",
                "define the macro NAME (as VALUE, or 1) before the first line")
      ->group(kOptions);
  app.add_option("--fmad", raw.fmad,
                 "true (the default, as nvcc's): device code may fuse a multiply and\n"
                 "an add into one fma, rounded once; false: each is rounded")
      ->option_text("=BOOL")
      ->check(oneOf({"true", "false"}))
      ->group(kOptions);
}

void addDeviceOptions(CLI::App &app, Invocation &inv) {
  app.add_option("--device", inv.options.device,
                 "the GPU to model: g80, gt200, fermi, v100, a100, h100 (default h100);\n"
                 "several, comma-separated (g80,h100), run the program once on each\n"
                 "and print their counters side by side (as kern compare)")
      ->option_text("NAME")
      ->check(nonEmpty("a device name"))
      ->group(kOptions);
  app.add_option("--device-file", inv.options.deviceFile,
                 "the GPU to model, from a JSON profile (docs/devices.md)")
      ->option_text("F")
      ->check(nonEmpty("a file name"))
      ->group(kOptions);
}

void addFiles(CLI::App &app, Invocation &inv) {
  // The files come first, in no group: the usage line names them.
  app.add_option("files", inv.files)->group("");
}

/// kern run and kern annotate.
void defineRun(CLI::App &app, Invocation &inv, Raw &raw) {
  kern::Options &o = inv.options;
  addFiles(app, inv);
  app.add_option("--workers", o.workers,
                 "worker threads that run blocks and compile (default: one per\n"
                 "hardware thread)")
      ->option_text("N")
      ->check(wholeNumber(1, 65536))
      ->group(kOptions);
  app.add_option("--timeout", o.timeoutSeconds,
                 "stop a kernel that runs longer than S seconds, and host code that\n"
                 "runs longer than S seconds outside kernels (default: no limit)")
      ->option_text("S")
      ->check(seconds(false))
      ->group(kOptions);
  addDeviceOptions(app, inv);
  app.add_option("--regs", o.registersPerThread,
                 "registers per thread of every kernel (default: kern's estimate from\n"
                 "the kernel's variables)")
      ->option_text("N")
      ->check(wholeNumber(1, 255))
      ->group(kOptions);
  addCompileOptions(app, inv, raw);
  app.add_option("--mode", raw.mode,
                 "fast (the default of kern run and of the API): nothing counted or\n"
                 "checked; profile: count what a GPU would suffer and print a short\n"
                 "summary at the end (stderr); checked: see --checked. (The REPL's\n"
                 "default is profile; :mode there switches.) A program that calls\n"
                 "cudaEventElapsedTime is counted in any mode, quietly, so that its\n"
                 "kernels take their modelled time (docs/timing.md); clock() and\n"
                 "clock64() in kernels read a modelled SM clock in every mode")
      ->option_text("MODE")
      ->check(oneOf({"fast", "profile", "checked"}))
      ->group(kOptions);
  app.add_flag("--stats", o.stats,
               "count, and print a table after each launch, a summary and advice (stderr)")
      ->group(kOptions);
  app.add_flag("--time-compile", o.timeCompile,
               "print how long compiling took (stderr): the front end, then each\n"
               "module of native code (its kernels) by stage, and linking")
      ->group(kOptions);
  app.add_flag("--time-kernels", o.timeKernels,
               "print each launch's wall time on the host (stderr): what kern took to\n"
               "run its blocks, for benchmarks; not the modelled GPU time")
      ->group(kOptions);
  app.add_flag("--counters", o.counters,
               "count, and print a short summary at the end (stderr); = --mode profile")
      ->group(kOptions);
  app.add_option("--report", o.reportPath,
                 "count, and write every counter as JSON to F ('-': stderr)")
      ->option_text("F")
      ->check(nonEmpty("a file name"))
      ->group(kOptions);
  app.add_option("--counters-text", o.countersTextPath,
                 "count, and write the counters as stable text to F ('-': stderr)")
      ->option_text("F")
      ->check(nonEmpty("a file name"))
      ->group(kOptions);
  app.add_option("--metrics", raw.metrics,
                 "count, and list each profiled launch's metrics at the end (stderr),\n"
                 "as ncu --metrics does: Nsight Compute names (l1tex__t_sectors_pipe_\n"
                 "lsu_mem_global_op_ld.sum, ...) or kern's keys (global.load.sectors),\n"
                 "comma-separated")
      ->option_text("LIST")
      ->check(nonEmpty("a list of metric names"))
      ->group(kOptions);
  app.add_flag("--csv", o.csv,
               "count, and list them (all, or those of --metrics) as CSV, as ncu --csv")
      ->group(kOptions);
  app.add_option("--html", o.htmlPath,
                 "count, and write one self-contained HTML report to F: the source with\n"
                 "each line's counters and time, its accesses' lanes drawn (click a line),\n"
                 "occupancy graphs, the timeline and the advice")
      ->option_text("F")
      ->check(nonEmpty("a file name"))
      ->group(kOptions);
  app.add_option("--trace", o.tracePath,
                 "write a Chrome trace-event file (Perfetto, chrome://tracing) to F")
      ->option_text("F")
      ->check(nonEmpty("a file name"))
      ->group(kOptions);
  app.add_flag("--checked", o.checked,
               "also report shared-memory data races between barriers and reads of\n"
               "never-written global memory, as errors (exit code 3); slower")
      ->group(kOptions);
  app.add_flag("--no-files")
      ->description("the program may not open or remove files, read stdin or the\n"
                    "environment (fopen returns NULL with errno EACCES; by default it\n"
                    "may, as a native one)")
      ->group(kOptions);
  app.add_flag("-h,--help")->description("this help")->group(kOptions);

  app.add_flag("--sandbox", o.sandbox.enabled,
               "compile and run in a child process under seccomp (no network, no new\n"
               "processes, no ptrace...) and Landlock: the program reads only its\n"
               "own directory, the -I directories and --allow-read ones, writes\n"
               "only in --output-dir, and sees no environment; other paths fail\n"
               "with EACCES")
      ->group(kSandbox);
  addRepeatable(app, "--allow-read", o.sandbox.allowRead, "DIR",
                "the program may also read beneath DIR (repeatable)")
      ->check(directory())
      ->group(kSandbox);
  app.add_option("--output-dir", o.sandbox.outputDir,
                 "the one directory where it may create, write and remove files")
      ->option_text("DIR")
      ->check(directory())
      ->group(kSandbox);
  app.add_option("--memory-limit", raw.memory,
                 "its address-space limit (512M, 2G...): malloc beyond it returns\n"
                 "NULL with a note; a run that fails for it exits with 5")
      ->option_text("SIZE")
      ->group(kSandbox);
  app.add_option("--time-limit", o.sandbox.cpuSeconds,
                 "its CPU-time limit in seconds (compilation and every thread count);\n"
                 "over it the run is stopped and exits with 6 (--timeout is the wall\n"
                 "clock)")
      ->option_text("S")
      ->check(seconds(true))
      ->group(kSandbox);

  app.add_option("-k,--kernel-name", o.kernelName,
                 "only launches of kernel NAME (exact); regex:PATTERN for the kernels\n"
                 "in whose name the regular expression PATTERN matches")
      ->option_text("NAME")
      ->check(nonEmpty("a kernel name"))
      ->group(kLaunches);
  app.add_option("--launch-skip", o.launchSkip,
                 "let the first N launches that match the name go unprofiled\n"
                 "(default 0)")
      ->option_text("N")
      ->check(wholeNumber(0, int64_t(1e15)))
      ->group(kLaunches);
  app.add_option("--launch-count", o.launchCount,
                 "profile at most N launches after those (default: no limit)")
      ->option_text("N")
      ->check(wholeNumber(1, int64_t(1e15)))
      ->group(kLaunches);
  app.add_option("--profile-from-start", raw.fromStart,
                 "off: profile nothing until the program calls cudaProfilerStart()\n"
                 "(default on); cudaProfilerStop() pauses either way")
      ->option_text("on|off")
      ->check(oneOf({"on", "off"}))
      ->group(kLaunches);
}

void defineCheck(CLI::App &app, Invocation &inv, Raw &raw) {
  addFiles(app, inv);
  addDeviceOptions(app, inv);
  addCompileOptions(app, inv, raw);
  app.add_flag("--resource-usage", inv.resourceUsage,
               "print each kernel's registers, shared memory and stack frame,\n"
               "as nvcc --resource-usage does (registers: kern's estimate)")
      ->group(kOptions);
  app.add_flag("-h,--help")->description("this help")->group(kOptions);
}

void defineEmit(CLI::App &app, Invocation &inv, Raw &raw) {
  addFiles(app, inv);
  const std::pair<const char *, const char *> kinds[] = {
      {"ir", "Kern IR (per-thread, structured)"},
      {"llvm", "LLVM IR after optimisation (warp functions)"},
      {"asm", "native assembly"},
      {"module", "a module image that the driver API's cuModuleLoad and\n"
                 "cuModuleLoadData load, where a CUDA build loads the .cubin,\n"
                 ".fatbin or .ptx that nvcc made (FILE's source, its -I and -D)"}};
  for (const auto &[kind, what] : kinds)
    app.add_flag_callback(
           std::string("--") + kind,
           [&raw, kind = std::string(kind)] { raw.emitKinds.insert(kind); }, what)
        ->group(kOptions);
  app.add_option("-k,--kernel-name", inv.emitKernel, "only that kernel's (or function's) part")
      ->option_text("KERNEL")
      ->check(nonEmpty("a kernel name"))
      ->group(kOptions);
  app.add_option("-o", inv.emitOut, "write to OUT instead of standard output")
      ->option_text("OUT")
      ->check(nonEmpty("a file name"))
      ->group(kOptions);
  app.add_option("--mode", raw.mode, "the code of that mode (default fast)")
      ->option_text("fast|profile|checked")
      ->check(oneOf({"fast", "profile", "checked"}))
      ->group(kOptions);
  addDeviceOptions(app, inv);
  addCompileOptions(app, inv, raw);
  app.add_flag("-h,--help")->description("this help")->group(kOptions);
}

void defineDevices(CLI::App &app, Invocation &inv) {
  app.add_flag("--json", inv.json,
               "print them as a JSON array, each in the format of a --device-file\n"
               "(docs/devices.md)")
      ->group(kOptions);
  app.add_flag("-h,--help")->description("this help")->group(kOptions);
}

void defineOccupancy(CLI::App &app, Invocation &inv) {
  addDeviceOptions(app, inv);
  app.add_option("--threads", inv.threads, "threads per block (required)")
      ->option_text("T")
      ->check(wholeNumber(1, INT32_MAX))
      ->group(kOptions);
  app.add_option("--regs", inv.regs, "registers per thread (default 32)")
      ->option_text("R")
      ->check(wholeNumber(0, 255))
      ->group(kOptions);
  app.add_option("--smem", inv.smem,
                 "bytes of shared memory per block, static + dynamic (default 0)")
      ->option_text("S")
      ->check(wholeNumber(0, INT32_MAX))
      ->group(kOptions);
  app.add_flag("-h,--help")->description("this help")->group(kOptions);
}

void defineRepl(CLI::App &app, Invocation &inv, Raw &raw) {
  kern::Options &o = inv.options;
  addDeviceOptions(app, inv);
  app.add_option("--workers", o.workers, "worker threads (default: one per hardware thread)")
      ->option_text("N")
      ->check(wholeNumber(1, 65536))
      ->group(kOptions);
  app.add_option("--timeout", o.timeoutSeconds,
                 "stop an input that runs longer than S seconds (default 10; at the\n"
                 "prompt, :timeout changes it and :timeout 0 lifts it)")
      ->option_text("S")
      ->check(seconds(false))
      ->group(kOptions);
  app.add_option("--mode", raw.mode, "the mode of the first inputs (default profile)")
      ->option_text("fast|profile|checked")
      ->check(oneOf({"fast", "profile", "checked"}))
      ->group(kOptions);
  addRepeatable(app, "-I", o.includePaths, "DIR",
                "a directory that #include searches (as :include-path)")
      ->group(kOptions);
  addRepeatable(app, "-D", o.defines, "NAME[=VALUE]", "define the macro NAME for every input")
      ->group(kOptions);
  app.add_option("-f", inv.script.file, "read the inputs from FILE, as a script")
      ->option_text("FILE")
      ->check(nonEmpty("a file name"))
      ->group(kOptions);
  app.add_flag("--keep-going", inv.script.keepGoing,
               "a script runs every input after an error, and exits with the\n"
               "first error's code at the end")
      ->group(kOptions);
  app.add_flag("-h,--help")->description("this help")->group(kOptions);
}

HelpText helpText(const std::string &cmd) {
  HelpText t;
  if (cmd == "run" || cmd == "annotate" || cmd == "compare" || cmd == "explain") {
    t.usage = cmd == "run"        ? "usage: kern run FILE... [options] [-- ARGS...]"
              : cmd == "annotate" ? "usage: kern annotate FILE... [options] [-- ARGS...]"
              : cmd == "explain"  ? "usage: kern explain FILE:LINE [FILE...] [options] [-- ARGS...]"
                                  : "usage: kern compare FILE... [--device A,B...] [options] "
                                    "[-- ARGS...]";
    t.about = cmd == "run" ? "Compiles the source FILEs as one program and runs its main; ARGS "
                             "reach main's argv."
              : cmd == "annotate"
                  ? "Runs the program with counters and prints its source with each "
                    "line's counters\nbeside it; the program's own output goes to stderr."
              : cmd == "explain"
                  ? "Runs the program with counters and draws LINE of FILE (the first "
                    "file) lane by lane:\nfor each memory access, the first warp that ran it "
                    "and the worst, each lane's bank\nand the step that serves it (shared) or "
                    "the transaction (global), by the GPU's rules;\nfor each branch, the lanes "
                    "of the first warp that split. The program's own output\ngoes to stderr."
                  : "Compiles and runs the program once on each device of --device (default: "
                    "every\nbuilt-in one), counting every launch; prints the program's output "
                    "(once when\nevery device printed the same, else each device's) and, on "
                    "stderr, one table\nof their counters with a column per device. The same "
                    "as kern run --device A,B.";
    t.groupNotes[kOptions] =
        cmd == "compare"
            ? "  Every launch is counted; the reports of one run (--report, --trace,\n"
              "  --counters-text, --metrics, --csv) and --sandbox take one device.\n"
            : "  Nothing is counted (the fast mode) and nothing extra is printed without one\n"
              "  of the options --mode, --stats, --counters, --report, --counters-text,\n"
              "  --metrics or --csv.\n";
    t.groupNotes[kSandbox] =
        "  run an untrusted program in a child process confined by the kernel\n"
        "  (docs/sandbox.md). A forbidden system call or a crash of the child is reported\n"
        "  and exits with 4; the caller is never harmed. Each of these options needs the\n"
        "  first, --sandbox.\n";
    t.groupNotes[kLaunches] =
        "  as Nsight Compute's options; each one implies --mode profile and is a usage\n"
        "  error with --mode fast; by default every launch of a counting run is profiled.\n"
        "  Launches that are not profiled run the fast kernel, count nothing and have no\n"
        "  table of --stats; the summary, the advice and the counters cover the profiled\n"
        "  launches only.\n";
    t.footer = kRunExitCodes;
  } else if (cmd == "check") {
    t.usage = "usage: kern check [options] FILE...";
    t.about = "Compiles the FILEs as one program and prints its diagnostics; runs nothing.";
    t.footer = kCompileExitCodes;
  } else if (cmd == "emit") {
    t.usage = "usage: kern emit --ir|--llvm|--asm|--module [-k KERNEL] [options] [-o OUT] FILE";
    t.about = "Prints (or writes to OUT) what kern makes of the program.";
    t.footer = kCompileExitCodes;
  } else if (cmd == "devices") {
    t.usage = "usage: kern devices [--json]";
    t.about = "Lists the built-in device profiles.";
    t.footer = "\nexit codes: 0 ok, 2 usage error.\n";
  } else if (cmd == "occupancy") {
    t.usage = "usage: kern occupancy --threads T [options]";
    t.about = "The occupancy calculator: how many blocks of this configuration an SM holds,\n"
              "what limits them, and the block sizes that would do better.";
    t.footer = "\nexit codes: 0 ok, 2 usage error (or a block the device cannot run).\n";
  } else if (cmd == "repl") {
    t.usage = "usage: kern [repl] [--device NAME] [--workers N] [--timeout S]\n"
              "                  [--mode fast|profile|checked] [-I DIR]... "
              "[-D NAME[=VALUE]]... [-f FILE]\n"
              "                  [--keep-going]";
    t.about =
        R"(The interactive prompt: define kernels, declare host variables, allocate, copy, launch
with <<< >>>, and print expressions (an input without ';'). :help at the prompt lists
the meta-commands (:device, :mode, :stats, :annotate, :emit, :load, :include-path,
:reset, :quit).
The REPL profiles every launch by default (--mode profile); --mode fast, or :mode fast
at the prompt, stops counting for the following launches; --mode checked (:mode checked)
reports shared-memory races and reads of uninitialised memory.
History is kept in $KERN_HISTORY (default ~/.kern_history). Ctrl-C stops the input
that runs (the session goes on) or drops the line being typed.
Standard input that is not a terminal, or -f FILE, is read as a script, without prompts.
A script stops at its first error and kern exits with that error's code (1 compile
error, 3 runtime error); --keep-going runs every input and exits with the first error's
code at the end.)";
    t.footer = "";
  }
  return t;
}

/// The command's table, with its help formatter.
std::unique_ptr<CLI::App> commandTable(const std::string &cmd, Invocation &inv, Raw &raw) {
  auto app = std::make_unique<CLI::App>("", "kern " + cmd);
  app->set_help_flag(); // kern's own -h/--help, answered before parsing
  app->allow_extras();  // unknown options are reported by kern, with a suggestion
  app->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app->formatter(std::make_shared<HelpFormatter>(helpText(cmd)));
  if (cmd == "run" || cmd == "annotate" || cmd == "compare" || cmd == "explain")
    defineRun(*app, inv, raw);
  else if (cmd == "check")
    defineCheck(*app, inv, raw);
  else if (cmd == "emit")
    defineEmit(*app, inv, raw);
  else if (cmd == "devices")
    defineDevices(*app, inv);
  else if (cmd == "occupancy")
    defineOccupancy(*app, inv);
  else
    defineRepl(*app, inv, raw);
  return app;
}

// ---- usage errors ------------------------------------------------------------------------

/// The usage of `cmd`: its help's first paragraph.
std::string usageOf(const std::string &cmd) {
  const std::string usage = helpText(cmd).usage;
  return usage + "\n(kern " + cmd + " --help lists its options)\n";
}

/// Every spelling of an option of `app` (for suggestions).
std::vector<std::string> optionNames(const CLI::App &app) {
  std::vector<std::string> names;
  for (const CLI::Option *opt : app.get_options()) {
    for (const std::string &l : opt->get_lnames())
      names.push_back("--" + l);
    for (const std::string &s : opt->get_snames())
      names.push_back("-" + s);
  }
  return names;
}

/// CLI11's message for a parse error in kern's words: "--workers: needs ..." reads "--workers
/// needs ...", and "-I: 1 required TEXT missing" reads "-I needs a value" (named as typed:
/// a missing value is the last argument's).
std::string parseErrorMessage(const CLI::ParseError &e, const CLI::App &app,
                              const std::vector<std::string> &args) {
  std::string message = e.what();
  const size_t colon = message.find(": ");
  if (colon == std::string::npos)
    return message;
  const std::string option = message.substr(0, colon);
  if (dynamic_cast<const CLI::ArgumentMismatch *>(&e)) {
    const bool typed = !args.empty() && app.get_option_no_throw(args.back()) &&
                       app.get_option_no_throw(args.back()) == app.get_option_no_throw(option);
    return (typed ? args.back() : option) + " needs a value";
  }
  return option + " " + message.substr(colon + 2);
}

/// Sets options.mode from --mode (empty if not given) and checks it against the options that
/// count (`counting`: the last of --stats, --counters, --report, --counters-text, --metrics,
/// --csv) and filter launches (`filter`: the last of -k, --launch-skip...). Those imply
/// profile mode; --mode fast contradicts them, and --mode checked counts only with a counting
/// option. Returns the error, or "".
std::string applyMode(kern::Options &opts, const std::string &mode, const std::string &counting,
                      const std::string &filter, const std::string &countingCommand) {
  const bool annotate = !countingCommand.empty();
  if (mode == "fast") {
    const std::string clash = annotate            ? countingCommand
                              : !counting.empty() ? counting
                              : !filter.empty()   ? filter
                              : opts.checked      ? std::string("--checked")
                                                  : std::string();
    if (!clash.empty())
      return "--mode fast counts and checks nothing, so it cannot go with " +
             (clash == countingCommand ? "'kern " + clash + "'" : clash) +
             (filter == clash ? " (which selects launches to profile)" : "");
    opts.mode = kern::Mode::Fast;
  } else if (mode == "profile") {
    opts.mode = kern::Mode::Profile;
  } else if (mode == "checked") {
    if (!filter.empty() && counting.empty() && !annotate)
      return filter + " selects launches to profile, but --mode checked counts nothing (add " +
             "--counters or --stats to count as well)";
    opts.mode = kern::Mode::Checked;
  }
  return "";
}

/// A header named as a translation unit: it belongs in an #include.
bool isHeaderName(const std::string &file) {
  for (const std::string e : {".h", ".cuh", ".hpp", ".hh", ".hxx"})
    if (file.size() > e.size() && file.compare(file.size() - e.size(), e.size(), e) == 0)
      return true;
  return false;
}

/// The checks of run, annotate, check and emit that look at several options; "" or the error.
std::string checkProgramCommand(const std::string &cmd, const CLI::App &app, Invocation &inv,
                                const Raw &raw) {
  kern::Options &o = inv.options;
  if (cmd == "explain") { // FILE:LINE first
    if (inv.files.empty())
      return "explain needs FILE:LINE, the line to draw";
    std::string &first = inv.files[0];
    const size_t colon = first.rfind(':');
    char *end = nullptr;
    const unsigned long line =
        colon == std::string::npos ? 0 : std::strtoul(first.c_str() + colon + 1, &end, 10);
    if (line == 0 || line > UINT32_MAX || *end != '\0')
      return "explain needs FILE:LINE, the line to draw (a number from 1), got '" + first + "'";
    first.resize(colon);
    o.explainLine = static_cast<uint32_t>(line);
    if (o.sandbox.enabled)
      return "kern explain does not run in the sandbox";
  }
  std::set<std::string> seen;
  for (const std::string &f : inv.files) {
    if (isHeaderName(f))
      return "'" + f + "' is a header: #include it from a source file";
    if (!seen.insert(f).second)
      return "'" + f + "' is given twice";
  }
  if (inv.files.empty())
    return "no input file";
  if (inv.files.size() > 1 && seen.count("-"))
    return "'-' (standard input) must be the only input file";
  if (!raw.optLevel.empty())
    o.optLevel = raw.optLevel[0] - '0';
  if (!raw.fmad.empty())
    o.fmad = raw.fmad == "true";
  if (cmd == "emit") {
    if (raw.emitKinds.empty())
      return "emit needs one of --ir, --llvm, --asm, --module";
    if (raw.emitKinds.size() > 1)
      return "emit prints one kind: give one of --ir, --llvm, --asm, --module";
    inv.emitKind = *raw.emitKinds.begin();
    if (inv.emitKind == "module" && !inv.emitKernel.empty())
      return "emit --module writes the whole module; -k selects a kernel of --ir, --llvm or "
             "--asm";
    if (inv.emitKind == "module" && inv.files.size() != 1)
      return "emit --module takes one source file (the module's)";
    // The code of a mode: profile compiles the counter hooks in, checked the checks.
    o.counters = raw.mode == "profile";
    o.checked = raw.mode == "checked";
    return "";
  }
  if (cmd == "check")
    return "";

  // run and annotate: the last option that counts or selects launches (for messages).
  static const std::set<std::string> counting = {
      "--stats", "--counters", "--report", "--html", "--counters-text", "--metrics", "--csv"};
  static const std::set<std::string> filtering = {"--kernel-name", "--launch-skip",
                                                  "--launch-count", "--profile-from-start"};
  std::string lastCounting, lastFilter, lastSandbox;
  for (const CLI::Option *opt : app.parse_order()) {
    const std::string name = opt->get_name();
    if (counting.count(name))
      lastCounting = name;
    if (filtering.count(name))
      lastFilter = name;
    if (opt->get_group() == kSandbox && name != "--sandbox")
      lastSandbox = name;
  }
  if (!raw.metrics.empty()) {
    for (size_t at = 0; at <= raw.metrics.size();) {
      const size_t comma = std::min(raw.metrics.find(',', at), raw.metrics.size());
      if (comma > at)
        o.metrics.push_back(raw.metrics.substr(at, comma - at));
      at = comma + 1;
    }
    if (std::string error; !kern::checkMetrics(o.metrics, error))
      return error;
  }
  if (!raw.memory.empty() && !parseSize(raw.memory, o.sandbox.memoryLimitBytes))
    return "--memory-limit needs a size of 1M or more (512M, 2G...), got '" + raw.memory + "'";
  if (!raw.fromStart.empty())
    o.profileFromStart = raw.fromStart == "on";
  if (app.count("--no-files"))
    o.allowFiles = false;
  const std::string countingCommand = cmd == "annotate" || cmd == "explain" ? cmd : "";
  if (std::string error = applyMode(o, raw.mode, lastCounting, lastFilter, countingCommand);
      !error.empty())
    return error;
  if (!lastSandbox.empty() && !o.sandbox.enabled)
    return lastSandbox + " needs --sandbox";
  if (o.sandbox.enabled && app.count("--no-files"))
    return "--no-files and --sandbox: in the sandbox, its directories decide which files the "
           "program may use";
  return "";
}

/// The devices of a comparison (kern compare, or --device A,B): each checked; "" or the error.
std::string splitDevices(const std::string &cmd, Invocation &inv, const Raw &raw) {
  const std::string &list = inv.options.device;
  if (raw.mode == "fast")
    return "--mode fast counts nothing, and a comparison counts every launch";
  if (cmd != "run" && cmd != "compare")
    return "'kern " + cmd + "' takes one device, not '" + list + "'";
  for (size_t at = 0; at <= list.size() && !list.empty();) {
    const size_t comma = std::min(list.find(',', at), list.size());
    inv.devices.push_back(list.substr(at, comma - at));
    at = comma + 1;
  }
  if (list.empty()) { // kern compare without --device: every built-in profile
    std::istringstream lines(kern::deviceList());
    for (std::string line; std::getline(lines, line);)
      inv.devices.push_back(line.substr(0, line.find(' ')));
  }
  std::set<std::string> seen;
  for (const std::string &d : inv.devices) {
    if (d.empty())
      return "--device '" + list + "' has an empty name";
    if (!seen.insert(d).second)
      return "--device '" + list + "' names '" + d + "' twice";
    kern::Options one;
    one.device = d;
    if (std::string error; !kern::checkDevice(one, error))
      return error;
  }
  if (inv.files.size() == 1 && inv.files[0] == "-")
    return "a comparison runs the program once per device: give its files, not '-'";
  inv.options.device.clear();
  return "";
}

} // namespace

int usageError(const std::string &message, const std::string &cmd) {
  if (!message.empty())
    std::fprintf(stderr, "kern: %s\n", message.c_str());
  std::fputs(cmd.empty() ? kUsage : usageOf(cmd).c_str(), stderr);
  return kExitUsage;
}

int parseCommandLine(int argc, char **argv, Invocation &inv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::string cmd = args.empty() ? "repl" : args[0];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::printf("%s", kUsage);
    return 0;
  }
  if (cmd == "--version") {
    std::printf("kern %s\n", KERN_VERSION_STRING);
    return 0;
  }
  if (std::find(kCommands.begin(), kCommands.end(), cmd) == kCommands.end())
    return usageError("unknown command '" + cmd + "'" + kern::didYouMean(cmd, kCommands));
  inv.command = cmd;
  if (!args.empty())
    args.erase(args.begin());
  // The program's own arguments after "--" stay as they are.
  if (auto dashes = std::find(args.begin(), args.end(), "--");
      dashes != args.end() &&
      (cmd == "run" || cmd == "annotate" || cmd == "compare" || cmd == "explain")) {
    inv.programArgs.assign(dashes + 1, args.end());
    args.erase(dashes, args.end());
  }

  // Defaults of the command line that differ from the API's.
  inv.options.color = isatty(STDERR_FILENO);
  inv.options.allowFiles = true; // a program run by kern may use files, as a native one

  Raw raw;
  const std::unique_ptr<CLI::App> app = commandTable(cmd, inv, raw);
  if (std::find_if(args.begin(), args.end(),
                   [](const std::string &a) { return a == "-h" || a == "--help"; }) != args.end()) {
    std::printf("%s", app->help().c_str());
    return 0;
  }
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend()); // CLI11 pops from the back
    app->parse(reversed);
  } catch (const CLI::ParseError &e) {
    return usageError(parseErrorMessage(e, *app, args), cmd);
  }
  for (const std::string &extra : app->remaining()) {
    if (extra.size() > 1 && extra[0] == '-') {
      const size_t eq = extra.find('=');
      const std::string name = extra.rfind("--", 0) == 0 ? extra.substr(0, eq) : extra;
      std::string hint = kern::didYouMean(name, optionNames(*app));
      if (hint.empty() && cmd != "run" && cmd != "annotate") {
        // An option of kern run given to another command: say whose it is.
        Invocation other;
        Raw unused;
        const std::vector<std::string> runs = optionNames(*commandTable("run", other, unused));
        if (std::find(runs.begin(), runs.end(), name) != runs.end())
          hint = " (it is an option of 'kern run')";
      }
      return usageError("unknown option '" + extra + "' for '" + cmd + "'" + hint, cmd);
    }
    return usageError("'" + cmd + "' takes no argument '" + extra + "'", cmd);
  }

  std::string error;
  if (cmd == "repl") {
    inv.replMode = raw.mode == "fast"      ? kern::Mode::Fast
                   : raw.mode == "checked" ? kern::Mode::Checked
                                           : kern::Mode::Profile;
  } else if (cmd == "occupancy") {
    if (inv.threads < 0)
      error = "occupancy needs --threads";
  } else if (cmd != "devices") {
    error = checkProgramCommand(cmd, *app, inv, raw);
  }
  if (error.empty() && (cmd == "compare" || inv.options.device.find(',') != std::string::npos))
    error = splitDevices(cmd, inv, raw);
  else if (error.empty() && cmd != "devices")
    kern::checkDevice(inv.options, error);
  if (error.empty() && (cmd == "run" || cmd == "annotate" || cmd == "explain"))
    kern::checkLaunchFilter(inv.options, error);
  if (!error.empty())
    return usageError(error, cmd);
  return kRunCommand;
}
