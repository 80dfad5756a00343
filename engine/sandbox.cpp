// Sandboxed programs (engine/sandbox.h, docs/sandbox.md): the child process and its protocol.
//
// The parent forks a child per compile. The child closes what it inherited, sets its limits,
// restricts its file system (Landlock) and its system calls (seccomp), then compiles the
// program with an Engine of its own and waits. Program::run sends it the arguments; it runs the
// program and exits. Everything it says comes back as frames over one socket, in order: a type
// byte, a 32-bit length, the bytes. The parent reads them (writing the program's output where
// Options::out and err say), and when the socket closes without a result it reaps the child
// and says why it died: the SIGSYS handler and the allocation hooks leave the reason in a page
// the two processes share.
#include "engine/sandbox.h"

#include "engine/engine_impl.h"
#include "engine/sandbox_confine.h"
#include "runtime/fiber.h"

#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <new>
#include <thread>

namespace kern {

namespace {

// The child's exit codes when it ends itself for a reason the parent reports.
constexpr int kSetupFailedExit = 158; // the sandbox could not be set up (a frame says why)
constexpr int kForbiddenExit = 159;   // the SIGSYS handler: a forbidden system call
constexpr int kOutOfMemoryExit = 160; // operator new found no memory under the limit
constexpr int kCpuLimitExit = 161;    // the SIGXCPU handler: the CPU-time limit

/// The page the child and its parent share.
struct Shared {
  int32_t forbiddenSyscall = -1; // the system call that seccomp trapped, or -1
  int32_t outOfMemory = 0;       // an allocation failed under the memory limit
  int32_t cpuLimit = 0;          // RLIMIT_CPU's soft limit was reached
};

enum Frame : char {
  kOut = 'O',       // child: the program's stdout
  kErr = 'E',       // child: the program's stderr and kern's messages
  kCompiled = 'C',  // child: ok byte, then the diagnostics
  kFile = 'F',      // child: a report file (path length, path, text)
  kAnnotated = 'A', // child: the annotated source
  kResult = 'X',    // child: status, exit code, faulted
  kRun = 'R',       // parent: run main with these arguments
};

// ---- the child's process-wide state (a child serves one program) ------------------------------
bool gInside = false;
int gChannel = -1;
Shared *gShared = nullptr;
std::mutex gSendMutex;

void putU32(std::string &s, uint32_t v) { s.append(reinterpret_cast<const char *>(&v), 4); }

bool takeU32(std::string_view &s, uint32_t &v) {
  if (s.size() < 4)
    return false;
  std::memcpy(&v, s.data(), 4);
  s.remove_prefix(4);
  return true;
}

bool sendAll(int fd, const char *p, size_t n) {
  while (n > 0) {
    // The parent may not get SIGPIPE from a child that died; the child ignores SIGPIPE, and
    // its filter allows write but not sendto.
    const ssize_t w = gInside ? write(fd, p, n) : send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool sendFrame(int fd, char type, std::string_view payload) {
  std::string head(1, type);
  putU32(head, static_cast<uint32_t>(payload.size()));
  std::lock_guard<std::mutex> lock(gSendMutex);
  return sendAll(fd, head.data(), head.size()) && sendAll(fd, payload.data(), payload.size());
}

/// Reads exactly `n` bytes before `deadline` (none if it is zero). 1: read; 0: the peer
/// closed; -1: the deadline passed.
int readAll(int fd, char *p, size_t n, std::chrono::steady_clock::time_point deadline) {
  while (n > 0) {
    int wait = -1;
    if (deadline.time_since_epoch().count() != 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return -1;
      wait = static_cast<int>(std::min<int64_t>(left.count(), 1000));
    }
    pollfd pfd{fd, POLLIN, 0};
    const int rc = poll(&pfd, 1, wait);
    if (rc < 0 && errno != EINTR)
      return 0;
    if (rc <= 0)
      continue;
    const ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return 0;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return 1;
}

int readFrame(int fd, char &type, std::string &payload,
              std::chrono::steady_clock::time_point deadline = {}) {
  char head[5];
  int rc = readAll(fd, head, 5, deadline);
  if (rc != 1)
    return rc;
  type = head[0];
  uint32_t len;
  std::memcpy(&len, head + 1, 4);
  payload.assign(len, '\0');
  return len ? readAll(fd, payload.data(), len, deadline) : 1;
}

std::string canonicalDir(const std::string &path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec);
  return ec ? std::string() : p.string();
}

[[noreturn]] void childOutOfMemory() {
  if (gShared)
    gShared->outOfMemory = 1;
  _exit(kOutOfMemoryExit);
}

/// std::terminate in the child: an uncaught std::bad_alloc (a fiber's stack, a thread that
/// could not start) is the memory limit too.
[[noreturn]] void childTerminate() {
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc &) {
      childOutOfMemory();
    } catch (...) {
    }
  }
  std::abort();
}

std::string byteText(uint64_t bytes) {
  char buf[64];
  if (bytes >= (uint64_t(1) << 30) && bytes % (uint64_t(1) << 30) == 0)
    std::snprintf(buf, sizeof buf, "%llu GiB", static_cast<unsigned long long>(bytes >> 30));
  else
    std::snprintf(buf, sizeof buf, "%llu MiB",
                  static_cast<unsigned long long>((bytes + (1 << 20) - 1) >> 20));
  return buf;
}

} // namespace

// ---- the child --------------------------------------------------------------------------------

struct SandboxChild {
  SandboxSources sources;
  pid_t pid = -1;
  int fd = -1;
  Shared *shared = nullptr;
  bool compiled = false;
  bool ran = false; // the child has run the program (and ended)

