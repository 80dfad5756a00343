#!/usr/bin/env bash
# Prints the compile time of the templated CUDA C++ program that bench/gen_templated.py writes
# (about 1,000 lines: 12 groups of class templates with operators and member functions, 72
# kernel instances): the wall and CPU time of `kern run` (front end, JIT at -O2, and the
# launches, which take milliseconds), the best of several runs, and the front end's share alone
# (`kern emit --ir`). Not a timed test: a measurement for bench/RESULTS.md.
#
# usage: bench/compile_time.sh [--kern PATH] [--rounds N] [--groups G]
set -euo pipefail
export LC_ALL=C

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kern="$root/build/kern"
rounds=3
groups=12
while [[ $# -gt 0 ]]; do
    case "$1" in
        --kern) kern="$2"; shift ;;
        --rounds) rounds="$2"; shift ;;
        --groups) groups="$2"; shift ;;
        *) echo "usage: $0 [--kern PATH] [--rounds N] [--groups G]" >&2; exit 2 ;;
    esac
    shift
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
program="$work/templated.cu"
python3 "$root/bench/gen_templated.py" "$groups" > "$program"
echo "program: $(wc -l < "$program") lines, $groups groups"

# The best of `rounds` runs of a command: wall seconds and CPU (user + system) seconds.
best() {
    local best_wall="" best_cpu=""
    for ((r = 0; r < rounds; ++r)); do
        local t
        /usr/bin/time -o "$work/time.txt" -f "%e %U %S" "$@" > /dev/null 2>&1
        t="$(tail -1 "$work/time.txt")"
        local wall cpu
        wall="$(awk '{print $1}' <<< "$t")"
        cpu="$(awk '{printf "%.2f", $2 + $3}' <<< "$t")"
        if [[ -z "$best_wall" ]] || awk -v a="$wall" -v b="$best_wall" 'BEGIN{exit !(a < b)}'; then
            best_wall="$wall"
        fi
        if [[ -z "$best_cpu" ]] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN{exit !(a < b)}'; then
            best_cpu="$cpu"
        fi
    done
    echo "$best_wall s wall, $best_cpu s CPU"
}

if ! "$kern" run "$program" > "$work/out.txt" 2>&1 || ! grep -qx PASS "$work/out.txt"; then
    echo "the program failed:" >&2
    cat "$work/out.txt" >&2
    exit 1
fi
echo "kern run (compile and run): $(best "$kern" run "$program")"
echo "front end only (emit --ir): $(best "$kern" emit --ir "$program")"
