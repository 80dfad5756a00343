#!/bin/sh
# Installs kern into a prefix inside the build tree, then configures, builds and runs a separate
# project against it with find_package(kern) and with pkg-config.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR CMAKE
set -eu
build=$1 src=$2 cmake=$3
work=$build/install-test
rm -rf "$work"
"$cmake" --install "$build" --prefix "$work/prefix" > "$work.log" 2>&1 || { cat "$work.log"; exit 1; }
test -x "$work/prefix/bin/kern"
test -f "$work/prefix/include/kern/kern.h"
"$work/prefix/bin/kern" --version
"$cmake" -S "$src/tests/install/project" -B "$work/project" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DKERN_SAMPLES="$src/samples/embed" > "$work.log" 2>&1 \
  || { cat "$work.log"; exit 1; }
"$cmake" --build "$work/project" > "$work.log" 2>&1 || { cat "$work.log"; exit 1; }
"$work/project/saxpy_cpp"
"$work/project/saxpy_c"
# pkg-config: compile and link the C sample by hand.
if command -v pkg-config > /dev/null; then
  export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
  cc -o "$work/saxpy_pc" "$src/samples/embed/saxpy.c" $(pkg-config --cflags --libs kern)
  "$work/saxpy_pc"
fi
echo "install test: ok"
