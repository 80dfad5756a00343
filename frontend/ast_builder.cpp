// Runs the ANTLR lexer and parser on preprocessed text and turns the parse tree into kern's AST
// (syntax errors become one clang-style diagnostic at the original location); the builder's
// file scope: function definitions and their parameters.
#include "frontend/ast_builder.h"

#include "frontend/ast_builder_impl.h"
#include "frontend/escapes.h"
#include "frontend/inline_ptx.h"
#include "frontend/parse_errors.h"
#include "frontend/template_closers.h"

#include <set>
#include <string>

namespace kern::frontend {

namespace builder_detail {

void Builder::externalDeclaration(P::ExternalDeclarationContext *ctx) {
  if (auto *cd = ctx->constructorDefinition()) {
    if (FunctionDecl *f = outOfClassConstructor(cd)) {
      place(f);
      tu_.decls.push_back(f);
    }
  } else if (auto *fd = ctx->functionDefinition()) {
    functionDefinition(fd);
  } else if (auto *d = ctx->declaration()) {
    for (Decl *decl : declaration(d->declarationSpecifiers(), d->initDeclaratorList(), true)) {
      place(decl);
      tu_.decls.push_back(decl);
    }
  } else if (auto *td = ctx->templateDeclaration()) {
    templateDeclaration(td);
  } else if (auto *nd = ctx->namespaceDefinition()) {
    namespaceDefinition(nd);
  } else if (auto *ud = ctx->usingDeclaration()) {
    if (Decl *decl = usingDeclaration(ud)) {
      place(decl);
      tu_.decls.push_back(decl);
    }
  } else if (auto *sa = ctx->staticAssertDeclaration()) {
    Decl *decl = staticAssert(sa);
    place(decl);
    tu_.decls.push_back(decl);
  } else if (auto *u = ctx->unsupportedDeclaration()) {
    unsupported(u);
  } else if (ctx->Extern()) {
    // extern "C" { ... } or extern "C" declaration: C linkage, under which functions link by
    // name alone (link.cpp). Without braces a variable is only declared, as with `extern`.
    const size_t first = tu_.decls.size();
    for (auto *inner : ctx->externalDeclaration())
      externalDeclaration(inner);
    bool braces = false;
    for (auto *child : ctx->children)
      braces = braces || child->getText() == "{";
    const bool isC = ctx->StringLiteral()->getText() == "\"C\"";
    for (size_t i = first; i < tu_.decls.size(); ++i) {
      Decl *d = tu_.decls[i];
      if (!dynamic_cast<FunctionDecl *>(d) && !dynamic_cast<VarDecl *>(d))
        continue;
      d->quals.externC = d->quals.externC || isC;
      if (!braces && dynamic_cast<VarDecl *>(d))
        d->quals.isExtern = true;
    }
  }
}

void Builder::namespaceDefinition(P::NamespaceDefinitionContext *ctx) {
  // An unnamed namespace holds names local to the file: kern gives them the file's namespace.
  namespaces_.push_back(ctx->Identifier() ? ctx->Identifier()->getText() : "");
  if (namespaces_.back().empty())
    namespaces_.pop_back();
  else if (functionDepth_ > 0)
    error(loc(ctx), "a namespace can only be defined at namespace scope");
  bool named = ctx->Identifier() != nullptr;
  for (auto *ed : ctx->externalDeclaration())
    externalDeclaration(ed);
  if (named)
    namespaces_.pop_back();
}

FunctionDecl *Builder::constructor(const std::vector<P::ConstructorSpecifierContext *> &specs,
                                   P::ParameterTypeListContext *params,
                                   P::ConstructorInitializerContext *inits,
                                   P::CompoundStatementContext *body, SourceLoc at) {
  auto *f = tu_.make<FunctionDecl>();
  f->loc = at;
  f->isConstructor = true;
  for (auto *sp : specs) {
    if (sp->Device())
      f->quals.device = true;
    else if (sp->Host())
      f->quals.host = true;
    else if (sp->Inline() || sp->ForceInline())
      f->quals.isInline = true;
    else if (sp->Identifier() && sp->Identifier()->getText() == "explicit")
      f->isExplicit = true;
    else if (sp->Identifier() && sp->Identifier()->getText() == "virtual")
      f->isVirtual = true;
  }
  f->returnType = tu_.make<TypeSyntax>();
  f->returnType->loc = at;
  f->returnType->keywords = {"void"};
  if (params)
    parameters(params, f);
  if (inits)
    for (auto *mi : inits->memberInitializer()) {
      FunctionDecl::MemberInit m;
      m.loc = loc(mi->qualifiedId());
      m.name = mi->qualifiedId()->getText();
      if (mi->argumentExpressionList())
        m.args = arguments(mi->argumentExpressionList());
      f->memberInits.push_back(m);
    }
  if (body) {
    ++functionDepth_;
    f->body = compound(body);
    --functionDepth_;
  }
  return f;
}

FunctionDecl *Builder::outOfClassConstructor(P::ConstructorDefinitionContext *cd) {
  std::string cls = cd->qualifiedId()->getText();
  std::vector<TemplateArg> classArgs;
  if (auto *ta = cd->templateArguments()) { // `C<T>::C(...)`: C is a class template
    for (auto *a : ta->templateArgument())
      classArgs.push_back(templateArgument(a));
    cls += "::" + cd->Identifier()->getText();
  }
  FunctionDecl *f = nullptr;
  if (cd->Tilde()) { // `S::~S() {...}`: the destructor declared in S
    SourceLoc at = loc(cd->Identifier());
    if ((cd->parameterTypeList() && cd->parameterTypeList()->getText() != "void") ||
        cd->constructorInitializer()) {
      error(at, "a destructor takes no parameters");
      return nullptr;
    }
    f = constructor(cd->constructorSpecifier(), nullptr, nullptr, cd->compoundStatement(), at);
    f->isConstructor = false;
    f->isDestructor = true;
    // `S::~S`: the class is the qualified name less its last part when the template's
    // arguments were not written between them.
    f->name = (classArgs.empty() ? cd->qualifiedId()->getText() : cls.substr(0, cls.rfind("::"))) +
              "::~" + cd->Identifier()->getText();
  } else {
    SourceLoc at =
        cd->Identifier() ? loc(cd->Identifier()) : loc(cd->qualifiedId()->Identifier().back());
    f = constructor(cd->constructorSpecifier(), cd->parameterTypeList(),
                    cd->constructorInitializer(), cd->compoundStatement(), at);
    f->name = cls;
  }
  f->ofClassTemplate = cd->templateArguments() != nullptr;
  f->classTemplateArgs = classArgs;
  return f;
}

std::vector<TemplateParam>
Builder::templateParameters(const std::vector<P::TemplateParameterContext *> &list) {
  std::vector<TemplateParam> params;
  for (auto *p : list) {
    TemplateParam tp;
    tp.loc = loc(p->Identifier());
    tp.name = p->Identifier()->getText();
    tp.isType = p->Typename() || p->Class();
    if (!tp.isType)
      tp.type = tu_.make<TypeSyntax>(specs(p->declarationSpecifiers()).base);
    if (auto *t = p->typeName())
      tp.defaultArg.type = typeName(t);
    if (auto *c = p->conditionalExpression())
      tp.defaultArg.value = conditional(c);
    params.push_back(tp);
  }
  return params;
}

void Builder::templateDeclaration(P::TemplateDeclarationContext *ctx) {
  if (!ctx->Less()) { // `template void f<float>(float *);`: an explicit instantiation
    auto *d = ctx->declaration();
    for (Decl *decl : declaration(d->declarationSpecifiers(), d->initDeclaratorList(), true)) {
      auto *f = dynamic_cast<FunctionDecl *>(decl);
      if (!f) {
        error(decl->loc, "only function templates can be instantiated explicitly");
        continue;
      }
      f->isExplicitInstantiation = true;
      place(f);
      tu_.decls.push_back(f);
    }
    return;
  }
  // `template <class T> template <class U>`: a member template of a class template, defined
  // outside it. The outer list is the class's.
  std::vector<std::vector<TemplateParam>> lists{templateParameters(ctx->templateParameter())};
  while (auto *inner = ctx->templateDeclaration()) {
    if (!inner->Less()) {
      error(loc(inner), "an explicit instantiation inside a template declaration");
      return;
    }
    ctx = inner;
    lists.push_back(templateParameters(ctx->templateParameter()));
  }
  std::vector<TemplateParam> params = lists.back();
  size_t first = tu_.decls.size();
  if (auto *cd = ctx->constructorDefinition()) {
    if (FunctionDecl *f = outOfClassConstructor(cd)) {
      place(f);
      tu_.decls.push_back(f);
    }
  } else if (auto *fd = ctx->functionDefinition()) {
    functionDefinition(fd);
  } else {
    auto *d = ctx->declaration();
    for (Decl *decl : declaration(d->declarationSpecifiers(), d->initDeclaratorList(), true)) {
      place(decl);
      tu_.decls.push_back(decl);
    }
  }
  // A class template keeps its member functions to itself: they are instantiated with it.
  StructDecl *classTemplate = nullptr;
  for (size_t i = first; i < tu_.decls.size(); ++i)
    if (auto *sd = dynamic_cast<StructDecl *>(tu_.decls[i]); sd && sd->isDefinition)
      classTemplate = sd;
  if (classTemplate) {
    classTemplate->isTemplate = true;
    classTemplate->templateParams = params;
    std::vector<Decl *> kept(tu_.decls.begin(), tu_.decls.begin() + first);
    for (size_t i = first; i < tu_.decls.size(); ++i)
      if (!ownedBy(tu_.decls[i], classTemplate))
        kept.push_back(tu_.decls[i]);
    tu_.decls = kept;
    return;
  }
  for (size_t i = first; i < tu_.decls.size(); ++i) {
    if (auto *v = dynamic_cast<VarDecl *>(tu_.decls[i]); v && v->ofClassTemplate) {
      // `template <class T> T C<T>::value = T(3);`: C's parameters, as this definition names
      // them; `template <> int C<int>::count = 5;`: the member of one instance.
      if (lists.size() > 1) {
        error(v->loc, "'" + v->name + "' is declared with two template parameter lists");
        tu_.decls.erase(tu_.decls.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
      v->classTemplateParams = lists.front();
      v->specializesMember = lists.front().empty(); // `template <> int C<int>::count = 5;`
      continue;
    }
    auto *f = dynamic_cast<FunctionDecl *>(tu_.decls[i]);
    if (f && f->ofClassTemplate) {
      // `template <class T> void C<T>::f() {...}`: the first list is C's parameters, a second
      // one the member template's own. `template <> void C<int>::f()` would define a member of
      // an explicit specialization (or specialise the member).
      if (lists.front().empty() || lists.size() > 2) {
        error(f->loc, lists.front().empty()
                          ? "an explicit specialization of a class template's member ('" + f->name +
                                "') is not supported yet"
                          : "a member template of a member template defined outside its class "
                            "('" +
                                f->name + "') is not supported yet");
        tu_.decls.erase(tu_.decls.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
      f->classTemplateParams = lists.front();
      if (lists.size() == 2)
        f->templateParams = lists.back();
      continue;
    }
    if (lists.size() > 1) {
      error(tu_.decls[i]->loc, "'" + tu_.decls[i]->name +
                                   "' is declared with two template parameter lists, which "
                                   "only a class template's member template defined outside "
                                   "its class has");
      tu_.decls.erase(tu_.decls.begin() + static_cast<std::ptrdiff_t>(first), tu_.decls.end());
      return;
    }
    if (f) {
      f->templateParams = params;
      f->isExplicitSpecialization = params.empty() && !f->instantiationArgs.empty();
      continue;
    }
    error(tu_.decls[i]->loc, "only function and class templates are supported");
    tu_.decls.erase(tu_.decls.begin() + static_cast<std::ptrdiff_t>(first), tu_.decls.end());
    return;
  }
}

Decl *Builder::usingDeclaration(P::UsingDeclarationContext *ctx) {
  if (ctx->typeName()) { // `using T = type;` is a typedef
    auto *t = tu_.make<TypedefDecl>();
    t->name = ctx->Identifier()->getText();
    t->loc = loc(ctx->Identifier());
    t->typeSyntax = typeName(ctx->typeName());
    typedefNames_.insert(qualify(t->name));
    return t;
  }
  auto *u = tu_.make<UsingDecl>();
  u->loc = loc(ctx);
  u->target = ctx->qualifiedId()->getText();
  u->isDirective = ctx->Using() && ctx->Namespace();
  if (!ctx->Using()) {
    u->alias = ctx->Identifier()->getText();
    u->isDirective = false;
  }
  return u;
}

void Builder::unsupported(P::UnsupportedDeclarationContext *u) {
  auto *d = tu_.make<UnsupportedDecl>();
  d->loc = loc(u);
  d->construct = "inline PTX (asm)";
  tu_.decls.push_back(d);
}

void Builder::addUnsupported(SourceLoc at, const char *construct) {
  auto *d = tu_.make<UnsupportedDecl>();
  d->loc = at;
  d->construct = construct;
  tu_.decls.push_back(d);
}

void Builder::functionDefinition(P::FunctionDefinitionContext *ctx) {
  if (ctx->knrDeclarator()) {
    knrDefinition(ctx);
    return;
  }
  Specs s = specs(ctx->declarationSpecifiers(), true);
  if (s.autoLoc.isValid()) {
    error(s.autoLoc, "'auto' return types are not supported");
    s.base.isAuto = false;
  }
  for (Decl *def : s.definitions) {
    place(def);
    tu_.decls.push_back(def);
  }
  DeclInfo d = declarator(ctx->declarator(), false);
  if (!d.isFunction) {
    error(d.loc, "expected a function declarator before the body of '" + d.name + "'");
    return;
  }
  FunctionDecl *f = functionDecl(s, d);
  f->isConstMethod = d.isConstMethod;
  ++functionDepth_;
  f->body = compound(ctx->compoundStatement());
  --functionDepth_;
  place(f);
  tu_.decls.push_back(f);
}

void Builder::knrDefinition(P::FunctionDefinitionContext *ctx) {
  auto *knr = ctx->knrDeclarator();
  Specs s;
  if (ctx->declarationSpecifiers()) {
    s = specs(ctx->declarationSpecifiers());
  } else { // implicit int
    s.base.keywords = {"int"};
    s.base.loc = loc(knr);
  }
  for (Decl *def : s.definitions) {
    place(def);
    tu_.decls.push_back(def);
  }
  std::vector<TerminalNode *> names = knr->Identifier();
  DeclInfo d;
  d.name = names[0]->getText();
  d.loc = loc(names[0]);
  d.isFunction = true;
  pointerOps(knr->pointerOp(), d);
  FunctionDecl *f = functionDecl(s, d);
  f->emptyParameterList = false;
  f->isKnr = true;
  // The parameters' declarations between the list and the body; a name not declared is int.
  std::map<std::string, VarDecl *> declared;
  for (auto *decl : ctx->declaration()) {
    Specs ps = specs(decl->declarationSpecifiers());
    if (!decl->initDeclaratorList())
      continue;
    for (auto *id : decl->initDeclaratorList()->initDeclarator()) {
      DeclInfo pd = declarator(id->declarator(), false);
      auto *v = tu_.make<VarDecl>();
      v->isParam = true;
      v->quals = ps.quals;
      v->name = pd.name;
      v->loc = pd.loc;
      v->typeSyntax = tu_.make<TypeSyntax>(ps.base);
      v->typeSyntax->ops = pd.ops;
      if (!declared.emplace(pd.name, v).second)
        error(pd.loc, "redefinition of parameter '" + pd.name + "'");
    }
  }
  for (size_t i = 1; i < names.size(); ++i) {
    std::string n = names[i]->getText();
    auto it = declared.find(n);
    VarDecl *v = it != declared.end() ? it->second : nullptr;
    if (!v) {
      v = tu_.make<VarDecl>();
      v->isParam = true;
      v->name = n;
      v->loc = loc(names[i]);
      v->typeSyntax = tu_.make<TypeSyntax>();
      v->typeSyntax->loc = v->loc;
      v->typeSyntax->keywords = {"int"};
    } else {
      declared.erase(it);
    }
    f->params.push_back(v);
  }
  for (auto &[n, v] : declared)
    error(v->loc, "parameter '" + n + "' is declared but not in the parameter list");
  ++functionDepth_;
  f->body = compound(ctx->compoundStatement());
  --functionDepth_;
  place(f);
  tu_.decls.push_back(f);
}

FunctionDecl *Builder::functionDecl(const Specs &s, const DeclInfo &d) {
  auto *f = tu_.make<FunctionDecl>();
  f->instantiationArgs = d.templateArgs;
  f->ofClassTemplate = d.ofClassTemplate;
  f->classTemplateArgs = d.classTemplateArgs;
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
  else if (d.isFunction)
    f->emptyParameterList = true;
  return f;
}

VarDecl *Builder::parameter(P::ParameterDeclarationContext *pd) {
  Specs s = specs(pd->declarationSpecifiers());
  auto *v = tu_.make<VarDecl>();
  v->isParam = true;
  v->quals = s.quals;
  v->typeSyntax = tu_.make<TypeSyntax>(s.base);
  v->loc = loc(pd);
  if (auto *def = pd->assignmentExpression())
    v->init = assignment(def); // a default argument
  if (auto *dc = pd->declarator()) {
    DeclInfo d = declarator(dc, false);
    if (d.isFunction) { // a parameter of function type is a pointer to a function
      d.ops.push_back(functionOp(d.params, d.loc));
      TypeOp ptr;
      d.ops.push_back(ptr);
    }
    v->name = d.name;
    v->loc = d.loc;
    v->typeSyntax->ops = d.ops;
    if (d.restrict)
      v->quals.restrict = true;
  } else if (auto *ad = pd->abstractDeclarator()) {
    v->typeSyntax->ops = abstractDeclarator(ad);
  }
  return v;
}

void Builder::parameters(P::ParameterTypeListContext *ctx, FunctionDecl *f) {
  f->variadic = ctx->Ellipsis() != nullptr;
  for (auto *pd : ctx->parameterDeclaration())
    f->params.push_back(parameter(pd));
  // `(void)` declares no parameters.
  if (f->params.size() == 1 && !f->variadic) {
    VarDecl *p = f->params[0];
    const TypeSyntax *t = p->typeSyntax;
    if (p->name.empty() && t->ops.empty() && t->keywords.size() == 1 && t->keywords[0] == "void" &&
        t->name.empty())
      f->params.clear();
  }
}

/// Thrown when the parse nests deeper than kParseStackBytes of stack: deeply nested input
/// (thousands of parentheses, blocks, `else if`s) is refused before it can overflow the stack.
struct NestingTooDeep {
  antlr4::Token *at = nullptr;
};

/// The grammar's parser with a guard on every rule it enters.
class GuardedParser : public kern_antlr::KernParser {
public:
  using KernParser::KernParser;
  /// The stack the parse may use before its input is refused: far below the stack the
  /// compiler runs on (ir/pipeline.cpp), so that the passes after the parser, which recurse
  /// over the same tree, have room too.
  static constexpr std::ptrdiff_t kParseStackBytes = 4 << 20;
  const char *base = nullptr; // the stack where the parse began

  void enterRule(antlr4::ParserRuleContext *ctx, size_t state, size_t rule) override {
    guard();
    KernParser::enterRule(ctx, state, rule);
  }
  void enterRecursionRule(antlr4::ParserRuleContext *ctx, size_t state, size_t rule,
                          int precedence) override {
    guard();
    KernParser::enterRecursionRule(ctx, state, rule, precedence);
  }

private:
  void guard() {
    const char probe = 0;
    if (base && base - &probe > kParseStackBytes)
      throw NestingTooDeep{getCurrentToken()};
  }
};

} // namespace builder_detail

bool parseTranslationUnit(const PreprocessedSource &src, TranslationUnit &tu,
                          DiagnosticEngine &diags) {
  using builder_detail::Builder;
  using P = kern_antlr::KernParser;
  unsigned errorsBefore = diags.errorCount();
  antlr4::ANTLRInputStream input(lexableText(src.text));
  kern_antlr::KernLexer lexer(&input);
  SilentListener silent;
  lexer.removeErrorListeners();
  lexer.addErrorListener(&silent);
  antlr4::CommonTokenStream lexed(&lexer);
  lexed.fill();
  std::vector<std::unique_ptr<antlr4::Token>> split = splitTemplateClosers(lexed.getTokens());
  translateInlinePtx(split, src, diags);
  antlr4::ListTokenSource source(std::move(split));
  antlr4::CommonTokenStream tokens(&source);
  tokens.fill();
  // nvcc reads `k << < g, b >> > (args)` as a launch: `<<` then `<` is `<<<`, `>>` then `>` is
  // `>>>` (nowhere else can those pairs meet in valid code).
  const auto &all = tokens.getTokens();
  for (size_t i = 0; i + 1 < all.size(); ++i) {
    auto *a = dynamic_cast<antlr4::WritableToken *>(all[i]);
    auto *b = dynamic_cast<antlr4::WritableToken *>(all[i + 1]);
    if (!a || !b)
      continue;
    bool open = a->getType() == P::LeftShift && b->getType() == P::Less;
    bool close = a->getType() == P::RightShift && b->getType() == P::Greater;
    if (!open && !close)
      continue;
    a->setType(open ? P::LaunchOpen : P::LaunchClose);
    a->setText(open ? "<<<" : ">>>");
    b->setChannel(antlr4::Token::HIDDEN_CHANNEL);
  }
  if (!rejectUnsupportedNames(tokens, src, diags))
    return false;

  builder_detail::GuardedParser parser(&tokens);
  const char stackBase = 0;
  parser.base = &stackBase;
  parser.removeErrorListeners();
  parser.addErrorListener(&silent);
  const std::set<std::string> builtinTypeNames = parser.typeNames;

  // Two-stage parsing: SLL prediction is fast and almost always enough; only when it fails
  // is the input parsed again with full LL and error reporting (the result is then exact).
  P::TranslationUnitContext *tree = nullptr;
  auto tooDeep = [&](const builder_detail::NestingTooDeep &e) {
    SourceLoc at = e.at ? src.map(static_cast<uint32_t>(e.at->getLine()),
                                  static_cast<uint32_t>(e.at->getCharPositionInLine() + 1))
                        : SourceLoc{};
    diags.error(at, "nesting too deep: the program nests parentheses, blocks or statements "
                    "more deeply than kern compiles");
    return false;
  };
  auto *interp = parser.getInterpreter<antlr4::atn::ParserATNSimulator>();
  interp->setPredictionMode(antlr4::atn::PredictionMode::SLL);
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  try {
    tree = parser.translationUnit();
  } catch (antlr4::ParseCancellationException &) {
    tree = nullptr;
  } catch (const builder_detail::NestingTooDeep &e) {
    return tooDeep(e);
  }
  if (!tree) {
    tokens.seek(0);
    parser.reset();
    parser.typeNames = builtinTypeNames; // what the first attempt learnt is learnt again
    parser.templateNames.clear();
    parser.memberTemplateNames.clear();
    parser.nsStack.clear();
    parser.nsAliases.clear();
    parser.usingNamespaces.clear();
    parser.structStack.clear();
    parser.pendingTemplate = false;
    interp->setPredictionMode(antlr4::atn::PredictionMode::LL);
    parser.setErrorHandler(makeSyntaxErrorStrategy(src, diags));
    try {
      tree = parser.translationUnit();
    } catch (antlr4::ParseCancellationException &) {
      return false;
    } catch (const builder_detail::NestingTooDeep &e) {
      return tooDeep(e);
    }
  }
  Builder builder(src, tu, diags);
  builder.translationUnit(tree);
  return diags.errorCount() == errorsBefore;
}

} // namespace kern::frontend
