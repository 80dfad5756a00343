// kern::Session (include/kern/kern.hpp): the REPL's engine. Keeps the session's definitions and
// variables as source text, recompiles the accumulated program for each input with the input's
// statements as main, and runs it on one Runtime that lives as long as the session.
//
// Why recompile instead of one JIT module per input: kernels, device functions and host
// variables refer to each other across inputs, and the front end checks a whole translation
// unit at once (names, types, execution sides). Recompiling the text keeps every input checked
// exactly as a file would be, redefinitions replace in place, and the Runtime keeps device
// memory and host variables because GlobalVar ids follow declaration order, which only grows.
// What makes that fast is the session's object cache (backend/object_cache.h): each kernel is
// an LLVM module of its own, and every module the input did not change comes out the same, so
// it is linked from the cache; only the input's main and the kernels it defines reach LLVM's
// optimiser (bench/repl_lines.py: a line takes 4-30 ms with 1-30 kernels defined).
#include "engine/session_impl.h"

#include "frontend/sema.h"
#include "runtime/errors.h"

#include <algorithm>
#include <chrono>

namespace kern {

std::string trimSpace(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a])))
    ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])))
    --b;
  return std::string(s.substr(a, b - a));
}

bool Session::Impl::ensureRuntime(std::string &error) {
  if (rt)
    return true;
  runtime::Runtime::Options ro = runtimeOptions(options);
  ro.stop = stop;
  ro.timeoutSeconds = inputTimeout;
  ro.timeoutSetting = ":timeout";
  ro.err = [this](std::string_view text) { err(relocate(std::string(text))); };
  if (!resolveDevice(options, ro.device, error))
    return false;
  ro.onLaunchEnd = [this](size_t i) { onLaunchEnd(i); };
  ro.counters = mode == Mode::Profile;
  ro.captureAll = true; // :html's lane maps (captured when counting)
  rt = std::make_unique<runtime::Runtime>(std::move(ro));
  return true;
}

void Session::Impl::resetAll() {
  items.clear();
  typeNames.clear();
  rt.reset();
  current.reset();
  lastStats.clear();
  statsByLaunch.clear();
  annotations.clear();
  // The result slot of bare expressions comes first, so its GlobalVar id is always 0.
  items.push_back(
      {ItemKind::Variable, kResultVar, "",
       "unsigned char " + std::string(kResultVar) + "[" + std::to_string(kResultBytes) + "];"});
}

