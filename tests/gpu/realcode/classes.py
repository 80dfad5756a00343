#!/usr/bin/env python3
"""kern's warp instructions by class beside what the GPU executed, opcode by opcode.

usage: classes.py KERN OPCODES_CSV [--program FILE] [--details] [--check]

OPCODES_CSV is what opcodes.sh recorded (Nsight Compute's sass__inst_executed_per_opcode per
launch) for realcode.cu or --program's FILE. kern runs the same program on its h100 profile with
--report; each launch's `instructions.classes` is set beside the GPU's opcodes, sorted into the
same classes by OPCODE_CLASS below (docs/counters.md, "Instruction classes"). Prints, per class,
the sum over all launches of kern's count over the GPU's, and how many launches have kern's
count within 1.5x of the GPU's where the class holds at least 5% of the launch's instructions.
With --details, one row per launch. With --check it exits 1 unless memory and control are
within 1.5x on at least 90% of those launches and the fp32 and special classes' sums within
1.5x (what the estimate gets right on realcode.cu: a guard against losing it).
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CLASSES = ["integer", "fp32", "fp64", "special", "conversion", "memory", "control", "other"]

# SASS opcodes (without modifiers) by kern's class. The uniform datapath's U* instructions are
# their vector twins' class; HFMA2 appears in this code only as HFMA2.MMA R, -RZ, RZ, c, c, a
# move of a constant.
OPCODE_CLASS = {
    "integer": "IMAD IADD3 IADD ISETP LOP3 LOP SHF SHL SHR LEA IABS IMNMX VIMNMX VIADD VIADDMNMX "
               "SEL PRMT POPC FLO BREV BMSK IMUL ISCADD PLOP3 P2R R2P UIADD3 UIMAD ULOP3 USHF "
               "ULEA UISETP USEL UPRMT UFLO UPOPC UPLOP3 UBMSK UBREV",
    "fp32": "FADD FMUL FFMA FSETP FSET FMNMX FSEL FCHK FSWZADD",
    "fp64": "DADD DMUL DFMA DSETP DMNMX",
    "special": "MUFU",
    "conversion": "F2I I2F I2FP F2F F2FP I2I FRND",
    "memory": "LDG STG LDS STS LD ST LDL STL ATOM ATOMS ATOMG RED REDG MEMBAR LDGSTS",
    "control": "BRA BRX JMP EXIT BSSY BSYNC BAR CALL RET WARPSYNC BREAK NANOSLEEP YIELD KILL",
    "other": "MOV UMOV S2R S2UR CS2R LDC ULDC NOP SHFL VOTE VOTEU MATCH R2UR REDUX HFMA2 B2R",
}
CLASS_OF = {op: c for c, ops in OPCODE_CLASS.items() for op in ops.split()}


def gpu_launches(path):
    """[(kernel, {class: count}, {opcode: count})] in launch order."""
    lines = [line for line in open(path) if line.startswith('"')]
    out = []
    for row in csv.DictReader(lines):
        if row["Metric Name"] != "sass__inst_executed_per_opcode":
            continue
        value = row["Metric Value"]
        counts, opcodes = dict.fromkeys(CLASSES, 0), {}
        inner = value[value.index("(") + 1:value.rindex(")")] if "(" in value else ""
        for part in filter(None, inner.split("; ")):
            op, n = part.split(": ")
            n = int(n.replace(",", ""))
            opcodes[op] = n
            counts[CLASS_OF.get(op, "other")] += n
        out.append((row["Kernel Name"].split("(")[0], counts, opcodes))
    return out


def main():
    argv = sys.argv[1:]
    program = os.path.join(HERE, "realcode.cu")
    if "--program" in argv:
        at = argv.index("--program")
        program = argv[at + 1]
        del argv[at:at + 2]
    details = "--details" in argv
    check = "--check" in argv
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 2:
        print(__doc__)
        return 2
    kern, opcodes_csv = args
    gpu = gpu_launches(opcodes_csv)
    unknown = sorted({op for _, _, ops in gpu for op in ops if op not in CLASS_OF})
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        subprocess.run([kern, "run", "--device", "h100", "--workers", "1", "--report", report,
                        program], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        launches = json.load(open(report))["launches"]
    if len(launches) != len(gpu):
        print(f"kern made {len(launches)} launches, the GPU {len(gpu)}")
        return 1
    sums = {c: [0, 0] for c in CLASSES}
    within = {c: [0, 0] for c in CLASSES}
    rows = []
    for (name, theirs, _), k in zip(gpu, launches):
        if name != k["kernel"]:
            print(f"the GPU ran {name}, kern {k['kernel']}")
            return 1
        mine = k["totals"]["instructions"]["classes"]
        total = sum(theirs.values())
        cells = []
        for c in CLASSES:
            sums[c][0] += mine[c]
            sums[c][1] += theirs[c]
            if total and theirs[c] >= 0.05 * total:
                within[c][1] += 1
                within[c][0] += theirs[c] / 1.5 <= mine[c] <= theirs[c] * 1.5
            cells.append(f"{mine[c]}/{theirs[c]}")
        rows.append(f"  {name:<22} " + " ".join(f"{c} {cell}" for c, cell in zip(CLASSES, cells)))
    print(f"{len(gpu)} launches; per class: kern / GPU over all launches, and the launches "
          f"where kern is within 1.5x (of those where the class is 5% or more)")
    kern_all = sum(s[0] for s in sums.values())
    gpu_all = sum(s[1] for s in sums.values())
    for c in CLASSES:
        mine, theirs = sums[c]
        ratio = f"{mine / theirs:.2f}" if theirs else "-"
        share = f"{100 * theirs / gpu_all:.1f}%" if gpu_all else "-"
        a, n = within[c]
        print(f"  {c:<11} kern {mine:>12} GPU {theirs:>12} ({share:>6} of the GPU's)  "
              f"ratio {ratio:>5}  within 1.5x: {a} of {n}")
    print(f"  all         kern {kern_all:>12} GPU {gpu_all:>12}  ratio {kern_all / gpu_all:.2f}")
    if unknown:
        print("opcodes in no class (counted as other): " + " ".join(unknown))
    if details:
        print("\n".join(rows))
    if check:
        for c in ("memory", "control"):
            if within[c][0] < 0.9 * within[c][1]:
                print(f"check: {c} within 1.5x on too few launches")
                return 1
        for c in ("fp32", "special"):
            mine, theirs = sums[c]
            if not theirs / 1.5 <= mine <= theirs * 1.5:
                print(f"check: {c} off by more than 1.5x")
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
