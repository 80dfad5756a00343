#!/usr/bin/env python3
"""Turns measure.sh's output into the timing tables.

    summarize.py DIR [--wide CSV] [--write MD]

DIR holds measure.sh's output: env.txt, clocks.csv and timing-raw.tar.gz (the per-program
outputs of the plain runs and ncu's per-program CSV, whose program output names the launches in
the order ncu profiled them). Prints the per-launch table and the calibration figures as
Markdown; --write MD replaces the part of MD between the lines '<!-- generated: begin -->' and
'<!-- generated: end -->' with them; --wide CSV writes one row per profiled launch (program,
launch, kernel, block, grid, events' mean, then every metric ncu reported, and its
speed-of-light rule).
"""
import argparse
import csv
import io
import re
import sys
import tarfile
from collections import OrderedDict, defaultdict

TIME_LINE = re.compile(r"^(\S+): ([0-9.]+) us$")

# Top-level speed-of-light figures; the rest of the section's '%' metrics are its breakdowns.
SOL_TOP = {
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "smsp__warps_active.avg.pct_of_peak_sustained_active",
}
# Breakdown metrics that are ncu's internal aggregates rather than one unit.
SOL_SKIP = ("_internal_activity",)
MEMORY_PREFIXES = ("dram__", "fbpa__", "gpu__dram", "gpu__compute_memory", "l1tex__", "lts__",
                   "sm__memory")


def unit_label(metric):
    """A short name for the unit a breakdown metric measures."""
    base = metric.split(".")[0]
    table = [
        ("dram__", "DRAM"), ("fbpa__", "DRAM"), ("gpu__dram", "DRAM"),
        ("lts__d_atomic", "L2 atomic unit"), ("lts__", "L2"),
        ("l1tex__data_bank", "L1/shared data banks"), ("l1tex__data_pipe_lsu", "L1/shared data pipe"),
        ("l1tex__lsuin", "L1 LSU input"), ("l1tex__m_", "L1-L2 crossbar"), ("l1tex__t", "L1 tags"),
        ("l1tex__f_", "L1 fill"), ("l1tex__lsu_writeback", "L1 writeback"), ("l1tex__", "L1"),
        ("sm__pipe_fmaheavy", "FMA-heavy pipe"), ("sm__pipe_fma", "FMA pipe"),
        ("sm__pipe_alu", "ALU pipe"), ("sm__pipe_fp64", "FP64 pipe"),
        ("sm__pipe_shared", "FP16+tensor (shared) pipe"), ("sm__pipe_tensor", "tensor pipe"),
        ("sm__inst_executed_pipe_xu", "XU (special-function) pipe"),
        ("sm__inst_executed_pipe_lsu", "LSU pipe"), ("sm__inst_executed_pipe_cbu", "branch unit"),
        ("sm__inst_executed_pipe_adu", "ADU"), ("sm__inst_executed_pipe_uniform", "uniform pipe"),
        ("sm__inst_executed", "issue"), ("sm__issue_active", "issue"), ("sm__mio", "MIO"),
        ("idc__", "constant cache"),
    ]
    for prefix, label in table:
        if base.startswith(prefix):
            return label
    return base


def num(s):
    try:
        return float(s.replace(",", ""))
    except (ValueError, AttributeError):
        return None


def parse_outputs(text):
    """'name: X us' lines in order, and the program's other lines."""
    times, other = [], []
    for line in text.splitlines():
        m = TIME_LINE.match(line.strip())
        if m:
            times.append((m.group(1), float(m.group(2))))
        elif line.strip():
            other.append(line.rstrip())
    return times, other


