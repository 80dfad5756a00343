// The GPU memory rules behind kern's counters: bank conflicts, coalescing and constant-cache
// serialisation for one warp-level access, with fast paths for the patterns kernels use most.
#include "runtime/counter_rules.h"

#include "runtime/bank_rows.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstring>
#include <numeric>

namespace kern::runtime {

namespace {

constexpr uint32_t kWarpSize = 32;
constexpr uint32_t kHalfWarp = 16;
constexpr uint32_t kWordBytes = 4;

/// Calls f(lane) for every lane set in `mask`, lowest lane first.
template <typename F> inline void forEachLane(uint32_t mask, F &&f) {
  while (mask != 0) {
    f(static_cast<uint32_t>(std::countr_zero(mask)));
    mask &= mask - 1;
  }
}

/// 32-bit words one lane's access covers: sub-word accesses live inside one word.
inline uint32_t wordsPerAccess(uint32_t accessBytes) {
  return accessBytes > kWordBytes ? accessBytes / kWordBytes : 1;
}

// ---------------------------------------------------------------------------------------------
// Shared memory
// ---------------------------------------------------------------------------------------------

/// The most entries sharedAccessCost ever compares at once: 32 words per phase (32 lanes x 1
/// word, 16 x 2 or 8 x 4), 16 lanes per cc1.x half-warp request.
constexpr uint32_t kMaxEntries = 32;

/// The largest number of distinct keys any bank is asked for. keys[i] goes to bank bank[i].
/// Each bank keeps a chain of the keys it has seen, so nothing is sorted and nothing allocated;
/// the worst case (every key in one bank) is 32 x 31 / 2 comparisons. `round`, if given, gets
/// each entry's step: the position of its key among its bank's distinct keys (the lane maps).
uint32_t maxDistinctPerBank(const uint64_t *keys, const uint32_t *bank, uint32_t n,
                            uint8_t *round = nullptr) {
  std::array<int8_t, kMaxSharedBanks> head;
  head.fill(-1);
  std::array<uint8_t, kMaxSharedBanks> count{};
  std::array<int8_t, kMaxEntries> next;
  uint32_t most = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t b = bank[i];
    bool seen = false;
    for (int j = head[b]; j >= 0; j = next[j])
      if (keys[j] == keys[i]) {
        seen = true;
        if (round)
          round[i] = round[j];
        break;
      }
    if (seen)
      continue;
    if (round)
      round[i] = count[b];
    next[i] = head[b];
    head[b] = static_cast<int8_t>(i);
    most = std::max<uint32_t>(most, ++count[b]);
  }
  return most;
}

/// Steps of one cc1.x read request (one half-warp, one 32-bit part), by the procedure of the
/// CUDA Programming Guide 2.0, section 5.1.2.5: "at each step, the subset is built from the
/// remaining addresses that have yet to be serviced using the following procedure: select one
/// of the words pointed to by the remaining addresses as the broadcast word; include in the
/// subset all addresses that are within the broadcast word, and one address for each bank
/// pointed to by the remaining addresses."
///
/// The guide leaves open which word is broadcast; kern takes the word of the lowest-numbered
/// pending thread, the same choice cc1.2 coalescing makes for its segments. "One address for
/// each bank" is one thread: in the guide's Figure 5-8 (right) several threads read one word
/// of bank 5, and the access is 2-way conflicting unless that word is broadcast, so the other
/// readers of a non-broadcast word are not served with the first one. The guide's char
/// example (shared[BaseIndex + tid] conflicts, shared[BaseIndex + 4*tid] does not) follows
/// from the same procedure.
/// `round`, if given, gets each entry's step (the lane maps).
uint32_t halfWarpReadSteps(const uint64_t *word, const uint32_t *bank, uint32_t n,
                           uint8_t *round = nullptr) {
  uint32_t pending = n == 32 ? ~0u : (1u << n) - 1;
  uint32_t steps = 0;
  while (pending != 0) {
    ++steps;
    uint32_t first = static_cast<uint32_t>(std::countr_zero(pending));
    uint64_t broadcast = word[first];
    uint32_t broadcastBank = bank[first];
    uint64_t banksUsed = 0;
    uint32_t served = 0;
    forEachLane(pending, [&](uint32_t i) {
      if (word[i] == broadcast) {
        served |= 1u << i;
      } else if (bank[i] != broadcastBank && !((banksUsed >> bank[i]) & 1)) {
        // A bank other than the broadcast word's serves its lowest pending thread.
        served |= 1u << i;
        banksUsed |= uint64_t{1} << bank[i];
      }
    });
    if (round)
      forEachLane(served, [&](uint32_t i) { round[i] = static_cast<uint8_t>(steps - 1); });
    pending &= ~served;
  }
  return steps;
}

/// The busiest bank of `lanes` lanes reading words w0 + k l at a constant word stride k != 0:
/// every lane has its own word, and lanes l, l' share a bank exactly when
/// (l - l') k = 0 mod banks, i.e. when l = l' mod banks / gcd(k, banks). The busiest bank
/// then holds ceil(lanes / (banks / g)) words (g when lanes == banks): s[2*tid] is 2-way,
/// s[17*tid] conflict-free. No sorting, no broadcast search (all words differ).
uint32_t strideSteps(uint64_t wordStride, uint32_t banks, uint32_t lanes) {
  if ((banks & (banks - 1)) == 0) {
    // Every real bank count is a power of two: gcd and quotients are shifts, not divisions
    // (this runs on every counted shared access).
    const uint64_t r = wordStride & (banks - 1);
    const uint32_t gShift =
        r == 0 ? static_cast<uint32_t>(std::countr_zero(banks)) : std::countr_zero(r);
    const uint32_t periodShift = static_cast<uint32_t>(std::countr_zero(banks)) - gShift;
    return (lanes + (1u << periodShift) - 1) >> periodShift;
  }
  uint32_t g = std::gcd(static_cast<uint32_t>(wordStride % banks), banks);
  uint32_t period = banks / g;
  return (lanes + period - 1) / period;
}

/// Whether lanes 1..31 sit at a constant byte distance from lane 0 (all 32 lanes active);
/// returns the distance (possibly negative, as a two's-complement uint64).
bool constantStride(const uint64_t *a, uint64_t &stride) {
  stride = a[1] - a[0];
  for (uint32_t l = 2; l < kWarpSize; ++l)
    if (a[l] - a[l - 1] != stride)
      return false;
  return true;
}

/// The busiest bank of one word per lane, when the active lanes of `mask` are one run of
/// consecutive lanes whose words advance by a constant stride k (s[tid] under `if (tid < s)`,
/// s[ty][k] in half a warp): k = 0 is one word (1 step), else every word is distinct and
/// strideSteps applies to the run's length. False for any other shape. Offsets must stay below
/// 2^42 so that the words' true values, not just their differences modulo 2^64, advance by k
/// (a bank count that is not a power of two sees the difference).
bool affineRunSteps(const uint64_t *off, uint32_t mask, uint32_t banks, uint32_t &steps,
                    uint64_t &firstWord, uint64_t &wordStride) {
  const uint32_t l0 = static_cast<uint32_t>(std::countr_zero(mask));
  const uint32_t n = static_cast<uint32_t>(std::popcount(mask));
  if ((mask >> l0) != (n == kWarpSize ? ~0u : (1u << n) - 1))
    return false;
  firstWord = off[l0] / kWordBytes;
  wordStride = n > 1 ? off[l0 + 1] / kWordBytes - firstWord : 0;
  uint64_t all = off[l0];
  for (uint32_t l = l0 + 1; l < l0 + n; ++l) {
    all |= off[l];
    if (off[l] / kWordBytes - off[l - 1] / kWordBytes != wordStride)
      return false;
  }
  if (all >> 42)
    return false;
  const uint64_t k = static_cast<int64_t>(wordStride) < 0 ? 0 - wordStride : wordStride;
  steps = k == 0 ? 1 : strideSteps(k, banks, n);
  return true;
}

/// The multicast rule for accesses of one word or less per lane (one phase), on the shapes
/// affineRunSteps names and on a full warp whose two halves are such runs: both halves one word
/// each (s[ty][k] with 16-wide rows: a broadcast per half), or both halves the same run
/// (s[k][tx]: each word read by two lanes). False when the shape is none of these.
bool multicastWordSteps(uint32_t banks, const uint64_t *off, uint32_t mask, uint32_t &steps) {
  uint64_t w0, k0;
  if (mask != ~0u)
    return affineRunSteps(off, mask, banks, steps, w0, k0);
  // A full warp: each half first, then what the two halves make together.
  uint64_t w1, k1;
  uint32_t s0, s1;
  if (!affineRunSteps(off, 0xFFFFu, banks, s0, w0, k0) ||
      !affineRunSteps(off, 0xFFFF0000u, banks, s1, w1, k1))
    return false;
  if (k0 == k1 && w1 == w0 + kHalfWarp * k0) { // one progression over the warp (s[k*tid])
    const uint64_t k = static_cast<int64_t>(k0) < 0 ? 0 - k0 : k0;
    steps = k == 0 ? 1 : strideSteps(k, banks, kWarpSize);
    return true;
  }
  if (k0 == 0 && k1 == 0) {
    // Two words: one step unless they are distinct words of one bank.
    steps = w0 != w1 && w0 % banks == w1 % banks ? 2 : 1;
    return true;
  }
  if (k0 == k1 && w0 == w1) { // the same 16 words twice: multicast serves both readers
    steps = s0;
    return true;
  }
  return false;
}

SharedAccessCost halfWarpCost(uint32_t banks, const uint64_t *off, uint32_t mask,
                              uint32_t accessBytes, bool isWrite) {
  SharedAccessCost cost;
  uint32_t parts = wordsPerAccess(accessBytes);
  std::array<uint64_t, kMaxEntries> key;
  std::array<uint64_t, kMaxEntries> word;
  std::array<uint32_t, kMaxEntries> bank;
  for (uint32_t half = 0; half < 2; ++half) {
    uint32_t hm = (mask >> (half * kHalfWarp)) & 0xFFFFu;
    if (hm == 0)
      continue;
    // A wider access is split into 32-bit requests: part j of a double reads word 2i + j, a
    // word stride of 2 within the request (CUDA Programming Guide 2.0, 5.1.2.5).
    for (uint32_t part = 0; part < parts; ++part) {
      uint32_t n = 0;
      forEachLane(hm, [&](uint32_t l) {
        uint64_t o = off[half * kHalfWarp + l];
        word[n] = o / kWordBytes + (accessBytes >= kWordBytes ? part : 0);
        // Writes have no broadcast: threads writing the same address count once (one write
        // succeeds), but different bytes of one word are different writes to one bank.
        key[n] = accessBytes < kWordBytes ? o : word[n];
        bank[n] = static_cast<uint32_t>(word[n] % banks);
        ++n;
      });
      ++cost.requests;
      ++cost.idealSteps;
      cost.steps += isWrite ? maxDistinctPerBank(key.data(), bank.data(), n)
                            : halfWarpReadSteps(word.data(), bank.data(), n);
    }
  }
  return cost;
}

/// maxDistinctPerBank for entries that are 32-bit word indices in banks word % banks, without
/// a data-dependent branch or a division: per bank, one bit for each of 64 rows above the
/// lowest word. Returns UINT32_MAX where that does not fit (a bank count that is not a power
/// of two, or words more than 64 rows apart); the caller then takes maxDistinctPerBank.
uint32_t maxWordsPerBankRows(const uint64_t *word, uint32_t n, uint32_t banks) {
  if (n == 0)
    return 0;
  if ((banks & (banks - 1)) != 0)
    return UINT32_MAX;
  const uint32_t shift = static_cast<uint32_t>(std::countr_zero(banks));
  uint64_t lo = word[0], hi = word[0];
  for (uint32_t i = 1; i < n; ++i) {
    lo = std::min(lo, word[i]);
    hi = std::max(hi, word[i]);
  }
  lo &= ~uint64_t{banks - 1};
  if (((hi - lo) >> shift) >= 64)
    return UINT32_MAX;
  // Each bank's rows as bits, counted once at the end: a running count per bank made every
  // lane wait for the last update of its bank (21% slower on a warp of random words).
  uint64_t rows[kMaxSharedBanks];
  std::fill(rows, rows + banks, uint64_t{0});
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t d = word[i] - lo;
    rows[d & (banks - 1)] |= uint64_t{1} << (d >> shift);
  }
  uint32_t most = 0;
  for (uint32_t b = 0; b < banks; ++b)
    most = std::max<uint32_t>(most, static_cast<uint32_t>(std::popcount(rows[b])));
  return most;
}

