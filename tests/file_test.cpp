// Runs one annotated .kern test file with the kern CLI (or nvcc) and checks what it states.
//
//   kern_file_test [--timeout SECONDS] KERN FILE.kern   run FILE with the kern CLI at path KERN
//   kern_file_test --nvcc NVCC FILE.kern [-I DIR]...    compile FILE with nvcc; exit 77 = skipped
//                                                       (-I: where nvcc finds kern's text headers)
//
// The annotations (// expect:, // expect-error:, ...) are described in docs/testing.md.
// Exit status: 0 when every expectation holds, 1 when one does not, 2 on a usage error,
// 77 when the test is skipped (CTest's SKIP_RETURN_CODE).

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <poll.h>
#include <regex>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace {

constexpr int kSkipped = 77;
constexpr int kDefaultTimeoutSeconds = 60;
constexpr int kNvccTimeoutSeconds = 300;
constexpr size_t kOutputLimit = 64u << 20; // a runaway printf loop must not fill the memory

/// A diagnostic that the test expects kern to print: "<file>:LINE:COL: error: MESSAGE".
struct ExpectedError {
  int line = 0;
  int col = 0;
  std::string message;
  int annotationLine = 0;
  /// A diagnostic in one of kern's built-in headers (`<kern>/NAME`), at any line.
  std::string header;
};

/// One expected line of stdout, with the line of the test file that states it.
struct ExpectedLine {
  std::string text;
  int annotationLine = 0;
};

/// A counter the test expects in the counter text (docs/report-schema.md, "Counter text").
struct ExpectedCounter {
  std::string device; ///< a device name, or "*" for every device of the run
  std::string scope;  ///< "line N" or "total"
  std::string key;
  double value = 0;
  std::string valueText;
  int annotationLine = 0;
};

/// Everything the annotations of one test file ask for.
struct TestSpec {
  std::vector<ExpectedLine> stdoutLines;
  std::vector<std::string> stdoutContains;
  std::vector<ExpectedError> errors;
  std::vector<std::string> stderrContains;
  std::vector<std::string> stderrLacks;   // expect-no-stderr
  std::vector<std::string> stderrInOrder; // expect-stderr-order
  std::optional<int> exitCode;
  std::vector<std::string> args;
  std::vector<std::string> kernArgs;       // options for `kern run`, before the file
  std::vector<std::string> counterDevices; // one run per device, with --device
  std::vector<ExpectedCounter> counters;
  std::string mode = "run";
  bool nvccSkip = false;
  std::vector<std::string> problems; // malformed annotations: the test fails on them
};

/// What a finished child process left behind.
struct ProcessResult {
  std::string out;
  std::string err;
  int status = 0;
  bool timedOut = false;
  bool outputLimitHit = false;
  std::string spawnError;
};

std::string trimRight(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.pop_back();
  return s;
}

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line))
    lines.push_back(line);
  return lines;
}

std::vector<std::string> splitWords(const std::string &text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  std::string word;
  while (in >> word)
    words.push_back(word);
  return words;
}

std::optional<int> parseInt(const std::string &text) {
  std::string t = trimRight(text);
  if (t.empty())
    return std::nullopt;
  size_t pos = 0;
  try {
    int value = std::stoi(t, &pos);
    if (pos != t.size())
      return std::nullopt;
    return value;
  } catch (...) {
    return std::nullopt;
  }
}

