// The preprocessor's token, shared by the preprocessor (preprocessor.cpp) and its #if expression
// evaluator (pp_expr.cpp).
#pragma once

#include <string>
#include <vector>

namespace kern::frontend::pp_detail {

enum class TokKind { Ident, Number, String, Char, Punct };

struct PPToken {
  TokKind kind = TokKind::Punct;
  std::string text;
  std::string ws;                // whitespace written before the token
  int col = -1;                  // 0-based column in its source line; -1 once macro-produced
  std::vector<std::string> hide; // macros whose expansion produced it (Prosser's hide set)
  bool noExpand = false;         // named a macro inside that macro's own expansion
};

} // namespace kern::frontend::pp_detail