  SandboxChild() = default;
  SandboxChild(const SandboxChild &) = delete;
  SandboxChild &operator=(const SandboxChild &) = delete;
  ~SandboxChild() { release(); }

  /// Ends the child (if it still runs) and frees what the parent holds of it.
  void release() {
    if (fd >= 0)
      close(fd);
    fd = -1;
    if (pid > 0) {
      kill(pid, SIGKILL);
      int st;
      while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
      }
    }
    pid = -1;
    if (shared)
      munmap(shared, sizeof(Shared));
    shared = nullptr;
  }
};

bool insideSandbox() { return gInside; }

namespace {

/// What the child runs, from the fork to its exit.
[[noreturn]] void childMain(int fd, Shared *shared, const Options &parent,
                            const SandboxSources &sources,
                            const std::vector<std::string> &readDirs) {
  gInside = true;
  gChannel = fd;
  gShared = shared;
  signal(SIGPIPE, SIG_IGN); // a parent that is gone makes writes fail, and the child ends
  sandbox::closeOtherDescriptors(fd);
  auto setupFailed = [fd](const std::string &why) {
    sendFrame(fd, kErr, "kern: error: cannot set up the sandbox: " + why + "\n");
    _exit(kSetupFailedExit);
  };
  const SandboxOptions &sb = parent.sandbox;
  std::string error;
  if (!sandbox::setLimits(sb.memoryLimitBytes, sb.cpuSeconds, error))
    setupFailed(error);
  // Under an address-space limit, one malloc arena: each further one (glibc makes one per
  // thread that allocates, up to 8 a core) reserves 64 MiB, which would count as the program's.
  if (sb.memoryLimitBytes > 0)
    mallopt(M_ARENA_MAX, 1);
  std::vector<std::string> readPaths = readDirs, writeDirs;
  if (!sb.outputDir.empty())
    writeDirs.push_back(canonicalDir(sb.outputDir));
  if (!parent.deviceFile.empty())
    readPaths.push_back(canonicalDir(parent.deviceFile));
  // localtime() and strftime() read the time zone, and the C library the number of CPUs.
  readPaths.push_back("/etc/localtime");
  readPaths.push_back("/usr/share/zoneinfo");
  readPaths.push_back("/sys/devices/system/cpu/online");
  // The main thread's stack bounds come from /proc/self/maps, which Landlock will hide: read
  // (and kept) now, so that the run gives warps the stack it gives them outside the sandbox.
  runtime::threadStackLimit();
  switch (sandbox::applyLandlock(readPaths, writeDirs, error)) {
  case sandbox::Landlock::Applied:
    break;
  case sandbox::Landlock::Unsupported:
    sendFrame(fd, kErr,
              "kern: note: this kernel has no Landlock (Linux 5.13 or later): the sandbox's "
              "file rules are enforced by kern's runtime alone\n");
    break;
  case sandbox::Landlock::Failed:
    setupFailed(error);
  }
  sandbox::trapForbiddenCalls(&shared->forbiddenSyscall, kForbiddenExit);
  sandbox::trapCpuLimit(&shared->cpuLimit, kCpuLimitExit);
  std::set_new_handler(childOutOfMemory);
  std::set_terminate(childTerminate);
  if (!sandbox::installFilter(error))
    setupFailed(error);

  Options o = parent;
  o.sandbox.allowRead = readDirs;
  o.out = [fd](std::string_view s) { sendFrame(fd, kOut, s); };
  o.err = [fd](std::string_view s) { sendFrame(fd, kErr, s); };
  o.diagnostics = nullptr;
  // A worker's thread stack is address space too: under a memory limit, as many workers as
  // fit (a run's output does not depend on their number); an explicit count is kept.
  if (sb.memoryLimitBytes > 0 && o.workers == 0) {
    const unsigned fit = static_cast<unsigned>(std::max<uint64_t>(1, sb.memoryLimitBytes >> 26));
    o.workers = std::min(std::max(1u, std::thread::hardware_concurrency()), fit);
  }
  {
    Engine engine(o);
    std::unique_ptr<Program> program =
        sources.fromPaths ? engine.compileFiles(sources.paths) : engine.compile(sources.files);
    std::string compiled(1, program->ok() ? '\1' : '\0');
    compiled += program->diagnostics();
    if (!sendFrame(fd, kCompiled, compiled) || !program->ok())
      _exit(0);
    char type = 0;
    std::string payload;
    if (readFrame(fd, type, payload) != 1 || type != kRun)
      _exit(0); // the parent destroyed the program without running it
    std::vector<std::string> args;
    std::string_view in = payload;
    uint32_t count = 0, len = 0;
    takeU32(in, count);
    for (uint32_t i = 0; i < count && takeU32(in, len) && len <= in.size(); ++i) {
      args.emplace_back(in.substr(0, len));
      in.remove_prefix(len);
    }
    // Ctrl-C (the terminal signals the whole process group) or the parent's Engine::interrupt
    // (StopRequest::setChild) stops the run here, which reports where, as outside a sandbox.
    static Engine *running = nullptr;
    running = &engine;
    struct sigaction onInterrupt = {};
    onInterrupt.sa_handler = [](int) { running->interrupt(); };
    sigemptyset(&onInterrupt.sa_mask);
    sigaction(SIGINT, &onInterrupt, nullptr);
    const RunResult r = program->run(args);
    if (!program->annotatedSource().empty())
      sendFrame(fd, kAnnotated, program->annotatedSource());
    std::string result;
    putU32(result, static_cast<uint32_t>(r.status));
    putU32(result, static_cast<uint32_t>(r.exitCode));
    result += r.faulted ? '\1' : '\0';
    sendFrame(fd, kResult, result);
  }
  _exit(0);
}

/// Forks the child of `c` and reads what it says until it has compiled (or died).
void spawn(SandboxChild &c, const Options &options, Program::Impl &p) {
  int sv[2];
  void *page =
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    if (page != MAP_FAILED)
      munmap(page, sizeof(Shared));
    p.diagnosticText =
        std::string("kern: error: cannot start the sandbox: ") + std::strerror(errno) + "\n";
    return;
  }
  c.shared = new (page) Shared();
  std::vector<std::string> paths = c.sources.paths;
  if (!c.sources.fromPaths)
    for (const SourceFile &f : c.sources.files)
      paths.push_back(f.name);
  const std::vector<std::string> readDirs = sandboxReadDirs(options, paths);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(sv[0]);
    childMain(sv[1], c.shared, options, c.sources, readDirs);
  }
  close(sv[1]);
  if (pid < 0) {
    close(sv[0]);
    p.diagnosticText =
        std::string("kern: error: cannot start the sandbox: fork: ") + std::strerror(errno) + "\n";
    return;
  }
  c.pid = pid;
  c.fd = sv[0];
}

