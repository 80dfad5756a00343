#!/usr/bin/env python3
"""Runs every kern CLI command and checks its exit code and output (docs/api.md, "The kern
command"). Usage: commands.py KERN"""
import json
import os
import re
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


GOOD = write("good.kern", r'''
__global__ void add(int *a, int n) { int i = threadIdx.x; if (i < n) a[i] += i; }
int main(int argc, char **argv) {
  int *d; cudaMalloc(&d, 32 * sizeof(int)); cudaMemset(d, 0, 32 * sizeof(int));
  add<<<1, 32>>>(d, 32);
  int h[32]; cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("h[31]=%d argc=%d\n", h[31], argc);
  for (int i = 1; i < argc; ++i) printf("arg %s\n", argv[i]);
  return 0;
}
''')
BAD = write("bad.kern", "int main() { return undefined_name; }\n")
FAULT = write("fault.kern", r'''
__global__ void k(int *a) { a[threadIdx.x + 100000000] = 1; }
int main() { int *d; cudaMalloc(&d, 4); k<<<1, 32>>>(d); cudaDeviceSynchronize(); return 0; }
''')
OWN = write("own.kern", "int main() { return 5; }\n")


def check(args, code, out=(), err=(), not_out=(), stdin=None, not_err=()):
    p = subprocess.run([KERN] + args, capture_output=True, text=True, input=stdin, timeout=30)
    what = "kern " + " ".join(args)
    if p.returncode != code:
        failures.append(f"{what}: exit {p.returncode}, expected {code}\n{p.stdout}{p.stderr}")
    for s in out:
        if s not in p.stdout:
            failures.append(f"{what}: stdout lacks {s!r}\n{p.stdout}")
    for s in not_out:
        if s in p.stdout:
            failures.append(f"{what}: stdout has {s!r}")
    for s in err:
        if s not in p.stderr:
            failures.append(f"{what}: stderr lacks {s!r}\n{p.stderr}")
    for s in not_err:
        if s in p.stderr:
            failures.append(f"{what}: stderr has {s!r}")
    return p


# Help and version.
check(["--help"], 0, out=["commands:", "exit codes:", "repl"])
check(["-h"], 0, out=["commands:"])
check(["--version"], 0, out=["kern 0.1.0"])
check(["run", "--help"], 0, out=["usage: kern run", "--workers", "--stats"], not_out=["--threads"])
check(["annotate", "--help"], 0, out=["usage: kern annotate"])
check(["check", "--help"], 0, out=["usage: kern check"], not_out=["--workers"])
check(["emit", "--help"], 0, out=["--llvm"], not_out=["--workers"])
check(["occupancy", "--help"], 0, out=["--threads"], not_out=["--stats"])
check(["devices", "--help"], 0, out=["usage: kern devices"])
check(["repl", "--help"], 0, out=[":load", "KERN_HISTORY"])

# run: ok, arguments, the program's own code, compile error, fault, stdin.
check(["run", GOOD], 0, out=["h[31]=31 argc=1"])
check(["run", GOOD, "--", "x", "y z"], 0, out=["argc=3", "arg x", "arg y z"])
check(["run", "--workers", "2", "--timeout", "10", "--regs", "32", "--device", "a100", "-O1",
       GOOD], 0, out=["h[31]=31"])
check(["run", OWN], 5)
check(["run", BAD], 1, err=["error"])
check(["run", FAULT], 3, err=["error"])
check(["run", "-"], 0, out=["h[31]=31"], stdin=open(GOOD).read())
check(["run", "--stats", GOOD], 0, err=["== launch 0: add<<<1, 32>>>"])
# --time-kernels: one line per launch that ran, a positive wall time in ms; counts nothing.
THREE = write("three.kern", r'''
__global__ void twice(int *a) { a[threadIdx.x] *= 2; }
__global__ void bad(int *a) { a[threadIdx.x + 100000000] = 1; }
int main() {
  int *d; cudaMalloc(&d, 64 * sizeof(int)); cudaMemset(d, 0, 64 * sizeof(int));
  for (int i = 0; i < 3; ++i) twice<<<1, 64>>>(d);
  twice<<<1, 4096>>>(d); // fails to launch: no line
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
''')
p = check(["run", "--time-kernels", THREE], 0, out=["invalid argument"],
          not_err=["launch 4", "summary"])
