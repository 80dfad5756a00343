// printf format parsing and per-conversion formatting: each conversion is re-expressed as a
// C format spec with a 64-bit argument and handed to the C library's snprintf, so the digits
// are exactly the C library's.
#include "runtime/printf_format.h"

#include <cstdio>
#include <cstring>
#include <string_view>

namespace kern::runtime {

namespace {

enum class Length { None, Char, Short, Long, LongLong, Size, Max, Ptrdiff, LongDouble };

// Huge widths or precisions (printf("%999999999d")) would make one conversion allocate
// gigabytes, once per lane in a kernel; nothing legitimate needs more than this.
constexpr int kMaxWidth = 1 << 16;

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

double asDouble(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

} // namespace

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
      while (*p >= '0' && *p <= '9')
        width = width > kMaxWidth ? width : width * 10 + (*p++ - '0');
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
        while (*p >= '0' && *p <= '9')
          precision = precision > kMaxWidth ? precision : precision * 10 + (*p++ - '0');
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
      const char *s = reinterpret_cast<const char *>(bits);
      if (!s)
        s = "(null)";
      else if (bits >= options.unreadableLo && bits < options.unreadableHi)
        s = "(device pointer)";
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
