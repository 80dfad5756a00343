// Syntax errors of the Kern parser in clang's words (see parse_errors.h): which token was
// expected, what a missing ';' ends, unclosed brackets, unsupported keywords.
#include "frontend/parse_errors.h"

#include "frontend/escapes.h"

#include "frontend/sema.h"
#include <cstdio>

#include <map>
#include <set>
#include <string>

namespace kern::frontend {

namespace {

using antlr4::Token;
using P = kern_antlr::KernParser;

/// What `std::` names in kern's host C++ library (frontend/headers/std/): its headers'
/// declarations, and the C library's functions that <cmath>, <cstdlib>... declare in std.
bool inStdLibrary(const std::string &n) {
  static const std::set<std::string> names = {"vector",
                                              "exception",
                                              "bad_exception",
                                              "logic_error",
                                              "domain_error",
                                              "invalid_argument",
                                              "length_error",
                                              "out_of_range",
                                              "runtime_error",
                                              "range_error",
                                              "overflow_error",
                                              "underflow_error",
                                              "bad_alloc",
                                              "distance",
                                              "advance",
                                              "next",
                                              "prev",
                                              "string",
                                              "to_string",
                                              "stoi",
                                              "stol",
                                              "stof",
                                              "stod",
                                              "cout",
                                              "cerr",
                                              "clog",
                                              "cin",
                                              "endl",
                                              "flush",
                                              "ostream",
                                              "istream",
                                              "fixed",
                                              "scientific",
                                              "defaultfloat",
                                              "boolalpha",
                                              "noboolalpha",
                                              "hex",
                                              "oct",
                                              "dec",
                                              "left",
                                              "right",
                                              "showpos",
                                              "noshowpos",
                                              "setprecision",
                                              "setw",
                                              "setfill",
                                              "min",
                                              "max",
                                              "swap",
                                              "pair",
                                              "make_pair",
                                              "less",
                                              "greater",
                                              "plus",
                                              "multiplies",
                                              "fill",
                                              "fill_n",
                                              "copy",
                                              "copy_n",
                                              "find",
                                              "find_if",
                                              "count",
                                              "count_if",
                                              "min_element",
                                              "max_element",
                                              "reverse",
                                              "equal",
                                              "for_each",
                                              "transform",
                                              "sort",
                                              "stable_sort",
                                              "lower_bound",
                                              "upper_bound",
                                              "binary_search",
                                              "accumulate",
                                              "inner_product",
                                              "iota",
                                              "partial_sum",
                                              "chrono",
                                              "ratio",
                                              "nano",
                                              "micro",
                                              "milli",
                                              "centi",
                                              "deci",
                                              "kilo",
                                              "size_t",
                                              "ptrdiff_t",
                                              "numeric_limits",
                                              "ofstream",
                                              "ifstream",
                                              "ios_base",
                                              "ios",
                                              "getline",
                                              "ostringstream",
                                              "istringstream",
                                              "stringstream",
                                              "map",
                                              "multimap",
                                              "set",
                                              "multiset",
                                              "list",
                                              "deque",
                                              "queue",
                                              "priority_queue",
                                              "stack",
                                              "unordered_map",
                                              "unordered_set",
                                              "unordered_multimap",
                                              "unordered_multiset",
                                              "hash",
                                              "equal_to",
                                              "not_equal_to",
                                              "less_equal",
                                              "greater_equal",
                                              "minus",
                                              "push_heap",
                                              "pop_heap",
                                              "make_heap",
                                              "sort_heap",
                                              "is_heap"};
  return names.count(n) || findBuiltin(n) >= 0;
}

/// Turns ANTLR's recognition errors into clang-style messages. The first error stops the
/// parse (the strategy throws ParseCancellationException), so there are no follow-on errors.
class KernErrorStrategy : public antlr4::DefaultErrorStrategy {
public:
  KernErrorStrategy(const PreprocessedSource &src, DiagnosticEngine &diags)
      : src_(src), diags_(diags) {}

  void reportError(antlr4::Parser *p, const antlr4::RecognitionException &e) override {
    if (auto *nva = dynamic_cast<const antlr4::NoViableAltException *>(&e))
      report(p, nva->getOffendingToken(), nva->getStartToken(), false);
    else
      report(p, e.getOffendingToken() ? e.getOffendingToken() : p->getCurrentToken(), nullptr,
             false);
  }
  void recover(antlr4::Parser *, std::exception_ptr) override {
    throw antlr4::ParseCancellationException();
  }
  void reportUnwantedToken(antlr4::Parser *p) override {
    report(p, p->getCurrentToken(), nullptr, false);
  }
  void reportMissingToken(antlr4::Parser *p) override {
    report(p, p->getCurrentToken(), nullptr, true);
  }

private:
  const PreprocessedSource &src_;
  DiagnosticEngine &diags_;

