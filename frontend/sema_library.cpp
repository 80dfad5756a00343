// A program's own definition of a C library function: as a native linker takes the program's
// definition before the library's, kern's built-in of that name gives way to it (Rodinia's
// kmeans brings GNU getopt.c). Sema registers the definition as an ordinary function; the
// lowering sends calls that sema checked against the built-in to it (ir/lower_calls.cpp).
#include "frontend/sema_impl.h"

namespace kern::frontend::sema_detail {

bool Sema::ownsLibraryFunction(const FunctionDecl *f) {
  if (!f->body)
    return false; // a declaration: kern's function is called
  int b = findBuiltin(f->name);
  if (b >= 0 && builtinInfo(b).side == 'H' && f->templateParams.empty() && !f->quals.device &&
      !f->quals.global)
    return true;
  // A function that device code may call too is part of the language here (CUDA's math).
  error(f->loc, "redefinition of built-in function '" + f->name + "'");
  return false;
}

} // namespace kern::frontend::sema_detail