/// Reads the annotations: a "//" comment whose text starts with "keyword:" (anywhere on a line,
/// so "x = 1; // expect: 1" works). Unknown "expect..." keywords are errors, to catch typos;
/// other comments are ignored.
TestSpec parseSpec(const std::string &path, bool &readOk) {
  TestSpec spec;
  std::ifstream in(path);
  readOk = static_cast<bool>(in);
  std::string line;
  int lineNo = 0;
  static const std::regex annotation(R"(//\s*([a-z][a-z-]*):(.*)$)");
  static const std::regex errorForm(R"(^\s*([0-9]+):([0-9]+): (.*)$)");
  static const std::regex headerErrorForm(R"(^\s*(<kern>/[^:]+): (.*)$)");
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    std::smatch m;
    if (!std::regex_search(line, m, annotation))
      continue;
    std::string key = m[1];
    std::string value = m[2];
    if (!value.empty() && value.front() == ' ')
      value.erase(0, 1);
    auto problem = [&](const std::string &what) {
      spec.problems.push_back("line " + std::to_string(lineNo) + ": " + what);
    };
    if (key == "expect") {
      spec.stdoutLines.push_back({value, lineNo});
    } else if (key == "expect-contains") {
      spec.stdoutContains.push_back(value);
    } else if (key == "expect-error") {
      std::smatch e;
      std::string v = trimRight(value);
      if (std::regex_match(v, e, headerErrorForm)) {
        spec.errors.push_back({0, 0, e[2], lineNo, e[1]});
        continue;
      }
      if (!std::regex_match(v, e, errorForm)) {
        problem("expect-error needs 'LINE:COL: MESSAGE' or '<kern>/HEADER: MESSAGE', got '" +
                value + "'");
        continue;
      }
      spec.errors.push_back({std::stoi(e[1]), std::stoi(e[2]), e[3], lineNo, ""});
    } else if (key == "expect-stderr") {
      spec.stderrContains.push_back(value);
    } else if (key == "expect-no-stderr") {
      spec.stderrLacks.push_back(value);
    } else if (key == "expect-stderr-order") {
      spec.stderrInOrder.push_back(value);
    } else if (key == "expect-exit") {
      std::optional<int> code = parseInt(value);
      if (!code)
        problem("expect-exit needs a number, got '" + value + "'");
      else
        spec.exitCode = code;
    } else if (key == "args") {
      spec.args = splitWords(value);
    } else if (key == "kern-args") {
      std::vector<std::string> words = splitWords(value);
      spec.kernArgs.insert(spec.kernArgs.end(), words.begin(), words.end());
    } else if (key == "counter-devices") {
      spec.counterDevices = splitWords(value);
    } else if (key == "expect-counter") {
      std::vector<std::string> w = splitWords(value);
      ExpectedCounter c;
      size_t at = 0;
      if (w.size() == 5 && w[1] == "line") {
        c.device = w[0];
        c.scope = "line " + w[2];
        at = 3;
      } else if (w.size() == 4 && w[1] == "total") {
        c.device = w[0];
        c.scope = "total";
        at = 2;
      } else {
        problem("expect-counter needs 'DEVICE line N KEY VALUE' or 'DEVICE total KEY VALUE', "
                "got '" +
                value + "'");
        continue;
      }
      c.key = w[at];
      c.valueText = w[at + 1];
      char *end = nullptr;
      c.value = std::strtod(c.valueText.c_str(), &end);
      if (!end || *end) {
        problem("expect-counter value must be a number, got '" + c.valueText + "'");
        continue;
      }
      c.annotationLine = lineNo;
      spec.counters.push_back(c);
    } else if (key == "run") {
      std::string mode = trimRight(value);
      if (mode != "run" && mode != "check" && mode != "emit-ir" && mode != "emit-llvm" &&
          mode != "emit-asm" && mode != "annotate")
        problem("run must be one of run, check, emit-ir, emit-llvm, emit-asm, annotate; got '" +
                mode + "'");
      else
        spec.mode = mode;
    } else if (key == "nvcc") {
      if (trimRight(value) == "skip")
        spec.nvccSkip = true;
      else
        problem("the only nvcc annotation is '// nvcc: skip'");
    } else if (key.rfind("expect", 0) == 0) {
      problem("unknown annotation '" + key + ":'");
    }
  }
  return spec;
}

/// Runs argv[0] (looked up in PATH if it has no slash) with stdin from /dev/null, capturing
/// stdout and stderr. The child gets its own process group, killed whole at the deadline.
ProcessResult runProcess(const std::vector<std::string> &argv, int timeoutSeconds) {
  ProcessResult result;
  int outPipe[2];
  int errPipe[2];
  if (pipe2(outPipe, O_CLOEXEC) != 0 || pipe2(errPipe, O_CLOEXEC) != 0) {
    result.spawnError = std::string("pipe: ") + std::strerror(errno);
    return result;
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);

  std::vector<char *> cargv;
  for (const std::string &a : argv)
    cargv.push_back(const_cast<char *>(a.c_str()));
  cargv.push_back(nullptr);

  pid_t pid = 0;
  int rc = posix_spawnp(&pid, cargv[0], &actions, &attr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(outPipe[1]);
  close(errPipe[1]);
  if (rc != 0) {
    close(outPipe[0]);
    close(errPipe[0]);
    result.spawnError = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return result;
  }

  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  struct pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
  std::string *sinks[2] = {&result.out, &result.err};
  int openPipes = 2;
  char buffer[65536];
  while (openPipes > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      result.timedOut = true;
      break;
    }
    int ready = poll(fds, 2, static_cast<int>(left));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready < 0)
      break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0)
        continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --openPipes;
      }
    }
    if (result.out.size() + result.err.size() > kOutputLimit) {
      result.outputLimitHit = true;
      break;
    }
  }
  for (struct pollfd &p : fds)
    if (p.fd >= 0)
      close(p.fd);
  // The child may close its output and go on running: the deadline holds until it exits.
  while (!result.timedOut && !result.outputLimitHit) {
    pid_t done = waitpid(pid, &result.status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR))
      return result;
    if (std::chrono::steady_clock::now() >= deadline)
      result.timedOut = true;
    else
      usleep(10000);
  }
  kill(-pid, SIGKILL);
  while (waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
  }
  return result;
}

