// The backend's view of runtime_functions.def: a name for each runtime function, and its LLVM
// type derived from its C type by the template below, so that no call site restates a
// signature (code generation asks ModuleContext::runtimeFunction for the declaration).
#pragma once

#include "backend/abi.h"

#include <llvm/IR/DerivedTypes.h>

#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

namespace kern::backend {

/// One enumerator per row of runtime_functions.def, spelled as the function.
enum class RuntimeFunction : unsigned {
#define KERN_RT_FUNCTION(name, type) name,
#include "backend/runtime_functions.def"
};

/// The LLVM type of the C type `T`, as the x86-64 C ABI passes it: every pointer is `ptr`,
/// an integer of N bytes is iN*8, float and double are themselves.
template <typename T> struct LlvmType;
template <> struct LlvmType<void> {
  static llvm::Type *get(llvm::LLVMContext &c) { return llvm::Type::getVoidTy(c); }
};
template <> struct LlvmType<float> {
  static llvm::Type *get(llvm::LLVMContext &c) { return llvm::Type::getFloatTy(c); }
};
template <> struct LlvmType<double> {
  static llvm::Type *get(llvm::LLVMContext &c) { return llvm::Type::getDoubleTy(c); }
};
template <typename T> struct LlvmType<T *> {
  static llvm::Type *get(llvm::LLVMContext &c) { return llvm::PointerType::getUnqual(c); }
};
template <typename T>
requires std::is_integral_v<T>
struct LlvmType<T> {
  static llvm::Type *get(llvm::LLVMContext &c) { return llvm::IntegerType::get(c, 8 * sizeof(T)); }
};
template <typename R, typename... A> struct LlvmType<R(A...)> {
  static llvm::FunctionType *get(llvm::LLVMContext &c) {
    return llvm::FunctionType::get(LlvmType<R>::get(c), {LlvmType<A>::get(c)...}, false);
  }
};

/// What a row says: the function's name, its LLVM type, whether it ever returns.
struct RuntimeFunctionInfo {
  const char *name;
  llvm::FunctionType *(*type)(llvm::LLVMContext &);
  bool returns;
};

inline constexpr RuntimeFunctionInfo kRuntimeFunctions[] = {
#define KERN_RT_FUNCTION(name, type) {#name, &LlvmType<type>::get, true},
#define KERN_RT_NORETURN(name, type) {#name, &LlvmType<type>::get, false},
#include "backend/runtime_functions.def"
};

inline const RuntimeFunctionInfo &runtimeFunctionInfo(RuntimeFunction f) {
  return kRuntimeFunctions[static_cast<unsigned>(f)];
}

/// The row named `name` (a full kern_rt_* name), if there is one.
inline std::optional<RuntimeFunction> findRuntimeFunction(std::string_view name) {
  for (size_t i = 0; i < std::size(kRuntimeFunctions); ++i)
    if (name == kRuntimeFunctions[i].name)
      return static_cast<RuntimeFunction>(i);
  return std::nullopt;
}

} // namespace kern::backend