/// Passes on what the child says until a frame of type `until` (true, its payload in
/// `payload`), the child's end or the deadline (false; `timedOut` says which).
bool pump(SandboxChild &c, Program::Impl &p, char until, std::string &payload, double wallLimit,
          bool &timedOut) {
  const Options &o = *p.options;
  timedOut = false;
  std::chrono::steady_clock::time_point deadline{};
  if (wallLimit > 0)
    deadline = std::chrono::steady_clock::now() +
               std::chrono::milliseconds(static_cast<int64_t>(wallLimit * 1000));
  for (;;) {
    char type = 0;
    const int rc = readFrame(c.fd, type, payload, deadline);
    if (rc != 1) {
      timedOut = rc < 0;
      return false;
    }
    if (type == until)
      return true;
    switch (type) {
    case kOut:
      if (o.out) {
        o.out(payload);
      } else { // as the program wrote it: a reader of a pipe sees it now, not at the end
        std::fwrite(payload.data(), 1, payload.size(), stdout);
        std::fflush(stdout);
      }
      break;
    case kErr:
      writeErr(o, payload);
      break;
    case kAnnotated:
      p.annotated = payload;
      break;
    case kFile: {
      std::string_view in = payload;
      uint32_t len = 0;
      if (!takeU32(in, len) || len > in.size())
        break;
      const std::string path(in.substr(0, len));
      std::ofstream f(path, std::ios::binary);
      f << in.substr(len);
      if (!f.good())
        writeErr(o, "kern: error: cannot write '" + path + "'\n");
      break;
    }
    default:
      break;
    }
  }
}

