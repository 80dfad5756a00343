// kern's host C++ library: what every one of its headers (<vector>, <string>, <iostream>,
// <algorithm>, <chrono>...) shares, as a C++ library's headers share theirs. Host code only.
#pragma once

// libstdc++'s headers reach <pthread.h> (through its thread support), so a program that
// includes <iostream> may name pthread_t or pthread_barrier_t without including it; GCC 4's
// reached <unistd.h>'s read, write, close and lseek too (kern_unistd_io.h), which programs
// of that time call after including only <iostream> or <fstream>.
#include <kern_unistd_io.h>
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
  void swap(pair &o) {
    T1 a = first;
    T2 b = second;
    first = o.first;
    second = o.second;
    o.first = a;
    o.second = b;
  }
  // Written out so that members with their own copies (std::string, std::vector) are copied
  // by them.
  pair(const pair &o) : first(o.first), second(o.second) {}
  pair &operator=(const pair &o) {
    first = o.first;
    second = o.second;
    return *this;
  }
};
template <class T1, class T2> inline pair<T1, T2> make_pair(T1 a, T2 b) {
  return pair<T1, T2>(a, b);
}
// Templates of namespace scope, so that a pair of types without == or < compiles as long as
// they are not compared.
template <class T1, class T2> inline bool operator==(const pair<T1, T2> &a, const pair<T1, T2> &b) {
  return a.first == b.first && a.second == b.second;
}
template <class T1, class T2> inline bool operator!=(const pair<T1, T2> &a, const pair<T1, T2> &b) {
  return !(a == b);
}
template <class T1, class T2> inline bool operator<(const pair<T1, T2> &a, const pair<T1, T2> &b) {
  return a.first < b.first || (!(b.first < a.first) && a.second < b.second);
}
template <class T1, class T2> inline bool operator>(const pair<T1, T2> &a, const pair<T1, T2> &b) {
  return b < a;
}
template <class T1, class T2> inline bool operator<=(const pair<T1, T2> &a, const pair<T1, T2> &b) {
  return !(b < a);
}
template <class T1, class T2> inline bool operator>=(const pair<T1, T2> &a, const pair<T1, T2> &b) {
  return !(a < b);
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
template <class T> struct minus {
  T operator()(const T &a, const T &b) const { return a - b; }
};
template <class T> struct equal_to {
  bool operator()(const T &a, const T &b) const { return a == b; }
};
template <class T> struct not_equal_to {
  bool operator()(const T &a, const T &b) const { return !(a == b); }
};
template <class T> struct less_equal {
  bool operator()(const T &a, const T &b) const { return !(b < a); }
};
template <class T> struct greater_equal {
  bool operator()(const T &a, const T &b) const { return !(a < b); }
};

// std::hash of the integer types, enumerations and pointers: the value itself, as libstdc++
// has it; float and double hash their bits (0 for both zeros); <string> adds std::string's.
template <class T> struct hash {
  size_t operator()(const T &v) const { return (size_t)v; }
};
template <> struct hash<float> {
  size_t operator()(const float &v) const {
    unsigned bits = 0;
    if (v != 0.0f)
      memcpy(&bits, &v, sizeof bits);
    return bits;
  }
};
template <> struct hash<double> {
  size_t operator()(const double &v) const {
    size_t bits = 0;
    if (v != 0.0)
      memcpy(&bits, &v, sizeof bits);
    return bits;
  }
};

} // namespace std
