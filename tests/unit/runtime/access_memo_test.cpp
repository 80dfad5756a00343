// The memo that lets compiled code count a contiguous full-warp access without a call
// (backend/abi.h, "counting without a call") is only right if every rule costs such an access
// by the base's offset within kern_access_window(size) bytes. These tests check that property
// for every rule, bank count and access size, and that a worker's recorded memo replays
// exactly what the rules add.
#include "backend/abi.h"
#include "runtime/counter_hooks.h"
#include "runtime/counter_rules.h"

#include <catch2/catch.hpp>

#include <set>

#include <array>
#include <cstdint>
#include <cstring>
#include <random>

using namespace kern::runtime;

namespace {

using Lanes = std::array<uint64_t, 32>;

[[maybe_unused]] Lanes contiguous(uint64_t base, uint32_t size) {
  Lanes a{};
  for (uint32_t l = 0; l < 32; ++l)
    a[l] = base + uint64_t{l} * size;
  return a;
}

bool same(const GlobalAccessCost &x, const GlobalAccessCost &y) {
  return x.requests == y.requests && x.transactions == y.transactions && x.sectors == y.sectors &&
         x.lines128 == y.lines128 && x.bytesRequested == y.bytesRequested &&
         x.bytesMoved == y.bytesMoved;
}

bool same(const SharedAccessCost &x, const SharedAccessCost &y) {
  return x.requests == y.requests && x.steps == y.steps && x.idealSteps == y.idealSteps;
}

} // namespace

TEST_CASE("accesses cost the same at every shift by whole memo windows", "[runtime][counters]") {
  std::mt19937_64 rng(7);
  const GlobalCoalescingRule globalRules[] = {
      GlobalCoalescingRule::Cc10, GlobalCoalescingRule::Cc12, GlobalCoalescingRule::Cc2x,
      GlobalCoalescingRule::Sectors};
  const SharedBankRule sharedRules[] = {SharedBankRule::HalfWarp, SharedBankRule::WarpMulticast};
  const uint32_t sizes[] = {1, 2, 4, 8, 16};
  // Global memory: any pattern of aligned lanes under any mask, moved by whole windows.
  for (uint32_t size : sizes) {
    const uint64_t window = kern_access_window(size, KERN_ACCESS_GLOBAL);
    for (int trial = 0; trial < 3000; ++trial) {
      Lanes a{};
      const uint64_t lane0 = (0x200000000000ull + (rng() % (1u << 20))) & ~uint64_t{size - 1};
      const int kind = static_cast<int>(rng() % 4);
      for (uint32_t l = 0; l < 32; ++l) {
        const uint64_t stride = kind == 0 ? size : kind == 1 ? size * (rng() % 40) : 0;
        a[l] = kind == 3 ? lane0 + ((rng() % 65536) & ~uint64_t{size - 1}) : lane0 + l * stride;
      }
      const uint32_t mask = rng() % 3 == 0 ? static_cast<uint32_t>(rng()) : ~0u;
      const uint64_t shift = window * (1 + rng() % 4096);
      Lanes b = a;
      for (auto &x : b)
        x += shift;
      for (auto rule : globalRules)
        for (bool write : {false, true}) {
          INFO("global rule " << int(rule) << " size " << size << " lane 0 " << lane0);
          CHECK(same(globalAccessCost(rule, a.data(), mask, size, write),
                     globalAccessCost(rule, b.data(), mask, size, write)));
        }
    }
  }
  // Shared memory: any pattern of aligned lanes (offsets within the block's shared memory),
  // moved by whole windows (a word, or an access of 8 or 16 bytes), under any mask.
  for (uint32_t size : sizes) {
    const uint64_t window = kern_access_window(size, KERN_ACCESS_SHARED);
    for (int trial = 0; trial < 3000; ++trial) {
      Lanes sa{};
      const uint64_t lane0 = (rng() % 4096) & ~uint64_t{size - 1};
      const int kind = static_cast<int>(rng() % 4);
      for (uint32_t l = 0; l < 32; ++l) {
        const uint64_t stride = kind == 0 ? size : kind == 1 ? size * (rng() % 40) : 0;
        sa[l] = kind == 3 ? (rng() % 4096) & ~uint64_t{size - 1} : lane0 + l * stride;
      }
      const uint32_t mask = rng() % 3 == 0 ? static_cast<uint32_t>(rng()) : ~0u;
      const uint64_t shift = window * (1 + rng() % 64);
      Lanes sb = sa;
      for (auto &x : sb)
        x += shift;
      for (auto rule : sharedRules)
        for (uint32_t banks : {16u, 32u})
          for (bool write : {false, true}) {
            INFO("shared rule " << int(rule) << " banks " << banks << " size " << size);
            CHECK(same(sharedAccessCost(rule, banks, sa.data(), mask, size, write),
                       sharedAccessCost(rule, banks, sb.data(), mask, size, write)));
          }
    }
  }
}

