// The split of a program into compile units (partition.h).
#include "backend/partition.h"

#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace kern::backend {

namespace {

/// Calls `visit` on every expression of `b`, operands included, and counts the statements and
/// expressions it meets.
struct Walker {
  std::function<void(const ir::Expr &)> visit;
  uint64_t nodes = 0;

  void expr(const ir::Expr *e) {
    if (!e)
      return;
    ++nodes;
    if (visit)
      visit(*e);
    for (const ir::Expr *o : e->ops)
      expr(o);
  }
  void block(const ir::Block *b) {
    if (!b)
      return;
    for (const ir::Stmt *s : b->stmts)
      stmt(*s);
  }
  void stmt(const ir::Stmt &s) {
    ++nodes;
    for (const ir::Expr *e : {s.addr, s.value, s.cond, s.format, s.sharedBytes, s.stream})
      expr(e);
    for (const ir::Expr *e : s.args)
      expr(e);
    for (int i = 0; i < 3; ++i) {
      expr(s.grid[i]);
      expr(s.blockDim[i]);
    }
    for (const ir::Block *b : {s.thenBody, s.elseBody, s.preCond, s.body, s.step})
      block(b);
  }
};

/// The functions `f` calls directly, or (host code) whose address it takes.
std::vector<const ir::Function *> callees(const ir::Function &f) {
  std::vector<const ir::Function *> out;
  Walker w;
  w.visit = [&](const ir::Expr &e) {
    if ((e.kind == ir::ExprKind::Call || e.kind == ir::ExprKind::FunctionAddr) && e.callee)
      out.push_back(e.callee);
  };
  w.block(f.body);
  return out;
}

/// The host functions that main, or a host function pointer, may reach.
std::set<const ir::Function *> reachableHostFunctions(const ir::Module &m) {
  std::vector<const ir::Function *> work;
  for (const ir::Function *f : m.functions)
    if (f->kind == ir::FunctionKind::Host && f->isMain)
      work.push_back(f);
  for (const ir::Function *f : m.hostFunctionTable)
    if (f) // a __device__ function's or a kernel's entry has no host function
      work.push_back(f);
  std::set<const ir::Function *> seen;
  while (!work.empty()) {
    const ir::Function *f = work.back();
    work.pop_back();
    if (!seen.insert(f).second)
      continue;
    for (const ir::Function *callee : callees(*f))
      if (callee->kind == ir::FunctionKind::Host)
        work.push_back(callee);
  }
  return seen;
}

} // namespace

uint64_t functionSize(const ir::Function &f) {
  Walker w;
  w.block(f.body);
  return w.nodes;
}

std::vector<CompileUnit> partitionModule(const ir::Module &m, uint64_t unitSize) {
  std::vector<CompileUnit> units;
  CompileUnit host;
  host.host = true;
  std::map<const ir::Function *, size_t> index; // warp functions: their place in `warp`
  std::vector<const ir::Function *> warp;
  const std::set<const ir::Function *> reachable = reachableHostFunctions(m);
  for (const ir::Function *f : m.functions) {
    if (f->kind == ir::FunctionKind::Host) {
      if (!reachable.count(f))
        continue; // nothing calls it: LLVM would delete it, after generating and simplifying it
      host.functions.push_back(f);
      host.size += functionSize(*f);
    } else {
      index[f] = warp.size();
      warp.push_back(f);
    }
  }
  if (!host.functions.empty())
    units.push_back(std::move(host));

  // Union-find over the warp functions: a function and its callees are in one group.
  std::vector<size_t> parent(warp.size());
  std::iota(parent.begin(), parent.end(), size_t(0));
  std::function<size_t(size_t)> root = [&](size_t i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  for (size_t i = 0; i < warp.size(); ++i)
    for (const ir::Function *callee : callees(*warp[i])) { // device functions only
      auto it = index.find(callee);
      if (it == index.end())
        continue;
      size_t a = root(i), b = root(it->second);
      if (a != b)
        parent[std::max(a, b)] = std::min(a, b); // the root is the group's first function
    }

  // Groups in the order of their first function, each function in module order; a group with
  // no kernel (device functions nobody launches) is compiled all the same, as before.
  std::map<size_t, CompileUnit> groups;
  for (size_t i = 0; i < warp.size(); ++i) {
    CompileUnit &g = groups[root(i)];
    g.functions.push_back(warp[i]);
    g.size += functionSize(*warp[i]);
  }
  CompileUnit packed;
  auto flush = [&] {
    if (!packed.functions.empty())
      units.push_back(std::move(packed));
    packed = CompileUnit();
  };
  for (auto &[first, g] : groups) {
    if (g.size >= unitSize) {
      units.push_back(std::move(g));
      continue;
    }
    if (packed.size + g.size > unitSize)
      flush();
    packed.functions.insert(packed.functions.end(), g.functions.begin(), g.functions.end());
    packed.size += g.size;
  }
  flush();
  return units;
}

} // namespace kern::backend
