// The type system: sizes and alignments (x86-64 LP64, which nvcc matches), names, interning.
#include "frontend/types.h"

#include <algorithm>
#include <cassert>
#include <set>

namespace kern::frontend {

const char *addrSpaceName(AddrSpace s) {
  switch (s) {
  case AddrSpace::Generic:
    return "generic";
  case AddrSpace::Global:
    return "global";
  case AddrSpace::Shared:
    return "shared";
  case AddrSpace::Constant:
    return "constant";
  case AddrSpace::Local:
    return "local";
  case AddrSpace::Host:
    return "host";
  }
  return "?";
}

bool Type::isSigned() const {
  switch (kind) {
  case TypeKind::Char:
  case TypeKind::SChar:
  case TypeKind::Short:
  case TypeKind::Int:
  case TypeKind::Long:
  case TypeKind::LongLong:
    return true;
  default:
    return false;
  }
}

uint64_t Type::size() const {
  switch (kind) {
  case TypeKind::Void:
  case TypeKind::Function:
    return 0;
  case TypeKind::Bool:
  case TypeKind::Char:
  case TypeKind::SChar:
  case TypeKind::UChar:
    return 1;
  case TypeKind::Short:
  case TypeKind::UShort:
    return 2;
  case TypeKind::Int:
  case TypeKind::UInt:
  case TypeKind::Float:
    return 4;
  case TypeKind::Long:
  case TypeKind::ULong:
  case TypeKind::LongLong:
  case TypeKind::ULongLong:
  case TypeKind::Double:
  case TypeKind::Pointer:
    return 8;
  case TypeKind::Array:
    return vlaBound ? 0 : elem->size() * count;
  case TypeKind::Struct:
    return record->size;
  }
  return 0;
}

uint64_t Type::align() const {
  switch (kind) {
  case TypeKind::Array:
    return elem->align();
  case TypeKind::Struct:
    return record->align;
  case TypeKind::Void:
  case TypeKind::Function:
    return 1;
  default:
    return size();
  }
}

int Type::rank() const {
  switch (kind) {
  case TypeKind::Bool:
    return 0;
  case TypeKind::Char:
  case TypeKind::SChar:
  case TypeKind::UChar:
    return 1;
  case TypeKind::Short:
  case TypeKind::UShort:
    return 2;
  case TypeKind::Int:
  case TypeKind::UInt:
    return 3;
  case TypeKind::Long:
  case TypeKind::ULong:
    return 4;
  case TypeKind::LongLong:
  case TypeKind::ULongLong:
    return 5;
  default:
    return -1;
  }
}

std::string Type::str() const {
  switch (kind) {
  case TypeKind::Void:
    return "void";
  case TypeKind::Bool:
    return "bool";
  case TypeKind::Char:
    return "char";
  case TypeKind::SChar:
    return "signed char";
  case TypeKind::UChar:
    return "unsigned char";
  case TypeKind::Short:
    return "short";
  case TypeKind::UShort:
    return "unsigned short";
  case TypeKind::Int:
    return "int";
  case TypeKind::UInt:
    return "unsigned int";
  case TypeKind::Long:
    return "long";
  case TypeKind::ULong:
    return "unsigned long";
  case TypeKind::LongLong:
    return "long long";
  case TypeKind::ULongLong:
    return "unsigned long long";
  case TypeKind::Float:
    return "float";
  case TypeKind::Double:
    return "double";
  case TypeKind::Pointer: {
    if (elem->isFunction()) { // `int (*)(int, int)`
      std::string s = elem->elem->str() + " (*)(";
      for (size_t i = 0; i < elem->params.size(); ++i)
        s += (i ? ", " : "") + elem->params[i]->str();
      if (elem->variadic)
        s += elem->params.empty() ? "..." : ", ...";
      return s + ")";
    }
    std::string inner = elem->str();
    if (pointeeConst)
      inner = "const " + inner;
    if (isReference)
      return inner + " &";
    return inner + (inner.back() == '*' ? "*" : " *");
  }
  case TypeKind::Array:
    return elem->str() + "[" + (vlaBound ? "*" : count ? std::to_string(count) : "") + "]";
  case TypeKind::Struct:
    return record->name.empty() ? (record->isUnion ? "union <anonymous>" : "struct <anonymous>")
                                : record->name;
  case TypeKind::Function: {
    std::string s = elem->str() + " (";
    for (size_t i = 0; i < params.size(); ++i)
      s += (i ? ", " : "") + params[i]->str();
    if (variadic)
      s += params.empty() ? "..." : ", ...";
    return s + ")";
  }
  }
  return "?";
}

TypeContext::TypeContext() {
  for (int k = 0; k <= static_cast<int>(TypeKind::Double); ++k) {
    Type *t = make();
    t->kind = static_cast<TypeKind>(k);
    basic_.push_back(t);
  }
  // uint3 and dim3: three unsigned ints, 4-byte aligned (CUDA's vector_types.h).
  for (const char *n : {"uint3", "dim3"}) {
    const Type *t = newStruct(n);
    for (const char *f : {"x", "y", "z"})
      t->record->fields.push_back({f, uintTy(), 0});
    layoutStruct(t);
    (std::string(n) == "uint3" ? uint3_ : dim3_) = t;
  }
}

Type *TypeContext::make() {
  owned_.push_back(std::make_unique<Type>());
  return owned_.back().get();
}

const Type *TypeContext::pointerTo(const Type *elem, AddrSpace space, bool pointeeConst) {
  if (elem->isFunction()) { // a function pointer is a host value wherever it is written
    space = AddrSpace::Host;
    pointeeConst = false;
  }
  auto key = std::make_tuple(elem, static_cast<int>(space), pointeeConst);
  auto it = pointers_.find(key);
  if (it != pointers_.end())
    return it->second;
  Type *t = make();
  t->kind = TypeKind::Pointer;
  t->elem = elem;
  t->space = space;
  t->pointeeConst = pointeeConst;
  pointers_[key] = t;
  return t;
}

const Type *TypeContext::referenceTo(const Type *elem, AddrSpace space, bool isConst) {
  auto key = std::make_tuple(elem, static_cast<int>(space), isConst);
  auto it = references_.find(key);
  if (it != references_.end())
    return it->second;
  Type *t = make();
  t->kind = TypeKind::Pointer;
  t->elem = elem;
  t->space = space;
  t->pointeeConst = isConst;
  t->isReference = true;
  references_[key] = t;
  return t;
}

const Type *TypeContext::arrayOf(const Type *elem, uint64_t count) {
  auto key = std::make_pair(elem, count);
  auto it = arrays_.find(key);
  if (it != arrays_.end())
    return it->second;
  Type *t = make();
  t->kind = TypeKind::Array;
  t->elem = elem;
  t->count = count;
  arrays_[key] = t;
  return t;
}

const Type *TypeContext::vlaOf(const Type *elem, Expr *bound) {
  Type *t = make();
  t->kind = TypeKind::Array;
  t->elem = elem;
  t->vlaBound = bound;
  return t;
}

const Type *TypeContext::function(const Type *ret, std::vector<const Type *> params, bool variadic,
                                  bool unprototyped) {
  // Interned, so that pointers to functions of one signature are one type.
  for (const Type *f : functions_)
    if (f->elem == ret && f->params == params && f->variadic == variadic &&
        f->unprototyped == unprototyped)
      return f;
  Type *t = make();
  functions_.push_back(t);
  t->kind = TypeKind::Function;
  t->elem = ret;
  t->params = std::move(params);
  t->variadic = variadic;
  t->unprototyped = unprototyped;
  return t;
}

const Type *TypeContext::newStruct(const std::string &name) {
  records_.push_back(std::make_unique<StructInfo>());
  records_.back()->name = name;
  Type *t = make();
  t->kind = TypeKind::Struct;
  t->record = records_.back().get();
  return t;
}

namespace {

/// The empty classes whose subobjects start at offset 0 of an object of type `t` (Itanium:
/// two subobjects of one type may not share an address).
void emptyAtZero(const Type *t, std::set<const StructInfo *> &out) {
  while (t->isArray() && t->count)
    t = t->elem;
  if (!t->isStruct())
    return;
  const StructInfo *r = t->record;
  if (r->isEmpty())
    out.insert(r);
  for (const StructBase &b : r->bases)
    if (b.offset == 0)
      emptyAtZero(b.type, out);
  for (const StructField &f : r->fields)
    if (f.offset == 0 && !f.isBase)
      emptyAtZero(f.type, out);
}

bool meets(const std::set<const StructInfo *> &a, const std::set<const StructInfo *> &b) {
  for (const StructInfo *r : a)
    if (b.count(r))
      return true;
  return false;
}

} // namespace

void TypeContext::layoutStruct(const Type *t, uint64_t alignOverride, bool cxx) {
  StructInfo *r = t->record;
  uint64_t offset = 0, align = 1;
  std::set<const StructInfo *> atZero; // empty classes placed at offset 0 so far
  // `#pragma pack(n)` caps the alignment of each member and base, as GCC (and so nvcc, on both
  // sides) lays out a struct defined under it.
  r->packed = false;
  auto capped = [&](uint64_t a) {
    r->packed |= r->pack && r->pack < a;
    return r->pack && r->pack < a ? r->pack : a;
  };
  if (!r->fields.empty() && r->fields[0].isVptr) { // a dynamic class's vtable pointer comes first
    r->fields[0].offset = 0;
    offset = align = r->fields[0].type->size();
  }
  for (StructBase &b : r->bases) {
    const StructInfo *br = b.type->record;
    align = std::max(align, capped(br->align));
    std::set<const StructInfo *> mine;
    if (b.field < 0) { // empty: at offset 0 unless a subobject of its type is there already
      emptyAtZero(b.type, mine);
      b.offset = meets(mine, atZero) ? offset : 0;
      if (b.offset == 0)
        atZero.insert(mine.begin(), mine.end());
      else
        offset += 1;
      continue;
    }
    uint64_t a = capped(br->align);
    offset = (offset + a - 1) / a * a;
    b.offset = offset;
    r->fields[static_cast<size_t>(b.field)].offset = offset;
    if (offset == 0) {
      emptyAtZero(b.type, mine);
      atZero.insert(mine.begin(), mine.end());
    }
    offset += br->podForLayout ? br->size : br->dataSize;
  }
  uint64_t unionSize = 0;
  for (auto &f : r->fields) {
    if (f.isBase || f.isVptr)
      continue;
    uint64_t a = capped(f.type->align());
    if (r->isUnion) { // every member at offset 0; the size is the largest one's
      f.offset = 0;
      unionSize = std::max(unionSize, f.type->size());
      align = std::max(align, a);
      continue;
    }
    offset = (offset + a - 1) / a * a;
    if (offset == 0 && !atZero.empty()) {
      std::set<const StructInfo *> mine;
      emptyAtZero(f.type, mine);
      if (meets(mine, atZero))
        offset = a;
    }
    f.offset = offset;
    offset += f.type->size();
    align = std::max(align, a);
  }
  if (r->isUnion)
    offset = unionSize;
  r->dataSize = offset;
  if (cxx && offset == 0)
    offset = 1; // a C++ empty class
  // __align__(n) raises the alignment (and so the size): CUDA uses it to make a 12-byte
  // struct one 16-byte access.
  if (alignOverride > align)
    align = alignOverride;
  r->align = align;
  r->size = (offset + align - 1) / align * align;
  r->complete = true;
}

} // namespace kern::frontend
