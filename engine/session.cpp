// kern::Session (include/kern/kern.hpp): the REPL's engine. Keeps the session's definitions and
// variables as source text, recompiles the accumulated program for each input with the input's
// statements as main, and runs it on one Runtime that lives as long as the session.
//
// Why recompile instead of one JIT module per input: kernels, device functions and host
// variables refer to each other across inputs, and the front end checks a whole translation
// unit at once (names, types, execution sides). Recompiling the text keeps every input checked
// exactly as a file would be, redefinitions replace in place, and the Runtime keeps device
// memory and host variables because GlobalVar ids follow declaration order, which only grows.
#include "engine/engine_impl.h"

#include "frontend/sema.h"
#include "runtime/symbols.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace kern {

namespace {

const char *const kHelp =
    R"(Type C/CUDA at the prompt; an input runs when its braces and parentheses close.
  __global__ void k(...) { ... }   define (or redefine) a kernel; __device__ functions,
                                   structs, typedefs and #defines are kept the same way
  float *d; int n = 8;             declare host variables: they keep their values
  cudaMalloc(&d, n * 4);           statements run once, in order
  k<<<1, n>>>(d, n);               launch
  n * 2                            an expression without ';' prints its value; a device
                                   pointer prints its first elements
Meta-commands:
  :help                 this text
  :device NAME          model another GPU (starts a new device: variables are reset)
  :mode [fast|profile]  show the mode, or switch it for the following launches: profile
                        (the default) counts every launch, fast counts nothing
  :stats                the counters of the last launch
  :annotate KERNEL      the kernel's source with the counters of its last launch
  :emit ir|llvm|asm KERNEL   the kernel's Kern IR, LLVM IR or assembly
  :load FILE            evaluate a file (its main, if any, runs once)
  :source               the program the session has accumulated
  :reset                forget everything and start a new device
  :quit                 leave (also Ctrl-D)
)";

const char *const kMetaCommands[] = {":help", ":device", ":mode",   ":stats", ":annotate",
                                     ":emit", ":load",   ":source", ":reset", ":quit"};

const char *const kBuiltinNames[] = {
#define KERN_BUILTIN(name, signature, side) name,
#include "frontend/builtins.def"
#undef KERN_BUILTIN
};

const char *const kWords[] = {"__global__",
                              "__device__",
                              "__host__",
                              "__shared__",
                              "__constant__",
                              "__syncthreads",
                              "threadIdx",
                              "blockIdx",
                              "blockDim",
                              "gridDim",
                              "warpSize",
                              "struct",
                              "typedef",
                              "return",
                              "unsigned",
                              "float",
                              "double",
                              "int",
                              "char",
                              "long",
                              "short",
                              "bool",
                              "void",
                              "const",
                              "size_t",
                              "dim3",
                              "sizeof",
                              "for",
                              "while",
                              "if",
                              "else",
                              "cudaMemcpyHostToDevice",
                              "cudaMemcpyDeviceToHost",
                              "cudaMemcpyDeviceToDevice",
                              "cudaSuccess"};

/// Type names that start a declaration (plus the session's own structs and typedefs).
const std::set<std::string> kTypeWords = {
    "int",         "float",       "double",       "char",           "unsigned",
    "signed",      "long",        "short",        "bool",           "void",
    "const",       "volatile",    "size_t",       "dim3",           "uint3",
    "cudaError_t", "cudaEvent_t", "cudaStream_t", "cudaDeviceProp", "int8_t",
    "int16_t",     "int32_t",     "int64_t",      "uint8_t",        "uint16_t",
    "uint32_t",    "uint64_t",    "uint",         "float2",         "float3",
    "float4",      "int2",        "int3",         "int4",           "uint2",
    "uint4",       "double2",     "auto"};

/// Words that make a top-level input a definition kept in the program.
const std::set<std::string> kDefinitionWords = {
    "__global__",   "__device__", "__host__", "__constant__", "__forceinline__",
    "__noinline__", "inline",     "static",   "extern",       "typedef",
    "template",     "struct",     "union",    "enum",         "class"};

const std::set<std::string> kStatementWords = {"if",     "for",   "while",    "do",   "switch",
                                               "return", "break", "continue", "else", "goto"};

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a])))
    ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])))
    --b;
  return std::string(s.substr(a, b - a));
}

/// `s` with comments replaced by spaces and string/char literals kept: what the classifier
/// looks at (the program keeps the original text).
std::string stripComments(std::string_view s) {
  std::string out(s);
  for (size_t i = 0; i < out.size(); ++i) {
    char c = out[i];
    if (c == '"' || c == '\'') {
      for (++i; i < out.size() && out[i] != c; ++i)
        if (out[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < out.size() && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n')
        out[i++] = ' ';
    } else if (c == '/' && i + 1 < out.size() && out[i + 1] == '*') {
      size_t end = out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i)
        if (out[i] != '\n')
          out[i] = ' ';
      --i;
    }
  }
  return out;
}

/// A rough token: an identifier, a number, or one punctuation character.
struct Token {
  std::string text;
  size_t pos = 0;
  bool ident = false;
};

std::vector<Token> tokenize(const std::string &s) {
  std::vector<Token> out;
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (isIdentStart(c)) {
      size_t j = i;
      while (j < s.size() && isIdentChar(s[j]))
        ++j;
      out.push_back({s.substr(i, j - i), i, true});
      i = j;
    } else if (c == '"' || c == '\'') {
      size_t j = i + 1;
      for (; j < s.size() && s[j] != c; ++j)
        if (s[j] == '\\')
          ++j;
      out.push_back({s.substr(i, j + 1 - i), i, false});
      i = j + 1;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < s.size() && (isIdentChar(s[j]) || s[j] == '.'))
        ++j;
      out.push_back({s.substr(i, j - i), i, false});
      i = j;
    } else {
      out.push_back({std::string(1, c), i, false});
      ++i;
    }
  }
  return out;
}

