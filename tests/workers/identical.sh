#!/bin/sh
# Runs a program with 1, 2 and 4 workers (2 and 4 twice) and checks that stdout, stderr, the exit
# code and every counter (--counters-text) are the same every time (ARCHITECTURE.md: nothing
# observable depends on the number of workers or on their timing), and that its stdout is the
# same in fast and checked mode, and without block forms.
#   identical.sh KERN FILE.kern [ARGS...]   (ARGS reach the program's argv)
kern=$1 file=$2
shift 2
tmp=${TMPDIR:-/tmp}/kern_workers.$$
mkdir -p "$tmp"
for run in 1 2 2b 4 4b; do
  w=${run%b}
  "$kern" run --workers $w --counters-text "$tmp/counters$run" "$file" -- "$@" >"$tmp/out$run" 2>"$tmp/err$run"
  echo $? >"$tmp/rc$run"
done
status=0
# same RUN WHAT: stdout, stderr, exit code and counters of run RUN are those of --workers 1.
same() {
  for f in out err rc counters; do
    if ! cmp -s "$tmp/${f}1" "$tmp/$f$1"; then
      echo "FAIL: $f $2 differs from --workers 1"
      diff "$tmp/${f}1" "$tmp/$f$1" | head -20
      status=1
    fi
  done
}
for run in 2 2b 4 4b; do
  same $run "of run $run (--workers ${run%b})"
done
# The same again where no kernel runs in its block form (warp_blocks.cpp): each warp runs to its
# barriers in turn, and every count is each warp's own.
KERN_BLOCK_FORM=0 "$kern" run --workers 2 --counters-text "$tmp/countersnoblock" "$file" -- "$@" \
  >"$tmp/outnoblock" 2>"$tmp/errnoblock"
echo $? >"$tmp/rcnoblock"
same noblock "with KERN_BLOCK_FORM=0"
# The program's own output is the same in fast and checked mode too (counting and checking
# never change what a program does).
"$kern" run --workers 2 "$file" -- "$@" >"$tmp/outfast" 2>/dev/null
"$kern" run --workers 2 --checked "$file" -- "$@" >"$tmp/outchecked" 2>/dev/null
for m in fast checked; do
  if ! cmp -s "$tmp/out1" "$tmp/out$m"; then
    echo "FAIL: stdout in $m mode differs from profile mode"
    diff "$tmp/out1" "$tmp/out$m" | head -20
    status=1
  fi
done
[ -s "$tmp/out1" ] || { echo "FAIL: no output"; status=1; }
[ -s "$tmp/counters1" ] || { echo "FAIL: no counters"; status=1; }
rm -rf "$tmp"
exit $status
