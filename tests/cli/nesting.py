#!/usr/bin/env python3
"""Deeply nested programs get one clear "nesting too deep" error, never a crash: thousands of
parentheses, blocks, `else if`s and `case` labels, and nested `#if` operands; moderately deep
nesting still compiles and runs. Usage: nesting.py KERN"""
import os
import subprocess
import sys
import tempfile

KERN = sys.argv[1]
tmp = tempfile.mkdtemp()
failures = []


def run(name, text, code, err=None, out=None):
    path = os.path.join(tmp, name + ".cu")
    with open(path, "w") as f:
        f.write(text)
    p = subprocess.run([KERN, "run", path], capture_output=True, text=True, timeout=120)
    if p.returncode != code:
        failures.append(f"{name}: exit {p.returncode}, expected {code}\n{p.stderr[:2000]}")
    if err and err not in p.stderr:
        failures.append(f"{name}: stderr lacks {err!r}\n{p.stderr[:2000]}")
    if out is not None and p.stdout != out:
        failures.append(f"{name}: stdout {p.stdout[:200]!r}, expected {out!r}")


DEEP = "nesting too deep: the program nests parentheses, blocks or statements more deeply"
n = 5000
run("parens", "int main() { return " + "(" * n + "1" + ")" * n + "; }\n", 1, DEEP)
run("blocks", "int main() { int x = 0; " + "{" * 20000 + "x++;" + "}" * 20000 + " return x; }\n",
    1, DEEP)
run("else_if", "int main(int argc, char **argv) { int x = argc;\n" +
    " ".join(f"if (x == {i}) x = {i + 1}; else" for i in range(30000)) + " x = 7; return x; }\n",
    1, DEEP)
run("cases", "int main(int argc, char **argv) { int x = 0; switch (argc) {\n" +
    " ".join(f"case {i}:" for i in range(50000)) + " x = 1; } return x; }\n", 1, DEEP)
run("pp_parens", "#if " + "(" * n + "1" + ")" * n + "\nint main() { return 0; }\n#endif\n", 1,
    "error: nesting too deep in preprocessor expression")
run("pp_ternary", "#if " + "1 ? " * n + "1" + " : 0" * n + "\nint main() { return 0; }\n#endif\n",
    1, "error: nesting too deep in preprocessor expression")
# What real code nests compiles: 300 parentheses, 300 blocks, 300 else-ifs, in a kernel too.
m = 300
run("moderate",
    "#include <stdio.h>\n"
    "__global__ void k(int *p) { *p = " + "(" * m + "1" + ")" * m + "; }\n"
    "int main(int argc, char **argv) {\n"
    "  int x = 0, *d, h = 0;\n  " + "{" * m + "x++;" + "}" * m + "\n"
    "  " + " ".join(f"if (argc == {i + 5}) x += {i}; else" for i in range(m)) + " x += 1;\n"
    "  cudaMalloc(&d, sizeof(int));\n  k<<<1, 1>>>(d);\n"
    "  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);\n"
    "  printf(\"%d %d\\n\", x, h);\n  return 0;\n}\n", 0, out="2 1\n")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
