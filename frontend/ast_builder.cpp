// Runs the ANTLR lexer and parser on preprocessed text and turns the parse tree into kern's AST;
// syntax errors become one clang-style diagnostic at the original location.
#include "frontend/ast_builder.h"

#include "frontend/const_eval.h"
#include "frontend/escapes.h"

// The ANTLR runtime's headers are not warning-clean under -Wall -Wextra.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wattributes"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "KernLexer.h"
#include "KernParser.h"
#include "antlr4-runtime.h"
#pragma GCC diagnostic pop

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>

namespace kern::frontend {

namespace {

using antlr4::ParserRuleContext;
using antlr4::Token;
using antlr4::tree::ParseTree;
using antlr4::tree::TerminalNode;
using P = kern_antlr::KernParser;

// ---------------------------------------------------------------------------------------------
// Syntax errors
// ---------------------------------------------------------------------------------------------

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
      return "templates are not supported";
    case P::Namespace:
    case P::ColonColon:
      return "namespaces are not supported";
    case P::Using:
      return "using declarations are not supported";
    case P::Operator:
      return "operator overloading is not supported";
    case P::Try:
    case P::Catch:
    case P::Throw:
      return "exceptions are not supported";
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

  static std::string spell(Token *t) {
    if (t->getType() == Token::EOF)
      return "end of file";
    return "'" + t->getText() + "'";
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
    if (std::string u = unsupportedKeyword(type); !u.empty()) {
      msg = u;
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

/// Lexers report nothing: every character forms some token (Unknown catches the rest).
class SilentListener : public antlr4::BaseErrorListener {};

// ---------------------------------------------------------------------------------------------
// Parse tree -> AST
// ---------------------------------------------------------------------------------------------

/// Declaration specifiers, resolved once and shared by every declarator of a declaration.
struct Specs {
  TypeSyntax base;
  Qualifiers quals;
  bool isTypedef = false;
  SourceLoc autoLoc;               // `auto`, reported once the initialiser has had its say
  std::vector<Decl *> definitions; // struct/enum definitions written inside the specifiers
};

/// What a declarator adds to the specifiers.
struct DeclInfo {
  std::string name;
  SourceLoc loc;
  std::vector<TypeOp> ops;
  bool restrict = false;
  bool isFunction = false;
  bool isOperator = false;
  P::ParameterTypeListContext *params = nullptr;
};

class Builder {
public:
  Builder(const PreprocessedSource &src, TranslationUnit &tu, DiagnosticEngine &diags)
      : src_(src), tu_(tu), diags_(diags) {}

  void translationUnit(P::TranslationUnitContext *ctx) {
    for (auto *ed : ctx->externalDeclaration())
      externalDeclaration(ed);
  }

private:
  const PreprocessedSource &src_;
  TranslationUnit &tu_;
  bool reportedUnion_ = false;
  DiagnosticEngine &diags_;
  std::set<std::string> structTags_;
  std::set<std::string> enumTags_;
  std::set<std::string> typedefNames_;

  SourceLoc loc(Token *t) const {
    return src_.map(static_cast<uint32_t>(t->getLine()),
                    static_cast<uint32_t>(t->getCharPositionInLine() + 1));
  }
  SourceLoc loc(TerminalNode *n) const { return loc(n->getSymbol()); }
  SourceLoc loc(ParserRuleContext *c) const { return loc(c->getStart()); }

  void error(SourceLoc at, std::string msg) { diags_.error(at, std::move(msg)); }

  Expr *makeExpr(ExprKind k, SourceLoc at) {
    Expr *e = tu_.make<Expr>(k);
    e->loc = at;
    return e;
  }
  Stmt *makeStmt(StmtKind k, SourceLoc at) {
    Stmt *s = tu_.make<Stmt>(k);
    s->loc = at;
    return s;
  }
  // Stands in for an expression that was reported as unsupported, so the tree stays whole.
  Expr *placeholder(SourceLoc at) {
    Expr *e = makeExpr(ExprKind::IntLit, at);
    e->text = "0";
    return e;
  }

  // ---- file scope ----

  void externalDeclaration(P::ExternalDeclarationContext *ctx) {
    if (auto *fd = ctx->functionDefinition()) {
      functionDefinition(fd);
    } else if (auto *d = ctx->declaration()) {
      for (Decl *decl : declaration(d->declarationSpecifiers(), d->initDeclaratorList(), true))
        tu_.decls.push_back(decl);
    } else if (auto *u = ctx->unsupportedDeclaration()) {
      unsupported(u);
    } else {
      for (auto *inner : ctx->externalDeclaration()) // extern "C" { ... }
        externalDeclaration(inner);
    }
  }

  void unsupported(P::UnsupportedDeclarationContext *u) {
    auto *d = tu_.make<UnsupportedDecl>();
    d->loc = loc(u);
    if (u->Template())
      d->construct = "templates";
    else if (u->Class())
      d->construct = "C++ classes";
    else if (u->Namespace())
      d->construct = "namespaces";
    else if (u->Using())
      d->construct = "using declarations";
    else
      d->construct = "inline PTX (asm)";
    tu_.decls.push_back(d);
  }

  void addUnsupported(SourceLoc at, const char *construct) {
    auto *d = tu_.make<UnsupportedDecl>();
    d->loc = at;
    d->construct = construct;
    tu_.decls.push_back(d);
  }

  void functionDefinition(P::FunctionDefinitionContext *ctx) {
    Specs s = specs(ctx->declarationSpecifiers());
    for (Decl *def : s.definitions)
      tu_.decls.push_back(def);
    DeclInfo d = declarator(ctx->declarator(), false);
    if (d.isOperator) {
      addUnsupported(d.loc, "operator overloading");
      return;
    }
    if (!d.isFunction) {
      error(d.loc, "expected a function declarator before the body of '" + d.name + "'");
      return;
    }
    FunctionDecl *f = functionDecl(s, d);
    f->body = compound(ctx->compoundStatement());
    tu_.decls.push_back(f);
  }

  FunctionDecl *functionDecl(const Specs &s, const DeclInfo &d) {
    auto *f = tu_.make<FunctionDecl>();
    f->name = d.name;
    f->loc = d.loc;
    f->quals = s.quals;
    if (d.restrict)
      f->quals.restrict = true;
    f->returnType = tu_.make<TypeSyntax>(s.base);
    f->returnType->ops = d.ops;
    if (s.isTypedef)
      error(d.loc, "function typedefs are not supported");
    if (d.params)
      parameters(d.params, f);
    return f;
  }

  void parameters(P::ParameterTypeListContext *ctx, FunctionDecl *f) {
    f->variadic = ctx->Ellipsis() != nullptr;
    for (auto *pd : ctx->parameterDeclaration()) {
      Specs s = specs(pd->declarationSpecifiers());
      auto *v = tu_.make<VarDecl>();
      v->isParam = true;
      v->quals = s.quals;
      v->typeSyntax = tu_.make<TypeSyntax>(s.base);
      v->loc = loc(pd);
      if (auto *dc = pd->declarator()) {
        DeclInfo d = declarator(dc, false);
        if (d.isFunction)
          error(d.loc, "function pointers are not supported");
        v->name = d.name;
        v->loc = d.loc;
        v->typeSyntax->ops = d.ops;
        if (d.restrict)
          v->quals.restrict = true;
      } else if (auto *ad = pd->abstractDeclarator()) {
        v->typeSyntax->ops = abstractDeclarator(ad);
      }
      f->params.push_back(v);
    }
    // `(void)` declares no parameters.
    if (f->params.size() == 1 && !f->variadic) {
      VarDecl *p = f->params[0];
      const TypeSyntax *t = p->typeSyntax;
      if (p->name.empty() && t->ops.empty() && t->keywords.size() == 1 &&
          t->keywords[0] == "void" && t->name.empty())
        f->params.clear();
    }
  }

  // ---- declarations ----

  /// The Decls of one declaration: inline struct/enum definitions first, then one per
  /// declarator.
  std::vector<Decl *> declaration(P::DeclarationSpecifiersContext *specCtx,
                                  P::InitDeclaratorListContext *list, bool fileScope) {
    // `auto f = [](...) {...};` should be reported as the lambda it is, so `auto` is only
    // reported when the initialisers reported nothing.
    Specs s = specs(specCtx, true);
    unsigned errorsBefore = diags_.errorCount();
    std::vector<Decl *> out = declarators(s, list, fileScope);
    if (s.autoLoc.isValid() && diags_.errorCount() == errorsBefore)
      error(s.autoLoc, "'auto' type deduction is not supported");
    return out;
  }

  std::vector<Decl *> declarators(const Specs &s, P::InitDeclaratorListContext *list,
                                  bool fileScope) {
    std::vector<Decl *> out = s.definitions;
    if (!list) {
      // `struct S;` declares the tag.
      if (!s.base.structName.empty() && !s.base.structDef) {
        auto *sd = tu_.make<StructDecl>();
        sd->name = s.base.structName;
        sd->loc = s.base.loc;
        sd->quals = s.quals;
        out.push_back(sd);
      }
      return out;
    }
    for (auto *id : list->initDeclarator()) {
      DeclInfo d = declarator(id->declarator(), false);
      if (d.isOperator) {
        if (fileScope)
          addUnsupported(d.loc, "operator overloading");
        else
          error(d.loc, "operator overloading is not supported");
        continue;
      }
      if (d.isFunction) {
        if (id->initializer() || id->argumentExpressionList())
          error(d.loc, "illegal initializer (only variables can be initialized)");
        out.push_back(functionDecl(s, d));
        continue;
      }
      if (s.isTypedef) {
        auto *t = tu_.make<TypedefDecl>();
        t->name = d.name;
        t->loc = d.loc;
        t->quals = s.quals;
        t->typeSyntax = tu_.make<TypeSyntax>(s.base);
        t->typeSyntax->ops = d.ops;
        typedefNames_.insert(d.name);
        if (id->initializer() || id->argumentExpressionList())
          error(d.loc, "illegal initializer in a typedef");
        out.push_back(t);
        continue;
      }
      auto *v = tu_.make<VarDecl>();
      v->name = d.name;
      v->loc = d.loc;
      v->quals = s.quals;
      if (d.restrict)
        v->quals.restrict = true;
      v->typeSyntax = tu_.make<TypeSyntax>(s.base);
      v->typeSyntax->ops = d.ops;
      if (auto *init = id->initializer())
        v->init = initializer(init);
      else if (auto *args = id->argumentExpressionList())
        v->init = directInit(v->typeSyntax, args, d.loc);
      out.push_back(v);
    }
    return out;
  }

  /// C++ direct initialisation `T x(args)`: for a named type it is the constructor call
  /// `T(args)` (how `dim3(16, 16)` is written in expressions); for a builtin type, the one
  /// argument.
  Expr *directInit(const TypeSyntax *t, P::ArgumentExpressionListContext *args, SourceLoc at) {
    std::vector<Expr *> a = arguments(args);
    std::string typeName = !t->name.empty() ? t->name : t->structName;
    if (!typeName.empty() && t->ops.empty()) {
      Expr *call = makeExpr(ExprKind::Call, at);
      Expr *callee = makeExpr(ExprKind::Ident, at);
      callee->name = typeName;
      call->operands.push_back(callee);
      call->args = std::move(a);
      return call;
    }
    if (a.size() == 1)
      return a[0];
    error(at, "excess elements in scalar initializer");
    return a.empty() ? nullptr : a[0];
  }

  Specs specs(P::DeclarationSpecifiersContext *ctx, bool deferAuto = false) {
    Specs s = readSpecs(ctx);
    if (!deferAuto && s.autoLoc.isValid())
      error(s.autoLoc, "'auto' type deduction is not supported");
    return s;
  }

  Specs readSpecs(P::DeclarationSpecifiersContext *ctx) {
    Specs s;
    s.base.loc = loc(ctx);
    bool sawType = false;
    for (auto *ds : ctx->declarationSpecifier()) {
      if (ds->Typedef()) {
        s.isTypedef = true;
      } else if (ds->Extern()) {
        s.quals.isExtern = true;
      } else if (ds->Static()) {
        s.quals.isStatic = true;
      } else if (ds->Global()) {
        s.quals.global = true;
      } else if (ds->Device()) {
        s.quals.device = true;
      } else if (ds->Host()) {
        s.quals.host = true;
      } else if (ds->Shared()) {
        s.quals.shared = true;
      } else if (ds->Constant()) {
        s.quals.constant = true;
      } else if (ds->Inline() || ds->ForceInline()) {
        s.quals.isInline = true;
      } else if (ds->NoInline()) {
        s.quals.noinline = true;
      } else if (auto *lb = ds->launchBounds()) {
        auto exprs = lb->conditionalExpression();
        s.quals.launchBoundsMaxThreads =
            static_cast<int>(constantArg(exprs[0], "__launch_bounds__"));
        if (exprs.size() > 1)
          s.quals.launchBoundsMinBlocks =
              static_cast<int>(constantArg(exprs[1], "__launch_bounds__"));
      } else if (auto *al = ds->alignSpecifier()) {
        s.quals.alignAs = alignment(al);
      } else if (auto *at = ds->attributeSpecifier()) {
        if (uint64_t a = attributeAlignment(at))
          s.quals.alignAs = a;
      } else if (auto *tq = ds->typeQualifier()) {
        typeQualifier(tq, s);
      } else if (auto *ts = ds->typeSpecifier()) {
        // The type's location is its first type specifier, not a qualifier before it
        // (`__global__ int k()` points at `int`, as clang does).
        if (!sawType)
          s.base.loc = loc(ts);
        sawType = true;
        typeSpecifier(ts, s);
      }
    }
    checkSpecifierMix(ctx);
    // `__align__(16) struct S {...}` aligns the struct written in the same specifiers.
    if (s.quals.alignAs && s.base.structDef && !s.base.structDef->quals.alignAs)
      s.base.structDef->quals.alignAs = s.quals.alignAs;
    return s;
  }

  // A struct, enum or typedef name cannot be combined with another type specifier. The
  // usual cause is a struct definition without its ';' before the next declaration.
  void checkSpecifierMix(P::DeclarationSpecifiersContext *ctx) {
    ParserRuleContext *named = nullptr;
    ParserRuleContext *other = nullptr;
    for (auto *ds : ctx->declarationSpecifier()) {
      auto *ts = ds->typeSpecifier();
      if (!ts)
        continue;
      bool isNamed = ts->structSpecifier() || ts->enumSpecifier() || ts->typedefName();
      if (isNamed && (named || other)) {
        error(loc(ts), "cannot combine with previous '" + (named ? named : other)->getText() +
                           "' declaration specifier");
        return;
      }
      if (!isNamed && named) {
        auto *st = dynamic_cast<P::TypeSpecifierContext *>(named);
        if (st && (st->structSpecifier() || st->enumSpecifier())) {
          Token *end = named->getStop();
          bool isStruct = st->structSpecifier() != nullptr;
          error(src_.map(static_cast<uint32_t>(end->getLine()),
                         static_cast<uint32_t>(end->getCharPositionInLine() + 2)),
                std::string("expected ';' after ") + (isStruct ? "struct" : "enum"));
        } else {
          error(loc(ts),
                "cannot combine with previous '" + named->getText() + "' declaration specifier");
        }
        return;
      }
      (isNamed ? named : other) = ts;
    }
  }

  static void typeQualifier(P::TypeQualifierContext *tq, Specs &s) {
    if (tq->Const())
      s.base.isConst = true;
    else if (tq->Volatile())
      s.base.isVolatile = true;
    else
      s.quals.restrict = true;
  }

  void typeSpecifier(P::TypeSpecifierContext *ts, Specs &s) {
    if (auto *st = ts->structSpecifier()) {
      structSpecifier(st, s);
    } else if (auto *en = ts->enumSpecifier()) {
      enumSpecifier(en, s);
    } else if (auto *tn = ts->typedefName()) {
      std::string n = tn->getText();
      // As in C++ (CUDA's language), a struct or enum tag names its type without `struct`.
      if (structTags_.count(n) && !typedefNames_.count(n))
        s.base.structName = n;
      else if (enumTags_.count(n) && !typedefNames_.count(n))
        s.base.enumName = n;
      else
        s.base.name = n;
    } else if (ts->Auto()) {
      s.autoLoc = loc(ts);
      s.base.keywords.push_back("int");
    } else {
      std::string kw = ts->getText();
      if (kw == "_Bool")
        kw = "bool";
      else if (kw == "__signed__")
        kw = "signed";
      s.base.keywords.push_back(kw);
    }
  }

  uint64_t alignment(P::AlignSpecifierContext *al) {
    return static_cast<uint64_t>(constantArg(al->conditionalExpression(), "__align__"));
  }

  uint64_t attributeAlignment(P::AttributeSpecifierContext *at) {
    for (auto *item : at->attributeItem()) {
      std::string n = item->Identifier()->getText();
      if ((n == "aligned" || n == "__aligned__") && item->argumentExpressionList()) {
        auto args = item->argumentExpressionList()->assignmentExpression();
        if (!args.empty()) {
          Expr *e = assignment(args[0]);
          int64_t v = 0;
          if (foldInt(e, v) && v > 0)
            return static_cast<uint64_t>(v);
          error(e->loc, "alignment must be an integer constant");
        }
      }
    }
    return 0;
  }

  /// The integer constants that the syntax itself needs (alignments, launch bounds), folded
  /// before sema has typed them; every other constant expression is sema's.
  int64_t constantArg(P::ConditionalExpressionContext *c, const char *what) {
    Expr *e = conditional(c);
    int64_t v = 0;
    if (!foldInt(e, v) || v < 0) {
      error(e->loc,
            std::string("argument of ") + what + " must be a non-negative integer constant");
      return 0;
    }
    return v;
  }

  void structSpecifier(P::StructSpecifierContext *ctx, Specs &s) {
    TerminalNode *id = ctx->Identifier();
    std::string name = id ? id->getText() : "";
    SourceLoc at = id ? loc(id) : loc(ctx);
    if (ctx->Union())
      if (!reportedUnion_) // one diagnostic for the construct, not one per use
        error(loc(ctx->Union()), "unions are not supported");
    reportedUnion_ = true;
    uint64_t align = 0;
    for (auto *al : ctx->alignSpecifier())
      align = alignment(al);
    for (auto *attr : ctx->attributeSpecifier())
      if (uint64_t a = attributeAlignment(attr))
        align = a;
    s.base.structName = name;
    if (!ctx->LeftBrace()) {
      if (!name.empty())
        structTags_.insert(name);
      return;
    }
    auto *sd = tu_.make<StructDecl>();
    sd->name = name;
    sd->loc = at;
    sd->isDefinition = true;
    sd->quals.alignAs = align;
    if (!name.empty())
      structTags_.insert(name); // visible to its own fields: `struct node *next;`
    for (auto *fd : ctx->structDeclaration())
      structFields(fd, sd);
    s.base.structDef = sd;
    s.definitions.push_back(sd);
  }

  void structFields(P::StructDeclarationContext *ctx, StructDecl *sd) {
    if (ctx->compoundStatement()) {
      error(loc(ctx->declarator()), "member functions are not supported");
      return;
    }
    Specs fs = specs(ctx->declarationSpecifiers());
    if (fs.quals.shared || fs.quals.constant || fs.quals.global || fs.quals.device ||
        fs.quals.isStatic)
      error(loc(ctx), "storage qualifiers are not allowed on struct fields");
    auto decls = ctx->structDeclarator();
    if (decls.empty() && !fs.base.structDef && fs.base.enumDef == nullptr)
      error(loc(ctx), "declaration does not declare anything");
    for (auto *sdc : decls) {
      if (sdc->Colon()) {
        error(loc(sdc->Colon()), "bit-fields are not supported");
        continue;
      }
      DeclInfo d = declarator(sdc->declarator(), false);
      if (d.isFunction || d.isOperator) {
        error(d.loc, "member functions are not supported");
        continue;
      }
      StructDecl::Field f;
      f.loc = d.loc;
      f.name = d.name;
      f.typeSyntax = tu_.make<TypeSyntax>(fs.base);
      f.typeSyntax->ops = d.ops;
      sd->fields.push_back(f);
    }
  }

  void enumSpecifier(P::EnumSpecifierContext *ctx, Specs &s) {
    TerminalNode *id = ctx->Identifier();
    std::string name = id ? id->getText() : "";
    if (ctx->Class())
      error(loc(ctx->Class()), "scoped enumerations (enum class) are not supported");
    if (!name.empty())
      enumTags_.insert(name);
    s.base.enumName = name;
    if (!ctx->LeftBrace())
      return;
    auto *ed = tu_.make<EnumDecl>();
    ed->name = name;
    ed->loc = id ? loc(id) : loc(ctx);
    for (auto *en : ctx->enumerator()) {
      EnumDecl::Enumerator e;
      e.loc = loc(en->Identifier());
      e.name = en->Identifier()->getText();
      if (auto *v = en->conditionalExpression())
        e.value = conditional(v);
      ed->enumerators.push_back(e);
    }
    s.base.enumDef = ed;
    s.definitions.push_back(ed);
  }

  /// Reads a declarator into `d`. The ops follow TypeSyntax::ops (applied to the base type
  /// in order): pointers left to right, then the suffixes right to left, then what a
  /// parenthesised inner declarator adds.
  DeclInfo declarator(P::DeclaratorContext *ctx, bool nested) {
    DeclInfo d;
    declaratorInto(ctx, d, nested);
    return d;
  }

  void pointerOps(const std::vector<P::PointerOpContext *> &ptrs, DeclInfo &d) {
    for (auto *p : ptrs) {
      if (!p->Star()) {
        error(loc(p), "references are not supported");
        continue;
      }
      TypeOp op;
      op.kind = TypeOp::Kind::Pointer;
      for (auto *q : p->typeQualifier()) {
        if (q->Const())
          op.isConst = true;
        else if (q->Restrict())
          d.restrict = true;
      }
      d.ops.push_back(op);
    }
  }

  void declaratorInto(P::DeclaratorContext *ctx, DeclInfo &d, bool nested) {
    pointerOps(ctx->pointerOp(), d);
    auto *dd = ctx->directDeclarator();
    if (dd->Identifier()) {
      d.name = dd->Identifier()->getText();
      d.loc = loc(dd->Identifier());
    } else if (dd->Operator()) {
      d.name = "operator" + dd->operatorName()->getText();
      d.loc = loc(dd->Operator());
      d.isOperator = true;
    }
    auto suffixes = dd->declaratorSuffix();
    for (size_t k = suffixes.size(); k-- > 0;) {
      auto *sfx = suffixes[k];
      if (sfx->LeftBracket()) {
        TypeOp op;
        op.kind = TypeOp::Kind::Array;
        if (auto *sz = sfx->assignmentExpression())
          op.size = assignment(sz);
        d.ops.push_back(op);
        continue;
      }
      // A parameter list: the declarator names a function only when it is the first suffix
      // of a plain name; anything else is a function pointer or worse.
      if (k != 0 || nested || dd->declarator()) {
        error(loc(sfx), "function pointers are not supported");
        continue;
      }
      d.isFunction = true;
      d.params = sfx->parameterTypeList();
    }
    if (auto *inner = dd->declarator()) {
      declaratorInto(inner, d, true);
    }
    if (d.loc.line == 0)
      d.loc = loc(ctx);
  }

  std::vector<TypeOp> abstractDeclarator(P::AbstractDeclaratorContext *ctx) {
    DeclInfo d;
    abstractInto(ctx, d);
    return d.ops;
  }

  void abstractInto(P::AbstractDeclaratorContext *ctx, DeclInfo &d) {
    pointerOps(ctx->pointerOp(), d);
    auto *dad = ctx->directAbstractDeclarator();
    if (!dad)
      return;
    auto suffixes = dad->abstractSuffix();
    for (size_t k = suffixes.size(); k-- > 0;) {
      auto *sfx = suffixes[k];
      if (!sfx->LeftBracket()) {
        error(loc(sfx), "function pointers are not supported");
        continue;
      }
      TypeOp op;
      op.kind = TypeOp::Kind::Array;
      if (auto *sz = sfx->assignmentExpression())
        op.size = assignment(sz);
      d.ops.push_back(op);
    }
    if (auto *inner = dad->abstractDeclarator())
      abstractInto(inner, d);
  }

  TypeSyntax *typeName(P::TypeNameContext *ctx) {
    Specs s = specs(ctx->declarationSpecifiers());
    auto *t = tu_.make<TypeSyntax>(s.base);
    if (auto *ad = ctx->abstractDeclarator())
      t->ops = abstractDeclarator(ad);
    return t;
  }

  Expr *initializer(P::InitializerContext *ctx) {
    if (auto *a = ctx->assignmentExpression())
      return assignment(a);
    Expr *list = makeExpr(ExprKind::InitList, loc(ctx));
    if (auto *il = ctx->initializerList())
      initializerList(il, list);
    return list;
  }

  void initializerList(P::InitializerListContext *ctx, Expr *list) {
    for (auto *di : ctx->designatedInitializer()) {
      if (!di->designator().empty())
        error(loc(di), "designated initializers are not supported");
      list->operands.push_back(initializer(di->initializer()));
    }
  }

  // ---- statements ----

  Stmt *compound(P::CompoundStatementContext *ctx) {
    Stmt *s = makeStmt(StmtKind::Compound, loc(ctx));
    for (auto *item : ctx->blockItem()) {
      if (auto *d = item->declaration()) {
        Stmt *ds = makeStmt(StmtKind::Decl, loc(d));
        ds->decls = declaration(d->declarationSpecifiers(), d->initDeclaratorList(), false);
        s->body.push_back(ds);
      } else {
        appendStatement(s->body, item->statement());
      }
    }
    return s;
  }

  // Case and default labels directly inside a block are flattened: the label, then the
  // statement it labels, as siblings (so `case 1: case 2: x();` reads as a list).
  void appendStatement(std::vector<Stmt *> &body, P::StatementContext *ctx) {
    if (auto *ls = ctx->labeledStatement(); ls && !ls->Identifier()) {
      Stmt *label = makeStmt(ls->Case() ? StmtKind::Case : StmtKind::Default, loc(ls));
      if (auto *v = ls->conditionalExpression())
        label->caseValue = conditional(v);
      body.push_back(label);
      appendStatement(body, ls->statement());
      return;
    }
    body.push_back(statement(ctx));
  }

  Stmt *statement(P::StatementContext *ctx) {
    if (auto *c = ctx->compoundStatement())
      return compound(c);
    if (auto *ls = ctx->labeledStatement()) {
      StmtKind k =
          ls->Identifier() ? StmtKind::Label : (ls->Case() ? StmtKind::Case : StmtKind::Default);
      Stmt *s = makeStmt(k, loc(ls));
      if (ls->Identifier())
        s->name = ls->Identifier()->getText();
      if (auto *v = ls->conditionalExpression())
        s->caseValue = conditional(v);
      s->then = statement(ls->statement());
      return s;
    }
    if (auto *es = ctx->expressionStatement()) {
      Stmt *s = makeStmt(StmtKind::Expr, loc(es));
      if (auto *e = es->expression())
        s->expr = expression(e);
      return s;
    }
    if (auto *is = ctx->ifStatement()) {
      Stmt *s = makeStmt(StmtKind::If, loc(is));
      s->cond = expression(is->expression());
      auto stmts = is->statement();
      s->then = statement(stmts[0]);
      if (stmts.size() > 1)
        s->elseStmt = statement(stmts[1]);
      return s;
    }
    if (auto *ss = ctx->switchStatement()) {
      Stmt *s = makeStmt(StmtKind::Switch, loc(ss));
      s->cond = expression(ss->expression());
      s->then = statement(ss->statement());
      return s;
    }
    if (auto *ws = ctx->whileStatement()) {
      Stmt *s = makeStmt(StmtKind::While, loc(ws));
      s->cond = expression(ws->expression());
      s->then = statement(ws->statement());
      return s;
    }
    if (auto *ds = ctx->doStatement()) {
      Stmt *s = makeStmt(StmtKind::DoWhile, loc(ds));
      s->then = statement(ds->statement());
      s->cond = expression(ds->expression());
      return s;
    }
    if (auto *fs = ctx->forStatement())
      return forStatement(fs);
    if (auto *js = ctx->jumpStatement()) {
      if (js->Goto()) {
        Stmt *s = makeStmt(StmtKind::Goto, loc(js));
        s->name = js->Identifier()->getText();
        return s;
      }
      if (js->Continue())
        return makeStmt(StmtKind::Continue, loc(js));
      if (js->Break())
        return makeStmt(StmtKind::Break, loc(js));
      Stmt *s = makeStmt(StmtKind::Return, loc(js));
      if (auto *e = js->expression())
        s->expr = expression(e);
      return s;
    }
    auto *us = ctx->unsupportedStatement();
    if (us->Asm())
      error(loc(us), "inline PTX (asm) is not supported");
    else
      error(loc(us), "exceptions are not supported");
    return makeStmt(StmtKind::Expr, loc(us));
  }

  Stmt *forStatement(P::ForStatementContext *ctx) {
    Stmt *s = makeStmt(StmtKind::For, loc(ctx));
    if (auto *fi = ctx->forInit()) {
      if (auto *e = fi->expression()) {
        s->init = makeStmt(StmtKind::Expr, loc(fi));
        s->init->expr = expression(e);
      } else {
        s->init = makeStmt(StmtKind::Decl, loc(fi));
        s->init->decls = declaration(fi->declarationSpecifiers(), fi->initDeclaratorList(), false);
      }
    }
    if (ctx->cond)
      s->cond = expression(ctx->cond);
    if (ctx->step)
      s->step = expression(ctx->step);
    s->then = statement(ctx->statement());
    return s;
  }

  // ---- expressions ----

  Expr *binary(BinaryOp op, Token *opTok, Expr *l, Expr *r) {
    Expr *e = makeExpr(ExprKind::Binary, loc(opTok));
    e->binaryOp = op;
    e->operands = {l, r};
    return e;
  }

  Expr *expression(P::ExpressionContext *ctx) {
    auto parts = ctx->assignmentExpression();
    Expr *e = assignment(parts[0]);
    auto commas = ctx->Comma();
    for (size_t k = 1; k < parts.size(); ++k)
      e = binary(BinaryOp::Comma, commas[k - 1]->getSymbol(), e, assignment(parts[k]));
    return e;
  }

  Expr *assignment(P::AssignmentExpressionContext *ctx) {
    Expr *lhs = conditional(ctx->conditionalExpression());
    auto *op = ctx->assignmentOperator();
    if (!op)
      return lhs;
    static const std::pair<const char *, BinaryOp> ops[] = {
        {"=", BinaryOp::Assign},      {"*=", BinaryOp::MulAssign},  {"/=", BinaryOp::DivAssign},
        {"%=", BinaryOp::RemAssign},  {"+=", BinaryOp::AddAssign},  {"-=", BinaryOp::SubAssign},
        {"<<=", BinaryOp::ShlAssign}, {">>=", BinaryOp::ShrAssign}, {"&=", BinaryOp::AndAssign},
        {"^=", BinaryOp::XorAssign},  {"|=", BinaryOp::OrAssign}};
    BinaryOp bop = BinaryOp::Assign;
    std::string text = op->getText();
    for (auto &[spelling, value] : ops)
      if (text == spelling)
        bop = value;
    return binary(bop, op->getStart(), lhs, assignment(ctx->assignmentExpression()));
  }

  Expr *conditional(P::ConditionalExpressionContext *ctx) {
    Expr *c = chain(ctx->logicalOrExpression());
    if (!ctx->Question())
      return c;
    Expr *e = makeExpr(ExprKind::Conditional, loc(ctx->Question()));
    e->operands = {c, expression(ctx->expression()), assignment(ctx->assignmentExpression())};
    return e;
  }

  static bool binaryOpFor(const std::string &t, BinaryOp &op) {
    static const std::pair<const char *, BinaryOp> ops[] = {
        {"*", BinaryOp::Mul},   {"/", BinaryOp::Div},     {"%", BinaryOp::Rem},
        {"+", BinaryOp::Add},   {"-", BinaryOp::Sub},     {"<<", BinaryOp::Shl},
        {">>", BinaryOp::Shr},  {"<", BinaryOp::Lt},      {">", BinaryOp::Gt},
        {"<=", BinaryOp::Le},   {">=", BinaryOp::Ge},     {"==", BinaryOp::Eq},
        {"!=", BinaryOp::Ne},   {"&", BinaryOp::BitAnd},  {"^", BinaryOp::BitXor},
        {"|", BinaryOp::BitOr}, {"&&", BinaryOp::LogAnd}, {"||", BinaryOp::LogOr}};
    for (auto &[spelling, value] : ops)
      if (t == spelling) {
        op = value;
        return true;
      }
    return false;
  }

  /// One level of the binary-operator ladder: operand (op operand)*, folded to the left.
  Expr *chain(ParserRuleContext *ctx) {
    if (auto *c = dynamic_cast<P::CastExpressionContext *>(ctx))
      return castExpression(c);
    Expr *e = nullptr;
    Token *pending = nullptr;
    for (ParseTree *child : ctx->children) {
      if (auto *t = dynamic_cast<TerminalNode *>(child)) {
        pending = t->getSymbol();
        continue;
      }
      Expr *operand = chain(static_cast<ParserRuleContext *>(child));
      if (!e) {
        e = operand;
        continue;
      }
      BinaryOp op = BinaryOp::Add;
      binaryOpFor(pending->getText(), op);
      e = binary(op, pending, e, operand);
    }
    return e;
  }

  Expr *castExpression(P::CastExpressionContext *ctx) {
    if (auto *u = ctx->unaryExpression())
      return unary(u);
    Expr *e = makeExpr(ExprKind::Cast, loc(ctx));
    e->typeSyntax = typeName(ctx->typeName());
    if (auto *inner = ctx->castExpression()) {
      e->operands.push_back(castExpression(inner));
    } else {
      // A compound literal `(T){...}`: a cast of an initialiser list.
      Expr *list = makeExpr(ExprKind::InitList, loc(ctx->LeftBrace()));
      if (auto *il = ctx->initializerList())
        initializerList(il, list);
      e->operands.push_back(list);
    }
    return e;
  }

  Expr *unaryOp(UnaryOp op, Token *t, Expr *operand) {
    Expr *e = makeExpr(ExprKind::Unary, loc(t));
    e->unaryOp = op;
    e->operands.push_back(operand);
    return e;
  }

  Expr *unary(P::UnaryExpressionContext *ctx) {
    if (auto *pf = ctx->postfixExpression())
      return postfix(pf);
    if (ctx->Sizeof()) {
      if (auto *tn = ctx->typeName()) {
        Expr *e = makeExpr(ExprKind::SizeofType, loc(ctx));
        e->typeSyntax = typeName(tn);
        return e;
      }
      Expr *e = makeExpr(ExprKind::SizeofExpr, loc(ctx));
      e->operands.push_back(unary(ctx->unaryExpression()));
      return e;
    }
    if (ctx->PlusPlus())
      return unaryOp(UnaryOp::PreInc, ctx->getStart(), unary(ctx->unaryExpression()));
    if (ctx->MinusMinus())
      return unaryOp(UnaryOp::PreDec, ctx->getStart(), unary(ctx->unaryExpression()));
    auto *uo = ctx->unaryOperator();
    UnaryOp op = UnaryOp::Plus;
    switch (uo->getStart()->getType()) {
    case P::And:
      op = UnaryOp::AddrOf;
      break;
    case P::Star:
      op = UnaryOp::Deref;
      break;
    case P::Plus:
      op = UnaryOp::Plus;
      break;
    case P::Minus:
      op = UnaryOp::Minus;
      break;
    case P::Tilde:
      op = UnaryOp::BitNot;
      break;
    default:
      op = UnaryOp::Not;
      break;
    }
    return unaryOp(op, uo->getStart(), castExpression(ctx->castExpression()));
  }

  std::vector<Expr *> arguments(P::ArgumentExpressionListContext *ctx) {
    std::vector<Expr *> out;
    if (ctx)
      for (auto *a : ctx->assignmentExpression())
        out.push_back(assignment(a));
    return out;
  }

  Expr *postfix(P::PostfixExpressionContext *ctx) {
    Expr *e = primary(ctx->primaryExpression());
    for (auto *sfx : ctx->postfixSuffix()) {
      if (sfx->LeftBracket()) {
        Expr *ix = makeExpr(ExprKind::Index, e->loc);
        ix->operands = {e, expression(sfx->expression())};
        e = ix;
      } else if (sfx->LaunchOpen()) {
        Expr *call = makeExpr(ExprKind::Call, e->loc);
        call->operands.push_back(e);
        call->isLaunch = true;
        auto lists = sfx->argumentExpressionList();
        call->launchConfig = arguments(lists[0]);
        if (lists.size() > 1)
          call->args = arguments(lists[1]);
        if (call->launchConfig.size() < 2 || call->launchConfig.size() > 4)
          error(loc(sfx->LaunchOpen()),
                "a launch configuration takes 2 to 4 arguments: <<<grid, block[, sharedBytes[, "
                "stream]]>>>");
        e = call;
      } else if (sfx->LeftParen()) {
        Expr *call = makeExpr(ExprKind::Call, e->loc);
        call->operands.push_back(e);
        auto lists = sfx->argumentExpressionList();
        if (!lists.empty())
          call->args = arguments(lists[0]);
        e = call;
      } else if (sfx->Identifier()) {
        Expr *m = makeExpr(ExprKind::Member, loc(sfx->Identifier()));
        m->operands.push_back(e);
        m->name = sfx->Identifier()->getText();
        m->isArrow = sfx->Arrow() != nullptr;
        e = m;
      } else {
        e = unaryOp(sfx->PlusPlus() ? UnaryOp::PostInc : UnaryOp::PostDec, sfx->getStart(), e);
      }
    }
    return e;
  }

  Expr *primary(P::PrimaryExpressionContext *ctx) {
    if (auto *id = ctx->Identifier()) {
      Expr *e = makeExpr(ExprKind::Ident, loc(id));
      e->name = id->getText();
      return e;
    }
    if (auto *n = ctx->IntegerConstant())
      return intLiteral(n);
    if (auto *f = ctx->FloatingConstant())
      return floatLiteral(f);
    if (auto *c = ctx->CharacterConstant())
      return charLiteral(c);
    if (!ctx->StringLiteral().empty())
      return stringLiteral(ctx->StringLiteral());
    if (ctx->True() || ctx->False()) {
      // Sema gives `true` and `false` their type bool by name, as it does other builtins.
      Expr *e = makeExpr(ExprKind::Ident, loc(ctx));
      e->name = ctx->getText();
      return e;
    }
    if (ctx->Nullptr()) {
      // `nullptr` is the null pointer constant 0; `text` keeps the spelling.
      Expr *e = makeExpr(ExprKind::IntLit, loc(ctx));
      e->text = "nullptr";
      return e;
    }
    if (auto *kw = ctx->builtinTypeKeyword()) {
      // `float(i)`: a functional cast, the same as `(float)i`.
      Expr *e = makeExpr(ExprKind::Cast, loc(ctx));
      e->typeSyntax = tu_.make<TypeSyntax>();
      e->typeSyntax->loc = loc(kw);
      e->typeSyntax->keywords.push_back(kw->getText() == "_Bool" ? "bool" : kw->getText());
      std::vector<Expr *> args = arguments(ctx->argumentExpressionList());
      if (args.size() == 1) {
        e->operands.push_back(args[0]);
      } else if (args.empty()) {
        Expr *zero = placeholder(loc(ctx));
        e->operands.push_back(zero);
      } else {
        error(loc(ctx), "a functional cast takes one argument");
        e->operands.push_back(args[0]);
      }
      return e;
    }
    if (ctx->CxxCast()) {
      Expr *e = makeExpr(ExprKind::Cast, loc(ctx));
      e->typeSyntax = typeName(ctx->typeName());
      e->operands.push_back(expression(ctx->expression()));
      if (ctx->CxxCast()->getText() == "dynamic_cast")
        error(loc(ctx), "dynamic_cast is not supported");
      return e;
    }
    if (ctx->lambdaExpression()) {
      error(loc(ctx), "lambdas are not supported");
      return placeholder(loc(ctx));
    }
    return expression(ctx->expression()); // parentheses
  }

  Expr *intLiteral(TerminalNode *n) {
    std::string text = n->getText();
    Expr *e = makeExpr(ExprKind::IntLit, loc(n));
    e->text = text;
    std::string digits = text;
    while (!digits.empty() && std::strchr("uUlL", digits.back()))
      digits.pop_back();
    int base = 10;
    size_t start = 0;
    if (digits.size() > 1 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
      base = 16;
      start = 2;
    } else if (digits.size() > 1 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B')) {
      base = 2;
      start = 2;
    } else if (digits.size() > 1 && digits[0] == '0') {
      base = 8;
      start = 1;
    }
    uint64_t v = 0;
    bool overflow = false;
    for (size_t k = start; k < digits.size(); ++k) {
      char c = digits[k];
      unsigned d = std::isdigit(static_cast<unsigned char>(c))
                       ? static_cast<unsigned>(c - '0')
                       : static_cast<unsigned>(std::tolower(c) - 'a' + 10);
      if (d >= static_cast<unsigned>(base)) {
        error(e->loc, std::string("invalid digit '") + c + "' in " +
                          (base == 8   ? "octal"
                           : base == 2 ? "binary"
                                       : "decimal") +
                          " constant");
        return e;
      }
      if (v > (UINT64_MAX - d) / static_cast<uint64_t>(base))
        overflow = true;
      v = v * static_cast<uint64_t>(base) + d;
    }
    if (overflow)
      error(e->loc, "integer literal is too large to be represented in any integer type");
    e->intValue = v;
    return e;
  }

  Expr *floatLiteral(TerminalNode *n) {
    std::string text = n->getText();
    Expr *e = makeExpr(ExprKind::FloatLit, loc(n));
    e->text = text;
    std::string num = text;
    bool hex = num.size() > 1 && (num[1] == 'x' || num[1] == 'X');
    // In a hex float the suffix can only follow the binary exponent, so 'f' there is a suffix,
    // never a digit.
    if (!num.empty() && std::strchr("fFlL", num.back()) &&
        (!hex || num.find_first_of("pP") != std::string::npos)) {
      e->isFloatSuffix = num.back() == 'f' || num.back() == 'F';
      num.pop_back();
    }
    errno = 0;
    e->floatValue = std::strtod(num.c_str(), nullptr);
    if (errno == ERANGE && e->floatValue != 0.0)
      diags_.warning(e->loc, "magnitude of floating-point constant too large");
    return e;
  }

  Expr *charLiteral(TerminalNode *n) {
    std::string text = n->getText();
    Expr *e = makeExpr(ExprKind::CharLit, loc(n));
    e->text = text;
    int64_t v = 0;
    if (!decodeCharBody(std::string_view(text).substr(1, text.size() - 2), v))
      error(e->loc, "multi-character character constants are not supported");
    e->intValue = static_cast<uint64_t>(v);
    return e;
  }

  Expr *stringLiteral(const std::vector<TerminalNode *> &parts) {
    Expr *e = makeExpr(ExprKind::StringLit, loc(parts[0]));
    for (size_t k = 0; k < parts.size(); ++k) {
      std::string text = parts[k]->getText();
      if (k)
        e->text += ' ';
      e->text += text;
      e->stringValue += decodeStringBody(std::string_view(text).substr(1, text.size() - 2));
    }
    return e;
  }
};

} // namespace

/// CUDA features that are spelled as ordinary names (no keyword announces them): reported once,
/// at the first use, naming the feature, before the parser trips over them with a vaguer
/// message (an unknown type name, an unexpected '<').
static bool rejectUnsupportedNames(antlr4::CommonTokenStream &tokens, const PreprocessedSource &src,
                                   DiagnosticEngine &diags) {
  static const std::map<std::string, std::string> names = {
      {"cooperative_groups", "cooperative groups are not supported"},
      {"cudaTextureObject_t", "texture objects are not supported"},
      {"cudaSurfaceObject_t", "surface objects are not supported"},
      {"cudaCreateTextureObject", "texture objects are not supported"},
      {"cudaCreateSurfaceObject", "surface objects are not supported"},
      {"cudaBindTexture", "texture references are not supported"},
      {"tex1Dfetch", "textures are not supported"},
      {"tex1D", "textures are not supported"},
      {"tex2D", "textures are not supported"},
      {"tex3D", "textures are not supported"},
      {"surf2Dread", "surfaces are not supported"},
      {"surf2Dwrite", "surfaces are not supported"},
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
    else if ((text == "texture" || text == "surface") && i + 1 < all.size() &&
             all[i + 1]->getText() == "<")
      msg = text == "texture" ? "texture references are not supported"
                              : "surface references are not supported";
    if (msg.empty())
      continue;
    diags.error(src.map(static_cast<uint32_t>(t->getLine()),
                        static_cast<uint32_t>(t->getCharPositionInLine() + 1)),
                msg);
    return false;
  }
  return true;
}

bool parseTranslationUnit(const PreprocessedSource &src, TranslationUnit &tu,
                          DiagnosticEngine &diags) {
  unsigned errorsBefore = diags.errorCount();
  antlr4::ANTLRInputStream input(src.text);
  kern_antlr::KernLexer lexer(&input);
  SilentListener silent;
  lexer.removeErrorListeners();
  lexer.addErrorListener(&silent);
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();
  if (!rejectUnsupportedNames(tokens, src, diags))
    return false;

  P parser(&tokens);
  parser.removeErrorListeners();
  parser.addErrorListener(&silent);
  const std::set<std::string> builtinTypeNames = parser.typeNames;

  // Two-stage parsing: SLL prediction is fast and almost always enough; only when it fails
  // is the input parsed again with full LL and error reporting (the result is then exact).
  P::TranslationUnitContext *tree = nullptr;
  auto *interp = parser.getInterpreter<antlr4::atn::ParserATNSimulator>();
  interp->setPredictionMode(antlr4::atn::PredictionMode::SLL);
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  try {
    tree = parser.translationUnit();
  } catch (antlr4::ParseCancellationException &) {
    tree = nullptr;
  }
  if (!tree) {
    tokens.seek(0);
    parser.reset();
    parser.typeNames = builtinTypeNames;
    interp->setPredictionMode(antlr4::atn::PredictionMode::LL);
    parser.setErrorHandler(std::make_shared<KernErrorStrategy>(src, diags));
    try {
      tree = parser.translationUnit();
    } catch (antlr4::ParseCancellationException &) {
      return false;
    }
  }
  Builder builder(src, tu, diags);
  builder.translationUnit(tree);
  return diags.errorCount() == errorsBefore;
}

} // namespace kern::frontend
