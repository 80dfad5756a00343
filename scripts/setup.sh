#!/usr/bin/env bash
# Installs kern's build dependencies (Debian 12, as root) if any are missing, then configures and builds.
# Usage: scripts/setup.sh [extra CMake options]
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Everything comes from bookworm main (llvm-19-dev included). Debian's antlr4 tool needs a Java
# runtime: any installed JRE satisfies it, default-jre-headless is only pulled in when none is.
# LLVM's CMake config also looks for zlib, libedit and zstd, but only its static component
# targets need them; kern links the one shared libLLVM-19, so zstd is not required.
# The ANTLR runtime's CMake target links libuuid (uuid-dev); the REPL, CLI and install tests
# run under python3 and pkg-config. scripts/check-format.sh runs exactly clang-format-14.
# libseccomp-dev gives `kern run --sandbox` its system-call filter (docs/sandbox.md); the REPL's
# Ctrl-C test types into a tmux terminal. Header-only: libcli11-dev reads the kern command's
# options, nlohmann-json3-dev reads and writes the JSON of reports, traces and device profiles.
# chromium renders the HTML report headless in its browser test (tests/browser). The Python
# module (bindings/python) is built with pybind11-dev and python3-dev, and tested with
# python3-numpy and python3-pytest.
packages=(cmake ninja-build g++ llvm-19-dev libantlr4-runtime-dev antlr4 catch2
          libboost-context-dev libedit-dev clang-format clang-format-14 zlib1g-dev python3
          pkg-config uuid-dev libseccomp-dev tmux libcli11-dev nlohmann-json3-dev chromium
          pybind11-dev python3-dev python3-numpy python3-pytest)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null | grep -qx installed; then
    missing+=("$pkg")
  fi
done
if ! command -v java >/dev/null 2>&1; then
  missing+=(default-jre-headless)
fi

if ((${#missing[@]} > 0)); then
  echo "setup: installing ${missing[*]}"
  if ((EUID != 0)); then
    echo "setup: missing packages and not root; install them with: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi

# Arguments are extra CMake options (CI passes -DKERN_WERROR=ON); they are applied to an existing
# build directory too.
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
elif [[ $# -gt 0 || ( ! -f build/build.ninja && ! -f build/Makefile ) ]]; then
  # New options, or a configure that stopped half-way: the generator and other options cached.
  cmake -S . -B build "$@"
fi
cmake --build build -j"$(nproc)"
