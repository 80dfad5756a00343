// Linking translation units: one definition per external name, file-local names kept apart.
#include "frontend/link.h"

#include "frontend/types.h"

#include <map>
#include <set>
#include <string>

namespace kern::frontend {

namespace {

/// True if the variable itself is const (`const int N`, `float *const p`), not what it points
/// to: C++ gives such a namespace-scope variable internal linkage unless it is `extern`.
bool isConstObject(const VarDecl *v) {
  const TypeSyntax *ts = v->typeSyntax;
  if (!ts)
    return false;
  for (auto it = ts->ops.rbegin(); it != ts->ops.rend(); ++it)
    if (it->kind == TypeOp::Kind::Pointer)
      return it->isConst;
  return ts->isConst;
}

bool isDefinition(const Decl *d) {
  if (auto *f = dynamic_cast<const FunctionDecl *>(d))
    return f->body != nullptr;
  if (auto *v = dynamic_cast<const VarDecl *>(d))
    return !v->quals.isExtern || v->init;
  return false;
}

std::string typeText(const Decl *d) {
  const Type *t = nullptr;
  if (auto *f = dynamic_cast<const FunctionDecl *>(d))
    t = f->type;
  else if (auto *v = dynamic_cast<const VarDecl *>(d))
    t = v->type;
  return t ? t->str() : std::string("?");
}

/// `int a[]` declared and `int a[8]` defined are the same variable.
bool compatible(const Decl *a, const Decl *b) {
  auto *va = dynamic_cast<const VarDecl *>(a);
  auto *vb = dynamic_cast<const VarDecl *>(b);
  if (va && vb && va->type && vb->type && va->type->isArray() && vb->type->isArray() &&
      (va->type->count == 0 || vb->type->count == 0))
    return va->type->elem->str() == vb->type->elem->str();
  return typeText(a) == typeText(b);
}

/// Function types with the same parameters (the result may differ).
bool sameParameters(const Type *a, const Type *b) {
  if (a->params.size() != b->params.size() || a->variadic != b->variadic)
    return false;
  for (size_t i = 0; i < a->params.size(); ++i)
    if (a->params[i]->str() != b->params[i]->str())
      return false;
  return true;
}

/// What a C linker sees of two declarations of one function: only the name. They are linked
/// when both have C linkage (extern "C", or a C file), take as many parameters, and each pair of
/// parameter types, and the results, are passed alike: integers, bool and pointers all in an
/// integer register, so `bool f(int *, unsigned)` and `int f(int *, int)` are one function
/// (cuda-samples' simpleAtomicIntrinsics declares its computeGold so). A call then converts
/// arguments and result as the declaration it was written against says (ir/lower_calls.cpp).
/// Kernels are not: their parameters are laid out in memory by type.
bool passedAlike(const Type *a, const Type *b) {
  auto integerLike = [](const Type *t) { return t->isInteger() || t->isPointer(); };
  return (integerLike(a) && integerLike(b)) || a->str() == b->str();
}
bool cLinkageCompatible(const Decl *a, const Decl *b, bool requireExternC) {
  auto *fa = dynamic_cast<const FunctionDecl *>(a);
  auto *fb = dynamic_cast<const FunctionDecl *>(b);
  if (!fa || !fb || !fa->type || !fb->type || fa->quals.global || fb->quals.global)
    return false;
  if (requireExternC && !(fa->quals.externC && fb->quals.externC))
    return false;
  const Type *ta = fa->type, *tb = fb->type;
  // C's `int f();` (or an implicit declaration) says nothing of the parameters: the calls
  // convert their arguments to the definition's.
  if ((fa->unprototyped || fb->unprototyped) && fa->quals.externC && fb->quals.externC)
    return true;
  if (ta->params.size() != tb->params.size() || ta->variadic != tb->variadic ||
      !passedAlike(ta->elem, tb->elem))
    return false;
  for (size_t i = 0; i < ta->params.size(); ++i)
    if (!passedAlike(ta->params[i], tb->params[i]))
      return false;
  return true;
}

std::string cudaKind(const Decl *d) {
  const Qualifiers &q = d->quals;
  if (dynamic_cast<const FunctionDecl *>(d))
    return q.global             ? "__global__"
           : q.device && q.host ? "__host__ __device__"
           : q.device           ? "__device__"
                                : "host";
  return q.constant ? "__constant__" : q.shared ? "__shared__" : q.device ? "__device__" : "host";
}

struct Entity {
  std::vector<std::pair<Decl *, size_t>> decls; // every declaration, with its file's index
  /// Declared only, and called: a function whose definition must be found by another name.
  bool undefinedButUsed() const {
    bool defined = false, used = false;
    for (auto &[o, file] : decls) {
      defined |= isDefinition(o);
      auto *of = dynamic_cast<FunctionDecl *>(o);
      used |= of && of->isUsed;
    }
    return !defined && used;
  }
};

class Linker {
public:
  Linker(const std::vector<TranslationUnit *> &units, DiagnosticEngine &diags)
      : units_(units), diags_(diags) {}

