#!/usr/bin/env python3
"""Turns what measure.sh recorded (ncu.csv: one row per metric and launch; ncu-sections.csv: the
launch statistics and occupancy sections) into ncu-launches.csv, one row per launch, the form
compare.py reads.

usage: collect.py DIR"""
import csv
import os
import sys


def number(text):
    text = text.replace(",", "")
    try:
        return float(text)
    except ValueError:
        return None


def main():
    d = sys.argv[1]
    launches = {}
    order = []
    names = []
    sections = ["Registers Per Thread", "Dynamic Shared Memory Per Block",
                "Static Shared Memory Per Block", "Block Limit Registers",
                "Block Limit Shared Mem", "Theoretical Occupancy", "Achieved Occupancy"]
    for path, wanted in (("ncu.csv", None), ("ncu-sections.csv", set(sections))):
        lines = [l for l in open(os.path.join(d, path)) if l.startswith('"')]
        for row in csv.DictReader(lines):
            launch = row["ID"]
            if launch not in launches:
                launches[launch] = {"ID": launch, "kernel": row["Kernel Name"].split("(")[0],
                                    "block": row["Block Size"], "grid": row["Grid Size"]}
                order.append(launch)
            name = row["Metric Name"]
            if wanted is not None and name not in wanted:
                continue
            value = number(row["Metric Value"])
            if value is None:
                continue
            launches[launch][name] = value
            if name not in names and wanted is None:
                names.append(name)
    names.sort()
    out = csv.writer(open(os.path.join(d, "ncu-launches.csv"), "w", newline=""))
    out.writerow(["ID", "kernel", "block", "grid"] + names + sections)
    for launch in order:
        row = launches[launch]
        out.writerow([row["ID"], row["kernel"], row["block"], row["grid"]] +
                     [("%g" % row[n]) if n in row else "" for n in names + sections])
    print(f"{len(order)} launches, {len(names)} metrics")
    return 0


if __name__ == "__main__":
    sys.exit(main())
