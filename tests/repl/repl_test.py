#!/usr/bin/env python3
"""Drives the kern REPL through a pseudo-terminal (libedit: prompts, history, completion) or
through a pipe on stdin, and checks what it prints. Usage: repl_test.py KERN pty|stdin"""
import os
import pty
import select
import subprocess
import sys
import tempfile
import time

KERN, MODE = sys.argv[1], sys.argv[2]

# Files for `:load FILE...`: loaded in order, in the session's one scope.
LOAD_DIR = tempfile.mkdtemp()
LIB = os.path.join(LOAD_DIR, "lib.cu")
USE = os.path.join(LOAD_DIR, "use.cu")
HTML = os.path.join(LOAD_DIR, "session.html")
with open(LIB, "w") as f:
    f.write("int triple(int x) { return 3 * x; }\n")
with open(USE, "w") as f:
    f.write("#include <stdio.h>\nint triple(int x);\n"
            "int main() { printf(\"loaded %d\\n\", triple(14)); return 0; }\n")

SCRIPT = [
    "__global__ void scale(float *a, float s, int n) {",
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;",
    "  if (i < n)",
    "    a[i] = a[i] * s + i;",
    "}",
    "int n_val = 8;",
    "float *d;",
    "cudaMalloc(&d, n_val * sizeof(float));",
    "scale<<<1, 32>>>(d, 2.0f, n_val);",
    "d",
    "n_val * 3",
    "undefined_thing + 1",
    "n_val",
    "printf(\"sum %d\\n\",",
    "       n_val + 1);",
    ":stats",
    ":annotate scale",
    ":emit ir scale",
    "__global__ void scale(float *a, float s, int n) { a[threadIdx.x] = s; }",
    "scale<<<1, 8>>>(d, 5.0f, n_val);",
    "d",
    ":device nosuchgpu",
    ":help",
    ":mode",
    ":mode fast",
    "scale<<<1, 8>>>(d, 1.0f, n_val);",
    ":stats",
    ":mode",
    ":mode turbo",
    ":mode profile",
    "scale<<<1, 8>>>(d, 1.0f, n_val);",
    ":stats",
    # Read with the grammar: a declaration kern rejects gets its own diagnostic, a struct
    # declared in one input is a type in the next, a loop's body may follow on the next line,
    # a comment alone is nothing.
    "struct V : virtual P { };",
    "struct P { float x; };",
    "P p;",
    "p.x = 2.5f;",
    "p.x",
    "int s = 0;",
    "for (int i = 0; i < 4; ++i)",
    "  s += i * 10;",
    "s",
    "int a[4] = {1, 2, 3, 4};",
    "a[3] + 40",
    "// only a comment",
    "do { s--; }",
    "while (s > 50);",
    "s",
    ":load " + LIB + " " + USE,
    "triple(5)",
    # Each input's string literals are its own, though they take the last input's places.
    "printf(\"first %d\\n\", 1);",
    "printf(\"second %d\\n\", 2);",
    "a",  # a host array prints its elements
    ":stats 0",
    ":stats 99",
    "scal",  # a typo is offered the name it is near
    'char word[6] = "hello";',
    "word",
    # Each input has a time limit (10 s unless :timeout says otherwise): an endless loop is
    # stopped and the session goes on.
    ":timeout",
    ":timeout 0.5",
    "for (;;) { }",
    ":timeout 0",
    # A fault: CUDA errors print by name, and the faulted device says why later calls fail
    # until cudaDeviceReset; a host string prints its text.
    "__global__ void bad(float *p) { p[100000000] = 1; }",
    "bad<<<1, 1>>>(d);",
    "cudaDeviceSynchronize()",
    "bad<<<1, 1>>>(d);",
    "cudaDeviceReset()",
    "cudaGetErrorString(cudaErrorInvalidValue)",
    # Checked mode from the prompt: a race is reported; memory allocated before is written.
    ":mode checked",
    "int *r; cudaMalloc(&r, 4);",
    "__global__ void race(int *o) { __shared__ int t; t = threadIdx.x; *o = t; }",
    "race<<<1, 64>>>(r);",
    ":mode",
    ":mode profile",
    # A line drawn lane by lane at each following launch of its kernel.
    "float *e; cudaMalloc(&e, 64 * sizeof(float));",
    ":explain scale 1",
    "scale<<<1, 32>>>(e, 1.0f, 8);",
    ":explain nosuch 1",
    ":explain scale 7",
    ":explain off",
    # The HTML report of the last input's launches.
    ":html " + HTML,
]

