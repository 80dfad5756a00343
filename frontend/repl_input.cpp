// Reads one REPL input with the grammar (frontend/repl_input.h): each top-level piece is
// tried as an external declaration, then as a statement, then as a final bare expression.
#include "frontend/repl_input.h"

#include "frontend/escapes.h"

#include "frontend/antlr_headers.h"

#include <algorithm>
#include <memory>

namespace kern::frontend {

namespace {

using antlr4::Token;
using P = kern_antlr::KernParser;

class SilentListener : public antlr4::BaseErrorListener {};

/// The input's tokens. Comments are skipped by the lexer; every other character forms a token.
struct Lexed {
  antlr4::ANTLRInputStream input;
  kern_antlr::KernLexer lexer;
  antlr4::CommonTokenStream tokens;
  SilentListener silent;

  explicit Lexed(const std::string &text)
      : input(lexableText(text)), lexer(&input), tokens(&lexer) {
    lexer.removeErrorListeners();
    lexer.addErrorListener(&silent);
    tokens.fill();
  }
};

/// A preprocessor line: a '#' that is the first token of its line, up to the end of the line
/// (and of the lines that a final backslash continues).
struct DirectiveLine {
  size_t begin = 0, end = 0;
  uint32_t line = 1;
  bool topLevel = false;               // outside every bracket: a piece of its own
  std::string name;                    // the macro of a #define
  size_t firstToken = 0, endToken = 0; // its tokens: '#' up to the first after the line
  bool namesType = false;              // `#define REAL float`: the macro reads as a type name
};

std::vector<DirectiveLine> findDirectives(const std::string &text,
                                          const std::vector<Token *> &tokens) {
  std::vector<DirectiveLine> out;
  int depth = 0;
  size_t lastLine = 0, skipUntil = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    Token *t = tokens[i];
    if (t->getType() == Token::EOF)
      break;
    if (t->getStartIndex() < skipUntil)
      continue;
    if (t->getType() == P::Hash && t->getLine() != lastLine) {
      DirectiveLine d;
      d.begin = t->getStartIndex();
      d.firstToken = i;
      d.line = static_cast<uint32_t>(t->getLine());
      d.topLevel = depth == 0;
      size_t e = d.begin;
      while (e < text.size() && !(text[e] == '\n' && text[e - 1] != '\\' &&
                                  !(text[e - 1] == '\r' && e >= 2 && text[e - 2] == '\\')))
        ++e;
      d.end = e;
      while (d.end > d.begin && std::isspace(static_cast<unsigned char>(text[d.end - 1])))
        --d.end;
      if (i + 2 < tokens.size() && tokens[i + 1]->getText() == "define" &&
          tokens[i + 2]->getType() == P::Identifier && tokens[i + 2]->getStartIndex() < e)
        d.name = tokens[i + 2]->getText();
      lastLine =
          d.line + static_cast<size_t>(std::count(text.begin() + d.begin, text.begin() + e, '\n'));
      skipUntil = e;
      for (d.endToken = i;
           d.endToken < tokens.size() && tokens[d.endToken]->getType() != Token::EOF &&
           tokens[d.endToken]->getStartIndex() < e;
           ++d.endToken)
        ;
      out.push_back(std::move(d));
      continue;
    }
    const size_t type = t->getType();
    if (type == P::LeftParen || type == P::LeftBracket || type == P::LeftBrace)
      ++depth;
    else if (type == P::RightParen || type == P::RightBracket || type == P::RightBrace)
      --depth;
    lastLine = t->getLine();
  }
  return out;
}

/// Bails out of a parse at the first error, silently, remembering whether the parse had reached
/// the end of the input (then more input might have completed it).
class BailAtFirstError : public antlr4::BailErrorStrategy {
public:
  bool failedAtEnd = false;

  void recover(antlr4::Parser *p, std::exception_ptr e) override {
    Token *offending = p->getCurrentToken();
    try {
      std::rethrow_exception(e);
    } catch (const antlr4::RecognitionException &r) {
      if (r.getOffendingToken())
        offending = r.getOffendingToken();
    } catch (...) {
    }
    failedAtEnd = offending && offending->getType() == Token::EOF;
    antlr4::BailErrorStrategy::recover(p, e);
  }

