// The C++ API (include/kern/kern.hpp) from a host application's side: every call, the error
// paths included, with the host carrying on after each error.
#include <kern/kern.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

static int failures = 0;
#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

static bool contains(const std::string &s, const std::string &what) {
  return s.find(what) != std::string::npos;
}

/// The cells of a table's row "  LABEL   a   b", as "a b" (runs of spaces made one).
static std::string rowOf(const std::string &table, const std::string &label) {
  const size_t at = table.find("\n  " + label + "  ");
  if (at == std::string::npos)
    return "";
  const size_t end = table.find('\n', at + 1);
  std::string cells, raw = table.substr(at + 3 + label.size(), end - at - 3 - label.size());
  for (char ch : raw)
    if (ch != ' ' || (!cells.empty() && cells.back() != ' '))
      cells += ch;
  while (!cells.empty() && cells.back() == ' ')
    cells.pop_back();
  return cells;
}

static const char *kSource = R"(
struct Pair { int a; float b; };
__global__ void fill(int *out, int value, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value + i;
}
__global__ void hello(int tag) { if (threadIdx.x == 0) printf("hello %d\n", tag); }
__global__ void scaled(double *out, float f, double d, Pair p) { out[threadIdx.x] = f * d + p.a + p.b; }
__global__ void oob(int *out) { out[threadIdx.x + 1000000] = 1; }
int main() { printf("main ran\n"); return 7; }
)";

