#!/bin/sh
# Runs one kern CLI command and compares its stdout with an expected file and its exit code.
#   cli_test.sh KERN EXPECTED_STDOUT EXPECTED_EXIT ARGS...
kern=$1 expected=$2 code=$3
shift 3
actual=$("$kern" "$@" 2>/tmp/kern_cli_test_err.$$)
rc=$?
status=0
if [ "$rc" != "$code" ]; then
  echo "FAIL: kern $* exited with $rc, expected $code"
  status=1
fi
if [ "$actual" != "$(cat "$expected")" ]; then
  echo "FAIL: kern $*: stdout differs from $expected"
  printf '%s\n' "$actual" | diff "$expected" - | head -40
  status=1
fi
[ $status = 0 ] || { echo "--- stderr ---"; cat /tmp/kern_cli_test_err.$$; }
rm -f /tmp/kern_cli_test_err.$$
exit $status