/// The wavefronts of a multicast access, and in `ideal` those of a conflict-free one. Kept apart
/// from the SharedAccessCost it feeds: packing that struct from a large frame made the compiler
/// reload two 32-bit stores as one 64-bit word, which waits for the frame's stores to drain.
[[gnu::noinline]] uint32_t multicastSteps(uint32_t banks, const uint64_t *off, uint32_t mask,
                                          uint32_t accessBytes, uint32_t &ideal) {
  uint32_t words = wordsPerAccess(accessBytes);
  uint32_t lanesPerPhase = kWarpSize / words; // 32, 16 (64-bit) or 8 (128-bit)
  uint32_t phaseMask = lanesPerPhase == 32 ? ~0u : (1u << lanesPerPhase) - 1;
  std::array<uint64_t, kMaxEntries> word;
  std::array<uint32_t, kMaxEntries> bank;
  uint32_t total = 0, phases = 0;
  for (uint32_t phase = 0; phase < words; ++phase) {
    uint32_t pm = (mask >> (phase * lanesPerPhase)) & phaseMask;
    if (pm == 0)
      continue;
    uint32_t n = 0;
    forEachLane(pm, [&](uint32_t l) {
      uint64_t first = off[phase * lanesPerPhase + l] / kWordBytes;
      // Lanes touching one 32-bit word share it, whether they read it whole or a byte of it
      // (multicast; CUDA C Programming Guide 3.2, G.4.3).
      for (uint32_t j = 0; j < words; ++j)
        word[n++] = first + j;
    });
    ++phases;
    uint32_t steps = maxWordsPerBankRows(word.data(), n, banks);
    if (steps == UINT32_MAX) {
      for (uint32_t i = 0; i < n; ++i)
        bank[i] = static_cast<uint32_t>(word[i] % banks);
      steps = maxDistinctPerBank(word.data(), bank.data(), n);
    }
    total += steps;
  }
  ideal = phases;
  return total;
}