times = re.findall(r"^kern: launch (\d+) twice: (\d+\.\d{3}) ms$", p.stderr, re.M)
if [t[0] for t in times] != ["1", "2", "3"] or any(float(t[1]) <= 0 for t in times):
    failures.append(f"kern run --time-kernels: expected launches 1-3 with positive times\n{p.stderr}")
# --time-compile: the front end by stage, each module of native code (its kernels) by stage,
# and linking; positive times.
p = check(["run", "--time-compile", THREE], 0, out=["invalid argument"])
front = re.findall(r"^kern: compile: front end (\d+\.\d) ms \(preprocess, parse and check "
                   r"(\d+\.\d) ms; lower to kern IR (\d+\.\d) ms\)$", p.stderr, re.M)
kernels = re.findall(r"^kern: compile: kernels? ([^:]+): generate (\d+\.\d) ms, optimise "
                     r"(\d+\.\d) ms, machine code (\d+\.\d) ms$", p.stderr, re.M)
link = re.findall(r"^kern: compile: link \d+\.\d ms; in all (\d+\.\d) ms on \d+ threads?$",
                  p.stderr, re.M)
names = sorted(n for k in kernels for n in k[0].split(", "))
if (len(front) != 1 or float(front[0][0]) <= 0 or len(link) != 1 or float(link[0]) <= 0
        or names != ["bad", "twice"]):
    failures.append(f"kern run --time-compile: expected the front end, the kernels twice and bad, "
                    f"and the link\n{p.stderr}")
report = os.path.join(tmp, "report.json")
trace = os.path.join(tmp, "trace.json")
check(["run", "--report", report, "--trace", trace, "--counters-text", "-", GOOD], 0)
for path in (report, trace):
    try:
        json.load(open(path))
    except Exception as e:  # noqa: BLE001
        failures.append(f"{path}: not JSON: {e}")

# check, emit, annotate.
check(["check", GOOD], 0)
check(["check", BAD], 1, err=["bad.kern:1:"])
check(["check", "-"], 0, stdin=open(GOOD).read())
# --resource-usage: each kernel's registers (kern's estimate), shared memory and stack frame, as
# nvcc --resource-usage prints ptxas's.
RES = write("resources.kern", r'''
__global__ void add(int *a, int n) { int i = threadIdx.x; if (i < n) a[i] += i; }
__global__ void tile(float *o) {
  __shared__ float s[256];
  float local[4];
  for (int j = 0; j < 4; ++j) local[j] = o[j * threadIdx.x];
  s[threadIdx.x] = local[threadIdx.x & 3];
  __syncthreads();
  o[threadIdx.x] = s[255 - threadIdx.x];
}
int main() { return 0; }
''')
check(["check", "--resource-usage", RES], 0,
      out=["kern: kernel add: 9 registers (estimated), 0 bytes shared, 0 bytes stack frame",
           "kern: kernel tile:", "1024 bytes shared, 16 bytes stack frame"])
check(["check", RES], 0, not_out=["registers"])
check(["emit", "--ir", GOOD], 0, out=["kernel void @add"])
check(["emit", "--llvm", GOOD], 0, out=["define"])
check(["emit", "--asm", GOOD], 0, out=["add"])
check(["emit", GOOD], 2, err=["emit needs one of"])
# The code of each mode: profile has the counter hooks, fast and checked do not count.
check(["emit", "--llvm", "--mode", "profile", GOOD], 0, out=["instr.totals"])
check(["emit", "--llvm", GOOD], 0, not_out=["instr.totals"])
check(["emit", "--llvm", "--mode", "checked", GOOD], 0, out=["kern_rt_check_access"],
      not_out=["instr.totals"])
check(["emit", "--llvm", "--mode", "loud", GOOD], 2, err=["--mode needs fast, profile or checked"])
check(["annotate", GOOD], 0, out=["a[i] += i"], err=["h[31]=31"])

# devices and occupancy.
check(["devices"], 0, out=["h100", "g80"])
check(["occupancy", "--threads", "256"], 0, out=["occupancy"])
check(["occupancy"], 2, err=["occupancy needs --threads"])