int main() {
  std::string out, err, diags;
  kern::Options options;
  options.counters = true;
  options.workers = 2;
  options.out = [&out](std::string_view s) { out += s; };
  options.err = [&err](std::string_view s) { err += s; };
  options.diagnostics = [&diags](std::string_view s) { diags += s; };
  kern::Engine engine(options);
  CHECK(engine.options().workers == 2);

  // A bad source: diagnostics returned and passed to the callback; the host carries on.
  auto bad = engine.compile("__global__ void k( { }", "bad.kern");
  CHECK(!bad->ok());
  CHECK(contains(bad->diagnostics(), "bad.kern:1:"));
  CHECK(contains(diags, "error"));
  CHECK(bad->kernels().empty());
  CHECK(bad->allocate(16).status == kern::Status::UsageError);
  CHECK(bad->run().status == kern::Status::CompileError);
  auto missing = engine.compileFile("/nonexistent/file.kern");
  CHECK(!missing->ok() && contains(missing->diagnostics(), "cannot open"));

  // A program of several source files: a kernel defined in one, launched from another; the
  // same static name in both; a second definition of one name is an error naming both files.
  {
    std::vector<kern::SourceFile> files = {
        {"k.cu", "static int tag(void) { return 1; }\n"
                 "__global__ void twice(int *a) { a[threadIdx.x] *= 2; }\n"},
        {"m.cu", "#include <stdio.h>\nstatic int tag(void) { return 2; }\n"
                 "__global__ void twice(int *a);\n"
                 "int main() { int *d, h[4] = {1, 2, 3, 4}; cudaMalloc(&d, sizeof h);\n"
                 "  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice); twice<<<1, 4>>>(d);\n"
                 "  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n"
                 "  printf(\"linked %d %d\\n\", h[3], tag()); return 0; }\n"}};
    auto linked = engine.compile(files);
    CHECK(linked->ok());
    CHECK(linked->kernels().size() == 1 && linked->kernels()[0].name == "twice");
    out.clear();
    CHECK(linked->run().exitCode == 0 && contains(out, "linked 8 2"));
    files[0].text += "int main() { return 0; }\n";
    auto twoMains = engine.compile(files);
    CHECK(!twoMains->ok() && contains(twoMains->diagnostics(), "multiple definition of 'main'") &&
          contains(twoMains->diagnostics(), "k.cu:3:") &&
          contains(twoMains->diagnostics(), "m.cu:"));
    CHECK(!engine.compile(std::vector<kern::SourceFile>{})->ok());
    auto gone = engine.compileFiles({"/nonexistent/a.cu", "/nonexistent/b.cu"});
    CHECK(!gone->ok() && contains(gone->diagnostics(), "b.cu: error: cannot open file"));
  }

  auto p = engine.compile(kSource, "api.kern");
  CHECK(p->ok());
  CHECK(p->diagnostics().empty());
  CHECK(contains(p->ir(), "kernel void @fill"));
  CHECK(contains(p->llvmIR(), "define"));
  CHECK(!p->assembly().empty());

  // Signatures.
  std::vector<kern::KernelSignature> ks = p->kernels();
  CHECK(ks.size() == 4);
  const kern::KernelSignature *fill = p->kernel("fill");
  CHECK(fill && fill->params.size() == 3);
  if (fill && fill->params.size() == 3) {
    CHECK(fill->params[0].name == "out" && fill->params[0].kind == kern::ParamKind::Pointer);
    CHECK(fill->params[0].type == "int *");
    CHECK(fill->params[1].kind == kern::ParamKind::Int && fill->params[1].size == 4 &&
          fill->params[1].isSigned);
    CHECK(fill->params[2].kind == kern::ParamKind::Int && !fill->params[2].isSigned);
  }
  const kern::KernelSignature *scaled = p->kernel("scaled");
  CHECK(scaled && scaled->params[3].kind == kern::ParamKind::Struct && scaled->params[3].size == 8);
  CHECK(p->kernel("nope") == nullptr);

  // Buffers.
  kern::BufferResult b = p->allocate(64 * sizeof(int));
  CHECK(b.ok() && b.buffer.valid() && b.buffer.size() == 256);
  std::vector<int> host(64, -1);
  CHECK(p->read(b.buffer, host.data(), 256).ok());
  CHECK(host[5] == 0); // zeroed
  CHECK(p->write(b.buffer, host.data(), 256).ok());
  kern::Result r = p->read(b.buffer, host.data(), 256, 4);
  CHECK(r.status == kern::Status::UsageError && contains(r.diagnostics, "do not fit"));
  CHECK(p->write(b.buffer, nullptr, 4).status == kern::Status::UsageError);
  CHECK(p->allocate(0).status == kern::Status::UsageError);

  // A launch that works, with counters.
  kern::LaunchResult l = p->launch("fill", {2}, {32}, {b.buffer, 100, 64u});
  CHECK(l.ok());
  CHECK(l.stats.kernel == "fill" && l.stats.grid.x == 2 && l.stats.block.x == 32);
  CHECK(l.stats.counted && l.stats.counters.warpInstructions > 0);
  CHECK(l.stats.counters.globalStoreRequests == 2);
  CHECK(l.stats.occupancy > 0);
  CHECK(p->read(b.buffer, host.data(), 256).ok());
  CHECK(host[0] == 100 && host[63] == 163);
  CHECK(contains(p->launchTable(0), "fill"));
  CHECK(p->launchTable(99).empty());

  // printf from a kernel reaches the out callback.
  CHECK(p->launch("hello", {1}, {32}, {int32_t(5)}).ok());
  CHECK(contains(out, "hello 5"));

  // Launch arguments of every integer and floating type (long long and unsigned long long are
  // types of their own beside int64_t and uint64_t, and were ambiguous).
  CHECK(p->launch("fill", {1}, {32}, {b.buffer, 7LL, 64ULL}).ok());
  CHECK(p->launch("fill", {1}, {32}, {b.buffer, short(8), static_cast<unsigned short>(64)}).ok());
  CHECK(p->launch("fill", {1}, {32}, {b.buffer, 'a', static_cast<unsigned char>(64)}).ok());
  CHECK(p->launch("fill", {1}, {32}, {b.buffer, 9L, 64UL}).ok());
  CHECK(p->read(b.buffer, host.data(), 256).ok());
  CHECK(host[0] == 9 && host[31] == 40);
  CHECK(p->launch("hello", {1}, {32}, {true}).ok());
  CHECK(contains(out, "hello 1"));

  // Floats, doubles and a struct by value.
  kern::BufferResult db = p->allocate(32 * sizeof(double));
  struct Pair {
    int a;
    float b;
  } pair{1, 0.5f};
  CHECK(p->launch("scaled", {1}, {32}, {db.buffer, 2.0f, 3.0, kern::Arg::bytes(&pair, 8)}).ok());
  double d[32];
  CHECK(p->read(db.buffer, d, sizeof d).ok());
  CHECK(d[31] == 7.5);
  CHECK(p->launch("scaled", {1}, {32}, {db.buffer, 2.0f, 3.0L, kern::Arg::bytes(&pair, 8)}).ok());

  // Wrong arguments: UsageError naming the parameter; nothing runs.
  l = p->launch("fill", {1}, {32}, {b.buffer, 1});
  CHECK(l.status == kern::Status::UsageError && contains(l.diagnostics, "2 arguments given"));
  l = p->launch("fill", {1}, {32}, {b.buffer, 1.5f, 64u});
  CHECK(l.status == kern::Status::UsageError && contains(l.diagnostics, "'value'") &&
        contains(l.diagnostics, "float"));
  l = p->launch("fill", {1}, {32}, {7, 1, 64u});
  CHECK(l.status == kern::Status::UsageError && contains(l.diagnostics, "'out'"));
  l = p->launch("fill", {1}, {32}, {b.buffer, int64_t(1) << 40, 64u});
  CHECK(l.status == kern::Status::UsageError && contains(l.diagnostics, "does not fit"));
  l = p->launch("scaled", {1}, {32}, {db.buffer, 2.0, 3.0, kern::Arg::bytes(&pair, 8)});
  CHECK(l.status == kern::Status::UsageError && contains(l.diagnostics, "'f'"));
  l = p->launch("scaled", {1}, {32}, {db.buffer, 2.0f, 3.0, kern::Arg::bytes(&pair, 4)});
  CHECK(l.status == kern::Status::UsageError && contains(l.diagnostics, "8 bytes"));
  l = p->launch("nope", {1}, {1}, {});
  CHECK(l.status == kern::Status::UsageError && contains(l.diagnostics, "no kernel 'nope'"));

  // A failing launch (too many threads): RuntimeError; the device stays usable.
  l = p->launch("fill", {1}, {4096}, {b.buffer, 1, 64u});
  CHECK(l.status == kern::Status::RuntimeError && contains(l.diagnostics, "threads per block"));
  CHECK(p->launch("fill", {1}, {64}, {b.buffer, 1, 64u}).ok());

  // A kernel fault: RuntimeError; later launches fail until resetDevice().
  err.clear();
  l = p->launch("oob", {1}, {32}, {b.buffer});
  CHECK(l.status == kern::Status::RuntimeError && l.stats.faulted);
  CHECK(!l.diagnostics.empty() && contains(err, l.diagnostics.substr(0, 20)));
  CHECK(!p->launch("fill", {1}, {32}, {b.buffer, 1, 64u}).ok());
  std::vector<kern::LaunchStats> all = p->launches();
  CHECK(all.size() >= 5 && all.back().faulted);
  CHECK(contains(p->reportJson(), "\"launches\""));
  p->resetDevice();
  CHECK(p->write(b.buffer, host.data(), 4).status == kern::Status::UsageError); // lost
  kern::BufferResult b2 = p->allocate(256);
  CHECK(b2.ok());
  CHECK(p->launch("fill", {1}, {64}, {b2.buffer, 9, 64u}).ok());
  CHECK(p->release(b2.buffer).ok() && !b2.buffer.valid());
  CHECK(p->launch("fill", {1}, {64}, {b2.buffer, 9, 64u}).status == kern::Status::UsageError);
  CHECK(p->launch("fill", {1}, {64}, {kern::Arg::null(), 9, 0u}).ok());

  // The program's own main still runs (a separate device).
  out.clear();
  kern::RunResult run = p->run();
  CHECK(run.status == kern::Status::Ok && run.exitCode == 7 && contains(out, "main ran"));

  // Files: an embedding application's programs may not open them unless it says so (fopen
  // returns NULL with errno EACCES, and a note goes to err once).
  static const char *kFiles = R"(
#include <errno.h>
int main() {
  FILE *f = fopen("kern_api_files.tmp", "w");
  printf("fopen %s errno %d\n", f ? "opened" : "null", errno);
  FILE *g = fopen("kern_api_files.tmp", "r");
  if (f) { fputs("x", f); fclose(f); remove("kern_api_files.tmp"); }
  return g == NULL ? 0 : 1;
})";
  CHECK(!options.allowFiles);
  out.clear();
  err.clear();
  kern::RunResult denied = engine.compile(kFiles, "files.kern")->run();
  CHECK(denied.status == kern::Status::Ok && denied.exitCode == 0);
  CHECK(contains(out, "fopen null errno 13"));
  CHECK(contains(err, "kern: file access is disabled (--no-files): fopen(\"kern_api_files.tmp\")"));
  CHECK(err.find("file access") == err.rfind("file access")); // noted once
  kern::Options withFiles = options;
  withFiles.allowFiles = true;
  kern::Engine filesEngine(withFiles);
  out.clear();
  kern::RunResult allowed = filesEngine.compile(kFiles, "files.kern")->run();
  CHECK(allowed.status == kern::Status::Ok && contains(out, "fopen opened errno 0"));

  // Device checks and the tables of the CLI.
  std::string error;
  kern::Options unknown;
  unknown.device = "rtx9090";
  CHECK(!kern::checkDevice(unknown, error) && contains(error, "h100"));
  CHECK(contains(kern::deviceList(), "h100"));
  std::string occ;
  CHECK(kern::occupancyCalculator({}, 256, 32, 0, occ, error) && !occ.empty());

  // One program on several devices: each run's output captured, the table side by side; a
  // stride-2 shared read conflicts 2-way on cc1.x's 16 banks (once per half-warp: 2 conflicts)
  // and on the 32 banks of later GPUs (once per warp: 1).
  {
    const std::string path = "kern_api_compare.tmp.kern";
    FILE *f = std::fopen(path.c_str(), "w");
    std::fputs("__global__ void k(int *o) {\n"
               "  __shared__ int s[64];\n"
               "  s[threadIdx.x] = threadIdx.x; s[threadIdx.x + 32] = 0; __syncthreads();\n"
               "  o[threadIdx.x] = s[2 * threadIdx.x];\n"
               "}\n"
               "int main() { int *d; cudaMalloc(&d, 128); k<<<1, 32>>>(d); int h[32];\n"
               "  cudaMemcpy(h, d, 128, cudaMemcpyDeviceToHost);\n"
               "  printf(\"h[3]=%d\\n\", h[3]); return 0; }\n",
               f);
    std::fclose(f);
    kern::Comparison c = kern::compareDevices(options, {path}, {"g80", "h100"});
    CHECK(c.ok() && c.runs.size() == 2);
    CHECK(c.runs[0].device == "g80" && c.runs[1].device == "h100");
    CHECK(c.runs[0].output == "h[3]=6\n" && c.runs[1].output == c.runs[0].output);
    CHECK(c.runs[1].result.status == kern::Status::Ok && c.runs[1].result.exitCode == 0);
    CHECK(contains(c.table, "g80 (cc 1.0)") && contains(c.table, "h100 (cc 9.0)"));
    CHECK(rowOf(c.table, "shared bank conflicts") == "2 1");
    CHECK(rowOf(c.table, "outcome") == "exit 0 exit 0");
    kern::Comparison bad = kern::compareDevices(options, {path}, {"g80", "rtx9090"});
    CHECK(bad.status == kern::Status::UsageError && contains(bad.diagnostics, "rtx9090"));
    kern::Options reporting = options;
    reporting.reportPath = "r.json";
    CHECK(kern::compareDevices(reporting, {path}, {"h100"}).status == kern::Status::UsageError);
    std::remove(path.c_str());
  }

  // A session: definitions persist, bare expressions print, errors leave it intact.
  out.clear();
  err.clear();
  kern::Session s(options);
  CHECK(s.eval("__global__ void k(int *o) { o[threadIdx.x] = threadIdx.x * 2; }").ok());
  CHECK(s.eval("int *d; cudaMalloc(&d, 32 * sizeof(int));").ok());
  CHECK(s.eval("k<<<1, 32>>>(d);").ok());
  CHECK(s.eval("d").ok());
  CHECK(contains(out, "(int *) 0x") && contains(out, "{0, 2, 4, 6, 8, 10, 12, 14, ...}"));
  CHECK(s.eval("nothing_here + 1").status == kern::Status::CompileError);
  CHECK(contains(err, "input:1:1: error"));
  CHECK(s.eval("int x = 6; x * 7").ok() && contains(out, "(int) 42"));
  CHECK(kern::Session::isComplete("int x = 1;") && !kern::Session::isComplete("void f() {"));
  CHECK(!kern::Session::isComplete("for (int i = 0; i < 4; ++i)"));
  CHECK(s.eval("struct P { int v; };").ok() && s.eval("P p; p.v = 5;").ok());
  CHECK(s.eval("p.v * 3").ok() && contains(out, "(int) 15"));
  std::vector<std::string> c = s.completions("cudaMem");
  CHECK(!c.empty() && c[0].rfind("cudaMem", 0) == 0);
  CHECK(!s.completions("k").empty());
  // Completion in context: members after `.` and `->`, meta-commands' arguments, file names.
  CHECK(s.eval("struct Q { float4 f; P inner; }; Q q; Q *qp = &q; float4 v4;").ok());
  auto same = [](std::vector<std::string> got, std::vector<std::string> want) {
    return got == want;
  };
  CHECK(same(s.completions("p."), {"p.v"}));
  CHECK(same(s.completions("q.", "q."), {"q.f", "q.inner"}));
  CHECK(same(s.completions("q.inner.", "x = q.inner."), {"q.inner.v"}));
  CHECK(same(s.completions("", "qp->"), {"f", "inner"}));
  CHECK(same(s.completions("in", "qp->in"), {"inner"}));
  CHECK(same(s.completions("v4.", "v4."), {"v4.w", "v4.x", "v4.y", "v4.z"}));
  CHECK(same(s.completions("threadIdx.", "int i = threadIdx."),
             {"threadIdx.x", "threadIdx.y", "threadIdx.z"}));
  CHECK(same(s.completions("nothing.", "nothing."), {}));
  CHECK(same(s.completions("h1", ":device h1"), {"h100"}));
  CHECK(same(s.completions("", ":mode "), {"checked", "fast", "profile"}));
  CHECK(same(s.completions("", ":annotate "), {"k"}));
  CHECK(same(s.completions("l", ":emit l"), {"llvm"}));
  CHECK(same(s.completions("", ":emit ir "), {"k"}));
  const std::string dir = KERN_TEST_SOURCE_DIR "/tests/api/";
  c = s.completions("api_t", ":load " + dir + "api_t");
  CHECK(same(c, {"api_test.cpp"}));
  c = s.completions("ap", ":load " KERN_TEST_SOURCE_DIR "/tests/ap");
  CHECK(same(c, {"api/"}));
  CHECK(contains(s.source(), "__global__ void k"));
  CHECK(s.lastCompileMilliseconds() > 0);
  CHECK(s.eval(":quit").quit);

  if (failures)
    std::fprintf(stderr, "%d check(s) failed\n", failures);
  else
    std::printf("api_test: all checks passed\n");
  return failures ? 1 : 0;
}
