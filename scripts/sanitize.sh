#!/usr/bin/env bash
# Builds kern with AddressSanitizer and UndefinedBehaviorSanitizer (KERN_SANITIZE) in its own
# build directory and runs the tests under them; any report fails the run.
#
# Usage: scripts/sanitize.sh [ctest name regex]
#   default: the unit and language tests and every other test that runs kern's own code (api,
#   cli, repl, diagnostics, faults, counters, workers, samples); not nvcc/, install/ (a separate
#   project against the installed package), bench/ (long) or layering/ (reads sources only),
#   nor counters/figure_ranges (it runs every sample and test program again to read their
#   figures; those programs run under the sanitizers in their own tests).
# Environment: KERN_SANITIZE_BUILD (default build-asan), JOBS (default nproc).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=${KERN_SANITIZE_BUILD:-build-asan}
jobs=${JOBS:-$(nproc)}
tests=${1:-'^(unit|lang|api|cli|repl|diagnostics|faults|counters|workers|samples)/'}

# kern's own code is instrumented; libLLVM, the ANTLR runtime and the warp code the JIT emits
# are not (the JIT'd code runs as in the normal build, and its calls into the runtime are
# checked on the runtime's side). RelWithDebInfo: reports name files and lines.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
# Not -Werror: the instrumentation makes GCC's flow analysis report -Wmaybe-uninitialized in
# libstdc++ (std::function inside std::regex) where there is none; the -Werror gate is the main
# build's.
generator=()
[[ -f $build/CMakeCache.txt ]] || generator=(-G Ninja)
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKERN_SANITIZE=ON \
      -DKERN_WERROR=OFF "${launcher[@]}" >/dev/null
cmake --build "$build" -j"$jobs"

# Every report is fatal: halt_on_error for ASan (and UBSan, whose checks are also compiled
# with -fno-sanitize-recover), and a failing exit code the test drivers pass on. Leak
# detection stays on; scripts/lsan.supp lists the leaks that are not kern's, each with why.
supp="$PWD/scripts/lsan.supp"
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=0:exitcode=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

ctest --test-dir "$build" -j"$jobs" --output-on-failure -R "$tests" -E '^counters/figure_ranges$'