# Usage errors: exit code 2.
check(["frobnicate"], 2, err=["unknown command"])
check(["run"], 2, err=["no input file"])
check(["run", "--bogus", GOOD], 2, err=["unknown option"])
check(["run", "--workers", "0", GOOD], 2)
check(["run", "--device", "rtx9090", GOOD], 2, err=["unknown device"])
check(["run", GOOD, GOOD], 2, err=["is given twice"])
check(["run", os.path.join(tmp, "missing.kern")], 1, err=["cannot open"])
check(["repl", "--bogus"], 2)

# -I and -D: headers found in other directories, for "x" after the file's own and for <x>
# that is not one of kern's; macros defined before the first line. Without them: not found.
incdir = os.path.join(tmp, "inc")
os.makedirs(incdir, exist_ok=True)
with open(os.path.join(incdir, "scale.h"), "w") as f:
    f.write("#define SCALE 3\n")
with open(os.path.join(incdir, "helper.cuh"), "w") as f:
    f.write("__device__ int twice(int x) { return 2 * x; }\n")
INC = write("inc.kern", r'''
#include <stdio.h>
#include "scale.h"
#include <helper.cuh>
__global__ void k(int *a) { a[0] = twice(SCALE) + OFFSET; }
int main() {
  int *d; cudaMalloc(&d, sizeof(int)); k<<<1, 1>>>(d);
  int h; cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
#ifdef VERBOSE
  printf("verbose\n");
#endif
  printf("%d\n", h);
  return 0;
}
''')
check(["run", "-I", incdir, "-DOFFSET=10", "-D", "VERBOSE", INC], 0, out=["verbose", "16"])
check(["run", "-I" + incdir, "-D", "OFFSET=1", INC], 0, out=["7"], not_out=["verbose"])
check(["check", "-I", incdir, "-DOFFSET=0", INC], 0)
check(["run", INC], 1, err=["'scale.h' file not found", "'helper.cuh' file not found"])
check(["run", INC, "-I"], 2, err=["-I needs a value"])

# kern's text headers (helper_cuda.h...) come before the -I directories, for <x> and for "x";
# a file beside the program still wins for "x"; a header kern does not provide is found in -I.
common = os.path.join(tmp, "common")
os.makedirs(common, exist_ok=True)
for name in ("helper_cuda.h", "helper_string.h"):
    with open(os.path.join(common, name), "w") as f:
        f.write("#error the -I copy of " + name + " was used\n")
with open(os.path.join(common, "extra_helper.h"), "w") as f:
    f.write("#define EXTRA 5\n")
sub = os.path.join(tmp, "sub")
os.makedirs(sub, exist_ok=True)
with open(os.path.join(sub, "helper_math.h"), "w") as f:
    f.write("#define LOCAL_MATH 1\n")
TEXT = os.path.join(sub, "text.kern")
with open(TEXT, "w") as f:
    f.write(r'''
#include <helper_cuda.h>
#include "helper_string.h"
#include "helper_math.h"
#include <extra_helper.h>
int main(int argc, char **argv) {
  checkCudaErrors(cudaSetDevice(0));
  printf("%d %d %d\n", LOCAL_MATH, EXTRA, checkCmdLineFlag(argc, (const char **)argv, "xy"));
  return 0;
}
''')
check(["run", "-I", common, TEXT, "--", "--xy"], 0, out=["1 5 1"])
# A diagnostic inside one of kern's headers names it "<kern>/...".
CLASH = write("clash.kern", "float lerp(float a, float b, float t) { return a; }\n"
                            "#include <helper_math.h>\nint main() { return 0; }\n")
check(["check", CLASH], 1, err=["<kern>/helper_math.h:21:34: error: redefinition of 'lerp'"])
# helper_timer.h builds on the host clocks (gettimeofday).
TIMER = write("timer.kern", "#include <helper_timer.h>\nint main() { return 0; }\n")
check(["check", TIMER], 0)
# Files: a program run by kern run may use them, as a native one; --no-files denies it.
FILES = write("files.kern", r'''
#include <errno.h>
int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "w");
  if (f == NULL) { perror("fopen"); return 4; }
  fprintf(f, "%d\n", 42);
  fclose(f);
  f = fopen(argv[1], "r");
  int v = 0;
  fscanf(f, "%d", &v);
  fclose(f);
  printf("read %d\n", v);
  return remove(argv[1]);
}
''')
DATA = os.path.join(tmp, "data.txt")
check(["run", FILES, "--", DATA], 0, out=["read 42"])
check(["run", "--no-files", FILES, "--", DATA], 4,
      err=["kern: file access is disabled (--no-files): fopen(\"" + DATA + "\")",
           "fopen: Permission denied"])
