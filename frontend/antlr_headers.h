// The ANTLR runtime and the generated Kern lexer and parser, for the front end's .cpp files only:
// no header that another layer includes may include this one.
#pragma once

// The ANTLR runtime's headers are not warning-clean under -Wall -Wextra.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wattributes"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "KernLexer.h"
#include "KernParser.h"
#include "antlr4-runtime.h"
#pragma GCC diagnostic pop
