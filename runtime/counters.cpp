// The per-worker counter tables of a launch: recording through the rules of counter_rules.h,
// order-independent merging, and the derived figures that reports print.
#include "runtime/counters.h"

#include <bit>
#include <cassert>

namespace kern::runtime {

SharedOpCounters &SharedOpCounters::operator+=(const SharedOpCounters &o) {
  instructions += o.instructions;
  requests += o.requests;
  steps += o.steps;
  idealSteps += o.idealSteps;
  return *this;
}

GlobalOpCounters &GlobalOpCounters::operator+=(const GlobalOpCounters &o) {
  instructions += o.instructions;
  requests += o.requests;
  transactions += o.transactions;
  sectors += o.sectors;
  lines128 += o.lines128;
  bytesRequested += o.bytesRequested;
  bytesMoved += o.bytesMoved;
  bytesIdeal += o.bytesIdeal;
  return *this;
}

SharedOpCounters SiteCounters::sharedTotal() const {
  SharedOpCounters t;
  for (const SharedOpCounters &s : shared)
    t += s;
  return t;
}

GlobalOpCounters SiteCounters::globalTotal() const {
  GlobalOpCounters t;
  for (const GlobalOpCounters &g : global)
    t += g;
  return t;
}

SiteCounters &SiteCounters::operator+=(const SiteCounters &o) {
  for (uint32_t k = 0; k < kMemoryOpKinds; ++k) {
    shared[k] += o.shared[k];
    global[k] += o.global[k];
  }
#define KERN_SITE_FIELD(name, what) name += o.name;
#include "backend/counter_fields.def"
  return *this;
}

namespace {
/// The fields of SiteCounters that hold the classes, in kInstrClasses order.
constexpr uint64_t SiteCounters::*kInstrClassFields[kInstrClasses] = {
    &SiteCounters::instrInteger, &SiteCounters::instrFp32,       &SiteCounters::instrFp64,
    &SiteCounters::instrSpecial, &SiteCounters::instrConversion, &SiteCounters::instrMemory,
    &SiteCounters::instrControl, &SiteCounters::instrOther};
} // namespace

uint64_t &instrClass(SiteCounters &c, size_t k) { return c.*kInstrClassFields[k]; }

uint64_t instrClass(const SiteCounters &c, size_t k) { return c.*kInstrClassFields[k]; }

uint64_t sampleBlock(uint32_t q, const uint32_t grid[3]) {
  const uint64_t blocks = uint64_t(grid[0]) * grid[1] * grid[2], row = grid[0];
  const uint64_t s = blocks * q / 4;
  // In a grid of several rows, the middle of the row (a row's first and last blocks often
  // take a boundary's path).
  if (q == 0 || blocks == row || row < 3)
    return s;
  return s - s % row + row / 2;
}

bool l1SampleBlock(uint64_t linear, const uint32_t grid[3]) {
  for (uint32_t q = 0; q < 4; ++q)
    if (linear == sampleBlock(q, grid))
      return true;
  return false;
}

uint32_t l2SampleRoles(uint64_t linear, const uint32_t grid[3]) {
  const uint64_t row = grid[0], plane = uint64_t(grid[0]) * grid[1];
  uint32_t roles = 0;
  for (uint32_t q = 1; q < 4; ++q) {
    const uint64_t s = sampleBlock(q, grid);
    if (s == 0)
      continue;
    if (linear == s)
      roles |= 1u << q;
    const bool before = (s % row != 0 && linear == s - 1) ||
                        (s % plane / row != 0 && linear == s - row) ||
                        (s / plane != 0 && linear == s - plane);
    if (before)
      roles |= 16u << q;
  }
  return roles;
}

const char *instrClassKey(size_t k) {
  static const char *const keys[kInstrClasses] = {"integer",    "fp32",   "fp64",    "special",
                                                  "conversion", "memory", "control", "other"};
  return k < kInstrClasses ? keys[k] : "?";
}

CounterSet::CounterSet(const CounterConfig &config, size_t siteCount)
    : config_(config), sites_(siteCount) {
  assert(config.sharedBanks >= 1 && config.sharedBanks <= kMaxSharedBanks &&
         "bank count out of range");
}

void CounterSet::grow(CounterSiteId site) { sites_.resize(size_t{site} + 1); }

namespace {

/// A field of a rule's result, read on its own into a register: the rule has just stored the
/// result 8 bytes at a time, and a 16-byte load spanning two such stores (as the compiler would
/// make of the four adds below) waits for both to leave the store buffer.
uint64_t throughRegister(uint64_t v) {
  asm("" : "+r"(v));
  return v;
}

} // namespace

void CounterSet::recordShared(CounterSiteId site, const uint64_t *offsets, uint32_t mask,
                              uint32_t size, MemoryOpKind kind, AtomicForm form) {
  if (mask == 0)
    return;
  if (kind == MemoryOpKind::Reduction)
    kind = MemoryOpKind::Atomic;
  const SharedAccessCost cost =
      kind == MemoryOpKind::Atomic
          ? sharedAtomicCost(config_.sharedRule, config_.sharedBanks, offsets, mask, size, form,
                             config_.sharedFloatAtomicLoop)
          : sharedAccessCost(config_.sharedRule, config_.sharedBanks, offsets, mask, size,
                             kind == MemoryOpKind::Store);
  SiteCounters &c = at(site);
  SharedOpCounters &s = c.shared[static_cast<uint32_t>(kind)];
  s.instructions += throughRegister(cost.instructions);
  s.requests += throughRegister(cost.requests);
  s.steps += throughRegister(cost.steps);
  s.idealSteps += throughRegister(cost.idealSteps);
  if (kind == MemoryOpKind::Atomic) {
    ++c.atomicsExecuted;
    c.atomicThreadOps += static_cast<uint32_t>(std::popcount(mask));
  }
}

void CounterSet::recordGlobal(CounterSiteId site, const uint64_t *addresses, uint32_t mask,
                              uint32_t size, MemoryOpKind kind, GlobalAtomicCost *atomicCost) {
  if (mask == 0)
    return;
  // Atomics are performed in L2 like stores on cc2.x; the other rules treat both alike.
  const bool atomic = isAtomic(kind);
  GlobalAccessCost cost =
      globalAccessCost(config_.globalRule, addresses, mask, size, kind != MemoryOpKind::Load);
  SiteCounters &c = at(site);
  if (atomic) {
    const GlobalAtomicCost a = globalAtomicCost(addresses, mask);
    if (atomicCost)
      *atomicCost = a;
    c.atomicUnits += a.units;
    if (config_.globalRule == GlobalCoalescingRule::Sectors) {
      cost.sectors = cost.transactions = a.passes;
      cost.bytesMoved = uint64_t{a.passes} * 32;
    }
  }
  GlobalOpCounters &g = c.global[static_cast<uint32_t>(kind)];
  ++g.instructions;
  g.requests += cost.requests;
  g.transactions += cost.transactions;
  g.sectors += cost.sectors;
  g.lines128 += cost.lines128;
  g.bytesRequested += cost.bytesRequested;
  g.bytesMoved += cost.bytesMoved;
  g.bytesIdeal += cost.bytesIdeal;
  if (atomic) {
    ++c.atomicsExecuted;
    c.atomicThreadOps += static_cast<uint32_t>(std::popcount(mask));
  }
}

void CounterSet::recordConstant(CounterSiteId site, const uint64_t *addresses, uint32_t mask) {
  if (mask == 0)
    return;
  SiteCounters &c = at(site);
  // cc1.x serves the half-warps one after the other: each half with an active lane is a read.
  c.constantRequests +=
      config_.constantHalfWarp ? ((mask & 0xFFFFu) != 0) + ((mask >> 16) != 0) : 1;
  c.constantSerialization += constantAccessSerialization(config_.constantHalfWarp, addresses, mask);
}

void CounterSet::merge(const CounterSet &other) {
  assert(config_ == other.config_ && "merging counters gathered under different rules");
  // Sizes may differ when a worker grew its table; the larger one wins either way round.
  if (other.sites_.size() > sites_.size())
    sites_.resize(other.sites_.size());
  for (size_t i = 0; i < other.sites_.size(); ++i)
    sites_[i] += other.sites_[i];
  unattributed_ += other.unattributed_;
}

void CounterSet::clear() {
  for (SiteCounters &s : sites_)
    s = SiteCounters{};
  unattributed_ = SiteCounters{};
}

const SiteCounters &CounterSet::site(CounterSiteId id) const {
  static const SiteCounters kNone{};
  return id < sites_.size() ? sites_[id] : kNone;
}

SiteCounters CounterSet::total() const {
  SiteCounters t = unattributed_;
  for (const SiteCounters &s : sites_)
    t += s;
  return t;
}

LaunchCounters CounterSet::launchCounters() const { return LaunchCounters{total(), sites_}; }

// ---------------------------------------------------------------------------------------------
// Derived figures
// ---------------------------------------------------------------------------------------------

double branchEfficiency(const SiteCounters &c) {
  if (c.branchesExecuted == 0)
    return 100.0;
  return 100.0 * static_cast<double>(c.branchesExecuted - c.branchesDivergent) /
         static_cast<double>(c.branchesExecuted);
}

double divergentBranchPercent(const SiteCounters &c) {
  uint64_t denominator = c.branchesDivergent + c.branchesExecuted;
  if (denominator == 0)
    return 0.0;
  return 100.0 * static_cast<double>(c.branchesDivergent) / static_cast<double>(denominator);
}

double threadsPerWarpInstruction(const SiteCounters &c) {
  if (c.warpInstructions == 0)
    return 0.0;
  return static_cast<double>(c.threadInstructions) / static_cast<double>(c.warpInstructions);
}

double warpExecutionEfficiency(const SiteCounters &c) {
  if (c.warpInstructions == 0)
    return 100.0;
  return 100.0 * static_cast<double>(c.threadInstructions) /
         (32.0 * static_cast<double>(c.warpInstructions));
}

double controlFlowDivergence(const SiteCounters &c) { return 100.0 - warpExecutionEfficiency(c); }

double globalEfficiency(const GlobalOpCounters &g) {
  if (g.bytesMoved == 0)
    return 100.0;
  return 100.0 * static_cast<double>(g.bytesRequested) / static_cast<double>(g.bytesMoved);
}

uint64_t globalWastedBytes(const GlobalOpCounters &g) {
  return g.bytesMoved > g.bytesIdeal ? g.bytesMoved - g.bytesIdeal : 0;
}

double sectorsPerRequest(const GlobalOpCounters &g) {
  if (g.requests == 0)
    return 0.0;
  return static_cast<double>(g.sectors) / static_cast<double>(g.requests);
}

double sharedStepsPerInstruction(const SharedOpCounters &s) {
  if (s.instructions == 0)
    return 0.0;
  return static_cast<double>(s.steps) / static_cast<double>(s.instructions);
}

} // namespace kern::runtime