def load(dirname):
    tar = tarfile.open(f"{dirname}/timing-raw.tar.gz")
    members = {m.name.lstrip("./"): m for m in tar.getmembers() if m.isfile()}

    def read(name):
        return tar.extractfile(members[name]).read().decode("utf-8", "replace")

    events = defaultdict(dict)  # program -> run -> [(name, us)]
    lines = defaultdict(dict)  # program -> run -> other output lines
    for name in sorted(members):
        m = re.match(r"events/(\w+)\.run(\d)\.txt$", name)
        if m:
            times, other = parse_outputs(read(name))
            events[m.group(1)][int(m.group(2))] = times
            lines[m.group(1)][int(m.group(2))] = other
    launches = []  # one dict per profiled launch
    for name in sorted(members):
        m = re.match(r"ncu/(\w+)\.csv$", name)
        if not m:
            continue
        prog = m.group(1)
        text = read(name)
        names = [n for n, _ in parse_outputs("\n".join(l for l in text.splitlines()
                                                        if not l.startswith('"')))[0]]
        rows = list(csv.DictReader(io.StringIO("\n".join(l for l in text.splitlines()
                                                         if l.startswith('"')))))
        by_id = OrderedDict()
        for r in rows:
            d = by_id.setdefault(r["ID"], {"program": prog, "kernel": r["Kernel Name"],
                                          "block": r["Block Size"], "grid": r["Grid Size"],
                                          "metrics": OrderedDict(), "units": {}, "rules": {}})
            if r["Metric Name"]:
                d["metrics"].setdefault(r["Metric Name"], num(r["Metric Value"]))
                d["units"].setdefault(r["Metric Name"], r["Metric Unit"])
            if r.get("Rule Name"):
                d["rules"][r["Rule Name"]] = r["Rule Description"]
        if len(by_id) != len(names):
            print(f"warning: {prog}: {len(by_id)} profiled launches, {len(names)} timed",
                  file=sys.stderr)
        for i, d in enumerate(by_id.values()):
            d["launch"] = names[i] if i < len(names) else f"{prog}#{i}"
            ev = [dict(events[prog].get(run, [])).get(d["launch"]) for run in (1, 2)]
            d["events"] = [e for e in ev if e is not None]
            launches.append(d)
    return launches, events, lines


def sol(d):
    """(verdict, top unit, its %) as Nsight Compute's speed-of-light section shows them."""
    m = d["metrics"]
    sm = m.get("sm__throughput.avg.pct_of_peak_sustained_elapsed") or 0
    mem = m.get("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed") or 0
    rule = d["rules"].get("SOLBottleneck", "")
    waves = m.get("launch__waves_per_multiprocessor")
    if "greater than 80.0%" in rule:
        verdict = "compute >80%" if sm >= mem else "memory >80%"
    elif "too small to fill" in rule:
        verdict = f"small grid ({waves:.2f} waves)" if waves is not None else "small grid"
    elif "low compute throughput and memory bandwidth" in rule:
        verdict = "latency"
    elif "Memory is more heavily utilized" in rule:
        verdict = "memory"
    elif "Compute is more heavily utilized" in rule:
        verdict = "compute"
    elif "well-balanced" in rule:
        verdict = "balanced"
    else:
        verdict = "?"
    best = None
    for name, v in m.items():
        if v is None or name in SOL_TOP or not name.endswith(".pct_of_peak_sustained_elapsed"):
            continue
        if any(s in name for s in SOL_SKIP):
            continue
        if verdict.startswith("memory") and not name.startswith(MEMORY_PREFIXES):
            continue
        if verdict.startswith("compute") and name.startswith(MEMORY_PREFIXES):
            continue
        if best is None or v > best[1]:
            best = (name, v)
    if best is None:
        return verdict, "", None
    return verdict, f"{unit_label(best[0])} ({best[0].split('.')[0]})", best[1]


def fmt(v, digits=1):
    return "" if v is None else f"{v:.{digits}f}"


