// AST -> Kern IR lowering: per-thread, structured control flow, explicit address spaces, sites.
#pragma once

#include "frontend/ast.h"
#include "ir/ir.h"

#include <memory>

namespace kern::ir {

/// Lowers a translation unit that sema accepted. Constructs the IR cannot express yet are
/// reported to `diags` (one diagnostic naming the construct); returns null if any error. Site
/// and global ids start at `firstSite` and `firstGlobal` (Module::firstGlobalId).
std::unique_ptr<Module> lower(frontend::TranslationUnit &tu, frontend::TypeContext &types,
                              frontend::DiagnosticEngine &diags, const std::string &name,
                              uint32_t firstSite = 1, uint32_t firstGlobal = 0);

} // namespace kern::ir
