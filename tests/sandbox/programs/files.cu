// Opens argv[2] with mode argv[1] ("r" or "w") and says what happened; a file opened for
// writing gets a line, one opened for reading gives its first line.
#include <cerrno>
#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  FILE *f = fopen(argv[2], argv[1]);
  if (!f) {
    printf("fopen(%s, %s): NULL, %s\n", argv[2], argv[1], errno == EACCES ? "EACCES" : "other");
    return 1;
  }
  if (argv[1][0] == 'w') {
    fputs("written in the sandbox\n", f);
    printf("fopen(%s, w): written\n", argv[2]);
  } else {
    char line[128] = "";
    fgets(line, sizeof line, f);
    printf("fopen(%s, r): %s", argv[2], line);
  }
  fclose(f);
  return 0;
}
