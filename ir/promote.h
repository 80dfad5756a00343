// Scalar replacement of local structs and arrays whose fields are only read and written whole.
#pragma once

#include "ir/ir.h"

namespace kern::ir {

/// Replaces each direct local slot (LocalSlot::direct) whose loads and stores all lie at
/// constant offsets, one type per offset and no two overlapping (the members of a struct, the
/// elements of a small array indexed by constants), by one variable per field: a load becomes
/// a read of the variable, a store an assignment. C++ code keeps its objects in such slots
/// (`this` and struct results become the slot's address once inlined, ir/inline.cpp); the C
/// equivalent keeps the same values in variables, and so does the GPU's compiler, in
/// registers. Local accesses are counted as instructions only, so only the instruction
/// counters see the difference: each access's address operations are no longer counted.
void promoteDirectSlots(Module &m);

} // namespace kern::ir