/// A 64- or 128-bit shared load on the multicast rule (HARDWARE-MODEL.md, "Wide shared loads",
/// measured on sm_90: tests/gpu/realcode/wide_shared.cu). The active lanes, in order, make one
/// entry each, except that a lane reading the same address as the active lane before it joins
/// that lane's entry; a step carries 128 bytes of entries (16 of 64 bits, 8 of 128 bits), and a
/// 128-bit load counts the entries of each half-warp apart. The steps are those chunks, or the
/// bank rows of the distinct words the warp reads where there are more of those (a conflict).
/// `round`, if given, gets each lane's step for the lane maps.
uint32_t wideLoadSteps(uint32_t banks, const uint64_t *off, uint32_t mask, uint32_t accessBytes,
                       uint32_t &ideal, uint8_t *laneRound = nullptr) {
  const uint32_t words = wordsPerAccess(accessBytes);
  const uint32_t perStep = 128 / accessBytes;
  const uint32_t groups = accessBytes == 16 ? 2 : 1, lanesPerGroup = kWarpSize / groups;
  std::array<uint8_t, kWarpSize> chunk{};
  uint32_t chunks = 0;
  for (uint32_t g = 0; g < groups; ++g) {
    const uint32_t gm = mask & ((groups == 1 ? ~0u : 0xFFFFu) << (g * lanesPerGroup));
    uint32_t entries = 0;
    uint64_t last = UINT64_MAX;
    forEachLane(gm, [&](uint32_t l) {
      if (off[l] != last)
        ++entries;
      last = off[l];
      chunk[l] = static_cast<uint8_t>(chunks + (entries - 1) / perStep);
    });
    chunks += (entries + perStep - 1) / perStep;
  }
  // The bank rows of the distinct words (each lane's `words` words; a word read twice is one):
  // a word's row is its place among its bank's distinct words, in ascending order.
  std::array<uint64_t, kWarpSize * 4> all;
  uint32_t n = 0;
  forEachLane(mask, [&](uint32_t l) {
    for (uint32_t part = 0; part < words; ++part)
      all[n++] = off[l] / kWordBytes + part;
  });
  std::sort(all.begin(), all.begin() + n);
  n = static_cast<uint32_t>(std::unique(all.begin(), all.begin() + n) - all.begin());
  std::array<uint8_t, kMaxSharedBanks> perBank{};
  std::array<uint8_t, kWarpSize * 4> row;
  uint32_t rows = 0;
  for (uint32_t i = 0; i < n; ++i) {
    row[i] = perBank[all[i] % banks]++;
    rows = std::max<uint32_t>(rows, perBank[all[i] % banks]);
  }
  ideal = chunks;
  const uint32_t steps = std::max(chunks, rows);
  if (laneRound)
    forEachLane(mask, [&](uint32_t l) {
      if (steps == chunks) {
        laneRound[l] = chunk[l];
        return;
      }
      uint8_t r = 0; // the step of its last word
      for (uint32_t part = 0; part < words; ++part) {
        const uint64_t w = off[l] / kWordBytes + part;
        r = std::max(r, row[std::lower_bound(all.begin(), all.begin() + n, w) - all.begin()]);
      }
      laneRound[l] = r;
    });
  return steps;
}

