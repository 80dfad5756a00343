// Native reference for W8: bench/w8_wavefront.kern's Needleman-Wunsch fill, the natural serial
// loop over each tile's cells, with the kernel's decomposition so that one timed run is one
// launch's work: the tiles of one anti-diagonal. The diagonals are timed in turn; the figure is
// their median, as kern's is the median of its launches.
#include <algorithm>
#include <vector>

#include "timing.hpp"

constexpr int kTile = 16;
constexpr int kPenalty = 10;

__attribute__((noinline)) void fillDiagonal(int *score, const int *similarity, int n, int d) {
  const int w = n + 1, tiles = n / kTile;
  const int first = d < tiles ? 0 : d - tiles + 1, last = d < tiles ? d : tiles - 1;
  for (int bx = first; bx <= last; ++bx) {
    const int by = d - bx;
    for (int y = by * kTile + 1; y <= (by + 1) * kTile; ++y)
      for (int x = bx * kTile + 1; x <= (bx + 1) * kTile; ++x) {
        const int diag = score[(y - 1) * w + x - 1] + similarity[y * w + x];
        const int up = score[(y - 1) * w + x] - kPenalty;
        const int left = score[y * w + x - 1] - kPenalty;
        score[y * w + x] = std::max(diag, std::max(up, left));
      }
  }
}

int main(int argc, char **argv) {
  bench::Args args = bench::parseArgs(argc, argv, 2048);
  const int n = (int)args.n, w = n + 1;
  std::vector<int> similarity((size_t)w * w), score((size_t)w * w, 0);
  unsigned state = 7u;
  for (int &s : similarity) {
    state = state * 1103515245u + 12345u;
    s = (int)((state >> 16) % 21u) - 10;
  }
  for (int i = 0; i < w; ++i)
    score[i] = score[(size_t)i * w] = -i * kPenalty;
  const int diagonals = 2 * (n / kTile) - 1;
  int next = 0;
  double ms = bench::medianMs(args.reps, [&] {
    fillDiagonal(score.data(), similarity.data(), n, next);
    next = (next + 1) % diagonals;
  });
  return bench::report("w8 wavefront", score[(size_t)w * w - 1] != 0 || next >= 0, ms);
}
