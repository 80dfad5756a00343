// The insides of kern::Session, shared by session.cpp (reading, compiling and running inputs),
// session_values.cpp (showing a value) and session_commands.cpp (meta-commands, statistics).
#pragma once

#include "engine/engine_impl.h"

#include "frontend/repl_input.h"
#include "frontend/types.h"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kern {

enum class ItemKind { Directive, Definition, Variable };

/// One piece of the accumulated program.
struct Item {
  ItemKind kind = ItemKind::Definition;
  std::string key;  // what a redefinition replaces: a function's or type's name
  std::string name; // for completion
  std::string text;
  uint32_t input = 0; // the input that gave it (1, 2, ...), and its first line there
  uint32_t line = 1;
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
  /// A cudaError_t (an int to the front end): a runtime call's result, an enumerator or a
  /// variable declared so. Shown by name with its message.
  bool cudaError = false;
  bool found = false;
};

constexpr const char *kResultVar = "__kern_result";
/// Seconds an input may run before it is stopped, unless Options::timeoutSeconds or `:timeout`
/// says otherwise: an endless loop, the commonest slip at a prompt, costs seconds, not the
/// session.
constexpr double kDefaultInputTimeout = 10;
constexpr size_t kResultBytes = 64;

/// `s` without the white space at either end.
std::string trimSpace(std::string_view s);

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
  /// Each input recompiles the session's program; its modules that did not change (every
  /// kernel the input did not touch) come from here instead of LLVM.
  std::shared_ptr<backend::ObjectCache> cache = backend::newObjectCache(size_t{256} << 20);
  // Session::interrupt: stops the input being run; cleared before and after each input.
  std::shared_ptr<runtime::StopRequest> stop = std::make_shared<runtime::StopRequest>();
  int inputCount = 0;
  /// The time limit of each input (`:timeout`): Options::timeoutSeconds if set, else
  /// kDefaultInputTimeout; 0 for none.
  double inputTimeout = 0;
  /// The input in which the device faulted (its sticky error), 0 while it has not.
  int faultedInput = 0;
  double compileMs = 0;
  std::string lastStats;
  std::vector<std::string> statsByLaunch; // `:stats N`: each launch's table, by launch number
  // Per kernel: its definition's text and, per line of it, the counters of its last launch.
  struct Annotation {
    std::string text;
    std::map<uint32_t, runtime::SiteCounters> lines; // line within the definition, 1-based
  };
  std::map<std::string, Annotation> annotations;
  /// `:explain KERNEL LINE`: the kernel whose line (within its definition, 1-based) the
  /// following launches draw lane by lane; empty: none.
  /// `:html FILE`: the launches of the last input that launched (their program's sites are the
  /// current ones until the next input).
  std::vector<size_t> htmlLaunches;
  std::string explainKernel;
  uint32_t explainLine = 0;
  /// The program line of that line in the current compile (0 if the kernel is not defined).
  uint32_t explainProgramLine() const;
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
  /// Where each line of the running program came from ("input 4, line 2"), for the runtime's
  /// messages: they name the user's input, never the hidden program (relocate()).
  std::map<uint32_t, std::string> programLines;
  void mapProgramLines(const std::vector<Item> &list, uint32_t bodyLine,
                       const std::map<uint32_t, uint32_t> &bodyMap);
  /// `text` with each "session:L:C" replaced by programLines' name of line L.
  std::string relocate(std::string text) const;

  /// Profile counts; fast counts nothing; checked counts nothing and compiles the following
  /// inputs with the checks (races, uninitialised reads), which the runtime then records.
  void setMode(Mode m) {
    mode = m;
    options.checked = m == Mode::Checked;
    if (rt) {
      rt->setCounting(mode == Mode::Profile);
      rt->setChecked(mode == Mode::Checked);
    }
  }

  bool ensureRuntime(std::string &error);
  void resetAll();
  /// The program text: every item, then main running `body`. Fills itemLines.
  std::string programText(const std::vector<Item> &list, const std::string &body,
                          uint32_t &bodyLine);
  /// Renders diagnostics with lines of the current input as "<input>:L:C".
  std::string renderDiagnostics(const frontend::DiagnosticEngine &diags,
                                const std::map<uint32_t, uint32_t> &lineMap,
                                const std::string &inputName);
  /// Compiles `list` with `body` as main. On success `current` holds the program; on failure
  /// the diagnostics are in `diagnostics` and `current` is untouched.
  bool compile(const std::vector<Item> &list, const std::string &body,
               const std::map<uint32_t, uint32_t> &bodyMap, uint32_t firstItemLine,
               const std::map<uint32_t, uint32_t> &itemMap, std::string &diagnostics,
               ValueType *valueType, bool probeOnly = false);
  /// Sorts one piece of an input into the program (a definition or variable) or into main's
  /// body (a statement, or the expression to print).
  bool classify(const std::string &input, const frontend::InputPiece &c, std::vector<Item> &list,
                std::string &body, std::map<uint32_t, uint32_t> &bodyMap,
                std::map<uint32_t, uint32_t> &itemMap, std::string &printExpr, uint32_t &printLine,
                std::string &error);
  Session::EvalResult evalCode(const std::string &input, const std::string &inputName);

  // session_commands.cpp
  Session::EvalResult meta(const std::string &line);
  /// Keeps the statistics of launch `i` and the per-line counters of its kernel.
  void onLaunchEnd(size_t i);
  void keepStats(size_t i); // lastStats is launch i's table

  // session_values.cpp: how a bare expression's value is shown.
  /// The type of the probe's expression: the last statement of main before `return 0;`.
  static void findValueType(const frontend::TranslationUnit &tu, ValueType &vt);
  /// The statement that stores the expression's value in the result slot, in a type wide
  /// enough for its kind; empty when the value is not shown (void, structs, functions).
  static std::string storeStatement(const ValueType &vt, const std::string &expr);
  /// "(float *) 0x... (device, 4 x float) {1, 2, 3, 4}".
  std::string formatValue(const ValueType &vt);

  int loadCount = 0;

  // session_completion.cpp: what completion knows of the session, from the last checked AST.
  struct CompletionInfo {
    std::map<std::string, std::string> varTypes; // file-scope variable -> its type's spelling
    /// A struct (or vector) type's spelling -> its members and their types' spellings.
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> members;
    std::set<std::string> kernels;
  };
  CompletionInfo completion;
  void collectCompletionInfo(const frontend::TranslationUnit &tu);
};

} // namespace kern
