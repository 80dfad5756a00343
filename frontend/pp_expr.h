// The preprocessor's #if expression evaluator: C's integer expressions over preprocessor tokens.
#pragma once

#include "frontend/pp_token.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kern::frontend::pp_detail {

/// Evaluates the tokens of a #if or #elif condition, `defined` and macros already replaced, in
/// int64_t: unknown identifiers are 0 (`true` is 1), character constants as the compiler reads
/// them. On a malformed expression returns 0 and sets `error` to the first problem's message.
int64_t evalExpression(std::vector<PPToken> toks, std::string &error);

} // namespace kern::frontend::pp_detail