  bool run() {
    collect();
    renameClashes();
    for (auto &[k, e] : externals_)
      resolve(e.decls.front().first->name, e);
    mismatchedOverloads();
    sidesApart();
    return !failed_;
  }

private:
  const std::vector<TranslationUnit *> &units_;
  DiagnosticEngine &diags_;
  std::map<std::string, Entity> externals_;
  std::vector<std::set<std::string>> internals_; // per file
  bool failed_ = false;

  static bool linkable(const Decl *d) {
    // A template is no entity of its own: each file instantiates what it uses (inline).
    if (auto *f = dynamic_cast<const FunctionDecl *>(d))
      return f->templateParams.empty();
    auto *v = dynamic_cast<const VarDecl *>(d); // a class template's static data member: its
    return v && !v->ofClassTemplate;            // instances' are (inline variables)
  }

  void collect() {
    internals_.resize(units_.size());
    for (size_t i = 0; i < units_.size(); ++i) {
      // C: once a file declares a name static, every declaration of it there is file-local.
      // A const object is file-local too unless the file declares it extern (the header's
      // `extern const T table[];` before the definition `const T table[] = {...};`).
      std::set<std::string> declaredExtern;
      for (Decl *d : units_[i]->decls)
        if (auto *v = dynamic_cast<VarDecl *>(d); v && v->quals.isExtern)
          declaredExtern.insert(v->name);
      for (Decl *d : units_[i]->decls) {
        auto *v = dynamic_cast<VarDecl *>(d);
        if (linkable(d) && (d->quals.isStatic || (v && isConstObject(v) && !v->quals.isExtern &&
                                                  v->init && !declaredExtern.count(v->name))))
          internals_[i].insert(d->name);
      }
      // C++: a function first declared extern "C" keeps C linkage in its later declarations.
      std::set<std::string> cNames;
      for (Decl *d : units_[i]->decls)
        if (linkable(d) && d->quals.externC)
          cNames.insert(d->name);
      for (Decl *d : units_[i]->decls)
        if (linkable(d) && cNames.count(d->name))
          d->quals.externC = true;
      for (Decl *d : units_[i]->decls)
        if (linkable(d) && !internals_[i].count(d->name))
          externals_[key(d)].decls.push_back({d, i});
    }
    // C++ functions of one name with other parameters are other functions (overloads), told
    // apart as the files' own overloads are.
    std::map<std::string, std::set<std::string>> keysByName;
    for (auto &[k, e] : externals_)
      keysByName[e.decls.front().first->name].insert(k.substr(0, k.find(kDeviceSide)));
    for (auto &[k, e] : externals_)
      if (keysByName[e.decls.front().first->name].size() > 1)
        for (auto &[d, file] : e.decls)
          if (auto *f = dynamic_cast<FunctionDecl *>(d))
            f->isOverloaded = true;
  }

  /// A C++ function declared in one file and defined in another with other parameters is,
  /// to C++, two functions, one never defined; almost always the declaration is wrong.
  void mismatchedOverloads() {
    // A variable and a function of one name (the function's entity is keyed by its types).
    for (auto &[k, e] : externals_) {
      Decl *d = e.decls.front().first;
      if (!dynamic_cast<VarDecl *>(d))
        continue;
      for (auto &[k2, e2] : externals_)
        if (Decl *fn = e2.decls.front().first;
            k2 != k && fn->name == d->name && dynamic_cast<FunctionDecl *>(fn)) {
          error(d,
                "'" + d->name +
                    "' is declared as a variable here and as a function in another "
                    "file",
                fn, "the other declaration");
          break;
        }
    }
    for (auto &[k, e] : externals_) {
      Decl *d = e.decls.front().first;
      auto *f = dynamic_cast<FunctionDecl *>(d);
      if (!f || k == d->name || !e.undefinedButUsed()) // nothing uses it: it links to nothing
        continue;
      for (auto &[k2, e2] : externals_) {
        Decl *other = e2.decls.front().first;
        if (k2 == k || other->name != d->name || e2.decls.front().second == e.decls.front().second)
          continue;
        Decl *def = nullptr;
        for (auto &[o, file] : e2.decls)
          if (isDefinition(o))
            def = o;
        if (!def)
          continue;
        error(d,
              "conflicting types for '" + d->name + "' across files: '" + typeText(d) + "' and '" +
                  typeText(def) + "'",
              def, "the other declaration");
        if (cLinkageCompatible(d, def, false))
          diags_.note(d->loc, "a C++ function's parameter and result types must be the same in "
                              "every file; only functions declared extern \"C\" in both link "
                              "by name alone, as in C");
        break;
      }
    }
  }

