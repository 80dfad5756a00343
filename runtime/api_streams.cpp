// Pinned host memory, host <-> device transfers on the modelled clock, streams and events.
#include "runtime/errors.h"
#include "runtime/runtime.h"

#include <cstring>

namespace kern::runtime {

namespace {

std::string handleName(const void *p) { return hexAddress(addressOf(p)); }

} // namespace

// ---- pinned host memory ---------------------------------------------------------------------

int32_t Runtime::cudaMallocHost(void **p, uint64_t size, const char *function) {
  contextMade_ = true;
  if (stickyError_)
    return seenSticky();
  if (!p || device_.contains(addressOf(p)))
    return recordError(cudaErrorInvalidValue, std::string("kern: ") + function +
                                                  ": the pointer argument is not a valid host "
                                                  "pointer");
  // With unified addressing (cc 2.0 on) CUDA maps every pinned allocation into the device's
  // address space: kernels use the pointer itself, as cudaHostAllocMapped memory.
  if (options_.device.ccMajor >= 2)
    return mappedPinned(p, size, 0, function);
  // Before: page-locked memory on a real system; here ordinary host memory marked pinned, so
  // that transfers from it use the pinned bandwidth and free() can refuse it.
  void *q = host_.allocate(size, 64, /*pinned=*/true);
  if (!q) {
    *p = nullptr;
    return recordError(cudaErrorMemoryAllocation, std::string("kern: ") + function +
                                                      ": out of host memory: cannot allocate " +
                                                      std::to_string(size) + " bytes");
  }
  std::memset(q, 0, size);
  *p = q;
  return cudaSuccess;
}

int32_t Runtime::cudaHostAlloc(void **p, uint64_t size, uint32_t flags) {
  contextMade_ = true;
  // cudaHostAllocDefault 0, Portable 1, Mapped 2, WriteCombined 4: every combination gives
  // pinned memory; Mapped memory is reachable from kernels too, at the same address.
  if (flags > 7)
    return recordError(cudaErrorInvalidValue, "kern: cudaHostAlloc: " + std::to_string(flags) +
                                                  " is not a combination of cudaHostAlloc flags");
  if (!(flags & 2))
    return cudaMallocHost(p, size, "cudaHostAlloc");
  if (stickyError_)
    return seenSticky();
  if (!p || device_.contains(addressOf(p)))
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaHostAlloc: the pointer argument is not a valid host pointer");
  return mappedPinned(p, size, flags, "cudaHostAlloc");
}

int32_t Runtime::mappedPinned(void **p, uint64_t size, uint32_t flags, const char *function) {
  // In the host-visible arena: host code and kernels touch the same bytes (zero-copy).
  const uint64_t base =
      device_.allocate(std::max<uint64_t>(size, 1), DeviceMemory::Arena::HostVisible);
  if (!base) {
    *p = nullptr;
    return recordError(cudaErrorMemoryAllocation, std::string("kern: ") + function +
                                                      ": out of memory: cannot allocate " +
                                                      byteCount(size));
  }
  HostVisibleBlock b;
  b.kind = HostVisibleBlock::Kind::MappedPinned;
  b.base = base;
  b.size = std::max<uint64_t>(size, 1);
  b.flags = flags;
  hostVisible_[base] = std::move(b);
  if (checker_) // the host writes it with no record kept: every byte counts as written
    checker_->init().mark(base, size);
  if (hostCtx_) // host code fills a new block first, as a rule: checked inline from the start
    noteVisibleAccess(hostCtx_, base);
  *p = reinterpret_cast<void *>(base);
  return cudaSuccess;
}

int32_t Runtime::cudaFreeHost(void *p) {
  if (stickyError_)
    return seenSticky();
  if (!p)
    return cudaSuccess;
  const uint64_t addr = addressOf(p);
  if (host_.isPinned(addr)) {
    dropAlias(addr);
    host_.release(p);
    return cudaSuccess;
  }
  std::string why;
  if (HostVisibleBlock *b = findHostVisible(addr); b && b->base == addr) {
    if (b->kind == HostVisibleBlock::Kind::MappedPinned) {
      releaseHostVisible(addr);
      return cudaSuccess;
    }
    why = " was allocated by cudaMallocManaged (use cudaFree)";
  } else if (device_.contains(addr))
    why = " is a device pointer (use cudaFree)";
  else if (host_.find(addr) && host_.find(addr)->base == addr)
    why = " was allocated by malloc (use free)";
  else
    why = " was not returned by cudaMallocHost or cudaHostAlloc";
  return recordError(cudaErrorInvalidValue, "kern: cudaFreeHost: " + hexAddress(addr) + why);
}

bool Runtime::isPinned(uint64_t hostAddr) const {
  auto it = hostVisible_.upper_bound(hostAddr);
  if (it != hostVisible_.begin() &&
      hostAddr < std::prev(it)->second.base + std::prev(it)->second.size)
    return std::prev(it)->second.kind == HostVisibleBlock::Kind::MappedPinned;
  // cudaHostRegister page-locks the range: copies from it run at the pinned rate (an H100
  // copies 64 MiB from registered mmap memory as fast as from cudaMallocHost memory).
  auto al = aliases_.upper_bound(hostAddr);
  if (al != aliases_.begin() && std::prev(al)->second.registered &&
      hostAddr < std::prev(al)->second.host + std::prev(al)->second.size)
    return true;
  const Allocation *a = host_.find(hostAddr);
  return a && host_.isPinned(a->base);
}

// ---- transfers and the modelled clock -------------------------------------------------------

void Runtime::recordTransfer(const char *api, TransferDirection direction, uint64_t bytes,
                             uint64_t hostAddr, void *stream, bool async) {
  TransferRecord t;
  t.api = api;
  t.direction = direction;
  t.bytes = bytes;
  t.pinned = isPinned(hostAddr);
  t.seconds = transferSeconds(options_.device, bytes, t.pinned,
                              direction == TransferDirection::HostToDevice);
  // Every copy runs to completion before the call returns (see Runtime's stream comment); on
  // the modelled clock an asynchronous copy from pinned memory overlaps the host and the work
  // of other streams and engines.
  t.startSeconds = clock_.run(stream,
                              direction == TransferDirection::HostToDevice ? DeviceEngine::CopyIn
                                                                           : DeviceEngine::CopyOut,
                              t.seconds, !(async && t.pinned));
  timeline_.push_back({TimelineEvent::Kind::Transfer, transfers_.size()});
  transfers_.push_back(std::move(t));
}

int32_t Runtime::cudaMemcpyAsync(void *dst, const void *src, uint64_t n, int32_t kind,
                                 void *stream) {
  if (stickyError_)
    return seenSticky();
  if (int32_t e = checkStream("cudaMemcpyAsync", stream))
    return e;
  return memcpyImpl("cudaMemcpyAsync", dst, src, n, kind, stream, true);
}

int32_t Runtime::cudaMemsetAsync(void *p, int32_t value, uint64_t n, void *stream) {
  if (stickyError_)
    return seenSticky();
  if (int32_t e = checkStream("cudaMemsetAsync", stream))
    return e;
  return cudaMemset(p, value, n);
}

// ---- streams and events ---------------------------------------------------------------------

Runtime::Handle *Runtime::findHandle(const void *p, Handle::Kind kind) const {
  auto it = handles_.find(p);
  if (it == handles_.end() || it->second->kind != kind || !it->second->live)
    return nullptr;
  return it->second;
}

int32_t Runtime::checkStream(const char *function, void *stream) {
  if (!stream || findHandle(stream, Handle::Kind::Stream))
    return cudaSuccess;
  return recordError(cudaErrorInvalidResourceHandle,
                     std::string("kern: ") + function + ": " + handleName(stream) +
                         " is not a stream (it was not returned by cudaStreamCreate, or was "
                         "destroyed)");
}

int32_t Runtime::cudaStreamCreate(void **stream, uint32_t flags, const char *function) {
  if (stickyError_)
    return seenSticky();
  if (!stream)
    return recordError(cudaErrorInvalidValue,
                       std::string("kern: ") + function + ": null pointer argument");
  if (flags > 1) // cudaStreamDefault or cudaStreamNonBlocking
    return recordError(cudaErrorInvalidValue, std::string("kern: ") + function + ": flags " +
                                                  std::to_string(flags) +
                                                  " are not a cudaStream flag");
  // The handle's address is the stream's identity: a heap object, unique and never reused.
  handleStore_.push_back(std::make_unique<Handle>());
  Handle *h = handleStore_.back().get();
  h->kind = Handle::Kind::Stream;
  handles_[h] = h;
  if (flags == 1) // cudaStreamNonBlocking: no implicit synchronisation with stream 0
    clock_.setNonBlocking(h);
  *stream = h;
  return cudaSuccess;
}

int32_t Runtime::cudaStreamDestroy(void *stream) {
  if (stickyError_)
    return seenSticky();
  Handle *h = stream ? findHandle(stream, Handle::Kind::Stream) : nullptr;
  if (!h)
    return recordError(cudaErrorInvalidResourceHandle,
                       "kern: cudaStreamDestroy: " + handleName(stream) +
                           (stream ? " is not a stream (it was not returned by cudaStreamCreate, "
                                     "or was already destroyed)"
                                   : " is the default stream, which cannot be destroyed"));
  h->live = false;
  return cudaSuccess;
}

int32_t Runtime::cudaStreamSynchronize(void *stream) {
  if (int32_t e = checkStream("cudaStreamSynchronize", stream))
    return e;
  clock_.hostWaits(clock_.ready(stream));
  synchronizePools(stream, freeSeq_, false);
  return seenSticky(); // the stream's work finished when each call returned
}

namespace {
const char *const kNotAnEvent =
    " is not an event (it was not returned by cudaEventCreate, or was destroyed)";
}

int32_t Runtime::cudaEventRecord(void *event, void *stream) {
  if (stickyError_ && stickySeen_)
    return stickyError_;
  Handle *h = findHandle(event, Handle::Kind::Event);
  if (!h)
    return recordError(cudaErrorInvalidResourceHandle,
                       "kern: cudaEventRecord: " + handleName(event) + kNotAnEvent);
  if (int32_t e = checkStream("cudaEventRecord", stream))
    return e;
  // Events measure modelled time (LANGUAGE.md, "Timing"): the clock that transfers advance.
  h->recorded = true;
  h->stamp = clock_.ready(stream);
  h->stream = stream;
  h->freeSeq = freeSeq_;
  return cudaSuccess;
}

int32_t Runtime::cudaEventSynchronize(void *event) {
  const Handle *h = findHandle(event, Handle::Kind::Event);
  if (!h)
    return recordError(cudaErrorInvalidResourceHandle,
                       "kern: cudaEventSynchronize: " + handleName(event) + kNotAnEvent);
  if (h->recorded) { // the host sees the work of the event's stream before the record complete
    clock_.hostWaits(h->stamp);
    synchronizePools(h->stream, h->freeSeq, false);
  }
  return seenSticky();
}

int32_t Runtime::cudaEventQuery(void *event) {
  if (!findHandle(event, Handle::Kind::Event))
    return recordError(cudaErrorInvalidResourceHandle,
                       "kern: cudaEventQuery: " + handleName(event) + kNotAnEvent);
  // All work before the record has completed when cudaEventRecord returned: never
  // cudaErrorNotReady.
  return seenSticky();
}

int32_t Runtime::cudaEventElapsedTime(float *ms, void *start, void *end) {
  if (stickyError_)
    return seenSticky();
  if (!ms)
    return recordError(cudaErrorInvalidValue, "kern: cudaEventElapsedTime: null pointer argument");
  const Handle *a = findHandle(start, Handle::Kind::Event);
  const Handle *b = findHandle(end, Handle::Kind::Event);
  if (!a || !b)
    return recordError(cudaErrorInvalidResourceHandle,
                       "kern: cudaEventElapsedTime: " + handleName(a ? end : start) + kNotAnEvent);
  if (!a->recorded || !b->recorded)
    // What CUDA returns for an event that was never recorded.
    return recordError(cudaErrorInvalidResourceHandle,
                       "kern: cudaEventElapsedTime: the " +
                           std::string(!a->recorded ? "start" : "end") + " event " +
                           handleName(!a->recorded ? start : end) +
                           " has not been recorded (call cudaEventRecord first)");
  *ms = static_cast<float>((b->stamp - a->stamp) * 1e3);
  return cudaSuccess;
}

int32_t Runtime::cudaEventDestroy(void *event) {
  if (stickyError_)
    return seenSticky();
  Handle *h = findHandle(event, Handle::Kind::Event);
  if (!h)
    return recordError(cudaErrorInvalidResourceHandle,
                       "kern: cudaEventDestroy: " + handleName(event) + kNotAnEvent);
  h->live = false;
  return cudaSuccess;
}

int32_t Runtime::cudaStreamQuery(void *stream) {
  if (int32_t e = checkStream("cudaStreamQuery", stream))
    return e;
  return seenSticky(); // nothing is pending: each call ran its work before it returned
}

int32_t Runtime::cudaStreamWaitEvent(void *stream, void *event, uint32_t flags) {
  if (int32_t e = checkStream("cudaStreamWaitEvent", stream))
    return e;
  const Handle *h = findHandle(event, Handle::Kind::Event);
  if (!h)
    return recordError(cudaErrorInvalidResourceHandle,
                       "kern: cudaStreamWaitEvent: " + handleName(event) + kNotAnEvent);
  if (flags > 1) // cudaEventWaitDefault or cudaEventWaitExternal
    return recordError(cudaErrorInvalidValue, "kern: cudaStreamWaitEvent: flags " +
                                                  std::to_string(flags) + " are not valid");
  if (h->recorded) // on the modelled clock, the stream's later work waits for the event
    clock_.streamWaits(stream, h->stamp);
  return seenSticky(); // the event's work is done already: the stream need not wait
}

// ---- host functions in streams -------------------------------------------------------------

int32_t Runtime::cudaStreamAddCallback(KernHostCtx *ctx, void *stream, StreamCallback fn,
                                       void *userData, uint32_t flags) {
  if (int32_t e = checkStream("cudaStreamAddCallback", stream))
    return e;
  if (!fn)
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaStreamAddCallback: the callback is a null function pointer");
  if (flags != 0)
    return recordError(cudaErrorInvalidValue, "kern: cudaStreamAddCallback: flags " +
                                                  std::to_string(flags) + " must be 0");
  // Every earlier operation of the stream has completed (each ran before its call returned),
  // and nothing later has started: this is the point where CUDA calls it. A callback is called
  // even after a device error, with that error as its status.
  const int32_t status = stickyError_;
  fn(ctx, stream, status, userData);
  return status;
}

int32_t Runtime::cudaLaunchHostFunc(KernHostCtx *ctx, void *stream, HostFn fn, void *userData) {
  if (int32_t e = checkStream("cudaLaunchHostFunc", stream))
    return e;
  if (!fn)
    return recordError(cudaErrorInvalidValue,
                       "kern: cudaLaunchHostFunc: the function is a null function pointer");
  // Unlike a callback, a host function is not called once the context has an error.
  if (stickyError_)
    return seenSticky();
  fn(ctx, userData);
  return cudaSuccess;
}

int32_t Runtime::cudaEventCreate(void **event, uint32_t flags, const char *function) {
  if (stickyError_)
    return seenSticky();
  if (!event)
    return recordError(cudaErrorInvalidValue,
                       std::string("kern: ") + function + ": null pointer argument");
  // cudaEventBlockingSync, cudaEventDisableTiming, cudaEventInterprocess (which CUDA accepts
  // only together with cudaEventDisableTiming).
  if (flags > 7 || ((flags & 4) && !(flags & 2)))
    return recordError(cudaErrorInvalidValue, std::string("kern: ") + function + ": flags " +
                                                  std::to_string(flags) +
                                                  " are not a valid cudaEvent flag set");
  handleStore_.push_back(std::make_unique<Handle>());
  Handle *h = handleStore_.back().get();
  h->kind = Handle::Kind::Event;
  handles_[h] = h;
  *event = h;
  return cudaSuccess;
}

} // namespace kern::runtime
