// The kern REPL's entry point, called by the CLI (tools/kern/main.cpp).
#pragma once

#include "kern/kern.hpp"

/// Reads inputs from standard input until `:quit` or its end; returns the exit code.
int runRepl(const kern::Options &options);
