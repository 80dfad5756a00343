"""kern from Python: CUDA programs and kernels run on the CPU, with what a real GPU would suffer
counted (bank conflicts, uncoalesced accesses, divergence, occupancy, modelled time).

    import kern, numpy as np
    prog = kern.compile("saxpy.cu", device="h100")        # a path, or the source itself
    r = prog.run(["--n", "1024"])                          # main(): output, exit code, report
    print(r.output, r.exit_code, r.report.launches[0]["modelledSeconds"])
    r.report                                               # in Jupyter: the HTML report

    x = np.arange(1024, dtype=np.float32)
    prog.launch("scale", grid=4, block=256, args=(x, np.float32(2), 1024))  # x is copied back
    d = prog.device_array(x)                               # or keep it on the device
    prog.launch("scale", 4, 256, d, 2.0, 1024)
    d.to_numpy()
"""
import json as _json
import os as _os

from . import _kern

__all__ = ["compile", "devices", "device_array", "Program", "RunResult", "Report", "DeviceArray",
           "LaunchResult", "version"]


def devices():
    """The built-in GPU profiles, one line each (as `kern devices`)."""
    return _kern.devices()


def version():
    return _kern.version()


class Report:
    """A run's (or the launches') report: the JSON of docs/report-schema.md as Python objects,
    and the HTML report, which Jupyter shows (_repr_html_)."""

    def __init__(self, report_json, report_html):
        self.data = _json.loads(report_json) if report_json else {}
        self.html = report_html or ""

    @property
    def launches(self):
        """Each launch's record (kernel, grid, block, occupancy, totals, time, ncu...)."""
        return self.data.get("launches", [])

    @property
    def device(self):
        return self.data.get("device", {})

    @property
    def program(self):
        """The program's totals (transfers, kernel time, counters)."""
        return self.data.get("program", {})

    def __getitem__(self, key):
        return self.data[key]

    def _repr_html_(self):
        if not self.html:
            return None
        # An iframe keeps the report's styles and script to itself inside a notebook.
        escaped = self.html.replace("&", "&amp;").replace('"', "&quot;")
        return ('<iframe srcdoc="%s" style="width:100%%;height:640px;border:1px solid #ccc">'
                "</iframe>" % escaped)

    def to_pandas(self):
        """One row per launch: kernel, grid, block, modelled time and bound, occupancy, global
        sectors and efficiency, shared wavefronts and conflicts, branches. Needs pandas."""
        import pandas  # noqa: PLC0415 (optional dependency)
        rows = []
        for launch in self.launches:
            totals = launch.get("totals", {})
            glob, shared = totals.get("global", {}), totals.get("shared", {})
            time = launch.get("time", {})
            rows.append({
                "index": launch.get("index"),
                "kernel": launch.get("kernel"),
                "grid": tuple(launch.get("grid", ())),
                "block": tuple(launch.get("block", ())),
                "modelled_seconds": launch.get("modelledSeconds"),
                "bound": time.get("bound"),
                "occupancy": launch.get("occupancy", {}).get("occupancy"),
                "global_load_sectors": glob.get("load", {}).get("sectors"),
                "global_load_efficiency": glob.get("load", {}).get("efficiency"),
                "global_store_sectors": glob.get("store", {}).get("sectors"),
                "global_store_efficiency": glob.get("store", {}).get("efficiency"),
                "shared_load_wavefronts": shared.get("load", {}).get("wavefronts"),
                "shared_bank_conflicts": sum(shared.get(k, {}).get("bankConflicts", 0)
                                             for k in ("load", "store", "atomic")),
                "branches": totals.get("branches", {}).get("executed"),
                "divergent_branches": totals.get("branches", {}).get("divergent"),
            })
        return pandas.DataFrame(rows)


class RunResult:
    """What Program.run returned: the program's standard output and error, its exit code, the
    status ("ok", "compile error", "runtime error"...) and the report (None in fast mode)."""

    def __init__(self, d):
        self.output = d["output"]
        self.errors = d["errors"]
        self.exit_code = d["exit_code"]
        self.status = d["status"]
        self.faulted = d["faulted"]
        self.report = Report(d["report_json"], d["report_html"]) if d["report_json"] else None

    def __repr__(self):
        return "RunResult(status=%r, exit_code=%d)" % (self.status, self.exit_code)


class LaunchResult(dict):
    """One launch's statistics (Program.launch): kernel, grid, block, occupancy, counters."""


