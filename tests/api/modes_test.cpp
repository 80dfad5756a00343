// Modes and the per-launch filter of the C++ API (kern::Mode, Options::kernelName, launchSkip,
// launchCount, profileFromStart, launchFilter): which launches count, what they count, and the
// errors of a bad filter.
#include <kern/kern.hpp>

#include <cstdio>
#include <string>
#include <utility>
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

static const char *kSource = R"(
#include <cuda_profiler_api.h>
__global__ void first(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}
__global__ void fiddle(int *out, int stride) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[(t * stride) % 256] = t;
  __syncthreads();
  if (t % 3 == 0) out[t * stride % 256] = s[t];
}
__global__ void second(int *out) { atomicAdd(&out[threadIdx.x % 4], 1); }
int main() {
  int *d;
  cudaMalloc(&d, 256 * sizeof(int));
  first<<<2, 128>>>(d, 256);
  cudaProfilerStart();
  fiddle<<<1, 64>>>(d, 2);
  cudaProfilerStop();
  second<<<1, 64>>>(d);
  return 0;
}
)";

/// Every counter of a launch, for comparing two launches field by field.
static bool sameCounters(const kern::Counters &a, const kern::Counters &b) {
  return a.warpInstructions == b.warpInstructions && a.threadInstructions == b.threadInstructions &&
         a.branches == b.branches && a.divergentBranches == b.divergentBranches &&
         a.globalLoadRequests == b.globalLoadRequests &&
         a.globalLoadTransactions == b.globalLoadTransactions &&
         a.globalStoreRequests == b.globalStoreRequests &&
         a.globalStoreTransactions == b.globalStoreTransactions &&
         a.globalBytesRequested == b.globalBytesRequested &&
         a.globalBytesMoved == b.globalBytesMoved && a.sharedRequests == b.sharedRequests &&
         a.sharedBankConflicts == b.sharedBankConflicts &&
         a.constantRequests == b.constantRequests && a.barriers == b.barriers &&
         a.atomics == b.atomics && a.warpExecutionEfficiency == b.warpExecutionEfficiency &&
         a.branchEfficiency == b.branchEfficiency;
}

/// The launches every test makes: first, fiddle (stride 2), second, fiddle (stride 3), first.
static std::vector<kern::LaunchResult> launchAll(kern::Program &p) {
  std::vector<kern::LaunchResult> out;
  kern::Buffer b = p.allocate(256 * sizeof(int)).buffer;
  out.push_back(p.launch("first", {2}, {128}, {b, 256}));
  out.push_back(p.launch("fiddle", {1}, {64}, {b, 2}));
  out.push_back(p.launch("second", {1}, {64}, {b}));
  out.push_back(p.launch("fiddle", {1}, {96}, {b, 3}));
  out.push_back(p.launch("first", {1}, {64}, {b, 64}));
  return out;
}

/// Which of the launches were counted, as a string of 0 and 1.
static std::string countedPattern(const std::vector<kern::LaunchResult> &ls) {
  std::string s;
  for (const kern::LaunchResult &l : ls)
    s += l.ok() && l.stats.counted ? '1' : '0';
  return s;
}

static std::vector<kern::LaunchResult> runWith(kern::Options o, std::string *json = nullptr,
                                               std::vector<std::string> *tables = nullptr) {
  o.workers = 2;
  o.err = [](std::string_view) {};
  kern::Engine engine(o);
  auto p = engine.compile(kSource, "modes.kern");
  CHECK(p->ok());
  std::vector<kern::LaunchResult> ls = launchAll(*p);
  if (json)
    *json = p->reportJson();
  if (tables)
    for (size_t i = 0; i < ls.size(); ++i)
      tables->push_back(p->launchTable(i));
  return ls;
}