  SourceLoc locOf(Token *t) const {
    return src_.map(static_cast<uint32_t>(t->getLine()),
                    static_cast<uint32_t>(t->getCharPositionInLine() + 1));
  }

  // Just past the end of token `t`, where clang puts "expected ';'".
  SourceLoc endOf(Token *t) const {
    std::string text = t->getText();
    size_t nl = text.rfind('\n');
    if (nl != std::string::npos)
      return src_.map(static_cast<uint32_t>(t->getLine()), 1);
    return src_.map(static_cast<uint32_t>(t->getLine()),
                    static_cast<uint32_t>(t->getCharPositionInLine() + text.size() + 1));
  }

  template <typename T> static T *enclosing(antlr4::RuleContext *ctx) {
    for (; ctx; ctx = dynamic_cast<antlr4::RuleContext *>(ctx->parent))
      if (auto *c = dynamic_cast<T *>(ctx))
        return c;
    return nullptr;
  }

  // What a missing ';' ends, in clang's words.
  static std::string semicolonMessage(antlr4::RuleContext *ctx) {
    for (; ctx; ctx = dynamic_cast<antlr4::RuleContext *>(ctx->parent)) {
      if (dynamic_cast<P::ExpressionStatementContext *>(ctx))
        return "expected ';' after expression";
      if (auto *j = dynamic_cast<P::JumpStatementContext *>(ctx)) {
        if (j->Return())
          return "expected ';' after return statement";
        if (j->Break())
          return "expected ';' after break statement";
        if (j->Continue())
          return "expected ';' after continue statement";
        return "expected ';' after goto statement";
      }
      if (dynamic_cast<P::DoStatementContext *>(ctx))
        return "expected ';' after do/while statement";
      if (dynamic_cast<P::StructDeclarationContext *>(ctx))
        return "expected ';' at end of declaration list";
      if (auto *d = dynamic_cast<P::DeclarationContext *>(ctx)) {
        if (!d->initDeclaratorList())
          for (auto *s : d->declarationSpecifiers()->declarationSpecifier())
            if (s->typeSpecifier() && s->typeSpecifier()->structSpecifier())
              return "expected ';' after struct";
        return "expected ';' at end of declaration";
      }
      if (dynamic_cast<P::ForStatementContext *>(ctx))
        return "expected ';' in 'for' statement specifier";
    }
    return "expected ';'";
  }

  static bool inExpression(antlr4::RuleContext *ctx) {
    return dynamic_cast<P::CastExpressionContext *>(ctx) ||
           dynamic_cast<P::UnaryExpressionContext *>(ctx) ||
           dynamic_cast<P::PostfixExpressionContext *>(ctx) ||
           dynamic_cast<P::PrimaryExpressionContext *>(ctx) ||
           dynamic_cast<P::AssignmentExpressionContext *>(ctx) ||
           dynamic_cast<P::ConditionalExpressionContext *>(ctx) ||
           dynamic_cast<P::ExpressionContext *>(ctx) ||
           dynamic_cast<P::ArgumentExpressionListContext *>(ctx);
  }

  static std::string unsupportedKeyword(size_t type) {
    switch (type) {
    case P::Class:
      return "C++ classes are not supported";
    case P::Template:
    case P::Typename:
      return "this use of templates (a variable template, a partial specialization, or a "
             "member class template defined outside its class) is not supported yet";
    case P::Namespace:
    case P::ColonColon:
      return "namespaces are not supported";
    case P::Using:
      return "using declarations are not supported";
    case P::Operator:
      return "operator overloading is not supported";
    case P::Throw:
      return "'throw' is supported as a statement (`throw x;`), not inside an expression";
    case P::Asm:
      return "inline PTX (asm) is not supported";
    default:
      return "";
    }
  }

  static bool has(const antlr4::misc::IntervalSet &set, size_t type) { return set.contains(type); }

