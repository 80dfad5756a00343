// The AST builder's expressions: the operator ladder, casts, postfix and primary expressions, and
// the literals (numbers, characters, strings).
#include "frontend/ast_builder_impl.h"

#include "frontend/escapes.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace kern::frontend::builder_detail {

Expr *Builder::binary(BinaryOp op, Token *opTok, Expr *l, Expr *r) {
  Expr *e = makeExpr(ExprKind::Binary, loc(opTok));
  e->binaryOp = op;
  e->operands = {l, r};
  return e;
}

Expr *Builder::expression(P::ExpressionContext *ctx) {
  auto parts = ctx->assignmentExpression();
  Expr *e = assignment(parts[0]);
  auto commas = ctx->Comma();
  for (size_t k = 1; k < parts.size(); ++k)
    e = binary(BinaryOp::Comma, commas[k - 1]->getSymbol(), e, assignment(parts[k]));
  return e;
}

Expr *Builder::assignment(P::AssignmentExpressionContext *ctx) {
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

Expr *Builder::conditional(P::ConditionalExpressionContext *ctx) {
  Expr *c = chain(ctx->logicalOrExpression());
  if (!ctx->Question())
    return c;
  Expr *e = makeExpr(ExprKind::Conditional, loc(ctx->Question()));
  e->operands = {c, expression(ctx->expression()), assignment(ctx->assignmentExpression())};
  return e;
}

bool Builder::binaryOpFor(const std::string &t, BinaryOp &op) {
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

Expr *Builder::chain(ParserRuleContext *ctx) {
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

Expr *Builder::castExpression(P::CastExpressionContext *ctx) {
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

Expr *Builder::unaryOp(UnaryOp op, Token *t, Expr *operand) {
  Expr *e = makeExpr(ExprKind::Unary, loc(t));
  e->unaryOp = op;
  e->operands.push_back(operand);
  return e;
}

Expr *Builder::unary(P::UnaryExpressionContext *ctx) {
  if (auto *pf = ctx->postfixExpression())
    return postfix(pf);
  if (ctx->Sizeof() || ctx->Alignof()) { // alignof is sizeof's twin: the alignment instead
    if (auto *tn = ctx->typeName()) {
      Expr *e = makeExpr(ExprKind::SizeofType, loc(ctx));
      e->typeSyntax = typeName(tn);
      e->isAlignof = ctx->Alignof() != nullptr;
      return e;
    }
    Expr *e = makeExpr(ExprKind::SizeofExpr, loc(ctx));
    e->operands.push_back(unary(ctx->unaryExpression()));
    e->isAlignof = ctx->Alignof() != nullptr;
    return e;
  }
  if (auto *nx = ctx->newExpression()) {
    Expr *e = makeExpr(ExprKind::New, loc(nx->New()));
    if (auto *pl = nx->newPlacement()) {
      e->placementArgs = arguments(pl->argumentExpressionList());
      e->placement = e->placementArgs[0];
    }
    e->globalNew = nx->ColonColon() != nullptr;
    Specs s = specs(nx->declarationSpecifiers());
    e->typeSyntax = tu_.make<TypeSyntax>(s.base);
    for (auto *op : nx->pointerOp()) {
      TypeOp p;
      p.isConst = !op->typeQualifier().empty();
      e->typeSyntax->ops.push_back(p);
    }
    if (auto *n = nx->expression()) {
      e->isArrayForm = true;
      e->operands.push_back(expression(n));
    }
    if (nx->LeftParen()) {
      e->newInit = 1;
      e->args = arguments(nx->argumentExpressionList());
    } else if (nx->LeftBrace()) {
      e->newInit = 2;
      Expr *list = makeExpr(ExprKind::InitList, loc(nx->LeftBrace()));
      if (auto *il = nx->initializerList())
        initializerList(il, list);
      e->args.push_back(list);
    }
    return e;
  }
  if (ctx->Delete()) {
    Expr *e = makeExpr(ExprKind::Delete, loc(ctx->Delete()));
    e->isArrayForm = ctx->LeftBracket() != nullptr;
    e->globalNew = ctx->ColonColon() != nullptr;
    e->operands.push_back(castExpression(ctx->castExpression()));
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

std::vector<Expr *> Builder::arguments(P::ArgumentExpressionListContext *ctx) {
  std::vector<Expr *> out;
  if (ctx)
    for (auto *a : ctx->assignmentExpression())
      out.push_back(assignment(a));
  return out;
}

Expr *Builder::postfix(P::PostfixExpressionContext *ctx) {
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
    } else if (!sfx->Identifier().empty()) {
      Expr *m = makeExpr(ExprKind::Member, loc(sfx->Identifier().back()));
      m->operands.push_back(e);
      for (auto *id : sfx->Identifier()) // `p->Base::f`: the member named through a base
        m->name += (m->name.empty() ? "" : "::") + id->getText();
      m->isArrow = sfx->Arrow() != nullptr;
      if (auto *ta = sfx->memberTemplateArguments()) { // `obj.get<float>(x)`
        m->hasTemplateArgs = true;
        for (auto *a : ta->templateArguments()->templateArgument())
          m->templateArgs.push_back(templateArgument(a));
      }
      e = m;
    } else {
      e = unaryOp(sfx->PlusPlus() ? UnaryOp::PostInc : UnaryOp::PostDec, sfx->getStart(), e);
    }
  }
  return e;
}

TemplateArg Builder::templateArgument(P::TemplateArgumentContext *ctx) {
  TemplateArg a;
  if (auto *t = ctx->typeName())
    a.type = typeName(t);
  else
    a.value = chain(ctx->shiftExpression());
  return a;
}

Expr *Builder::primary(P::PrimaryExpressionContext *ctx) {
  if (ctx->LeftBrace()) {
    // `P{1, 2}`, `Box<int>{3}`, `float{}`: a compound literal of the type, as `(P){1, 2}`.
    Expr *e = makeExpr(ExprKind::Cast, loc(ctx));
    auto *ts = e->typeSyntax = tu_.make<TypeSyntax>();
    ts->loc = loc(ctx);
    if (auto *kw = ctx->builtinTypeKeyword()) {
      ts->keywords.push_back(kw->getText() == "_Bool" ? "bool" : kw->getText());
    } else {
      std::string n = ctx->qualifiedId()->getText();
      if (auto *ta = ctx->templateArguments()) {
        ts->name = n;
        for (auto *a : ta->templateArgument())
          ts->templateArgs.push_back(templateArgument(a));
      } else if (structTags_.count(n) && !typedefNames_.count(n)) {
        ts->structName = n;
      } else {
        ts->name = n;
      }
    }
    Expr *list = makeExpr(ExprKind::InitList, loc(ctx->LeftBrace()));
    if (auto *il = ctx->initializerList())
      initializerList(il, list);
    e->operands.push_back(list);
    return e;
  }
  if (auto *id = ctx->qualifiedId()) {
    Expr *e = makeExpr(ExprKind::Ident, loc(id));
    e->name = id->getText();
    if (ctx->Less()) {
      e->hasTemplateArgs = true;
      for (auto *a : ctx->templateArgument())
        e->templateArgs.push_back(templateArgument(a));
      if (ctx->Identifier())
        e->instanceMember = ctx->Identifier()->getText();
    }
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
    e->text = ctx->CxxCast()->getText(); // reinterpret_cast does not adjust a base's pointer
    return e;
  }
  if (auto *cs = ctx->compoundStatement()) {
    Expr *e = makeExpr(ExprKind::StmtExpr, loc(ctx));
    e->body = compound(cs);
    return e;
  }
  if (auto *lx = ctx->lambdaExpression())
    return lambda(lx);
  return expression(ctx->expression()); // parentheses
}

Expr *Builder::intLiteral(TerminalNode *n) {
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

Expr *Builder::floatLiteral(TerminalNode *n) {
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

Expr *Builder::charLiteral(TerminalNode *n) {
  std::string text = n->getText();
  Expr *e = makeExpr(ExprKind::CharLit, loc(n));
  e->text = text;
  int64_t v = 0;
  if (!decodeCharBody(std::string_view(text).substr(1, text.size() - 2), v))
    error(e->loc, "multi-character character constants are not supported");
  e->intValue = static_cast<uint64_t>(v);
  return e;
}

Expr *Builder::stringLiteral(const std::vector<TerminalNode *> &parts) {
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

Expr *Builder::lambda(P::LambdaExpressionContext *ctx) {
  Expr *e = makeExpr(ExprKind::Lambda, loc(ctx));
  for (auto *c : ctx->lambdaCapture()) {
    if (c->Star()) {
      error(loc(c), "capturing '*this' in a lambda is not supported");
      continue;
    }
    if (!c->Identifier()) { // `&` or `=` alone
      if (e->captureDefault || !e->captures.empty())
        error(loc(c), "the default capture must come first, and only once");
      e->captureDefault = c->And() ? '&' : '=';
      continue;
    }
    LambdaCapture cap;
    cap.loc = loc(c->Identifier());
    cap.name = c->Identifier()->getText();
    cap.byReference = c->And() != nullptr;
    if (auto *init = c->assignmentExpression())
      cap.init = assignment(init);
    e->captures.push_back(cap);
  }
  auto *f = e->lambda = tu_.make<FunctionDecl>();
  f->loc = loc(ctx);
  f->isConstMethod = true;
  for (auto *sp : ctx->lambdaSpecifier()) {
    if (sp->Device())
      f->quals.device = true;
    else if (sp->Host())
      f->quals.host = true;
    else if (sp->Identifier()) // mutable
      f->isConstMethod = false;
  }
  if (auto *params = ctx->parameterTypeList()) {
    for (auto *pd : params->parameterDeclaration())
      for (auto *ds : pd->declarationSpecifiers()->declarationSpecifier())
        if (ds->typeSpecifier() && ds->typeSpecifier()->Auto()) {
          error(loc(ds), "generic lambdas (with 'auto' parameters) are not supported");
          return placeholder(loc(ctx));
        }
    parameters(params, f);
  }
  if (auto *ret = ctx->typeName())
    f->returnType = typeName(ret);
  ++functionDepth_;
  f->body = compound(ctx->compoundStatement());
  --functionDepth_;
  return e;
}

} // namespace kern::frontend::builder_detail