SharedAccessCost multicastCost(uint32_t banks, const uint64_t *off, uint32_t mask,
                               uint32_t accessBytes, bool isWrite) {
  SharedAccessCost cost;
  cost.requests = 1;
  uint32_t ideal = 0;
  cost.steps = !isWrite && accessBytes > kWordBytes
                   ? wideLoadSteps(banks, off, mask, accessBytes, ideal)
                   : multicastSteps(banks, off, mask, accessBytes, ideal);
  cost.idealSteps = ideal;
  return cost;
}

} // namespace

SharedAccessCost sharedAccessCost(SharedBankRule rule, uint32_t banks, const uint64_t *off,
                                  uint32_t activeMask, uint32_t accessBytes, bool isWrite) {
  assert(banks >= 1 && banks <= kMaxSharedBanks && "bank count out of range");
  assert((accessBytes == 1 || accessBytes == 2 || accessBytes == 4 || accessBytes == 8 ||
          accessBytes == 16) &&
         "shared access size must be 1, 2, 4, 8 or 16 bytes");
  if (activeMask == 0)
    return {};
  bool halfWarp = rule == SharedBankRule::HalfWarp;

  // Fast paths for accesses of one word or less per lane and for cc1.x half-warps: runs of
  // lanes at a constant word stride (s[tid] under `if (tid < s)`), and full warps made of two
  // such halves (s[ty][k] and s[k][tx] with 16-wide rows). They take most counted shared
  // accesses with one pass over the lanes, and give exactly what the general procedure gives.
  if (!halfWarp && accessBytes <= kWordBytes) {
    uint32_t steps;
    if (multicastWordSteps(banks, off, activeMask, steps))
      return {1, steps, 1};
    // Data-dependent words (a histogram's bins): the busiest bank's distinct words at once.
    if (banks == 32 && (steps = busiestBankOf32(off, activeMask)) != UINT32_MAX)
      return {1, steps, 1};
  } else if (halfWarp && (accessBytes >= kWordBytes || !isWrite)) {
    // Each half-warp with an active lane is a request per 32-bit part; when its active lanes
    // are a run at a constant word stride, every part has the same busiest bank (part j reads
    // the words of part 0 plus j). Sub-word writes are left to the general path: their keys
    // are bytes, not words.
    SharedAccessCost cost;
    const uint32_t parts = wordsPerAccess(accessBytes);
    bool fast = true;
    for (uint32_t half = 0; half < 2 && fast; ++half) {
      const uint32_t hm = activeMask & (0xFFFFu << (half * kHalfWarp));
      uint32_t steps = 0;
      uint64_t w, k;
      if (hm == 0)
        continue;
      fast = affineRunSteps(off, hm, banks, steps, w, k);
      cost.requests += parts;
      cost.idealSteps += parts;
      cost.steps += parts * steps;
    }
    if (fast)
      return cost;
  }

  // Fast paths: a full warp at a constant stride of whole words from a word-aligned offset
  // (s[tid], s[k*tid], s[3], d[tid], ((float4*)s)[tid]): every lane's words are distinct
  // unless the stride is 0, so the busiest bank follows from the stride alone.
  uint64_t stride = 0;
  if (activeMask == ~0u && accessBytes >= kWordBytes && off[0] % kWordBytes == 0 &&
      constantStride(off, stride) && stride % kWordBytes == 0) {
    uint32_t words = wordsPerAccess(accessBytes);
    uint64_t k = (static_cast<int64_t>(stride) < 0 ? 0 - stride : stride) / kWordBytes;
    if (halfWarp) {
      // Each half-warp's part j reads words w0 + j + k*l, l < 16: one word for all when
      // k = 0 (broadcast read, or one surviving write), else distinct words at stride k.
      uint32_t requests = 2 * words;
      uint32_t perRequest = k == 0 ? 1 : strideSteps(k, banks, kHalfWarp);
      return {requests, requests * perRequest, requests};
    }
    if (k == 0 && !isWrite) // one address: a step, two for 128 bits (wideLoadSteps)
      return {1, words == 4 ? 2u : 1u, words == 4 ? 2u : 1u};
    if (k == 0) // every phase writes the same `words` consecutive words
      return {1, words * strideSteps(1, banks, words), words};
    if (words == 1)
      return {1, strideSteps(k, banks, kWarpSize), 1};
    if (k == words && !isWrite) // contiguous: 32 entries, one bank row per `banks` words
      return {1, std::max(words, strideSteps(1, banks, kWarpSize * words)), words};
    if (k == words) // contiguous: each phase writes 32 consecutive words
      return {1, words * strideSteps(1, banks, kWarpSize), words};
  }
  return sharedAccessCostGeneral(rule, banks, off, activeMask, accessBytes, isWrite);
}

