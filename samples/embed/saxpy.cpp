// A C++ host application that embeds kern: compiles a kernel from a string, runs it on its own
// data and prints what the virtual GPU counted.
#include <kern/kern.hpp>

#include <cstdio>
#include <vector>

static const char *kSource = R"(
__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
)";

int main() {
  kern::Options options;
  options.counters = true; // count what a GPU would do
  kern::Engine engine(options);
  std::unique_ptr<kern::Program> program = engine.compile(kSource, "saxpy.kern");
  if (!program->ok()) {
    std::fprintf(stderr, "%s", program->diagnostics().c_str());
    return 1;
  }

  const int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = 1.0f;
  }
  kern::BufferResult dx = program->allocate(n * sizeof(float));
  kern::BufferResult dy = program->allocate(n * sizeof(float));
  if (!dx.ok() || !dy.ok())
    return 3;
  program->write(dx.buffer, x.data(), n * sizeof(float));
  program->write(dy.buffer, y.data(), n * sizeof(float));

  kern::LaunchResult r =
      program->launch("saxpy", {(n + 255) / 256}, {256}, {dy.buffer, dx.buffer, 2.0f, n});
  if (!r.ok()) {
    std::fprintf(stderr, "%s", r.diagnostics.c_str());
    return 3;
  }
  program->read(dy.buffer, y.data(), n * sizeof(float));
  std::printf("y[0] = %g, y[999] = %g\n", y[0], y[999]);

  const kern::Counters &c = r.stats.counters;
  std::printf("saxpy<<<%u, %u>>>: %llu warp instructions, %llu global load requests in %llu "
              "transactions, %llu divergent of %llu branches, occupancy %.0f%%\n",
              r.stats.grid.x, r.stats.block.x, (unsigned long long)c.warpInstructions,
              (unsigned long long)c.globalLoadRequests,
              (unsigned long long)c.globalLoadTransactions, (unsigned long long)c.divergentBranches,
              (unsigned long long)c.branches, r.stats.occupancy * 100);
  return y[999] == 2.0f * 999 + 1 ? 0 : 1;
}
