// C++ exceptions of host code (frontend/sema_exceptions.cpp writes the calls). Each thread
// keeps its try blocks, innermost last: a try block is a setjmp frame of the function that
// holds it (runtime/host_jumps.cpp), pushed when entered and popped on every way out of it. A
// throw records the exception and jumps to the innermost try block still live, whose handlers
// test it one by one (__kern_catch); none taking it sends it on to the next. With no try block
// left the program ends as libstdc++'s std::terminate ends it: its message, then abort's
// status (134). Frames left by an exception run no destructors (kern's longjmp does not).
#include "backend/abi.h"
#include "runtime/runtime.h"

#include <csignal>
#include <cstring>

using kern::runtime::Runtime;

namespace {

uint64_t addressOf(const void *p) { return reinterpret_cast<uint64_t>(p); }

/// Ends the program for an exception no handler takes (or `throw;` with none being handled).
[[noreturn]] void terminate(KernHostCtx *ctx, const KernHostCtx::Exception *e) {
  Runtime &rt = *ctx->rt;
  if (!e) {
    rt.write(2, "terminate called without an active exception\n");
    rt.hostProblem(rt.apiSite(), "'throw;' with no exception being handled");
  } else {
    rt.write(2, "terminate called after throwing an instance of '" + e->name + "'\n");
    if (e->hasWhat)
      rt.write(2, "  what():  " + e->what + "\n");
    rt.hostProblem(e->site, "an exception of type '" + e->name +
                                "' was thrown here and no handler caught it");
  }
  Runtime::unwind(ctx, 128 + SIGABRT);
}

/// Whether the try block at `env` can still be jumped to: its frame holds a live context of
/// setjmp on this thread (a longjmp past the function that holds it leaves it dead).
bool live(KernHostCtx *ctx, uint64_t env) {
  if (ctx->rt->hostObjectRoom(env) < 2 * sizeof(uint64_t))
    return false;
  const auto *words = reinterpret_cast<const uint64_t *>(env);
  if (words[0] < 1 || words[0] > ctx->jumps.size())
    return false;
  const KernHostCtx::Jump &j = *ctx->jumps[words[0] - 1];
  return j.live && j.generation == words[1] && j.stackLo == ctx->stackLo && j.env == env;
}

/// The handlers a throw left (their exceptions end): their objects go back to the heap.
void endCaught(KernHostCtx *ctx, size_t depth) {
  while (ctx->caught.size() > depth) {
    ctx->rt->hostDelete(reinterpret_cast<void *>(ctx->caught.back().object), 0);
    ctx->caught.pop_back();
  }
}

/// Sends ctx->thrown to the innermost live try block.
[[noreturn]] void propagate(KernHostCtx *ctx) {
  while (!ctx->tries.empty()) {
    const KernHostCtx::Try t = ctx->tries.back();
    ctx->tries.pop_back();
    if (!live(ctx, t.env))
      continue;
    endCaught(ctx, t.caughtDepth);
    kern_rt_longjmp(ctx, ctx->thrown.back().site, t.env, 1, 0);
  }
  terminate(ctx, &ctx->thrown.back());
}

/// Reads sema's table: a kind letter and the type's name, then one "key@offset" a line.
bool parseTypes(const char *text, KernHostCtx::Exception &e) {
  std::string s(text);
  size_t line = s.find('\n');
  if (s.empty() || line == std::string::npos)
    return false;
  e.kind = s[0];
  e.name = s.substr(1, line - 1);
  while (line != std::string::npos) {
    size_t next = s.find('\n', line + 1);
    std::string entry =
        s.substr(line + 1, next == std::string::npos ? std::string::npos : next - line - 1);
    size_t at = entry.rfind('@');
    if (at == std::string::npos)
      return false;
    e.types.emplace_back(entry.substr(0, at), std::stoull(entry.substr(at + 1)));
    line = next;
  }
  return true;
}

} // namespace

extern "C" void kern_rt___kern_try_push(KernHostCtx *ctx, void *env) {
  ctx->tries.push_back({addressOf(env), ctx->caught.size()});
}

extern "C" void kern_rt___kern_try_pop(KernHostCtx *ctx, void *env) {
  // A try block left by a throw is no longer there.
  if (!ctx->tries.empty() && ctx->tries.back().env == addressOf(env))
    ctx->tries.pop_back();
}

extern "C" void kern_rt___kern_throw(KernHostCtx *ctx, void *object, const char *types,
                                     const char *what) {
  // Made in place: propagate leaves this frame by longjmp, which runs no destructor of a local.
  ctx->thrown.clear();
  KernHostCtx::Exception &e = ctx->thrown.emplace_back();
  e.object = addressOf(object);
  e.site = ctx->rt->apiSite();
  if (!parseTypes(types, e)) {
    ctx->rt->hostProblem(e.site, "internal error: a malformed exception type table");
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  }
  if (e.kind == 'P')
    std::memcpy(&e.pointer, object, sizeof e.pointer);
  if (what) {
    uint64_t len = 0;
    if (!ctx->rt->checkHostString("throw", "what() string", what, len))
      Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
    e.hasWhat = true;
    e.what.assign(what, len);
  }
  propagate(ctx);
}

extern "C" void kern_rt___kern_rethrow(KernHostCtx *ctx) {
  if (ctx->caught.empty())
    terminate(ctx, nullptr);
  ctx->thrown.clear();
  ctx->thrown.push_back(std::move(ctx->caught.back()));
  ctx->caught.pop_back();
  const KernHostCtx::Exception &e = ctx->thrown.back();
  if (e.kind == 'P') // a handler's copy of the pointer may have been adjusted to a base
    std::memcpy(reinterpret_cast<void *>(e.object), &e.pointer, sizeof e.pointer);
  propagate(ctx);
}

extern "C" void *kern_rt___kern_catch(KernHostCtx *ctx, const char *key) {
  if (ctx->thrown.empty())
    return nullptr;
  KernHostCtx::Exception &e = ctx->thrown.back();
  bool found = key[0] == 0;
  uint64_t offset = 0;
  for (const auto &[type, off] : e.types)
    if (!found && type == key) {
      found = true;
      offset = off;
    }
  if (!found)
    return nullptr;
  ctx->caught.push_back(std::move(e));
  ctx->thrown.clear();
  KernHostCtx::Exception &c = ctx->caught.back();
  if (c.kind == 'P') {
    const uint64_t adjusted = c.pointer ? c.pointer + offset : 0;
    std::memcpy(reinterpret_cast<void *>(c.object), &adjusted, sizeof adjusted);
    return reinterpret_cast<void *>(c.object);
  }
  return reinterpret_cast<void *>(c.object + offset);
}

extern "C" void kern_rt___kern_catch_end(KernHostCtx *ctx) {
  if (!ctx->caught.empty())
    endCaught(ctx, ctx->caught.size() - 1);
}

extern "C" void kern_rt___kern_catch_none(KernHostCtx *ctx) {
  if (ctx->thrown.empty())
    terminate(ctx, nullptr);
  propagate(ctx);
}
