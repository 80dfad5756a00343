// kern_fuzz_run: libFuzzer target for compiling and running a program. The input is the source
// of a program; if it compiles, its main runs on one worker with a time limit of 0.2 s, its
// output discarded and file access refused (the API's default). Every outcome of the program
// (a compile error, a fault, a timeout, any exit code) is normal: only a crash, a sanitizer
// report, a hang or a leak is a finding.
#include <kern/kern.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kern::Options options;
  options.workers = 1;
  options.timeoutSeconds = 0.2;
  options.allowFiles = false;
  options.out = [](std::string_view) {};
  options.err = [](std::string_view) {};
  kern::Engine engine(options);
  auto program =
      engine.compile(std::string(reinterpret_cast<const char *>(data), size), "fuzz.kern");
  if (program->ok())
    (void)program->run();
  return 0;
}
