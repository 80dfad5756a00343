// Compiled modules kept for the next compile of the same code: the REPL recompiles the whole
// session for each input, and every module but the one the input changed comes out exactly as
// before. A module is found by its whole text before optimisation (and what else decides its
// code), so a hit is the object file the same compile would make, never a near match.
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <mutex>
#include <string>

namespace kern::backend {

class ObjectCache {
public:
  explicit ObjectCache(size_t maxBytes) : maxBytes_(maxBytes) {}

  /// The object file compiled for `key`, and its optimised IR when `ir` is asked for (a hit
  /// only if it was kept); false if there is none.
  bool find(const std::string &key, std::string &object, std::string *ir);
  /// Keeps `object` (and `ir`, possibly empty) for `key`; the least recently used entries go
  /// when the cache holds more than its size.
  void insert(const std::string &key, std::string object, std::string ir);

  size_t hits() const { return hits_; }
  size_t misses() const { return misses_; }

private:
  struct Entry {
    std::string key, object, ir;
  };
  static size_t bytesOf(const Entry &e) { return e.key.size() + e.object.size() + e.ir.size(); }

  std::mutex mutex_;
  std::list<Entry> entries_; // the most recently used first
  std::map<std::string, std::list<Entry>::iterator> byKey_;
  size_t bytes_ = 0;
  const size_t maxBytes_;
  size_t hits_ = 0, misses_ = 0;
};

} // namespace kern::backend
