// Checked mode: kern_rt_check_access, the shared-memory race detector behind it, and the shadow
// that says which bytes of device memory were ever written.
#include "runtime/checked.h"

#include "backend/abi.h"
#include "runtime/scheduler.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>

namespace kern::runtime {

// ---- InitShadow ------------------------------------------------------------------------------

InitShadow::InitShadow(uint64_t lo, uint64_t bytes) : lo_(lo), bytes_(bytes) {
  if (!lo || !bytes)
    return;
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p != MAP_FAILED)
    base_ = static_cast<uint8_t *>(p);
}

InitShadow::~InitShadow() {
  if (base_)
    munmap(base_, bytes_);
}

void InitShadow::mark(uint64_t addr, uint64_t n) {
  if (covers(addr, n))
    std::memset(at(addr), 1, n);
}

void InitShadow::clear(uint64_t addr, uint64_t n) {
  if (covers(addr, n))
    std::memset(at(addr), 0, n);
}

void InitShadow::copy(uint64_t dst, uint64_t src, uint64_t n) {
  if (covers(dst, n) && covers(src, n))
    std::memmove(at(dst), at(src), n);
}

// ---- SharedWords -----------------------------------------------------------------------------

void SharedWords::grow(size_t n, bool clear) {
  n = std::max(n, size()) + kPad;
  for (auto *v : {&wStamp, &rStamp, &r2Stamp, &wSite, &rSite, &r2Site, &wWho, &rWho, &r2Who}) {
    if (clear)
      v->assign(n, 0);
    else
      v->resize(n);
  }
}

// ---- Checker ---------------------------------------------------------------------------------

CheckedWorker *const *Checker::beginLaunch(unsigned workers) {
  launch_.minRaceBlock.store(UINT64_MAX);
  launch_.minUninitBlock.store(UINT64_MAX);
  while (workers_.size() < workers)
    workers_.push_back(std::make_unique<CheckedWorker>());
  pointers_.clear();
  for (auto &w : workers_) {
    w->launch = &launch_;
    w->init = &init_;
    w->race = RaceRecord{};
    w->uninit = UninitRecord{};
    pointers_.push_back(w.get());
  }
  return pointers_.data();
}

Checker::Findings Checker::endLaunch() {
  Findings f;
  for (auto &w : workers_) {
    if (w->race.blockLinear < f.race.blockLinear)
      f.race = w->race;
    if (w->uninit.blockLinear < f.uninit.blockLinear)
      f.uninit = w->uninit;
  }
  return f;
}

// ---- the scheduler's calls -------------------------------------------------------------------

void checkedBlockBegin(CheckedWorker *worker, uint64_t linear, const uint32_t blockIdx[3],
                       const uint32_t blockDim[3], uint64_t sharedBytes) {
  CheckedWorker *w = worker;
  w->blockLinear = linear;
  std::copy(blockIdx, blockIdx + 3, w->blockIdx);
  std::copy(blockDim, blockDim + 3, w->blockDim);
  // Blocks of one worker come in increasing order: once a block of this launch had a finding,
  // a higher block's finding can never be the one reported.
  w->checkRaces = linear < std::min(w->race.blockLinear,
                                    w->launch->minRaceBlock.load(std::memory_order_relaxed));
  w->checkUninit = linear < std::min(w->uninit.blockLinear,
                                     w->launch->minUninitBlock.load(std::memory_order_relaxed));
  // Whole words: a word's cells are all there even when the size is not a multiple of 4.
  const uint64_t words = (sharedBytes + 3) / 4;
  if (w->words.size() < words) {
    w->words.grow(words, false);
    w->bytes.resize(4 * words);
  }
  if (w->split.size() < words)
    w->split.resize(words);
  std::fill(w->split.begin(), w->split.begin() + static_cast<std::ptrdiff_t>(words), 0);
  w->anySplit = false;
  // Stamps are 32 bits: well before they wrap, start the cells afresh (between blocks, when
  // no cell matters any more).
  if (w->stamp > (1u << 31)) {
    w->words.grow(w->words.size(), true);
    std::fill(w->bytes.begin(), w->bytes.end(), SharedCell{});
    w->stamp = 0;
  }
  w->barrierStamp = ++w->stamp;
  w->blockStamp = w->barrierStamp;
}

