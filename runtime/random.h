// The C library's pseudo-random numbers as glibc computes them, so that a program seeded with
// srand(7) draws the same inputs under kern as its native build does.
#pragma once

#include <cstdint>

namespace kern::runtime {

/// glibc's random()/rand(): the additive feedback generator of its default state size (TYPE_3,
/// 31 words of state, separation 3). srand(seed) fills r[0] = seed (1 when seed is 0) and
/// r[i] = 16807 * r[i-1] mod (2^31 - 1) for i = 1..30; then each step adds the word at a rear
/// position to the word at a front position 3 ahead (mod 2^32, both walking the ring of 31),
/// the first 310 steps are dropped, and each output is the sum >> 1, in [0, RAND_MAX].
/// Without a srand call the sequence is that of seed 1, as in C.
class GlibcRandom {
public:
  GlibcRandom() { seed(1); }
  void seed(uint32_t seed);
  /// The next value of rand() (and random()), in [0, 2^31 - 1].
  int32_t next();

private:
  static constexpr int kDegree = 31;
  static constexpr int kSeparation = 3;
  uint32_t r_[kDegree] = {};
  int front_ = kSeparation; // the word the next output replaces
  int rear_ = 0;            // the word added to it
};

/// glibc's 48-bit linear congruential generator of lrand48(), mrand48() and drand48():
/// X' = (0x5DEECE66D * X + 0xB) mod 2^48. srand48(s) sets X to the low 32 bits of s, shifted
/// left 16, with 0x330E below; unseeded, X is 0 in glibc. lrand48() is the new X >> 17,
/// mrand48() X >> 16 as a signed 32-bit value, drand48() X / 2^48.
class Rand48 {
public:
  void seed(int64_t s) { x_ = ((static_cast<uint64_t>(s) & 0xffffffffull) << 16) | 0x330eull; }
  uint64_t next() {
    x_ = (0x5deece66dull * x_ + 0xbull) & ((1ull << 48) - 1);
    return x_;
  }

private:
  uint64_t x_ = 0; // glibc starts from 0 (unlike the 0x1234ABCD330E of other C libraries)
};

/// glibc's rand_r(): three steps of the LCG next = next * 1103515245 + 12345, 11 + 10 + 10 bits
/// of next / 65536 combined; `state` is the caller's seed word, advanced.
int32_t glibcRandR(uint32_t &state);

} // namespace kern::runtime
