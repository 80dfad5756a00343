// The AST builder's declarations: declaration specifiers, struct and enum definitions,
// declarators, alignments and launch bounds, initialisers.
#include "frontend/ast_builder_impl.h"

#include "frontend/const_eval.h"

namespace kern::frontend::builder_detail {

std::vector<Decl *> Builder::declaration(P::DeclarationSpecifiersContext *specCtx,
                                         P::InitDeclaratorListContext *list, bool fileScope) {
  // `auto` declares variables whose type sema deduces from their initialisers. Elsewhere it is
  // reported, after the initialisers (`auto f = [](...) {...};` is reported as the lambda it is).
  Specs s = specs(specCtx, true);
  unsigned errorsBefore = diags_.errorCount();
  std::vector<Decl *> out = declarators(s, list, fileScope);
  if (s.autoLoc.isValid() && diags_.errorCount() == errorsBefore)
    for (Decl *d : out)
      if (d->kind == DeclKind::Function || d->kind == DeclKind::Typedef) {
        error(s.autoLoc, d->kind == DeclKind::Function ? "'auto' return types are not supported"
                                                       : "'auto' is not allowed in a typedef");
        break;
      }
  return out;
}

std::vector<Decl *> Builder::declarators(const Specs &s, P::InitDeclaratorListContext *list,
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
    // `union { int a; float b; };` in a function or namespace: C++'s anonymous union, whose
    // members would be variables of the scope.
    if (s.base.structDef && s.base.structDef->name.empty() && s.base.structDef->isUnion)
      error(s.base.structDef->loc, "anonymous unions outside a struct or union are not supported");
    return out;
  }
  for (auto *id : list->initDeclarator()) {
    DeclInfo d = declarator(id->declarator(), false);
    if (d.isOperator && !fileScope) {
      error(d.loc, "operators can only be declared at namespace scope or in a struct");
      continue;
    }
    if (d.ofClassTemplate && d.isFunction) { // a member function is only defined outside
      error(d.loc, "a member of a class template declared again outside its class ('" + d.name +
                       "'): only a definition may be written there");
      continue;
    }
    if (d.isFunction) {
      if (id->initializer() || id->argumentExpressionList() || id->LeftBrace())
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
      if (id->initializer() || id->argumentExpressionList() || id->LeftBrace())
        error(d.loc, "illegal initializer in a typedef");
      out.push_back(t);
      continue;
    }
    auto *v = tu_.make<VarDecl>();
    v->name = d.name;
    v->loc = d.loc;
    v->quals = s.quals;
    v->ofClassTemplate = d.ofClassTemplate; // `template <class T> int C<T>::count = 0;`
    v->classTemplateArgs = d.classTemplateArgs;
    if (d.restrict)
      v->quals.restrict = true;
    v->typeSyntax = tu_.make<TypeSyntax>(s.base);
    v->typeSyntax->ops = d.ops;
    if (auto *init = id->initializer()) {
      v->init = initializer(init);
    } else if (id->LeftBrace()) { // `T x{a, b}` as `T x = {a, b}`
      v->init = makeExpr(ExprKind::InitList, loc(id->LeftBrace()));
      if (auto *il = id->initializerList())
        initializerList(il, v->init);
    } else if (auto *args = id->argumentExpressionList())
      v->init = directInit(v->typeSyntax, args, d.loc);
    out.push_back(v);
  }
  return out;
}

Expr *Builder::directInit(const TypeSyntax *t, P::ArgumentExpressionListContext *args,
                          SourceLoc at) {
  std::vector<Expr *> a = arguments(args);
  std::string typeName = !t->name.empty() ? t->name : t->structName;
  if (!typeName.empty() && t->ops.empty()) {
    Expr *call = makeExpr(ExprKind::Call, at);
    Expr *callee = makeExpr(ExprKind::Ident, at);
    callee->name = typeName;
    callee->templateArgs = t->templateArgs; // `Box<int> b(7);`
    callee->hasTemplateArgs = !t->templateArgs.empty();
    call->operands.push_back(callee);
    call->args = std::move(a);
    return call;
  }
  if (a.size() == 1)
    return a[0];
  error(at, "excess elements in scalar initializer");
  return a.empty() ? nullptr : a[0];
}

