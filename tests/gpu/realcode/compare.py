#!/usr/bin/env python3
"""Every counter kern has beside Nsight Compute's, launch by launch, for tests/gpu/realcode.

usage: compare.py KERN [RESULTS_DIR] [--program FILE] [--details] [--check]
                  [--min-branches FRACTION]

RESULTS_DIR (default results/h200 beside this file) holds ncu-launches.csv, one row per launch
of realcode.cu (or of --program's FILE, as for tests/gpu/branches) as measure.sh recorded it. kern runs the same program on its h100 profile with
--report; its launches come in the same order. A memory counter (global and shared requests,
sectors, bytes, wavefronts, conflicts, atomics) agrees when within 2%, a branch counter or the
warp execution efficiency within 5% (the bars of issue 14). Prints, per metric family, how many
launches agree, and with --details each disagreement. Registers and theoretical occupancy are
compared too; instruction counts and durations are printed as ratios (they are estimates).
With --check it exits 1 unless the memory counters agree on at least 95% of the launches, the
branch counters and warp execution efficiency on at least 90%, the theoretical occupancy on at
least 90% (issue 14's bars), and the wide shared loads of wide_shared.cu give the GPU's
wavefronts. With --min-branches it exits 1 unless the branch counters and warp execution
efficiency agree on at least FRACTION of the launches (tests/gpu/branches: a guard against
losing what the model gets right there).
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

MEMORY = ["smsp__sass_inst_executed_op_global_ld.sum",
          "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
          "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
          "smsp__sass_inst_executed_op_global_st.sum",
          "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
          "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
          "smsp__sass_inst_executed_op_global_atom.sum",
          "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
          "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
          "smsp__sass_inst_executed_op_global_red.sum",
          "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
          "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
          "smsp__sass_inst_executed_op_shared_ld.sum",
          "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
          "smsp__sass_inst_executed_op_shared_st.sum",
          "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
          "smsp__sass_inst_executed_op_shared_atom.sum",
          "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"]
BRANCH = ["smsp__sass_inst_executed_op_branch.sum",
          "smsp__sass_branch_targets_threads_divergent.sum",
          "smsp__thread_inst_executed_per_inst_executed.ratio"]
RATIOS = ["smsp__inst_executed.sum", "gpu__time_duration.sum"]


def close(a, b, tol):
    return abs(a - b) <= tol * max(abs(a), abs(b)) or abs(a - b) < 0.5


def main():
    argv = sys.argv[1:]
    program = os.path.join(HERE, "realcode.cu")
    if "--program" in argv:
        at = argv.index("--program")
        program = argv[at + 1]
        del argv[at:at + 2]
    min_branches = 0.0
    if "--min-branches" in argv:
        at = argv.index("--min-branches")
        min_branches = float(argv[at + 1])
        del argv[at:at + 2]
    args = [a for a in argv if not a.startswith("--")]
    details = "--details" in sys.argv
    check = "--check" in sys.argv
    kern = args[0]
    results = args[1] if len(args) > 1 else os.path.join(HERE, "results", "h200")
    ncu = list(csv.DictReader(open(os.path.join(results, "ncu-launches.csv"))))
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        subprocess.run([kern, "run", "--device", "h100", "--workers", "1", "--report", report,
                        program], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        launches = json.load(open(report))["launches"]
    if len(launches) != len(ncu):
        print(f"kern made {len(launches)} launches, the GPU {len(ncu)}")
        return 1
    families = {"memory (2%)": MEMORY, "branches and efficiency (5%)": BRANCH}
    tally = {f: [0, 0] for f in families}
    per_metric = {}
    lines = []
    for g, k in zip(ncu, launches):
        if g["kernel"] != k["kernel"]:
            print(f"launch {g['ID']}: GPU ran {g['kernel']}, kern {k['kernel']}")
            return 1
        for family, names in families.items():
            tol = 0.02 if family.startswith("memory") else 0.05
            agree = True
            for m in names:
                if m not in g or g[m] == "" or m not in k["ncu"]:
                    continue
                theirs, mine = float(g[m]), float(k["ncu"][m])
                ok = close(mine, theirs, tol)
                per_metric.setdefault(m, [0, 0])
                per_metric[m][0] += ok
                per_metric[m][1] += 1
                if not ok:
                    agree = False
                    lines.append(f"  launch {g['ID']:>2} {g['kernel']:<20} {m}: kern {mine:g}, "
                                 f"ncu {theirs:g}")
            tally[family][0] += agree
            tally[family][1] += 1
    print(f"{len(ncu)} launches of {len(set(g['kernel'] for g in ncu))} kernels")
    for family, (a, n) in tally.items():
        print(f"{family}: {a} of {n} launches agree on every counter ({100 * a / n:.0f}%)")
    print("per metric (launches agreeing):")
    for m, (a, n) in per_metric.items():
        print(f"  {m}: {a} of {n}")
    # ptxas's counts (resource-usage.txt); the launch allocates at least 16 (ncu's "Registers
    # Per Thread"), which changes no occupancy.
    ptxas, entry = {}, None
    for line in open(os.path.join(results, "resource-usage.txt")):
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            entry = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and entry:
            name = subprocess.run(["c++filt", entry], capture_output=True, text=True).stdout
            ptxas[name.strip().split("(")[0]] = int(m.group(1))
            entry = None
    regs = occ = 0
    seen = {}
    for g, k in zip(ncu, launches):
        seen.setdefault(g["kernel"], (ptxas.get(g["kernel"], 0), k["registersPerThread"]))
        occ += abs(float(g["Theoretical Occupancy"]) - 100 * k["occupancy"]["occupancy"]) < 0.05
    for name, (theirs, mine) in seen.items():
        regs += abs(mine - theirs) <= 0.2 * theirs
    print(f"registers within 20% of ptxas's: {regs} of {len(seen)} kernels")
    print(f"theoretical occupancy equal: {occ} of {len(ncu)} launches")
    for m in RATIOS:
        rs = sorted(float(k["ncu"][m]) / float(g[m]) for g, k in zip(ncu, launches)
                    if float(g.get(m) or 0) > 0)
        print(f"{m}: kern / ncu median {rs[len(rs) // 2]:.2f} (from {rs[0]:.2f} to {rs[-1]:.2f})")
    wide_ok = wide_shared(kern, results)
    branches_ok = tally["branches and efficiency (5%)"][0]
    if check and (tally["memory (2%)"][0] < 0.95 * len(ncu) or occ < 0.9 * len(ncu) or not wide_ok
                  or branches_ok < 0.9 * len(ncu)):
        return 1
    if branches_ok < min_branches * len(ncu):
        return 1
    if details:
        print("disagreements:")
        print("\n".join(lines))
        for name, (theirs, mine) in seen.items():
            print(f"  registers {name}: kern {mine}, ncu {theirs}")
    return 0


def wide_shared(kern, results):
    """wide_shared.cu's wavefronts, kern's beside the GPU's; True if all equal."""
    path = os.path.join(results, "wide_shared.csv")
    if not os.path.exists(path):  # a set without them (tests/gpu/branches)
        return True
    gpu = list(csv.DictReader(open(path)))
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        subprocess.run([kern, "run", "--device", "h100", "--report", report,
                        os.path.join(HERE, "wide_shared.cu")], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        launches = json.load(open(report))["launches"]
    same = total = 0
    for g, k in zip(gpu, launches):
        for op in ("ld", "st"):
            m = f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"
            total += 1
            same += float(g[m]) == float(k["ncu"][m])
    print(f"wide shared accesses (wide_shared.cu): {same} of {total} wavefront counts equal")
    return same == total and len(gpu) == len(launches)


if __name__ == "__main__":
    sys.exit(main())