TEST_CASE("a recorded memo replays exactly what the rules added", "[runtime][counters]") {
  CounterConfig config;
  config.globalRule = GlobalCoalescingRule::Cc12;
  WorkerCounters w(config, 4);
  const Lanes a = contiguous(0x200000000040ull, 4); // 64 bytes past a 128-byte line
  w.recordMemo(2, KERN_ACCESS_LOAD | KERN_ACCESS_GLOBAL, a.data(), ~0u, 4, 7, 0);
  auto memoOf = [&](uint32_t op, uint64_t lane0, uint32_t flags,
                    uint32_t mask) -> const KernAccessMemo & {
    return w.memos[KERN_MEMO_SLOTS * (KERN_ACCESS_OPS * 2 + op) +
                   kern_access_memo_slot(lane0, 4, flags, mask)];
  };
  const KernAccessMemo &m = memoOf(KERN_ACCESS_LOAD, a[0], KERN_ACCESS_GLOBAL, ~0u);
  CHECK(m.tag == kern_access_memo_tag(a[0], 4, KERN_ACCESS_LOAD | KERN_ACCESS_GLOBAL, true));
  CHECK(m.mask == ~0u);
  CHECK(m.pattern[31] == 31 * 4);
  CHECK(m.sampleKey == 7);
  const GlobalAccessCost cost = globalAccessCost(config.globalRule, a.data(), ~0u, 4, false);
  CHECK(m.delta[0] == 1);
  CHECK(m.delta[1] == cost.requests);
  CHECK(m.delta[2] == cost.transactions);
  CHECK(m.delta[3] == cost.sectors);
  CHECK(m.delta[4] == cost.lines128);
  CHECK(m.delta[5] == cost.bytesRequested);
  CHECK(m.delta[6] == cost.bytesMoved);
  // The view compiled code reads points at the same tables.
  CHECK(w.view.memos == w.memos.data());
  CHECK(w.view.sampleLoads == 0);
  // While a block sampled for the caches runs, a global load counted from its memo goes to the
  // runtime as well, which follows its sectors.
  w.l1Sampling = true;
  w.syncView();
  CHECK(w.view.memos == w.memos.data());
  CHECK(w.view.sampleLoads != 0);
  w.l1Sampling = false;
  w.syncView();
  CHECK(w.view.sampleLoads == 0);
  const auto &g = w.set.site(2).globalOf(MemoryOpKind::Load);
  uint64_t fields[KERN_SITE_GLOBAL_FIELDS];
  std::memcpy(fields,
              w.view.sites + 2 * sizeof(KernSiteCounters) + offsetof(KernSiteCounters, global),
              sizeof fields);
  CHECK(fields[0] == g.instructions);
  CHECK(fields[3] == g.sectors);
  // A non-contiguous shape is remembered with its pattern and without the contiguous bit.
  Lanes scattered = a;
  scattered[5] += 4096;
  w.recordMemo(2, KERN_ACCESS_STORE | KERN_ACCESS_GLOBAL, scattered.data(), 0xFFFFu, 4, 9, 0);
  const KernAccessMemo &st = memoOf(KERN_ACCESS_STORE, scattered[0], KERN_ACCESS_GLOBAL, 0xFFFFu);
  CHECK(st.tag ==
        kern_access_memo_tag(scattered[0], 4, KERN_ACCESS_STORE | KERN_ACCESS_GLOBAL, false));
  CHECK(st.mask == 0xFFFFu);
  CHECK(st.pattern[5] == 5 * 4 + 4096);
  // Contiguous under a partial mask: the contiguous bit, and the mask kept beside it.
  w.recordMemo(3, KERN_ACCESS_LOAD | KERN_ACCESS_GLOBAL, a.data(), 0x0000FFFFu, 4, 11, 0);
  const KernAccessMemo &partial =
      w.memos[KERN_MEMO_SLOTS * (KERN_ACCESS_OPS * 3 + KERN_ACCESS_LOAD) +
              kern_access_memo_slot(a[0], 4, KERN_ACCESS_GLOBAL, 0x0000FFFFu)];
  CHECK(partial.tag == kern_access_memo_tag(a[0], 4, KERN_ACCESS_LOAD | KERN_ACCESS_GLOBAL, true));
  CHECK(partial.mask == 0x0000FFFFu);
  CHECK(partial.delta[0] == 1);
  CHECK(st.sampleKey == 7); // the site's sample stays the lower key's
  // A new launch keeps the memos, stale (no warp's key reaches theirs) until the site's first
  // warp of the launch sets its sample: then every memo of the site replays from that key on.
  w.reset(4);
  CHECK(w.set.site(2).globalOf(MemoryOpKind::Load).instructions == 0);
  CHECK(m.tag == kern_access_memo_tag(a[0], 4, KERN_ACCESS_LOAD | KERN_ACCESS_GLOBAL, true));
  CHECK(m.sampleKey == UINT64_MAX);
  CHECK(st.sampleKey == UINT64_MAX);
  CHECK(partial.sampleKey == UINT64_MAX);
  w.recordMemo(2, KERN_ACCESS_STORE | KERN_ACCESS_GLOBAL, scattered.data(), 0xFFFFu, 4, 5, 0);
  CHECK(m.sampleKey == 5);
  CHECK(st.sampleKey == 5);
  CHECK(partial.sampleKey == UINT64_MAX); // site 3's sample is not set yet
  CHECK(m.delta[3] == cost.sectors);      // replays what it did
  // A later warp with a higher key leaves the keys; a lower one lowers them.
  w.recordMemo(2, KERN_ACCESS_STORE | KERN_ACCESS_GLOBAL, scattered.data(), 0xFFFFu, 4, 8, 0);
  CHECK(m.sampleKey == 5);
  w.recordMemo(2, KERN_ACCESS_STORE | KERN_ACCESS_GLOBAL, scattered.data(), 0xFFFFu, 4, 3, 0);
  CHECK(m.sampleKey == 3);
  // A new program (whose sites are its own) forgets them.
  w.forgetMemos = true;
  w.reset(4);
  CHECK(m.tag == 0);
  CHECK(st.tag == 0);
  CHECK(partial.tag == 0);
}