/// One top-level piece of an input: a directive, a declaration or definition, or a statement.
struct Chunk {
  std::string text; // as typed
  size_t firstLine; // its first line within the input, 0-based
  bool terminated;  // ends with ';' or '}' (or is a directive)
  bool directive;
};

/// Splits an input at top-level ';' and '}' (C's statement and definition boundaries).
std::vector<Chunk> splitInput(const std::string &input) {
  const std::string clean = stripComments(input);
  std::vector<Chunk> chunks;
  size_t start = 0, line = 0, startLine = 0;
  int depth = 0;
  auto emit = [&](size_t end, bool terminated, bool directive) {
    std::string text = input.substr(start, end - start);
    // Skip leading blank lines so that firstLine points at the first character.
    size_t lead = 0;
    while (lead < text.size() && std::isspace(static_cast<unsigned char>(text[lead]))) {
      if (text[lead] == '\n')
        ++startLine;
      ++lead;
    }
    if (!trim(stripComments(text)).empty())
      chunks.push_back({text.substr(lead), startLine, terminated, directive});
    start = end;
    startLine = line;
  };
  auto firstWord = [&]() {
    std::vector<Token> t = tokenize(clean.substr(start, 64));
    return t.empty() ? std::string() : t[0].text;
  };
  for (size_t i = 0; i < clean.size(); ++i) {
    const char c = clean[i];
    if (c == '\n')
      ++line;
    if (c == '"' || c == '\'') {
      for (++i; i < clean.size() && clean[i] != c; ++i)
        if (clean[i] == '\\')
          ++i;
      continue;
    }
    if (depth == 0 && c == '#' && trim(clean.substr(start, i - start)).empty()) {
      size_t end = i;
      while (end < clean.size() && (clean[end] != '\n' || clean[end - 1] == '\\'))
        ++end;
      i = end;
      emit(end, true, true);
      if (end < clean.size()) {
        ++line;
        startLine = line;
      }
      continue;
    }
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
    if (depth != 0)
      continue;
    if (c == ';') {
      emit(i + 1, true, false);
    } else if (c == '}') {
      // `struct S {...};`, `int a[] = {...};` and `do {...} while (c);` go on to their ';';
      // `if (...) {...} else {...}` goes on to the else branch.
      const std::string head = clean.substr(start, i - start);
      const std::string w = firstWord();
      const size_t brace = head.find('{');
      const bool initializer = head.substr(0, brace).find('=') != std::string::npos;
      const bool funcLike = head.substr(0, brace).find('(') != std::string::npos && w != "struct" &&
                            w != "union" && w != "enum" && w != "typedef";
      if (w == "do" || initializer ||
          (!funcLike && (w == "struct" || w == "union" || w == "enum" || w == "typedef")))
        continue;
      std::vector<Token> next = tokenize(clean.substr(i + 1, 16));
      if (!next.empty() && next[0].text == "else")
        continue;
      emit(i + 1, true, false);
    }
  }
  if (start < input.size())
    emit(input.size(), false, false);
  return chunks;
}

enum class ItemKind { Directive, Definition, Variable };

/// One piece of the accumulated program.
struct Item {
  ItemKind kind = ItemKind::Definition;
  std::string key;  // what a redefinition replaces: a function's or type's name
  std::string name; // for completion
  std::string text;
};

/// How a bare expression's value is shown: its C type, from the checked AST.
struct ValueType {
  std::string spelling;
  frontend::TypeKind kind = frontend::TypeKind::Void;
  uint64_t size = 0;
  bool isSigned = false;
  frontend::TypeKind elemKind = frontend::TypeKind::Void; // pointers
  uint64_t elemSize = 0;
  std::string elemSpelling;
  bool found = false;
};

constexpr const char *kResultVar = "__kern_result";
constexpr size_t kResultBytes = 64;

std::string formatScalar(frontend::TypeKind kind, uint64_t size, const uint8_t *p) {
  using K = frontend::TypeKind;
  char buf[64];
  switch (kind) {
  case K::Bool:
    return p[0] ? "true" : "false";
  case K::Float: {
    float f;
    std::memcpy(&f, p, 4);
    std::snprintf(buf, sizeof buf, "%.7g", f);
    return buf;
  }
  case K::Double: {
    double d;
    std::memcpy(&d, p, 8);
    std::snprintf(buf, sizeof buf, "%.15g", d);
    return buf;
  }
  case K::Pointer: {
    uint64_t v;
    std::memcpy(&v, p, 8);
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
  }
  default:
    break;
  }
  const bool isSigned = kind == K::Char || kind == K::SChar || kind == K::Short || kind == K::Int ||
                        kind == K::Long || kind == K::LongLong;
  int64_t s = 0;
  uint64_t u = 0;
  switch (size) {
  case 1:
    s = static_cast<int8_t>(p[0]);
    u = p[0];
    break;
  case 2: {
    int16_t v;
    std::memcpy(&v, p, 2);
    s = v;
    u = static_cast<uint16_t>(v);
    break;
  }
  case 4: {
    int32_t v;
    std::memcpy(&v, p, 4);
    s = v;
    u = static_cast<uint32_t>(v);
    break;
  }
  default:
    std::memcpy(&s, p, 8);
    std::memcpy(&u, p, 8);
  }
  std::string out = isSigned ? std::to_string(s) : std::to_string(u);
  if ((kind == K::Char || kind == K::SChar || kind == K::UChar) && u >= 32 && u < 127)
    out += std::string(" '") + static_cast<char>(u) + "'";
  return out;
}

} // namespace