const char *signalName(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGABRT:
    return "SIGABRT";
  case SIGILL:
    return "SIGILL";
  case SIGFPE:
    return "SIGFPE";
  case SIGKILL:
    return "SIGKILL";
  case SIGSYS:
    return "SIGSYS";
  case SIGXCPU:
    return "SIGXCPU";
  case SIGTERM:
    return "SIGTERM";
  case SIGINT:
    return "SIGINT";
  case SIGHUP:
    return "SIGHUP";
  default:
    return "a signal";
  }
}

/// Reaps the child of `c` (killing it first if `kill`), and says why it ended: the status and
/// the message for the caller.
Status reap(SandboxChild &c, const Options &o, bool killIt, bool wallTimeout, std::string &why) {
  if (killIt)
    kill(c.pid, SIGKILL);
  int st = 0;
  struct rusage ru;
  std::memset(&ru, 0, sizeof ru);
  while (wait4(c.pid, &st, 0, &ru) < 0 && errno == EINTR) {
  }
  c.pid = -1;
  const Shared shared = *c.shared;
  const SandboxOptions &sb = o.sandbox;
  const double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                     static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  const int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  const int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (shared.forbiddenSyscall >= 0 || sig == SIGSYS) {
    why = "it tried a forbidden system call (" +
          (shared.forbiddenSyscall >= 0 ? sandbox::syscallName(shared.forbiddenSyscall)
                                        : std::string("SIGSYS")) +
          ")";
    return Status::SandboxViolation;
  }
  if (sb.cpuSeconds > 0 &&
      (shared.cpuLimit || code == kCpuLimitExit || sig == SIGXCPU ||
       (sig == SIGKILL &&
        cpu + 0.5 >= static_cast<double>(sandbox::cpuLimitSeconds(sb.cpuSeconds))))) {
    why = "time limit exceeded: it used its " +
          std::to_string(sandbox::cpuLimitSeconds(sb.cpuSeconds)) + " s of CPU time";
    return Status::TimeLimit;
  }
  if (wallTimeout) {
    why = "time limit exceeded: it ran past its wall-clock limit (" +
          std::to_string(static_cast<int64_t>(std::ceil(o.timeoutSeconds))) + " s, --timeout)";
    return Status::TimeLimit;
  }
  if (shared.outOfMemory || code == kOutOfMemoryExit) {
    why = "memory limit exceeded (" + byteText(sb.memoryLimitBytes) + ")";
    return Status::MemoryLimit;
  }
  if (code == kSetupFailedExit) {
    why = "the sandbox could not be set up";
    return Status::UsageError;
  }
  if (sig == SIGINT) { // Ctrl-C before the run had its handler (while it compiled)
    why = "it was interrupted (SIGINT)";
    return Status::Interrupted;
  }
  if (sig == SIGKILL || sig == SIGTERM || sig == SIGHUP) {
    why = std::string("it was killed (") + (sig == SIGKILL ? "SIGKILL" : signalName(sig)) + ")";
    return Status::SandboxViolation;
  }
  if (sig != 0) {
    why = std::string("it crashed (") + signalName(sig) + ")";
    if (sb.memoryLimitBytes > 0 && (sig == SIGSEGV || sig == SIGABRT || sig == SIGBUS))
      why += "; with its memory limit of " + byteText(sb.memoryLimitBytes) +
             ", it may have run out of memory";
    return Status::SandboxViolation;
  }
  why = "it ended without a result (exit code " + std::to_string(code) + ")";
  return Status::SandboxViolation;
}

} // namespace

