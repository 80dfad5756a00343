#!/bin/sh
# The speed-up of 2 workers over 1 on a compute-heavy sample (samples/mandelbrot.kern), the
# figure issue 4 asks for (goal: 1.8x or more on 2 cores). Not a test: timings vary with load.
#   bench/workers.sh [KERN] [FRAMES]     defaults: build/kern, 40 frames
kern=${1:-build/kern}
frames=${2:-40}
sample=$(dirname "$0")/../samples/mandelbrot.kern
best() { # best of 3 wall-clock times, in seconds, of kern run --workers $1
  b=""
  for i in 1 2 3; do
    s=$(date +%s.%N)
    "$kern" run --workers "$1" "$sample" -- "$frames" >/dev/null || { echo "run failed" >&2; exit 1; }
    e=$(date +%s.%N)
    b=$(echo "$s $e $b" | awk '{t = $2 - $1; if ($3 == "" || t < $3) print t; else print $3}')
  done
  echo "$b"
}
t1=$(best 1)
t2=$(best 2)
echo "mandelbrot, $frames frames: 1 worker $t1 s, 2 workers $t2 s" |
  awk -v a="$t1" -v b="$t2" '{printf "%s, speed-up %.2fx\n", $0, a / b}'
