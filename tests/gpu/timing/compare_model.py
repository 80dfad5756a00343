#!/usr/bin/env python3
"""Sets kern's modelled time beside the GPU's for every launch of tests/gpu/timing/ (not part of
ctest: it runs every program at its full size).

usage: compare_model.py KERN [PROGRAM...]   (default: every cal_*.cu and val_*.cu)

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
arithmetic pipes (FMA, ALU, FP64, XU) as issue, the ADU (which runs barriers) as barriers."""
import json
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
kern = sys.argv[1]
programs = sys.argv[2:] or sorted(f for f in os.listdir(here)
                                  if re.match(r"(cal|val)_.*\.cu$", f))


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
    bounds = [l["time"]["bound"] for l in launches]
    return [(name, float(us), bounds[i] if i < len(bounds) else "?")
            for i, (name, us) in enumerate(times)]


UNIT_BOUNDS = [("DRAM", {"dram"}), ("L2", {"l2", "atomics"}), ("L1/shared", {"shared"}),
               ("issue", {"issue"}), ("FMA", {"issue"}), ("ALU", {"issue"}),
               ("FP64", {"issue"}), ("XU", {"issue"}), ("ADU", {"barriers"})]


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
        print(f"| {name} | {which} | {gpu_us:.1f} | {us:.1f} | {r:.2f} | {verdict} | {unit} "
              f"| {bound} | {'yes' if same else '**no**'} |")
print()
for which, rs in ratios.items():
    if not rs:
        continue
    within = lambda f: sum(1 for r in rs if 1 / f <= r <= f)
    print(f"{which}: {len(rs)} launches; within 1.5x: {within(1.5)}, within 2x: {within(2)}; "
          f"median kern/GPU {sorted(rs)[len(rs) // 2]:.2f}; the same bound as Nsight Compute: "
          f"{sum(matches[which])}")
