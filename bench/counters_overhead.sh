#!/usr/bin/env bash
# The cost of counting: wall time of `kern run` with counters off and with --stats (every
# counter on) on each sample, median of N rounds (default 3), and the ratio. Usage:
#   bench/counters_overhead.sh [KERN] [ROUNDS]
set -u
cd "$(dirname "$0")/.."
kern=${1:-build/kern}
rounds=${2:-3}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timeit() { # prints seconds of one run
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  e=$(date +%s.%N)
  echo "$e - $s" | bc -l
}
printf "%-22s %10s %10s %8s\n" sample "off (s)" "--stats (s)" ratio
for f in samples/*.kern; do
  off=$(for r in $(seq "$rounds"); do timeit "$kern" run "$f"; done | median)
  on=$(for r in $(seq "$rounds"); do timeit "$kern" run --stats "$f"; done | median)
  printf "%-22s %10.3f %10.3f %8.2f\n" "$(basename "$f" .kern)" "$off" "$on" "$(echo "$on / $off" | bc -l)"
done
