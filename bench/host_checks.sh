#!/usr/bin/env bash
# The cost of host code's memory checks on W1-W6: each program is run whole (one launch) by a
# kern binary with the checks (B) and one without them (A, e.g. a build of an earlier commit),
# and again with n = 1, which leaves compilation and start-up: the program's own part is
# t(default n) - t(n = 1), host loops plus one launch and its copies. The checks' share of the
# host part is (B - A) / (A's part - the launch's time from bench/results.json).
#
# usage: bench/host_checks.sh A_KERN B_KERN [ROUNDS]   (the fastest of ROUNDS runs, default 7)
set -euo pipefail
export LC_ALL=C
cd "$(dirname "${BASH_SOURCE[0]}")/.."

a=${1:?usage: bench/host_checks.sh A_KERN B_KERN [ROUNDS]}
b=${2:?usage: bench/host_checks.sh A_KERN B_KERN [ROUNDS]}
rounds=${3:-7}

# The minimum over rounds: other work on the machine only ever adds time.
fastest() { sort -g | head -1; }
wall() { # kern file args...: the fastest wall time in ms
  local k=$1 f=$2
  shift 2
  for ((r = 0; r < rounds; r++)); do
    local s e
    s=$(date +%s%N)
    "$k" run "$f" -- "$@" >/dev/null 2>&1 || true
    e=$(date +%s%N)
    echo $(((e - s) / 1000))
  done | fastest | awk '{printf "%.1f", $1 / 1000}'
}

printf '%-18s %10s %10s %10s %10s %12s\n' workload "A ms" "B ms" "n=1 ms" "launch ms" "B/A host"
for w in 1 2 3 4 5 6; do
  f=$(ls bench/w${w}_*.kern)
  launch=$(python3 -c "
import json
for r in json.load(open('bench/results.json'))['workloads']:
    if r['workload'].startswith('W$w '):
        print(r['fast_2w_ms'])
        break
else:
    print(0)")
  ta=$(wall "$a" "$f" 1)
  tb=$(wall "$b" "$f" 1)
  t1=$(wall "$b" "$f" 1 1)
  ratio=$(awk -v a="$ta" -v b="$tb" -v c="$t1" -v l="$launch" \
    'BEGIN { h = a - c - l; if (h <= 0) print "n/a"; else printf "%.2f", (h + b - a) / h }')
  printf '%-18s %10s %10s %10s %10s %12s\n' "$(basename "$f" .kern)" "$ta" "$tb" "$t1" "$launch" "$ratio"
done
