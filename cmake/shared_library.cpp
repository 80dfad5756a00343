// The one source of libkern.so (cmake/Package.cmake): the library is libkern.a's objects,
// linked whole; a shared library target needs a source of its own.
namespace kern {}
