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

#include "frontend/repl_input.h"
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

std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a])))
    ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])))
    --b;
  return std::string(s.substr(a, b - a));
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
  bool classify(const std::string &input, const frontend::InputPiece &c, std::vector<Item> &list,
                std::string &body, std::map<uint32_t, uint32_t> &bodyMap,
                std::map<uint32_t, uint32_t> &itemMap, std::string &printExpr, uint32_t &printLine,
                std::string &error);
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

/// Sorts one piece into the program (a definition or variable) or into main's body.
bool Session::Impl::classify(const std::string &input, const frontend::InputPiece &c,
                             std::vector<Item> &list, std::string &body,
                             std::map<uint32_t, uint32_t> &bodyMap,
                             std::map<uint32_t, uint32_t> &itemMap, std::string &printExpr,
                             uint32_t &printLine, std::string &error) {
  using Kind = frontend::InputPieceKind;
  auto slice = [&](size_t begin, size_t end) { return input.substr(begin, end - begin); };
  const std::string text = slice(c.begin, c.end);
  auto addBody = [&](const std::string &t) {
    const uint32_t at = static_cast<uint32_t>(std::count(body.begin(), body.end(), '\n'));
    const size_t n = lineCount(t);
    for (size_t i = 0; i < n; ++i)
      bodyMap[at + static_cast<uint32_t>(i)] = c.line + static_cast<uint32_t>(i);
    body += t;
    body += "\n";
  };
  // Items added by this input are mapped to input lines after the fact (see evalCode).
  auto addItem = [&](Item item) {
    int at = findItem(list, item.key);
    if (at >= 0 && list[at].kind == ItemKind::Definition && item.kind == ItemKind::Definition) {
      list[at] = std::move(item); // a redefinition replaces the old one in place
      itemMap[static_cast<uint32_t>(at)] = c.line;
      return;
    }
    list.push_back(std::move(item));
    itemMap[static_cast<uint32_t>(list.size() - 1)] = c.line;
  };
  switch (c.kind) {
  case Kind::Directive:
    if (c.name.empty())
      addItem({ItemKind::Directive, "#" + text, "", text});
    else
      addItem({ItemKind::Directive, "#define " + c.name, c.name, text});
    return true;
  case Kind::FunctionDefinition:
    if (c.name == "main") {
      // A loaded file's main becomes an ordinary function that runs once.
      const std::string renamed = "__kern_main_" + std::to_string(++loadCount);
      std::string renamedText = text;
      renamedText.replace(c.nameBegin - c.begin, 4, renamed);
      addItem({ItemKind::Definition, renamed, renamed, renamedText});
      std::string args;
      for (size_t i = 0; i < c.parameterCount; ++i)
        args += i ? ", 0" : "0";
      addBody(renamed + "(" + args + ");");
      return true;
    }
    addItem({ItemKind::Definition, c.name, c.name, text});
    return true;
  case Kind::Prototype:
    addItem({ItemKind::Definition, "prototype " + c.name, c.name, text});
    return true;
  case Kind::TypeDefinition:
    // A struct defined with a variable after it (`struct S {...} s;`) is still one item.
    typeNames.insert(c.declaredTypes.begin(), c.declaredTypes.end());
    if (!c.name.empty())
      typeNames.insert(c.name);
    addItem({ItemKind::Definition, "type " + (c.name.empty() ? text : c.name), c.name, text});
    return true;
  case Kind::Declaration:
    addItem({ItemKind::Definition, text, "", text});
    return true;
  case Kind::Variable:
    break;
  case Kind::Expression:
    printExpr = text;
    printLine = c.line;
    return true;
  case Kind::Statement:
  case Kind::Invalid: // compiled in main, where its syntax error is reported
    addBody(text);
    return true;
  }
  // Variables: each declarator becomes an item of its own; an initialiser runs in main, where
  // it may call the runtime, unless the variable lives on the device, is const, or is
  // initialised with braces (those keep their initialiser in the declaration).
  if (c.isAuto) {
    error = "'auto' variables are not kept between inputs; give the type";
    return false;
  }
  const std::string specifiers = slice(c.specifiersBegin, c.specifiersEnd);
  const bool verbatim = c.fileScopeQualifier || c.isConst;
  for (const frontend::InputDeclarator &d : c.declarators) {
    if (d.name.empty()) {
      error = "cannot read the declaration '" + text + "'";
      return false;
    }
    const std::string declarator = slice(d.begin, d.end);
    const std::string init = d.hasInit ? slice(d.initBegin, d.initEnd) : "";
    const bool keepInit = verbatim || (!init.empty() && init[0] == '{');
    const std::string bare = specifiers + " " + declarator + ";";
    const std::string declText =
        !keepInit || init.empty()
            ? bare
            : specifiers + " " + declarator + (d.constructorInit ? init : " = " + init) + ";";
    int at = findItem(list, d.name);
    if (at >= 0 && list[at].kind == ItemKind::Variable) {
      if (list[at].text != declText && (keepInit || list[at].text != bare)) {
        error = "'" + d.name + "' is already declared as '" + list[at].text +
                "' (variables keep their type; :reset starts over)";
        return false;
      }
    } else {
      addItem({ItemKind::Variable, d.name, d.name, declText});
    }
    // dim3 g(4, 2): a constructor call, assigned as `g = dim3(4, 2);`.
    if (!keepInit && !init.empty())
      addBody(d.name + " = " + (d.constructorInit ? specifiers + init : init) + ";");
  }
  return true;
}

Session::EvalResult Session::Impl::evalCode(const std::string &input,
                                            const std::string &inputName) {
  Session::EvalResult result;
  const frontend::ReplInput parsed = frontend::readReplInput(input, typeNames);
  if (parsed.pieces.empty())
    return result;
  std::vector<Item> list = items;
  const std::set<std::string> savedTypes = typeNames;
  std::string body, printExpr, error;
  uint32_t printLine = 0;
  std::map<uint32_t, uint32_t> bodyMap, itemMap;
  for (const frontend::InputPiece &piece : parsed.pieces)
    if (!classify(input, piece, list, body, bodyMap, itemMap, printExpr, printLine, error)) {
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
  const std::string text = trim(input);
  return (!text.empty() && text[0] == ':') || frontend::isReplInputComplete(input);
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