EXPECT = [
    "(float *) 0x",
    "(device, 8 x float) {0, 1, 2, 3, 4, 5, 6, 7}",
    "(int) 24",
    "use of undeclared identifier 'undefined_thing'",
    "(int) 8",
    "sum 9",
    "== launch 0: scale<<<1, 32>>>",
    "input 5, line 1: advice: kernel 'scale': grid of 1 blocks leaves 131 of 132 SMs idle",
    "input 1, line 3: advice: 1 of 1 branches divergent",
    "divergent",
    "kernel void @scale",
    "{5, 5, 5, 5, 5, 5, 5, 5}",
    "unknown device 'nosuchgpu'",
    ":annotate KERNEL",
    ":mode [fast|profile|checked]",
    "mode profile\n",
    "mode fast (the following launches count nothing)",
    "== launch 2: scale<<<1, 8>>> was not profiled (fast mode",
    "mode fast\n",
    "usage: :mode [fast|profile|checked]",
    "mode profile (the following launches are counted)",
    "== launch 3: scale<<<1, 8>>> on h100",
    "virtual base classes are not supported",
    "(float) 2.5",
    "(int) 60",
    "(int) 44",
    "(int) 50",
    "loaded 42",
    "(int) 15",
    "first 1",
    "second 2",
    "(int[4]) {1, 2, 3, 4}",
    "no launch '99': the launches so far are 0 to 3",
    "use of undeclared identifier 'scal'; did you mean 'scale'?",
    '(char[6]) "hello"',
    "timeout 10 s per input",
    "timeout 0.5 s per input",
    "error: host code ran longer than the time limit of 0.5 seconds (:timeout;",
    "no timeout\n",
    "(cudaError_t) cudaErrorIllegalAddress (700): an illegal memory access was encountered",
    "kern: note: the device faulted in input",
    "(cudaError_t) cudaSuccess (0)",
    '"invalid argument"',
    "mode checked (the following launches report shared-memory races",
    "shared-memory data race (write-after-write) in kernel 'race'",
    "mode checked\n",
    "kern: each following launch of scale draws its line 1",
    "== :explain scale 1, launch 6 on h100",
    ", line 1:66: global store, 4 B per lane",
    "    moved by     1   1   1   1   1   1   1   1   2",
    "no kernel 'nosuch'",
    "'scale' has no line 7",
    "kern: :explain is off",
    "kern: wrote " + HTML + " (launch 6)",
]


def fail(msg, out):
    sys.stderr.write(f"FAIL: {msg}\n--- output ---\n{out}\n")
    sys.exit(1)


