// The C preprocessor of .kern programs: line splicing, comments, macros, conditionals and local
// includes, keeping for every output line the original file and line it came from.
#include "frontend/preprocessor.h"

#include "frontend/include_policy.h"
#include "frontend/pp_expr.h"
#include "frontend/pp_lines.h"
#include "frontend/pp_pragma.h"
#include "frontend/pp_tables.h"
#include "frontend/text_headers.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace kern::frontend {

SourceLoc PreprocessedSource::map(uint32_t line, uint32_t col) const {
  if (lineMap.empty() || line == 0)
    return {};
  // The end-of-file token may sit one line past the last one; it belongs to the last line.
  if (line > lineMap.size())
    line = static_cast<uint32_t>(lineMap.size());
  SourceLoc loc = lineMap[line - 1];
  loc.col = col == 0 ? 1 : col;
  return loc;
}

uint64_t PreprocessedSource::packAt(uint32_t line) const {
  uint64_t pack = 0;
  for (const PackChange &c : packs) {
    if (c.first > line)
      break;
    pack = c.pack;
  }
  return pack;
}

namespace {

using pp_detail::kCudaHeaders;
using pp_detail::kCxxOnlyKeywords;
using pp_detail::kDeferredHeaders;
using pp_detail::kHeaderMacros;
using pp_detail::kPredefined;
using pp_detail::kSystemHeaders;
using pp_detail::LogicalLine;
using pp_detail::readLogicalLines;

using pp_detail::PPToken;
using pp_detail::TokKind;

struct Macro {
  bool function = false;
  bool variadic = false;
  std::vector<std::string> params;
  std::vector<PPToken> body;
};

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

const char *const kPuncts[] = {
    "<<<", ">>>", "...", "<<=", ">>=", "##", "<<", ">>", "<=", ">=", "==", "!=", "&&",
    "||",  "->",  "++",  "--",  "+=",  "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::"};

std::vector<PPToken> tokenize(const std::string &s, size_t from = 0) {
  std::vector<PPToken> out;
  size_t i = from;
  std::string ws;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ws += c;
      ++i;
      continue;
    }
    PPToken t;
    t.ws = std::move(ws);
    ws.clear();
    t.col = static_cast<int>(i);
    size_t start = i;
    if (isIdentStart(c)) {
      while (i < s.size() && isIdentChar(s[i]))
        ++i;
      t.kind = TokKind::Ident;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() &&
                std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      // A pp-number: digits, letters, dots, and signs after an exponent letter.
      ++i;
      while (i < s.size()) {
        char d = s[i];
        if ((d == '+' || d == '-') && std::strchr("eEpP", s[i - 1]))
          ++i;
        else if (isIdentChar(d) || d == '.')
          ++i;
        else
          break;
      }
      t.kind = TokKind::Number;
    } else if (c == '"' || c == '\'') {
      ++i;
      while (i < s.size() && s[i] != c) {
        if (s[i] == '\\' && i + 1 < s.size())
          ++i;
        ++i;
      }
      if (i < s.size())
        ++i;
      t.kind = c == '"' ? TokKind::String : TokKind::Char;
    } else {
      size_t len = 1;
      for (const char *p : kPuncts) {
        size_t n = std::strlen(p);
        if (s.compare(i, n, p) == 0) {
          len = n;
          break;
        }
      }
      i += len;
      t.kind = TokKind::Punct;
    }
    t.text = s.substr(start, i - start);
    out.push_back(std::move(t));
  }
  return out;
}

bool hidden(const PPToken &t, const std::string &name) {
  return std::find(t.hide.begin(), t.hide.end(), name) != t.hide.end();
}

// Whether two spellings written next to each other would lex as one token.
bool wouldMerge(char a, char b) {
  if (isIdentChar(a) && (isIdentChar(b) || b == '.'))
    return true;
  if (a == '.' && isIdentChar(b))
    return true;
  const char *ops = "+-*/%<>=&|^!.:#";
  return std::strchr(ops, a) && std::strchr(ops, b) && a && b;
}

struct CondFrame {
  SourceLoc loc;
  bool parentActive = true;
  bool active = true;
  bool taken = false;
  bool seenElse = false;
};

