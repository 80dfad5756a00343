#!/usr/bin/env python3
"""Sets kern's atomics beside the H200's (not part of ctest).

    compare.py KERN [RESULTS]      (default RESULTS: results/h200 beside this file)

1. Counters: KERN runs atomic_rules.cu on h100 with --csv; RESULTS/rules.csv holds Nsight
   Compute's counts of the same launches. Prints every count that differs and a summary.
2. Time: KERN runs atomic_rates.cu with the H200's profile (../timing/h200.json), one launch per
   timing; RESULTS/rates.txt holds the GPU's cudaEvent timings. Prints a table of both.
Exits 1 when a count differs by more than 2% (the random patterns differ by up to 2%).
"""
import csv, io, re, subprocess, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
METRICS = [
    "smsp__sass_inst_executed_op_global_atom.sum",
    "smsp__sass_inst_executed_op_global_red.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "smsp__sass_inst_executed_op_shared_atom.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
]


def table(text):
    """{launch id: {metric: value}} of an ncu-style CSV."""
    out, header = {}, None
    for row in csv.reader(io.StringIO(text)):
        if row and row[0] == "ID":
            header = row
            continue
        if header and len(row) == len(header):
            d = dict(zip(header, row))
            if d["Metric Name"] in METRICS:
                value = float(d["Metric Value"].replace(",", "") or 0)
                out.setdefault(int(d["ID"]), {})[d["Metric Name"]] = (d["Kernel Name"], value)
    return out


def times(text):
    return {m.group(1): float(m.group(2))
            for m in re.finditer(r"^(\S+): ([0-9.]+) us$", text, re.M)}


def rates(kern, results):
    run = subprocess.run([kern, "run", "--device-file", str(HERE.parent / "timing" / "h200.json"),
                          str(HERE / "atomic_rates.cu"), "--", "1"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("kern failed: " + run.stderr[-2000:])
    got, want = times(run.stdout), times((results / "rates.txt").read_text())
    print("\n| launch | GPU µs (events) | kern µs | kern / GPU |\n|---|---|---|---|")
    ratios = []
    for name, w in want.items():
        g = got.get(name, 0.0)
        ratios.append(g / w)
        print(f"| {name} | {w:.1f} | {g:.1f} | {g / w:.2f} |")
    within = sum(1 for r in ratios if 1 / 1.5 <= r <= 1.5)
    print(f"\n{within} of {len(ratios)} launches within 1.5x")


def main():
    kern = sys.argv[1]
    results = Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / "results" / "h200"
    ncu_csv = results / "rules.csv"
    run = subprocess.run([kern, "run", "--device", "h100", "--csv", "--metrics", ",".join(METRICS),
                          str(HERE / "atomic_rules.cu")], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("kern failed: " + run.stderr[-2000:])
    names = [line.split(": ", 1)[1] for line in run.stdout.splitlines() if line.startswith("launch ")]
    got, want = table(run.stderr), table(Path(ncu_csv).read_text())
    same = close = far = 0
    for i, name in enumerate(names):
        for m in METRICS:
            g = got.get(i, {}).get(m, ("", 0.0))[1]
            w = want.get(i, {}).get(m, ("", 0.0))[1]
            if g == w:
                same += 1
                continue
            if abs(g - w) <= 0.02 * w:
                close += 1
            else:
                far += 1
            print(f"launch {i} ({name}): {m}: kern {g:g}, GPU {w:g}")
    print(f"{same} of {same + close + far} counts equal, {close} within 2%, {far} further "
          f"({len(names)} launches)")
    rates(kern, results)
    sys.exit(1 if far else 0)


if __name__ == "__main__":
    main()