int main() {
  // The defaults: fast mode, nothing counted.
  kern::Options defaults;
  CHECK(defaults.mode == kern::Mode::Fast && defaults.profileFromStart &&
        defaults.kernelName.empty() && defaults.launchSkip == 0 && defaults.launchCount == 0 &&
        !defaults.launchFilter);
  CHECK(countedPattern(runWith(defaults)) == "00000");

  // Mode::Profile is counters = true: every launch counts.
  kern::Options profile;
  profile.mode = kern::Mode::Profile;
  std::string allJson;
  std::vector<std::string> allTables;
  const std::vector<kern::LaunchResult> all = runWith(profile, &allJson, &allTables);
  CHECK(countedPattern(all) == "11111");
  CHECK(all[1].stats.counters.sharedBankConflicts > 0 && all[2].stats.counters.atomics > 0);
  kern::Options counters;
  counters.counters = true;
  const std::vector<kern::LaunchResult> viaBool = runWith(counters);
  CHECK(countedPattern(viaBool) == "11111");
  for (size_t i = 0; i < all.size() && i < viaBool.size(); ++i)
    CHECK(sameCounters(all[i].stats.counters, viaBool[i].stats.counters));
  CHECK(!contains(allJson, "\"profiled\": false") && contains(allJson, "\"profiled\": true"));

  // A kernel name (the fields alone turn counting on): only its launches count, and each counts
  // exactly what it counts when every launch does.
  kern::Options byName;
  byName.kernelName = "fiddle";
  std::string json;
  std::vector<std::string> tables;
  std::vector<kern::LaunchResult> ls = runWith(byName, &json, &tables);
  CHECK(countedPattern(ls) == "01010");
  CHECK(sameCounters(ls[1].stats.counters, all[1].stats.counters));
  CHECK(sameCounters(ls[3].stats.counters, all[3].stats.counters));
  CHECK(ls[0].stats.counters.warpInstructions == 0 && ls[2].stats.counters.atomics == 0);
  CHECK(tables.size() == 5 && tables[0].empty() && contains(tables[1], "fiddle") &&
        tables[2].empty() && tables[3] == allTables[3]);
  CHECK(contains(json, "\"profiled\": false") && contains(json, "\"profiledLaunches\": 2"));
  // Launches that are not profiled compute the same results.
  CHECK(ls[4].ok() && ls[4].stats.occupancy == all[4].stats.occupancy);

  // Regular expressions (a match anywhere in the name, as std::regex_search).
  kern::Options regex;
  regex.kernelName = "regex:^f";
  CHECK(countedPattern(runWith(regex)) == "11011");
  regex.kernelName = "regex:nd$";
  CHECK(countedPattern(runWith(regex)) == "00100");
  regex.kernelName = "regex:i";
  CHECK(countedPattern(runWith(regex)) == "11011");
  kern::Options exact;
  exact.kernelName = "fi"; // exact names do not match prefixes
  CHECK(countedPattern(runWith(exact)) == "00000");

  // Skip and count: among the launches that match the name.
  kern::Options skip;
  skip.launchSkip = 1;
  skip.launchCount = 2;
  CHECK(countedPattern(runWith(skip)) == "01100");
  skip.kernelName = "first";
  skip.launchCount = 0; // no limit
  CHECK(countedPattern(runWith(skip)) == "00001");
  skip.kernelName = "regex:fi";
  skip.launchSkip = 0;
  skip.launchCount = 3;
  CHECK(countedPattern(runWith(skip)) == "11010");

  // The predicate: called for launches that pass the name, with the launch index; skip and
  // count apply after it.
  std::vector<std::pair<std::string, uint64_t>> calls;
  kern::Options pred;
  pred.launchFilter = [&calls](std::string_view kernel, uint64_t index) {
    calls.emplace_back(std::string(kernel), index);
    return index % 2 == 0;
  };
  CHECK(countedPattern(runWith(pred)) == "10101");
  CHECK(calls.size() == 5 && calls[0].first == "first" && calls[3].first == "fiddle" &&
        calls[3].second == 3);
  calls.clear();
  pred.kernelName = "regex:^fi";
  pred.launchSkip = 1;
  CHECK(countedPattern(runWith(pred)) == "00001");
  CHECK(calls.size() == 4 && calls[2].second == 3);
  // A predicate that selects the third launch only: its counters are those of an all-profiled
  // run.
  kern::Options third;
  third.launchFilter = [](std::string_view, uint64_t index) { return index == 3; };
  ls = runWith(third);
  CHECK(countedPattern(ls) == "00010" && sameCounters(ls[3].stats.counters, all[3].stats.counters));

  // A bad pattern: checkLaunchFilter says why; launches and runs fail with UsageError.
  kern::Options bad;
  bad.kernelName = "regex:([a-z";
  std::string error;
  CHECK(!kern::checkLaunchFilter(bad, error) && contains(error, "regular expression"));
  CHECK(kern::checkLaunchFilter(byName, error));
  bad.err = [](std::string_view) {};
  {
    kern::Engine engine(bad);
    auto p = engine.compile(kSource, "modes.kern");
    CHECK(p->ok());
    kern::BufferResult b = p->allocate(64);
    CHECK(b.status == kern::Status::UsageError && contains(b.diagnostics, "regular expression"));
    kern::RunResult r = p->run();
    CHECK(r.status == kern::Status::UsageError && r.exitCode == 2);
  }
  bad.kernelName = "regex:";
  CHECK(!kern::checkLaunchFilter(bad, error) && contains(error, "no pattern"));

  // Program::run with profileFromStart = false: only the launch between cudaProfilerStart and
  // cudaProfilerStop counts; with the default, every launch before cudaProfilerStop.
  for (bool fromStart : {false, true}) {
    std::string err;
    kern::Options o;
    o.profileFromStart = fromStart;
    if (fromStart)
      o.counters = true;
    o.countersTextPath = "-";
    o.err = [&err](std::string_view s) { err += s; };
    kern::Engine engine(o);
    auto p = engine.compile(kSource, "modes.kern");
    CHECK(p->run().status == kern::Status::Ok);
    CHECK(contains(err, "total launches 3\n"));
    CHECK(contains(err, fromStart ? "total launches.profiled 2\n" : "total launches.profiled 1\n"));
    CHECK(contains(err, "launches profiled)"));
    CHECK(!contains(err, "total atomics"));       // `second` ran after cudaProfilerStop
    CHECK(fromStart == contains(err, "line 5 ")); // `first` ran before cudaProfilerStart
  }

  // The embedding side of the profiler's range: Program::profilerStart/Stop.
  {
    kern::Options o;
    o.profileFromStart = false;
    o.err = [](std::string_view) {};
    kern::Engine engine(o);
    auto p = engine.compile(kSource, "modes.kern");
    kern::Buffer b = p->allocate(256 * sizeof(int)).buffer;
    std::string pattern;
    auto launch = [&]() {
      kern::LaunchResult l = p->launch("first", {1}, {64}, {b, 64});
      pattern += l.ok() && l.stats.counted ? '1' : '0';
    };
    launch();
    CHECK(p->profilerStart().ok());
    launch();
    launch();
    CHECK(p->profilerStop().ok());
    launch();
    CHECK(p->profilerStart().ok());
    launch();
    CHECK(pattern == "01101");
    auto bad = engine.compile("int main( {", "bad.kern");
    CHECK(bad->profilerStart().status == kern::Status::UsageError);
  }

  // Checked mode through the enum: a read of never-written memory is an error.
  {
    const char *racy = R"(
__global__ void k(int *a, int *b) { b[threadIdx.x] = a[threadIdx.x]; }
int main() {
  int *a, *b;
  cudaMalloc(&a, 128); cudaMalloc(&b, 128);
  k<<<1, 32>>>(a, b);
  return 0;
})";
    std::string err;
    kern::Options o;
    o.err = [&err](std::string_view s) { err += s; };
    o.mode = kern::Mode::Checked;
    kern::Engine checkedEngine(o);
    CHECK(checkedEngine.compile(racy)->run().status == kern::Status::RuntimeError);
    CHECK(contains(err, "never-written"));
    o.mode = kern::Mode::Fast;
    kern::Engine fastEngine(o);
    CHECK(fastEngine.compile(racy)->run().status == kern::Status::Ok);
  }

  // A session profiles by default; setMode(Fast) and `:mode fast` stop counting.
  {
    std::string out;
    kern::Options o;
    o.out = [&out](std::string_view s) { out += s; };
    o.err = [](std::string_view) {};
    kern::Session s(o);
    CHECK(s.mode() == kern::Mode::Profile);
    CHECK(s.eval("__global__ void k(int *o) { o[threadIdx.x] = 1; }").ok());
    CHECK(s.eval("int *d; cudaMalloc(&d, 256);").ok());
    CHECK(s.eval("k<<<1, 32>>>(d);").ok());
    out.clear();
    CHECK(s.eval(":stats").ok() && contains(out, "global stores"));
    CHECK(s.setMode(kern::Mode::Fast).ok() && s.mode() == kern::Mode::Fast);
    CHECK(s.eval("k<<<1, 64>>>(d);").ok());
    out.clear();
    CHECK(s.eval(":stats").ok() && contains(out, "launch 1: k<<<1, 64>>> was not profiled"));
    out.clear();
    CHECK(s.eval(":mode").ok() && contains(out, "mode fast"));
    CHECK(s.eval(":mode profile").ok() && s.mode() == kern::Mode::Profile);
    CHECK(s.eval("k<<<1, 64>>>(d);").ok());
    out.clear();
    CHECK(s.eval(":stats").ok() && contains(out, "== launch 2: k<<<1, 64>>> on"));
    CHECK(s.eval(":mode fast please").status == kern::Status::UsageError);
    CHECK(s.mode() == kern::Mode::Profile);
    // Checked mode: the following inputs are checked; memory written before the switch (d, by
    // k) is not reported, memory never written is.
    CHECK(s.setMode(kern::Mode::Checked).ok() && s.mode() == kern::Mode::Checked);
    CHECK(s.eval("__global__ void copy(const int *p, int *o) { o[threadIdx.x] = p[threadIdx.x]; "
                 "}")
              .ok());
    CHECK(s.eval("int *e; cudaMalloc(&e, 256);").ok());
    CHECK(s.eval("copy<<<1, 32>>>(d, e); cudaDeviceSynchronize();").ok());
    CHECK(s.eval("copy<<<1, 32>>>(e + 32, d); cudaDeviceSynchronize();").status ==
          kern::Status::RuntimeError);
    CHECK(s.eval(":mode profile").ok() && s.mode() == kern::Mode::Profile);
    std::vector<std::string> c = s.completions(":mo");
    CHECK(c.size() == 1 && c[0] == ":mode");
  }

  if (failures)
    std::fprintf(stderr, "%d check(s) failed\n", failures);
  else
    std::printf("modes_test: all checks passed\n");
  return failures ? 1 : 0;
}
