// busiestBankOf32: per bank, the rows of the distinct words its lanes touch as the bits of one
// 32-bit word, OR'ed together; the answer is the largest popcount.
#include "runtime/bank_rows.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__x86_64__)
// GCC 12's AVX-512 intrinsics start some results from an undefined register, which its
// -Wuninitialized then reports at every use.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#endif

namespace kern::runtime {

namespace {

constexpr uint32_t kLanes = 32;
constexpr uint32_t kBanks = 32;
constexpr uint32_t kRows = 32;

/// The lowest word of the window: 15 rows below the first active lane's row.
inline uint64_t windowBase(const uint64_t *off, uint32_t mask) {
  const uint64_t firstRow = off[std::countr_zero(mask)] / 4 / kBanks;
  return (firstRow >= 15 ? firstRow - 15 : 0) * kBanks;
}

#if defined(__x86_64__)
#define KERN_AVX512 __attribute__((target("avx512f,avx512cd,avx512vpopcntdq")))

/// One half-warp's words as 16 32-bit offsets from `lo`, the lanes outside the window in
/// `*outside`.
KERN_AVX512 inline __m512i halfWords(const uint64_t *off, __m512i lo, __mmask16 on,
                                     __mmask16 *outside) {
  const __m512i a = _mm512_sub_epi64(_mm512_srli_epi64(_mm512_loadu_si512(off), 2), lo);
  const __m512i b = _mm512_sub_epi64(_mm512_srli_epi64(_mm512_loadu_si512(off + 8), 2), lo);
  const __m512i limit = _mm512_set1_epi64(int64_t{kRows * kBanks});
  const __mmask16 out = static_cast<__mmask16>(_mm512_cmpge_epu64_mask(a, limit) |
                                               (_mm512_cmpge_epu64_mask(b, limit) << 8));
  *outside = out & on;
  return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(a)),
                            _mm512_cvtepi64_epi32(b), 1);
}

/// Every active lane's row bit OR'ed with those of the earlier lanes of its bank in its half:
/// each lane points at the last earlier lane of its bank (vpconflictd) and takes its bits, then
/// its pointer's pointer, four times (16 lanes).
KERN_AVX512 inline __m512i prefixRows(__m512i bank, __m512i bits) {
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i conflicts = _mm512_conflict_epi32(bank);
  const __mmask16 none = _mm512_cmpeq_epi32_mask(conflicts, _mm512_setzero_si512());
  __m512i prev = _mm512_sub_epi32(_mm512_set1_epi32(31), _mm512_lzcnt_epi32(conflicts));
  prev = _mm512_mask_mov_epi32(prev, none, lane);
  for (int step = 0; step < 4; ++step) {
    bits = _mm512_or_si512(bits, _mm512_permutexvar_epi32(prev, bits));
    prev = _mm512_permutexvar_epi32(prev, prev);
  }
  return bits;
}

