// The sandbox's kernel-side layer (engine/sandbox_confine.h), tried directly: each case forks a
// child that installs kern's seccomp filter (or Landlock's rules) exactly as a sandboxed
// program's child does, then makes one system call. A forbidden one must end the child through
// the SIGSYS handler with the call's number; an allowed one must work. Exits 77 (skipped) where
// this kern has no seccomp or the system forbids installing a filter.
#include "engine/sandbox_confine.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

namespace {

constexpr int kTrapped = 99; // the child's exit code from the SIGSYS handler

int failures = 0;

struct Shared {
  int32_t syscall = -1;
};

/// Runs `body` in a forked child under the filter: the child's exit code, or 128 + a signal;
/// `trapped` is the name of the system call the filter stopped (empty if none).
int inChild(const std::function<int()> &body, std::string &trapped) {
  auto *shared = static_cast<Shared *>(
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  new (shared) Shared();
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    kern::sandbox::trapForbiddenCalls(&shared->syscall, kTrapped);
    std::string error;
    if (!kern::sandbox::installFilter(error)) {
      std::fprintf(stderr, "installFilter: %s\n", error.c_str());
      _exit(98);
    }
    _exit(body());
  }
  int st = 0;
  waitpid(pid, &st, 0);
  trapped = shared->syscall >= 0 ? kern::sandbox::syscallName(shared->syscall) : "";
  munmap(shared, sizeof(Shared));
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void expectForbidden(const char *what, const char *name, const std::function<int()> &body) {
  std::string trapped;
  const int rc = inChild(body, trapped);
  if (rc == kTrapped && trapped == name) {
    std::printf("ok: %s is forbidden (%s)\n", what, trapped.c_str());
    return;
  }
  std::printf("FAIL: %s: exit %d, trapped '%s' (expected %s)\n", what, rc, trapped.c_str(), name);
  ++failures;
}

void expectAllowed(const char *what, const std::function<int()> &body) {
  std::string trapped;
  const int rc = inChild(body, trapped);
  if (rc == 0) {
    std::printf("ok: %s works\n", what);
    return;
  }
  std::printf("FAIL: %s: exit %d, trapped '%s'\n", what, rc, trapped.c_str());
  ++failures;
}

/// Whether `path` can be opened with `flags` in a child after Landlock's rules.
void expectLandlock(const char *what, const std::string &readDir, const std::string &writeDir,
                    const std::string &path, int flags, bool allowed) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    std::string error;
    const auto r = kern::sandbox::applyLandlock({readDir}, {writeDir}, error);
    if (r == kern::sandbox::Landlock::Unsupported)
      _exit(77);
    if (r != kern::sandbox::Landlock::Applied)
      _exit(98);
    const int fd = open(path.c_str(), flags | O_CLOEXEC, 0644);
    _exit(fd >= 0 ? 0 : errno == EACCES ? 13 : 1);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  const int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  if (rc == 77) {
    std::printf("skip: %s: this kernel has no Landlock\n", what);
    return;
  }
  if ((allowed && rc == 0) || (!allowed && rc == 13)) {
    std::printf("ok: %s %s\n", what, allowed ? "is allowed" : "is denied (EACCES)");
    return;
  }
  std::printf("FAIL: %s: exit %d\n", what, rc);
  ++failures;
}

} // namespace

