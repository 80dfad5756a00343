"""The kern Python module (bindings/python): compile, run, launch with NumPy arrays, the report's
fields and HTML, errors; the numbers are the CLI's for the same program. Run by ctest through
run_pytest.sh, which skips (77) where NumPy or pytest is missing."""
import json
import os
import subprocess
import tempfile

import numpy as np
import pytest

import kern

ROOT = os.environ["KERN_ROOT"]
KERN = os.environ["KERN_CLI"]
TRANSPOSE = os.path.join(ROOT, "samples", "transpose.kern")

SCALE = r"""
__global__ void scale(float *a, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * s;
}
__global__ void strided(const int *in, int *out, unsigned stride) {
  __shared__ int s[32 * 32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) s[i] = in[i];
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x * stride) % 1024];
}
__global__ void oob(int *a) { a[threadIdx.x + 100000000] = 1; }
int main() { printf("main of scale\n"); return 3; }
"""


def test_run_output_exit_code_and_report():
    prog = kern.compile(TRANSPOSE)
    r = prog.run()
    assert r.status == "ok" and r.exit_code == 0 and not r.faulted
    assert "PASS" in r.output
    assert [l["kernel"] for l in r.report.launches] == [
        "transposeNaive", "transposeCoalesced", "transposeNoBankConflicts"]
    assert r.report.device["name"] == "h100"
    shared = r.report.launches[1]["totals"]["shared"]["load"]
    assert shared["bankConflicts"] == 31744


def test_numbers_equal_the_cli():
    path = os.path.join(tempfile.mkdtemp(), "report.json")
    subprocess.run([KERN, "run", "--report", path, TRANSPOSE], check=True, capture_output=True)
    cli = json.load(open(path))
    r = kern.compile(TRANSPOSE).run()
    for mine, theirs in zip(r.report.launches, cli["launches"]):
        assert mine["totals"] == theirs["totals"]
        assert mine["time"] == theirs["time"]
        assert mine["occupancy"] == theirs["occupancy"]
    assert r.report.program["totals"] == cli["program"]["totals"]


def test_run_with_args_and_exit_code_of_main():
    prog = kern.compile(SCALE, name="scale.cu")
    r = prog.run(["a", "b"])
    assert r.output == "main of scale\n" and r.exit_code == 3


def test_launch_with_numpy_arrays():
    prog = kern.compile(SCALE)
    x = np.arange(1000, dtype=np.float32)
    stats = prog.launch("scale", 4, 256, x, 2.0, 1000)
    assert np.array_equal(x, 2 * np.arange(1000, dtype=np.float32))
    assert stats["kernel"] == "scale" and stats["grid"] == (4, 1, 1)
    assert stats["counted"]
    assert stats["counters"]["global_load_requests"] == 32  # 32 warps, one request each
    # A device array stays on the device between launches.
    d = prog.device_array(np.ones(64, dtype=np.float32))
    prog.launch("scale", 1, 64, d, 3.0, 64)
    prog.launch("scale", 1, 64, d, 0.5, 64)
    assert np.array_equal(d.to_numpy(), np.full(64, 1.5, dtype=np.float32))
    z = kern.device_array(prog, shape=(8,), dtype=np.float32)
    assert np.array_equal(z.to_numpy(), np.zeros(8, dtype=np.float32))


def test_launch_counters_and_report_html():
    prog = kern.compile(SCALE)
    src = np.arange(1024, dtype=np.int32)
    out = np.zeros(32, dtype=np.int32)
    stats = prog.launch("strided", 1, 32, src, out, 2)
    assert np.array_equal(out, (np.arange(32) * 2) % 1024)
    assert stats["counters"]["shared_bank_conflicts"] == 1  # s[2*tid]: 2-way, one extra step
    report = prog.report
    assert report.launches[-1]["kernel"] == "strided"
    html = report._repr_html_()
    assert html.startswith("<iframe srcdoc=") and "lanemap" in html and "data-steps=&quot;2&quot;" in html


def test_fast_mode_has_no_report():
    r = kern.compile(TRANSPOSE, mode="fast").run()
    assert r.exit_code == 0 and r.report is None


def test_other_devices():
    r = kern.compile(TRANSPOSE, device="g80").run()
    assert r.report.device["name"] == "g80"
    assert r.report.launches[1]["totals"]["shared"]["load"]["bankConflicts"] == 30720


def test_errors():
    with pytest.raises(ValueError, match="undeclared identifier"):
        kern.compile("int main() { return nope; }")
    with pytest.raises(ValueError, match="rtx9090"):
        kern.compile(TRANSPOSE, device="rtx9090")
    with pytest.raises(ValueError, match="mode must be"):
        kern.compile(TRANSPOSE, mode="turbo")
    prog = kern.compile(SCALE)
    with pytest.raises(ValueError, match="no kernel 'nothing'"):
        prog.launch("nothing", 1, 32)
    with pytest.raises(TypeError, match="cannot pass a dict"):
        prog.launch("scale", 1, 32, {}, 1.0, 1)
    with pytest.raises(RuntimeError, match="argument 3"):
        prog.launch("scale", 1, 32, np.zeros(4, dtype=np.float32), 1.0, 2.5)
    # A fault: as on a GPU, every later call fails until the device is reset.
    with pytest.raises(RuntimeError, match="out-of-bounds global store"):
        prog.launch("oob", 1, 32, np.zeros(4, dtype=np.int32))
    with pytest.raises(RuntimeError, match="the device faulted earlier"):
        prog.launch("scale", 1, 32, np.zeros(4, dtype=np.float32), 1.0, 4)
    prog.reset_device()
    x = np.ones(4, dtype=np.float32)
    prog.launch("scale", 1, 32, x, 2.0, 4)
    assert list(x) == [2, 2, 2, 2]


def test_to_pandas():
    pandas = pytest.importorskip("pandas")
    frame = kern.compile(TRANSPOSE).run().report.to_pandas()
    assert isinstance(frame, pandas.DataFrame) and len(frame) == 3
    assert list(frame["shared_bank_conflicts"]) == [0, 31744, 0]


def test_the_example_notebook_runs():
    """samples/kern.ipynb's code cells, run in order as Jupyter would."""
    nb = json.load(open(os.path.join(ROOT, "samples", "kern.ipynb")))
    assert nb["nbformat"] == 4
    scope = {"__name__": "__notebook__"}
    cwd = os.getcwd()
    os.chdir(os.path.join(ROOT, "samples"))
    try:
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                exec("".join(cell["source"]), scope)  # noqa: S102 (our own notebook)
    finally:
        os.chdir(cwd)
    assert scope["result"].exit_code == 0
