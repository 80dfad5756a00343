# Compiler warnings, -Werror (KERN_WERROR) and the optional sanitizer and fuzzing builds (KERN_SANITIZE,
# KERN_FUZZ), applied through kern_set_options(). The ANTLR-generated parser sources are compiled with -w by their target.
function(kern_set_options target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  # GCC 12 inlines std::string's operator+(const char *, string &&) and assign(const char *) at
  # -O2/-O3 and then warns that __builtin_memcpy "may overlap up to 9223372036854775813 bytes"
  # (GCC bugs 105329 and 105651, fixed in GCC 13). It fires on plain string concatenations in
  # several files and has no other finding here, so only this compiler loses the warning.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
     AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
  endif()
  if(KERN_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  target_include_directories(${target} PUBLIC ${KERN_ROOT} ${KERN_ROOT}/include)
  if(KERN_SANITIZE)
    # No recovery: the first report ends the process with an error, so the test that hit it fails.
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-sanitize-recover=all
                                             -fno-omit-frame-pointer)
    # PUBLIC: an executable that links a sanitized layer (tests/api, samples/embed) needs the
    # sanitizer runtimes too.
    target_link_options(${target} PUBLIC -fsanitize=address,undefined)
  endif()
  if(KERN_FUZZ)
    # Coverage for libFuzzer (the targets in tests/fuzz link its driver with -fsanitize=fuzzer)
    # and the sanitizers, every report fatal. Not -fsanitize=function: the runtime calls the
    # JIT's machine code through function pointers, and that code has no type signature before
    # its entry for the check to read.
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link,address,undefined
                                             -fno-sanitize=function -fno-sanitize-recover=all
                                             -fno-omit-frame-pointer)
    target_link_options(${target} PUBLIC -fsanitize=address,undefined)
  endif()
endfunction()
