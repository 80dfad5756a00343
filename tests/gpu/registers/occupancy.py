#!/usr/bin/env python3
"""kern's theoretical occupancy beside Nsight Compute's, launch by launch.

usage: occupancy.py KERN [--min-rate R] [NCU_WIDE_CSV]

Reads the launches that tests/gpu/timing/measure.sh recorded under Nsight Compute (default:
tests/gpu/timing/results/h200/ncu-wide.csv): each launch's block size and shared memory, and
ncu's theoretical occupancy (sm__maximum_warps_per_active_cycle_pct). kern's figure comes from
`kern occupancy` on the same block and shared memory with kern's register estimate for the
kernel (`kern check --resource-usage` on the program's source). Prints one row per launch, and
the share of launches where the two are equal; with --min-rate it exits 1 if that share is
below R (0..1).
"""
import argparse
import csv
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kern")
    ap.add_argument("--min-rate", type=float)
    ap.add_argument("csv", nargs="?",
                    default=os.path.join(ROOT, "tests/gpu/timing/results/h200/ncu-wide.csv"))
    a = ap.parse_args()
    kern, path = a.kern, a.csv
    estimates = {}
    same = total = 0
    for row in csv.DictReader(open(path)):
        prog, kernel = row["program"], row["kernel"].split("(")[0].strip()
        if prog not in estimates:
            src = os.path.join(ROOT, "tests/gpu/timing", prog + ".cu")
            out = subprocess.run([kern, "check", "--resource-usage", src], capture_output=True,
                                 text=True).stdout
            estimates[prog] = {m.group(1): int(m.group(2)) for m in
                               re.finditer(r"kern: kernel (\S+): (\d+) registers", out)}
        regs = estimates[prog].get(kernel)
        if regs is None:
            continue
        dims = [int(x) for x in re.findall(r"\d+", row["block"])]
        threads = dims[0] * dims[1] * dims[2]
        smem = int(float(row["launch__shared_mem_per_block_static"]) +
                   float(row["launch__shared_mem_per_block_dynamic"]))
        out = subprocess.run([kern, "occupancy", "--threads", str(threads), "--regs", str(regs),
                              "--smem", str(smem)], capture_output=True, text=True).stdout
        m = re.search(r"occupancy ([\d.]+)%", out)
        mine = float(m.group(1)) if m else -1
        theirs = float(row["sm__maximum_warps_per_active_cycle_pct"])
        ok = abs(mine - theirs) < 0.05
        same += ok
        total += 1
        ncu_regs = int(float(row["launch__registers_per_thread"]))
        print(f"{'ok ' if ok else '   '} {theirs:6.1f}% {mine:6.1f}%  regs ncu {ncu_regs:3d} kern "
              f"{regs:3d}  block {threads:4d} smem {smem:6d}  {prog}: {kernel} (launch "
              f"{row['launch']})")
    print(f"{same} of {total} launches: the same theoretical occupancy as Nsight Compute "
          f"({100 * same / max(total, 1):.0f}%)")
    if total == 0 or (a.min_rate is not None and same / total < a.min_rate):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