SharedAccessCost sharedAccessCostGeneral(SharedBankRule rule, uint32_t banks, const uint64_t *off,
                                         uint32_t activeMask, uint32_t accessBytes, bool isWrite) {
  if (activeMask == 0)
    return {};
  return rule == SharedBankRule::HalfWarp
             ? halfWarpCost(banks, off, activeMask, accessBytes, isWrite)
             : multicastCost(banks, off, activeMask, accessBytes, isWrite);
}

SharedLaneMap sharedLaneMap(SharedBankRule rule, uint32_t banks, const uint64_t *off, uint32_t mask,
                            uint32_t accessBytes, bool isWrite) {
  SharedLaneMap map;
  std::memset(map.bank, 255, sizeof map.bank);
  std::memset(map.round, 255, sizeof map.round);
  std::memset(map.serves, 0, sizeof map.serves);
  map.cost = sharedAccessCostGeneral(rule, banks, off, mask, accessBytes, isWrite);
  forEachLane(mask, [&](uint32_t l) {
    map.bank[l] = static_cast<uint8_t>(off[l] / kWordBytes % banks);
    map.round[l] = 0;
  });
  const uint32_t parts = wordsPerAccess(accessBytes);
  std::array<uint64_t, kMaxEntries> key, word;
  std::array<uint32_t, kMaxEntries> bank, lane;
  std::array<uint8_t, kMaxEntries> round;
  uint32_t base = 0; // steps of the requests or phases before
  auto serve = [&](uint32_t n, uint32_t steps) {
    for (uint32_t i = 0; i < n; ++i) {
      map.round[lane[i]] = std::max<uint8_t>(map.round[lane[i]], uint8_t(base + round[i]));
      map.serves[base + round[i]] |= 1u << lane[i];
    }
    base += steps;
  };
  if (rule == SharedBankRule::HalfWarp) { // as halfWarpCost
    for (uint32_t half = 0; half < 2; ++half)
      for (uint32_t part = 0; part < parts; ++part) {
        uint32_t n = 0;
        forEachLane(mask & (0xFFFFu << (half * kHalfWarp)), [&](uint32_t l) {
          word[n] = off[l] / kWordBytes + (accessBytes >= kWordBytes ? part : 0);
          key[n] = accessBytes < kWordBytes ? off[l] : word[n];
          bank[n] = static_cast<uint32_t>(word[n] % banks);
          lane[n++] = l;
        });
        if (n)
          serve(n, isWrite ? maxDistinctPerBank(key.data(), bank.data(), n, round.data())
                           : halfWarpReadSteps(word.data(), bank.data(), n, round.data()));
      }
    return map;
  }
  if (!isWrite && parts > 1) { // as wideLoadSteps
    uint32_t ideal = 0;
    std::array<uint8_t, kWarpSize> r{};
    wideLoadSteps(banks, off, mask, accessBytes, ideal, r.data());
    forEachLane(mask, [&](uint32_t l) {
      map.round[l] = r[l];
      map.serves[r[l]] |= 1u << l;
    });
    return map;
  }
  const uint32_t lanesPerPhase = kWarpSize / parts; // as multicastSteps
  for (uint32_t phase = 0; phase < parts; ++phase) {
    uint32_t n = 0;
    forEachLane(
        mask & ((lanesPerPhase == 32 ? ~0u : (1u << lanesPerPhase) - 1) << (phase * lanesPerPhase)),
        [&](uint32_t l) {
          for (uint32_t j = 0; j < parts; ++j) {
            word[n] = off[l] / kWordBytes + j;
            bank[n] = static_cast<uint32_t>(word[n] % banks);
            lane[n++] = l;
          }
        });
    if (n)
      serve(n, maxDistinctPerBank(word.data(), bank.data(), n, round.data()));
  }
  return map;
}

// ---------------------------------------------------------------------------------------------
// Global memory
// ---------------------------------------------------------------------------------------------

