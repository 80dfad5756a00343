// Loads in flight together: how often a warp waits for memory, as nvcc's code waits. nvcc issues
// a straight run's independent loads back to back and waits once for all of them, and a loop it
// unrolls by 4 issues four iterations' loads together. The timing model's latency chain charges
// each load site its share of a wait (docs/timing.md, "Latency").
#pragma once

#include "ir/ir.h"

namespace kern::ir {

/// Sets Site::waitSixteenths of every load in the kernels and device functions of `m`: in a
/// straight run of statements, a load waits as deep as the loads its address depends on plus
/// one, and the run waits once per depth (its first load at each depth takes the wait, the
/// others none). A store of a loaded value holds back the loads after it (they may read what it
/// wrote). A loop unrolled by 4 (or 16), whose loads do not depend on values its earlier
/// iterations loaded and whose stores store no loaded value, divides its body's waits by 4 (16).
/// Runs after modelCompiledBranches (it reads the loop shapes).
void modelLoadWaves(Module &m);

} // namespace kern::ir
