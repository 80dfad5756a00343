// The pragmas that change what a program means: `#pragma pack`, which sets the largest
// alignment of the members of the structs defined after it (the others are ignored).
#pragma once

#include "frontend/pp_token.h"
#include "frontend/source.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kern::frontend::pp_detail {

/// The `#pragma pack` state of one translation unit: the value in effect (0: none, members at
/// their natural alignment) and the values `push` saved, each with its optional name.
struct PackState {
  uint64_t current = 0;
  std::vector<std::pair<std::string, uint64_t>> stack;
};

/// Applies `#pragma pack` whose tokens after `pack` are `args`, as GCC does: `pack(n)`,
/// `pack()`, `pack(push[, name][, n])`, `pack(pop[, name][, n])` (a pop past an empty stack or an
/// unknown name, and an n that is not 1, 2, 4, 8 or 16 are warnings, ignored as GCC ignores
/// them). `at` is the directive's location. Returns true when `state.current` may have changed.
bool packPragma(const std::vector<PPToken> &args, PackState &state, DiagnosticEngine &diags,
                SourceLoc at);

} // namespace kern::frontend::pp_detail
