#!/usr/bin/env bash
# Builds kern's libFuzzer targets (tests/fuzz, KERN_FUZZ) with clang in their own build
# directory and runs each one on a seed corpus of kern's test programs; any crash, sanitizer
# report, hang (an input that runs past -timeout) or leak fails the run.
#
# Usage: scripts/fuzz.sh [--no-build] [SECONDS] [TARGET...]
#   SECONDS: how long each target runs (default 60). TARGET: compile, run (default both).
#   --no-build: use the targets already built (what the fuzz/ ctest tests do).
# Environment: KERN_FUZZ_BUILD (default build-fuzz), JOBS (build jobs, default 2),
#   KERN_FUZZ_CC / KERN_FUZZ_CXX (default clang-19 / clang++-19, else clang / clang++),
#   KERN_FUZZ_ARGS (more libFuzzer flags).
# The grown corpus of each target stays in $KERN_FUZZ_BUILD/fuzz/<target>/corpus (later runs
# go on from it); a finding's input is written next to it (crash-*, timeout-*, leak-*, oom-*).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

build_it=1
if [[ ${1:-} == --no-build ]]; then
  build_it=0
  shift
fi
seconds=${1:-60}
[[ $# -gt 0 ]] && shift
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(compile run)
build=${KERN_FUZZ_BUILD:-build-fuzz}
jobs=${JOBS:-2}

if ((build_it)); then
  cc=${KERN_FUZZ_CC:-}
  cxx=${KERN_FUZZ_CXX:-}
  if [[ -z $cxx ]]; then
    if command -v clang++-19 >/dev/null 2>&1; then
      cc=clang-19 cxx=clang++-19
    else
      cc=clang cxx=clang++
    fi
  fi
  launcher=()
  if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  generator=()
  [[ -f $build/CMakeCache.txt ]] || generator=(-G Ninja)
  # -O1 with line tables: fast enough to fuzz, and reports name files and lines. Assertions
  # stay on (no NDEBUG): a failed one is a finding too.
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
        "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DKERN_FUZZ=ON \
        -DKERN_BUILD_TESTS=OFF -DKERN_WERROR=OFF "${launcher[@]}" >/dev/null
  cmake --build "$build" -j"$jobs" --target kern_fuzz_compile kern_fuzz_run
fi

# The seeds: every language test, diagnostic, fault test and sample, copied into a scratch
# directory (libFuzzer reads them; the grown corpus is written elsewhere).
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/seeds"
n=0
while IFS= read -r -d '' f; do
  cp "$f" "$scratch/seeds/$n.kern"
  n=$((n + 1))
done < <(find tests/lang tests/diagnostics tests/faults samples -maxdepth 1 -name '*.kern' \
              -print0 2>/dev/null; find tests/lang tests/faults -mindepth 2 -name '*.kern' -print0)
echo "fuzz: $n seed programs"

# Every report is fatal and carries a stack; leaks are checked after each input
# (-detect_leaks=1), with the suppressions of scripts/lsan.supp.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

status=0
for t in "${targets[@]}"; do
  bin=$build/tests/fuzz/kern_fuzz_$t
  if [[ ! -x $bin ]]; then
    echo "fuzz: no $bin (build with scripts/fuzz.sh, or KERN_FUZZ=ON)" >&2
    exit 2
  fi
  dir=$build/fuzz/$t
  mkdir -p "$dir/corpus"
  log=$dir/fuzz.log
  echo "fuzz: kern_fuzz_$t for ${seconds}s (log: $log)"
  rc=0
  # shellcheck disable=SC2086 # KERN_FUZZ_ARGS is a list of flags
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -detect_leaks=1 \
    -dict="$root/tests/fuzz/kern.dict" -print_final_stats=1 \
    -artifact_prefix="$dir/" ${KERN_FUZZ_ARGS:-} "$dir/corpus" "$scratch/seeds" >"$log" 2>&1 ||
    rc=$?
  # libFuzzer's final statistics: executions, and coverage (cov: edges, ft: features).
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true)
  [[ -n $done_line ]] || done_line=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  execs=$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}' || true)
  cov=$(grep -oE 'cov: [0-9]+' <<<"$done_line" | awk '{print $2}' || true)
  ft=$(grep -oE 'ft: [0-9]+' <<<"$done_line" | awk '{print $2}' || true)
  echo "fuzz: kern_fuzz_$t: executions ${execs:-?}, cov: ${cov:-?}, ft: ${ft:-?}, corpus: $(ls "$dir/corpus" | wc -l) files"
  if ((rc != 0)); then
    echo "fuzz: kern_fuzz_$t found something (exit $rc):" >&2
    grep -E 'ERROR|WARNING|SUMMARY|runtime error|Test unit written|deadly signal|timeout' "$log" |
      head -n 20 >&2 || true
    status=1
  fi
done
exit $status