class Preprocessor {
public:
  Preprocessor(SourceManager &sm, DiagnosticEngine &diags, const PreprocessOptions &options)
      : sm_(sm), diags_(diags), options_(options) {
    for (const char *def : kPredefined)
      define(tokenize(def), {}, false);
    // -D NAME[=VALUE]: as `#define NAME VALUE` (VALUE 1 when there is none).
    for (std::string d : options.defines) {
      const size_t eq = d.find('=');
      if (eq == std::string::npos)
        d += " 1";
      else
        d[eq] = ' ';
      define(tokenize(d), {}, false);
    }
    if (options.cudaArch > 0)
      define(tokenize("__CUDA_ARCH__ " + std::to_string(options.cudaArch)), {}, false);
    if (options.cplusplus)
      define(tokenize("__cplusplus 201703L"), {}, false);
    // `register` asks nothing of kern (C++17 dropped its meaning).
    define(tokenize("register"), {}, false);
  }

  PreprocessedSource run(uint32_t fileId, const TextHeader *prelude) {
    if (prelude) // included before the file's first line
      includeText(*prelude, SourceLoc{}, fileId);
    processFile(fileId, canonical(sm_.fileName(fileId)));
    return std::move(out_);
  }

private:
  SourceManager &sm_;
  DiagnosticEngine &diags_;
  const PreprocessOptions &options_;
  PreprocessedSource out_;
  std::map<std::string, Macro> macros_;

  /// Remembers whether the program looked at __CUDA_ARCH__ (PreprocessedSource::usesCudaArch).
  void noteQuery(const std::string &name) {
    if (name == "__CUDA_ARCH__")
      out_.usesCudaArch = true;
  }
  std::vector<std::string> includeStack_;
  std::set<std::string> onceFiles_;
  pp_detail::PackState pack_;
  std::set<uint32_t> textFiles_; // ids of kern's text headers in sm_
  uint32_t curFile_ = 0;
  uint32_t curLine_ = 0;

  static std::string canonical(const std::string &path) {
    std::error_code ec;
    auto p = std::filesystem::weakly_canonical(path, ec);
    return ec ? path : p.string();
  }

  void emit(const std::string &text, uint32_t file, uint32_t line) {
    out_.text += text;
    out_.text += '\n';
    out_.lineMap.push_back(SourceLoc{file, line, 1});
  }

  void processFile(uint32_t fileId, const std::string &path) {
    includeStack_.push_back(path);
    std::pair<uint32_t, uint32_t> openComment;
    std::vector<LogicalLine> lines = readLogicalLines(sm_.fileText(fileId), openComment);
    if (openComment.first)
      diags_.error(SourceLoc{fileId, openComment.first, openComment.second},
                   "unterminated /* comment");
    std::vector<CondFrame> conds;
    for (size_t i = 0; i < lines.size(); ++i) {
      const LogicalLine &l = lines[i];
      curFile_ = fileId;
      curLine_ = l.line;
      bool active = conds.empty() || conds.back().active;
      size_t first = l.text.find_first_not_of(" \t\f\v");
      uint32_t extra = l.span - 1;
      if (first != std::string::npos && l.text[first] == '#') {
        // The directive's own line becomes empty; an include splices the file after it.
        emit("", fileId, l.line);
        directive(l, first, conds, fileId, path);
      } else if (!active || first == std::string::npos) {
        emit("", fileId, l.line);
      } else {
        std::vector<PPToken> toks = tokenize(l.text);
        // A function-like macro call may continue on the next lines: join them so that the
        // arguments are collected; the joined lines become empty lines.
        while (i + 1 < lines.size() && needsMoreLines(toks)) {
          const LogicalLine &next = lines[i + 1];
          size_t nf = next.text.find_first_not_of(" \t\f\v");
          if (nf != std::string::npos && next.text[nf] == '#')
            break;
          std::vector<PPToken> more = tokenize(next.text);
          for (PPToken &t : more) {
            t.col = -1;
            if (t.ws.empty())
              t.ws = " ";
          }
          if (!more.empty() && more[0].ws.empty())
            more[0].ws = " ";
          toks.insert(toks.end(), more.begin(), more.end());
          extra += next.span;
          ++i;
        }
        std::vector<PPToken> line = expand(std::move(toks));
        if (!options_.cplusplus)
          for (PPToken &t : line) // C's identifiers that C++ took as keywords (`int new;`)
            if (t.kind == TokKind::Ident && kCxxOnlyKeywords.count(t.text))
              t.text = "__c_" + t.text;
        emit(render(line), fileId, l.line);
      }
      for (uint32_t k = 1; k <= extra; ++k)
        emit("", fileId, l.line + k);
    }
    for (const CondFrame &f : conds)
      diags_.error(f.loc, "unterminated conditional directive");
    includeStack_.pop_back();
  }

