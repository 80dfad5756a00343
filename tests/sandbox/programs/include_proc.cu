// Includes the process's environment: refused in every mode, without echoing it.
#include "/proc/self/environ"

int main() { return 0; }