int main() {
  if (std::getenv("KERN_SANDBOX_SKIP")) {
    std::printf("skip: a sanitizer build\n");
    return 77;
  }
  if (!kern::sandbox::seccompBuiltIn()) {
    std::printf("skip: this kern was built without seccomp\n");
    return 77;
  }
  {
    std::string trapped;
    const int rc = inChild([] { return 0; }, trapped);
    if (rc == 98) {
      std::printf("skip: this system does not let a process install a seccomp filter\n");
      return 77;
    }
  }

  // What kern needs.
  expectAllowed("a thread", [] {
    std::atomic<int> v{0};
    std::thread t([&v] { v = 42; });
    t.join();
    return v == 42 ? 0 : 1;
  });
  expectAllowed("executable memory (the JIT's mmap and mprotect)", [] {
    void *p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p != MAP_FAILED && mprotect(p, 4096, PROT_READ | PROT_EXEC) == 0 ? 0 : 1;
  });
  expectAllowed("process_vm_readv of its own memory", [] {
    char src[8] = "kern", dst[8] = {};
    iovec local{dst, sizeof dst}, remote{src, sizeof src};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == sizeof src &&
                   std::strcmp(dst, "kern") == 0
               ? 0
               : 1;
  });
  expectAllowed("reading a limit", [] {
    rlimit rl;
    return getrlimit(RLIMIT_STACK, &rl) == 0 ? 0 : 1;
  });
  expectAllowed("a file", [] {
    const int fd = open("/dev/null", O_WRONLY);
    return fd >= 0 && write(fd, "x", 1) == 1 && close(fd) == 0 ? 0 : 1;
  });

  // What it does not.
  expectForbidden("a socket", "socket",
                  [] { return socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 0 : 1; });
  expectForbidden("a socket pair", "socketpair", [] {
    int sv[2];
    return socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  });
  expectForbidden("fork", "clone", [] { return fork() >= 0 ? 0 : 1; });
  expectForbidden("vfork", "vfork", [] { return static_cast<int>(syscall(SYS_vfork)); });
  expectForbidden("clone of a process", "clone", [] {
    return static_cast<int>(syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, nullptr));
  });
  expectForbidden("execve", "execve", [] {
    char *const argv[] = {const_cast<char *>("/bin/true"), nullptr};
    return execve("/bin/true", argv, nullptr);
  });
  expectForbidden("execveat", "execveat", [] {
    char *const argv[] = {const_cast<char *>("/bin/true"), nullptr};
    return static_cast<int>(syscall(SYS_execveat, AT_FDCWD, "/bin/true", argv, nullptr, 0));
  });
  expectForbidden("ptrace", "ptrace",
                  [] { return static_cast<int>(ptrace(PTRACE_TRACEME, 0, 0, 0)); });
  expectForbidden("mount", "mount", [] { return mount("none", "/mnt", "tmpfs", 0, nullptr); });
  expectForbidden("setrlimit", "prlimit64", [] {
    rlimit rl{RLIM_INFINITY, RLIM_INFINITY};
    return setrlimit(RLIMIT_AS, &rl);
  });
  expectForbidden("a signal to another process", "kill", [] { return kill(getppid(), 0); });
  expectForbidden("process_vm_readv of another process", "process_vm_readv", [] {
    char dst[8];
    iovec local{dst, sizeof dst}, remote{dst, sizeof dst};
    return static_cast<int>(process_vm_readv(getppid(), &local, 1, &remote, 1, 0));
  });
  expectForbidden("unshare", "unshare", [] { return unshare(CLONE_NEWUSER); });
  expectForbidden("chroot", "chroot", [] { return chroot("/"); });

  // Landlock: the read directory may be read, not written; the write directory both; the rest
  // neither.
  char readDir[] = "/tmp/kern_sandbox_readXXXXXX", writeDir[] = "/tmp/kern_sandbox_writeXXXXXX";
  if (!mkdtemp(readDir) || !mkdtemp(writeDir)) {
    std::printf("FAIL: mkdtemp\n");
    return 1;
  }
  const std::string inRead = std::string(readDir) + "/a.txt";
  if (FILE *f = std::fopen(inRead.c_str(), "w")) {
    std::fputs("a\n", f);
    std::fclose(f);
  }
  expectLandlock("reading in the read directory", readDir, writeDir, inRead, O_RDONLY, true);
  expectLandlock("writing in the read directory", readDir, writeDir, inRead, O_WRONLY, false);
  expectLandlock("creating in the write directory", readDir, writeDir,
                 std::string(writeDir) + "/b.txt", O_WRONLY | O_CREAT, true);
  expectLandlock("reading elsewhere", readDir, writeDir, "/etc/hostname", O_RDONLY, false);
  expectLandlock("creating elsewhere", readDir, writeDir, std::string(readDir) + "/../kern_x",
                 O_WRONLY | O_CREAT, false);
  std::remove(inRead.c_str());
  std::remove((std::string(writeDir) + "/b.txt").c_str());
  rmdir(readDir);
  rmdir(writeDir);

  std::printf("%s\n", failures ? "FAILED" : "PASS");
  return failures ? 1 : 0;
}