KERN_AVX512 uint32_t busiestBankAvx512(const uint64_t *off, uint32_t mask) {
  const __m512i lo = _mm512_set1_epi64(static_cast<int64_t>(windowBase(off, mask)));
  const __mmask16 onA = static_cast<__mmask16>(mask), onB = static_cast<__mmask16>(mask >> 16);
  __mmask16 outA, outB;
  const __m512i wordA = halfWords(off, lo, onA, &outA);
  const __m512i wordB = halfWords(off + 16, lo, onB, &outB);
  if ((outA | outB) != 0)
    return UINT32_MAX;
  const __m512i lowBits = _mm512_set1_epi32(kBanks - 1), one = _mm512_set1_epi32(1);
  // Inactive lanes: a bank of their own (32 + lane) and no row bit.
  const __m512i own =
      _mm512_set_epi32(47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32);
  const __m512i bankA = _mm512_mask_and_epi32(own, onA, wordA, lowBits);
  const __m512i bankB = _mm512_mask_and_epi32(own, onB, wordB, lowBits);
  const __m512i bitsA = _mm512_maskz_sllv_epi32(onA, one, _mm512_srli_epi32(wordA, 5)); // 1 << row
  const __m512i bitsB = _mm512_maskz_sllv_epi32(onB, one, _mm512_srli_epi32(wordB, 5));
  const __m512i rowsA = prefixRows(bankA, bitsA);
  __m512i rowsB = prefixRows(bankB, bitsB);
  // The second half's lanes take the row bits of the first half's lanes of their bank, one
  // first-half lane after another, broadcast from memory: a table written by a scatter and read
  // by a gather would make the gather wait for the scatter's stores to reach the cache.
  alignas(64) uint32_t banks[16], rows[16];
  _mm512_store_si512(banks, bankA);
  _mm512_store_si512(rows, bitsA);
  __m512i even = _mm512_setzero_si512(), odd = _mm512_setzero_si512();
  for (int i = 0; i < 16; i += 2) {
    even = _mm512_mask_or_epi32(even, _mm512_cmpeq_epi32_mask(bankB, _mm512_set1_epi32(banks[i])),
                                even, _mm512_set1_epi32(rows[i]));
    odd = _mm512_mask_or_epi32(odd, _mm512_cmpeq_epi32_mask(bankB, _mm512_set1_epi32(banks[i + 1])),
                               odd, _mm512_set1_epi32(rows[i + 1]));
  }
  rowsB = _mm512_or_si512(rowsB, _mm512_or_si512(even, odd));
  const __m512i most = _mm512_max_epu32(_mm512_popcnt_epi32(rowsA), _mm512_popcnt_epi32(rowsB));
  return _mm512_reduce_max_epu32(most);
}

KERN_AVX512 void wordOffsetsAvx512(const uint64_t *addrs, uint64_t base, uint64_t *out) {
  const __m512i b = _mm512_set1_epi64(static_cast<int64_t>(base));
  for (int i = 0; i < 32; i += 8)
    _mm512_storeu_si512(out + i, _mm512_sub_epi64(_mm512_loadu_si512(addrs + i), b));
}

bool avx512Usable() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512vpopcntdq");
}
#endif

} // namespace

uint32_t busiestBankOf32Scalar(const uint64_t *off, uint32_t mask) {
  if (mask == 0)
    return 0;
  const uint64_t lo = windowBase(off, mask);
  // Two tables, even and odd lanes, so that lanes of one bank in a row do not wait on each
  // other's update.
  uint32_t rows[2][kBanks];
  std::memset(rows, 0, sizeof rows);
  uint64_t outside = 0;
  for (uint32_t l = 0; l < kLanes; ++l) {
    const uint32_t on = (mask >> l) & 1u;
    const uint64_t d = off[l] / 4 - lo;
    outside |= (d >> 10) & (0 - uint64_t{on}); // 32 rows x 32 banks
    rows[l & 1][d & (kBanks - 1)] |= on << ((d / kBanks) & (kRows - 1));
  }
  if (outside != 0)
    return UINT32_MAX;
  uint32_t most[4] = {0, 0, 0, 0};
  for (uint32_t b = 0; b < kBanks; ++b)
    most[b & 3] = std::max<uint32_t>(most[b & 3],
                                     static_cast<uint32_t>(std::popcount(rows[0][b] | rows[1][b])));
  return std::max(std::max(most[0], most[1]), std::max(most[2], most[3]));
}

bool busiestBankOf32Vectorised() {
#if defined(__x86_64__)
  static const bool usable = avx512Usable();
  return usable;
#else
  return false;
#endif
}

void wordOffsets(const uint64_t *addrs, uint64_t base, uint64_t *out) {
#if defined(__x86_64__)
  if (busiestBankOf32Vectorised()) {
    wordOffsetsAvx512(addrs, base, out);
    return;
  }
#endif
  for (uint32_t l = 0; l < kLanes; ++l)
    out[l] = addrs[l] - base;
}

uint32_t busiestBankOf32(const uint64_t *off, uint32_t mask) {
  if (mask == 0)
    return 0;
#if defined(__x86_64__)
  if (busiestBankOf32Vectorised())
    return busiestBankAvx512(off, mask);
#endif
  return busiestBankOf32Scalar(off, mask);
}

} // namespace kern::runtime