class DeviceArray:
    """Device memory of a program's launches, holding a NumPy array's shape and dtype."""

    def __init__(self, program, shape, dtype):
        import numpy  # noqa: PLC0415
        self.program = program
        self.dtype = numpy.dtype(dtype)
        self.shape = tuple(shape)
        self.nbytes = int(numpy.prod(self.shape, dtype=numpy.int64)) * self.dtype.itemsize
        self._id, _ = program._native.allocate(max(self.nbytes, 1))

    def copy_from(self, array):
        import numpy  # noqa: PLC0415
        a = numpy.ascontiguousarray(array, dtype=self.dtype)
        if a.nbytes != self.nbytes:
            raise ValueError("the array has %d bytes, the device array %d" % (a.nbytes, self.nbytes))
        self.program._native.write(self._id, a)
        return self

    def to_numpy(self):
        import numpy  # noqa: PLC0415
        out = numpy.empty(self.shape, dtype=self.dtype)
        self.program._native.read(self._id, out)
        return out

    def release(self):
        if self._id is not None:
            self.program._native.release(self._id)
            self._id = None

    def __repr__(self):
        return "DeviceArray(shape=%r, dtype=%s)" % (self.shape, self.dtype)


def device_array(program, array=None, shape=None, dtype=None):
    """Device memory of `program`'s launches: a copy of the NumPy `array`, or zeroed memory of
    `shape` and `dtype`."""
    return program.device_array(array, shape=shape, dtype=dtype)


def _dim(d):
    if isinstance(d, int):
        return [d]
    return [int(v) for v in d]


class Program:
    """A compiled program (kern.compile)."""

    def __init__(self, native):
        self._native = native

    @property
    def ok(self):
        return self._native.ok

    @property
    def diagnostics(self):
        return self._native.diagnostics

    def kernels(self):
        """[(name, [(parameter, C type)...])...]"""
        return self._native.kernels()

    def run(self, argv=()):
        """Runs main with argv[1...] = `argv`; returns a RunResult."""
        return RunResult(self._native.run([str(a) for a in argv]))

    def device_array(self, array=None, shape=None, dtype=None):
        import numpy  # noqa: PLC0415
        if array is not None:
            a = numpy.ascontiguousarray(array)
            return DeviceArray(self, a.shape, a.dtype).copy_from(a)
        return DeviceArray(self, shape, dtype)

    def launch(self, name, grid, block, *args, shared=0):
        """Launches kernel `name`. A NumPy array argument is copied to the device before and back
        after (a DeviceArray stays there); integers and floats follow the kernel's parameter
        types. Returns a LaunchResult."""
        import numpy  # noqa: PLC0415
        if len(args) == 1 and isinstance(args[0], tuple):
            args = args[0]
        converted, temporary = [], []
        for a in args:
            if isinstance(a, DeviceArray):
                converted.append(("buffer", a._id))
            elif isinstance(a, numpy.ndarray):
                d = self.device_array(a)
                temporary.append((a, d))
                converted.append(("buffer", d._id))
            elif a is None:
                converted.append(("null", 0))
            elif isinstance(a, (bool, int, numpy.integer)):
                converted.append(("int", int(a)))
            elif isinstance(a, (float, numpy.floating)):
                converted.append(("float", float(a)))
            elif isinstance(a, (bytes, bytearray)):
                converted.append(("bytes", bytes(a)))
            else:
                raise TypeError("cannot pass a %s to a kernel" % type(a).__name__)
        try:
            stats = self._native.launch(name, _dim(grid), _dim(block), converted, int(shared))
            for host, dev in temporary:
                if host.flags.writeable:
                    host[...] = dev.to_numpy().reshape(host.shape)
        finally:
            for _, dev in temporary:
                dev.release()
        return LaunchResult(stats)

    def reset_device(self):
        """A fresh device for launch() after a kernel fault: as on a GPU, a fault makes every later
        call fail until then. Device arrays made before are gone."""
        self._native.reset_device()

    @property
    def report(self):
        """The report of the launches made through launch()."""
        return Report(self._native.report_json(), self._native.report_html())


def compile(source, device="h100", mode="profile", workers=0, include_paths=(), defines=(),
            fmad=True, timeout=0.0, allow_files=False, name=None):
    """Compiles a program: `source` is a path (or a list of paths) to .cu/.kern/.cpp files, or
    the source text itself. mode: "profile" (count, the default), "fast" or "checked". Raises
    ValueError with the diagnostics if it does not compile."""
    sources = source if isinstance(source, (list, tuple)) else [source]
    files = []
    for s in sources:
        if "\n" not in s and _os.path.isfile(s):
            with open(s, encoding="utf-8") as f:
                files.append((s, f.read()))
        else:
            files.append((name or "<python>", s))
    native = _kern.compile(files, device, mode, int(workers), list(include_paths), list(defines),
                           bool(fmad), float(timeout), bool(allow_files))
    if not native.ok:
        raise ValueError("kern: the program does not compile:\n" + native.diagnostics)
    return Program(native)
