// The one printf formatter of kern: host printf, kernel printf, fprintf and snprintf all format
// through it, from the argument convention of abi.h (each argument as 64 bits).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace kern::runtime {

struct FormatOptions {
  /// `%s` arguments in [unreadableLo, unreadableHi) are not read and print as
  /// "(device pointer)": host code must not read device memory, even through printf.
  uint64_t unreadableLo = 0;
  uint64_t unreadableHi = 0;
  /// Reads a %s argument's string (at most `limit` bytes, up to its NUL) into `out`; false if
  /// `addr` holds none. If empty, readStringSafely.
  std::function<bool(uint64_t addr, size_t limit, std::string &out)> readString;
};

/// Reads the NUL-terminated string at `addr` (at most `limit` bytes) without faulting: false if
/// its memory is not all mapped.
bool readStringSafely(uint64_t addr, size_t limit, std::string &out);

/// Appends `fmt` formatted with `args` to `out` and returns the number of characters appended.
/// `args[i]` holds the i-th argument after C's default promotions: integers extended to 64
/// bits (the length modifier says how many of them count), floating point as double bits,
/// pointers as addresses. A conversion that lacks its argument, or an unknown conversion, is
/// copied literally; `%n` is accepted and writes nothing.
size_t formatPrintf(std::string &out, const char *fmt, int32_t nargs, const uint64_t *args,
                    const FormatOptions &options = {});

} // namespace kern::runtime