namespace {

constexpr uint32_t kSectorShift = 5; // 32-byte sectors
constexpr uint32_t kLineShift = 7;   // 128-byte lines

/// Distinct 32-byte sectors and 128-byte lines the active lanes' accesses touch.
struct Footprint {
  uint32_t sectors = 0;
  uint32_t lines = 0;
};

/// Distinct (1 << shift)-byte units of a full warp at a constant non-negative byte stride
/// `stride` from `a0`, in closed form where the pattern allows: all lanes at one address,
/// contiguous lanes (stride = size), or lanes in units of their own (stride a multiple of the
/// unit, at least as long as one lane's units). Returns false for the other strides.
bool closedFormUnits(uint64_t a0, uint64_t stride, uint32_t size, uint32_t shift, uint32_t &units) {
  uint64_t unit = uint64_t{1} << shift;
  uint64_t perLane = ((a0 + size - 1) >> shift) - (a0 >> shift) + 1;
  if (stride == 0) {
    units = static_cast<uint32_t>(perLane);
  } else if (stride == size) {
    units =
        static_cast<uint32_t>(((a0 + uint64_t{kWarpSize} * size - 1) >> shift) - (a0 >> shift) + 1);
  } else if (stride % unit == 0 && stride >= perLane * unit) {
    units = static_cast<uint32_t>(kWarpSize * perLane);
  } else {
    return false;
  }
  return true;
}

/// Counts sectors and lines in one pass when the lanes' first units never decrease in lane
/// order (ascending strides, partial masks of those): every unit up to the highest one seen
/// is then already counted from the current lane's first unit on. Otherwise the units are
/// sorted in fixed arrays (32 lanes x at most 2 units: an access of 16 bytes or less spans at
/// most two 32-byte units).
Footprint footprint(const uint64_t *addr, uint32_t mask, uint32_t accessBytes) {
  uint64_t stride = 0;
  Footprint f;
  if (mask == ~0u && constantStride(addr, stride) && static_cast<int64_t>(stride) >= 0 &&
      closedFormUnits(addr[0], stride, accessBytes, kSectorShift, f.sectors) &&
      closedFormUnits(addr[0], stride, accessBytes, kLineShift, f.lines))
    return f;

  struct Counter {
    uint32_t shift;
    uint32_t count = 0;
    uint64_t highest = 0;
    uint64_t prevFirst = 0;
    bool add(uint64_t a, uint64_t last, bool any) {
      uint64_t first = a >> shift;
      last >>= shift;
      if (any && first < prevFirst)
        return false;
      if (!any || first > highest) {
        count += static_cast<uint32_t>(last - first + 1);
        highest = last;
      } else if (last > highest) {
        count += static_cast<uint32_t>(last - highest);
        highest = last;
      }
      prevFirst = first;
      return true;
    }
  };
  Counter sectors{kSectorShift}, lines{kLineShift};
  bool any = false;
  bool monotone = true;
  for (uint32_t m = mask; m != 0 && monotone; m &= m - 1) {
    uint64_t a = addr[std::countr_zero(m)];
    uint64_t last = a + accessBytes - 1;
    monotone = sectors.add(a, last, any) && lines.add(a, last, any);
    any = true;
  }
  if (monotone)
    return {sectors.count, lines.count};

  auto sortedDistinct = [&](uint32_t shift) {
    std::array<uint64_t, 2 * kWarpSize> units;
    uint32_t n = 0;
    forEachLane(mask, [&](uint32_t l) {
      uint64_t first = addr[l] >> shift;
      uint64_t last = (addr[l] + accessBytes - 1) >> shift;
      for (uint64_t u = first; u <= last && n < units.size(); ++u)
        units[n++] = u;
    });
    std::sort(units.begin(), units.begin() + n);
    return static_cast<uint32_t>(std::unique(units.begin(), units.begin() + n) - units.begin());
  };
  return {sortedDistinct(kSectorShift), sortedDistinct(kLineShift)};
}

/// The distinct bytes the active lanes of `mask` access, each byte once however many lanes touch
/// it: what Nsight Compute counts as a warp's data bytes (smsp__sass_data_bytes_mem_global,
/// measured on an H200: a load of one address by all 32 lanes is 4 bytes, in[i/2] 64 bytes).
/// One pass when the lanes' addresses never decrease in lane order, else a sort of at most 32
/// addresses in a fixed array.
uint64_t distinctBytes(const uint64_t *addr, uint32_t mask, uint32_t accessBytes) {
  uint64_t stride = 0;
  if (mask == ~0u && constantStride(addr, stride)) {
    const uint64_t k = static_cast<int64_t>(stride) < 0 ? 0 - stride : stride;
    return k >= accessBytes ? uint64_t{kWarpSize} * accessBytes : (kWarpSize - 1) * k + accessBytes;
  }
  // The lanes' addresses in ascending order (already so for most patterns), then bytes
  // [a, a + size) of each merged with the bytes covered so far.
  std::array<uint64_t, kWarpSize> sorted;
  uint32_t n = 0;
  bool monotone = true;
  forEachLane(mask, [&](uint32_t l) {
    monotone = monotone && (n == 0 || addr[l] >= sorted[n - 1]);
    sorted[n++] = addr[l];
  });
  if (!monotone)
    std::sort(sorted.begin(), sorted.begin() + n);
  uint64_t total = 0, coveredEnd = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t end = sorted[i] + accessBytes;
    if (i == 0 || sorted[i] >= coveredEnd)
      total += accessBytes;
    else if (end > coveredEnd)
      total += end - coveredEnd;
    coveredEnd = i == 0 ? end : std::max(coveredEnd, end);
  }
  return total;
}

