// kern_fuzz_compile: libFuzzer target for the whole compiler. The input is the source of a
// program; it is preprocessed, parsed, checked, lowered to Kern IR and compiled to optimised LLVM
// IR and machine code (what `kern emit --llvm` does), and never run. A compile error is a normal
// outcome: only a crash, a sanitizer report, a hang or a leak is a finding.
#include <kern/kern.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kern::Options options;
  options.workers = 1;
  options.out = [](std::string_view) {};
  options.err = [](std::string_view) {};
  kern::Engine engine(options);
  auto program =
      engine.compile(std::string(reinterpret_cast<const char *>(data), size), "fuzz.kern");
  if (program->ok())
    (void)program->llvmIR(); // code generation: the LLVM module, optimised and compiled
  return 0;
}
