// Itanium C++ ABI mangling of plain function names (frontend/mangle.h): builtin types,
// pointers, references, const and named classes, with the ABI's substitutions.
#include "frontend/mangle.h"

#include <vector>

namespace kern::frontend {
namespace {

class Mangler {
public:
  /// Appends the encoding of `t` to `out`; false if this does not mangle it.
  bool type(const Type *t, bool isConst, std::string &out) {
    std::string key;
    return encode(t, isConst, out, key);
  }

private:
  std::vector<std::string> candidates_; // the ABI's substitution candidates, in order

  static const char *builtin(TypeKind k) {
    switch (k) {
    case TypeKind::Void:
      return "v";
    case TypeKind::Bool:
      return "b";
    case TypeKind::Char:
      return "c";
    case TypeKind::SChar:
      return "a";
    case TypeKind::UChar:
      return "h";
    case TypeKind::Short:
      return "s";
    case TypeKind::UShort:
      return "t";
    case TypeKind::Int:
      return "i";
    case TypeKind::UInt:
      return "j";
    case TypeKind::Long:
      return "l";
    case TypeKind::ULong:
      return "m";
    case TypeKind::LongLong:
      return "x";
    case TypeKind::ULongLong:
      return "y";
    case TypeKind::Float:
      return "f";
    case TypeKind::Double:
      return "d";
    default:
      return nullptr;
    }
  }

  /// `S_`, `S0_`, `S1_`... `SA_`: the reference to candidate `i`.
  static std::string substitution(size_t i) {
    if (i == 0)
      return "S_";
    std::string digits;
    for (size_t n = i - 1;; n /= 36) {
      const size_t d = n % 36;
      digits.insert(digits.begin(), static_cast<char>(d < 10 ? '0' + d : 'A' + d - 10));
      if (n < 36)
        break;
    }
    return "S" + digits + "_";
  }

  /// A substitutable component, whose full spelling is `key` and whose spelling with the
  /// substitutions of its parts is `spelled`: a reference to it if it was seen, else itself
  /// (then a candidate).
  void component(const std::string &key, const std::string &spelled, std::string &out) {
    for (size_t i = 0; i < candidates_.size(); ++i)
      if (candidates_[i] == key) {
        out += substitution(i);
        return;
      }
    out += spelled;
    candidates_.push_back(key);
  }

  /// Encodes `t` (const when `isConst`) into `out`, and its full spelling into `key`.
  bool encode(const Type *t, bool isConst, std::string &out, std::string &key) {
    if (!t)
      return false;
    std::string plainKey, plainOut; // the type without its const
    if (const char *b = builtin(t->kind)) {
      if (!isConst) {
        out += b;
        key += b;
        return true;
      }
      plainKey = plainOut = b;
    } else if (t->kind == TypeKind::Pointer) {
      std::string innerKey, innerOut;
      if (!encode(t->elem, t->pointeeConst, innerOut, innerKey))
        return false;
      const char *tag = t->isReference ? "R" : "P";
      std::string k = tag + innerKey;
      std::string o = tag + innerOut;
      if (!isConst) {
        component(k, o, out);
        key += k;
        return true;
      }
      // A const pointer parameter: top-level const is dropped by the caller; a const pointer
      // deeper down is K of the pointer.
      std::string ptrOut;
      component(k, o, ptrOut);
      plainKey = k;
      plainOut = ptrOut;
    } else if (t->kind == TypeKind::Struct && t->record) {
      const std::string &n = t->record->name;
      if (n.empty() || n.find_first_of(":<> ") != std::string::npos)
        return false;
      const std::string name = std::to_string(n.size()) + n;
      std::string named;
      component(name, name, named);
      if (!isConst) {
        out += named;
        key += name;
        return true;
      }
      plainKey = name;
      plainOut = named;
    } else {
      return false;
    }
    component("K" + plainKey, "K" + plainOut, out);
    key += "K" + plainKey;
    return true;
  }
};

} // namespace

std::string itaniumName(const FunctionDecl &f) {
  if (f.quals.externC || !f.templateParams.empty() || f.name.empty() ||
      f.name.find_first_of(":<> ~") != std::string::npos)
    return "";
  std::string out = "_Z" + std::to_string(f.name.size()) + f.name;
  if (f.params.empty())
    return out + "v";
  Mangler m;
  for (const VarDecl *p : f.params) {
    if (!p->type)
      return "";
    // Top-level const is not part of a parameter's type; arrays were adjusted to pointers.
    if (!m.type(p->type, false, out))
      return "";
  }
  return out;
}

} // namespace kern::frontend
