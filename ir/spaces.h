// Address spaces of loads and stores through pointer variables, refined after inlining.
#pragma once

#include "ir/ir.h"

namespace kern::ir {

/// Gives the loads and stores of the generic space whose address provably points into shared
/// or global memory that space, as the lowering gives it to the accesses it can see are: the
/// address is a shared address, an expression typed as a global pointer (a kernel's pointer
/// parameter), or a pointer variable every assignment of which is one of those, plus offsets.
/// After inlining this covers `this` and references to global objects and the pointers that
/// helper functions return (`T *s = SharedMemory<T>().pointer();`). The counters are the same
/// (a generic access is classified by its addresses, lane by lane); the access is cheaper.
void refineAddressSpaces(Module &m);

} // namespace kern::ir