  bool needsMoreLines(const std::vector<PPToken> &toks) const {
    bool sawMacro = false;
    int depth = 0;
    for (size_t i = 0; i < toks.size(); ++i) {
      const PPToken &t = toks[i];
      if (t.kind == TokKind::Ident) {
        auto m = macros_.find(t.text);
        if (m != macros_.end() && m->second.function && i + 1 < toks.size() &&
            toks[i + 1].text == "(")
          sawMacro = true;
      } else if (sawMacro && t.text == "(") {
        ++depth;
      } else if (sawMacro && t.text == ")") {
        --depth;
      }
    }
    return sawMacro && depth > 0;
  }

  // Joins tokens back into a line. Tokens straight from the source keep their columns where
  // possible (an expansion shorter than its call is padded), so diagnostics point right.
  static std::string render(const std::vector<PPToken> &toks) {
    std::string out;
    bool prevFromSource = true;
    for (const PPToken &t : toks) {
      // Tokens adjacent in the source stay adjacent; a macro-produced neighbour gets a space
      // where the two spellings would otherwise lex as one token.
      bool merge = !out.empty() && t.ws.empty() && wouldMerge(out.back(), t.text[0]) &&
                   !(prevFromSource && t.col >= 0);
      if (t.col >= 0) {
        size_t col = static_cast<size_t>(t.col);
        if (out.size() + t.ws.size() == col)
          out += t.ws;
        else if (out.size() < col)
          out.append(col - out.size(), ' ');
        else if (!t.ws.empty() || merge)
          out += ' ';
      } else if (!t.ws.empty() || merge) {
        out += ' ';
      }
      out += t.text;
      prevFromSource = t.col >= 0;
    }
    return out;
  }

  SourceLoc locAt(uint32_t col) const { return SourceLoc{curFile_, curLine_, col + 1}; }

  // ---- directives ----