std::vector<std::string> sandboxReadDirs(const Options &options,
                                         const std::vector<std::string> &paths) {
  std::vector<std::string> dirs;
  auto add = [&dirs](const std::string &path) {
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec))
      return;
    const std::string d = canonicalDir(path);
    if (!d.empty() && std::find(dirs.begin(), dirs.end(), d) == dirs.end())
      dirs.push_back(d);
  };
  for (const std::string &d : options.sandbox.allowRead)
    add(d);
  for (const std::string &d : options.includePaths)
    add(d);
  for (const std::string &f : paths) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(f, ec))
      add(std::filesystem::absolute(f).parent_path().string());
  }
  add(options.sandbox.outputDir);
  return dirs;
}

bool sandboxAvailable(std::string &why) {
  if (gInside)
    return true;
  if (!sandbox::seccompBuiltIn()) {
    why = "this kern was built without seccomp (install libseccomp-dev and build it again): "
          "the sandbox is not available";
    return false;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    std::string error;
    _exit(sandbox::installFilter(error) ? 0 : 1);
  }
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    why = "this system does not let kern install a seccomp filter (a container that forbids "
          "it?): the sandbox is not available";
    return false;
  }
  return true;
}

std::unique_ptr<Program::Impl> compileSandboxed(const Options &options, SandboxSources sources) {
  auto p = std::make_unique<Program::Impl>();
  p->options = &options;
  std::string why;
  if (!sandboxAvailable(why)) {
    p->diagnosticText = "kern: error: " + why + "\n";
  } else {
    p->sandbox = std::make_shared<SandboxChild>();
    SandboxChild &c = *p->sandbox;
    c.sources = std::move(sources);
    spawn(c, options, *p);
    std::string payload;
    bool timedOut = false;
    if (c.pid > 0 && pump(c, *p, kCompiled, payload, 0, timedOut) && !payload.empty()) {
      c.compiled = payload[0] == '\1';
      p->diagnosticText = payload.substr(1);
    } else if (c.pid > 0) {
      const Status s = reap(c, options, false, false, why);
      p->diagnosticText = (s == Status::UsageError ? "kern: error: "
                                                   : "kern: error: the sandboxed "
                                                     "compiler was stopped: ") +
                          why + "\n";
    }
  }
  if (!p->diagnosticText.empty() && options.diagnostics)
    options.diagnostics(p->diagnosticText);
  return p;
}

