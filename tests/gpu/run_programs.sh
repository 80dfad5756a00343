#!/usr/bin/env bash
# Builds every program of tests/programs/ with nvcc and runs it on this machine's GPU, so that
# its output can be compared with the expected.txt that kern is tested against.
#
#   tests/gpu/run_programs.sh OUTDIR            build and run each program; write OUTDIR/<name>.out
#                                               (stdout), <name>.err (stderr), <name>.rc (exit
#                                               code), then compare (below)
#   tests/gpu/run_programs.sh --compare OUTDIR  only compare the outputs already in OUTDIR
#
# Compare: per program, "same" when <name>.out equals expected.txt and <name>.rc equals
# expected_exit.txt (0 if absent), else "different" with a diff. Exit status 1 if any differ.
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc), ARCH (sm_90).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
programs="$root/tests/programs"

compare_only=0
if [[ ${1:-} == --compare ]]; then
  compare_only=1
  shift
fi
if [[ $# -ne 1 ]]; then
  sed -n '2,13p' "${BASH_SOURCE[0]}"
  exit 2
fi
mkdir -p "$1"
out="$(cd "$1" && pwd)"

names=()
for dir in "$programs"/*/; do
  [[ -f $dir/expected.txt ]] && names+=("$(basename "$dir")")
done

if ((!compare_only)); then
  NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  ARCH=${ARCH:-sm_90}
  for name in "${names[@]}"; do
    dir="$programs/$name"
    mapfile -t units < <(python3 "$programs/run.py" --units "$dir")
    args=()
    [[ -f $dir/args.txt ]] && read -r -a args <"$dir/args.txt"
    rm -f "$out/$name".{out,err,rc,build}
    if ! (cd "$dir" && "$NVCC" -rdc=true -arch="$ARCH" -I "$root/frontend/headers" \
      -o "$out/$name.bin" "${units[@]}") >"$out/$name.build" 2>&1; then
      echo "$name: nvcc failed (see $out/$name.build)"
      echo "build failed" >"$out/$name.rc"
      continue
    fi
    (cd "$dir" && "$out/$name.bin" "${args[@]}" >"$out/$name.out" 2>"$out/$name.err")
    echo $? >"$out/$name.rc"
  done
fi

differ=0
for name in "${names[@]}"; do
  dir="$programs/$name"
  want_rc=0
  [[ -f $dir/expected_exit.txt ]] && want_rc=$(tr -d '[:space:]' <"$dir/expected_exit.txt")
  got_rc=$(tr -d '[:space:]' <"$out/$name.rc" 2>/dev/null || echo missing)
  if [[ -f $out/$name.out ]] && cmp -s "$dir/expected.txt" "$out/$name.out" &&
    [[ $got_rc == "$want_rc" ]]; then
    echo "same       $name"
  else
    echo "different  $name (exit code $got_rc, expected $want_rc)"
    diff -u --label "$name/expected.txt" --label "$name.out (GPU)" "$dir/expected.txt" \
      "$out/$name.out" 2>&1 | sed 's/^/    /'
    differ=1
  fi
done
exit $differ
