// The seccomp filter, Landlock rules and resource limits of a sandboxed program's child process
// (engine/sandbox_confine.h, docs/sandbox.md).
#include "engine/sandbox_confine.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef KERN_HAVE_SECCOMP
#include <seccomp.h>
#include <sys/ioctl.h>
#endif

// Rights of later Landlock ABIs than the C library's headers may know.
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

namespace kern::sandbox {

namespace {

#ifdef KERN_HAVE_SECCOMP
/// What kern, its JIT, the C and C++ libraries and Boost.Context call while a program compiles
/// and runs (found with strace over kern's tests): memory, threads and their synchronisation,
/// files (Landlock limits which), time, and signals within the process. Names unknown to this
/// kernel's table are skipped.
const char *const kAllowed[] = {
    // memory (the JIT maps code writable, then executable)
    "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "msync", "mincore", "membarrier",
    // threads, their stacks and synchronisation
    "futex", "futex_waitv", "set_robust_list", "get_robust_list", "set_tid_address", "rseq",
    "arch_prctl", "sched_yield", "sched_getaffinity", "sched_setaffinity", "sched_getparam",
    "sched_getscheduler", "sched_get_priority_max", "sched_get_priority_min", "getcpu",
    // files and descriptors (which paths: Landlock and the runtime's own check)
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2",
    "pwritev2", "open", "openat", "openat2", "creat", "close", "close_range", "lseek", "stat",
    "fstat", "lstat", "newfstatat", "statx", "statfs", "fstatfs", "access", "faccessat",
    "faccessat2", "getdents", "getdents64", "readlink", "readlinkat", "getcwd", "fcntl", "dup",
    "dup2", "dup3", "pipe", "pipe2", "ftruncate", "truncate", "fsync", "fdatasync", "fadvise64",
    "fallocate", "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat",
    "rmdir", "chmod", "fchmod", "fchmodat", "utimensat", "umask", "poll", "ppoll", "select",
    "pselect6", "sendfile", "copy_file_range",
    // time
    "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time",
    "times",
    // identity and the machine (read only)
    "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getgroups",
    "getresuid", "getresgid", "getpgrp", "getpgid", "getsid", "uname", "sysinfo", "getrusage",
    "getrlimit", "getrandom", "getpriority",
    // signals within the process (kill and tgkill: to itself only, below)
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigtimedwait",
    "rt_sigsuspend", "sigaltstack", "restart_syscall", "alarm", "setitimer", "getitimer",
    "timer_create", "timer_settime", "timer_gettime", "timer_delete", "timer_getoverrun",
    // the end
    "exit", "exit_group"};

bool addRule(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned count,
             const scmp_arg_cmp *args) {
  const int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR)
    return true; // not a system call of this machine
  return seccomp_rule_add_array(ctx, action, nr, count, args) == 0;
}

bool buildAndLoad(std::string &error) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
  if (!ctx) {
    error = "seccomp_init failed";
    return false;
  }
  bool ok = true;
  for (const char *name : kAllowed)
    ok &= addRule(ctx, SCMP_ACT_ALLOW, name, 0, nullptr);
  const auto self = static_cast<scmp_datum_t>(getpid());
  // Threads only: a clone without CLONE_THREAD would be a new process.
  const scmp_arg_cmp thread[] = {SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD)};
  ok &= addRule(ctx, SCMP_ACT_ALLOW, "clone", 1, thread);
  // clone3's flags are in memory that a filter cannot read: ENOSYS makes glibc use clone.
  ok &= addRule(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, nullptr);
  // printf's safe string read (runtime) reads its own memory this way, and no one else's.
  const scmp_arg_cmp own[] = {SCMP_A0(SCMP_CMP_EQ, self)};
  ok &= addRule(ctx, SCMP_ACT_ALLOW, "process_vm_readv", 1, own);
  ok &= addRule(ctx, SCMP_ACT_ALLOW, "kill", 1, own);
  ok &= addRule(ctx, SCMP_ACT_ALLOW, "tgkill", 1, own);
  // Reading a limit is harmless; prlimit64 with a new limit (or of another process) is not.
  const scmp_arg_cmp readLimit[] = {SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0)};
  ok &= addRule(ctx, SCMP_ACT_ALLOW, "prlimit64", 2, readLimit);
  // isatty() and the terminal's size; any other ioctl (TIOCSTI...) is forbidden.
  const scmp_arg_cmp tcgets[] = {SCMP_A1(SCMP_CMP_EQ, TCGETS)};
  const scmp_arg_cmp winsize[] = {SCMP_A1(SCMP_CMP_EQ, TIOCGWINSZ)};
  ok &= addRule(ctx, SCMP_ACT_ALLOW, "ioctl", 1, tcgets);
  ok &= addRule(ctx, SCMP_ACT_ALLOW, "ioctl", 1, winsize);
  // Thread names (LLVM and the C++ library set them); other prctl options are forbidden.
  const scmp_arg_cmp setName[] = {SCMP_A0(SCMP_CMP_EQ, PR_SET_NAME)};
  const scmp_arg_cmp getName[] = {SCMP_A0(SCMP_CMP_EQ, PR_GET_NAME)};
  ok &= addRule(ctx, SCMP_ACT_ALLOW, "prctl", 1, setName);
  ok &= addRule(ctx, SCMP_ACT_ALLOW, "prctl", 1, getName);
  if (!ok) {
    seccomp_release(ctx);
    error = "a seccomp rule was refused";
    return false;
  }
  const int rc = seccomp_load(ctx); // sets no_new_privs first (SCMP_FLTATR_CTL_NNP)
  seccomp_release(ctx);
  if (rc != 0) {
    error = std::string("seccomp_load failed: ") + std::strerror(-rc);
    return false;
  }
  return true;
}
#endif

