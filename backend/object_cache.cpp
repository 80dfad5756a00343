// ObjectCache (object_cache.h): a map from a module's text to its object file, least recently
// used entries dropped past a size.
#include "backend/object_cache.h"

#include "backend/backend.h"

namespace kern::backend {

bool ObjectCache::find(const std::string &key, std::string &object, std::string *ir) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byKey_.find(key);
  if (it == byKey_.end() || (ir && it->second->ir.empty())) {
    ++misses_;
    return false;
  }
  entries_.splice(entries_.begin(), entries_, it->second);
  object = it->second->object;
  if (ir)
    *ir = it->second->ir;
  ++hits_;
  return true;
}

void ObjectCache::insert(const std::string &key, std::string object, std::string ir) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = byKey_.find(key); it != byKey_.end()) {
    bytes_ -= bytesOf(*it->second);
    entries_.erase(it->second);
    byKey_.erase(it);
  }
  Entry e{key, std::move(object), std::move(ir)};
  if (bytesOf(e) > maxBytes_)
    return;
  bytes_ += bytesOf(e);
  entries_.push_front(std::move(e));
  byKey_[key] = entries_.begin();
  while (bytes_ > maxBytes_) {
    bytes_ -= bytesOf(entries_.back());
    byKey_.erase(entries_.back().key);
    entries_.pop_back();
  }
}

std::shared_ptr<ObjectCache> newObjectCache(size_t maxBytes) {
  return std::make_shared<ObjectCache>(maxBytes);
}

} // namespace kern::backend
