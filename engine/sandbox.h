// Sandboxed programs (Options::sandbox, docs/sandbox.md): a child process, forked before the
// program is compiled, confines itself (engine/sandbox_confine.h), compiles the program and, on
// Program::run, runs it; its output, diagnostics, reports and result come back over a socket,
// and its death (a forbidden system call, a crash, a limit) is reported without harm to the
// caller.
#pragma once

#include "kern/kern.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kern {

/// The child process of one sandboxed Program (sandbox.cpp).
struct SandboxChild;

/// What a sandboxed compile is given: the texts, or the paths that the child reads.
struct SandboxSources {
  std::vector<SourceFile> files;
  std::vector<std::string> paths;
  bool fromPaths = false;
};

/// Compiles `sources` in a new sandboxed child (Options::sandbox). The Program::Impl returned
/// holds the child (Impl::sandbox) and its diagnostics; it is ok() if the child compiled them.
std::unique_ptr<Program::Impl> compileSandboxed(const Options &options, SandboxSources sources);

/// Whether `p`'s child compiled the program.
bool sandboxCompiled(const SandboxChild &child);

/// Runs the program of `p` (a sandboxed one) with `args` in its child and waits for it.
RunResult runSandboxed(Program::Impl &p, const std::vector<std::string> &args);

/// True in the child process of a sandboxed program: Engine::compile there compiles in place.
bool insideSandbox();

/// The directories a sandboxed program may read: SandboxOptions::allowRead, the -I directories,
/// the directories of the source files named in `paths`, and the output directory; each made
/// absolute and canonical (those that do not exist are left out).
std::vector<std::string> sandboxReadDirs(const Options &options,
                                         const std::vector<std::string> &paths);

/// In the child: what writes a report file (Options::reportPath...), by sending it to the
/// parent, which writes it. Empty outside a sandbox's child.
std::function<bool(const std::string &path, const std::string &text)> sandboxReportWriter();

/// In the child: what the runtime calls when an allocation fails under the memory limit (the
/// parent then reports Status::MemoryLimit for a failed run). Empty outside a sandbox's child.
std::function<void()> sandboxMemoryHook();

} // namespace kern
