// String literals, which live in the program's memory like its other objects; and calls
// of a C library function that the program defines itself (Rodinia's kmeans brings GNU
// getopt.c): as a native linker takes the program's definition before the library's, such a
// call goes to the program's function, in every file, though sema checked it against kern's
// built-in where the file saw no definition (frontend/sema_library.cpp).
#include "ir/lower_impl.h"

namespace kern::ir::lower_detail {

fe::FunctionDecl *Lowerer::ownLibraryFunction(fe::Expr *call) {
  if (!ownLibraryKnown_) {
    ownLibraryKnown_ = true;
    for (fe::Decl *d : tu_.decls)
      if (auto *f = dynamic_cast<fe::FunctionDecl *>(d))
        if (f->body && f->templateParams.empty() && !f->quals.device && !f->quals.global &&
            fe::findBuiltin(f->name) >= 0 && fe::builtinInfo(fe::findBuiltin(f->name)).side == 'H')
          ownLibrary_.emplace(f->name, f);
  }
  auto it = ownLibrary_.find(fe::builtinInfo(call->builtin).name);
  return it == ownLibrary_.end() || !functions_.count(it->second) ? nullptr : it->second;
}

GlobalVar *Lowerer::literalGlobal(const std::string &text, AddrSpace space) {
  GlobalVar *&g = literals_[{text, space}];
  if (!g) {
    g = m_.make<GlobalVar>();
    g->id = m_.nextGlobalId();
    g->name = "string literal";
    g->space = space;
    g->init.assign(text.begin(), text.end());
    g->init.push_back(0);
    g->size = g->init.size();
    m_.globals.push_back(g);
  }
  return g;
}

Expr *Lowerer::hostFormat(fe::Expr *f) {
  if (device_)
    return nullptr;
  Expr *a = node(ir::ExprKind::GlobalAddr, Type::ptr(AddrSpace::Host));
  a->global = literalGlobal(f->stringValue, AddrSpace::Host);
  return a;
}

} // namespace kern::ir::lower_detail
