// The unit tests' way to get Kern IR: a program's source through the compiler's own pipeline.
#pragma once

#include "ir/pipeline.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

namespace kern::test {

/// The IR of `source` (as the file `name`), which must compile.
inline std::unique_ptr<ir::Module> buildModule(const std::string &source,
                                               const std::string &name = "test.kern") {
  frontend::SourceManager sm;
  frontend::DiagnosticEngine diags(sm);
  auto m = ir::buildModule(sm, sm.addFile(name, source), diags);
  REQUIRE(m);
  return m;
}

} // namespace kern::test
