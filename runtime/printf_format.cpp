// printf format parsing and per-conversion formatting: each conversion is re-expressed as a
// C format spec with a 64-bit argument and handed to the C library's snprintf, so the digits
// are exactly the C library's.
#include "runtime/printf_format.h"

#include <algorithm>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace kern::runtime {

namespace {

enum class Length { None, Char, Short, Long, LongLong, Size, Max, Ptrdiff, LongDouble };

// Huge widths or precisions (printf("%999999999d")) would make one conversion allocate
// gigabytes, once per lane in a kernel; nothing legitimate needs more than this.
constexpr int kMaxWidth = 1 << 16;
// The longest string a %s prints (C's has no limit; a pointer into a huge unterminated buffer
// stops here).
constexpr size_t kMaxString = size_t(1) << 20;

std::string hexDigits(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Appends one conversion of `spec` (a complete C format spec for one argument) to `out`.
template <typename T> size_t appendOne(std::string &out, const std::string &spec, T value) {
  char buf[256];
  int n = std::snprintf(buf, sizeof buf, spec.c_str(), value);
  if (n < 0)
    return 0;
  if (static_cast<size_t>(n) < sizeof buf) {
    out.append(buf, static_cast<size_t>(n));
  } else {
    const size_t at = out.size();
    out.resize(at + static_cast<size_t>(n) + 1);
    std::snprintf(out.data() + at, static_cast<size_t>(n) + 1, spec.c_str(), value);
    out.resize(at + static_cast<size_t>(n));
  }
  return static_cast<size_t>(n);
}

int64_t truncSigned(uint64_t bits, Length len) {
  switch (len) {
  case Length::None:
    return static_cast<int32_t>(bits);
  case Length::Char:
    return static_cast<int8_t>(bits);
  case Length::Short:
    return static_cast<int16_t>(bits);
  default:
    return static_cast<int64_t>(bits);
  }
}

uint64_t truncUnsigned(uint64_t bits, Length len) {
  switch (len) {
  case Length::None:
    return static_cast<uint32_t>(bits);
  case Length::Char:
    return static_cast<uint8_t>(bits);
  case Length::Short:
    return static_cast<uint16_t>(bits);
  default:
    return bits;
  }
}

/// Copies `n` bytes at `addr` to `buf` if they are all mapped: false (and no fault) if not. The
/// kernel reads them for us (process_vm_readv on this process), or, where that is not allowed,
/// a pipe's write does (it fails with EFAULT on memory that is not there).
bool probeRead(uint64_t addr, char *buf, size_t n) {
  struct iovec local = {buf, n};
  struct iovec remote = {reinterpret_cast<void *>(addr), n};
  const ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (got == static_cast<ssize_t>(n))
    return true;
  if (got >= 0 || errno == EFAULT)
    return false;
  int fds[2];
  if (pipe(fds) != 0)
    return false;
  const bool ok =
      write(fds[1], reinterpret_cast<const void *>(addr), n) == static_cast<ssize_t>(n) &&
      read(fds[0], buf, n) == static_cast<ssize_t>(n);
  close(fds[0]);
  close(fds[1]);
  return ok;
}

double asDouble(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

} // namespace

bool readStringSafely(uint64_t addr, size_t limit, std::string &out) {
  out.clear();
  constexpr size_t kPage = 4096;
  char buf[kPage];
  while (out.size() < limit) {
    const size_t want = std::min(kPage - addr % kPage, limit - out.size());
    if (!probeRead(addr, buf, want))
      return false;
    const size_t len = strnlen(buf, want);
    out.append(buf, len);
    if (len < want)
      return true;
    addr += want;
  }
  return true;
}

size_t formatPrintf(std::string &out, const char *fmt, int32_t nargs, const uint64_t *args,
                    const FormatOptions &options) {
  const size_t start = out.size();
  if (!fmt) {
    out += "(null)";
    return out.size() - start;
  }
  int32_t next = 0; // index of the next unused argument
  const char *p = fmt;
  while (*p) {
    if (*p != '%') {
      const char *q = std::strchr(p, '%');
      const size_t n = q ? static_cast<size_t>(q - p) : std::strlen(p);
      out.append(p, n);
      p += n;
      continue;
    }
    const char *specStart = p++;
    if (*p == '%') {
      out += '%';
      ++p;
      continue;
    }
    // A spec that cannot be formatted is copied as written, so the output shows the problem.
    auto literal = [&] { out.append(specStart, static_cast<size_t>(p - specStart)); };
    std::string flags;
    while (*p && std::strchr("-+ #0", *p))
      flags += *p++;
    bool missing = false;
    int width = -1;
    if (*p == '*') {
      ++p;
      if (next < nargs) {
        width = static_cast<int32_t>(args[next++]);
        if (width < 0) {
          flags += '-'; // C: a negative width argument is a '-' flag and a positive width
          width = width == INT32_MIN ? kMaxWidth : -width;
        }
      } else {
        missing = true;
      }
    } else if (*p >= '0' && *p <= '9') {
      width = 0;
      for (; *p >= '0' && *p <= '9'; ++p) // every digit is read; the value stops growing
        width = width > kMaxWidth ? width : width * 10 + (*p - '0');
    }
    int precision = -1;
    if (*p == '.') {
      ++p;
      precision = 0;
      if (*p == '*') {
        ++p;
        if (next < nargs) {
          precision = static_cast<int32_t>(args[next++]);
          if (precision < 0)
            precision = -1; // C: a negative precision is taken as if it were omitted
        } else {
          missing = true;
        }
      } else {
        for (; *p >= '0' && *p <= '9'; ++p)
          precision = precision > kMaxWidth ? precision : precision * 10 + (*p - '0');
      }
    }
    Length len = Length::None;
    switch (*p) {
    case 'h':
      ++p;
      len = Length::Short;
      if (*p == 'h') {
        ++p;
        len = Length::Char;
      }
      break;
    case 'l':
      ++p;
      len = Length::Long;
      if (*p == 'l') {
        ++p;
        len = Length::LongLong;
      }
      break;
    case 'q':
      ++p;
      len = Length::LongLong;
      break;
    case 'z':
      ++p;
      len = Length::Size;
      break;
    case 'j':
      ++p;
      len = Length::Max;
      break;
    case 't':
      ++p;
      len = Length::Ptrdiff;
      break;
    case 'L':
      ++p;
      len = Length::LongDouble;
      break;
    default:
      break;
    }
    const char conv = *p;
    if (!conv || !std::strchr("diuoxXcsfFeEgGaApn", conv)) {
      literal();
      continue;
    }
    ++p;
    if (missing || next >= nargs) {
      literal();
      continue;
    }
    const uint64_t bits = args[next++];
    if (width > kMaxWidth)
      width = kMaxWidth;
    if (precision > kMaxWidth && conv != 's')
      precision = kMaxWidth;
    std::string spec = "%";
    spec += flags;
    if (width >= 0)
      spec += std::to_string(width);
    if (precision >= 0 && conv != 'c' && conv != 'p') {
      spec += '.';
      spec += std::to_string(precision);
    }
    switch (conv) {
    case 'd':
    case 'i':
      appendOne(out, spec + "ll" + conv, static_cast<long long>(truncSigned(bits, len)));
      break;
    case 'u':
    case 'o':
    case 'x':
    case 'X':
      appendOne(out, spec + "ll" + conv, static_cast<unsigned long long>(truncUnsigned(bits, len)));
      break;
    case 'c':
      // %lc would take a wint_t; kern has no wide characters, so it prints the byte.
      appendOne(out, spec + 'c', static_cast<int>(static_cast<unsigned char>(bits)));
      break;
    case 's': {
      // The string is read without trusting the pointer: one that points at nothing prints
      // as what it is instead of taking the process down.
      std::string text;
      const size_t limit = precision >= 0 ? static_cast<size_t>(precision) : kMaxString;
      if (!bits)
        text = "(null)";
      else if (bits >= options.unreadableLo && bits < options.unreadableHi)
        text = "(device pointer)";
      else if (options.readString ? !options.readString(bits, limit, text)
                                  : !readStringSafely(bits, limit, text))
        text = "(bad pointer 0x" + hexDigits(bits) + ")";
      const char *s = text.c_str();
      appendOne(out, spec + 's', s);
      break;
    }
    case 'p':
      appendOne(out, spec + 'p', reinterpret_cast<void *>(bits));
      break;
    case 'n':
      break; // writing through a pointer from a format string is never wanted here
    default: // f F e E g G a A: the argument was promoted to double (L: there is no long double)
      appendOne(out, spec + conv, asDouble(bits));
      break;
    }
  }
  return out.size() - start;
}

} // namespace kern::runtime
