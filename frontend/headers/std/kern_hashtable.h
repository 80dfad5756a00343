// kern's host C++ library: the hash table under <unordered_map> and <unordered_set>. Separate
// chaining: a power-of-two array of buckets, each a singly linked list of nodes that keep
// their hash; a key's bucket is its hash multiplied by 2^64/phi, top bits (so identity hashes
// of strided integers still spread). The table doubles when it holds more elements than
// buckets (a load factor of 1, as in C++ libraries), rehashing by relinking nodes, which never
// move: iterators are invalidated by a rehash, pointers and references to elements are not.
// Iteration goes bucket by bucket, so its order is not libstdc++'s. Host code only.
#pragma once
#include "kern_std_base.h"

namespace std {

template <class V> struct __kern_hash_node {
  __kern_hash_node *next;
  size_t hash;
  V value;
  __kern_hash_node(const V &v, size_t h) : next(nullptr), hash(h), value(v) {}
};

// An iterator (Ref = V &, Ptr = V *) or a const_iterator: the node, and where its bucket is
// (to go on to the next bucket at the end of a chain). end() has no node.
template <class V, class Ref, class Ptr> struct __kern_hash_iter {
  typedef V value_type;
  typedef Ref reference;
  typedef Ptr pointer;
  __kern_hash_node<V> *node;
  __kern_hash_node<V> **buckets;
  size_t bucket, nbuckets;
  __kern_hash_iter() : node(nullptr), buckets(nullptr), bucket(0), nbuckets(0) {}
  __kern_hash_iter(__kern_hash_node<V> *n, __kern_hash_node<V> **b, size_t i, size_t nb)
      : node(n), buckets(b), bucket(i), nbuckets(nb) {}
  __kern_hash_iter(const __kern_hash_iter<V, V &, V *> &o)
      : node(o.node), buckets(o.buckets), bucket(o.bucket), nbuckets(o.nbuckets) {}
  Ref operator*() const { return node->value; }
  Ptr operator->() const { return &node->value; }
  __kern_hash_iter &operator++() {
    node = node->next;
    while (!node && ++bucket < nbuckets)
      node = buckets[bucket];
    return *this;
  }
  __kern_hash_iter operator++(int) {
    __kern_hash_iter old = *this;
    ++*this;
    return old;
  }
  bool operator==(const __kern_hash_iter<V, V &, V *> &o) const { return node == o.node; }
  bool operator!=(const __kern_hash_iter<V, V &, V *> &o) const { return node != o.node; }
  bool operator==(const __kern_hash_iter<V, const V &, const V *> &o) const {
    return node == o.node;
  }
  bool operator!=(const __kern_hash_iter<V, const V &, const V *> &o) const {
    return node != o.node;
  }
};

// The table of values V with keys K (KeyOf::key(v)), hashed by Hash and compared by Eq.
// Unique insertion (unordered_map, unordered_set) refuses a key already present; equal
// insertion (the multi forms) puts a new element beside those with its key.
template <class K, class V, class KeyOf, class Hash, class Eq> class __kern_hashtable {
public:
  typedef __kern_hash_node<V> node_type;
  typedef __kern_hash_iter<V, V &, V *> iterator;
  typedef __kern_hash_iter<V, const V &, const V *> const_iterator;

  __kern_hashtable() : b_(nullptr), nb_(0), bits_(0), size_(0), maxLoad_(1.0f) {}
  explicit __kern_hashtable(size_t n) : b_(nullptr), nb_(0), bits_(0), size_(0), maxLoad_(1.0f) {
    rehash(n);
  }
  __kern_hashtable(const __kern_hashtable &o)
      : b_(nullptr), nb_(0), bits_(0), size_(0), maxLoad_(o.maxLoad_) {
    __kern_copy_from(o);
  }
  ~__kern_hashtable() {
    clear();
    delete[] b_;
  }
  __kern_hashtable &operator=(const __kern_hashtable &o) {
    __kern_assign(o);
    return *this;
  }
  void __kern_assign(const __kern_hashtable &o) {
    if (this != &o) {
      clear();
      maxLoad_ = o.maxLoad_;
      __kern_copy_from(o);
    }
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t max_size() const { return (size_t)-1 / sizeof(node_type); }
  size_t bucket_count() const { return nb_; }
  float load_factor() const { return nb_ ? (float)size_ / (float)nb_ : 0.0f; }
  float max_load_factor() const { return maxLoad_; }
  void max_load_factor(float f) {
    maxLoad_ = f > 0 ? f : 1.0f;
    reserve(size_);
  }
  Hash hash_function() const { return hash_; }
  Eq key_eq() const { return eq_; }

  iterator begin() {
    size_t i = __kern_first();
    return iterator(i < nb_ ? b_[i] : nullptr, b_, i, nb_);
  }
  iterator end() { return iterator(nullptr, b_, nb_, nb_); }
  const_iterator begin() const { return cbegin(); }
  const_iterator end() const { return const_iterator(nullptr, b_, nb_, nb_); }
  const_iterator cbegin() const {
    size_t i = __kern_first();
    return const_iterator(i < nb_ ? b_[i] : nullptr, b_, i, nb_);
  }
  const_iterator cend() const { return const_iterator(nullptr, b_, nb_, nb_); }

  iterator find(const K &k) {
    size_t h = hash_(k);
    node_type *n = __kern_find(k, h);
    return n ? iterator(n, b_, __kern_index(h), nb_) : end();
  }
  const_iterator find(const K &k) const {
    size_t h = hash_(k);
    node_type *n = __kern_find(k, h);
    return n ? const_iterator(n, b_, __kern_index(h), nb_) : end();
  }
  bool contains(const K &k) const { return __kern_find(k, hash_(k)) != nullptr; }
  size_t count(const K &k) const {
    size_t h = hash_(k), n = 0;
    for (node_type *x = __kern_find(k, h); x && x->hash == h && eq_(KeyOf::key(x->value), k);
         x = x->next)
      ++n;
    return n;
  }
  pair<iterator, iterator> equal_range(const K &k) {
    iterator first = find(k), last = first;
    while (last.node && eq_(KeyOf::key(*last), k))
      ++last;
    return pair<iterator, iterator>(first, last);
  }
  pair<const_iterator, const_iterator> equal_range(const K &k) const {
    const_iterator first = find(k), last = first;
    while (last.node && eq_(KeyOf::key(*last), k))
      ++last;
    return pair<const_iterator, const_iterator>(first, last);
  }

  void clear() {
    for (size_t i = 0; i < nb_; i++) {
      node_type *x = b_[i];
      while (x) {
        node_type *next = x->next;
        delete x;
        x = next;
      }
      b_[i] = nullptr;
    }
    size_ = 0;
  }
  void swap(__kern_hashtable &o) {
    node_type **b = b_;
    size_t nb = nb_, bits = bits_, s = size_;
    float ml = maxLoad_;
    b_ = o.b_;
    nb_ = o.nb_;
    bits_ = o.bits_;
    size_ = o.size_;
    maxLoad_ = o.maxLoad_;
    o.b_ = b;
    o.nb_ = nb;
    o.bits_ = bits;
    o.size_ = s;
    o.maxLoad_ = ml;
  }
  // Enough buckets for n elements without going over the maximum load factor.
  void reserve(size_t n) { rehash((size_t)((float)n / maxLoad_ + 0.999f)); }
  void rehash(size_t n) {
    size_t need = (size_t)((float)size_ / maxLoad_ + 0.999f);
    if (n < need)
      n = need;
    size_t bits = 3;
    while (((size_t)1 << bits) < n)
      ++bits;
    if (((size_t)1 << bits) == nb_)
      return;
    node_type **old = b_;
    size_t oldCount = nb_;
    nb_ = (size_t)1 << bits;
    bits_ = bits;
    b_ = new node_type *[nb_];
    for (size_t i = 0; i < nb_; i++)
      b_[i] = nullptr;
    // Relinked chain by chain, keeping the order of equal keys.
    for (size_t i = 0; i < oldCount; i++) {
      node_type *x = old[i];
      while (x) {
        node_type *next = x->next;
        node_type *run = x; // equal keys stay together, in order
        while (next && next->hash == x->hash &&
               eq_(KeyOf::key(next->value), KeyOf::key(x->value))) {
          run = next;
          next = next->next;
        }
        size_t j = __kern_index(x->hash);
        run->next = b_[j];
        b_[j] = x;
        x = next;
      }
    }
    delete[] old;
  }

  iterator erase(const_iterator it) {
    iterator next(it.node, b_, it.bucket, nb_);
    ++next;
    __kern_unlink(it.node, it.bucket);
    return next;
  }
  iterator erase(const_iterator first, const_iterator last) {
    while (first != last)
      first = erase(first);
    return iterator(last.node, b_, last.bucket, nb_);
  }
  size_t erase(const K &k) {
    size_t h = hash_(k), n = 0;
    if (!nb_)
      return 0;
    size_t i = __kern_index(h);
    node_type **link = &b_[i];
    while (*link) {
      node_type *x = *link;
      if (x->hash == h && eq_(KeyOf::key(x->value), k)) {
        *link = x->next;
        delete x;
        --size_;
        ++n;
      } else {
        link = &x->next;
      }
    }
    return n;
  }

  pair<iterator, bool> __kern_insert_unique(const V &v) {
    const K &k = KeyOf::key(v);
    size_t h = hash_(k);
    node_type *found = __kern_find(k, h);
    if (found)
      return pair<iterator, bool>(iterator(found, b_, __kern_index(h), nb_), false);
    __kern_grow_for(size_ + 1);
    node_type *n = new node_type(v, h);
    size_t i = __kern_index(h);
    n->next = b_[i];
    b_[i] = n;
    ++size_;
    return pair<iterator, bool>(iterator(n, b_, i, nb_), true);
  }
  iterator __kern_insert_equal(const V &v) {
    const K &k = KeyOf::key(v);
    size_t h = hash_(k);
    __kern_grow_for(size_ + 1);
    node_type *n = new node_type(v, h);
    size_t i = __kern_index(h);
    node_type *same = __kern_find(k, h);
    if (same) { // after the last element with its key
      while (same->next && same->next->hash == h && eq_(KeyOf::key(same->next->value), k))
        same = same->next;
      n->next = same->next;
      same->next = n;
    } else {
      n->next = b_[i];
      b_[i] = n;
    }
    ++size_;
    return iterator(n, b_, i, nb_);
  }

private:
  node_type **b_;
  size_t nb_, bits_, size_;
  float maxLoad_;
  Hash hash_;
  Eq eq_;

  size_t __kern_index(size_t h) const {
    return (size_t)((h * 11400714819323198485ull) >> (64 - bits_));
  }
  node_type *__kern_find(const K &k, size_t h) const {
    if (!nb_)
      return nullptr;
    for (node_type *x = b_[__kern_index(h)]; x; x = x->next)
      if (x->hash == h && eq_(KeyOf::key(x->value), k))
        return x;
    return nullptr;
  }
  // The first bucket that holds a node (nb_ if none does).
  size_t __kern_first() const {
    size_t i = 0;
    while (i < nb_ && !b_[i])
      ++i;
    return i;
  }
  void __kern_grow_for(size_t n) {
    if (!nb_ || (float)n > maxLoad_ * (float)nb_)
      rehash(nb_ ? 2 * nb_ : 8);
  }
  void __kern_unlink(node_type *x, size_t i) {
    node_type **link = &b_[i];
    while (*link != x)
      link = &(*link)->next;
    *link = x->next;
    delete x;
    --size_;
  }
  void __kern_copy_from(const __kern_hashtable &o) {
    rehash(o.nb_);
    for (size_t i = 0; i < o.nb_; i++) {
      node_type **tail = &b_[i];
      for (node_type *x = o.b_[i]; x; x = x->next) {
        *tail = new node_type(x->value, x->hash);
        tail = &(*tail)->next;
      }
    }
    size_ = o.size_;
  }
};

template <class K> struct __kern_hash_set_key {
  static const K &key(const K &k) { return k; }
};
template <class K, class P> struct __kern_hash_map_key {
  static const K &key(const P &p) { return p.first; }
};

} // namespace std
