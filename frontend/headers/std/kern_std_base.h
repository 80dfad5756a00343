// kern's host C++ library: what every one of its headers (<vector>, <string>, <iostream>,
// <algorithm>, <chrono>...) shares, as a C++ library's headers share theirs. Host code only.
#pragma once

// libstdc++'s headers reach <pthread.h> (through its thread support), so a program that
// includes <iostream> may name pthread_t or pthread_barrier_t without including it.
#include <pthread.h>

namespace std {

typedef unsigned long size_t;
typedef long ptrdiff_t;

template <class T> inline const T &min(const T &a, const T &b) { return b < a ? b : a; }
template <class T> inline const T &max(const T &a, const T &b) { return a < b ? b : a; }
template <class T, class Compare> inline const T &min(const T &a, const T &b, Compare comp) {
  return comp(b, a) ? b : a;
}
template <class T, class Compare> inline const T &max(const T &a, const T &b, Compare comp) {
  return comp(a, b) ? b : a;
}
template <class T> inline void swap(T &a, T &b) {
  T t = a;
  a = b;
  b = t;
}

template <class T1, class T2> struct pair {
  T1 first;
  T2 second;
  pair() : first(), second() {}
  pair(const T1 &a, const T2 &b) : first(a), second(b) {}
};
template <class T1, class T2> inline pair<T1, T2> make_pair(T1 a, T2 b) {
  return pair<T1, T2>(a, b);
}
template <class T1, class T2> inline bool operator==(const pair<T1, T2> &a, const pair<T1, T2> &b) {
  return a.first == b.first && a.second == b.second;
}
template <class T1, class T2> inline bool operator<(const pair<T1, T2> &a, const pair<T1, T2> &b) {
  return a.first < b.first || (!(b.first < a.first) && a.second < b.second);
}

template <class T> struct less {
  bool operator()(const T &a, const T &b) const { return a < b; }
};
template <class T> struct greater {
  bool operator()(const T &a, const T &b) const { return b < a; }
};
template <class T> struct plus {
  T operator()(const T &a, const T &b) const { return a + b; }
};
template <class T> struct multiplies {
  T operator()(const T &a, const T &b) const { return a * b; }
};

} // namespace std