struct Session::Impl {
  Options options;
  // Profile counts every launch (the REPL's default); Fast counts none. The kernels are always
  // compiled with the counter hooks: in fast mode they run with counting off, so switching
  // needs no recompile.
  Mode mode = Mode::Profile;
  std::vector<Item> items;
  std::set<std::string> typeNames;
  std::unique_ptr<runtime::Runtime> rt;
  std::unique_ptr<Program::Impl> current; // the program the runtime runs now
  int inputCount = 0;
  double compileMs = 0;
  std::string lastStats;
  // Per kernel: its definition's text and, per line of it, the counters of its last launch.
  struct Annotation {
    std::string text;
    std::map<uint32_t, runtime::SiteCounters> lines; // line within the definition, 1-based
  };
  std::map<std::string, Annotation> annotations;
  // Where each item starts in the program text of the current compile (for annotations).
  std::vector<std::pair<uint32_t, size_t>> itemLines; // first line, item index

  void out(std::string_view s) {
    if (options.out)
      options.out(s);
    else {
      std::fwrite(s.data(), 1, s.size(), stdout);
      std::fflush(stdout);
    }
  }
  void err(std::string_view s) { writeErr(options, s); }

  void setMode(Mode m) {
    mode = m;
    if (rt)
      rt->setCounting(mode == Mode::Profile);
  }

  bool ensureRuntime(std::string &error) {
    if (rt)
      return true;
    runtime::Runtime::Options ro = runtimeOptions(options);
    if (!resolveDevice(options, ro.device, error))
      return false;
    ro.onLaunchEnd = [this](size_t i) { onLaunchEnd(i); };
    ro.counters = mode == Mode::Profile;
    rt = std::make_unique<runtime::Runtime>(std::move(ro));
    return true;
  }

  void resetAll() {
    items.clear();
    typeNames.clear();
    rt.reset();
    current.reset();
    lastStats.clear();
    annotations.clear();
    // The result slot of bare expressions comes first, so its GlobalVar id is always 0.
    items.push_back(
        {ItemKind::Variable, kResultVar, "",
         "unsigned char " + std::string(kResultVar) + "[" + std::to_string(kResultBytes) + "];"});
  }

  /// The program text: every item, then main running `body`. Fills itemLines.
  std::string programText(const std::vector<Item> &list, const std::string &body,
                          uint32_t &bodyLine) {
    std::string text;
    uint32_t line = 1;
    itemLines.clear();
    for (size_t i = 0; i < list.size(); ++i) {
      itemLines.push_back({line, i});
      text += list[i].text;
      text += "\n";
      line += static_cast<uint32_t>(std::count(list[i].text.begin(), list[i].text.end(), '\n')) + 1;
    }
    text += "int main(void) {\n";
    bodyLine = line + 1;
    text += body;
    text += "\nreturn 0;\n}\n";
    return text;
  }

  void onLaunchEnd(size_t i) {
    if (!current || !current->module)
      return;
    const runtime::LaunchRecord &rec = rt->launches()[i];
    if (!rec.profiled) {
      auto dim = [](const uint32_t d[3]) {
        return d[1] == 1 && d[2] == 1 ? std::to_string(d[0])
                                      : "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) +
                                            "," + std::to_string(d[2]) + ")";
      };
      lastStats =
          "== launch " + std::to_string(i) + ": " + rec.kernel + "<<<" + dim(rec.grid) + ", " +
          dim(rec.block) + ">>> was not profiled" +
          (rec.faulted          ? " (it faulted: a launch that faulted keeps no counters)"
           : mode == Mode::Fast ? " (fast mode: :mode profile counts the following launches)"
                                : "") +
          "\n";
      return;
    }
    runtime::ReportInput report;
    report.rt = rt.get();
    report.program = "session";
    report.source = current->sources.fileText(0);
    Program::Impl *p = current.get();
    report.sites = runtime::siteTable(p->image());
    lastStats = runtime::launchStatsTable(report, i);
    // Per-line counters of the kernel's definition, while its module's sites are at hand.
    if (i >= rt->counters().launchCount())
      return;
    const runtime::LaunchCounters &lc = rt->counters().launch(i);
    for (size_t k = 0; k < itemLines.size(); ++k) {
      const Item &item = items[itemLines[k].second];
      if (item.kind != ItemKind::Definition || item.key != rec.kernel)
        continue;
      const uint32_t first = itemLines[k].first;
      const uint32_t count =
          static_cast<uint32_t>(std::count(item.text.begin(), item.text.end(), '\n')) + 1;
      Annotation a;
      a.text = item.text;
      for (size_t s = 1; s < lc.sites.size() && s < p->module->sites.size(); ++s) {
        const uint32_t line = p->module->sites[s].loc.line;
        if (line >= first && line < first + count)
          a.lines[line - first + 1] += lc.sites[s];
      }
      annotations[rec.kernel] = std::move(a);
    }
  }

  /// Renders diagnostics with lines of the current input as "<input>:L:C".
  std::string renderDiagnostics(const frontend::DiagnosticEngine &diags,
                                const std::map<uint32_t, uint32_t> &lineMap,
                                const std::string &inputName) {
    std::string out;
    for (const frontend::Diagnostic &d : diags.diagnostics()) {
      std::string text = diags.render(d, options.color);
      const std::string prefix = "session:" + std::to_string(d.loc.line) + ":";
      auto it = lineMap.find(d.loc.line);
      size_t at = text.find(prefix);
      if (at != std::string::npos && it != lineMap.end())
        text.replace(at, prefix.size(), inputName + ":" + std::to_string(it->second) + ":");
      out += text;
    }
    return out;
  }

