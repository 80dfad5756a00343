// Names and kinds of the IR intrinsics, from intrinsics.def.
#include "ir/ir.h"

namespace kern::ir {

const char *intrinsicName(IntrinsicId id) {
  switch (id) {
#define KERN_INTRINSIC(Id, spelling, kind)                                                         \
  case IntrinsicId::Id:                                                                            \
    return spelling;
#include "ir/intrinsics.def"
#undef KERN_INTRINSIC
  }
  return "?";
}

IntrinsicKind intrinsicKind(IntrinsicId id) {
  switch (id) {
#define KERN_INTRINSIC(Id, spelling, kind)                                                         \
  case IntrinsicId::Id:                                                                            \
    return IntrinsicKind::kind;
#include "ir/intrinsics.def"
#undef KERN_INTRINSIC
  }
  return IntrinsicKind::Math;
}

} // namespace kern::ir