void checkedBarrier(CheckedWorker *worker) {
  CheckedWorker *w = worker;
  w->barrierStamp = ++w->stamp;
}

namespace {

constexpr uint16_t kAtomicWho = 0x8000;

uint32_t warpOf(uint16_t who) { return (who & 0x7fffu) >> 5; }
uint32_t laneOf(uint16_t who) { return who & 31u; }

void threadOf(const CheckedWorker &w, uint32_t warp, uint32_t lane, uint32_t out[3]) {
  const uint64_t t = uint64_t(warp) * KERN_WARP_SIZE + lane;
  out[0] = static_cast<uint32_t>(t % w.blockDim[0]);
  out[1] = static_cast<uint32_t>(t / w.blockDim[0] % w.blockDim[1]);
  out[2] = static_cast<uint32_t>(t / (uint64_t(w.blockDim[0]) * w.blockDim[1]));
}

void lowerTo(std::atomic<uint64_t> &min, uint64_t v) {
  uint64_t cur = min.load(std::memory_order_relaxed);
  while (v < cur && !min.compare_exchange_weak(cur, v))
    ;
}

void recordRace(CheckedWorker &w, KernWarpCtx *ctx, RaceKind kind, uint16_t first,
                uint32_t firstSite, uint32_t site, uint32_t lane, bool atomic, uint64_t offset,
                bool sameInstruction) {
  RaceRecord &r = w.race;
  r.blockLinear = w.blockLinear;
  std::copy(w.blockIdx, w.blockIdx + 3, r.blockIdx);
  r.kind = kind;
  r.sameInstruction = sameInstruction;
  r.firstSite = firstSite;
  r.secondSite = site;
  r.firstWarp = warpOf(first);
  r.firstLane = laneOf(first);
  r.firstAtomic = (first & kAtomicWho) != 0;
  threadOf(w, r.firstWarp, r.firstLane, r.firstThread);
  r.secondWarp = ctx->warpId;
  r.secondLane = lane;
  r.secondAtomic = atomic;
  for (int d = 0; d < 3; ++d)
    r.secondThread[d] = ctx->threadIdx[d][lane];
  r.offset = offset;
  w.checkRaces = false; // the first race of the block is the one reported
  lowerTo(w.launch->minRaceBlock, w.blockLinear);
}

/// A read (or atomic) of shared memory at offset `byte` that no thread of the block wrote
/// since it started: CUDA leaves shared memory uninitialised, so it holds an earlier block's
/// data or anything.
void recordSharedUninit(CheckedWorker &w, KernWarpCtx *ctx, uint32_t site, uint32_t lane,
                        uint64_t byte, bool atomic);

/// What one byte of shared memory (cell `c`, at offset `byte`) says about an access by `lane`
/// of this warp. Returns false once a race was recorded.
bool checkCell(CheckedWorker &w, KernWarpCtx *ctx, SharedCell &c, uint64_t byte, uint32_t site,
               uint32_t lane, uint32_t op, const uint64_t *values) {
  const uint32_t warp = ctx->warpId;
  const uint32_t stamp = w.stamp, since = w.barrierStamp;
  const uint16_t who = static_cast<uint16_t>(warp << 5 | lane);
  const bool atomic = op == KERN_ACCESS_ATOMIC;
  const bool written = c.wStamp > since;
  if (op != KERN_ACCESS_STORE && c.wStamp <= w.blockStamp && w.checkUninit)
    recordSharedUninit(w, ctx, site, lane, byte, atomic);
  if (op == KERN_ACCESS_LOAD) {
    // Accesses of one warp are ordered (lockstep); atomics are not racing reads' partners
    // only when both sides are atomics, and a read is never an atomic.
    if (written && warpOf(c.wWho) != warp) {
      recordRace(w, ctx, RaceKind::ReadAfterWrite, c.wWho, c.wSite, site, lane, false, byte, false);
      return false;
    }
    if (c.rStamp <= since) {
      c.rStamp = stamp;
      c.rWho = who;
      c.rSite = site;
    } else if (warpOf(c.rWho) != warp && c.r2Stamp <= since) {
      c.r2Stamp = stamp;
      c.r2Who = who;
      c.r2Site = site;
    }
    return true;
  }
  if (written) {
    if (warpOf(c.wWho) != warp) {
      if (!(atomic && (c.wWho & kAtomicWho))) {
        recordRace(w, ctx, RaceKind::WriteAfterWrite, c.wWho, c.wSite, site, lane, atomic, byte,
                   false);
        return false;
      }
    } else if (c.wStamp == stamp && !atomic && values) {
      // Another lane of this very store: on a GPU one of the values lands, which one is
      // unspecified. Harmless when they agree.
      const uint32_t other = laneOf(c.wWho);
      if (values[other] != values[lane]) {
        recordRace(w, ctx, RaceKind::WriteAfterWrite, c.wWho, c.wSite, site, lane, false, byte,
                   true);
        return false;
      }
    }
  }
  if (c.rStamp > since) {
    const uint16_t reader = warpOf(c.rWho) != warp ? c.rWho : c.r2Who;
    const uint32_t readerSite = warpOf(c.rWho) != warp ? c.rSite : c.r2Site;
    if (warpOf(c.rWho) != warp || c.r2Stamp > since) {
      recordRace(w, ctx, RaceKind::WriteAfterRead, reader, readerSite, site, lane, atomic, byte,
                 false);
      return false;
    }
  }
  c.wStamp = stamp;
  c.wWho = static_cast<uint16_t>(who | (atomic ? kAtomicWho : 0));
  c.wSite = site;
  return true;
}

/// One lane's access of `size` bytes at shared offset `off`. Returns false once a race was
/// recorded. A word that was only ever accessed whole (CheckedWorker::split) keeps one history,
/// in its cell of CheckedWorker::words: judged once, it gives the same verdict, at the same
/// first byte, as its four bytes one by one.
bool checkShared(CheckedWorker &w, KernWarpCtx *ctx, uint32_t site, uint32_t lane, uint64_t off,
                 uint32_t size, uint32_t op, const uint64_t *values) {
  SharedCell *bytes = w.bytes.data();
  uint8_t *split = w.split.data();
  for (uint64_t i = 0; i < size;) {
    const uint64_t byte = off + i, word = byte / 4;
    if ((byte & 3) == 0 && size - i >= 4 && !split[word]) {
      SharedCell c = w.words.get(word);
      const bool ok = checkCell(w, ctx, c, byte, site, lane, op, values);
      w.words.set(word, c);
      if (!ok)
        return false;
      i += 4;
      continue;
    }
    if (!split[word]) {
      // Part of a word: from now on its bytes keep their own histories, starting from the
      // word's.
      for (uint64_t k = 0; k < 4; ++k)
        bytes[4 * word + k] = w.words.get(word);
      split[word] = 1;
      w.anySplit = true;
    }
    if (!checkCell(w, ctx, bytes[byte], byte, site, lane, op, values))
      return false;
    ++i;
  }
  return true;
}

/// The active lanes of a warp's access of shared words, and the words they are on.
struct WordList {
  const uint32_t *lanes, *words;
};

// A warp's 4-byte access of shared memory when every active lane is on a whole, aligned word
// that was never split: first all lanes are judged on the cells as they were before the
// access, then, when none found a race or an unwritten read, the lanes update their cells in
// lane order as checkCell would. Judging on the earlier state is exact here: a load changes
// only the read fields, which no load judges; atomic lanes of one word find what the first of
// them found; store lanes of one word are compared while updating, the one thing an earlier
// lane of the access can change (a difference is reported there, at the lane where the
// lane-by-lane path reports it). Each returns false, having changed nothing, when a lane found
// something on the earlier cells: the lane-by-lane path then judges and reports it.

/// The lanes of `at` (`n` of them), one by one.
template <uint32_t op>
bool checkWordList(CheckedWorker &w, KernWarpCtx *ctx, uint32_t site, const uint64_t *values,
                   uint32_t n, WordList at) {
  const uint32_t stamp = w.stamp, since = w.barrierStamp, blockStamp = w.blockStamp;
  const uint32_t here = ctx->warpId << 5; // a `who` of this warp, lane bits and atomic bit off
  const uint32_t uninit = op != KERN_ACCESS_STORE && w.checkUninit;
  const uint32_t atomic = op == KERN_ACCESS_ATOMIC;
  SharedWords &c = w.words;
  uint32_t bad = 0;
  if (w.anySplit)
    for (uint32_t k = 0; k < n; ++k)
      bad |= w.split[at.words[k]];
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t i = at.words[k];
    const uint32_t written = c.wStamp[i] > since;
    const uint32_t writerHere = (c.wWho[i] & 0x7fe0u) == here;
    bad |= uninit & (c.wStamp[i] <= blockStamp);
    if constexpr (op == KERN_ACCESS_LOAD) {
      bad |= written & !writerHere;
    } else {
      bad |= written & !writerHere & !(atomic & (c.wWho[i] >> 15));
      bad |= (c.rStamp[i] > since) & (((c.rWho[i] & 0x7fe0u) != here) | (c.r2Stamp[i] > since));
    }
  }
  if (bad)
    return false;
  if constexpr (op == KERN_ACCESS_LOAD) {
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t i = at.words[k];
      const uint32_t who = here | at.lanes[k];
      if (c.rStamp[i] <= since) {
        c.rStamp[i] = stamp;
        c.rWho[i] = who;
        c.rSite[i] = site;
      } else if ((c.rWho[i] & 0x7fe0u) != here && c.r2Stamp[i] <= since) {
        c.r2Stamp[i] = stamp;
        c.r2Who[i] = who;
        c.r2Site[i] = site;
      }
    }
    return true;
  }
  // The lane-by-lane path's rule: a lane at the previous lane's address storing the same value
  // is passed over (so the cell keeps naming the earlier lane).
  uint64_t prevWord = ~0ull, prevValue = 0;
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t lane = at.lanes[k], i = at.words[k];
    const uint64_t value = values ? values[lane] : 0;
    if (i == prevWord && value == prevValue)
      continue;
    prevWord = i;
    prevValue = value;
    if (c.wStamp[i] == stamp && !atomic && values && values[laneOf(c.wWho[i])] != value) {
      recordRace(w, ctx, RaceKind::WriteAfterWrite, c.wWho[i], c.wSite[i], site, lane, false,
                 uint64_t{i} * 4, true);
      return true;
    }
    c.wStamp[i] = stamp;
    c.wWho[i] = static_cast<uint16_t>(here | lane | (atomic ? kAtomicWho : 0));
    c.wSite[i] = site;
  }
  return true;
}

