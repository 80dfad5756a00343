// The parser's helpers for type names (grammar/Kern.g4 declares them): C's typedef ambiguity
// is resolved with the names known to be types, which these record and look up.
#include "frontend/antlr_headers.h"

namespace kern_antlr {

void KernParser::noteMemberTypedefs(DeclarationSpecifiersContext *specs,
                                    const std::vector<StructDeclaratorContext *> &list) {
  if (!specifiersHaveTypedef(specs) || structStack.empty() || structStack.back().empty())
    return;
  for (auto *d : list) {
    if (!d->declarator())
      continue;
    std::string n = declaratorName(d->declarator());
    if (n.empty())
      continue;
    typeNames.insert(qualify(n));
    typeNames.insert(qualify(structStack.back() + "::" + n));
    noteTypeAlias(qualify(structStack.back() + "::" + n), specs);
  }
}

void KernParser::noteTypeAlias(const std::string &name, DeclarationSpecifiersContext *specs) {
  for (auto *s : specs->declarationSpecifier()) {
    auto *ts = s->typeSpecifier();
    if (!ts)
      continue;
    std::string target;
    if (auto *tn = ts->typedefName())
      target = foundTypeName(tn->qualifiedId()->getText() +
                             (tn->Identifier() ? "::" + tn->Identifier()->getText() : ""));
    else if (auto *ss = ts->structSpecifier(); ss && ss->Identifier())
      target = qualify(ss->Identifier()->getText());
    if (!target.empty() && target != name)
      typeAliases[name] = target;
    return;
  }
}

std::string KernParser::foundTypeName(const std::string &written, int depth) const {
  std::string s = written;
  const size_t cut = s.rfind("::");
  if (s.rfind("::", 0) == 0) {
    if (typeNames.count(s.substr(2)))
      return s.substr(2);
  } else {
    if (cut != std::string::npos)
      s = resolveNamespace(s.substr(0, cut)) + s.substr(cut);
    if (typeNames.count(s))
      return s;
    std::string ns = currentNamespace();
    while (!ns.empty()) {
      if (typeNames.count(ns + "::" + s))
        return ns + "::" + s;
      size_t c = ns.rfind("::");
      ns = c == std::string::npos ? "" : ns.substr(0, c);
    }
    for (auto &u : usingNamespaces)
      if (typeNames.count(u + "::" + s))
        return u + "::" + s;
  }
  if (cut != std::string::npos && cut != 0 && depth < 8) {
    std::string head = foundTypeName(written.substr(0, cut), depth + 1);
    auto a = typeAliases.find(head);
    if (a != typeAliases.end())
      return foundTypeName("::" + a->second + written.substr(cut), depth + 1);
  }
  return "";
}

} // namespace kern_antlr
