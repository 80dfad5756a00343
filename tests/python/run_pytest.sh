#!/bin/sh
# Runs the Python module's pytest suite with the interpreter the module was built for; exits 77
# (skipped) where NumPy or pytest is missing. Usage: run_pytest.sh PYTHON MODULE_DIR KERN ROOT
python=$1 module=$2 kern=$3 root=$4
if ! "$python" -c "import numpy, pytest" 2>/dev/null; then
  echo "python: numpy or pytest missing for $python: skipped"
  exit 77
fi
PYTHONPATH="$module" KERN_CLI="$kern" KERN_ROOT="$root" \
  exec "$python" -m pytest -q -p no:cacheprovider "$root/tests/python"
