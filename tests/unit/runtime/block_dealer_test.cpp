// Unit tests of BlockDealer: every block handed out exactly once, each worker's share from its
// front in increasing order, the back half of another's share once its own is used up, and
// grids of more than 2^32 blocks.
#include "runtime/block_dealer.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <thread>
#include <utility>
#include <vector>

using namespace kern::runtime;

namespace {

using Range = std::pair<uint64_t, uint64_t>; // first, count

std::vector<Range> drain(BlockDealer &d, unsigned worker) {
  std::vector<Range> got;
  uint64_t first = 0, count = 0;
  while (d.take(worker, first, count))
    got.emplace_back(first, count);
  return got;
}

/// The next take of `worker` gives blocks [first, first + count).
void requireTake(BlockDealer &d, unsigned worker, uint64_t first, uint64_t count) {
  uint64_t f = 0, c = 0;
  REQUIRE(d.take(worker, f, c));
  CHECK(f == first);
  CHECK(c == count);
}

/// Every block of [0, blocks) in exactly one of `ranges`.
void requireExactCover(std::vector<Range> ranges, uint64_t blocks) {
  std::sort(ranges.begin(), ranges.end());
  uint64_t next = 0;
  for (const Range &r : ranges) {
    REQUIRE(r.second > 0);
    REQUIRE(r.first == next);
    next = r.first + r.second;
  }
  REQUIRE(next == blocks);
}

} // namespace

TEST_CASE("one worker takes a launch's blocks in one piece", "[runtime][dealer]") {
  BlockDealer d;
  d.deal(1000, 1);
  const std::vector<Range> got = drain(d, 0);
  REQUIRE(got == std::vector<Range>{{0, 1000}});
}

TEST_CASE("two workers take their own halves from the front, then steal back halves",
          "[runtime][dealer]") {
  BlockDealer d;
  d.deal(200, 2);
  uint64_t first = 0, count = 0;
  // Worker 0's share is [0, 100), worker 1's [100, 200); each takes half of what it has left,
  // at most kMaxChunk.
  requireTake(d, 0, 0, 50);
  requireTake(d, 1, 100, 50);
  requireTake(d, 0, 50, 25);
  // Worker 0 uses up its share; worker 1 has [150, 200) left.
  std::vector<Range> zero{{0, 50}, {50, 25}};
  while (d.take(0, first, count)) {
    zero.emplace_back(first, count);
    if (first + count == 100)
      break;
  }
  for (size_t i = 1; i < zero.size(); ++i) // in increasing order
    CHECK(zero[i].first == zero[i - 1].first + zero[i - 1].second);
  // Now it takes the back half of worker 1's [150, 200): [175, 200), half of it first.
  requireTake(d, 0, 175, 12);
  requireTake(d, 1, 150, 12);
  std::vector<Range> all = zero;
  all.emplace_back(100, 50);
  all.emplace_back(175, 12);
  all.emplace_back(150, 12);
  for (const Range &r : drain(d, 1))
    all.push_back(r);
  for (const Range &r : drain(d, 0))
    all.push_back(r);
  requireExactCover(all, 200);
}

TEST_CASE("a share is never taken in chunks larger than kMaxChunk", "[runtime][dealer]") {
  BlockDealer d;
  d.deal(100000, 2);
  requireTake(d, 1, 50000, BlockDealer::kMaxChunk);
}

TEST_CASE("workers taking at once get every block exactly once", "[runtime][dealer]") {
  for (unsigned workers : {2u, 3u, 8u})
    for (uint64_t blocks : {1ull, 2ull, 7ull, 64ull, 1000ull, 100003ull}) {
      BlockDealer d;
      d.deal(blocks, workers);
      std::vector<std::vector<Range>> got(workers);
      std::vector<std::thread> threads;
      for (unsigned w = 0; w < workers; ++w)
        threads.emplace_back([&d, &got, w] { got[w] = drain(d, w); });
      for (std::thread &t : threads)
        t.join();
      std::vector<Range> all;
      for (const auto &g : got)
        all.insert(all.end(), g.begin(), g.end());
      INFO(workers << " workers, " << blocks << " blocks");
      requireExactCover(all, blocks);
    }
}

TEST_CASE("a dealer is reused from launch to launch", "[runtime][dealer]") {
  BlockDealer d;
  d.deal(10, 4);
  std::vector<Range> all;
  for (unsigned w = 0; w < 4; ++w)
    for (const Range &r : drain(d, w))
      all.push_back(r);
  requireExactCover(all, 10);
  d.deal(3, 2); // fewer workers: the other shares are not looked at
  all.clear();
  for (unsigned w = 0; w < 2; ++w)
    for (const Range &r : drain(d, w))
      all.push_back(r);
  requireExactCover(all, 3);
}

TEST_CASE("grids of 2^32 blocks and more are dealt in runs of blocks", "[runtime][dealer]") {
  BlockDealer d;
  const uint64_t huge = (uint64_t(1) << 33) + 5; // 3 blocks a unit
  d.deal(huge, 1);
  requireTake(d, 0, 0, huge); // the last unit is short
  uint64_t first = 0, count = 0;
  CHECK_FALSE(d.take(0, first, count));
  d.deal(huge, 2);
  const uint64_t units = (huge + 2) / 3;
  requireTake(d, 1, units / 2 * 3, BlockDealer::kMaxChunk * 3);
}
