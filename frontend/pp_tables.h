// The preprocessor's tables (frontend/pp_tables.cpp).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kern::frontend::pp_detail {

/// Headers the language accepts and ignores (LANGUAGE.md): their declarations are built in.
extern const std::set<std::string> kSystemHeaders;
/// Headers of CUDA and of C++ that kern knows but whose contents are not supported yet: the
/// include is accepted, and the first use of what they declare gets its own diagnostic.
extern const std::set<std::string> kDeferredHeaders;
/// CUDA's headers (and the samples' helpers that stand for them): a C or C++ file that includes
/// none of them sees no CUDA type, as when nvcc hands it to the host compiler.
extern const std::set<std::string> kCudaHeaders;
/// Keywords of C++ that are identifiers in C: a C file's `new` is renamed `__c_new` before
/// parsing (the grammar is C++'s).
extern const std::set<std::string> kCxxOnlyKeywords;
/// Macros that a built-in header defines when it is included, and only then.
extern const std::map<std::string, std::vector<const char *>> kHeaderMacros;
/// `NAME VALUE` definitions every program starts with.
extern const std::vector<const char *> kPredefined;

} // namespace kern::frontend::pp_detail
