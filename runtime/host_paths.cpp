// A sandboxed run's confinement of host code's files (RuntimeOptions::Sandbox, docs/sandbox.md):
// fopen, open, remove, mkdir, stat and cuModuleLoad reach only paths beneath the sandbox's
// directories, after every symbolic link is resolved; others fail with EACCES, as they would
// in a sandbox of the operating system (which the sandbox's child also has: Landlock). And the
// note of a malloc that its memory limit refused.
#include "runtime/runtime.h"

#include <climits>
#include <cstdlib>
#include <sys/stat.h>

#include <cerrno>

namespace kern::runtime {

namespace {

/// The canonical path an open of `path` would reach: an existing file's real path, or for one
/// not there yet its directory's real path and its name. Empty when neither resolves (and for
/// a dangling symbolic link, which would create its target elsewhere).
std::string resolvePath(const char *path) {
  char buf[PATH_MAX];
  struct stat st;
  if (lstat(path, &st) == 0)
    return realpath(path, buf) ? std::string(buf) : std::string();
  const std::string p = path;
  const size_t slash = p.rfind('/');
  const std::string dir = slash == std::string::npos ? std::string(".")
                          : slash == 0               ? std::string("/")
                                                     : p.substr(0, slash);
  const std::string name = slash == std::string::npos ? p : p.substr(slash + 1);
  if (name.empty() || name == "." || name == ".." || !realpath(dir.c_str(), buf))
    return {};
  std::string r = buf;
  if (r != "/")
    r += '/';
  return r + name;
}

/// A size for a message: "4 GiB", "256 MiB", "1000 bytes".
std::string sizeText(uint64_t bytes) {
  if (bytes >= (uint64_t(1) << 30) && bytes % (uint64_t(1) << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (uint64_t(1) << 20))
    return std::to_string((bytes + (uint64_t(1) << 20) - 1) >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

/// `path` is `dir` or inside it.
bool beneath(const std::string &path, const std::string &dir) {
  if (dir.empty() || path.compare(0, dir.size(), dir) != 0)
    return false;
  return path.size() == dir.size() || dir.back() == '/' || path[dir.size()] == '/';
}

} // namespace

bool Runtime::sandboxAllows(const char *function, const char *path, bool write) {
  const RuntimeOptions::Sandbox &sb = options_.sandbox;
  if (!sb.enabled)
    return true;
  const std::string real = resolvePath(path);
  bool ok = !real.empty() && beneath(real, sb.writeDir);
  for (size_t i = 0; !ok && !write && !real.empty() && i < sb.readDirs.size(); ++i)
    ok = beneath(real, sb.readDirs[i]);
  if (ok)
    return true;
  lib_.err = EACCES;
  constexpr uint32_t kNotes = 5; // a program that tries in a loop is not noted each time
  if (lib_.sandboxNotes < kNotes) {
    ++lib_.sandboxNotes;
    std::string where =
        write ? (sb.writeDir.empty() ? "it may write nowhere (no output directory was given)"
                                     : "it may write beneath " + sb.writeDir + " only")
              : "it may read its own directory, the -I and allowed directories and its output "
                "directory only";
    note(std::string("kern: sandbox: ") + function + "(\"" + path + "\") denied: " + where +
         " (errno EACCES)\n");
  }
  return false;
}

void Runtime::hostAllocationFailed(uint64_t bytes) {
  const RuntimeOptions::Sandbox &sb = options_.sandbox;
  if (!sb.enabled || sb.memoryLimitBytes == 0)
    return;
  if (!lib_.memoryLimitNoted) {
    lib_.memoryLimitNoted = true;
    note("kern: sandbox: memory limit exceeded: an allocation of " + sizeText(bytes) +
         " failed under the limit of " + sizeText(sb.memoryLimitBytes) +
         " (malloc returns NULL)\n");
  }
  if (sb.onMemoryLimit)
    sb.onMemoryLimit();
}

} // namespace kern::runtime