check(["run", FILES, "--no-files", "--", DATA], 4, err=["file access is disabled"])

# The REPL from the command line, on a pipe.
check([], 0, out=["(int) 42"], stdin="int x = 6;\nx * 7\n")
check(["repl", "--device", "g80"], 0, out=["(int) 3"], stdin="1 + 2\n:quit\n")

# --option=value as well as --option value; the program's own arguments after -- stay whole.
check(["run", "--workers=2", "--timeout=30", "--device=fermi", GOOD, "--", "--device=x"], 0,
      out=["h[31]=31 argc=2", "arg --device=x"])
check(["occupancy", "--device=g80", "--threads=256"], 0, out=["occupancy"])
# A block the device cannot run is an error, after the report that says why.
check(["occupancy", "--threads", "2000"], 2, out=["1024"],
      err=["kern: error: too many threads per block: 2000, the device allows 1024"])
# A file that cannot be opened says why.
check(["run", os.path.join(tmp, "missing.cu")], 1, err=["cannot open file: No such file or directory"])


# A usage error shows the usage of the command it concerns, and a near option or command.
check(["run", "--worker", "2", GOOD], 2,
      err=["unknown option '--worker' for 'run'; did you mean '--workers'?",
           "usage: kern run FILE...", "(kern run --help lists its options)"])
check(["run", "--stast", GOOD], 2, err=["did you mean '--stats'?"])
check(["run", "--zzzzzz", GOOD], 2, err=["unknown option '--zzzzzz' for 'run'\n"])
check(["annotate", "--timeuot=3", GOOD], 2,
      err=["unknown option '--timeuot=3' for 'annotate'; did you mean '--timeout'?",
           "usage: kern annotate FILE"])
check(["emit", "--llvn", GOOD], 2, err=["did you mean '--llvm'?", "usage: kern emit"])
check(["occupancy", "--thread", "32"], 2, err=["did you mean '--threads'?",
                                               "usage: kern occupancy"])
check(["repl", "--modee", "fast"], 2, err=["did you mean '--mode'?", "usage: kern [repl]"])
check(["rn", GOOD], 2, err=["unknown command 'rn'; did you mean 'run'?"])
check(["run", "--workers", "0", GOOD], 2, err=["usage: kern run FILE..."])

# The conventions of option parsing: attached short values, the last of a repeated option,
# values checked with the option named, an option of another command named as such.
NAME = write("name.kern", r'''
int main() {
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
  printf("cc %d.%d\\n", p.major, p.minor);
  return 0;
}
''')
check(["run", "--device", "g80", "--device=h100", NAME], 0, out=["cc 9.0"])
check(["run", "-O3", "-O0", NAME], 0, out=["cc 9.0"])
check(["run", "--workers=abc", GOOD], 2,
      err=["kern: --workers needs a whole number >= 1 and <= 65536, got 'abc'\n"])
check(["run", "-O7", GOOD], 2, err=["kern: -O needs 0, 1, 2 or 3, got '7'\n"])
check(["run", "--fmad=maybe", GOOD], 2, err=["kern: --fmad needs true or false, got 'maybe'"])
check(["run", "--timeout", GOOD], 2, err=["--timeout needs a number of seconds >= 0, got '"])
check(["run", GOOD, "--report"], 2, err=["kern: --report needs a value\n"])
check(["emit", "--ir", "--llvm", GOOD], 2, err=["emit prints one kind"])
check(["check", "--stats", GOOD], 2,
      err=["unknown option '--stats' for 'check' (it is an option of 'kern run')"])
check(["devices", "x"], 2, err=["'devices' takes no argument 'x'", "usage: kern devices"])
check(["occupancy", "--threads", "0"], 2, err=["--threads needs a whole number >= 1, got '0'"])
check(["check", "--device", "g80", GOOD], 0)
check(["check", "--device", "rtx9090", GOOD], 2, err=["unknown device"])

