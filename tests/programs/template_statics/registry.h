// A registry of kernels by element type, as a class template with static members: each
// instance's count and scale are one variable of the program, whichever file uses them.
#pragma once
#include <cstdio>

template <typename T> struct Registry {
  static int launches;
  static T scale;
  static const char *name;
  static void launched() { ++launches; }
};
template <typename T> int Registry<T>::launches = 0;
template <typename T> T Registry<T>::scale = T(3);
template <> const char *Registry<float>::name; // defined in scale.cu
template <> const char *Registry<int>::name;

void scaleFloats(float *d, int n);
void scaleInts(int *d, int n);
