// Which files an #include may read: never the kernel's pseudo-files (/proc, /sys, /dev), and in
// a sandboxed compile (PreprocessOptions::confineIncludes, docs/sandbox.md) only files beneath
// its readable directories.
#pragma once

#include "frontend/preprocessor.h"

#include <filesystem>
#include <string>

namespace kern::frontend {

/// Why the file at `target` may not be included, as the end of a diagnostic ("is under /proc,
/// ..."); empty if it may. Decided on the path with every symbolic link resolved, and on the
/// path as written.
std::string includeRefusal(const std::filesystem::path &target, const PreprocessOptions &options);

} // namespace kern::frontend
