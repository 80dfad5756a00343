// The Itanium C++ ABI's name of a function: what nvcc's host compiler and ptxas call a kernel
// that is not `extern "C"` (`_Z9vectorAddPKfS0_Pfi`), and so what a driver-API program may pass
// to cuModuleGetFunction.
#pragma once

#include "frontend/ast.h"

#include <string>

namespace kern::frontend {

/// The mangled name of `f`; empty for a function of C linkage, and for one whose name or
/// parameter types this does not mangle (templates, namespaces, function pointers).
std::string itaniumName(const FunctionDecl &f);

} // namespace kern::frontend
