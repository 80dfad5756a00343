// How the REPL shows a bare expression's value: its type from the checked AST, a store into
// the result slot, and the text of the value (a device pointer shows its first elements).
#include "engine/session_impl.h"

#include "frontend/ast.h"
#include "runtime/errors.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace kern {

namespace {

std::string formatScalar(frontend::TypeKind kind, uint64_t size, const uint8_t *p) {
  using K = frontend::TypeKind;
  char buf[64];
  switch (kind) {
  case K::Bool:
    return p[0] ? "true" : "false";
  case K::Float: {
    float f;
    std::memcpy(&f, p, 4);
    std::snprintf(buf, sizeof buf, "%.7g", f);
    return buf;
  }
  case K::Double: {
    double d;
    std::memcpy(&d, p, 8);
    std::snprintf(buf, sizeof buf, "%.15g", d);
    return buf;
  }
  case K::Pointer: {
    uint64_t v;
    std::memcpy(&v, p, 8);
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
  }
  default:
    break;
  }
  const bool isSigned = kind == K::Char || kind == K::SChar || kind == K::Short || kind == K::Int ||
                        kind == K::Long || kind == K::LongLong;
  int64_t s = 0;
  uint64_t u = 0;
  switch (size) {
  case 1:
    s = static_cast<int8_t>(p[0]);
    u = p[0];
    break;
  case 2: {
    int16_t v;
    std::memcpy(&v, p, 2);
    s = v;
    u = static_cast<uint16_t>(v);
    break;
  }
  case 4: {
    int32_t v;
    std::memcpy(&v, p, 4);
    s = v;
    u = static_cast<uint32_t>(v);
    break;
  }
  default:
    std::memcpy(&s, p, 8);
    std::memcpy(&u, p, 8);
  }
  std::string out = isSigned ? std::to_string(s) : std::to_string(u);
  if ((kind == K::Char || kind == K::SChar || kind == K::UChar) && u >= 32 && u < 127)
    out += std::string(" '") + static_cast<char>(u) + "'";
  return out;
}

/// Whether `e` is a cudaError_t, which the front end knows as an int: a runtime API call, a
/// call of a function declared to return one, an enumerator or a variable declared as one.
bool isCudaError(const frontend::Expr *e) {
  using K = frontend::ExprKind;
  if (!e || !e->type || e->type->kind != frontend::TypeKind::Int)
    return false;
  auto spelled = [](const frontend::TypeSyntax *t) {
    return t && t->name == "cudaError_t" && t->ops.empty();
  };
  if (e->kind == K::Call && !e->operands.empty() && e->operands[0]->kind == K::Ident) {
    const frontend::Expr *callee = e->operands[0];
    if (auto *f = dynamic_cast<const frontend::FunctionDecl *>(callee->decl))
      return spelled(f->returnType);
    return (callee->builtin >= 0 || e->builtin >= 0) && callee->name.rfind("cuda", 0) == 0;
  }
  if (e->kind == K::Ident) {
    if (e->isEnumConst)
      return e->name == "cudaSuccess" || e->name.rfind("cudaError", 0) == 0;
    if (auto *v = dynamic_cast<const frontend::VarDecl *>(e->decl))
      return spelled(v->typeSyntax);
  }
  return false;
}

} // namespace

/// The type of the probe's expression: the last statement of main before `return 0;`.
void Session::Impl::findValueType(const frontend::TranslationUnit &tu, ValueType &vt) {
  for (const frontend::Decl *d : tu.decls) {
    auto *f = dynamic_cast<const frontend::FunctionDecl *>(d);
    if (!f || f->name != "main" || !f->body || f->body->body.size() < 2)
      continue;
    const frontend::Stmt *s = f->body->body[f->body->body.size() - 2];
    if (s->kind != frontend::StmtKind::Expr || !s->expr || !s->expr->type)
      continue;
    const frontend::Type *t = s->expr->type;
    vt.found = true;
    vt.spelling = t->str();
    vt.kind = t->kind;
    vt.size = t->size();
    vt.isSigned = t->isSigned();
    vt.cudaError = isCudaError(s->expr);
    if ((t->isPointer() || t->isArray()) && t->elem) {
      vt.elemKind = t->elem->kind;
      vt.elemSize = t->elem->size();
      vt.elemSpelling = t->elem->str();
    }
  }
}

