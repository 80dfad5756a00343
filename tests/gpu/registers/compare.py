#!/usr/bin/env python3
"""kern's register estimate beside ptxas's count (nvcc --resource-usage), kernel by kernel.

usage: compare.py KERN [--nvcc NVCC] [--arch sm_90] [--min-rate R] [FILE...]

Without FILEs it compares the repository's own programs that nvcc compiles (the samples, the
counter tests, the benchmarks, tests/programs, the GPU timing set and the real-code and branch
validation sets). It prints one row per
kernel and the share of kernels whose estimate lies within +-20% of ptxas's; with --min-rate it
exits 1 if that share is below R (0..1). Exit 77 when nvcc is missing.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def default_files():
    pats = ["samples/*.kern", "tests/samples/*.kern", "tests/counters/*.kern", "bench/*.kern",
            "tests/programs/*/*.cu", "tests/gpu/timing/val_*.cu", "tests/gpu/timing/cal_*.cu",
            "tests/gpu/patterns.cu", "tests/gpu/realcode/*.cu", "tests/gpu/branches/*.cu"]
    files = []
    for p in pats:
        files += sorted(glob.glob(os.path.join(ROOT, p)))
    return files


def ptxas_registers(nvcc, arch, path):
    """{kernel base name: registers} from nvcc --resource-usage, or None if nvcc fails."""
    cmd = [nvcc, "-x", "cu", "-O3", "-arch=" + arch, "--resource-usage", "-c", "-o", os.devnull,
           "-I", os.path.join(ROOT, "frontend", "headers"), "-I", os.path.dirname(path), path]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None
    out, entry = {}, None
    for line in (r.stdout + r.stderr).splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            entry = m.group(1)
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            entry = m.group(1)
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and entry:
            out[demangle(entry)] = int(m.group(1))
            entry = None
    return out


def demangle(name):
    r = subprocess.run(["c++filt", name], capture_output=True, text=True)
    text = r.stdout.strip() or name
    base = text.split("(")[0]
    base = re.sub(r"<.*>$", "", base)
    return base.split("::")[-1].split(" ")[-1]


def kern_registers(kern, path):
    r = subprocess.run([kern, "check", "--resource-usage", path], capture_output=True, text=True)
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"kern: kernel (\S+): (\d+) registers", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kern")
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--min-rate", type=float)
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    if not os.path.exists(a.nvcc):
        print("nvcc not found: skipped")
        return 77
    rows = []
    for f in a.files or default_files():
        if "nvcc: skip" in open(f, errors="replace").read():
            continue
        p = ptxas_registers(a.nvcc, a.arch, f)
        if not p:
            continue
        k = kern_registers(a.kern, f)
        for name, regs in sorted(p.items()):
            if name in k:
                rows.append((os.path.relpath(f, ROOT), name, regs, k[name]))
    within = 0
    for f, name, ptx, est in rows:
        ok = abs(est - ptx) <= 0.2 * ptx
        within += ok
        print(f"{'ok ' if ok else '   '} {ptx:4d} {est:4d}  {est / ptx:5.2f}  {f}: {name}")
    rate = within / len(rows) if rows else 0
    print(f"{within} of {len(rows)} kernels within +-20% of ptxas ({100 * rate:.1f}%)")
    if a.min_rate is not None and rate < a.min_rate:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
