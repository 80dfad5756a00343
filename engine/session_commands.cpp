// The REPL's meta-commands (:help, :mode, :stats, :annotate, :emit, :load, ...), the launch
// statistics they show.
#include "engine/session_impl.h"

#include "runtime/symbols.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kern {

namespace {

const char *const kHelp =
    R"(Type C/CUDA at the prompt; an input runs when its braces and parentheses close.
  __global__ void k(...) { ... }   define (or redefine) a kernel; __device__ functions,
                                   structs, typedefs and #defines are kept the same way
  float *d; int n = 8;             declare host variables: they keep their values
  cudaMalloc(&d, n * 4);           statements run once, in order
  k<<<1, n>>>(d, n);               launch
  n * 2                            an expression without ';' prints its value; a device
                                   pointer prints its first elements
Meta-commands:
  :help                 this text
  :device NAME          model another GPU (starts a new device: variables are reset)
  :mode [fast|profile|checked]  show the mode, or switch it for the following launches:
                        profile (the default) counts every launch, fast counts nothing,
                        checked reports races and uninitialised reads
  :timeout [SECONDS]    show or set the time an input may run (default 10; 0: none)
  :stats [N]            the counters of the last launch, or of launch N (from 0), and
                        the advisor's findings on it
  :annotate KERNEL      the kernel's source with the counters of its last launch
  :html FILE            write the HTML report of the last input's launches to FILE
  :explain KERNEL LINE  draw LINE of the kernel (as :annotate numbers it) lane by lane at
                        each following launch: banks and steps, transactions, branch
                        sides; :explain off stops
  :emit ir|llvm|asm KERNEL   the kernel's Kern IR, LLVM IR or assembly
  :load FILE...         evaluate files in order, in the session's one scope (a
                        file's main, if any, runs once)
  :include-path [DIR]   add DIR to the directories #include searches (as -I), or list them
  :source               the program the session has accumulated
  :reset                forget everything and start a new device
  :quit                 leave (also Ctrl-D)
)";

} // namespace

void Session::Impl::keepStats(size_t i) {
  if (statsByLaunch.size() <= i)
    statsByLaunch.resize(i + 1);
  statsByLaunch[i] = lastStats;
}

void Session::Impl::onLaunchEnd(size_t i) {
  if (!current || !current->module)
    return;
  const runtime::LaunchRecord &rec = rt->launches()[i];
  if (!rec.profiled) {
    auto dim = [](const uint32_t d[3]) {
      char buf[40];
      if (d[1] == 1 && d[2] == 1)
        std::snprintf(buf, sizeof buf, "%u", d[0]);
      else
        std::snprintf(buf, sizeof buf, "(%u,%u,%u)", d[0], d[1], d[2]);
      return std::string(buf);
    };
    lastStats = "== launch " + std::to_string(i) + ": " + rec.kernel + "<<<" + dim(rec.grid) +
                ", " + dim(rec.block) + ">>> was not profiled" +
                (rec.faulted          ? " (it faulted: a launch that faulted keeps no counters)"
                 : mode == Mode::Fast ? " (fast mode: :mode profile counts the following launches)"
                                      : "") +
                "\n";
    keepStats(i);
    return;
  }
  runtime::ReportInput report;
  report.rt = rt.get();
  report.program = "session";
  report.source = current->sources.fileText(0);
  Program::Impl *p = current.get();
  report.sites = runtime::siteTable(p->image());
  lastStats = runtime::launchStatsTable(report, i);
  for (const std::string &finding : runtime::adviseLaunch(report, i))
    lastStats += relocate(finding) + "\n";
  keepStats(i);
  if (rec.kernel == explainKernel && explainProgramLine() != 0) {
    // The lane maps of the watched line, named as the user knows it, then a fresh capture.
    std::string maps = runtime::explainLine(report, explainProgramLine(), i);
    const size_t body = maps.find("\n\n");
    out(maps.empty() ? "kern: line " + std::to_string(explainLine) + " of " + explainKernel +
                           " ran nothing this launch\n"
                     : "== :explain " + explainKernel + " " + std::to_string(explainLine) +
                           ", launch " + std::to_string(i) + " on " + rt->device().name + "\n" +
                           relocate(maps.substr(body + 2)));
  }
  // Per-line counters of the kernel's definition, while its module's sites are at hand.
  if (i >= rt->counters().launchCount())
    return;
  const runtime::LaunchCounters &lc = rt->counters().launch(i);
  for (size_t k = 0; k < itemLines.size(); ++k) {
    const Item &item = items[itemLines[k].second];
    if (item.kind != ItemKind::Definition || item.key != rec.kernel)
      continue;
    const uint32_t first = itemLines[k].first;
    const uint32_t count =
        static_cast<uint32_t>(std::count(item.text.begin(), item.text.end(), '\n')) + 1;
    Annotation a;
    a.text = item.text;
    for (size_t s = 1; s < lc.sites.size() && s < p->module->sites.size(); ++s) {
      const uint32_t line = p->module->sites[s].loc.line;
      if (line >= first && line < first + count)
        a.lines[line - first + 1] += lc.sites[s];
    }
    annotations[rec.kernel] = std::move(a);
  }
}

