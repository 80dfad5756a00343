#!/usr/bin/env python3
"""kern run's modes and launch filter (--mode, -k/--kernel-name, --launch-skip, --launch-count,
--profile-from-start, cudaProfilerStart/Stop): which launches are profiled, that a profiled
launch counts exactly what it counts when every launch is profiled, and the usage errors.
Usage: modes.py KERN"""
import json
import os
import subprocess
import sys
import tempfile

KERN = sys.argv[1]
tmp = tempfile.mkdtemp()
failures = []


def write(name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# Five launches: stage (0), conflict (1), stage (2), conflict (3), tally (4). The kernels cover
# global loads and stores, shared memory with bank conflicts, barriers, divergence and atomics.
PROG = write("prog.kern", r'''#include <stdio.h>
#include <cuda_profiler_api.h>

__global__ void stage(float *out, const float *in, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[(i * stride) % n] = in[i] * 2.0f + 1.0f;
}

__global__ void conflict(const float *in, float *out, int stride) {
  __shared__ float s[4096];
  int t = threadIdx.x;
  s[(t * stride) % 4096] = in[t];
  __syncthreads();
  if (t % 4 == 1) out[blockIdx.x * blockDim.x + t] = s[(t * stride) % 4096] * 2.0f;
}

__global__ void tally(int *count, const float *a) {
  if (a[threadIdx.x] > 2.0f) atomicAdd(count, 1);
}

int main(int argc, char **argv) {
  float *a, *b, *c;
  int *n;
  cudaMalloc(&a, 4096 * sizeof(float));
  cudaMalloc(&b, 4096 * sizeof(float));
  cudaMalloc(&c, 4096 * sizeof(float));
  cudaMalloc(&n, sizeof(int));
  cudaMemset(a, 0, 4096 * sizeof(float));
  cudaMemset(n, 0, sizeof(int));
  stage<<<16, 256>>>(b, a, 4096, 1);
  if (argc > 1) cudaProfilerStart();
  conflict<<<1, 128>>>(b, c, 2);
  stage<<<8, 128>>>(a, b, 1024, 3);
  if (argc > 1) cudaProfilerStop();
  conflict<<<2, 64>>>(a, c, 32);
  tally<<<1, 64>>>(n, a);
  int h = 0;
  cudaMemcpy(&h, n, sizeof(int), cudaMemcpyDeviceToHost);
  printf("tally %d\n", h);
  return 0;
}
''')
KERNEL_LINES = {"stage": range(4, 8), "conflict": range(9, 16), "tally": range(17, 20)}


def run(args, code=0, err=(), not_err=(), out=("tally 64",)):
    p = subprocess.run([KERN, "run"] + args, capture_output=True, text=True, timeout=60)
    what = "kern run " + " ".join(args)
    if p.returncode != code:
        failures.append(f"{what}: exit {p.returncode}, expected {code}\n{p.stdout}{p.stderr}")
    for s in out if code == 0 else ():
        if s not in p.stdout:
            failures.append(f"{what}: stdout lacks {s!r}\n{p.stdout}")
    for s in err:
        if s not in p.stderr:
            failures.append(f"{what}: stderr lacks {s!r}\n{p.stderr}")
    for s in not_err:
        if s in p.stderr:
            failures.append(f"{what}: stderr has {s!r}\n{p.stderr}")
    return p


def report(args, prog_args=()):
    """The JSON report and the counter text of a run."""
    rj = os.path.join(tmp, "r.json")
    ct = os.path.join(tmp, "c.txt")
    extra = ["--"] + list(prog_args) if prog_args else []
    run(args + ["--workers", "2", "--report", rj, "--counters-text", ct, PROG] + extra)
    return json.load(open(rj)), counter_text(open(ct).read())


def counter_text(text):
    """{(scope, key): value} of a counter text; scope 'total' or a line number."""
    out = {}
    for line in text.splitlines():
        w = line.split()
        if len(w) == 4 and w[0] == "line":
            out[(int(w[1]), w[2])] = float(w[3])
        elif len(w) == 3 and w[0] == "total":
            out[("total", w[1])] = float(w[2])
    return out


def profiled(rep):
    return "".join("1" if l["profiled"] else "0" for l in rep["launches"])


# The counter-text keys of a JSON counters object (docs/report-schema.md), the derived ratios
# left out.
OPS = (("load", "ld"), ("store", "st"), ("atomic", "atom"))
GLOBAL = (("instructions", "inst"), ("requests", "requests"), ("transactions", "transactions"),
          ("sectors", "sectors"), ("lines128", "lines"), ("bytesRequested", "bytes_requested"),
          ("bytesMoved", "bytes_moved"))
SHARED = (("instructions", "inst"), ("requests", "requests"), ("wavefronts", "wavefronts"),
          ("idealWavefronts", "ideal"), ("bankConflicts", "conflicts"))


def text_keys(c, with_instructions):
    out = {}
    for op, short in OPS:
        for k, t in GLOBAL:
            out[f"global.{short}.{t}"] = c["global"][op][k]
        for k, t in SHARED:
            out[f"shared.{short}.{t}"] = c["shared"][op][k]
    out["constant.requests"] = c["constant"]["requests"]
    out["constant.serialization"] = c["constant"]["serialization"]
    out["branches"] = c["branches"]["executed"]
    out["branches.divergent"] = c["branches"]["divergent"]
    out["barriers"] = c["barriers"]
    out["atomics"] = c["atomics"]["warp"]
    out["atomics.threads"] = c["atomics"]["thread"]
    if with_instructions:
        out["inst.warp"] = c["instructions"]["warp"]
        out["inst.thread"] = c["instructions"]["thread"]
        for name, n in c["instructions"]["classes"].items():
            out["inst." + name] = n
    return {k: v for k, v in out.items() if v}


def add(into, more):
    for k, v in more.items():
        into[k] = into.get(k, 0) + v


def launch_as_text(rep, index):
    """The counter text that launch `index` of report `rep` alone gives: its sites summed by
    line, and its totals (the raw counters; ratios are derived from them)."""
    line_of = {s["id"]: s["line"] for s in rep["sites"]}
    by_line = {}
    for s in rep["launches"][index]["sites"]:
        add(by_line.setdefault(line_of[s["site"]], {}), text_keys(s["counters"], False))
    out = {}
    for line, keys in by_line.items():
        for k, v in keys.items():
            out[(line, k)] = v
    for k, v in text_keys(rep["launches"][index]["totals"], True).items():
        out[("total", k)] = v
    return out


def raw(text):
    """The counter text without the derived ratios and the run-level lines."""
    derived = ("_per_", "launches", "transfers")
    return {k: v for k, v in text.items() if not any(d in k[1] for d in derived)}


# ---- which launches are profiled --------------------------------------------------------------

everything, everything_text = report(["--counters"])
if profiled(everything) != "11111":
    failures.append(f"--counters: profiled {profiled(everything)}, expected 11111")
for args, expect in [
        (["-k", "conflict"], "01010"),
        (["--kernel-name", "stage"], "10100"),
        (["-k", "regex:^st"], "10100"),
        (["-k", "regex:a"], "10101"),           # a match anywhere: stage, tally
        (["-k", "regex:^(conflict|tally)$"], "01011"),
        (["-k", "sta"], "00000"),               # an exact name is not a prefix
        (["--launch-skip", "2"], "00111"),
        (["--launch-count", "2"], "11000"),
        (["--launch-skip", "1", "--launch-count", "2"], "01100"),
        (["-k", "conflict", "--launch-skip", "1"], "00010"),
        (["-k", "regex:o", "--launch-count", "1"], "01000"),
        (["--mode", "profile", "-k", "tally"], "00001"),
        (["--stats", "-k", "stage", "--launch-skip", "1", "--launch-count", "5"], "00100"),
        (["--profile-from-start", "on"], "11111"),
        (["--profile-from-start", "off"], "00000"),   # the program calls no cudaProfilerStart
]:
    rep, _ = report(args)
    if profiled(rep) != expect:
        failures.append(f"kern run {' '.join(args)}: profiled {profiled(rep)}, expected {expect}")
    if rep["program"]["profiledLaunches"] != expect.count("1"):
        failures.append(f"kern run {' '.join(args)}: program.profiledLaunches "
                        f"{rep['program']['profiledLaunches']}")

# cudaProfilerStart() before launch 1, cudaProfilerStop() after launch 2 (the program's argument
# turns the calls on).
for args, expect in [(["--profile-from-start", "off"], "01100"),
                     (["--counters"], "11100"),   # on: Start does nothing, Stop stops
                     (["--profile-from-start", "off", "-k", "stage"], "00100"),
                     (["--profile-from-start", "off", "--launch-skip", "1"], "00100")]:
    rep, _ = report(args, ["range"])
    if profiled(rep) != expect:
        failures.append(f"kern run {' '.join(args)} -- range: profiled {profiled(rep)}, "
                        f"expected {expect}")

# ---- a profiled launch counts what it counts when every launch is profiled -------------------

# Launch 3 (the second conflict) alone, chosen three ways.
for args in (["-k", "conflict", "--launch-skip", "1"],
             ["--launch-skip", "3", "--launch-count", "1"],
             ["-k", "regex:^c", "--launch-skip", "1", "--launch-count", "1"]):
    rep, text = report(args)
    what = "kern run " + " ".join(args)
    if profiled(rep) != "00010":
        failures.append(f"{what}: profiled {profiled(rep)}")
        continue
    mine, theirs = rep["launches"][3], everything["launches"][3]
    if mine["totals"] != theirs["totals"] or mine["sites"] != theirs["sites"]:
        failures.append(f"{what}: launch 3's counters differ from an all-profiled run")
    if rep["program"]["totals"] != theirs["totals"]:
        failures.append(f"{what}: the program totals are not launch 3's")
    expected = launch_as_text(everything, 3)
    if raw(text) != expected:
        failures.append(f"{what}: counter text differs from launch 3 of an all-profiled run:\n"
                        f"got      {sorted(raw(text).items(), key=str)}\n"
                        f"expected {sorted(expected.items(), key=str)}")
    if text.get(("total", "launches")) != 5 or text.get(("total", "launches.profiled")) != 1:
        failures.append(f"{what}: total launches / launches.profiled wrong")
    for i in (0, 1, 2, 4):
        ins = rep["launches"][i]["totals"]["instructions"]
        if ins["warp"] or ins["thread"] or rep["launches"][i]["sites"]:
            failures.append(f"{what}: launch {i} was not profiled but has counters")

# Every kernel launched once or more: -k KERNEL's counter lines of that kernel are those of the
# all-profiled run, line by line (the lines of a kernel are touched by its launches only).
for kernel, lines in KERNEL_LINES.items():
    rep, text = report(["-k", kernel])
    mine = {k: v for k, v in text.items() if k[0] != "total"}
    theirs = {k: v for k, v in everything_text.items() if k[0] in lines}
    if mine != theirs:
        failures.append(f"-k {kernel}: counter lines differ from the all-profiled run's:\n"
                        f"got      {sorted(mine.items(), key=str)}\n"
                        f"expected {sorted(theirs.items(), key=str)}")

# ---- what unprofiled launches get --------------------------------------------------------------

p = run(["--stats", "-k", "tally", PROG], err=["== launch 4: tally<<<1, 64>>>",
                                               "(1 of 5 launches profiled)", "tally (1 launch)",
                                               "prog.kern:36: advice"],
        not_err=["== launch 0", "== launch 1", "stage (", "conflict (", "prog.kern:12: advice",
                 "prog.kern:30: advice", "prog.kern:35: advice"])
p = run(["--stats", PROG], err=["== launch 0:", "== launch 3:", "stage (2 launches)"],
        not_err=["launches profiled"])
run(["--counters", "-k", "nothing", PROG], err=["none of the 5 launches was profiled"])
run(["--mode", "profile", PROG], err=["kern: counters on h100:", "conflict (2 launches)"])
run(["--mode", "fast", PROG], not_err=["counters on"])
run([PROG], not_err=["counters on"])
run(["--mode", "checked", PROG])
run(["--mode", "checked", "--stats", "-k", "tally", PROG], err=["== launch 4: tally"],
    not_err=["== launch 0"])
run(["--checked", "--mode", "profile", "-k", "tally", PROG], err=["tally (1 launch)"])
run(["--trace", os.path.join(tmp, "t.json"), "--mode", "fast", PROG])
# kern annotate takes the filter too.
a = subprocess.run([KERN, "annotate", "-k", "conflict", PROG], capture_output=True, text=True,
                   timeout=60)
if a.returncode != 0 or "wavefronts" not in a.stdout:
    failures.append(f"kern annotate -k conflict: exit {a.returncode}\n{a.stdout}{a.stderr}")
for line in a.stdout.splitlines():
    if line.lstrip().startswith("6 |") and "sect/req" in line:
        failures.append(f"kern annotate -k conflict: counters on stage's line: {line}")

# ---- usage errors: exit 2 with a message --------------------------------------------------------

for args, message in [
        (["--mode", "slow"], "--mode needs fast, profile or checked, got 'slow'"),
        (["--mode", "fast", "-k", "stage"], "--mode fast counts and checks nothing"),
        (["--mode", "fast", "--launch-skip", "1"], "cannot go with --launch-skip"),
        (["--mode", "fast", "--stats"], "cannot go with --stats"),
        (["--mode", "fast", "--report", "-"], "cannot go with --report"),
        (["--mode", "fast", "--checked"], "cannot go with --checked"),
        (["--mode", "fast", "--profile-from-start", "off"], "cannot go with --profile-from-start"),
        (["--mode", "checked", "-k", "stage"], "--mode checked counts nothing"),
        (["-k", "regex:(", ], "is not a valid regular expression"),
        (["-k", "regex:"], "has no pattern"),
        (["--kernel-name", ""], "--kernel-name needs a kernel name"),
        (["--launch-skip", "-1"], "--launch-skip needs a whole number >= 0"),
        (["--launch-skip", "x"], "--launch-skip needs a whole number >= 0, got 'x'"),
        (["--launch-count", "0"], "--launch-count needs a whole number >= 1"),
        (["--launch-count", "1.5"], "--launch-count needs a whole number >= 1"),
        (["--profile-from-start", "maybe"], "--profile-from-start needs on or off, got 'maybe'"),
]:
    run(args + [PROG], code=2, err=[message])
run(["-k"], code=2, err=["-k needs a value"])
run(["--mode"], code=2, err=["--mode needs a value"])
a = subprocess.run([KERN, "annotate", "--mode", "fast", PROG], capture_output=True, text=True)
if a.returncode != 2 or "cannot go with 'kern annotate'" not in a.stderr:
    failures.append(f"kern annotate --mode fast: exit {a.returncode}\n{a.stderr}")
a = subprocess.run([KERN, "repl", "--mode", "turbo"], capture_output=True, text=True, input="")
if a.returncode != 2 or "--mode needs fast, profile or checked, got 'turbo'" not in a.stderr:
    failures.append(f"kern repl --mode turbo: exit {a.returncode}\n{a.stderr}")
# The REPL in checked mode from the start: a read of memory never written is reported.
a = subprocess.run([KERN, "repl", "--mode", "checked"], capture_output=True, text=True,
                   input="__global__ void k(const int *p, int *o) { o[0] = p[1]; }\n"
                         "int *p, *o; cudaMalloc(&p, 8); cudaMalloc(&o, 4);\n"
                         ":mode\nk<<<1, 1>>>(p, o); cudaDeviceSynchronize();\n")
if a.returncode != 3 or "load of never-written global memory" not in a.stderr or \
        "mode checked" not in a.stdout:
    failures.append(f"kern repl --mode checked: exit {a.returncode}\n{a.stdout}{a.stderr}")

# ---- help ---------------------------------------------------------------------------------------

h = subprocess.run([KERN, "run", "--help"], capture_output=True, text=True)
for s in ("--mode MODE", "fast (the default of kern run and of the API)", "REPL's",
          "default is profile",
          "-k, --kernel-name NAME", "regex:PATTERN", "--launch-skip N", "--launch-count N",
          "--profile-from-start on|off", "cudaProfilerStart()"):
    if s not in h.stdout:
        failures.append(f"kern run --help lacks {s!r}")
h = subprocess.run([KERN, "repl", "--help"], capture_output=True, text=True)
for s in (":mode", "--mode fast|profile"):
    if s not in h.stdout:
        failures.append(f"kern repl --help lacks {s!r}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("cli modes: ok")
