// Inlining of small device functions into their callers (kernels and device functions).
#pragma once

#include "ir/ir.h"

namespace kern::ir {

/// Replaces calls of small, non-recursive __device__ functions by a copy of their bodies, as
/// nvcc does, and removes the device functions that no kernel reaches. The rules (which
/// callees, how parameters, returns, local slots and sites are carried over) are in
/// inline.cpp. Runs on lowered, verified IR, before the uniformity analysis.
void inlineDeviceCalls(Module &m);

} // namespace kern::ir