# Each command's --help is true: every option it lists is accepted (not "unknown").
for command in ("run", "annotate", "check", "emit", "devices", "occupancy", "repl"):
    p = subprocess.run([KERN, command, "--help"], capture_output=True, text=True, timeout=30)
    listed = set()
    for line in p.stdout.splitlines():
        # An option's line: "  -k, --kernel-name NAME   what it does" (or nothing after it).
        m = re.match(r"  (-[-\w]+(?:, -[-\w]+)*)(?:[ =]\S+)?(?:  |$)", line)
        if m:
            listed.update(m.group(1).split(", "))
    if len(listed) < 3 and command not in ("devices",):
        failures.append(f"kern {command} --help lists too few options: {listed}")
    for name in sorted(listed - {"-h", "--help"}):
        q = subprocess.run([KERN, command, name], capture_output=True, text=True, timeout=30,
                           input="")
        if "unknown option" in q.stderr:
            failures.append(f"kern {command} --help lists {name}, which it refuses: {q.stderr}")

# kern devices --json: every built-in profile, each readable as a --device-file.
p = subprocess.run([KERN, "devices", "--json"], capture_output=True, text=True, timeout=30)
profiles = json.loads(p.stdout) if p.returncode == 0 else []
if [d.get("name") for d in profiles] != ["g80", "gt200", "fermi", "v100", "a100", "h100"]:
    failures.append(f"kern devices --json: {p.returncode}\n{p.stdout}{p.stderr}")
for d in profiles:
    path = write(d["name"] + ".json", json.dumps(d))
    check(["run", "--device-file", path, GOOD], 0, out=["h[31]=31"])
check(["devices", "--jsn"], 2, err=["did you mean '--json'?"])

# kern emit -k: one kernel's part.
TWO = write("two.kern", "__global__ void first(int *a) { a[0] = 1; }\n"
                        "__global__ void second(int *a) { a[1] = 2; }\n")
check(["emit", "--ir", "-k", "second", TWO], 0, out=["kernel void @second"],
      not_out=["@first"])
check(["emit", "--llvm", "--kernel-name=first", TWO], 0, out=["define void @first"],
      not_out=["@second("])
check(["emit", "--asm", "-k", "second", TWO], 0, out=["second"], not_out=["first:"])
check(["emit", "--ir", "-k", "third", TWO], 2,
      err=["the program has no kernel or function 'third'"])
check(["emit", "--module", "-k", "first", TWO, "-o", os.path.join(tmp, "m")], 2,
      err=["emit --module writes the whole module"])

# Nsight Compute's names: --metrics (either name), --csv, and the report's "ncu" objects. The
# kernel of GOOD: 32 lanes load and store 4 bytes each, 4 sectors per instruction.
check(["run", "--metrics", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,global.store.sectors",
       GOOD], 0, out=["h[31]=31"],
      err=["  add (1, 1, 1)x(32, 1, 1), launch 0, h100 (cc 9.0)\n",
           "    l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum  sector  4\n",
           "    l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum  sector  4\n"],
      not_err=["kern: counters on", "smsp__inst_executed.sum"])
check(["run", "--csv", "--metrics=smsp__sass_inst_executed_op_global_st.sum", GOOD], 0,
      err=['"ID","Kernel Name","Block Size","Grid Size","Device","CC","Metric Name",'
           '"Metric Unit","Metric Value"\n"0","add","(32, 1, 1)","(1, 1, 1)","h100","9.0",'
           '"smsp__sass_inst_executed_op_global_st.sum","inst","1"\n'])
check(["run", "--csv", "--stats", GOOD], 0,
      err=['"smsp__inst_executed.sum","inst"', "== launch 0: add<<<1, 32>>>"])
check(["run", "--metrics", "global.load.sector", GOOD], 2,
      err=["unknown metric 'global.load.sector'; did you mean 'global.load.sectors'?"])
check(["run", "--mode", "fast", "--csv", GOOD], 2, err=["--mode fast counts and checks nothing"])
REPORT = os.path.join(tmp, "report.json")
check(["run", "--report", REPORT, GOOD], 0)
rep = json.load(open(REPORT))
ncu, totals = rep["launches"][0]["ncu"], rep["launches"][0]["totals"]
if (ncu.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") != totals["global"]["load"]["sectors"]
        or ncu.get("smsp__inst_executed.sum") != totals["instructions"]["warp"]
        or rep["program"]["ncu"].get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
        != 0):
    failures.append(f"the report's ncu object: {ncu}")

