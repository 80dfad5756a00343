// The host C library that compiled host code calls: output, the checked heap (malloc, calloc,
// realloc, free), range checks of the string and memory functions.
#include "runtime/runtime.h"

#include "runtime/errors.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kern::runtime {

// ---- host side ------------------------------------------------------------------------------

void Runtime::write(int32_t stream, std::string_view text) {
  if (text.empty())
    return;
  if (stream == 2)
    options_.err(text);
  else
    options_.out(text);
}

FormatOptions Runtime::hostFormatOptions() {
  FormatOptions o;
  o.unreadableLo = device_.lo();
  o.unreadableHi = device_.deviceHi();
  // %s reads only inside an object the program may read; another pointer prints as bad.
  o.readString = [this](uint64_t addr, size_t limit, std::string &out) {
    uint64_t room = hostObjectRoom(addr);
    if (const uint64_t end = host_.contains(addr) ? host_.mallocRoomEnd(addr) : 0)
      room = end - addr; // what a native printf reads there too (allowMallocRoom)
    if (room == 0)
      return false;
    const char *s = reinterpret_cast<const char *>(addr);
    out.assign(s, strnlen(s, std::min<uint64_t>(limit, room)));
    return true;
  };
  return o;
}

uint64_t Runtime::hostObjectRoom(uint64_t addr) {
  if (addr < kNullPage || device_.contains(addr))
    return 0;
  if (host_.contains(addr)) {
    const uint64_t end = host_.shadow()[(addr - host_.lo()) / HostMemory::kGranule];
    return end > addr ? end - addr : 0;
  }
  if (device_.hostVisible(addr)) {
    const HostVisibleBlock *b = findHostVisible(addr);
    return b ? b->base + b->size - addr : 0;
  }
  if (auto it = handedOut_.upper_bound(addr); it != handedOut_.begin()) {
    --it;
    if (addr - it->first < it->second.size)
      return it->first + it->second.size - addr;
  }
  return 0;
}

void *Runtime::hostMalloc(uint64_t size) {
  void *p = host_.allocate(size);
  if (!p && size)
    hostAllocationFailed(size);
  return p;
}

void *Runtime::hostCalloc(uint64_t n, uint64_t size) {
  if (size && n > UINT64_MAX / size)
    return nullptr;
  void *p = host_.allocate(n * size);
  if (!p && n != 0 && size != 0)
    hostAllocationFailed(n * size);
  if (p)
    std::memset(p, 0, n * size);
  return p;
}

bool Runtime::hostRealloc(void *p, uint64_t size, void *&result) {
  if (device_.contains(addressOf(p))) {
    reportHostError("realloc: " + describeDevicePointer(addressOf(p)) +
                    " is a device pointer (it was not returned by malloc)");
    return false;
  }
  if (p && findHostVisible(addressOf(p))) {
    reportHostError("realloc: " + hexAddress(addressOf(p)) +
                    " was allocated by cudaMallocHost, cudaHostAlloc or cudaMallocManaged (it "
                    "cannot be resized)");
    return false;
  }
  if (p && host_.isMapped(addressOf(p))) {
    reportHostError("realloc: " + hexAddress(addressOf(p)) +
                    " was mapped by mmap (it cannot be resized; use munmap)");
    return false;
  }
  if (p && host_.isPinned(addressOf(p))) {
    reportHostError("realloc: " + hexAddress(addressOf(p)) +
                    " was allocated by cudaMallocHost or cudaHostAlloc (pinned memory cannot be "
                    "resized)");
    return false;
  }
  bool ok;
  result = host_.reallocate(p, size, ok);
  if (!ok) {
    reportHostError("realloc: " + hexAddress(addressOf(p)) + " was not returned by malloc");
    return false;
  }
  return true;
}

void *Runtime::hostNew(uint64_t size, bool isArray) {
  void *p = host_.allocate(size ? size : 1);
  if (p)
    newBlocks_[addressOf(p)] = isArray;
  return p;
}

uint64_t Runtime::hostNewSize(const void *p) const {
  const uint64_t addr = addressOf(p);
  const Allocation *a = newBlocks_.count(addr) ? host_.find(addr) : nullptr;
  return a && a->base == addr ? a->size : 0;
}

bool Runtime::hostDelete(void *p, int32_t form) {
  if (!p)
    return true; // deleting a null pointer does nothing
  const bool isArray = (form & 1) != 0, trivial = (form & 2) != 0;
  const uint64_t addr = addressOf(p);
  const char *op = isArray ? "delete[]" : "delete";
  auto it = newBlocks_.find(addr);
  if (it == newBlocks_.end()) {
    if (host_.find(addr) && !host_.isMapped(addr) && !host_.isPinned(addr) &&
        host_.find(addr)->base == addr) {
      reportHostError(std::string(op) + ": " + hexAddress(addr) +
                      " was allocated by malloc (use free)");
      return false;
    }
    if (device_.contains(addr)) {
      reportHostError(std::string(op) + ": " + describeDevicePointer(addr) +
                      " is a device pointer (use cudaFree)");
      return false;
    }
    if (host_.release(p) == HostMemory::FreeResult::DoubleFree) {
      reportHostError(std::string(op) + ": " + hexAddress(addr) +
                      " was already deleted (double delete)");
      return false;
    }
    reportHostError(std::string(op) + ": " + hexAddress(addr) + " was not returned by new");
    return false;
  }
  if (it->second != isArray && trivial) {
    // Elements with nothing to destroy: native builds free the block either way.
    if (mismatchWarned_.insert(apiSite_).second)
      warnAt(apiSite_,
             std::string(op) + ": " + hexAddress(addr) + " was allocated by " +
                 (it->second ? "new[] (delete[] is its form)" : "new (delete is its form)") +
                 "; with no destructors to run a native build frees it all the same "
                 "(kern frees it, and warns once here)");
  } else if (it->second != isArray) {
    reportHostError(std::string(op) + ": " + hexAddress(addr) + " was allocated by " +
                    (it->second ? "new[] (use delete[])" : "new (use delete, not delete[])"));
    return false;
  }
  newBlocks_.erase(it);
  host_.release(p);
  return true;
}

