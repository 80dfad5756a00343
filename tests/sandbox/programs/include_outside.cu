// Includes a header of a sibling directory, as CUDA by Example's "../common/book.h".
#include "../outside/outside.h"
#include <cstdio>

int main() {
  printf("outside says %d\n", OUTSIDE_VALUE);
  return 0;
}
