// Where the `__shared__` variables declared outside kernels go: at file scope, or in
// __device__ functions, which CUDA allows. They are not tied to one kernel, so each gets one
// offset that every kernel reaching it shares (a device function finds it at the same place
// whichever kernel called it), and each kernel's own shared variables follow the common ones
// it may reach. As nvcc allocates a device function's shared variable only in the kernels
// that call the function, a kernel that reaches none of them does not pay for them: variables
// that no kernel reaches together may share bytes.
#include "ir/lower_impl.h"

#include <functional>
#include <set>

namespace kern::ir::lower_detail {

namespace {

using KernelSet = std::set<const fe::FunctionDecl *>;

const fe::FunctionDecl *definitionOf(const fe::FunctionDecl *f) {
  return f->definition ? f->definition : f;
}

/// The functions `f`'s body names (calls, constructors and destructors that sema made calls,
/// lambdas, functions whose address it takes), and a virtual dispatcher's targets.
void callees(const fe::FunctionDecl *f, std::vector<const fe::FunctionDecl *> &out) {
  std::function<void(const fe::Expr *)> expr;
  std::function<void(const fe::Stmt *)> stmt = [&](const fe::Stmt *s) {
    if (!s)
      return;
    for (const fe::Stmt *c : s->body)
      stmt(c);
    for (const fe::Decl *d : s->decls)
      if (auto *v = dynamic_cast<const fe::VarDecl *>(d))
        expr(v->init);
    for (const fe::Expr *e : {s->expr, s->cond, s->step, s->caseValue})
      expr(e);
    for (const fe::Stmt *c : {s->init, s->then, s->elseStmt})
      stmt(c);
  };
  expr = [&](const fe::Expr *e) {
    if (!e)
      return;
    if (auto *g = dynamic_cast<const fe::FunctionDecl *>(e->decl))
      out.push_back(definitionOf(g));
    if (e->lambda)
      out.push_back(definitionOf(e->lambda));
    for (const auto *list : {&e->operands, &e->args, &e->launchConfig})
      for (const fe::Expr *o : *list)
        expr(o);
    expr(e->placement);
    stmt(e->body);
  };
  stmt(f->body);
  for (const fe::FunctionDecl::MemberInit &m : f->memberInits)
    for (const fe::Expr *a : m.args)
      expr(a);
  if (f->dispatches)
    out.push_back(definitionOf(f->dispatches));
  for (const auto &[vtable, chain] : f->virtualTargets)
    for (const fe::FunctionDecl *t : chain)
      out.push_back(definitionOf(t));
}

} // namespace

void Lowerer::placeCommonShared() {
  // The variables: those at file scope and those of device functions reached only through
  // pointers (or by no kernel that the calls show) are reachable from every kernel.
  std::vector<fe::VarDecl *> everywhere;
  std::map<const fe::FunctionDecl *, std::vector<fe::VarDecl *>> ofFunction;
  std::vector<const fe::FunctionDecl *> kernels, functions;
  std::function<void(fe::Stmt *, std::vector<fe::VarDecl *> &)> walk =
      [&](fe::Stmt *st, std::vector<fe::VarDecl *> &into) {
        if (!st)
          return;
        for (fe::Decl *d : st->decls)
          if (auto *v = dynamic_cast<fe::VarDecl *>(d); v && v->quals.shared)
            into.push_back(v);
        for (fe::Stmt *c : st->body)
          walk(c, into);
        walk(st->init, into);
        walk(st->then, into);
        walk(st->elseStmt, into);
      };
  bool pointersToFunctions = false;
  for (fe::Decl *d : tu_.decls) {
    if (auto *v = dynamic_cast<fe::VarDecl *>(d); v && v->quals.shared)
      everywhere.push_back(v);
    auto *f = dynamic_cast<fe::FunctionDecl *>(d);
    if (!f || !f->body || f->definition != f)
      continue;
    functions.push_back(f);
    if (f->quals.global)
      kernels.push_back(f);
    else if (f->quals.device)
      walk(f->body, ofFunction[f]);
    pointersToFunctions = pointersToFunctions || (f->addressTaken && f->quals.device);
  }
  // Which kernels reach each function, through the calls their bodies make.
  std::map<const fe::FunctionDecl *, std::vector<const fe::FunctionDecl *>> calls;
  for (const fe::FunctionDecl *f : functions)
    callees(f, calls[f]);
  std::map<const fe::FunctionDecl *, KernelSet> reachedBy;
  for (const fe::FunctionDecl *k : kernels) {
    std::vector<const fe::FunctionDecl *> work{k};
    while (!work.empty()) {
      const fe::FunctionDecl *f = work.back();
      work.pop_back();
      if (!reachedBy[f].insert(k).second)
        continue;
      for (const fe::FunctionDecl *g : calls[f])
        work.push_back(g);
    }
  }
  auto place = [&](fe::VarDecl *v, uint64_t from) {
    uint64_t a = std::max<uint64_t>(v->type->align(), 4);
    uint64_t off = (from + a - 1) / a * a;
    commonShared_[v] = static_cast<int64_t>(off);
    return off + v->type->size();
  };
  // A device function called through a pointer may run in any kernel: with such functions
  // in the program, every variable is reachable from every kernel (the layout of before).
  for (auto &[f, vars] : ofFunction)
    if (pointersToFunctions || f->addressTaken || reachedBy[f].empty())
      everywhere.insert(everywhere.end(), vars.begin(), vars.end());
  for (fe::VarDecl *v : everywhere)
    if (v->type && !v->quals.isExtern && !commonShared_.count(v))
      everywhereSharedBytes_ = place(v, everywhereSharedBytes_);
  // The others after those, each after the variables already placed that one of its kernels
  // reaches too.
  std::vector<std::pair<fe::VarDecl *, const KernelSet *>> placed;
  for (const fe::FunctionDecl *f : functions) {
    auto it = ofFunction.find(f);
    if (it == ofFunction.end())
      continue;
    const KernelSet &ks = reachedBy[f];
    for (fe::VarDecl *v : it->second) {
      if (!v->type || v->quals.isExtern || commonShared_.count(v))
        continue; // extern: the dynamic region, after each kernel's static variables
      uint64_t from = everywhereSharedBytes_;
      for (auto &[w, wks] : placed) {
        bool shared = false;
        for (const fe::FunctionDecl *k : ks)
          shared = shared || wks->count(k);
        if (shared)
          from = std::max<uint64_t>(from, commonShared_[w] + w->type->size());
      }
      uint64_t end = place(v, from);
      placed.push_back({v, &ks});
      for (const fe::FunctionDecl *k : ks)
        commonSharedEnds_[k] = std::max(commonSharedEnds_[k], end);
    }
  }
}

uint64_t Lowerer::commonSharedEnd(const fe::FunctionDecl *k) const {
  auto it = commonSharedEnds_.find(k);
  uint64_t end = std::max(everywhereSharedBytes_, it != commonSharedEnds_.end() ? it->second : 0);
  return (end + 15) / 16 * 16; // the kernel's own variables start 16-byte aligned
}

} // namespace kern::ir::lower_detail
