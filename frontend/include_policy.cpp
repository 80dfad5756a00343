// Which files an #include may read (frontend/include_policy.h).
#include "frontend/include_policy.h"

namespace kern::frontend {

namespace {

/// `path` is `dir` or inside it (both absolute and lexically normal).
bool beneath(const std::string &path, const std::string &dir) {
  if (dir.empty() || path.compare(0, dir.size(), dir) != 0)
    return false;
  return path.size() == dir.size() || dir.back() == '/' || path[dir.size()] == '/';
}

/// The kernel's pseudo-file systems: what they hold is the machine's and the process's state
/// (its environment, memory maps, devices), never a source file.
bool pseudoFile(const std::string &path) {
  for (const char *dir : {"/proc", "/sys", "/dev"})
    if (beneath(path, dir))
      return true;
  return false;
}

} // namespace

std::string includeRefusal(const std::filesystem::path &target, const PreprocessOptions &options) {
  std::error_code ec;
  const std::string written = std::filesystem::absolute(target, ec).lexically_normal().string();
  std::filesystem::path real = std::filesystem::weakly_canonical(target, ec);
  const std::string resolved = ec ? written : real.string();
  if (pseudoFile(written) || pseudoFile(resolved))
    return "is under /proc, /sys or /dev: only source files can be included";
  if (!options.confineIncludes)
    return {};
  for (const std::string &root : options.includeRoots) {
    std::filesystem::path r = std::filesystem::weakly_canonical(root, ec);
    if (!ec && beneath(resolved, r.string()))
      return {};
  }
  return "is outside the directories that this sandboxed compile may read (the program's own "
         "directory, the -I and allowed directories)";
}

} // namespace kern::frontend