  Token *recoverInline(antlr4::Parser *p) override {
    failedAtEnd = p->getCurrentToken()->getType() == Token::EOF;
    return antlr4::BailErrorStrategy::recoverInline(p);
  }
};

antlr4::tree::TerminalNode *declaratorIdentifier(P::DeclaratorContext *d) {
  while (d) {
    P::DirectDeclaratorContext *dd = d->directDeclarator();
    if (dd->qualifiedId())
      return dd->qualifiedId()->Identifier().back();
    d = dd->declarator();
  }
  return nullptr;
}

/// The suffix that makes the declared name a function (`f(int)`), or null when the name's
/// nearest type constructor is a pointer or an array (`(*fp)(int)`, `a[4]`).
P::DeclaratorSuffixContext *functionSuffix(P::DeclaratorContext *d) {
  std::vector<P::DeclaratorContext *> chain; // outermost first
  for (; d;
       d = d->directDeclarator()->qualifiedId() ? nullptr : d->directDeclarator()->declarator())
    chain.push_back(d);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    std::vector<P::DeclaratorSuffixContext *> suffixes =
        (*it)->directDeclarator()->declaratorSuffix();
    if (!suffixes.empty())
      return suffixes[0]->LeftParen() ? suffixes[0] : nullptr;
    if (!(*it)->pointerOp().empty())
      return nullptr;
  }
  return nullptr;
}

size_t parameterCount(P::DeclaratorSuffixContext *s) {
  P::ParameterTypeListContext *params = s ? s->parameterTypeList() : nullptr;
  if (!params)
    return 0;
  std::vector<P::ParameterDeclarationContext *> list = params->parameterDeclaration();
  if (list.size() == 1 && list[0]->getText() == "void")
    return 0;
  return list.size() + (params->Ellipsis() ? 1 : 0);
}

/// A word that may stand in a type: a type keyword, a qualifier, '*', or a known type name.
bool isTypeWord(Token *t, const P &parser) {
  switch (t->getType()) {
  case P::Void:
  case P::Char:
  case P::Short:
  case P::Int:
  case P::Long:
  case P::Float:
  case P::Double:
  case P::Signed:
  case P::Unsigned:
  case P::Bool:
  case P::CBool:
  case P::Const:
  case P::Volatile:
  case P::Star:
    return true;
  case P::Identifier:
    return parser.isTypeName(t->getText());
  default:
    return false;
  }
}

size_t startOf(antlr4::ParserRuleContext *c) { return c->getStart()->getStartIndex(); }
size_t endOf(antlr4::ParserRuleContext *c) { return c->getStop()->getStopIndex() + 1; }

/// Fills `piece` from a parsed external declaration; false for an empty one (`;`).
bool describeExternal(P::ExternalDeclarationContext *x, InputPiece &piece) {
  if (P::FunctionDefinitionContext *f = x->functionDefinition()) {
    piece.kind = InputPieceKind::FunctionDefinition;
    if (antlr4::tree::TerminalNode *id = declaratorIdentifier(f->declarator())) {
      piece.name = id->getText();
      piece.nameBegin = id->getSymbol()->getStartIndex();
    }
    piece.parameterCount = parameterCount(functionSuffix(f->declarator()));
    return true;
  }
  P::DeclarationContext *decl = x->declaration();
  if (!decl) {
    piece.kind = InputPieceKind::Declaration;
    return !(x->Semi() && !x->Extern());
  }
  P::DeclarationSpecifiersContext *specs = decl->declarationSpecifiers();
  bool isTypedef = false, definesTag = false;
  std::string tag;
  for (P::DeclarationSpecifierContext *s : specs->declarationSpecifier()) {
    if (s->Typedef())
      isTypedef = true;
    else if (s->Extern() || s->Static() || s->Global() || s->Device() || s->Host() || s->Shared() ||
             s->Constant() || s->Inline() || s->ForceInline() || s->NoInline())
      piece.fileScopeQualifier = true;
    if (s->typeQualifier() && s->typeQualifier()->Const())
      piece.isConst = true;
    P::TypeSpecifierContext *t = s->typeSpecifier();
    if (!t)
      continue;
    if (t->Auto())
      piece.isAuto = true;
    if (P::StructSpecifierContext *st = t->structSpecifier()) {
      definesTag = definesTag || st->LeftBrace();
      if (st->Identifier())
        tag = st->Identifier()->getText();
    }
    if (P::EnumSpecifierContext *en = t->enumSpecifier()) {
      definesTag = definesTag || en->LeftBrace();
      if (en->Identifier())
        tag = en->Identifier()->getText();
    }
  }
  std::vector<P::InitDeclaratorContext *> list;
  if (decl->initDeclaratorList())
    list = decl->initDeclaratorList()->initDeclarator();
  auto firstName = [&]() -> std::string {
    antlr4::tree::TerminalNode *id =
        list.empty() ? nullptr : declaratorIdentifier(list[0]->declarator());
    return id ? id->getText() : "";
  };
  if (isTypedef) {
    piece.kind = InputPieceKind::TypeDefinition;
    piece.name = firstName();
    return true;
  }
  if (definesTag || list.empty()) {
    // `struct S {...} s;` stays one piece: the type and its variables.
    piece.kind =
        tag.empty() && !definesTag ? InputPieceKind::Declaration : InputPieceKind::TypeDefinition;
    piece.name = tag;
    return true;
  }
  if (functionSuffix(list[0]->declarator())) {
    piece.kind = InputPieceKind::Prototype;
    piece.name = firstName();
    return true;
  }
  piece.kind = InputPieceKind::Variable;
  piece.name = firstName();
  piece.specifiersBegin = startOf(specs);
  piece.specifiersEnd = endOf(specs);
  for (P::InitDeclaratorContext *id : list) {
    InputDeclarator d;
    if (antlr4::tree::TerminalNode *n = declaratorIdentifier(id->declarator()))
      d.name = n->getText();
    d.begin = startOf(id->declarator());
    d.end = endOf(id->declarator());
    if (id->initializer()) {
      d.hasInit = true;
      d.initBegin = startOf(id->initializer());
      d.initEnd = endOf(id->initializer());
    } else if (id->LeftParen()) {
      d.hasInit = d.constructorInit = true;
      d.initBegin = id->LeftParen()->getSymbol()->getStartIndex();
      d.initEnd = id->RightParen()->getSymbol()->getStopIndex() + 1;
    }
    piece.declarators.push_back(std::move(d));
  }
  return true;
}