# The same program on several devices: kern run --device A,B and kern compare. The output once
# when every device printed the same, else each under its heading; the table on stderr.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRANSPOSE = os.path.join(ROOT, "samples", "transpose.kern")
HISTOGRAM = os.path.join(ROOT, "samples", "histogram.kern")


def row(table, label):
    """The cells of the table's row LABEL, runs of spaces made one."""
    m = re.search(r"^  " + re.escape(label) + r"  +(.*)$", table, re.M)
    return re.sub(r"  +", " ", m.group(1)) if m else None


def kernel_block(table, kernel):
    """The rows under KERNEL's heading."""
    m = re.search(r"^" + re.escape(kernel) + r"\n((?:  .*\n)*)", table, re.M)
    return m.group(1) if m else ""


p = check(["run", "--device", "g80,gt200,h100", "--stats", TRANSPOSE], 0,
          err=["kern: " + TRANSPOSE + " on 3 devices", "g80 (cc 1.0)", "gt200 (cc 1.3)",
               "h100 (cc 9.0)"],
          not_out=["== g80 =="], not_err=["== launch", "kern: counters on"])
if p.stdout.count("PASS") != 1:
    failures.append(f"compare: the same output should print once\n{p.stdout}")
coalesced = kernel_block(p.stderr, "transposeCoalesced")
padded = kernel_block(p.stderr, "transposeNoBankConflicts")
naive = kernel_block(p.stderr, "transposeNaive")
expect = [(coalesced, "shared bank conflicts", "30720 30720 31744"),
          (padded, "shared bank conflicts", "0 0 0"),
          (naive, "global st transactions", "32768 (16.00/req) 32768 (16.00/req) 32768 (32.00/req)"),
          (naive, "occupancy", "33.3 % (registers) 75.0 % (registers) 100.0 % (warps)"),
          (p.stderr, "outcome", "exit 0 exit 0 exit 0")]
for block, label, cells in expect:
    if row(block, label) != cells:
        failures.append(f"compare transpose: row {label!r} is {row(block, label)!r}, "
                        f"expected {cells!r}\n{p.stderr}")
# A kernel that cannot launch on one device: each device's output, the failure in its column,
# the first failing device's exit code.
p = check(["compare", "--device", "g80,h100", HISTOGRAM], 1,
          out=["== g80 ==", "FAIL: global atomics launch", "== h100 ==", "PASS"],
          err=["needs compute capability 1.1; g80 has 1.0"])
if row(kernel_block(p.stderr, "histo_global"), "launches") != \
        "1 (1 failed: cudaErrorNoKernelImageForDevice) 1":
    failures.append(f"compare histogram: the launch row\n{p.stderr}")
if row(p.stderr, "outcome") != "exit 1 exit 0":
    failures.append(f"compare histogram: the outcome row\n{p.stderr}")
# kern compare without --device: every built-in profile.
p = check(["compare", GOOD, "--", "x"], 0, out=["h[31]=31 argc=2", "arg x"],
          err=["on 6 devices"])
for d in ("g80", "gt200", "fermi", "v100", "a100", "h100"):
    if d + " (cc " not in p.stderr:
        failures.append(f"compare: no column for {d}\n{p.stderr}")
check(["compare", "--device", "g80,rtx9090", GOOD], 2, err=["rtx9090"])
check(["compare", "--device", "g80,,h100", GOOD], 2, err=["has an empty name"])
check(["compare", "--device", "h100,h100", GOOD], 2, err=["names 'h100' twice"])
check(["run", "--device", "g80,h100", "--report", REPORT, GOOD], 2,
      err=["a JSON report describes one device's run"])
check(["run", "--device", "g80,h100", "--mode", "fast", GOOD], 2, err=["--mode fast"])
check(["annotate", "--device", "g80,h100", GOOD], 2, err=["takes one device"])
check(["compare", "-"], 2, stdin=open(GOOD).read(), err=["not '-'"])

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("cli commands: ok")
