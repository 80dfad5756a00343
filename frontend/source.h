// Source files, locations and diagnostics: the user-error channel of every layer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kern::frontend {

/// A position in the original (not preprocessed) source. Lines and columns are 1-based;
/// line 0 means "no location".
struct SourceLoc {
  uint32_t file = 0;
  uint32_t line = 0;
  uint32_t col = 0;
  bool isValid() const { return line != 0; }
};

/// Owns the text of every file read for a program, so diagnostics can quote lines.
class SourceManager {
public:
  /// Adds a file's text; returns its id.
  uint32_t addFile(std::string name, std::string text);
  const std::string &fileName(uint32_t id) const { return files_[id].name; }
  const std::string &fileText(uint32_t id) const { return files_[id].text; }
  /// The text of one line (without its newline), or empty if out of range.
  std::string_view lineText(uint32_t file, uint32_t line) const;
  size_t fileCount() const { return files_.size(); }

private:
  struct File {
    std::string name;
    std::string text;
    std::vector<size_t> lineStarts;
  };
  std::vector<File> files_;
};

enum class Severity { Error, Warning, Note };

/// A user-facing message: "file:line:col: error: message", then the source line and a caret.
/// Messages start lower-case and carry no final period (LLVM style).
struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLoc loc;
  std::string message;
};

/// Collects diagnostics. Phases report here and keep going quietly (no cascades).
class DiagnosticEngine {
public:
  explicit DiagnosticEngine(const SourceManager &sm) : sm_(sm) {}
  void error(SourceLoc loc, std::string message);
  void warning(SourceLoc loc, std::string message);
  void note(SourceLoc loc, std::string message);
  /// Adds `d` unless an identical diagnostic is already there (two passes over one file).
  void addUnique(const Diagnostic &d);
  bool hasErrors() const { return errorCount_ > 0; }
  unsigned errorCount() const { return errorCount_; }
  const std::vector<Diagnostic> &diagnostics() const { return diags_; }
  /// Renders one diagnostic with its source line and caret.
  std::string render(const Diagnostic &d, bool color = false) const;
  /// Renders all diagnostics.
  std::string renderAll(bool color = false) const;
  const SourceManager &sources() const { return sm_; }

private:
  const SourceManager &sm_;
  std::vector<Diagnostic> diags_;
  unsigned errorCount_ = 0;
};

} // namespace kern::frontend