Specs Builder::specs(P::DeclarationSpecifiersContext *ctx, bool deferAuto) {
  Specs s = readSpecs(ctx);
  if (!deferAuto && s.autoLoc.isValid()) {
    error(s.autoLoc, "'auto' is only supported for variables with an initializer");
    s.base.isAuto = false;
  }
  return s;
}

Specs Builder::readSpecs(P::DeclarationSpecifiersContext *ctx) {
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
      // Arguments that are not constants here (a template's parameters, `sizeof` of a class)
      // are evaluated by sema, where the function is analysed.
      auto exprs = lb->conditionalExpression();
      s.quals.launchBoundsMaxExpr = conditional(exprs[0]);
      if (exprs.size() > 1)
        s.quals.launchBoundsMinExpr = conditional(exprs[1]);
    } else if (auto *al = ds->alignSpecifier()) {
      s.quals.alignAs = alignment(al);
    } else if (auto *at = ds->attributeSpecifier()) {
      if (uint64_t a = attributeAlignment(at))
        s.quals.alignAs = a;
    } else if (auto *tq = ds->typeQualifier()) {
      typeQualifier(tq, s);
    } else if (ds->Identifier()) { // `virtual`
      s.isVirtual = true;
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

std::string Builder::spelling(antlr4::ParserRuleContext *ctx) {
  // The source text, spaces included (getText() joins the tokens without them).
  Token *start = ctx->getStart(), *stop = ctx->getStop();
  if (!start || !stop || stop->getStopIndex() < start->getStartIndex())
    return ctx->getText();
  return start->getInputStream()->getText(
      antlr4::misc::Interval(start->getStartIndex(), stop->getStopIndex()));
}

void Builder::checkSpecifierMix(P::DeclarationSpecifiersContext *ctx) {
  ParserRuleContext *named = nullptr;
  ParserRuleContext *other = nullptr;
  for (auto *ds : ctx->declarationSpecifier()) {
    auto *ts = ds->typeSpecifier();
    if (!ts)
      continue;
    bool isNamed = ts->structSpecifier() || ts->enumSpecifier() || ts->typedefName();
    if (isNamed && (named || other)) {
      error(loc(ts), "cannot combine with previous '" + spelling(named ? named : other) +
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
              "cannot combine with previous '" + spelling(named) + "' declaration specifier");
      }
      return;
    }
    (isNamed ? named : other) = ts;
  }
}

void Builder::typeQualifier(P::TypeQualifierContext *tq, Specs &s) {
  if (tq->Const())
    s.base.isConst = true;
  else if (tq->Volatile())
    s.base.isVolatile = true;
  else
    s.quals.restrict = true;
}

void Builder::typeSpecifier(P::TypeSpecifierContext *ts, Specs &s) {
  if (auto *st = ts->structSpecifier()) {
    structSpecifier(st, s);
  } else if (auto *en = ts->enumSpecifier()) {
    enumSpecifier(en, s);
  } else if (auto *tn = ts->typedefName()) {
    std::string n = tn->qualifiedId()->getText();
    if (tn->Typename() && !tn->templateArguments()) // `typename T::value_type`
      n += "::" + tn->Identifier()->getText();
    if (auto *ta = tn->templateArguments()) { // `SharedMemory<T>`: a class template's instance
      s.base.name = n;
      for (auto *a : ta->templateArgument())
        s.base.templateArgs.push_back(templateArgument(a));
      if (tn->Identifier())
        s.base.memberType = tn->Identifier()->getText();
      return;
    }
    // As in C++ (CUDA's language), a struct or enum tag names its type without `struct`.
    if (structTags_.count(n) && !typedefNames_.count(n))
      s.base.structName = n;
    else if (enumTags_.count(n) && !typedefNames_.count(n))
      s.base.enumName = n;
    else
      s.base.name = n;
  } else if (ts->Decltype()) {
    s.base.decltypeExpr = expression(ts->expression());
  } else if (ts->Auto()) {
    s.autoLoc = loc(ts);
    s.base.isAuto = true;
    s.base.keywords.push_back("int"); // what an unsupported use resolves to, once reported
  } else {
    std::string kw = ts->getText();
    if (kw == "_Bool")
      kw = "bool";
    else if (kw == "__signed__")
      kw = "signed";
    s.base.keywords.push_back(kw);
  }
}

uint64_t Builder::alignment(P::AlignSpecifierContext *al) {
  return static_cast<uint64_t>(constantArg(al->conditionalExpression(), "__align__"));
}