bool Runtime::hostFree(void *p) {
  const uint64_t addr = addressOf(p);
  if (p && newBlocks_.count(addr)) {
    reportHostError("free: " + hexAddress(addr) + " was allocated by " +
                    (newBlocks_[addr] ? "new[] (use delete[])" : "new (use delete)"));
    return false;
  }
  if (device_.contains(addr)) {
    reportHostError("free: " + describeDevicePointer(addr) + " is a device pointer (use cudaFree)");
    return false;
  }
  if (HostVisibleBlock *b = p ? findHostVisible(addr) : nullptr) {
    reportHostError("free: " + hexAddress(addr) +
                    (b->kind == HostVisibleBlock::Kind::Managed
                         ? " was allocated by cudaMallocManaged (use cudaFree)"
                         : " was allocated by cudaMallocHost or cudaHostAlloc (use cudaFreeHost)"));
    return false;
  }
  if (p && host_.isMapped(addr)) {
    reportHostError("free: " + hexAddress(addr) + " was mapped by mmap (use munmap)");
    return false;
  }
  if (p && host_.isPinned(addr)) {
    // On a real system free() of page-locked memory corrupts the heap or crashes later.
    reportHostError("free: " + hexAddress(addr) +
                    " was allocated by cudaMallocHost or cudaHostAlloc (use cudaFreeHost)");
    return false;
  }
  switch (host_.release(p)) {
  case HostMemory::FreeResult::Ok:
    return true;
  case HostMemory::FreeResult::DoubleFree:
    reportHostError("free: " + hexAddress(addr) + " was already freed (double free)");
    return false;
  case HostMemory::FreeResult::NotAllocated:
    break;
  }
  if (const Allocation *a = host_.find(addr))
    reportHostError("free: " + hexAddress(addr) + " is not the start of a block (it is at offset " +
                    std::to_string(addr - a->base) + " of a " + std::to_string(a->size) +
                    "-byte block allocated by malloc at " + hexAddress(a->base) + ")");
  else
    reportHostError("free: " + hexAddress(addr) + " was not returned by malloc");
  return false;
}

bool Runtime::checkHostRange(const char *function, const char *what, const void *p, uint64_t n) {
  if (n == 0)
    return true;
  const uint64_t addr = addressOf(p);
  const std::string head = std::string(function) + ": the " + what + " ";
  if (addr < kNullPage) {
    reportHostError(head + "is a null pointer");
    return false;
  }
  if (device_.contains(addr)) {
    reportHostError(head + describeDevicePointer(addr) +
                    " is a device pointer (host code cannot access device memory; use "
                    "cudaMemcpy)");
    return false;
  }
  // The runtime reads and writes for the program only where the program itself may.
  const std::string problem = hostAccessProblem(addr, n, /*store=*/false);
  if (!problem.empty() &&
      !allowMallocRoom(apiSite_, head + "range " + hexRange(addr, n) + " (" + byteCount(n) + ")",
                       addr, n)) {
    reportHostError(head + "range " + hexRange(addr, n) + " (" + byteCount(n) + ") is " +
                    (problem.rfind("not ", 0) == 0 ? "" : "outside its object: ") + problem);
    return false;
  }
  return true;
}

bool Runtime::checkHostString(const char *function, const char *what, const char *s,
                              uint64_t &len) {
  const uint64_t addr = addressOf(s);
  if (!checkHostRange(function, what, s, 1))
    return false;
  // The bytes of its object from `s` on: the string must end within them.
  const uint64_t room = hostObjectRoom(addr);
  len = strnlen(s, room);
  if (len == room) {
    // A string whose end lies in the room malloc leaves past its block (allowMallocRoom).
    const uint64_t end = host_.contains(addr) ? host_.mallocRoomEnd(addr) : 0;
    if (end) {
      len = strnlen(s, end - addr);
      if (len < end - addr &&
          allowMallocRoom(apiSite_,
                          std::string(function) + ": the " + what + " at " + hexAddress(addr) +
                              " (" + byteCount(len + 1) + " with its NUL)",
                          addr, len + 1))
        return true;
    }
    len = room;
    reportHostError(std::string(function) + ": the " + what + " at " + hexAddress(addr) +
                    " is not NUL-terminated within its object (" + byteCount(room) +
                    " from there to the object's end)");
    return false;
  }
  return true;
}

int32_t Runtime::rand() { return rand_.next(); }

void Runtime::srand(uint32_t seed) { rand_.seed(seed); }

} // namespace kern::runtime