  void directive(const LogicalLine &l, size_t hashCol, std::vector<CondFrame> &conds,
                 uint32_t fileId, const std::string &path) {
    std::vector<PPToken> toks = tokenize(l.text, hashCol + 1);
    SourceLoc hashLoc = locAt(static_cast<uint32_t>(hashCol));
    bool active = conds.empty() || conds.back().active;
    if (toks.empty())
      return; // the null directive
    const std::string &name = toks[0].text;
    SourceLoc nameLoc = locAt(static_cast<uint32_t>(toks[0].col));
    std::vector<PPToken> rest(toks.begin() + 1, toks.end());

    if (name == "if" || name == "ifdef" || name == "ifndef") {
      CondFrame f;
      f.loc = hashLoc;
      f.parentActive = active;
      bool value = false;
      if (active) {
        if (name == "if") {
          value = evalCondition(rest, nameLoc);
        } else if (rest.empty() || rest[0].kind != TokKind::Ident) {
          diags_.error(nameLoc, "macro name missing");
        } else {
          noteQuery(rest[0].text);
          value = macros_.count(rest[0].text) != 0 || isDynamicMacro(rest[0].text);
          if (name == "ifndef")
            value = !value;
        }
      }
      f.active = active && value;
      f.taken = f.active || !active;
      conds.push_back(f);
      return;
    }
    if (name == "elif") {
      if (conds.empty()) {
        diags_.error(hashLoc, "#elif without #if");
        return;
      }
      CondFrame &f = conds.back();
      if (f.seenElse) {
        diags_.error(hashLoc, "#elif after #else");
        f.active = false;
        return;
      }
      if (f.parentActive && !f.taken) {
        f.active = evalCondition(rest, nameLoc);
        f.taken = f.active;
      } else {
        f.active = false;
      }
      return;
    }
    if (name == "else") {
      if (conds.empty()) {
        diags_.error(hashLoc, "#else without #if");
        return;
      }
      CondFrame &f = conds.back();
      if (f.seenElse) {
        diags_.error(hashLoc, "#else after #else");
        f.active = false;
        return;
      }
      f.seenElse = true;
      f.active = f.parentActive && !f.taken;
      f.taken = true;
      return;
    }
    if (name == "endif") {
      if (conds.empty())
        diags_.error(hashLoc, "#endif without #if");
      else
        conds.pop_back();
      return;
    }
    if (!active)
      return;

    if (name == "define") {
      if (rest.empty() || rest[0].kind != TokKind::Ident) {
        diags_.error(nameLoc, "macro name missing");
        return;
      }
      define(rest, l.text, true);
    } else if (name == "undef") {
      if (rest.empty() || rest[0].kind != TokKind::Ident)
        diags_.error(nameLoc, "macro name missing");
      else
        macros_.erase(rest[0].text);
    } else if (name == "include") {
      include(rest, nameLoc, fileId);
    } else if (name == "pragma") {
      // Pragmas have no semantic effect in kern (`#pragma unroll` included) but `once` and
      // `pack`.
      if (!rest.empty() && rest[0].text == "once")
        onceFiles_.insert(path);
      // `#pragma pack` changes the layout of the structs defined after it (pp_pragma.cpp).
      if (!rest.empty() && rest[0].text == "pack" &&
          pp_detail::packPragma(std::vector<PPToken>(rest.begin() + 1, rest.end()), pack_, diags_,
                                nameLoc))
        out_.packs.push_back({static_cast<uint32_t>(out_.lineMap.size() + 1), pack_.current});
    } else if (name == "error") {
      diags_.error(nameLoc, directiveText(l.text, toks));
    } else if (name == "warning") {
      diags_.warning(nameLoc, directiveText(l.text, toks));
    } else if (name == "line" || name == "ident") {
      // Line control is ignored: diagnostics always name the real file and line.
    } else if (toks[0].kind == TokKind::Number) {
      // `# 12 "file"` is the line marker form of #line: ignored as well.
    } else {
      diags_.error(nameLoc, "invalid preprocessing directive '#" + name + "'");
    }
  }

  static std::string directiveText(const std::string &line, const std::vector<PPToken> &toks) {
    std::string msg;
    if (toks.size() > 1) {
      msg = line.substr(static_cast<size_t>(toks[1].col));
      while (!msg.empty() && std::isspace(static_cast<unsigned char>(msg.back())))
        msg.pop_back();
    }
    return msg.empty() ? "#" + toks[0].text : msg;
  }

  // `rest` starts with the macro name. `line` is the directive's text (empty for predefined
  // macros): a function-like macro has its '(' right after the name, without a space.
  void define(const std::vector<PPToken> &rest, const std::string &line, bool fromSource) {
    Macro m;
    const PPToken &nameTok = rest[0];
    size_t i = 1;
    bool funcLike = rest.size() > 1 && rest[1].text == "(" && rest[1].ws.empty();
    if (funcLike) {
      m.function = true;
      i = 2;
      bool ok = false;
      while (i < rest.size()) {
        const PPToken &t = rest[i++];
        if (t.text == ")") {
          ok = true;
          break;
        }
        if (t.text == ",")
          continue;
        if (t.text == "...") {
          m.variadic = true;
          m.params.push_back("__VA_ARGS__");
        } else if (t.kind == TokKind::Ident) {
          m.params.push_back(t.text);
        } else {
          break;
        }
      }
      if (!ok) {
        if (fromSource)
          diags_.error(locAt(static_cast<uint32_t>(nameTok.col)),
                       "invalid macro parameter list for '" + nameTok.text + "'");
        return;
      }
    }
    m.body.assign(rest.begin() + static_cast<long>(i), rest.end());
    for (PPToken &t : m.body) {
      t.col = -1;
      if (!t.ws.empty())
        t.ws = " ";
    }
    if (!m.body.empty())
      m.body[0].ws.clear();
    (void)line;
    macros_[nameTok.text] = std::move(m);
  }

  bool isDynamicMacro(const std::string &n) const { return n == "__LINE__" || n == "__FILE__"; }