def launch_table(launches):
    out = ["| set | launch | kernel | grid x block | ncu µs | events µs (run 1 / 2) | SM % | "
           "memory % | DRAM % | L2 % | L1 % | warps active % | DRAM MB read / written | "
           "SOL verdict | busiest unit (breakdown %) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for d in launches:
        m = d["metrics"]
        verdict, unit, pct = sol(d)
        grid = d["grid"].strip("()").replace(", 1, 1", "").replace(", ", "x")
        block = d["block"].strip("()").replace(", 1, 1", "").replace(", ", "x")
        ns = m.get("gpu__time_duration.sum")
        ev = " / ".join(f"{e:.1f}" for e in d["events"])
        rd, wr = m.get("dram__bytes_read.sum"), m.get("dram__bytes_write.sum")
        dram = f"{rd / 1e6:.1f} / {wr / 1e6:.1f}" if rd is not None and wr is not None else ""
        kernel = d["kernel"].split("(")[0]
        out.append(
            f"| {'cal' if d['program'].startswith('cal_') else 'val'} | {d['launch']} | {kernel} | "
            f"{grid} x {block} | {fmt(ns / 1000 if ns else None)} | {ev} | "
            f"{fmt(m.get('sm__throughput.avg.pct_of_peak_sustained_elapsed'))} | "
            f"{fmt(m.get('gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed'))} | "
            f"{fmt(m.get('dram__throughput.avg.pct_of_peak_sustained_elapsed'))} | "
            f"{fmt(m.get('lts__throughput.avg.pct_of_peak_sustained_elapsed'))} | "
            f"{fmt(m.get('l1tex__throughput.avg.pct_of_peak_sustained_elapsed'))} | "
            f"{fmt(m.get('sm__warps_active.avg.pct_of_peak_sustained_active'))} | {dram} | "
            f"{verdict} | {unit} {fmt(pct)} |")
    return out


def calibration(launches, events, lines, nsm, clock_hz):
    """The model's figures, each from the launch that measures it."""
    by = {d["launch"]: d for d in launches}

    def ev(name):  # mean of the plain runs, µs
        d = by.get(name)
        if d and d["events"]:
            return sum(d["events"]) / len(d["events"])
        for prog in events:
            vals = [dict(events[prog].get(r, [])).get(name) for r in (1, 2)]
            vals = [v for v in vals if v is not None]
            if vals:
                return sum(vals) / len(vals)
        return None

    def ncu_us(name):
        d = by.get(name)
        v = d and d["metrics"].get("gpu__time_duration.sum")
        return v / 1000 if v else None

    def metric(name, key):
        d = by.get(name)
        return d and d["metrics"].get(key)

    def line_values(prog, pattern):  # the value in each plain run
        vals = []
        for run in sorted(lines.get(prog, {})):
            for l in lines[prog][run]:
                m = re.search(pattern, l)
                if m:
                    vals.append(float(m.group(1)))
                    break
        return vals

    def line_value(prog, pattern):  # mean over the plain runs
        vals = line_values(prog, pattern)
        return sum(vals) / len(vals) if vals else None

    def both(prog, pattern, digits, unit):
        vals = line_values(prog, pattern)
        return " / ".join(f"{v:.{digits}f}" for v in vals) + f" {unit}" if vals else ""

    rows = []

    def bw(label, name, nbytes, note=""):
        e, n = ev(name), ncu_us(name)
        dram = None
        rd, wr = metric(name, "dram__bytes_read.sum"), metric(name, "dram__bytes_write.sum")
        if n and rd is not None and wr is not None:
            dram = (rd + wr) / (n * 1e-6) / 1e9
        rows.append((label, name,
                     f"{nbytes / (e * 1e-6) / 1e9:.0f} GB/s" if e else "",
                     f"{nbytes / (n * 1e-6) / 1e9:.0f} GB/s" if n else "",
                     (f"DRAM bytes moved / ncu time: {dram:.0f} GB/s. " if dram else "") + note))

    def rate(label, name, ops, unit, note=""):
        e, n = ev(name), ncu_us(name)
        per = lambda t: ops / (t * 1e-6 * clock_hz * nsm)
        rows.append((label, name, f"{per(e):.2f} {unit}" if e else "",
                     f"{per(n):.2f} {unit}" if n else "", note))

    GiB = 1 << 30
    bw("DRAM copy (read + write)", "dram_copy_f4_1GiB", 2 * GiB)
    bw("DRAM read", "dram_read_sum_f4_1GiB", GiB)
    bw("DRAM write", "dram_write_f4_1GiB", GiB)
    d = by.get("dram_copy_f4_1GiB")
    if d:
        m = d["metrics"]
        moved = (m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]) / (m["gpu__time_duration.sum"] * 1e-9)
        pct = m.get("dram__throughput.avg.pct_of_peak_sustained_elapsed")
        if pct:
            rows.append(("DRAM peak implied by ncu", "dram_copy_f4_1GiB", "",
                         f"{moved / (pct / 100) / 1e9:.0f} GB/s",
                         f"bytes moved / time / dram__throughput ({pct:.1f}%)"))
    l2_bytes = nsm * 8 * (1 << 17) * 16
    bw("L2 read (8 MiB resident)", "l2_read_8MiB_2MiB_per_block", l2_bytes,
       f"L1 hit rate {fmt(metric('l2_read_8MiB_2MiB_per_block', 'l1tex__t_sector_hit_rate.pct'))}%, "
       f"L2 hit rate {fmt(metric('l2_read_8MiB_2MiB_per_block', 'lts__t_sector_hit_rate.pct'))}%")
    rate("L2 read per SM", "l2_read_8MiB_2MiB_per_block", l2_bytes, "B/clk/SM")
    l1_bytes = nsm * 8 * 256 * 1000 * 2 * 16
    rate("L1 hit bandwidth", "l1_read_8KiB_per_block_x1000", l1_bytes, "B/clk/SM",
         f"L1 hit rate {fmt(metric('l1_read_8KiB_per_block_x1000', 'l1tex__t_sector_hit_rate.pct'))}%")
    sh_bytes = nsm * 8 * 256 * 2048 * 16
    rate("shared load bandwidth (LDS.128, no conflicts)", "shared_read_f4_x2048", sh_bytes, "B/clk/SM")
    for s in (1, 2, 4, 8, 16, 32):
        name = f"shared_stride_{s}_x2048"
        warp_loads = 4 * 8 * 2048  # per SM
        e = ev(name)
        if e:
            rows.append((f"shared 4-byte load, lane stride {s} ({min(s, 32)}-way)", name,
                         f"{e * 1e-6 * clock_hz / warp_loads:.2f} clk per warp load", "",
                         f"wavefronts/inst (ncu): "
                         f"{fmt(metric(name, 'l1tex__data_pipe_lsu_wavefronts_mem_shared.sum') / (nsm * warp_loads), 2) if metric(name, 'l1tex__data_pipe_lsu_wavefronts_mem_shared.sum') else ''}"))
    for prog_line, label in (("chase_dram_64MiB", "DRAM latency (64 MiB, TLB hits)"),
                             ("chase_dram_1GiB", "DRAM latency (1 GiB, TLB misses)"),
                             ("chase_l2_16MiB", "L2 hit latency"),
                             ("chase_l1_16KiB", "L1 hit latency"),
                             ("chase_shared_16KiB", "shared-memory latency")):
        rows.append((label, prog_line, both("cal_latency", rf"^{prog_line}: ([0-9.]+) cycles per hop", 0,
                                            "cycles"), "",
                     "clock64 around the hops of one warp, run 1 / run 2; includes the hop's address arithmetic"))
    for ilp in ("dep", "ilp8"):
        for w in (1, 4, 16, 64):
            name = f"fma_{ilp}_{w}warps_per_sm"
            threads = w * 32 * nsm
            c = line_value("cal_fma", rf"^{name}: ([0-9.]+) cycles per FMA")  # mean of the runs
            rate(f"FP32 FMA, {'1 dependent chain' if ilp == 'dep' else '8 chains'}, {w} warps/SM",
                 name, threads * 65536, "FMA/clk/SM",
                 f"warp 0: {c:.2f} clk per FMA" if c else "")
    units = nsm * 4 * 512
    rate("FP64 FMA", "fp64_fma_8192", units * 8192, "DFMA/clk/SM")
    rate("__sinf", "sfu_sinf_2048", units * 2048, "/clk/SM", "MUFU.SIN, each with FMUL.RZ and FADD")
    rate("__expf", "sfu_expf_2048", units * 2048, "/clk/SM", "MUFU.EX2, each with FMULs and a range check (FSETP)")
    rate("sqrtf (IEEE)", "sqrt_f32_2048", units * 2048, "/clk/SM",
         "MUFU.RSQ with FMULs, FFMAs, a range check and branch each: issue-bound")
    rate("integer multiply-add (IMAD)", "int_mad_8192", units * 8192, "/clk/SM", "IMAD: the FMA-heavy pipe only")
    at = nsm * 4 * 256
    rate("shared atomicAdd, one word a block", "shared_atomic_same_x256", at * 256, "thread-atomics/clk/SM",
         "nvcc turns it into REDUX.SUM + one ATOMS a warp")
    rate("shared atomicAdd, a word a thread", "shared_atomic_distinct_x1024", at * 1024, "/clk/SM")
    for name, label, iters, note in (
            ("global_atomic_same_x4", "global atomicAdd, one word", 4,
             "nvcc turns it into REDUX.SUM + one REDG a warp"),
            ("global_atomic_per_warp_x64", "global atomicAdd, a word a warp (32 lanes one address)", 64,
             "REDG, 32 same-address lanes"),
            ("global_atomic_distinct_x64", "global atomicAdd, a word a thread", 64, "REDG, coalesced")):
        e, n = ev(name), ncu_us(name)
        ops = at * iters
        rows.append((label, name, f"{ops / (e * 1e-6) / 1e9:.2f} G atomics/s" if e else "",
                     f"{ops / (n * 1e-6) / 1e9:.2f} G atomics/s" if n else "", note))
    for name, label in (("launch_empty_1x32", "empty launch, back to back (launch rate)"),
                        ("launch_tiny_1x32", "tiny launch, back to back"),
                        (f"launch_empty_{nsm * 64}x1024", "empty grid of 64 blocks of 1024 a SM")):
        d = by.get(name)
        runs = " / ".join(f"{e:.2f}" for e in d["events"]) if d else ""
        rows.append((label, name, f"{runs} µs" if runs else "",
                     f"{ncu_us(name):.2f} µs" if ncu_us(name) else "",
                     "events: mean of 1000 launches, run 1 / run 2; ncu: the kernel's own duration"))
    rows.append(("empty launch alone, events around it", "launch_empty_1x32",
                 both("cal_launch", r"single, events around it: ([0-9.]+) us", 2, "µs"), "",
                 "mean of 200 launches, each waited for; run 1 / run 2"))
    rows.append(("empty launch alone, host launch to synchronized", "launch_empty_1x32",
                 both("cal_launch", r"single, host launch to synchronized: ([0-9.]+) us", 2, "µs"), "",
                 "mean of 200; run 1 / run 2"))
    for t in (32, 256, 1024):
        name = f"syncthreads_{t}_threads_x10000"
        rows.append((f"__syncthreads, block of {t}, one block/SM", name,
                     both("cal_launch", rf"^{name}: ([0-9.]+) cycles per barrier", 1, "cycles"),
                     "", "clock64 around 10000 barriers; run 1 / run 2"))
    out = ["| figure | launch | from events | from ncu | note |", "|---|---|---|---|---|"]
    out += [f"| {a} | {b} | {c} | {d} | {e} |" for a, b, c, d, e in rows]
    # Issue and pipe rates under ncu: warp instructions per SM per active cycle.
    out += ["", "Issue and pipe rates of the arithmetic calibration launches (ncu: warp instructions "
            "per SM per active cycle; sm__inst_executed_pipe_*.sum / (SMs x sm__cycles_active.avg)):", "",
            "| launch | all (issue) | FMA pipe | ALU pipe | FP64 pipe | XU pipe | LSU pipe |",
            "|---|---|---|---|---|---|---|"]
    for d in launches:
        if d["program"] not in ("cal_fma", "cal_units"):
            continue
        m = d["metrics"]
        cyc = m.get("sm__cycles_active.avg")
        if not cyc:
            continue
        per = lambda k: fmt((m.get(k) or 0) / (nsm * cyc), 2)
        out.append(f"| {d['launch']} | {per('smsp__inst_executed.sum')} | "
                   f"{per('sm__inst_executed_pipe_fma.sum')} | {per('sm__inst_executed_pipe_alu.sum')} | "
                   f"{per('sm__inst_executed_pipe_fp64.sum')} | {per('sm__inst_executed_pipe_xu.sum')} | "
                   f"{per('sm__inst_executed_pipe_lsu.sum')} |")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--wide")
    ap.add_argument("--write")
    args = ap.parse_args()
    launches, events, lines = load(args.dir)
    env = open(f"{args.dir}/env.txt").read()
    nsm = int(re.search(r"multiprocessors: (\d+)", env).group(1))
    clocks = [int(m) for m in re.findall(r", (\d+) MHz, ", open(f"{args.dir}/clocks.csv").read())]
    busy = [c for c in clocks if c > 1000] or [1980]
    clock_hz = max(set(busy), key=busy.count) * 1e6
    ncu_clock = [d["metrics"].get("sm__cycles_elapsed.avg.per_second") for d in launches]
    ncu_clock = [c for c in ncu_clock if c]
    gpu = re.search(r"^name: (.*)$", env, re.M).group(1)
    text = [f"GPU: {gpu}, {nsm} SMs. SM clock while the programs ran (nvidia-smi, every 500 ms): "
            f"{clock_hz / 1e6:.0f} MHz in {busy.count(int(clock_hz / 1e6))} of {len(busy)} busy samples; "
            f"under ncu (sm__cycles_elapsed.avg.per_second, mean of {len(ncu_clock)} launches): "
            f"{sum(ncu_clock) / len(ncu_clock) / 1e6:.0f} MHz. Figures per clock below use "
            f"{clock_hz / 1e6:.0f} MHz.", "",
            f"### Launches ({len(launches)} profiled: "
            f"{sum(d['program'].startswith('cal_') for d in launches)} calibration, "
            f"{sum(d['program'].startswith('val_') for d in launches)} validation)", ""]
    text += launch_table(launches)
    text += ["", "### Calibration figures (from the calibration launches only)", ""]
    text += calibration(launches, events, lines, nsm, clock_hz)
    body = "\n".join(text) + "\n"
    if args.write:
        md = open(args.write).read()
        begin, end = "<!-- generated: begin -->\n", "<!-- generated: end -->"
        i, j = md.index(begin) + len(begin), md.index(end)
        open(args.write, "w").write(md[:i] + body + md[j:])
    else:
        sys.stdout.write(body)
    if args.wide:
        names = []
        for d in launches:
            for k in d["metrics"]:
                if k not in names:
                    names.append(k)
        with open(args.wide, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["program", "launch", "kernel", "block", "grid", "events_us_mean"] + names +
                        ["sol_rule"])
            for d in launches:
                e = sum(d["events"]) / len(d["events"]) if d["events"] else ""
                w.writerow([d["program"], d["launch"], d["kernel"], d["block"], d["grid"],
                            f"{e:.3f}" if e != "" else ""] +
                           ["" if d["metrics"].get(k) is None else repr(d["metrics"][k]) for k in names] +
                           [d["rules"].get("SOLBottleneck", "")])


if __name__ == "__main__":
    main()
