#!/usr/bin/env python3
"""Ctrl-C as people press it. Usage: interrupt_test.py KERN repl|cli

repl: drives `kern repl` in a tmux terminal. It types a kernel, launches it in an endless
loop, presses Ctrl-C, then an endless host loop and a long sleep, each with Ctrl-C, and a
half-typed line with Ctrl-C. The session must survive every one, keep its definitions, and
then run a good launch.

cli: `kern run` of an endless kernel, an endless host loop and a read of stdin, each sent
SIGINT once the program has started. kern reports where it stopped and exits with 130."""
import os
import signal
import subprocess
import sys
import tempfile
import time

KERN, MODE = os.path.abspath(sys.argv[1]), sys.argv[2]


def fail(msg, out):
    sys.stderr.write(f"FAIL: {msg}\n--- output ---\n{out}\n")
    sys.exit(1)


def repl():
    sock = f"kern-test-{os.getpid()}"
    tmp = tempfile.mkdtemp()
    status = os.path.join(tmp, "status")
    env = dict(os.environ, KERN_HISTORY=os.path.join(tmp, "history"))

    def tmux(*args, check=True):
        return subprocess.run(["tmux", "-L", sock, *args], env=env, check=check,
                              capture_output=True, text=True)

    def screen():
        return tmux("capture-pane", "-p", "-S", "-200", "-t", "t").stdout

    def wait_for(text, seconds=20, count=1):
        end = time.time() + seconds
        while time.time() < end:
            if screen().count(text) >= count:
                return
            time.sleep(0.05)
        fail(f"timed out waiting for {text!r}", screen())

    def type_line(text):
        # -l: literally (a trailing ';' would otherwise separate tmux commands)
        tmux("send-keys", "-t", "t", "-l", text)
        tmux("send-keys", "-t", "t", "Enter")

    tmux("new-session", "-d", "-s", "t", "-x", "160", "-y", "50",
         f"{KERN} repl; echo EXIT=$? > {status}; sleep 30")
    try:
        wait_for("kern>")
        type_line("__global__ void spin(int *p) { while (p[0] == 0) p[1]++; }")
        wait_for("kern>", count=2)
        type_line("int *d; cudaMalloc(&d, 8); cudaMemset(d, 0, 8); int ok = 7; 0")
        wait_for("(int) 0")
        type_line("spin<<<4, 64>>>(d); cudaDeviceSynchronize(); 1")
        time.sleep(1.0)
        tmux("send-keys", "-t", "t", "C-c")
        wait_for("interrupted: kernel 'spin' was stopped")
        # A half-typed line: Ctrl-C drops it and gives a new prompt.
        tmux("send-keys", "-t", "t", "-l", "int lost = ")
        time.sleep(0.3)
        tmux("send-keys", "-t", "t", "C-c")
        wait_for("^C")
        type_line("unsigned long k = 0; while (k != 1) k += 2; 2")
        time.sleep(1.0)
        tmux("send-keys", "-t", "t", "C-c")
        wait_for("stopped in host code, in this loop")
        type_line("sleep(1000); 3")
        time.sleep(1.0)
        tmux("send-keys", "-t", "t", "C-c")
        wait_for("stopped in host code, in this call")
        # The session's definitions survived; a good launch runs on the same device.
        type_line("__global__ void fill(int *p, int v) { p[threadIdx.x] = v; }")
        time.sleep(0.5)
        type_line("fill<<<1, 2>>>(d, 40); int h[2]; cudaMemcpy(h, d, 8, cudaMemcpyDeviceToHost); "
                  "h[0] + h[1] / 20 + ok - 7")
        wait_for("(int) 42")
        type_line(":quit")
        end = time.time() + 20
        while time.time() < end and not os.path.exists(status):
            time.sleep(0.05)
        text = screen()
        if not os.path.exists(status):
            fail("the REPL did not end after :quit", text)
        code = open(status).read().strip()
        if code != "EXIT=0":
            fail(f"the REPL ended with {code}", text)
        for bad in ["not reached", "(int) 1\n", "(int) 2\n", "(int) 3\n"]:
            if bad in text:
                fail(f"an interrupted input went on: {bad!r}", text)
    finally:
        tmux("kill-server", check=False)


PROGRAMS = {
    "kernel": ("#include <cstdio>\n"
               "__global__ void spin(int *p) { while (p[0] == 0) p[1]++; }\n"
               "int main() {\n"
               "  int *p; cudaMalloc(&p, 8); cudaMemset(p, 0, 8);\n"
               "  printf(\"started\\n\"); fflush(stdout);\n"
               "  spin<<<4, 64>>>(p); cudaDeviceSynchronize();\n"
               "  printf(\"not reached\\n\");\n"
               "  return 0;\n"
               "}\n",
               "endless.cu:2:32: error: interrupted: kernel 'spin' was stopped"),
    "host": ("#include <cstdio>\n"
             "int main() {\n"
             "  printf(\"started\\n\"); fflush(stdout);\n"
             "  volatile unsigned long x = 0; while (x != 1) x += 2;\n"
             "  printf(\"not reached\\n\");\n"
             "  return 0;\n"
             "}\n",
             "endless.cu:4:33: error: interrupted: the program was stopped in host code, in "
             "this loop"),
    "stdin": ("#include <cstdio>\n"
              "int main() {\n"
              "  printf(\"started\\n\"); fflush(stdout);\n"
              "  char line[64];\n"
              "  if (!fgets(line, sizeof line, stdin)) printf(\"no line\\n\");\n"
              "  printf(\"not reached\\n\");\n"
              "  return 0;\n"
              "}\n",
              "endless.cu:5:"),
}


def sandbox_available():
    p = subprocess.run([KERN, "run", "--sandbox", "-"], input="int main() { return 0; }\n",
                       capture_output=True, text=True)
    return p.returncode == 0


def cli():
    tmp = tempfile.mkdtemp()
    runs = [(name, []) for name in PROGRAMS]
    if sandbox_available():  # the program runs in a child process of kern's
        runs += [("kernel", ["--sandbox"]), ("host", ["--sandbox"])]
    for name, extra in runs:
        source, expected = PROGRAMS[name]
        name = " ".join([name] + extra)
        path = os.path.join(tmp, "endless.cu")
        with open(path, "w") as f:
            f.write(source)
        # stdin: a pipe nobody writes to, so that fgets blocks. A session of its own: SIGINT
        # goes to the whole process group, as a terminal sends it.
        p = subprocess.Popen([KERN, "run", *extra, path], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp,
                             start_new_session=True)
        line = p.stdout.readline()
        if line != "started\n":
            p.kill()
            fail(f"{name}: the program did not start", line)
        time.sleep(0.5)
        start = time.time()
        os.killpg(p.pid, signal.SIGINT)
        try:
            out, err = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            fail(f"{name}: kern did not stop after SIGINT", "")
        took = time.time() - start
        text = out + err
        if p.returncode != 130:
            fail(f"{name}: exit code {p.returncode}, expected 130", text)
        if expected not in err or "interrupted" not in err:
            fail(f"{name}: expected {expected!r} in the report", text)
        if "not reached" in text:
            fail(f"{name}: the program went on after the interrupt", text)
        if took > 5:
            fail(f"{name}: took {took:.1f} s to stop", text)


if MODE == "repl":
    repl()
else:
    cli()
print(f"interrupt {MODE}: ok")