  void include(const std::vector<PPToken> &rest, SourceLoc nameLoc, uint32_t fileId) {
    if (rest.empty()) {
      diags_.error(nameLoc, "expected \"FILENAME\" or <FILENAME>");
      return;
    }
    const bool angled = rest[0].text == "<";
    std::string name;
    if (angled) {
      for (size_t i = 1; i < rest.size() && rest[i].text != ">"; ++i)
        name += rest[i].text;
    } else if (rest[0].kind == TokKind::String && rest[0].text.size() >= 2) {
      name = rest[0].text.substr(1, rest[0].text.size() - 2);
    } else {
      diags_.error(nameLoc, "expected \"FILENAME\" or <FILENAME>");
      return;
    }
    SourceLoc fileLoc = locAt(static_cast<uint32_t>(rest[0].col));
    const std::string base = std::filesystem::path(name).filename().string();
    if (kCudaHeaders.count(name) || kCudaHeaders.count(base))
      out_.includesCudaHeader = true;
    const bool builtIn = kSystemHeaders.count(name) || kSystemHeaders.count(base) ||
                         kHeaderMacros.count(name) || kDeferredHeaders.count(name);
    if (angled && builtIn) {
      // kern's own headers are built in (a few define macros), before any -I directory.
      auto it = kHeaderMacros.find(name);
      if (it != kHeaderMacros.end())
        for (const char *def : it->second)
          define(tokenize(def), {}, false);
      return;
    }
    for (const auto &[headerName, headerText] : options_.memoryHeaders)
      if (headerName == name) {
        const std::string key = "<memory>/" + name;
        if (enterable(key, name, fileLoc)) {
          uint32_t id = sm_.addFile(name, headerText);
          textFiles_.insert(id);
          processFile(id, key);
          curFile_ = fileId;
        }
        return;
      }
    // "x": the including file's directory (a file on disk, not one of kern's text headers),
    // then kern's text headers, then the -I directories; <x>: kern's text headers, then the -I
    // directories. kern's text headers come before -I so that a -I pointing at CUDA's samples'
    // Common folder still gets kern's helper_cuda.h, which kern can compile.
    if (!angled && !textFiles_.count(fileId)) {
      std::filesystem::path dir = std::filesystem::path(sm_.fileName(fileId)).parent_path();
      if (includeFile(dir / name, name, fileLoc, fileId))
        return;
    }
    if (const TextHeader *h = findTextHeader(name)) {
      includeText(*h, fileLoc, fileId);
      return;
    }
    for (const std::string &d : options_.includePaths)
      if (includeFile(std::filesystem::path(d) / name, name, fileLoc, fileId))
        return;
    if (builtIn)
      return;
    // As every compiler does: a header that is not there stops the program here, rather than
    // as the undeclared names that it would have declared.
    diags_.error(fileLoc, "'" + name + "' file not found");
  }

  /// Includes the file at `target` if it can be read; false if not.
  bool includeFile(const std::filesystem::path &target, const std::string &name, SourceLoc fileLoc,
                   uint32_t fileId) {
    std::error_code ec;
    const std::filesystem::file_status st = std::filesystem::status(target, ec);
    if (ec || !std::filesystem::exists(st))
      return false;
    // Before anything is read: a pseudo-file's text would be echoed by diagnostics.
    if (const std::string why = includeRefusal(target, options_); !why.empty()) {
      diags_.error(fileLoc, "'" + name + "' " + why);
      return true;
    }
    // Only source files: a device (/dev/zero), a FIFO or a directory would be read forever or
    // not at all, and no header is this large.
    constexpr uintmax_t kMaxIncludeBytes = uintmax_t(64) << 20;
    if (!std::filesystem::is_regular_file(st)) {
      diags_.error(fileLoc, "'" + name + "' is not a regular file");
      return true;
    }
    if (std::filesystem::file_size(target, ec) > kMaxIncludeBytes) {
      diags_.error(fileLoc, "'" + name + "' is larger than 64 MiB: not a source file");
      return true;
    }
    std::ifstream in(target, std::ios::binary);
    if (!in)
      return false;
    std::string canon = canonical(target.string());
    if (!enterable(canon, name, fileLoc))
      return true;
    std::stringstream ss;
    ss << in.rdbuf();
    uint32_t id = sm_.addFile(target.lexically_normal().string(), ss.str());
    processFile(id, canon);
    curFile_ = fileId;
    return true;
  }

