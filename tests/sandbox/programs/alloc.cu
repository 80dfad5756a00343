// Allocates 4 GiB and uses it.
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main() {
  const size_t n = size_t(4) << 30;
  char *p = (char *)malloc(n);
  printf("malloc(4 GiB): %s\n", p ? "ok" : "NULL");
  memset(p, 1, n);
  printf("used it\n");
  free(p);
  return 0;
}