// Four lanes at a time (GCC's and Clang's vector types: SSE2 on every x86-64).
using U32x4 = uint32_t __attribute__((vector_size(16)));

inline U32x4 load4(const uint32_t *p) {
  U32x4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store4(uint32_t *p, U32x4 v) { std::memcpy(p, &v, sizeof v); }
/// All ones where a comparison held.
template <class Mask> inline U32x4 ones(Mask m) { return reinterpret_cast<U32x4>(m); }
inline U32x4 pick(U32x4 m, U32x4 a, U32x4 b) { return (m & a) | (~m & b); }
inline bool any(U32x4 m) {
  using U64x2 = uint64_t __attribute__((vector_size(16)));
  const U64x2 q = reinterpret_cast<U64x2>(m);
  return (q[0] | q[1]) != 0;
}

/// The active lanes of `mask` from lane `first` (active) to `first + n - 1`, lane `first + k` on
/// word `word + k`: distinct words, so no lane meets another's word.
template <uint32_t op>
bool checkWordRun(CheckedWorker &w, KernWarpCtx *ctx, uint32_t site, uint32_t mask, uint32_t n,
                  uint32_t first, uint32_t word) {
  const uint32_t stamp = w.stamp, since = w.barrierStamp, blockStamp = w.blockStamp;
  const uint32_t here = ctx->warpId << 5;
  SharedWords &c = w.words;
  if (w.anySplit)
    for (uint32_t k = 0; k < n; ++k)
      if (((mask >> (first + k)) & 1u) && w.split[word + k])
        return false;
  const U32x4 iota = {0, 1, 2, 3}, laneBits = {1, 2, 4, 8};
  const U32x4 uninit = U32x4{} - (op != KERN_ACCESS_STORE && w.checkUninit ? 1u : 0u);
  U32x4 bad{};
  for (uint32_t k = 0; k < n; k += 4) {
    const uint32_t i = word + k;
    const U32x4 valid = ones(((U32x4{} + (mask >> (first + k))) & laneBits) != 0);
    const U32x4 ws = load4(&c.wStamp[i]), ww = load4(&c.wWho[i]);
    const U32x4 written = ones(ws > since), writerHere = ones((ww & 0x7fe0u) == here);
    U32x4 b = uninit & ones(ws <= blockStamp);
    if constexpr (op == KERN_ACCESS_LOAD) {
      b |= written & ~writerHere;
    } else {
      const U32x4 rs = load4(&c.rStamp[i]), rw = load4(&c.rWho[i]);
      const U32x4 r2s = load4(&c.r2Stamp[i]);
      U32x4 mayShare = U32x4{} == 0; // all ones: a store shares a word with no one
      if constexpr (op == KERN_ACCESS_ATOMIC)
        mayShare = ones((ww >> 15) == 0);
      b |= written & ~writerHere & mayShare;
      b |= ones(rs > since) & (ones((rw & 0x7fe0u) != here) | ones(r2s > since));
    }
    bad |= b & valid;
  }
  if (any(bad))
    return false;
  for (uint32_t k = 0; k < n; k += 4) {
    const uint32_t i = word + k;
    const U32x4 valid = ones(((U32x4{} + (mask >> (first + k))) & laneBits) != 0);
    const U32x4 who = (iota + (first + k)) | here;
    if constexpr (op == KERN_ACCESS_LOAD) {
      const U32x4 rs = load4(&c.rStamp[i]), rw = load4(&c.rWho[i]);
      const U32x4 r2s = load4(&c.r2Stamp[i]);
      const U32x4 one = valid & ones(rs <= since);
      const U32x4 two = valid & ~one & ones((rw & 0x7fe0u) != here) & ones(r2s <= since);
      store4(&c.rStamp[i], pick(one, U32x4{} + stamp, rs));
      store4(&c.rWho[i], pick(one, who, rw));
      store4(&c.rSite[i], pick(one, U32x4{} + site, load4(&c.rSite[i])));
      if (any(two)) { // a second warp's read: rare
        store4(&c.r2Stamp[i], pick(two, U32x4{} + stamp, r2s));
        store4(&c.r2Who[i], pick(two, who, load4(&c.r2Who[i])));
        store4(&c.r2Site[i], pick(two, U32x4{} + site, load4(&c.r2Site[i])));
      }
    } else {
      const uint32_t atomicBit = op == KERN_ACCESS_ATOMIC ? kAtomicWho : 0;
      store4(&c.wStamp[i], pick(valid, U32x4{} + stamp, load4(&c.wStamp[i])));
      store4(&c.wWho[i], pick(valid, who | atomicBit, load4(&c.wWho[i])));
      store4(&c.wSite[i], pick(valid, U32x4{} + site, load4(&c.wSite[i])));
    }
  }
  return true;
}

/// checkWordRun or checkWordList for a warp's 4-byte access of shared memory, when every active
/// lane is on an aligned word of it (else false, nothing changed). `contiguous`: lane l's
/// address is lane 0's plus 4 x l (KERN_ACCESS_CONTIGUOUS).
template <uint32_t op>
bool checkSharedWords(CheckedWorker &w, KernWarpCtx *ctx, uint32_t site, const uint64_t *addrs,
                      uint32_t mask, const uint64_t *values, uint64_t shLo, uint64_t shBytes,
                      bool contiguous) {
  const uint32_t first = static_cast<uint32_t>(__builtin_ctz(mask));
  const uint32_t span = 32 - static_cast<uint32_t>(__builtin_clz(mask)) - first;
  const uint64_t off0 = addrs[first] - shLo;
  if ((off0 & 3) == 0 && off0 < shBytes && uint64_t{span - 1} * 4 < shBytes - off0) {
    // Without the compiler's word, only a run of active lanes is tested for consecutive words.
    bool consecutive = contiguous;
    if (!consecutive && mask >> first == (span == 32 ? ~0u : (1u << span) - 1)) {
      consecutive = true;
      for (uint32_t k = 1; k < span && consecutive; ++k)
        consecutive = addrs[first + k] == addrs[first] + 4 * k;
    }
    if (consecutive)
      return checkWordRun<op>(w, ctx, site, mask, span, first, static_cast<uint32_t>(off0 / 4));
  }
  uint32_t lanes[KERN_WARP_SIZE], words[KERN_WARP_SIZE], n = 0;
  uint64_t outside = 0;
  uint32_t listed = mask;
  if constexpr (op == KERN_ACCESS_LOAD) {
    // A load lane on the word of an earlier active lane of the access changes nothing that lane
    // did not (a second read of a word by its own warp leaves the cell as it is), so lanes on
    // the previous lane's word or on that of the same lane of the other half-warp are left out
    // (a tile's broadcast row, the two rows of a 16-wide block): without a branch per lane.
    // (Loops of fixed bounds, a half-warp at a time, which the compiler unrolls.)
    uint32_t samePrev = 0, sameHalf = 0;
    if (mask & 0xffffu)
      for (uint32_t l = 1; l < 16; ++l)
        samePrev |= uint32_t{addrs[l] == addrs[l - 1]} << l;
    if (mask >> 16) {
      for (uint32_t l = 16; l < KERN_WARP_SIZE; ++l)
        samePrev |= uint32_t{addrs[l] == addrs[l - 1]} << l;
      if (mask & 0xffffu)
        for (uint32_t l = 16; l < KERN_WARP_SIZE; ++l)
          sameHalf |= uint32_t{addrs[l] == addrs[l - 16]} << l;
    }
    listed &= ~((samePrev & (mask << 1)) | (sameHalf & (mask << 16)));
  }
  for (uint32_t m = listed; m; m &= m - 1) {
    const uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
    const uint64_t off = addrs[lane] - shLo;
    outside |= (off >= shBytes) | (off & 3);
    lanes[n] = lane;
    words[n++] = static_cast<uint32_t>(off / 4);
  }
  if (outside)
    return false;
  // What is left may be a run: lanes first, first + 1, ... on consecutive words.
  bool run = op == KERN_ACCESS_LOAD && n > 1;
  for (uint32_t k = 1; k < n && run; ++k)
    run = lanes[k] == lanes[0] + k && words[k] == words[0] + k;
  if (run)
    return checkWordRun<op>(w, ctx, site, static_cast<uint32_t>(((1ull << n) - 1) << lanes[0]), n,
                            lanes[0], words[0]);
  return checkWordList<op>(w, ctx, site, values, n, WordList{lanes, words});
}

bool allWritten(const uint8_t *p, uint32_t size) {
  switch (size) {
  case 4: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return ((v - 0x01010101u) & ~v & 0x80808080u) == 0; // no zero byte
  }
  case 8: {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return ((v - 0x0101010101010101ull) & ~v & 0x8080808080808080ull) == 0;
  }
  default:
    for (uint32_t i = 0; i < size; ++i)
      if (!p[i])
        return false;
    return true;
  }
}