  /// Includes one of kern's text headers, named "<kern>/x" in diagnostics and __FILE__.
  void includeText(const TextHeader &h, SourceLoc fileLoc, uint32_t fileId) {
    std::string key = std::string(kTextHeaderPrefix) + h.name;
    if (!enterable(key, h.name, fileLoc))
      return;
    uint32_t id = sm_.addFile(key, std::string(h.text, h.size));
    textFiles_.insert(id);
    processFile(id, key);
    curFile_ = fileId;
  }

  /// Whether the file `key` is to be read: not after its #pragma once, and not past GCC's
  /// nesting limit. A file may include itself, or a file that includes it, again: its include
  /// guard makes that a no-op (a header that includes its implementation file, which includes
  /// the header); without one the recursion stops at the limit, as GCC's does.
  bool enterable(const std::string &key, const std::string &name, SourceLoc fileLoc) {
    if (onceFiles_.count(key))
      return false;
    if (includeStack_.size() >= 200) {
      diags_.error(fileLoc, "#include nested depth 200 exceeds maximum of 200 (a file that "
                            "includes itself with no include guard?): '" +
                                name + "'");
      return false;
    }
    return true;
  }

  // ---- macro expansion (Prosser's algorithm with hide sets) ----

  std::vector<PPToken> expand(std::vector<PPToken> ts) {
    size_t i = 0;
    while (i < ts.size()) {
      PPToken &t = ts[i];
      if (t.kind != TokKind::Ident || t.noExpand) {
        ++i;
        continue;
      }
      if (t.text == "__LINE__" || t.text == "__FILE__") {
        bool line = t.text == "__LINE__";
        t.text = line ? std::to_string(curLine_) : quote(sm_.fileName(curFile_));
        t.kind = line ? TokKind::Number : TokKind::String;
        ++i;
        continue;
      }
      noteQuery(t.text);
      auto it = macros_.find(t.text);
      if (it == macros_.end()) {
        ++i;
        continue;
      }
      const std::string name = it->first;
      const Macro &m = it->second;
      if (hidden(t, name)) {
        t.noExpand = true; // painted blue: never expands again
        ++i;
        continue;
      }
      if (!m.function) {
        std::vector<std::string> hs = t.hide;
        hs.push_back(name);
        std::vector<PPToken> rep = substitute(m, {}, hs);
        replace(ts, i, i + 1, std::move(rep), t.ws, t.col);
        continue;
      }
      if (i + 1 >= ts.size() || ts[i + 1].text != "(") {
        ++i; // a function-like macro name without arguments is an ordinary identifier
        continue;
      }
      std::vector<std::vector<PPToken>> args(1);
      int depth = 0;
      size_t j = i + 2;
      bool closed = false;
      for (; j < ts.size(); ++j) {
        const PPToken &a = ts[j];
        if (a.text == "(" || a.text == "[" || a.text == "{") {
          ++depth;
        } else if ((a.text == ")" || a.text == "]" || a.text == "}") && depth > 0) {
          --depth;
        } else if (a.text == ")") {
          closed = true;
          break;
        } else if (a.text == "," && depth == 0 && !(m.variadic && args.size() >= m.params.size())) {
          args.emplace_back();
          continue;
        }
        args.back().push_back(a);
      }
      SourceLoc callLoc = locAt(t.col >= 0 ? static_cast<uint32_t>(t.col) : 0);
      if (!closed) {
        diags_.error(callLoc, "unterminated function-like macro invocation");
        return ts;
      }
      if (m.params.empty() && args.size() == 1 && args[0].empty())
        args.clear();
      if (m.variadic && args.size() + 1 == m.params.size())
        args.emplace_back(); // `F(a)` for `F(a, ...)`: an empty __VA_ARGS__
      if (args.size() != m.params.size()) {
        diags_.error(callLoc, std::string("too ") +
                                  (args.size() < m.params.size() ? "few" : "many") +
                                  " arguments provided to function-like macro invocation");
        ++i;
        continue;
      }
      std::vector<std::string> hs;
      for (const std::string &h : t.hide)
        if (hidden(ts[j], h))
          hs.push_back(h);
      hs.push_back(name);
      std::vector<PPToken> rep = substitute(m, args, hs);
      replace(ts, i, j + 1, std::move(rep), t.ws, t.col);
    }
    return ts;
  }

