// A table of primitive polynomials defined in its own file and declared here without its size,
// as generators of quasi-random sequences keep theirs.
#pragma once

struct Primitive {
  unsigned int dimension;
  unsigned int degree;
  unsigned int a;
  unsigned int m[4];
};

extern const Primitive primitives[];
extern const int primitiveCount;
