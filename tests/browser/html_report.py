#!/usr/bin/env python3
"""The HTML report in a real browser: `kern run --html` on every sample and on the worked examples,
each page rendered by headless Chromium with a clean console (the page records script errors and
sets data-ready when it has loaded); the lane maps' structure in the DOM (s[2*tid] has 2 steps on
an H100 and 4 on a G80, the 32x32 transpose tile 32 and the padded one 1); and a screenshot of
s[2*tid]'s map whose pixels show its two rows of steps. Exits 77 (skipped) without Chromium.
Usage: html_report.py KERN SOURCE_DIR OUT_DIR"""
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

KERN, ROOT, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if not CHROMIUM:
    print("html_report: no chromium: skipped")
    sys.exit(77)
os.makedirs(OUT, exist_ok=True)
failures = []
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--virtual-time-budget=3000", "--enable-logging=stderr", "--v=0"]


def report(program, name, device="h100"):
    path = os.path.join(OUT, name + ".html")
    p = subprocess.run([KERN, "run", "--html", path, "--device", device, program], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    if not os.path.exists(path):
        failures.append(f"{program}: no report (exit {p.returncode})\n{p.stderr[-2000:]}")
        return None
    return path


def browse(path, extra=(), url_suffix=""):
    p = subprocess.run([CHROMIUM] + FLAGS + list(extra) + ["file://" + path + url_suffix],
                       capture_output=True, text=True, timeout=120)
    console = [l for l in p.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    if console:
        failures.append(f"{path}: the console is not clean:\n" + "\n".join(console))
    return p.stdout


def dom(path):
    out = browse(path, ["--dump-dom"])
    head = out[:400]
    if 'data-ready="1"' not in head:
        failures.append(f"{path}: the page did not finish loading\n{head}")
    if "data-errors" in head:
        failures.append(f"{path}: script errors: {head}")
    return out


def line_block(page, line):
    m = re.search(r'<details class="line[^"]*" id="L%d".*?</details>' % line, page, re.S)
    return m.group(0) if m else ""


# Every sample renders with a clean console.
for sample in sorted(glob.glob(os.path.join(ROOT, "samples", "*.kern"))):
    name = os.path.basename(sample)[:-5]
    path = report(sample, name)
    if path:
        page = dom(path)
        for part in ("<h2>Source</h2>", "<h2>Launches</h2>", "<h2>Timeline</h2>",
                     'class="timeline"', "<h2>Device</h2>"):
            if part not in page:
                failures.append(f"{name}: the page lacks {part}")

# Lane maps: the steps of the worked examples, and the transpose tiles.
WORKED = os.path.join("tests", "cli", "explain", "worked_examples.kern")
for device, steps in (("h100", 2), ("g80", 4)):
    path = report(WORKED, "worked_" + device, device)
    block = line_block(dom(path), 13) if path else ""
    groups = block.count('<g class="step">')
    if f'data-steps="{steps}"' not in block or groups != steps:
        failures.append(f"s[2*tid] on {device}: {groups} step rows, expected {steps}")
# A loop's condition: a row of lanes per iteration in which the warp split.
block = line_block(dom(os.path.join(OUT, "worked_h100.html")), 46)
if 'data-splits="4"' not in block or block.count('<g class="split">') != 4:
    failures.append("the loop of worked_examples.kern:46: expected 4 rows of splits")
page = dom(os.path.join(OUT, "transpose.html"))
for line, steps in ((35, 32), (53, 1)):
    block = line_block(page, line)
    if f'data-steps="{steps}"' not in block:
        failures.append(f"transpose.kern:{line}: expected a lane map of {steps} steps")
if "occupancy" not in page or page.count('class="occupancy"') < 3:
    failures.append("transpose: the occupancy graphs are missing")


# Several devices in one page: the table, a switcher and each device's report (kern compare).
path = os.path.join(OUT, "compare.html")
p = subprocess.run([KERN, "compare", "--device", "g80,gt200,h100", "--html", path,
                    os.path.join("samples", "transpose.kern")], cwd=ROOT, capture_output=True,
                   text=True, timeout=300)
if p.returncode != 0 or not os.path.exists(path):
    failures.append(f"kern compare --html: exit {p.returncode}\n{p.stderr[-2000:]}")
else:
    page = dom(path)
    frames = re.findall(r'<iframe class="(device[^"]*)" title="([^"]+)"', page)
    if [t for _, t in frames] != ["g80", "gt200", "h100"] or \
            [c for c, _ in frames] != ["device on", "device", "device"]:
        failures.append(f"kern compare --html: the device frames are {frames}")
    if page.count("<button") != 3 or "shared bank conflicts   30720" not in page:
        failures.append("kern compare --html: the switcher or the table is missing")


def png_rows(path):
    """The PNG's pixels as rows of (r, g, b) tuples (8-bit RGB or RGBA, no interlace)."""
    data = open(path, "rb").read()
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", chunk[:10])
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    bpp = 4 if color == 6 else 3
    raw, rows, prev = zlib.decompress(idat), [], bytearray(width * bpp)
    stride = width * bpp
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return rows


# The screenshot of s[2*tid] alone (#only-L13): below the header, the rows of pixels painted in
# a step's colour (step 1 #1d3557, step 2 #e63946) form exactly two bands, one per step.
shot = os.path.join(OUT, "worked_h100_L13.png")
browse(os.path.join(OUT, "worked_h100.html"), ["--window-size=1000,700", "--screenshot=" + shot],
       "#only-L13")
if not os.path.exists(shot):
    failures.append("no screenshot")
else:
    rows = png_rows(shot)
    colours = {(29, 53, 87): "step 1", (230, 57, 70): "step 2"}
    bands, current = [], None
    for y, row in enumerate(rows[90:], 90):
        painted = {}
        for px in row:
            if px in colours:
                painted[colours[px]] = painted.get(colours[px], 0) + 1
        step = max(painted, key=painted.get) if painted and max(painted.values()) >= 100 else None
        if step != current and step is not None:
            bands.append(step)
        current = step
    if bands != ["step 1", "step 2"]:
        failures.append(f"the screenshot of s[2*tid] shows the bands {bands}, expected two steps")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("html_report: ok")
