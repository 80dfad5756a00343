// The members of structs and unions: each field checked and added to its type, and the
// members of anonymous struct and union members (`struct V { union { float4 v; struct {
// float x, y, z, w; }; }; };`), which C and C++ find as members of the enclosing type. An
// anonymous member is a field of its own, named `<anonymous N>` (no source name reaches it);
// `v.x` becomes `v.<anonymous 0>.<anonymous 1>.x`, so the lowering, the copies and the
// counters see the same member accesses as for named members at those offsets.
#include "frontend/clone.h"
#include "frontend/sema_impl.h"

namespace kern::frontend::sema_detail {

namespace {

/// The names that members of anonymous member type `t` bring into the enclosing struct.
void visibleNames(const Type *t, std::vector<std::string> &out) {
  for (const StructField &f : t->record->fields) {
    if (f.isBase)
      continue;
    if (f.isAnonymous)
      visibleNames(f.type, out);
    else
      out.push_back(f.name);
  }
}

} // namespace

void Sema::structField(StructDecl *sd, StructDecl::Field &f, const Type *t,
                       std::set<std::string> &seen) {
  const Type *ft = resolve(f.typeSyntax);
  if (!ft)
    return;
  if (f.isTypedef) { // a member type: S::name
    fileScope_.typedefs[sd->name + "::" + f.name] = ft;
    return;
  }
  if (f.isStatic) {
    staticConstMember(sd, f, ft);
    return;
  }
  if (f.isAnonymous) {
    StructField field;
    field.name = "<anonymous " + std::to_string(t->record->fields.size()) + ">";
    field.type = ft;
    field.isAnonymous = true;
    std::vector<std::string> names;
    visibleNames(ft, names);
    for (const std::string &n : names)
      if (!seen.insert(n).second) {
        error(f.loc, "member of anonymous " +
                         std::string(ft->record->isUnion ? "union" : "struct") + " redeclares '" +
                         n + "'");
        return;
      }
    t->record->fields.push_back(field);
    return;
  }
  if (ft->isReference) {
    error(f.loc, "reference members are not supported yet");
    return;
  }
  if (ft->isVariablyModified()) {
    error(f.loc, "field '" + f.name + "' has a variable-length array type");
    return;
  }
  if (ft->isVoid() || (ft->isStruct() && !ft->record->complete) ||
      (ft->isArray() && ft->count == 0)) {
    error(f.loc, "field '" + f.name + "' has incomplete type '" + ft->str() + "'");
    return;
  }
  if (!seen.insert(f.name).second) {
    error(f.loc, "duplicate member '" + f.name + "'");
    return;
  }
  if (sd->isUnion && !options_.cLanguage) {
    // C++ deletes the special members of a union whose member has a non-trivial constructor or
    // destructor (unless the union declares its own); kern does not build those.
    const Type *et = ft;
    while (et->isArray())
      et = et->elem;
    if (et->isStruct() && (constructorOf(et) || needsDestruction(et))) {
      error(f.loc, "a union member of a class type with a constructor or destructor ('" +
                       et->str() + "') is not supported");
      return;
    }
  }
  t->record->fields.push_back({f.name, ft, 0});
  if (f.init) {
    if (options_.cLanguage)
      error(f.init->loc, "a field cannot have an initializer in C");
    else if (sd->isUnion)
      error(f.init->loc, "default member initializers in unions are not supported");
    else if (fn_)
      error(f.init->loc,
            "default member initializers are not supported in a struct local to a function");
    else
      memberDefaults_[t->record][f.name] = f.init;
  }
}

Expr *Sema::memberDefault(const Type *t, const std::string &name) {
  auto it = t->isStruct() ? memberDefaults_.find(t->record) : memberDefaults_.end();
  if (it == memberDefaults_.end())
    return nullptr;
  auto f = it->second.find(name);
  return f == it->second.end() ? nullptr : Cloner(tu_).expr(f->second);
}

void Sema::fillMemberDefaults(Expr *list, const Type *t) {
  if (!hasMemberDefaults(t) || t->record->isUnion)
    return;
  const auto &fields = t->record->fields;
  size_t last = 0; // one past the last field the braces leave out that has an initializer
  for (size_t i = list->operands.size(); i < fields.size(); ++i)
    if (!fields[i].isBase && !fields[i].isVptr && memberDefaults_[t->record].count(fields[i].name))
      last = i + 1;
  for (size_t i = list->operands.size(); i < last; ++i) {
    Expr *value = memberDefault(t, fields[i].name);
    if (!value)
      value = make(ExprKind::InitList, list->loc); // `{}`: value-initialised
    list->operands.push_back(value);
  }
}

bool Sema::anonymousPath(const Type *st, const std::string &name,
                         std::vector<const StructField *> &path) {
  for (const StructField &f : st->record->fields) {
    if (!f.isAnonymous)
      continue;
    path.push_back(&f);
    if (f.type->record->field(name) || anonymousPath(f.type, name, path))
      return true;
    path.pop_back();
  }
  return false;
}

bool Sema::anonymousMember(Expr *e, const Type *st) {
  std::vector<const StructField *> path;
  if (!anonymousPath(st, e->name, path))
    return false;
  for (const StructField *f : path) {
    Expr *m = make(ExprKind::Member, e->loc);
    m->name = f->name;
    m->isArrow = e->isArrow;
    m->operands = {e->operands[0]};
    member(m);
    if (!m->type)
      return true;
    e->operands[0] = m;
    e->isArrow = false;
  }
  member(e);
  return true;
}

const Type *Sema::memberTypeOfAlias(TypeSyntax *ts) {
  const std::string &n = ts->name;
  size_t cut = std::string::npos;
  int depth = 0;
  for (size_t i = 0; i + 1 < n.size(); ++i) { // the last `::` outside template arguments
    depth += n[i] == '<' ? 1 : n[i] == '>' ? -1 : 0;
    if (depth == 0 && n[i] == ':' && n[i + 1] == ':')
      cut = i++;
  }
  if (cut == std::string::npos || cut == 0)
    return nullptr;
  const std::string head = n.substr(0, cut), member = n.substr(cut + 2);
  const Type *c = lookupTypedef(head);
  if (!c)
    c = lookupStruct(head);
  if (!c || !c->isStruct())
    return nullptr;
  auto it = fileScope_.typedefs.find(c->record->name + "::" + member);
  return it == fileScope_.typedefs.end() ? nullptr : it->second;
}

void Sema::mergeCudaQualifiers(FunctionDecl *prev, FunctionDecl *f) {
  // As nvcc: the qualifiers written on the declarations add up, a declaration without any
  // counting as __host__ only while no other says otherwise. `int f(int);` then
  // `__device__ int f(int x) {...}` is a __device__ function (nvcc warns that it is treated
  // as __host__ __device__, yet rejects calls from host code after the redeclaration), and
  // `__device__ int f(int);` then `__host__ int f(int x) {...}` a __host__ __device__ one.
  auto side = [](const Qualifiers &q) {
    return q.host && q.device ? "__host__ __device__" : q.device ? "__device__" : "__host__";
  };
  Qualifiers &a = prev->quals;
  const Qualifiers &b = f->quals;
  const bool aHost = a.host || !a.device, bHost = b.host || !b.device;
  if ((bHost && !aHost) || (b.device && !a.device)) // the new declaration adds a side
    diags_.warning(f->loc, std::string("a ") + side(a) + " function ('" + f->name +
                               "') redeclared " +
                               (b.host || b.device ? std::string("with ") + side(b)
                                                   : std::string("without __device__")) +
                               ", hence treated as a __host__ __device__ function");
  Qualifiers merged = a;
  merged.host = a.host || b.host || prev->calledFromHost; // host code called it already
  merged.device = a.device || b.device;
  // The parameters' pointers are of the merged function's side: take the type of the
  // declaration that has its qualifiers (the other's differs only in those spaces).
  const bool prevHasMerged = a.host == merged.host && a.device == merged.device;
  for (FunctionDecl *d : {prev, prev->definition, f}) {
    if (!d)
      continue;
    d->quals.host = merged.host;
    d->quals.device = merged.device;
  }
  if (prevHasMerged)
    f->type = prev->type;
  else if (b.host == merged.host && b.device == merged.device)
    prev->type = f->type;
}

} // namespace kern::frontend::sema_detail
