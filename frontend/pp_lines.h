// The preprocessor's first step (frontend/pp_lines.cpp): a file as logical lines, comments
// blanked out.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kern::frontend::pp_detail {

struct LogicalLine {
  std::string text;
  uint32_t line = 0; // first physical line
  uint32_t span = 1; // physical lines joined by backslash-newline
};

/// Splits a file into logical lines (backslash-newline joined) and blanks out comments, keeping
/// newlines so that line numbers stay right and comment text keeps its width. A `/*` that the
/// file never closes is noted in `openComment` (its line and column; 0 if none).
std::vector<LogicalLine> readLogicalLines(const std::string &text,
                                          std::pair<uint32_t, uint32_t> &openComment);

} // namespace kern::frontend::pp_detail