/// Reads the pieces of one input. `endsInsideStatement` tells whether the input stops inside a
/// statement that more text could finish (`for (...)` without its body).
class PieceReader {
public:
  PieceReader(const std::string &text, const std::set<std::string> &typeNames) : text_(text) {
    Lexed raw(text);
    directives_ = findDirectives(text, raw.tokens.getTokens());
    // Directive lines are parsed by the preprocessor, not by the grammar: blank them (the
    // offsets and lines of everything else stay as they are).
    std::string blanked = text;
    for (const DirectiveLine &d : directives_)
      for (size_t i = d.begin; i < d.end; ++i)
        if (blanked[i] != '\n')
          blanked[i] = ' ';
    lexed_ = std::make_unique<Lexed>(blanked);
    parser_ = std::make_unique<P>(&lexed_->tokens);
    parser_->removeErrorListeners();
    parser_->addErrorListener(&lexed_->silent);
    parser_->typeNames.insert(typeNames.begin(), typeNames.end());
    // An object-like macro whose replacement is made of type words only names a type: the
    // grammar reads the text before preprocessing, so it must know `REAL` in `REAL *a`.
    const std::vector<Token *> &all = raw.tokens.getTokens();
    for (DirectiveLine &d : directives_) {
      const size_t name = d.firstToken + 2;
      if (d.name.empty() || name + 1 >= d.endToken ||
          all[name + 1]->getStartIndex() == all[name]->getStopIndex() + 1) // NAME( or NAME"
        continue;
      d.namesType = true;
      for (size_t i = name + 1; i < d.endToken && d.namesType; ++i)
        d.namesType = isTypeWord(all[i], *parser_);
      if (d.namesType)
        parser_->typeNames.insert(d.name);
    }
    bail_ = std::make_shared<BailAtFirstError>();
    parser_->setErrorHandler(bail_);
  }