/// The program text: every item, then main running `body`. Fills itemLines.
std::string Session::Impl::programText(const std::vector<Item> &list, const std::string &body,
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

/// Renders diagnostics with lines of the current input as "<input>:L:C".
std::string Session::Impl::renderDiagnostics(const frontend::DiagnosticEngine &diags,
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
bool Session::Impl::compile(const std::vector<Item> &list, const std::string &body,
                            const std::map<uint32_t, uint32_t> &bodyMap, uint32_t firstItemLine,
                            const std::map<uint32_t, uint32_t> &itemMap, std::string &diagnostics,
                            ValueType *valueType, bool probeOnly) {
  const auto t0 = std::chrono::steady_clock::now();
  uint32_t bodyLine = 0;
  std::string text = programText(list, body, bodyLine);
  auto p = std::make_unique<Program::Impl>();
  p->options = &options;
  p->stop = stop;
  p->cache = cache;
  p->diags = std::make_unique<frontend::DiagnosticEngine>(p->sources);
  const uint32_t file = p->sources.addFile("session", std::move(text));
  KernelTypes kernelTypes;
  ir::PipelineOptions po;
  po.preprocess.includePaths = options.includePaths;
  po.preprocess.defines = options.defines;
  po.preprocess.cudaArch = cudaArchFor(options);
  po.afterSema = [&](const frontend::TranslationUnit &tu) {
    collectKernelTypes(tu, kernelTypes);
    if (valueType)
      findValueType(tu, *valueType);
    collectCompletionInfo(tu);
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
  mapProgramLines(list, bodyLine, bodyMap);
  return true;
}

void Session::Impl::mapProgramLines(const std::vector<Item> &list, uint32_t bodyLine,
                                    const std::map<uint32_t, uint32_t> &bodyMap) {
  programLines.clear();
  for (size_t k = 0; k < itemLines.size(); ++k) {
    const auto [first, index] = itemLines[k];
    const Item &item = list[index];
    if (item.input == 0)
      continue; // the session's own
    const uint32_t end = k + 1 < itemLines.size() ? itemLines[k + 1].first : bodyLine - 1;
    for (uint32_t l = first; l < end; ++l)
      programLines[l] = "input " + std::to_string(item.input) + ", line " +
                        std::to_string(item.line + (l - first));
  }
  for (auto [offset, inputLine] : bodyMap)
    programLines[bodyLine + offset] =
        "input " + std::to_string(inputCount) + ", line " + std::to_string(inputLine);
}

std::string Session::Impl::relocate(std::string text) const {
  const std::string prefix = "session:";
  for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
    size_t end = at + prefix.size();
    uint32_t line = 0;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9')
      line = line * 10 + static_cast<uint32_t>(text[end++] - '0');
    auto it = programLines.find(line);
    if (end == at + prefix.size() || it == programLines.end())
      continue;
    text.replace(at, end - at, it->second);
  }
  return text;
}

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
    item.input = static_cast<uint32_t>(inputCount);
    item.line = c.line;
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
    typeNames.insert(c.declaredTypes.begin(), c.declaredTypes.end()); // #define REAL float
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
  // initialised with braces or a string literal (those keep their initialiser in the
  // declaration: `char s[6] = "hello";` cannot be an assignment).
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
    const bool keepInit = verbatim || (!init.empty() && (init[0] == '{' || init[0] == '"'));
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
  rt->setExplainLine(explainProgramLine());
  const bool faultedBefore = rt->faulted();
  const std::string errorBefore = rt->lastErrorMessage();
  const uint64_t stickyBefore = rt->stickyReturns();
  const size_t launchesBefore = rt->launches().size();
  const int code = rt->runMain({});
  if (rt->launches().size() > launchesBefore) { // :html draws the last input that launched
    htmlLaunches.clear();
    for (size_t i = launchesBefore; i < rt->launches().size(); ++i)
      htmlLaunches.push_back(i);
  }
  if (rt->stickyError() == 0) {
    faultedInput = 0; // cudaDeviceReset
  } else if (faultedInput == 0) {
    faultedInput = inputCount;
  } else if (rt->stickyReturns() != stickyBefore) {
    // A launch or call on a device that faulted in an earlier input: CUDA fails it with the
    // fault's error, silently; say why once per input.
    const int32_t e = rt->stickyError();
    err("kern: note: the device faulted in input " + std::to_string(faultedInput) + " (" +
        runtime::errorName(e) + ": " + runtime::errorString(e) +
        "): every launch and CUDA call fails with that error until cudaDeviceReset() or "
        ":reset\n");
  }
  if (rt->interrupted()) { // Ctrl-C: reported; the session and its definitions go on
    result.status = Status::Interrupted;
    result.diagnostics = relocate(rt->lastErrorMessage()) + "\n";
    return result;
  }
  if (rt->faulted() && (!faultedBefore || rt->lastErrorMessage() != errorBefore)) {
    result.status = Status::RuntimeError;
    result.diagnostics = relocate(rt->lastErrorMessage()) + "\n";
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

Session::Session(Options options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  // :stats and :annotate need counters; the JIT runs at -O1 unless asked for less: lines are
  // small and compile time is what a prompt feels (docs/api.md, "Sessions").
  impl_->options.counters = true;
  impl_->options.optLevel = std::clamp(impl_->options.optLevel, 0, 1);
  impl_->inputTimeout =
      impl_->options.timeoutSeconds > 0 ? impl_->options.timeoutSeconds : kDefaultInputTimeout;
  impl_->resetAll();
}

Session::~Session() = default;

Session::EvalResult Session::eval(std::string_view input) {
  const std::string text = trimSpace(input);
  if (text.empty())
    return {};
  if (text[0] == ':')
    return impl_->meta(text);
  ++impl_->inputCount;
  impl_->stop->clear(); // an interrupt before this input (at the prompt) is not for it
  EvalResult r = impl_->evalCode(std::string(input), "input");
  impl_->stop->clear();
  return r;
}

void Session::interrupt() { impl_->stop->request(); }

bool Session::isComplete(std::string_view input) {
  const std::string text = trimSpace(input);
  return (!text.empty() && text[0] == ':') || frontend::isReplInputComplete(input);
}

std::string Session::source() const {
  std::string text;
  for (size_t i = 1; i < impl_->items.size(); ++i)
    text += impl_->items[i].text + "\n";
  return text;
}

double Session::lastCompileMilliseconds() const { return impl_->compileMs; }

Result Session::setMode(Mode mode) {
  impl_->setMode(mode);
  return {};
}

Mode Session::mode() const { return impl_->mode; }

} // namespace kern
