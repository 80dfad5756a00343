// The JIT's allow-list: every runtime function that compiled code may call, by name.
#pragma once

#include "backend/program_image.h"

namespace kern::runtime {

/// Every runtime function of backend/runtime_functions.def with its address.
backend::SymbolList runtimeSymbols();

} // namespace kern::runtime