bool sandboxCompiled(const SandboxChild &child) { return child.compiled; }

RunResult runSandboxed(Program::Impl &p, const std::vector<std::string> &args) {
  RunResult result;
  SandboxChild &c = *p.sandbox;
  const Options &o = *p.options;
  if (c.ran) { // a child runs one program: a second run compiles it again in a new child
    c.release();
    c.ran = false;
    c.compiled = false;
    spawn(c, o, p);
    std::string payload;
    bool timedOut = false;
    if (c.pid > 0 && pump(c, p, kCompiled, payload, 0, timedOut) && !payload.empty())
      c.compiled = payload[0] == '\1';
  }
  auto stopped = [&](Status s, const std::string &why) {
    writeErr(o, "kern: the sandboxed program was stopped: " + why + "\n");
    result.status = s;
    result.exitCode = static_cast<int>(s);
    result.faulted = true;
    return result;
  };
  if (c.pid <= 0 || !c.compiled) {
    std::string why;
    if (c.pid > 0) {
      const Status s = reap(c, o, true, false, why);
      return stopped(s, why);
    }
    result.status = Status::CompileError;
    result.exitCode = 1;
    return result;
  }
  c.ran = true;
  std::string command;
  putU32(command, static_cast<uint32_t>(args.size()));
  for (const std::string &a : args) {
    putU32(command, static_cast<uint32_t>(a.size()));
    command += a;
  }
  std::fflush(stdout);
  std::string payload, why;
  bool timedOut = false;
  // The runtime stops a kernel or host code over Options::timeoutSeconds itself; this is the
  // backstop for a child that does not.
  const double wall = o.timeoutSeconds > 0 ? 2 * o.timeoutSeconds + 5 : 0;
  if (p.stop)
    p.stop->setChild(c.pid);
  const bool pumped =
      sendFrame(c.fd, kRun, command) && pump(c, p, kResult, payload, wall, timedOut);
  if (p.stop) {
    p.stop->setChild(0);
    p.stop->clear(); // one interrupt stops one run
  }
  if (!pumped) {
    const Status s = reap(c, o, timedOut, timedOut, why);
    return stopped(s, why);
  }
  std::string_view in = payload;
  uint32_t status = 0, code = 0;
  takeU32(in, status);
  takeU32(in, code);
  result.status = static_cast<Status>(status);
  result.exitCode = static_cast<int32_t>(code);
  result.faulted = !in.empty() && in[0] == '\1';
  const bool outOfMemory = c.shared->outOfMemory != 0;
  reap(c, o, false, false, why);
  if (outOfMemory && result.status != Status::Ok)
    return stopped(Status::MemoryLimit,
                   "memory limit exceeded (" + byteText(o.sandbox.memoryLimitBytes) + ")");
  return result;
}

// ---- the child's hooks into a run ------------------------------------------------------------

std::function<bool(const std::string &, const std::string &)> sandboxReportWriter() {
  if (!gInside)
    return nullptr;
  return [](const std::string &path, const std::string &text) {
    std::string payload;
    putU32(payload, static_cast<uint32_t>(path.size()));
    payload += path;
    payload += text;
    return sendFrame(gChannel, kFile, payload);
  };
}

std::function<void()> sandboxMemoryHook() {
  if (!gInside)
    return nullptr;
  return [] {
    if (gShared)
      gShared->outOfMemory = 1;
  };
}

} // namespace kern