TEST_CASE("a site whose lanes or offset change keeps a memo for each", "[runtime][counters]") {
  // A tree reduction's `if (tid < s)`: warp 0 at 32, 16, 8, 4, 2 and 1 lanes, block after block;
  // each lane count has a slot of its own, so none evicts another (a contiguous shared access).
  std::set<uint32_t> slots;
  for (uint32_t lanes : {32u, 16u, 8u, 4u, 2u, 1u})
    slots.insert(kern_access_memo_slot(0x100, 4, KERN_ACCESS_LOAD | KERN_ACCESS_SHARED,
                                       lanes == 32 ? ~0u : (1u << lanes) - 1));
  CHECK(slots.size() == 6);
  // So do 1 to 16 lanes (the diagonals of a wavefront's tile).
  slots.clear();
  for (uint32_t lanes = 1; lanes <= 16; ++lanes)
    slots.insert(kern_access_memo_slot(0x100, 4, KERN_ACCESS_SHARED, (1u << lanes) - 1));
  CHECK(slots.size() == 16);
  // The 31 diagonals of a 16x16 tile (lanes a..b, one thread per row): a slot each.
  slots.clear();
  for (uint32_t m = 0; m < 31; ++m) {
    const uint32_t lo = m > 15 ? m - 15 : 0, hi = m < 15 ? m : 15;
    slots.insert(
        kern_access_memo_slot(0x100, 4, KERN_ACCESS_SHARED, ((2u << hi) - 1) & ~((1u << lo) - 1)));
  }
  CHECK(slots.size() == 31);
  // The rows of a matrix 2049 floats wide start at each 4-byte offset of a 128-byte window in
  // turn: one slot for each.
  slots.clear();
  for (uint64_t row = 0; row < 32; ++row)
    slots.insert(kern_access_memo_slot(0x200000000000ull + row * 2049 * 4, 4, KERN_ACCESS_GLOBAL,
                                       0x0000FFFFu));
  CHECK(slots.size() == 32);
  // Recorded at each, every memo stays.
  CounterConfig config;
  WorkerCounters w(config, 1);
  const Lanes a = contiguous(0x100, 4);
  for (uint32_t lanes : {32u, 16u, 8u, 4u, 2u, 1u})
    w.recordMemo(0, KERN_ACCESS_LOAD | KERN_ACCESS_SHARED, a.data(),
                 lanes == 32 ? ~0u : (1u << lanes) - 1, 4, 0, 0);
  std::set<uint32_t> masks;
  for (uint32_t s = 0; s < KERN_MEMO_SLOTS; ++s)
    if (const KernAccessMemo &m = w.memos[KERN_MEMO_SLOTS * KERN_ACCESS_LOAD + s]; m.tag)
      masks.insert(m.mask);
  CHECK(masks.size() == 6);
}

