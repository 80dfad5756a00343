// Completion at the REPL's prompt (Session::completions): meta-commands and their arguments
// (device names, modes, kernels, file names), the members of a variable's struct or vector type
// after `.` or `->`, and otherwise built-in functions, keywords, types and the session's names.
// What it knows of the session's variables and types comes from the last compile's checked AST
// (collectCompletionInfo).
#include "engine/session_impl.h"

#include "frontend/ast.h"
#include "runtime/device.h"

#include <filesystem>
#include <system_error>

namespace kern {

namespace {

const char *const kMetaCommands[] = {":help",     ":device", ":mode", ":stats",
                                     ":annotate", ":emit",   ":load", ":include-path",
                                     ":source",   ":reset",  ":quit", ":timeout"};

const char *const kBuiltinNames[] = {
#define KERN_BUILTIN(name, signature, side) name,
#include "frontend/builtins.def"
#undef KERN_BUILTIN
};

const char *const kWords[] = {"__global__",
                              "__device__",
                              "__host__",
                              "__shared__",
                              "__constant__",
                              "__syncthreads",
                              "threadIdx",
                              "blockIdx",
                              "blockDim",
                              "gridDim",
                              "warpSize",
                              "struct",
                              "typedef",
                              "return",
                              "unsigned",
                              "float",
                              "double",
                              "int",
                              "char",
                              "long",
                              "short",
                              "bool",
                              "void",
                              "const",
                              "size_t",
                              "dim3",
                              "sizeof",
                              "for",
                              "while",
                              "if",
                              "else",
                              "cudaMemcpyHostToDevice",
                              "cudaMemcpyDeviceToHost",
                              "cudaMemcpyDeviceToDevice",
                              "cudaSuccess"};

const char *const kModes[] = {"fast", "profile", "checked"};
const char *const kEmitKinds[] = {"ir", "llvm", "asm"};

/// The last whitespace-separated token of `s` (empty when `s` ends with white space).
std::string lastToken(std::string_view s) {
  size_t i = s.size();
  while (i > 0 && !std::isspace(static_cast<unsigned char>(s[i - 1])))
    --i;
  return std::string(s.substr(i));
}

/// The words of `s` split at white space.
std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
      ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j])))
      ++j;
    if (j > i)
      out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// A type's spelling without one trailing `*` (what `->` reaches), or "" if it is no pointer.
std::string pointee(const std::string &spelling) {
  std::string t = spelling;
  while (!t.empty() && t.back() == ' ')
    t.pop_back();
  if (t.empty() || t.back() != '*')
    return "";
  t.pop_back();
  while (!t.empty() && t.back() == ' ')
    t.pop_back();
  return t;
}

/// The file names in the directory of `path`'s last part that start with its basename, each
/// as the basename (what the prompt replaces); directories end with '/'.
std::vector<std::string> fileNames(const std::string &path, std::string_view word) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir.empty() ? "/" : dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.compare(0, word.size(), word) != 0 || (name[0] == '.' && word.empty()))
      continue;
    std::error_code dirError;
    if (it->is_directory(dirError))
      name += '/';
    out.push_back(name);
  }
  return out;
}

} // namespace

void Session::Impl::collectCompletionInfo(const frontend::TranslationUnit &tu) {
  CompletionInfo info;
  std::function<void(const frontend::Type *)> addType = [&](const frontend::Type *t) {
    while (t && (t->isPointer() || t->isArray()))
      t = t->elem;
    if (!t || !t->isStruct() || !t->record)
      return;
    const std::string key = t->str();
    if (info.members.count(key))
      return;
    auto &fields = info.members[key];
    for (const frontend::StructField &f : t->record->fields)
      if (!f.name.empty() && f.name[0] != '<' && f.type)
        fields.emplace_back(f.name, f.type->str());
    for (const frontend::StructField &f : t->record->fields)
      addType(f.type);
  };
  for (const frontend::Decl *d : tu.decls) {
    if (auto *v = dynamic_cast<const frontend::VarDecl *>(d); v && v->type && v->isGlobalScope) {
      info.varTypes[v->name] = v->type->str();
      addType(v->type);
    } else if (auto *f = dynamic_cast<const frontend::FunctionDecl *>(d); f && f->quals.global) {
      info.kernels.insert(f->name);
    }
  }
  completion = std::move(info);
}

