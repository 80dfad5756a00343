// Spellings of the AST's operators, for diagnostics and dumps; what a declaration's syntax says
// of it (a copy constructor's or copy assignment's parameter).
#include "frontend/ast.h"

namespace kern::frontend {

const char *binaryOpSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Rem:
    return "%";
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  case BinaryOp::Lt:
    return "<";
  case BinaryOp::Gt:
    return ">";
  case BinaryOp::Le:
    return "<=";
  case BinaryOp::Ge:
    return ">=";
  case BinaryOp::Eq:
    return "==";
  case BinaryOp::Ne:
    return "!=";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::LogAnd:
    return "&&";
  case BinaryOp::LogOr:
    return "||";
  case BinaryOp::Assign:
    return "=";
  case BinaryOp::MulAssign:
    return "*=";
  case BinaryOp::DivAssign:
    return "/=";
  case BinaryOp::RemAssign:
    return "%=";
  case BinaryOp::AddAssign:
    return "+=";
  case BinaryOp::SubAssign:
    return "-=";
  case BinaryOp::ShlAssign:
    return "<<=";
  case BinaryOp::ShrAssign:
    return ">>=";
  case BinaryOp::AndAssign:
    return "&=";
  case BinaryOp::XorAssign:
    return "^=";
  case BinaryOp::OrAssign:
    return "|=";
  case BinaryOp::Comma:
    return ",";
  }
  return "?";
}

const char *unaryOpSpelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Plus:
    return "+";
  case UnaryOp::Minus:
    return "-";
  case UnaryOp::Not:
    return "!";
  case UnaryOp::BitNot:
    return "~";
  case UnaryOp::Deref:
    return "*";
  case UnaryOp::AddrOf:
    return "&";
  case UnaryOp::PreInc:
  case UnaryOp::PostInc:
    return "++";
  case UnaryOp::PreDec:
  case UnaryOp::PostDec:
    return "--";
  }
  return "?";
}

bool isAssignment(BinaryOp op) { return op >= BinaryOp::Assign && op <= BinaryOp::OrAssign; }

std::string shortClassName(const std::string &name) {
  std::string base = name.substr(0, name.find('<'));
  size_t cut = base.rfind("::");
  return cut == std::string::npos ? base : base.substr(cut + 2);
}

bool takesOwnClass(const FunctionDecl *f, const std::string &className) {
  if (!f->templateParams.empty() || f->params.empty())
    return false;
  // Past the object's own pointer, when sema has added it.
  size_t first = f->params[0]->name == "this" && !f->params[0]->typeSyntax ? 1 : 0;
  if (f->params.size() != first + 1)
    return false;
  const TypeSyntax *ts = f->params[first]->typeSyntax;
  if (!ts || !ts->keywords.empty() ||
      (!ts->ops.empty() && (ts->ops.size() != 1 || ts->ops[0].kind != TypeOp::Kind::Reference)))
    return false;
  const std::string &named = ts->name.empty() ? ts->structName : ts->name;
  return !named.empty() && shortClassName(named) == shortClassName(className);
}

} // namespace kern::frontend