  /// Compiles `list` with `body` as main. On success `current` holds the program; on failure
  /// the diagnostics are in `diagnostics` and `current` is untouched.
  bool compile(const std::vector<Item> &list, const std::string &body,
               const std::map<uint32_t, uint32_t> &bodyMap, uint32_t firstItemLine,
               const std::map<uint32_t, uint32_t> &itemMap, std::string &diagnostics,
               ValueType *valueType, bool probeOnly = false) {
    const auto t0 = std::chrono::steady_clock::now();
    uint32_t bodyLine = 0;
    std::string text = programText(list, body, bodyLine);
    auto p = std::make_unique<Program::Impl>();
    p->options = &options;
    p->diags = std::make_unique<frontend::DiagnosticEngine>(p->sources);
    const uint32_t file = p->sources.addFile("session", std::move(text));
    KernelTypes kernelTypes;
    ir::PipelineOptions po;
    po.afterSema = [&](const frontend::TranslationUnit &tu) {
      collectKernelTypes(tu, kernelTypes);
      if (valueType)
        findValueType(tu, *valueType);
    };
    p->module = ir::buildModule(p->sources, file, *p->diags, po);
    // Lines of this input: the statements in main and the items it added.
    std::map<uint32_t, uint32_t> lineMap;
    for (auto [bodyOffset, inputLine] : bodyMap)
      lineMap[bodyLine + bodyOffset] = inputLine;
    for (auto [itemOffset, inputLine] : itemMap)
      lineMap[firstItemLine + itemOffset] = inputLine;
    (void)firstItemLine;
    diagnostics = renderDiagnostics(*p->diags, lineMap, "input");
    if (!p->module)
      return false;
    if (probeOnly)
      return true;
    buildSignatures(*p, kernelTypes);
    if (!p->compileNative()) {
      diagnostics += "kern: internal error: " + p->nativeError + "\n";
      return false;
    }
    compileMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    current = std::move(p);
    return true;
  }

  /// The type of the probe's expression: the last statement of main before `return 0;`.
  static void findValueType(const frontend::TranslationUnit &tu, ValueType &vt) {
    for (const frontend::Decl *d : tu.decls) {
      auto *f = dynamic_cast<const frontend::FunctionDecl *>(d);
      if (!f || f->name != "main" || !f->body || f->body->body.size() < 2)
        continue;
      const frontend::Stmt *s = f->body->body[f->body->body.size() - 2];
      if (s->kind != frontend::StmtKind::Expr || !s->expr || !s->expr->type)
        continue;
      const frontend::Type *t = s->expr->type;
      vt.found = true;
      vt.spelling = t->str();
      vt.kind = t->kind;
      vt.size = t->size();
      vt.isSigned = t->isSigned();
      if ((t->isPointer() || t->isArray()) && t->elem) {
        vt.elemKind = t->elem->kind;
        vt.elemSize = t->elem->size();
        vt.elemSpelling = t->elem->str();
      }
    }
  }

  /// The statement that stores the expression's value in the result slot, in a type wide
  /// enough for its kind; empty when the value is not shown (void, structs, functions).
  static std::string storeStatement(const ValueType &vt, const std::string &expr) {
    std::string type;
    if (vt.kind == frontend::TypeKind::Float || vt.kind == frontend::TypeKind::Double)
      type = vt.kind == frontend::TypeKind::Float ? "float" : "double";
    else if (vt.kind >= frontend::TypeKind::Bool && vt.kind <= frontend::TypeKind::ULongLong)
      type =
          vt.isSigned || vt.kind == frontend::TypeKind::Bool ? "long long" : "unsigned long long";
    else if (vt.kind == frontend::TypeKind::Pointer || vt.kind == frontend::TypeKind::Array)
      type = "void *";
    else
      return "";
    return "*(" + type + " *)" + kResultVar + " = (" + type + ")(\n" + expr + "\n);";
  }

  /// "(float *) 0x... -> device [4 floats of 64]: {1, 2, 3, 4, ...}".
  std::string formatValue(const ValueType &vt) {
    const uint8_t *slot = reinterpret_cast<const uint8_t *>(rt->globalAddress(0));
    std::string out = "(" + vt.spelling + ") ";
    if (!slot)
      return out + "?";
    const bool pointer =
        vt.kind == frontend::TypeKind::Pointer || vt.kind == frontend::TypeKind::Array;
    const bool real = vt.kind == frontend::TypeKind::Float || vt.kind == frontend::TypeKind::Double;
    out += formatScalar(pointer ? frontend::TypeKind::Pointer : vt.kind, real ? vt.size : 8, slot);
    if (!pointer)
      return out;
    uint64_t addr;
    std::memcpy(&addr, slot, 8);
    const runtime::Allocation *a = rt->deviceMemory().find(addr);
    if (!a)
      return out;
    const bool scalarElem =
        vt.elemSize > 0 && vt.elemSize <= 8 && vt.elemKind != frontend::TypeKind::Struct &&
        vt.elemKind != frontend::TypeKind::Array && vt.elemKind != frontend::TypeKind::Void;
    const uint64_t left = a->end() - addr;
    if (!scalarElem)
      return out + " (device, " + std::to_string(left) + " bytes to the end of its allocation)";
    const uint64_t count = left / vt.elemSize;
    const uint64_t shown = std::min<uint64_t>(count, 8);
    out += " (device, " + std::to_string(count) + " x " + vt.elemSpelling + ") {";
    for (uint64_t i = 0; i < shown; ++i) {
      // Device memory is this process's memory: reading it directly records no transfer.
      const auto *e = reinterpret_cast<const uint8_t *>(addr + i * vt.elemSize);
      out += (i ? ", " : "") + formatScalar(vt.elemKind, vt.elemSize, e);
    }
    return out + (count > shown ? ", ...}" : "}");
  }

