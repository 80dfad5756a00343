// The one printf formatter of kern: host printf, kernel printf, fprintf and snprintf all format
// through it, from the argument convention of abi.h (each argument as 64 bits).
#pragma once

#include <cstdint>
#include <string>

namespace kern::runtime {

struct FormatOptions {
  /// `%s` arguments in [unreadableLo, unreadableHi) are not read and print as
  /// "(device pointer)": host code must not read device memory, even through printf.
  uint64_t unreadableLo = 0;
  uint64_t unreadableHi = 0;
};

/// Appends `fmt` formatted with `args` to `out` and returns the number of characters appended.
/// `args[i]` holds the i-th argument after C's default promotions: integers extended to 64
/// bits (the length modifier says how many of them count), floating point as double bits,
/// pointers as addresses. A conversion that lacks its argument, or an unknown conversion, is
/// copied literally; `%n` is accepted and writes nothing.
size_t formatPrintf(std::string &out, const char *fmt, int32_t nargs, const uint64_t *args,
                    const FormatOptions &options = {});

} // namespace kern::runtime