uint64_t Builder::attributeAlignment(P::AttributeSpecifierContext *at) {
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

int64_t Builder::constantArg(P::ConditionalExpressionContext *c, const char *what) {
  Expr *e = conditional(c);
  int64_t v = 0;
  if (!foldInt(e, v) || v < 0) {
    error(e->loc, std::string("argument of ") + what + " must be a non-negative integer constant");
    return 0;
  }
  return v;
}

void Builder::structSpecifier(P::StructSpecifierContext *ctx, Specs &s) {
  TerminalNode *id = ctx->Identifier();
  std::string name = id ? id->getText() : "";
  SourceLoc at = id ? loc(id) : loc(ctx);
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
  if (auto *ta = ctx->templateArguments())
    for (auto *a : ta->templateArgument())
      sd->specializationArgs.push_back(templateArgument(a));
  sd->name = functionDepth_ == 0 && !name.empty() ? qualify(name) : name;
  sd->ns = functionDepth_ == 0 ? currentNamespace() : "";
  // A struct defined in a struct S is S's member `S::N`; names in it are looked up in S.
  StructDecl *outer = functionDepth_ == 0 && !name.empty() && !structStack_.empty() &&
                              !structStack_.back()->name.empty()
                          ? structStack_.back()
                          : nullptr;
  if (outer) {
    sd->name = outer->name + "::" + name;
    sd->ns = outer->name;
  }
  sd->loc = at;
  sd->isDefinition = true;
  sd->quals.alignAs = align;
  sd->isUnion = ctx->Union() != nullptr;
  sd->pack = src_.packAt(static_cast<uint32_t>(ctx->getStart()->getLine()));
  // `__attribute__((packed))` aligns every member to 1 byte, as `#pragma pack(1)` does.
  for (auto *attr : ctx->attributeSpecifier())
    for (auto *item : attr->attributeItem())
      if (item->Identifier()->getText() == "packed" ||
          item->Identifier()->getText() == "__packed__")
        sd->pack = 1;
  if (!name.empty())
    structTags_.insert(name); // visible to its own fields: `struct node *next;`
  if (auto *bc = ctx->baseClause())
    for (auto *b : bc->baseSpecifier()) {
      StructDecl::Base base;
      base.loc = loc(b->qualifiedId());
      for (auto *word : b->Identifier())
        base.isVirtual |= word->getText() == "virtual";
      base.typeSyntax = tu_.make<TypeSyntax>();
      base.typeSyntax->loc = base.loc;
      std::string n = b->qualifiedId()->getText();
      if (structTags_.count(n) && !typedefNames_.count(n) && !b->templateArguments())
        base.typeSyntax->structName = n;
      else
        base.typeSyntax->name = n;
      if (auto *ta = b->templateArguments())
        for (auto *a : ta->templateArgument())
          base.typeSyntax->templateArgs.push_back(templateArgument(a));
      sd->bases.push_back(base);
    }
  std::vector<StaticAssertDecl *> outerAsserts = std::move(structAsserts_);
  structAsserts_.clear();
  bool outerPublic = publicAccess_;
  publicAccess_ = !ctx->Class(); // a class's members are private until `public:`
  structStack_.push_back(sd);
  nestedDefinitions_.emplace_back();
  for (auto *fd : ctx->structDeclaration())
    structFields(fd, sd);
  std::vector<Decl *> nested = std::move(nestedDefinitions_.back());
  nestedDefinitions_.pop_back();
  structStack_.pop_back();
  publicAccess_ = outerPublic;
  s.base.structDef = sd;
  // A nested struct is defined with its struct (before its fields, which may name it); what
  // follows it goes after the outermost struct.
  std::vector<Decl *> &out = outer ? nestedDefinitions_.back() : s.definitions;
  if (outer) {
    outer->nestedStructs.push_back(sd);
    outer->nestedStructAt.push_back(outer->fields.size());
  } else
    s.definitions.push_back(sd);
  // A static_assert in a struct is checked after it, with names looked up in it.
  for (StaticAssertDecl *sa : structAsserts_) {
    sa->owner = sd;
    sa->ns = sd->name;
    out.push_back(sa);
  }
  structAsserts_ = std::move(outerAsserts);
  out.insert(out.end(), nested.begin(), nested.end());
  // The member functions follow the struct as namespace-scope functions named `S::f`: first
  // every one declared (a body may call a member defined after it), then the bodies.
  for (FunctionDecl *m : sd->methods) {
    if (!m->templateParams.empty())
      continue;     // a member template is declared by its definition
    if (!m->body) { // declared only: the declaration itself (virtual calls look at it)
      out.push_back(m);
      continue;
    }
    auto *proto = tu_.make<FunctionDecl>(*m);
    proto->body = nullptr;
    proto->params.clear();
    for (VarDecl *p : m->params)
      proto->params.push_back(tu_.make<VarDecl>(*p));
    out.push_back(proto);
  }
  for (FunctionDecl *m : sd->methods)
    if (m->body || !m->templateParams.empty()) // a member template declared only too
      out.push_back(m);
}

void Builder::memberFunction(P::StructDeclarationContext *ctx, StructDecl *sd, const Specs &fs,
                             const DeclInfo &d, Stmt *body) {
  if (functionDepth_ > 0) {
    error(d.loc, "member functions of a struct defined inside a function are not supported");
    return;
  }
  if (sd->name.empty()) {
    error(d.loc, "member functions of an unnamed struct are not supported");
    return;
  }
  (void)ctx;
  FunctionDecl *f = functionDecl(fs, d);
  if (d.conversionType) {
    f->returnType = d.conversionType;
    f->isConversion = true;
  }
  f->name = sd->name + "::" + d.name;
  f->ns = sd->name;
  f->owner = sd;
  f->isConstMethod = d.isConstMethod;
  f->isVirtual = fs.isVirtual;
  f->isPure = d.isPure;
  f->isDeleted = d.isDeleted;
  f->isDefaulted = d.isDefaulted;
  if (d.isDefaulted) {
    // `S &operator=(const S &) = default;` is the copy assignment C++ declares implicitly: left
    // to sema (sema_copies.cpp), as a defaulted copy constructor is.
    if (d.name == "operator=" && takesOwnClass(f, sd->name))
      return;
    error(d.loc, "'= default' is supported for constructors, destructors and the copy "
                 "assignment operator, not for '" +
                     d.name + "'");
    return;
  }
  // A class's operator new and operator delete are static members, `static` or not (C++).
  f->isStaticMember = fs.quals.isStatic || d.name.rfind("operator new", 0) == 0 ||
                      d.name.rfind("operator delete", 0) == 0;
  f->quals.isStatic = false;
  f->quals.isInline |= body != nullptr; // defined in its class: inline, as C++ makes it
  f->body = body;
  sd->methods.push_back(f);
}

void Builder::structFields(P::StructDeclarationContext *ctx, StructDecl *sd) {
  if (auto *sa = ctx->staticAssertDeclaration()) {
    structAsserts_.push_back(staticAssert(sa));
    return;
  }
  if (auto *cd = ctx->constructorDeclaration()) {
    SourceLoc at = loc(cd->Identifier());
    bool noParameters = !cd->parameterTypeList() || cd->parameterTypeList()->getText() == "void";
    bool defaulted = cd->Default() != nullptr; // `~S() = default;`, `S() = default;`
    if (cd->Tilde() && (!noParameters || cd->constructorInitializer())) {
      error(at, "a destructor takes no parameters");
      return;
    }
    if (cd->Tilde()) { // `~S() {...}` (or `~S();`, defined after S): run where an S's life ends
                       // (sema_destructors.cpp)
      FunctionDecl *f =
          constructor(cd->constructorSpecifier(), nullptr, nullptr, cd->compoundStatement(), at);
      f->isConstructor = false;
      f->isDestructor = true;
      if (defaulted)
        f->body = makeStmt(StmtKind::Compound, at);
      f->name = sd->name + "::~" + cd->Identifier()->getText();
      f->ns = sd->name;
      f->owner = sd;
      f->quals.isInline = true;
      sd->methods.push_back(f);
      return;
    }
    if (functionDepth_ > 0 || sd->name.empty()) {
      error(at, "constructors of a local or unnamed struct are not supported");
      return;
    }
    FunctionDecl *f = constructor(cd->constructorSpecifier(), cd->parameterTypeList(),
                                  cd->constructorInitializer(), cd->compoundStatement(), at);
    // `S(const S &) = default;` is the copy constructor C++ declares implicitly: left to sema,
    // which makes it member-wise where a member or base needs its own (sema_copies.cpp).
    if (defaulted && takesOwnClass(f, sd->name))
      return;
    if (defaulted && !f->body)
      f->body = makeStmt(StmtKind::Compound, at);
    f->isDefaulted = defaulted;
    f->isDeleted = cd->Delete() != nullptr;
    std::string shortName = cd->Identifier()->getText();
    f->name = sd->name + "::" + shortName;
    f->ns = sd->name;
    f->owner = sd;
    f->quals.isInline |= f->body != nullptr;
    sd->methods.push_back(f);
    return;
  }
  if (!ctx->declarationSpecifiers() && !ctx->declarator()) { // public: / private: / protected:
    if (ctx->Identifier())
      publicAccess_ = ctx->Identifier()->getText() == "public";
    return;
  }
  if (ctx->Template() && !ctx->declarator()) { // a member class template
    size_t before = sd->nestedStructs.size();
    Specs fs = specs(ctx->declarationSpecifiers());
    if (sd->nestedStructs.size() == before || fs.base.structDef != sd->nestedStructs.back()) {
      error(loc(ctx), !fs.base.structName.empty()
                          ? "a member class template declared in its class and defined outside "
                            "it ('" +
                                fs.base.structName + "') is not supported yet"
                          : "only member function and class templates are supported in a struct");
      return;
    }
    // Defined only when instantiated: its member functions (and those of structs in it) stay
    // with it.
    StructDecl *inner = sd->nestedStructs.back();
    inner->isTemplate = true;
    inner->templateParams = templateParameters(ctx->templateParameter());
    std::vector<Decl *> &after = nestedDefinitions_.back();
    after.erase(
        std::remove_if(after.begin(), after.end(), [&](Decl *d) { return ownedBy(d, inner); }),
        after.end());
    return;
  }
  if (ctx->Template()) { // a member function template
    Specs fs = specs(ctx->declarationSpecifiers());
    DeclInfo d = declarator(ctx->declarator(), false);
    if (!d.isFunction) {
      error(d.loc,
            "only member function templates are supported in a struct, not '" + d.name + "'");
      return;
    }
    // Declared only: defined outside the class, `template <class U> void S::f(U u) {...}`.
    Stmt *body = nullptr;
    if (ctx->compoundStatement()) {
      ++functionDepth_;
      body = compound(ctx->compoundStatement());
      --functionDepth_;
    }
    size_t before = sd->methods.size();
    memberFunction(ctx, sd, fs, d, body);
    if (sd->methods.size() > before)
      sd->methods.back()->templateParams = templateParameters(ctx->templateParameter());
    return;
  }
  if (ctx->compoundStatement()) {
    Specs fs = ctx->declarationSpecifiers() ? specs(ctx->declarationSpecifiers()) : Specs{};
    DeclInfo d = declarator(ctx->declarator(), false);
    if (!d.isFunction) {
      error(d.loc, "expected a function declarator before the body of '" + d.name + "'");
      return;
    }
    ++functionDepth_;
    Stmt *body = compound(ctx->compoundStatement());
    --functionDepth_;
    memberFunction(ctx, sd, fs, d, body);
    return;
  }
  Specs fs = specs(ctx->declarationSpecifiers());
  if (fs.isTypedef) { // a member type, `typedef T value_type;`
    for (auto *sdc : ctx->structDeclarator()) {
      if (!sdc->declarator())
        continue;
      DeclInfo d = declarator(sdc->declarator(), false);
      StructDecl::Field f;
      f.loc = d.loc;
      f.name = d.name;
      f.typeSyntax = tu_.make<TypeSyntax>(fs.base);
      f.typeSyntax->ops = d.ops;
      f.isTypedef = true;
      sd->fields.push_back(f);
    }
    return;
  }
  bool anyFunction = false;
  for (auto *sdc : ctx->structDeclarator()) {
    if (!sdc->declarator())
      continue;
    DeclInfo d = declarator(sdc->declarator(), false);
    if (d.isFunction) {
      d.isPure = sdc->initializer() != nullptr; // `virtual void f() = 0;`
      d.isDefaulted = sdc->Default() != nullptr;
      d.isDeleted = sdc->Delete() != nullptr;
      memberFunction(ctx, sd, fs, d, nullptr);
      anyFunction = true;
    }
  }
  if (anyFunction)
    return;
  if (fs.quals.isStatic) { // `static const int n = 4;`: a constant of the struct
    for (auto *sdc : ctx->structDeclarator()) {
      if (!sdc->declarator())
        continue;
      DeclInfo d = declarator(sdc->declarator(), false);
      StructDecl::Field f;
      f.loc = d.loc;
      f.name = d.name;
      f.typeSyntax = tu_.make<TypeSyntax>(fs.base);
      f.typeSyntax->ops = d.ops;
      f.isStatic = true;
      if (sdc->initializer())
        f.init = initializer(sdc->initializer());
      sd->fields.push_back(f);
    }
    return;
  }
  if (fs.quals.shared || fs.quals.constant || fs.quals.global || fs.quals.device)
    error(loc(ctx), "storage qualifiers are not allowed on struct fields");
  auto decls = ctx->structDeclarator();
  if (decls.empty() && fs.base.structDef && fs.base.structDef->name.empty()) {
    // An anonymous struct or union member: `union { float4 v; float a[4]; };`.
    StructDecl::Field f;
    f.loc = fs.base.structDef->loc;
    f.typeSyntax = tu_.make<TypeSyntax>(fs.base);
    f.isAnonymous = true;
    sd->fields.push_back(f);
    sd->hasNonPublicFields |= !publicAccess_;
    return;
  }
  if (decls.empty() && !fs.base.structDef && fs.base.enumDef == nullptr)
    error(loc(ctx), "declaration does not declare anything");
  if (fs.base.enumDef != nullptr) {
    sd->nestedEnums.push_back(fs.base.enumDef);
    sd->nestedEnumAt.push_back(sd->fields.size());
  }
  for (auto *sdc : decls) {
    if (sdc->Colon()) {
      error(loc(sdc->Colon()), "bit-fields are not supported");
      continue;
    }
    if (sdc->Default() || sdc->Delete()) {
      error(loc(sdc), "only functions can be defaulted or deleted");
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
    if (sdc->initializer()) // a default member initializer: `int n = 4;`
      f.init = initializer(sdc->initializer());
    sd->fields.push_back(f);
    sd->hasNonPublicFields |= !publicAccess_;
  }
}

void Builder::enumSpecifier(P::EnumSpecifierContext *ctx, Specs &s) {
  TerminalNode *id = ctx->Identifier();
  std::string name = id ? id->getText() : "";
  if (!name.empty())
    enumTags_.insert(name);
  s.base.enumName = name;
  if (!ctx->LeftBrace())
    return;
  auto *ed = tu_.make<EnumDecl>();
  ed->name = name;
  ed->isScoped = ctx->Class() || ctx->Struct();
  if (auto *u = ctx->declarationSpecifiers())
    ed->underlying = tu_.make<TypeSyntax>(specs(u).base);
  if (ed->isScoped && name.empty())
    error(loc(ctx), "a scoped enumeration needs a name");
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

DeclInfo Builder::declarator(P::DeclaratorContext *ctx, bool nested) {
  DeclInfo d;
  declaratorInto(ctx, d, nested);
  return d;
}

void Builder::pointerOps(const std::vector<P::PointerOpContext *> &ptrs, DeclInfo &d) {
  for (auto *p : ptrs) {
    if (p->AndAnd()) {
      error(loc(p), "rvalue references are not supported");
      continue;
    }
    TypeOp op;
    op.kind = p->Star() ? TypeOp::Kind::Pointer : TypeOp::Kind::Reference;
    for (auto *q : p->typeQualifier()) {
      if (q->Const())
        op.isConst = true;
      else if (q->Restrict())
        d.restrict = true;
    }
    d.ops.push_back(op);
  }
}

void Builder::declaratorInto(P::DeclaratorContext *ctx, DeclInfo &d, bool nested) {
  pointerOps(ctx->pointerOp(), d);
  auto *dd = ctx->directDeclarator();
  // `operator T *()`: named by the type as written; its result is that type.
  auto conversion = [&](P::ConversionTypeContext *ct, TerminalNode *op) {
    Specs cs = specs(ct->declarationSpecifiers());
    DeclInfo ptrs;
    pointerOps(ct->pointerOp(), ptrs);
    d.conversionType = tu_.make<TypeSyntax>(cs.base);
    d.conversionType->ops = ptrs.ops;
    d.loc = loc(op);
    d.isOperator = true;
    return "operator " + spelling(ct);
  };
  if (auto *q = dd->qualifiedId()) {
    d.name = q->getText();
    d.loc = loc(q->Identifier().back());
    std::vector<TemplateArg> args;
    if (auto *ta = dd->templateArguments())
      for (auto *a : ta->templateArgument())
        args.push_back(templateArgument(a));
    if (auto *cm = dd->classTemplateMember()) { // `C<T>::f`: the member f of class template C
      d.ofClassTemplate = true;
      d.classTemplateArgs = args;
      if (cm->conversionType()) {
        d.name += "::" + conversion(cm->conversionType(), cm->Operator());
      } else if (cm->Operator()) {
        d.name += "::operator" + cm->operatorName()->getText();
        d.loc = loc(cm->Operator());
        d.isOperator = true;
      } else {
        d.name += "::" + cm->Identifier().back()->getText();
        d.loc = loc(cm->Identifier().back());
      }
      if (cm->Identifier().size() > (cm->Operator() ? 0u : 1u))
        error(loc(cm->Identifier().front()),
              "a member of a class nested in a class template, defined outside it ('" +
                  q->getText() + "<...>::" + cm->Identifier().front()->getText() +
                  "::...'), is not supported yet");
    } else {
      d.templateArgs = args;
    }
  } else if (dd->Operator() && dd->conversionType()) {
    d.name = conversion(dd->conversionType(), dd->Operator());
  } else if (dd->Operator()) {
    auto *on = dd->operatorName();
    d.name = on->New() || on->Delete() // `operator new[]`, spelt as C++ names it
                 ? std::string("operator ") + (on->New() ? "new" : "delete") +
                       (on->LeftBracket() ? "[]" : "")
                 : "operator" + on->getText();
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
    // of a plain name; anything else makes a function type (`(*p)(int)`: pointer to one).
    if (k != 0 || nested || dd->declarator()) {
      d.ops.push_back(functionOp(sfx->parameterTypeList(), loc(sfx)));
      continue;
    }
    d.isFunction = true;
    d.params = sfx->parameterTypeList();
    for (auto *q : sfx->typeQualifier())
      if (q->Const())
        d.isConstMethod = true;
  }
  if (auto *inner = dd->declarator()) {
    declaratorInto(inner, d, true);
  }
  if (d.loc.line == 0)
    d.loc = loc(ctx);
}

TypeOp Builder::functionOp(P::ParameterTypeListContext *ctx, SourceLoc at) {
  TypeOp op;
  op.kind = TypeOp::Kind::Function;
  op.loc = at;
  op.emptyList = !ctx;
  if (!ctx)
    return op;
  FunctionDecl scratch;
  parameters(ctx, &scratch);
  op.variadic = scratch.variadic;
  for (VarDecl *p : scratch.params)
    op.params.push_back(p->typeSyntax);
  return op;
}

std::vector<TypeOp> Builder::abstractDeclarator(P::AbstractDeclaratorContext *ctx) {
  DeclInfo d;
  abstractInto(ctx, d);
  return d.ops;
}

void Builder::abstractInto(P::AbstractDeclaratorContext *ctx, DeclInfo &d) {
  pointerOps(ctx->pointerOp(), d);
  auto *dad = ctx->directAbstractDeclarator();
  if (!dad)
    return;
  auto suffixes = dad->abstractSuffix();
  for (size_t k = suffixes.size(); k-- > 0;) {
    auto *sfx = suffixes[k];
    if (!sfx->LeftBracket()) {
      d.ops.push_back(functionOp(sfx->parameterTypeList(), loc(sfx)));
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

TypeSyntax *Builder::typeName(P::TypeNameContext *ctx) {
  Specs s = specs(ctx->declarationSpecifiers());
  auto *t = tu_.make<TypeSyntax>(s.base);
  if (auto *ad = ctx->abstractDeclarator())
    t->ops = abstractDeclarator(ad);
  return t;
}

Expr *Builder::initializer(P::InitializerContext *ctx) {
  if (auto *a = ctx->assignmentExpression())
    return assignment(a);
  Expr *list = makeExpr(ExprKind::InitList, loc(ctx));
  if (auto *il = ctx->initializerList())
    initializerList(il, list);
  return list;
}

void Builder::initializerList(P::InitializerListContext *ctx, Expr *list) {
  for (auto *di : ctx->designatedInitializer()) {
    if (!di->designator().empty())
      error(loc(di), "designated initializers are not supported");
    list->operands.push_back(initializer(di->initializer()));
  }
}

} // namespace kern::frontend::builder_detail