/// The statement that stores the expression's value in the result slot, in a type wide
/// enough for its kind; empty when the value is not shown (void, structs, functions).
std::string Session::Impl::storeStatement(const ValueType &vt, const std::string &expr) {
  std::string type;
  if (vt.kind == frontend::TypeKind::Float || vt.kind == frontend::TypeKind::Double)
    type = vt.kind == frontend::TypeKind::Float ? "float" : "double";
  else if (vt.kind >= frontend::TypeKind::Bool && vt.kind <= frontend::TypeKind::ULongLong)
    type = vt.isSigned || vt.kind == frontend::TypeKind::Bool ? "long long" : "unsigned long long";
  else if (vt.kind == frontend::TypeKind::Pointer || vt.kind == frontend::TypeKind::Array)
    type = "void *";
  else
    return "";
  return "*(" + type + " *)" + kResultVar + " = (" + type + ")(\n" + expr + "\n);";
}

/// "(float *) 0x... -> device [4 floats of 64]: {1, 2, 3, 4, ...}".
std::string Session::Impl::formatValue(const ValueType &vt) {
  const uint8_t *slot = reinterpret_cast<const uint8_t *>(rt->globalAddress(0));
  std::string out = "(" + vt.spelling + ") ";
  if (!slot)
    return out + "?";
  const bool pointer =
      vt.kind == frontend::TypeKind::Pointer || vt.kind == frontend::TypeKind::Array;
  const bool real = vt.kind == frontend::TypeKind::Float || vt.kind == frontend::TypeKind::Double;
  if (vt.cudaError) {
    int64_t code;
    std::memcpy(&code, slot, 8);
    const auto c = static_cast<int32_t>(code);
    return std::string("(cudaError_t) ") + runtime::errorName(c) + " (" + std::to_string(c) +
           (c == 0 ? ")" : std::string("): ") + runtime::errorString(c));
  }
  out += formatScalar(pointer ? frontend::TypeKind::Pointer : vt.kind, real ? vt.size : 8, slot);
  if (!pointer)
    return out;
  uint64_t addr;
  std::memcpy(&addr, slot, 8);
  const bool scalarElem =
      vt.elemSize > 0 && vt.elemSize <= 8 && vt.elemKind != frontend::TypeKind::Struct &&
      vt.elemKind != frontend::TypeKind::Array && vt.elemKind != frontend::TypeKind::Void;
  if (vt.kind == frontend::TypeKind::Array && scalarElem && vt.size >= vt.elemSize) {
    // A host array: its elements (the slot holds its address, as the array decays).
    const uint64_t count = vt.size / vt.elemSize;
    const char *chars = reinterpret_cast<const char *>(addr);
    if (vt.elemKind == frontend::TypeKind::Char && std::memchr(chars, 0, count)) {
      const std::string text(chars); // a C string: shown as one, quoted (up to 200 characters)
      return "(" + vt.spelling + ") \"" + text.substr(0, 200) +
             (text.size() > 200 ? "...\"" : "\"");
    }
    const uint64_t shown = std::min<uint64_t>(count, 16);
    out = "(" + vt.spelling + ") {";
    for (uint64_t i = 0; i < shown; ++i)
      out +=
          (i ? ", " : "") + formatScalar(vt.elemKind, vt.elemSize,
                                         reinterpret_cast<const uint8_t *>(addr + i * vt.elemSize));
    return out + (count > shown ? ", ...}" : "}");
  }
  const runtime::Allocation *a = rt->deviceMemory().find(addr);
  if (!a) {
    // A host string (`const char *`): its text, when it ends within the object it points into.
    const uint64_t room = rt->hostObjectRoom(addr);
    if ((vt.elemKind == frontend::TypeKind::Char || vt.elemKind == frontend::TypeKind::SChar ||
         vt.elemKind == frontend::TypeKind::UChar) &&
        room > 0) {
      const char *chars = reinterpret_cast<const char *>(addr);
      const size_t n = strnlen(chars, room);
      if (n < room)
        return out + " \"" + std::string(chars, std::min<size_t>(n, 200)) +
               (n > 200 ? "...\"" : "\"");
    }
    return out;
  }
  const uint64_t left = a->end() - addr;
  if (!scalarElem)
    return out + " (device, " + std::to_string(left) + " bytes to the end of its allocation)";
  const uint64_t count = left / vt.elemSize;
  const uint64_t shown = std::min<uint64_t>(count, 8);
  out += " (device, " + std::to_string(count) + " x " + vt.elemSpelling + ") {";
  for (uint64_t i = 0; i < shown; ++i) {
    // Device memory is this process's memory: reading it directly records no transfer.
    const auto *e = reinterpret_cast<const uint8_t *>(addr + i * vt.elemSize);
    out += (i ? ", " : "") + formatScalar(vt.elemKind, vt.elemSize, e);
  }
  return out + (count > shown ? ", ...}" : "}");
}

} // namespace kern
