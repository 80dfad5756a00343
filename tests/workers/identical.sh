#!/bin/sh
# Runs a program with 1, 2 and 4 workers and checks that stdout, stderr and the exit code are
# the same every time (ARCHITECTURE.md: nothing observable depends on the number of workers).
#   identical.sh KERN FILE.kern
kern=$1 file=$2
tmp=${TMPDIR:-/tmp}/kern_workers.$$
mkdir -p "$tmp"
for w in 1 2 4; do
  "$kern" run --workers $w "$file" >"$tmp/out$w" 2>"$tmp/err$w"
  echo $? >"$tmp/rc$w"
done
status=0
for w in 2 4; do
  for f in out err rc; do
    if ! cmp -s "$tmp/${f}1" "$tmp/$f$w"; then
      echo "FAIL: $f with --workers $w differs from --workers 1"
      diff "$tmp/${f}1" "$tmp/$f$w" | head -20
      status=1
    fi
  done
done
[ -s "$tmp/out1" ] || { echo "FAIL: no output"; status=1; }
rm -rf "$tmp"
exit $status