void markWritten(uint8_t *p, uint32_t size) {
  switch (size) {
  case 4:
    std::memset(p, 1, 4);
    break;
  case 8:
    std::memset(p, 1, 8);
    break;
  default:
    std::memset(p, 1, size);
    break;
  }
}

/// The block's first read of never-written memory (`shared`: `addr` is an offset in the block's
/// shared memory), the one reported for the block.
UninitRecord &recordUninitCommon(CheckedWorker &w, KernWarpCtx *ctx, uint32_t site, uint32_t lane,
                                 uint64_t addr, uint32_t size, bool atomic, bool shared) {
  UninitRecord &u = w.uninit;
  u.blockLinear = w.blockLinear;
  std::copy(w.blockIdx, w.blockIdx + 3, u.blockIdx);
  for (int d = 0; d < 3; ++d)
    u.thread[d] = ctx->threadIdx[d][lane];
  u.site = site;
  u.addr = u.unwritten = addr;
  u.size = size;
  u.atomic = atomic;
  u.shared = shared;
  w.checkUninit = false;
  lowerTo(w.launch->minUninitBlock, w.blockLinear);
  return u;
}

void recordUninit(CheckedWorker &w, KernWarpCtx *ctx, uint32_t site, uint32_t lane, uint64_t addr,
                  uint32_t size, bool atomic) {
  UninitRecord &u = recordUninitCommon(w, ctx, site, lane, addr, size, atomic, false);
  const uint8_t *p = w.init->at(addr);
  for (uint32_t i = 0; i < size; ++i)
    if (!p[i]) {
      u.unwritten = addr + i;
      break;
    }
}

