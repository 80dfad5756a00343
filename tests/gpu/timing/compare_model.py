#!/usr/bin/env python3
"""Sets kern's modelled time beside the GPU's for every launch of tests/gpu/timing/ (not part of
ctest: it runs every program at its full size).

usage: compare_model.py KERN [--set cal|val] [PROGRAM...]   (default: every cal_*.cu and
       val_*.cu; --set: the rows of one set only, as docs/validation.md shows the validation's)

Each program runs under `kern run --device-file h200.json --report R --profile-from-start off
PROG -- 1`: one launch per timing, and only the timed launches (those between
cudaProfilerStart and cudaProfilerStop) are counted, so the report's profiled launches are the
timed ones, in order. The GPU's time is ncu's gpu__time_duration.sum from h200-results.md.
Prints a Markdown table (launch, set, GPU us, kern us, kern / GPU, ncu's verdict and busiest
unit, kern's bound, whether the two name the same bound) and the error figures of each set.

The bounds match (bound_matches) when Nsight Compute's speed-of-light verdict is latency or a
grid too small to fill the GPU (no unit above 60% of its peak) and kern names latency, the
launch overhead or atomics (one address's operations one after another: a latency chain, not a
unit's throughput); or when the verdict names a unit busiest and kern names that unit: DRAM as
dram, the L2 as l2 or atomics, the L1/shared data pipe as shared, instruction issue and the
arithmetic pipes (FMA, ALU, FP64, XU) as issue through any pipe but the ADU, the ADU (which
runs barriers, EXIT and constant-bank loads) as barriers or as issue through the ADU. kern's
bound is printed with its pipe where the issue is limited by one: "issue (adu)"."""
import json
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
kern = sys.argv[1]
args = sys.argv[2:]
only = None
if "--set" in args:
    at = args.index("--set")
    only = args[at + 1]
    del args[at:at + 2]
programs = args or sorted(f for f in os.listdir(here) if re.match(r"(cal|val)_.*\.cu$", f))


def gpu_table():
    """{launch name: (set, ncu us, verdict, busiest unit)} from h200-results.md."""
    rows = {}
    for line in open(os.path.join(here, "h200-results.md")):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 15 and cells[0] in ("cal", "val"):
            rows[cells[1]] = (cells[0], float(cells[4]), cells[13], cells[14])
    return rows


def run_kern(program):
    """[(launch name, kern us, kern bound)] of one program."""
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        p = subprocess.run([kern, "run", "--device-file", os.path.join(here, "h200.json"),
                            "--report", report.name, "--profile-from-start", "off",
                            os.path.join(here, program), "--", "1"],
                           capture_output=True, text=True, timeout=1800)
        times = re.findall(r"^(\S+): ([0-9.]+) us$", p.stdout, re.M)
        try:
            launches = [l for l in json.load(open(report.name))["launches"] if l["profiled"]]
        except (ValueError, KeyError):
            launches = []
    if p.returncode != 0:
        sys.stderr.write(f"{program}: kern exit {p.returncode}\n{p.stderr[-2000:]}")
    bounds = [l["time"]["bound"] + (f' ({l["time"]["pipe"]})' if l["time"]["bound"] == "issue"
                                     and l["time"].get("pipe", "issue") != "issue" else "")
              for l in launches]
    return [(name, float(us), bounds[i] if i < len(bounds) else "?")
            for i, (name, us) in enumerate(times)]


ISSUE = {"issue", "issue (fp64)", "issue (xu)"}
UNIT_BOUNDS = [("DRAM", {"dram"}), ("L2", {"l2", "atomics"}), ("L1/shared", {"shared"}),
               ("issue", ISSUE), ("FMA", ISSUE), ("ALU", ISSUE), ("FP64", ISSUE), ("XU", ISSUE),
               ("ADU", {"barriers", "issue (adu)"})]


def bound_matches(verdict, unit, bound):
    """Whether kern's bound is the one Nsight Compute's speed-of-light section names."""
    if verdict == "latency" or verdict.startswith("small grid"):
        return bound in ("latency", "launch", "atomics")
    return any(unit.startswith(name) and bound in bounds for name, bounds in UNIT_BOUNDS)


gpu = gpu_table()
print("| launch | set | GPU µs (ncu) | kern µs | kern / GPU | ncu verdict | ncu busiest unit "
      "| kern bound | same bound |")
print("|---|---|---|---|---|---|---|---|---|")
ratios = {"cal": [], "val": []}
matches = {"cal": [], "val": []}
for program in programs:
    for name, us, bound in run_kern(program):
        if name not in gpu:
            continue
        which, gpu_us, verdict, unit = gpu[name]
        r = us / gpu_us if gpu_us else float("inf")
        ratios[which].append(r)
        same = bound_matches(verdict, unit, bound)
        matches[which].append(same)
        if only and which != only:
            continue
        print(f"| {name} | {which} | {gpu_us:.1f} | {us:.1f} | {r:.2f} | {verdict} | {unit} "
              f"| {bound} | {'yes' if same else '**no**'} |")
print()
for which, rs in ratios.items():
    if not rs or (only and which != only):
        continue
    within = lambda f: sum(1 for r in rs if 1 / f <= r <= f)
    # The error of a ratio r is max(r, 1/r) - 1: 0.5 for a time half or one and a half the GPU's.
    errors = sorted(max(r, 1 / r) - 1 for r in rs)
    print(f"{which}: {len(rs)} launches; within 1.5x: {within(1.5)}, within 2x: {within(2)}; "
          f"median kern/GPU {sorted(rs)[len(rs) // 2]:.2f}; error median "
          f"{100 * errors[len(errors) // 2]:.0f}%, mean {100 * sum(errors) / len(errors):.0f}%, "
          f"largest {100 * errors[-1]:.0f}%; the same bound as Nsight Compute: "
          f"{sum(matches[which])}")
