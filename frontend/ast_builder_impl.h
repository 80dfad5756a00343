// The AST builder's class, shared by the files that implement it: ast_builder.cpp (the parse
// and file scope), ast_builder_decl.cpp (declarations, specifiers, declarators),
// ast_builder_stmt.cpp (statements) and ast_builder_expr.cpp (expressions and literals).
// Names ANTLR types: for the front end's .cpp files only.
#pragma once

#include "frontend/ast_builder.h"

#include "frontend/antlr_headers.h"

#include <set>
#include <string>
#include <vector>

namespace kern::frontend::builder_detail {

using antlr4::ParserRuleContext;
using antlr4::Token;
using antlr4::tree::ParseTree;
using antlr4::tree::TerminalNode;
using P = kern_antlr::KernParser;

/// Declaration specifiers, resolved once and shared by every declarator of a declaration.
struct Specs {
  TypeSyntax base;
  Qualifiers quals;
  bool isTypedef = false;
  bool isVirtual = false;          // `virtual` (a member function)
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
  bool isConstMethod = false;                 // `f() const`
  bool isPure = false;                        // `f() = 0` (a pure virtual member function)
  bool isDefaulted = false;                   // `f() = default`
  bool isDeleted = false;                     // `f() = delete`
  TypeSyntax *conversionType = nullptr;       // `operator T *()`
  std::vector<TemplateArg> templateArgs;      // `f<float>` in an explicit instantiation
  bool ofClassTemplate = false;               // `C<T>::f`: a class template's member, outside it
  std::vector<TemplateArg> classTemplateArgs; // its `<T>`
  P::ParameterTypeListContext *params = nullptr;
};

/// Turns the parse tree into the AST; reports what the syntax alone shows to be unsupported.
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
  DiagnosticEngine &diags_;
  std::set<std::string> structTags_;
  std::set<std::string> enumTags_;
  std::set<std::string> typedefNames_;
  std::vector<std::string> namespaces_; // the namespaces being built, outermost first
  int functionDepth_ = 0;               // > 0 inside a function body

  /// `name` declared in the current namespace: `ns::name` (or `name` in the global one).
  std::string qualify(const std::string &name) const {
    std::string q;
    for (auto &n : namespaces_)
      q += n + "::";
    return q + name;
  }
  std::string currentNamespace() const {
    std::string q = qualify("");
    return q.empty() ? q : q.substr(0, q.size() - 2);
  }
  /// Gives a namespace-scope declaration its qualified name and its lookup context.
  void place(Decl *d) {
    if (d->ns.empty())
      d->ns = currentNamespace();
    if (d->kind == DeclKind::Struct || d->kind == DeclKind::Enum) {
      if (d->name.empty() || d->ns.empty() || d->name.rfind(d->ns + "::", 0) == 0)
        return; // already qualified (a struct is placed when it is built)
    }
    if (!d->name.empty() && d->name != "main" && !namespaces_.empty() &&
        !(d->kind == DeclKind::Function && static_cast<FunctionDecl *>(d)->owner))
      d->name = qualify(d->name);
  }

  void namespaceDefinition(P::NamespaceDefinitionContext *ctx);
  /// A constructor written inside struct `sd` (`sd` null: `S::S(...) {...}` after it).
  FunctionDecl *constructor(const std::vector<P::ConstructorSpecifierContext *> &specs,
                            P::ParameterTypeListContext *params,
                            P::ConstructorInitializerContext *inits,
                            P::CompoundStatementContext *body, SourceLoc at);
  /// `S::S(...) {...}`, `S::~S() {...}`, `C<T>::C(...) {...}` after the class.
  FunctionDecl *outOfClassConstructor(P::ConstructorDefinitionContext *cd);
  void templateDeclaration(P::TemplateDeclarationContext *ctx);
  TemplateArg templateArgument(P::TemplateArgumentContext *ctx);
  std::vector<TemplateParam>
  templateParameters(const std::vector<P::TemplateParameterContext *> &list);
  Decl *usingDeclaration(P::UsingDeclarationContext *ctx);
  StaticAssertDecl *staticAssert(P::StaticAssertDeclarationContext *ctx);
  /// The static_asserts of the struct being built, placed after it.
  std::vector<StaticAssertDecl *> structAsserts_;
  /// The structs being built, outermost first, with what each one's nested structs place
  /// after it (their member functions).
  std::vector<StructDecl *> structStack_;
  std::vector<std::vector<Decl *>> nestedDefinitions_;
  /// A member function of class template `sd` or of a struct nested in it, or a static_assert
  /// of such a nested struct: instantiated with `sd` (the static_asserts of `sd` itself are
  /// found and checked for each instance, sema_statements.cpp).
  static bool ownedBy(const Decl *d, const StructDecl *sd) {
    auto nestedIn = [&](const StructDecl *owner) {
      return owner && owner->name.rfind(sd->name + "::", 0) == 0;
    };
    if (auto *f = dynamic_cast<const FunctionDecl *>(d))
      return f->owner == sd || nestedIn(f->owner);
    if (auto *sa = dynamic_cast<const StaticAssertDecl *>(d))
      return nestedIn(sa->owner);
    return false;
  }
  /// The member functions of struct `sd` declared in `ctx`.
  void memberFunction(P::StructDeclarationContext *ctx, StructDecl *sd, const Specs &fs,
                      const DeclInfo &d, Stmt *body);
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

  void externalDeclaration(P::ExternalDeclarationContext *ctx);

  void unsupported(P::UnsupportedDeclarationContext *u);

  void addUnsupported(SourceLoc at, const char *construct);

  void functionDefinition(P::FunctionDefinitionContext *ctx);
  /// A C89 definition: `float squash(x) float x; {...}`, `f() {...}` (int).
  void knrDefinition(P::FunctionDefinitionContext *ctx);

