// glibc's rand/srand/random and rand_r sequences (runtime/random.h).
#include "runtime/random.h"

namespace kern::runtime {

void GlibcRandom::seed(uint32_t seed) {
  int32_t word = seed == 0 ? 1 : static_cast<int32_t>(seed);
  r_[0] = static_cast<uint32_t>(word);
  for (int i = 1; i < kDegree; ++i) {
    // 16807 * word mod (2^31 - 1) by Schrage's method: no intermediate overflows 32 bits.
    const int32_t hi = word / 127773;
    const int32_t lo = word % 127773;
    word = 16807 * lo - 2836 * hi;
    if (word < 0)
      word += 2147483647;
    r_[i] = static_cast<uint32_t>(word);
  }
  front_ = kSeparation;
  rear_ = 0;
  for (int i = 0; i < 10 * kDegree; ++i)
    next();
}

int32_t GlibcRandom::next() {
  // Two positions kSeparation apart walk the ring of 31 words: the front word gets the rear
  // word added to it, and the sum is the output.
  const uint32_t value = r_[front_] + r_[rear_];
  r_[front_] = value;
  front_ = (front_ + 1) % kDegree;
  rear_ = (rear_ + 1) % kDegree;
  return static_cast<int32_t>(value >> 1);
}

int32_t glibcRandR(uint32_t &state) {
  uint32_t next = state;
  next = next * 1103515245u + 12345u;
  uint32_t result = (next / 65536u) % 2048u;
  next = next * 1103515245u + 12345u;
  result = (result << 10) ^ ((next / 65536u) % 1024u);
  next = next * 1103515245u + 12345u;
  result = (result << 10) ^ ((next / 65536u) % 1024u);
  state = next;
  return static_cast<int32_t>(result);
}

} // namespace kern::runtime