uint32_t Session::Impl::explainProgramLine() const {
  if (explainKernel.empty())
    return 0;
  for (const auto &[first, index] : itemLines) {
    const Item &item = items[index];
    if (item.kind != ItemKind::Definition || item.key != explainKernel)
      continue;
    const auto lines =
        static_cast<uint32_t>(std::count(item.text.begin(), item.text.end(), '\n')) + 1;
    return explainLine <= lines ? first + explainLine - 1 : 0;
  }
  return 0;
}

Session::EvalResult Session::Impl::meta(const std::string &line) {
  Session::EvalResult r;
  std::istringstream in(line);
  std::string cmd, arg, arg2;
  in >> cmd >> arg >> arg2;
  auto usage = [&](const std::string &msg) {
    r.status = Status::UsageError;
    r.diagnostics = msg + "\n";
    err(r.diagnostics);
    return r;
  };
  if (cmd == ":help" || cmd == ":h" || cmd == ":?") {
    out(kHelp);
  } else if (cmd == ":quit" || cmd == ":q" || cmd == ":exit") {
    r.quit = true;
  } else if (cmd == ":reset") {
    resetAll();
    out("session reset\n");
  } else if (cmd == ":source") {
    std::string text;
    for (size_t i = 1; i < items.size(); ++i)
      text += items[i].text + "\n";
    out(text);
  } else if (cmd == ":device") {
    if (arg.empty())
      return usage(":device needs a name (" + trimSpace(deviceList()) + ")");
    Options probe = options;
    probe.device = arg;
    probe.deviceFile.clear();
    std::string error;
    if (!checkDevice(probe, error))
      return usage("kern: " + error);
    options.device = arg;
    options.deviceFile.clear();
    rt.reset(); // a new device: variables start again from their initial values
    lastStats.clear();
    statsByLaunch.clear();
    out("device " + arg + " (variables were reset: a new device has new memory)\n");
  } else if (cmd == ":timeout") {
    char secs[32];
    if (arg.empty()) {
      std::snprintf(secs, sizeof secs, "%g", inputTimeout);
      out(inputTimeout > 0 ? std::string("timeout ") + secs + " s per input\n"
                           : "no timeout (an input runs until it ends or Ctrl-C)\n");
      return r;
    }
    char *end = nullptr;
    const double v = std::strtod(arg.c_str(), &end);
    if (!arg2.empty() || !end || *end || !(v >= 0) || v > 1e9)
      return usage("usage: :timeout [SECONDS] (0: none)");
    inputTimeout = v;
    if (rt)
      rt->setTimeout(v);
    std::snprintf(secs, sizeof secs, "%g", v);
    out(v > 0 ? std::string("timeout ") + secs + " s per input\n" : "no timeout\n");
  } else if (cmd == ":mode") {
    if (arg.empty()) {
      out(std::string("mode ") +
          (mode == Mode::Fast      ? "fast"
           : mode == Mode::Checked ? "checked"
                                   : "profile") +
          "\n");
      return r;
    }
    if (!arg2.empty() || (arg != "fast" && arg != "profile" && arg != "checked"))
      return usage("usage: :mode [fast|profile|checked]");
    setMode(arg == "fast" ? Mode::Fast : arg == "checked" ? Mode::Checked : Mode::Profile);
    out("mode " + arg +
        (arg == "fast"      ? " (the following launches count nothing)\n"
         : arg == "checked" ? " (the following launches report shared-memory races and reads of "
                              "uninitialised memory, and count nothing; memory allocated "
                              "before counts as written)\n"
                            : " (the following launches are counted)\n"));
  } else if (cmd == ":stats") {
    if (arg.empty()) {
      out(lastStats.empty() ? "no launch yet\n" : lastStats);
    } else {
      char *end = nullptr;
      errno = 0;
      const unsigned long long n = std::strtoull(arg.c_str(), &end, 10);
      if (arg[0] == '-' || !end || *end || errno || n >= statsByLaunch.size())
        return usage(statsByLaunch.empty()
                         ? "no launch yet"
                         : "no launch '" + arg + "': the launches so far are 0 to " +
                               std::to_string(statsByLaunch.size() - 1));
      out(statsByLaunch[n].empty() ? "== launch " + arg + " ran before the session's last :reset\n"
                                   : statsByLaunch[n]);
    }
  } else if (cmd == ":annotate") {
    auto it = annotations.find(arg);
    if (arg.empty() || it == annotations.end())
      return usage(arg.empty() ? ":annotate needs a kernel name"
                               : "no launch of '" + arg + "' yet");
    std::istringstream src(it->second.text);
    std::string text, codeLine;
    for (uint32_t n = 1; std::getline(src, codeLine); ++n) {
      std::string note;
      auto c = it->second.lines.find(n);
      if (c != it->second.lines.end()) {
        const runtime::SiteCounters &s = c->second;
        auto add = [&note](const std::string &k, uint64_t v) {
          if (v)
            note += (note.empty() ? "" : "  ") + k + " " + std::to_string(v);
        };
        add("instr", s.warpInstructions);
        add("branches", s.branchesExecuted);
        add("divergent", s.branchesDivergent);
        add("gmem-req", s.globalTotal().requests);
        add("gmem-trans", s.globalTotal().transactions);
        add("smem-req", s.sharedTotal().requests);
        add("bank-conflicts", s.sharedTotal().conflicts());
        add("atomics", s.atomicsExecuted);
        add("barriers", s.barriersExecuted);
      }
      char num[16];
      std::snprintf(num, sizeof num, "%3u | ", n);
      text += num + codeLine + (note.empty() ? "" : "    // " + note) + "\n";
    }
    out(text);
  } else if (cmd == ":html") {
    if (arg.empty())
      return usage("usage: :html FILE");
    if (htmlLaunches.empty() || !rt || !current || !current->module)
      return usage("no launch yet: :html draws the launches of the last input that made any");
    runtime::ReportInput report;
    report.rt = rt.get();
    report.program = "session";
    report.source = current->sources.fileText(0);
    report.sites = runtime::siteTable(current->image());
    const std::string page = runtime::htmlReport(report, htmlLaunches);
    std::ofstream file(arg, std::ios::binary);
    file << page;
    if (!file)
      return usage("kern: cannot write '" + arg + "'");
    out("kern: wrote " + arg + " (launch" + (htmlLaunches.size() == 1 ? " " : "es ") +
        std::to_string(htmlLaunches.front()) +
        (htmlLaunches.size() == 1 ? "" : " to " + std::to_string(htmlLaunches.back())) +
        (mode == Mode::Profile ? "" : "; counted only in profile mode") + ")\n");
  } else if (cmd == ":explain") {
    if (arg == "off") {
      explainKernel.clear();
      explainLine = 0;
      if (rt)
        rt->setExplainLine(0);
      out("kern: :explain is off\n");
      return r;
    }
    char *end = nullptr;
    const unsigned long n = arg2.empty() ? 0 : std::strtoul(arg2.c_str(), &end, 10);
    if (arg.empty() || n == 0 || *end != '\0' || n > UINT32_MAX)
      return usage("usage: :explain KERNEL LINE (LINE as :annotate KERNEL numbers it), or "
                   ":explain off");
    if (!current || !current->module || !current->module->findFunction(arg))
      return usage("no kernel '" + arg + "'");
    explainKernel = arg;
    explainLine = static_cast<uint32_t>(n);
    if (explainProgramLine() == 0) {
      explainKernel.clear();
      explainLine = 0;
      return usage("'" + arg + "' has no line " + arg2);
    }
    if (rt)
      rt->setExplainLine(explainProgramLine());
    out("kern: each following launch of " + arg + " draws its line " + arg2 +
        (mode == Mode::Profile ? "" : " (once :mode profile counts again)") + "\n");
  } else if (cmd == ":emit") {
    if ((arg != "ir" && arg != "llvm" && arg != "asm") || arg2.empty())
      return usage("usage: :emit ir|llvm|asm KERNEL");
    if (!current || !current->module || !current->module->findFunction(arg2))
      return usage("no kernel or function '" + arg2 + "'");
    std::string text;
    if (arg == "ir") {
      text = ir::print(*current->module->findFunction(arg2), *current->module);
    } else {
      // The whole module's text, cut down to the functions whose name mentions the kernel.
      text = functionPart(arg == "llvm" ? current->native->llvmIR() : current->native->assembly(),
                          arg == "llvm", arg2);
    }
    if (!text.empty() && text.back() != '\n')
      text += '\n';
    out(text);
  } else if (cmd == ":include-path") {
    std::string dir = trimSpace(line.substr(line.find(":include-path") + 13));
    if (dir.empty()) {
      std::string text;
      for (const std::string &d : options.includePaths)
        text += d + "\n";
      out(text.empty() ? "no include directories (:include-path DIR adds one)\n" : text);
      return r;
    }
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      return usage("kern: '" + dir + "' is not a directory");
    options.includePaths.push_back(dir);
    out("include path " + dir + "\n");
  } else if (cmd == ":load") {
    std::istringstream names(line.substr(line.find(":load") + 5));
    std::vector<std::string> paths;
    for (std::string path; names >> path;)
      paths.push_back(path);
    if (paths.empty())
      return usage("kern: :load needs a file name");
    for (const std::string &path : paths) {
      std::ifstream f(path, std::ios::binary);
      if (!f)
        return usage("kern: cannot open file '" + path + "'");
    }
    for (const std::string &path : paths) {
      std::ifstream f(path, std::ios::binary);
      std::stringstream ss;
      ss << f.rdbuf();
      r = evalCode(ss.str(), path);
      if (r.status != Status::Ok)
        return r; // the files after it are not loaded
    }
  } else {
    return usage("unknown command '" + cmd + "' (:help lists them)");
  }
  return r;
}

} // namespace kern
