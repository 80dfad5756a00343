// busiestBankOf32: per bank, the rows of the distinct words its lanes touch; the answer is the
// largest count. With AVX-512 as two 32x32 bit matrices, the lanes of each bank and the lanes of
// each row: a bank has a word in a row where the two share a lane.
#include "runtime/bank_rows.h"

#include <algorithm>
#include <array>
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
#define KERN_AVX512 __attribute__((target("avx512f,avx512bw,avx512vpopcntdq,avx512vbmi,gfni")))

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

/// The byte indices of transpose32: `gather` makes qword 4j + i of the 8x8 block of rows 8i to
/// 8i + 7 and byte j (its rows last to first, as the affine transform takes a matrix), and
/// `scatter` takes byte c of that block, transposed, back to byte i of row 8j + c.
constexpr std::array<uint8_t, 128> transposeBytes(bool gather) {
  std::array<uint8_t, 128> t{};
  for (int x = 0; x < 128; ++x)
    t[x] = gather ? static_cast<uint8_t>((8 * (x / 8 % 4) + 7 - x % 8) * 4 + x / 32)
                  : static_cast<uint8_t>((4 * (x / 32) + x % 4) * 8 + x / 4 % 8);
  return t;
}
alignas(64) constexpr std::array<uint8_t, 128> kGatherBlocks = transposeBytes(true);
alignas(64) constexpr std::array<uint8_t, 128> kScatterBlocks = transposeBytes(false);

/// Transposes the 32x32 bit matrix whose rows are the 32-bit lanes of lo (rows 0-15) and hi
/// (rows 16-31): its 8x8 blocks gathered into qwords, each transposed by an affine transform
/// over GF(2) (byte c of the result: bit c of every row), and scattered back.
KERN_AVX512 inline void transpose32(__m512i &lo, __m512i &hi) {
  const __m512i g0 = _mm512_load_si512(kGatherBlocks.data());
  const __m512i g1 = _mm512_load_si512(kGatherBlocks.data() + 64);
  const __m512i s0 = _mm512_load_si512(kScatterBlocks.data());
  const __m512i s1 = _mm512_load_si512(kScatterBlocks.data() + 64);
  const __m512i unit = _mm512_set1_epi64(0x8040201008040201LL); // byte c: bit c
  __m512i b0 = _mm512_permutex2var_epi8(lo, g0, hi), b1 = _mm512_permutex2var_epi8(lo, g1, hi);
  b0 = _mm512_gf2p8affine_epi64_epi8(unit, b0, 0);
  b1 = _mm512_gf2p8affine_epi64_epi8(unit, b1, 0);
  lo = _mm512_permutex2var_epi8(b0, s0, b1);
  hi = _mm512_permutex2var_epi8(b0, s1, b1);
}

/// One more distinct word in each bank (lane of countLo, countHi) that has a lane among
/// `rowLanes`, the lanes of one row (bankLo, bankHi: the lanes of each bank).
KERN_AVX512 inline void countRow(uint32_t rowLanes, __m512i bankLo, __m512i bankHi,
                                 __m512i &countLo, __m512i &countHi) {
  const __m512i r = _mm512_set1_epi32(static_cast<int>(rowLanes)), one = _mm512_set1_epi32(1);
  countLo = _mm512_mask_add_epi32(countLo, _mm512_test_epi32_mask(bankLo, r), countLo, one);
  countHi = _mm512_mask_add_epi32(countHi, _mm512_test_epi32_mask(bankHi, r), countHi, one);
}

KERN_AVX512 uint32_t busiestBankAvx512(const uint64_t *off, uint32_t mask) {
  const __m512i lo = _mm512_set1_epi64(static_cast<int64_t>(windowBase(off, mask)));
  const __mmask16 onA = static_cast<__mmask16>(mask), onB = static_cast<__mmask16>(mask >> 16);
  __mmask16 outA, outB;
  const __m512i wordA = halfWords(off, lo, onA, &outA);
  const __m512i wordB = halfWords(off + 16, lo, onB, &outB);
  if ((outA | outB) != 0)
    return UINT32_MAX;
  const __m512i low = _mm512_set1_epi32(kBanks - 1), one = _mm512_set1_epi32(1);
  // Per lane, its bank and its row as one bit each: two 32x32 bit matrices (lane x bank, lane
  // x row), transposed into the lanes of each bank and the lanes of each row.
  __m512i bankLo = _mm512_maskz_sllv_epi32(onA, one, _mm512_and_si512(wordA, low));
  __m512i bankHi = _mm512_maskz_sllv_epi32(onB, one, _mm512_and_si512(wordB, low));
  __m512i rowLo = _mm512_maskz_sllv_epi32(onA, one, _mm512_srli_epi32(wordA, 5));
  __m512i rowHi = _mm512_maskz_sllv_epi32(onB, one, _mm512_srli_epi32(wordB, 5));
  transpose32(bankLo, bankHi);
  transpose32(rowLo, rowHi);
  uint32_t rows = static_cast<uint32_t>(_mm512_test_epi32_mask(rowLo, rowLo)) |
                  static_cast<uint32_t>(_mm512_test_epi32_mask(rowHi, rowHi)) << 16;
  alignas(64) uint32_t lanes[48];
  _mm512_store_si512(lanes, rowLo);
  _mm512_store_si512(lanes + 16, rowHi);
  _mm512_store_si512(lanes + 32, _mm512_setzero_si512()); // no lane: rows past the last
  // Each row that has a lane: a bank that shares a lane with it has one more distinct word.
  __m512i countLo = _mm512_setzero_si512(), countHi = _mm512_setzero_si512();
  const uint32_t first = static_cast<uint32_t>(std::countr_zero(rows));
  if ((rows >> first) < 256u) {
    // Rows within 8 of the first (a table of 256 words): all 8, with no branch to mispredict.
    for (uint32_t k = 0; k < 8; ++k)
      countRow(lanes[first + k], bankLo, bankHi, countLo, countHi);
  } else {
    for (; rows != 0; rows &= rows - 1)
      countRow(lanes[std::countr_zero(rows)], bankLo, bankHi, countLo, countHi);
  }
  return _mm512_reduce_max_epu32(_mm512_max_epu32(countLo, countHi));
}

KERN_AVX512 void wordOffsetsAvx512(const uint64_t *addrs, uint64_t base, uint64_t *out) {
  const __m512i b = _mm512_set1_epi64(static_cast<int64_t>(base));
  for (int i = 0; i < 32; i += 8)
    _mm512_storeu_si512(out + i, _mm512_sub_epi64(_mm512_loadu_si512(addrs + i), b));
}

bool avx512Usable() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vpopcntdq") && __builtin_cpu_supports("avx512vbmi") &&
         __builtin_cpu_supports("gfni");
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