/// cc1.0 (CUDA Programming Guide 2.0, 5.1.2.1; HARDWARE-MODEL.md): a half-warp coalesces
/// only when the access is 4, 8 or 16 bytes and every active thread k accesses word k of one
/// segment of 16 x size bytes aligned to its size; inactive threads may be anywhere.
/// `lanes`, if given, gets the transactions lane by lane (the lane maps).
void cc10HalfWarp(const uint64_t *addr, uint32_t hm, uint32_t s, GlobalAccessCost &cost,
                  GlobalLaneMap *lanes = nullptr, uint32_t laneBase = 0) {
  uint32_t active = static_cast<uint32_t>(std::popcount(hm));
  bool coalesced = s == 4 || s == 8 || s == 16;
  if (coalesced) {
    uint32_t k0 = static_cast<uint32_t>(std::countr_zero(hm));
    uint64_t segment = 16ull * s;
    uint64_t base = addr[k0] - uint64_t{k0} * s;
    coalesced = addr[k0] >= uint64_t{k0} * s && base % segment == 0;
    forEachLane(hm,
                [&](uint32_t k) { coalesced = coalesced && addr[k] == base + uint64_t{k} * s; });
  }
  if (coalesced) {
    // One 64 B transaction (s = 4), one 128 B (s = 8), two 128 B (s = 16).
    if (lanes) {
      const uint64_t base = addr[std::countr_zero(hm)] - std::countr_zero(hm) * uint64_t{s};
      for (uint32_t t = 0; t < (s == 16 ? 2u : 1u); ++t)
        lanes->add(base + 128 * t, s == 4 ? 64 : 128);
      forEachLane(hm, [&](uint32_t k) {
        lanes->transaction[laneBase + k] =
            static_cast<uint8_t>(lanes->transactionCount - (s == 16 && k < 8 ? 2 : 1));
      });
    }
    cost.transactions += s == 16 ? 2 : 1;
    cost.bytesMoved += s == 4 ? 64 : s == 8 ? 128 : 256;
  } else {
    // One transaction per active thread, 32 B each (or the access size if larger).
    if (lanes)
      forEachLane(hm, [&](uint32_t k) {
        const uint64_t bytes = std::max<uint32_t>(32, s);
        lanes->transaction[laneBase + k] = static_cast<uint8_t>(lanes->transactionCount);
        lanes->add(addr[k] & ~(bytes - 1), static_cast<uint32_t>(bytes));
      });
    cost.transactions += active;
    cost.bytesMoved += uint64_t{active} * std::max<uint32_t>(32, s);
  }
}

/// cc1.2 (CUDA Programming Guide 2.x/3.x, G.3.2.2): until every active thread is served, take
/// the segment holding the lowest-numbered pending thread's address (32 B for 1-byte words,
/// 64 B for 2-byte, 128 B otherwise), serve every pending thread whose address is in it, and
/// shrink the transaction 128 -> 64 B if only its lower or upper half is used, then 64 -> 32 B
/// likewise.
void cc12HalfWarp(const uint64_t *addr, uint32_t hm, uint32_t s, GlobalAccessCost &cost,
                  GlobalLaneMap *lanes = nullptr, uint32_t laneBase = 0) {
  uint64_t segSize = s == 1 ? 32 : s == 2 ? 64 : 128;
  uint32_t pending = hm;
  while (pending != 0) {
    uint32_t first = static_cast<uint32_t>(std::countr_zero(pending));
    uint64_t segStart = addr[first] & ~(segSize - 1);
    uint32_t used = 0; // bit c: 32-byte chunk c of the segment holds a requested byte
    uint32_t served = 0;
    forEachLane(pending, [&](uint32_t l) {
      uint64_t a = addr[l];
      if (a < segStart || a - segStart >= segSize)
        return;
      served |= 1u << l;
      uint64_t lo = (a - segStart) / 32;
      uint64_t hi = std::min(a + s - 1 - segStart, segSize - 1) / 32;
      for (uint64_t c = lo; c <= hi; ++c)
        used |= 1u << c;
    });
    pending &= ~served;

    uint64_t size = segSize;
    uint32_t window = used; // chunks of the transaction, relative to its start
    if (size == 128 && (window & 0b1100u) == 0) {
      size = 64;
    } else if (size == 128 && (window & 0b0011u) == 0) {
      size = 64;
      window >>= 2;
    }
    uint64_t start = segStart + (window != used ? 64 : 0);
    if (size == 64 && (window & 0b10u) == 0) {
      size = 32;
    } else if (size == 64 && (window & 0b01u) == 0) {
      size = 32;
      start += 32;
    }
    if (lanes) {
      forEachLane(served, [&](uint32_t l) {
        lanes->transaction[laneBase + l] = static_cast<uint8_t>(lanes->transactionCount);
      });
      lanes->add(start, static_cast<uint32_t>(size));
    }
    ++cost.transactions;
    cost.bytesMoved += size;
  }
}

} // namespace