  // The closing bracket for the innermost bracket opened in [from, to), or "".
  static std::string unclosed(antlr4::TokenStream *stream, Token *from, Token *to) {
    std::string open;
    for (size_t i = from->getTokenIndex(); i < to->getTokenIndex(); ++i) {
      size_t t = stream->get(i)->getType();
      if (t == P::LeftParen || t == P::LeftBracket || t == P::LaunchOpen)
        open.push_back(t == P::LeftParen ? ')' : t == P::LeftBracket ? ']' : '>');
      else if ((t == P::RightParen || t == P::RightBracket || t == P::LaunchClose) && !open.empty())
        open.pop_back();
    }
    if (open.empty())
      return "";
    return open.back() == '>' ? ">>>" : std::string(1, open.back());
  }

  static bool endsOperand(size_t t) {
    return t == P::Identifier || t == P::IntegerConstant || t == P::FloatingConstant ||
           t == P::CharacterConstant || t == P::StringLiteral || t == P::RightParen ||
           t == P::RightBracket || t == P::PlusPlus || t == P::MinusMinus || t == P::True ||
           t == P::False || t == P::Nullptr;
  }

  static bool startsOperand(size_t t) {
    return t == P::Identifier || t == P::IntegerConstant || t == P::FloatingConstant ||
           t == P::CharacterConstant || t == P::StringLiteral || t == P::True || t == P::False ||
           t == P::Nullptr;
  }

  // The name of a template-id `name<args>` that ends just before `t` or the token before it:
  // `K<16><<<...>>>(...)`, `f<int>(x)`. The arguments are names, numbers, type keywords and
  // the punctuation of types.
  static Token *templateIdBefore(antlr4::TokenStream *stream, Token *t) {
    if (t->getTokenIndex() == INVALID_INDEX)
      return nullptr;
    for (size_t back = 0; back <= 1; ++back) {
      if (t->getTokenIndex() < back + 3)
        return nullptr;
      size_t close = t->getTokenIndex() - back;
      if (stream->get(close)->getType() != P::Greater) {
        if (back == 0)
          continue;
        return nullptr;
      }
      size_t after = close + 1 < stream->size() ? stream->get(close + 1)->getType() : 0;
      if (after != P::LeftParen && after != P::LaunchOpen && after != P::ColonColon)
        return nullptr;
      for (size_t i = close; i-- > 0;) {
        size_t k = stream->get(i)->getType();
        if (k == P::Less)
          return i > 0 && stream->get(i - 1)->getType() == P::Identifier ? stream->get(i - 1)
                                                                         : nullptr;
        bool argToken = k == P::Identifier || k == P::IntegerConstant || k == P::Comma ||
                        k == P::Star || k == P::Const || k == P::Unsigned || k == P::Signed ||
                        k == P::Char || k == P::Short || k == P::Int || k == P::Long ||
                        k == P::Float || k == P::Double || k == P::Bool || k == P::Void;
        if (!argToken)
          return nullptr;
      }
    }
    return nullptr;
  }

  // `int f(a, b) int a; int b; {...}`: a K&R definition, whose parameter declarations follow
  // a parenthesised list of names. Returns the first name.
  static Token *identifierParameters(antlr4::TokenStream *stream, Token *t) {
    size_t k = t->getType();
    if (!(k == P::Int || k == P::Char || k == P::Float || k == P::Double || k == P::Long ||
          k == P::Short || k == P::Unsigned || k == P::Signed || k == P::Struct || k == P::Const) ||
        t->getTokenIndex() == INVALID_INDEX || t->getTokenIndex() < 5)
      return nullptr;
    size_t i = t->getTokenIndex() - 1;
    if (stream->get(i)->getType() != P::RightParen)
      return nullptr;
    while (i >= 2) {
      if (stream->get(i - 1)->getType() != P::Identifier)
        return nullptr;
      size_t sep = stream->get(i - 2)->getType();
      if (sep == P::LeftParen) {
        // The function's name, after its return type (not a call missing its ';').
        if (i < 4 || stream->get(i - 3)->getType() != P::Identifier)
          return nullptr;
        size_t ret = stream->get(i - 4)->getType();
        bool type = ret == P::Int || ret == P::Char || ret == P::Float || ret == P::Double ||
                    ret == P::Long || ret == P::Short || ret == P::Unsigned || ret == P::Void ||
                    ret == P::Star || ret == P::Identifier;
        return type ? stream->get(i - 1) : nullptr;
      }
      if (sep != P::Comma)
        return nullptr;
      i -= 2;
    }
    return nullptr;
  }

