// Spins for ever.
#include <cstdio>

int main() {
  volatile unsigned long n = 0;
  printf("spinning\n");
  fflush(stdout);
  for (;;)
    n = n + 1;
  return 0;
}