GlobalAccessCost globalAccessCost(GlobalCoalescingRule rule, const uint64_t *addr,
                                  uint32_t activeMask, uint32_t accessBytes, bool isWrite) {
  assert((accessBytes == 1 || accessBytes == 2 || accessBytes == 4 || accessBytes == 8 ||
          accessBytes == 16) &&
         "global access size must be 1, 2, 4, 8 or 16 bytes");
  GlobalAccessCost cost;
  if (activeMask == 0)
    return cost;
  Footprint f = footprint(addr, activeMask, accessBytes);
  cost.sectors = f.sectors;
  cost.lines128 = f.lines;
  auto roundUp = [](uint64_t bytes, uint64_t unit) { return (bytes + unit - 1) / unit * unit; };

  switch (rule) {
  case GlobalCoalescingRule::Cc10:
  case GlobalCoalescingRule::Cc12:
    for (uint32_t half = 0; half < 2; ++half) {
      uint32_t hm = (activeMask >> (half * kHalfWarp)) & 0xFFFFu;
      if (hm == 0)
        continue;
      ++cost.requests;
      const uint64_t *a = addr + half * kHalfWarp;
      const uint64_t movedBefore = cost.bytesMoved;
      if (rule == GlobalCoalescingRule::Cc10)
        cc10HalfWarp(a, hm, accessBytes, cost);
      else
        cc12HalfWarp(a, hm, accessBytes, cost);
      // Each half-warp is its own request: its distinct bytes, at most what its transactions
      // moved (a misaligned access, which a GPU refuses, may reach past cc1.2's segment).
      const uint64_t used =
          std::min(distinctBytes(a, hm, accessBytes), cost.bytesMoved - movedBefore);
      cost.bytesRequested += used;
      // The best a half-warp can do: cc1.0's one coalesced transaction of 16 x size (64, 128
      // or 2 x 128 B), or one transaction per thread for 1- and 2-byte words, which never
      // coalesce (a lone thread's 32 B transaction is less); cc1.2 its bytes in 32 B segments.
      const uint64_t best = rule == GlobalCoalescingRule::Cc12 ? roundUp(used, 32)
                            : accessBytes >= 4 ? std::max<uint64_t>(64, 16ull * accessBytes)
                                               : uint64_t{32} * std::popcount(hm);
      cost.bytesIdeal += std::min(best, cost.bytesMoved - movedBefore);
    }
    break;
  case GlobalCoalescingRule::Cc2x:
    // Loads go through L1 in 128-byte lines; stores bypass L1 and are written to L2 in 32-byte
    // segments (CUDA C Programming Guide 3.2, G.4.2).
    cost.requests = 1;
    cost.transactions = isWrite ? cost.sectors : cost.lines128;
    cost.bytesMoved = isWrite ? uint64_t{cost.sectors} * 32 : uint64_t{cost.lines128} * 128;
    cost.bytesRequested = distinctBytes(addr, activeMask, accessBytes);
    cost.bytesIdeal = roundUp(cost.bytesRequested, isWrite ? 32 : 128);
    break;
  case GlobalCoalescingRule::Sectors:
    // One request per warp instruction, moving the distinct 32-byte sectors it touches (CUDA
    // C++ Best Practices Guide, "Coalesced Access to Global Memory").
    cost.requests = 1;
    cost.transactions = cost.sectors;
    cost.bytesMoved = uint64_t{cost.sectors} * 32;
    cost.bytesRequested = distinctBytes(addr, activeMask, accessBytes);
    cost.bytesIdeal = roundUp(cost.bytesRequested, 32);
    break;
  }
  return cost;
}

// ---------------------------------------------------------------------------------------------
// Constant memory
// ---------------------------------------------------------------------------------------------

namespace {

/// Distinct addresses among the lanes of `mask`: one pass when they never decrease in lane
/// order (same address, ascending), else a sort of at most 32 values in a fixed array.
uint32_t distinctAddresses(const uint64_t *addr, uint32_t mask) {
  uint32_t count = 0;
  uint64_t prev = 0;
  bool any = false;
  bool monotone = true;
  forEachLane(mask, [&](uint32_t l) {
    if (any && addr[l] < prev)
      monotone = false;
    count += !any || addr[l] != prev;
    prev = addr[l];
    any = true;
  });
  if (monotone)
    return count;
  std::array<uint64_t, kWarpSize> v;
  uint32_t n = 0;
  forEachLane(mask, [&](uint32_t l) { v[n++] = addr[l]; });
  std::sort(v.begin(), v.begin() + n);
  return static_cast<uint32_t>(std::unique(v.begin(), v.begin() + n) - v.begin());
}

} // namespace

uint32_t constantAccessSerialization(bool halfWarp, const uint64_t *addresses,
                                     uint32_t activeMask) {
  if (!halfWarp)
    return distinctAddresses(addresses, activeMask);
  return distinctAddresses(addresses, activeMask & 0xFFFFu) +
         distinctAddresses(addresses, activeMask & 0xFFFF0000u);
}

GlobalLaneMap globalLaneMap(GlobalCoalescingRule rule, const uint64_t *addr, uint32_t mask,
                            uint32_t accessBytes, bool isWrite) {
  GlobalLaneMap map;
  std::memset(map.transaction, 255, sizeof map.transaction);
  map.cost = globalAccessCost(rule, addr, mask, accessBytes, isWrite);
  if (rule == GlobalCoalescingRule::Cc10 || rule == GlobalCoalescingRule::Cc12) {
    GlobalAccessCost unused;
    for (uint32_t half = 0; half < 2; ++half) {
      const uint32_t hm = (mask >> (half * kHalfWarp)) & 0xFFFFu;
      if (hm == 0)
        continue;
      if (rule == GlobalCoalescingRule::Cc10)
        cc10HalfWarp(addr + half * kHalfWarp, hm, accessBytes, unused, &map, half * kHalfWarp);
      else
        cc12HalfWarp(addr + half * kHalfWarp, hm, accessBytes, unused, &map, half * kHalfWarp);
    }
    return map;
  }
  // Cc2x loads: 128-byte lines; Cc2x stores and the Sectors rule: 32-byte sectors. The units a
  // lane touches, in ascending order; a lane names its first byte's.
  const uint32_t shift = rule == GlobalCoalescingRule::Cc2x && !isWrite ? kLineShift : kSectorShift;
  std::array<uint64_t, 2 * kWarpSize> units;
  uint32_t n = 0;
  forEachLane(mask, [&](uint32_t l) {
    for (uint64_t u = addr[l] >> shift; u <= (addr[l] + accessBytes - 1) >> shift; ++u)
      units[n++] = u;
  });
  std::sort(units.begin(), units.begin() + n);
  n = static_cast<uint32_t>(std::unique(units.begin(), units.begin() + n) - units.begin());
  for (uint32_t i = 0; i < n; ++i)
    map.add(units[i] << shift, 1u << shift);
  forEachLane(mask, [&](uint32_t l) {
    map.transaction[l] = static_cast<uint8_t>(
        std::lower_bound(units.begin(), units.begin() + n, addr[l] >> shift) - units.begin());
  });
  return map;
}

} // namespace kern::runtime