/// A read (or atomic) of shared memory at offset `byte` that no thread of the block wrote
/// since it started: CUDA leaves shared memory uninitialised, so it holds an earlier block's
/// data or anything.
void recordSharedUninit(CheckedWorker &w, KernWarpCtx *ctx, uint32_t site, uint32_t lane,
                        uint64_t byte, bool atomic) {
  recordUninitCommon(w, ctx, site, lane, byte, 1, atomic, true);
}

} // namespace

void checkAccess(CheckedWorker *w, KernWarpCtx *ctx, uint32_t site, const uint64_t *addrs,
                 uint32_t mask, uint32_t size, uint32_t flags, bool lanesOnly) {
  if (!w || !mask)
    return;
  const uint32_t op = flags & 3u;
  const uint64_t shLo = reinterpret_cast<uint64_t>(ctx->shared);
  const uint64_t shBytes = ctx->sharedSize;
  const uint64_t glLo = ctx->globalLo, glBytes = ctx->globalHi - ctx->globalLo;
  const uint64_t *values = flags & KERN_ACCESS_VALUES ? addrs + KERN_WARP_SIZE : nullptr;
  InitShadow &init = *w->init;
  const bool sharedOnly = (flags & 12u) == KERN_ACCESS_SHARED;
  if (sharedOnly && !w->checkRaces)
    return;
  ++w->stamp;
  // Active lanes in one run, on consecutive elements of global memory (the common case: a
  // whole warp, or the lanes of a block narrower than a warp): their shadow bytes are one range,
  // checked with one scan and marked with one fill. A range with an unwritten byte goes through
  // the lanes below, which find and report the first one.
  const uint32_t first = static_cast<uint32_t>(__builtin_ctz(mask));
  const uint32_t count = static_cast<uint32_t>(__builtin_popcount(mask));
  if (!lanesOnly && !sharedOnly && (mask >> first) == (count == 32 ? ~0u : (1u << count) - 1) &&
      init.valid()) {
    const uint64_t a0 = addrs[first], n = uint64_t{count} * size;
    bool contiguous =
        a0 - glLo < glBytes && a0 + n - glLo <= glBytes && (a0 + n <= shLo || a0 >= shLo + shBytes);
    for (uint32_t l = 1; l < count && contiguous && !(flags & KERN_ACCESS_CONTIGUOUS); ++l)
      contiguous = addrs[first + l] == a0 + uint64_t{l} * size;
    if (contiguous) {
      uint8_t *p = init.at(a0);
      const bool mustBeWritten = op != KERN_ACCESS_STORE && w->checkUninit;
      if (!mustBeWritten || std::memchr(p, 0, n) == nullptr) {
        if (op != KERN_ACCESS_LOAD)
          std::memset(p, 1, n);
        return;
      }
    }
  }
  if (!lanesOnly && w->checkRaces && size == 4 && op <= KERN_ACCESS_ATOMIC) {
    const bool contiguous = flags & KERN_ACCESS_CONTIGUOUS;
    const bool done = op == KERN_ACCESS_LOAD
                          ? checkSharedWords<KERN_ACCESS_LOAD>(*w, ctx, site, addrs, mask, values,
                                                               shLo, shBytes, contiguous)
                      : op == KERN_ACCESS_STORE
                          ? checkSharedWords<KERN_ACCESS_STORE>(*w, ctx, site, addrs, mask, values,
                                                                shLo, shBytes, contiguous)
                          : checkSharedWords<KERN_ACCESS_ATOMIC>(*w, ctx, site, addrs, mask, values,
                                                                 shLo, shBytes, contiguous);
    if (done)
      return;
  }
  uint64_t prevAddr = ~0ull, prevValue = 0;
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
    const uint64_t a = addrs[lane];
    // A lane at the previous active lane's address (broadcasts, rows of a 2-D block) changes
    // nothing the previous lane did not, unless it stores a different value.
    const uint64_t value = values ? values[lane] : 0;
    if (a == prevAddr && (op == KERN_ACCESS_LOAD || value == prevValue))
      continue;
    // A load at the address of the same lane of the other half-warp (rows of a 16-wide block)
    // finds what that lane left: this warp's own read of this very instruction.
    if (op == KERN_ACCESS_LOAD && lane >= 16 && ((mask >> (lane - 16)) & 1u) &&
        addrs[lane - 16] == a)
      continue;
    prevAddr = a;
    prevValue = value;
    if (a - shLo < shBytes) {
      if (w->checkRaces && !checkShared(*w, ctx, site, lane, a - shLo, size, op, values))
        continue;
    } else if (!sharedOnly && a - glLo < glBytes && init.valid()) {
      uint8_t *p = init.at(a);
      if (op != KERN_ACCESS_STORE && w->checkUninit && !allWritten(p, size))
        recordUninit(*w, ctx, site, lane, a, size, op == KERN_ACCESS_ATOMIC);
      if (op != KERN_ACCESS_LOAD)
        markWritten(p, size);
    }
    // Anything else is this thread's local memory: neither shared nor initialised-tracked.
  }
}

} // namespace kern::runtime

void kern_rt_check_access(KernWarpCtx *ctx, uint32_t site, const uint64_t *addrs, uint32_t mask,
                          uint32_t size, uint32_t flags) {
  kern::runtime::checkAccess(kern::runtime::checkedStateOf(ctx), ctx, site, addrs, mask, size,
                             flags, false);
}
