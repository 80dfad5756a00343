// The JIT's allow-list of runtime functions: every row of backend/runtime_functions.def with
// its address in this process.
#include "runtime/symbols.h"

#include "backend/abi.h"

namespace kern::runtime {

backend::SymbolList runtimeSymbols() {
  return {
#define KERN_RT_FUNCTION(name, type) {#name, reinterpret_cast<void *>(&name)},
#include "backend/runtime_functions.def"
  };
}

} // namespace kern::runtime