  static void replace(std::vector<PPToken> &ts, size_t from, size_t to, std::vector<PPToken> rep,
                      const std::string &ws, int col) {
    if (!rep.empty()) {
      rep[0].ws = ws;
      // The first token of an expansion stays at the call's column.
      rep[0].col = col;
    }
    ts.erase(ts.begin() + static_cast<long>(from), ts.begin() + static_cast<long>(to));
    ts.insert(ts.begin() + static_cast<long>(from), rep.begin(), rep.end());
  }

  static std::string quote(const std::string &s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\')
        out += '\\';
      out += c;
    }
    return out + "\"";
  }

  static std::string stringize(const std::vector<PPToken> &arg) {
    std::string s;
    for (size_t k = 0; k < arg.size(); ++k) {
      if (k > 0 && !arg[k].ws.empty())
        s += ' ';
      s += arg[k].text;
    }
    return quote(s);
  }

  int paramIndex(const Macro &m, const PPToken &t) const {
    if (t.kind != TokKind::Ident)
      return -1;
    for (size_t k = 0; k < m.params.size(); ++k)
      if (m.params[k] == t.text)
        return static_cast<int>(k);
    return -1;
  }

  std::vector<PPToken> substitute(const Macro &m, const std::vector<std::vector<PPToken>> &args,
                                  const std::vector<std::string> &hs) {
    std::vector<PPToken> out;
    const std::vector<PPToken> &body = m.body;
    for (size_t k = 0; k < body.size(); ++k) {
      const PPToken &bt = body[k];
      if (m.function && bt.text == "#" && k + 1 < body.size() && paramIndex(m, body[k + 1]) >= 0) {
        PPToken s;
        s.kind = TokKind::String;
        s.text = stringize(args[static_cast<size_t>(paramIndex(m, body[k + 1]))]);
        s.ws = bt.ws;
        out.push_back(std::move(s));
        ++k;
        continue;
      }
      if (bt.text == "##" && k + 1 < body.size()) {
        const PPToken &rt = body[++k];
        int p = paramIndex(m, rt);
        std::vector<PPToken> rhs;
        if (p >= 0)
          rhs = args[static_cast<size_t>(p)];
        else
          rhs.push_back(rt);
        // GNU's `, ## __VA_ARGS__` drops the comma when there are no variadic arguments.
        if (rhs.empty()) {
          if (rt.text == "__VA_ARGS__" && !out.empty() && out.back().text == ",")
            out.pop_back();
          continue;
        }
        if (rt.text == "__VA_ARGS__" && !out.empty() && out.back().text == ",") {
          rhs = expand(rhs);
          if (!rhs.empty() && rhs[0].ws.empty())
            rhs[0].ws = " ";
          out.insert(out.end(), rhs.begin(), rhs.end());
          continue;
        }
        if (out.empty()) {
          out.insert(out.end(), rhs.begin(), rhs.end());
          continue;
        }
        PPToken &lhs = out.back();
        // The two must make one token, as in C; `1 ## +` makes two, which is an error.
        if (tokenize(lhs.text + rhs[0].text).size() != 1 && !lhs.text.empty() &&
            !rhs[0].text.empty())
          diags_.error(locAt(0), "pasting \"" + lhs.text + "\" and \"" + rhs[0].text +
                                     "\" does not give a valid preprocessing token");
        lhs.text += rhs[0].text;
        lhs.noExpand = false;
        if (isIdentStart(lhs.text[0]))
          lhs.kind = TokKind::Ident;
        else if (std::isdigit(static_cast<unsigned char>(lhs.text[0])))
          lhs.kind = TokKind::Number;
        out.insert(out.end(), rhs.begin() + 1, rhs.end());
        continue;
      }
      int p = paramIndex(m, bt);
      if (p >= 0) {
        bool pasted = k + 1 < body.size() && body[k + 1].text == "##";
        std::vector<PPToken> a =
            pasted ? args[static_cast<size_t>(p)] : expand(args[static_cast<size_t>(p)]);
        for (size_t q = 0; q < a.size(); ++q) {
          a[q].col = -1;
          if (q == 0)
            a[q].ws = bt.ws;
        }
        out.insert(out.end(), a.begin(), a.end());
        continue;
      }
      out.push_back(bt);
    }
    for (PPToken &t : out) {
      t.col = -1;
      for (const std::string &h : hs)
        if (!hidden(t, h))
          t.hide.push_back(h);
    }
    return out;
  }

  // ---- #if expressions ----

  bool evalCondition(const std::vector<PPToken> &toks, SourceLoc loc) {
    std::vector<PPToken> pre;
    for (size_t k = 0; k < toks.size(); ++k) {
      if (toks[k].text != "defined") {
        pre.push_back(toks[k]);
        continue;
      }
      std::string name;
      if (k + 1 < toks.size() && toks[k + 1].kind == TokKind::Ident) {
        name = toks[++k].text;
      } else if (k + 3 < toks.size() && toks[k + 1].text == "(" &&
                 toks[k + 2].kind == TokKind::Ident && toks[k + 3].text == ")") {
        name = toks[k + 2].text;
        k += 3;
      } else {
        diags_.error(loc, "macro name missing after 'defined'");
        return false;
      }
      PPToken v;
      v.kind = TokKind::Number;
      noteQuery(name);
      v.text = (macros_.count(name) || isDynamicMacro(name)) ? "1" : "0";
      pre.push_back(v);
    }
    std::string error;
    int64_t v = pp_detail::evalExpression(expand(std::move(pre)), error);
    if (!error.empty()) {
      diags_.error(loc, error);
      return false;
    }
    return v != 0;
  }
};

} // namespace