TEST_CASE("a site op whose memos miss gives them up and batches its accesses",
          "[runtime][counters]") {
  // A histogram's shared atomics: random bins, so the memos of the site op miss until the
  // worker gives them up (256 calls); from then on its slots say KERN_MEMO_BATCH, and an access
  // written into the view's batch (as compiled code writes it) costs what the rules give.
  CounterConfig config;
  WorkerCounters w(config, 2);
  CounterSet reference(config, 2);
  std::mt19937 random(7);
  const uint64_t base = 0x7000000000ull;
  const uint32_t flags = KERN_ACCESS_ATOMIC | KERN_ACCESS_SHARED | KERN_ACCESS_ATOMIC_INC1;
  auto bins = [&] {
    Lanes a{};
    for (uint64_t &x : a)
      x = base + 4 * (random() % 256);
    return a;
  };
  const size_t siteOp = KERN_ACCESS_OPS * 1 + KERN_ACCESS_ATOMIC;
  auto batching = [&] {
    for (uint32_t s = 0; s < KERN_MEMO_SLOTS; ++s)
      if (w.memos[KERN_MEMO_SLOTS * siteOp + s].tag != KERN_MEMO_BATCH)
        return false;
    return true;
  };
  for (uint32_t launch = 0; launch < 3; ++launch) {
    if (launch > 0)
      w.reset(2);
    CHECK_FALSE(batching()); // every launch starts with memos again
    for (int call = 0; call < 256; ++call) {
      const Lanes a = bins();
      w.recordMemo(1, flags, a.data(), ~0u, 4, 100 + call, base);
      Lanes off{};
      for (int l = 0; l < 32; ++l)
        off[l] = a[l] - base;
      reference.recordShared(1, off.data(), ~0u, 4, MemoryOpKind::Atomic, AtomicForm::Increment);
    }
    REQUIRE(batching());
    // 40 more, as compiled code writes them: the 32nd fills the batch, which is then costed.
    for (int i = 0; i < 40; ++i) {
      const Lanes a = bins();
      KernBatchedAccess &e = w.view.batch[w.view.batchCount++];
      for (int l = 0; l < 32; ++l)
        e.offsets[l] = a[l] - base;
      e.key = 50 + i;
      e.site = 1;
      e.mask = 0x7fffffffu;
      e.size = 4;
      e.flags = flags;
      if (w.view.batchCount == KERN_BATCH_ACCESSES)
        w.flushBatch();
      reference.recordShared(1, e.offsets, e.mask, 4, MemoryOpKind::Atomic, AtomicForm::Increment);
    }
    CHECK(w.view.batchCount == 8);
    w.endBlock(); // the block's end costs the rest
    CHECK(w.view.batchCount == 0);
    const SharedOpCounters &got = w.set.site(1).sharedOf(MemoryOpKind::Atomic);
    const SharedOpCounters &want = reference.site(1).sharedOf(MemoryOpKind::Atomic);
    CHECK(got == want);
    CHECK(got.steps > got.idealSteps); // the bins conflict
    CHECK(w.set.site(1).atomicsExecuted == reference.site(1).atomicsExecuted);
    // The lowest key of the launch is its sample, whichever way the access was counted.
    CHECK(w.samples[1].key == 50);
    CHECK(w.memosSet.size() <= KERN_MEMO_SLOTS); // the batch tags do not pile up
    reference.clear();
  }
}
