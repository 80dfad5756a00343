// The state of the host C library that compiled host code calls: errno, getopt's globals and
// position, and the program's open files (FILE* handles).
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kern::runtime {

/// The FILE* values host code sees are handles, never the runtime's own FILE objects: small
/// integers that every stream function validates (a bad or closed FILE* is a reported error).
/// stdout, stderr and stdin are 1, 2 and 3; the n-th file fopen opened is kFirstFileHandle + n.
/// Handles are never reused, so a closed one stays invalid.
constexpr uint64_t kStdoutHandle = 1;
constexpr uint64_t kStderrHandle = 2;
constexpr uint64_t kStdinHandle = 3;
constexpr uint64_t kFirstFileHandle = 16;

struct HostFile {
  std::FILE *fp = nullptr; ///< null once closed
  std::string name;
};

/// A file descriptor of the program (fcntl.h's open, unistd.h's read, write, close, lseek):
/// its number is its index in HostLibraryState::fds. 0, 1 and 2 are stdin, stdout and stderr;
/// open gives the lowest free number, as POSIX does, for a file the runtime opened.
struct HostFd {
  bool open = false;
  int os = -1; ///< the runtime's descriptor of the file; -1 for 0, 1 and 2
};

struct HostLibraryState {
  /// The program's errno (errno.h's `errno` is `*__kern_errno_location()`).
  int32_t err = 0;
  /// What setenv and unsetenv changed in the program's environment (a removed name maps to
  /// nothing): its getenv looks here before the process's environment, which stays as it was.
  std::map<std::string, std::optional<std::string>> environment;
  /// getopt's globals (unistd.h's optarg, optind, opterr, optopt name these) and its position
  /// inside a group of short options ("-abc").
  char *optarg = nullptr;
  int32_t optind = 1;
  int32_t opterr = 1;
  int32_t optopt = '?';
  const char *nextChar = nullptr;
  /// Where the non-options that getopt skipped begin and end in argv (permutation).
  int32_t firstNonOpt = 1;
  int32_t lastNonOpt = 1;
  /// Files opened by fopen, by handle - kFirstFileHandle.
  std::vector<HostFile> files;
  /// File descriptors, by number (empty until the first use: then 0, 1 and 2 are open).
  std::vector<HostFd> fds;
  /// argv[0] of the run of main in progress.
  std::string programName;
  /// Whether the note that file access is disabled was printed.
  bool deniedNoted = false;
  /// Paths outside the sandbox's directories noted so far (the first few are), and whether a
  /// malloc over its memory limit was noted.
  uint32_t sandboxNotes = 0;
  bool memoryLimitNoted = false;
  /// strtok's position.
  char *strtokNext = nullptr;
  /// qsort's merge buffer.
  std::vector<char> scratch;

  /// Closes every file the program left open (its output reaches the disk, as at exit).
  void closeAll() {
    for (HostFile &f : files)
      if (f.fp) {
        std::fclose(f.fp);
        f.fp = nullptr;
      }
    closeDescriptors();
  }
  /// Whether `fd` is an open file descriptor of the program.
  bool isOpenFd(int64_t fd) const {
    if (fd < 0)
      return false;
    if (fds.empty())
      return fd <= 2;
    return static_cast<uint64_t>(fd) < fds.size() && fds[fd].open;
  }
  void closeDescriptors(); // host_files.cpp
  ~HostLibraryState() { closeAll(); }
};

} // namespace kern::runtime

namespace kern::runtime {

class Runtime;

/// Where the scanf family reads: a FILE (fp), a string (text), or nothing (both null: at its
/// end at once, as stdin where the program may not read).
struct ScanSource {
  std::FILE *fp = nullptr;
  const char *text = nullptr;
  uint64_t pos = 0;   // into text
  uint64_t count = 0; // characters consumed (%n)
  int get() {
    int c = fp ? std::fgetc(fp) : text && text[pos] ? static_cast<unsigned char>(text[pos++]) : -1;
    if (c != -1)
      ++count;
    return c;
  }
  void unget(int c) {
    if (c == -1)
      return;
    --count;
    if (fp)
      std::ungetc(c, fp);
    else
      --pos;
  }
};

/// scanf's work (host_scan.cpp): reads `src` as `fmt` says, storing through the pointers
/// `args`. `result` is the number of assignments, or -1 (EOF) when the input ended before the
/// first conversion. False when an argument was bad (reported as `function`'s error).
bool scanFormat(Runtime &rt, const char *function, ScanSource &src, const char *fmt, int32_t nargs,
                const uint64_t *args, int32_t &result);

} // namespace kern::runtime
