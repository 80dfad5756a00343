// The preprocessor's logical lines (frontend/pp_lines.h).
#include "frontend/pp_lines.h"

namespace kern::frontend::pp_detail {

std::vector<LogicalLine> readLogicalLines(const std::string &text,
                                          std::pair<uint32_t, uint32_t> &openComment) {
  openComment = {0, 0};
  std::vector<LogicalLine> lines;
  uint32_t physical = 0;
  size_t pos = 0;
  bool continuing = false;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    bool last = nl == std::string::npos;
    std::string line = text.substr(pos, last ? std::string::npos : nl - pos);
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    ++physical;
    bool splice = !line.empty() && line.back() == '\\';
    if (splice)
      line.pop_back();
    if (continuing) {
      lines.back().text += line;
      lines.back().span++;
    } else {
      lines.push_back({line, physical, 1});
    }
    continuing = splice;
    if (last)
      break;
    pos = nl + 1;
  }
  // A final newline leaves an empty last line that is not a line of the file.
  if (lines.size() > 1 && lines.back().text.empty() && !text.empty() && text.back() == '\n')
    lines.pop_back();

  bool inBlock = false;
  for (LogicalLine &l : lines) {
    std::string &s = l.text;
    char quote = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if (inBlock) {
        if (s.compare(i, 2, "*/") == 0) {
          s[i] = s[i + 1] = ' ';
          ++i;
          inBlock = false;
        } else {
          s[i] = ' ';
        }
        continue;
      }
      if (quote) {
        if (s[i] == '\\')
          ++i;
        else if (s[i] == quote)
          quote = 0;
        continue;
      }
      if (s[i] == '"' || s[i] == '\'') {
        quote = s[i];
      } else if (s.compare(i, 2, "//") == 0) {
        for (size_t j = i; j < s.size(); ++j)
          s[j] = ' ';
        break;
      } else if (s.compare(i, 2, "/*") == 0) {
        openComment = {l.line, static_cast<uint32_t>(i + 1)};
        s[i] = s[i + 1] = ' ';
        ++i;
        inBlock = true;
      }
    }
  }
  if (!inBlock)
    openComment = {0, 0};
  return lines;
}

} // namespace kern::frontend::pp_detail
