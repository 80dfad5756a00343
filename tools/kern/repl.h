// The kern REPL's entry point, called by the CLI (tools/kern/main.cpp).
#pragma once

#include "kern/kern.hpp"

/// Reads inputs from standard input until `:quit` or its end; returns the exit code. `mode`:
/// the session's mode at the start (Profile, the REPL's default, or Fast; `:mode` switches).
int runRepl(const kern::Options &options, kern::Mode mode = kern::Mode::Profile);
