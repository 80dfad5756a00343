#!/usr/bin/env python3
"""kern run --sandbox (docs/sandbox.md): each thing a sandboxed program may not do is refused
with its message and exit code, and what it may do works. Usage: sandbox_cli.py KERN PROGRAMS
(PROGRAMS: tests/sandbox/programs). Exits 77 (skipped) where this kern has no seccomp or the
system does not let it install a filter."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

KERN, PROGRAMS = sys.argv[1], sys.argv[2]
OUTSIDE = os.path.join(os.path.dirname(PROGRAMS), "outside")
problems = []


def kern(*args, env=None, timeout=120):
    return subprocess.run([KERN, "run", *args], capture_output=True, text=True, timeout=timeout,
                          env=env)


def program(name):
    return os.path.join(PROGRAMS, name)


def check(what, p, code, out=(), err=(), not_err=()):
    """p exited with `code`, its stdout has each of `out`, its stderr each of `err`."""
    bad = []
    if p.returncode != code:
        bad.append(f"exit code {p.returncode}, expected {code}")
    bad += [f"stdout lacks {s!r}" for s in out if s not in p.stdout]
    bad += [f"stderr lacks {s!r}" for s in err if s not in p.stderr]
    bad += [f"stderr has {s!r}" for s in not_err if s in p.stderr]
    if bad:
        problems.append(f"{what}: " + "; ".join(bad) +
                        f"\n--- stdout:\n{p.stdout}--- stderr:\n{p.stderr}")
    else:
        print(f"ok: {what}")


if os.environ.get("KERN_SANDBOX_SKIP"):
    print("skipped: a sanitizer build")
    sys.exit(77)
probe = kern("--sandbox", program("hello.cu"))
if "without seccomp" in probe.stderr or "does not let kern install" in probe.stderr:
    print("skipped: " + probe.stderr.strip())
    sys.exit(77)
sanitizer = "Sanitizer" in probe.stderr

work = tempfile.mkdtemp(prefix="kern_sandbox_")
out_dir = os.path.join(work, "out")
os.mkdir(out_dir)
try:
    # Output in order, the program's exit code, no environment.
    p = kern("--sandbox", program("hello.cu"), env=dict(os.environ, HOME="/root"))
    check("stdout, stderr and the exit code come back", p, 7,
          out=["one: h[5] = 10\n", "three: HOME is not set\n"], err=["two: on stderr\n"])
    check("without the sandbox the environment is there",
          kern(program("hello.cu"), env=dict(os.environ, HOME="/root")), 7,
          out=["three: HOME is set\n"])

    # Writing outside the output directory: EACCES and a note; nothing is created.
    target = os.path.join(work, "x")
    p = kern("--sandbox", "--output-dir", out_dir, program("files.cu"), "--", "w", target)
    check("a write outside the output directory is refused", p, 1,
          out=["NULL, EACCES"], err=["kern: sandbox: fopen(\"" + target + "\") denied"])
    if os.path.exists(target):
        problems.append(f"{target} was created")
    p = kern("--sandbox", program("files.cu"), "--", "w", "/tmp/x")
    check("fopen(\"/tmp/x\", \"w\") is refused", p, 1, out=["NULL, EACCES"],
          err=["it may write nowhere"])

    # Writing inside it works.
    inside = os.path.join(out_dir, "ok.txt")
    p = kern("--sandbox", "--output-dir", out_dir, program("files.cu"), "--", "w", inside)
    check("a write inside the output directory works", p, 0, out=["written"])
    if not os.path.exists(inside) or "written in the sandbox" not in open(inside).read():
        problems.append(f"{inside} was not written")

    # Reading outside the allowed directories: refused; inside them: works.
    secret = os.path.join(OUTSIDE, "secret.txt")
    p = kern("--sandbox", program("files.cu"), "--", "r", secret)
    check("a read outside the allowed directories is refused", p, 1, out=["NULL, EACCES"])
    p = kern("--sandbox", program("files.cu"), "--", "r", "/etc/passwd")
    check("reading /etc/passwd is refused", p, 1, out=["NULL, EACCES"])
    p = kern("--sandbox", "--allow-read", OUTSIDE, program("files.cu"), "--", "r", secret)
    check("a read in an --allow-read directory works", p, 0,
          out=["a file beside the program's directory"])
    p = kern("--sandbox", program("files.cu"), "--", "r", program("files.cu"))
    check("the program's own directory is readable", p, 0, out=["fopen("])
    p = kern("--sandbox", "--output-dir", out_dir, program("files.cu"), "--", "r", inside)
    check("the output directory is readable", p, 0, out=["written in the sandbox"])
    os.symlink(secret, os.path.join(out_dir, "link.txt"))
    p = kern("--sandbox", "--output-dir", out_dir, program("files.cu"), "--", "r",
             os.path.join(out_dir, "link.txt"))
    check("a symbolic link out of the output directory is refused", p, 1, out=["NULL, EACCES"])

    # #include: the program's directory tree, -I and --allow-read directories only.
    check("#include \"../outside/outside.h\" works without the sandbox",
          kern(program("include_outside.cu")), 0, out=["outside says 42"])
    p = kern("--sandbox", program("include_outside.cu"))
    check("#include of a file outside the sandbox's directories is refused", p, 1,
          err=["is outside the directories that this sandboxed compile may read"])
    check("#include from an --allow-read directory works",
          kern("--sandbox", "--allow-read", OUTSIDE, program("include_outside.cu")), 0,
          out=["outside says 42"])
    check("#include from a -I directory works",
          kern("--sandbox", "-I", OUTSIDE, program("include_outside.cu")), 0,
          out=["outside says 42"])
    for mode in ([], ["--sandbox"]):
        p = kern(*mode, program("include_proc.cu"), env=dict(os.environ, KERN_SECRET="s3cr3t"))
        check("#include \"/proc/self/environ\" is refused " + ("in the sandbox" if mode else
                                                              "without the sandbox"), p, 1,
              err=["is under /proc, /sys or /dev"], not_err=["s3cr3t"])

    # Threads: host pthreads and kern's workers.
    check("threads work", kern("--sandbox", "--workers", "4", program("threads.cu")), 0,
          out=["threads 100, blocks 1024"])

    # Limits.
    if not sanitizer:
        p = kern("--sandbox", "--memory-limit", "512M", program("alloc.cu"))
        check("4 GiB under --memory-limit 512M", p, 5, out=["malloc(4 GiB): NULL"],
              err=["kern: sandbox: memory limit exceeded",
                   "kern: the sandboxed program was stopped: memory limit exceeded (512 MiB)"])
        p = kern("--sandbox", "--memory-limit", "16M", program("hello.cu"))
        check("a memory limit below kern's own needs is refused clearly", p, 1,
              err=["is below what kern itself needs"])
    p = kern("--sandbox", "--time-limit", "1", program("spin.cu"))
    check("a CPU loop over --time-limit 1", p, 6, out=["spinning"],
          err=["kern: the sandboxed program was stopped: time limit exceeded: it used its 1 s "
               "of CPU time"])
    p = kern("--sandbox", "--time-limit", "1", program("kernel_loop.cu"))
    check("a kernel loop over --time-limit 1", p, 6, err=["time limit exceeded"])

    # The child runs under the filter; killed, it is reported and the caller exits with 4.
    running = subprocess.Popen([KERN, "run", "--sandbox", program("spin.cu")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # The child once it has compiled and spins: a second of its CPU time.
        child, deadline = None, time.time() + 60
        while time.time() < deadline:
            try:
                with open(f"/proc/{running.pid}/task/{running.pid}/children") as f:
                    child = int(f.read().split()[0])
                with open(f"/proc/{child}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[11]) + int(fields[12]) >= os.sysconf("SC_CLK_TCK"):
                    break
            except (OSError, IndexError, ValueError):
                pass
            time.sleep(0.1)
        with open(f"/proc/{child}/status") as f:
            status = f.read()
        if "Seccomp:\t2" not in status or "NoNewPrivs:\t1" not in status:
            problems.append("the sandboxed child has no seccomp filter:\n" + status)
        else:
            print("ok: the child runs under a seccomp filter, with no new privileges")
        os.kill(child, signal.SIGKILL)
        err = running.communicate(timeout=60)[1]
    finally:
        if running.poll() is None:
            running.kill()
    if running.returncode != 4 or "stopped: it was killed (SIGKILL)" not in err:
        problems.append(f"a killed child: exit {running.returncode}, stderr {err!r}")
    else:
        print("ok: a killed child is reported")

    # Reports are written by the caller, where it asked.
    report = os.path.join(work, "report.json")
    p = kern("--sandbox", "--report", report, program("threads.cu"))
    check("--report from the sandbox", p, 0)
    if not os.path.exists(report) or '"launches"' not in open(report).read():
        problems.append("the report was not written")

    # Usage.
    check("--memory-limit needs --sandbox", kern("--memory-limit", "1G", program("hello.cu")), 2,
          err=["--memory-limit needs --sandbox"])
    check("a bad size", kern("--sandbox", "--memory-limit", "lots", program("hello.cu")), 2,
          err=["--memory-limit needs a size"])
    check("--output-dir must exist",
          kern("--sandbox", "--output-dir", os.path.join(work, "none"), program("hello.cu")), 2,
          err=["--output-dir needs a directory"])
finally:
    shutil.rmtree(work, ignore_errors=True)

for p in problems:
    print("FAIL: " + p)
sys.exit(1 if problems else 0)
