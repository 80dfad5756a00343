// setjmp and longjmp of host code. The compiled code calls the C library's _setjmp itself (it
// must return twice into the caller's own frame), on a context kept here: the program's
// jmp_buf holds only the context's number and generation, so no value the program writes is
// ever jumped to. A longjmp is made only to a context whose function is still running on the
// calling thread, at or above the caller: anything else (a jmp_buf that setjmp never filled, a
// function that has returned, another thread's context) is a fault that says so. The arena
// frames of the functions a longjmp leaves are given back and cleared in the shadow map, as
// their returns would have.
#include "runtime/runtime.h"

#include <memory>

using kern::runtime::kHostFaultExitCode;
using kern::runtime::Runtime;

namespace {

/// The bytes of kern's jmp_buf that hold a context's number and generation (<setjmp.h>).
constexpr uint64_t kEnvBytes = 16;
/// Contexts live at once on all threads; more means a runaway recursion through setjmp.
constexpr size_t kMaxJumps = size_t(1) << 16;

/// Contexts of this thread whose frames lie below `frame` (their functions have returned, or
/// are being left by a longjmp) are dead.
void dropBelow(KernHostCtx *ctx, uint64_t frame, bool andAt) {
  for (auto &j : ctx->jumps)
    if (j->live && j->stackLo == ctx->stackLo && (j->frame < frame || (andAt && j->frame == frame)))
      j->live = false;
}

} // namespace

extern "C" void *kern_rt_setjmp_slot(KernHostCtx *ctx, uint32_t site, uint64_t env,
                                     uint64_t frame) {
  if (!ctx->rt->hostAccess(site, env, kEnvBytes, true, nullptr))
    Runtime::unwind(ctx, kHostFaultExitCode);
  dropBelow(ctx, frame, false);
  auto &jumps = ctx->jumps;
  size_t index = jumps.size();
  // The same jmp_buf set again by the same call of a function reuses its context (a loop
  // around setjmp); otherwise a dead context, or a new one.
  for (size_t i = 0; i < jumps.size() && index == jumps.size(); ++i) {
    const KernHostCtx::Jump &j = *jumps[i];
    if (j.live && j.stackLo == ctx->stackLo && j.frame == frame && j.env == env)
      index = i;
  }
  for (size_t i = 0; i < jumps.size() && index == jumps.size(); ++i)
    if (!jumps[i]->live)
      index = i;
  if (index == jumps.size()) {
    if (jumps.size() >= kMaxJumps) {
      ctx->rt->hostProblem(site, "setjmp: more than " + std::to_string(kMaxJumps) +
                                     " contexts are live at once (a recursion through setjmp?)");
      Runtime::unwind(ctx, kHostFaultExitCode);
    }
    jumps.push_back(std::make_unique<KernHostCtx::Jump>());
  }
  KernHostCtx::Jump &j = *jumps[index];
  ++j.generation;
  j.frame = frame;
  j.stackLo = ctx->stackLo;
  j.arenaSp = ctx->sp;
  j.env = env;
  j.live = true;
  auto *words = reinterpret_cast<uint64_t *>(env);
  words[0] = index + 1;
  words[1] = j.generation;
  return &j.native;
}

extern "C" void kern_rt_setjmp_leave(KernHostCtx *ctx, uint64_t frame) {
  dropBelow(ctx, frame, true);
}

extern "C" void kern_rt_longjmp(KernHostCtx *ctx, uint32_t site, uint64_t env, int32_t value,
                                uint64_t frame) {
  if (!ctx->rt->hostAccess(site, env, kEnvBytes, false, nullptr))
    Runtime::unwind(ctx, kHostFaultExitCode);
  const auto *words = reinterpret_cast<const uint64_t *>(env);
  auto &jumps = ctx->jumps;
  KernHostCtx::Jump *j =
      words[0] >= 1 && words[0] <= jumps.size() ? jumps[words[0] - 1].get() : nullptr;
  const char *problem = nullptr;
  if (!j || j->generation != words[1])
    problem = "the jmp_buf holds no context of setjmp (setjmp never filled it, or it was "
              "filled again since this copy was made)";
  else if (j->stackLo != ctx->stackLo)
    problem = "the jmp_buf was filled by setjmp on another thread";
  else if (!j->live || j->frame < frame)
    problem = "the function that called setjmp has returned";
  if (problem) {
    ctx->rt->hostProblem(site, std::string("longjmp: ") + problem);
    Runtime::unwind(ctx, kHostFaultExitCode);
  }
  dropBelow(ctx, j->frame, false);
  if (j->arenaSp > ctx->sp) {
    // The arena frames of the functions left: out of the shadow map, and given back.
    auto *shadow = const_cast<uint64_t *>(ctx->shadow);
    for (uint64_t a = ctx->sp; a < j->arenaSp; a += KERN_HOST_GRANULE)
      shadow[(a - ctx->arenaLo) / KERN_HOST_GRANULE] = 0;
    ctx->sp = j->arenaSp;
  }
  std::longjmp(j->native, value == 0 ? 1 : value);
}
