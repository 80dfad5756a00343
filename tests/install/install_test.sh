#!/bin/sh
# Installs kern into a prefix inside the build tree, then builds samples/embed (a CMake project
# of its own) against it with find_package(kern), once with the shared library and once with
# the static one, and the C sample with pkg-config (kern.pc, kern-static.pc); runs each.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR CMAKE
set -eu
build=$1 src=$2 cmake=$3
work=$build/install-test
rm -rf "$work"
mkdir -p "$work"
log=$work/log
step() { # what command...: runs it, shows its output only if it fails
  what=$1
  shift
  "$@" > "$log" 2>&1 || { echo "install test: $what failed:"; cat "$log"; exit 1; }
}
step install "$cmake" --install "$build" --prefix "$work/prefix"
prefix=$work/prefix
test -x "$prefix/bin/kern"
test -f "$prefix/include/kern/kern.h"
test -f "$prefix/lib/libkern.a"
test -L "$prefix/lib/libkern.so"
"$prefix/bin/kern" --version
# The package is relocatable: moved elsewhere, it still works.
mv "$prefix" "$work/moved"
prefix=$work/moved

for kind in shared static; do
  static=OFF
  [ $kind = static ] && static=ON
  step "configure ($kind)" "$cmake" -S "$src/samples/embed" -B "$work/embed-$kind" -G Ninja \
    -DCMAKE_PREFIX_PATH="$prefix" -DKERN_EMBED_STATIC=$static
  step "build ($kind)" "$cmake" --build "$work/embed-$kind"
  "$work/embed-$kind/embed_saxpy_cpp"
  "$work/embed-$kind/embed_saxpy_c"
done
# Linked as asked: the shared build needs libkern.so, the static one does not.
readelf -d "$work/embed-shared/embed_saxpy_c" | grep -q 'libkern\.so'
if readelf -d "$work/embed-static/embed_saxpy_c" | grep -q 'libkern\.so'; then
  echo "install test: the static build links libkern.so"
  exit 1
fi

# pkg-config: compile and link the C sample by hand, against either library.
if command -v pkg-config > /dev/null; then
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
  cc -o "$work/saxpy_pc" "$src/samples/embed/saxpy.c" $(pkg-config --cflags --libs kern) \
    -Wl,-rpath,"$prefix/lib"
  "$work/saxpy_pc"
  cc -o "$work/saxpy_pc_static" "$src/samples/embed/saxpy.c" \
    $(pkg-config --cflags --libs kern-static)
  "$work/saxpy_pc_static"
fi
echo "install test: ok"
