#!/usr/bin/env bash
# The cost of host code's memory checks on W1-W6: each program is run whole by a kern binary
# with the checks (B) and one without them (A, e.g. a build of the same commit whose
# checkedAddress returns the address unchecked). For each binary the program's own host part
# is taken apart from compilation, start-up and the launches:
#   host = t(1 launch, n) - t(1 launch, smallest n) - (t(2 launches, n) - t(1 launch, n))
# (the smallest n leaves compilation and start-up, the second launch measures one launch), and
# the checks' share is host(B) / host(A). Both binaries compile their own code, so a
# difference in compile time is not counted as host time.
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

printf '%-16s %9s %9s %9s %9s %9s %9s\n' workload "A ms" "A host" "B ms" "B host" "launch" "B/A host"
small() { case $1 in 3) echo 16 ;; 4) echo 32 ;; *) echo 1 ;; esac; }
host_part() { # kern file w: prints "t(1, n) host launch"
  local k=$1 f=$2 w=$3
  local full two tiny
  full=$(wall "$k" "$f" 1)
  two=$(wall "$k" "$f" 2)
  tiny=$(wall "$k" "$f" 1 "$(small "$w")")
  awk -v f="$full" -v t="$two" -v s="$tiny" 'BEGIN { l = t - f; printf "%s %.1f %.1f", f, f - s - l, l }'
}
for w in 1 2 3 4 5 6; do
  f=$(ls bench/w${w}_*.kern)
  read -r ta ha la <<<"$(host_part "$a" "$f" "$w")"
  read -r tb hb lb <<<"$(host_part "$b" "$f" "$w")"
  ratio=$(awk -v a="$ha" -v b="$hb" 'BEGIN { if (a <= 0) print "n/a"; else printf "%.2f", b / a }')
  printf '%-16s %9s %9s %9s %9s %9s %9s\n' "$(basename "$f" .kern)" "$ta" "$ha" "$tb" "$hb" "$la" "$ratio"
done