  FunctionDecl *functionDecl(const Specs &s, const DeclInfo &d);

  /// A function parameter, or the parameter of a catch clause.
  VarDecl *parameter(P::ParameterDeclarationContext *pd);
  void parameters(P::ParameterTypeListContext *ctx, FunctionDecl *f);
  /// The function type operator of a parameter list inside a declarator (`(*p)(int)`).
  TypeOp functionOp(P::ParameterTypeListContext *ctx, SourceLoc at);

  // ---- declarations ----

  /// The Decls of one declaration: inline struct/enum definitions first, then one per
  /// declarator.
  std::vector<Decl *> declaration(P::DeclarationSpecifiersContext *specCtx,
                                  P::InitDeclaratorListContext *list, bool fileScope);

  std::vector<Decl *> declarators(const Specs &s, P::InitDeclaratorListContext *list,
                                  bool fileScope);

  /// C++ direct initialisation `T x(args)`: for a named type it is the constructor call
  /// `T(args)` (how `dim3(16, 16)` is written in expressions); for a builtin type, the one
  /// argument.
  Expr *directInit(const TypeSyntax *t, P::ArgumentExpressionListContext *args, SourceLoc at);

  Specs specs(P::DeclarationSpecifiersContext *ctx, bool deferAuto = false);

  Specs readSpecs(P::DeclarationSpecifiersContext *ctx);

  // A struct, enum or typedef name cannot be combined with another type specifier. The
  // usual cause is a struct definition without its ';' before the next declaration.
  /// The source text of `ctx` as written, spaces included: for naming it in messages.
  static std::string spelling(antlr4::ParserRuleContext *ctx);
  void checkSpecifierMix(P::DeclarationSpecifiersContext *ctx);

  static void typeQualifier(P::TypeQualifierContext *tq, Specs &s);

  void typeSpecifier(P::TypeSpecifierContext *ts, Specs &s);

  uint64_t alignment(P::AlignSpecifierContext *al);

  uint64_t attributeAlignment(P::AttributeSpecifierContext *at);

  /// The integer constants that the syntax itself needs (alignments, launch bounds), folded
  /// before sema has typed them; every other constant expression is sema's.
  int64_t constantArg(P::ConditionalExpressionContext *c, const char *what);

  void structSpecifier(P::StructSpecifierContext *ctx, Specs &s);

  void structFields(P::StructDeclarationContext *ctx, StructDecl *sd);
  bool publicAccess_ = true; // the access of the members being read (`public:`, `private:`)

  void enumSpecifier(P::EnumSpecifierContext *ctx, Specs &s);

  /// Reads a declarator into `d`. The ops follow TypeSyntax::ops (applied to the base type
  /// in order): pointers left to right, then the suffixes right to left, then what a
  /// parenthesised inner declarator adds.
  DeclInfo declarator(P::DeclaratorContext *ctx, bool nested);

  void pointerOps(const std::vector<P::PointerOpContext *> &ptrs, DeclInfo &d);

  void declaratorInto(P::DeclaratorContext *ctx, DeclInfo &d, bool nested);

  std::vector<TypeOp> abstractDeclarator(P::AbstractDeclaratorContext *ctx);

  void abstractInto(P::AbstractDeclaratorContext *ctx, DeclInfo &d);

  TypeSyntax *typeName(P::TypeNameContext *ctx);

  Expr *initializer(P::InitializerContext *ctx);

  void initializerList(P::InitializerListContext *ctx, Expr *list);

  // ---- statements ----

  Stmt *compound(P::CompoundStatementContext *ctx);
  Expr *lambda(P::LambdaExpressionContext *ctx);

  // Case and default labels directly inside a block are flattened: the label, then the
  // statement it labels, as siblings (so `case 1: case 2: x();` reads as a list); so is any
  // label before a declaration.
  void appendStatement(std::vector<Stmt *> &body, P::StatementContext *ctx);
  Stmt *declarationStatement(P::DeclarationContext *d);
  /// An if, switch or while condition; for a declaration (`if (T x = e)`), `decl` is set to it
  /// and the result names the variable.
  Expr *condition(P::ConditionContext *ctx, Stmt *&decl);
  /// `{ decl; s }`, or `s` when there is no declaration.
  Stmt *withDeclaration(Stmt *decl, Stmt *s);

  Stmt *statement(P::StatementContext *ctx);

  Stmt *forStatement(P::ForStatementContext *ctx);

  // ---- expressions ----

  Expr *binary(BinaryOp op, Token *opTok, Expr *l, Expr *r);

  Expr *expression(P::ExpressionContext *ctx);

  Expr *assignment(P::AssignmentExpressionContext *ctx);

  Expr *conditional(P::ConditionalExpressionContext *ctx);

  static bool binaryOpFor(const std::string &t, BinaryOp &op);

  /// One level of the binary-operator ladder: operand (op operand)*, folded to the left.
  Expr *chain(ParserRuleContext *ctx);

  Expr *castExpression(P::CastExpressionContext *ctx);

  Expr *unaryOp(UnaryOp op, Token *t, Expr *operand);

  Expr *unary(P::UnaryExpressionContext *ctx);

  std::vector<Expr *> arguments(P::ArgumentExpressionListContext *ctx);

  Expr *postfix(P::PostfixExpressionContext *ctx);

  Expr *primary(P::PrimaryExpressionContext *ctx);

  Expr *intLiteral(TerminalNode *n);

  Expr *floatLiteral(TerminalNode *n);

  Expr *charLiteral(TerminalNode *n);

  Expr *stringLiteral(const std::vector<TerminalNode *> &parts);
};

} // namespace kern::frontend::builder_detail
