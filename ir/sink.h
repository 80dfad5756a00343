// Store sinking: the two sides of an `if` that end by storing to the same address store once,
// after the `if`, as nvcc's optimiser makes them.
#pragma once

#include "ir/ir.h"

namespace kern::ir {

/// In kernels and device functions, rewrites
///     if (c) { ...; *A = x; } else { ...; *A = y; }
/// where A is the same expression on both sides (and reads nothing either side assigns, calls
/// nothing) into
///     if (c) { ...; t = x; } else { ...; t = y; }  *A = t;
/// which computes the same in every thread. nvcc does this (one STS after a select, measured:
/// tests/gpu/realcode, `scanNaive`), so a warp that takes both sides issues one store, not two,
/// and the counters count one. The store keeps the `then` side's site.
void sinkCommonStores(Module &m);

} // namespace kern::ir
