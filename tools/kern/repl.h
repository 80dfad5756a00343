// The kern REPL's entry point, called by the CLI (tools/kern/main.cpp).
#pragma once

#include "kern/kern.hpp"

#include <string>

/// How a session that is not typed at a terminal is read.
struct ReplScript {
  std::string file;       ///< read the inputs from this file (-f); empty: standard input
  bool keepGoing = false; ///< run every input after an error (--keep-going); else stop there
};

/// Reads inputs from standard input (or script.file) until `:quit` or its end; returns the exit
/// code: 0, or the code of the script's first error (kern::Status). `mode`: the session's mode
/// at the start (Profile, the REPL's default, or Fast; `:mode` switches).
int runRepl(const kern::Options &options, kern::Mode mode = kern::Mode::Profile,
            const ReplScript &script = {});