  Session::EvalResult meta(const std::string &line);
  Session::EvalResult evalCode(const std::string &input, const std::string &inputName);
  bool classify(const Chunk &c, std::vector<Item> &list, std::string &body,
                std::map<uint32_t, uint32_t> &bodyMap, std::map<uint32_t, uint32_t> &itemMap,
                bool last, std::string &printExpr, uint32_t &printLine, std::string &error);
  int loadCount = 0;
};

namespace {

/// The index of the item with `key` and `kind`, or -1.
int findItem(const std::vector<Item> &list, const std::string &key) {
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].key == key)
      return static_cast<int>(i);
  return -1;
}

size_t lineCount(const std::string &s) { return std::count(s.begin(), s.end(), '\n') + 1; }

} // namespace

/// Sorts one chunk into the program (a definition or variable) or into main's body.
bool Session::Impl::classify(const Chunk &c, std::vector<Item> &list, std::string &body,
                             std::map<uint32_t, uint32_t> &bodyMap,
                             std::map<uint32_t, uint32_t> &itemMap, bool last,
                             std::string &printExpr, uint32_t &printLine, std::string &error) {
  const std::string clean = trim(stripComments(c.text));
  const std::vector<Token> toks = tokenize(clean);
  auto addBody = [&](const std::string &text) {
    const uint32_t at = static_cast<uint32_t>(std::count(body.begin(), body.end(), '\n'));
    const size_t n = lineCount(text);
    for (size_t i = 0; i < n; ++i)
      bodyMap[at + static_cast<uint32_t>(i)] = static_cast<uint32_t>(c.firstLine + i + 1);
    body += text;
    body += "\n";
  };
  // Items added by this input are mapped to input lines after the fact (see evalCode).
  auto addItem = [&](Item item) {
    int at = findItem(list, item.key);
    if (at >= 0 && list[at].kind == ItemKind::Definition && item.kind == ItemKind::Definition) {
      list[at] = std::move(item); // a redefinition replaces the old one in place
      itemMap[static_cast<uint32_t>(at)] = static_cast<uint32_t>(c.firstLine + 1);
      return;
    }
    list.push_back(std::move(item));
    itemMap[static_cast<uint32_t>(list.size() - 1)] = static_cast<uint32_t>(c.firstLine + 1);
  };
  if (c.directive) {
    Item it{ItemKind::Directive, "#" + clean, "", c.text};
    if (toks.size() >= 3 && toks[1].text == "define")
      it.name = toks[2].text, it.key = "#define " + toks[2].text;
    addItem(std::move(it));
    return true;
  }
  if (toks.empty())
    return true;
  const std::string &w = toks[0].text;

  // A function definition or prototype: `... name(params) {` or `... name(params);` with at
  // least a type before the name.
  size_t bodyBrace = std::string::npos;
  {
    int depth = 0;
    for (size_t i = 0; i < clean.size(); ++i) {
      if (clean[i] == '(' || clean[i] == '[')
        ++depth;
      else if (clean[i] == ')' || clean[i] == ']')
        --depth;
      else if (clean[i] == '{' && depth == 0) {
        bodyBrace = i;
        break;
      } else if (clean[i] == '=' && depth == 0)
        break;
    }
  }
  auto functionName = [&](size_t end) -> std::string {
    // The identifier before the '(' that matches the last ')' before `end`.
    size_t close = clean.rfind(')', end);
    if (close == std::string::npos ||
        trim(clean.substr(close + 1, end - close - 1)).find_first_not_of("constvolatile ") !=
            std::string::npos)
      return "";
    int depth = 0;
    size_t open = close;
    for (size_t i = close + 1; i-- > 0;) {
      if (clean[i] == ')')
        ++depth;
      else if (clean[i] == '(' && --depth == 0) {
        open = i;
        break;
      }
    }
    size_t e = open;
    while (e > 0 && std::isspace(static_cast<unsigned char>(clean[e - 1])))
      --e;
    size_t b = e;
    while (b > 0 && isIdentChar(clean[b - 1]))
      --b;
    if (b == e)
      return "";
    // At least one word (the type) before the name.
    if (trim(clean.substr(0, b)).empty())
      return "";
    return clean.substr(b, e - b);
  };
  const bool statementWord = kStatementWords.count(w) > 0;
  if (!statementWord && bodyBrace != std::string::npos && clean.back() == '}') {
    std::string name = functionName(bodyBrace);
    if (!name.empty()) {
      Item it{ItemKind::Definition, name, name, c.text};
      if (name == "main") {
        // A loaded file's main becomes an ordinary function that runs once.
        const std::string renamed = "__kern_main_" + std::to_string(++loadCount);
        size_t at = c.text.find("main");
        while (at != std::string::npos && ((at > 0 && isIdentChar(c.text[at - 1])) ||
                                           (at + 4 < c.text.size() && isIdentChar(c.text[at + 4]))))
          at = c.text.find("main", at + 4);
        it.text = c.text;
        it.text.replace(at, 4, renamed);
        it.key = it.name = renamed;
        const bool takesArgs =
            clean.find("argc") != std::string::npos && clean.find("argc") < bodyBrace;
        addItem(std::move(it));
        addBody(renamed + (takesArgs ? "(0, 0);" : "();"));
        return true;
      }
      addItem(std::move(it));
      return true;
    }
  }
  if (!statementWord && clean.back() == ';' && bodyBrace == std::string::npos &&
      clean.find('=') == std::string::npos) {
    std::string name = functionName(clean.size() - 1);
    if (!name.empty() && (kDefinitionWords.count(w) || kTypeWords.count(w) || typeNames.count(w))) {
      addItem({ItemKind::Definition, "prototype " + name, name, c.text});
      return true;
    }
  }
  // Types: struct/union/enum definitions and typedefs.
  if (w == "typedef" || ((w == "struct" || w == "union" || w == "enum") &&
                         bodyBrace != std::string::npos && toks.size() > 1)) {
    std::string name;
    if (w == "typedef") {
      for (size_t i = toks.size(); i-- > 0;)
        if (toks[i].ident) {
          name = toks[i].text;
          break;
        }
    } else {
      name = toks[1].ident ? toks[1].text : "";
    }
    if (!name.empty())
      typeNames.insert(name);
    // A struct defined with a variable after it (`struct S {...} s;`) is still one item.
    addItem({ItemKind::Definition, "type " + (name.empty() ? clean : name), name, c.text});
    return true;
  }
  // File-scope variables written as such (__device__, __constant__, static, extern, const).
  const bool deviceVar =
      kDefinitionWords.count(w) > 0 && w != "struct" && w != "union" && w != "enum";
  const bool isType = kTypeWords.count(w) > 0 || typeNames.count(w) > 0 ||
                      ((w == "struct" || w == "union" || w == "enum") && toks.size() > 2);
  if (deviceVar || (isType && (toks.size() < 2 || toks[1].text != "("))) {
    if (w == "auto") {
      error = "'auto' variables are not kept between inputs; give the type";
      return false;
    }
    // Declarators: split at top-level commas; each keeps its name.
    std::vector<std::string> parts;
    {
      int depth = 0;
      size_t s = 0;
      std::string decl = clean.back() == ';' ? clean.substr(0, clean.size() - 1) : clean;
      for (size_t i = 0; i < decl.size(); ++i) {
        char ch = decl[i];
        if (ch == '(' || ch == '[' || ch == '{')
          ++depth;
        else if (ch == ')' || ch == ']' || ch == '}')
          --depth;
        else if (ch == '"' || ch == '\'') {
          for (++i; i < decl.size() && decl[i] != ch; ++i)
            if (decl[i] == '\\')
              ++i;
        } else if (ch == ',' && depth == 0) {
          parts.push_back(decl.substr(s, i - s));
          s = i + 1;
        }
      }
      parts.push_back(decl.substr(s));
    }
    // Specifiers: the first part's text before its declarator's name and stars.
    auto declaratorName = [](const std::string &d, size_t &nameAt, size_t &stop) {
      stop = d.size();
      int depth = 0;
      for (size_t i = 0; i < d.size(); ++i) {
        if (depth == 0 && (d[i] == '=' || d[i] == '[' || d[i] == '(')) {
          stop = i;
          break;
        }
        if (d[i] == '<')
          ++depth;
        else if (d[i] == '>')
          --depth;
      }
      size_t e = stop;
      while (e > 0 && std::isspace(static_cast<unsigned char>(d[e - 1])))
        --e;
      size_t b = e;
      while (b > 0 && isIdentChar(d[b - 1]))
        --b;
      nameAt = b;
      return d.substr(b, e - b);
    };
    size_t nameAt = 0, stop = 0;
    std::string first = parts[0];
    std::string firstName = declaratorName(first, nameAt, stop);
    size_t specEnd = nameAt;
    while (specEnd > 0 && (first[specEnd - 1] == '*' || first[specEnd - 1] == '&' ||
                           std::isspace(static_cast<unsigned char>(first[specEnd - 1]))))
      --specEnd;
    const std::string specifiers = trim(first.substr(0, specEnd));
    parts[0] = first.substr(specEnd);
    if (firstName.empty() || specifiers.empty() || kTypeWords.count(firstName)) {
      error = "cannot read the declaration '" + clean + "'";
      return false;
    }
    const bool verbatim = deviceVar || specifiers.rfind("const", 0) == 0;
    for (std::string part : parts) {
      std::string name = declaratorName(part, nameAt, stop);
      std::string declarator = trim(part.substr(0, stop));
      std::string rest = trim(part.substr(stop));
      std::string init;
      if (!rest.empty() && rest[0] == '[') {
        size_t eq = rest.find('=');
        declarator += " " + trim(rest.substr(0, eq));
        rest = eq == std::string::npos ? "" : trim(rest.substr(eq));
      }
      if (!rest.empty() && rest[0] == '=')
        init = trim(rest.substr(1));
      else if (!rest.empty() && rest[0] == '(') // dim3 g(4, 2): a constructor call
        init = specifiers + rest;
      const bool keepInit = verbatim || (!init.empty() && init[0] == '{');
      const std::string declText =
          specifiers + " " + declarator + (keepInit && !init.empty() ? " = " + init : "") + ";";
      int at = findItem(list, name);
      if (at >= 0 && list[at].kind == ItemKind::Variable) {
        if (list[at].text != declText &&
            (keepInit || list[at].text != specifiers + " " + declarator + ";")) {
          error = "'" + name + "' is already declared as '" + list[at].text +
                  "' (variables keep their type; :reset starts over)";
          return false;
        }
      } else {
        addItem({ItemKind::Variable, name, name,
                 keepInit ? declText : specifiers + " " + declarator + ";"});
      }
      if (!keepInit && !init.empty())
        addBody(name + " = " + init + ";");
    }
    return true;
  }
  // A statement, or a bare expression to print.
  if (last && !c.terminated) {
    printExpr = c.text;
    printLine = static_cast<uint32_t>(c.firstLine + 1);
    return true;
  }
  addBody(c.text);
  return true;
}