  /// What identifies an external name: for a C++ function, its name and parameter types (C++
  /// mangles them in); for a variable or a function with C linkage, the name alone. A
  /// __device__ function is of the device's code, apart from the host's: a file may define a
  /// host function of the name and types of another file's __device__ one (as nvcc compiles
  /// them, each file's device code is its own).
  static constexpr const char *kDeviceSide = "@device";
  static std::string key(const Decl *d) {
    auto *f = dynamic_cast<const FunctionDecl *>(d);
    const bool deviceOnly = f && f->quals.device && !f->quals.host && !f->quals.global;
    if (!f || f->quals.externC || !f->type || f->name == "main")
      return d->name + (deviceOnly ? kDeviceSide : "");
    std::string k = d->name + "(";
    for (const Type *p : f->type->params)
      k += p->str() + ",";
    return k + ")" + (deviceOnly ? kDeviceSide : "");
  }

  /// A function used on one side and defined only on the other (`__device__ float f(float);`
  /// called by a kernel, `float f(float x) {...}` in another file): the qualifiers disagree.
  void sidesApart() {
    for (auto &[k, e] : externals_) {
      Decl *d = e.decls.front().first;
      auto *f = dynamic_cast<FunctionDecl *>(d);
      if (!f || !e.undefinedButUsed())
        continue;
      const bool device = k.find(kDeviceSide) != std::string::npos;
      auto other = externals_.find(device ? k.substr(0, k.find(kDeviceSide)) : k + kDeviceSide);
      if (other == externals_.end())
        continue;
      for (auto &[o, file] : other->second.decls)
        if (isDefinition(o)) {
          error(d,
                "'" + d->name + "' is declared " + cudaKind(d) + " here but " + cudaKind(o) +
                    " in another file",
                o, "the other declaration");
          break;
        }
    }
  }

  /// A file-local name that another file also uses gets the file's number appended.
  void renameClashes() {
    std::set<std::string> externalNames;
    for (auto &[k, e] : externals_)
      externalNames.insert(e.decls.front().first->name);
    for (size_t i = 0; i < units_.size(); ++i)
      for (const std::string &name : internals_[i]) {
        bool clash = externalNames.count(name) > 0;
        for (size_t j = 0; j < units_.size() && !clash; ++j)
          clash = j != i && internals_[j].count(name);
        if (!clash)
          continue;
        std::string renamed = name + "." + std::to_string(i + 1);
        for (Decl *d : units_[i]->decls)
          if (linkable(d) && d->name == name)
            d->name = renamed;
      }
  }

  void error(const Decl *at, const std::string &message, const Decl *first,
             const std::string &firstNote) {
    diags_.error(at->loc, message);
    diags_.note(first->loc, firstNote);
    failed_ = true;
  }