namespace {

/// Whether `text` (or a file it includes with `#include "..."`, found beside it) names CUDA's
/// texture API, which kern_texture.h declares.
bool namesTextureApi(const std::string &text, const std::string &path, std::set<std::string> &seen,
                     int depth, const PreprocessOptions &options) {
  static const char *const names[] = {"cudaTextureObject_t",
                                      "cudaArray",
                                      "cudaExtent",
                                      "cudaCreateChannelDesc",
                                      "cudaPitchedPtr",
                                      "cudaMemcpy3D",
                                      "cudaResourceDesc",
                                      "tex1Dfetch",
                                      "tex2D",
                                      "tex3D",
                                      "tex1D",
                                      "texCubemap",
                                      "cudaSurfaceObject_t",
                                      "surf1D",
                                      "surf2D",
                                      "surf3D",
                                      "cudaBindTexture",
                                      "textureReference",
                                      "texture<",
                                      "texture <"};
  for (const char *n : names)
    if (text.find(n) != std::string::npos)
      return true;
  if (depth >= 4)
    return false;
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (size_t at = text.find("#include"); at != std::string::npos;
       at = text.find("#include", at + 8)) {
    size_t open = text.find_first_of("\"<\n", at + 8);
    if (open == std::string::npos || text[open] != '"')
      continue;
    size_t close = text.find('"', open + 1);
    if (close == std::string::npos)
      continue;
    std::filesystem::path target = dir / text.substr(open + 1, close - open - 1);
    if (!seen.insert(target.lexically_normal().string()).second)
      continue;
    // Only files the preprocessor would read (it reports the others).
    std::error_code ec;
    if (!includeRefusal(target, options).empty() || !std::filesystem::is_regular_file(target, ec) ||
        std::filesystem::file_size(target, ec) > (uintmax_t(64) << 20))
      continue;
    std::ifstream in(target, std::ios::binary);
    if (!in)
      continue;
    std::stringstream ss;
    ss << in.rdbuf();
    if (namesTextureApi(ss.str(), target.string(), seen, depth + 1, options))
      return true;
  }
  return false;
}

} // namespace

PreprocessedSource preprocess(SourceManager &sm, uint32_t fileId, DiagnosticEngine &diags,
                              const PreprocessOptions &options) {
  // CUDA's texture API (cuda_runtime.h declares it for nvcc) is kern's text header
  // kern_texture.h, included before a C++ file that names it.
  const TextHeader *prelude = nullptr;
  std::set<std::string> seen;
  if (options.cplusplus &&
      namesTextureApi(sm.fileText(fileId), sm.fileName(fileId), seen, 0, options))
    prelude = findTextHeader("kern_texture.h");
  Preprocessor pp(sm, diags, options);
  return pp.run(fileId, prelude);
}

} // namespace kern::frontend