int32_t *gSlot = nullptr;
int gExitCode = 0;
int32_t *gCpuFlag = nullptr;
int gCpuExitCode = 0;

void onSigsys(int, siginfo_t *info, void *) {
  if (gSlot)
    *gSlot = info->si_syscall;
  syscall(SYS_exit_group, gExitCode);
}

void onSigxcpu(int) {
  if (gCpuFlag)
    *gCpuFlag = 1;
  syscall(SYS_exit_group, gCpuExitCode);
}

/// The address space the process has mapped, in bytes (0 if unknown).
uint64_t mappedBytes() {
  FILE *f = std::fopen("/proc/self/statm", "r");
  if (!f)
    return 0;
  unsigned long long pages = 0;
  const bool ok = std::fscanf(f, "%llu", &pages) == 1;
  std::fclose(f);
  return ok ? pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

} // namespace

bool seccompBuiltIn() {
#ifdef KERN_HAVE_SECCOMP
  return true;
#else
  return false;
#endif
}

bool installFilter(std::string &error) {
#ifdef KERN_HAVE_SECCOMP
  return buildAndLoad(error);
#else
  error = "this kern was built without seccomp (libseccomp)";
  return false;
#endif
}

std::string syscallName(int number) {
#ifdef KERN_HAVE_SECCOMP
  if (char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, number)) {
    std::string s = name;
    std::free(name);
    return s;
  }
#endif
  return "system call " + std::to_string(number);
}

void trapForbiddenCalls(volatile int32_t *slot, int exitCode) {
  gSlot = const_cast<int32_t *>(slot);
  gExitCode = exitCode;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = onSigsys;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSYS, &sa, nullptr);
}

void trapCpuLimit(volatile int32_t *flag, int exitCode) {
  gCpuFlag = const_cast<int32_t *>(flag);
  gCpuExitCode = exitCode;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = onSigxcpu;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGXCPU, &sa, nullptr);
}

