// Linking several checked translation units into one program, as a C++ linker does (with CUDA's
// separate compilation, -rdc=true): every external name has one definition across the files,
// `static` names and namespace-scope `const` variables stay in their own file, and `inline`
// functions defined in several files (a header's) are one function.
#pragma once

#include "frontend/ast.h"
#include "frontend/source.h"

#include <vector>

namespace kern::frontend {

/// Resolves the file-scope declarations of `units` (each already checked by sema) against one
/// another and appends all their declarations to `linked.decls`, which owns none of them.
/// A declaration in one file whose definition is in another is pointed at it
/// (FunctionDecl::definition); variables share storage by name. File-local names that clash
/// with a name of another file are renamed (`name.N`, N the file's number counting from 1) so
/// that every name in `linked` means one entity. Reports multiple definitions, conflicting
/// types across files and a missing or repeated `main` to `diags`; returns false on error.
/// With one unit it only copies the declarations.
bool linkTranslationUnits(const std::vector<TranslationUnit *> &units, TranslationUnit &linked,
                          DiagnosticEngine &diags);

/// One file whose code depends on `__CUDA_ARCH__` is compiled twice, as nvcc does: a device
/// pass (`device`, with the macro defined) and a host pass (`host`, without). This keeps from
/// the device pass the kernels, the __device__ functions, the device side of __host__
/// __device__ functions and the __device__/__constant__/__shared__ variables, and from the
/// host pass the host functions, the host side of __host__ __device__ functions (renamed
/// `name.host`) and the host variables; what each pass does not keep becomes a declaration of
/// the other's definition. `merged.decls` gets both passes' declarations (owning none).
void mergeDeviceAndHostPasses(TranslationUnit &device, TranslationUnit &host,
                              TranslationUnit &merged);

} // namespace kern::frontend
