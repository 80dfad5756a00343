#!/usr/bin/env python3
"""Checks kern's JSON report against docs/report-schema.md: every field the schema lists is in
the report with the documented type, and the report has no field the schema does not list. Also
checks that the counters do not depend on the number of workers.

usage: check_report.py KERN ROOT"""
import json, os, re, subprocess, sys, tempfile

kern, root = sys.argv[1], sys.argv[2]
doc = open(os.path.join(root, "docs", "report-schema.md")).read()
# Schema rows: | `path.to.field` | type | ...
schema = {}
for m in re.finditer(r"^\| `([A-Za-z0-9_.\[\]]+)` \| (\w+) \|", doc, re.M):
    schema[m.group(1)] = m.group(2)
assert schema, "no schema rows found in docs/report-schema.md"

TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "object": dict,
         "array": list}


# The counters object and the transfer totals appear in several places; the schema lists them
# once, under "counters." and "transferTotals.".
ALIASES = [("launches[].sites[].counters", "counters"), ("launches[].totals", "counters"),
           ("program.sites[].counters", "counters"), ("program.totals", "counters"),
           ("launches[].ncu", "ncu"), ("program.ncu", "ncu"),
           ("transferGaps[].transfers", "transferTotals"), ("program.transfers", "transferTotals")]


def normal(path):
    for full, short in ALIASES:
        if path == full or path.startswith(full + "."):
            return short + path[len(full):]
    return path


def walk(value, path, seen, errors):
    key = normal(path)
    seen.add(key)
    if path == "":
        for k, v in value.items():
            walk(v, k, seen, errors)
        return
    if key not in schema:
        errors.append(f"field {path} is not in docs/report-schema.md")
        return
    want = schema[key]
    if want == "nullable":
        ok = value is None or isinstance(value, (int, float))
    else:
        ok = isinstance(value, TYPES[want]) and not (want in ("integer", "number") and isinstance(value, bool))
    if not ok:
        errors.append(f"field {path} is {type(value).__name__}, schema says {want}")
    if isinstance(value, dict):
        for k, v in value.items():
            walk(v, f"{path}.{k}" if path else k, seen, errors)
    elif isinstance(value, list):
        for v in value:
            walk(v, path + "[]", seen, errors)


def report(src, workers):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        r = subprocess.run([kern, "run", "--workers", str(workers), "--report", f.name, src],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit(f"kern failed on {src}: {r.stderr}")
        return json.load(open(f.name))


errors, seen = [], set()
srcs = [os.path.join(root, p) for p in ("samples/reduction.kern", "samples/histogram.kern",
                                         "tests/counters/transfers.kern", "tests/counters/divergence.kern")]
for src in srcs:
    if not os.path.exists(src):
        continue
    one = report(src, 1)
    walk(one, "", seen, errors)
    two = report(src, 2)
    for a, b in zip(one["launches"], two["launches"]):
        if a["totals"] != b["totals"] or a["sites"] != b["sites"]:
            errors.append(f"{src}: launch {a['index']} counters differ between 1 and 2 workers")
    if one["program"]["totals"] != two["program"]["totals"]:
        errors.append(f"{src}: program counters differ between 1 and 2 workers")
for path in schema:
    if path not in seen and not path.endswith("[]") and path not in dict(ALIASES):
        # Arrays may be empty in these programs; scalar fields must all appear.
        parent = path.rsplit(".", 1)[0] if "." in path else ""
        if parent in seen or parent == "":
            errors.append(f"field {path} of the schema never appeared")
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
