// kern's host C++ library: the balanced binary search tree under <map> and <set> (std::map,
// std::multimap, std::set, std::multiset). An AVL tree whose nodes know their parent, so that
// iterators step in order with ++ and --; lookups, insertions and erasures are O(log n). A
// header node (no value) is end(): its parent is the root and the root's parent is the header.
// Nodes are never moved or copied once made, so iterators stay valid until their element is
// erased, as C++ promises. Host code only.
#pragma once
#include "kern_std_base.h"

namespace std {

// The links of a node; the header is one with __hdr set.
struct __kern_tree_link {
  __kern_tree_link *parent, *left, *right;
  int height;
  bool hdr;
  __kern_tree_link() : parent(nullptr), left(nullptr), right(nullptr), height(1), hdr(false) {}
};

template <class V> struct __kern_tree_node : __kern_tree_link {
  V value;
  __kern_tree_node(const V &v) : __kern_tree_link(), value(v) {}
};

inline __kern_tree_link *__kern_tree_min(__kern_tree_link *x) {
  while (x->left)
    x = x->left;
  return x;
}
inline __kern_tree_link *__kern_tree_max(__kern_tree_link *x) {
  while (x->right)
    x = x->right;
  return x;
}
inline __kern_tree_link *__kern_tree_next(__kern_tree_link *x) {
  if (x->right)
    return __kern_tree_min(x->right);
  __kern_tree_link *y = x->parent;
  while (!y->hdr && x == y->right) {
    x = y;
    y = y->parent;
  }
  return y;
}
inline __kern_tree_link *__kern_tree_prev(__kern_tree_link *x) {
  if (x->hdr) // end(): the largest element
    return x->parent ? __kern_tree_max(x->parent) : x;
  if (x->left)
    return __kern_tree_max(x->left);
  __kern_tree_link *y = x->parent;
  while (!y->hdr && x == y->left) {
    x = y;
    y = y->parent;
  }
  return y;
}

// An iterator (Ref = V &, Ptr = V *) or a const_iterator (const V &, const V *); the first
// converts to the second, and either compares with either.
template <class V, class Ref, class Ptr> struct __kern_tree_iter {
  typedef V value_type;
  typedef Ref reference;
  typedef Ptr pointer;
  __kern_tree_link *node;
  __kern_tree_iter() : node(nullptr) {}
  explicit __kern_tree_iter(__kern_tree_link *n) : node(n) {}
  __kern_tree_iter(const __kern_tree_iter<V, V &, V *> &it) : node(it.node) {}
  Ref operator*() const { return static_cast<__kern_tree_node<V> *>(node)->value; }
  Ptr operator->() const { return &static_cast<__kern_tree_node<V> *>(node)->value; }
  __kern_tree_iter &operator++() {
    node = __kern_tree_next(node);
    return *this;
  }
  __kern_tree_iter operator++(int) {
    __kern_tree_iter old = *this;
    node = __kern_tree_next(node);
    return old;
  }
  __kern_tree_iter &operator--() {
    node = __kern_tree_prev(node);
    return *this;
  }
  __kern_tree_iter operator--(int) {
    __kern_tree_iter old = *this;
    node = __kern_tree_prev(node);
    return old;
  }
  bool operator==(const __kern_tree_iter<V, V &, V *> &o) const { return node == o.node; }
  bool operator!=(const __kern_tree_iter<V, V &, V *> &o) const { return node != o.node; }
  bool operator==(const __kern_tree_iter<V, const V &, const V *> &o) const {
    return node == o.node;
  }
  bool operator!=(const __kern_tree_iter<V, const V &, const V *> &o) const {
    return node != o.node;
  }
};

// Walks backwards: *r is the element before the one r holds, as std::reverse_iterator does.
template <class It, class Ref, class Ptr> struct __kern_tree_reverse_iterator {
  It cur;
  __kern_tree_reverse_iterator() : cur() {}
  explicit __kern_tree_reverse_iterator(It it) : cur(it) {}
  It base() const { return cur; }
  Ref operator*() const {
    It t = cur;
    --t;
    return *t;
  }
  Ptr operator->() const {
    It t = cur;
    --t;
    return &*t;
  }
  __kern_tree_reverse_iterator &operator++() {
    --cur;
    return *this;
  }
  __kern_tree_reverse_iterator operator++(int) {
    __kern_tree_reverse_iterator old = *this;
    --cur;
    return old;
  }
  __kern_tree_reverse_iterator &operator--() {
    ++cur;
    return *this;
  }
  __kern_tree_reverse_iterator operator--(int) {
    __kern_tree_reverse_iterator old = *this;
    ++cur;
    return old;
  }
  bool operator==(const __kern_tree_reverse_iterator &o) const { return cur == o.cur; }
  bool operator!=(const __kern_tree_reverse_iterator &o) const { return cur != o.cur; }
};

// The tree of values V ordered by their keys K: KeyOf::key(v) is v's key, Compare orders keys.
// Unique insertion (map, set) refuses a key already present; equal insertion (multimap,
// multiset) puts a new element after those with the same key.
template <class K, class V, class KeyOf, class Compare> class __kern_tree {
public:
  typedef __kern_tree_node<V> node_type;
  typedef __kern_tree_iter<V, V &, V *> iterator;
  typedef __kern_tree_iter<V, const V &, const V *> const_iterator;

  __kern_tree() : head_(new __kern_tree_link()), size_(0) { head_->hdr = true; }
  explicit __kern_tree(const Compare &c) : head_(new __kern_tree_link()), size_(0), comp_(c) {
    head_->hdr = true;
  }
  __kern_tree(const __kern_tree &o) : head_(new __kern_tree_link()), size_(0), comp_(o.comp_) {
    head_->hdr = true;
    __kern_copy_from(o);
  }
  ~__kern_tree() {
    __kern_destroy(head_->parent);
    delete head_;
  }
  __kern_tree &operator=(const __kern_tree &o) {
    __kern_assign(o);
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t max_size() const { return (size_t)-1 / sizeof(node_type); }
  Compare key_comp() const { return comp_; }
  iterator begin() { return iterator(__kern_first()); }
  iterator end() { return iterator(head_); }
  const_iterator begin() const { return const_iterator(__kern_first()); }
  const_iterator end() const { return const_iterator(head_); }
  const_iterator cbegin() const { return const_iterator(__kern_first()); }
  const_iterator cend() const { return const_iterator(head_); }

  void clear() {
    __kern_destroy(head_->parent);
    head_->parent = nullptr;
    size_ = 0;
  }
  void swap(__kern_tree &o) {
    __kern_tree_link *h = head_;
    size_t s = size_;
    Compare c = comp_;
    head_ = o.head_;
    size_ = o.size_;
    comp_ = o.comp_;
    o.head_ = h;
    o.size_ = s;
    o.comp_ = c;
  }

  iterator lower_bound(const K &k) { return iterator(__kern_lower(k)); }
  const_iterator lower_bound(const K &k) const { return const_iterator(__kern_lower(k)); }
  iterator upper_bound(const K &k) { return iterator(__kern_upper(k)); }
  const_iterator upper_bound(const K &k) const { return const_iterator(__kern_upper(k)); }
  iterator find(const K &k) { return iterator(__kern_find(k)); }
  const_iterator find(const K &k) const { return const_iterator(__kern_find(k)); }
  bool contains(const K &k) const { return __kern_find(k) != head_; }
  pair<iterator, iterator> equal_range(const K &k) {
    return pair<iterator, iterator>(iterator(__kern_lower(k)), iterator(__kern_upper(k)));
  }
  pair<const_iterator, const_iterator> equal_range(const K &k) const {
    return pair<const_iterator, const_iterator>(const_iterator(__kern_lower(k)),
                                                const_iterator(__kern_upper(k)));
  }
  size_t count(const K &k) const {
    size_t n = 0;
    for (__kern_tree_link *x = __kern_lower(k); x != head_ && !comp_(k, __kern_key(x));
         x = __kern_tree_next(x))
      ++n;
    return n;
  }

  // Erases the element at it; the result is the element after it.
  iterator erase(const_iterator it) {
    __kern_tree_link *next = __kern_tree_next(it.node);
    __kern_unlink(it.node);
    delete static_cast<node_type *>(it.node);
    --size_;
    return iterator(next);
  }
  iterator erase(const_iterator first, const_iterator last) {
    while (first != last)
      first = erase(first);
    return iterator(last.node);
  }
  size_t erase(const K &k) {
    __kern_tree_link *x = __kern_lower(k);
    size_t n = 0;
    while (x != head_ && !comp_(k, __kern_key(x))) {
      __kern_tree_link *next = __kern_tree_next(x);
      __kern_unlink(x);
      delete static_cast<node_type *>(x);
      --size_;
      ++n;
      x = next;
    }
    return n;
  }

  pair<iterator, bool> __kern_insert_unique(const V &v) {
    const K &k = KeyOf::key(v);
    __kern_tree_link *parent = head_, *x = head_->parent;
    bool left = true;
    while (x) {
      parent = x;
      if (comp_(k, __kern_key(x))) {
        left = true;
        x = x->left;
      } else if (comp_(__kern_key(x), k)) {
        left = false;
        x = x->right;
      } else {
        return pair<iterator, bool>(iterator(x), false);
      }
    }
    return pair<iterator, bool>(iterator(__kern_attach(parent, left, v)), true);
  }
  iterator __kern_insert_equal(const V &v) {
    const K &k = KeyOf::key(v);
    __kern_tree_link *parent = head_, *x = head_->parent;
    bool left = true;
    while (x) {
      parent = x;
      left = comp_(k, __kern_key(x));
      x = left ? x->left : x->right;
    }
    return iterator(__kern_attach(parent, left, v));
  }
  bool __kern_less(const K &a, const K &b) const { return comp_(a, b); }
  void __kern_assign(const __kern_tree &o) {
    if (this != &o) {
      clear();
      comp_ = o.comp_;
      __kern_copy_from(o);
    }
  }

  // Checks the tree's invariants (order, parent links, AVL balance); the number of problems.
  int __kern_verify() const { return __kern_verify_at(head_->parent, head_); }

private:
  __kern_tree_link *head_;
  size_t size_;
  Compare comp_;

  static const K &__kern_key(__kern_tree_link *x) {
    return KeyOf::key(static_cast<node_type *>(x)->value);
  }
  static int __kern_h(__kern_tree_link *x) { return x ? x->height : 0; }
  static void __kern_fix_height(__kern_tree_link *x) {
    int l = __kern_h(x->left), r = __kern_h(x->right);
    x->height = (l > r ? l : r) + 1;
  }
  __kern_tree_link *__kern_first() const {
    return head_->parent ? __kern_tree_min(head_->parent) : head_;
  }
  __kern_tree_link *__kern_lower(const K &k) const {
    __kern_tree_link *y = head_, *x = head_->parent;
    while (x) {
      if (!comp_(__kern_key(x), k)) {
        y = x;
        x = x->left;
      } else {
        x = x->right;
      }
    }
    return y;
  }
  __kern_tree_link *__kern_upper(const K &k) const {
    __kern_tree_link *y = head_, *x = head_->parent;
    while (x) {
      if (comp_(k, __kern_key(x))) {
        y = x;
        x = x->left;
      } else {
        x = x->right;
      }
    }
    return y;
  }
  __kern_tree_link *__kern_find(const K &k) const {
    __kern_tree_link *y = __kern_lower(k);
    if (y == head_ || comp_(k, __kern_key(y)))
      return head_;
    return y;
  }
  // Puts y where x is in x's parent (y may be null).
  void __kern_replace(__kern_tree_link *x, __kern_tree_link *y) {
    __kern_tree_link *p = x->parent;
    if (y)
      y->parent = p;
    if (p == head_)
      head_->parent = y;
    else if (p->left == x)
      p->left = y;
    else
      p->right = y;
  }
  __kern_tree_link *__kern_rotate_left(__kern_tree_link *x) {
    __kern_tree_link *y = x->right;
    x->right = y->left;
    if (y->left)
      y->left->parent = x;
    __kern_replace(x, y);
    y->left = x;
    x->parent = y;
    __kern_fix_height(x);
    __kern_fix_height(y);
    return y;
  }
  __kern_tree_link *__kern_rotate_right(__kern_tree_link *x) {
    __kern_tree_link *y = x->left;
    x->left = y->right;
    if (y->right)
      y->right->parent = x;
    __kern_replace(x, y);
    y->right = x;
    x->parent = y;
    __kern_fix_height(x);
    __kern_fix_height(y);
    return y;
  }
  // Restores heights and balance from x up to the root.
  void __kern_rebalance(__kern_tree_link *x) {
    while (x != head_) {
      __kern_fix_height(x);
      int bf = __kern_h(x->left) - __kern_h(x->right);
      if (bf > 1) {
        if (__kern_h(x->left->left) < __kern_h(x->left->right))
          __kern_rotate_left(x->left);
        x = __kern_rotate_right(x);
      } else if (bf < -1) {
        if (__kern_h(x->right->right) < __kern_h(x->right->left))
          __kern_rotate_right(x->right);
        x = __kern_rotate_left(x);
      }
      x = x->parent;
    }
  }
  __kern_tree_link *__kern_attach(__kern_tree_link *parent, bool left, const V &v) {
    __kern_tree_link *z = new node_type(v);
    z->parent = parent;
    if (parent == head_)
      head_->parent = z;
    else if (left)
      parent->left = z;
    else
      parent->right = z;
    ++size_;
    __kern_rebalance(parent);
    return z;
  }
  // Takes z out of the tree, relinking its neighbours (no value moves).
  void __kern_unlink(__kern_tree_link *z) {
    __kern_tree_link *from;
    if (z->left && z->right) {
      __kern_tree_link *y = __kern_tree_min(z->right);
      if (y->parent == z) {
        from = y;
      } else {
        from = y->parent;
        from->left = y->right;
        if (y->right)
          y->right->parent = from;
        y->right = z->right;
        y->right->parent = y;
      }
      y->left = z->left;
      y->left->parent = y;
      __kern_replace(z, y);
    } else {
      from = z->parent;
      __kern_replace(z, z->left ? z->left : z->right);
    }
    __kern_rebalance(from);
  }
  static void __kern_destroy(__kern_tree_link *x) {
    while (x) {
      __kern_destroy(x->right);
      __kern_tree_link *l = x->left;
      delete static_cast<node_type *>(x);
      x = l;
    }
  }
  static __kern_tree_link *__kern_clone(__kern_tree_link *x, __kern_tree_link *parent) {
    if (!x)
      return nullptr;
    __kern_tree_link *c = new node_type(static_cast<node_type *>(x)->value);
    c->parent = parent;
    c->height = x->height;
    c->left = __kern_clone(x->left, c);
    c->right = __kern_clone(x->right, c);
    return c;
  }
  void __kern_copy_from(const __kern_tree &o) {
    head_->parent = __kern_clone(o.head_->parent, head_);
    size_ = o.size_;
  }
  int __kern_verify_at(__kern_tree_link *x, __kern_tree_link *parent) const {
    if (!x)
      return 0;
    int bad = x->parent != parent;
    int l = __kern_h(x->left), r = __kern_h(x->right);
    bad += x->height != (l > r ? l : r) + 1;
    bad += l - r > 1 || r - l > 1;
    if (x->left && comp_(__kern_key(x), __kern_key(x->left)))
      ++bad;
    if (x->right && comp_(__kern_key(x->right), __kern_key(x)))
      ++bad;
    return bad + __kern_verify_at(x->left, x) + __kern_verify_at(x->right, x);
  }
};

template <class K> struct __kern_set_key {
  static const K &key(const K &k) { return k; }
};
template <class K, class P> struct __kern_map_key {
  static const K &key(const P &p) { return p.first; }
};

} // namespace std