Session::EvalResult Session::Impl::evalCode(const std::string &input,
                                            const std::string &inputName) {
  Session::EvalResult result;
  std::vector<Chunk> chunks = splitInput(input);
  if (chunks.empty())
    return result;
  std::vector<Item> list = items;
  const std::set<std::string> savedTypes = typeNames;
  std::string body, printExpr, error;
  uint32_t printLine = 0;
  std::map<uint32_t, uint32_t> bodyMap, itemMap;
  for (size_t i = 0; i < chunks.size(); ++i)
    if (!classify(chunks[i], list, body, bodyMap, itemMap, i + 1 == chunks.size(), printExpr,
                  printLine, error)) {
      typeNames = savedTypes;
      result.status = Status::CompileError;
      result.diagnostics = inputName + ": error: " + error + "\n";
      err(result.diagnostics);
      return result;
    }
  // Item lines: each added item starts at its own line in the program text; the map from
  // program lines to input lines is computed per item.
  auto compileWith = [&](const std::string &mainBody, const std::map<uint32_t, uint32_t> &bmap,
                         std::string &diagnostics, ValueType *vt, bool probe) {
    // Map item lines: program line = item's first line + offset.
    std::map<uint32_t, uint32_t> itemLineMap;
    uint32_t line = 1;
    for (size_t i = 0; i < list.size(); ++i) {
      auto it = itemMap.find(static_cast<uint32_t>(i));
      const uint32_t n = static_cast<uint32_t>(lineCount(list[i].text));
      if (it != itemMap.end())
        for (uint32_t k = 0; k < n; ++k)
          itemLineMap[line + k - 1] = it->second + k;
      line += n;
    }
    return compile(list, mainBody, bmap, 1, itemLineMap, diagnostics, vt, probe);
  };
  ValueType vt;
  std::string diagnostics;
  bool ok = false;
  if (!printExpr.empty()) {
    // Two compiles: the first learns the expression's type from the checked AST (kern has no
    // `auto`), the second stores its value where the session can read it after the run.
    std::map<uint32_t, uint32_t> pmap = bodyMap;
    const uint32_t at = static_cast<uint32_t>(std::count(body.begin(), body.end(), '\n'));
    // The expression starts a line of its own, so columns in diagnostics are the user's.
    for (size_t k = 0; k <= lineCount(printExpr); ++k)
      pmap[at + static_cast<uint32_t>(k)] = printLine + static_cast<uint32_t>(k ? k - 1 : 0);
    ok = compileWith(body + "(\n" + printExpr + "\n);", pmap, diagnostics, &vt, true);
    if (ok) {
      const std::string store = vt.found ? storeStatement(vt, printExpr) : "";
      if (store.empty())
        vt.found = false;
      ok = compileWith(body + (store.empty() ? "\n" + printExpr + "\n;" : store), pmap, diagnostics,
                       nullptr, false);
    }
  } else {
    ok = compileWith(body, bodyMap, diagnostics, nullptr, false);
  }
  if (!ok) {
    typeNames = savedTypes;
    result.status = Status::CompileError;
    result.diagnostics = diagnostics;
    err(diagnostics);
    return result;
  }
  if (!diagnostics.empty())
    err(diagnostics); // warnings
  items = std::move(list);
  std::string deviceError;
  if (!ensureRuntime(deviceError)) {
    result.status = Status::UsageError;
    result.diagnostics = "kern: " + deviceError + "\n";
    err(result.diagnostics);
    return result;
  }
  rt->setProgram(current->image());
  const bool faultedBefore = rt->faulted();
  const std::string errorBefore = rt->lastErrorMessage();
  const int code = rt->runMain({});
  if (rt->faulted() && (!faultedBefore || rt->lastErrorMessage() != errorBefore)) {
    result.status = Status::RuntimeError;
    result.diagnostics = rt->lastErrorMessage() + "\n";
    return result;
  }
  if (code != 0) {
    out("(exit code " + std::to_string(code) + ")\n");
    return result;
  }
  if (vt.found)
    out(formatValue(vt) + "\n");
  return result;
}

