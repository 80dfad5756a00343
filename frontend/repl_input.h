// Reads one REPL input with the grammar: its top-level pieces (directives, definitions,
// declarations, statements, a final bare expression) and whether it is complete yet.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kern::frontend {

enum class InputPieceKind {
  Directive,          // a line starting with '#', at the top level
  FunctionDefinition, // a function or kernel with its body
  Prototype,          // a function declared without a body
  TypeDefinition,     // struct, union or enum (with or without variables after it), typedef
  Variable,           // a variable declaration
  Declaration,        // another file-scope declaration: extern "C", C++ constructs, ';'
  Statement,          // a statement (ends with ';' or '}')
  Expression,         // an expression without ';' at the end of the input
  Invalid,            // the rest of the input, which no rule reads
};

/// One declarator of a variable declaration. Offsets are into the input text.
struct InputDeclarator {
  std::string name;
  size_t begin = 0, end = 0; // the declarator (`*p`, `a[4]`, `(*fp)(int)`), no initializer
  bool hasInit = false;
  size_t initBegin = 0, initEnd = 0; // `= x`: x; `(a, b)`: the parenthesised arguments
  bool constructorInit = false;      // `dim3 g(4, 2)`: the initializer is `(4, 2)`
};

struct InputPiece {
  InputPieceKind kind = InputPieceKind::Invalid;
  size_t begin = 0, end = 0; // offsets of its text in the input, first to last token
  uint32_t line = 1;         // its first line in the input, 1-based
  /// The declared name: the function's, the type's (the tag or the typedef name), the first
  /// variable's, the macro's for `#define`; empty when there is none.
  std::string name;
  size_t nameBegin = 0;       // offset of `name` for functions
  size_t parameterCount = 0;  // functions: `(void)` and `()` count 0
  size_t specifiersBegin = 0; // variables: the declaration specifiers (`static const int`)
  size_t specifiersEnd = 0;
  bool fileScopeQualifier = false; // __device__, __constant__, __shared__, static, extern, ...
  bool isConst = false;            // `const` among the declaration specifiers
  bool isAuto = false;             // the type is `auto`
  std::vector<InputDeclarator> declarators; // variables
  std::vector<std::string> declaredTypes;   // type names this piece declares
};

struct ReplInput {
  std::vector<InputPiece> pieces; // in input order; empty pieces (`;`, comments) are dropped
  bool definesMain = false;
};

/// Splits `text` into pieces. `typeNames` are the type names declared by earlier inputs (struct
/// tags and typedefs), which the grammar needs to tell `T * p;` from `a * b;`. A declaration is
/// preferred over a statement, as in a C block; text that no rule reads becomes one Invalid
/// piece that runs to the end, so that compiling it reports the syntax error.
ReplInput readReplInput(std::string_view text, const std::set<std::string> &typeNames = {});

/// Whether `text` is a whole input: its brackets close, no comment, string or line continuation
/// is left open, and it does not end inside a control statement (`for (...)` awaiting its body,
/// `do {...}` awaiting its `while`).
bool isReplInputComplete(std::string_view text, const std::set<std::string> &typeNames = {});

} // namespace kern::frontend