  void resolve(const std::string &name, Entity &e) {
    // The definition: the first one; a second is an error unless both are inline (functions or
    // C++17 variables).
    Decl *def = nullptr;
    for (auto &[d, file] : e.decls) {
      if (!isDefinition(d))
        continue;
      if (!def) {
        def = d;
        continue;
      }
      auto *f = dynamic_cast<FunctionDecl *>(d);
      auto *fdef = dynamic_cast<FunctionDecl *>(def);
      if (f && fdef && f->quals.isInline && fdef->quals.isInline) {
        f->definition = fdef; // the same inline function, defined by a shared header
        continue;
      }
      auto *v = dynamic_cast<VarDecl *>(d);
      auto *vdef = dynamic_cast<VarDecl *>(def);
      if (v && vdef && v->quals.isInline && vdef->quals.isInline) {
        // C++17's inline variable, defined by a shared header: one variable, the first
        // definition's; this one becomes a declaration of it.
        v->quals.isExtern = true;
        v->init = nullptr;
        continue;
      }
      error(d, "multiple definition of '" + name + "'", def, "first defined here");
      return;
    }
    const Decl *ref = def ? def : e.decls.front().first;
    for (auto &[d, file] : e.decls) {
      if (d == ref)
        continue;
      bool isFn = dynamic_cast<FunctionDecl *>(d) != nullptr;
      if (isFn != (dynamic_cast<const FunctionDecl *>(ref) != nullptr)) {
        error(d,
              "'" + name + "' is declared as a " + (isFn ? "function" : "variable") +
                  " here and as a " + (isFn ? "variable" : "function") + " in another file",
              ref, "the other declaration");
        return;
      }
      auto *fd = dynamic_cast<FunctionDecl *>(d);
      auto *fref = dynamic_cast<const FunctionDecl *>(ref);
      if (fd && fref && !fd->quals.externC && fd->type && fref->type && !compatible(d, ref) &&
          sameParameters(fd->type, fref->type)) {
        // C++ functions that differ only in their result: one to a C++ linker, whose names
        // (the mangled ones) leave the result out. A call through the other declaration gets
        // the definition's result converted, or 0 from a void one (ir/lower_calls.cpp).
        diags_.warning(d->loc, "'" + name + "' is declared '" + typeText(d) + "' here but '" +
                                   typeText(ref) +
                                   "' in another file: linked as one function, as C++ "
                                   "linkers link them (the result type is not in its name)");
        diags_.note(ref->loc, "the other declaration");
        if (!fd->body && def)
          fd->definition = static_cast<FunctionDecl *>(def);
        continue;
      }
      if (!compatible(d, ref) && !cLinkageCompatible(d, ref, true)) {
        error(d,
              "conflicting types for '" + name + "' across files: '" + typeText(d) + "' and '" +
                  typeText(ref) + "'",
              ref, "the other declaration");
        if (cLinkageCompatible(d, ref, false))
          diags_.note(d->loc, "a C++ function's parameter and result types must be the same in "
                              "every file; only functions declared extern \"C\" in both link "
                              "by name alone, as in C");
        return;
      }
      if (cudaKind(d) != cudaKind(ref)) {
        error(d,
              "'" + name + "' is declared " + cudaKind(d) + " here but " + cudaKind(ref) +
                  " in another file",
              ref, "the other declaration");
        return;
      }
      if (auto *f = dynamic_cast<FunctionDecl *>(d); f && def && !f->body)
        f->definition = static_cast<FunctionDecl *>(def);
    }
  }
};

/// Makes a definition a declaration: a function loses its body, a variable its initialiser.
void undefine(Decl *d, TranslationUnit &unit) {
  if (auto *f = dynamic_cast<FunctionDecl *>(d)) {
    for (Decl *o : unit.decls)
      if (auto *of = dynamic_cast<FunctionDecl *>(o); of && of->definition == f)
        of->definition = nullptr;
    f->body = nullptr;
  } else if (auto *v = dynamic_cast<VarDecl *>(d)) {
    v->quals.isExtern = true;
    v->init = nullptr;
  }
}

bool isDeviceVariable(const VarDecl *v) {
  return v->quals.device || v->quals.constant || v->quals.shared;
}

} // namespace

void mergeDeviceAndHostPasses(TranslationUnit &device, TranslationUnit &host,
                              TranslationUnit &merged) {
  // Names of __host__ __device__ functions as the host pass declares them.
  std::set<std::string> both;
  for (Decl *d : host.decls)
    if (auto *f = dynamic_cast<FunctionDecl *>(d); f && f->quals.host && f->quals.device)
      both.insert(f->name);
  for (Decl *d : device.decls) {
    if (auto *f = dynamic_cast<FunctionDecl *>(d)) {
      if (f->quals.host && f->quals.device)
        f->quals.host = false; // its host side comes from the host pass
      else if (f->body && !f->quals.global && !f->quals.device)
        undefine(f, device); // a host function
    } else if (auto *v = dynamic_cast<VarDecl *>(d);
               v && !isDeviceVariable(v) && !(isConstObject(v) && v->init)) {
      undefine(v, device); // a host variable (a constant stays: kernels use its value)
    }
  }
  for (Decl *d : host.decls) {
    if (auto *f = dynamic_cast<FunctionDecl *>(d)) {
      if (both.count(f->name)) {
        f->quals.device = false;
        f->quals.host = true;
        f->name += ".host";
      } else if (f->body && (f->quals.global || f->quals.device)) {
        undefine(f, host); // a kernel or a __device__ function
      }
    } else if (auto *v = dynamic_cast<VarDecl *>(d); v && isDeviceVariable(v)) {
      undefine(v, host);
    }
  }
  merged.decls = device.decls;
  merged.decls.insert(merged.decls.end(), host.decls.begin(), host.decls.end());
}

bool linkTranslationUnits(const std::vector<TranslationUnit *> &units, TranslationUnit &linked,
                          DiagnosticEngine &diags) {
  if (units.size() > 1) {
    Linker linker(units, diags);
    if (!linker.run())
      return false;
  }
  for (TranslationUnit *u : units)
    linked.decls.insert(linked.decls.end(), u->decls.begin(), u->decls.end());
  return true;
}

} // namespace kern::frontend
