// glibc's rand/srand and rand_r sequences (runtime/random.h): the first values of a few seeds,
// as a native build on glibc prints them.
#include "runtime/random.h"

#include <catch2/catch.hpp>

using kern::runtime::GlibcRandom;
using kern::runtime::glibcRandR;

TEST_CASE("rand without srand is the sequence of seed 1", "[random]") {
  GlibcRandom r;
  CHECK(r.next() == 1804289383);
  CHECK(r.next() == 846930886);
  CHECK(r.next() == 1681692777);
}

TEST_CASE("srand(0) is srand(1), and a seed repeats its sequence", "[random]") {
  GlibcRandom r;
  r.seed(0);
  CHECK(r.next() == 1804289383);
  r.seed(7);
  const int32_t first = r.next();
  r.seed(7);
  CHECK(r.next() == first);
}

TEST_CASE("srand(seed) gives glibc's values", "[random]") {
  struct Case {
    uint32_t seed;
    int32_t values[5];
  };
  const Case cases[] = {
      {7, {1045618677, 1863967299, 1272579899, 461085871, 21961325}},
      {1234, {479142414, 465566339, 961126155, 1057886067, 1222702060}},
      {4294967295u, {254925627, 1205188300, 366127624, 1401405153, 76053476}},
  };
  for (const Case &c : cases) {
    GlibcRandom r;
    r.seed(c.seed);
    for (int32_t v : c.values)
      CHECK(r.next() == v);
  }
}

TEST_CASE("rand_r gives glibc's values and advances its seed word", "[random]") {
  uint32_t state = 42;
  CHECK(glibcRandR(state) == 681191333);
  CHECK(glibcRandR(state) == 928546885);
  CHECK(glibcRandR(state) == 1457394273);
  CHECK(glibcRandR(state) == 941445650);
  CHECK(state == 1108520142u);
}