Session::EvalResult Session::Impl::meta(const std::string &line) {
  Session::EvalResult r;
  std::istringstream in(line);
  std::string cmd, arg, arg2;
  in >> cmd >> arg >> arg2;
  auto usage = [&](const std::string &msg) {
    r.status = Status::UsageError;
    r.diagnostics = msg + "\n";
    err(r.diagnostics);
    return r;
  };
  if (cmd == ":help" || cmd == ":h" || cmd == ":?") {
    out(kHelp);
  } else if (cmd == ":quit" || cmd == ":q" || cmd == ":exit") {
    r.quit = true;
  } else if (cmd == ":reset") {
    resetAll();
    out("session reset\n");
  } else if (cmd == ":source") {
    std::string text;
    for (size_t i = 1; i < items.size(); ++i)
      text += items[i].text + "\n";
    out(text);
  } else if (cmd == ":device") {
    if (arg.empty())
      return usage(":device needs a name (" + trim(deviceList()) + ")");
    Options probe = options;
    probe.device = arg;
    probe.deviceFile.clear();
    std::string error;
    if (!checkDevice(probe, error))
      return usage("kern: " + error);
    options.device = arg;
    options.deviceFile.clear();
    rt.reset(); // a new device: variables start again from their initial values
    lastStats.clear();
    out("device " + arg + " (variables were reset: a new device has new memory)\n");
  } else if (cmd == ":mode") {
    if (arg.empty()) {
      out(std::string("mode ") + (mode == Mode::Fast ? "fast" : "profile") + "\n");
      return r;
    }
    if (!arg2.empty() || (arg != "fast" && arg != "profile"))
      return usage("usage: :mode [fast|profile]" +
                   std::string(arg == "checked" ? " (checked mode is for whole runs: kern run "
                                                  "--mode checked)"
                                                : ""));
    setMode(arg == "fast" ? Mode::Fast : Mode::Profile);
    out("mode " + arg +
        (arg == "fast" ? " (the following launches count nothing)\n"
                       : " (the following launches are counted)\n"));
  } else if (cmd == ":stats") {
    out(lastStats.empty() ? "no launch yet\n" : lastStats);
  } else if (cmd == ":annotate") {
    auto it = annotations.find(arg);
    if (arg.empty() || it == annotations.end())
      return usage(arg.empty() ? ":annotate needs a kernel name"
                               : "no launch of '" + arg + "' yet");
    std::istringstream src(it->second.text);
    std::string text, codeLine;
    for (uint32_t n = 1; std::getline(src, codeLine); ++n) {
      std::string note;
      auto c = it->second.lines.find(n);
      if (c != it->second.lines.end()) {
        const runtime::SiteCounters &s = c->second;
        auto add = [&note](const std::string &k, uint64_t v) {
          if (v)
            note += (note.empty() ? "" : "  ") + k + " " + std::to_string(v);
        };
        add("instr", s.warpInstructions);
        add("branches", s.branchesExecuted);
        add("divergent", s.branchesDivergent);
        add("gmem-req", s.globalTotal().requests);
        add("gmem-trans", s.globalTotal().transactions);
        add("smem-req", s.sharedTotal().requests);
        add("bank-conflicts", s.sharedTotal().conflicts());
        add("atomics", s.atomicsExecuted);
        add("barriers", s.barriersExecuted);
      }
      char num[16];
      std::snprintf(num, sizeof num, "%3u | ", n);
      text += num + codeLine + (note.empty() ? "" : "    // " + note) + "\n";
    }
    out(text);
  } else if (cmd == ":emit") {
    if ((arg != "ir" && arg != "llvm" && arg != "asm") || arg2.empty())
      return usage("usage: :emit ir|llvm|asm KERNEL");
    if (!current || !current->module || !current->module->findFunction(arg2))
      return usage("no kernel or function '" + arg2 + "'");
    std::string text;
    if (arg == "ir") {
      text = ir::print(*current->module->findFunction(arg2), *current->module);
    } else {
      // The whole module's text, cut down to the functions whose name mentions the kernel.
      std::string all = arg == "llvm" ? current->native->llvmIR() : current->native->assembly();
      std::istringstream src(all);
      std::string l;
      bool inside = false;
      for (; std::getline(src, l);) {
        const bool start = arg == "llvm" ? l.rfind("define ", 0) == 0
                                         : (!l.empty() && l[0] != '\t' && l[0] != ' ' &&
                                            l[0] != '.' && l.back() == ':');
        if (start)
          inside = l.find(arg2) != std::string::npos;
        if (inside)
          text += l + "\n";
        if (arg == "llvm" && l == "}")
          inside = false;
        if (arg == "asm" && l.find(".Lfunc_end") == 0)
          inside = false;
      }
    }
    if (!text.empty() && text.back() != '\n')
      text += '\n';
    out(text);
  } else if (cmd == ":load") {
    std::string path = trim(line.substr(line.find(":load") + 5));
    std::ifstream f(path, std::ios::binary);
    if (!f)
      return usage("kern: cannot open file '" + path + "'");
    std::stringstream ss;
    ss << f.rdbuf();
    return evalCode(ss.str(), path);
  } else {
    return usage("unknown command '" + cmd + "' (:help lists them)");
  }
  return r;
}