/// Drops terminal colour sequences (ESC [ ... letter), in case diagnostics come coloured.
std::string stripAnsi(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      size_t j = i + 2;
      while (j < text.size() &&
             (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == ';'))
        ++j;
      if (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) {
        i = j;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

std::string baseName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// A diagnostic found on stderr.
struct ActualError {
  std::string path;
  int line = 0;
  int col = 0;
  std::string message;
  std::string text;
  bool matched = false;
};

std::vector<ActualError> parseErrors(const std::string &err) {
  static const std::regex form(R"(^(.*):([0-9]+):([0-9]+): error: (.*)$)");
  std::vector<ActualError> errors;
  for (const std::string &raw : splitLines(stripAnsi(err))) {
    std::string line = trimRight(raw);
    std::smatch m;
    // std::regex recurses per character: leave very long lines (never diagnostics) alone.
    if (line.size() < 4096 && std::regex_match(line, m, form))
      errors.push_back({m[1], std::stoi(m[2]), std::stoi(m[3]), m[4], line, false});
  }
  return errors;
}

/// The diagnostic names the test file: the path as given, or any path ending in its file name.
bool samePath(const std::string &printed, const std::string &given) {
  if (printed == given)
    return true;
  std::string base = baseName(given);
  if (printed == base)
    return true;
  std::string suffix = "/" + base;
  return printed.size() > suffix.size() &&
         printed.compare(printed.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string describeStatus(const ProcessResult &r, int timeoutSeconds) {
  if (!r.spawnError.empty())
    return r.spawnError;
  if (r.timedOut)
    return "killed after the time limit of " + std::to_string(timeoutSeconds) + " s";
  if (r.outputLimitHit)
    return "killed after writing more than " + std::to_string(kOutputLimit >> 20) + " MiB";
  if (WIFSIGNALED(r.status))
    return "killed by signal " + std::to_string(WTERMSIG(r.status)) + " (" +
           strsignal(WTERMSIG(r.status)) + ")";
  return "exit code " + std::to_string(WEXITSTATUS(r.status));
}

std::string commandLine(const std::vector<std::string> &argv) {
  std::string s;
  for (const std::string &a : argv)
    s += (s.empty() ? "" : " ") + a;
  return s;
}

void printBlock(const char *title, const std::string &text) {
  std::printf("--- %s (%zu bytes) ---\n", title, text.size());
  if (!text.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (text.back() != '\n')
      std::printf("\n[no newline at the end]\n");
  }
}

/// Expected vs actual stdout, line by line: "  " equal, "- " expected only, "+ " actual only.
void printStdoutDiff(const std::vector<ExpectedLine> &expected,
                     const std::vector<std::string> &actual) {
  std::printf("--- stdout: expected (-, with the test file's line) vs actual (+) ---\n");
  size_t n = std::max(expected.size(), actual.size());
  for (size_t i = 0; i < n; ++i) {
    bool haveE = i < expected.size();
    bool haveA = i < actual.size();
    if (haveE && haveA && expected[i].text == actual[i]) {
      std::printf("  %s\n", actual[i].c_str());
      continue;
    }
    if (haveE)
      std::printf("- %s    [line %d]\n", expected[i].text.c_str(), expected[i].annotationLine);
    if (haveA)
      std::printf("+ %s\n", actual[i].c_str());
  }
}

int runNvcc(const std::string &nvcc, const std::string &file,
            const std::vector<std::string> &includeDirs) {
  if (nvcc.empty() || (nvcc.size() >= 8 && nvcc.compare(nvcc.size() - 8, 8, "NOTFOUND") == 0)) {
    std::printf("nvcc not found: skipped\n");
    return kSkipped;
  }
  bool readOk = false;
  TestSpec spec = parseSpec(file, readOk);
  if (!readOk) {
    std::printf("FAIL: cannot read %s\n", file.c_str());
    return 1;
  }
  if (spec.nvccSkip) {
    std::printf("%s says '// nvcc: skip': skipped\n", file.c_str());
    return kSkipped;
  }
  std::vector<std::string> argv = {nvcc, "-x", "cu", "-c", file, "-o", "/dev/null"};
  for (const std::string &d : includeDirs) {
    argv.push_back("-I");
    argv.push_back(d);
  }
  ProcessResult r = runProcess(argv, kNvccTimeoutSeconds);
  bool ok = r.spawnError.empty() && !r.timedOut && !r.outputLimitHit && WIFEXITED(r.status) &&
            WEXITSTATUS(r.status) == 0;
  if (!ok) {
    std::printf("FAIL: %s\n%s\n", commandLine(argv).c_str(),
                describeStatus(r, kNvccTimeoutSeconds).c_str());
    printBlock("stdout", r.out);
    printBlock("stderr", r.err);
    return 1;
  }
  return 0;
}

/// The counter text as pairs "SCOPE KEY" -> value ("line 12 global.ld.sectors" -> "8").
std::vector<std::pair<std::string, std::string>> parseCounterText(const std::string &text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string &line : splitLines(text)) {
    std::vector<std::string> w = splitWords(line);
    if (w.size() == 4 && w[0] == "line")
      out.push_back({"line " + w[1] + " " + w[2], w[3]});
    else if (w.size() == 3 && w[0] == "total")
      out.push_back({"total " + w[1], w[2]});
  }
  return out;
}

int runKernOnce(const std::string &kern, const std::string &file, int timeoutSeconds,
                const TestSpec &spec, const std::string &device);

int runKern(const std::string &kern, const std::string &file, int timeoutSeconds) {
  bool readOk = false;
  TestSpec spec = parseSpec(file, readOk);
  if (!readOk) {
    std::printf("FAIL: cannot read %s\n", file.c_str());
    return 1;
  }
  if (!spec.problems.empty()) {
    std::printf("FAIL: bad annotations in %s\n", file.c_str());
    for (const std::string &p : spec.problems)
      std::printf("  %s\n", p.c_str());
    return 1;
  }
  // counter-devices: the same checks once per device.
  if (spec.counterDevices.empty())
    return runKernOnce(kern, file, timeoutSeconds, spec, "");
  int rc = 0;
  for (const std::string &device : spec.counterDevices)
    rc |= runKernOnce(kern, file, timeoutSeconds, spec, device);
  return rc;
}

int runKernOnce(const std::string &kern, const std::string &file, int timeoutSeconds,
                const TestSpec &spec, const std::string &device) {
  std::vector<std::string> argv = {kern};
  // Expected counters are read back from a temporary file in the counter-text format.
  std::string countersPath;
  if (!spec.counters.empty()) {
    char tmpl[] = "/tmp/kern_counters_XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) {
      std::printf("FAIL: cannot create a temporary file\n");
      return 1;
    }
    close(fd);
    countersPath = tmpl;
  }
  if (spec.mode == "run" || spec.mode == "annotate") {
    argv.push_back(spec.mode);
    argv.insert(argv.end(), spec.kernArgs.begin(), spec.kernArgs.end());
    if (!device.empty())
      argv.insert(argv.end(), {"--device", device});
    if (!countersPath.empty())
      argv.insert(argv.end(), {"--counters-text", countersPath});
    argv.push_back(file);
    if (!spec.args.empty()) {
      argv.push_back("--");
      argv.insert(argv.end(), spec.args.begin(), spec.args.end());
    }
  } else if (spec.mode == "check") {
    argv.insert(argv.end(), {"check", file});
  } else {
    argv.insert(argv.end(), {"emit", "--" + spec.mode.substr(5), file});
  }

  ProcessResult r = runProcess(argv, timeoutSeconds);
  std::vector<std::string> failures;

  // Counters, by device; a counter missing from the text is 0.
  if (!countersPath.empty()) {
    std::ifstream in(countersPath);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(countersPath.c_str());
    auto actual = parseCounterText(text.str());
    for (const ExpectedCounter &c : spec.counters) {
      if (c.device != "*" && c.device != device)
        continue;
      std::string got = "0";
      for (const auto &[k, v] : actual)
        if (k == c.scope + " " + c.key)
          got = v;
      const double g = std::strtod(got.c_str(), nullptr);
      if (std::fabs(g - c.value) > 1e-7 * std::fabs(c.value) + 1e-12)
        failures.push_back("counter " + c.scope + " " + c.key + " is " + got + ", expected " +
                           c.valueText + "    [line " + std::to_string(c.annotationLine) + "]");
    }
  }

  // Exit status: a crash, a hang or a wrong code each fail the test.
  int expectedExit = spec.exitCode ? *spec.exitCode : (spec.errors.empty() ? 0 : 1);
  if (!r.spawnError.empty() || r.timedOut || r.outputLimitHit || WIFSIGNALED(r.status)) {
    failures.push_back(describeStatus(r, timeoutSeconds));
  } else if (WEXITSTATUS(r.status) != expectedExit) {
    failures.push_back("exit code " + std::to_string(WEXITSTATUS(r.status)) + ", expected " +
                       std::to_string(expectedExit));
  }

  // stdout: exactly the expect lines (none means empty), unless only expect-contains is used.
  std::vector<std::string> outLines = splitLines(r.out);
  bool exact = !spec.stdoutLines.empty() || spec.stdoutContains.empty();
  bool stdoutDiffers = false;
  if (exact) {
    if (outLines.size() != spec.stdoutLines.size()) {
      stdoutDiffers = true;
      failures.push_back("stdout has " + std::to_string(outLines.size()) + " lines, expected " +
                         std::to_string(spec.stdoutLines.size()));
    } else {
      for (size_t i = 0; i < outLines.size(); ++i) {
        if (outLines[i] != spec.stdoutLines[i].text) {
          stdoutDiffers = true;
          failures.push_back("stdout line " + std::to_string(i + 1) +
                             " differs (expected at line " +
                             std::to_string(spec.stdoutLines[i].annotationLine) + ")");
          break;
        }
      }
    }
  }
  for (const std::string &text : spec.stdoutContains)
    if (r.out.find(text) == std::string::npos)
      failures.push_back("stdout does not contain '" + text + "'");

  // stderr: every expected diagnostic present, no other error diagnostic (no cascades).
  std::vector<ActualError> actual = parseErrors(r.err);
  for (const ExpectedError &e : spec.errors) {
    bool found = false;
    for (ActualError &a : actual) {
      bool here = e.header.empty() ? samePath(a.path, file) && a.line == e.line && a.col == e.col
                                   : a.path == e.header;
      if (!a.matched && here && a.message == e.message) {
        a.matched = found = true;
        break;
      }
    }
    if (!found)
      failures.push_back(
          "missing diagnostic " +
          (e.header.empty()
               ? baseName(file) + ":" + std::to_string(e.line) + ":" + std::to_string(e.col)
               : e.header) +
          ": error: " + e.message + "    [line " + std::to_string(e.annotationLine) + "]");
  }
  for (const ActualError &a : actual)
    if (!a.matched)
      failures.push_back("unexpected diagnostic " + a.text);
  std::string err = stripAnsi(r.err);
  for (const std::string &text : spec.stderrContains)
    if (err.find(text) == std::string::npos)
      failures.push_back("stderr does not contain '" + text + "'");
  for (const std::string &text : spec.stderrLacks)
    if (err.find(text) != std::string::npos)
      failures.push_back("stderr contains '" + text + "'");
  size_t from = 0;
  for (const std::string &text : spec.stderrInOrder) {
    const size_t at = err.find(text, from);
    if (at == std::string::npos) {
      failures.push_back("stderr does not contain '" + text + "'" +
                         (err.find(text) != std::string::npos ? " after the one before it" : ""));
      break;
    }
    from = at + text.size();
  }

  if (failures.empty())
    return 0;
  std::printf("FAIL%s: %s\n", device.empty() ? "" : (" on " + device).c_str(),
              commandLine(argv).c_str());
  for (const std::string &f : failures)
    std::printf("  %s\n", f.c_str());
  if (stdoutDiffers)
    printStdoutDiff(spec.stdoutLines, outLines);
  else
    printBlock("stdout", r.out);
  printBlock("stderr", r.err);
  return 1;
}

int usage() {
  std::fprintf(stderr, "usage: kern_file_test [--timeout SECONDS] KERN FILE.kern\n"
                       "       kern_file_test --nvcc NVCC FILE.kern [-I DIR]...\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  int timeoutSeconds = kDefaultTimeoutSeconds;
  if (args.size() >= 3 && args[0] == "--nvcc") {
    std::vector<std::string> includeDirs;
    for (size_t i = 3; i < args.size(); i += 2) {
      if (args[i] != "-I" || i + 1 >= args.size())
        return usage();
      includeDirs.push_back(args[i + 1]);
    }
    return runNvcc(args[1], args[2], includeDirs);
  }
  if (args.size() == 4 && args[0] == "--timeout") {
    std::optional<int> t = parseInt(args[1]);
    if (!t || *t <= 0)
      return usage();
    timeoutSeconds = *t;
    args.erase(args.begin(), args.begin() + 2);
  }
  if (args.size() != 2)
    return usage();
  return runKern(args[0], args[1], timeoutSeconds);
}
