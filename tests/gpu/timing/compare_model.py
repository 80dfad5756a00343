#!/usr/bin/env python3
"""Sets kern's modelled time beside the GPU's for every launch of tests/gpu/timing/ (not part of
ctest: it runs every program at its full size).

usage: compare_model.py KERN [PROGRAM...]   (default: every cal_*.cu and val_*.cu)

Each program runs under `kern run --device-file h200.json --report R --profile-from-start off
PROG -- 1`: one launch per timing, and only the timed launches (those between
cudaProfilerStart and cudaProfilerStop) are counted, so the report's profiled launches are the
timed ones, in order. The GPU's time is ncu's gpu__time_duration.sum from h200-results.md.
Prints a Markdown table (launch, set, GPU us, kern us, kern / GPU, ncu's verdict and busiest
unit, kern's bound) and the error figures of each set."""
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


gpu = gpu_table()
print("| launch | set | GPU µs (ncu) | kern µs | kern / GPU | ncu verdict | ncu busiest unit | kern bound |")
print("|---|---|---|---|---|---|---|---|")
ratios = {"cal": [], "val": []}
for program in programs:
    for name, us, bound in run_kern(program):
        if name not in gpu:
            continue
        which, gpu_us, verdict, unit = gpu[name]
        r = us / gpu_us if gpu_us else float("inf")
        ratios[which].append(r)
        print(f"| {name} | {which} | {gpu_us:.1f} | {us:.1f} | {r:.2f} | {verdict} | {unit} | {bound} |")
print()
for which, rs in ratios.items():
    if not rs:
        continue
    within = lambda f: sum(1 for r in rs if 1 / f <= r <= f)
    print(f"{which}: {len(rs)} launches; within 1.5x: {within(1.5)}, within 2x: {within(2)}; "
          f"median kern/GPU {sorted(rs)[len(rs) // 2]:.2f}")