  ReplInput read(bool &endsInsideStatement) {
    ReplInput result;
    antlr4::CommonTokenStream &tokens = lexed_->tokens;
    const size_t count = tokens.size() - 1; // the last token is EOF
    size_t at = 0;
    endsInsideStatement = false;
    while (at < count) {
      InputPiece piece;
      piece.begin = tokens.get(at)->getStartIndex();
      piece.line = static_cast<uint32_t>(tokens.get(at)->getLine());
      const std::set<std::string> before = parser_->typeNames;
      bool keep = true, statementAtEnd = false, expressionAtEnd = false;
      if (auto *x = attempt(
              at, [&] { return parser_->externalDeclaration(); }, nullptr)) {
        keep = describeExternal(x, piece);
      } else if (attempt(
                     at, [&] { return parser_->statement(); }, &statementAtEnd)) {
        piece.kind = InputPieceKind::Statement;
      } else if (attempt(
                     at, [&] { return parser_->expression(); }, &expressionAtEnd) &&
                 tokens.LA(1) == Token::EOF) {
        piece.kind = InputPieceKind::Expression;
      } else {
        piece.kind = InputPieceKind::Invalid;
        piece.end = tokens.get(count - 1)->getStopIndex() + 1;
        endsInsideStatement = statementAtEnd && !expressionAtEnd;
        result.pieces.push_back(std::move(piece));
        break;
      }
      const size_t next = tokens.index();
      piece.end = tokens.get(next - 1)->getStopIndex() + 1;
      for (const std::string &t : parser_->typeNames)
        if (!before.count(t))
          piece.declaredTypes.push_back(t);
      if (piece.kind == InputPieceKind::FunctionDefinition && piece.name == "main")
        result.definesMain = true;
      if (keep)
        result.pieces.push_back(std::move(piece));
      at = next;
    }
    const size_t stop =
        result.pieces.empty() || result.pieces.back().kind != InputPieceKind::Invalid
            ? text_.size()
            : result.pieces.back().begin;
    for (const DirectiveLine &d : directives_) {
      if (!d.topLevel || d.begin >= stop)
        continue;
      InputPiece piece;
      piece.kind = InputPieceKind::Directive;
      piece.begin = d.begin;
      piece.end = d.end;
      piece.line = d.line;
      piece.name = d.name;
      if (d.namesType)
        piece.declaredTypes.push_back(d.name);
      result.pieces.push_back(std::move(piece));
    }
    std::stable_sort(result.pieces.begin(), result.pieces.end(),
                     [](const InputPiece &a, const InputPiece &b) { return a.begin < b.begin; });
    return result;
  }

private:
  /// Runs `rule` from token `at`: SLL prediction first, full LL when that fails. Returns null
  /// when neither reads it; the parser's type names are then as before.
  template <typename Rule>
  auto attempt(size_t at, Rule rule, bool *failedAtEnd) -> decltype(rule()) {
    const std::set<std::string> saved = parser_->typeNames;
    auto *interp = parser_->getInterpreter<antlr4::atn::ParserATNSimulator>();
    for (antlr4::atn::PredictionMode mode :
         {antlr4::atn::PredictionMode::SLL, antlr4::atn::PredictionMode::LL}) {
      parser_->reset();
      lexed_->tokens.seek(at);
      interp->setPredictionMode(mode);
      bail_->failedAtEnd = false;
      try {
        return rule();
      } catch (antlr4::ParseCancellationException &) {
        parser_->typeNames = saved;
      }
    }
    if (failedAtEnd)
      *failedAtEnd = bail_->failedAtEnd;
    return nullptr;
  }

  const std::string &text_;
  std::vector<DirectiveLine> directives_;
  std::unique_ptr<Lexed> lexed_;
  std::unique_ptr<P> parser_;
  std::shared_ptr<BailAtFirstError> bail_;
};

} // namespace

ReplInput readReplInput(std::string_view text, const std::set<std::string> &typeNames) {
  const std::string s(text);
  bool endsInside = false;
  return PieceReader(s, typeNames).read(endsInside);
}

bool isReplInputComplete(std::string_view text, const std::set<std::string> &typeNames) {
  const std::string s(text);
  Lexed lexed(s);
  const std::vector<Token *> &tokens = lexed.tokens.getTokens();
  const std::vector<DirectiveLine> directives = findDirectives(s, tokens);
  int depth = 0;
  size_t d = 0;
  Token *last = nullptr;
  for (size_t i = 0; i < tokens.size() && tokens[i]->getType() != Token::EOF; ++i) {
    Token *t = tokens[i];
    last = t;
    const size_t type = t->getType();
    // An unterminated block comment lexes as '/' '*': a closed one would have been skipped.
    if (type == P::Div && i + 1 < tokens.size() && tokens[i + 1]->getType() == P::Star &&
        tokens[i + 1]->getStartIndex() == t->getStopIndex() + 1)
      return false;
    // A quote that starts no literal: an unterminated string, unless its line ended.
    if (type == P::Unknown && (t->getText() == "\"" || t->getText() == "'") &&
        s.find('\n', t->getStartIndex()) == std::string::npos)
      return false;
    while (d < directives.size() && directives[d].end <= t->getStartIndex())
      ++d;
    if (d < directives.size() && directives[d].begin <= t->getStartIndex())
      continue; // brackets in directives do not count
    if (type == P::LeftParen || type == P::LeftBracket || type == P::LeftBrace)
      ++depth;
    else if (type == P::RightParen || type == P::RightBracket || type == P::RightBrace)
      --depth;
  }
  if (depth > 0 || (last && last->getType() == P::Unknown && last->getText() == "\\"))
    return false;
  bool endsInside = false;
  PieceReader(s, typeNames).read(endsInside);
  return !endsInside;
}

} // namespace kern::frontend
