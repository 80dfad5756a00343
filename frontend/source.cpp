// Source files and diagnostics: line lookup for quoting, and clang-style rendering of messages.
#include "frontend/source.h"

namespace kern::frontend {

uint32_t SourceManager::addFile(std::string name, std::string text) {
  File f;
  f.name = std::move(name);
  f.text = std::move(text);
  f.lineStarts.push_back(0);
  for (size_t i = 0; i < f.text.size(); ++i)
    if (f.text[i] == '\n')
      f.lineStarts.push_back(i + 1);
  files_.push_back(std::move(f));
  return static_cast<uint32_t>(files_.size() - 1);
}

std::string_view SourceManager::lineText(uint32_t file, uint32_t line) const {
  if (file >= files_.size() || line == 0)
    return {};
  const File &f = files_[file];
  if (line > f.lineStarts.size())
    return {};
  size_t begin = f.lineStarts[line - 1];
  size_t end = line < f.lineStarts.size() ? f.lineStarts[line] - 1 : f.text.size();
  if (begin > f.text.size())
    return {};
  std::string_view sv(f.text.data() + begin, end - begin);
  // Files written on Windows keep their '\r'; it must not reach the terminal.
  if (!sv.empty() && sv.back() == '\r')
    sv.remove_suffix(1);
  return sv;
}

void DiagnosticEngine::error(SourceLoc loc, std::string message) {
  // One error per place and message: a construct analysed twice (a member call's object, say)
  // does not report itself twice.
  for (const Diagnostic &o : diags_)
    if (o.severity == Severity::Error && o.loc.file == loc.file && o.loc.line == loc.line &&
        o.loc.col == loc.col && o.message == message)
      return;
  diags_.push_back({Severity::Error, loc, std::move(message)});
  ++errorCount_;
}

void DiagnosticEngine::addUnique(const Diagnostic &d) {
  // Compared by file name: a second pass reads a file's headers again, under new file ids.
  auto same = [&](const Diagnostic &o) {
    return o.severity == d.severity && o.message == d.message && o.loc.line == d.loc.line &&
           o.loc.col == d.loc.col &&
           (o.loc.isValid() ? sm_.fileName(o.loc.file) : "") ==
               (d.loc.isValid() ? sm_.fileName(d.loc.file) : "");
  };
  for (const Diagnostic &o : diags_)
    if (same(o))
      return;
  diags_.push_back(d);
  if (d.severity == Severity::Error)
    ++errorCount_;
}

void DiagnosticEngine::warning(SourceLoc loc, std::string message) {
  diags_.push_back({Severity::Warning, loc, std::move(message)});
}

void DiagnosticEngine::note(SourceLoc loc, std::string message) {
  diags_.push_back({Severity::Note, loc, std::move(message)});
}

namespace {
// clang's colours, so kern's messages look like the compiler's a CUDA programmer knows.
const char *const kBold = "\033[1m";
const char *const kReset = "\033[0m";
const char *const kRed = "\033[0;1;31m";
const char *const kMagenta = "\033[0;1;35m";
const char *const kNoteColor = "\033[0;1;30m";
const char *const kGreen = "\033[0;1;32m";
} // namespace

std::string DiagnosticEngine::render(const Diagnostic &d, bool color) const {
  std::string out;
  bool hasFile = d.loc.file < sm_.fileCount();
  bool hasLine = hasFile && d.loc.isValid();
  std::string where;
  if (hasLine) {
    where = sm_.fileName(d.loc.file) + ":" + std::to_string(d.loc.line) + ":";
    if (d.loc.col != 0)
      where += std::to_string(d.loc.col) + ":";
    where += " ";
  } else if (hasFile && d.loc.col != 0) {
    // A location with a file but no line (col set as a marker) names just the file.
    where = sm_.fileName(d.loc.file) + ": ";
  }
  if (color && !where.empty())
    out += kBold + where + kReset;
  else
    out += where;
  const char *label = "error: ";
  const char *labelColor = kRed;
  if (d.severity == Severity::Warning) {
    label = "warning: ";
    labelColor = kMagenta;
  } else if (d.severity == Severity::Note) {
    label = "note: ";
    labelColor = kNoteColor;
  }
  if (color)
    out += labelColor;
  out += label;
  if (color) {
    out += kReset;
    out += kBold;
  }
  out += d.message;
  if (color)
    out += kReset;
  out += "\n";
  if (!hasLine)
    return out;
  std::string_view line = sm_.lineText(d.loc.file, d.loc.line);
  out += line;
  out += "\n";
  // The caret line copies the tabs of the source line so the caret lands under the column
  // whatever the terminal's tab width.
  std::string pad;
  uint32_t col = d.loc.col == 0 ? 1 : d.loc.col;
  for (uint32_t i = 0; i + 1 < col; ++i)
    pad += (i < line.size() && line[i] == '\t') ? '\t' : ' ';
  out += pad;
  if (color)
    out += kGreen;
  out += "^";
  if (color)
    out += kReset;
  out += "\n";
  return out;
}

std::string DiagnosticEngine::renderAll(bool color) const {
  std::string out;
  for (const Diagnostic &d : diags_)
    out += render(d, color);
  return out;
}

} // namespace kern::frontend
