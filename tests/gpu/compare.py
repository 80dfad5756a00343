#!/usr/bin/env python3
"""Sets Nsight Compute's metrics (tests/gpu/run_ncu.sh) beside kern's h100 counters, per kernel:
global sectors per request (loads) and shared wavefronts per instruction (loads).

usage: compare.py KERN NCU_DIR   (prints a Markdown table; docs/validation.md holds one)"""
import csv, io, json, os, subprocess, sys, tempfile

kern, ncu_dir = sys.argv[1], sys.argv[2]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def ncu_metrics(path):
    """{kernel: {metric: value}} from ncu --csv, summed over launches of the same kernel."""
    text = open(path).read()
    start = text.find('"ID"')
    out = {}
    for row in csv.DictReader(io.StringIO(text[start:])):
        k = row["Kernel Name"].split("(")[0]
        v = row["Metric Value"].replace(",", "")
        try:
            out.setdefault(k, {}).setdefault(row["Metric Name"], 0.0)
            out[k][row["Metric Name"]] += float(v)
        except ValueError:
            pass
    return out


def kern_totals(src):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([kern, "run", "--device", "h100", "--report", f.name, src],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        report = json.load(open(f.name))
    out = {}
    for l in report["launches"]:
        t = l["totals"]
        out[l["kernel"]] = t
    return out


def ratio(a, b):
    return a / b if b else 0.0


print("| program | kernel | kern sectors/req (ld) | ncu sectors/req (ld) | kern wavefronts/inst (shared ld) | ncu wavefronts/inst (shared ld) | kern divergent branches | ncu divergent branch targets | agree |")
print("|---|---|---|---|---|---|---|---|---|")
for prog, src in [("patterns", "tests/gpu/patterns.cu"), ("shared_banks", "tests/counters/shared_banks.kern"),
                  ("global_coalescing", "tests/counters/global_coalescing.kern"),
                  ("divergence", "tests/counters/divergence.kern")]:
    path = os.path.join(ncu_dir, prog + ".csv")
    if not os.path.exists(path):
        continue
    n = ncu_metrics(path)
    k = kern_totals(os.path.join(root, src))
    for kernel, m in n.items():
        t = k.get(kernel)
        if not t:
            continue
        g, s = t["global"]["load"], t["shared"]["load"]
        ks, ns = g["sectorsPerRequest"], ratio(m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0),
                                               m.get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 0))
        kw, nw = s["wavefrontsPerInstruction"], ratio(m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 0),
                                                      m.get("smsp__sass_inst_executed_op_shared_ld.sum", 0))
        # The GPU code's divergent branches (docs/counters.md, "Branches as the GPU executes them").
        kd, nd = t["branches"]["sassDivergent"], m.get("smsp__sass_branch_targets_threads_divergent.sum", 0)
        agree = abs(ks - ns) < 1e-6 and abs(kw - nw) < 1e-6
        print(f"| {prog} | {kernel} | {ks:.2f} | {ns:.2f} | {kw:.2f} | {nw:.2f} | {kd} | {nd:.0f} | {'yes' if agree else 'NO'} |")
