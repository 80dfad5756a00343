// A header beside the sandbox tests' program directory (programs/include_outside.cu).
#define OUTSIDE_VALUE 42
