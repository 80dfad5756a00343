#!/usr/bin/env python3
"""Checks that every efficiency, percentage and ratio kern reports lies in its range
(docs/counters.md, "Derived figures"): runs `kern run --report --stats` on every sample, on the
programs of tests/programs/ and on the .kern tests that run, on every device generation, and
checks each such field of the JSON report and each percentage of the --stats tables, the summary
and the advice; `kern annotate` likewise on the samples.

usage: check_ranges.py KERN ROOT [JOBS]"""
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

kern, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
jobs = int(sys.argv[3]) if len(sys.argv) > 3 else (os.cpu_count() or 2)
DEVICES = ["g80", "gt200", "fermi", "h100"]

# Report fields by their last name: (lowest, highest).
PERCENT = (0.0, 100.0)
RANGES = {
    "efficiency": PERCENT,
    "warpExecutionEfficiency": PERCENT,
    "divergentPercent": PERCENT,
    "occupancy": (0.0, 1.0),
    "lastWaveFullness": (0.0, 1.0),
    "pinnedEfficiency": (0.0, 1.0),
    "pageableEfficiency": (0.0, 1.0),
    "pageableBeyondKneeEfficiency": (0.0, 1.0),
    # A warp-level access touches at most 2 sectors per lane (16 bytes across a boundary).
    "sectorsPerRequest": (0.0, 64.0),
    # 4 phases of 8 lanes, each up to 32 words in one bank... at most 32 x 4.
    "wavefrontsPerInstruction": (0.0, 128.0),
    "transferToKernelRatio": (0.0, float("inf")),
}


def check_number(path, name, value, errors):
    if name.endswith(".pct"):
        lo, hi = PERCENT
    elif name.endswith(".ratio"):
        lo, hi = 0.0, 32.0
    elif name in RANGES:
        lo, hi = RANGES[name]
    else:
        return
    if value is None:
        return
    if not (lo <= value <= hi):
        errors.append(f"{path} = {value}, outside [{lo}, {hi}]")


def check_counters(path, c, errors):
    """Relations between a counters object's fields that make its figures lie in range."""
    for kind, g in c["global"].items():
        if g["bytesRequested"] > g["bytesMoved"]:
            errors.append(f"{path}.global.{kind}: bytesRequested {g['bytesRequested']} > "
                          f"bytesMoved {g['bytesMoved']}")
    for kind, s in c["shared"].items():
        if not (s["idealWavefronts"] <= s["wavefronts"]):
            errors.append(f"{path}.shared.{kind}: ideal above wavefronts")
    if c["branches"]["divergent"] > c["branches"]["executed"]:
        errors.append(f"{path}.branches: more divergent than executed")
    i = c["instructions"]
    if i["thread"] > 32 * i["warp"]:
        errors.append(f"{path}.instructions: {i['thread']} thread > 32 x {i['warp']} warp")
    a = c["atomics"]
    if a["thread"] > 32 * a["warp"]:
        errors.append(f"{path}.atomics: {a['thread']} thread > 32 x {a['warp']} warp")


def walk(value, path, errors):
    if isinstance(value, dict):
        if "global" in value and "shared" in value and "branches" in value:
            check_counters(path, value, errors)
        for k, v in value.items():
            p = f"{path}.{k}" if path else k
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                check_number(p, k, v, errors)
            else:
                walk(v, p, errors)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            walk(v, f"{path}[{i}]", errors)


PERCENT_TEXT = re.compile(r"(-?[0-9]+(?:\.[0-9]+)?) ?%")


def check_text(what, text, errors):
    """Every percentage on the lines kern writes: the --stats table rows and the summary (two
    leading spaces), the advice, and annotate's per-line counters."""
    for line in text.splitlines():
        if not (line.startswith("  ") or ": advice: " in line or " | " in line
                or line.startswith("kern: ")):
            continue
        # annotate: only what follows the source, after the counters' '//' column.
        if " | " in line:
            if "  // " not in line:
                continue
            line = line.split("  // ", 1)[1]
        for m in PERCENT_TEXT.finditer(line):
            v = float(m.group(1))
            if not 0.0 <= v <= 100.0:
                errors.append(f"{what}: {v}% in: {line.strip()}")


