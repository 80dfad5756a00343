#!/usr/bin/env python3
"""kern explain on the worked examples of HARDWARE-MODEL.md (tests/cli/explain/
worked_examples.kern): each shared access's steps drawn lane by lane on g80 and h100, each
global access's transactions on g80, gt200 and h100, each branch's sides; and the output of one
line whole (explain/*.expected). Usage: explain.py KERN SOURCE_DIR"""
import os
import re
import subprocess
import sys

KERN, ROOT = sys.argv[1], sys.argv[2]
HERE = os.path.join(ROOT, "tests", "cli", "explain")
PROGRAM = os.path.join("tests", "cli", "explain", "worked_examples.kern")
failures = []


def explain(line, device, code=0):
    p = subprocess.run([KERN, "explain", f"{PROGRAM}:{line}", "--device", device], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    if p.returncode != code:
        failures.append(f"explain {line} on {device}: exit {p.returncode}\n{p.stderr}")
    if "no error" not in p.stderr:
        failures.append(f"explain {line} on {device}: the program's output is not on stderr")
    return p.stdout


def steps(text):
    """The first warp's map: {step: [lanes]} from its '#' rows."""
    first = text.split("first warp:", 1)[1].split("warp costs", 1)[0]
    lanes_row = re.search(r"^    lane .*$", first, re.M).group(0)
    cols = [m.end() - 1 for m in re.finditer(r"\d+", lanes_row)][:32]  # each lane's last column
    out = {}
    for m in re.finditer(r"^    step (\d+) .*$", first, re.M):
        row = m.group(0)
        out[int(m.group(1))] = [l for l, c in enumerate(cols) if c < len(row) and row[c] == "#"]
    return out


def runs(lanes_per_step):
    """Each step's lanes as 'a-b' runs, for readable expectations."""
    out = []
    for lanes in lanes_per_step.values():
        parts, start = [], None
        for i, l in enumerate(lanes):
            if start is None:
                start = l
            if i + 1 == len(lanes) or lanes[i + 1] != l + 1:
                parts.append(f"{start}-{l}" if l != start else f"{l}")
                start = None
        out.append(",".join(parts))
    return out


# Shared: (line, g80 steps, h100 steps); each step must serve the lanes the rules say.
SHARED = [(12, 2, 1), (13, 4, 2), (14, 8, 4), (15, 32, 16), (16, 2, 1), (17, 32, 32),
          (18, 2, 1), (19, 4, 1), (20, 8, 2)]
for line, g80, h100 in SHARED:
    for device, want in (("g80", g80), ("h100", h100)):
        text = explain(line, device)
        unit = ("step" if device == "g80" else "wavefront") + ("s" if want != 1 else "")
        if f": {want} {unit}\n" not in text:
            failures.append(f"line {line} on {device}: expected {want} {unit}\n{text}")
        got = steps(text)
        if sorted(got) != list(range(1, want + 1)):
            failures.append(f"line {line} on {device}: step rows {sorted(got)}\n{text}")
# Which lanes each step serves.
LANES = {
    (13, "h100"): ["0-15", "16-31"],
    (13, "g80"): ["0-7", "8-15", "16-23", "24-31"],
    (12, "g80"): ["0-15", "16-31"],
    (18, "h100"): ["0-31"],
    # one broadcast word per step, plus one thread of each other bank (lane 8, lane 24)
    (19, "g80"): ["0-8", "9-15", "16-24", "25-31"],
    (17, "h100"): [str(l) for l in range(32)],
    # a double: two 32-bit requests per half-warp, each 2-way
    (20, "g80"): ["0-7", "8-15", "0-7", "8-15", "16-23", "24-31", "16-23", "24-31"],
    (20, "h100"): ["0-15", "16-31"],
}
for (line, device), want in LANES.items():
    got = runs(steps(explain(line, device)))
    if got != want:
        failures.append(f"line {line} on {device}: steps serve {got}, expected {want}")

# Global: (line, g80, gt200, h100) transactions of the first warp (h100: sectors).
GLOBAL = [(26, 2, 2, 4), (27, 2, 2, 4), (28, 32, 3, 5), (29, 32, 2, 8), (30, 32, 32, 32),
          (31, 32, 4, 12), (32, 4, 4, 16)]
for line, g80, gt200, h100 in GLOBAL:
    for device, want in (("g80", g80), ("gt200", gt200), ("h100", h100)):
        text = explain(line, device)
        unit = "sectors" if device == "h100" else "transactions"
        first = text.split("first warp:", 1)[1] if "first warp:" in text else ""
        if f": {want} {unit}\n" not in first.split("\n", 1)[0] + "\n":
            failures.append(f"line {line} on {device}: expected {want} {unit}\n{text}")
# gt200's misaligned in[i+1]: 128 + 64 + 32 B, lane 31 alone in the last.
text = explain(28, "gt200")
if "3 transactions: 1: 128 B at -4, 2: 64 B at 60, 3: 32 B at 124" not in text:
    failures.append(f"line 28 on gt200: the transactions\n{text}")
moved = re.search(r"^    moved by +(.*)$", text, re.M).group(1).split()
if moved != ["1"] * 16 + ["2"] * 15 + ["3"]:
    failures.append(f"line 28 on gt200: lanes moved by {moved}")

# Branches: the first warp that split, lane by lane; a branch no warp split says so.
text = explain(38, "h100")
cond = re.search(r"^    condition +(.*)$", text, re.M)
if not cond or cond.group(1).split() != ["F", "T"] * 16 or "8 branches, 8 divergent" not in text:
    failures.append(f"line 38: the sides of threadIdx.x % 2\n{text}")
text = explain(39, "h100")
if "8 branches, 1 divergent" not in text or \
        re.search(r"^    condition +(.*)$", text, re.M).group(1).split() != ["T"] * 16 + ["F"] * 16:
    failures.append(f"line 39: the sides of threadIdx.x < 16\n{text}")
if "no warp split here" not in explain(40, "h100"):
    failures.append("line 40: (threadIdx.x / 32) % 2 splits no warp")
# A loop whose lanes leave one iteration after another: a row per split, the leavers false.
text = explain(46, "h100")
rows = re.findall(r"^    split (\d) +(.*)$", text, re.M)
want = []
for it in range(4):
    want.append(["." if l % 5 < it else ("F" if l % 5 == it else "T") for l in range(32)])
if [r[1].split() for r in rows] != want:
    failures.append(f"line 46: the loop's splits\n{text}")

# The whole output of one line, as a learner sees it.
for line, device in ((13, "h100"), (13, "g80")):
    want = open(os.path.join(HERE, f"line{line}_{device}.expected")).read()
    got = explain(line, device)
    if got != want:
        failures.append(f"line {line} on {device}: differs from line{line}_{device}.expected\n"
                        f"{got}")

# The first and the worst warp are the same with any number of workers (a data-dependent
# global atomic, whose worst warp is in block 7).
maps = set()
for workers in ("1", "2", "4"):
    p = subprocess.run([KERN, "explain", "samples/histogram.kern:15", "--workers", workers],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    maps.add(p.stdout)
if len(maps) != 1 or "worst warp: launch 0 (histo_global), block (7,0,0), warp 4: 31 passes" \
        not in maps.pop():
    failures.append("explain samples/histogram.kern:15: differs between 1, 2 and 4 workers, or "
                    "the worst warp moved")

# A shared access whose worst pattern repeats in many blocks: the memos replay it, and the worst
# warp is still the lowest block's with any number of workers.
for workers in ("1", "2", "4"):
    p = subprocess.run([KERN, "explain", "tests/cli/explain/worst.kern:8", "--workers", workers],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    if "worst warp: launch 0 (strided), block (4,0,0), warp 0: 4 wavefronts" not in p.stdout:
        failures.append(f"worst.kern:8 with {workers} workers: the worst warp\n{p.stdout}")

# Errors: a line with nothing that ran, a bad FILE:LINE.
p = subprocess.run([KERN, "explain", f"{PROGRAM}:1"], cwd=ROOT, capture_output=True, text=True)
if p.returncode != 0 or p.stdout or "nothing on this line ran in a kernel" not in p.stderr:
    failures.append(f"explain of a comment line: {p.returncode}\n{p.stdout}{p.stderr}")
for bad in (PROGRAM, f"{PROGRAM}:0", f"{PROGRAM}:x"):
    p = subprocess.run([KERN, "explain", bad], cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 2 or "explain needs FILE:LINE" not in p.stderr:
        failures.append(f"explain {bad}: {p.returncode}\n{p.stderr}")
p = subprocess.run([KERN, "explain", f"{PROGRAM}:13", "--mode", "fast"], cwd=ROOT,
                   capture_output=True, text=True)
if p.returncode != 2 or "cannot go with 'kern explain'" not in p.stderr:
    failures.append(f"explain --mode fast: {p.returncode}\n{p.stderr}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("explain: ok")