std::vector<std::string> Session::completions(std::string_view prefix) const {
  return completions(prefix, prefix);
}

std::vector<std::string> Session::completions(std::string_view word, std::string_view line) const {
  const Impl &s = *impl_;
  std::set<std::string> names;
  auto add = [&](const std::string &n) {
    if (n.size() >= word.size() && n.compare(0, word.size(), word) == 0 &&
        n.rfind("__kern_", 0) != 0)
      names.insert(n);
  };
  auto result = [&] { return std::vector<std::string>(names.begin(), names.end()); };
  const std::string_view before = line.substr(0, line.size() - std::min(line.size(), word.size()));
  const std::vector<std::string> head = words(before);

  // Meta-commands and their arguments.
  if (head.empty() && !word.empty() && word[0] == ':') {
    for (const char *m : kMetaCommands)
      add(m);
    return result();
  }
  if (!head.empty() && head[0][0] == ':') {
    const std::string &cmd = head[0];
    if (cmd == ":device" && head.size() == 1) {
      for (const runtime::DeviceProfile &p : runtime::builtinProfiles())
        add(p.name);
    } else if (cmd == ":mode" && head.size() == 1) {
      for (const char *m : kModes)
        add(m);
    } else if (cmd == ":emit" && head.size() == 1) {
      for (const char *k : kEmitKinds)
        add(k);
    } else if ((cmd == ":emit" && head.size() == 2) || (cmd == ":annotate" && head.size() == 1)) {
      for (const std::string &k : s.completion.kernels)
        add(k);
    } else if (cmd == ":load" || (cmd == ":include-path" && head.size() == 1)) {
      // The word is the part after the last '/' (a word break): the path is the line's last
      // token.
      for (const std::string &f : fileNames(lastToken(line), word))
        names.insert(f);
    }
    return result();
  }

  // Members: `v.` and `v.f.` (the word holds the dots), `p->` (the line before it ends so).
  auto typeOfChain = [&](const std::string &chain) -> std::string {
    std::vector<std::string> parts;
    size_t at = 0;
    for (size_t dot; (dot = chain.find('.', at)) != std::string::npos; at = dot + 1)
      parts.push_back(chain.substr(at, dot - at));
    parts.push_back(chain.substr(at));
    auto v = s.completion.varTypes.find(parts[0]);
    if (v == s.completion.varTypes.end())
      return "";
    std::string type = v->second;
    for (size_t i = 1; i < parts.size(); ++i) {
      auto m = s.completion.members.find(type);
      if (m == s.completion.members.end())
        return "";
      std::string next;
      for (const auto &[name, fieldType] : m->second)
        if (name == parts[i])
          next = fieldType;
      if (next.empty())
        return "";
      type = next;
    }
    return type;
  };
  auto addMembers = [&](const std::string &type, const std::string &lead) {
    auto m = s.completion.members.find(type);
    if (m != s.completion.members.end())
      for (const auto &field : m->second)
        add(lead + field.first);
  };
  const size_t dot = word.rfind('.');
  if (dot != std::string_view::npos) {
    const std::string base(word.substr(0, dot));
    if (base == "threadIdx" || base == "blockIdx" || base == "blockDim" || base == "gridDim") {
      for (const char *c : {"x", "y", "z"})
        add(base + "." + c);
    } else {
      addMembers(typeOfChain(base), base + ".");
    }
    return result();
  }
  if (before.size() >= 2 && before.substr(before.size() - 2) == "->") {
    size_t i = before.size() - 2;
    while (i > 0 && (isIdentChar(before[i - 1]) || before[i - 1] == '.'))
      --i;
    addMembers(pointee(typeOfChain(std::string(before.substr(i, before.size() - 2 - i)))), "");
    return result();
  }

  for (const char *b : kBuiltinNames)
    add(b);
  for (const char *w : kWords)
    add(w);
  for (const Item &it : s.items)
    if (!it.name.empty())
      add(it.name);
  for (const std::string &t : s.typeNames)
    add(t);
  return result();
}

} // namespace kern