Session::Session(Options options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  // :stats and :annotate need counters; the JIT runs at -O1 unless asked for less: lines are
  // small and compile time is what a prompt feels (docs/api.md, "Sessions").
  impl_->options.counters = true;
  impl_->options.optLevel = std::clamp(impl_->options.optLevel, 0, 1);
  impl_->resetAll();
}

Session::~Session() = default;

Session::EvalResult Session::eval(std::string_view input) {
  const std::string text = trim(input);
  if (text.empty())
    return {};
  if (text[0] == ':')
    return impl_->meta(text);
  ++impl_->inputCount;
  return impl_->evalCode(std::string(input), "input");
}

bool Session::isComplete(std::string_view input) {
  const std::string clean = stripComments(input);
  // An unterminated block comment: stripComments blanks to the end, so look for it directly.
  size_t open = std::string(input).rfind("/*");
  if (open != std::string::npos && std::string(input).find("*/", open) == std::string::npos)
    return false;
  int depth = 0;
  for (size_t i = 0; i < clean.size(); ++i) {
    char c = clean[i];
    if (c == '"' || c == '\'') {
      size_t j = i + 1;
      for (; j < clean.size() && clean[j] != c && clean[j] != '\n'; ++j)
        if (clean[j] == '\\')
          ++j;
      if (j >= clean.size())
        return false;
      i = j;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    }
  }
  const std::string t = trim(input);
  return depth <= 0 && !(t.size() && t.back() == '\\');
}

std::vector<std::string> Session::completions(std::string_view prefix) const {
  std::set<std::string> names;
  auto add = [&](const std::string &n) {
    if (n.size() >= prefix.size() && n.compare(0, prefix.size(), prefix) == 0 &&
        n.rfind("__kern_", 0) != 0)
      names.insert(n);
  };
  if (!prefix.empty() && prefix[0] == ':') {
    for (const char *m : kMetaCommands)
      add(m);
    return {names.begin(), names.end()};
  }
  for (const char *b : kBuiltinNames)
    add(b);
  for (const char *w : kWords)
    add(w);
  for (const Item &it : impl_->items)
    if (!it.name.empty())
      add(it.name);
  for (const std::string &t : impl_->typeNames)
    add(t);
  return {names.begin(), names.end()};
}

std::string Session::source() const {
  std::string text;
  for (size_t i = 1; i < impl_->items.size(); ++i)
    text += impl_->items[i].text + "\n";
  return text;
}

double Session::lastCompileMilliseconds() const { return impl_->compileMs; }

Result Session::setMode(Mode mode) {
  if (mode == Mode::Checked) {
    Result r;
    r.status = Status::UsageError;
    r.diagnostics = "kern: a session runs in fast or profile mode (checked mode is for whole "
                    "runs: kern run --mode checked)\n";
    return r;
  }
  impl_->setMode(mode);
  return {};
}

Mode Session::mode() const { return impl_->mode; }

} // namespace kern
