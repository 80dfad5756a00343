// The kernel's side of the sandbox (docs/sandbox.md): the seccomp filter, Landlock's file-system
// rules and the resource limits that a sandboxed program's child process puts on itself. Each
// applies to the calling process only, for the rest of its life. engine/sandbox.cpp forks the
// child and calls these in it; tests/unit/engine installs the same filter in a forked child.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kern::sandbox {

/// Whether this kern was built with seccomp (libseccomp).
bool seccompBuiltIn();

/// Installs kern's system-call filter on every thread of the calling process, with no way
/// back: an allow-list of what kern and its JIT need (memory, threads, files, time, signals to
/// itself); clone only for threads, process_vm_readv only on itself, prlimit64 only to read.
/// Anything else (socket, connect, fork, execve, ptrace, mount, setrlimit...) raises SIGSYS
/// in the thread that tried it (SECCOMP_RET_TRAP; siginfo's si_syscall says which), and the
/// system call is not made. clone3 fails with ENOSYS (the C library then uses clone). False
/// with `error` set if the filter could not be installed (no seccomp in this kernel, or a
/// container that forbids it).
bool installFilter(std::string &error);

/// The name of system call `number` of this machine ("socket"), or "system call N".
std::string syscallName(int number);

/// Installs a SIGSYS handler that stores the forbidden system call's number in `*slot` and
/// ends the process with `exitCode` at once (the handler uses nothing but the exit).
void trapForbiddenCalls(volatile int32_t *slot, int exitCode);

/// Installs a SIGXCPU handler (RLIMIT_CPU's soft limit) that sets `*flag` and ends the process
/// with `exitCode` at once.
void trapCpuLimit(volatile int32_t *flag, int exitCode);

/// What applyLandlock achieved.
enum class Landlock {
  Applied,     // the rules hold for the rest of the process's life
  Unsupported, // the kernel has no Landlock (before Linux 5.13, or not enabled)
  Failed,      // Landlock is there but refused the rules (`error` says why)
};

/// Restricts the calling process's file system to reading beneath `readPaths` (directories or
/// single files) and to reading, creating, writing and removing beneath `writeDirs`: nothing
/// else can be opened, created or removed, by any thread, from now on. Paths that do not exist
/// are skipped.
Landlock applyLandlock(const std::vector<std::string> &readPaths,
                       const std::vector<std::string> &writeDirs, std::string &error);

/// Sets the calling process's address-space limit (RLIMIT_AS, if `memoryBytes` > 0), CPU-time
/// limit (RLIMIT_CPU, if `cpuSeconds` > 0: SIGXCPU at the limit rounded up to a second, SIGKILL
/// a second later) and no core dumps. False with `error` set if the system refused, or if
/// `memoryBytes` leaves too little room beside what the process has mapped already.
bool setLimits(uint64_t memoryBytes, double cpuSeconds, std::string &error);

/// The whole CPU seconds RLIMIT_CPU gets for `cpuSeconds` (at least 1).
uint64_t cpuLimitSeconds(double cpuSeconds);

/// Closes every file descriptor of the calling process but 0, 1, 2 and `keep` (inherited
/// sockets and files of the caller are not the program's).
void closeOtherDescriptors(int keep);

} // namespace kern::sandbox