def run_stdin():
    # --keep-going: every input runs; the exit code is the first error's (a compile error).
    p = subprocess.run([KERN, "repl", "--keep-going"], input="\n".join(SCRIPT) + "\n:quit\n",
                       capture_output=True, text=True, timeout=30)
    out = p.stdout + p.stderr
    if p.returncode != 1:
        fail(f"exit code {p.returncode}, expected 1 (the first error's)", out)
    if "kern>" in p.stdout:
        fail("prompts printed for piped input", out)
    # Without --keep-going a script stops at its first error, with its code; -f FILE reads one.
    script = "int a = 4;\na + 1\nundefined_x\nprintf(\"after\\n\");\n"
    p = subprocess.run([KERN, "repl"], input=script, capture_output=True, text=True, timeout=30)
    if p.returncode != 1 or "(int) 5" not in p.stdout or "after" in p.stdout:
        fail(f"a piped script did not stop at its error (exit {p.returncode})", p.stdout + p.stderr)
    path = os.path.join(LOAD_DIR, "script.txt")
    with open(path, "w") as f:
        f.write(script.replace("undefined_x\n", ""))
    p = subprocess.run([KERN, "repl", "-f", path], capture_output=True, text=True, timeout=30)
    if p.returncode != 0 or "after" not in p.stdout:
        fail(f"-f FILE (exit {p.returncode})", p.stdout + p.stderr)
    # A runtime error names the input and its line, never the session's hidden program.
    script = ("__global__ void k(int *p) {\n  p[threadIdx.x + 100000000] = 1;\n}\n"
              "int *d; cudaMalloc(&d, 8);\nk<<<1, 1>>>(d); cudaDeviceSynchronize();\n")
    p = subprocess.run([KERN, "repl"], input=script, capture_output=True, text=True, timeout=30)
    if p.returncode != 3 or "input 1, line 2:30: error: out-of-bounds global store" not in p.stderr \
            or "session:" in p.stderr:
        fail(f"a kernel fault's location (exit {p.returncode})", p.stdout + p.stderr)
    return out


def run_pty():
    history = os.path.join(tempfile.mkdtemp(), "history")
    env = dict(os.environ, KERN_HISTORY=history, TERM="dumb")
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(KERN, [KERN], env)
    out = b""

    def read_for(seconds):
        nonlocal out
        end = time.time() + seconds
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    return False
                if not data:
                    return False
                out += data
        return True

    def wait_for(text, seconds=10):
        end = time.time() + seconds
        while time.time() < end and text.encode() not in out:
            if not read_for(0.05):
                break

    wait_for("kern> ")
    # Tab completion: "n_v<TAB>" completes the session's variable n_val, ":mo<TAB>" the
    # meta-command :mode.
    # In context: "p.<TAB>" the member p.x, ":device h1<TAB>" the device h100 (last: a new
    # device resets the variables).
    lines = SCRIPT[:11] + ["n_v\t"] + SCRIPT[11:] + [":mo\t", "p.\t", ":device h1\t"]
    for line in lines:
        os.write(fd, (line + ("" if line.endswith("\t") else "\n")).encode())
        if line.endswith("\t"):
            read_for(0.3)
            os.write(fd, b" + 0\n" if line == "n_v\t" else b"\n")
        read_for(0.15)
    os.write(fd, b":quit\n")
    read_for(1.0)
    _, status = os.waitpid(pid, 0)
    text = out.decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        fail(f"exit status {status}", text)
    if "  ... " not in text:
        fail("no continuation prompt for the multi-line kernel", text)
    if text.count("(int) 8") < 2:
        fail("tab completion of 'n_v' did not give n_val", text)
    if text.count("mode profile\r\n") < 2:
        fail("tab completion of ':mo' did not give :mode", text)
    if text.count("(float) 2.5") < 2:
        fail("tab completion of 'p.' did not give p.x", text)
    if "device h100 (variables were reset" not in text:
        fail("tab completion of ':device h1' did not give h100", text)
    if not os.path.exists(history) or "n_val" not in open(history, errors="replace").read():
        fail("history file not written", text)
    return text


out = run_pty() if MODE == "pty" else run_stdin()
out = out.replace("\r\n", "\n")  # a terminal's line ends
for e in EXPECT:
    if e not in out:
        fail(f"missing {e!r}", out)
# :html wrote the page of launch 6 (scale's store, lane by lane).
page = open(HTML).read() if os.path.exists(HTML) else ""
if 'class="lanemap global"' not in page or "scale" not in page:
    fail(":html wrote no report of the launch", page[:2000])
print(f"repl {MODE}: ok")
