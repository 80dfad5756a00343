/* CPU side of the dot product: deterministic inputs and the reference result. */
#include "reference.h"

int referenceCalls = 0;

/* The same name as a helper in dot.cu: each is private to its file. */
static unsigned int step(unsigned int x) { return x * 1103515245u + 12345u; }

void fillVector(int *v, int n, unsigned int seed) {
  int i;
  unsigned int s = seed;
  for (i = 0; i < n; ++i) {
    s = step(s);
    v[i] = (int)((s >> 16) % 201) - 100;
  }
}

long long dotReference(const int *a, const int *b, int n) {
  long long sum = 0;
  int i;
  for (i = 0; i < n; ++i)
    sum += (long long)a[i] * b[i];
  referenceCalls++;
  return sum;
}