  static std::string spell(Token *t) {
    if (t->getType() == Token::EOF)
      return "end of file";
    const std::string text = t->getText();
    // A byte that is not valid UTF-8 (escapes.h, lexableText): named by its value.
    if (const std::string raw = decodeStringBody(text);
        text.size() == 4 && raw.size() == 1 && static_cast<unsigned char>(raw[0]) >= 0x80) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(raw[0]));
      return std::string("byte ") + hex + " (not valid UTF-8)";
    }
    return "'" + text + "'";
  }

  void report(antlr4::Parser *p, Token *offending, Token *startToken, bool missing) {
    if (!offending)
      offending = p->getCurrentToken();
    antlr4::misc::IntervalSet expected;
    try {
      expected = p->getExpectedTokens();
    } catch (...) {
    }
    auto *stream = p->getTokenStream();
    Token *prev = nullptr;
    if (offending->getTokenIndex() > 0 && offending->getTokenIndex() != INVALID_INDEX)
      prev = stream->get(offending->getTokenIndex() - 1);
    SourceLoc at = locOf(offending);
    std::string msg;
    size_t type = offending->getType();

    bool noViableAlt = startToken != nullptr;
    Token *next =
        offending->getType() == Token::EOF ? nullptr : stream->get(offending->getTokenIndex() + 1);
    Token *templateName = templateIdBefore(stream, offending);
    if (std::string u = unsupportedKeyword(type); !u.empty()) {
      msg = u;
    } else if (templateName) {
      msg = "templates are not supported";
      at = locOf(templateName);
    } else if (Token *param = identifierParameters(stream, offending)) {
      msg = "parameter lists without types (K&R C) are not supported";
      at = locOf(param);
    } else if (type == P::Unknown && offending->getText() == "\"") {
      msg = "missing terminating '\"' character";
    } else if (type == P::Unknown && offending->getText() == "'") {
      msg = "missing terminating ' character";
    } else if (type == P::Unknown) {
      msg = "unexpected character " + spell(offending);
    } else if (type == P::Hash) {
      msg = "unexpected '#' (a preprocessing directive must start its own line)";
    } else if (type == Token::EOF) {
      msg = has(expected, P::RightBrace) ? "expected '}'" : "unexpected end of file";
    } else if (noViableAlt && startToken == offending && type == P::Identifier && next &&
               next->getType() == P::Identifier) {
      // `foo x;` where foo names no type: the only reading left is a declaration.
      msg = "unknown type name '" + offending->getText() + "'";
    } else if (type == P::RightBrace &&
               dynamic_cast<P::TranslationUnitContext *>(p->getContext())) {
      msg = "extraneous closing brace ('}')";
    } else if (noViableAlt && startToken != offending &&
               !unclosed(stream, startToken, offending).empty()) {
      // The decision looked ahead over a whole statement; the bracket left open is the
      // likeliest culprit.
      msg = "expected '" + unclosed(stream, startToken, offending) + "'";
    } else if (noViableAlt && startToken != offending && prev && endsOperand(prev->getType()) &&
               startsOperand(type)) {
      msg = "expected ';' after expression";
      at = endOf(prev);
    } else if (!noViableAlt && has(expected, P::Semi) && type != P::Semi && prev) {
      msg = semicolonMessage(p->getContext());
      at = endOf(prev);
    } else if (expected.size() == 1 &&
               expected.getSingleElement() != static_cast<ssize_t>(Token::EOF)) {
      msg = "expected " +
            p->getVocabulary().getDisplayName(static_cast<size_t>(expected.getSingleElement()));
    } else if (has(expected, P::RightParen) && !has(expected, P::Identifier) &&
               expected.size() <= 4) {
      msg = "expected ')'";
    } else if (has(expected, P::RightBracket) && expected.size() <= 4) {
      msg = "expected ']'";
    } else if (inExpression(p->getContext()) ||
               (has(expected, P::IntegerConstant) && !has(expected, P::Void))) {
      msg = "expected expression";
    } else if (type == P::RightBrace || type == P::RightParen || type == P::RightBracket) {
      msg = "extraneous " + spell(offending);
    } else {
      msg = "unexpected token " + spell(offending);
    }
    diags_.error(at, msg);
    throw antlr4::ParseCancellationException();
  }
};

} // namespace

std::shared_ptr<antlr4::ANTLRErrorStrategy> makeSyntaxErrorStrategy(const PreprocessedSource &src,
                                                                    DiagnosticEngine &diags) {
  return std::make_shared<KernErrorStrategy>(src, diags);
}