def spec(path):
    """kern-args, args and devices a .kern test states; None when it is not a program that runs
    to completion (it expects an error, a fault, or another mode)."""
    text = open(path, errors="replace").read()
    if re.search(r"//\s*(expect-error|run):", text) or re.search(r"//\s*expect-exit:\s*[1-9]", text):
        return None
    kern_args, args, devices = [], [], None
    for m in re.finditer(r"//\s*kern-args:(.*)", text):
        kern_args += m.group(1).split()
    for m in re.finditer(r"//\s*args:(.*)", text):
        args += m.group(1).split()
    if "--device" in kern_args:
        i = kern_args.index("--device")
        devices = [kern_args[i + 1]]
        del kern_args[i:i + 2]
    # Options that write elsewhere or select launches are left as the test has them; --stats
    # and --report are added.
    kern_args = [a for a in kern_args if a not in ("--stats", "--summary", "--annotate")]
    kern_args = [a for a in kern_args if not a.startswith("--report") and a != "-"]
    return kern_args, args, devices


def run(job):
    cwd, units, kern_args, args, device, annotate = job
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        cmd = [kern, "run", "--device", device, "--workers", "1", "--stats", "--report", report]
        cmd += kern_args + units + (["--"] + args if args else [])
        what = f"{' '.join(units)} on {device}"
        try:
            p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=240,
                               errors="replace")
        except subprocess.TimeoutExpired:
            return [f"{what}: timed out"]
        if not os.path.exists(report):
            # A program this device cannot run (an atomic of a later generation...) writes no
            # report: nothing to check.
            return []
        try:
            walk(json.load(open(report)), what, errors)
        except (ValueError, KeyError) as e:
            errors.append(f"{what}: unreadable report: {e}")
        check_text(what, p.stderr, errors)
        if annotate:
            a = subprocess.run([kern, "annotate", "--device", device] + units, cwd=cwd,
                               capture_output=True, text=True, timeout=240, errors="replace")
            check_text(what + " (annotate)", a.stdout + a.stderr, errors)
    return errors


def jobs_list():
    out = []
    files = sorted(glob.glob(os.path.join(root, "samples", "*.kern")))
    files += sorted(glob.glob(os.path.join(root, "tests", "samples", "*.kern")))
    files += sorted(glob.glob(os.path.join(root, "tests", "counters", "**", "*.kern"), recursive=True))
    files += sorted(glob.glob(os.path.join(root, "tests", "workers", "*.kern")))
    every_device = set(files)
    files += sorted(glob.glob(os.path.join(root, "tests", "lang", "**", "*.kern"), recursive=True))
    for f in files:
        s = spec(f)
        if s is None:
            continue
        kern_args, args, devices = s
        annotate = f.startswith(os.path.join(root, "samples"))
        for d in devices or (DEVICES if f in every_device else ["h100"]):
            out.append((os.path.dirname(f), [f], kern_args, args, d, annotate))
    sys.path.insert(0, os.path.join(root, "tests", "programs"))
    import run as programs  # tests/programs/run.py: the corpus' units and arguments
    for d in sorted(glob.glob(os.path.join(root, "tests", "programs", "*", "expected.txt"))):
        d = os.path.dirname(d)
        if open(os.path.join(d, "expected_exit.txt")).read().strip() != "0" \
                if os.path.exists(os.path.join(d, "expected_exit.txt")) else False:
            continue
        for dev in DEVICES:
            out.append((d, programs.units(d), [], programs.args(d), dev, False))
    return out


errors = []
with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
    for e in pool.map(run, jobs_list()):
        errors += e
for e in errors:
    print(e)
print(f"{len(errors)} figure(s) out of range" if errors else "every figure in range")
sys.exit(1 if errors else 0)
