// The slow path of host code's memory checks: what compiled host code calls when an access is
// not inside a live object of the host arena (host_heap.h). Managed and mapped memory and the
// runtime's own objects that the program was handed (errno, optarg, strerror's text) are
// allowed; everything else — the stack's return addresses, the runtime's memory, freed blocks,
// the bytes past an object's end — is a fault that names the object.
#include "backend/abi.h"
#include "runtime/runtime.h"

namespace kern::runtime {

void Runtime::handOutObject(uint64_t addr, uint64_t size, const char *name, bool writable) {
  handedOut_[addr] = HandedOut{size, name, writable};
}

const char *Runtime::handOutString(const char *s) {
  if (!s)
    return nullptr;
  const std::string &copy = *handedStrings_.insert(s).first;
  return handOut(copy.c_str(), copy.size() + 1, "string of the C library", false);
}

std::string Runtime::hostAccessProblem(uint64_t addr, uint64_t n, bool store) {
  if (n == 0)
    n = 1;
  if (host_.contains(addr)) {
    if (host_.inObject(addr, n))
      return "";
    return host_.describe(addr, n);
  }
  if (device_.contains(addr))
    return "device memory " + describeDevicePointer(addr) +
           " (host code cannot access device memory; use cudaMemcpy)";
  if (device_.hostVisible(addr)) {
    const HostVisibleBlock *b = findHostVisible(addr);
    if (b && n <= b->base + b->size - addr && addr + n >= addr)
      return "";
    return b ? byteCount(addr + n - (b->base + b->size)) + " past the end of the " +
                   std::to_string(b->size) + "-byte allocation at " + hexAddress(b->base)
             : "not inside a live managed or mapped allocation";
  }
  auto it = handedOut_.upper_bound(addr);
  if (it != handedOut_.begin()) {
    --it;
    const HandedOut &h = it->second;
    if (addr - it->first < h.size) {
      if (n > h.size - (addr - it->first))
        return byteCount(addr + n - it->first - h.size) + " past the end of the " + h.name;
      if (store && !h.writable)
        return std::string("inside the ") + h.name + ", which is read-only";
      return "";
    }
  }
  return "not inside any object of the program (host code may reach only its variables, "
         "its heap blocks and managed memory)";
}

bool Runtime::hostAccess(uint32_t site, uint64_t addr, uint64_t n, bool store,
                         const HostObject *object) {
  std::string problem;
  if (object) {
    // The address was computed from this object and leaves it: a fault wherever it lands.
    const uint64_t off = addr - object->base;
    if (static_cast<int64_t>(off) < 0)
      problem = byteCount(object->base - addr) + " before the start of " + object->name;
    else if (off < object->size)
      problem = "running " + byteCount(off + n - object->size) + " past the end of " + object->name;
    else
      problem = (off == object->size ? std::string("just") : byteCount(off - object->size)) +
                " past the end of " + object->name;
    problem += " (" + byteCount(object->size) + ")";
  } else {
    if (addr < kNullPage) {
      hostFault(site, KERN_FAULT_NULL, addr);
      return false;
    }
    if (device_.contains(addr)) {
      hostFault(site, KERN_FAULT_DEVICE_PTR, addr);
      return false;
    }
    problem = hostAccessProblem(addr, n, store);
    if (problem.empty())
      return true;
  }
  const std::string what = std::string("host code ") + (store ? "writes " : "reads ") +
                           byteCount(n) + " at " + hexAddress(addr);
  if (!object && allowMallocRoom(site, what, addr, n))
    return true;
  hostProblem(site, what + ": " + problem);
  return false;
}

bool Runtime::allowMallocRoom(uint32_t site, const std::string &what, uint64_t addr, uint64_t n) {
  if (!host_.contains(addr) || addr + n < addr)
    return false;
  uint64_t base = 0;
  const uint64_t end = host_.mallocRoomEnd(addr, &base);
  if (addr + n > end)
    return false;
  if (mallocRoomWarned_.insert(site).second)
    warnAt(site, what + ": " + host_.describe(addr, n) + "; glibc's malloc gives that block " +
                     byteCount(end - base) +
                     ", so a native build runs on unnoticed (kern lets it, and warns once here)");
  return true;
}

void Runtime::hostProblem(uint32_t site, const std::string &what) {
  const std::string loc = location(site);
  faulted_ = true;
  lastErrorMessage_ = (loc.empty() ? "kern: error: " : loc + ": error: ") + what;
  options_.err(lastErrorMessage_ + "\n");
}

} // namespace kern::runtime

using kern::runtime::Runtime;

extern "C" void kern_rt_host_check(KernHostCtx *ctx, uint32_t site, uint64_t addr,
                                   uint64_t sizeAndStore, const char *object, uint64_t objectBase,
                                   uint64_t objectSize) {
  const bool store = (sizeAndStore & KERN_HOST_CHECK_STORE) != 0;
  const uint64_t n = sizeAndStore & ~KERN_HOST_CHECK_STORE;
  bool allowed;
  {
    // Destroyed before the unwind below: longjmp runs no destructors.
    const Runtime::HostObject o{object ? object : "", objectBase, objectSize};
    allowed = ctx->rt->hostAccess(site, addr, n, store, object ? &o : nullptr);
  }
  if (!allowed)
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  // A mapped pinned block: the next accesses to it are checked inline (KernHostHead).
  if (!object && !ctx->rt->hostHeap().contains(addr))
    ctx->rt->noteVisibleAccess(ctx, addr);
}