namespace {

bool isAccess(const Token *t) {
  return t->getText() == "public" || t->getText() == "private" || t->getText() == "protected";
}

// `virtual` at all[i] names a base class (`: virtual B`, `, public virtual B`), not a member
// function (`public: virtual void f();`).
bool virtualBase(const std::vector<Token *> &all, size_t i) {
  if (i == 0)
    return false;
  const Token *prev = all[i - 1];
  if (prev->getType() == P::Colon)
    return i < 2 || !isAccess(all[i - 2]);
  return prev->getType() == P::Comma || isAccess(prev);
}

} // namespace

bool rejectUnsupportedNames(antlr4::CommonTokenStream &tokens, const PreprocessedSource &src,
                            DiagnosticEngine &diags) {
  static const std::map<std::string, std::string> names = {
      {"multi_grid_group", "multi-device cooperative groups are not supported"},
      {"block_tile_memory", "tiles larger than a warp (block_tile_memory) are not supported"},
  };
  const auto &all = tokens.getTokens();
  for (size_t i = 0; i < all.size(); ++i) {
    Token *t = all[i];
    if (t->getType() != P::Identifier)
      continue;
    std::string text = t->getText();
    std::string msg;
    if (auto it = names.find(text); it != names.end())
      msg = it->second;
    else if (text == "virtual" && virtualBase(all, i))
      msg = "virtual base classes are not supported";
    else if (text == "std" && i + 2 < all.size() && all[i + 1]->getType() == P::ColonColon &&
             all[i + 2]->getType() == P::Identifier && !inStdLibrary(all[i + 2]->getText()) &&
             (i == 0 || all[i - 1]->getType() != P::Namespace))
      msg = "'std::" + all[i + 2]->getText() +
            "' is not part of kern's host C++ library (docs/cxx.md lists what it has)";
    else if (text == "surface" && i + 1 < all.size() && all[i + 1]->getText() == "<")
      msg = "surface references are not supported";
    if (msg.empty())
      continue;
    diags.error(src.map(static_cast<uint32_t>(t->getLine()),
                        static_cast<uint32_t>(t->getCharPositionInLine() + 1)),
                msg);
    return false;
  }
  // Template arguments after a name that no template declares (`twice<int>(x)`,
  // `fill<16><<<g, b>>>(d)`) would be a syntax error: say what is wrong instead.
  std::set<std::string> templates;
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i]->getType() != P::Template)
      continue;
    // Past the parameter list: `template <class T> struct S {` declares S, not T.
    size_t j = i + 1;
    if (j < all.size() && all[j]->getType() == P::Less)
      for (int depth = 0; j < all.size(); ++j) {
        depth += all[j]->getType() == P::Less ? 1 : all[j]->getType() == P::Greater ? -1 : 0;
        if (depth == 0)
          break;
      }
    for (; j + 1 < all.size() && all[j]->getType() != P::LeftBrace && all[j]->getType() != P::Semi;
         ++j)
      if (all[j + 1]->getType() == P::Identifier &&
          (all[j]->getType() == P::Struct || all[j]->getType() == P::Class)) {
        templates.insert(all[j + 1]->getText());
        break;
      } else if (all[j]->getType() == P::Identifier && all[j + 1]->getType() == P::LeftParen) {
        templates.insert(all[j]->getText());
        break;
      }
  }
  for (size_t i = 0; i + 1 < all.size(); ++i) {
    if (all[i]->getType() != P::Identifier || all[i + 1]->getType() != P::Less ||
        templates.count(all[i]->getText()))
      continue;
    size_t j = i + 2;
    while (j < all.size() &&
           (all[j]->getType() == P::Identifier || all[j]->getType() == P::IntegerConstant ||
            all[j]->getType() == P::Comma || all[j]->getType() == P::Star ||
            all[j]->getType() == P::Int || all[j]->getType() == P::Float ||
            all[j]->getType() == P::Double || all[j]->getType() == P::Unsigned))
      ++j;
    if (j + 1 < all.size() && j > i + 2 && all[j]->getType() == P::Greater &&
        (all[j + 1]->getType() == P::LaunchOpen ||
         (all[j + 1]->getType() == P::LeftParen && all[i + 2]->getType() != P::Identifier))) {
      diags.error(src.map(static_cast<uint32_t>(all[i]->getLine()),
                          static_cast<uint32_t>(all[i]->getCharPositionInLine() + 1)),
                  "'" + all[i]->getText() +
                      "' is not a template, but is followed by template "
                      "arguments");
      return false;
    }
  }
  return true;
}

} // namespace kern::frontend
