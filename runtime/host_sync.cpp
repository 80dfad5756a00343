// GCC's __sync builtins on int, as host code uses them on memory it shares with kernels. Host
// code runs as one thread (program threads are cooperative fibers that switch only at blocking
// calls), so each operation is atomic as written; the address is checked as host code's own
// accesses are.
#include "runtime/runtime.h"

using kern::runtime::Runtime;

namespace {

int32_t *checked(KernHostCtx *ctx, const char *function, int32_t *p) {
  if (!ctx->rt->checkHostRange(function, "address", p, sizeof *p))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return p;
}

/// The __sync read-modify-write pattern: checks `p`, stores op(old value), returns the old one.
template <typename Op> int32_t update(KernHostCtx *ctx, const char *function, int32_t *p, Op op) {
  const int32_t old = *checked(ctx, function, p);
  *p = op(old);
  return old;
}

uint32_t bits(int32_t v) { return static_cast<uint32_t>(v); }

} // namespace

extern "C" {

int32_t kern_rt___sync_fetch_and_add(KernHostCtx *ctx, int32_t *p, int32_t v) {
  return update(ctx, "__sync_fetch_and_add", p,
                [v](int32_t old) { return static_cast<int32_t>(bits(old) + bits(v)); });
}

int32_t kern_rt___sync_fetch_and_sub(KernHostCtx *ctx, int32_t *p, int32_t v) {
  return update(ctx, "__sync_fetch_and_sub", p,
                [v](int32_t old) { return static_cast<int32_t>(bits(old) - bits(v)); });
}

int32_t kern_rt___sync_fetch_and_and(KernHostCtx *ctx, int32_t *p, int32_t v) {
  return update(ctx, "__sync_fetch_and_and", p, [v](int32_t old) { return old & v; });
}

int32_t kern_rt___sync_fetch_and_or(KernHostCtx *ctx, int32_t *p, int32_t v) {
  return update(ctx, "__sync_fetch_and_or", p, [v](int32_t old) { return old | v; });
}

int32_t kern_rt___sync_fetch_and_xor(KernHostCtx *ctx, int32_t *p, int32_t v) {
  return update(ctx, "__sync_fetch_and_xor", p, [v](int32_t old) { return old ^ v; });
}

int32_t kern_rt___sync_lock_test_and_set(KernHostCtx *ctx, int32_t *p, int32_t v) {
  return update(ctx, "__sync_lock_test_and_set", p, [v](int32_t) { return v; });
}

int32_t kern_rt___sync_val_compare_and_swap(KernHostCtx *ctx, int32_t *p, int32_t expected,
                                            int32_t desired) {
  return update(ctx, "__sync_val_compare_and_swap", p,
                [=](int32_t old) { return old == expected ? desired : old; });
}

bool kern_rt___sync_bool_compare_and_swap(KernHostCtx *ctx, int32_t *p, int32_t expected,
                                          int32_t desired) {
  return update(ctx, "__sync_bool_compare_and_swap", p,
                [=](int32_t old) { return old == expected ? desired : old; }) == expected;
}

void kern_rt___sync_synchronize(KernHostCtx *) {}

} // extern "C"
