// `vector<vector<int>>`: C++11 reads the `>>` that ends two template argument lists as two `>`.
// The lexer makes one `>>` token of it (a shift); this pass splits it where it closes template
// argument lists, before the parser sees the tokens.
#include "frontend/template_closers.h"

#include "frontend/antlr_headers.h"

#include <set>
#include <string>

namespace kern::frontend {

namespace {

using P = kern_antlr::KernParser;

/// The names declared as templates: `template <...> struct|class NAME`, and the name a function
/// template's head ends with (`template <...> T NAME(`).
std::set<std::string> templateNames(const std::vector<antlr4::Token *> &all) {
  std::set<std::string> names;
  for (size_t i = 0; i + 1 < all.size(); ++i) {
    if (all[i]->getType() != P::Template || all[i + 1]->getType() != P::Less)
      continue;
    size_t k = i + 2;
    for (int depth = 1; k < all.size() && depth > 0; ++k) {
      size_t t = all[k]->getType();
      depth += t == P::Less ? 1 : t == P::Greater ? -1 : t == P::RightShift ? -2 : 0;
    }
    std::string last;
    for (; k < all.size(); ++k) {
      size_t t = all[k]->getType();
      if (t == P::Identifier)
        last = all[k]->getText();
      if (t == P::LeftBrace || t == P::Semi || t == P::LeftParen || t == P::Colon || t == P::Less ||
          t == P::Assign)
        break;
    }
    if (!last.empty())
      names.insert(last);
  }
  return names;
}

std::unique_ptr<antlr4::CommonToken> half(antlr4::Token *t, size_t offset) {
  auto c = std::make_unique<antlr4::CommonToken>(t);
  c->setType(P::Greater);
  c->setText(">");
  c->setStartIndex(t->getStartIndex() + offset);
  c->setStopIndex(t->getStartIndex() + offset);
  c->setCharPositionInLine(t->getCharPositionInLine() + offset);
  return c;
}

} // namespace

std::vector<std::unique_ptr<antlr4::Token>>
splitTemplateClosers(const std::vector<antlr4::Token *> &all) {
  const std::set<std::string> names = templateNames(all);
  std::vector<std::unique_ptr<antlr4::Token>> out;
  out.reserve(all.size());
  std::vector<char> open; // 'T' a template argument list, 'P' a bracket
  for (size_t i = 0; i < all.size(); ++i) {
    antlr4::Token *t = all[i];
    size_t k = t->getType();
    bool next = i + 1 < all.size() && all[i + 1]->getType() == P::Less;
    if (next && ((k == P::Identifier && names.count(t->getText())) || k == P::Template ||
                 k == P::CxxCast)) {
      out.push_back(std::make_unique<antlr4::CommonToken>(t));
      out.push_back(std::make_unique<antlr4::CommonToken>(all[++i]));
      open.push_back('T');
      continue;
    }
    if (k == P::LeftParen || k == P::LeftBracket || k == P::LeftBrace) {
      open.push_back('P');
    } else if (k == P::RightParen || k == P::RightBracket || k == P::RightBrace) {
      while (!open.empty() && open.back() == 'T')
        open.pop_back();
      if (!open.empty())
        open.pop_back();
    } else if (k == P::Semi) {
      while (!open.empty() && open.back() == 'T')
        open.pop_back();
    } else if (k == P::Greater && !open.empty() && open.back() == 'T') {
      open.pop_back();
    } else if (k == P::RightShift && !open.empty() && open.back() == 'T') {
      open.pop_back();
      if (!open.empty() && open.back() == 'T')
        open.pop_back();
      out.push_back(half(t, 0));
      out.push_back(half(t, 1));
      continue;
    }
    out.push_back(std::make_unique<antlr4::CommonToken>(t));
  }
  return out;
}

} // namespace kern::frontend
