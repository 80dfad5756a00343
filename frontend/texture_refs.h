// Texture references (`texture<float, 2> tex;` at file scope, the API CUDA 12 removed): how the
// front end and the lowering recognise one. kern_texture.h declares `texture<T, dim, mode>` as a
// struct deriving from `textureReference`, whose fields the host sets and whose descriptor
// (`__kern_desc`) kernels read. Such a variable is both a host object and a device one: the
// lowering gives it a device twin that holds the descriptor cudaBindTexture writes.
#pragma once

#include "frontend/types.h"

#include <cstdint>
#include <string>

namespace kern::frontend {

/// Whether `t` is (or derives from) kern_texture.h's `textureReference`.
inline bool isTextureReferenceType(const Type *t) {
  if (!t || !t->isStruct() || !t->record)
    return false;
  if (t->record->name == "textureReference" && t->record->field("__kern_desc"))
    return true;
  for (const StructBase &b : t->record->bases)
    if (isTextureReferenceType(b.type))
      return true;
  return false;
}

/// The byte offset of field `name` in struct `t` or one of its bases; false if there is none.
inline bool textureReferenceField(const Type *t, const std::string &name, uint64_t &offset) {
  if (!t || !t->isStruct() || !t->record)
    return false;
  if (const StructField *f = t->record->field(name)) {
    offset = f->offset;
    return true;
  }
  for (const StructBase &b : t->record->bases) {
    uint64_t inner = 0;
    if (textureReferenceField(b.type, name, inner)) {
      offset = b.offset + inner;
      return true;
    }
  }
  return false;
}

} // namespace kern::frontend
