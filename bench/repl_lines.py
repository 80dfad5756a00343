#!/usr/bin/env python3
"""How long a REPL line takes with 1, 10 and 30 reduction kernels defined (a line must take
under 50 ms whatever the session holds). Each timed line prints a marker; its time is from
writing the line to reading the marker. Also timed: a line that launches a kernel, a new
kernel defined, and a kernel redefined (each compiles that kernel).

usage: bench/repl_lines.py KERN [COUNTS [LINES]]   e.g. bench/repl_lines.py build/kern 1,10,30 5
"""
import subprocess
import sys
import time


def kernel(k, factor=None):
    return ("__global__ void reduce%d(const float *in, float *out, int n) { "
            "__shared__ float s[256]; int t = threadIdx.x; int i = blockIdx.x * blockDim.x + t; "
            "s[t] = i < n ? in[i] : 0.0f; __syncthreads(); "
            "for (int w = blockDim.x / 2; w > 0; w >>= 1) { if (t < w) s[t] += s[t + w]; "
            "__syncthreads(); } if (t == 0) atomicAdd(out, s[0] * %d); }"
            % (k, factor if factor is not None else k + 1))


class Repl:
    def __init__(self, kern, kernels):
        self.p = subprocess.Popen([kern, "repl", "--keep-going"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  bufsize=1)
        for k in range(kernels):
            self.p.stdin.write(kernel(k) + "\n")
        self.say('printf("defined\\n");', "defined")

    def say(self, line, marker):
        """Milliseconds from writing `line` to reading a line of output that holds `marker`."""
        t0 = time.perf_counter()
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        while True:
            out = self.p.stdout.readline()
            if not out:
                raise SystemExit("the REPL ended before printing " + marker)
            if marker in out:
                return (time.perf_counter() - t0) * 1000

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def main():
    kern = sys.argv[1]
    counts = [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1, 10, 30]
    lines = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    for n in counts:
        r = Repl(kern, n)
        times = sorted(r.say('printf("mark%d\\n");' % i, "mark%d" % i) for i in range(lines))
        launch = r.say("float *d; cudaMalloc(&d, 1024 * sizeof(float)); float *o; "
                       "cudaMalloc(&o, 4); reduce0<<<4, 256>>>(d, o, 1024); "
                       'cudaDeviceSynchronize(); printf("launched\\n");', "launched")
        new = r.say(kernel(n) + ' printf("new\\n");', "new")
        again = r.say(kernel(0, 7) + ' printf("again\\n");', "again")
        r.close()
        print("%2d kernels: a line %.1f ms (median of %d; %.1f-%.1f), a launch %.1f ms, "
              "a new kernel %.1f ms, a kernel redefined %.1f ms"
              % (n, times[len(times) // 2], lines, times[0], times[-1], launch, new, again))


if __name__ == "__main__":
    main()
