// `#pragma pack` (see pp_pragma.h).
#include "frontend/pp_pragma.h"

#include <cstdlib>

namespace kern::frontend::pp_detail {

namespace {

/// A pack value: a power of two from 1 to 16, as GCC accepts; 0 when `t` is not one.
uint64_t packValue(const PPToken &t) {
  if (t.kind != TokKind::Number)
    return 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(t.text.c_str(), &end, 0);
  if (*end != '\0')
    return 0;
  return v == 1 || v == 2 || v == 4 || v == 8 || v == 16 ? v : 0;
}

} // namespace

bool packPragma(const std::vector<PPToken> &args, PackState &state, DiagnosticEngine &diags,
                SourceLoc at) {
  // The words between the parentheses, without the commas.
  std::vector<const PPToken *> words;
  bool closed = false;
  if (args.empty() || args[0].text != "(") {
    diags.warning(at, "missing '(' after '#pragma pack' - ignoring");
    return false;
  }
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i].text == ")") {
      closed = i + 1 == args.size();
      break;
    }
    bool comma = args[i].text == ",";
    if (comma != ((i % 2) == 0)) { // words at odd positions, commas between them
      closed = false;
      break;
    }
    if (!comma)
      words.push_back(&args[i]);
  }
  if (!closed) {
    diags.warning(at, "malformed '#pragma pack' - ignored");
    return false;
  }
  if (words.empty()) { // `pack()`: back to the natural alignment
    state.current = 0;
    return true;
  }
  const std::string &verb = words[0]->text;
  if (verb != "push" && verb != "pop") {
    uint64_t n = packValue(*words[0]);
    if (words.size() != 1 || n == 0) {
      diags.warning(at, "alignment must be a small power of two, not " + words[0]->text);
      return false;
    }
    state.current = n;
    return true;
  }
  std::string name;
  uint64_t n = 0;
  for (size_t i = 1; i < words.size(); ++i) {
    if (words[i]->kind == TokKind::Ident && name.empty() && i == 1) {
      name = words[i]->text;
    } else if ((n = packValue(*words[i])) == 0 || i + 1 != words.size()) {
      diags.warning(at, "alignment must be a small power of two, not " + words[i]->text);
      return false;
    }
  }
  if (verb == "push") {
    state.stack.emplace_back(name, state.current);
    if (n)
      state.current = n;
    return true;
  }
  // pop: to the newest push of `name` (the newest of all without a name).
  size_t k = state.stack.size();
  while (k > 0 && !name.empty() && state.stack[k - 1].first != name)
    --k;
  if (k == 0) {
    diags.warning(at, name.empty() ? "#pragma pack(pop) encountered without matching "
                                     "#pragma pack(push)"
                                   : "#pragma pack(pop, " + name + ") without a matching push");
    if (n)
      state.current = n;
    return n != 0;
  }
  state.current = state.stack[k - 1].second;
  state.stack.resize(k - 1);
  if (n)
    state.current = n;
  return true;
}

} // namespace kern::frontend::pp_detail
