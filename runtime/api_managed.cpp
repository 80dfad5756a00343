// Unified (managed) memory: cudaMallocManaged, cudaMemPrefetchAsync, cudaMemAdvise, and the
// page migrations they imply. One pointer is valid on both sides; each 64 KB unit of an
// allocation lives on the host, on the device, or on both (read-mostly copies). A unit that
// host code may not touch where it is is protected (mprotect): the host's access faults, the
// signal guard calls resolveManagedFault, and the unit migrates, as a page fault does under
// CUDA's driver. On the device side a launch migrates the units of every managed allocation
// that a kernel argument points into (cc6.0 and later), or of every managed allocation
// (before cc6.0, where a launch migrates all managed memory to the GPU).
#include "runtime/errors.h"
#include "runtime/runtime.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>

namespace kern::runtime {

namespace {

using Where = Runtime::HostVisibleBlock::Where;
constexpr uint64_t kUnit = DeviceMemory::kHostVisibleUnit;

// cudaMemAttach flags, cudaMemoryAdvise, cudaMemLocationType
constexpr uint32_t kAttachGlobal = 1, kAttachHost = 2;
constexpr int32_t kLocDevice = 1, kLocHost = 2, kLocHostNuma = 3, kLocHostNumaCurrent = 4;

bool isHostLocation(int32_t t) {
  return t == kLocHost || t == kLocHostNuma || t == kLocHostNumaCurrent;
}

/// What is wrong with a cudaMemLocation of `type` and `id` for `purpose` ("to prefetch to",
/// "for advice"): {0, ""} if nothing.
std::pair<int32_t, std::string> locationProblem(int32_t type, int32_t id, const char *purpose) {
  if (type == kLocDevice && id != 0)
    return {cudaErrorInvalidDevice,
            "there is no device " + std::to_string(id) + " (kern models one device, device 0)"};
  if (type != kLocDevice && !isHostLocation(type))
    return {cudaErrorInvalidValue,
            std::to_string(type) + " is not a cudaMemLocationType " + purpose};
  return {0, ""};
}

/// The allocation's bytes in unit `i` (the last unit is partly guard gap).
uint64_t unitBytes(const Runtime::HostVisibleBlock &b, size_t i) {
  const uint64_t lo = i * kUnit;
  return lo >= b.size ? 0 : std::min(kUnit, b.size - lo);
}

} // namespace

void Runtime::protectUnits(const HostVisibleBlock &b, size_t first, size_t count) {
  // Consecutive units of the same protection go in one call.
  size_t i = first;
  while (i < first + count) {
    auto protOf = [&](const HostVisibleBlock::Unit &u) {
      if (launchOpen_)
        return PROT_READ | PROT_WRITE;
      switch (u.where) {
      case Where::Host:
        return PROT_READ | PROT_WRITE;
      case Where::Both:
        return PROT_READ;
      case Where::Device: // the host keeps a mapping of it: remote access, no migration
        return u.accessedByHost ? PROT_READ | PROT_WRITE : PROT_NONE;
      case Where::Unpopulated:
        return PROT_NONE;
      }
      return PROT_NONE;
    };
    const int prot = protOf(b.units[i]);
    size_t j = i + 1;
    while (j < first + count && protOf(b.units[j]) == prot)
      ++j;
    mprotect(reinterpret_cast<void *>(b.base + i * kUnit), (j - i) * kUnit, prot);
    i = j;
  }
}

int32_t Runtime::cudaMallocManaged(void **p, uint64_t size, uint32_t flags) {
  contextMade_ = true;
  if (stickyError_)
    return seenSticky();
  const std::string fn = "kern: cudaMallocManaged: ";
  if (!p || device_.contains(addressOf(p)))
    return recordError(cudaErrorInvalidValue, fn + "the pointer argument is not a valid host "
                                                   "pointer");
  const DeviceProfile &dev = options_.device;
  if (dev.ccMajor < 3)
    return recordError(cudaErrorNotSupported,
                       fn + "managed memory needs compute capability 3.0 or later; " + dev.name +
                           " is " + std::to_string(dev.ccMajor) + "." +
                           std::to_string(dev.ccMinor));
  if (flags != kAttachGlobal && flags != kAttachHost)
    return recordError(cudaErrorInvalidValue,
                       fn + "flags must be cudaMemAttachGlobal or cudaMemAttachHost, not " +
                           std::to_string(flags));
  if (size == 0) { // as cudaMalloc: a null pointer and success (measured on an H100)
    *p = nullptr;
    return cudaSuccess;
  }
  const uint64_t base = device_.allocate(size, DeviceMemory::Arena::HostVisible);
  if (!base)
    return recordError(cudaErrorMemoryAllocation,
                       fn + "out of memory: cannot allocate " + byteCount(size));
  HostVisibleBlock b;
  b.kind = HostVisibleBlock::Kind::Managed;
  b.base = base;
  b.size = size;
  b.flags = flags;
  b.units.resize((size + DeviceMemory::kGuard + kUnit - 1) / kUnit);
  // Nothing is populated until touched: the first touch places a unit without a transfer.
  auto &blk = hostVisible_[base] = std::move(b);
  protectUnits(blk, 0, blk.units.size());
  if (checker_) // the host writes it with no record kept: every byte counts as written
    checker_->init().mark(base, size);
  *p = reinterpret_cast<void *>(base);
  return cudaSuccess;
}

bool Runtime::resolveManagedFault(uint64_t addr) {
  HostVisibleBlock *b = findHostVisible(addr);
  if (!b || b->kind != HostVisibleBlock::Kind::Managed)
    return false;
  const size_t i = (addr - b->base) / kUnit;
  HostVisibleBlock::Unit &u = b->units[i];
  switch (u.where) {
  case Where::Host:
    return false; // open to the host already: not a migration fault
  case Where::Unpopulated:
    u.where = Where::Host; // first touch
    break;
  case Where::Both: // a write to a read-mostly copy: the device's copy is dropped
    u.where = Where::Host;
    break;
  case Where::Device:
    u.where = u.readMostly ? Where::Both : Where::Host;
    if (const uint64_t n = unitBytes(*b, i))
      recordTransfer("managed page fault (host)", TransferDirection::DeviceToHost, n, 0);
    break;
  }
  protectUnits(*b, i, 1);
  return true;
}

void Runtime::managedBeforeLaunch(const uint8_t *params, uint32_t paramBytes) {
  if (!aliases_.empty())
    syncAliases(true);
  if (hostVisible_.empty())
    return;
  const bool migrateAll = options_.device.ccMajor < 6; // no GPU page faults before Pascal
  for (auto &[base, b] : hostVisible_) {
    if (b.kind != HostVisibleBlock::Kind::Managed)
      continue;
    bool touched = migrateAll;
    for (uint32_t off = 0; !touched && off + 8 <= paramBytes; off += 8) {
      uint64_t v;
      std::memcpy(&v, params + off, 8);
      touched = v >= b.base && v < b.base + b.size;
    }
    uint64_t moved = 0;
    for (size_t i = 0; touched && i < b.units.size(); ++i) {
      HostVisibleBlock::Unit &u = b.units[i];
      if (u.where == Where::Unpopulated) {
        u.where = Where::Device; // first touch on the device
      } else if (u.where == Where::Host && !migrateAll &&
                 (u.preferred == 2 || u.accessedByDevice)) {
        // mapped for the device: accessed over the bus where it lies, no migration
      } else if (u.where == Where::Host) {
        u.where = u.readMostly ? Where::Both : Where::Device;
        moved += unitBytes(b, i);
      }
    }
    if (moved)
      recordTransfer("managed page fault (device)", TransferDirection::HostToDevice, moved, 0);
  }
  launchOpen_ = true;
  for (auto &[base, b] : hostVisible_)
    if (b.kind == HostVisibleBlock::Kind::Managed)
      protectUnits(b, 0, b.units.size());
}

void Runtime::managedDeviceWrite(uint64_t addr, uint64_t n, const std::function<void()> &write) {
  HostVisibleBlock *b = findHostVisible(addr);
  if (!b || b->kind != HostVisibleBlock::Kind::Managed || launchOpen_) {
    write();
    return;
  }
  // The device writes the units: a new one is placed there (first touch), one on the host
  // migrates as a kernel's access would move it, a read-mostly copy keeps only the device's.
  const bool migrateAll = options_.device.ccMajor < 6;
  uint64_t moved = 0;
  for (size_t i = (addr - b->base) / kUnit; i <= (addr + n - 1 - b->base) / kUnit; ++i) {
    HostVisibleBlock::Unit &u = b->units[i];
    if (u.where == Where::Unpopulated || u.where == Where::Both) {
      u.where = Where::Device;
    } else if (u.where == Where::Host &&
               (migrateAll || (u.preferred != 2 && !u.accessedByDevice))) {
      u.where = Where::Device;
      moved += unitBytes(*b, i);
    }
  }
  if (moved)
    recordTransfer("managed page fault (device)", TransferDirection::HostToDevice, moved, 0);
  launchOpen_ = true;
  protectUnits(*b, 0, b->units.size());
  write();
  launchOpen_ = false;
  protectUnits(*b, 0, b->units.size());
}

void Runtime::managedAfterLaunch() {
  if (!aliases_.empty())
    syncAliases(false);
  if (!launchOpen_)
    return;
  launchOpen_ = false;
  for (auto &[base, b] : hostVisible_)
    if (b.kind == HostVisibleBlock::Kind::Managed)
      protectUnits(b, 0, b.units.size());
}

namespace {

/// The managed allocation holding [p, p + n), or an error message.
template <class Find>
Runtime::HostVisibleBlock *managedRange(Find find, uint64_t p, uint64_t n, const std::string &fn,
                                        std::string &message) {
  Runtime::HostVisibleBlock *b = find(p);
  if (!b || b->kind != Runtime::HostVisibleBlock::Kind::Managed) {
    message = fn + hexAddress(p) + " is not managed memory (allocate it with cudaMallocManaged)";
    return nullptr;
  }
  if (n == 0 || n > b->base + b->size - p) {
    message = fn + (n == 0 ? std::string("the count is 0")
                           : "the range " + hexRange(p, n) + " runs past the end of a " +
                                 std::to_string(b->size) + "-byte managed allocation at " +
                                 hexAddress(b->base));
    return nullptr;
  }
  return b;
}

} // namespace

int32_t Runtime::cudaStreamAttachMemAsync(void *stream, const void *p, uint64_t length,
                                          uint32_t flags) {
  // Which streams may touch a managed allocation while kernels run: a hint on devices with
  // concurrent managed access, and kern lets the host and every stream touch managed memory at
  // any time, so only the arguments are checked.
  if (stickyError_)
    return seenSticky();
  const std::string fn = "kern: cudaStreamAttachMemAsync: ";
  if (int32_t e = checkStream("cudaStreamAttachMemAsync", stream))
    return e;
  if (flags != 1 && flags != 2 && flags != 4)
    return recordError(cudaErrorInvalidValue,
                       fn +
                           "flags must be cudaMemAttachGlobal, cudaMemAttachHost or "
                           "cudaMemAttachSingle, not " +
                           std::to_string(flags));
  std::string message;
  HostVisibleBlock *b = managedRange([this](uint64_t a) { return findHostVisible(a); },
                                     addressOf(p), length ? length : 1, fn, message);
  if (!b)
    return recordError(cudaErrorInvalidValue, std::move(message));
  if (length != 0 && (addressOf(p) != b->base || length != b->size))
    return recordError(cudaErrorInvalidValue,
                       fn + "the length must be 0 or the whole allocation's (" +
                           std::to_string(b->size) + " bytes)");
  return cudaSuccess;
}

int32_t Runtime::cudaMemPrefetchAsync(const void *p, uint64_t n, const KernMemLocation *location,
                                      uint32_t flags, void *stream) {
  if (stickyError_)
    return seenSticky();
  const std::string fn = "kern: cudaMemPrefetchAsync: ";
  if (int32_t e = checkStream("cudaMemPrefetchAsync", stream))
    return e;
  const DeviceProfile &dev = options_.device;
  if (dev.ccMajor < 6)
    return recordError(cudaErrorInvalidDevice,
                       fn +
                           "prefetching needs concurrent managed access (compute capability "
                           "6.0 or later); " +
                           dev.name + " is " + std::to_string(dev.ccMajor) + "." +
                           std::to_string(dev.ccMinor));
  if (flags != 0)
    return recordError(cudaErrorInvalidValue, fn + "flags must be 0, not " + std::to_string(flags));
  const int32_t type = location ? location->type : 0;
  if (auto [e, why] = locationProblem(type, location ? location->id : 0, "to prefetch to"); e)
    return recordError(e, fn + why);
  std::string message;
  HostVisibleBlock *b =
      managedRange([this](uint64_t a) { return findHostVisible(a); }, addressOf(p), n, fn, message);
  if (!b)
    return recordError(cudaErrorInvalidValue, std::move(message));
  const bool toDevice = type == kLocDevice;
  const size_t first = (addressOf(p) - b->base) / kUnit;
  const size_t last = (addressOf(p) + n - 1 - b->base) / kUnit;
  uint64_t moved = 0;
  for (size_t i = first; i <= last; ++i) {
    HostVisibleBlock::Unit &u = b->units[i];
    if (toDevice) {
      if (u.where == Where::Host) {
        u.where = u.readMostly ? Where::Both : Where::Device;
        moved += unitBytes(*b, i);
      } else if (u.where == Where::Unpopulated) {
        u.where = Where::Device;
      }
    } else {
      if (u.where == Where::Device) {
        u.where = u.readMostly ? Where::Both : Where::Host;
        moved += unitBytes(*b, i);
      } else if (u.where == Where::Unpopulated) {
        u.where = Where::Host;
      }
    }
  }
  protectUnits(*b, first, last - first + 1);
  if (moved)
    recordTransfer("cudaMemPrefetchAsync",
                   toDevice ? TransferDirection::HostToDevice : TransferDirection::DeviceToHost,
                   moved, 0);
  return cudaSuccess;
}

int32_t Runtime::cudaMemAdvise(const void *p, uint64_t n, int32_t advice,
                               const KernMemLocation *location) {
  if (stickyError_)
    return seenSticky();
  const std::string fn = "kern: cudaMemAdvise: ";
  if (advice < 1 || advice > 6)
    return recordError(cudaErrorInvalidValue,
                       fn + std::to_string(advice) + " is not a cudaMemoryAdvise value");
  const int32_t type = location ? location->type : 0;
  const bool needsLocation = advice >= 3 && advice != 4;
  if (needsLocation)
    if (auto [e, why] = locationProblem(type, location ? location->id : 0, "for advice"); e)
      return recordError(e, fn + why);
  std::string message;
  HostVisibleBlock *b =
      managedRange([this](uint64_t a) { return findHostVisible(a); }, addressOf(p), n, fn, message);
  if (!b)
    return recordError(cudaErrorInvalidValue, std::move(message));
  const bool device = type == kLocDevice;
  const size_t first = (addressOf(p) - b->base) / kUnit;
  const size_t last = (addressOf(p) + n - 1 - b->base) / kUnit;
  for (size_t i = first; i <= last; ++i) {
    HostVisibleBlock::Unit &u = b->units[i];
    switch (advice) {
    case 1: // cudaMemAdviseSetReadMostly
      u.readMostly = true;
      break;
    case 2: // cudaMemAdviseUnsetReadMostly: one copy is kept, the host's
      u.readMostly = false;
      if (u.where == Where::Both)
        u.where = Where::Host;
      break;
    case 3: // cudaMemAdviseSetPreferredLocation
      u.preferred = device ? 1 : 2;
      break;
    case 4: // cudaMemAdviseUnsetPreferredLocation
      u.preferred = 0;
      break;
    case 5: // cudaMemAdviseSetAccessedBy
    case 6: // cudaMemAdviseUnsetAccessedBy
      (device ? u.accessedByDevice : u.accessedByHost) = advice == 5;
      break;
    }
  }
  protectUnits(*b, first, last - first + 1);
  return cudaSuccess;
}

} // namespace kern::runtime
