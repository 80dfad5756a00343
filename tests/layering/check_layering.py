#!/usr/bin/env python3
# Checks kern's layering: every #include of every source against the allowed arrows, ANTLR only
# in frontend/, LLVM only in backend/ (never in tests, directly or through a header), and no
# source file over 1,000 lines (docs/architecture.md).
"""Usage: check_layering.py [REPO_ROOT]

Prints each violation as `file:line: layer -> layer (header)` (or `file: N lines`) and exits 1
if there is any, 0 otherwise.
"""

import os
import re
import sys

MAX_LINES = 1000
SOURCE_EXTENSIONS = (".c", ".cc", ".cpp", ".h", ".hpp", ".def", ".inc")

# Top-level directories and the floor each belongs to (a directory that does not exist yet,
# such as engine/ or bindings/, is simply not scanned).
LAYER_OF_DIR = {
    "tools": "surfaces",
    "bindings": "surfaces",
    "include": "include/kern",
    "engine": "engine",
    "runtime": "runtime",
    "backend": "backend",
    "ir": "ir",
    "frontend": "frontend",
}

# What each floor may include, besides itself.
ALLOWED = {
    "surfaces": {"include/kern"},
    "include/kern": set(),
    "engine": {"include/kern", "runtime", "backend", "ir", "frontend"},
    "runtime": set(),  # plus RUNTIME_SEES_OF_BACKEND
    "backend": {"ir", "frontend"},
    "ir": {"frontend"},
    "frontend": set(),
}

# The only backend headers the runtime sees: the ABI of compiled code and the program image.
RUNTIME_SEES_OF_BACKEND = {
    "backend/abi.h",
    "backend/runtime_functions.def",  # the ABI's table of runtime functions (abi.h includes it)
    "backend/counter_fields.def",  # the ABI's counter record, field by field (abi.h includes it)
    "backend/program_image.h",
}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')

# Headers of the ANTLR runtime and of the parser it generates from grammar/Kern.g4.
ANTLR_HEADER = re.compile(r"^(antlr4-runtime(\.h|/)|Kern(Lexer|Parser|Visitor|BaseVisitor)\.h$)")
LLVM_HEADER = re.compile(r"^llvm(-c)?/")


def layer_of(rel):
    """The floor of a repository-relative path, or None outside kern's layers."""
    top = rel.split("/", 1)[0]
    return LAYER_OF_DIR.get(top)


def resolve(root, rel_file, name, quoted):
    """The repository-relative path an #include of `name` in rel_file refers to, or None."""
    candidates = [
        name,  # "layer/file.h" from the repository root
        os.path.join("include", name),  # "kern/kern.hpp" from include/
    ]
    if quoted:
        candidates.insert(0, os.path.join(os.path.dirname(rel_file), name))  # beside the file
    for cand in candidates:
        cand = os.path.normpath(cand)
        if not cand.startswith("..") and os.path.isfile(os.path.join(root, cand)):
            return cand.replace(os.sep, "/")
    return None


def sources(root):
    for top in sorted(LAYER_OF_DIR):
        base = os.path.join(root, top)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith(SOURCE_EXTENSIONS):
                    yield os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")


def check_file(root, rel):
    """The violations of one file, as printable lines."""
    problems = []
    layer = layer_of(rel)
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    if len(lines) > MAX_LINES:
        problems.append(f"{rel}: {len(lines)} lines (limit {MAX_LINES})")
    for number, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        quote, name = m.groups()
        where = f"{rel}:{number}"
        if ANTLR_HEADER.match(name):
            if layer != "frontend":
                problems.append(f"{where}: {layer} -> ANTLR ({name})")
            continue
        if LLVM_HEADER.match(name):
            if layer != "backend":
                problems.append(f"{where}: {layer} -> LLVM ({name})")
            continue
        target = resolve(root, rel, name, quote == '"')
        if target is None:
            continue  # a system or third-party header
        to = layer_of(target)
        if to is None or to == layer or to in ALLOWED[layer]:
            continue
        if layer == "runtime" and target in RUNTIME_SEES_OF_BACKEND:
            continue
        problems.append(f"{where}: {layer} -> {to} ({target})")
    return problems


def headers_with_third_party(root, rel):
    """The LLVM or ANTLR headers that kern header `rel` includes directly."""
    found = []
    try:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for line in f:
                m = INCLUDE.match(line)
                if m and (ANTLR_HEADER.match(m.group(2)) or LLVM_HEADER.match(m.group(2))):
                    found.append(m.group(2))
    except OSError:
        pass
    return found


def test_sources(root):
    base = os.path.join(root, "tests")
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for f in sorted(filenames):
            if f.endswith((".cpp", ".cc", ".c", ".h", ".hpp")):
                yield os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")


def check_test_file(root, rel):
    """Tests test kern through its layers' headers: ANTLR and LLVM stay out of them, directly or
    through a kern header that includes them."""
    problems = []
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    for number, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        quote, name = m.groups()
        where = f"{rel}:{number}"
        if ANTLR_HEADER.match(name) or LLVM_HEADER.match(name):
            problems.append(f"{where}: tests -> {name}")
            continue
        target = resolve(root, rel, name, quote == '"')
        if target is None or layer_of(target) is None:
            continue
        for third in headers_with_third_party(root, target):
            problems.append(f"{where}: tests -> {third} (through {target})")
    return problems


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(here, "..", ".."))
    problems = []
    count = 0
    for rel in sources(root):
        count += 1
        problems.extend(check_file(root, rel))
    for rel in test_sources(root):
        count += 1
        problems.extend(check_test_file(root, rel))
    if count == 0:
        print(f"layering: no sources found under {root}", file=sys.stderr)
        return 1
    for p in problems:
        print(p)
    if problems:
        print(f"layering: {len(problems)} violation(s) in {count} files "
              "(allowed arrows: docs/architecture.md)")
        return 1
    print(f"layering: {count} files follow the arrows and stay under {MAX_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
