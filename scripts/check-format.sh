#!/usr/bin/env bash
# Fails, listing the files, if any tracked C/C++ source or header of kern is not formatted as
# .clang-format says, by the pinned clang-format (Debian 12's clang-format-14).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Pinned: another version formats some constructs differently, so the check would flap.
CLANG_FORMAT=${CLANG_FORMAT:-clang-format-14}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "check-format: $CLANG_FORMAT not found (scripts/setup.sh installs it)" >&2
  exit 2
fi

# Every tracked C and C++ file. Not the .def X-macro tables (clang-format breaks their rows),
# nor tests/gpu/*.cu (CUDA for nvcc, kept in the layout of the .kern tests); the ANTLR parser
# is generated into the build directory and never tracked.
mapfile -t files < <(git ls-files -- '*.c' '*.cc' '*.cpp' '*.h' '*.hpp')
if ((${#files[@]} == 0)); then
  echo "check-format: no tracked sources found (not a git checkout?)" >&2
  exit 2
fi

unformatted=()
for f in "${files[@]}"; do
  [[ -f $f ]] || continue # deleted in the work tree, not yet in the index
  if ! "$CLANG_FORMAT" --dry-run -Werror "$f" >/dev/null 2>&1; then
    unformatted+=("$f")
  fi
done

if ((${#unformatted[@]} > 0)); then
  echo "check-format: ${#unformatted[@]} of ${#files[@]} files are not formatted; fix with" \
       "$CLANG_FORMAT -i:" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted ($("$CLANG_FORMAT" --version))"