Landlock applyLandlock(const std::vector<std::string> &readPaths,
                       const std::vector<std::string> &writeDirs, std::string &error) {
  const long abi =
      syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1)
    return Landlock::Unsupported;
  // Every right this kernel's Landlock knows is handled, so each is denied unless a rule gives it.
  uint64_t handled = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; // ABI 1
  if (abi >= 2)
    handled |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3)
    handled |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi >= 5)
    handled |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
  const uint64_t fileRights =
      LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE;
  const uint64_t readRights = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
  const uint64_t writeRights =
      readRights | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
      LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
      LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE;

  struct landlock_ruleset_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.handled_access_fs = handled;
  const int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (ruleset < 0) {
    error = std::string("landlock_create_ruleset: ") + std::strerror(errno);
    return Landlock::Failed;
  }
  auto addPath = [&](const std::string &path, uint64_t rights) {
    const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0)
      return true; // nothing there to allow
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
      rights &= fileRights; // a single file takes the rights of files only
    struct landlock_path_beneath_attr beneath;
    std::memset(&beneath, 0, sizeof beneath);
    beneath.allowed_access = rights & handled;
    beneath.parent_fd = fd;
    const long rc =
        syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0);
    const int saved = errno;
    close(fd);
    if (rc != 0) {
      error = "landlock_add_rule('" + path + "'): " + std::strerror(saved);
      return false;
    }
    return true;
  };
  bool ok = true;
  for (const std::string &p : readPaths)
    ok = ok && addPath(p, readRights);
  for (const std::string &p : writeDirs)
    ok = ok && addPath(p, writeRights);
  if (ok && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    error = std::string("PR_SET_NO_NEW_PRIVS: ") + std::strerror(errno);
    ok = false;
  }
  if (ok && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
    error = std::string("landlock_restrict_self: ") + std::strerror(errno);
    ok = false;
  }
  close(ruleset);
  return ok ? Landlock::Applied : Landlock::Failed;
}

uint64_t cpuLimitSeconds(double cpuSeconds) {
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(cpuSeconds)));
}

bool setLimits(uint64_t memoryBytes, double cpuSeconds, std::string &error) {
  auto set = [&error](int resource, rlim_t soft, rlim_t hard, const char *what) {
    struct rlimit rl;
    if (getrlimit(resource, &rl) == 0 && rl.rlim_max != RLIM_INFINITY) {
      soft = std::min(soft, rl.rlim_max); // never above what the caller already had
      hard = std::min(hard, rl.rlim_max);
    }
    rl.rlim_cur = soft;
    rl.rlim_max = hard;
    if (setrlimit(resource, &rl) != 0) {
      error = std::string("cannot set the ") + what + " limit: " + std::strerror(errno);
      return false;
    }
    return true;
  };
  if (!set(RLIMIT_CORE, 0, 0, "core size"))
    return false;
  // kern's own code and libraries (LLVM's above all) are mapped already, and compiling and
  // running take more: a limit that leaves less than this is refused rather than failing
  // somewhere inside the compiler.
  constexpr uint64_t kHeadroom = uint64_t(64) << 20;
  const uint64_t mapped = mappedBytes();
  if (memoryBytes > 0 && memoryBytes < mapped + kHeadroom) {
    error = "the memory limit (" + std::to_string(memoryBytes >> 20) +
            " MiB) is below what kern itself needs: its code and libraries take " +
            std::to_string(mapped >> 20) + " MiB of address space; allow at least " +
            std::to_string((mapped + kHeadroom + (uint64_t(1) << 20) - 1) >> 20) + " MiB";
    return false;
  }
  if (memoryBytes > 0 && !set(RLIMIT_AS, memoryBytes, memoryBytes, "memory"))
    return false;
  if (cpuSeconds > 0) {
    const uint64_t s = cpuLimitSeconds(cpuSeconds);
    if (!set(RLIMIT_CPU, s, s + 1, "CPU time"))
      return false;
  }
  return true;
}

void closeOtherDescriptors(int keep) {
  // Descriptors above `keep` first, then those between 2 and it.
  if (syscall(SYS_close_range, static_cast<unsigned>(keep) + 1, ~0U, 0) != 0)
    for (int fd = keep + 1; fd < 65536; ++fd)
      close(fd);
  for (int fd = 3; fd < keep; ++fd)
    close(fd);
}

} // namespace kern::sandbox
